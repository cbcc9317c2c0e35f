"""Bad input to the web app is a 4xx with a JSON error, never a 500 or a dead socket.

Hypothesis over the public contract of docs/web.md, through Starlette's test client: random
JSON bodies for creating games (any game names, options with huge numbers, floats, nested
lists, digits of other scripts), random moves and versions, raw bytes as bodies, random
Content-Type, Content-Length and Authorization headers, and random WebSocket messages
(hello and move). Every answer is below 500, and every 4xx is ``{"error", "status"}``; a
WebSocket is only ever closed with one of the documented codes, never 1011 (internal
error), and no server exception reaches the client.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from dominolab.players import Budget
from dominolab.web.edge.app import create_app
from dominolab.web.limits import Limits
from web_support import seeded_app

#: examples per property (more with the environment variable FUZZ_EXAMPLES, for a long run)
FUZZ = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "150")), deadline=None,
                derandomize=True, suppress_health_check=[HealthCheck.too_slow])

#: the close codes of docs/web.md, and a normal close
CLOSE_CODES = {1000, 1003, 1009, 1013, 4400, 4401, 4403, 4404, 4410, 4429}

#: JSON nested as deep as a 4 KiB body allows (far past what Python's parser takes)
DEPTH = 2000

OTHER_DIGITS = "\u00b2\u00b9\u0660\u0665\u0666\u06f5\u0966\u096b\uff10\uff15\uff16"

texts = st.one_of(
    st.text(max_size=20),
    st.text(alphabet=OTHER_DIGITS + "0123456@*eLR", min_size=1, max_size=8),
    st.from_regex(r"[0-7]{1,3}(@[0-9]{0,2}[wensLR]?)?\*?", fullmatch=True),
    st.sampled_from(["", "draw", "pass", "keep", "\u00b2\u00b9", "\u0666\u0665", "65",
                     "luzak", "widelec", "kwartety", "friend", "easy", "me", "lot", "wide"]),
)
#: whole numbers of every size a 4 KiB body can hold (a 4000-digit one included)
numbers = st.one_of(st.integers(min_value=-(10**40), max_value=10**40),
                    st.sampled_from([0, 1, 61, 10_000, 10_001, -1, 2**53, 2**63, 10**300,
                                     10**3900]))
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), numbers,
              st.floats(allow_nan=False, allow_infinity=False), texts),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(texts, inner, max_size=3)),
    max_leaves=5,
)
option_objects = st.dictionaries(
    st.one_of(st.sampled_from(["target", "short_ends_any_time", "luzak_scores_count",
                               "even_hands", "edge_double", "must_play_drawn",
                               "win_at_once", "short-ends-any-time"]), texts),
    json_values, max_size=4)
create_bodies = st.fixed_dictionaries({}, optional={
    "game": st.one_of(st.sampled_from(["luzak", "luzak-line", "widelec", "kwartety",
                                       "LUZAK", " widelec "]), json_values),
    "options": st.one_of(option_objects, json_values),
    "opponent": st.one_of(st.sampled_from(["easy", "friend"]), json_values),
    "first": st.one_of(st.just("me"), json_values),
    "layout": st.one_of(st.sampled_from(["wide", "narrow"]), json_values),
})
#: raw bodies: any bytes, deep nesting, huge numbers, JSON that is no object
raw_bodies = st.one_of(
    st.binary(max_size=100),
    st.integers(min_value=1, max_value=DEPTH).map(lambda n: b"[" * n + b"]" * n),
    st.integers(min_value=1, max_value=DEPTH // 5).map(
        lambda n: b'{"a":' * n + b"1" + b"}" * n),
    st.integers(min_value=1, max_value=4050).map(
        lambda n: b'{"game": "luzak", "options": {"target": ' + b"9" * n + b"}}"),
    st.sampled_from([b"", b"{}", b"null", b"[]", b"NaN", b'{"options": NaN}',
                     b'{"options": {"target": Infinity}}', b'{"options": {"target": 1e999}}',
                     b"\xef\xbb\xbf{}", b'{"game": "\xff"}', b"\x00" * 50]),
)
#: header values a client can send (printable Latin-1: http refuses line breaks)
header_values = st.one_of(
    st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xff,
                                   blacklist_characters="\x7f"), max_size=30),
    st.sampled_from(["\u00b2", "\u00b9\u00b2", "0", "-1", "99999999999999999999999",
                     "4096", "1" * 4000, " 12", "application/json", "application/json; x",
                     "Bearer ", "Bearer \u00b2", "bearer x y", "text/plain"]),
)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    path: Path = tmp_path_factory.mktemp("web-fuzz") / "games.sqlite3"
    # limits high enough that every example reaches the code under test, not the rate limit
    limits = Limits(games_per_minute=1e9, games_burst=10**9, seeks_per_minute=1e9,
                    seeks_burst=10**9)
    app = seeded_app(path, seed=4, hint_budget=Budget(worlds=100), limits=limits)
    with TestClient(app, raise_server_exceptions=True) as c:
        yield c


@pytest.fixture(scope="module")
def game(client: TestClient) -> tuple[str, str]:
    """A game against a friend that nobody joins, so it never changes unless seat 0 plays:
    (id, seat 0's token)."""
    r = client.post("/api/games", json={"game": "luzak", "opponent": "friend", "first": "me"})
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["token"]


def check(response: httpx.Response) -> None:
    """Below 500; a 4xx is the JSON ``{"error": sentence, "status": code}``."""
    assert response.status_code < 500, (response.status_code, response.text[:500])
    if response.status_code >= 400:
        body = response.json()
        assert isinstance(body, dict) and set(body) >= {"error", "status"}, body
        assert body["status"] == response.status_code
        assert isinstance(body["error"], str) and body["error"].strip()
        assert len(body["error"]) < 1000, "the error copies the input whole"


def _dumps(value: Any) -> bytes:
    """JSON of ``value`` (the numbers written out whatever their size)."""
    return json.dumps(value).encode()


@FUZZ
@given(body=create_bodies)
def test_fuzz_create_game_bodies(client: TestClient, body: dict[str, Any]) -> None:
    """POST /api/games with any body: 201 or a JSON 4xx (an option out of range is 422)."""
    r = client.post("/api/games", content=_dumps(body),
                    headers={"Content-Type": "application/json"})
    check(r)
    if r.status_code == 201:
        assert r.json()["state"]["target"] <= 10_000


@FUZZ
@given(body=raw_bodies, content_type=st.one_of(st.just("application/json"), header_values),
       length=st.one_of(st.none(), header_values))
def test_fuzz_create_game_raw_bodies_and_headers(client: TestClient, body: bytes,
                                                 content_type: str, length: str | None) -> None:
    """POST /api/games with raw bytes and any Content-Type and Content-Length."""
    headers = {"Content-Type": content_type}
    if length is not None:
        headers["Content-Length"] = length
    try:
        r = client.post("/api/games", content=body, headers=headers)
    except (httpx.LocalProtocolError, httpx.RemoteProtocolError, UnicodeEncodeError):
        return  # the client refuses to send it: nothing reaches the server
    check(r)


@FUZZ
@given(move=st.one_of(texts, json_values), version=st.one_of(st.just(0), json_values),
       layout=st.one_of(st.none(), json_values), token=st.one_of(st.none(), header_values))
def test_fuzz_moves(client: TestClient, game: tuple[str, str], move: Any, version: Any,
                    layout: Any, token: str | None) -> None:
    """POST /api/games/ID/moves with any move, version, layout and token."""
    gid, t0 = game
    body: dict[str, Any] = {"move": move, "version": version}
    if layout is not None:
        body["layout"] = layout
    headers = {"Content-Type": "application/json",
               "Authorization": f"Bearer {t0}" if token is None else token}
    try:
        r = client.post(f"/api/games/{gid}/moves", content=_dumps(body), headers=headers)
    except (httpx.LocalProtocolError, UnicodeEncodeError):
        return
    check(r)


@pytest.mark.parametrize("action", ["moves", "rematch"])
@FUZZ
@given(body=raw_bodies, content_type=header_values, game_id=st.one_of(st.none(), texts))
def test_fuzz_moves_raw(client: TestClient, game: tuple[str, str], action: str, body: bytes,
                        content_type: str, game_id: str | None) -> None:
    """POST /api/games/ID/moves (and /rematch) with raw bytes, any Content-Type, any id."""
    gid, t0 = game
    path = f"/api/games/{gid if game_id is None else game_id}/{action}"
    try:
        r = client.post(path, content=body, headers={"Content-Type": content_type,
                                                     "Authorization": f"Bearer {t0}"})
    except (httpx.LocalProtocolError, httpx.InvalidURL, UnicodeEncodeError):
        return
    if r.status_code == 404 and not r.headers.get("content-type", "").startswith(
            "application/json"):
        return  # a path that is no route at all (e.g. with a slash in the id)
    check(r)


@FUZZ
@given(game_name=texts, lang=texts)
def test_fuzz_guide_and_lessons(client: TestClient, game_name: str, lang: str) -> None:
    """GET the player's guide and the tutorial's lessons for any game and language: 200 or
    a JSON 404, never a 500."""
    for path in (f"/api/guide/{game_name}/{lang}", f"/api/guide/{lang}",
                 f"/api/lessons/{game_name}?layout={lang}"):
        try:
            r = client.get(path)
        except (httpx.LocalProtocolError, httpx.InvalidURL, UnicodeEncodeError):
            continue
        if r.status_code == 404 and not r.headers.get("content-type", "").startswith(
                "application/json"):
            continue  # a path that is no route at all (e.g. with a slash in it)
        check(r)


def _socket_messages(ws: Any, limit: int = 50) -> list[dict[str, Any]]:
    """Receive until the pong that answers the ping just sent (docs/web.md: it comes after
    everything sent before it), or until the server closes; at most ``limit`` messages."""
    seen: list[dict[str, Any]] = []
    for _ in range(limit):
        message = ws.receive_json()
        assert isinstance(message, dict) and "type" in message, message
        if message["type"] == "pong":
            return seen
        if message["type"] == "error":
            assert 400 <= int(message["status"]) < 500 or message["status"] in CLOSE_CODES, \
                message
        seen.append(message)
    pytest.fail("no pong after 50 messages")


hello_messages = st.one_of(
    texts,
    json_values.map(lambda v: json.dumps(v)),
    st.builds(lambda token, layout: json.dumps({"type": "hello", "token": token,
                                                "layout": layout}),
              st.one_of(texts, json_values), json_values),
    st.integers(min_value=1, max_value=DEPTH).map(lambda n: "[" * n + "]" * n),
)
move_messages = st.one_of(
    texts,
    json_values.map(lambda v: json.dumps(v)),
    st.builds(lambda move, version: json.dumps({"type": "move", "move": move,
                                                "version": version}),
              st.one_of(texts, json_values), st.one_of(st.just(0), json_values)),
    st.integers(min_value=1, max_value=DEPTH).map(lambda n: "[" * n + "]" * n),
    st.integers(min_value=4000, max_value=5000).map(lambda n: " " * n),
)


@pytest.mark.timeout(120)
@FUZZ
@given(hello=hello_messages)
def test_fuzz_websocket_hello(client: TestClient, game: tuple[str, str], hello: str) -> None:
    """Any first message: the state (a hello with the token) or a close with a documented
    code, never an internal error."""
    gid, _t0 = game
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_text(hello)
        try:
            first = ws.receive_json()
        except WebSocketDisconnect as closed:
            assert closed.code in CLOSE_CODES, closed.code
            return
        assert first["type"] in ("state", "error"), first
        if first["type"] == "error":
            assert first["status"] in CLOSE_CODES, first
            with pytest.raises(WebSocketDisconnect) as info:
                ws.receive_json()
            assert info.value.code in CLOSE_CODES


@pytest.mark.timeout(120)
@FUZZ
@given(messages=st.lists(move_messages, min_size=1, max_size=4))
def test_fuzz_websocket_moves(client: TestClient, game: tuple[str, str],
                              messages: list[str]) -> None:
    """After a good hello, any messages: each answered with an error or a state, then the
    ping's pong; the socket stays up unless it closes with a documented code."""
    gid, t0 = game
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": t0, "layout": "narrow"}))
        assert ws.receive_json()["type"] == "state"
        for text in messages:
            ws.send_text(text)
            ws.send_text(json.dumps({"type": "ping"}))
            try:
                _socket_messages(ws)
            except WebSocketDisconnect as closed:
                assert closed.code in CLOSE_CODES, closed.code
                return


# -- the lobby -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def player(client: TestClient) -> Iterator[str]:
    """A player's key, with a lobby socket open for the module (so seeks can be opened)."""
    r = client.post("/api/players", json={"name": "Fuzzer"})
    assert r.status_code == 201, r.text
    key: str = r.json()["key"]
    with client.websocket_connect("/ws/lobby") as ws:
        ws.send_json({"type": "hello", "player": key})
        assert ws.receive_json()["type"] == "welcome"
        yield key


seek_bodies = st.fixed_dictionaries({}, optional={
    "game": st.one_of(st.sampled_from(["luzak", "luzak-line", "widelec", "LUZAK"]),
                      json_values),
    "options": st.one_of(option_objects, json_values),
    "rated": st.one_of(st.booleans(), json_values),
    "move_seconds": st.one_of(st.sampled_from([30, 120, 600, 29, 601]), numbers, json_values),
    "conn": st.one_of(texts, json_values),
    "layout": json_values,
})


@FUZZ
@given(path=st.sampled_from(["/api/seeks", "/api/quick", "/api/seeks/SEEK/accept"]),
       body=st.one_of(seek_bodies, json_values), key=st.one_of(st.none(), header_values),
       seek_id=texts)
def test_fuzz_lobby_routes(client: TestClient, player: str, path: str, body: Any,
                           key: str | None, seek_id: str) -> None:
    """POST /api/seeks, /api/quick and /api/seeks/ID/accept with any body, key and id; and
    DELETE /api/seeks/ID: 2xx or a JSON 4xx."""
    headers = {"Content-Type": "application/json", "X-Player-Key": player if key is None
               else key}
    try:
        r = client.post(path.replace("SEEK", seek_id), content=_dumps(body), headers=headers)
    except (httpx.LocalProtocolError, httpx.InvalidURL, UnicodeEncodeError):
        return
    if r.status_code == 404 and not r.headers.get("content-type", "").startswith(
            "application/json"):
        return  # a path that is no route at all (e.g. with a slash in the id)
    check(r)
    made = r.json() if r.status_code == 201 else {}
    seek = made if path == "/api/seeks" else made.get("seek")
    if seek:
        # keep room for the next example's seek (a player has at most a few open)
        check(client.delete(f"/api/seeks/{seek['id']}", headers=headers))
    try:
        r = client.delete(f"/api/seeks/{seek_id}", headers=headers)
    except (httpx.LocalProtocolError, httpx.InvalidURL, UnicodeEncodeError):
        return
    if r.status_code != 404 or r.headers.get("content-type", "").startswith(
            "application/json"):
        check(r)


lobby_hellos = st.one_of(
    texts,
    json_values.map(lambda v: json.dumps(v)),
    st.builds(lambda key: json.dumps({"type": "hello", "player": key}),
              st.one_of(texts, json_values)),
    st.integers(min_value=1, max_value=DEPTH).map(lambda n: "[" * n + "]" * n),
)


@pytest.mark.timeout(120)
@FUZZ
@given(hello=lobby_hellos, messages=st.lists(move_messages, max_size=3))
def test_fuzz_lobby_socket(client: TestClient, hello: str, messages: list[str]) -> None:
    """Any hello, then any messages: the lobby, an error, or a close with a documented code;
    after a good hello each message is answered before the ping's pong."""
    with client.websocket_connect("/ws/lobby") as ws:
        ws.send_text(hello)
        try:
            first = ws.receive_json()
        except WebSocketDisconnect as closed:
            assert closed.code in CLOSE_CODES, closed.code
            return
        if first["type"] == "error":
            assert first["status"] in CLOSE_CODES, first
            with pytest.raises(WebSocketDisconnect) as info:
                ws.receive_json()
            assert info.value.code in CLOSE_CODES
            return
        assert first["type"] == "welcome", first
        assert ws.receive_json()["type"] == "lobby"
        for text in messages:
            ws.send_text(text)
            ws.send_text(json.dumps({"type": "ping"}))
            try:
                _socket_messages(ws)
            except WebSocketDisconnect as closed:
                assert closed.code in CLOSE_CODES, closed.code
                return


# -- failures the properties above found, each fixed at its cause -------------------------
# Each is an exact input that gives a 500 or kills the socket today; strict, so that the fix
# shows as an unexpected pass and the property's strategy above can be widened again.

DEEP = "[" * 1500 + "]" * 1500  # 3000 bytes, inside the 4 KiB bound, beyond json's recursion


@pytest.fixture
def fresh_client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(tmp_path / "games.sqlite3", computer_delay=0,
                     hint_budget=Budget(worlds=100), seeds=lambda: 7)
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize("route", ["/api/games", "/api/games/ID/moves"])
def test_deep_json_body_is_a_400(fresh_client: TestClient, route: str) -> None:
    made = fresh_client.post("/api/games", json={"game": "luzak", "opponent": "friend"})
    assert made.status_code == 201, made.text
    path = route.replace("ID", made.json()["id"])
    r = fresh_client.post(path, content=DEEP.encode(),
                          headers={"Content-Type": "application/json",
                                   "Authorization": f"Bearer {made.json()['token']}"})
    assert r.status_code == 400
    check(r)


def test_huge_content_length_is_a_413(fresh_client: TestClient) -> None:
    r = fresh_client.post("/api/games", content=b"{}",
                          headers={"Content-Type": "application/json",
                                   "Content-Length": "1" * 5000})
    assert r.status_code == 413
    check(r)


@pytest.mark.timeout(60)
def test_deep_json_hello_closes_4400(tmp_path: Path) -> None:
    made_app = create_app(tmp_path / "games.sqlite3", computer_delay=0,
                          hint_budget=Budget(worlds=100), seeds=lambda: 7)
    with TestClient(made_app) as c:
        made = c.post("/api/games", json={"game": "luzak", "opponent": "friend"})
        assert made.status_code == 201, made.text
        with c.websocket_connect(f"/ws/games/{made.json()['id']}") as ws:
            ws.send_text(DEEP)
            assert ws.receive_json()["status"] == 4400
            with pytest.raises(WebSocketDisconnect) as info:
                ws.receive_json()
            assert info.value.code == 4400
