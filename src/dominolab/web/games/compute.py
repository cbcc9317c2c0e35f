"""The computer's thinking for the web app: computer moves and hints in a bounded pool of
worker processes, served fairly between clients.

A search for a hard computer move or a hint takes a core for up to seconds. Run in the
server's own process, a crowd of such searches slows every other game's replies; run in an
unbounded pool, one client that asks for many delays everybody. :class:`ComputePool` runs
at most ``workers`` jobs at once, each in a worker process, and keeps the rest waiting in
the event loop: one FIFO queue per client, the clients taken in turn, so a client's job
never waits behind another client's backlog. A job asked for as ``background`` (a study's
chunk of matches) goes only when no computer move or hint waits, holds at most a share of
the workers (``max_background``), and runs at a lower processor priority than they do.

The job functions (:func:`choose_move`, :func:`analyse_hint`) are module-level so that they
pickle; they see nothing but a seat's :class:`~dominolab.core.View`.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import logging
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, TypeVar

from dominolab.core import Move, View
from dominolab.players import Budget, make_player
from dominolab.players.hints import Review, analyse, assess
from dominolab.players.search import MoveValue
from dominolab.processes import end_with, stop_executor

log = logging.getLogger("dominolab.web")

T = TypeVar("T")

# -- the jobs --------------------------------------------------------------------------------

def choose_move(name: str, seed: int, view: View, budget: Budget | None) -> Move:
    """The computer's move: player ``name`` (a player or a level), seeded with ``seed``,
    choosing from ``view`` within ``budget``."""
    return make_player(name, seed).choose(view, budget)


def analyse_hint(view: View, budget: Budget | None, seed: int) -> list[MoveValue]:
    """A hint: every legal move of ``view``'s seat with the expert's values
    (:func:`dominolab.players.hints.analyse`)."""
    return analyse(view, budget, seed)


def review_hands(hands: Sequence[Sequence[tuple[View, Move]]], budget: Budget | None,
                 seed: int) -> list[list[Review | None]]:
    """A review of whole hands: every decision of each hand (the view then and the move
    chosen) set against the expert's best (:func:`dominolab.players.hints.assess`; None
    for a forced move), in the order given."""
    return [[assess(view, move, budget, seed, index) for index, (view, move) in enumerate(hand)]
            for hand in hands]


def _init_worker(niceness: int, server: int) -> None:
    """Once per worker process, before its first job (unpickling this function has already
    imported this module, and with it the players): Ctrl-C is left to the server, which
    shuts the pool down; the searches yield the processors to the server's event loop; and
    the worker ends itself if the server process ``server`` dies without shutting the
    pool down (killed), instead of living on as an orphan."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if niceness > 0:
        with contextlib.suppress(OSError):  # not permitted: the server's priority, then
            os.nice(niceness)
    end_with(server)


def lowered(niceness: int, fn: Callable[..., T], /, *args: Any) -> T:
    """``fn(*args)`` in a thread of its own whose scheduling niceness is ``niceness`` above
    its caller's, so that it takes the processors only after the computer's moves and the
    server: how a background job runs in a worker. On Linux niceness is a thread's own, and
    a niceness raised cannot be lowered again without privilege, so only this short-lived
    thread is lowered and the worker keeps its priority for the next job. Elsewhere (a
    process's niceness), or with ``niceness`` 0, ``fn`` runs as is. Its result, or its
    exception raised again here."""
    if niceness <= 0 or not sys.platform.startswith("linux"):
        return fn(*args)
    outcome: list[tuple[bool, Any]] = []

    def work() -> None:
        tid = threading.get_native_id()
        with contextlib.suppress(OSError):  # not permitted: the worker's priority, then
            os.setpriority(os.PRIO_PROCESS, tid,
                           min(19, os.getpriority(os.PRIO_PROCESS, tid) + niceness))
        try:
            outcome.append((True, fn(*args)))
        except BaseException as exc:  # handed to the caller as the job's exception
            outcome.append((False, exc))

    thread = threading.Thread(target=work, name="dominolab-background")
    thread.start()
    thread.join()
    done, value = outcome[0]
    if not done:
        raise value
    result: T = value
    return result


def _ready() -> int:
    """A no-op job that starts a worker ahead of the first real job; returns its pid."""
    return os.getpid()


# -- the pool --------------------------------------------------------------------------------

class PoolBusy(Exception):
    """Refused: this client (or everybody together) already has too many jobs waiting.

    ``retry_after``: whole seconds after which asking again is likely to succeed (for an
    HTTP ``Retry-After`` header).
    """

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class WorkerDied(RuntimeError):
    """The worker process running this job ended abruptly (killed, out of memory, crashed);
    the pool has been rebuilt and later jobs run normally. The job was not retried."""


