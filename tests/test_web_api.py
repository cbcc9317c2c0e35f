"""The web app's HTTP API and WebSocket (docs/web.md), through Starlette's test client: the
server is authoritative, tokens are required, stale, illegal and malformed input is refused
with a clear 4xx and changes nothing, and whole matches can be played, recorded and
replayed."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from dominolab.core import replay
from dominolab.players import Budget
from dominolab.web.edge.app import MAX_BODY
from dominolab.web.storage.store import SCHEMA_VERSION, Store
from web_support import auth, friend_game, play_out, seeded_app

GAMES = ("luzak", "luzak-line", "widelec")

#: every test here waits on sockets whose reads have no timeout of their own: this bounds
#: each test, failing it with its stack, well inside the suite's limit
pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = seeded_app(tmp_path / "games.sqlite3", seed=4, hint_budget=Budget(worlds=100))
    with TestClient(app) as c:
        yield c


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    body.setdefault("first", "me")
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def state(client: TestClient, gid: str, token: str) -> dict[str, Any]:
    r = client.get(f"/api/games/{gid}", headers=auth(token))
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def move(client: TestClient, gid: str, token: str, text: Any, version: Any) -> Any:
    return client.post(f"/api/games/{gid}/moves", headers=auth(token),
                       json={"move": text, "version": version})


# -- meta, pages, rules ----------------------------------------------------------------------

def test_meta_lists_games_options_and_levels(client: TestClient) -> None:
    meta = client.get("/api/meta").json()
    assert [g["name"] for g in meta["games"]] == list(GAMES)
    assert meta["levels"] == ["easy", "medium", "hard"]
    luzak = meta["games"][0]["options"]
    target = next(o for o in luzak if o["name"] == "target")
    assert target["type"] == "int" and target["default"] == 61
    assert (target["min"], target["max"]) == (1, 10_000)
    assert target["help"].startswith("points that end the match")
    assert any(o["name"] == "short_ends_any_time" and o["type"] == "bool" for o in luzak)


@pytest.mark.parametrize("path", ["/", "/game/abcdefgh123", "/rules", "/replay/abcdefgh123",
                                  "/lobby"])
def test_page_is_served_for_every_route(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 200
    assert "<html" in r.text.lower()
    assert "script-src 'self'" in r.headers["content-security-policy"]


def test_rules_in_english_and_polish(client: TestClient) -> None:
    en = client.get("/api/rules/en").json()
    assert en["lang"] == "en" and "<h1>The rules, made exact</h1>" in en["html"]
    assert "spinner" in en["html"] and "<table>" in en["html"] and "<!--" not in en["html"]
    pl = client.get("/api/rules/pl").json()
    assert pl["lang"] == "pl" and "luzaka" in pl["html"] and "Kwartety" in pl["html"]
    assert "<li>" in pl["html"]
    r = client.get("/api/rules/de")
    assert r.status_code == 404 and "Polish" in r.json()["error"]


def test_unknown_api_address_is_json_404(client: TestClient) -> None:
    r = client.get("/api/nothing")
    assert r.status_code == 404 and r.json()["status"] == 404


# -- creating games --------------------------------------------------------------------------

@pytest.mark.parametrize(("body", "status", "words"), [
    ({"game": "chess"}, 422, "no game 'chess'"),
    ({"game": "luzak", "options": {"target": 0}}, 422, "target must be a positive"),
    ({"game": "luzak", "options": {"spinners": True}}, 422, "has no option spinners"),
    ({"game": "luzak", "options": {"even_hands": "maybe"}}, 422, "yes or no"),
    ({"game": "luzak", "options": 5}, 400, "options must be an object"),
    ({"game": "luzak", "opponent": "god"}, 422, "no opponent 'god'"),
    ({"game": "luzak", "first": "second"}, 422, "first must be one of"),
    ({"game": 7}, 400, "game must be a text"),
])
def test_bad_new_games_are_refused(client: TestClient, body: dict[str, Any], status: int,
                                   words: str) -> None:
    r = client.post("/api/games", json=body)
    assert r.status_code == status, r.text
    assert words in r.json()["error"]


def test_malformed_and_oversized_bodies_are_refused(client: TestClient) -> None:
    r = client.post("/api/games", content=b"{not json", headers={"Content-Type":
                                                                  "application/json"})
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]
    r = client.post("/api/games", json=[1, 2])
    assert r.status_code == 400 and "JSON object" in r.json()["error"]
    r = client.post("/api/games", content=b"game=luzak",
                    headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 415
    big = json.dumps({"game": "luzak", "pad": "x" * MAX_BODY}).encode()
    r = client.post("/api/games", content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and "larger than" in r.json()["error"]


def test_created_game_is_stored_with_hashed_tokens(client: TestClient, tmp_path: Path) -> None:
    made = create(client, game="widelec", opponent="easy", options={"target": 30})
    assert made["state"]["options"]["target"] == 30 and made["invite"] is None
    store = Store(tmp_path / "games.sqlite3")
    assert store.version == SCHEMA_VERSION
    loaded = store.load_game(made["id"])
    assert loaded is not None
    row, _moves = loaded
    assert made["token"] not in row.token_hashes and len(row.token_hashes[0]) == 64


# -- tokens ----------------------------------------------------------------------------------

def test_state_needs_the_seats_token(client: TestClient) -> None:
    gid, t0, t1 = friend_game(client)
    assert client.get(f"/api/games/{gid}").status_code == 401
    r = client.get(f"/api/games/{gid}", headers=auth("not-a-token"))
    assert r.status_code == 403 and "not a seat" in r.json()["error"]
    assert state(client, gid, t0)["seat"] == 0
    assert state(client, gid, t1)["seat"] == 1
    other_gid, o0, _ = friend_game(client)
    assert client.get(f"/api/games/{gid}", headers=auth(o0)).status_code == 403
    assert client.get("/api/games/nosuchgame123", headers=auth(t0)).status_code == 404
    assert client.get("/api/games/bad!id", headers=auth(t0)).status_code == 404
    assert other_gid != gid


def test_the_computers_seat_cannot_be_taken(client: TestClient) -> None:
    made = create(client, game="luzak", opponent="easy")
    r = client.get(f"/api/games/{made['id']}", headers=auth(made["token"] + "x"))
    assert r.status_code == 403


# -- moves -----------------------------------------------------------------------------------

def test_refused_moves_change_nothing(client: TestClient) -> None:
    gid, t0, t1 = friend_game(client)
    before = state(client, gid, t0)
    assert before["to_move"] == 0 and before["version"] == 0
    lead = before["legal"][0]["move"]
    refusals = [
        (t1, lead, 0, 409, "not your turn"),           # the other seat's token
        (t0, lead, 3, 409, "moved on"),                # a stale or future version
        (t0, "99", 0, 422, "is not a move"),              # not notation
        (t0, "draw", 0, 422, "not legal"),             # no drawing in Luzak
        (t0, "", 0, 400, "notation"),
        (t0, 54, 0, 400, "notation"),
        (t0, lead, "0", 400, "version"),
        (t0, lead, None, 400, "version"),
        (t0, "x" * 100, 0, 400, "short text"),
    ]
    for token, text, version, status, words in refusals:
        r = move(client, gid, token, text, version)
        assert r.status_code == status, (text, r.text)
        assert words in r.json()["error"], (text, r.json())
        assert state(client, gid, t0) == before
    hidden = [t for t in state(client, gid, t1)["hand"]]
    r = move(client, gid, t0, hidden[0], 0)  # a tile seat 0 does not hold
    assert r.status_code == 422 and state(client, gid, t0) == before
    assert move(client, gid, "nope", lead, 0).status_code == 403
    r = move(client, gid, t0, lead, 0)
    assert r.status_code == 200 and r.json()["version"] == 1
    r = move(client, gid, t0, lead, 0)  # the same move again: stale
    assert r.status_code == 409


def test_move_body_must_be_json(client: TestClient) -> None:
    gid, t0, _ = friend_game(client)
    r = client.post(f"/api/games/{gid}/moves", headers={**auth(t0), "Content-Type":
                                                        "application/json"}, content=b"[")
    assert r.status_code == 400
    r = client.post(f"/api/games/{gid}/moves", headers={**auth(t0), "Content-Length": "99999",
                                                        "Content-Type": "application/json"},
                    content=b"{}")
    assert r.status_code in (400, 413)


@pytest.mark.parametrize("game", GAMES)
def test_whole_match_against_the_computer_then_record_and_replay(client: TestClient,
                                                                  game: str) -> None:
    made = create(client, game=game, opponent="easy", options={"target": 30})
    gid, token = made["id"], made["token"]
    for path in ("record", "replay"):
        r = client.get(f"/api/games/{gid}/{path}", headers=auth(token))
        assert r.status_code == 409 and "once the match is over" in r.json()["error"]
    final = play_out(client, gid, (token,), random.Random(1))
    assert final["match_result"]["hands"] == final["hand_number"]
    assert final["legal"] == [] and final["to_move"] is None
    r = client.get(f"/api/games/{gid}/record", headers=auth(token))
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    rebuilt = replay(r.json())
    assert list(rebuilt.totals) == final["totals"]
    frames = client.get(f"/api/games/{gid}/replay", headers=auth(token)).json()["frames"]
    moves = sum(len(h["moves"]) for h in r.json()["hands"])
    assert len(frames) == moves + final["hand_number"]
    assert frames[-1]["totals"] == final["totals"]
    assert frames[-1]["result"] is not None and frames[0]["step"] is None
    assert sum(len(h) for h in frames[0]["hands"]) == 2 * {"luzak": 12, "luzak-line": 12,
                                                           "widelec": 7}[game]


def test_friend_match_played_to_the_end(client: TestClient) -> None:
    gid, t0, t1 = friend_game(client, "luzak-line")
    final = play_out(client, gid, (t0, t1), random.Random(2))
    assert final["match_result"]["end"] == "target"
    assert state(client, gid, t1)["match_result"] == final["match_result"]
    r = move(client, gid, t0, "pass", final["version"])
    assert r.status_code == 409 and "over" in r.json()["error"]


def test_hint_rates_every_legal_move(client: TestClient) -> None:
    gid, t0, t1 = friend_game(client)
    st = state(client, gid, t0)
    hint = client.post(f"/api/games/{gid}/hint", headers=auth(t0), json={}).json()
    assert hint["version"] == 0
    assert {h["move"] for h in hint["moves"]} == {m["move"] for m in st["legal"]}
    ranks = [(h["win"], h["margin"]) for h in hint["moves"]]
    assert ranks == sorted(ranks, reverse=True) and all(0 <= w <= 1 for w, _ in ranks)
    r = client.post(f"/api/games/{gid}/hint", headers=auth(t1), json={})
    assert r.status_code == 409 and "your turn" in r.json()["error"]


# -- the WebSocket ---------------------------------------------------------------------------

def hello(ws: Any, token: str) -> dict[str, Any]:
    ws.send_text(json.dumps({"type": "hello", "token": token, "layout": "narrow"}))
    message: dict[str, Any] = ws.receive_json()
    assert message["type"] == "state", message
    return message


def test_websocket_pushes_moves_to_the_other_seat(client: TestClient) -> None:
    gid, t0, t1 = friend_game(client)
    with client.websocket_connect(f"/ws/games/{gid}") as ws0:
        first = hello(ws0, t0)["state"]
        assert first["connected"] == [True, False]
        with client.websocket_connect(f"/ws/games/{gid}") as ws1:
            st1 = hello(ws1, t1)["state"]
            assert st1["seat"] == 1 and st1["connected"] == [True, True]
            assert ws0.receive_json()["state"]["connected"] == [True, True]
            lead = first["legal"][0]
            ws0.send_text(json.dumps({"type": "move", "move": lead["move"], "version": 0}))
            seen1 = ws1.receive_json()["state"]
            seen0 = ws0.receive_json()["state"]
            assert seen1["version"] == seen0["version"] == 1
            assert [t["tile"] for t in seen1["table"]["tiles"]] == [lead["tile"]]
            assert seen1["to_move"] == 1 and seen1["legal"]
            # errors come back to the sender only, and change nothing
            ws0.send_text(json.dumps({"type": "move", "move": "00", "version": 1}))
            err = ws0.receive_json()
            assert err["type"] == "error" and err["status"] == 409
            ws0.send_text("not json")
            assert ws0.receive_json()["status"] == 400
            ws0.send_text(json.dumps({"type": "shout"}))
            assert ws0.receive_json()["status"] == 400
            # the move over HTTP reaches both sockets as well
            r = move(client, gid, t1, seen1["legal"][0]["move"], 1)
            assert r.status_code == 200
            assert ws0.receive_json()["state"]["version"] == 2
            assert ws1.receive_json()["state"]["version"] == 2
        assert ws0.receive_json()["state"]["connected"] == [True, False]


@pytest.mark.parametrize(("hello_text", "code"), [
    ('{"type": "hello", "token": "wrong"}', 4401),
    ('{"type": "hello"}', 4401),
    ('{"type": "move"}', 4400),
    ("garbage", 4400),
])
def test_websocket_refuses_a_bad_hello(client: TestClient, hello_text: str, code: int) -> None:
    gid, _t0, _t1 = friend_game(client)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_text(hello_text)
        assert ws.receive_json()["type"] == "error"
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_json()
        assert info.value.code == code


def test_websocket_unknown_game_and_oversized_message(client: TestClient) -> None:
    with client.websocket_connect("/ws/games/nosuchgame123") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": "x"}))
        assert ws.receive_json()["status"] == 4404
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_json()
        assert info.value.code == 4404
    gid, t0, _t1 = friend_game(client)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        hello(ws, t0)
        ws.send_text(json.dumps({"type": "move", "move": "x" * (MAX_BODY + 10)}))
        assert ws.receive_json()["type"] == "error"
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_json()
        assert info.value.code == 1009


def test_reconnecting_rejoins_the_same_seat(client: TestClient) -> None:
    gid, t0, t1 = friend_game(client)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        st = hello(ws, t1)["state"]
    assert st["seat"] == 1
    r = move(client, gid, t0, state(client, gid, t0)["legal"][0]["move"], 0)
    assert r.status_code == 200
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        again = hello(ws, t1)["state"]
    assert again["seat"] == 1 and again["version"] == 1 and again["hand"] == st["hand"]


def test_idle_games_leave_memory_and_come_back_unchanged(client: TestClient) -> None:
    service = client.app.state.service  # type: ignore[attr-defined]
    service.registry.max_live = 2
    gid, t0, _t1 = friend_game(client)
    r = move(client, gid, t0, state(client, gid, t0)["legal"][0]["move"], 0)
    before = r.json()
    friend_game(client)
    friend_game(client)
    assert gid not in service.games and len(service.games) == 2
    assert state(client, gid, t0) == before  # rebuilt from the database
