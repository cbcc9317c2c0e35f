"""The computer's pool (dominolab.web.games.compute): right answers from worker processes, clients
served in turn, cancelled jobs dropped, a killed worker survived, bounded queues, and no
process left behind.

Nothing here waits on the clock: jobs that must be running block on an event the test sets,
and the test waits for a job to have started on another event; every wait has a deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import pickle
import signal
import threading
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from dominolab.core import DRAW, Match, View
from dominolab.players import LEVELS, Budget, GreedyPlayer
from dominolab.players.hints import distinct
from dominolab.web.games.compute import (
    ComputePool,
    PoolBusy,
    PoolClosed,
    WorkerDied,
    analyse_hint,
    choose_move,
    lowered,
)
from loops import run_async

T = TypeVar("T")

#: the longest any single wait in these tests may take (a loaded 2-core machine included)
DEADLINE = 120.0


# -- jobs (module-level, so that a worker process can unpickle them) -------------------------

def _label(label: str) -> str:
    return label


def _blocked(started: Any, gate: Any) -> int:
    """Say it has started, then wait (bounded) until the test lets it finish."""
    started.set()
    gate.wait(DEADLINE)
    return os.getpid()


def _touch(path: str) -> str:
    Path(path).write_text("ran")
    return path


def _pid() -> int:
    return os.getpid()


def _refuse(text: str) -> None:
    raise ValueError(text)


def _niceness() -> int:
    """The scheduling niceness of the thread running this job."""
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


# -- helpers ---------------------------------------------------------------------------------

def run(coro: Awaitable[T]) -> T:
    async def bounded() -> T:
        return await asyncio.wait_for(coro, DEADLINE)

    return run_async(bounded())


async def started(event: Any) -> None:
    """Wait (off the event loop, with a deadline) until a job sets ``event``."""
    assert await asyncio.to_thread(event.wait, DEADLINE), "the job never started"


def to_move(match: Match) -> int:
    seat = match.to_move
    assert seat is not None
    return seat


@pytest.fixture(scope="module")
def manager() -> Iterator[Any]:
    """Events that pickle, for jobs in worker processes."""
    with multiprocessing.get_context("spawn").Manager() as found:
        yield found


def views() -> list[View]:
    """Positions of each game, some deep into a hand, one of them a Widelec draw."""
    found: list[View] = []
    greedy = GreedyPlayer()
    for game, seed in (("luzak", 3), ("luzak-line", 4), ("widelec", 5), ("widelec", 6)):
        match = Match(game, seed=seed)
        for ply in range(40):
            view = match.view(to_move(match))
            if ply in (0, 5) or (DRAW in view.legal_moves and not any(
                    DRAW in v.legal_moves for v in found)):
                found.append(view)
            match.apply(greedy.choose(view))
            if match.is_over:
                break
    assert any(DRAW in v.legal_moves for v in found)
    return found


# -- tests -----------------------------------------------------------------------------------

def test_moves_and_hints_from_workers_equal_those_made_here() -> None:
    """The same seed gives the same move and the same hint values in a worker process as
    in this process, and the move is one the match accepts."""
    positions = views()
    budget = Budget(worlds=60)

    async def body() -> None:
        pool = ComputePool(2, niceness=0)
        try:
            for i, view in enumerate(positions):
                for level in LEVELS:
                    name, _ = LEVELS[level]
                    level_budget = budget if name != "greedy" else None
                    move = await pool.run("c", choose_move, name, i, view, level_budget)
                    assert move == choose_move(name, i, view, level_budget), (level, view)
                    assert move in view.legal_moves
                hint = await pool.run("c", analyse_hint, view, Budget(worlds=80), i)
                assert hint == analyse_hint(view, Budget(worlds=80), i)
                # the search matched every move; equivalent moves share a class's worlds
                assert sum(v.worlds for v in distinct(hint, view)) == 80
        finally:
            await pool.close()

    run(body())
    match = Match("luzak", seed=3)
    move = run(_one(choose_move, "hard", 1, match.view(to_move(match)), budget))
    match.apply(move)


async def _one(fn: Any, *args: Any) -> Any:
    pool = ComputePool(1)
    try:
        return await pool.run("c", fn, *args)
    finally:
        await pool.close()


def test_moves_through_pickle_are_the_engine_s_shared_values() -> None:
    """The search keys its tree by the identity of the engine's shared moves: a pickled
    view's moves unpickle as those shared values, or the expert would see no visits."""
    for view in views():
        for move in view.legal_moves:
            assert pickle.loads(pickle.dumps(move)) is move
        copy = pickle.loads(pickle.dumps(view))
        assert choose_move("hard", 9, copy, Budget(worlds=60)) == \
            choose_move("hard", 9, view, Budget(worlds=60))


