"""Players without passwords (issue 15, item 1; docs/web.md, "Players"): a checked display
name, a secret key the browser keeps (sent as a header, never in a URL), the players of a
game's seats in its state, and a player's page listing their finished matches."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from dominolab.web.community.names import NameRefused, check_name, skeleton
from dominolab.web.edge.app import create_app
from dominolab.web.edge.limits import Limits
from players_support import register

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    seeds = random.Random(15)
    app = create_app(tmp_path / "games.sqlite3", computer_delay=0,
                     seeds=lambda: seeds.getrandbits(53))
    with TestClient(app) as c:
        yield c


def as_player(key: str) -> dict[str, str]:
    return {"X-Player-Key": key}


# -- names -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name, shown", [
    ("Ala", "Ala"), ("  Zażółć   gęślą ", "Zażółć gęślą"), ("jan_kowalski-2", "jan_kowalski-2"),
    ("A.B.C", "A.B.C"),
    ("\uff37\uff49\uff44\uff45\uff4c\uff45\uff43", "Widelec"),  # full-width, composed
])
def test_good_names_are_kept_as_shown(name: str, shown: str) -> None:
    assert check_name(name) == shown


@pytest.mark.parametrize("name, why", [
    ("ab", "3 to 20"), ("x" * 21, "3 to 20"), (17, "text"), ("", "3 to 20"),
    ("Дмитрий", "Latin letters"), ("Ala😀", "Latin letters"), ("a<b>c", "Latin letters"),
    ("-ala", "starts and ends"), ("ala.", "starts and ends"), ("a  -b", "in a row"),
    ("a._b", "in a row"), ("ala\u200bma", "Latin letters"),
    # nobody passes for the computer, in any case, spacing or disguise
    ("Computer", "computer"), ("the computer", "computer"), ("C0MPUTER", "computer"),
    ("c.o.m.p.u.t.e.r", "computer"), ("Kompùter", "komputer"), ("c0mpu7er 2", "computer"),
    ("Dominolab", "dominolab"),
])
def test_bad_names_are_refused_with_the_reason(name: Any, why: str) -> None:
    with pytest.raises(NameRefused, match=why):
        check_name(name)


def test_names_that_look_alike_have_one_skeleton() -> None:
    assert skeleton("Ala Kot") == skeleton("ala_kot") == skeleton("ALA-K0T") == skeleton("Ąla.Kot")
    assert skeleton("Ala") != skeleton("Ola")


# -- the API ---------------------------------------------------------------------------------

def test_a_player_is_made_once_per_name_and_known_by_its_key(client: TestClient,
                                                             tmp_path: Path) -> None:
    made = register(client, "Ala Kot")
    assert set(made) == {"id", "name", "key"} and made["name"] == "Ala Kot"
    r = client.get("/api/me", headers=as_player(made["key"]))
    assert r.status_code == 200 and r.json() == {"id": made["id"], "name": "Ala Kot", "live": []}
    # a name too like one taken is taken
    r = client.post("/api/players", json={"name": "ala_k0t"})
    assert r.status_code == 409 and "taken" in r.json()["error"]
    r = client.post("/api/players", json={"name": "Computer"})
    assert r.status_code == 422 and "computer" in r.json()["error"]
    # the server keeps only the key's hash
    db = sqlite3.connect(tmp_path / "games.sqlite3")
    stored = db.execute("SELECT name, key_hash FROM players").fetchall()
    assert stored == [("Ala Kot", stored[0][1])] and made["key"] not in stored[0][1]


def test_keys_are_checked(client: TestClient) -> None:
    assert client.get("/api/me").status_code == 401
    r = client.get("/api/me", headers=as_player("nobodys-key"))
    assert r.status_code == 401 and "nobody" in r.json()["error"]
    # a game cannot be made with a key that is nobody's (the page then forgets it)
    r = client.post("/api/games", json={"opponent": "easy"}, headers=as_player("nobodys-key"))
    assert r.status_code == 401
    assert client.get("/api/players/nobody123").status_code == 404
    assert client.get("/api/players/..%2F..%2Fetc").status_code == 404


def test_new_players_are_rate_limited(tmp_path: Path) -> None:
    app = create_app(tmp_path / "g.sqlite3", computer_delay=0,
                     limits=Limits(players_per_minute=1, players_burst=2))
    with TestClient(app) as client:
        register(client, "one1")
        register(client, "two2")
        r = client.post("/api/players", json={"name": "three"})
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        # a refused name costs nothing
        assert client.post("/api/players", json={"name": "x"}).status_code == 422


def play_out(client: TestClient, gid: str, tokens: tuple[str, str]) -> dict[str, Any]:
    rng = random.Random(3)
    for _ in range(3000):
        states: list[dict[str, Any]] = [
            client.get(f"/api/games/{gid}", headers={"Authorization": f"Bearer {t}"}).json()
            for t in tokens]
        if states[0]["match_result"] is not None:
            return states[0]
        mover = next(s for s in states if s["to_move"] == s["seat"])
        r = client.post(f"/api/games/{gid}/moves",
                        headers={"Authorization": f"Bearer {tokens[mover['seat']]}"},
                        json={"move": rng.choice(mover["legal"])["move"],
                              "version": mover["version"]})
        assert r.status_code == 200, r.text
    raise AssertionError("the match did not end")


def test_a_friend_match_between_players_shows_on_both_pages(client: TestClient) -> None:
    ala, ola = register(client, "Ala"), register(client, "Ola")
    r = client.post("/api/games", json={"opponent": "friend", "game": "luzak-line",
                                        "options": {"target": 20}},
                    headers=as_player(ala["key"]))
    made = r.json()
    assert made["state"]["players"] == [{"id": ala["id"], "name": "Ala"}, None]
    invite = made["invite"].split("#i=", 1)[1]
    r = client.post(f"/api/games/{made['id']}/join", json={"invite": invite},
                    headers=as_player(ola["key"]))
    joined = r.json()
    both = [{"id": ala["id"], "name": "Ala"}, {"id": ola["id"], "name": "Ola"}]
    assert joined["state"]["players"] == both
    final = play_out(client, made["id"], (made["token"], joined["token"]))
    winner = final["match_result"]["winner"]
    # the match is on both players' pages, each from their side, and its replay is public
    for seat, who in enumerate((ala, ola)):
        page = client.get(f"/api/players/{who['id']}").json()
        assert page["name"] == who["name"]
        [match] = page["matches"]
        assert match["id"] == made["id"] and match["seat"] == seat
        assert match["opponent"] == both[1 - seat]
        assert match["outcome"] == ("drawn" if winner is None else
                                    "won" if winner == seat else "lost")
        assert match["points"] == [final["totals"][seat], final["totals"][1 - seat]]
        assert match["ended_by"] == "play"
    r = client.get(f"/api/games/{made['id']}/replay")
    assert r.status_code == 200 and r.json()["frames"]
    # a rematch keeps the players
    r = client.post(f"/api/games/{made['id']}/rematch", json={},
                    headers={"Authorization": f"Bearer {made['token']}"})
    assert r.json()["state"]["players"] == both


def test_an_unfinished_games_replay_stays_closed(client: TestClient) -> None:
    made = client.post("/api/games", json={"opponent": "easy", "first": "me"}).json()
    for headers in ({}, {"Authorization": f"Bearer {made['token']}"}):
        r = client.get(f"/api/games/{made['id']}/replay", headers=headers)
        assert r.status_code == 409 and "once the match is over" in r.json()["error"]


def test_anonymous_games_work_as_before(client: TestClient) -> None:
    made = client.post("/api/games", json={"opponent": "easy", "first": "me"}).json()
    assert made["state"]["players"] == [None, None]


def test_games_stored_before_players_existed_load_with_no_players(tmp_path: Path) -> None:
    from dominolab.web.storage.store import MIGRATIONS, Store

    path = tmp_path / "v3.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    for script in MIGRATIONS[:3]:
        db.executescript(script)
    db.execute("PRAGMA user_version = 3")
    db.execute("INSERT INTO games (id, game, options, seed, first_opener, mode, opponent, "
               "token0, token1, rules_version, created, updated, finished) VALUES "
               "('oldgame01', 'luzak', '{}', 7, 0, 'computer', 'easy', 'h0', '', 1, 1.0, 1.0, "
               "0)")
    db.close()
    store = Store(path)
    loaded = store.load_game("oldgame01")
    assert loaded is not None
    row, moves = loaded
    assert row.players == (None, None) and row.result is None and moves == []
    store.close()
