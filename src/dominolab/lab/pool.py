"""The one task runner of the lab: local worker processes, or a Dask cluster.

:func:`run_tasks` runs ``func(task)`` for every task and hands each result to ``take`` in
the calling process as it finishes (in the order they finish, not the tasks' order: callers
that need an order sort or buffer). With one worker it plays in this process; with more, in
a pool of processes that leave Ctrl-C to the parent, which stops them all and raises
:class:`KeyboardInterrupt` after keeping every result taken so far. On a Dask cluster (the
``cluster`` extra) each task is one Dask task, and the same function gives the same results.
``func`` and the tasks must be picklable (a module-level function, plain data).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import socket
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, TypeVar

from dominolab import __version__
from dominolab.core import RULES_VERSION, DominoError, OptionError

T = TypeVar("T")
R = TypeVar("R")

#: ``progress(done, total)``; called from the calling process only
ProgressCallback = Callable[[int, int], None]

#: how often, in seconds, a waiting runner calls ``tick``
TICK_SECONDS: Final = 0.5


def check_workers(workers: int | None) -> int:
    """The number of processes: ``workers``, or every core for None. Raises
    :class:`~dominolab.core.OptionError` below 1."""
    if workers is None:
        return os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise OptionError(f"workers must be at least 1, not {workers!r}")
    return workers


def _ignore_sigint() -> None:
    """Pool workers leave Ctrl-C to the parent, which stops them all."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_tasks(func: Callable[[T], R], tasks: Sequence[T], take: Callable[[R], None], *,
              workers: int = 1, client: Any = None,
              tick: Callable[[], None] | None = None) -> None:
    """Run ``func`` on every task; ``take`` each result in this process as it finishes,
    then call ``tick`` (also about twice a second while waiting).

    ``workers``: local processes (1, or a single task: in this process). ``client``: a
    connected ``distributed.Client`` to run on instead (``workers`` is then not used). On
    Ctrl-C (or when ``take`` or ``tick`` raises) the processes are stopped, the tasks still
    queued on a cluster are cancelled, and the exception propagates."""

    def ticked() -> None:
        if tick is not None:
            tick()

    if client is not None:
        _run_on_cluster(client, func, tasks, take, ticked)
        return
    processes = min(workers, len(tasks))
    if processes <= 1:
        for task in tasks:
            take(func(task))
            ticked()
        return
    with multiprocessing.get_context().Pool(processes, _ignore_sigint) as pool:
        try:
            results = pool.imap_unordered(func, tasks, chunksize=1)
            received = 0
            while received < len(tasks):
                try:
                    result = results.next(timeout=TICK_SECONDS)
                except multiprocessing.TimeoutError:
                    pass
                else:
                    received += 1
                    take(result)
                ticked()
        except BaseException:
            pool.terminate()
            raise


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


@contextlib.contextmanager
def cluster_client(scheduler: Any) -> Iterator[Any]:
    """A scheduler address connected (:func:`connect_cluster`) for the ``with`` block and
    closed after it; anything else (None, a connected client) passes through untouched."""
    if not isinstance(scheduler, str):
        yield scheduler
        return
    client = connect_cluster(scheduler)
    try:
        yield client
    finally:
        client.close()


def connect_cluster(address: str, timeout: float = CONNECT_TIMEOUT) -> Any:
    """A ``distributed.Client`` connected to the scheduler at ``address``
    (``tcp://HOST:PORT``), not made the default client; close it when done. Raises
    :class:`ClusterError` with a one-line reason when that cannot be done."""
    try:
        import distributed
        from distributed.comm.addressing import get_address_host_port, parse_address
    except ImportError:
        raise ClusterError(f"running on a Dask cluster needs the cluster extra: "
                           f"{CLUSTER_HINT}") from None
    where = f"the Dask scheduler {address!r}"
    try:
        scheme, _ = parse_address(address)
        if scheme in ("tcp", "tls"):
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
    make_client: Any = distributed.Client  # untyped
    try:
        client = make_client(address, timeout=timeout, set_as_default=False)
    except Exception as exc:  # whatever answered there is not a Dask scheduler
        _drop_half_made_client(exc, distributed.Client)
        raise ClusterError(f"cannot connect to {where} (is a Dask scheduler listening "
                           f"there?): {type(exc).__name__}") from None
    try:
        versions = client.run(_worker_versions)
    except Exception as exc:
        client.close()
        raise ClusterError(f"the workers of {where} cannot run dominolab (is it installed "
                           f"there?): {exc}") from None
    mine = (__version__, RULES_VERSION)
    for worker, theirs in versions.items():
        if tuple(theirs) != mine:
            client.close()
            raise ClusterError(f"worker {worker} runs dominolab {theirs[0]} (rules "
                               f"{theirs[1]}), not {mine[0]} (rules {mine[1]}); install "
                               f"the same version on every worker")
    return client


def _run_on_cluster(client: Any, func: Callable[[T], R], tasks: Sequence[T],
                    take: Callable[[R], None], tick: Callable[[], None]) -> None:
    """One Dask task per task; ``take`` each result as it completes, ``tick`` about twice
    a second."""
    import distributed

    wait: Any = distributed.wait  # untyped
    remaining = set(client.map(func, tasks, pure=False))
    try:
        with client.as_current():
            while remaining:
                try:
                    done = wait(list(remaining), timeout=TICK_SECONDS,
                                return_when="FIRST_COMPLETED").done
                except TimeoutError:
                    done = set()
                for future in done:
                    take(future.result())
                    remaining.discard(future)
                tick()
    except BaseException:
        client.cancel(list(remaining))
        raise


__all__ = ["CLUSTER_HINT", "CONNECT_TIMEOUT", "ClusterError", "ProgressCallback",
           "check_workers", "cluster_client", "connect_cluster", "run_tasks"]
