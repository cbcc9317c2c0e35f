"""The one task runner of the lab: local worker processes, or a Dask cluster.

:func:`run_tasks` runs ``func(task)`` for every task and hands each result to ``take`` in
the calling process as it finishes (in the order they finish, not the tasks' order: callers
that need an order sort or buffer). With one worker it plays in this process; with more, in
a pool of processes that leave Ctrl-C to the parent, which stops them all and raises
:class:`KeyboardInterrupt` after keeping every result taken so far. On a Dask cluster (the
``cluster`` extra) the tasks go in batches (:func:`batch_size` tasks to one Dask task, a
bounded number of batches in flight), so the client holds a few futures whatever the number
of tasks, and the same function gives the same results. ``func`` and the tasks must be
picklable (a module-level function, plain data).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import gc
import itertools
import logging
import multiprocessing
import os
import pickle
import signal
import socket
import struct
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final, TypeVar

from dominolab import __version__
from dominolab.core import RULES_VERSION, DominoError, OptionError
from dominolab.processes import end_with, stop_executor

T = TypeVar("T")
R = TypeVar("R")

#: ``progress(done, total)``; called from the calling process only
ProgressCallback = Callable[[int, int], None]

#: how often, in seconds, a waiting runner calls ``tick``
TICK_SECONDS: Final = 0.5
#: a cluster without a worker for this long, in seconds, while tasks wait, is an error (the
#: default of ``no_workers_timeout``); at most :data:`MAX_NO_WORKERS_TIMEOUT`
NO_WORKERS_TIMEOUT: Final = 30.0
MAX_NO_WORKERS_TIMEOUT: Final = 86_400.0


def check_workers(workers: int | None) -> int:
    """The number of processes: ``workers``, or every core for None. Raises
    :class:`~dominolab.core.OptionError` below 1."""
    if workers is None:
        return os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise OptionError(f"workers must be at least 1, not {workers!r}")
    return workers


def check_no_workers_timeout(seconds: float) -> float:
    """``seconds``, how long a cluster may have no worker before a run on it stops, if it is
    a number above 0 and at most :data:`MAX_NO_WORKERS_TIMEOUT` (a day); else
    :class:`~dominolab.core.OptionError` naming it."""
    if (isinstance(seconds, bool) or not isinstance(seconds, int | float)
            or not 0 < seconds <= MAX_NO_WORKERS_TIMEOUT):
        raise OptionError(f"no_workers_timeout must be above 0 and at most "
                          f"{MAX_NO_WORKERS_TIMEOUT:g} seconds, not {seconds!r}")
    return float(seconds)


def _init_worker(parent: int) -> None:
    """Pool workers leave Ctrl-C to the parent, which stops them all, and end when the
    parent is killed rather than live on as orphans."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    end_with(parent)


def run_tasks(func: Callable[[T], R], tasks: Sequence[T], take: Callable[[R], None], *,
              workers: int = 1, client: Any = None,
              tick: Callable[[], None] | None = None, batch: int | None = None,
              no_workers_timeout: float = NO_WORKERS_TIMEOUT) -> None:
    """Run ``func`` on every task; ``take`` each result in this process as it finishes,
    then call ``tick`` (also about twice a second while waiting).

    ``workers``: local processes (1, or a single task: in this process). ``client``: a
    connected ``distributed.Client`` to run on instead (``workers`` is then not used), in
    batches of ``batch`` tasks (default: :func:`batch_size`). On Ctrl-C (or when ``take`` or
    ``tick`` raises) the processes are stopped, the tasks still queued on a cluster are
    released (the scheduler forgets them), and the exception propagates. On a cluster
    that has had no worker (or whose scheduler has not answered) for ``no_workers_timeout``
    seconds (default :data:`NO_WORKERS_TIMEOUT`; :func:`check_no_workers_timeout`), or
    whose scheduler is lost, :class:`ClusterError` is raised: every wait on a cluster has a
    deadline."""

    def ticked() -> None:
        if tick is not None:
            tick()

    if client is not None:
        _run_on_cluster(client, func, tasks, take, ticked, batch,
                        check_no_workers_timeout(no_workers_timeout))
        return
    processes = min(workers, len(tasks))
    if processes <= 1:
        for task in tasks:
            take(func(task))
            ticked()
        return
    _run_in_processes(func, tasks, take, ticked, processes)


