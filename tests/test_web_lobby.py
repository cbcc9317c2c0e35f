"""The lobby (issue 15, item 2; docs/web.md, "The lobby", "Clocks"): open seeks that other
players accept, quick pairing, the lobby's WebSocket, and the clock of a lobby match.

Time is the app's test clock (``create_app(clock=...)``), moved on by hand; every wait on a
socket is for a message the server is bound to send, bounded by a message count and by the
test's timeout."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from threading import Barrier
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from dominolab.web.community.lobby import Lobby
from dominolab.web.edge.app import MAX_BODY
from dominolab.web.edge.process import ServerProcess
from dominolab.web.games.clocks import CLOCK_GRACE, MOVE_SECONDS
from dominolab.web.games.live import seat_token, token_hash
from dominolab.web.games.service import GameService
from dominolab.web.limits import Limits
from dominolab.web.storage.store import GameRow, PlayerRef, PlayerRow, SeekRow, Store
from players_support import register
from rawsocket import call, lobby_hello
from web_support import (
    START,
    Clock,
    as_player,
    auth,
    database_at,
    on_loop,
    seeded_app,
    service_of,
)

pytestmark = pytest.mark.timeout(90)

@pytest.fixture
def clock() -> Clock:
    return Clock()


def make_app(path: Path, clock: Clock, **kw: Any) -> Any:
    return seeded_app(path, seed=15, clock=clock, **kw)


@pytest.fixture
def client(any_db: str, clock: Clock) -> Iterator[TestClient]:
    """The lobby on each backend: an SQLite file, and PostgreSQL (where several server
    processes share it)."""
    with TestClient(make_app(any_db, clock)) as c:  # type: ignore[arg-type]
        yield c


def until(ws: Any, wanted: Callable[[dict[str, Any]], bool], limit: int = 30,
          seen: list[str] | None = None) -> dict[str, Any]:
    """The first message that is ``wanted`` (each text also kept in ``seen``)."""
    for _ in range(limit):
        text = ws.receive_text()
        if seen is not None:
            seen.append(text)
        message: dict[str, Any] = json.loads(text)
        if wanted(message):
            return message
    raise AssertionError(f"no such message in {limit}")


def lobby_with(seeks: int | None = None, live: int | None = None
               ) -> Callable[[dict[str, Any]], bool]:
    def wanted(m: dict[str, Any]) -> bool:
        return m["type"] == "lobby" and (seeks is None or len(m["seeks"]) == seeks) and \
            (live is None or len(m["live"]) == live)
    return wanted


@contextmanager
def lobby_socket(client: TestClient, player: dict[str, Any] | None = None,
                 seen: list[str] | None = None) -> Iterator[tuple[Any, dict[str, Any]]]:
    """A lobby socket said hello (as ``player``, or anonymous): it and its welcome."""
    with client.websocket_connect("/ws/lobby") as ws:
        ws.send_json({"type": "hello", "player": None if player is None else player["key"]})
        welcome = until(ws, lambda m: m["type"] == "welcome", seen=seen)
        until(ws, lobby_with(), seen=seen)
        yield ws, welcome


def open_seek(client: TestClient, player: dict[str, Any], **body: Any) -> dict[str, Any]:
    r = client.post("/api/seeks", json={"game": "luzak", **body}, headers=as_player(player["key"]))
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def state(client: TestClient, gid: str, token: str) -> dict[str, Any]:
    r = client.get(f"/api/games/{gid}", headers=auth(token))
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def lobby_of(client: TestClient) -> Lobby:
    lobby: Lobby = client.app.state.lobby  # type: ignore[attr-defined]
    return lobby


# -- seeks -----------------------------------------------------------------------------------

def test_a_seek_is_listed_accepted_and_both_players_get_their_seats(client: TestClient,
                                                                    clock: Clock) -> None:
    ala, ola = register(client, "Ala"), register(client, "Ola")
    seen: list[str] = []
    with lobby_socket(client, ala, seen) as (ws, welcome):
        assert welcome["player"] == {"id": ala["id"], "name": "Ala"}
        seek = open_seek(client, ala, options={"target": 31}, move_seconds=60,
                         conn=welcome["conn"])
        assert seek["player"] == {"id": ala["id"], "name": "Ala"}
        assert (seek["game"], seek["rated"], seek["move_seconds"]) == ("luzak", False, 60)
        assert seek["options"]["target"] == 31
        shown = until(ws, lobby_with(seeks=1), seen=seen)
        assert shown["seeks"] == [seek] and shown["live"] == []
        assert client.get("/api/seeks").json() == {"seeks": [seek], "live": []}
        # you cannot accept your own seek
        r = client.post(f"/api/seeks/{seek['id']}/accept", json={}, headers=as_player(ala["key"]))
        assert r.status_code == 409 and "own" in r.json()["error"]

        clock.now += 5
        r = client.post(f"/api/seeks/{seek['id']}/accept", json={}, headers=as_player(ola["key"]))
        assert r.status_code == 201, r.text
        joined = r.json()
        assert joined["seat"] == 1
        st = joined["state"]
        both = [{"id": ala["id"], "name": "Ala"}, {"id": ola["id"], "name": "Ola"}]
        assert (st["mode"], st["players"], st["move_seconds"]) == ("lobby", both, 60)
        assert st["deadline"] == START + 5 + 60 and st["options"]["target"] == 31
        # the creator is told over the lobby socket: the game, the seat and its token
        matched = until(ws, lambda m: m["type"] == "matched", seen=seen)
        assert set(matched) == {"type", "game", "seat", "seek", "token"}
        assert (matched["game"], matched["seat"], matched["seek"]) == \
            (joined["id"], 0, seek["id"])
        assert matched["token"] == seat_token(ala["key"], seek["id"])
        mine = state(client, joined["id"], matched["token"])
        assert mine["seat"] == 0 and mine["players"] == both
        assert state(client, joined["id"], joined["token"])["seat"] == 1
        # the lobby now lists the match, with both names and the score (sent before the
        # creator was told)
        shown = [json.loads(t) for t in seen if '"type":"lobby"' in t][-1]
        assert shown["seeks"] == []
        assert shown["live"] == [{"id": joined["id"], "game": "luzak", "players": both,
                                  "totals": [0, 0], "rated": False, "move_seconds": 60}]
        # a later accept came second
        ela = register(client, "Ela")
        r = client.post(f"/api/seeks/{seek['id']}/accept", json={}, headers=as_player(ela["key"]))
        assert r.status_code == 409 and "first" in r.json()["error"]
    # no token, nor a token's hash, ever went out in a lobby message (only in "matched")
    hashes = (token_hash(matched["token"]), token_hash(joined["token"]))
    for text in seen:
        if json.loads(text)["type"] != "matched":
            for secret in (matched["token"], joined["token"], *hashes, ala["key"]):
                assert secret not in text
    # there are no hints against a person from the lobby
    r = client.post(f"/api/games/{joined['id']}/hint", json={}, headers=auth(joined["token"]))
    assert r.status_code == 403


def test_a_seek_is_cancelled_by_its_creator_only(client: TestClient) -> None:
    ala, ola = register(client, "Ala"), register(client, "Ola")
    with lobby_socket(client, ala):
        seek = open_seek(client, ala)
        path = f"/api/seeks/{seek['id']}"
        assert client.delete(path).status_code == 401
        assert client.delete(path, headers=as_player(ola["key"])).status_code == 403
        r = client.delete(path, headers=as_player(ala["key"]))
        assert r.status_code == 200 and r.json() == {"id": seek["id"], "cancelled": True}
        assert client.delete(path, headers=as_player(ala["key"])).status_code == 404
        assert client.post(f"{path}/accept", json={},
                           headers=as_player(ola["key"])).status_code == 404
        assert client.get("/api/seeks").json()["seeks"] == []


def test_seeks_are_checked_and_limited(tmp_path: Path, clock: Clock) -> None:
    limits = Limits(seeks_per_minute=1, seeks_burst=5, open_seeks_per_player=2)
    with TestClient(make_app(tmp_path / "g.sqlite3", clock, limits=limits)) as client:
        ala = register(client, "Ala")

        def post(body: dict[str, Any], **kw: Any) -> Any:
            return client.post("/api/seeks", json=body, **kw)

        # a seek needs a player, and the player's lobby page open
        assert post({"game": "luzak"}).status_code == 401
        assert post({"game": "luzak"}, headers={"X-Player-Key": "nobodys"}).status_code == 401
        r = post({"game": "luzak"}, headers=as_player(ala["key"]))
        assert r.status_code == 409 and "lobby" in r.json()["error"]
        with lobby_socket(client, ala):
            cases: list[tuple[dict[str, Any], int, str]] = [
                ({"game": "chess"}, 422, "no game"),
                ({"game": 7}, 400, "text"),
                ({"game": "luzak", "options": {"target": 0}}, 422, "target"),
                ({"game": "luzak", "options": {"target": 31}, "rated": True}, 422, "default"),
                ({"game": "luzak", "rated": "yes"}, 400, "rated"),
                ({"game": "luzak", "move_seconds": 29}, 422, "30 to 600"),
                ({"game": "luzak", "move_seconds": 601}, 422, "30 to 600"),
                ({"game": "luzak", "move_seconds": True}, 422, "30 to 600"),
                ({"game": "luzak", "conn": "../x"}, 400, "conn"),
            ]
            for body, status, words in cases:
                r = post(body, headers=as_player(ala["key"]))
                assert r.status_code == status and words in r.json()["error"], (body, r.text)
            # a rated seek with the game's default options, and the default clock
            made = open_seek(client, ala, game="widelec", rated=True)
            assert made["rated"] and made["move_seconds"] == MOVE_SECONDS
            open_seek(client, ala)
            r = post({"game": "luzak"}, headers=as_player(ala["key"]))
            assert r.status_code == 409 and "2 open seeks" in r.json()["error"]
            # and the address's bucket runs dry: five asked the store (the two 409s too),
            # the checked refusals above cost nothing
            client.delete(f"/api/seeks/{made['id']}", headers=as_player(ala["key"]))
            open_seek(client, ala)
            r = post({"game": "luzak"}, headers=as_player(ala["key"]))
            assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1


def test_a_seek_goes_when_its_creators_lobby_socket_closes(client: TestClient) -> None:
    ala, ola = register(client, "Ala"), register(client, "Ola")
    with lobby_socket(client) as (watcher, welcome):
        assert welcome["player"] is None
        with lobby_socket(client, ala):
            seek = open_seek(client, ala)
            until(watcher, lobby_with(seeks=1))
        # the creator left: the watcher sees the seek go, and nobody can accept it
        until(watcher, lobby_with(seeks=0))
        r = client.post(f"/api/seeks/{seek['id']}/accept", json={}, headers=as_player(ola["key"]))
        assert r.status_code == 404
        # an anonymous watcher cannot seek
        assert client.post("/api/seeks", json={"game": "luzak"}).status_code == 401


def test_the_seeks_of_a_server_process_that_died_are_swept(client: TestClient,
                                                           clock: Clock) -> None:
    """Another process held Ala's lobby socket and died: it stops saying it is alive, and
    this process's sweep deletes the seek; this process's own sockets are kept."""
    ala, ola = register(client, "Ala"), register(client, "Ola")
    store = service_of(client).store.sync
    store.open_lobby_socket("deadsocket1", ala["id"], "deadserver")
    key_hash = token_hash(seat_token(ala["key"], "deadseek01"))
    made = store.create_seek(SeekRow("deadseek01", PlayerRef(ala["id"], "Ala"), "", "luzak",
                                     {}, False, 120, key_hash, clock.now), 3)
    assert isinstance(made, SeekRow) and made.socket == "deadsocket1"
    with lobby_socket(client, ola) as (ws, _welcome):
        open_seek(client, ola)
        until(ws, lobby_with(seeks=2))
        clock.now += Limits().lobby_socket_timeout - 1
        on_loop(client, lobby_of(client).sweep)
        assert len(client.get("/api/seeks").json()["seeks"]) == 2
        clock.now += 2
        on_loop(client, lobby_of(client).sweep)
        shown = until(ws, lobby_with(seeks=1))
        assert shown["seeks"][0]["player"]["name"] == "Ola"


def test_two_accepts_at_once_make_one_game(client: TestClient, any_db: str) -> None:
    ala, ola, ela = (register(client, n) for n in ("Ala", "Ola", "Ela"))
    with lobby_socket(client, ala):
        seek = open_seek(client, ala)
        barrier = Barrier(2)

        def accept(who: dict[str, Any]) -> int:
            barrier.wait(10)
            return client.post(f"/api/seeks/{seek['id']}/accept", json={},
                               headers=as_player(who["key"])).status_code

        with ThreadPoolExecutor(2) as pool:
            statuses = sorted(pool.map(accept, (ola, ela)))
    assert statuses == [201, 409]
    assert Store(any_db).count_games() == 1


def test_two_processes_accepting_at_once_make_one_game(tmp_path: Path) -> None:
    """The same race between two connections to one database (two server processes),
    each accept in its own thread, started together."""
    path = tmp_path / "shared.sqlite3"
    stores = [Store(path), Store(path)]
    for i, name in enumerate(("Ala", "Ola", "Ela")):
        stores[0].create_player(PlayerRow(f"player{i:03}", name, f"k{i}", 1.0), name.lower())
    stores[0].open_lobby_socket("socketala1", "player000", "one")
    seek = SeekRow("theseek001", PlayerRef("player000", "Ala"), "", "luzak", {}, True, 120,
                   "h0", 1.0)
    assert isinstance(stores[0].create_seek(seek, 3), SeekRow)
    barrier = Barrier(2)

    def accept(i: int) -> GameRow | str:
        def build(found: SeekRow) -> GameRow:
            return GameRow(f"game{i:06}", found.game, found.options, 7, 0, "lobby", None,
                           (found.token_hash, f"t{i}"), 1, 2.0, False,
                           players=(found.player, PlayerRef(f"player00{i}", "x")),
                           rated=True, move_seconds=120)
        barrier.wait(10)
        return stores[i - 1].accept_seek("theseek001", f"player00{i}", build)

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(accept, (1, 2)))
    assert sorted(type(r).__name__ for r in results) == ["GameRow", "str"]
    assert "taken" in results
    assert stores[0].count_games() == 1
    for store in stores:
        store.close()


def test_a_match_closes_both_players_other_seeks(client: TestClient) -> None:
    ala, ola = register(client, "Ala"), register(client, "Ola")
    with lobby_socket(client, ala), lobby_socket(client, ola):
        first = open_seek(client, ala)
        open_seek(client, ala, game="widelec")
        open_seek(client, ola, game="luzak-line")
        r = client.post(f"/api/seeks/{first['id']}/accept", json={}, headers=as_player(ola["key"]))
        assert r.status_code == 201
        assert client.get("/api/seeks").json()["seeks"] == []


# -- quick pairing ---------------------------------------------------------------------------

def test_quick_pairing_pairs_two_players_and_both_get_their_seats(client: TestClient) -> None:
    ala, ola = register(client, "Ala"), register(client, "Ola")
    assert client.post("/api/quick", json={"game": "luzak"}).status_code == 401
    with lobby_socket(client, ala) as (ws, _welcome):
        # nobody is waiting: Ala's request opens a rated seek with the defaults
        r = client.post("/api/quick", json={"game": "luzak"}, headers=as_player(ala["key"]))
        assert r.status_code == 201 and r.json()["matched"] is False
        seek = r.json()["seek"]
        assert (seek["rated"], seek["move_seconds"], seek["game"]) == (True, MOVE_SECONDS,
                                                                      "luzak")
        # asking again keeps the one seek
        again = client.post("/api/quick", json={"game": "luzak"}, headers=as_player(ala["key"]))
        assert again.json()["seek"]["id"] == seek["id"]
        # a casual seek, or another game's, is not what quick pairing takes
        with lobby_socket(client, ola):
            open_seek(client, ola)
            r = client.post("/api/quick", json={"game": "luzak"}, headers=as_player(ola["key"]))
        assert r.status_code == 201, r.text
        joined = r.json()
        assert joined["matched"] is True and joined["seat"] == 1
        assert joined["state"]["players"] == [{"id": ala["id"], "name": "Ala"},
                                              {"id": ola["id"], "name": "Ola"}]
        matched = until(ws, lambda m: m["type"] == "matched")
        assert matched["game"] == joined["id"] and matched["seat"] == 0
        assert state(client, joined["id"], matched["token"])["seat"] == 0
    db_rated = service_of(client).store.sync.load_game(joined["id"])
    assert db_rated is not None and db_rated[0].rated


def test_a_creator_whose_socket_closed_as_the_seek_was_accepted_is_told_on_return(
        client: TestClient) -> None:
    """Accepted seeks wait in the store until their creator is told: a creator whose lobby
    socket was gone at that moment hears of it from their next one."""
    ala, ola = register(client, "Ala"), register(client, "Ola")
    store = service_of(client).store.sync
    with lobby_socket(client, ala):
        seek = open_seek(client, ala)
        # as if the socket had ended in the same moment (its row is gone, its seek is not)
        lobby_of(client).sockets.clear()
        with store._lock:
            store._db.execute("DELETE FROM lobby_sockets")
        r = client.post(f"/api/seeks/{seek['id']}/accept", json={}, headers=as_player(ola["key"]))
        assert r.status_code == 201
    with client.websocket_connect("/ws/lobby") as ws:
        ws.send_json({"type": "hello", "player": ala["key"]})
        matched = until(ws, lambda m: m["type"] == "matched")
    assert matched["game"] == r.json()["id"]
    assert state(client, matched["game"], matched["token"])["seat"] == 0


def matched_or_pong(ws: Any) -> list[dict[str, Any]]:
    """The ``matched`` messages a lobby socket is sent up to the answer to a ping (every
    match owed is told as the socket says hello, before it reads anything)."""
    ws.send_json({"type": "ping"})
    found: list[dict[str, Any]] = []
    for _ in range(30):
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == "pong":
            return found
        if message["type"] == "matched":
            found.append(message)
    raise AssertionError("no pong in 30 messages")


def test_a_match_is_owed_to_each_next_socket_until_the_page_acknowledges_it(
        client: TestClient) -> None:
    """The creator's socket was sent ``matched`` and died before the page saw it: each next
    lobby socket of theirs is told it again, once each, until a page acknowledges it, and
    none after (issue: "no match is lost")."""
    ala, ola = register(client, "Ala"), register(client, "Ola")
    with lobby_socket(client, ala) as (ws, welcome):
        seek = open_seek(client, ala, conn=welcome["conn"])
        r = client.post(f"/api/seeks/{seek['id']}/accept", json={}, headers=as_player(ola["key"]))
        assert r.status_code == 201, r.text
        gid = r.json()["id"]
        # sent into the socket, as into a dying one: the page never reads it
        lost = until(ws, lambda m: m["type"] == "matched")
        # another change of the lobby tells this socket nothing again
        ela = register(client, "Ela")
        with lobby_socket(client, ela) as (_other, hers):
            open_seek(client, ela, conn=hers["conn"])
            until(ws, lobby_with(seeks=1))
            assert matched_or_pong(ws) == []
    for _ in range(2):  # again and again, until it is acknowledged
        with lobby_socket(client, ala) as (ws, _welcome):
            told = matched_or_pong(ws)
            assert told == [lost]
            assert state(client, gid, told[0]["token"])["seat"] == 0
    with lobby_socket(client, ala) as (ws, _welcome):
        assert matched_or_pong(ws) == [lost]
        ws.send_json({"type": "ack", "seek": seek["id"]})
        assert ws.receive_json() == {"type": "acked", "seek": seek["id"]}
        ws.send_json({"type": "ack", "seek": seek["id"]})  # again: harmless
        assert ws.receive_json() == {"type": "acked", "seek": seek["id"]}
    with lobby_socket(client, ala) as (ws, _welcome):
        assert matched_or_pong(ws) == []
    # acknowledged, the match is still the player's to rejoin
    me = client.get("/api/me", headers=as_player(ala["key"])).json()
    assert [g["id"] for g in me["live"]] == [gid]


def test_every_lobby_socket_of_the_creator_is_told_until_one_acknowledges(
        client: TestClient) -> None:
    """Two tabs (or a tab on each of two servers): both are told the match; the first page
    to acknowledge it settles it for every later socket."""
    ala, ola = register(client, "Ala"), register(client, "Ola")
    with lobby_socket(client, ala) as (one, welcome), lobby_socket(client, ala) as (two, _w):
        seek = open_seek(client, ala, conn=welcome["conn"])
        r = client.post(f"/api/seeks/{seek['id']}/accept", json={}, headers=as_player(ola["key"]))
        assert r.status_code == 201, r.text
        first = until(one, lambda m: m["type"] == "matched")
        assert until(two, lambda m: m["type"] == "matched") == first
        two.send_json({"type": "ack", "seek": seek["id"]})
        assert until(two, lambda m: m["type"] != "lobby") == {"type": "acked",
                                                               "seek": seek["id"]}
    with lobby_socket(client, ala) as (ws, _welcome):
        assert matched_or_pong(ws) == []


@pytest.mark.parametrize(("ack", "status"), [
    ({"type": "ack"}, 400),
    ({"type": "ack", "seek": 7}, 400),
    ({"type": "ack", "seek": "no/such/seek"}, 400),
    ({"type": "ack", "seek": ["x" * 12]}, 400),
    ({"type": "ack", "seek": "x" * 12}, 404),
])
def test_an_acknowledgement_is_checked(client: TestClient, ack: dict[str, Any],
                                       status: int) -> None:
    """An odd ack is a clear error over the socket, which stays open; nobody acknowledges
    another player's match, an open seek, or anything as a watcher."""
    ala, ola = register(client, "Ala"), register(client, "Ola")
    with lobby_socket(client, ala) as (ws, welcome):
        ws.send_json(ack)
        refused = ws.receive_json()
        assert (refused["type"], refused["status"]) == ("error", status), refused
        seek = open_seek(client, ala, conn=welcome["conn"])
        ws.send_json({"type": "ack", "seek": seek["id"]})  # open, not accepted
        assert until(ws, lambda m: m["type"] == "error")["status"] == 404
        r = client.post(f"/api/seeks/{seek['id']}/accept", json={}, headers=as_player(ola["key"]))
        assert r.status_code == 201
        until(ws, lambda m: m["type"] == "matched")
    with lobby_socket(client, ola) as (ws, _welcome):  # not Ola's seek
        ws.send_json({"type": "ack", "seek": seek["id"]})
        assert until(ws, lambda m: m["type"] == "error")["status"] == 404
    with lobby_socket(client) as (ws, _welcome):  # a watcher
        ws.send_json({"type": "ack", "seek": seek["id"]})
        assert until(ws, lambda m: m["type"] == "error")["status"] == 401
        assert matched_or_pong(ws) == []  # still open
    with lobby_socket(client, ala) as (ws, _welcome):  # still owed to Ala
        assert [m["seek"] for m in matched_or_pong(ws)] == [seek["id"]]


