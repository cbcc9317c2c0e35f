"""Where the web app's games live: SQLite, from the standard library.

A game is stored as what makes it up — game, options, seed, first opener, seats — plus its
moves in order; the state is rebuilt by re-applying the moves through the engine, so what
is stored can never disagree with the rules. Each move is committed before anyone is told
of it: a server killed at any moment restarts with every move it ever announced.

The schema is versioned with SQLite's ``user_version``: :data:`MIGRATIONS` holds one script
per version, applied in order, each in its own transaction. Add new versions at the end;
never edit a released one.

``Store("postgresql://user@host/db")`` is the same store on PostgreSQL, for several server
processes (:mod:`dominolab.web.storage.pg`): the methods below run there unchanged, so write them
and the migrations in the portable subset that module describes.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, TypeVar

from dominolab.web.storage.events import Events

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
    # 4: players (a display name and a secret key, no password), the players of a game's
    # seats, and how a finished game ended (so lists need not replay it)
    """
    CREATE TABLE players (
        id       TEXT PRIMARY KEY,
        name     TEXT NOT NULL,
        skeleton TEXT NOT NULL UNIQUE, -- names that look alike are one name (community/names.py)
        key_hash TEXT NOT NULL UNIQUE,     -- SHA-256 of the player's secret key
        created  REAL NOT NULL
    );
    ALTER TABLE games ADD COLUMN player0 TEXT REFERENCES players(id);
    ALTER TABLE games ADD COLUMN player1 TEXT REFERENCES players(id);
    ALTER TABLE games ADD COLUMN winner INTEGER;     -- the seat that won (NULL: drawn, or not over)
    ALTER TABLE games ADD COLUMN points0 INTEGER;    -- the match points at the end
    ALTER TABLE games ADD COLUMN points1 INTEGER;
    ALTER TABLE games ADD COLUMN ended_by TEXT;      -- 'play', or how else it ended ('time')
    ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;  -- counts for the ratings
    CREATE INDEX games_by_player0 ON games(player0, finished, updated);
    CREATE INDEX games_by_player1 ON games(player1, finished, updated);
    """,
    # 5: ratings (community/ratings.py): a Glicko-2 rating per player and game, each rated match's
    # change to it, and the mark that a finished rated match's changes are applied (set in
    # the same transaction as the new ratings, only if unset, so a match counts once even
    # when several servers see it end)
    """
    CREATE TABLE ratings (
        player     TEXT NOT NULL REFERENCES players(id),
        game       TEXT NOT NULL,
        rating     REAL NOT NULL,
        rd         REAL NOT NULL,               -- the rating deviation
        volatility REAL NOT NULL,
        games      INTEGER NOT NULL,            -- rated matches counted, also its version
        updated    REAL NOT NULL,
        PRIMARY KEY (player, game)
    );
    CREATE INDEX ratings_by_game ON ratings(game, rating);
    CREATE TABLE rating_changes (
        game_id         TEXT NOT NULL,          -- the match (kept after it expires)
        seat            INTEGER NOT NULL,
        player          TEXT NOT NULL REFERENCES players(id),
        game            TEXT NOT NULL,
        rating_before   REAL NOT NULL,
        rating_after    REAL NOT NULL,
        rd_before       REAL NOT NULL,
        rd_after        REAL NOT NULL,
        opponent_rating REAL NOT NULL,          -- what the change was reckoned against
        opponent_rd     REAL NOT NULL,
        at              REAL NOT NULL,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX rating_changes_by_player ON rating_changes(player, at);
    ALTER TABLE games ADD COLUMN ratings_applied INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX games_by_rating_due ON games(rated, finished, ratings_applied);
    """,
    # 6: the lobby. A named player's lobby socket is a row with the server process holding
    # it and that process's last heartbeat (so a process that dies leaves none behind).
    # A seek is owned by one such socket and goes with it. Accepting a seek makes the game
    # and marks the seek with it in one transaction, and the seek stays until its creator's
    # socket has been told. A lobby game has a clock: the seconds each move may take.
    """
    CREATE TABLE lobby_sockets (
        id      TEXT PRIMARY KEY,
        player  TEXT NOT NULL REFERENCES players(id),
        server  TEXT NOT NULL,                 -- the server process holding the socket
        seen    REAL NOT NULL                  -- when that process last said it is alive
    );
    CREATE INDEX lobby_sockets_by_player ON lobby_sockets(player);
    CREATE INDEX lobby_sockets_by_seen ON lobby_sockets(seen);
    CREATE TABLE seeks (
        id           TEXT PRIMARY KEY,
        player       TEXT NOT NULL REFERENCES players(id),
        socket       TEXT NOT NULL,            -- the creator's lobby socket
        game         TEXT NOT NULL,
        options      TEXT NOT NULL,            -- JSON, the engine's option names
        rated        INTEGER NOT NULL,
        move_seconds INTEGER NOT NULL,
        token_hash   TEXT NOT NULL,            -- SHA-256 of the creator's seat token
        created      REAL NOT NULL,
        game_id      TEXT,                     -- the game once accepted, NULL while open
        seat         INTEGER,                  -- the creator's seat in that game
        accepted     REAL,                     -- when it was accepted
        told         INTEGER NOT NULL DEFAULT 0  -- whether its creator has been told
    );
    CREATE INDEX seeks_by_socket ON seeks(socket);
    CREATE INDEX seeks_by_player ON seeks(player, game_id);
    CREATE INDEX seeks_open ON seeks(game_id, game, created);
    ALTER TABLE games ADD COLUMN move_seconds INTEGER;  -- a move's time limit, NULL: none
    CREATE INDEX games_by_clock ON games(finished, move_seconds);
    """,
)
SCHEMA_VERSION: Final = len(MIGRATIONS)


#: how long a write waits for another process's lock before it fails
BUSY_TIMEOUT: Final = 5.0


#: what a failing database raises (locked, full, gone...): callers answer 503 and change
#: nothing. A tuple, so that each backend adds its driver's base error: PostgreSQL's store
#: raises sqlite3's errors too (dominolab.web.storage.pg), and psycopg's come from its event bus.
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
class PlayerRef:
    """A player as a game shows it: the id (for the player's page) and the display name."""

    id: str
    name: str


@dataclass(frozen=True, slots=True)
class PlayerRow:
    """One stored player."""

    id: str
    name: str
    key_hash: str
    created: float

    @property
    def ref(self) -> PlayerRef:
        return PlayerRef(self.id, self.name)


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a finished game ended: the winning seat (None: drawn), the match points, and
    ``ended_by``: ``"play"`` (the match was played out) or another way (``"time"``: the
    player to move ran out of time)."""

    winner: int | None
    points: tuple[int, int]
    ended_by: str = "play"


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
    #: the players of the two seats (None: nobody named, or the computer)
    players: tuple[PlayerRef | None, PlayerRef | None] = (None, None)
    #: how the game ended, once it is finished
    result: GameResult | None = None
    #: whether the match counts for the players' ratings
    rated: bool = False
    #: the seconds a move may take (lobby games), None: no clock
    move_seconds: int | None = None


@dataclass(frozen=True, slots=True)
class SeekRow:
    """A seek of the lobby: a named player looking for an opponent for one game, owned by
    that player's lobby socket ``socket``. ``token_hash``: the SHA-256 of the seat token the
    creator will hold in the game (derived from their key, so that whichever server process
    holds their socket can hand it over). ``game_id``/``seat``: the game and the creator's
    seat, once accepted (until the creator's socket has been told)."""

    id: str
    player: PlayerRef
    socket: str
    game: str
    options: dict[str, Any]
    rated: bool
    move_seconds: int
    token_hash: str
    created: float
    game_id: str | None = None
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class RatingRow:
    """One player's Glicko-2 rating in one game (:mod:`dominolab.web.community.ratings`)."""

    player: str
    game: str
    rating: float
    rd: float
    volatility: float
    #: the rated matches counted so far (0: none, the starting values); also the row's
    #: version, so a change reckoned from an older row is refused
    games: int
    updated: float


@dataclass(frozen=True, slots=True)
class RatingChange:
    """What one rated match did to one seat's rating, and what it was reckoned against."""

    game_id: str
    seat: int
    player: str
    game: str
    rating_before: float
    rating_after: float
    rd_before: float
    rd_after: float
    opponent_rating: float
    opponent_rd: float
    at: float


class RatingConflict(Exception):
    """A rating changed since it was read (another match of the player's was counted
    meanwhile): reckon the match again from the ratings as they are now."""


class _Transaction:
    """The transaction of :meth:`Store._write`: committed at its end unless discarded."""

    def __init__(self) -> None:
        self.keep = True

    def discard(self) -> None:
        """End the transaction with ROLLBACK instead of COMMIT (nothing it wrote is kept)."""
        self.keep = False


class Store:
    """The games database. Safe to share between threads (one connection, one lock).

    Opening it checks it: a file that is not a database, fails ``PRAGMA quick_check``, has
    a newer schema or cannot be written raises :class:`StoreError`, so a server never starts
    on a database it would answer 500 from. Given a ``postgresql://`` URL instead of a
    path, it is a :class:`dominolab.web.storage.pg.PgStore`."""

    def __new__(cls, path: str | Path, *args: Any, **kwargs: Any) -> Store:
        if cls is Store and is_database_url(path):
            try:
                from dominolab.web.storage.pg import PgStore
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

    @contextmanager
    def _write(self) -> Iterator[_Transaction]:
        """One write transaction under the store's lock: ``BEGIN IMMEDIATE`` (SQLite takes
        its write lock now; on PostgreSQL, web/storage/pg.py's writers' lock), then ``COMMIT`` at
        the end, or ``ROLLBACK`` if the body raised or called :meth:`_Transaction.discard`."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            tx = _Transaction()
            try:
                yield tx
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT" if tx.keep else "ROLLBACK")

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
            "token0, token1, rules_version, created, updated, finished, invite, "
            "player0, player1, rated, move_seconds) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row.id, row.game, json.dumps(row.options, sort_keys=True), row.seed,
             row.first_opener, row.mode, row.opponent, row.token_hashes[0],
             row.token_hashes[1], row.rules_version, row.created, row.created,
             int(row.finished), row.invite, *(p and p.id for p in row.players),
             int(row.rated), row.move_seconds),
        )

    def load_game(self, game_id: str) -> tuple[GameRow, list[tuple[int, str]]] | None:
        """The game and its moves as (seat, move) in order, or None."""
        with self._lock:
            found = self._db.execute(
                f"SELECT {_GAME_COLUMNS} FROM games g {_GAME_JOINS} WHERE g.id = ?", (game_id,)
            ).fetchone()
            if found is None:
                return None
            moves = self._db.execute(
                "SELECT seat, move FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)
            ).fetchall()
        return _game_row(found), [(int(s), str(m)) for s, m in moves]

    def create_rematch(self, game_id: str, seat: int, row: GameRow) -> tuple[str, int] | None:
        """Store ``row`` as the rematch of the finished game ``game_id``, asked for by
        ``seat``, in one transaction with the link to it, unless that game has a rematch
        already. Returns the rematch's id and the seat that asked for it: ``row``'s, or
        the one stored before (so two calls at once make one game); None if ``game_id`` is
        no finished game."""
        with self._write() as tx:
            found = self._db.execute(
                "SELECT finished, rematch, rematch_by FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if found is None or not found[0]:
                tx.discard()
                return None
            if found[1] is not None:
                tx.discard()
                return str(found[1]), int(found[2])
            self._insert_game(row)
            self._db.execute("UPDATE games SET rematch = ?, rematch_by = ?, updated = ? "
                             "WHERE id = ?", (row.id, seat, self.clock(), game_id))
        return row.id, seat

    def add_moves(self, game_id: str, first_ply: int, moves: Sequence[tuple[int, str]],
                  finished: bool, result: GameResult | None = None) -> None:
        """Append moves ``first_ply``, ``first_ply + 1``, ... in one transaction, or nothing:
        :class:`MoveConflict` if a move is stored at one of those plies already (or the
        game is gone), ``sqlite3.Error`` if the database fails (locked, full...). A move
        that finishes the game comes with its ``result``, stored in the same transaction."""
        now = self.clock()
        with self._write():
            stored = self._db.execute(
                "SELECT COUNT(*) FROM moves WHERE game_id = ?", (game_id,)).fetchone()[0]
            ended = self._db.execute(
                "SELECT finished FROM games WHERE id = ?", (game_id,)).fetchone()
            if ended is not None and ended[0]:
                # ended another way meanwhile (a clock ran out, in another process)
                raise MoveConflict(f"game {game_id} is over")
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
            if result is not None:
                self._db.execute(
                    "UPDATE games SET winner = ?, points0 = ?, points1 = ?, ended_by = ? "
                    "WHERE id = ?", (result.winner, *result.points, result.ended_by,
                                     game_id))

    def claim_invite(self, game_id: str, invite_hash: str, token_hash: str,
                     player: str | None = None) -> bool:
        """Give seat 1 the token ``token_hash`` (and the player ``player``, if named) if
        ``invite_hash`` is the game's unclaimed invitation; False if it is not (wrong, or
        claimed already). Claimed once only."""
        with self._lock:
            changed = self._db.execute(
                "UPDATE games SET token1 = ?, invite = NULL, updated = ?, player1 = ? "
                "WHERE id = ? AND invite = ?",
                (token_hash, self.clock(), player, game_id, invite_hash)).rowcount
        return bool(changed == 1)

    # -- players -----------------------------------------------------------------------------
    def create_player(self, row: PlayerRow, skeleton: str) -> bool:
        """Store a new player; False (and nothing stored) if a player of that name skeleton
        (:func:`dominolab.web.community.names.skeleton`) exists."""
        with self._lock:
            changed = self._db.execute(
                "INSERT INTO players (id, name, skeleton, key_hash, created) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (row.id, row.name, skeleton, row.key_hash, row.created)).rowcount
        return bool(changed == 1)

    def player(self, *, id: str | None = None, key_hash: str | None = None
               ) -> PlayerRow | None:
        """The player with this id, or with this key's hash; None if there is none."""
        column, value = ("id", id) if key_hash is None else ("key_hash", key_hash)
        with self._lock:
            found = self._db.execute(
                f"SELECT id, name, key_hash, created FROM players WHERE {column} = ?",
                (value,)).fetchone()
        return None if found is None else PlayerRow(found[0], found[1], found[2], found[3])

    def finished_games_of(self, player: str, limit: int = 50) -> list[GameRow]:
        """The player's finished games, the latest first (at most ``limit``)."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_GAME_COLUMNS} FROM games g {_GAME_JOINS} "
                "WHERE (g.player0 = ? OR g.player1 = ?) AND g.finished = 1 "
                "ORDER BY g.updated DESC, g.id LIMIT ?", (player, player, limit)).fetchall()
        return [_game_row(r) for r in rows]

    # -- ratings -----------------------------------------------------------------------------
    def ratings_of(self, game: str, players: Sequence[str]) -> dict[str, RatingRow]:
        """The stored ratings in ``game`` of those of ``players`` who have one."""
        if not players:
            return {}
        marks = ", ".join("?" for _ in players)
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_RATING_COLUMNS} FROM ratings WHERE game = ? AND player IN ({marks})",
                (game, *players)).fetchall()
        return {r[0]: _rating_row(r) for r in rows}

    def player_ratings(self, player: str) -> list[RatingRow]:
        """The player's ratings, one per game they have played a rated match of."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_RATING_COLUMNS} FROM ratings WHERE player = ? ORDER BY game",
                (player,)).fetchall()
        return [_rating_row(r) for r in rows]

    def leaderboard(self, game: str, provisional_rd: float, limit: int = 100
                    ) -> list[tuple[PlayerRef, RatingRow]]:
        """The best ``limit`` players of ``game``: those whose deviation is at most
        ``provisional_rd`` first, by rating, then the provisional ones, by rating."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT p.name, {_RATING_COLUMNS_R} FROM ratings r "
                "JOIN players p ON p.id = r.player WHERE r.game = ? AND r.games > 0 "
                "ORDER BY CASE WHEN r.rd > ? THEN 1 ELSE 0 END, r.rating DESC, r.player "
                "LIMIT ?", (game, provisional_rd, limit)).fetchall()
        return [(PlayerRef(r[1], r[0]), _rating_row(r[1:])) for r in rows]

    def rating_changes_of(self, player: str, game_ids: Sequence[str]
                          ) -> dict[str, RatingChange]:
        """The player's rating changes in the matches ``game_ids``, by match."""
        if not game_ids:
            return {}
        marks = ", ".join("?" for _ in game_ids)
        with self._lock:
            rows = self._db.execute(
                "SELECT game_id, seat, player, game, rating_before, rating_after, rd_before, "
                "rd_after, opponent_rating, opponent_rd, at FROM rating_changes "
                f"WHERE player = ? AND game_id IN ({marks})", (player, *game_ids)).fetchall()
        return {r[0]: RatingChange(*r) for r in rows}

    def ratings_due(self, limit: int = 100) -> list[GameRow]:
        """Finished rated matches whose rating changes are not applied yet (a server that
        stopped, or a database that failed, just as one ended)."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_GAME_COLUMNS} FROM games g {_GAME_JOINS} "
                "WHERE g.rated = 1 AND g.finished = 1 AND g.ratings_applied = 0 "
                "ORDER BY g.updated, g.id LIMIT ?", (limit,)).fetchall()
        return [_game_row(r) for r in rows]

    def apply_ratings(self, game_id: str, ratings: Sequence[RatingRow],
                      changes: Sequence[RatingChange]) -> bool:
        """Store a finished rated match's new ratings and its changes, and mark the match's
        ratings applied, in one transaction, only if the mark is unset: True if this call
        applied them, False if they were applied before (or the game is no finished rated
        match, or is gone). Each new row must have been reckoned from the stored one, whose
        ``games`` is one less (none stored when it is 1); otherwise nothing is stored and
        :class:`RatingConflict` is raised. No ratings and no changes: only the mark (a
        match that counts for nothing)."""
        with self._write() as tx:
            claimed = self._db.execute(
                "UPDATE games SET ratings_applied = 1 WHERE id = ? AND rated = 1 "
                "AND finished = 1 AND ratings_applied = 0", (game_id,)).rowcount
            if claimed != 1:
                tx.discard()
                return False
            for row in ratings:
                values = (row.rating, row.rd, row.volatility, row.games, row.updated)
                if row.games == 1:
                    stored = self._db.execute(
                        "INSERT INTO ratings (player, game, rating, rd, volatility, "
                        "games, updated) VALUES (?, ?, ?, ?, ?, ?, ?) "
                        "ON CONFLICT (player, game) DO NOTHING",
                        (row.player, row.game, *values)).rowcount
                else:
                    stored = self._db.execute(
                        "UPDATE ratings SET rating = ?, rd = ?, volatility = ?, games = ?, "
                        "updated = ? WHERE player = ? AND game = ? AND games = ?",
                        (*values, row.player, row.game, row.games - 1)).rowcount
                if stored != 1:
                    raise RatingConflict(f"{row.player}'s {row.game} rating changed "
                                         f"while match {game_id} was reckoned")
            self._db.executemany(
                "INSERT INTO rating_changes (game_id, seat, player, game, rating_before, "
                "rating_after, rd_before, rd_after, opponent_rating, opponent_rd, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(c.game_id, c.seat, c.player, c.game, c.rating_before, c.rating_after,
                  c.rd_before, c.rd_after, c.opponent_rating, c.opponent_rd, c.at)
                 for c in changes])
        return True

    def expire(self, unfinished_before: float, finished_before: float) -> list[str]:
        """Delete the unfinished games last changed before ``unfinished_before`` and the
        finished ones before ``finished_before``; returns their ids."""
        with self._write():
            ids = [r[0] for r in self._db.execute(
                "SELECT id FROM games WHERE (finished = 0 AND updated < ?) "
                "OR (finished = 1 AND updated < ?)", (unfinished_before, finished_before))]
            self._db.executemany("DELETE FROM moves WHERE game_id = ?",
                                 [(i,) for i in ids])
            self._db.executemany("DELETE FROM games WHERE id = ?", [(i,) for i in ids])
            # a rematch that expired first may be asked for again
            self._db.executemany("UPDATE games SET rematch = NULL, rematch_by = NULL "
                                 "WHERE rematch = ?", [(i,) for i in ids])
        return ids

    def count_games(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    # -- the lobby ---------------------------------------------------------------------------
    def open_lobby_socket(self, socket: str, player: str, server: str) -> None:
        """A named player's lobby socket, held by the server process ``server``."""
        with self._lock:
            self._db.execute(
                "INSERT INTO lobby_sockets (id, player, server, seen) VALUES (?, ?, ?, ?)",
                (socket, player, server, self.clock()))

    def close_lobby_socket(self, socket: str) -> int:
        """A lobby socket ended: forget it and delete its open seeks (accepted ones stay
        until their creator is told); returns how many seeks went."""
        with self._write():
            gone = self._db.execute(
                "DELETE FROM seeks WHERE socket = ? AND game_id IS NULL", (socket,)
            ).rowcount
            self._db.execute("DELETE FROM lobby_sockets WHERE id = ?", (socket,))
        return int(gone)

    def heartbeat(self, server: str, sockets: Sequence[tuple[str, str]]) -> None:
        """The server process ``server`` is alive and holds these lobby sockets (id,
        player): their rows are kept, or put back after a pause long enough for another
        process to have swept them."""
        if not sockets:
            return
        now = self.clock()
        with self._write():
            self._db.executemany(
                "INSERT INTO lobby_sockets (id, player, server, seen) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET seen = excluded.seen, "
                "server = excluded.server",
                [(socket, player, server, now) for socket, player in sockets])

    def sweep_lobby(self, dead_before: float, told_before: float) -> int:
        """Delete the lobby sockets whose process has not said it is alive since
        ``dead_before`` (it died) with every open seek no socket owns, and the seeks
        accepted before ``told_before`` (until then a late accept is told it came second);
        returns how many open seeks went."""
        with self._write():
            self._db.execute("DELETE FROM lobby_sockets WHERE seen < ?", (dead_before,))
            gone = self._db.execute(
                "DELETE FROM seeks WHERE game_id IS NULL AND socket NOT IN "
                "(SELECT id FROM lobby_sockets)").rowcount
            self._db.execute("DELETE FROM seeks WHERE game_id IS NOT NULL AND accepted < ?",
                             (told_before,))
        return int(gone)

    def create_seek(self, row: SeekRow, max_open: int) -> SeekRow | str:
        """Store the open seek ``row``, owned by the lobby socket ``row.socket`` (which must
        be its player's), or by the player's latest lobby socket if ``row.socket`` is
        ``''``. Returns the seek as stored, or why not: ``"no-socket"`` (the player has no
        such lobby socket), ``"too-many"`` (the player has ``max_open`` open seeks)."""
        with self._write() as tx:
            made = self._insert_seek(row, max_open)
            if not isinstance(made, SeekRow):
                tx.discard()
        return made

    def _insert_seek(self, row: SeekRow, max_open: int) -> SeekRow | str:
        """Call with the lock held, in a transaction."""
        if row.socket:
            found = self._db.execute("SELECT id FROM lobby_sockets WHERE id = ? AND player = ?",
                                     (row.socket, row.player.id)).fetchone()
        else:
            found = self._db.execute(
                "SELECT id FROM lobby_sockets WHERE player = ? ORDER BY seen DESC, id LIMIT 1",
                (row.player.id,)).fetchone()
        if found is None:
            return "no-socket"
        open_seeks = self._db.execute(
            "SELECT COUNT(*) FROM seeks WHERE player = ? AND game_id IS NULL",
            (row.player.id,)).fetchone()[0]
        if open_seeks >= max_open:
            return "too-many"
        made = replace(row, socket=str(found[0]))
        self._db.execute(
            "INSERT INTO seeks (id, player, socket, game, options, rated, move_seconds, "
            "token_hash, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (made.id, made.player.id, made.socket, made.game,
             json.dumps(made.options, sort_keys=True), int(made.rated), made.move_seconds,
             made.token_hash, made.created))
        return made

    def seek(self, seek_id: str) -> SeekRow | None:
        """The seek, open or accepted; None if there is none."""
        with self._lock:
            found = self._db.execute(
                f"SELECT {_SEEK_COLUMNS} FROM seeks s {_SEEK_JOINS} WHERE s.id = ?",
                (seek_id,)).fetchone()
        return None if found is None else _seek_row(found)

    def delete_seek(self, seek_id: str, player: str) -> bool:
        """Delete ``player``'s open seek; False if it is not an open seek of theirs."""
        with self._lock:
            gone = self._db.execute(
                "DELETE FROM seeks WHERE id = ? AND player = ? AND game_id IS NULL",
                (seek_id, player)).rowcount
        return bool(gone == 1)

    def accept_seek(self, seek_id: str, player: str, build: Callable[[SeekRow], GameRow]
                    ) -> GameRow | str:
        """``player`` accepts the open seek: the game ``build(seek)`` is stored and the
        seek marked with it, in one transaction, and both players' other open seeks are
        deleted. Returns the game, or why not: ``"gone"`` (no such seek), ``"taken"``
        (accepted already: two accepts at once make one game), ``"own"``."""
        with self._write() as tx:
            found = self._db.execute(
                f"SELECT {_SEEK_COLUMNS} FROM seeks s {_SEEK_JOINS} WHERE s.id = ?",
                (seek_id,)).fetchone()
            seek = None if found is None else _seek_row(found)
            made: GameRow | str
            if seek is None:
                made = "gone"
            elif seek.game_id is not None:
                made = "taken"
            elif seek.player.id == player:
                made = "own"
            else:
                made = self._accept(seek, player, build)
            if not isinstance(made, GameRow):
                tx.discard()
        return made

    def _accept(self, seek: SeekRow, player: str, build: Callable[[SeekRow], GameRow]
                ) -> GameRow:
        """Call with the lock held, in a transaction, for an open seek of another player."""
        row = build(seek)
        seat = 0 if row.token_hashes[0] == seek.token_hash else 1
        self._insert_game(row)
        self._db.execute("UPDATE seeks SET game_id = ?, seat = ?, accepted = ? WHERE id = ?",
                         (row.id, seat, row.created, seek.id))
        self._db.execute("DELETE FROM seeks WHERE game_id IS NULL AND player IN (?, ?)",
                         (seek.player.id, player))
        return row

    def quick_pair(self, seek: SeekRow, max_open: int, build: Callable[[SeekRow], GameRow]
                   ) -> GameRow | SeekRow | str:
        """Quick pairing, in one transaction: accept the oldest open seek of another player
        for the same game, options, rating and clock as ``seek`` (returns the new game);
        else keep the player's own such seek if there is one, or open ``seek`` (returns the
        seek); or why not, as :meth:`create_seek` says."""
        with self._write() as tx:
            alike = ("s.game_id IS NULL AND s.game = ? AND s.options = ? AND s.rated = ? "
                     "AND s.move_seconds = ?")
            args = (seek.game, json.dumps(seek.options, sort_keys=True), int(seek.rated),
                    seek.move_seconds, seek.player.id)
            other = self._db.execute(
                f"SELECT {_SEEK_COLUMNS} FROM seeks s {_SEEK_JOINS} WHERE {alike} "
                "AND s.player <> ? ORDER BY s.created, s.id LIMIT 1", args).fetchone()
            mine = None if other is not None else self._db.execute(
                f"SELECT {_SEEK_COLUMNS} FROM seeks s {_SEEK_JOINS} WHERE {alike} "
                "AND s.player = ? ORDER BY s.created, s.id LIMIT 1", args).fetchone()
            made: GameRow | SeekRow | str
            if other is not None:
                made = self._accept(_seek_row(other), seek.player.id, build)
            elif mine is not None:
                made = _seek_row(mine)
            else:
                made = self._insert_seek(seek, max_open)
            if isinstance(made, str):
                tx.discard()
        return made

    def lobby(self, limit: int = 100
              ) -> tuple[list[SeekRow], list[GameRow], list[tuple[str, str, str]]]:
        """What the lobby shows: the open seeks, oldest first; the unfinished lobby games,
        newest first (at most ``limit`` of each); and the accepted seeks whose creator is
        still to be told, as (seek id, socket, player)."""
        with self._lock:
            seeks = self._db.execute(
                f"SELECT {_SEEK_COLUMNS} FROM seeks s {_SEEK_JOINS} WHERE s.game_id IS NULL "
                "ORDER BY s.created, s.id LIMIT ?", (limit,)).fetchall()
            live = self._db.execute(
                f"SELECT {_GAME_COLUMNS} FROM games g {_GAME_JOINS} "
                "WHERE g.finished = 0 AND g.move_seconds IS NOT NULL AND g.mode = 'lobby' "
                "ORDER BY g.created DESC, g.id LIMIT ?", (limit,)).fetchall()
            told = self._db.execute(
                "SELECT id, socket, player FROM seeks WHERE game_id IS NOT NULL AND told = 0"
            ).fetchall()
        return ([_seek_row(r) for r in seeks], [_game_row(r) for r in live],
                [(str(a), str(b), str(c)) for a, b, c in told])

    def claim_matches(self, socket: str, player: str) -> list[tuple[str, str, int]]:
        """The accepted seeks this lobby socket of ``player`` is to tell them of (its own,
        and the player's whose socket is gone), as (seek id, game id, seat), marked told as
        they are returned: each is told once."""
        with self._write():
            found = [(str(a), str(b), int(c)) for a, b, c in self._db.execute(
                "SELECT id, game_id, seat FROM seeks WHERE game_id IS NOT NULL "
                "AND told = 0 AND player = ? AND (socket = ? OR socket NOT IN "
                "(SELECT id FROM lobby_sockets)) ORDER BY created, id", (player, socket))]
            self._db.executemany("UPDATE seeks SET told = 1 WHERE id = ?",
                                 [(f[0],) for f in found])
        return found

    # -- clocks ------------------------------------------------------------------------------
    def moved_at(self, game_id: str) -> float | None:
        """When the game's last move was stored (its creation, before any); None if there
        is no such game. A clock runs from there."""
        with self._lock:
            found = self._db.execute(
                "SELECT g.created, (SELECT MAX(m.at) FROM moves m WHERE m.game_id = g.id) "
                "FROM games g WHERE g.id = ?", (game_id,)).fetchone()
        if found is None:
            return None
        return float(found[0] if found[1] is None else found[1])

    def out_of_time(self, ran_out_by: float) -> list[tuple[str, int]]:
        """The unfinished games whose player to move ran out of time by ``ran_out_by``
        (the last move's time plus the game's ``move_seconds``), as (id, moves stored)."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT g.id, {_PLIES} FROM games g WHERE g.finished = 0 "
                f"AND g.move_seconds IS NOT NULL AND {_MOVED} + g.move_seconds <= ?",
                (ran_out_by,)).fetchall()
        return [(str(i), int(n)) for i, n in rows]

    def end_by_time(self, game_id: str, version: int, result: GameResult,
                    ran_out_by: float) -> bool:
        """Store ``result`` as the game's end, only if it is unfinished, still has exactly
        ``version`` moves and its clock ran out by ``ran_out_by`` (one conditional
        UPDATE); False if not (a move came first, or it has ended already: an ending is
        stored once)."""
        with self._write():
            changed = self._db.execute(
                "UPDATE games SET finished = 1, updated = ?, winner = ?, points0 = ?, "
                "points1 = ?, ended_by = ? WHERE id = ? AND finished = 0 "
                "AND move_seconds IS NOT NULL "
                "AND (SELECT COUNT(*) FROM moves m WHERE m.game_id = games.id) = ? "
                "AND COALESCE((SELECT MAX(m.at) FROM moves m WHERE m.game_id = games.id), "
                "games.created) + move_seconds <= ?",
                (self.clock(), result.winner, *result.points, result.ended_by, game_id,
                 version, ran_out_by)).rowcount
        return bool(changed == 1)

    def game_since(self, game_id: str, first_ply: int
                   ) -> tuple[GameRow, list[tuple[int, str]]] | None:
        """The game and its moves from ``first_ply`` on, or None: how a server catches up
        with what another process stored (:meth:`load_game` reads every move)."""
        with self._lock:
            # one query (one round trip to a database server): the game's columns on every
            # row, and its moves from first_ply on, or NULLs if there are none
            rows = self._db.execute(
                f"SELECT {_GAME_COLUMNS}, m.seat, m.move FROM games g {_GAME_JOINS} "
                "LEFT JOIN moves m ON m.game_id = g.id AND m.ply >= ? "
                "WHERE g.id = ? ORDER BY m.ply", (first_ply, game_id)).fetchall()
        if not rows:
            return None
        return _game_row(rows[0]), [(int(r[-2]), str(r[-1])) for r in rows
                                    if r[-2] is not None]

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
                        finished: bool, result: GameResult | None = None) -> None:
        await self._run(self.sync.add_moves, game_id, first_ply, moves, finished, result)

    async def claim_invite(self, game_id: str, invite_hash: str, token_hash: str,
                           player: str | None = None) -> bool:
        return await self._run(self.sync.claim_invite, game_id, invite_hash, token_hash,
                               player)

    async def create_player(self, row: PlayerRow, skeleton: str) -> bool:
        return await self._run(self.sync.create_player, row, skeleton)

    async def player(self, *, id: str | None = None, key_hash: str | None = None
                     ) -> PlayerRow | None:
        return await self._run(lambda: self.sync.player(id=id, key_hash=key_hash))

    async def finished_games_of(self, player: str, limit: int = 50) -> list[GameRow]:
        return await self._run(self.sync.finished_games_of, player, limit)

    async def create_rematch(self, game_id: str, seat: int, row: GameRow
                             ) -> tuple[str, int] | None:
        return await self._run(self.sync.create_rematch, game_id, seat, row)

    async def expire(self, unfinished_before: float, finished_before: float) -> list[str]:
        return await self._run(self.sync.expire, unfinished_before, finished_before)

    async def ratings_of(self, game: str, players: Sequence[str]) -> dict[str, RatingRow]:
        return await self._run(self.sync.ratings_of, game, players)

    async def player_ratings(self, player: str) -> list[RatingRow]:
        return await self._run(self.sync.player_ratings, player)

    async def leaderboard(self, game: str, provisional_rd: float, limit: int = 100
                          ) -> list[tuple[PlayerRef, RatingRow]]:
        return await self._run(self.sync.leaderboard, game, provisional_rd, limit)

    async def rating_changes_of(self, player: str, game_ids: Sequence[str]
                                ) -> dict[str, RatingChange]:
        return await self._run(self.sync.rating_changes_of, player, game_ids)

    async def ratings_due(self, limit: int = 100) -> list[GameRow]:
        return await self._run(self.sync.ratings_due, limit)

    async def apply_ratings(self, game_id: str, ratings: Sequence[RatingRow],
                            changes: Sequence[RatingChange]) -> bool:
        return await self._run(self.sync.apply_ratings, game_id, ratings, changes)
    async def open_lobby_socket(self, socket: str, player: str, server: str) -> None:
        await self._run(self.sync.open_lobby_socket, socket, player, server)

    async def close_lobby_socket(self, socket: str) -> int:
        return await self._run(self.sync.close_lobby_socket, socket)

    async def heartbeat(self, server: str, sockets: Sequence[tuple[str, str]]) -> None:
        await self._run(self.sync.heartbeat, server, sockets)

    async def sweep_lobby(self, dead_before: float, told_before: float) -> int:
        return await self._run(self.sync.sweep_lobby, dead_before, told_before)

    async def create_seek(self, row: SeekRow, max_open: int) -> SeekRow | str:
        return await self._run(self.sync.create_seek, row, max_open)

    async def seek(self, seek_id: str) -> SeekRow | None:
        return await self._run(self.sync.seek, seek_id)

    async def delete_seek(self, seek_id: str, player: str) -> bool:
        return await self._run(self.sync.delete_seek, seek_id, player)

    async def accept_seek(self, seek_id: str, player: str,
                          build: Callable[[SeekRow], GameRow]) -> GameRow | str:
        return await self._run(self.sync.accept_seek, seek_id, player, build)

    async def quick_pair(self, seek: SeekRow, max_open: int,
                         build: Callable[[SeekRow], GameRow]) -> GameRow | SeekRow | str:
        return await self._run(self.sync.quick_pair, seek, max_open, build)

    async def lobby(self, limit: int = 100
                    ) -> tuple[list[SeekRow], list[GameRow], list[tuple[str, str, str]]]:
        return await self._run(self.sync.lobby, limit)

    async def claim_matches(self, socket: str, player: str) -> list[tuple[str, str, int]]:
        return await self._run(self.sync.claim_matches, socket, player)

    async def moved_at(self, game_id: str) -> float | None:
        return await self._run(self.sync.moved_at, game_id)

    async def out_of_time(self, ran_out_by: float) -> list[tuple[str, int]]:
        return await self._run(self.sync.out_of_time, ran_out_by)

    async def end_by_time(self, game_id: str, version: int, result: GameResult,
                          ran_out_by: float) -> bool:
        return await self._run(self.sync.end_by_time, game_id, version, result,
                               ran_out_by)

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


#: a game's columns, with its players' names (``g``: games, ``p0``/``p1``: its players)
_GAME_COLUMNS: Final = (
    "g.id, g.game, g.options, g.seed, g.first_opener, g.mode, g.opponent, g.token0, g.token1, "
    "g.rules_version, g.created, g.finished, g.invite, g.rematch, g.rematch_by, "
    "g.player0, p0.name, g.player1, p1.name, g.winner, g.points0, g.points1, g.ended_by, "
    "g.rated, g.move_seconds")
_GAME_JOINS: Final = ("LEFT JOIN players p0 ON p0.id = g.player0 "
                      "LEFT JOIN players p1 ON p1.id = g.player1")


#: a game's moves stored, and when it last moved (``g``: games)
_PLIES: Final = "(SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id)"
_MOVED: Final = "COALESCE((SELECT MAX(m.at) FROM moves m WHERE m.game_id = g.id), g.created)"

#: a seek's columns, with its player's name (``s``: seeks, ``sp``: its player)
_SEEK_COLUMNS: Final = ("s.id, s.player, sp.name, s.socket, s.game, s.options, s.rated, "
                        "s.move_seconds, s.token_hash, s.created, s.game_id, s.seat")
_SEEK_JOINS: Final = "JOIN players sp ON sp.id = s.player"


def _seek_row(found: Sequence[Any]) -> SeekRow:
    """A :class:`SeekRow` from the :data:`_SEEK_COLUMNS` of one row."""
    return SeekRow(found[0], PlayerRef(found[1], found[2]), found[3], found[4],
                   json.loads(found[5]), bool(found[6]), int(found[7]), found[8],
                   float(found[9]), found[10], None if found[11] is None else int(found[11]))


def _game_row(found: Sequence[Any]) -> GameRow:
    """A :class:`GameRow` from the :data:`_GAME_COLUMNS` of one row."""
    players = tuple(None if found[i] is None else PlayerRef(found[i], found[i + 1])
                    for i in (15, 17))
    result = None if found[22] is None else GameResult(
        None if found[19] is None else int(found[19]), (int(found[20]), int(found[21])),
        str(found[22]))
    return GameRow(found[0], found[1], json.loads(found[2]), found[3], found[4], found[5],
                   found[6], (found[7], found[8]), found[9], found[10], bool(found[11]),
                   found[12], found[13], found[14], (players[0], players[1]), result,
                   bool(found[23]), None if found[24] is None else int(found[24]))


#: a rating's columns, in :class:`RatingRow`'s order
_RATING_COLUMNS: Final = "player, game, rating, rd, volatility, games, updated"
_RATING_COLUMNS_R: Final = ", ".join(f"r.{c}" for c in _RATING_COLUMNS.split(", "))


def _rating_row(found: Sequence[Any]) -> RatingRow:
    """A :class:`RatingRow` from the :data:`_RATING_COLUMNS` of one row."""
    return RatingRow(str(found[0]), str(found[1]), float(found[2]), float(found[3]),
                     float(found[4]), int(found[5]), float(found[6]))


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (no semicolons inside them)."""
    return [s.strip() for s in script.split(";") if s.strip()]
