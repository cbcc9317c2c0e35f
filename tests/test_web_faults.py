"""Faults that must never damage a game (docs/web.md, "Faults and abuse").

The store is the one source of truth: a move is committed before it is made in memory or
sent. Here the database fails under the server — another process holds it locked, or a
write raises — and after every step the stored game must replay to what every seat was
last sent, a stale move must still be refused, and a slow write must hold up no other
request. Presence updates must survive the departing connection's handler being
cancelled (the cause of a hang of this suite).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from dominolab.core import Match
from dominolab.players import Budget
from dominolab.web.games.live import Connection
from dominolab.web.games.service import GameService
from dominolab.web.storage.store import AsyncStore, GameRow, Store
from loops import run_async
from web_support import auth, friend_game, replay_stored, seeded_app, service_of

Json = dict[str, Any]

#: every test here waits on sockets whose reads have no timeout of their own: this bounds
#: each test, failing it with its stack, well inside the suite's limit
pytestmark = pytest.mark.timeout(150)


class FailingWrites:
    """Wraps the store's ``add_moves``: raises a database error while ``failing`` is set,
    and sets ``entered`` each time a write begins."""

    def __init__(self, service: GameService) -> None:
        self.real: Callable[..., None] = service.store.sync.add_moves
        self.failing = False
        self.entered = threading.Event()
        self.calls = 0
        service.store.sync.add_moves = self  # type: ignore[method-assign,assignment]

    def __call__(self, *args: Any) -> None:
        self.calls += 1
        self.entered.set()
        if self.failing:
            raise sqlite3.OperationalError("disk I/O error (injected by the test)")
        self.real(*args)


def make_client(path: Path, **kwargs: Any) -> TestClient:
    return TestClient(seeded_app(path, seed=11, hint_budget=Budget(worlds=50), workers=1,
                                 **kwargs))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path / "games.sqlite3") as c:
        yield c


#: the friend games' options here: short matches
SHORT = {"target": 20}


def replayed(path: Path, gid: str) -> tuple[Match, int]:
    """The game as the database has it, rebuilt through the engine."""
    store = Store(path)
    try:
        return replay_stored(store, gid)
    finally:
        store.close()


def drain(ws: Any) -> list[Json]:
    """Everything the socket was sent so far: ping, then read up to the pong (the server
    answers a ping after everything it sent before)."""
    ws.send_text(json.dumps({"type": "ping"}))
    seen: list[Json] = []
    while True:
        message: Json = ws.receive_json()
        if message["type"] == "pong":
            return seen
        seen.append(message)


# -- an external lock on the database ----------------------------------------------------

def test_a_locked_database_refuses_the_move_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with make_client(path, busy_timeout=0.2) as client:
        gid, t0, t1 = friend_game(client, options=SHORT)
        with client.websocket_connect(f"/ws/games/{gid}") as ws0, \
                client.websocket_connect(f"/ws/games/{gid}") as ws1:
            for ws, token in ((ws0, t0), (ws1, t1)):
                ws.send_text(json.dumps({"type": "hello", "token": token}))
            drain(ws0)
            drain(ws1)
            before = client.get(f"/api/games/{gid}", headers=auth(t0)).json()
            lead = before["legal"][0]["move"]
            other = sqlite3.connect(path, isolation_level=None)
            other.execute("BEGIN EXCLUSIVE")
            r = client.post(f"/api/games/{gid}/moves", headers=auth(t0),
                            json={"move": lead, "version": 0})
            assert r.status_code == 503, r.text
            assert "not made" in r.json()["error"] and r.headers["retry-after"] == "1"
            # every open socket was told the state as it is: nothing moved
            for ws in (ws0, ws1):
                states = [m["state"] for m in drain(ws) if m["type"] == "state"]
                assert states and states[-1]["version"] == 0
            assert client.get(f"/api/games/{gid}", headers=auth(t0)).json() == before
            # the seat that is not to move cannot slip a move in at the old version
            r = client.post(f"/api/games/{gid}/moves", headers=auth(t1),
                            json={"move": lead, "version": 0})
            assert r.status_code == 409
            other.execute("ROLLBACK")
            other.close()
            # once the lock is gone the same move is made, once
            r = client.post(f"/api/games/{gid}/moves", headers=auth(t0),
                            json={"move": lead, "version": 0})
            assert r.status_code == 200 and r.json()["version"] == 1
            assert client.post(f"/api/games/{gid}/moves", headers=auth(t0),
                               json={"move": lead, "version": 0}).status_code == 409
    match, stored = replayed(path, gid)
    assert stored == 1 and len(match.hand.table_placements) == 1


def test_moves_stored_together_all_fail_on_a_locked_database_and_change_nothing(
        tmp_path: Path) -> None:
    """The moves of several games stored in one transaction: a database locked by another
    process refuses every move that transaction held, and none of them is stored; once
    the lock is gone the same moves are stored."""
    path = tmp_path / "games.sqlite3"
    store = Store(path, busy_timeout=0.2)
    for gid in ("game0001", "game0002"):
        store.create_game(GameRow(id=gid, game="luzak", options={}, seed=1, first_opener=0,
                                  mode="friend", opponent=None, token_hashes=("a", "b"),
                                  rules_version=1, created=1.0, finished=False))
    together = AsyncStore(store)

    async def both() -> tuple[BaseException | None, ...]:
        return await asyncio.gather(
            together.add_moves("game0001", 0, [(0, "54@1e")], False),
            together.add_moves("game0002", 0, [(0, "33@2e")], False),
            return_exceptions=True)

    blocker = sqlite3.connect(path, isolation_level=None)
    try:
        blocker.execute("BEGIN EXCLUSIVE")
        refused = run_async(both())
        assert all(isinstance(o, sqlite3.OperationalError) for o in refused), refused
        blocker.execute("ROLLBACK")
        assert [store.load_game(g)[1] for g in ("game0001", "game0002")  # type: ignore[index]
                ] == [[], []]
        assert list(run_async(both())) == [None, None]
        assert [store.load_game(g)[1] for g in ("game0001", "game0002")  # type: ignore[index]
                ] == [[(0, "54@1e")], [(0, "33@2e")]]
    finally:
        blocker.close()
        together.close()


def test_moves_sent_to_a_closed_store_are_refused_not_left_waiting(tmp_path: Path) -> None:
    """Moves queued for the store's thread after the store closed (a server shutting
    down) fail at once with the reason, rather than waiting for a thread that is gone."""
    together = AsyncStore(Store(tmp_path / "games.sqlite3"))
    together.close()

    async def late() -> tuple[BaseException | None, ...]:
        return await asyncio.gather(
            together.add_moves("game0001", 0, [(0, "54@1e")], False),
            together.add_moves("game0002", 0, [(0, "33@2e")], False),
            return_exceptions=True)

    refused = run_async(late(), timeout=10)
    assert all(isinstance(o, RuntimeError) for o in refused), refused


def test_a_slow_write_holds_up_no_other_request(tmp_path: Path) -> None:
    """While one move waits for another process's lock, other requests are answered."""
    path = tmp_path / "games.sqlite3"
    with make_client(path, busy_timeout=60) as client:
        gid, t0, _t1 = friend_game(client, options=SHORT)
        other_gid, o0, _o1 = friend_game(client, options=SHORT)
        writes = FailingWrites(service_of(client))
        lead = client.get(f"/api/games/{gid}", headers=auth(t0)).json()["legal"][0]["move"]
        blocker = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        blocker.execute("BEGIN EXCLUSIVE")
        with ThreadPoolExecutor(1) as pool:
            moving: Future[Any] = pool.submit(
                client.post, f"/api/games/{gid}/moves", headers=auth(t0),
                json={"move": lead, "version": 0})
            assert writes.entered.wait(30), "the move never reached the database"
            # the write is now waiting on the lock; the server answers everything else
            assert client.get("/api/meta").status_code == 200
            assert client.get(f"/api/games/{other_gid}", headers=auth(o0)).status_code == 200
            assert client.get("/").status_code == 200
            assert not moving.done()
            blocker.execute("ROLLBACK")
            blocker.close()
            r = moving.result(timeout=60)
        assert r.status_code == 200 and r.json()["version"] == 1


