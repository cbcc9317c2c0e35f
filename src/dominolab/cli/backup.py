"""``dominolab backup`` and ``dominolab restore``: copy the games database while servers
run, and put a copy back (the work is :mod:`dominolab.web.storage.backup`'s).

Each prints one line saying what it did; bad input (no such database, not a dominolab
database, damaged, a newer schema, a folder that does not exist, a database in use) is one
line on standard error and exit status 2. A backup killed or interrupted leaves no OUT.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from dominolab.cli.progress import Progress
from dominolab.cli.serve import default_db, is_database_url, shown_db
from dominolab.core.errors import shown

EXIT_USAGE = 2
#: a backup that takes longer than this says how far it is (seconds)
PROGRESS_AFTER = 1.0


def _megabytes(size: int) -> str:
    return f"{size / 2**20:.1f} MB"


def _file_name(text: str) -> Path:
    """``text`` as a path; StoreError if no file can have that name (a NUL in it)."""
    from dominolab.web.storage.rows import StoreError

    if "\0" in text:
        raise StoreError(f"{shown(text)} is not a file name (it holds a NUL)")
    return Path(text)


def _database(given: str | None) -> Path | str:
    if not given:
        return default_db()
    return given if is_database_url(given) else _file_name(given)


def run_backup(args: argparse.Namespace) -> int:
    from dominolab.web.storage.backup import backup, backup_pg, backup_target
    from dominolab.web.storage.rows import StoreError

    started = time.monotonic()
    try:
        db = _database(args.db)
        target = backup_target(db, _file_name(args.out), force=args.force)
        if isinstance(db, str):
            size = backup_pg(db, target, shown_db(db))
            print(f"backed up {shown_db(db)} to {target} with pg_dump: {_megabytes(size)} in "
                  f"{time.monotonic() - started:.1f} s; restore it with `dominolab restore "
                  f"{target} --db URL`")
            return 0
        with Progress("pages", delay=PROGRESS_AFTER, desc="dominolab backup") as bar:
            contents = backup(db, target, progress=bar)
    except StoreError as exc:
        print(f"dominolab backup: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"backed up {db} to {target}: {contents.games} games, {contents.moves} moves, "
          f"{_megabytes(contents.size)}, schema version {contents.version}, quick_check ok, "
          f"in {time.monotonic() - started:.1f} s")
    return 0


def run_restore(args: argparse.Namespace) -> int:
    from dominolab.web.storage.backup import restore, restore_pg
    from dominolab.web.storage.rows import StoreError

    try:
        db = _database(args.db)
        source = _file_name(args.backup)
        if isinstance(db, str):
            version, kept = restore_pg(source, db, shown_db(db))
            print(f"restored {source} into {shown_db(db)} (schema version {version}); what "
                  f"it held before is in {kept}")
            return 0
        done = restore(source, db)
    except StoreError as exc:
        print(f"dominolab restore: {exc}", file=sys.stderr)
        return EXIT_USAGE
    contents = done.contents
    before = f"; the database it replaced is {done.kept}" if done.kept else ""
    print(f"restored {source} to {db}: {contents.games} games, {contents.moves} moves, "
          f"schema version {contents.version}, quick_check ok{before}")
    return 0
