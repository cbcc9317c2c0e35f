"""Seats belong to the people who hold them, no client can take more than its share, old
games leave the database, and the API's answers say how they may be kept and read
(docs/web.md, "Faults and abuse")."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from dominolab.players import Budget
from dominolab.web.limits import DAY, Limits, RateLimited, RateLimiter
from web_support import Clock, auth, seeded_app, service_of

Json = dict[str, Any]

#: every test here waits on sockets whose reads have no timeout of their own: this bounds
#: each test, failing it with its stack, well inside the suite's limit
pytestmark = pytest.mark.timeout(90)


def make_app(path: Path, limits: Limits | None = None, **kwargs: Any) -> Any:
    return seeded_app(path, seed=5, hint_budget=Budget(worlds=30), workers=1, limits=limits,
                      **kwargs)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(make_app(tmp_path / "games.sqlite3")) as c:
        yield c


def new_friend_game(client: TestClient) -> Json:
    r = client.post("/api/games", json={"game": "luzak", "opponent": "friend", "first": "me"})
    assert r.status_code == 201, r.text
    made: Json = r.json()
    return made


def invite_of(made: Json) -> str:
    link: str = made["invite"]
    assert link.startswith(f"/game/{made['id']}#i=")
    return link.split("#i=", 1)[1]


# -- seats ---------------------------------------------------------------------------------

def test_the_invitation_is_claimed_once_and_the_creator_never_holds_seat_1(
        client: TestClient) -> None:
    made = new_friend_game(client)
    gid, invite = made["id"], invite_of(made)
    # the invitation is not a token: it opens no seat by itself
    assert client.get(f"/api/games/{gid}", headers=auth(invite)).status_code == 403
    r = client.post(f"/api/games/{gid}/join", json={"invite": invite})
    assert r.status_code == 200, r.text
    joined = r.json()
    token1 = joined["token"]
    assert joined["seat"] == 1 and token1 not in (invite, made["token"])
    assert joined["state"]["seat"] == 1 and len(joined["state"]["hand"]) == 12
    assert client.get(f"/api/games/{gid}", headers=auth(token1)).json()["seat"] == 1
    # once only: the creator (or anyone) opening the link again gets no seat
    again = client.post(f"/api/games/{gid}/join", json={"invite": invite})
    assert again.status_code == 409 and "already been used" in again.json()["error"]
    assert "token" not in again.json()


@pytest.mark.parametrize(("body", "status", "words"), [
    ({"invite": "not-the-invitation-at-all"}, 403, "not this game's"),
    ({"invite": 5}, 400, "invitation"),
    ({}, 400, "invitation"),
    ({"invite": "short"}, 400, "invitation"),
])
def test_a_wrong_invitation_is_refused(client: TestClient, body: Json, status: int,
                                       words: str) -> None:
    made = new_friend_game(client)
    r = client.post(f"/api/games/{made['id']}/join", json=body)
    assert r.status_code == status and words in r.json()["error"]
    # and the real one still works afterwards
    assert client.post(f"/api/games/{made['id']}/join",
                       json={"invite": invite_of(made)}).status_code == 200


def test_computer_games_and_unknown_games_have_no_invitation(client: TestClient) -> None:
    made = client.post("/api/games", json={"game": "widelec", "opponent": "easy"}).json()
    assert made["invite"] is None
    r = client.post(f"/api/games/{made['id']}/join", json={"invite": "a" * 32})
    assert r.status_code == 403
    r = client.post("/api/games/nosuchgame123/join", json={"invite": "a" * 32})
    assert r.status_code == 404


def test_the_invitation_survives_a_restart_and_is_still_claimed_once(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with TestClient(make_app(path)) as first:
        made = new_friend_game(first)
    with TestClient(make_app(path)) as second:
        r = second.post(f"/api/games/{made['id']}/join", json={"invite": invite_of(made)})
        assert r.status_code == 200
        token1 = r.json()["token"]
    with TestClient(make_app(path)) as third:
        assert third.get(f"/api/games/{made['id']}", headers=auth(token1)).json()["seat"] == 1
        r = third.post(f"/api/games/{made['id']}/join", json={"invite": invite_of(made)})
        assert r.status_code == 409


# -- rates -----------------------------------------------------------------------------------

def test_the_rate_limiter_refills_at_its_rate() -> None:
    now = [0.0]
    limiter = RateLimiter(per_minute=6, burst=2, clock=lambda: now[0])
    limiter.take("a")
    limiter.take("a")
    with pytest.raises(RateLimited) as info:
        limiter.take("a")
    assert info.value.retry_after == pytest.approx(10.0)
    limiter.take("b")  # another client has its own bucket
    now[0] = 10.0
    limiter.take("a")
    with pytest.raises(RateLimited):
        limiter.take("a")


def test_the_rate_limiter_forgets_the_oldest_clients_first() -> None:
    limiter = RateLimiter(per_minute=1, burst=1, max_clients=3, clock=lambda: 0.0)
    for name in "abcd":
        limiter.take(name)
    limiter.take("a")  # forgotten: a full bucket again
    with pytest.raises(RateLimited):
        limiter.take("d")


@pytest.mark.parametrize("bad", [{"games_per_minute": 0}, {"games_burst": 0},
                                 {"abandoned_after": float("nan")}, {"hints_burst": 1.5}])
def test_limits_refuse_nonsense(bad: Json) -> None:
    with pytest.raises(ValueError, match=next(iter(bad))):
        Limits(**bad)


def test_creations_past_the_limit_get_429_with_retry_after(tmp_path: Path) -> None:
    limits = Limits(games_per_minute=2, games_burst=3)
    app = make_app(tmp_path / "games.sqlite3", limits)
    with TestClient(app, client=("203.0.113.7", 4000)) as greedy, \
            TestClient(app, client=("198.51.100.2", 4000)) as other:
        body = {"game": "luzak", "opponent": "easy"}
        assert [greedy.post("/api/games", json=body).status_code for _ in range(3)] == [201] * 3
        r = greedy.post("/api/games", json=body)
        assert r.status_code == 429 and r.json()["status"] == 429
        assert 1 <= int(r.headers["retry-after"]) <= 30
        assert "too many new games" in r.json()["error"]
        # another address is not held up
        assert other.post("/api/games", json=body).status_code == 201
        # refused requests do not spend: bad bodies are not counted
        assert greedy.post("/api/games", json={"game": "chess"}).status_code == 422


def test_hints_past_the_limit_get_429(tmp_path: Path) -> None:
    limits = Limits(hints_per_minute=1, hints_burst=2)
    with TestClient(make_app(tmp_path / "games.sqlite3", limits)) as client:
        made = client.post("/api/games", json={"game": "luzak", "opponent": "friend",
                                               "first": "me"}).json()
        statuses = [client.post(f"/api/games/{made['id']}/hint", headers=auth(made["token"]),
                                json={}).status_code for _ in range(3)]
        assert statuses == [200, 200, 429]


# -- expiry ----------------------------------------------------------------------------------

def test_abandoned_and_long_finished_games_expire(tmp_path: Path) -> None:
    clock = Clock()
    limits = Limits(abandoned_after=7 * DAY, finished_kept=30 * DAY)
    with TestClient(make_app(tmp_path / "games.sqlite3", limits, clock=clock)) as client:
        service = service_of(client)
        quiet = client.post("/api/games", json={"game": "luzak", "opponent": "friend",
                                                "first": "me"}).json()
        active = client.post("/api/games", json={"game": "luzak", "opponent": "friend",
                                                 "first": "me"}).json()
        clock.now += 6 * DAY
        lead = active["state"]["legal"][0]["move"]
        assert client.post(f"/api/games/{active['id']}/moves", headers=auth(active["token"]),
                           json={"move": lead, "version": 0}).status_code == 200
        clock.now += 2 * DAY
        assert client.portal.call(service.expire) == 1  # type: ignore[union-attr]
        r = client.get(f"/api/games/{quiet['id']}", headers=auth(quiet["token"]))
        assert r.status_code == 404 and "expired" in r.json()["error"]
        assert client.get(f"/api/games/{active['id']}",
                          headers=auth(active["token"])).status_code == 200
        clock.now += 6 * DAY
        assert client.portal.call(service.expire) == 1  # type: ignore[union-attr]
        assert service.store.sync.count_games() == 0


def test_finished_games_are_kept_longer(tmp_path: Path) -> None:
    clock = Clock()
    limits = Limits(abandoned_after=1 * DAY, finished_kept=30 * DAY)
    with TestClient(make_app(tmp_path / "games.sqlite3", limits, clock=clock)) as client:
        service = service_of(client)
        made = client.post("/api/games", json={"game": "luzak-line", "opponent": "friend",
                                               "first": "me", "options": {"target": 5}}).json()
        gid = made["id"]
        token1 = client.post(f"/api/games/{gid}/join",
                             json={"invite": invite_of(made)}).json()["token"]
        tokens = (made["token"], token1)
        rng = random.Random(3)
        for _ in range(500):
            st = client.get(f"/api/games/{gid}", headers=auth(tokens[0])).json()
            if st["match_result"] is not None:
                break
            mover = client.get(f"/api/games/{gid}", headers=auth(tokens[st["to_move"]])).json()
            client.post(f"/api/games/{gid}/moves", headers=auth(tokens[st["to_move"]]),
                        json={"move": rng.choice(mover["legal"])["move"],
                              "version": mover["version"]})
        assert st["match_result"] is not None
        clock.now += 10 * DAY
        assert client.portal.call(service.expire) == 0  # type: ignore[union-attr]
        assert client.get(f"/api/games/{gid}/record", headers=auth(tokens[0])).status_code \
            == 200
        clock.now += 25 * DAY
        assert client.portal.call(service.expire) == 1  # type: ignore[union-attr]


def test_an_expired_game_closes_its_sockets(tmp_path: Path) -> None:
    clock = Clock()
    with TestClient(make_app(tmp_path / "games.sqlite3", clock=clock)) as client:
        service = service_of(client)
        made = new_friend_game(client)
        with client.websocket_connect(f"/ws/games/{made['id']}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": made["token"]}))
            assert ws.receive_json()["type"] == "state"
            clock.now += 8 * DAY
            assert client.portal.call(service.expire) == 1  # type: ignore[union-attr]
            assert ws.receive_json()["type"] == "error"
            with pytest.raises(WebSocketDisconnect) as info:
                ws.receive_json()
            assert info.value.code == 4410


# -- headers and origins ---------------------------------------------------------------------

def test_api_answers_are_not_stored_or_sniffed(client: TestClient) -> None:
    made = new_friend_game(client)
    answers = [
        client.post("/api/games", json={"game": "luzak", "opponent": "easy"}),
        client.get(f"/api/games/{made['id']}", headers=auth(made["token"])),
        client.get(f"/api/games/{made['id']}", headers=auth("wrong")),
        client.get("/api/meta"),
        client.get("/api/nothing"),
    ]
    for r in answers:
        assert r.headers["cache-control"] == "no-store", r.url
        assert r.headers["x-content-type-options"] == "nosniff", r.url
    assert client.get("/").headers["x-content-type-options"] == "nosniff"


def hello_from(client: TestClient, path: str, token: str, origin: str | None) -> Json:
    headers: dict[str, str] = {} if origin is None else {"origin": origin}
    with client.websocket_connect(path, headers=headers) as ws:
        ws.send_text(json.dumps({"type": "hello", "token": token}))
        message: Json = ws.receive_json()
        return message


def test_websockets_from_other_sites_are_refused(tmp_path: Path) -> None:
    app = make_app(tmp_path / "games.sqlite3", allow_origins=("https://play.example.org",))
    with TestClient(app) as client:
        made = new_friend_game(client)
        path = f"/ws/games/{made['id']}"
        for origin in ("https://evil.example", "http://testserver.evil.example", "null"):
            with pytest.raises(WebSocketDisconnect) as info:
                hello_from(client, path, made["token"], origin)
            assert info.value.code == 4403, origin
        for allowed in ("http://testserver", "https://play.example.org", None):
            assert hello_from(client, path, made["token"], allowed)["type"] == "state"
