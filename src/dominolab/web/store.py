"""Where the web app's games live: SQLite, from the standard library.

A game is stored as what makes it up — game, options, seed, first opener, seats — plus its
moves in order; the state is rebuilt by re-applying the moves through the engine, so what
is stored can never disagree with the rules. Each move is committed before anyone is told
of it: a server killed at any moment restarts with every move it ever announced.

The schema is versioned with SQLite's ``user_version``: :data:`MIGRATIONS` holds one script
per version, applied in order, each in its own transaction. Add new versions at the end;
never edit a released one.

``Store("postgresql://user@host/db")`` is the same store on PostgreSQL, for several server
processes (:mod:`dominolab.web.pg`): the methods below run there unchanged, so write them
and the migrations in the portable subset that module describes.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

from dominolab.web.events import Events

T = TypeVar("T")

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
    # 2: one-time invitations (the friend's seat token is minted when the invitation is
    # claimed; until then token1 is '' and matches no token), and an index for expiry
    """
    ALTER TABLE games ADD COLUMN invite TEXT;   -- SHA-256 of the invitation, NULL once claimed
    CREATE INDEX games_by_age ON games(finished, updated);
    """,
    # 3: rematches: a finished game names the one game that is its rematch (the seats keep
    # their tokens there) and the seat that asked for it
    """
    ALTER TABLE games ADD COLUMN rematch TEXT;      -- the rematch's id, NULL until asked for
    ALTER TABLE games ADD COLUMN rematch_by INTEGER; -- the seat that asked for it
    CREATE UNIQUE INDEX games_by_rematch ON games(rematch);
    """,
)
SCHEMA_VERSION: Final = len(MIGRATIONS)


#: how long a write waits for another process's lock before it fails
BUSY_TIMEOUT: Final = 5.0


#: what a failing database raises (locked, full, gone...): callers answer 503 and change
#: nothing. A tuple, so that each backend adds its driver's base error: PostgreSQL's store
#: raises sqlite3's errors too (dominolab.web.pg), and psycopg's come from its event bus.
DATABASE_ERRORS: tuple[type[Exception], ...]
try:
    import psycopg
except ImportError:  # pragma: no cover - psycopg is a dependency; without it, SQLite only
    DATABASE_ERRORS = (sqlite3.Error,)
else:
    DATABASE_ERRORS = (sqlite3.Error, psycopg.Error)


class StoreError(Exception):
    """The database cannot be used (newer schema, not a dominolab database, read-only,
    damaged...)."""


class MoveConflict(Exception):
    """A move was stored for that ply already: the caller's idea of the game is stale."""


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
    #: SHA-256 of a friend game's unclaimed invitation, else None
    invite: str | None = None
    #: the id of this finished game's rematch, once a seat has asked for one
    rematch: str | None = None
    #: the seat that asked for the rematch
    rematch_by: int | None = None


