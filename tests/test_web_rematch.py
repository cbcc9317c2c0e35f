"""A rematch at the end of a match (docs/web.md, "Rematch"): the same game, options and
opponent, the other seat opening, made once whoever asks and however many ask at once, each
person in their own seat with their own token, the other seat told live, and the link kept
in the database across a restart. In the page: the end-of-match screen's button, for the
computer and for a friend in two browsers."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from starlette.testclient import TestClient

from browser import (
    HAND_SECONDS,
    JS_HAS_VERSION,
    UNLIMITED,
    Ui,
    assert_hands_disjoint,
    game_attr,
    game_id_of,
    invitation_of,
    make_move,
    new_game,
    stored_seats,
    wait_status,
)
from dominolab.web.edge.process import ServerProcess
from dominolab.web.games.live import LiveGame
from dominolab.web.games.service import GameService
from dominolab.web.limits import DAY, Limits
from dominolab.web.storage.store import GameRow, Store
from loops import run_async
from web_support import Clock, seeded_app, service_of

Json = dict[str, Any]
#: (method, path, body, token) -> (status, answer)
Call = Callable[[str, str, Any, str | None], tuple[int, Json]]

#: the quickest matches: one point ends them, after any number of hands
QUICK: Json = {"target": 1, "even_hands": False}

#: the socket reads here have no timeout of their own: this bounds each test, failing it
#: with its stack
pytestmark = pytest.mark.timeout(120)


def make_client(path: Path, **kwargs: Any) -> TestClient:
    return TestClient(seeded_app(path, seed=14, workers=1, **kwargs))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path / "games.sqlite3") as c:
        yield c


def client_call(client: TestClient) -> Call:
    def call(method: str, path: str, body: Any = None, token: str | None = None
             ) -> tuple[int, Json]:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        r = client.request(method, path, json=body, headers=headers)
        return r.status_code, r.json()
    return call


def http_call(base: str) -> Call:
    """Requests to a real server at ``base``, each with a deadline."""
    def call(method: str, path: str, body: Any = None, token: str | None = None
             ) -> tuple[int, Json]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(base + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if token is not None:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=30) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())
    return call


def ok(answer: tuple[int, Json]) -> Json:
    status, body = answer
    assert status in (200, 201), body
    return body


def friend_game(call: Call, game: str = "luzak", first: str = "me",
                options: Json | None = None) -> tuple[str, tuple[str, str]]:
    made = ok(call("POST", "/api/games", {"game": game, "opponent": "friend", "first": first,
                                         "options": QUICK if options is None else options},
                   None))
    invite = made["invite"].split("#i=", 1)[1]
    joined = ok(call("POST", f"/api/games/{made['id']}/join", {"invite": invite}, None))
    return made["id"], (made["token"], joined["token"])


def state(call: Call, gid: str, token: str) -> Json:
    return ok(call("GET", f"/api/games/{gid}", None, token))


def play_friend_match(call: Call, gid: str, tokens: tuple[str, str]) -> Json:
    """Random legal moves of both seats until the match is over; seat 0's last state."""
    rng = random.Random(gid)
    for _ in range(3000):
        st = state(call, gid, tokens[0])
        if st["match_result"] is not None:
            return st
        mover = st if st["to_move"] == 0 else state(call, gid, tokens[1])
        assert mover["to_move"] == mover["seat"], mover
        ok(call("POST", f"/api/games/{gid}/moves",
                {"move": rng.choice(mover["legal"])["move"], "version": mover["version"]},
                tokens[mover["seat"]]))
    raise AssertionError("the match did not end")


