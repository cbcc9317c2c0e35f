"""The games database on PostgreSQL, for several server processes: ``--db postgresql://...``.

:class:`~dominolab.web.storage.store.Store` is written once, in SQLite's dialect, against the few
methods of an ``sqlite3`` connection it uses. :class:`Connection` offers those methods over
psycopg 3, so that every ``Store`` method and every migration in
:data:`~dominolab.web.storage.store.MIGRATIONS` runs here unchanged:

- ``?`` placeholders become psycopg's ``%s`` (``%`` is doubled), comments are dropped;
- in migrations' types, ``INTEGER`` becomes ``BIGINT`` and ``REAL`` ``DOUBLE PRECISION``
  (SQLite's are 64-bit; PostgreSQL's are 32-bit), and ``WITHOUT ROWID`` is dropped;
- ``BEGIN IMMEDIATE`` (SQLite: take the database's one write lock now) becomes ``BEGIN``
  and a transaction-scoped advisory lock that every writer takes, so that writers are
  serialised across every process exactly as SQLite serialises them: a read-then-write
  in such a transaction sees no other writer between its read and its write. The one
  exception is the hot path, ``add_moves`` (which reads its game's row and previous ply,
  then appends): :class:`PgStore` runs it under that lock shared and a lock of its game alone,
  so moves in different games are stored at once, and never beside another writer;
- ``PRAGMA user_version`` reads and writes a one-row table, ``dominolab_schema``;
- booleans are stored as integers and ``numeric`` results (``SUM``, ``AVG``) come back as
  ``int`` or ``float``, as SQLite gives them;
- psycopg's errors are raised as the ``sqlite3`` error of the same kind (``IntegrityError``,
  ``OperationalError``...), chained to the original, so that ``except sqlite3.X`` means the
  same on both backends;
- a connection that was lost is opened again by the next statement outside a transaction
  (one inside a transaction fails, and so does its transaction; a ``SELECT`` outside one
  that finds the connection lost is tried again at once on a new one);
- commits do not wait for the disk (``synchronous_commit = off``, unless the URL's
  ``options`` set it): like SQLite's ``synchronous=NORMAL``, a commit survives the server
  process being killed, not a power cut.

Write methods in the portable subset: TEXT, INTEGER, REAL; ``?``; ``ON CONFLICT ... DO``;
no ``INSERT OR``, ``AUTOINCREMENT``, ``IFNULL`` (use ``COALESCE``) or two-argument ``MAX``;
and do not go on inside a transaction after a statement failed (PostgreSQL aborts it).

:class:`PgEvents` is :class:`~dominolab.web.storage.events.Events` shared by every process on the
database, over PostgreSQL's LISTEN/NOTIFY on one channel (docs/web.md, "Two backends,
several processes").
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

import psycopg
from psycopg.adapt import Dumper, Loader
from psycopg.pq import TransactionStatus

from dominolab.web.limits import SharedBuckets
from dominolab.web.storage.events import Events
from dominolab.web.storage.games import NewMoves, Outcome
from dominolab.web.storage.rows import MoveConflict
from dominolab.web.storage.store import BUSY_TIMEOUT, GameResult, Store, StoreError

log = logging.getLogger("dominolab.web")

#: the advisory lock every writing transaction takes (``BEGIN IMMEDIATE``)
WRITE_LOCK: Final = 0x646F6D696E6F  # "domino"
#: the advisory lock held while the schema is brought up to date
MIGRATE_LOCK: Final = WRITE_LOCK + 1
#: the key space of the locks of one game (two int4 keys: this, and the id's hash)
GAME_LOCKS: Final = 0x646F6D69  # "domi"
_WRITER: Final = f"SELECT pg_advisory_xact_lock({WRITE_LOCK})"
#: a writer of one game: every such writer at once, but none beside a whole-database one
_ONE_GAME: Final = (f"SELECT pg_advisory_xact_lock_shared({WRITE_LOCK}), "
                    f"pg_advisory_xact_lock({GAME_LOCKS}, hashtext(%s))")
#: the one NOTIFY channel of :class:`PgEvents`; each payload names its topic
CHANNEL: Final = "dominolab_events"
#: PostgreSQL refuses a NOTIFY payload of 8000 bytes or more
MAX_PAYLOAD: Final = 7900
#: how long opening a connection may take before it counts as failed
CONNECT_TIMEOUT: Final = 5
#: TCP keepalives, so that a connection whose server vanished is found dead in seconds
KEEPALIVES: Final = {"keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2,
                     "keepalives_count": 3}


def redact(url: str) -> str:
    """The URL without its password, for messages and logs (one that cannot be read as a
    URL is not shown: it may hold one)."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "postgresql://(a URL that cannot be read)"
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))


