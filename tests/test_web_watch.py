"""Spectators (docs/web.md, "Spectators"): any game can be watched by its id, over HTTP and
over the WebSocket, with no token; a spectator sees the public state only (that nothing
hidden reaches one is tests/test_web_leaks.py's), can do nothing but ping, is counted in
every state's ``watching``, and is bounded per address, per game and in all."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from dominolab.players import Budget
from dominolab.web.limits import DAY, Limits
from test_web_api import move, state
from web_support import Clock, auth, friend_game, play_out, refused, seeded_app, service_of

Json = dict[str, Any]

#: every test here waits on sockets whose reads have no timeout of their own: this bounds
#: each test, failing it with its stack, well inside the suite's limit
pytestmark = pytest.mark.timeout(90)

WATCH = json.dumps({"type": "hello", "watch": True})


def make_client(path: Path, limits: Limits | None = None, **kwargs: Any) -> TestClient:
    return TestClient(seeded_app(path, seed=7, hint_budget=Budget(worlds=30), workers=1,
                                 limits=limits, **kwargs))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path / "games.sqlite3") as c:
        yield c


def watched(client: TestClient, gid: str) -> Json:
    r = client.get(f"/api/games/{gid}/watch")
    assert r.status_code == 200, r.text
    data: Json = r.json()
    return data


# -- HTTP ------------------------------------------------------------------------------------

def test_the_watch_endpoint_shows_the_public_state_without_a_token(client: TestClient) -> None:
    gid, t0, _t1 = friend_game(client, "widelec")
    seat = state(client, gid, t0)
    seen = watched(client, gid)
    assert seen["seat"] is None and seen["hand"] is None and seen["opponent_tiles"] is None
    assert seen["legal"] == [] and seen["pending"] is None
    assert seen["tiles"] == [7, 7] == seat["tiles"] and seen["boneyard"] == seat["boneyard"]
    # everything else is what a seat sees, but for what is a seat's own
    own = {"seat", "hand", "opponent_tiles", "legal", "pending"}
    assert {k: v for k, v in seen.items() if k not in own} == \
        {k: v for k, v in seat.items() if k not in own}
    assert seen["watching"] == 0 and seen["connected"] == [False, False]
    r = client.get(f"/api/games/{gid}/watch?layout=narrow")
    assert r.headers["cache-control"] == "no-store"
    r = client.get("/api/games/nosuchgame123/watch")
    assert r.status_code == 404 and r.json()["status"] == 404
    assert client.get("/watch/abcdefgh123").status_code == 200  # the page


def test_a_spectator_sees_each_draw_as_the_drawer_s_opponent_does(client: TestClient) -> None:
    gid, t0, t1 = friend_game(client, "widelec")
    tokens = (t0, t1)
    rng = random.Random(3)
    for _ in range(200):
        st = state(client, gid, t0)
        if st["match_result"] is not None:
            break
        mover = state(client, gid, tokens[st["to_move"]])
        draws = [m for m in mover["legal"] if m["kind"] == "draw"]
        choice = (draws or mover["legal"])[0] if rng.random() < 0.7 else \
            rng.choice(mover["legal"])
        assert move(client, gid, tokens[mover["seat"]], choice["move"],
                    mover["version"]).status_code == 200
        seen = watched(client, gid)
        other = state(client, gid, tokens[1 - mover["seat"]])
        assert seen["history"] == other["history"]
        if any(s["move"] == "draw" for s in seen["history"]):
            assert all(s["drew"] is None for s in seen["history"])
            return
    raise AssertionError("no draw was made")


def test_a_finished_match_s_replay_is_there_for_spectators_too(client: TestClient) -> None:
    made = client.post("/api/games", json={"game": "luzak-line", "opponent": "easy",
                                           "first": "me", "options": {"target": 10}}).json()
    gid, token = made["id"], made["token"]
    r = client.get(f"/api/games/{gid}/replay")
    assert r.status_code == 409 and "once the match is over" in r.json()["error"]
    play_out(client, gid, (token,), random.Random(1))
    mine = client.get(f"/api/games/{gid}/replay", headers=auth(token)).json()
    assert client.get(f"/api/games/{gid}/replay").json() == mine
    # the record stays the seats'
    assert client.get(f"/api/games/{gid}/record").status_code == 401
    assert client.get("/api/games/nosuchgame123/replay").status_code == 404


# -- the WebSocket ---------------------------------------------------------------------------

def test_a_spectator_socket_streams_every_change_and_is_counted(client: TestClient) -> None:
    gid, t0, t1 = friend_game(client)
    with client.websocket_connect(f"/ws/games/{gid}") as ws0:
        ws0.send_text(json.dumps({"type": "hello", "token": t0}))
        first = ws0.receive_json()["state"]
        assert first["watching"] == 0
        with client.websocket_connect(f"/ws/games/{gid}") as spectator:
            spectator.send_text(WATCH)
            seen = spectator.receive_json()["state"]
            assert seen["seat"] is None and seen["watching"] == 1
            assert seen["connected"] == [True, False]
            assert ws0.receive_json()["state"]["watching"] == 1
            assert state(client, gid, t0)["watching"] == 1
            # a move reaches the spectator as it reaches the seats
            lead = first["legal"][0]
            assert move(client, gid, t0, lead["move"], 0).status_code == 200
            seen = spectator.receive_json()["state"]
            assert seen["version"] == 1 and seen["to_move"] == 1
            assert [t["tile"] for t in seen["table"]["tiles"]] == [lead["tile"]]
            assert seen["tiles"] == [11, 12] and seen["history"][0]["move"] == lead["move"]
            assert ws0.receive_json()["state"]["version"] == 1
            # a spectator can do nothing but ping: a move (even a legal one) is refused
            legal = state(client, gid, t1)["legal"][0]["move"]
            for text in (json.dumps({"type": "move", "move": legal, "version": 1}),
                         json.dumps({"type": "hello", "token": t1}), "not json"):
                spectator.send_text(text)
                error = spectator.receive_json()
                assert error["type"] == "error" and error["status"] == 403, error
            assert state(client, gid, t1)["version"] == 1
            spectator.send_text(json.dumps({"type": "ping"}))
            assert spectator.receive_json() == {"type": "pong"}
            # the other seat coming is news to the spectator
            with client.websocket_connect(f"/ws/games/{gid}") as ws1:
                ws1.send_text(json.dumps({"type": "hello", "token": t1}))
                assert ws1.receive_json()["state"]["watching"] == 1
                assert spectator.receive_json()["state"]["connected"] == [True, True]
                assert ws0.receive_json()["state"]["connected"] == [True, True]
            assert spectator.receive_json()["state"]["connected"] == [True, False]
            assert ws0.receive_json()["state"]["connected"] == [True, False]
        # the spectator left: the seat is told
        assert ws0.receive_json()["state"]["watching"] == 0
    assert service_of(client).watchers == 0


def test_a_spectator_s_hello_opens_no_seat(client: TestClient) -> None:
    gid, t0, _t1 = friend_game(client)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        # a token beside "watch" is not looked at: a spectator all the same
        ws.send_text(json.dumps({"type": "hello", "watch": True, "token": t0}))
        seen = ws.receive_json()["state"]
        assert seen["seat"] is None and seen["hand"] is None
        assert seen["connected"] == [False, False]
    for hello in ({"type": "hello", "watch": "yes"}, {"type": "hello", "watch": 1}):
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_text(json.dumps(hello))  # not a spectator's hello: a seat's, no token
            assert refused(ws)[1] == 4401
    with client.websocket_connect("/ws/games/nosuchgame123") as ws:
        ws.send_text(WATCH)
        error, code = refused(ws)
        assert code == 4404 and error["status"] == 4404


def test_spectators_of_a_computer_game_see_its_moves(client: TestClient) -> None:
    made = client.post("/api/games", json={"game": "luzak", "opponent": "easy",
                                           "first": "opponent"}).json()
    with client.websocket_connect(f"/ws/games/{made['id']}") as spectator:
        spectator.send_text(WATCH)
        seen = spectator.receive_json()["state"]
        assert seen["mode"] == "computer" and seen["connected"] == [False, True]
        while seen["version"] == 0:
            seen = spectator.receive_json()["state"]
        assert seen["version"] == 1 and len(seen["table"]["tiles"]) == 1


@pytest.mark.parametrize(("limits", "code", "words"), [
    (Limits(watchers_per_client=2), 4429, "your address is watching 2 games"),
    (Limits(watchers_per_game=2), 4409, "this game has 2 spectators"),
    (Limits(watchers_total=2), 1013, "the server has as many spectators"),
])
def test_spectators_past_a_limit_are_refused(tmp_path: Path, limits: Limits, code: int,
                                              words: str) -> None:
    with make_client(tmp_path / "games.sqlite3", limits) as client:
        service = service_of(client)
        gid, t0, t1 = friend_game(client)
        # the per-address limit counts over games; the others in one game
        other = friend_game(client)[0] if code == 4429 else gid
        with client.websocket_connect(f"/ws/games/{gid}") as a, \
                client.websocket_connect(f"/ws/games/{other}") as b:
            for ws in (a, b):
                ws.send_text(WATCH)
                assert ws.receive_json()["type"] == "state"
            with client.websocket_connect(f"/ws/games/{gid}") as c:
                c.send_text(WATCH)
                error, closed = refused(c)
                assert closed == code and error["status"] == code
                assert words in error["error"]
            assert service.watchers == 2
            # seats are never refused for spectators
            with client.websocket_connect(f"/ws/games/{gid}") as seat:
                seat.send_text(json.dumps({"type": "hello", "token": t1}))
                assert seat.receive_json()["state"]["watching"] == (1 if code == 4429 else 2)
        # once they have gone, a spectator is let in again
        assert service.watchers == 0
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_text(WATCH)
            assert ws.receive_json()["state"]["watching"] == 1
        assert state(client, gid, t0)["watching"] == 0


def test_an_expired_game_s_spectators_are_closed_and_uncounted(tmp_path: Path) -> None:
    clock = Clock()
    with make_client(tmp_path / "games.sqlite3", clock=clock) as client:
        service = service_of(client)
        gid, _t0, _t1 = friend_game(client)
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_text(WATCH)
            assert ws.receive_json()["type"] == "state"
            clock.now += 8 * DAY
            assert client.portal.call(service.expire) == 1  # type: ignore[union-attr]
            assert refused(ws)[1] == 4410
        assert service.watchers == 0 and not service.sockets.by_client


def test_limits_refuse_nonsense_spectator_bounds() -> None:
    for name in ("watchers_per_client", "watchers_per_game", "watchers_total"):
        with pytest.raises(ValueError, match=name):
            bad: dict[str, Any] = {name: 0}
            Limits(**bad)


def test_serve_flags_set_the_spectator_limits() -> None:
    from dominolab.cli.main import build_parser
    from dominolab.cli.serve import limits_of

    args = build_parser().parse_args(["serve", "--watchers-per-address", "3",
                                      "--watchers-per-game", "7"])
    limits = limits_of(args)
    assert (limits.watchers_per_client, limits.watchers_per_game) == (3, 7)
    assert limits_of(build_parser().parse_args(["serve"])) == Limits()