def play_computer_match(client: TestClient, gid: str, token: str) -> Json:
    """Random legal moves of seat 0 until the match is over; the computer's moves are read
    from seat 0's socket."""
    rng = random.Random(gid)
    call = client_call(client)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": token}))
        st: Json = ws.receive_json()["state"]
        for _ in range(3000):
            if st["match_result"] is not None:
                return st
            if st["to_move"] == 0:
                st = ok(call("POST", f"/api/games/{gid}/moves",
                             {"move": rng.choice(st["legal"])["move"],
                              "version": st["version"]}, token))
                continue
            pushed = ws.receive_json()["state"]
            if pushed["version"] > st["version"]:
                st = pushed
    raise AssertionError("the match did not end")


def rematch(call: Call, gid: str, token: str | None, body: Any = None) -> tuple[int, Json]:
    return call("POST", f"/api/games/{gid}/rematch", {} if body is None else body, token)


def games_stored(path: Path | str) -> int:
    store = Store(path)
    try:
        return store.count_games()
    finally:
        store.close()


# -- the API ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("first", "opener"), [("me", 0), ("opponent", 1)])
def test_both_seats_land_in_one_new_game_in_their_own_seats(client: TestClient,
                                                            tmp_path: Path, first: str,
                                                            opener: int) -> None:
    call = client_call(client)
    options = {**QUICK, "short_ends_any_time": False}
    gid, tokens = friend_game(call, first=first, options=options)
    assert state(call, gid, tokens[0])["opener"] == opener
    old = play_friend_match(call, gid, tokens)
    assert old["rematch"] is None

    status, made = rematch(call, gid, tokens[1])
    assert status == 201, made
    new = made["id"]
    assert new != gid and made["seat"] == 1 and made["token"] == tokens[1]
    st = made["state"]
    assert (st["id"], st["seat"], st["version"], st["hand_number"]) == (new, 1, 0, 1)
    # the same rules and opponent; the seat that did not open the old match opens this one
    assert st["game"] == "luzak" and st["options"] == {"target": 1, "even_hands": False,
                                                       "short_ends_any_time": False,
                                                       "luzak_scores_count": True}
    assert (st["mode"], st["opponent"]) == ("friend", None)
    assert st["opener"] == 1 - opener and st["to_move"] == 1 - opener
    assert st["match_result"] is None and st["totals"] == [0, 0]

    # every later call, from either seat, gets that game, each in their own seat
    for seat in (0, 1, 0):
        status, again = rematch(call, gid, tokens[seat], {"layout": "narrow"})
        assert status == 200, again
        assert (again["id"], again["seat"], again["token"]) == (new, seat, tokens[seat])
        assert again["state"]["seat"] == seat
    views = [state(call, new, t) for t in tokens]
    assert [v["seat"] for v in views] == [0, 1]
    assert not set(views[0]["hand"]) & set(views[1]["hand"])
    assert games_stored(tmp_path / "games.sqlite3") == 2
    # the old game names its rematch and who asked, to both seats
    for token in tokens:
        assert state(call, gid, token)["rematch"] == {"id": new, "by": 1}
    assert state(call, new, tokens[0])["rematch"] is None


def test_a_rematch_against_the_computer_keeps_its_level(client: TestClient) -> None:
    call = client_call(client)
    made = ok(call("POST", "/api/games", {"game": "widelec", "opponent": "easy",
                                         "first": "me", "options": {"target": 5}}, None))
    old = play_computer_match(client, made["id"], made["token"])
    assert old["match_result"] is not None
    status, again = rematch(call, made["id"], made["token"])
    assert status == 201, again
    st = again["state"]
    assert (again["seat"], st["mode"], st["opponent"], st["game"]) == (0, "computer", "easy",
                                                                       "widelec")
    assert st["options"]["target"] == 5 and st["opener"] == 1 and st["hand_number"] == 1
    # the computer opens the new match, and plays it on its own
    final = play_computer_match(client, again["id"], made["token"])
    assert final["match_result"] is not None and final["version"] > 0