def conninfo(url: str, name: str) -> str:
    """``url`` with what this module's connections add (what the URL says itself wins): a
    connect timeout, keepalives and an application name, ``name``, seen in
    ``pg_stat_activity``."""
    given = psycopg.conninfo.conninfo_to_dict(url)
    ours: dict[str, str | int] = {"connect_timeout": CONNECT_TIMEOUT, **KEEPALIVES,
                                  "application_name": name}
    extra = {k: v for k, v in ours.items() if k not in given}
    return psycopg.conninfo.make_conninfo(url, **extra)


def one_line(exc: BaseException) -> str:
    """An error's message on one line (libpq's span several)."""
    return " ".join(str(exc).split())


# -- the sqlite3-like connection -------------------------------------------------------------

_TOKEN: Final = re.compile(
    r"""'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|/\*.*?\*/"""
    r"""|\?|%|\bWITHOUT\s+ROWID\b|\bINTEGER\b|\bREAL\b""", re.S | re.I)
_TYPES: Final = {"integer": "BIGINT", "real": "DOUBLE PRECISION"}
_USER_VERSION: Final = re.compile(r"^\s*PRAGMA\s+user_version\s*(?:=\s*(\d+))?\s*;?\s*$",
                                  re.I)
_BEGIN: Final = re.compile(r"^\s*BEGIN(?:\s+(DEFERRED|IMMEDIATE|EXCLUSIVE))?"
                           r"(?:\s+TRANSACTION)?\s*;?\s*$", re.I)


@lru_cache(maxsize=1024)
def translate(sql: str, with_params: bool = True) -> str:
    """SQLite's dialect, as the store writes it, in PostgreSQL's (see the module's text)."""

    def one(m: re.Match[str]) -> str:
        token = m.group(0)
        if token[0] in "'\"":  # a literal or a quoted name: kept (psycopg reads % in it)
            return token.replace("%", "%%") if with_params else token
        if token.startswith(("--", "/*")):
            return " "
        if token == "?":
            return "%s"
        if token == "%":
            return "%%" if with_params else "%"
        if token[0] in "Ww":
            return ""
        return _TYPES[token.lower()]

    return _TOKEN.sub(one, sql).strip()


class _BoolAsInteger(Dumper):
    """True and False as 1 and 0 (SQLite has no booleans); the server types the literal."""

    oid = 0

    def dump(self, obj: Any) -> bytes:
        return b"1" if obj else b"0"


class _Number(Loader):
    """``numeric`` as ``int`` when whole, else ``float``, as SQLite gives sums."""

    def load(self, data: Any) -> Any:
        text = bytes(data).decode()
        return float(text) if any(c in text for c in ".eEN") else int(text)


_ERRORS: Final[tuple[tuple[type[psycopg.Error], type[sqlite3.Error]], ...]] = (
    (psycopg.IntegrityError, sqlite3.IntegrityError),
    (psycopg.DataError, sqlite3.DataError),
    (psycopg.NotSupportedError, sqlite3.NotSupportedError),
    (psycopg.ProgrammingError, sqlite3.ProgrammingError),
    (psycopg.InternalError, sqlite3.InternalError),
    (psycopg.OperationalError, sqlite3.OperationalError),
    (psycopg.InterfaceError, sqlite3.OperationalError),
)


def as_sqlite_error(exc: psycopg.Error) -> sqlite3.Error:
    """The ``sqlite3`` error of the same kind as ``exc`` (raise it ``from exc``)."""
    for theirs, ours in _ERRORS:
        if isinstance(exc, theirs):
            return ours(f"PostgreSQL: {one_line(exc)}")
    return sqlite3.DatabaseError(f"PostgreSQL: {one_line(exc)}")


class Cursor:
    """A statement's result, as much of ``sqlite3.Cursor`` as the store uses."""

    def __init__(self, cur: psycopg.Cursor[Any] | None = None, rows: list[Any] | None = None
                 ) -> None:
        self._cur = cur
        self._rows = rows

    @property
    def rowcount(self) -> int:
        return -1 if self._cur is None else self._cur.rowcount

    def fetchone(self) -> Any:
        if self._rows is not None:
            return self._rows.pop(0) if self._rows else None
        if self._cur is None or self._cur.description is None:
            return None
        return self._cur.fetchone()

    def fetchall(self) -> list[Any]:
        if self._rows is not None:
            rows, self._rows = self._rows, []
            return rows
        if self._cur is None or self._cur.description is None:
            return []
        return self._cur.fetchall()

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


