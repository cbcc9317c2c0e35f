"""Canned messages during a game (docs/web.md, "Messages during a game"): a seat's phrase
from the fixed set reaches both seats and no spectator; anything else is refused with a 400
on a socket that stays open; a spectator may send none; the rate per seat holds with a 429
and the seconds to wait."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from dominolab.web.games.chat import PHRASES
from dominolab.web.limits import Limits
from test_web_metrics import scrape
from web_support import friend_game, seeded_app

#: the socket reads have no timeout of their own: this bounds each test
pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = seeded_app(tmp_path / "games.sqlite3", seed=7,
                     limits=Limits(messages_per_minute=1.0, messages_burst=3))
    # from this machine's own address: /metrics answers it (the refusals are counted there)
    with TestClient(app, client=("127.0.0.1", 50000)) as c:
        yield c


def hello(ws: Any, **fields: Any) -> None:
    ws.send_text(json.dumps({"type": "hello", **fields}))
    assert ws.receive_json()["type"] == "state"


def until_pong(ws: Any) -> list[dict[str, Any]]:
    """Every message but states up to the answer to a ping (all sent before it)."""
    ws.send_text('{"type": "ping"}')
    seen: list[dict[str, Any]] = []
    while (message := ws.receive_json())["type"] != "pong":
        if message["type"] != "state":
            seen.append(message)
    return seen


def told(ws: Any, n: int = 1) -> list[dict[str, Any]]:
    """The next ``n`` messages but states and pongs on ``ws``: what another socket's doing
    sends here is waited for (a ping's answer on this socket may come before it)."""
    seen: list[dict[str, Any]] = []
    while len(seen) < n:
        message = ws.receive_json()
        if message["type"] not in ("state", "pong"):
            seen.append(message)
    return seen


def test_a_phrase_reaches_both_seats_and_no_spectator(client: TestClient) -> None:
    gid, t0, t1 = friend_game(client)
    with client.websocket_connect(f"/ws/games/{gid}") as ws0, \
            client.websocket_connect(f"/ws/games/{gid}") as ws1, \
            client.websocket_connect(f"/ws/games/{gid}") as watcher:
        hello(ws0, token=t0)
        hello(ws1, token=t1)
        hello(watcher, watch=True)
        ws0.send_text(json.dumps({"type": "chat", "phrase": "good_luck"}))
        said = {"type": "chat", "seat": 0, "phrase": "good_luck"}
        assert told(ws0) == [said]  # the sender's own page shows the server's echo
        assert told(ws1) == [said]
        assert until_pong(watcher) == []
        # a spectator may send none
        watcher.send_text(json.dumps({"type": "chat", "phrase": "thanks"}))
        answer = until_pong(watcher)
        assert [m["status"] for m in answer] == [403]
        assert until_pong(ws0) == [] and until_pong(ws1) == []


@pytest.mark.parametrize("phrase", ["hello there", "", None, 3, ["thanks"], "THANKS",
                                    "x" * 1000, {"text": "hi"}])
def test_anything_but_the_set_is_refused_and_the_socket_kept(client: TestClient,
                                                             phrase: Any) -> None:
    gid, t0, t1 = friend_game(client)
    with client.websocket_connect(f"/ws/games/{gid}") as ws0, \
            client.websocket_connect(f"/ws/games/{gid}") as ws1:
        hello(ws0, token=t0)
        hello(ws1, token=t1)
        ws0.send_text(json.dumps({"type": "chat", "phrase": phrase}))
        [error] = until_pong(ws0)
        assert error["type"] == "error" and error["status"] == 400
        assert "good_luck" in error["error"] and len(error["error"]) < 200
        assert until_pong(ws1) == []
        # still open, and a phrase of the set goes through
        ws0.send_text(json.dumps({"type": "chat", "phrase": "thanks"}))
        assert told(ws1) == [{"type": "chat", "seat": 0, "phrase": "thanks"}]


def test_every_phrase_of_the_set_is_taken(client: TestClient) -> None:
    gid, t0, t1 = friend_game(client)
    assert PHRASES == ("good_luck", "well_played", "thanks", "good_game")
    with client.websocket_connect(f"/ws/games/{gid}") as ws1:
        hello(ws1, token=t1)
        for phrase in PHRASES[:3]:
            ws1.send_text(json.dumps({"type": "chat", "phrase": phrase}))
        assert [m["phrase"] for m in told(ws1, 3)] == list(PHRASES[:3])
    with client.websocket_connect(f"/ws/games/{gid}") as ws0:
        hello(ws0, token=t0)
        ws0.send_text(json.dumps({"type": "chat", "phrase": PHRASES[3]}))
        assert told(ws0) == [{"type": "chat", "seat": 0, "phrase": PHRASES[3]}]


def test_the_rate_per_seat_holds(client: TestClient) -> None:
    gid, t0, t1 = friend_game(client)
    with client.websocket_connect(f"/ws/games/{gid}") as ws0, \
            client.websocket_connect(f"/ws/games/{gid}") as ws1:
        hello(ws0, token=t0)
        hello(ws1, token=t1)
        for _ in range(4):
            ws0.send_text(json.dumps({"type": "chat", "phrase": "well_played"}))
        seen = told(ws0, 4)  # the echoes come from the game's broadcast: any order with the error
        assert sorted(m["type"] for m in seen) == ["chat", "chat", "chat", "error"]
        [refusal] = [m for m in seen if m["type"] == "error"]
        assert refusal["status"] == 429 and refusal["retry_after"] >= 1
        assert "too many messages" in refusal["error"]
        assert scrape(client)['dominolab_refused_total{kind="messages"}'] == 1
        assert [m["phrase"] for m in told(ws1, 3)] == ["well_played"] * 3
        # the other seat has a bucket of its own
        ws1.send_text(json.dumps({"type": "chat", "phrase": "thanks"}))
        assert told(ws0) == [{"type": "chat", "seat": 1, "phrase": "thanks"}]


def test_the_computer_reads_no_messages(client: TestClient) -> None:
    r = client.post("/api/games", json={"game": "luzak", "opponent": "easy", "first": "me"})
    assert r.status_code == 201, r.text
    made = r.json()
    with client.websocket_connect(f"/ws/games/{made['id']}") as ws:
        hello(ws, token=made["token"])
        ws.send_text(json.dumps({"type": "chat", "phrase": "good_luck"}))
        assert [m["status"] for m in until_pong(ws)] == [409]


def test_serve_sets_the_rate_of_messages() -> None:
    from dominolab.cli.main import build_parser
    from dominolab.cli.serve import limits_of

    args = build_parser().parse_args(["serve", "--messages-per-minute", "2"])
    assert limits_of(args).messages_per_minute == 2
    assert limits_of(build_parser().parse_args(["serve"])).messages_per_minute == \
        Limits().messages_per_minute
