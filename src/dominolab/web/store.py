"""Where the web app's games live: SQLite, from the standard library.

A game is stored as what makes it up — game, options, seed, first opener, seats — plus its
moves in order; the state is rebuilt by re-applying the moves through the engine, so what
is stored can never disagree with the rules. Each move is committed before anyone is told
of it: a server killed at any moment restarts with every move it ever announced.

The schema is versioned with SQLite's ``user_version``: :data:`MIGRATIONS` holds one script
per version, applied in order, each in its own transaction. Add new versions at the end;
never edit a released one.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

#: schema version N is reached by running MIGRATIONS[N - 1]
MIGRATIONS: Final[tuple[str, ...]] = (
    # 1: games and their moves
    """
    CREATE TABLE games (
        id            TEXT PRIMARY KEY,
        game          TEXT NOT NULL,
        options       TEXT NOT NULL,           -- JSON, the engine's option names
        seed          INTEGER NOT NULL,
        first_opener  INTEGER NOT NULL,
        mode          TEXT NOT NULL,           -- 'computer' or 'friend'
        opponent      TEXT,                    -- the computer's level, NULL against a friend
        token0        TEXT NOT NULL,           -- SHA-256 of seat 0's token
        token1        TEXT NOT NULL,           -- SHA-256 of seat 1's token
        rules_version INTEGER NOT NULL,
        created       REAL NOT NULL,
        updated       REAL NOT NULL,
        finished      INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE moves (
        game_id TEXT NOT NULL REFERENCES games(id),
        ply     INTEGER NOT NULL,              -- 0, 1, ... over the whole match
        seat    INTEGER NOT NULL,
        move    TEXT NOT NULL,                 -- full notation
        at      REAL NOT NULL,
        PRIMARY KEY (game_id, ply)
    ) WITHOUT ROWID;
    """,
)
SCHEMA_VERSION: Final = len(MIGRATIONS)


class StoreError(Exception):
    """The database cannot be used (newer schema, not a dominolab database...)."""


@dataclass(frozen=True, slots=True)
class GameRow:
    """One stored game, without its moves."""

    id: str
    game: str
    options: dict[str, Any]
    seed: int
    first_opener: int
    mode: str
    opponent: str | None
    token_hashes: tuple[str, str]
    rules_version: int
    created: float
    finished: bool


class Store:
    """The games database. Safe to share between threads (one connection, one lock)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False,
                                       isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a commit survives the process being killed (not a power cut)
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a usable SQLite database ({exc})") from None
        self._lock = threading.Lock()
        self.migrate()

    # -- schema ------------------------------------------------------------------------------
    @property
    def version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def migrate(self) -> None:
        """Bring the schema up to :data:`SCHEMA_VERSION`, one version per transaction."""
        with self._lock:
            current = self.version
            if current > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path} has schema version {current}, newer than this dominolab "
                    f"knows ({SCHEMA_VERSION}); upgrade dominolab or use another --db")
            for number in range(current + 1, SCHEMA_VERSION + 1):
                script = MIGRATIONS[number - 1]
                try:
                    self._db.execute("BEGIN")
                    for statement in _statements(script):
                        self._db.execute(statement)
                    self._db.execute(f"PRAGMA user_version = {number}")
                    self._db.execute("COMMIT")
                except sqlite3.DatabaseError as exc:
                    self._db.execute("ROLLBACK")
                    raise StoreError(
                        f"{self.path}: migration to schema version {number} failed: {exc}"
                    ) from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- games -------------------------------------------------------------------------------
    def create_game(self, row: GameRow) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO games (id, game, options, seed, first_opener, mode, opponent, "
                "token0, token1, rules_version, created, updated, finished) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (row.id, row.game, json.dumps(row.options, sort_keys=True), row.seed,
                 row.first_opener, row.mode, row.opponent, row.token_hashes[0],
                 row.token_hashes[1], row.rules_version, row.created, row.created,
                 int(row.finished)),
            )

    def load_game(self, game_id: str) -> tuple[GameRow, list[tuple[int, str]]] | None:
        """The game and its moves as (seat, move) in order, or None."""
        with self._lock:
            found = self._db.execute(
                "SELECT id, game, options, seed, first_opener, mode, opponent, token0, token1, "
                "rules_version, created, finished FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if found is None:
                return None
            moves = self._db.execute(
                "SELECT seat, move FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)
            ).fetchall()
        row = GameRow(found[0], found[1], json.loads(found[2]), found[3], found[4], found[5],
                      found[6], (found[7], found[8]), found[9], found[10], bool(found[11]))
        return row, [(int(s), str(m)) for s, m in moves]

    def add_moves(self, game_id: str, first_ply: int, moves: Sequence[tuple[int, str]],
                  finished: bool) -> None:
        """Append moves ``first_ply``, ``first_ply + 1``, ... in one transaction."""
        now = time.time()
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.executemany(
                    "INSERT INTO moves (game_id, ply, seat, move, at) VALUES (?, ?, ?, ?, ?)",
                    [(game_id, first_ply + i, seat, move, now)
                     for i, (seat, move) in enumerate(moves)],
                )
                self._db.execute("UPDATE games SET updated = ?, finished = ? WHERE id = ?",
                                 (now, int(finished), game_id))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def count_games(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0])


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (no semicolons inside them)."""
    return [s.strip() for s in script.split(";") if s.strip()]