class Store:
    """The games database. Safe to share between threads (one connection, one lock).

    Opening it checks it: a file that is not a database, fails ``PRAGMA quick_check``, has
    a newer schema or cannot be written raises :class:`StoreError`, so a server never starts
    on a database it would answer 500 from. Given a ``postgresql://`` URL instead of a
    path, it is a :class:`dominolab.web.pg.PgStore`."""

    def __new__(cls, path: str | Path, *args: Any, **kwargs: Any) -> Store:
        if cls is Store and is_database_url(path):
            try:
                from dominolab.web.pg import PgStore
            except ImportError as exc:
                raise StoreError(f"a PostgreSQL database needs psycopg 3 ({exc}): "
                                 f"pip install 'psycopg[binary]'") from None
            return super().__new__(PgStore)
        return super().__new__(cls)

    def __init__(self, path: str | Path, *, busy_timeout: float = BUSY_TIMEOUT,
                 clock: Callable[[], float] = time.time) -> None:
        self.path = str(path)
        #: the wall clock for when games last changed (tests move it on)
        self.clock = clock
        if self.path != ":memory:":
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"{self.path}: cannot create its folder ({exc.strerror})"
                                 ) from None
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False,
                                       isolation_level=None, timeout=busy_timeout)
            self._db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a commit survives the process being killed (not a power cut)
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            checked = self._db.execute("PRAGMA quick_check").fetchall()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a usable SQLite database ({exc})") from None
        if checked != [("ok",)]:
            found = " ".join(" ".join(str(r[0]) for r in checked[:3]).split())
            raise StoreError(f"{self.path}: the database is damaged (quick_check: "
                             f"{found[:160]})")
        self._lock = threading.Lock()
        self.migrate()
        self._check_writable()

    def _check_writable(self) -> None:
        """Write the schema version back inside a transaction that is rolled back."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(f"PRAGMA user_version = {self.version}")
            self._db.execute("ROLLBACK")
        except sqlite3.DatabaseError as exc:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise StoreError(f"{self.path}: cannot write to the database ({exc})") from None

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
            self._insert_game(row)

    def _insert_game(self, row: GameRow) -> None:
        """Call with the lock held."""
        self._db.execute(
            "INSERT INTO games (id, game, options, seed, first_opener, mode, opponent, "
            "token0, token1, rules_version, created, updated, finished, invite) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row.id, row.game, json.dumps(row.options, sort_keys=True), row.seed,
             row.first_opener, row.mode, row.opponent, row.token_hashes[0],
             row.token_hashes[1], row.rules_version, row.created, row.created,
             int(row.finished), row.invite),
        )

    def load_game(self, game_id: str) -> tuple[GameRow, list[tuple[int, str]]] | None:
        """The game and its moves as (seat, move) in order, or None."""
        with self._lock:
            found = self._db.execute(
                "SELECT id, game, options, seed, first_opener, mode, opponent, token0, token1, "
                "rules_version, created, finished, invite, rematch, rematch_by "
                "FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if found is None:
                return None
            moves = self._db.execute(
                "SELECT seat, move FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)
            ).fetchall()
        row = GameRow(found[0], found[1], json.loads(found[2]), found[3], found[4], found[5],
                      found[6], (found[7], found[8]), found[9], found[10], bool(found[11]),
                      found[12], found[13], found[14])
        return row, [(int(s), str(m)) for s, m in moves]

    def create_rematch(self, game_id: str, seat: int, row: GameRow) -> tuple[str, int] | None:
        """Store ``row`` as the rematch of the finished game ``game_id``, asked for by
        ``seat``, in one transaction with the link to it, unless that game has a rematch
        already. Returns the rematch's id and the seat that asked for it: ``row``'s, or
        the one stored before (so two calls at once make one game); None if ``game_id`` is
        no finished game."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                found = self._db.execute(
                    "SELECT finished, rematch, rematch_by FROM games WHERE id = ?", (game_id,)
                ).fetchone()
                if found is None or not found[0]:
                    self._db.execute("ROLLBACK")
                    return None
                if found[1] is not None:
                    self._db.execute("ROLLBACK")
                    return str(found[1]), int(found[2])
                self._insert_game(row)
                self._db.execute("UPDATE games SET rematch = ?, rematch_by = ?, updated = ? "
                                 "WHERE id = ?", (row.id, seat, self.clock(), game_id))
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
        return row.id, seat

    def add_moves(self, game_id: str, first_ply: int, moves: Sequence[tuple[int, str]],
                  finished: bool) -> None:
        """Append moves ``first_ply``, ``first_ply + 1``, ... in one transaction, or nothing:
        :class:`MoveConflict` if a move is stored at one of those plies already (or the
        game is gone), ``sqlite3.Error`` if the database fails (locked, full...)."""
        now = self.clock()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                stored = self._db.execute(
                    "SELECT COUNT(*) FROM moves WHERE game_id = ?", (game_id,)).fetchone()[0]
                if stored != first_ply:
                    raise MoveConflict(f"game {game_id} has {stored} moves stored, not "
                                       f"{first_ply}")
                self._db.executemany(
                    "INSERT INTO moves (game_id, ply, seat, move, at) VALUES (?, ?, ?, ?, ?)",
                    [(game_id, first_ply + i, seat, move, now)
                     for i, (seat, move) in enumerate(moves)],
                )
                self._db.execute("UPDATE games SET updated = ?, finished = ? WHERE id = ?",
                                 (now, int(finished), game_id))
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def claim_invite(self, game_id: str, invite_hash: str, token_hash: str) -> bool:
        """Give seat 1 the token ``token_hash`` if ``invite_hash`` is the game's unclaimed
        invitation; False if it is not (wrong, or claimed already). Claimed once only."""
        with self._lock:
            changed = self._db.execute(
                "UPDATE games SET token1 = ?, invite = NULL, updated = ? "
                "WHERE id = ? AND invite = ?",
                (token_hash, self.clock(), game_id, invite_hash)).rowcount
        return bool(changed == 1)

    def expire(self, unfinished_before: float, finished_before: float) -> list[str]:
        """Delete the unfinished games last changed before ``unfinished_before`` and the
        finished ones before ``finished_before``; returns their ids."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                ids = [r[0] for r in self._db.execute(
                    "SELECT id FROM games WHERE (finished = 0 AND updated < ?) "
                    "OR (finished = 1 AND updated < ?)", (unfinished_before, finished_before))]
                self._db.executemany("DELETE FROM moves WHERE game_id = ?",
                                     [(i,) for i in ids])
                self._db.executemany("DELETE FROM games WHERE id = ?", [(i,) for i in ids])
                # a rematch that expired first may be asked for again
                self._db.executemany("UPDATE games SET rematch = NULL, rematch_by = NULL "
                                     "WHERE rematch = ?", [(i,) for i in ids])
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
        return ids

    def count_games(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def game_since(self, game_id: str, first_ply: int
                   ) -> tuple[GameRow, list[tuple[int, str]]] | None:
        """The game and its moves from ``first_ply`` on, or None: how a server catches up
        with what another process stored (:meth:`load_game` reads every move)."""
        with self._lock:
            # one query (one round trip to a database server): the game's columns on every
            # row, and its moves from first_ply on, or NULLs if there are none
            rows = self._db.execute(
                "SELECT g.id, g.game, g.options, g.seed, g.first_opener, g.mode, g.opponent, "
                "g.token0, g.token1, g.rules_version, g.created, g.finished, g.invite, "
                "g.rematch, g.rematch_by, m.seat, m.move "
                "FROM games g LEFT JOIN moves m ON m.game_id = g.id AND m.ply >= ? "
                "WHERE g.id = ? ORDER BY m.ply", (first_ply, game_id)).fetchall()
        if not rows:
            return None
        found = rows[0]
        row = GameRow(found[0], found[1], json.loads(found[2]), found[3], found[4], found[5],
                      found[6], (found[7], found[8]), found[9], found[10], bool(found[11]),
                      found[12], found[13], found[14])
        return row, [(int(r[15]), str(r[16])) for r in rows if r[15] is not None]

    def events(self) -> Events:
        """The event bus that reaches every server on this database: one process serves an
        SQLite file, so the bus of this process (PostgreSQL's reaches them all)."""
        return Events()

    def reader(self) -> Store | None:
        """A second connection for catching up with other processes' changes, or None
        where there are none (SQLite: one process)."""
        return None


class AsyncStore:
    """The :class:`Store` for the event loop: every call runs in one thread of its own, so
    a write waiting on a lock (or a slow disk) never holds up the loop, and calls keep
    their order."""

    def __init__(self, store: Store, reader: Store | None = None) -> None:
        self.sync = store
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="dominolab-db")
        #: catching up with other processes (:meth:`game_since`) goes to ``reader``, in a
        #: thread of its own, given one: it never waits behind this process's writes
        self.reader = reader
        self._reads = self._thread if reader is None else \
            ThreadPoolExecutor(1, thread_name_prefix="dominolab-db-read")

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._thread, fn, *args)

    async def create_game(self, row: GameRow) -> None:
        await self._run(self.sync.create_game, row)

    async def load_game(self, game_id: str) -> tuple[GameRow, list[tuple[int, str]]] | None:
        return await self._run(self.sync.load_game, game_id)

    async def add_moves(self, game_id: str, first_ply: int, moves: Sequence[tuple[int, str]],
                        finished: bool) -> None:
        await self._run(self.sync.add_moves, game_id, first_ply, moves, finished)

    async def claim_invite(self, game_id: str, invite_hash: str, token_hash: str) -> bool:
        return await self._run(self.sync.claim_invite, game_id, invite_hash, token_hash)

    async def create_rematch(self, game_id: str, seat: int, row: GameRow
                             ) -> tuple[str, int] | None:
        return await self._run(self.sync.create_rematch, game_id, seat, row)

    async def expire(self, unfinished_before: float, finished_before: float) -> list[str]:
        return await self._run(self.sync.expire, unfinished_before, finished_before)

    async def game_since(self, game_id: str, first_ply: int
                         ) -> tuple[GameRow, list[tuple[int, str]]] | None:
        store = self.reader or self.sync
        return await asyncio.get_running_loop().run_in_executor(
            self._reads, store.game_since, game_id, first_ply)

    def close(self) -> None:
        self._thread.shutdown(wait=True)
        self.sync.close()
        if self.reader is not None:
            self._reads.shutdown(wait=True)
            self.reader.close()


def is_database_url(db: str | Path) -> bool:
    """Whether ``--db`` is a PostgreSQL URL rather than an SQLite file's path."""
    return isinstance(db, str) and db.startswith(("postgresql://", "postgres://"))


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (no semicolons inside them)."""
    return [s.strip() for s in script.split(";") if s.strip()]
