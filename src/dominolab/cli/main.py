"""``dominolab``: the command-line entry point. Bad input gives a message, never a traceback."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from dominolab import __version__, native
from dominolab.cli.inputs import (
    COUNT,
    LIMIT,
    SEAT,
    SEED,
    TIMEOUT,
    decimal_number,
    whole_number,
)
from dominolab.cli.interrupt import EXIT_INTERRUPTED, sigterm_as_ctrl_c
from dominolab.core import GAMES, DominoError, get_game
from dominolab.players import KINDS, LEVELS, players_text, thinks_against_clock

EXIT_USAGE = 2


#: argparse quotes a bad argument whole; a message longer than this is cut in the middle
MESSAGE_LIMIT = 300


class _Parser(argparse.ArgumentParser):
    """argparse, with its usage errors cut to a readable length (its subcommands' parsers
    are of the same class)."""

    def error(self, message: str) -> NoReturn:
        if len(message) > MESSAGE_LIMIT:
            half = MESSAGE_LIMIT // 2
            message = f"{message[:half]}...{message[-half:]}"
        super().error(message)


def _clocked_text() -> str:
    """The players that think against the clock, and the levels that are one of them."""
    names = [name for name, kind in KINDS.items() if kind.clocked]
    levels = [level for level, (name, budget) in LEVELS.items()
              if thinks_against_clock(name, budget)]
    if not levels:
        return ", ".join(names)
    return f"{', '.join(names)} (or the level{'s' if len(levels) > 1 else ''} " \
           f"{' and '.join(levels)})"


def _add_game_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--option", "-o", action="append", default=[], metavar="NAME=VALUE",
                   help="a rule option, e.g. short-ends-any-time=no (see `dominolab games`)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="dominolab",
        description="Luzak, Luzak without spinners and Widelec (Kwartety): "
                    "play, score positions, replay records, benchmark.",
    )
    parser.add_argument("--version", action="version",
                        version=f"dominolab {__version__} (engine: {native.status()})")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("play", help="play a match against the computer in the terminal")
    p.add_argument("game", help="luzak, luzak-line or widelec (alias kwartety)")
    p.add_argument("--opponent", default="medium",
                   help="the computer: a level easy, medium (default) or hard, or a player "
                        "random, greedy, pimc, expert, optionally with a budget (expert:0.5s); "
                        "not omniscient, which sees every tile")
    p.add_argument("--seed", type=SEED, default=None,
                   help="the match seed (default: a random one, printed at the start)")
    p.add_argument("--seat", type=SEAT, choices=[0, 1], default=0,
                   help="your seat (default: 0)")
    p.add_argument("--save", metavar="FILE", default=None,
                   help="where the game record goes (default: dominolab-GAME-SEED.record.json)")
    p.add_argument("--no-color", action="store_true", help="plain text, no colours")
    p.add_argument("--no-review", dest="review", action="store_false",
                   help="no review of your moves after each hand")
    _add_game_options(p)

    p = sub.add_parser("score", help="lay moves on an empty table and show what each scores")
    p.add_argument("game")
    p.add_argument("moves", help='the moves, e.g. "65 54@1e 64@1w 11@2e* 44@3e"')
    p.add_argument("--json", action="store_true", help="print a JSON list, one object a tile")
    p.add_argument("--first-seat", type=SEAT, choices=[0, 1], default=0,
                   help="the seat laying the first tile (default: 0)")
    _add_game_options(p)

    p = sub.add_parser("replay", help="re-apply a game record and check every stored figure")
    p.add_argument("file", help="a dominolab record (JSON)")
    p.add_argument("--show", action="store_true", help="print the table move by move")
    p.add_argument("--no-color", action="store_true", help="plain text, no colours")

    p = sub.add_parser(
        "arena", help="duplicate matches between two computer players, with statistics")
    p.add_argument("a", metavar="A", help="a player, optionally with a budget: expert:0.5s, "
                   "pimc:40w, greedy, random, omniscient, or a level easy|medium|hard")
    p.add_argument("b", metavar="B", help="the other player")
    p.add_argument("--game", required=True, help="luzak, luzak-line or widelec")
    p.add_argument("--matches", type=COUNT, default=100,
                   help="duplicate pairs to play: each deal set is played twice, seats "
                        "swapped (default: 100, so 200 matches)")
    p.add_argument("--budget", default=None,
                   help="budget per move for both players unless given with a player "
                        "(e.g. 200w, 0.5s, 200w,1s)")
    p.add_argument("--seed", type=SEED, default=1, help="first match seed (default: 1)")
    p.add_argument("--workers", type=COUNT, default=None,
                   help="processes (default: every core)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    _add_game_options(p)

    p = sub.add_parser(
        "compare", help="two arena runs against the same player on the same deals, "
        "compared pair by pair",
        description="Is the second run's player A stronger than the first's? Both records "
        "(dominolab arena --json) must be against the same B, game and rules; the pairs "
        "both played (pair i of a run plays the match seed --seed + i, so runs from "
        "different first seeds pair on the seeds they share) are compared one by one, so "
        "the deals' luck cancels out of the difference, and its 95% interval is narrower "
        "than the two runs' own.")
    p.add_argument("first", metavar="FIRST.json", help="the first arena record")
    p.add_argument("second", metavar="SECOND.json", help="the second arena record")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")

    p = sub.add_parser(
        "serve", help="the web app: play in the browser against the computer or a friend",
        description="Start the web app and print the address to open. Games are kept in "
        "an SQLite database (or PostgreSQL, which several server processes may share), so "
        "stopping and starting the server continues every game. See docs/web.md.")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default: 127.0.0.1, this machine only; "
                        "0.0.0.0 lets a friend on your network join)")
    p.add_argument("--port", type=whole_number(1, 65535, digits=5), default=8000,
                   help="the port (default: 8000)")
    p.add_argument("--db", default=None, metavar="FILE|URL",
                   help="the games database: an SQLite file, or postgresql://USER@HOST/DB "
                        "for a PostgreSQL database that several servers may share (default: "
                        "$DOMINOLAB_DB, else ~/.local/share/dominolab/games.sqlite3)")
    p.add_argument("--computer-delay", type=decimal_number(0, 60), default=None,
                   metavar="SECONDS",
                   help="the least time the computer takes over a move, so that you see it "
                        "(default: 0.4, or $DOMINOLAB_COMPUTER_DELAY)")
    p.add_argument("--workers", type=whole_number(1, 64, digits=2), default=None,
                   metavar="N",
                   help="processes for the computer's moves and hints (default: one per "
                        "core, at least 2)")
    p.add_argument("--allow-origin", action="append", default=[], metavar="URL",
                   help="also accept WebSockets from pages of this origin, like "
                        "https://play.example.org (repeatable; the server's own origin is "
                        "always accepted)")
    p.add_argument("--games-per-minute", type=LIMIT, default=None, metavar="N",
                   help="new games and claimed invitations one address may make per "
                        "minute (default: 20, 10 at once; on PostgreSQL, on all servers "
                        "together)")
    p.add_argument("--hints-per-minute", type=LIMIT, default=None, metavar="N",
                   help="hints one address may ask for per minute (default: 30, 10 at "
                        "once; on PostgreSQL, on all servers together)")
    p.add_argument("--reviews-per-minute", type=LIMIT, default=None, metavar="N",
                   help="reviews one address may have worked out per minute (default: 10, "
                        "5 at once; a review already worked out is free; on PostgreSQL, on "
                        "all servers together)")
    p.add_argument("--messages-per-minute", type=LIMIT, default=None, metavar="N",
                   help="canned messages one seat of a game may send per minute (default: "
                        "6, 3 at once; on PostgreSQL, on all servers together)")
    p.add_argument("--watchers-per-address", type=whole_number(1, 1_000_000, digits=7),
                   default=None, metavar="N",
                   help="games one address may watch at once (default: 10)")
    p.add_argument("--watchers-per-game", type=whole_number(1, 1_000_000, digits=7),
                   default=None, metavar="N",
                   help="spectators one game may have at once (default: 100)")
    p.add_argument("--sockets-per-address", type=whole_number(1, 1_000_000, digits=7),
                   default=None, metavar="N",
                   help="connections one address may hold open at once, of every kind "
                        "(page and API requests, seats', spectators' and lobby sockets); "
                        "past it a new one is answered 429 and closed (default: 64)")
    p.add_argument("--seat-sockets-per-address", type=whole_number(1, 1_000_000, digits=7),
                   default=None, metavar="N",
                   help="seats' live sockets one address may hold open at once, over all "
                        "games (default: 20)")
    p.add_argument("--lobby-sockets-per-address", type=whole_number(1, 1_000_000, digits=7),
                   default=None, metavar="N",
                   help="lobby sockets one address may hold open at once (default: 8)")
    p.add_argument("--head-timeout", type=TIMEOUT, default=None, metavar="SECONDS",
                   help="a connection that has not sent a request's whole head this long "
                        "after opening (or after the first byte of a later request) is "
                        "closed (default: 10)")
    p.add_argument("--keep-alive-timeout", type=TIMEOUT, default=None, metavar="SECONDS",
                   help="an idle connection is closed this long after its last answer "
                        "(whole seconds, rounded up; default: 5)")
    p.add_argument("--hello-timeout", type=TIMEOUT, default=None, metavar="SECONDS",
                   help="a new WebSocket that has not said hello this long after opening is "
                        "closed (default: 10)")
    p.add_argument("--forwarded-allow-ips", default="", metavar="ADDRESSES",
                   help="proxies to believe: comma-separated addresses or networks "
                        "(like 127.0.0.1 or 10.0.0.0/8; * for any peer) whose "
                        "X-Forwarded-For names the real client, which every per-address "
                        "limit then counts (default: none; every client is its TCP peer)")
    p.add_argument("--metrics-allow", default="127.0.0.1,::1", metavar="ADDRESSES",
                   help="addresses and networks, joined by commas (like 127.0.0.1,"
                        "10.0.0.0/8), that may read /metrics; anyone else gets 403 (behind a "
                        "proxy trusted with --forwarded-allow-ips, the client it names "
                        "counts; default: 127.0.0.1,::1, this machine only)")
    p.add_argument("--health-timeout", type=TIMEOUT, default=2.0, metavar="SECONDS",
                   help="/healthz answers 503 if the database has not answered within "
                        "this long (default: 2)")
    p.add_argument("--abandoned-after", type=LIMIT, default=None, metavar="DAYS",
                   help="delete an unfinished game nobody has moved in for this long "
                        "(default: 7)")
    p.add_argument("--finished-kept", type=LIMIT, default=None, metavar="DAYS",
                   help="keep a finished game (its record and replay) this long (default: 30)")
    p.add_argument("--log-format", choices=["text", "json"], default="text",
                   help="the log on standard error: readable text, or one JSON object per "
                        "line for a log collector (default: text; docs/web.md, \"Logs\")")
    p.add_argument("--access-log", action=argparse.BooleanOptionalAction, default=True,
                   help="a line per HTTP request: method, path without its query, status, "
                        "milliseconds, client address, bytes (default: on; WebSocket and "
                        "game lines are logged either way)")
    p.add_argument("--log-moves", action="store_true",
                   help="also a line per move made (default: off; the game's record holds "
                        "its moves)")
    p.add_argument("--ws-deflate", action="store_true",
                   help="compress WebSocket messages (per-message deflate) for clients that "
                        "offer it, as browsers do: a state (5.5 KB on average, 3-9 KB) goes "
                        "out as about 0.9 KB, for about 0.1 ms more of the server's "
                        "processor time per socket it is sent to (0.2 ms a friend move, "
                        "a quarter more; deflating is then its largest single cost): worth "
                        "it where the players' bandwidth is dearer than the server's "
                        "processor (default: off, messages go uncompressed)")
    p.add_argument("--lab", choices=["off", "local", "everyone"], default=None,
                   help="who may run studies in the lab (/lab: many computer matches under "
                        "chosen rules, in the computer's pool): local, this machine only "
                        "(127.0.0.1, ::1); everyone; or off (default: local)")
    p.add_argument("--lab-matches-per-study", type=whole_number(1, 10_000_000, digits=8),
                   default=None, metavar="N",
                   help="matches one study may play, every variant together (default: "
                        "20000)")
    p.add_argument("--lab-matches-per-hour", type=whole_number(1, 1_000_000_000, digits=10),
                   default=None, metavar="N",
                   help="matches one address may start per hour in studies (default: "
                        "100000; past it 429)")
    p.add_argument("--lab-studies-per-address", type=whole_number(1, 1000, digits=4),
                   default=None, metavar="N",
                   help="studies one address may have running at once (default: 2)")
    p.add_argument("--lab-studies", type=whole_number(1, 1000, digits=4), default=None,
                   metavar="N", help="studies the server runs at once (default: 4)")
    p.add_argument("--data-dir", default=None, metavar="DIR",
                   help="where studies keep their files (DIR/studies/ID/; default: beside "
                        "the SQLite file, or for PostgreSQL ~/.local/share/dominolab)")
    p.add_argument("--game-seeds", type=SEED, default=None, metavar="N",
                   help="for tests: new games' seeds come from a generator seeded with N, "
                        "so the same requests deal the same games (default: the operating "
                        "system's randomness)")

    p = sub.add_parser(
        "backup", help="copy the games database while the server runs (docs/web.md, Backups)",
        description="Copy the games database to OUT while servers run on it: the database "
        "as it was when the copy began, checked (quick_check, schema version) before it "
        "is renamed to OUT, so that OUT is always whole (a backup that is killed leaves "
        "none). On PostgreSQL, pg_dump makes the copy (a custom-format archive) if it is "
        "installed. Restore with `dominolab restore`.")
    p.add_argument("out", metavar="OUT",
                   help="the backup file, or a folder to put dominolab-YYYYmmdd-HHMMSS.sqlite3 "
                        "(.dump on PostgreSQL) in")
    p.add_argument("--db", default=None, metavar="FILE|URL",
                   help="the games database, as `dominolab serve --db` takes it (default: "
                        "$DOMINOLAB_DB, else ~/.local/share/dominolab/games.sqlite3)")
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")

    p = sub.add_parser(
        "restore", help="put a backup in place of the games database",
        description="Check BACKUP (an SQLite database that passes quick_check, holds "
        "dominolab's games, with a schema version this dominolab knows), then make --db a "
        "copy of it. The database it replaces is kept beside it as "
        "FILE.before-restore-TIME. A database a server is running on is not replaced: stop "
        "the server first. On PostgreSQL, pg_restore restores a pg_dump archive in one "
        "transaction, after pg_dump has saved what the database held.")
    p.add_argument("backup", metavar="BACKUP", help="a file `dominolab backup` made")
    p.add_argument("--db", default=None, metavar="FILE|URL",
                   help="the games database to replace (default: $DOMINOLAB_DB, else "
                        "~/.local/share/dominolab/games.sqlite3)")

    p = sub.add_parser("bench", help="benchmarks")
    p.add_argument("what", choices=["engine", "players", "simulate", "openspiel", "serve",
                                    "review", "study"],
                   help="engine: random full hands per second; players: the expert's "
                        "decisions and search iterations per second; simulate: greedy "
                        "matches per second through simulate's loop (engine, players and "
                        "simulate measure the pure-Python and the native path side by "
                        "side); openspiel: random "
                        "games through the OpenSpiel adapter, the engine and OpenSpiel's "
                        "python_block_dominoes side by side; serve: concurrent games "
                        "played over WebSocket against a real server, move-to-update "
                        "latency; review: the time from a match's end to its review being "
                        "ready (docs/web.md, \"Review\"); study: 10,000 greedy Luzak "
                        "matches from POST /api/studies to the report ready, on a real "
                        "server (docs/web.md, \"The lab\")")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--seconds", type=decimal_number(0, 3600, above_low=True), default=None,
                   help="time spent per game (default: 3), or per run for serve (default: 10)")
    p.add_argument("--game", action="append", default=None,
                   help="only this game (repeatable; default: all)")
    p.add_argument("--check", type=whole_number(1, 100_000_000, digits=9), default=None,
                   metavar="N",
                   help="engine: instead of timing, replay N random hands per game of the "
                        "native path through the reference rules and report every mismatch "
                        "(exit status 1 if any)")
    p.add_argument("--check-seed", type=SEED, default=1, metavar="S",
                   help="engine --check: the seed of the random hands (default: 1)")
    p.add_argument("--games", type=whole_number(1, 10_000, digits=5), action="append",
                   default=None, metavar="N",
                   help="serve: concurrent games (repeatable; default: 50 and 200)")
    p.add_argument("--think", type=decimal_number(0, 60), default=0.5, metavar="SECONDS",
                   help="serve: the scripted players' mean time to think over a move "
                        "(default: 0.5, faster than people)")
    p.add_argument("--abuse", action="store_true",
                   help="serve: all along, one more client from an address of its own "
                        "creates \"hard, computer opens\" games and asks for hints on them "
                        "as fast as it can; its answers are counted by status")
    p.add_argument("--computer-games", type=whole_number(0, 10_000, digits=5), default=10,
                   metavar="K",
                   help="serve: K more games against the easy computer (delay 0), the "
                        "person a scripted client like the others, each from an address of "
                        "its own: the time from a move to the computer's reply (default: "
                        "10; 0 for none)")
    p.add_argument("--servers", type=whole_number(1, 16, digits=2), default=1, metavar="N",
                   help="serve: N server processes on the --db PostgreSQL database, each "
                        "friend game's two seats on different ones (default: 1)")
    p.add_argument("--db", default=None, metavar="URL",
                   help="serve: a PostgreSQL database (postgresql://USER@HOST/DB) to run the "
                        "servers on, in a schema of their own dropped afterwards; the same "
                        "runs are then played against one server on SQLite (default: SQLite "
                        "only)")
    p.add_argument("--server-src", action="append", type=Path, default=None, metavar="DIR",
                   help="serve: also play every run against the server of another checkout "
                        "(DIR or DIR/src holding its dominolab package; repeatable), each "
                        "run against this one and then each of those in turn, to compare "
                        "versions side by side under the same load")
    p.add_argument("--proxy", choices=["nginx"], default=None,
                   help="serve: play every run twice, straight to the servers and then "
                        "through Debian's nginx (/usr/sbin/nginx) running the site file of "
                        "docs/deploy.md in front of them, side by side (default: directly "
                        "only)")
    p.add_argument("--backups", action="store_true",
                   help="serve: play each run twice, without and then with `dominolab "
                        "backup` copying the server's database over and over all along, "
                        "to see what a backup costs the games")
    p.add_argument("--study", type=whole_number(1, 1_000_000, digits=7), default=None,
                   metavar="MATCHES",
                   help="serve: play each run twice, without and then with a study of "
                        "MATCHES greedy matches (the lab, docs/web.md) started on the "
                        "server as the first move may go, and print their p99 "
                        "move-to-update side by side (issue 42's target: under 250 ms "
                        "with the study); study: the study's size (default: 10,000, the "
                        "size of its 15 s target)")
    p.add_argument("--study-player", default=None, metavar="PLAYER",
                   help="serve --study: the lab player of both seats of the study "
                        "(default: greedy; e.g. random, pimc:40w for a slower one)")
    p.add_argument("--computer-level", choices=list(LEVELS), default="easy",
                   help="serve: the level of those K games' computer (default: easy, whose "
                        "replies are to stay under 1 s at p99; medium and hard are to reply "
                        "in a median of at most 1 s and at most 3 s)")

    p = sub.add_parser(
        "simulate", help="many matches between two computer players, every hand written "
        "to a JSON Lines file (docs/lab.md)",
        description="Play MATCHES matches of GAME between two computer players on every "
        "core and write every hand to FILE (JSON Lines: a header, then each match's hand "
        "lines and its match line; see docs/lab.md). Match i uses the seed SEED+i; seat 0 "
        "is always the first player. The same arguments give the same file byte for byte, "
        f"except with players that think against the clock: {_clocked_text()} without "
        "a budget or with a budget in seconds are not reproducible; give them a budget in "
        "worlds only, e.g. expert:500w. Ctrl-C (or SIGTERM) keeps "
        "the whole matches finished so far (exit status 130); --resume continues them. An "
        "existing file is replaced only with --force.")
    p.add_argument("--game", required=True, help="luzak, luzak-line or widelec")
    p.add_argument("--players", default="greedy,greedy", metavar="A,B",
                   help=f"the players of seats 0 and 1, each optionally with a budget "
                        f"(pimc:40w, expert:500w): {players_text()}, or a level "
                        f"{'|'.join(LEVELS)} (default: greedy,greedy); budgets in seconds "
                        f"make the file non-reproducible, use worlds (expert:500w)")
    p.add_argument("--matches", type=COUNT, default=100, help="matches to play (default: 100)")
    p.add_argument("--seed", type=SEED, default=1,
                   help="the first match seed; match i uses SEED+i (default: 1)")
    p.add_argument("--workers", type=COUNT, default=None,
                   help="processes (default: every core)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", default=None,
                   help="play on the Dask cluster of this scheduler instead of local "
                        "processes; the same file as a local run (needs: pip install "
                        "'dominolab[cluster]')")
    p.add_argument("--no-workers-timeout", type=TIMEOUT, default=None, metavar="SECONDS",
                   help="with --scheduler: stop the run (keeping its whole matches, for "
                        "--resume) once the cluster has had no workers for this long "
                        "(default: 30, lab/pool.py's NO_WORKERS_TIMEOUT; at most a day)")
    p.add_argument("--out", metavar="FILE", default=None,
                   help="the result file (default: sim-GAME-SEED.jsonl, with each option "
                        "that differs from its default: sim-widelec-1-edge-double=no.jsonl; "
                        ".parquet with --format parquet); not with a sweep")
    p.add_argument("--format", choices=("jsonl", "parquet"), default="jsonl",
                   help="jsonl: JSON Lines (the default); parquet: the same content as a "
                        "Parquet file, one row per hand (needs pyarrow: pip install "
                        "'dominolab[lab]'; --resume cannot continue it)")
    p.add_argument("--force", action="store_true",
                   help="replace an existing result file (without it, an existing file is "
                        "an error)")
    p.add_argument("--resume", action="store_true",
                   help="continue the file an interrupted run of the same arguments left: "
                        "play only the missing matches, ending with the file an "
                        "uninterrupted run writes (a complete file is left as it is)")
    p.add_argument("--option", "-o", action="append", default=[], metavar="NAME=VALUE",
                   help="a rule option, e.g. edge-double=no (see `dominolab games`); a comma "
                        "list of values (target=31,41,61) sweeps them, one run and one file "
                        "each; several swept options run every combination")

    p = sub.add_parser(
        "report", help="figures and plots of simulation result files (`dominolab simulate`)",
        description="Summarise one or more result files of `dominolab simulate`: opener's "
        "and responder's points, score distributions, points by tile number N and luzaks "
        "(Luzak), quartets, bonuses, hand ends and draws (Widelec, over completed hands), "
        "match length and drawn matches, each with its 95% interval (hands clustered by "
        "match); the match length each lower target would give; which tiles are luzaked "
        "and what each tile is worth (files that record tiles). Given two or more files, "
        "they are shown side by side with each one's difference from the first, paired by "
        "deal when the files share their seed.")
    p.add_argument("files", nargs="+", metavar="FILE", help="a dominolab-sim JSON Lines file")
    p.add_argument("--html", metavar="OUT", default=None,
                   help="also write a self-contained HTML report with plots to OUT "
                        "(needs matplotlib: pip install 'dominolab[lab]')")

    from dominolab.cli.admin import add_parser as add_admin_parser

    add_admin_parser(sub)  # moderation and privacy
    from dominolab.cli.puzzles import add_parser as add_puzzles_parser

    add_puzzles_parser(sub)  # puzzles from real and simulated matches
    from dominolab.cli.train import add_parser as add_train_parser

    add_train_parser(sub)  # the learned networks
    sub.add_parser("games", help="list the games and their rule options")
    return parser


#: the commands whose speed the native fast path sets, which warn once when it is missing
_COMPUTING = frozenset({"play", "serve", "simulate", "arena", "bench", "puzzles", "train"})
#: the commands that handle SIGTERM themselves (the server's clean shutdown, the terminal
#: game); every other stops on SIGTERM as on Ctrl-C (:mod:`dominolab.cli.interrupt`)
_OWN_SIGNALS = frozenset({"serve", "play"})


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    warning = native.missing_warning()
    if warning is not None and args.command in _COMPUTING:
        print(f"dominolab: warning: {warning}", file=sys.stderr)
    try:
        if args.command in _OWN_SIGNALS:
            return int(_dispatch(args))
        with sigterm_as_ctrl_c():
            return int(_dispatch(args))
    except DominoError as exc:
        print(f"dominolab {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"dominolab {args.command}: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "),
              file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _dispatch(args: argparse.Namespace) -> int:
    command = args.command
    if command == "play":
        from dominolab.cli.play import run_play

        return run_play(args)
    if command == "score":
        return _score(args)
    if command == "replay":
        return _replay(args)
    if command == "arena":
        from dominolab.cli.arena import run_arena

        return run_arena(args)
    if command == "compare":
        from dominolab.cli.arena import run_compare

        return run_compare(args)
    if command == "serve":
        from dominolab.cli.serve import run_serve

        return run_serve(args)
    if command == "backup":
        from dominolab.cli.backup import run_backup

        return run_backup(args)
    if command == "restore":
        from dominolab.cli.backup import run_restore

        return run_restore(args)
    if command == "bench":
        from dominolab.cli.bench import run_bench

        return run_bench(args)
    if command == "simulate":
        from dominolab.cli.simulate import run_simulate

        return run_simulate(args)
    if command == "report":
        from dominolab.cli.report import run_report

        return run_report(args)
    if command == "admin":
        from dominolab.cli.admin import run_admin

        return run_admin(args)
    if command == "puzzles":
        from dominolab.cli.puzzles import run_puzzles

        return run_puzzles(args)
    if command == "train":
        from dominolab.cli.train import run_train

        return run_train(args)
    if command == "games":
        return _games()
    raise AssertionError(command)


def _score(args: argparse.Namespace) -> int:
    from dominolab.core import score_moves
    from dominolab.text import explain_step

    spec = get_game(args.game)
    options = spec.options(args.option)
    steps = score_moves(spec, args.moves, options, first_seat=args.first_seat)
    if args.json:
        out: list[dict[str, Any]] = []
        for step in steps:
            item: dict[str, Any] = {"n": step.n, "seat": step.seat, "move": str(step.move)}
            if step.count is not None:
                item["count"] = step.count
            if spec.has_boneyard:
                item["ends"] = None if step.ends is None else [str(t) for t in step.ends]
                item["quartet"] = step.quartet
            item["points"] = list(step.points)
            out.append(item)
        print(json.dumps(out))
        return 0
    totals = [0, 0]
    for step in steps:
        totals[0] += step.points[0]
        totals[1] += step.points[1]
        print(f"seat {step.seat}  {step.move!s:<10} {explain_step(spec.name, step)}")
    print(f"totals: seat 0 {totals[0]}, seat 1 {totals[1]}")
    return 0


def read_record_file(path: str) -> Any:
    """The record in the file at ``path``, read with every limit of
    :func:`~dominolab.core.load_record` (no more than its most bytes are read).
    Raises RecordError (naming the file) or OSError."""
    from dominolab.core import MAX_RECORD_BYTES, JsonError, RecordError
    from dominolab.jsonfile import read_json_file

    try:
        return read_json_file(path, "a record", max_bytes=MAX_RECORD_BYTES)
    except JsonError as exc:
        raise RecordError(str(exc)) from None


def _replay(args: argparse.Namespace) -> int:
    from dominolab.core import RecordError, replay

    record = read_record_file(args.file)
    try:
        match = replay(record)
    except RecordError as exc:
        raise RecordError(f"{args.file}: {exc}") from None
    if args.show:
        from dominolab.cli.render import show_match

        show_match(match, color=not args.no_color and sys.stdout.isatty())
    totals = match.totals
    state = ("over: " + ("a draw" if match.result.winner is None
                         else f"seat {match.result.winner} wins")) if match.result else "unfinished"
    print(f"{args.file}: {match.spec.name}, {match.hand_number} hand(s), {state}; "
          f"totals {totals[0]}-{totals[1]}; every stored figure checks out")
    return 0


def _games() -> int:
    for spec in GAMES.values():
        aliases = f" (alias {', '.join(spec.aliases)})" if spec.aliases else ""
        print(f"{spec.name}{aliases}: {spec.title}, docs/rules.md section {spec.rules_section}")
        for name, default, help_text in spec.options_class.describe():
            print(f"    --option {name}=...   default {default}: {help_text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