def test_me_lists_the_live_lobby_games_whose_seats_open_with_a_token_derived_from_the_key(
        client: TestClient, clock: Clock) -> None:
    """/api/me lists each lobby game the player is playing, with their seat and the seek
    it was made of (never a token); each seat's token is seat_token(key, seek), for the
    creator and for whoever accepted, so any page holding the key rejoins. A game that
    ended is listed no more."""
    ala, ola = register(client, "Ala"), register(client, "Ola")
    assert client.get("/api/me", headers=as_player(ala["key"])).json() == {
        "id": ala["id"], "name": "Ala", "live": [], "recovery": False, "linked": 0}
    with lobby_socket(client, ala) as (ws, welcome):
        seek = open_seek(client, ala, conn=welcome["conn"], move_seconds=30, rated=True)
        r = client.post(f"/api/seeks/{seek['id']}/accept", json={}, headers=as_player(ola["key"]))
        assert r.status_code == 201
        joined = r.json()
        until(ws, lambda m: m["type"] == "matched")
    gid = joined["id"]
    to_move = state(client, gid, joined["token"])["to_move"]
    for player, seat, other in ((ala, 0, ola), (ola, 1, ala)):
        r = client.get("/api/me", headers=as_player(player["key"]))
        assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
        assert r.json()["live"] == [{
            "id": gid, "game": "luzak", "mode": "lobby", "seat": seat,
            "opponent": {"id": other["id"], "name": other["name"]}, "computer": None,
            "rated": True, "move_seconds": 30, "to_move": to_move,
            "token_from": {"kind": "seek", "id": seek["id"]}, "device_only": False,
            "seek": seek["id"]}]
        mine_token = seat_token(player["key"], seek["id"])
        assert '"token"' not in r.text and mine_token not in r.text
        assert player["key"] not in r.text
        mine = state(client, gid, mine_token)
        assert mine["seat"] == seat
    assert seat_token(ola["key"], seek["id"]) == joined["token"]
    # someone else's key derives no seat
    ela = register(client, "Ela")
    assert client.get(f"/api/games/{gid}",
                      headers=auth(seat_token(ela["key"], seek["id"]))).status_code == 403
    assert client.get("/api/me", headers=as_player(ela["key"])).json()["live"] == []
    # the game ends on time: listed no more
    clock.now += 30 + CLOCK_GRACE + 1
    on_loop(client, lobby_of(client).sweep)
    assert state(client, gid, joined["token"])["match_result"]["end"] == "time"
    assert client.get("/api/me", headers=as_player(ala["key"])).json()["live"] == []


