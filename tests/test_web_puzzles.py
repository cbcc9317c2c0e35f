"""The site's puzzles (issue 41, must-have 6; docs/web.md, "Puzzles"): the position without
its answer, the daily puzzle, the next one near the player's puzzle rating, answers rated by
Glicko-2 on a first try only, and bad input refused with a 4xx, on SQLite and PostgreSQL.
The puzzles are taken from the shipped files (nothing depends on their count or ids)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from dominolab.players.puzzles import Puzzle, PuzzleError, read_puzzles
from dominolab.web.community.ratings import START, Glicko, rate
from dominolab.web.content.puzzles import PUZZLE_DIR, daily_index, load_shelf
from dominolab.web.limits import Limits
from players_support import register
from web_support import Clock, as_player, seeded_app

pytestmark = pytest.mark.timeout(120)

GAMES = ("luzak", "luzak-line", "widelec")
#: the keys only an answer may hold (the judged moves and their facts), or none may (the
#: record, whose deal holds the opponent's hand)
ANSWER_KEYS = {"win", "margin", "best", "same", "worlds", "quartet", "moves", "chosen",
               "now", "source", "record", "deal", "seed", "seat0", "seat1", "rest"}


def keys_of(value: Any) -> set[str]:
    """Every key of every object in a JSON value."""
    if isinstance(value, dict):
        return set(value).union(*(keys_of(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(keys_of(v) for v in value))
    return set()


@pytest.fixture
def clock() -> Clock:
    """A wall clock the test moves on, from 2027-01-15 at noon UTC."""
    return Clock(dt.datetime(2027, 1, 15, 12, tzinfo=dt.UTC).timestamp())


@pytest.fixture
def client(any_db: str, clock: Clock) -> Iterator[TestClient]:
    with TestClient(seeded_app(any_db, seed=41, clock=clock, limits=Limits(
            puzzle_answers_burst=60, puzzle_answers_per_minute=1.0))) as c:
        yield c


def shipped(game: str) -> dict[str, Puzzle]:
    """The shipped puzzles of ``game`` as their file holds them, by id."""
    return {p.id: p for p in read_puzzles(PUZZLE_DIR / f"{game}.jsonl")}


def answer(client: TestClient, game: str, pid: str, move: Any,
           key: str | None = None) -> Any:
    return client.post(f"/api/puzzles/{game}/{pid}/answer", json={"move": move},
                       headers=None if key is None else as_player(key))


def wrong_move(game: str, pid: str) -> str:
    """A judged move that does not solve the puzzle."""
    return shipped(game)[pid].moves[-1].move


def test_the_index_counts_each_games_puzzles_and_a_players_ratings(client: TestClient
                                                                    ) -> None:
    r = client.get("/api/puzzles")
    assert r.status_code == 200, r.text
    games = {g["game"]: g for g in r.json()["games"]}
    assert set(games) == set(GAMES)
    for game in GAMES:
        assert games[game]["count"] == len(shipped(game)) and games[game]["rating"] is None
    ala = register(client, "Ala")
    mine = client.get("/api/puzzles", headers=as_player(ala["key"])).json()["games"]
    assert all(g["rating"]["rating"] == START.rating and g["rating"]["tries"] == 0
               for g in mine)


@pytest.mark.parametrize("game", GAMES)
def test_nothing_reveals_the_answer_before_it_is_given(client: TestClient, game: str) -> None:
    """The position, the daily puzzle and the next puzzle carry no judged move and no best
    move, and nothing of the opponent's hand; the legal moves are in the rules' order, not
    the judged order."""
    ala = register(client, "Ala")
    for pid, puzzle in list(shipped(game).items())[:5]:
        bodies = [client.get(f"/api/puzzles/{game}/{pid}").json(),
                  client.get(f"/api/puzzles/{game}/{pid}", headers=as_player(ala["key"])).json()]
        for body in bodies:
            assert not keys_of(body) & ANSWER_KEYS, (pid, keys_of(body) & ANSWER_KEYS)
            position = body["puzzle"]
            view = puzzle.view()
            assert [m["move"] for m in position["legal"]] == [str(m) for m in view.legal_moves]
            assert position["hand"] == [t.digits for t in view.hand]
            deal = puzzle.record["hands"][-1]["deal"]
            theirs = {t.strip("[]").replace("|", "") for t in deal[f"seat{1 - view.seat}"]}
            assert not theirs & set(position["hand"])
            assert position["number"] == view.n + 1 and position["count"] == view.count
    for body in (client.get(f"/api/puzzles/daily?game={game}").json(),
                 client.get(f"/api/puzzles/{game}/next").json()):
        assert not keys_of(body) & ANSWER_KEYS


def test_the_daily_puzzle_is_the_same_all_day_and_changes_each_day(client: TestClient,
                                                                   clock: Clock) -> None:
    first = client.get("/api/puzzles/daily?game=luzak").json()
    assert first["date"] == "2027-01-15"
    clock.now += 11 * 3600  # 23:00 UTC, the same day
    again = client.get("/api/puzzles/daily?game=luzak").json()
    assert again["puzzle"]["id"] == first["puzzle"]["id"]
    clock.now += 3600  # midnight: the next day
    tomorrow = client.get("/api/puzzles/daily?game=luzak").json()
    assert tomorrow["date"] == "2027-01-16"
    assert tomorrow["puzzle"]["id"] != first["puzzle"]["id"]
    named = client.get("/api/puzzles/daily?game=luzak&date=2027-01-16").json()
    assert named["puzzle"]["id"] == tomorrow["puzzle"]["id"]
    assert client.get("/api/puzzles/daily").json()["puzzle"]["game"] == "luzak"


@pytest.mark.parametrize("count", [2, 3, 20, 301])
def test_daily_puzzles_never_repeat_two_days_running(count: int) -> None:
    day = dt.date(2026, 1, 1)
    seen = [daily_index("widelec", count, day + dt.timedelta(days=i)) for i in range(800)]
    assert all(0 <= i < count for i in seen)
    assert all(a != b for a, b in pairwise(seen))
    assert len(set(seen)) == count  # every puzzle comes round


def test_a_first_try_rates_both_and_a_second_is_not_rated(client: TestClient) -> None:
    ala = register(client, "Ala")
    shown = client.get("/api/puzzles/luzak/next", headers=as_player(ala["key"])).json()
    pid = shown["puzzle"]["id"]
    assert shown["tried"] is False and shown["you"]["rating"] == START.rating
    puzzle = shipped("luzak")[pid]
    r = answer(client, "luzak", pid, puzzle.best.move, ala["key"])
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["solved"] is True and body["rated"] is True and body["chosen"] == 0
    assert body["best"]["move"] == puzzle.best.move
    assert [m["move"] for m in body["moves"]] == [j.move for j in puzzle.moves]
    # Glicko-2 through the players' function: one period for both, from both before it
    its = Glicko(puzzle.rating, START.rd, START.volatility)
    mine = rate(START, [(its.rating, its.rd, 1.0)])
    theirs = rate(its, [(START.rating, START.rd, 0.0)])
    assert body["rating"]["after"] == round(mine.rating, 1) > START.rating
    assert body["rating"]["puzzle_after"] == round(theirs.rating, 1) < its.rating
    # a second try, now wrong: shown, not rated, the first try's change told again
    again = answer(client, "luzak", pid, wrong_move("luzak", pid), ala["key"]).json()
    assert again["solved"] is False and again["rated"] is False
    assert again["rating"]["after"] == body["rating"]["after"]
    after = client.get(f"/api/puzzles/luzak/{pid}", headers=as_player(ala["key"])).json()
    assert after["tried"] is True and after["tries"] == 1
    assert after["you"]["rating"] == round(mine.rating, 1) and after["you"]["tries"] == 1
    assert after["rating"] == round(theirs.rating, 1)


def test_a_miss_lowers_the_players_rating_and_raises_the_puzzles(client: TestClient) -> None:
    ola = register(client, "Ola")
    pid = client.get("/api/puzzles/widelec/next", headers=as_player(ola["key"])).json(
        )["puzzle"]["id"]
    body = answer(client, "widelec", pid, wrong_move("widelec", pid), ola["key"]).json()
    assert body["solved"] is False and body["rated"] is True and body["chosen"] > 0
    assert body["rating"]["after"] < body["rating"]["before"] == START.rating
    assert body["rating"]["puzzle_after"] > body["rating"]["puzzle_before"]
    # the same move named another way (an equivalent port) is the same class: judged facts
    judged = body["moves"][body["chosen"]]
    assert {"win", "margin", "now", "count", "n", "quartet", "spot"} <= set(judged)


def test_the_next_puzzle_is_one_not_tried_then_the_least_tried(client: TestClient) -> None:
    ala, ola = register(client, "Ala"), register(client, "Ola")
    seen: list[str] = []
    for _ in range(3):
        pid = client.get("/api/puzzles/luzak-line/next", headers=as_player(ala["key"])).json(
            )["puzzle"]["id"]
        assert pid not in seen
        seen.append(pid)
        assert answer(client, "luzak-line", pid, wrong_move("luzak-line", pid),
                      ala["key"]).json()["rated"]
    # Ola has tried none: she is not given one Ala tried while an untried one is as near
    first = client.get("/api/puzzles/luzak-line/next", headers=as_player(ola["key"])).json()
    assert first["puzzle"]["id"] not in seen
    # a visitor's `after` skips the ones just shown
    shown = client.get("/api/puzzles/luzak-line/next?after=" + ",".join(seen)).json()
    assert shown["puzzle"]["id"] not in seen and shown["you"] is None


def test_a_visitor_is_answered_but_not_rated(client: TestClient) -> None:
    pid = client.get("/api/puzzles/luzak/next").json()["puzzle"]["id"]
    body = answer(client, "luzak", pid, shipped("luzak")[pid].best.move).json()
    assert body["solved"] is True and body["rated"] is False and body["rating"] is None
    assert client.get(f"/api/puzzles/luzak/{pid}").json()["tries"] == 0


def test_bad_input_is_a_clear_4xx(client: TestClient) -> None:
    pid = next(iter(shipped("luzak")))
    puzzle = shipped("luzak")[pid]
    legal = {str(m) for m in puzzle.view().legal_moves}
    tile = next(t for t in puzzle.view().hand
                if not any(m.startswith(t.digits) or m.startswith(t.digits[::-1])
                           for m in legal))
    cases: list[tuple[Any, int, str]] = [
        (client.get("/api/puzzles/chess/next"), 404, "chess"),
        (client.get("/api/puzzles/daily?game=chess"), 404, "chess"),
        (client.get("/api/puzzles/luzak/luzak-99999"), 404, "luzak-99999"),
        (answer(client, "luzak", "luzak-99999", "draw"), 404, "luzak-99999"),
        (answer(client, "widelec", pid, "draw"), 404, pid),
        (answer(client, "luzak", pid, "5x@@"), 400, "5x@@"),
        (answer(client, "luzak", pid, f"{tile.digits}@1e"), 400, tile.digits),
        (answer(client, "luzak", pid, 56), 400, "56"),
        (answer(client, "luzak", pid, ["56@4e"]), 400, "56@4e"),
        (answer(client, "luzak", pid, None), 400, "None"),
        (answer(client, "luzak", pid, "9" * 100), 400, "999"),
        (client.post(f"/api/puzzles/luzak/{pid}/answer", content=b"[1]",
                     headers={"content-type": "application/json"}), 400, "object"),
        (client.post(f"/api/puzzles/luzak/{pid}/answer", content=b"{",
                     headers={"content-type": "application/json"}), 400, "JSON"),
        (client.post(f"/api/puzzles/luzak/{pid}/answer",
                     content=json.dumps({"move": "x" * 10_000}).encode(),
                     headers={"content-type": "application/json"}), 413, "4096"),
        (client.post(f"/api/puzzles/luzak/{pid}/answer", content=b"move=56",
                     headers={"content-type": "application/x-www-form-urlencoded"}), 415, "JSON"),
        (client.get(f"/api/puzzles/luzak/{pid}/answer"), 405, "method"),
        (client.get("/api/puzzles/luzak/next?after=" + ",".join(f"x{i}" for i in range(101))),
         400, "after"),
        (client.get("/api/puzzles/daily?game=luzak&date=tomorrow"), 400, "tomorrow"),
        (client.get("/api/puzzles/luzak/next", headers=as_player("nobodys-key")), 401, "key"),
    ]
    for r, status, named in cases:
        assert r.status_code == status, (r.request.url, r.text)
        assert named in r.json()["error"], (r.request.url, r.text)


def test_answers_past_the_rate_are_429_with_retry_after(any_db: str) -> None:
    with TestClient(seeded_app(any_db, seed=1, limits=Limits(
            puzzle_answers_burst=3, puzzle_answers_per_minute=1.0))) as c:
        pid = next(iter(shipped("luzak")))
        move = shipped("luzak")[pid].best.move
        for _ in range(3):
            assert answer(c, "luzak", pid, move).status_code == 200
        r = answer(c, "luzak", pid, move)
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        assert "puzzle answers" in r.json()["error"]
        # another address still may
        other = TestClient(c.app, client=("10.0.0.9", 50000))
        assert answer(other, "luzak", pid, move).status_code == 200


def test_a_broken_puzzle_file_stops_the_start_naming_it(tmp_path: Path) -> None:
    good = (PUZZLE_DIR / "luzak.jsonl").read_text(encoding="utf-8").splitlines()
    (tmp_path / "luzak.jsonl").write_text(good[0] + "\n{not json\n", encoding="utf-8")
    with pytest.raises(PuzzleError, match=r"luzak\.jsonl, line 2"):
        load_shelf(tmp_path)
    line = json.loads(good[0])
    line["record"]["hands"][0]["moves"][0]["move"] = "66"
    (tmp_path / "luzak.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(PuzzleError, match=line["id"]):
        load_shelf(tmp_path)
    (tmp_path / "luzak.jsonl").write_text(good[0].replace('"game":"luzak"', '"game":"widelec"',
                                                          1) + "\n", encoding="utf-8")
    with pytest.raises(PuzzleError, match="widelec, not luzak"):
        load_shelf(tmp_path)