class Connection:
    """The methods of ``sqlite3.Connection`` that :class:`~dominolab.web.storage.store.Store` uses
    (``execute``, ``executemany``, ``in_transaction``, ``close``), over one psycopg 3
    connection in autocommit mode: like SQLite's with ``isolation_level=None``, a
    transaction is begun and ended by the statements the store sends."""

    def __init__(self, url: str, *, lock_timeout: float = BUSY_TIMEOUT) -> None:
        self.url = url
        self.lock_timeout = lock_timeout
        #: the store sent BEGIN and not yet COMMIT or ROLLBACK
        self._began = False
        #: a BEGIN not sent yet, with the lock it takes (SQL and parameters, or None): it
        #: goes with the next statement, in one round trip (psycopg's pipeline)
        self._pending: tuple[str | None, tuple[Any, ...]] | None = None
        #: the game the current thread's transaction is confined to (:meth:`one_game`)
        self._scope = threading.local()
        self._conn = self._connect()

    @contextlib.contextmanager
    def one_game(self, game_id: str) -> Iterator[None]:
        """Within this, a ``BEGIN IMMEDIATE`` on this thread locks only game ``game_id``
        (and the whole-database lock shared): for a method that writes one game's rows
        and reads nothing else."""
        self._scope.game = game_id
        try:
            yield
        finally:
            self._scope.game = None

    def _connect(self) -> psycopg.Connection[Any]:
        try:
            conn = psycopg.connect(conninfo(self.url, "dominolab"), autocommit=True)
            # a write waits this long for another's lock, like SQLite's busy timeout
            conn.execute(f"SET lock_timeout = {int(self.lock_timeout * 1000)}")
            if "synchronous_commit" not in str(
                    psycopg.conninfo.conninfo_to_dict(self.url).get("options") or ""):
                # SQLite's promise (synchronous=NORMAL): a commit survives this process
                # being killed, not a power cut. Waiting for each commit's flush under the
                # one write lock would hold every writer up (about 4 ms a move, so 250
                # moves a second for all servers together); the URL may ask for more with
                # ?options=-c%20synchronous_commit%3Don
                conn.execute("SET synchronous_commit = off")
        except psycopg.Error as exc:
            raise as_sqlite_error(exc) from exc
        conn.adapters.register_dumper(bool, _BoolAsInteger)
        conn.adapters.register_loader("numeric", _Number)
        return conn

    def _ready(self) -> psycopg.Connection[Any]:
        """The connection, opened again if it was lost; not inside a transaction, whose
        work the lost connection took with it."""
        conn = self._conn
        if conn.broken or conn.closed:
            if self._began:
                self._began = False
                raise sqlite3.OperationalError("PostgreSQL: the connection was lost in the "
                                               "middle of a transaction")
            if not conn.closed:
                conn.close()
            self._conn = conn = self._connect()
        return conn

    @property
    def in_transaction(self) -> bool:
        return self._pending is not None or self._conn.info.transaction_status in (
            TransactionStatus.INTRANS, TransactionStatus.INERROR)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        try:
            return self._execute(sql, params)
        except sqlite3.OperationalError:
            # a read outside a transaction, on a connection found lost only now (the server
            # ended it since the last statement): read again on a new one (a read changes
            # nothing, so trying it twice is safe; a write is never tried again)
            if not (self._conn.broken and not self._began
                    and sql.lstrip()[:6].upper() == "SELECT"):
                raise
        return self._execute(sql, params)

    def _execute(self, sql: str, params: Sequence[Any]) -> Cursor:
        conn = self._ready()
        try:
            version = _USER_VERSION.match(sql)
            if version is not None:
                self._begin_now(conn)
                return self._user_version(conn, version.group(1))
            begin = _BEGIN.match(sql)
            if begin is not None:
                self._begin_now(conn)
                self._began = True
                # sent with the next statement; for a writer, with the one write lock
                mode = (begin.group(1) or "").upper()
                game = getattr(self._scope, "game", None)
                if mode not in ("IMMEDIATE", "EXCLUSIVE"):
                    self._pending = (None, ())
                elif game is not None and mode == "IMMEDIATE":
                    self._pending = (_ONE_GAME, (game,))
                else:
                    self._pending = (_WRITER, ())
                return Cursor()
            word = sql.lstrip()[:8].upper()
            if word.startswith(("COMMIT", "ROLLBACK", "END")):
                self._began = False
                if self._pending is not None:  # nothing was sent: nothing to end
                    self._pending = None
                    return Cursor()
            query = translate(sql, bool(params))
            values = tuple(params) if params else None
            if self._pending is not None:
                return Cursor(self._begin_now(conn, query, values))
            return Cursor(conn.execute(query, values))
        except psycopg.Error as exc:
            raise self._failed(conn, exc) from exc

    def executemany(self, sql: str, seq: Any) -> Cursor:
        conn = self._ready()
        rows = [tuple(p) for p in seq]
        try:
            self._begin_now(conn)
            if len(rows) == 1:  # one statement needs no pipeline
                conn.execute(translate(sql), rows[0])
            elif rows:
                with conn.cursor() as cur:
                    cur.executemany(translate(sql), rows)
            return Cursor(rows=[])
        except psycopg.Error as exc:
            raise self._failed(conn, exc) from exc

    def _begin_now(self, conn: psycopg.Connection[Any], query: str | None = None,
                   values: tuple[Any, ...] | None = None) -> psycopg.Cursor[Any] | None:
        """Send a BEGIN still waiting for the next statement (and its lock), with
        ``query``, if given, in the same round trip; returns the query's cursor."""
        if self._pending is None:
            return None
        (lock, lock_params), self._pending = self._pending, None
        with conn.pipeline():
            conn.execute("BEGIN")
            if lock is not None:
                conn.execute(lock, lock_params or None)
            return None if query is None else conn.execute(query, values)

    def _failed(self, conn: psycopg.Connection[Any], exc: psycopg.Error) -> sqlite3.Error:
        if conn.broken:
            self._began = False  # the transaction went with the connection
            self._pending = None
        return as_sqlite_error(exc)

    def _user_version(self, conn: psycopg.Connection[Any], value: str | None) -> Cursor:
        if value is None:
            found = conn.execute("SELECT version FROM dominolab_schema").fetchone()
            return Cursor(rows=[(int(found[0]) if found else 0,)])
        conn.execute("UPDATE dominolab_schema SET version = %s", (int(value),))
        return Cursor()

    def close(self) -> None:
        self._conn.close()


