"""A throwaway PostgreSQL server for the tests, from Debian's binaries: no system service.

``initdb`` into a private folder under /tmp, then ``postgres`` listening only on a unix
socket in that folder (as the ``postgres`` user when we are root: initdb refuses root), with
fsync off. It is started once per test session, when a test first asks for it, and each
test gets a database of its own. A small shell watches this process: when the pipe to it
closes (the session ends, or pytest is killed), it stops the server and removes its folder,
so none outlives the tests. Used by the tests (fixtures ``postgres``, ``pg_url``, ``any_db``)
and by hand for ``dominolab bench serve --db``:

    python tests/pgserver.py     # prints a URL, serves until Enter or Ctrl-D
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import selectors
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest

from dominolab.processes import wait_or_kill

#: what to install when the server's binaries are missing
INSTALL = "apt-get install postgresql (Debian's PostgreSQL server, for the PostgreSQL tests)"

# runs as the server's user: starts it (pg_ctl -w waits until it accepts connections), says
# so, then stops it and removes its folder as soon as its standard input closes, whoever
# closed it (a pytest that was killed too)
_WATCH = """
"$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -t 60 -o "$PGOPTS" start \
    >"$PGDIR/pg_ctl.log" 2>&1 || { echo failed; exit 1; }
echo ready
read _ignored
"$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate -w stop >>"$PGDIR/pg_ctl.log" 2>&1
rm -rf "$PGDIR"
"""


def bin_dir() -> Path | None:
    """The newest /usr/lib/postgresql/N/bin with initdb and postgres, or None."""
    found = [Path(p).parent for p in glob.glob("/usr/lib/postgresql/*/bin/initdb")
             if (Path(p).parent / "postgres").exists()]
    found.sort(key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)
    return found[-1] if found else None


class PostgresServer:
    """One private server; :meth:`database` makes a fresh database and gives its URL."""

    def __init__(self, *, fast: bool = True) -> None:
        #: fsync off: the tests' server need not survive a power cut
        self.fast = fast
        self.dir: Path | None = None
        self._watch: subprocess.Popen[str] | None = None

    def start(self, timeout: float = 90) -> None:
        """Start it; RuntimeError with one line saying what to install if it cannot be."""
        bindir = bin_dir()
        if bindir is None:
            raise RuntimeError(f"no PostgreSQL server binaries in /usr/lib/postgresql/*/bin: "
                               f"{INSTALL}")
        root = os.geteuid() == 0
        as_user: list[str] = []
        self.dir = Path(tempfile.mkdtemp(prefix="dominolab-pg-"))
        if root:
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError(f"no 'postgres' user to run the server as: {INSTALL}"
                                   ) from None
            os.chown(self.dir, owner.pw_uid, owner.pw_gid)
            as_user = ["runuser", "-u", "postgres", "--"]
        init = subprocess.run([*as_user, str(bindir / "initdb"), "-D", str(self.dir / "data"),
                               "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C",
                               "--no-sync"], capture_output=True, text=True, timeout=timeout)
        if init.returncode != 0:
            self.stop()
            raise RuntimeError(f"initdb failed: {' '.join(init.stderr.split())[-400:]}")
        options = f"-k {self.dir} -c listen_addresses= -c max_connections=300"
        if self.fast:
            options += " -c fsync=off -c full_page_writes=off -c synchronous_commit=off"
        env = {**os.environ, "PGBIN": str(bindir), "PGDIR": str(self.dir), "PGOPTS": options}
        self._watch = subprocess.Popen([*as_user, "sh", "-c", _WATCH], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True, env=env,
                                       start_new_session=True)
        assert self._watch.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(self._watch.stdout, selectors.EVENT_READ)
            said = self._watch.stdout.readline().strip() if sel.select(timeout) else ""
        if said != "ready":
            log = self.dir / "server.log"
            tail = log.read_text(errors="replace")[-600:] if log.exists() else ""
            self.stop()
            raise RuntimeError(f"the PostgreSQL server did not start ({said or 'no answer'}):"
                               f" {' '.join(tail.split())}")

    @property
    def admin_url(self) -> str:
        return self.url("postgres")

    def url(self, database: str) -> str:
        assert self.dir is not None
        return f"postgresql://postgres@/{database}?host={self.dir}"

    @staticmethod
    def name_of(url: str) -> str:
        """The database's name in ``url``."""
        import psycopg

        return str(psycopg.conninfo.conninfo_to_dict(url)["dbname"])

    def database(self) -> str:
        """A new, empty database; its URL."""
        name = f"t_{secrets.token_hex(6)}"
        self.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def execute(self, sql: str, database: str = "postgres") -> list[tuple[Any, ...]]:
        """One statement as the superuser, outside any transaction; its rows."""
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True, connect_timeout=10) as conn:
            cur = conn.execute(sql.encode())
            return cur.fetchall() if cur.description else []

    def stop(self) -> None:
        watch, self._watch = self._watch, None
        if watch is not None:
            assert watch.stdin is not None
            watch.stdin.close()  # the watching shell stops the server
            wait_or_kill(watch, 60)
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def __enter__(self) -> PostgresServer:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """The session's PostgreSQL server, started when first asked for. Without the binaries
    the test fails with one line saying what to install (CI installs them: .ci/run)."""
    server = PostgresServer()
    try:
        server.start()
    except RuntimeError as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(postgres: PostgresServer) -> Iterator[str]:
    """A fresh database on the session's server, dropped afterwards."""
    url = postgres.database()
    yield url
    name = postgres.name_of(url)
    postgres.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh games database of each backend: an SQLite file's path, a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(tmp_path / "games.sqlite3")
    url: str = request.getfixturevalue("pg_url")
    return url


if __name__ == "__main__":
    with PostgresServer(fast=False) as server:
        print(server.database(), flush=True)
        sys.stdin.readline()