def test_a_job_s_exception_reaches_its_caller() -> None:
    with pytest.raises(ValueError, match="bad position"):
        run(_one(_refuse, "bad position"))


def test_a_client_s_job_does_not_wait_behind_another_client_s_backlog() -> None:
    """One worker; A queues 20 jobs, then B one: B's job runs right after A's first."""
    async def body() -> list[str]:
        pool = ComputePool(1, max_queued_per_client=100)
        done: list[str] = []

        async def job(client: str, label: str) -> None:
            done.append(await pool.run(client, _label, label))

        try:
            tasks = [asyncio.create_task(job("A", f"A{i}")) for i in range(20)]
            tasks.append(asyncio.create_task(job("B", "B")))
            await asyncio.gather(*tasks)
        finally:
            await pool.close()
        return done

    done = run(body())
    assert done.index("B") <= 2, done  # at most the running job and one more before it
    assert [x for x in done if x != "B"] == [f"A{i}" for i in range(20)]  # each client FIFO


def test_waiting_clients_are_taken_in_turn() -> None:
    """In threads too: with A, B and C each holding six jobs, they run A B C A B C ..."""
    async def body() -> list[str]:
        pool = ComputePool(0, threads=1, max_queued_per_client=10)
        done: list[str] = []

        async def job(client: str, i: int) -> None:
            done.append(await pool.run(client, _label, f"{client}{i}"))

        try:
            tasks = [asyncio.create_task(job(c, i)) for c in "ABC" for i in range(6)]
            await asyncio.gather(*tasks)
        finally:
            await pool.close()
        return done

    assert run(body()) == [f"{c}{i}" for i in range(6) for c in "ABC"]


def test_a_cancelled_waiting_job_never_runs(manager: Any, tmp_path: Path) -> None:
    marker = tmp_path / "cancelled-ran"

    async def body() -> None:
        pool = ComputePool(1)
        gate, began = manager.Event(), manager.Event()
        try:
            blocker = asyncio.create_task(pool.run("A", _blocked, began, gate))
            await started(began)
            waiting = asyncio.create_task(pool.run("A", _touch, str(marker)))
            await asyncio.sleep(0)  # one turn of the loop: the job is queued
            assert pool.stats()["waiting"] == 1
            waiting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await waiting
            assert pool.stats() == {"waiting": 0, "running": 1, "clients_waiting": 0,
                                    "workers": 1, "restarts": 0, "background_waiting": 0,
                                    "background_running": 0}
            gate.set()
            await blocker
            # one worker, each client FIFO: had it stayed queued, it would run before this
            await pool.run("A", _touch, str(tmp_path / "later"))
        finally:
            await pool.close()

    run(body())
    assert (tmp_path / "later").exists()
    assert not marker.exists()


def test_a_killed_worker_fails_its_job_and_the_pool_carries_on(manager: Any) -> None:
    async def body() -> None:
        pool = ComputePool(1)
        gate, began = manager.Event(), manager.Event()
        try:
            victim = asyncio.create_task(pool.run("A", _blocked, began, gate))
            await started(began)
            queued = asyncio.create_task(pool.run("B", _pid))  # waiting for the worker
            await asyncio.sleep(0)
            [pid] = pool.pids()
            os.kill(pid, signal.SIGKILL)
            with pytest.raises(WorkerDied, match="ended abruptly"):
                await victim
            # the job that was waiting runs in the rebuilt pool, and so do later ones
            assert await queued != pid
            assert await pool.run("A", _label, "after") == "after"
            assert pool.stats()["restarts"] == 1
            assert pid not in pool.pids()
        finally:
            await pool.close()

    run(body())


