"""Rated games always end (issue 15, item 4; docs/web.md, "Clocks"): a rated match against
the computer has the lobby's clock, only the person's turn is timed, walking away loses on
time and counts once (after a restart too, and before any expiry), and so a rating cannot
rise by abandoning losing matches.

Time is the app's test clock (``create_app(clock=...)``), moved on by hand; every wait for
the computer is bounded (``asyncio.wait_for``) and by the test's timeout."""

from __future__ import annotations

import asyncio
import functools
import secrets
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from dominolab.core import RULES_VERSION
from dominolab.players.base import Budget
from dominolab.players.hints import analyse, rank
from dominolab.web.games.clocks import CLOCK_GRACE, MOVE_SECONDS
from dominolab.web.games.live import token_hash
from dominolab.web.storage.store import MIGRATIONS, Store
from players_support import register
from web_support import (
    START,
    Clock,
    auth,
    computer_done,
    database_at,
    on_loop,
    seeded_app,
    service_of,
)

pytestmark = pytest.mark.timeout(300)

#: the migration that gives rated matches against the computer their clock
CLOCK_MIGRATION = 9
GAME = "luzak-line"


def make_app(db: str | Path, clock: Clock, seed: int = 15, **kw: Any) -> Starlette:
    """The app of these tests: the computer's moves on the event loop (no workers)."""
    return seeded_app(db, seed, workers=0, clock=clock, **kw)


@pytest.fixture
def clock() -> Clock:
    return Clock()


def rated(client: TestClient, player: dict[str, Any], first: str = "me",
          **body: Any) -> dict[str, Any]:
    """A new rated match of ``player`` against the easy computer (201, or the test
    fails)."""
    r = client.post("/api/games", json={"game": GAME, "opponent": "easy", "rated": True,
                                        "first": first, **body},
                    headers={"X-Player-Key": player["key"]})
    assert r.status_code == 201, r.text
    made: dict[str, Any] = r.json()
    return made


def state(client: TestClient, made: dict[str, Any]) -> dict[str, Any]:
    r = client.get(f"/api/games/{made['id']}", headers=auth(made["token"]))
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def my_turn(client: TestClient, made: dict[str, Any]) -> dict[str, Any]:
    """The state once the computer has moved: the person's turn, or the match over."""
    computer_done(client, made["id"])
    st = state(client, made)
    assert st["match_result"] is not None or st["to_move"] == 0, st
    return st


def move(client: TestClient, made: dict[str, Any], st: dict[str, Any], pick: int = 0
         ) -> dict[str, Any]:
    legal = st["legal"]
    r = client.post(f"/api/games/{made['id']}/moves", headers=auth(made["token"]),
                    json={"move": legal[pick % len(legal)]["move"], "version": st["version"]})
    assert r.status_code == 200, r.text
    return my_turn(client, made)


def rating_of(client: TestClient, player: dict[str, Any]) -> dict[str, Any] | None:
    found: dict[str, Any] | None = client.get(
        f"/api/players/{player['id']}").json()["ratings"][GAME]
    return found


def changes(db: str | Path, gid: str) -> int:
    """How many rating changes the match made (the computer's seat has none)."""
    store = Store(db)
    try:
        found = store.rating_changes_of(store.load_game(gid)[0].players[0].id,  # type: ignore
                                        [gid])
        return len(found)
    finally:
        store.close()


# -- the clock --------------------------------------------------------------------------------

def test_a_rated_computer_match_has_the_lobbys_clock_and_bad_clocks_are_refused(
        tmp_path: Path, clock: Clock) -> None:
    with TestClient(make_app(tmp_path / "g.sqlite3", clock)) as client:
        ala = register(client, "Ala")
        made = rated(client, ala)
        st = made["state"]
        assert (st["move_seconds"], st["deadline"]) == (MOVE_SECONDS, START + MOVE_SECONDS)
        chosen = rated(client, ala, move_seconds=30)["state"]
        assert (chosen["move_seconds"], chosen["deadline"]) == (30, START + 30)
        key = {"X-Player-Key": ala["key"]}
        for bad in (29, 601, True, "60", 60.5, [60], {"s": 60}):
            r = client.post("/api/games", json={"game": GAME, "opponent": "easy",
                                                "rated": True, "move_seconds": bad},
                            headers=key)
            assert r.status_code == 422, (bad, r.text)
            assert "move_seconds" in r.json()["error"] and "30 to 600" in r.json()["error"]
        # a casual game has no clock, and is told so rather than given one silently
        r = client.post("/api/games", json={"game": GAME, "opponent": "easy",
                                            "move_seconds": 60}, headers=key)
        assert r.status_code == 422 and "rated" in r.json()["error"]
        casual = client.post("/api/games", json={"game": GAME, "opponent": "easy"}).json()
        assert (casual["state"]["move_seconds"], casual["state"]["deadline"]) == (None, None)
        # the refused ones made nothing: two rated games and one casual are stored
        assert len(service_of(client).games) == 3


