"""Backups of the games database, taken while a server runs, and restoring one.

SQLite (:func:`backup`): the copy is read through SQLite's online backup API inside one
read transaction, so it is the database as it was at one moment (the moment the backup
began) however many moves are stored meanwhile. The server's connection is in WAL mode
(:mod:`dominolab.web.storage.database`), where a reader never blocks a writer: the server
goes on storing moves while the pages are copied, :data:`STEP_PAGES` at a time with a
pause of :data:`STEP_PAUSE` between steps, so that a backup on a busy machine leaves the
processor to the server. The copy is written to a file beside OUT, checked (``PRAGMA
quick_check``, the schema version) and only then renamed to OUT: a backup killed at any
moment leaves no OUT, and an OUT is always a whole, checked database.

:func:`restore` checks the backup first (an SQLite database that passes ``quick_check``,
holds dominolab's tables, and whose schema version is not newer than this dominolab's),
then takes the target's exclusive lock, which it gets only if no process has the database
open (a running server always has): so it never replaces a database under a server. The
database it replaces is kept beside it, as ``TARGET.before-restore-<time>``; a server
started on the restored file brings an older schema up to date as usual.

PostgreSQL (:func:`backup_pg`, :func:`restore_pg`): ``pg_dump`` and ``pg_restore`` do the
work, found on the PATH or in Debian's ``/usr/lib/postgresql/N/bin``; without them,
:class:`ToolMissing` says what to run instead.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import sqlite3
import subprocess
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from dominolab.web.storage.database import BUSY_TIMEOUT
from dominolab.web.storage.rows import StoreError
from dominolab.web.storage.schema import SCHEMA_VERSION

#: pages copied per step of a backup (4 MiB of 4 KiB pages)
STEP_PAGES: Final = 1024
#: the pause between two steps of a backup, seconds: the server's turn on the processor
STEP_PAUSE: Final = 0.005
#: the tables every dominolab database has (schema version 1 on)
DOMINOLAB_TABLES: Final = ("games", "moves")
#: how a replaced database is named beside the restored one: TARGET.before-restore-<time>
KEPT_SUFFIX: Final = ".before-restore-"
#: how long pg_dump and pg_restore may take, seconds
PG_TIMEOUT: Final = 3600.0


class BackupError(StoreError):
    """A backup or restore that cannot be done (no such database, not a dominolab
    database, damaged, a newer schema, in use...): the message names the file."""


class ToolMissing(BackupError):
    """``pg_dump`` or ``pg_restore`` is not installed: the message says what to run."""


@dataclass(frozen=True)
class Contents:
    """What a checked dominolab database holds: its schema ``version``, its ``games`` and
    ``moves`` (rows), and its ``size`` in bytes."""

    version: int
    games: int
    moves: int
    size: int


@dataclass(frozen=True)
class Restored:
    """A restore done: what the restored database holds, and where the database it
    replaced was kept (None: there was none)."""

    contents: Contents
    kept: Path | None


#: what a backup reports after each step: (pages copied, pages in all)
Progress = Callable[[int, int], None]


# -- SQLite ------------------------------------------------------------------------------------
def _open_existing(path: Path, *, timeout: float = BUSY_TIMEOUT) -> sqlite3.Connection:
    """A connection to the SQLite database ``path``, which must exist (never created)."""
    if not path.exists():
        raise BackupError(f"{path}: no such database")
    if path.is_dir():
        raise BackupError(f"{path}: a folder, not a database file")
    uri = f"file:{urllib.parse.quote(str(path.resolve()))}?mode=rw"
    try:
        return sqlite3.connect(uri, uri=True, isolation_level=None, timeout=timeout,
                               check_same_thread=False)
    except sqlite3.Error as exc:
        raise BackupError(f"{path}: cannot be opened ({exc})") from None


def _schema_version(db: sqlite3.Connection, path: Path) -> int:
    """The schema version of a dominolab database; BackupError if ``db`` is not one, or is
    newer than this dominolab."""
    try:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        tables = {str(name) for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{path}: not an SQLite database ({exc})") from None
    if version < 1 or not set(DOMINOLAB_TABLES) <= tables:
        raise BackupError(f"{path}: an SQLite database, but not dominolab's (no games "
                          f"table, schema version {version})")
    if version > SCHEMA_VERSION:
        raise BackupError(f"{path} has schema version {version}, newer than this dominolab "
                          f"knows ({SCHEMA_VERSION}); use the dominolab that made it")
    return version


def _checked(db: sqlite3.Connection, path: Path) -> Contents:
    """``quick_check`` and the schema version of ``db`` (the file ``path``), and what it
    holds; BackupError if it fails."""
    version = _schema_version(db, path)
    try:
        found = db.execute("PRAGMA quick_check").fetchall()
        games = int(db.execute("SELECT count(*) FROM games").fetchone()[0])
        moves = int(db.execute("SELECT count(*) FROM moves").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{path}: the database is damaged ({exc})") from None
    if found != [("ok",)]:
        said = " ".join(" ".join(str(r[0]) for r in found[:3]).split())
        raise BackupError(f"{path}: the database is damaged (quick_check: {said[:160]})")
    return Contents(version, games, moves, path.stat().st_size)


def check_backup(path: Path) -> Contents:
    """What the backup (or any dominolab SQLite database) ``path`` holds, once it passes
    ``quick_check`` and its schema version is this dominolab's or older; BackupError
    saying why not."""
    db = _open_existing(path)
    try:
        return _checked(db, path)
    finally:
        db.close()


def default_name(folder: Path, now: float, suffix: str = ".sqlite3") -> Path:
    """Where a backup into the folder ``folder`` goes: ``dominolab-YYYYmmdd-HHMMSS.sqlite3``
    (local time; ``suffix`` ``.dump`` for a pg_dump archive), so that a daily job keeps one
    a day."""
    return folder / time.strftime(f"dominolab-%Y%m%d-%H%M%S{suffix}", time.localtime(now))


def _fsync(path: Path) -> None:
    """Write the file (or folder) ``path`` through to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _put_in_place(partial: Path, out: Path) -> None:
    """Rename the whole, checked file ``partial`` to ``out``, written through to the disk
    before and after (the file, then its folder's entry): at no moment is ``out`` half a
    file, and once this returns it survives a power cut."""
    _fsync(partial)
    os.replace(partial, out)
    _fsync(out.parent)