#: chunks of tasks in flight per local worker process (the caller holds no more futures)
IN_FLIGHT_PER_PROCESS: Final = 2
#: a chunk of tasks sent to a local worker takes about this long, in seconds: short tasks
#: go in chunks, so that the cost of a message to and from a worker does not slow a run of
#: them, long ones one at a time (at most :data:`MAX_CHUNK`)
CHUNK_SECONDS: Final = 0.05
MAX_CHUNK: Final = 256
#: the most bytes of results a chunk should carry back: a message longer than the pipe's
#: buffer is written in parts, and a worker killed between them would leave the pool
#: waiting for the rest for ever
CHUNK_BYTES: Final = 16_384


def _run_in_processes(func: Callable[[T], R], tasks: Sequence[T], take: Callable[[R], None],
                      tick: Callable[[], None], processes: int) -> None:
    """``processes`` local worker processes, a bounded number of chunks of tasks in flight
    (a chunk as long as :data:`CHUNK_SECONDS` by the tasks' mean time so far, its results
    within :data:`CHUNK_BYTES`); ``take`` each result as its chunk finishes, then ``tick``
    (about twice a second while waiting).
    On any exception the processes are stopped within a deadline
    (:func:`~dominolab.processes.stop_executor`; ``multiprocessing.Pool.terminate`` could
    hang for ever when it killed a worker that held its result queue's lock) and the
    exception propagates; a worker that dies raises :class:`WorkerLost` rather than
    leaving its task to wait for ever, and the workers end if this process is killed."""
    executor = concurrent.futures.ProcessPoolExecutor(
        processes, mp_context=multiprocessing.get_context(), initializer=_init_worker,
        initargs=(os.getpid(),))
    waiting = iter(tasks)
    in_flight: set[concurrent.futures.Future[list[R]]] = set()
    started = time.monotonic()
    finished = 0
    result_bytes = 1  # the largest pickled result seen (the first of each chunk)

    def submit_more() -> None:
        while len(in_flight) < IN_FLIGHT_PER_PROCESS * processes:
            size = 1
            if finished:
                per_task = (time.monotonic() - started) * processes / finished
                size = max(1, min(MAX_CHUNK, int(CHUNK_SECONDS / max(per_task, 1e-9)),
                                  CHUNK_BYTES // result_bytes))
            chunk = list(itertools.islice(waiting, size))
            if not chunk:
                return
            in_flight.add(executor.submit(_run_batch, func, chunk))

    try:
        submit_more()
        while in_flight:
            done, _ = concurrent.futures.wait(in_flight, timeout=TICK_SECONDS,
                                              return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                in_flight.discard(future)
                results = future.result()
                if results:
                    measured = len(pickle.dumps(results[0], pickle.HIGHEST_PROTOCOL))
                    result_bytes = max(result_bytes, measured)
                for result in results:
                    finished += 1
                    take(result)
                    tick()
            submit_more()
            if not done:
                tick()
    except BrokenProcessPool:
        stop_executor(executor)
        raise WorkerLost(f"a worker process ended abruptly (killed: out of memory?) after "
                         f"{finished} of {len(tasks)} tasks; the run stopped, and the "
                         f"results taken so far are kept") from None
    except BaseException:
        stop_executor(executor)
        raise
    executor.shutdown(wait=True)


class WorkerLost(DominoError):
    """A local worker process ended abruptly (killed), so the run stopped."""


# -- a Dask cluster (the ``cluster`` extra) -------------------------------------------------------

CONNECT_TIMEOUT: Final = 5.0
CLUSTER_HINT: Final = "pip install 'dominolab[cluster]'"


class ClusterError(DominoError):
    """The Dask cluster cannot be used: ``distributed`` is not installed, the scheduler
    address is bad or unreachable, or the workers run another dominolab."""


def _worker_versions() -> tuple[str, int]:
    """Run on each worker: what it would play with."""
    return __version__, RULES_VERSION


def _drop_half_made_client(exc: BaseException, client_class: type) -> None:
    """A ``Client`` whose constructor failed still closes itself when collected, slowly
    and with a traceback on stderr: close it now, quietly, at once."""
    tb = exc.__traceback__
    while tb is not None:
        obj = tb.tb_frame.f_locals.get("self")
        if isinstance(obj, client_class):
            with contextlib.suppress(Exception):
                obj.close(timeout=0.5)  # type: ignore[attr-defined]
            with contextlib.suppress(Exception):
                obj.status = "closed"  # type: ignore[attr-defined]
            return
        tb = tb.tb_next


#: the longest one request to the cluster may take, in seconds, before it counts as unanswered
#: (fetching a batch's results, asking for the workers, closing the client)
CALL_TIMEOUT: Final = 5.0
#: the loggers of ``distributed`` and of the libraries under it, quiet while our client is
#: connected: a lost worker or scheduler is reported once, as a :class:`ClusterError`
_NOISY_LOGGERS: Final = ("distributed", "tornado", "asyncio")


@contextlib.contextmanager
def _quiet_loggers() -> Iterator[None]:
    """``distributed``'s loggers (and tornado's and asyncio's, which it logs through) off
    for the ``with`` block: the warnings it logs while a worker or the scheduler goes away,
    and the cancelled tasks it leaves behind when it is stopped mid-call, are reported as one
    line by whoever catches the error, not as pages of log and traceback. Other output is
    left alone. ``distributed`` is imported first: the loggers it makes as it is imported
    (``distributed.client``, with a level of its own) are then there to be turned off."""
    with contextlib.suppress(ImportError):
        import distributed  # noqa: F401
    loggers = [logging.getLogger(name) for name in list(logging.root.manager.loggerDict)
               if name.split(".")[0] in _NOISY_LOGGERS]
    loggers += [logging.getLogger(name) for name in _NOISY_LOGGERS]
    before = [(logger, logger.disabled) for logger in loggers]
    for logger in loggers:
        logger.disabled = True
    try:
        yield
    finally:
        for logger, disabled in before:
            logger.disabled = disabled


def close_client(client: Any, timeout: float = CALL_TIMEOUT) -> None:
    """Close a ``distributed.Client`` within ``timeout`` seconds, quietly, whatever state its
    cluster is in (a scheduler gone, a Ctrl-C mid-call): never raises. The client's tasks
    left with an exception nobody asked for (``AllExit`` when its cluster went away) are
    collected while the loggers are quiet: collected later, asyncio printed each with its
    traceback under the run's one-line error."""
    with _quiet_loggers(), contextlib.suppress(Exception):
        client.close(timeout=timeout)
    with _quiet_loggers():
        gc.collect()


@contextlib.contextmanager
def cluster_client(scheduler: Any) -> Iterator[Any]:
    """A scheduler address connected (:func:`connect_cluster`) for the ``with`` block and
    closed after it (within :data:`CALL_TIMEOUT` seconds, quietly); anything else (None, a
    connected client) passes through untouched. ``distributed``'s own log is off meanwhile:
    what goes wrong reaches the caller as one :class:`ClusterError`."""
    if not isinstance(scheduler, str):
        yield scheduler
        return
    with _quiet_loggers():
        # CONNECT_TIMEOUT read at call time, not bound as connect_cluster's default when
        # this module loaded: a test running the CLI in-process can shorten the wait
        client = connect_cluster(scheduler, CONNECT_TIMEOUT)
        try:
            yield client
        finally:
            close_client(client)


def scheduler_address(address: str) -> str:
    """``address`` as ``tcp://HOST:PORT``: a bare ``HOST:PORT`` is taken as TCP, as Dask's
    own ``dask worker HOST:PORT`` takes it. Raises :class:`ClusterError` saying what is
    wrong with any other scheme (``http://`` is a dashboard's, ``tls://`` needs
    certificates that dominolab does not take)."""
    from distributed.comm.addressing import parse_address

    try:
        scheme, location = parse_address(address)
    except (ValueError, TypeError) as exc:
        raise ClusterError(f"{address!r} is not a Dask scheduler address ({exc}); give "
                           f"tcp://HOST:PORT") from None
    if scheme in ("http", "https"):
        raise ClusterError(f"{address!r} is a web address, and {scheme} is not a Dask "
                           f"protocol (a scheduler's dashboard answers there, not the "
                           f"scheduler); give tcp://HOST:PORT (the scheduler's port, 8786 "
                           f"unless it was started with another)")
    if scheme == "tls":
        raise ClusterError(f"{address!r} is a TLS address, and connecting over TLS needs "
                           f"a security configuration (certificates) that dominolab does "
                           f"not take; give a tcp://HOST:PORT the scheduler listens on")
    if scheme != "tcp":
        raise ClusterError(f"{address!r} is a {scheme} address, and dominolab reaches a "
                           f"Dask scheduler over tcp:// only; give tcp://HOST:PORT")
    return f"tcp://{location}"


def connect_cluster(address: str, timeout: float = CONNECT_TIMEOUT) -> Any:
    """A ``distributed.Client`` connected to the scheduler at ``address``
    (``tcp://HOST:PORT``, or ``HOST:PORT``: :func:`scheduler_address`), not made the default
    client; close it when done (:func:`close_client`). Raises :class:`ClusterError` with a
    one-line reason when that cannot be done."""
    try:
        import distributed
        from distributed.comm.addressing import get_address_host_port
    except ImportError:
        raise ClusterError(f"running on a Dask cluster needs the cluster extra: "
                           f"{CLUSTER_HINT}") from None
    address = scheduler_address(address)
    where = f"the Dask scheduler {address!r}"
    try:
        host, port = get_address_host_port(address)
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except (OSError, ValueError, TypeError) as exc:
        if isinstance(exc, TimeoutError):
            reason = f"no answer in {timeout:g} s"
        elif isinstance(exc, OSError):
            reason = exc.strerror or str(exc)
        else:
            reason = str(exc)
        raise ClusterError(f"cannot reach {where} ({reason}); give --scheduler "
                           f"tcp://HOST:PORT") from None
    _probe_scheduler(address, where, timeout)
    make_client: Any = distributed.Client  # untyped
    try:
        client = make_client(address, timeout=timeout, set_as_default=False)
    except Exception as exc:  # whatever answered there is not a Dask scheduler
        _drop_half_made_client(exc, distributed.Client)
        raise ClusterError(f"cannot connect to {where} (is a Dask scheduler listening "
                           f"there?): {type(exc).__name__}") from None
    try:
        _check_workers(client, where, timeout)
    except BaseException:
        close_client(client)
        raise
    return client


def _check_workers(client: Any, where: str, timeout: float) -> None:
    """At least one worker within ``timeout`` seconds, each running this dominolab."""
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise ClusterError(f"{where} has no workers (none joined within {timeout:g} s); "
                           f"start some: dask worker {client.scheduler.address}") from None
    try:
        versions = client.run(_worker_versions, callback_timeout=timeout)
    except TimeoutError:
        raise ClusterError(f"the workers of {where} did not say which dominolab they run "
                           f"within {timeout:g} s") from None
    except Exception as exc:
        raise ClusterError(f"the workers of {where} cannot run dominolab (is it installed "
                           f"there?): {exc}") from None
    mine = (__version__, RULES_VERSION)
    for worker, theirs in versions.items():
        if tuple(theirs) != mine:
            raise ClusterError(f"worker {worker} runs dominolab {theirs[0]} (rules "
                               f"{theirs[1]}), not {mine[0]} (rules {mine[1]}); install "
                               f"the same version on every worker")


#: the most a Dask scheduler's first message (its handshake, a few hundred bytes) may be;
#: anything else that answers (a web server's reply read as a length) is far larger
_MOST_HANDSHAKE_BYTES: Final = 1 << 20


def _probe_scheduler(address: str, where: str, timeout: float) -> None:
    """Make sure a Dask scheduler answers at ``address`` within ``timeout`` seconds, before
    ``distributed`` is let near it (its client waits forever for a server that accepts and
    says nothing, and reads any answer's first bytes as a length to allocate). Over plain
    TCP the first 8 bytes must be a sane message length; then the server must say it is a
    scheduler (not a worker or a nanny). Raises :class:`ClusterError`."""
    from distributed.comm.addressing import get_address_host_port, parse_address
    from distributed.comm.core import connect as untyped_connect

    connect: Any = untyped_connect
    not_dask = f"{address!r} answers, but is not a Dask scheduler"
    deadline = time.monotonic() + timeout
    if parse_address(address)[0] == "tcp":
        host, port = get_address_host_port(address)
        try:
            with socket.create_connection((host, port), timeout=timeout) as sock:
                sock.settimeout(max(0.01, deadline - time.monotonic()))
                first = b""
                while len(first) < 8:
                    chunk = sock.recv(8 - len(first))
                    if not chunk:
                        raise ClusterError(f"{not_dask} (it closed the connection)")
                    first += chunk
        except TimeoutError:
            raise ClusterError(f"{not_dask} (it said nothing within {timeout:g} s)") from None
        except OSError as exc:
            raise ClusterError(f"cannot reach {where} ({exc.strerror or exc})") from None
        (length,) = struct.unpack("<Q", first)
        if not 0 < length <= _MOST_HANDSHAKE_BYTES:
            raise ClusterError(f"{not_dask} (its first bytes are {first!r})")

    async def identity() -> Any:
        comm = await connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    left = max(0.01, deadline - time.monotonic())
    try:
        reply = asyncio.run(asyncio.wait_for(identity(), left))
    except TimeoutError:
        raise ClusterError(f"{not_dask} (no answer to a scheduler's question within "
                           f"{timeout:g} s)") from None
    except Exception as exc:
        raise ClusterError(f"{not_dask} ({type(exc).__name__})") from None
    kind = reply.get("type") if isinstance(reply, dict) else None
    if kind != "Scheduler":
        raise ClusterError(f"{not_dask} (it says it is {kind or 'something else'}"
                           f"{'; give the scheduler address, not a worker' if kind else ''})")


#: the most tasks in one Dask task, and how many batches each worker thread should get
MAX_BATCH: Final = 500
BATCHES_PER_THREAD: Final = 4
#: batches in flight per worker thread (the client holds no more futures than this)
IN_FLIGHT_PER_THREAD: Final = 2
def batch_size(tasks: int, threads: int) -> int:
    """Tasks per Dask task: enough batches to keep ``threads`` worker threads busy and
    balanced (:data:`BATCHES_PER_THREAD` each), at most :data:`MAX_BATCH` tasks each."""
    per = -(-tasks // max(1, threads * BATCHES_PER_THREAD))
    return max(1, min(MAX_BATCH, per))


def _run_batch(func: Callable[[T], R], batch: Sequence[T]) -> list[R]:
    """One Dask task: ``func`` on each task of ``batch``, in order."""
    return [func(task) for task in batch]


def _run_on_cluster(client: Any, func: Callable[[T], R], tasks: Sequence[T],
                    take: Callable[[R], None], tick: Callable[[], None],
                    batch: int | None, no_workers_timeout: float) -> None:
    """Batches of tasks as Dask tasks, a bounded number in flight; ``take`` each result as
    its batch completes, ``tick`` about twice a second. Every request to the cluster has a
    deadline (:data:`CALL_TIMEOUT`; a batch's result, when the worker holding it is gone,
    is waited for again as Dask runs the batch anew). Raises :class:`ClusterError` when no
    worker has been seen, or the scheduler has not answered, for ``no_workers_timeout``
    seconds, or the scheduler is lost; on any exception the batches in flight are released
    (the scheduler then forgets those still queued) without waiting on the cluster."""
    import distributed
    from distributed.comm.core import CommClosedError
    from distributed.scheduler import KilledWorker

    wait: Any = distributed.wait  # untyped
    address = client.scheduler.address
    threads = _cluster_threads(client, address)
    size = batch if batch is not None else batch_size(len(tasks), max(1, threads or 0))
    if size < 1:
        raise OptionError(f"a batch holds at least 1 task, not {size!r}")
    starts = iter(range(0, len(tasks), size))
    limit = max(2, IN_FLIGHT_PER_THREAD * max(1, threads or 0))
    in_flight: set[Any] = set()

    def submit_more() -> None:
        while len(in_flight) < limit:
            start = next(starts, None)
            if start is None:
                return
            chunk = list(tasks[start:start + size])
            in_flight.add(client.submit(_run_batch, func, chunk, pure=False))

    seen = checked = time.monotonic()  # when a worker was last seen (or a batch finished)
    answered = True
    try:
        with client.as_current():
            submit_more()
            while in_flight:
                try:
                    done = wait(list(in_flight), timeout=TICK_SECONDS,
                                return_when="FIRST_COMPLETED").done
                except TimeoutError:
                    done = set()
                for future in done:
                    try:
                        results = future.result(timeout=CALL_TIMEOUT)
                    except TimeoutError:
                        continue  # its worker went before the result came: it runs again
                    in_flight.discard(future)
                    future.release()
                    for result in results:
                        take(result)
                    seen = time.monotonic()
                submit_more()
                now = time.monotonic()
                if now - checked >= 1.0:
                    threads = _cluster_threads(client, None)
                    checked = now = time.monotonic()
                    answered = threads is not None
                    if threads:
                        seen = now
                    elif now - seen >= no_workers_timeout:
                        raise ClusterError(_no_workers(address, answered,
                                                       no_workers_timeout))
                tick()
    except (distributed.CancelledError, CommClosedError):  # the scheduler is gone: its
        # futures are cancelled, or the call in progress finds its connection closed
        _release(in_flight)
        raise ClusterError(f"lost the connection to the Dask scheduler {address!r} (is it "
                           f"still running?)") from None
    except KilledWorker as exc:
        _release(in_flight)
        raise ClusterError(f"a batch of tasks ended every Dask worker that ran it (out of "
                           f"memory?): {exc}") from None
    except BaseException:
        _release(in_flight)
        raise


def _cluster_threads(client: Any, address: str | None) -> int | None:
    """The worker threads the cluster has now, None when the scheduler does not answer
    within :data:`CALL_TIMEOUT` seconds (then, with ``address``, :class:`ClusterError`)."""
    try:
        return int(sum(client.nthreads(callback_timeout=CALL_TIMEOUT).values()))
    except Exception:  # any failure to answer: a timeout, a lost connection, a closed client
        if address is None:
            return None
        raise ClusterError(f"the Dask scheduler {address!r} did not say what workers it has "
                           f"within {CALL_TIMEOUT:g} s") from None


def _no_workers(address: str, answered: bool, seconds: float) -> str:
    if not answered:
        return (f"the Dask scheduler {address!r} has not answered for {seconds:g} s (is it "
                f"still running?)")
    return (f"the Dask cluster has had no workers for {seconds:g} s (start some: dask worker "
            f"{address})")


def _release(futures: set[Any]) -> None:
    """Let go of ``futures`` without waiting on the cluster (a message each; the scheduler
    forgets the tasks no client wants, so queued ones never run)."""
    for future in futures:
        with contextlib.suppress(Exception):
            future.release()


__all__ = ["BATCHES_PER_THREAD", "CALL_TIMEOUT", "CLUSTER_HINT", "CONNECT_TIMEOUT",
           "IN_FLIGHT_PER_THREAD", "MAX_BATCH", "MAX_NO_WORKERS_TIMEOUT", "NO_WORKERS_TIMEOUT",
           "ClusterError", "ProgressCallback", "WorkerLost", "batch_size",
           "check_no_workers_timeout", "check_workers", "close_client",
           "cluster_client", "connect_cluster", "run_tasks", "scheduler_address"]