class PgStore(Store):
    """The games database on PostgreSQL; ``Store("postgresql://...")`` makes one. Every
    method is :class:`~dominolab.web.storage.store.Store`'s, run over :class:`Connection`.

    Opening it checks it, as for SQLite: a server that cannot be reached, a database with a
    newer schema or one that cannot be written raises :class:`StoreError`, whose message
    names the database without its password."""

    def __init__(self, path: str | Path, *, busy_timeout: float = BUSY_TIMEOUT,
                 clock: Callable[[], float] = time.time) -> None:
        self.url = str(path)
        self.path = redact(self.url)
        self.clock = clock
        self.busy_timeout = busy_timeout
        try:
            psycopg.conninfo.conninfo_to_dict(self.url)
        except psycopg.Error as exc:
            raise StoreError(f"{self.path}: not a usable PostgreSQL URL ({one_line(exc)})"
                             ) from None
        try:
            self._pg = Connection(self.url, lock_timeout=busy_timeout)
            self._db = self._pg  # type: ignore[assignment]
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot connect to PostgreSQL "
                             f"({str(exc).removeprefix('PostgreSQL: ')})") from None
        self._lock = threading.Lock()
        self.migrate()
        self._check_writable()

    def migrate(self) -> None:
        """:meth:`Store.migrate`, holding a lock that keeps two processes starting at once
        from both migrating, after making the schema version's table if it is missing."""
        db = self._db
        try:
            db.execute(f"SELECT pg_advisory_lock({MIGRATE_LOCK})")
            try:
                exists = db.execute("SELECT to_regclass('dominolab_schema')").fetchone()
                if exists[0] is None:
                    db.execute("CREATE TABLE dominolab_schema (version INTEGER NOT NULL)")
                    db.execute("INSERT INTO dominolab_schema (version) VALUES (0)")
                super().migrate()
                # the shared rate limits' buckets: PostgreSQL's alone, so not a migration
                # (made only if missing: a role that may not create tables may use it)
                from dominolab.web.storage.pglimits import CREATE, CREATE_SPENT, SPENT, TABLE

                if db.execute(f"SELECT to_regclass('{TABLE}')").fetchone()[0] is None:
                    db.execute(CREATE)
                if db.execute(f"SELECT to_regclass('{SPENT}')").fetchone()[0] is None:
                    for statement in CREATE_SPENT:
                        db.execute(statement)
            finally:
                db.execute(f"SELECT pg_advisory_unlock({MIGRATE_LOCK})")
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot set up the database "
                             f"({str(exc).removeprefix('PostgreSQL: ')})") from None

    def add_moves(self, game_id: str, first_ply: int, moves: Sequence[tuple[int, str]],
                  finished: bool, result: GameResult | None = None) -> None:
        """:meth:`Store.add_moves` itself, locking only this game (see the module's text):
        it writes the game's own rows and reads only its moves and its row."""
        with self._pg.one_game(game_id):
            super().add_moves(game_id, first_ply, moves, finished, result)

    def ping(self) -> None:
        """The database answers a trivial read (PostgreSQL's writers wait for each other's
        locks only as long as ``busy_timeout``; a server that is gone or refuses fails
        here)."""
        with self._lock:
            self._db.execute("SELECT 1").fetchone()

    def add_moves_of_games(self, batch: Sequence[NewMoves]) -> list[Outcome]:
        """:meth:`add_moves` for each of ``batch``, each in a transaction of its own locking
        its game alone (one transaction for them all would lock every game's writers of
        every server at once); a database error refuses only the moves it held."""
        return self.add_each(batch, (MoveConflict, sqlite3.Error))

    def events(self) -> Events:
        return PgEvents(self.url)

    def buckets(self) -> SharedBuckets | None:
        """The per-address rates of every server on this database, kept in it
        (:mod:`dominolab.web.storage.pglimits`)."""
        from dominolab.web.storage.pglimits import PgBuckets

        return PgBuckets(self.url)

    def _announce(self, topic: str, message: dict[str, Any]) -> None:
        """A moderator's action told to every server's :class:`PgEvents` by a NOTIFY in the
        action's own transaction (PostgreSQL sends it at the commit, never before)."""
        payload = json.dumps({"i": f"admin-{secrets.token_hex(6)}", "n": 1, "t": topic,
                              "m": message}, separators=(",", ":"))
        self._db.execute("SELECT pg_notify(?, ?)", (CHANNEL, payload))

    def reader(self) -> Store | None:
        return PgStore(self.url, busy_timeout=self.busy_timeout, clock=self.clock)


