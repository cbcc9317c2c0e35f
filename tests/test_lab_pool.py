"""The lab's one task runner (:func:`dominolab.lab.run_tasks`) with local worker processes,
under faults: a worker that dies fails the run instead of leaving it waiting for ever, a
run stopped while its workers are busy returning results stops every worker in time, and
the workers of a run whose process is killed end rather than live on as orphans."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import select
import signal
import subprocess
import sys
import time

import pytest

from dominolab.lab import WorkerLost, run_tasks


def _dies_on_two(task: int) -> int:
    if task == 2:
        os._exit(3)  # the worker process vanishes, as when the kernel kills it
    return task


def _pid(task: int) -> tuple[int, int]:
    return task, os.getpid()


def _ended(pid: int) -> bool:
    """Whether process ``pid`` has ended: gone, or a zombie not yet reaped (the pool's own
    thread and the stopping one both wait on its workers, and either may reap one)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _workers_ended(pids: list[int]) -> bool:
    return all(_ended(pid) for pid in pids + [p.pid for p in multiprocessing.active_children()
                                              if p.pid is not None])


@pytest.mark.timeout(60)
def test_a_worker_that_dies_fails_the_run_and_does_not_hang() -> None:
    got: list[int] = []
    with pytest.raises(WorkerLost, match="ended abruptly"):
        run_tasks(_dies_on_two, list(range(8)), got.append, workers=2)
    assert 2 not in got
    assert _workers_ended([])


@pytest.mark.timeout(120)
def test_stopping_a_run_mid_flow_stops_every_worker_each_time() -> None:
    """Many small tasks keep the workers writing results; a run stopped at once, again and
    again, never waits on a worker (``multiprocessing.Pool.terminate`` could: it killed a
    worker holding the result queue's lock, then waited on that lock for ever)."""
    for stop_at in range(1, 21):
        taken: list[tuple[int, int]] = []

        def take(result: tuple[int, int], stop_at: int = stop_at,
                 taken: list[tuple[int, int]] = taken) -> None:
            taken.append(result)
            if len(taken) >= stop_at:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            run_tasks(_pid, list(range(5000)), take, workers=2)
        assert len(taken) == stop_at
        assert _workers_ended([pid for _, pid in taken]), stop_at


#: a run of endless tasks on two workers, printing each worker's pid once it has one
_ORPHANS = """
from dominolab.lab import run_tasks
from test_lab_pool import _spin
seen = set()
def take(pid):
    if pid not in seen:
        seen.add(pid)
        print(pid, flush=True)
run_tasks(_spin, list(range(10**6)), take, workers=2)
"""


def _spin(task: int) -> int:
    """A task that keeps a worker busy a moment and names it."""
    total = 0
    for i in range(20_000):
        total += i * task
    return os.getpid()


@pytest.mark.timeout(120)
def test_the_workers_of_a_killed_run_end_with_it() -> None:
    here = os.path.dirname(__file__)
    run = subprocess.Popen([sys.executable, "-c", _ORPHANS], stdout=subprocess.PIPE,
                           text=True, env={**os.environ, "PYTHONPATH": here})
    assert run.stdout is not None
    workers = [int(run.stdout.readline()), int(run.stdout.readline())]
    fds = [os.pidfd_open(pid) for pid in workers]
    run.send_signal(signal.SIGKILL)
    run.wait(timeout=30)
    deadline = time.monotonic() + 30.0
    try:
        for fd in fds:  # a pidfd is readable once its process has ended
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"a worker of the killed run lives on: {workers}"
    finally:
        for fd in fds:  # a failed run leaves no orphan behind it
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(fd, signal.SIGKILL)
            os.close(fd)
