"""A moderator's actions on players (docs/web.md, "Moderation and privacy"), as
``dominolab admin`` runs them against the database: rename, ban and unban, hide a name,
forget a player (their name and key gone, their games kept for the opponent), export what is
stored about one, and the audit of them all.

Each action is one transaction with its :class:`AuditRow` (who, when, what, why) and, for
those that change a player, one more in the ``players_version`` fact and an announcement
(:meth:`Moderation._announce`: nothing here, a NOTIFY on PostgreSQL, sent as the
transaction commits), so that running servers see it: on SQLite by reading that one fact
every second, on PostgreSQL over the event bus. Names are checked by the caller
(:mod:`dominolab.web.community.names`); the store only stores them.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any, Final

from dominolab.web.storage.database import Database

#: what every seat of a forgotten player's games shows, in place of their name
FORGOTTEN_NAME: Final = "a deleted player"
#: what a hidden name shows until the player is renamed
HIDDEN_NAME: Final = "hidden name"
#: the actions an audit row may name
ACTIONS: Final = ("rename", "ban", "unban", "hide-name", "forget", "export")


class ModerationRefused(ValueError):
    """An action that cannot be done as asked (no such player, a name taken...), with the
    reason in words for the moderator."""


@dataclass(frozen=True, slots=True)
class ModeratedPlayer:
    """A player as a moderator sees it."""

    id: str
    name: str
    created: float
    banned: float | None
    ban_reason: str | None
    forgotten: float | None


@dataclass(frozen=True, slots=True)
class AuditRow:
    """One moderator's action: when, by whom, which, on which player, what it changed
    (``detail``: emptied when the player is forgotten) and why."""

    id: str
    at: float
    by: str
    action: str
    player: str
    detail: dict[str, Any]
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "at": self.at, "by": self.by, "action": self.action,
                "player": self.player, "detail": self.detail, "reason": self.reason}


_PLAYER_COLUMNS: Final = "id, name, created, banned, ban_reason, forgotten"
_AUDIT_COLUMNS: Final = "id, at, by_whom, action, player, detail, reason"


def _audit_row(found: Any) -> AuditRow:
    # the details this server wrote itself (not outside input)
    return AuditRow(found[0], found[1], found[2], found[3], found[4],
                    json.loads(found[5]) if found[5] else {}, found[6])


class Moderation(Database):
    """The moderators' part of :class:`~dominolab.web.storage.store.Store`."""

    def _announce(self, topic: str, message: dict[str, Any]) -> None:
        """Tell the running servers, as the current transaction commits (SQLite's poll the
        ``players_version`` fact instead; :class:`~dominolab.web.storage.pg.PgStore`
        sends a NOTIFY)."""

    def find_player(self, which: str) -> ModeratedPlayer:
        """The player whose id is ``which``, else the one whose name is exactly ``which``;
        :class:`ModerationRefused` if there is none, or several have that name (hidden or
        forgotten ones: name one by id)."""
        with self._lock:
            return self._find(which)

    def _find(self, which: str) -> ModeratedPlayer:
        """:meth:`find_player`, under the lock already (in a transaction)."""
        found = self._db.execute(f"SELECT {_PLAYER_COLUMNS} FROM players WHERE id = ?",
                                 (which,)).fetchall()
        if not found:
            found = self._db.execute(
                f"SELECT {_PLAYER_COLUMNS} FROM players WHERE name = ? ORDER BY id",
                (which,)).fetchall()
        if not found:
            raise ModerationRefused(f"no player has the id or the name {which!r}")
        if len(found) > 1:
            ids = ", ".join(str(r[0]) for r in found[:5])
            raise ModerationRefused(f"{len(found)} players are called {which!r} ({ids}"
                                    f"{', ...' if len(found) > 5 else ''}); name one by id")
        return ModeratedPlayer(*found[0])

    def _record(self, action: str, player: str, by: str, reason: str,
                detail: dict[str, Any], *, changed: bool = True) -> AuditRow:
        """The audit row of an action, inside its transaction; an action that ``changed``
        a player also counts in ``players_version`` and is announced."""
        row = AuditRow(secrets.token_urlsafe(9), self.clock(), by, action, player, detail,
                       reason)
        self._db.execute(
            f"INSERT INTO audit ({_AUDIT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (row.id, row.at, row.by, row.action, row.player,
             json.dumps(detail, ensure_ascii=False, sort_keys=True), row.reason))
        if changed:
            self._set_fact("players_version", str(1 + int(self._fact("players_version") or 0)))
            self._announce("players", {"player": player, "action": action})
            self._announce("lobby", {"player": player})  # its names, a ban's seeks
        return row

    def _live(self, which: str) -> ModeratedPlayer:
        found = self._find(which)
        if found.forgotten is not None:
            raise ModerationRefused(f"player {found.id} was forgotten; there is nothing "
                                    f"left to change")
        return found

    def rename_player(self, which: str, name: str, skeleton: str, by: str,
                      reason: str = "") -> AuditRow:
        """Call the player ``name`` (checked by the caller, whose ``skeleton`` it has);
        :class:`ModerationRefused` if another player's name has that skeleton."""
        with self._write():
            found = self._live(which)
            taken = self._db.execute("SELECT id FROM players WHERE skeleton = ? AND id <> ?",
                                     (skeleton, found.id)).fetchone()
            if taken is not None:
                raise ModerationRefused(f"the name {name!r} is taken (or looks like one "
                                        f"that is: player {taken[0]})")
            self._db.execute("UPDATE players SET name = ?, skeleton = ? WHERE id = ?",
                             (name, skeleton, found.id))
            return self._record("rename", found.id, by, reason,
                                {"from": found.name, "to": name})

    def hide_name(self, which: str, by: str, reason: str = "") -> AuditRow:
        """Show the player as :data:`HIDDEN_NAME` everywhere until renamed; the name's
        skeleton stays theirs, so nobody else takes the hidden name either."""
        with self._write():
            found = self._live(which)
            if found.name == HIDDEN_NAME:
                raise ModerationRefused(f"player {found.id}'s name is hidden already")
            self._db.execute("UPDATE players SET name = ? WHERE id = ?",
                             (HIDDEN_NAME, found.id))
            return self._record("hide-name", found.id, by, reason, {"from": found.name})

    def ban_player(self, which: str, by: str, reason: str = "") -> AuditRow:
        """Ban the player: no seeks, pairing or rated matches, off the leaderboard; their
        open seeks are deleted."""
        with self._write():
            found = self._live(which)
            if found.banned is not None:
                raise ModerationRefused(f"player {found.id} is banned already")
            self._db.execute("UPDATE players SET banned = ?, ban_reason = ? WHERE id = ?",
                             (self.clock(), reason, found.id))
            seeks = self._db.execute("DELETE FROM seeks WHERE player = ? AND game_id IS NULL",
                                     (found.id,)).rowcount
            return self._record("ban", found.id, by, reason,
                                {"name": found.name, "seeks_deleted": int(seeks)})

    def unban_player(self, which: str, by: str, reason: str = "") -> AuditRow:
        """Lift the player's ban."""
        with self._write():
            found = self._live(which)
            if found.banned is None:
                raise ModerationRefused(f"player {found.id} is not banned")
            self._db.execute("UPDATE players SET banned = NULL, ban_reason = NULL "
                             "WHERE id = ?", (found.id,))
            return self._record("unban", found.id, by, reason,
                                {"banned": found.banned, "ban_reason": found.ban_reason})

    def forget_player(self, which: str, by: str, reason: str = "") -> AuditRow:
        """Delete what is stored about the player: the name and key gone (the row keeps
        only the id, named :data:`FORGOTTEN_NAME`, so the opponent's games keep their seat),
        their ratings and rating changes, seeks and lobby sockets, and the names in their
        earlier audit rows. Their games stay, for the opponent."""
        with self._write():
            found = self._live(which)
            self._db.execute(
                "UPDATE players SET name = ?, skeleton = ?, key_hash = ?, banned = NULL, "
                "ban_reason = NULL, forgotten = ? WHERE id = ?",
                (FORGOTTEN_NAME, f"#{found.id}", f"forgotten:{found.id}", self.clock(),
                 found.id))
            for table in ("ratings", "rating_changes", "seeks", "lobby_sockets", "player_codes",
                          "puzzle_players", "puzzle_tries"):
                self._db.execute(f"DELETE FROM {table} WHERE player = ?", (found.id,))
            self._db.execute("UPDATE audit SET detail = '' WHERE player = ?", (found.id,))
            return self._record("forget", found.id, by, reason, {})

    def export_player(self, which: str, by: str, reason: str = "") -> dict[str, Any]:
        """Everything stored about the player, as JSON-ready values (the key is stored
        only as a hash, which is left out); the export is audited too."""
        with self._write():
            found = self._find(which)
            pid = found.id
            ratings = self._db.execute(
                "SELECT game, rating, rd, volatility, games, updated FROM ratings "
                "WHERE player = ? ORDER BY game", (pid,)).fetchall()
            changes = self._db.execute(
                "SELECT game_id, game, rating_before, rating_after, rd_before, rd_after, "
                "opponent_rating, opponent_rd, at FROM rating_changes WHERE player = ? "
                "ORDER BY at, game_id", (pid,)).fetchall()
            games = self._db.execute(
                "SELECT id, game, options, mode, opponent, player0, player1, created, "
                "updated, finished, rated, winner, points0, points1, ended_by FROM games "
                "WHERE player0 = ? OR player1 = ? ORDER BY created, id", (pid, pid)).fetchall()
            seeks = self._db.execute(
                "SELECT id, game, options, rated, move_seconds, created, game_id, accepted "
                "FROM seeks WHERE player = ? ORDER BY created, id", (pid,)).fetchall()
            audit = self._db.execute(
                f"SELECT {_AUDIT_COLUMNS} FROM audit WHERE player = ? ORDER BY at, id",
                (pid,)).fetchall()
            record = self._record("export", pid, by, reason, {}, changed=False)
        exported: list[dict[str, Any]] = []
        for g in games:
            seat = 0 if g[5] == pid else 1
            with self._lock:
                moves = self._db.execute(
                    "SELECT ply, seat, move, at FROM moves WHERE game_id = ? ORDER BY ply",
                    (g[0],)).fetchall()
            # the JSON columns below hold options this server checked and wrote
            exported.append({
                "id": g[0], "game": g[1], "options": json.loads(g[2]), "mode": g[3],
                "computer": g[4], "seat": seat, "opponent": g[6 - seat], "created": g[7],
                "updated": g[8], "finished": bool(g[9]), "rated": bool(g[10]),
                "winner": g[11], "points": None if g[12] is None else [g[12], g[13]],
                "ended_by": g[14],
                "moves": [{"ply": m[0], "seat": m[1], "move": m[2], "at": m[3]}
                          for m in moves]})
        return {
            "player": {"id": pid, "name": None if found.forgotten else found.name,
                       "created": found.created, "banned": found.banned,
                       "ban_reason": found.ban_reason, "forgotten": found.forgotten},
            "ratings": [dict(zip(("game", "rating", "rd", "volatility", "games", "updated"),
                                 r, strict=True)) for r in ratings],
            "rating_changes": [dict(zip(("game_id", "game", "rating_before", "rating_after",
                                         "rd_before", "rd_after", "opponent_rating",
                                         "opponent_rd", "at"), r, strict=True))
                               for r in changes],
            "games": exported,
            "seeks": [{"id": s[0], "game": s[1], "options": json.loads(s[2]),
                       "rated": bool(s[3]), "move_seconds": s[4], "created": s[5],
                       "game_id": s[6], "accepted": s[7]} for s in seeks],
            "audit": [_audit_row(a).to_dict() for a in audit] + [record.to_dict()],
        }

    def audit_rows(self, last: int = 20) -> list[AuditRow]:
        """The latest ``last`` audit rows, the oldest of them first."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_AUDIT_COLUMNS} FROM audit ORDER BY at DESC, id DESC LIMIT ?",
                (last,)).fetchall()
        return [_audit_row(r) for r in reversed(rows)]


__all__ = ["ACTIONS", "FORGOTTEN_NAME", "HIDDEN_NAME", "AuditRow", "ModeratedPlayer",
           "Moderation", "ModerationRefused"]