def test_a_client_past_its_bound_is_refused_with_a_retry_hint() -> None:
    gate = threading.Event()

    async def body() -> None:
        pool = ComputePool(0, threads=1, max_queued_per_client=2, max_queued=3)
        try:
            tasks: list[asyncio.Task[Any]] = [
                asyncio.create_task(pool.run("A", gate.wait, DEADLINE))]
            await asyncio.sleep(0)  # A's first job runs; the next two wait
            tasks += [asyncio.create_task(pool.run("A", _label, f"A{i}")) for i in (1, 2)]
            await asyncio.sleep(0)
            with pytest.raises(PoolBusy) as refused:
                await pool.run("A", _label, "A3")
            assert refused.value.retry_after >= 1
            tasks.append(asyncio.create_task(pool.run("B", _label, "B")))  # B is not refused
            await asyncio.sleep(0)
            with pytest.raises(PoolBusy):  # nor anyone past the bound of all the clients
                await pool.run("C", _label, "C")
            assert pool.stats()["waiting"] == 3
            gate.set()
            assert await asyncio.gather(*tasks) == [True, "A1", "A2", "B"]
        finally:
            gate.set()
            await pool.close()

    run(body())


def test_close_cancels_the_jobs_and_leaves_no_process(manager: Any) -> None:
    async def body() -> list[int]:
        pool = ComputePool(2)
        gate, began = manager.Event(), manager.Event()
        running = asyncio.create_task(pool.run("A", _blocked, began, gate))
        await started(began)
        waiting = [asyncio.create_task(pool.run("A", _label, f"A{i}")) for i in range(3)]
        await asyncio.sleep(0)
        pids = pool.pids()
        assert len(pids) == 2
        await pool.close()
        for task in (running, *waiting):
            with pytest.raises(asyncio.CancelledError):
                await task
        with pytest.raises(PoolClosed):
            await pool.run("A", _label, "late")
        return pids

    pids = run(body())
    children = {p.pid for p in multiprocessing.active_children()}
    for pid in pids:
        assert pid not in children
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_one_client_holds_at_most_half_the_workers(manager: Any) -> None:
    """Two workers, one client's long searches: the second worker stays free for another
    client's quick move (the 'easy reply behind a hard search' of a flood)."""

    async def body() -> None:
        pool = ComputePool(2, max_queued_per_client=10)
        gate, began = manager.Event(), manager.Event()
        assert pool.max_running_per_client == 1
        try:
            long = [asyncio.create_task(pool.run("A", _blocked, began, gate))
                    for _ in range(3)]
            await started(began)
            # A's first search holds one worker and its others wait for it, not for the
            # free worker; B's quick job runs there while A's search still runs
            assert await pool.run("B", _label, "quick") == "quick"
            assert pool.stats()["running"] == 1 and pool.stats()["waiting"] == 2
            gate.set()
            assert len({await t for t in long}) >= 1
        finally:
            gate.set()
            await pool.close()

    run(body())