def _disk_error(out: Path, exc: OSError) -> BackupError:
    """A failing disk or a refused file (full, read-only, no permission) as a BackupError
    naming ``out``, rather than a traceback."""
    return BackupError(f"{out}: cannot write it ({exc.strerror or exc})")


@contextlib.contextmanager
def _beside(out: Path, *also: str) -> Iterator[Path]:
    """The partial file to write ``out``'s new content to (:func:`_partial`), which the
    block puts in place (:func:`_put_in_place`). If the block fails, what it wrote is
    removed (the partial file, and the files named ``also`` after it, like its journal), and
    a refusing disk is a BackupError naming ``out``."""
    partial = _partial(out)
    try:
        yield partial
    except BaseException as exc:
        _remove(partial, *(partial.with_name(f"{partial.name}{suffix}") for suffix in also))
        if isinstance(exc, OSError):
            raise _disk_error(out, exc) from None
        raise


def write_whole(out: Path, data: bytes) -> None:
    """Write ``data`` to ``out`` whole or not at all: a reader never sees half of it, and
    a failure leaves ``out`` as it was. BackupError naming ``out`` if the disk refuses it."""
    with _beside(out) as partial:
        partial.write_bytes(data)
        _put_in_place(partial, out)


def _partial(out: Path) -> Path:
    """The file a backup writes before renaming it to ``out``: beside it, named for this
    process (so that two backups never share one)."""
    return out.with_name(f".{out.name}.partial-{os.getpid()}")