class PoolClosed(RuntimeError):
    """The pool is closed: it takes no more jobs."""


@dataclass(eq=False)
class _Job:
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    future: asyncio.Future[Any]
    client: str
    #: a background job (a study's): after every other waiting job, at a lower priority
    background: bool = False
    #: the executor it was handed to, once running
    executor: concurrent.futures.Executor | None = None
    started: float = 0.0
    #: when it was asked for (``time.monotonic()``)
    queued: float = 0.0


@dataclass(eq=False)
class _Client:
    """One client's waiting jobs, its running ones and its place in the turns (kept while
    it has a job waiting or running)."""

    jobs: collections.deque[_Job] = field(default_factory=collections.deque)
    #: its waiting background jobs, taken only when no client has a job in ``jobs``
    later: collections.deque[_Job] = field(default_factory=collections.deque)
    running: int = 0
    #: the turn of this client's next job: the client whose turn is lowest goes first
    turn: int = 0
    #: arrival order, to break ties between equal turns
    order: int = 0


class ComputePool:
    """Computer moves and hints, in a bounded pool of worker processes, served fairly:
    one FIFO queue per client, the clients taken in turn (round-robin), so no client's
    job waits behind another client's backlog.

    ``workers``: worker processes (at most this many jobs run at once). ``0`` runs the jobs
    in threads of this process instead (at most ``threads`` at once, queued the same way):
    for tests that do not want processes; arguments are then not pickled.

    ``max_running_per_client``: the most workers one client's jobs may hold at once
    (default: half of them, at least one), so that with two or more workers one client's
    long searches never keep every worker from the others' quick moves.

    ``max_queued_per_client``: a client with this many jobs waiting (not counting its
    running ones) is refused with :class:`PoolBusy`; ``max_queued``: the same for all the
    clients together. ``niceness``: the worker processes' scheduling niceness, so that the
    server's event loop comes first when the processors are busy. ``start_method``:
    ``"spawn"`` or ``"forkserver"`` (never ``"fork"``: the server has threads).
    ``on_wait(job, seconds)``: told, as each job starts, the name of its function and the
    seconds it waited for a worker.

    Background jobs (``run(..., background=True)``: a study's chunks of matches) wait in
    a queue of their own per client: one goes to a worker only when no client has a
    foreground job (a computer move, a hint) waiting, at most ``max_background`` of them
    run at once (default: half the workers, at least one), and each runs at
    ``background_niceness`` above the workers' niceness (:func:`lowered`), so a friend
    game's server and the computer's moves come first for the processors.

    Every method must be called from the event loop that runs the jobs' awaiters.
    A job's awaiter cancelled while the job waits removes the job; cancelled while it runs,
    the job runs to its end and its result is dropped. A worker process that dies fails the
    jobs it was running with :class:`WorkerDied` (they are not retried; so does every job
    that was running in the pool at that moment, since a broken pool loses them all) and
    the pool is rebuilt for the next jobs.
    """

    def __init__(self, workers: int, *, max_queued_per_client: int = 4,
                 max_running_per_client: int | None = None,
                 max_queued: int = 10_000, threads: int = 4, niceness: int = 5,
                 start_method: str = "spawn",
                 on_wait: Callable[[str, float], None] | None = None,
                 max_background: int | None = None, background_niceness: int = 5) -> None:
        if workers < 0 or threads < 1 or max_queued_per_client < 1 or max_queued < 1:
            raise ValueError("workers must be 0 or more; threads, max_queued_per_client "
                             "and max_queued 1 or more")
        if (max_background is not None and max_background < 1) or background_niceness < 0:
            raise ValueError(f"max_background must be 1 or more (not {max_background}) and "
                             f"background_niceness 0 or more (not {background_niceness})")
        if start_method not in ("spawn", "forkserver"):
            raise ValueError(f"start_method must be spawn or forkserver, not {start_method!r}")
        self.workers = workers
        self.max_queued_per_client = max_queued_per_client
        self.max_queued = max_queued
        self.niceness = niceness
        self.on_wait = on_wait
        self._slots = workers or threads
        self.max_running_per_client = max_running_per_client or max(1, self._slots // 2)
        self.max_background = max_background or max(1, self._slots // 2)
        self.background_niceness = background_niceness
        self._context = multiprocessing.get_context(start_method)
        self._clients: dict[str, _Client] = {}
        self._waiting = 0
        self._running: set[_Job] = set()
        self._turn = 0  # the turn of the job dispatched last
        self._arrivals = 0
        self._closed = False
        #: times the process pool was rebuilt after a worker died
        self.restarts = 0
        #: mean seconds of a job (moving average), for the ``retry_after`` hint
        self._mean_seconds = 0.5
        self._executor: concurrent.futures.Executor = self._new_executor()

    # -- public ------------------------------------------------------------------------------
    async def run(self, client: str, fn: Callable[..., T], /, *args: Any,
                  background: bool = False) -> T:
        """``fn(*args)`` in a worker, in ``client``'s turn; its result or its exception.
        ``background``: after every foreground job (see the class).

        ``fn`` must be a module-level function and ``args`` picklable. Raises
        :class:`PoolBusy` at once if ``client`` already has ``max_queued_per_client`` jobs
        waiting (of the same kind, foreground or background; or everybody ``max_queued``),
        :class:`WorkerDied` if the worker process died during the job, :class:`PoolClosed`
        after :meth:`close`.
        """
        if self._closed:
            raise PoolClosed("the computer's pool is closed (the server is stopping)")
        queue = self._clients.get(client)
        lane = None if queue is None else queue.later if background else queue.jobs
        if lane is not None and len(lane) >= self.max_queued_per_client:
            raise PoolBusy(f"you already have {len(lane)} requests for the computer "
                           f"waiting; wait for them", self._retry_after(len(lane)))
        if self._waiting >= self.max_queued:
            raise PoolBusy("the computer is too busy now; try again shortly",
                           self._retry_after(self._waiting / max(1, self._clients_waiting())))
        loop = asyncio.get_running_loop()
        job = _Job(fn, args, loop.create_future(), client, background, queued=time.monotonic())
        if queue is None:
            self._arrivals += 1
            queue = self._clients[client] = _Client(order=self._arrivals)
        if not queue.jobs and not queue.later:
            # a client that had nothing waiting joins at the current turn (or its own next
            # one, if later): it neither jumps ahead of the clients waiting now nor saves up
            # turns while away
            queue.turn = max(queue.turn, self._turn)
        (queue.later if background else queue.jobs).append(job)
        self._waiting += 1
        self._dispatch()
        try:
            result: T = await job.future
            return result
        except asyncio.CancelledError:
            self._forget(job)
            raise

    async def close(self) -> None:
        """Cancel the waiting jobs, stop the running ones and end every worker process.
        Every unfinished :meth:`run` raises :class:`asyncio.CancelledError`."""
        if self._closed:
            return
        self._closed = True
        for queue in self._clients.values():
            for job in (*queue.jobs, *queue.later):
                job.future.cancel()
        self._clients.clear()
        self._waiting = 0
        for job in self._running:
            job.future.cancel()
        self._running.clear()
        await asyncio.to_thread(stop_executor, self._executor)

    def stats(self) -> dict[str, int]:
        """``waiting`` and ``running`` jobs, ``clients_waiting`` (clients with a job
        waiting), ``workers`` (processes, 0 when in threads), ``restarts`` (pools rebuilt
        after a worker died), and of the jobs waiting and running those in the background
        (``background_waiting``, ``background_running``)."""
        return {"waiting": self._waiting, "running": len(self._running),
                "clients_waiting": self._clients_waiting(), "workers": self.workers,
                "restarts": self.restarts,
                "background_waiting": sum(len(c.later) for c in self._clients.values()),
                "background_running": sum(j.background for j in self._running)}

    def pids(self) -> list[int]:
        """The process ids of the live worker processes (none when in threads)."""
        executor = self._executor
        if not isinstance(executor, concurrent.futures.ProcessPoolExecutor):
            return []
        processes = executor._processes or {}
        return [pid for pid, p in list(processes.items()) if p.is_alive()]

    # -- the queue ---------------------------------------------------------------------------
    def _dispatch(self) -> None:
        """Hand waiting jobs to the executor while it has a free slot: each time the job of
        the client whose turn is lowest, among those below ``max_running_per_client``; a
        background job only when no such client has a foreground job waiting and fewer than
        ``max_background`` background jobs run."""
        while len(self._running) < self._slots and self._waiting and not self._closed:
            ready = [c for c in self._clients.values()
                     if c.jobs and c.running < self.max_running_per_client]
            lane = "jobs"
            if not ready and sum(j.background for j in self._running) < self.max_background:
                ready = [c for c in self._clients.values()
                         if c.later and c.running < self.max_running_per_client]
                lane = "later"
            if not ready:
                return  # every waiting client holds its share of the workers
            queue = min(ready, key=lambda c: (c.turn, c.order))
            job = getattr(queue, lane).popleft()
            self._waiting -= 1
            self._turn = queue.turn
            queue.turn += 1
            queue.running += 1
            self._start(job)

    def _clients_waiting(self) -> int:
        return sum(1 for c in self._clients.values() if c.jobs or c.later)

    def _done_with(self, client: str) -> None:
        """One of ``client``'s running jobs ended: forget the client once it has none."""
        queue = self._clients.get(client)
        if queue is not None:
            queue.running -= 1
            if not queue.running and not queue.jobs and not queue.later:
                del self._clients[client]

    def _start(self, job: _Job) -> None:
        executor = self._executor
        call: tuple[Any, ...] = (job.fn, *job.args)
        if job.background:
            call = (lowered, self.background_niceness, *call)
        try:
            cf = executor.submit(*call)
        except BrokenProcessPool:
            # a worker died while idle: nobody's job was lost; rebuild and submit again
            self._rebuild(executor)
            executor = self._executor
            try:
                cf = executor.submit(*call)
            except BrokenProcessPool as exc:
                self._done_with(job.client)
                job.future.set_exception(self._died(job, exc))
                return
        job.executor = executor
        job.started = time.monotonic()
        if self.on_wait is not None:
            self.on_wait(job.fn.__name__, job.started - job.queued)
        self._running.add(job)
        loop = job.future.get_loop()
        cf.add_done_callback(lambda done: loop.call_soon_threadsafe(self._finished, job, done))

    def _finished(self, job: _Job, done: concurrent.futures.Future[Any]) -> None:
        """In the event loop: a job ended (its result, its exception, or a dead worker)."""
        if job not in self._running:
            return  # the pool was closed meanwhile
        self._running.discard(job)
        self._done_with(job.client)
        elapsed = time.monotonic() - job.started
        self._mean_seconds += 0.1 * (elapsed - self._mean_seconds)
        # a cancelled future here is one the broken pool's shutdown dropped
        exc = BrokenProcessPool("cancelled") if done.cancelled() else done.exception()
        if isinstance(exc, BrokenProcessPool):
            assert job.executor is not None
            self._rebuild(job.executor)
            exc = self._died(job, exc)
        if not job.future.done():  # else its awaiter was cancelled: the result is dropped
            if exc is not None:
                job.future.set_exception(exc)
            else:
                job.future.set_result(done.result())
        self._dispatch()

    @staticmethod
    def _died(job: _Job, cause: BaseException) -> WorkerDied:
        error = WorkerDied(f"the worker process computing {job.fn.__name__} ended abruptly "
                           f"({cause}); the pool was restarted")
        error.__cause__ = cause
        return error

    def _forget(self, job: _Job) -> None:
        """The job's awaiter was cancelled: drop it if it is still waiting."""
        queue = self._clients.get(job.client)
        lane = None if queue is None else queue.later if job.background else queue.jobs
        if queue is not None and lane is not None and job in lane:
            lane.remove(job)
            self._waiting -= 1
            if not queue.jobs and not queue.later and not queue.running:
                del self._clients[job.client]

    def _retry_after(self, waiting: float) -> int:
        """Seconds until ``waiting`` jobs of one client have probably been served."""
        return max(1, min(60, math.ceil(self._mean_seconds * (waiting + 1) *
                                        max(1, self._clients_waiting()) / self._slots)))

    # -- the executor ------------------------------------------------------------------------
    def _new_executor(self) -> concurrent.futures.Executor:
        if self.workers == 0:
            return concurrent.futures.ThreadPoolExecutor(
                self._slots, thread_name_prefix="dominolab-compute")
        executor = concurrent.futures.ProcessPoolExecutor(
            self.workers, mp_context=self._context, initializer=_init_worker,
            initargs=(self.niceness, os.getpid()))
        # start the workers now rather than on the first jobs (each imports the players)
        for _ in range(self.workers):
            executor.submit(_ready)
        return executor

    def _rebuild(self, broken: concurrent.futures.Executor) -> None:
        """Replace the executor ``broken`` (once, however many jobs report it)."""
        if broken is not self._executor or self._closed:
            return
        self.restarts += 1
        log.warning("a worker process of the computer's pool died; restarting the pool")
        self._executor = self._new_executor()
        broken.shutdown(wait=False, cancel_futures=True)

__all__ = ["ComputePool", "PoolBusy", "PoolClosed", "WorkerDied", "analyse_hint",
           "choose_move", "lowered", "review_hands"]