def test_walking_away_from_a_rated_match_loses_on_time_lowers_the_rating_once(
        any_db: str, clock: Clock) -> None:
    with TestClient(make_app(any_db, clock)) as client:
        ala = register(client, "Ala")
        made = rated(client, ala, move_seconds=30)
        gid = made["id"]
        service = service_of(client)
        st = my_turn(client, made)
        for pick in range(3):  # a few moves, each 10 s: every one restarts the clock
            clock.now += 10
            st = move(client, made, st, pick)
        assert st["match_result"] is None and st["deadline"] == clock.now + 30
        moved = clock.now
        # the tab is closed: nobody moves again
        clock.now = moved + 30 + CLOCK_GRACE - 0.5
        assert on_loop(client, service.sweep_clocks) == 0
        clock.now = moved + 30 + CLOCK_GRACE + 0.5
        assert on_loop(client, service.sweep_clocks) == 1
        ended = state(client, made)
        assert ended["match_result"]["end"] == "time"
        assert ended["match_result"]["winner"] == 1 and ended["deadline"] is None
        after = rating_of(client, ala)
        assert after is not None and after["games"] == 1 and after["rating"] < 1500
        # once, however often it is looked for, here or by a second server on the database
        assert on_loop(client, service.sweep_clocks) == 0
        assert on_loop(client, service.finisher.sweep) == 0
        with TestClient(make_app(any_db, clock)) as other:
            assert on_loop(other, service_of(other).sweep_clocks) == 0
            assert on_loop(other, service_of(other).finisher.sweep) == 0
        assert rating_of(client, ala) == after
        [match] = client.get(f"/api/players/{ala['id']}").json()["matches"]
        assert (match["outcome"], match["ended_by"]) == ("lost", "time")
        r = client.post(f"/api/games/{gid}/moves", headers=auth(made["token"]),
                        json={"move": "x", "version": ended["version"]})
        assert r.status_code == 409
    assert changes(any_db, gid) == 1


def test_the_computers_slow_turn_runs_out_nobodys_clock(tmp_path: Path,
                                                        clock: Clock) -> None:
    """The pool is busy: the computer's turn lasts far longer than a move may, and neither
    seat loses by it; the person's time starts once the computer's move is stored."""
    with TestClient(make_app(tmp_path / "g.sqlite3", clock)) as client:
        ala = register(client, "Ala")
        service = service_of(client)
        busy = asyncio.Event()
        pooled = service.pool.run

        async def slow(*args: Any, **kwargs: Any) -> Any:
            await busy.wait()
            return await pooled(*args, **kwargs)

        service.pool.run = slow  # type: ignore[method-assign]
        made = rated(client, ala, first="opponent", move_seconds=30)
        st = state(client, made)
        assert st["to_move"] == 1 and st["deadline"] is None and st["move_seconds"] == 30
        clock.now += 50 * 30
        assert on_loop(client, service.sweep_clocks) == 0
        live = service.games[made["id"]]
        assert on_loop(client, lambda: service.time_out(live, live.version)) is False
        st = state(client, made)
        assert st["match_result"] is None and st["to_move"] == 1 and st["deadline"] is None
        client.portal.call(busy.set)  # type: ignore[union-attr]
        st = my_turn(client, made)
        assert st["match_result"] is None and st["deadline"] == clock.now + 30
        clock.now += 30 + CLOCK_GRACE - 0.5
        assert on_loop(client, service.sweep_clocks) == 0
        clock.now += 1
        assert on_loop(client, service.sweep_clocks) == 1
        assert state(client, made)["match_result"]["winner"] == 1


def test_a_rated_match_left_while_the_server_was_down_ends_after_a_restart_never_expires(
        tmp_path: Path, clock: Clock) -> None:
    """The server stops while the player is to move and stays down past the expiry of an
    abandoned game; the new server's expiry, run first, keeps the match, and its clock ends
    it and counts it, once."""
    db = tmp_path / "g.sqlite3"
    with TestClient(make_app(db, clock)) as client:
        ala = register(client, "Ala")
        made = rated(client, ala)
        st = move(client, made, my_turn(client, made))
        casual = client.post("/api/games", json={"game": GAME, "opponent": "easy",
                                                 "first": "me"}).json()
    clock.now += 8 * 86400
    with TestClient(make_app(db, clock)) as client:
        service = service_of(client)
        # the server's own sweeps begin as it starts; the expiry runs (again) here first
        on_loop(client, service.expire)
        r = client.get(f"/api/games/{casual['id']}", headers=auth(casual["token"]))
        assert r.status_code == 404  # the casual game expired; the rated match did not
        on_loop(client, client.app.state.lobby.sweep)  # type: ignore[attr-defined]
        ended = state(client, made)
        assert ended["match_result"]["end"] == "time"
        assert ended["version"] == st["version"]
        assert rating_of(client, ala)["games"] == 1  # type: ignore[index]
        assert on_loop(client, service.sweep_clocks) == 0
        assert on_loop(client, service.expire) == 0  # finished: kept as any finished match
    assert changes(db, made["id"]) == 1