def _remove_abandoned(out: Path) -> None:
    """Remove the partial files of backups to ``out`` whose process is gone (killed)."""
    for leftover in out.parent.glob(f".{glob.escape(out.name)}.partial-*"):
        # the copy, or its journal (the copy's SQLite writes one beside it)
        found = re.fullmatch(r".*\.partial-(\d+)(?:-journal)?", leftover.name)
        if found is None:
            continue
        try:
            os.kill(int(found.group(1)), 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                leftover.unlink()
        except OSError:
            pass  # alive, another user's


def backup_target(db: Path | str, out: Path, *, force: bool = False,
                  now: float | None = None) -> Path:
    """The file a backup of ``db`` (an SQLite file, or a PostgreSQL URL) to ``out`` writes:
    ``out``, or a file named by :func:`default_name` when ``out`` is a folder. BackupError
    if its folder does not exist, it is ``db`` itself, or it exists and ``force`` is not
    given."""
    if out.is_dir():
        out = default_name(out, time.time() if now is None else now,
                           ".dump" if isinstance(db, str) else ".sqlite3")
    if not out.parent.is_dir():
        raise BackupError(f"{out}: the folder {out.parent} does not exist")
    if isinstance(db, Path) and out.exists() and out.resolve() == db.resolve():
        raise BackupError(f"{out}: that is the database itself; give another file")
    if out.exists() and not force:
        raise BackupError(f"{out} exists; give another name, or --force to replace it")
    return out


def backup(db: Path, out: Path, *, step_pages: int = STEP_PAGES,
           pause: float = STEP_PAUSE, progress: Progress | None = None) -> Contents:
    """Copy the SQLite database ``db`` to the file ``out`` while servers use it: the
    database as it was when the copy began, checked, then renamed into place (see the
    module's text). ``progress(copied, total)`` is called after each step of
    ``step_pages`` pages. Returns what the copy holds; BackupError if ``db`` is missing,
    not a dominolab database or damaged, or the copy fails its check (no ``out`` then)."""
    source = _open_existing(db)
    _remove_abandoned(out)
    try:
        with _beside(out, "-journal") as partial:
            try:
                copy = sqlite3.connect(partial, isolation_level=None)
            except sqlite3.Error as exc:
                raise BackupError(f"{out}: cannot write a file beside it ({exc})") from None
            try:
                # one read transaction for the whole copy: one moment's database, and in WAL
                # mode no writer waits for it
                source.execute("BEGIN")
                _schema_version(source, db)

                def stepped(_status: int, remaining: int, total: int) -> None:
                    if progress is not None:
                        progress(total - remaining, total)
                    if remaining:
                        time.sleep(pause)

                try:
                    source.backup(copy, pages=step_pages, progress=stepped)
                    source.execute("COMMIT")
                    # one file, with no -wal beside it: the copy is whole on its own
                    copy.execute("PRAGMA journal_mode=DELETE")
                except sqlite3.Error as exc:
                    raise BackupError(f"{db}: the copy to {out} failed ({exc})") from None
                try:
                    contents = _checked(copy, partial)
                except BackupError as exc:
                    raise BackupError(f"{db}: the copy failed its check: {exc}") from None
            finally:
                copy.close()
            _put_in_place(partial, out)
    finally:
        source.close()
    return Contents(contents.version, contents.games, contents.moves, out.stat().st_size)


def _remove(*paths: Path) -> None:
    """Remove what a failed backup or restore wrote (those of ``paths`` that exist)."""
    for path in paths:
        with contextlib.suppress(OSError):
            path.unlink()


def _kept_name(target: Path, now: float) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    kept = target.with_name(f"{target.name}{KEPT_SUFFIX}{stamp}")
    number = 1
    while kept.exists():
        number += 1
        kept = target.with_name(f"{target.name}{KEPT_SUFFIX}{stamp}-{number}")
    return kept


@contextlib.contextmanager
def _exclusive(target: Path) -> Iterator[sqlite3.Connection]:
    """The database ``target`` locked so that no other process may open it, its WAL folded
    in and gone (so that no -wal file is left beside it); BackupError if a process has it
    open (a server is running on it)."""
    db = _open_existing(target, timeout=0)
    try:
        try:
            db.execute("PRAGMA locking_mode=EXCLUSIVE")
            db.execute("BEGIN EXCLUSIVE")
            db.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise BackupError(
                    f"{target} is in use (is a dominolab server running on it? stop it, "
                    f"then restore)") from None
            raise BackupError(f"{target}: not an SQLite database ({exc})") from None
        except sqlite3.DatabaseError as exc:
            raise BackupError(f"{target}: not an SQLite database ({exc})") from None
        try:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            db.execute("PRAGMA journal_mode=DELETE")
        except sqlite3.DatabaseError as exc:
            raise BackupError(f"{target}: cannot fold in its write-ahead log ({exc})"
                              ) from None
        yield db
    finally:
        db.close()


def restore(source: Path, target: Path, *, now: float | None = None) -> Restored:
    """Make ``target`` a copy of the backup ``source`` (checked first), keeping the
    database it replaces as ``TARGET.before-restore-<time>`` (its folder is made if need
    be). BackupError if the backup fails its check or a process has the target open; then
    nothing is changed."""
    contents = check_backup(source)
    try:  # as `dominolab serve` does: a new machine's data folder may not exist yet
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BackupError(f"{target}: cannot create its folder ({exc.strerror})") from None
    if target.exists() and target.resolve() == source.resolve():
        raise BackupError(f"{target}: that is the backup itself; give another --db")
    _remove_abandoned(target)
    with _beside(target) as partial:
        shutil.copyfile(source, partial)
        kept = None
        if target.exists():
            with _exclusive(target):
                kept = _kept_name(target, time.time() if now is None else now)
                # the old file under both names, then the new one under the target's: at
                # no moment is there no target
                os.link(target, kept)
                _put_in_place(partial, target)
        else:
            _put_in_place(partial, target)
    return Restored(Contents(contents.version, contents.games, contents.moves,
                             target.stat().st_size), kept)


# -- PostgreSQL --------------------------------------------------------------------------------
def pg_tool(name: str) -> str | None:
    """The program ``name`` (pg_dump, pg_restore): on the PATH, else the newest of Debian's
    /usr/lib/postgresql/N/bin; None if neither has it."""
    found = shutil.which(name)
    if found:
        return found
    paths = glob.glob(f"/usr/lib/postgresql/*/bin/{name}")
    paths.sort(key=lambda p: int(Path(p).parent.parent.name)
               if Path(p).parent.parent.name.isdigit() else 0)
    return paths[-1] if paths else None


def _need(name: str, instead: str) -> str:
    tool = pg_tool(name)
    if tool is None:
        raise ToolMissing(f"{name} is not installed (Debian: apt-get install "
                          f"postgresql-client); run it yourself: {instead}")
    return tool


def _schema_of(url: str) -> str | None:
    """The schema a URL's ``options=-c search_path=NAME`` puts its tables in, or None."""
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
    found = re.search(r"search_path=([A-Za-z_][A-Za-z0-9_]*)", query.get("options", ""))
    return found.group(1) if found else None


def _without_password(url: str) -> tuple[str, dict[str, str]]:
    """``url`` without its password, and the environment that gives it to libpq instead
    (PGPASSWORD): a command line is visible to every user of the machine."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url, {}
    host = parts.netloc.rsplit("@", 1)[1]
    user = urllib.parse.quote(urllib.parse.unquote(parts.username or ""), safe="")
    bare = parts._replace(netloc=f"{user}@{host}" if user else host)
    return urllib.parse.urlunsplit(bare), {"PGPASSWORD": urllib.parse.unquote(parts.password)}


def _run(command: list[str], what: str, env: dict[str, str] | None = None) -> str:
    """Run ``command`` (pg_dump, pg_restore) with ``env`` added to the environment;
    BackupError with its last words if it fails."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PG_TIMEOUT,
                              check=False, env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired:
        raise BackupError(f"{what}: {Path(command[0]).name} took over {PG_TIMEOUT:g} s"
                          ) from None
    if done.returncode != 0:
        said = " ".join(done.stderr.split())[-300:]
        raise BackupError(f"{what}: {Path(command[0]).name} failed: {said}")
    return done.stdout


def backup_pg(url: str, out: Path, shown: str) -> int:
    """Dump the PostgreSQL database ``url`` (shown as ``shown``, without its password) to
    ``out`` with ``pg_dump --format=custom``, through a file beside it renamed into place;
    returns its size. ToolMissing if pg_dump is not installed."""
    dump = _need("pg_dump", f"pg_dump --format=custom --file={out} '{shown}'")
    _remove_abandoned(out)
    schema = _schema_of(url)
    bare, env = _without_password(url)
    with _beside(out) as partial:
        _run([dump, "--format=custom", f"--file={partial}", "--no-owner",
              *([f"--schema={schema}"] if schema else []), f"--dbname={bare}"], shown, env)
        _check_dump(partial, out)
        _put_in_place(partial, out)
    return out.stat().st_size


def _check_dump(path: Path, shown: Path) -> int:
    """The schema version stored in the pg_dump archive ``path``; BackupError if it is not
    an archive of a dominolab database, or is newer than this dominolab."""
    tool = _need("pg_restore", f"pg_restore --list {path}")
    listing = _run([tool, "--list", str(path)], f"{shown}: not a pg_dump archive")
    if not re.search(r"\bTABLE DATA \S+ dominolab_schema\b", listing):
        raise BackupError(f"{shown}: a pg_dump archive, but not of a dominolab database")
    data = _run([tool, "--data-only", "--table=dominolab_schema", "--file=-", str(path)],
                str(shown))
    found = re.search(r"^COPY \S*dominolab_schema \(version\) FROM stdin;\n(\d+)$", data,
                      re.MULTILINE)
    if found is None:
        raise BackupError(f"{shown}: the archive has no schema version")
    version = int(found.group(1))
    if version > SCHEMA_VERSION:
        raise BackupError(f"{shown} has schema version {version}, newer than this dominolab "
                          f"knows ({SCHEMA_VERSION}); use the dominolab that made it")
    return version


def _servers_on(url: str) -> int:
    """How many dominolab servers' connections the database ``url`` has now."""
    import psycopg

    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                           "current_database() AND pid <> pg_backend_pid() AND "
                           "application_name LIKE 'dominolab%'").fetchone()
    return int(row[0]) if row else 0


