"""A real ``dominolab serve`` in a child process, and a small JSON client for it.

Used by ``dominolab bench serve`` and by the tests that kill and restart the server or drive
it from a browser: one port and one database across restarts, so a restarted server serves
the same games at the same address.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any

from dominolab.processes import wait_or_kill


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def request_json(base: str, method: str, path: str, body: Any = None,
                 token: str | None = None, timeout: float = 30) -> Any:
    """One JSON request to the server at ``base``; HTTP errors raise urllib's HTTPError."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=timeout) as answer:
        # our own server's answer (a test and bench helper), not a person's file
        return json.loads(answer.read())


class ServerProcess:
    """``python -m dominolab serve`` on 127.0.0.1, its output in ``log`` (beside an SQLite
    ``db``; given, for a ``postgresql://`` one), with at most ``open_files`` files open if
    given. With ``source``, the server is the ``dominolab`` package found in that directory
    (another checkout's ``src``, to compare two versions side by side) rather than the one
    importing this module."""

    def __init__(self, db: Path | str, *, computer_delay: float = 0.0,
                 game_seeds: int | None = None, extra: tuple[str, ...] = (),
                 log: Path | None = None, open_files: int | None = None,
                 source: Path | None = None) -> None:
        self.db = db
        #: the server's limit of open files, soft and hard (None: this process's)
        self.open_files = open_files
        self.source = source
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        if log is None:
            if not isinstance(db, Path):
                raise ValueError("a server on a PostgreSQL database needs log=PATH")
            log = db.with_name(f"{db.stem}.server.log")
        self.log = log
        self.command = [sys.executable, "-m", "dominolab", "serve", "--host", "127.0.0.1",
                        "--port", str(self.port), "--db", str(db),
                        "--computer-delay", str(computer_delay), *extra]
        if game_seeds is not None:
            self.command += ["--game-seeds", str(game_seeds)]
        self.proc: subprocess.Popen[bytes] | None = None

    def output(self) -> str:
        """The command and the end of what the server printed, for error messages."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return f"command: {' '.join(self.command)}\n--- output ---\n{text[-4000:]}"

    def start(self, timeout: float = 30) -> str:
        """Start it and wait until it answers; returns the base URL. RuntimeError (with the
        server's output) if it exits or does not answer in time."""
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if self.source is not None:
            env["PYTHONPATH"] = str(self.source)
        with open(self.log, "ab") as out:
            self.proc = proc = subprocess.Popen(
                self.command, stdout=out, stderr=out, env=env, cwd=self.log.parent,
                preexec_fn=None if self.open_files is None else self._limit_files)
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.request("GET", "/api/meta", timeout=2)
                return self.base
            except OSError as exc:
                if proc.poll() is not None:
                    self.proc = None
                    raise RuntimeError(f"the server exited with code {proc.returncode}\n"
                                       f"{self.output()}") from None
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"the server did not answer within {timeout:g} s "
                                       f"({exc!r})\n{self.output()}") from None
                time.sleep(0.05)

    def _limit_files(self) -> None:
        """In the child, before the server starts: its open files limited, as ``ulimit -n``
        does (both limits, so the server cannot raise its own)."""
        assert self.open_files is not None
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files, self.open_files))

    def request(self, method: str, path: str, body: Any = None, token: str | None = None,
                timeout: float = 30) -> Any:
        return request_json(self.base, method, path, body, token, timeout)

    def kill(self) -> None:
        """As if the machine lost power: SIGKILL, no clean shutdown."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None

    def stop(self) -> None:
        """A clean stop (SIGTERM), then SIGKILL if it does not end in 10 s."""
        if self.proc is not None:
            self.proc.terminate()
            wait_or_kill(self.proc, 10)
            self.proc = None

    def __enter__(self) -> ServerProcess:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
