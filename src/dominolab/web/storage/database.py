"""The games database's connection: opening and checking it, its write transactions, and
bringing its schema (:mod:`dominolab.web.storage.schema`) up to date.

:class:`Database` is what every part of :class:`~dominolab.web.storage.store.Store` stands
on: one connection (``_db``), the lock that makes it safe to share between threads
(``_lock``: a read holds it; a write holds it through :meth:`Database._write`'s
transaction), and the wall clock (``clock``). The parts (games, players, seeks, expiry) add
methods only; PostgreSQL's store (:mod:`dominolab.web.storage.pg`) opens a connection of
its own in place of SQLite's and keeps the rest.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from dominolab.web.errors import ApiError
from dominolab.web.storage.rows import StoreError
from dominolab.web.storage.schema import MIGRATIONS, SCHEMA_VERSION, statements

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


log = logging.getLogger("dominolab.web")


@contextmanager
def unavailable(said: str, doing: str) -> Iterator[None]:
    """A database error in the block answered as 503, the web app's one way: logged as
    ``doing`` failing (``"could not store a new game"``: the error follows), and told to
    the client as ``said`` (``"the new game could not be saved"``) "just now; try again in
    a moment", with ``Retry-After: 2``. The block changes memory only after the store
    answers, so nothing is left half done."""
    try:
        yield
    except DATABASE_ERRORS as exc:
        log.error("%s: %s", doing, exc)
        raise ApiError(503, f"{said} just now; try again in a moment",
                       retry_after=2) from None


def is_database_url(db: str | Path) -> bool:
    """Whether ``--db`` is a PostgreSQL URL rather than an SQLite file's path."""
    return isinstance(db, str) and db.startswith(("postgresql://", "postgres://"))


class Transaction:
    """The transaction of :meth:`Database._write`: committed at its end unless discarded."""

    def __init__(self) -> None:
        self.keep = True

    def discard(self) -> None:
        """End the transaction with ROLLBACK instead of COMMIT (nothing it wrote is kept)."""
        self.keep = False


class Database:
    """One connection to the games database, safe to share between threads (one lock).

    Opening it checks it: a file that is not a database, fails ``PRAGMA quick_check``, has
    a newer schema or cannot be written raises :class:`StoreError`, so a server never starts
    on a database it would answer 500 from."""

    #: the thread whose writes are savepoints of one transaction (:meth:`_together`)
    _together_on: int | None = None

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

    def ping(self) -> None:
        """Check that the database answers as a write needs it to: its file is still there
        (a file deleted under the server would take every later write with it) and its
        write lock can be had (taken and given back at once, writing nothing). A failing
        database raises one of :data:`DATABASE_ERRORS`, saying why."""
        if self.path != ":memory:" and not Path(self.path).exists():
            raise sqlite3.OperationalError(f"the database file {self.path} is gone")
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("ROLLBACK")

    @contextmanager
    def _write(self) -> Iterator[Transaction]:
        """One write transaction under the store's lock: ``BEGIN IMMEDIATE`` (SQLite takes
        its write lock now; on PostgreSQL, web/storage/pg.py's writers' lock), then ``COMMIT`` at
        the end, or ``ROLLBACK`` if the body raised or called :meth:`Transaction.discard`.
        Inside :meth:`_together` on the same thread, a savepoint of that transaction instead:
        released at the end, or rolled back to alone (what the others wrote stays)."""
        if self._together_on == threading.get_ident():
            if not self._db.in_transaction:
                self._db.execute("BEGIN IMMEDIATE")
            with self._savepoint() as tx:
                yield tx
            return
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            tx = Transaction()
            try:
                yield tx
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT" if tx.keep else "ROLLBACK")

    @contextmanager
    def _together(self) -> Iterator[None]:
        """One write transaction under the store's lock in which every :meth:`_write` of
        this thread is a savepoint: several writes committed at once (one commit, not one
        each), each of which can fail alone. The first write begins it (as :meth:`_write`
        does); if the body raises, nothing of it is kept."""
        with self._lock:
            self._together_on = threading.get_ident()
            try:
                yield
                if self._db.in_transaction:
                    self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            finally:
                self._together_on = None

    @contextmanager
    def _savepoint(self) -> Iterator[Transaction]:
        self._db.execute("SAVEPOINT one_write")
        tx = Transaction()
        try:
            yield tx
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK TO one_write")
                self._db.execute("RELEASE one_write")
            raise
        if not tx.keep:
            self._db.execute("ROLLBACK TO one_write")
        self._db.execute("RELEASE one_write")

    # -- facts: named values of the database as a whole -------------------------------------
    def _fact(self, name: str) -> str | None:
        """The fact ``name`` (call with the lock held, or in a transaction); None if unset."""
        found = self._db.execute("SELECT value FROM facts WHERE name = ?", (name,)).fetchone()
        return None if found is None else str(found[0])

    def _set_fact(self, name: str, value: str) -> None:
        """Set the fact ``name``, in the current write transaction."""
        self._db.execute("DELETE FROM facts WHERE name = ?", (name,))
        self._db.execute("INSERT INTO facts (name, value) VALUES (?, ?)", (name, value))

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
                    for statement in statements(script):
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
