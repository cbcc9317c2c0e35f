"""Processes that end when they should: the helpers both process pools use (the web app's
compute pool, :mod:`dominolab.web.games.compute`, and the lab's task runner,
:mod:`dominolab.lab.pool`), and the one way to stop a child process within a deadline
(the servers, proxies and databases that benches and tests start)."""

from __future__ import annotations

import concurrent.futures
import os
import select
import signal
import subprocess
import threading
import time
from typing import Any, Final

#: how long close() waits for the worker processes to end before killing them
_CLOSE_TIMEOUT: Final = 10.0


def stop_executor(executor: concurrent.futures.Executor,
                  timeout: float = _CLOSE_TIMEOUT) -> None:
    """End ``executor`` and its processes: running jobs are abandoned (their processes are
    terminated, then killed if they do not end within ``timeout`` seconds). Unlike
    ``multiprocessing.Pool.terminate``, which can wait for ever on a result queue's lock
    that a terminated worker held, this never waits past its deadline on a worker."""
    if not isinstance(executor, concurrent.futures.ProcessPoolExecutor):
        executor.shutdown(wait=False, cancel_futures=True)
        return
    processes = list((executor._processes or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        if p.is_alive():
            p.terminate()
    deadline = time.monotonic() + timeout
    for p in processes:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join(timeout)
    executor.shutdown(wait=True)


def wait_or_kill(proc: subprocess.Popen[Any], seconds: float, *, group: bool = False
                 ) -> None:
    """Wait up to ``seconds`` for ``proc`` to end (after whatever asked it to), then kill
    it (with ``group``, its whole process group: a shell and what it started) and reap it."""
    try:
        proc.wait(seconds)
    except subprocess.TimeoutExpired:
        if group:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
        proc.wait(10)


def end_with(parent: int) -> None:
    """In a worker process: end it when process ``parent`` ends without stopping it (killed),
    instead of living on as an orphan (a daemon thread waits on the parent)."""
    threading.Thread(target=_end_with, args=(parent,), name="dominolab-orphan-watch",
                     daemon=True).start()


def _end_with(parent: int) -> None:
    """Wait for process ``parent`` to end (a pidfd is readable then), then end this one."""
    try:
        fd = os.pidfd_open(parent)
    except OSError:  # gone already, or no pidfds (not Linux): watch the parent id instead
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)
    select.select([fd], [], [])
    os._exit(1)
