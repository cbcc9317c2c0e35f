"""``dominolab admin``: moderation and privacy on a server's database (docs/web.md,
"Moderation and privacy"): rename, ban, unban, hide a name, forget a player, export what is
stored about one, and read the audit of it all.

It talks to the database, not to a running server; each action is one transaction with its
audit row, and the running servers see it within seconds (on SQLite by reading one row every
second, on PostgreSQL over their event bus). A player is named by id or by exact name. Bad
input is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from dominolab.cli.inputs import whole_number

if TYPE_CHECKING:
    from dominolab.web.storage.store import Store

#: the longest ``--reason`` and ``--by`` kept
MAX_REASON: Final = 500
MAX_BY: Final = 100
#: how long an action waits for a busy server's write lock (SQLite) before it fails: a
#: moderator would rather wait than be told to try again
BUSY_SECONDS: Final = 30.0


def add_parser(sub: Any) -> None:
    """The ``admin`` subcommand and its actions, on ``dominolab``'s subparsers."""
    p = sub.add_parser(
        "admin", help="moderation and privacy: rename, ban, hide a name, forget or export a "
                      "player, and the audit of it all",
        description="Act on the players of a server's database (not through a running "
        "server: the servers see each action within seconds). PLAYER is a player's id or "
        "exact name. Every action is recorded in the audit table with who ran it, when and "
        "why. See docs/web.md, \"Moderation and privacy\".")
    p.add_argument("--db", default=None, metavar="FILE|URL",
                   help="the games database the servers use (default: $DOMINOLAB_DB, else "
                        "~/.local/share/dominolab/games.sqlite3)")
    p.add_argument("--by", default=None, metavar="NAME",
                   help="who is acting, for the audit (default: your user name)")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    def action(name: str, help: str, *, reason: bool = True) -> argparse.ArgumentParser:
        a: argparse.ArgumentParser = actions.add_parser(name, help=help, description=help)
        a.add_argument("player", metavar="PLAYER", help="the player's id, or exact name")
        if reason:
            a.add_argument("--reason", default="", metavar="TEXT",
                           help="why, for the audit (and, for a ban, kept with it)")
        return a

    a = action("rename", "give the player another name (checked as a new player's name is)")
    a.add_argument("name", metavar="NEWNAME", help="the new name")
    action("ban", "ban the player: no seeks, quick pairing or rated matches, off the "
                  "leaderboard; their open seeks are deleted (casual games against the "
                  "computer still work)")
    action("unban", "lift the player's ban")
    action("hide-name", "show the player's name as 'hidden name' everywhere until they are "
                        "renamed (nobody else can take the hidden name)")
    action("forget", "delete the player's data on their request: name, key, ratings and "
                     "seeks gone; their games stay for the opponent, the seat shown as "
                     "'a deleted player'")
    a = action("export", "everything stored about the player, as JSON")
    a.add_argument("--out", type=Path, default=None, metavar="FILE",
                   help="write it to FILE (default: print it)")
    a = actions.add_parser("audit", help="the latest moderators' actions, oldest first",
                           description="the latest moderators' actions, oldest first")
    a.add_argument("--last", type=whole_number(1, 100_000, digits=6), default=20, metavar="N",
                   help="how many (default: 20)")
    a.add_argument("--json", action="store_true", help="one JSON object a line")


def _fail(message: str) -> int:
    print(f"dominolab admin: {message}", file=sys.stderr)
    return 2


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))


def run_admin(args: argparse.Namespace) -> int:
    from dominolab.cli.serve import default_db, is_database_url, shown_db
    from dominolab.web.storage.database import DATABASE_ERRORS
    from dominolab.web.storage.moderation import ModerationRefused
    from dominolab.web.storage.store import Store, StoreError

    try:
        by = args.by if args.by is not None else getpass.getuser()
    except (OSError, KeyError):
        by = f"uid {os.getuid()}"
    by = " ".join(str(by).split())
    if not by or len(by) > MAX_BY:
        return _fail(f"--by takes a name of 1 to {MAX_BY} characters")
    reason = " ".join(str(getattr(args, "reason", "")).split())
    if len(reason) > MAX_REASON:
        return _fail(f"--reason takes at most {MAX_REASON} characters, not {len(reason)}")
    db: Path | str = default_db() if not args.db else \
        args.db if is_database_url(args.db) else Path(args.db)
    if isinstance(db, Path) and not db.is_file():
        return _fail(f"there is no database at {db} (give the servers' --db)")
    try:
        store = Store(db, busy_timeout=BUSY_SECONDS)
    except StoreError as exc:
        return _fail(str(exc))
    try:
        return _act(args, store, by, reason)
    except ModerationRefused as exc:
        return _fail(str(exc))
    except DATABASE_ERRORS as exc:
        return _fail(f"{shown_db(db)}: the database failed ({' '.join(str(exc).split())}); "
                     f"nothing was changed")
    finally:
        store.close()


def _act(args: argparse.Namespace, store: Store, by: str, reason: str) -> int:
    """Run the action ``args`` names; 0 when done, else the failure's status."""
    from dominolab.web.community.names import NameRefused, check_name, skeleton
    from dominolab.web.storage.backup import BackupError, write_whole

    action = args.action
    if action == "audit":
        for row in store.audit_rows(args.last):
            if args.json:
                print(json.dumps(row.to_dict(), ensure_ascii=False, sort_keys=True))
            else:
                detail = json.dumps(row.detail, ensure_ascii=False, sort_keys=True) \
                    if row.detail else "-"
                print(f"{_when(row.at)}  {row.by}  {row.action}  {row.player}  {detail}"
                      f"{'  why: ' + row.reason if row.reason else ''}")
        return 0
    if action == "export":
        out: Path | None = args.out
        if out is not None and not out.parent.is_dir():
            return _fail(f"--out: there is no folder {out.parent}")
        if out is not None and out.is_dir():
            return _fail(f"--out: {out} is a folder; give the file's name")
        data = store.export_player(args.player, by, reason)
        text = json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
        if out is None:
            sys.stdout.write(text)
        else:
            try:
                write_whole(out, text.encode())
            except BackupError as exc:
                return _fail(str(exc))
            print(f"exported player {data['player']['id']} to {out}")
        return 0
    if action == "rename":
        try:
            name = check_name(args.name)
        except NameRefused as exc:
            return _fail(f"the name {args.name!r} cannot be used: {exc}")
        row = store.rename_player(args.player, name, skeleton(name), by, reason)
        print(f"renamed player {row.player} from {row.detail['from']!r} to {name!r}")
        return 0
    if action == "ban":
        row = store.ban_player(args.player, by, reason)
        print(f"banned player {row.player} ({row.detail['name']!r}); "
              f"{row.detail['seeks_deleted']} open seek(s) deleted")
        return 0
    if action == "unban":
        row = store.unban_player(args.player, by, reason)
        print(f"lifted player {row.player}'s ban")
        return 0
    if action == "hide-name":
        row = store.hide_name(args.player, by, reason)
        print(f"hid player {row.player}'s name {row.detail['from']!r}")
        return 0
    if action == "forget":
        row = store.forget_player(args.player, by, reason)
        print(f"forgot player {row.player}: name, key, ratings and seeks deleted; their "
              f"games stay for the opponent")
        return 0
    raise AssertionError(action)
