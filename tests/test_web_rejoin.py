"""Every live game of a named player can be rejoined from any device holding their key
(docs/web.md, "Seats and tokens"): ``/api/me`` lists each unfinished game they hold a seat
in (lobby, computer, friend) with what the seat's token is derived from, never a token; a
game a named player makes gets their seat token from their key and the game's id
(:func:`game_seat_token`), a rematch keeps it, and a game whose token is random says only
one device holds it.

Time is the app's test clock, moved on by hand; every wait for the computer is bounded."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from dominolab.core import RULES_VERSION
from dominolab.web.games.clocks import CLOCK_GRACE, MOVE_SECONDS
from dominolab.web.games.live import game_seat_token, seat_token, token_hash
from dominolab.web.storage.schema import MIGRATIONS
from players_support import register
from test_web_rated_clock import GAME, make_app, my_turn, rated, state
from web_support import START, Clock, auth, database_at, on_loop, service_of

pytestmark = pytest.mark.timeout(300)

#: the migration that has games say what their seats' tokens derive from
TOKEN_FROM_MIGRATION = 10


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def client(tmp_path: Path, clock: Clock) -> Any:
    with TestClient(make_app(tmp_path / "g.sqlite3", clock)) as c:
        yield c


def me(client: TestClient, player: dict[str, Any]) -> list[dict[str, Any]]:
    r = client.get("/api/me", headers={"X-Player-Key": player["key"]})
    assert r.status_code == 200, r.text
    assert '"token"' not in r.text and player["key"] not in r.text
    live: list[dict[str, Any]] = r.json()["live"]
    for entry in live:  # never a token: the page derives it
        if entry["token_from"] is not None:
            assert derived(player["key"], entry) not in r.text
    return live


def derived(key: str, entry: dict[str, Any]) -> str:
    """The seat token a page holding ``key`` derives for an entry of ``/api/me``'s live."""
    source = entry["token_from"]
    derive = seat_token if source["kind"] == "seek" else game_seat_token
    return derive(key, source["id"])


def time_out(client: TestClient, clock: Clock, made: dict[str, Any]) -> None:
    """The person walks away on their turn: the match ends on time."""
    my_turn(client, made)
    clock.now += MOVE_SECONDS + CLOCK_GRACE + 1
    assert on_loop(client, service_of(client).sweep_clocks) == 1
    assert state(client, made)["match_result"]["end"] == "time"


def test_lobby_seat_tokens_are_what_they_were_and_never_a_game_seats() -> None:
    """The lobby's tokens did not change when the function moved (pages hold seats by
    them), and a game's derived token has a domain of its own."""
    key, source = "fixed-player-key-0123456789", "seek000001"
    assert seat_token(key, source) == "peBXmYMRBcNtPjb6qRe5I0V6u6ZqPrp7"
    assert game_seat_token(key, source) == "W9NOieUiPdNfSdGLHTbBN44RP7up9Tsm"
    assert game_seat_token(key, source) != seat_token(key, source)
    assert game_seat_token("another-key-0123456789", source) != game_seat_token(key, source)


def test_a_rated_computer_match_is_listed_and_opens_from_a_client_holding_only_the_key(
        client: TestClient, clock: Clock) -> None:
    """Ala's rated match against the computer is in her /api/me with her seat and what its
    token derives from; a client holding only her key derives the token, reads the state
    and moves; another player's key sees nothing of it and opens nothing; once the match
    is over it is listed no more."""
    ala, ola = register(client, "Ala"), register(client, "Ola")
    made = rated(client, ala)
    gid = made["id"]
    assert made["token"] == game_seat_token(ala["key"], gid)
    to_move = my_turn(client, made)["to_move"]
    live = me(client, ala)
    assert live == [{
        "id": gid, "game": GAME, "mode": "computer", "seat": 0, "opponent": None,
        "computer": "easy", "rated": True, "move_seconds": MOVE_SECONDS, "to_move": to_move,
        "token_from": {"kind": "game", "id": gid}, "device_only": False}]
    # a fresh client: the key, and nothing else of this game
    token = derived(ala["key"], live[0])
    r = client.get(f"/api/games/{gid}", headers=auth(token))
    assert r.status_code == 200 and r.json()["seat"] == 0 and r.json()["rated"] is True
    st = r.json()
    r = client.post(f"/api/games/{gid}/moves", headers=auth(token),
                    json={"move": st["legal"][0]["move"], "version": st["version"]})
    assert r.status_code == 200, r.text
    assert r.json()["version"] == st["version"] + 1
    # Ola's key: nothing listed, and what it derives opens no seat; nor does a lobby token
    assert me(client, ola) == []
    for other in (game_seat_token(ola["key"], gid), seat_token(ala["key"], gid)):
        assert client.get(f"/api/games/{gid}", headers=auth(other)).status_code == 403
    time_out(client, clock, made)
    assert me(client, ala) == []