def test_a_creator_whose_socket_was_aborted_at_the_accept_is_told_by_the_next(
        tmp_path: Path) -> None:
    """A real server on SQLite: the creator's lobby socket is reset (no close frame) as the
    seek is accepted; their next socket is told the match, and the game opens for them."""
    with ServerProcess(tmp_path / "lobby.sqlite3", computer_delay=0.0) as server:
        base = server.base
        ala = call(base, "POST", "/api/players", {"name": "Ala"})[1]
        ola = call(base, "POST", "/api/players", {"name": "Ola"})[1]
        first, welcome = lobby_hello(base, ala["key"])
        status, seek = call(base, "POST", "/api/seeks", {"conn": welcome["conn"]},
                            key=ala["key"])
        assert status == 201, seek
        status, joined = call(base, "POST", f"/api/seeks/{seek['id']}/accept", {},
                              key=ola["key"])
        first.abort()
        assert status == 201, joined
        second, _welcome = lobby_hello(base, ala["key"])
        matched = second.until("matched")
        assert (matched["game"], matched["seat"], matched["seek"]) == \
            (joined["id"], 0, seek["id"])
        status, mine = call(base, "GET", f"/api/games/{joined['id']}",
                            token=matched["token"])
        assert (status, mine["seat"]) == (200, 0)
        second.send({"type": "ack", "seek": seek["id"]})
        assert second.until("acked") == {"type": "acked", "seek": seek["id"]}
        second.abort()
        third, _welcome = lobby_hello(base, ala["key"])
        assert "matched" not in third.kinds_to_pong()
        third.close()
        live = call(base, "GET", "/api/me", key=ala["key"])[1]["live"]
        assert [(g["id"], g["seat"], g["seek"]) for g in live] == \
            [(joined["id"], 0, seek["id"])]
    assert "Traceback" not in server.log.read_text()