def restore_pg(source: Path, url: str, shown: str, *, now: float | None = None
               ) -> tuple[int, Path]:
    """Restore the pg_dump archive ``source`` (checked first) into the PostgreSQL database
    ``url``, in one transaction (all of it or nothing), after dumping what that database
    holds now beside the archive (``<archive>.before-restore-<time>``). Returns the
    archive's schema version and where the old contents went. BackupError if a dominolab
    server is connected to the database; ToolMissing without pg_restore."""
    if not source.is_file():
        raise BackupError(f"{source}: no such backup file")
    version = _check_dump(source, source)
    restorer = _need("pg_restore", f"pg_restore --clean --if-exists --no-owner "
                                   f"--single-transaction --dbname='{shown}' {source}")
    try:
        servers = _servers_on(url)
    except Exception as exc:  # psycopg's errors: the URL's database cannot be reached
        raise BackupError(f"{shown}: cannot connect ({' '.join(str(exc).split())[:200]})"
                          ) from None
    if servers:
        raise BackupError(f"{shown} is in use by {servers} dominolab server connection(s); "
                          f"stop the servers, then restore")
    kept = _kept_name(source, time.time() if now is None else now)
    backup_pg(url, kept, shown)
    bare, env = _without_password(url)
    _run([restorer, "--clean", "--if-exists", "--no-owner", "--single-transaction",
          f"--dbname={bare}", str(source)], shown, env)
    return version, kept


__all__ = ["DOMINOLAB_TABLES", "KEPT_SUFFIX", "STEP_PAGES", "STEP_PAUSE", "BackupError",
           "Contents", "Progress", "Restored", "ToolMissing", "backup", "backup_pg",
           "backup_target", "check_backup", "default_name", "pg_tool", "restore",
           "restore_pg", "write_whole"]