# -- random interleavings with failing writes ---------------------------------------------

ACTIONS = st.lists(st.tuples(
    st.sampled_from(["http", "ws0", "ws1", "fail", "heal", "stale"]),
    st.integers(0, 2**16)), min_size=5, max_size=40)


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(actions=ACTIONS, game=st.sampled_from(["luzak", "luzak-line", "widelec"]))
def test_interleaved_moves_with_failing_writes_never_damage_a_game(
        tmp_path_factory: pytest.TempPathFactory, actions: list[tuple[str, int]],
        game: str) -> None:
    """Moves over HTTP and over both seats' sockets, stale moves, and writes that fail at
    random: after every step the stored game replays through the engine to the state the
    server holds, and each seat's socket was last sent exactly that state."""
    path = tmp_path_factory.mktemp("faults") / "games.sqlite3"
    with make_client(path) as client:
        gid, t0, t1 = friend_game(client, game, SHORT)
        tokens = (t0, t1)
        writes = FailingWrites(service_of(client))
        with client.websocket_connect(f"/ws/games/{gid}") as ws0, \
                client.websocket_connect(f"/ws/games/{gid}") as ws1:
            sockets = (ws0, ws1)
            last: list[Json] = []
            for ws, token in zip(sockets, tokens, strict=True):
                ws.send_text(json.dumps({"type": "hello", "token": token}))
                last.append(drain(ws)[-1]["state"])
            for kind, pick in actions:
                now = client.get(f"/api/games/{gid}", headers=auth(t0)).json()
                if kind in ("fail", "heal"):
                    writes.failing = kind == "fail"
                    continue
                if now["match_result"] is not None:
                    break
                mover = now["to_move"]
                mine = client.get(f"/api/games/{gid}", headers=auth(tokens[mover])).json()
                choice = mine["legal"][pick % len(mine["legal"])]["move"]
                if kind == "stale":
                    # the other seat, and an old version: both must be refused
                    r = client.post(f"/api/games/{gid}/moves", headers=auth(tokens[1 - mover]),
                                    json={"move": choice, "version": max(0, now["version"] - 1)})
                    assert r.status_code == 409, r.text
                    acting = None
                elif kind == "http":
                    r = client.post(f"/api/games/{gid}/moves", headers=auth(tokens[mover]),
                                    json={"move": choice, "version": now["version"]})
                    assert r.status_code == (503 if writes.failing else 200), r.text
                    acting = None
                else:
                    seat = int(kind[-1])
                    acting = sockets[seat]
                    acting.send_text(json.dumps({"type": "move", "move": choice,
                                                 "version": now["version"]}))
                # the acting socket first: its handler has then finished the move
                order = ([acting] if acting is not None else []) + \
                    [ws for ws in sockets if ws is not acting]
                for ws in order:
                    seat = sockets.index(ws)
                    messages = drain(ws)
                    errors = [m for m in messages if m["type"] == "error"]
                    if kind == f"ws{seat}":
                        expected = (mover != seat) or writes.failing
                        assert bool(errors) == expected, (kind, messages)
                    states = [m["state"] for m in messages if m["type"] == "state"]
                    if states:
                        last[seat] = states[-1]
                match, stored = replayed(path, gid)
                for seat in (0, 1):
                    held = client.get(f"/api/games/{gid}", headers=auth(tokens[seat])).json()
                    assert last[seat] == held, f"seat {seat} was last sent another state"
                    assert held["version"] == stored
                    assert sorted(held["hand"]) == sorted(t.digits
                                                          for t in match.view(seat).hand)
                    assert held["to_move"] == match.to_move
                    assert held["totals"] == list(match.totals)