# -- clocks ----------------------------------------------------------------------------------

def lobby_game(client: TestClient, clock: Clock, seconds: int = 30, rated: bool = False
               ) -> tuple[str, dict[int, str]]:
    """A lobby match between two new players: its id and each seat's token."""
    ala, ola = register(client, "Ala"), register(client, "Ola")
    with lobby_socket(client, ala) as (ws, _welcome):
        seek = open_seek(client, ala, move_seconds=seconds, rated=rated)
        joined = client.post(f"/api/seeks/{seek['id']}/accept", json={},
                             headers=as_player(ola["key"])).json()
        matched = until(ws, lambda m: m["type"] == "matched")
    return joined["id"], {0: matched["token"], 1: joined["token"]}


def test_the_clock_ends_a_match_by_time_once(client: TestClient, clock: Clock,
                                             any_db: str) -> None:
    gid, tokens = lobby_game(client, clock, seconds=30, rated=True)
    service = service_of(client)
    endings: list[str] = []
    finished = service.finisher.finished

    async def counted(live: Any) -> None:
        endings.append(live.id)
        await finished(live)

    service.finisher.finished = counted  # type: ignore[method-assign]
    first = state(client, gid, tokens[0])
    assert first["deadline"] == START + 30 and first["move_seconds"] == 30
    mover = first["to_move"]
    with client.websocket_connect(f"/ws/games/{gid}") as ws0, \
            client.websocket_connect(f"/ws/games/{gid}") as ws1:
        for seat, ws in ((0, ws0), (1, ws1)):
            ws.send_json({"type": "hello", "token": tokens[seat]})
            hello = until(ws, lambda m: m["type"] == "state")
            assert hello["now"] == START and hello["state"]["deadline"] == START + 30
        # a move (forced or not) before the deadline starts the next one's clock
        clock.now += 20
        st = state(client, gid, tokens[mover])
        r = client.post(f"/api/games/{gid}/moves", headers=auth(tokens[mover]),
                        json={"move": st["legal"][0]["move"], "version": st["version"]})
        assert r.status_code == 200 and r.json()["deadline"] == START + 20 + 30
        loser = r.json()["to_move"]
        clock.now = START + 30 + CLOCK_GRACE + 1  # the first deadline: long past
        assert on_loop(client, service.sweep_clocks) == 0
        clock.now = START + 20 + 30 + CLOCK_GRACE - 0.5  # within the grace
        assert on_loop(client, service.sweep_clocks) == 0
        clock.now = START + 20 + 30 + CLOCK_GRACE + 0.5
        assert on_loop(client, service.sweep_clocks) == 1
        for ws in (ws0, ws1):
            ended = until(ws, lambda m: m["type"] == "state" and
                          m["state"]["match_result"] is not None)["state"]
            assert ended["match_result"]["end"] == "time"
            assert ended["match_result"]["winner"] == 1 - loser
            assert ended["to_move"] is None and ended["legal"] == [] and \
                ended["deadline"] is None
        # once only, however often it is looked for
        assert on_loop(client, service.sweep_clocks) == 0
        live = service.games[gid]
        assert on_loop(client, lambda: service.time_out(live, live.version)) is False
    assert endings == [gid]
    st = state(client, gid, tokens[loser])
    r = client.post(f"/api/games/{gid}/moves", headers=auth(tokens[loser]),
                    json={"move": "draw", "version": st["version"]})
    assert r.status_code == 409
    stored = Store(any_db).load_game(gid)
    assert stored is not None and stored[0].finished and stored[0].rated
    assert stored[0].result is not None and stored[0].result.winner == 1 - loser
    assert stored[0].result.ended_by == "time"
    # the lobby no longer lists it; its players' pages show how it ended, its replay is
    # anyone's, its record stops at the last move, and a rematch is casual, with the clock
    assert client.get("/api/seeks").json()["live"] == []
    assert client.get(f"/api/games/{gid}/replay").status_code == 200
    record = client.get(f"/api/games/{gid}/record", headers=auth(tokens[0])).json()
    assert record["result"] is None
    r = client.post(f"/api/games/{gid}/rematch", json={}, headers=auth(tokens[loser]))
    assert r.status_code == 201, r.text
    again = r.json()["state"]
    assert (again["mode"], again["move_seconds"]) == ("lobby", 30)
    assert again["deadline"] == clock.now + 30
    stored = service.store.sync.load_game(again["id"])
    assert stored is not None and not stored[0].rated
    ended_game = Store(any_db).load_game(gid)
    assert ended_game is not None and ended_game[0].players[0] is not None
    ala = ended_game[0].players[0].id
    [match] = client.get(f"/api/players/{ala}").json()["matches"]
    assert match["ended_by"] == "time"
    assert match["outcome"] == ("won" if loser == 1 else "lost")