def test_casual_friend_and_rematch_games_are_listed_newest_first(
        client: TestClient, clock: Clock) -> None:
    """A casual game against the computer and a friend game are listed too (the friend's
    seat, claimed with an invitation, holds a random token: only that device has it); a
    rematch keeps the seat's token, so it is derived from the first game's id."""
    ala, ola = register(client, "Ala"), register(client, "Ola")
    first = rated(client, ala)
    time_out(client, clock, first)
    r = client.post(f"/api/games/{first['id']}/rematch", headers=auth(first["token"]),
                    json={})
    assert r.status_code == 201, r.text
    again = r.json()
    clock.now += 1
    casual = client.post("/api/games", json={"game": GAME, "opponent": "hard"},
                         headers={"X-Player-Key": ala["key"]}).json()
    clock.now += 1
    friend = client.post("/api/games", json={"game": GAME, "opponent": "friend"},
                         headers={"X-Player-Key": ala["key"]}).json()
    invite = friend["invite"].split("#i=")[1]
    r = client.post(f"/api/games/{friend['id']}/join", json={"invite": invite},
                    headers={"X-Player-Key": ola["key"]})
    assert r.status_code == 200, r.text
    live = me(client, ala)
    assert [(g["id"], g["mode"], g["seat"], g["rated"], g["computer"]) for g in live] == [
        (friend["id"], "friend", 0, False, None), (casual["id"], "computer", 0, False, "hard"),
        (again["id"], "computer", 0, True, "easy")]
    assert live[0]["opponent"] == {"id": ola["id"], "name": "Ola"}
    assert live[2]["token_from"] == {"kind": "game", "id": first["id"]}
    for entry in live:
        assert entry["device_only"] is False
        token = derived(ala["key"], entry)
        assert state(client, {"id": entry["id"], "token": token})["seat"] == 0
    # Ola holds seat 1 of the friend game by the invitation's random token
    [theirs] = me(client, ola)
    assert (theirs["id"], theirs["seat"], theirs["token_from"], theirs["device_only"]) == \
        (friend["id"], 1, None, True)
    assert theirs["opponent"] == {"id": ala["id"], "name": "Ala"}


def test_a_game_made_before_tokens_were_derived_is_listed_as_held_by_one_device(
        tmp_path: Path, clock: Clock) -> None:
    """A database from before migration 10, whose named player's game has a random seat
    token: listed, with no ``token_from`` and the flag that only the device that made it
    holds the seat (the page says so); its token still opens it."""
    assert "token_from" in MIGRATIONS[TOKEN_FROM_MIGRATION - 1]
    db = tmp_path / "g.sqlite3"
    ala = {"id": "ala0000001", "key": secrets.token_urlsafe(24)}
    gid, old_token = "ratedgame01", secrets.token_urlsafe(24)
    # as the server then wrote them: the player, and a rated match against the computer
    # with its clock and a random seat token
    with database_at(db, TOKEN_FROM_MIGRATION - 1) as old:
        old.execute("INSERT INTO players (id, name, skeleton, key_hash, created) VALUES "
                    "(?, 'Ala', 'ala', ?, ?)", (ala["id"], token_hash(ala["key"]), START))
        old.execute("INSERT INTO games (id, game, options, seed, first_opener, mode, opponent, "
                    "token0, token1, rules_version, created, updated, finished, player0, "
                    "rated, move_seconds) VALUES (?, ?, '{}', 7, 0, 'computer', 'easy', ?, '', "
                    "?, ?, ?, 0, ?, 1, ?)",
                    (gid, GAME, token_hash(old_token), RULES_VERSION, START, START, ala["id"],
                     MOVE_SECONDS))
    made = {"id": gid, "token": game_seat_token(ala["key"], gid)}
    with TestClient(make_app(db, clock)) as client:
        [entry] = me(client, ala)
        assert (entry["id"], entry["seat"], entry["rated"]) == (made["id"], 0, True)
        assert entry["token_from"] is None and entry["device_only"] is True
        assert state(client, {"id": made["id"], "token": old_token})["seat"] == 0
        assert client.get(f"/api/games/{made['id']}",
                          headers=auth(made["token"])).status_code == 403


def test_me_without_a_known_key_is_401_and_a_keyless_game_is_nobodys(
        client: TestClient) -> None:
    """A game made without a key has a random token and is nobody's to list; /api/me
    needs a key that is someone's."""
    ala = register(client, "Ala")
    r = client.post("/api/games", json={"game": GAME, "opponent": "easy"})
    assert r.status_code == 201
    assert r.json()["token"] != game_seat_token(ala["key"], r.json()["id"])
    assert me(client, ala) == []
    assert client.get("/api/me").status_code == 401
    assert client.get("/api/me", headers={"X-Player-Key": "nobodys-key-0123456789"}
                      ).status_code == 401