# -- the shared event bus --------------------------------------------------------------------

class PgEvents(Events):
    """:class:`Events` shared by every server process on one PostgreSQL database.

    :meth:`publish` tells this process's listeners at once and queues the message for a
    NOTIFY on :data:`CHANNEL` (sent in order, in batches, by a task over a connection of
    its own; JSON ``{"i": this process, "n": sequence, "t": topic, "m": message}``, under
    8000 bytes: ids and versions, never state). A task LISTENs on a connection of its own
    and :meth:`deliver`\\ s each other process's message here. When that connection is lost
    it is opened again (a growing pause, at most 5 s), and since messages may have been
    missed meanwhile, every topic listened to here is then delivered ``{"missed": true}``:
    its listeners read the store again.

    Every 5 s the listening connection also asks which processes still listen (their
    connections' ``application_name`` in ``pg_stat_activity``); when one heard from before
    is gone (killed: PostgreSQL drops its connections at once), topic ``peers`` is
    delivered ``{"gone": [instance, ...]}``. Messages name their process ``instance``, this
    bus's :attr:`instance` for this process."""

    #: messages cross processes: a listener must read the store, never trust its memory
    shared = True

    def __init__(self, url: str, *, channel: str = CHANNEL) -> None:
        super().__init__()
        self.url = url
        self.channel = channel
        #: the other processes heard from (a ``peers`` message says when one is gone)
        self._peers: set[str] = set()
        self._sequence = 0
        self._outbox: list[str] = []
        self._wake = asyncio.Event()
        #: set while nothing is waiting to be sent
        self._sent = asyncio.Event()
        self._listening = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._closed = False
        #: how many times the listening connection was opened (tests watch it)
        self.connections = 0

    def _ensure_started(self) -> None:
        """Start listening and sending on the running loop; called only from coroutines of
        the bus (start, publish), so the tasks are made on the loop that serves the app:
        a thread may show another library's loop as running while the app is built (a
        test's browser does), and tasks made on it would never run here."""
        if self._tasks or self._closed:
            return
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._listen(), name="events listen"),
                       loop.create_task(self._send(), name="events notify")]

    async def start(self, timeout: float = 10.0) -> None:
        """Start listening, and wait until the channel is listened to (or ``timeout``)."""
        self._ensure_started()
        try:
            async with asyncio.timeout(timeout):
                await self._listening.wait()
        except TimeoutError:
            log.warning("events: not listening on PostgreSQL after %.0f s; trying on", timeout)

    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        self._ensure_started()
        self.deliver(topic, message)
        self._sequence += 1
        payload = json.dumps({"i": self.instance, "n": self._sequence, "t": topic,
                              "m": message}, separators=(",", ":"))
        if len(payload.encode()) > MAX_PAYLOAD:
            raise ValueError(f"an event of {len(payload)} bytes on {topic}: NOTIFY takes "
                             f"under 8000; send ids and versions, not state")
        self._outbox.append(payload)
        self._sent.clear()
        if len(self._outbox) > 100_000:
            del self._outbox[:1000]
            log.warning("events: PostgreSQL is not taking notifications; the oldest were "
                        "dropped (other processes catch up when they read the store)")
        self._wake.set()

    async def _send(self) -> None:
        """Send the queued messages in order, up to 500 in one statement; keep them and
        try again if the connection fails."""
        conn: psycopg.AsyncConnection[Any] | None = None
        pause = 0.2
        try:
            while True:
                if not self._outbox:
                    self._sent.set()
                    self._wake.clear()
                    await self._wake.wait()
                batch = self._outbox[:500]
                try:
                    if conn is None or conn.broken or conn.closed:
                        conn = await psycopg.AsyncConnection.connect(
                            conninfo(self.url, "dominolab notify"), autocommit=True)
                    # a function scan yields the array in order: the messages leave in order
                    await conn.execute("SELECT pg_notify(%s, p) FROM unnest(%s::text[]) AS p",
                                       (self.channel, batch))
                except psycopg.Error as exc:
                    log.warning("events: could not notify (%s); trying again in %.1f s",
                                one_line(exc), pause)
                    if conn is not None:
                        await conn.close()
                        conn = None
                    await asyncio.sleep(pause)
                    pause = min(pause * 2, 5.0)
                    continue
                pause = 0.2
                del self._outbox[:len(batch)]
        finally:
            if conn is not None:
                await conn.close()

    async def _listen(self) -> None:
        pause = 0.2
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(
                    conninfo(self.url, f"dominolab listen {self.instance}"), autocommit=True)
                async with conn:
                    await conn.execute(f"LISTEN {self.channel}")
                    self.connections += 1
                    if self.connections > 1:
                        self._missed()
                    self._listening.set()
                    pause = 0.2
                    while True:
                        async for note in conn.notifies(timeout=5):
                            self._received(note.payload)
                        # also shows the connection still works
                        await self._check_peers(conn)
            except psycopg.Error as exc:
                self._listening.clear()
                log.warning("events: lost the PostgreSQL connection listening on %s (%s); "
                            "again in %.1f s", self.channel, one_line(exc), pause)
            await asyncio.sleep(pause)
            pause = min(pause * 2, 5.0)

    async def _check_peers(self, conn: psycopg.AsyncConnection[Any]) -> None:
        cur = await conn.execute("SELECT application_name FROM pg_stat_activity "
                                 "WHERE application_name LIKE 'dominolab listen %'")
        alive = {str(name).rsplit(" ", 1)[-1] for (name,) in await cur.fetchall()}
        gone = self._peers - alive
        if gone:
            self._peers -= gone
            self.deliver("peers", {"gone": sorted(gone)})

    def _received(self, payload: str) -> None:
        try:
            # a notice one of our own server processes wrote (not outside input)
            data = json.loads(payload)
            if data["i"] == self.instance:
                return
            topic, message = data["t"], data["m"]
            self._peers.add(str(data["i"]))
            if not isinstance(topic, str) or not isinstance(message, dict):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            log.warning("events: a notification that is not ours: %.200s", payload)
            return
        self.deliver(topic, message)

    def _missed(self) -> None:
        for topic in list(self._listeners):
            self.deliver(topic, {"missed": True})

    async def close(self) -> None:
        self._closed = True
        if self._outbox and self._tasks:
            # what is still queued is sent if it can be, briefly
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._sent.wait(), 1)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []
        await super().close()


__all__ = ["CHANNEL", "Connection", "PgEvents", "PgStore", "as_sqlite_error", "one_line",
           "redact", "translate"]