def test_the_clock_of_a_live_game_ends_it_by_itself(client: TestClient, clock: Clock) -> None:
    """The game's own timer (not the sweep): set when the deadline is due."""
    gid, tokens = lobby_game(client, clock)
    service = service_of(client)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"type": "hello", "token": tokens[0]})
        until(ws, lambda m: m["type"] == "state")
        clock.now += 30 + CLOCK_GRACE
        live = service.games[gid]

        async def due() -> None:
            service.clocks.due(live)  # what a move or a load does: the delay is now 0
        on_loop(client, due)
        ended = until(ws, lambda m: m["type"] == "state" and
                      m["state"]["match_result"] is not None)
    assert ended["state"]["match_result"]["end"] == "time"


def test_the_clock_holds_after_a_restart(tmp_path: Path, clock: Clock) -> None:
    """The server stops while a player is to move; the time runs out while it is down. A
    new server on the same database ends the match by time at once (its sweep), once."""
    path = tmp_path / "games.sqlite3"
    with TestClient(make_app(path, clock)) as client:
        gid, tokens = lobby_game(client, clock)
        to_move = state(client, gid, tokens[0])["to_move"]
    clock.now += 30 + CLOCK_GRACE + 1
    app = make_app(path, clock)
    service: GameService = app.state.service
    endings: list[str] = []
    finished = service.finisher.finished

    async def counted(live: Any) -> None:
        endings.append(live.id)
        await finished(live)

    service.finisher.finished = counted  # type: ignore[method-assign]
    with TestClient(app) as client:
        on_loop(client, app.state.lobby.sweep)
        on_loop(client, app.state.lobby.sweep)
        st = state(client, gid, tokens[0])
        assert st["match_result"]["end"] == "time"
        assert st["match_result"]["winner"] == 1 - to_move
    assert endings == [gid]