def test_rated_computer_matches_stored_before_the_clock_get_the_default_clock(
        tmp_path: Path, clock: Clock) -> None:
    """A database from before migration :data:`CLOCK_MIGRATION`, when a rated match
    against the computer had no clock: its unfinished rated matches get the default clock,
    counted from their last move, so one abandoned long ago ends by time at the first
    sweep; casual games stay without."""
    assert "SET move_seconds = 120" in MIGRATIONS[CLOCK_MIGRATION - 1]
    db = tmp_path / "g.sqlite3"
    ala = {"id": "ala0000001", "key": secrets.token_urlsafe(24)}
    made = {"id": "ratedgame01", "token": secrets.token_urlsafe(24)}
    casual = {"id": "casualgame1", "token": secrets.token_urlsafe(24)}
    with database_at(db, CLOCK_MIGRATION - 1) as old:
        old.execute("INSERT INTO players (id, name, skeleton, key_hash, created) VALUES "
                    "(?, 'Ala', 'ala', ?, ?)", (ala["id"], token_hash(ala["key"]), START))
        for game, rated, player in ((made, 1, ala["id"]), (casual, 0, None)):
            old.execute("INSERT INTO games (id, game, options, seed, first_opener, mode, "
                        "opponent, token0, token1, rules_version, created, updated, finished, "
                        "player0, rated) VALUES (?, ?, '{}', 7, 0, 'computer', 'easy', ?, '', "
                        "?, ?, ?, 0, ?, ?)",
                        (game["id"], GAME, token_hash(game["token"]), RULES_VERSION, START,
                         START, player, rated))
    store = Store(db)
    assert store.load_game(made["id"])[0].move_seconds == MOVE_SECONDS  # type: ignore[index]
    assert store.load_game(casual["id"])[0].move_seconds is None  # type: ignore[index]
    store.close()
    clock.now += 3600
    with TestClient(make_app(db, clock)) as client:
        # the lobby's sweep as the server starts, or this one, ends it (once: see below)
        on_loop(client, service_of(client).sweep_clocks)
        assert state(client, made)["match_result"]["end"] == "time"
        assert state(client, casual)["match_result"] is None
        assert rating_of(client, ala)["games"] == 1  # type: ignore[index]


# -- the property -------------------------------------------------------------------

#: the cheat calls a match lost, and walks away, when behind by more than this
BEHIND = 10


def career(db: Path, abandon: bool, matches: int) -> tuple[float, int, int]:
    """One player's rated matches against the easy computer, the same deals and moves for
    every career (the same seeds; each move the expert's best, as a hint would give it
    outside a rated match, from a fixed number of
    sampled deals): played out, or, with ``abandon``, walked away from whenever behind by
    more than :data:`BEHIND` on the player's turn. The rating, the matches it counts and
    how many were walked away from."""
    clock = Clock()
    walked = 0
    with TestClient(make_app(db, clock, seed=29)) as client:
        service = service_of(client)
        ala = register(client, "Ala")
        for _ in range(matches):
            made = rated(client, ala, move_seconds=60)
            st = my_turn(client, made)
            while st["match_result"] is None:
                totals = st["totals"]
                if abandon and totals[1] - totals[0] > BEHIND:
                    clock.now += 60 + CLOCK_GRACE + 1
                    assert on_loop(client, service.sweep_clocks) == 1
                    walked += 1
                    break
                clock.now += 5
                # a rated match has no hints (403): the expert's choice, worked out here
                r = client.post(f"/api/games/{made['id']}/hint", json={},
                                headers=auth(made["token"]))
                assert r.status_code == 403 and "rated" in r.json()["error"], r.text
                live = on_loop(client, functools.partial(service.get, made["id"]))
                best = str(rank(analyse(live.match.view(0), Budget(worlds=24),
                                        st["version"]))[0].move)
                picks = [m["move"] for m in st["legal"]]
                st = move(client, made, st, picks.index(best))
        found = rating_of(client, ala)
        assert found is not None
        return found["rating"], found["games"], walked


def test_a_rating_cannot_rise_by_abandoning_losing_matches(tmp_path: Path) -> None:
    matches = 8
    honest, counted, _ = career(tmp_path / "honest.sqlite3", abandon=False, matches=matches)
    cheat, cheat_counted, walked = career(tmp_path / "cheat.sqlite3", abandon=True,
                                          matches=matches)
    assert 0 < walked < matches  # the cheat walked away from some, finished the others
    assert counted == cheat_counted == matches  # every match counts, walked away or not
    assert cheat <= honest