def test_the_computer_waits_out_a_failing_database(tmp_path: Path) -> None:
    """The computer's move cannot be stored: the game stays as it was, and the computer
    tries again until the database is back."""
    path = tmp_path / "games.sqlite3"
    with make_client(path) as client:
        writes = FailingWrites(service_of(client))
        writes.failing = True
        made = client.post("/api/games", json={"game": "luzak", "opponent": "easy",
                                               "first": "opponent"}).json()
        gid, token = made["id"], made["token"]
        assert writes.entered.wait(30)
        assert client.get(f"/api/games/{gid}", headers=auth(token)).json()["version"] == 0
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": token}))
            assert ws.receive_json()["state"]["version"] == 0
            writes.failing = False
            # each retry re-sends the state (pauses of 0.5 s doubling): the move lands within
            # a few of them; the module's timeout bounds the reads
            for _ in range(20):
                state = ws.receive_json()["state"]
                if state["version"] == 1:
                    break
            assert state["version"] == 1, "the computer never moved once the database was back"
        assert writes.calls >= 2
    match, stored = replayed(path, gid)
    assert stored == 1 and match.to_move == 0


# -- presence ----------------------------------------------------------------------------

def test_presence_is_announced_even_if_the_leaving_handler_is_cancelled(
        tmp_path: Path) -> None:
    """The hang of test_websocket_pushes_moves_to_the_other_seat: the test client cancels a
    socket's handler as it closes (an anyio cancel scope cancels every later await in it),
    which cancelled the 'seat 1 left' broadcast inside it. The service now announces a
    departure from a task of its own."""

    async def scenario() -> list[Json]:
        service = GameService(Store(tmp_path / "games.sqlite3"), workers=1)
        try:
            live, _token, _invite = await service.create("luzak", None, "friend", "me")
            got: asyncio.Queue[str] = asyncio.Queue()

            async def nowhere(text: str) -> None:
                return None

            seat0 = Connection(0, "wide", got.put)
            seat1 = Connection(1, "wide", nowhere)
            await service.attach(live, seat0)
            await service.attach(live, seat1)
            with anyio.CancelScope() as scope:
                scope.cancel()
                service.detach(live, seat1)
                await anyio.sleep(0)  # cancelled here, as the handler's awaits are
            seen = [json.loads(got.get_nowait()) for _ in range(got.qsize())]
            seen.append(json.loads(await asyncio.wait_for(got.get(), 10)))
            return seen
        finally:
            await service.close()

    seen = run_async(scenario(), timeout=60)
    assert seen[-1]["state"]["connected"] == [True, False]