def test_an_ending_stored_by_another_process_is_shown_not_stored_again(
        client: TestClient, clock: Clock) -> None:
    gid, tokens = lobby_game(client, clock)
    service = service_of(client)
    live = service.games[gid]
    other = Store(service.store.sync.path, clock=clock)
    clock.now += 30 + CLOCK_GRACE + 1
    from dominolab.web.storage.store import GameResult
    assert other.end_by_time(gid, 0, GameResult(1, (0, 0), "time"), clock.now - CLOCK_GRACE)
    assert not other.end_by_time(gid, 0, GameResult(1, (0, 0), "time"),
                                 clock.now - CLOCK_GRACE)
    other.close()
    assert on_loop(client, lambda: service.time_out(live, 0)) is False
    assert state(client, gid, tokens[0])["match_result"]["end"] == "time"


# -- the lobby's WebSocket -------------------------------------------------------------------

@pytest.mark.parametrize("hello, code", [
    ("hi", 4400), ('{"type": "move"}', 4400), ('{"type": "hello", "player": 5}', 4400),
    ("[" * 1500 + "]" * 1500, 4400), ('{"type": "hello", "player": "nobodys-key"}', 4401),
])
def test_the_lobby_socket_refuses_a_bad_hello(client: TestClient, hello: str,
                                             code: int) -> None:
    with client.websocket_connect("/ws/lobby") as ws:
        ws.send_text(hello)
        assert ws.receive_json()["status"] == code
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_json()
        assert info.value.code == code


