"""The web app's tests' shared setup: the one way to make each piece that several test files
use (players are made by :mod:`players_support`, lobby sockets by :mod:`rawsocket`).

An app is made by :func:`seeded_app`: no computer delay, and the games' seeds drawn from one
seeded generator, so a test's deals repeat. Time is a :class:`Clock` the test moves on.
:func:`service_of` is the app's game service, and :func:`on_loop` awaits on the app's event
loop. An older database is built by :func:`database_at`, exactly as the store would have
left it at that schema version, for a test to write rows into as they were written then.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from dominolab.core import Match, get_game
from dominolab.web.edge.app import create_app
from dominolab.web.edge.process import ServerProcess
from dominolab.web.games.service import GameService
from dominolab.web.storage.schema import MIGRATIONS, statements
from dominolab.web.storage.store import Store

#: when a test's :class:`Clock` starts (a date in 2027)
START = 1_800_000_000.0


class Clock:
    """The app's wall clock (``create_app(clock=...)``), moved on by the test: set
    :attr:`now`."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def seeded_app(path: str | Path, seed: int, **kwargs: Any) -> Starlette:
    """The web app on the database ``path`` with no computer delay and the games' seeds
    drawn from ``random.Random(seed)``; ``kwargs`` go to ``create_app`` as they are."""
    seeds = random.Random(seed)
    return create_app(path, computer_delay=0, seeds=lambda: seeds.getrandbits(53), **kwargs)


def service_of(client: TestClient) -> GameService:
    """The game service of the app ``client`` talks to."""
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    return service


def on_loop(client: TestClient, fn: Callable[[], Any]) -> Any:
    """Await ``fn()`` on the app's event loop, and give what it returns."""
    async def call() -> Any:
        return await fn()
    return client.portal.call(call)  # type: ignore[union-attr]


def friend_game(client: TestClient, game: str = "luzak",
                options: dict[str, Any] | None = None) -> tuple[str, str, str]:
    """A new friend game with both seats taken, seat 0 by its maker (who moves first):
    (its id, seat 0's token, seat 1's token). The test fails if either call does."""
    body: dict[str, Any] = {"game": game, "opponent": "friend", "first": "me"}
    if options is not None:
        body["options"] = options
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    made = r.json()
    assert made["invite"].startswith(f"/game/{made['id']}#i="), made["invite"]
    invite = made["invite"].split("#i=", 1)[1]
    r = client.post(f"/api/games/{made['id']}/join", json={"invite": invite})
    assert r.status_code == 200, r.text
    joined = r.json()
    assert joined["seat"] == 1 and joined["state"]["seat"] == 1, joined
    return made["id"], made["token"], joined["token"]


def computer_done(client: TestClient, game_id: str, timeout: float = 30) -> None:
    """Wait until the computer's turns in ``game_id`` end (``timeout`` seconds at most: the
    test fails with TimeoutError past it); at once if it is not thinking."""
    service = service_of(client)

    async def done() -> None:
        task = service.games[game_id].computer
        if task is not None:
            await asyncio.wait_for(asyncio.shield(task), timeout)

    client.portal.call(done)  # type: ignore[union-attr]


def play_out(client: TestClient, game_id: str, tokens: Sequence[str], rng: random.Random,
             limit: int = 5000) -> dict[str, Any]:
    """Random legal moves, drawn from ``rng``, by the seats holding ``tokens`` until the
    match is over (the computer's moves awaited, with a deadline); every move must be
    answered 200. Seat ``tokens[0]``'s last state; the test fails if the match has not
    ended after ``limit`` turns."""
    waited = False  # for the computer: then a seat is to move
    for _ in range(limit):
        states: list[dict[str, Any]] = []
        for token in tokens:
            r = client.get(f"/api/games/{game_id}", headers=auth(token))
            assert r.status_code == 200, r.text
            states.append(r.json())
        if states[0]["match_result"] is not None:
            return states[0]
        movers = [i for i, s in enumerate(states) if s["to_move"] == s["seat"]]
        if not movers:
            assert not waited, f"{game_id}: no seat to move after the computer's turn: {states}"
            computer_done(client, game_id)
            waited = True
            continue
        waited = False
        mover = states[movers[0]]
        r = client.post(f"/api/games/{game_id}/moves", headers=auth(tokens[movers[0]]),
                        json={"move": rng.choice(mover["legal"])["move"],
                              "version": mover["version"]})
        assert r.status_code == 200, r.text
    raise AssertionError(f"{game_id}: the match did not end in {limit} turns")


def auth(token: str) -> dict[str, str]:
    """The headers of a request by the seat that holds ``token``."""
    return {"Authorization": f"Bearer {token}"}


def as_player(key: str) -> dict[str, str]:
    """The headers of a request by the player whose secret key is ``key``."""
    return {"X-Player-Key": key}


def refused(ws: Any) -> tuple[dict[str, Any], int]:
    """The error a refused WebSocket is sent, and the code it is then closed with."""
    error: dict[str, Any] = ws.receive_json()
    assert error["type"] == "error", error
    with pytest.raises(WebSocketDisconnect) as info:
        ws.receive_json()
    return error, info.value.code


def replay_stored(store: Store, game_id: str) -> tuple[Match, int]:
    """The game ``game_id`` as ``store`` has it, rebuilt through the engine's checked path,
    and how many moves it has. The test fails if a move is stored out of turn; an illegal
    one raises the engine's error."""
    loaded = store.load_game(game_id)
    assert loaded is not None, f"no game {game_id!r} is stored"
    row, moves = loaded
    spec = get_game(row.game)
    match = Match(spec, spec.options_class.from_dict(row.options), seed=row.seed,
                  first_opener=row.first_opener)
    for seat, text in moves:
        assert match.to_move == seat, f"{game_id}: stored out of turn: {seat} {text}"
        match.apply(match.parse_move(text))
    return match, len(moves)


@contextmanager
def database_at(path: Path, version: int) -> Iterator[sqlite3.Connection]:
    """A new SQLite games database at schema ``version``: ``MIGRATIONS[:version]`` run as
    :meth:`~dominolab.web.storage.database.Database.migrate` runs them (each one's
    statements in a transaction of its own that also sets ``PRAGMA user_version``), open
    (in autocommit) for the test to write rows as that version wrote them; closed at the
    end, so that a :class:`Store` opened next migrates it from there."""
    if not 0 <= version < len(MIGRATIONS):
        raise ValueError(f"no older schema version {version}: there are {len(MIGRATIONS)}")
    if path.exists():
        raise FileExistsError(f"{path}: an older database is built in a new file")
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        for number, script in enumerate(MIGRATIONS[:version], start=1):
            db.execute("BEGIN")
            for statement in statements(script):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {number}")
            db.execute("COMMIT")
        yield db


@contextmanager
def running(servers: Sequence[ServerProcess]) -> Iterator[Sequence[ServerProcess]]:
    """Start every one of ``servers``, in order; at the end (or if one fails to start) stop
    every one that runs."""
    try:
        for server in servers:
            server.start()
        yield servers
    finally:
        for server in servers:
            server.stop()