def test_refused_rematches_change_nothing(client: TestClient, tmp_path: Path) -> None:
    call = client_call(client)
    gid, tokens = friend_game(call)
    before = state(call, gid, tokens[0])
    status, answer = rematch(call, gid, tokens[0])
    assert status == 409 and "not over" in answer["error"]
    assert state(call, gid, tokens[0]) == before

    play_friend_match(call, gid, tokens)
    other, other_tokens = friend_game(call)
    stored = games_stored(tmp_path / "games.sqlite3")
    for token, code, words in [(None, 401, "token"), ("not-a-token", 403, "not a seat"),
                               (other_tokens[0], 403, "not a seat")]:
        status, answer = rematch(call, gid, token)
        assert (status, answer["status"]) == (code, code) and words in answer["error"]
    status, answer = rematch(call, "nosuchgame123", tokens[0])
    assert status == 404
    r = client.post(f"/api/games/{gid}/rematch", content=b"[",
                    headers={"Authorization": f"Bearer {tokens[0]}",
                             "Content-Type": "application/json"})
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]
    r = client.get(f"/api/games/{gid}/rematch", headers={"Authorization": f"Bearer {tokens[0]}"})
    assert r.status_code == 405 and r.json()["status"] == 405
    assert games_stored(tmp_path / "games.sqlite3") == stored
    assert state(call, gid, tokens[1])["rematch"] is None
    assert state(call, other, other_tokens[0])["rematch"] is None


def test_a_rematch_is_rate_limited_like_a_new_game(tmp_path: Path) -> None:
    limits = Limits(games_per_minute=1, games_burst=2)  # the creation and the invitation
    with make_client(tmp_path / "games.sqlite3", limits=limits) as client:
        call = client_call(client)
        gid, tokens = friend_game(call)
        play_friend_match(call, gid, tokens)
        status, answer = rematch(call, gid, tokens[0])
        assert status == 429 and "too many new games" in answer["error"]
        assert games_stored(tmp_path / "games.sqlite3") == 1
        assert state(call, gid, tokens[1])["rematch"] is None


def test_the_other_seat_is_told_over_its_socket(client: TestClient) -> None:
    call = client_call(client)
    gid, tokens = friend_game(call)
    final = play_friend_match(call, gid, tokens)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": tokens[1]}))
        first = ws.receive_json()["state"]
        assert first["seat"] == 1 and first["rematch"] is None
        made = ok(rematch(call, gid, tokens[0]))
        pushed = ws.receive_json()
        assert pushed["type"] == "state"
        told = pushed["state"]
        assert told["rematch"] == {"id": made["id"], "by": 0}
        assert told["version"] == final["version"] and told["seat"] == 1
        # the other seat's own call takes it to the same game, in its own seat
        joined = ok(rematch(call, gid, tokens[1]))
        assert (joined["id"], joined["seat"]) == (made["id"], 1)


def test_simultaneous_calls_make_one_game(tmp_path: Path) -> None:
    """Eight calls at once, four from each seat, to the real server: one game is made."""
    with ServerProcess(tmp_path / "games.sqlite3", extra=UNLIMITED) as srv:
        call = http_call(srv.base)
        gid, tokens = friend_game(call)
        play_friend_match(call, gid, tokens)
        start = threading.Barrier(8)

        def ask(i: int) -> tuple[int, Json]:
            start.wait(timeout=30)
            return rematch(call, gid, tokens[i % 2])

        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(ask, range(8)))
        assert sorted(status for status, _ in answers) == [200] * 7 + [201]
        assert len({body["id"] for _, body in answers}) == 1
        assert all(body["seat"] == i % 2 and body["token"] == tokens[i % 2]
                   for i, (_, body) in enumerate(answers))
        assert games_stored(srv.db) == 2