def test_the_lobby_socket_answers_pings_and_refuses_other_input(client: TestClient) -> None:
    with lobby_socket(client) as (ws, _welcome):
        ws.send_text('{"type": "seek"}')
        assert ws.receive_json()["status"] == 400
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
        ws.send_bytes(b"\x00\x01")
        with pytest.raises(WebSocketDisconnect) as info:
            until(ws, lambda m: False)
        assert info.value.code == 1003
    with lobby_socket(client) as (ws, _welcome):
        ws.send_text(" " * (MAX_BODY + 1))
        with pytest.raises(WebSocketDisconnect) as info:
            until(ws, lambda m: False)
        assert info.value.code == 1009


def test_lobby_sockets_are_limited_per_address_and_to_this_site(tmp_path: Path,
                                                                clock: Clock) -> None:
    app = make_app(tmp_path / "g.sqlite3", clock, limits=Limits(lobby_sockets_per_client=2),
                   allow_origins=("https://play.example.org",))
    with TestClient(app) as client:
        with lobby_socket(client), lobby_socket(client), \
                client.websocket_connect("/ws/lobby") as third:
            assert third.receive_json()["status"] == 4429
            with pytest.raises(WebSocketDisconnect) as info:
                third.receive_json()
            assert info.value.code == 4429
        # once they are closed, there is room again
        with lobby_socket(client) as (_ws, welcome):
            assert welcome["type"] == "welcome"
        for origin in ("https://evil.example", "null"):
            with pytest.raises(WebSocketDisconnect) as info, \
                    client.websocket_connect("/ws/lobby", headers={"origin": origin}):
                pass
            assert info.value.code == 4403
        with client.websocket_connect("/ws/lobby",
                                      headers={"origin": "https://play.example.org"}) as ws:
            ws.send_json({"type": "hello"})
            assert ws.receive_json()["type"] == "welcome"


