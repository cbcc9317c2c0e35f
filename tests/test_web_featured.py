"""The featured live game and a game's public seats (docs/web.md, "The featured game"): the
choice (rated first, highest mean rating; else two people's newest; else the computer's;
none: null), read again only after FEATURED_SECONDS, and no token or hand in what is sent."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from dominolab.players.ratings import LEVEL_RATINGS
from dominolab.web.community.featured import FEATURED_SECONDS, Candidate, choose
from dominolab.web.community.ratings import START
from dominolab.web.storage.store import GameRow, PlayerRef, RatingRow
from web_support import Clock, friend_game, seeded_app

pytestmark = pytest.mark.timeout(90)


def row(gid: str, *, rated: bool = False, mode: str = "lobby", created: float = 1.0,
        players: tuple[PlayerRef | None, PlayerRef | None] = (None, None),
        opponent: str | None = None, finished: bool = False) -> GameRow:
    return GameRow(id=gid, game="luzak", options={}, seed=1, first_opener=0, mode=mode,
                   opponent=opponent, token_hashes=("a" * 64, "b" * 64), rules_version=1,
                   created=created, finished=finished, players=players, rated=rated)


def rating(player: str, value: float) -> RatingRow:
    return RatingRow(player, "luzak", value, 60.0, 0.06, 10, 1.0)


ALA, OLA, EWA, JAN = (PlayerRef(x, x.title()) for x in ("ala", "ola", "ewa", "jan"))


def test_the_highest_rated_game_going_on_is_featured() -> None:
    games = [Candidate(row("low", rated=True, players=(ALA, OLA)), (3, 4)),
             Candidate(row("high", rated=True, players=(EWA, JAN))),
             Candidate(row("over", rated=True, players=(EWA, JAN), finished=True)),
             Candidate(row("newest", created=9.0, players=(ALA, JAN)))]
    ratings = {"luzak": {"ala": rating("ala", 1600), "ola": rating("ola", 1500),
                         "ewa": rating("ewa", 1700)}}
    chosen = choose(games, ratings)
    assert chosen is not None and chosen["id"] == "high"
    # jan has no rating yet: where every player starts
    assert [p["rating"] for p in chosen["players"]] == [1700, round(START.rating)]
    assert [p["name"] for p in chosen["players"]] == ["Ewa", "Jan"]
    ratings["luzak"]["ala"] = rating("ala", 2400)
    assert choose(games, ratings)["id"] == "low"  # type: ignore[index]


def test_with_none_rated_two_peoples_newest_game_then_the_computers() -> None:
    computer = Candidate(row("cpu", mode="computer", opponent="easy", created=5.0,
                             players=(ALA, None)))
    friends = Candidate(row("friends", mode="friend", created=2.0))
    chosen = choose([computer, friends], {})
    assert chosen is not None and chosen["id"] == "friends"
    assert [p["kind"] for p in chosen["players"]] == ["guest", "guest"]
    alone = choose([computer], {})
    assert alone is not None and alone["players"][1] == {
        "kind": "computer", "level": "easy", "rating": round(LEVEL_RATINGS["luzak"]["easy"])}
    assert choose([], {}) is None
    assert choose([Candidate(row("done", finished=True))], {}) is None


@pytest.fixture
def clocked(tmp_path: Path) -> Iterator[tuple[TestClient, Clock]]:
    clock = Clock(time.time())
    with TestClient(seeded_app(tmp_path / "g.sqlite3", seed=3, clock=clock)) as c:
        yield c, clock


def featured(client: TestClient) -> Any:
    r = client.get("/api/featured")
    assert r.status_code == 200, r.text
    return r.json()["featured"]


def test_the_featured_endpoint_reads_again_only_when_stale_and_leaks_nothing(
        clocked: tuple[TestClient, Clock]) -> None:
    client, clock = clocked
    assert featured(client) is None
    made = client.post("/api/games", json={"game": "luzak", "opponent": "easy", "first": "me"})
    assert made.status_code == 201, made.text
    token = made.json()["token"]
    assert featured(client) is None  # the choice of a moment ago, cached
    clock.now += FEATURED_SECONDS + 1
    chosen = featured(client)
    assert chosen["id"] == made.json()["id"] and chosen["players"][1]["kind"] == "computer"
    assert chosen["totals"] == [0, 0]
    # no seat token, no tile of a hand: only ids, names, levels, ratings and the score
    text = client.get("/api/featured").text
    assert token not in text and "hand" not in text and "token" not in text
    assert set(chosen) == {"id", "game", "rated", "mode", "players", "totals"}
    for seat in chosen["players"]:
        assert set(seat) <= {"kind", "id", "name", "level", "rating"}, seat


def test_a_games_seats_for_spectators(clocked: tuple[TestClient, Clock]) -> None:
    client, _ = clocked
    gid, t0, t1 = friend_game(client)
    r = client.get(f"/api/games/{gid}/seats")
    assert r.status_code == 200, r.text
    assert r.json() == {"seats": [{"kind": "guest", "rating": None}] * 2}
    assert t0 not in r.text and t1 not in r.text
    missing = client.get("/api/games/nosuchgame/seats")
    assert missing.status_code == 404 and "error" in missing.json()