def test_calls_at_once_all_reach_the_store_and_make_one_game(tmp_path: Path) -> None:
    """Calls that all find no rematch in memory are settled by the store's transaction."""
    seeds = random.Random(3)
    service = GameService(Store(tmp_path / "games.sqlite3"), computer_delay=0, workers=1,
                          seeds=lambda: seeds.getrandbits(53))
    reached: list[str] = []
    real = service.store.sync.create_rematch

    def counted(game_id: str, seat: int, row: GameRow) -> tuple[str, int] | None:
        reached.append(row.id)
        return real(game_id, seat, row)

    service.store.sync.create_rematch = counted  # type: ignore[method-assign]

    async def run() -> list[tuple[LiveGame, bool]]:
        async with asyncio.timeout(60):
            try:
                live, _token, invite = await service.create("luzak", QUICK, "friend", "me")
                assert invite is not None
                await service.join(live, invite)
                rng = random.Random(1)
                while not live.match.is_over:
                    seat = live.match.to_move
                    assert seat is not None
                    move = rng.choice(live.state(seat)["legal"])["move"]
                    await service.act(live, seat, move, live.version)
                return await asyncio.gather(*(service.rematch(live, i % 2) for i in range(6)))
            finally:
                await service.close()

    made = run_async(run(), timeout=90)
    assert len(reached) == 6  # none of them found the rematch in memory
    assert [created for _, created in made] == [True] + [False] * 5
    assert {new.id for new, _ in made} == {reached[0]}
    assert games_stored(tmp_path / "games.sqlite3") == 2


def test_the_store_makes_one_rematch_across_connections(any_db: str) -> None:
    """Two connections (as two server processes would have) store a rematch of one game at
    once: one is stored, and both are told it (on SQLite and on PostgreSQL)."""
    path = any_db
    stores = [Store(path), Store(path)]
    try:
        old = GameRow(id="oldgame1", game="luzak", options={"target": 1}, seed=1,
                      first_opener=0, mode="friend", opponent=None, token_hashes=("a", "b"),
                      rules_version=1, created=0.0, finished=True)
        stores[0].create_game(old)
        start = threading.Barrier(2)

        def make(i: int) -> tuple[str, int] | None:
            start.wait(timeout=30)
            row = replace(old, id=f"newgame{i}", seed=2 + i, first_opener=1, finished=False)
            return stores[i].create_rematch(old.id, i, row)

        with ThreadPoolExecutor(2) as pool:
            made = list(pool.map(make, range(2)))
        assert made[0] == made[1] and made[0] is not None
        new_id, by = made[0]
        assert new_id == f"newgame{by}"
        assert stores[0].count_games() == 2
        loaded = stores[1].load_game(old.id)
        assert loaded is not None and (loaded[0].rematch, loaded[0].rematch_by) == (new_id, by)
        # only a finished game has a rematch
        assert stores[0].create_rematch(new_id, 0, replace(old, id="newgame9")) is None
        assert stores[0].create_rematch("nosuchgame", 0, replace(old, id="newgame9")) is None
        assert stores[0].count_games() == 2
    finally:
        for store in stores:
            store.close()


def test_the_rematch_survives_a_restart(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "games.sqlite3", extra=UNLIMITED) as srv:
        call = http_call(srv.base)
        gid, tokens = friend_game(call, game="luzak-line", options=QUICK)
        play_friend_match(call, gid, tokens)
        made = ok(rematch(call, gid, tokens[0]))
        srv.kill()
        srv.start()
        assert state(call, gid, tokens[1])["rematch"] == {"id": made["id"], "by": 0}
        again = ok(rematch(call, gid, tokens[1]))
        assert (again["id"], again["seat"], again["token"]) == (made["id"], 1, tokens[1])
        assert [state(call, made["id"], t)["seat"] for t in tokens] == [0, 1]
        assert games_stored(srv.db) == 2


def test_an_expired_rematch_can_be_asked_for_again(tmp_path: Path) -> None:
    clock = Clock()
    limits = Limits(abandoned_after=7 * DAY, finished_kept=30 * DAY)
    with make_client(tmp_path / "games.sqlite3", limits=limits, clock=clock) as client:
        call = client_call(client)
        service = service_of(client)
        gid, tokens = friend_game(call)
        play_friend_match(call, gid, tokens)
        first = ok(rematch(call, gid, tokens[0]))
        clock.now += 8 * DAY  # nobody played the rematch: it is abandoned
        assert client.portal.call(service.expire) == 1  # type: ignore[union-attr]
        assert state(call, gid, tokens[1])["rematch"] is None
        status, second = rematch(call, gid, tokens[1])
        assert status == 201 and second["id"] != first["id"] and second["seat"] == 1