def test_the_lobby_is_read_from_the_store_on_every_announcement(client: TestClient,
                                                                clock: Clock) -> None:
    """A seek stored by another process (another connection to the database) reaches this
    process's sockets with its announcement: the message says nothing, the store says it
    all."""
    ala, ola = register(client, "Ala"), register(client, "Ola")
    store = service_of(client).store.sync
    with lobby_socket(client, ola) as (ws, _welcome):
        other = Store(store.path, clock=clock)
        other.open_lobby_socket("othersock1", ala["id"], "otherserver")
        other.create_seek(SeekRow("otherseek1", PlayerRef(ala["id"], "Ala"), "", "widelec",
                                  {}, False, 90, "h", clock.now), 3)
        other.close()
        on_loop(client, lambda: service_of(client).events.publish("lobby", {"anything": 1}))
        shown = until(ws, lobby_with(seeks=1))
    assert shown["seeks"][0]["id"] == "otherseek1"
    assert shown["seeks"][0]["move_seconds"] == 90


def test_a_database_from_before_the_lobby_gains_it_and_its_games_have_no_clock(
        tmp_path: Path) -> None:
    path = tmp_path / "v5.sqlite3"
    with database_at(path, 5) as db:  # 6 is the lobby's
        db.execute("INSERT INTO games (id, game, options, seed, first_opener, mode, opponent, "
                   "token0, token1, rules_version, created, updated, finished) VALUES "
                   "('oldgame01', 'luzak', '{}', 7, 0, 'friend', NULL, 'h0', 'h1', 1, 1.0, "
                   "1.0, 0)")
    store = Store(path)
    loaded = store.load_game("oldgame01")
    assert loaded is not None and loaded[0].move_seconds is None
    assert store.out_of_time(START) == [] and store.lobby() == ([], [], [])
    store.close()


def test_a_match_only_sent_before_version_7_is_owed_again_while_its_game_is_played(
        tmp_path: Path) -> None:
    """Migration 7: ``told`` said only that a message was sent. A match told so whose game
    is still played is owed again (the message may have been lost); one of a finished game
    counts as acknowledged; one not yet told stays owed."""
    path = tmp_path / "v6.sqlite3"
    with database_at(path, 6) as db:
        db.execute("INSERT INTO players (id, name, skeleton, key_hash, created) VALUES "
                   "('ala0000001', 'Ala', 'ala', 'k0', 1.0), "
                   "('ola0000001', 'Ola', 'ola', 'k1', 1.0)")
        for gid, finished in (("livegame1", 0), ("overgame1", 1), ("newgame01", 0)):
            db.execute("INSERT INTO games (id, game, options, seed, first_opener, mode, "
                       "token0, token1, rules_version, created, updated, finished, player0, "
                       "player1, move_seconds) VALUES (?, 'luzak', '{}', 7, 0, 'lobby', 'h0', "
                       "'h1', 1, 1.0, 1.0, ?, 'ala0000001', 'ola0000001', 60)", (gid, finished))
        for seek, gid, told in (("seeklive1", "livegame1", 1), ("seekover1", "overgame1", 1),
                                ("seeknew01", "newgame01", 0)):
            db.execute("INSERT INTO seeks (id, player, socket, game, options, rated, "
                       "move_seconds, token_hash, created, game_id, seat, accepted, told) "
                       "VALUES (?, 'ala0000001', 'gone', 'luzak', '{}', 0, 60, 'h0', 1.0, ?, "
                       "0, 2.0, ?)", (seek, gid, told))
    store = Store(path)
    assert store.owed_matches("ala0000001") == [("seeklive1", "livegame1", 0),
                                                ("seeknew01", "newgame01", 0)]
    # (and migration 10 gives the lobby games made before their seek's id, whence their
    # seats' tokens derive)
    assert sorted((r.id, r.token_from) for r in store.live_games_of("ala0000001")) == \
        [("livegame1", "seeklive1"), ("newgame01", "seeknew01")]
    assert store.ack_match("seeklive1", "ala0000001")
    assert not store.ack_match("seeklive1", "ola0000001")
    assert store.owed_matches("ala0000001") == [("seeknew01", "newgame01", 0)]
    store.close()


def test_no_review_during_a_lobby_match(client: TestClient) -> None:
    """Hints are refused in a match against another player from the lobby, and so is the
    review of its finished hands until the match is over: the expert's judgement of a hand
    just played would be its advice for the next (docs/web.md, REVIEW)."""
    ala, ola = register(client, "Ala"), register(client, "Ola")
    with lobby_socket(client, ala) as (ws, welcome):
        seek = open_seek(client, ala, conn=welcome["conn"], move_seconds=60)
        r = client.post(f"/api/seeks/{seek['id']}/accept", json={}, headers=as_player(ola["key"]))
        assert r.status_code == 201
        joined = r.json()
        until(ws, lambda m: m["type"] == "matched")
    r = client.get(f"/api/games/{joined['id']}/review", params={"seat": joined["seat"]},
                   headers=auth(joined["token"]))
    assert r.status_code == 403 and "lobby" in r.json()["error"]