def test_a_computer_move_goes_before_queued_study_jobs() -> None:
    """One thread; a study's chunks (background) from S are queued, then C's three moves
    and S's own hint: once the running chunk ends, every foreground job goes before the
    study's next chunk (in turns, C's would have alternated with S's chunks, and S's hint
    waited behind them); a cancelled waiting chunk never runs."""
    async def body() -> list[str]:
        pool = ComputePool(0, threads=1, max_queued_per_client=10)
        gate, began = threading.Event(), threading.Event()
        done: list[str] = []

        async def job(client: str, label: str, background: bool = False) -> None:
            done.append(await pool.run(client, _label, label, background=background))

        try:
            first = asyncio.create_task(pool.run("S", _blocked, began, gate, background=True))
            await started(began)
            chunks = [asyncio.create_task(job("S", f"chunk{i}", True)) for i in range(4)]
            moves = [asyncio.create_task(job("C", f"move{i}")) for i in range(3)]
            hint = asyncio.create_task(job("S", "hint"))
            await asyncio.sleep(0)  # one turn of the loop: every job is queued
            assert pool.stats()["waiting"] == 8 and pool.stats()["running"] == 1
            assert pool.stats()["background_waiting"] == 4
            assert pool.stats()["background_running"] == 1
            chunks[3].cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await chunks[3]
            assert pool.stats()["waiting"] == 7
            gate.set()
            await asyncio.gather(first, *chunks[:3], *moves, hint)
            assert pool.stats()["waiting"] == pool.stats()["running"] == 0
        finally:
            gate.set()
            await pool.close()
        return done

    done = run(body())
    assert sorted(done[:4]) == ["hint", "move0", "move1", "move2"], done
    assert done[4:] == ["chunk0", "chunk1", "chunk2"], done


def test_background_jobs_hold_at_most_their_share_of_the_workers(manager: Any) -> None:
    """Two workers, two studies from two addresses: one study chunk runs, the other waits
    though a worker is free, and that worker serves a computer move at once."""
    async def body() -> None:
        pool = ComputePool(2, max_queued_per_client=10)
        assert pool.max_background == 1
        gate, began = manager.Event(), manager.Event()
        try:
            s1 = asyncio.create_task(pool.run("S1", _blocked, began, gate, background=True))
            await started(began)
            s2 = asyncio.create_task(pool.run("S2", _label, "chunk", background=True))
            await asyncio.sleep(0)
            assert pool.stats()["running"] == 1 and pool.stats()["waiting"] == 1
            assert await pool.run("C", _label, "move") == "move"
            assert not s2.done() and pool.stats()["waiting"] == 1
            gate.set()
            assert await s2 == "chunk"
            await s1
        finally:
            gate.set()
            await pool.close()

    run(body())


def test_a_background_job_runs_below_the_worker_s_priority_and_leaves_it_as_it_was() -> None:
    """In a worker process: a study's chunk runs ``background_niceness`` above the worker's
    niceness, in a thread of its own; the computer's next move on that worker runs at the
    worker's own niceness again; a background job's exception reaches its caller."""
    async def body() -> tuple[int, int, int]:
        pool = ComputePool(1, niceness=2, background_niceness=5)
        try:
            before = await pool.run("C", _niceness)
            during = await pool.run("S", _niceness, background=True)
            after = await pool.run("C", _niceness)
            with pytest.raises(ValueError, match="bad study"):
                await pool.run("S", _refuse, "bad study", background=True)
        finally:
            await pool.close()
        return before, during, after

    here = os.getpriority(os.PRIO_PROCESS, 0)
    before, during, after = run(body())
    assert before == after == min(19, here + 2)
    assert during == min(19, before + 5) and (during > before or before == 19)
    # the same in this process's threads, and nothing lowered when asked for 0
    assert lowered(0, _niceness) == _niceness()
    assert lowered(3, _niceness) == min(19, _niceness() + 3)


def test_workers_end_when_the_server_is_killed(tmp_path: Path) -> None:
    """A server killed with SIGKILL cannot shut its pool down: its workers notice and end
    themselves rather than live on as orphans."""
    import subprocess
    import sys

    script = tmp_path / "server.py"
    script.write_text(
        "import asyncio, sys\n"
        "import os\n"
        "from dominolab.web.games.compute import ComputePool\n"
        "async def main():\n"
        "    pool = ComputePool(2)\n"
        "    await pool.run('a', os.getpid)\n"
        "    print(*pool.pids(), flush=True)\n"
        "    await asyncio.sleep(3600)\n"
        "if __name__ == '__main__':\n"
        "    asyncio.run(main())\n")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert len(pids) == 2
        fds = [os.pidfd_open(pid) for pid in pids]
    finally:
        proc.kill()
        proc.wait(DEADLINE)
    import select

    for fd in fds:
        ready, _, _ = select.select([fd], [], [], DEADLINE)
        assert ready, "a worker outlived its killed server"
        os.close(fd)