# -- the page --------------------------------------------------------------------------------

def finish_by_clicking(page: Page, deadline: float) -> None:
    """Play my moves and go past the end-of-hand screens until the match is over."""
    while True:
        status = wait_status(page, deadline)
        if status == "match-over":
            return
        if status == "hand-over":
            page.get_by_test_id("next-hand").click()
            expect(page.get_by_test_id("hand-over")).to_be_hidden()
            continue
        make_move(page, deadline)


def test_rematch_button_against_the_computer(ui: Ui) -> None:
    page = ui.new_page("computer")
    with ui.guard():
        new_game(page, "luzak", opponent="easy", first="me", options=QUICK)
        old = game_id_of(page)
        token = stored_seats(page)[old]["token"]
        finish_by_clicking(page, time.monotonic() + HAND_SECONDS)
        button = page.get_by_test_id("match-over").get_by_test_id("rematch")
        expect(button).to_have_attribute("data-offered", "false")
        button.click()
        page.wait_for_url(lambda url: "/game/" in url and old not in url)
        page.wait_for_function(JS_HAS_VERSION)
        new = game_id_of(page)
        assert stored_seats(page)[new] == {"token": token, "seat": 0, "invite": None}
        assert game_attr(page, "seat") == "0" and game_attr(page, "hand") == "1"
        expect(page.get_by_test_id("match-over")).to_have_count(0)


def test_rematch_between_friends_in_two_browsers(ui: Ui, server: str) -> None:
    with ui.guard():
        a = ui.new_page("A")
        new_game(a, "luzak", opponent="friend", first="me", options=QUICK)
        old = game_id_of(a)
        b = ui.new_page("B")
        b.goto(invitation_of(a))
        b.wait_for_function(JS_HAS_VERSION)
        seats = {"A": stored_seats(a)[old], "B": stored_seats(b)[old]}
        assert (seats["A"]["seat"], seats["B"]["seat"]) == (0, 1)

        # the moves over the API (the pages follow over their sockets): the subject here is
        # the end of the match
        play_friend_match(http_call(server), old, (seats["A"]["token"], seats["B"]["token"]))
        for page in (a, b):
            expect(page.get_by_test_id("match-over")).to_be_visible()
            expect(page.get_by_test_id("rematch")).to_have_attribute("data-offered", "false")

        a.get_by_test_id("rematch").click()
        a.wait_for_url(lambda url: "/game/" in url and old not in url)
        a.wait_for_function(JS_HAS_VERSION)
        new = game_id_of(a)
        # B's end-of-match screen now offers the rematch A asked for
        offer = b.get_by_test_id("rematch-offer")
        expect(offer).to_be_visible()
        expect(offer).to_contain_text("Your opponent wants a rematch")
        play = offer.get_by_test_id("rematch")
        expect(play).to_have_attribute("data-offered", "true")
        expect(play).to_have_text("Play it")
        play.click()
        b.wait_for_url(lambda url: "/game/" in url and old not in url)
        b.wait_for_function(JS_HAS_VERSION)
        assert game_id_of(b) == new
        assert (game_attr(a, "seat"), game_attr(b, "seat")) == ("0", "1")
        assert stored_seats(a)[new]["token"] == seats["A"]["token"]
        assert stored_seats(b)[new]["token"] == seats["B"]["token"]
        # A opened the old match, so B opens this one
        expect(b.locator('[data-testid="game"][data-turn="me"]')).to_have_count(1)
        expect(a.locator('[data-testid="game"][data-turn="opponent"]')).to_have_count(1)
        assert_hands_disjoint(a, b)
