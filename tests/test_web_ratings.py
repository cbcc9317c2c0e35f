"""Ratings (issue 15, item 3; docs/web.md, "Ratings"): Glicko-2 per game through the
glicko2-py library, only rated matches to the default rules, each counted once however many
times (or servers) see it end, the computer levels' fixed ratings, the leaderboard and the
player page's ratings."""

from __future__ import annotations

import asyncio
import random
import secrets
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from dominolab.core import RULES_VERSION, first_opener_by_lot, get_game
from dominolab.players.ratings import LEVEL_RATINGS, LEVEL_RD
from dominolab.web.community.ratings import PROVISIONAL_RD, START, Glicko, rate
from dominolab.web.community.standings import Standings
from dominolab.web.games.live import token_hash
from dominolab.web.games.service import GameService
from dominolab.web.storage.store import GameResult, GameRow, PlayerRef, Store
from loops import run_async
from players_support import register
from web_support import play_out, seeded_app, service_of

pytestmark = pytest.mark.timeout(120)


# -- the arithmetic: the library's, through ours -------------------------------------------

#: Glickman's worked example ("Example of the Glicko-2 system", 2012): a player of 1500,
#: deviation 200, volatility 0.06 beats 1400 (RD 30) and loses to 1550 (RD 100) and 1700
#: (RD 300) in one rating period, with tau 0.5
EXAMPLE_GAMES = [(1400.0, 30.0, 1.0), (1550.0, 100.0, 0.0), (1700.0, 300.0, 0.0)]


def test_glickmans_worked_example_through_our_update() -> None:
    after = rate(Glicko(1500.0, 200.0, 0.06), EXAMPLE_GAMES)
    # the paper rounds between its steps and prints 1464.06, 151.52 and 0.05999 (of
    # 0.059996)
    assert after.rating == pytest.approx(1464.06, abs=0.015)
    assert after.rd == pytest.approx(151.52, abs=0.005)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_the_example_moved_away_from_1500_changes_only_by_the_move() -> None:
    """Glicko-2 depends on rating differences only. (The `glicko2` 2.1.0 package, not
    chosen, squares the rating where the volatility step squares the deviation, and fails
    this: its tests, like the paper's example, sit at 1500.)"""
    at_1500 = rate(Glicko(1500.0, 200.0, 0.06), EXAMPLE_GAMES)
    for shift in (-700.0, 600.0, 1200.0):
        moved = rate(Glicko(1500.0 + shift, 200.0, 0.06),
                     [(r + shift, rd, s) for r, rd, s in EXAMPLE_GAMES])
        assert moved.rating - shift == pytest.approx(at_1500.rating, abs=1e-6)
        assert moved.rd == pytest.approx(at_1500.rd, abs=1e-6)
        assert moved.volatility == pytest.approx(at_1500.volatility, abs=1e-9)


def test_new_players_start_at_the_librarys_defaults_and_are_provisional() -> None:
    assert (START.rating, START.rd, START.volatility) == (1500.0, 350.0, 0.06)
    assert START.provisional
    assert not Glicko(1500.0, PROVISIONAL_RD, 0.06).provisional
    assert Glicko(1500.0, PROVISIONAL_RD + 0.1, 0.06).provisional


# -- through the API --------------------------------------------------------------------------

@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(seeded_app(tmp_path / "games.sqlite3", seed=17, workers=0)) as c:
        yield c


def rated_match(store: Store, a: dict[str, Any], b: dict[str, Any], seed: int,
                game: str = "luzak-line", options: dict[str, Any] | None = None,
                ) -> tuple[str, tuple[str, str]]:
    """A rated match between players ``a`` (seat 0) and ``b`` (seat 1) stored as the lobby
    stores one (a GameRow with ``rated``): its id and both seats' tokens."""
    spec = get_game(game)
    tokens = (secrets.token_urlsafe(24), secrets.token_urlsafe(24))
    row = GameRow(
        id=secrets.token_urlsafe(9), game=spec.name,
        options=spec.options_class.from_dict(options or {}).to_dict(), seed=seed,
        first_opener=first_opener_by_lot(seed), mode="friend", opponent=None,
        token_hashes=(token_hash(tokens[0]), token_hash(tokens[1])),
        rules_version=RULES_VERSION, created=store.clock(), finished=False,
        players=(PlayerRef(a["id"], a["name"]), PlayerRef(b["id"], b["name"])), rated=True)
    store.create_game(row)
    return row.id, tokens


def stored_ratings(path: Path) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT player, game, rating, rd, volatility, games FROM ratings "
                          "ORDER BY player, game").fetchall()
    finally:
        db.close()


def changes_of(path: Path, gid: str) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT seat, player, rating_before, rating_after FROM "
                          "rating_changes WHERE game_id = ? ORDER BY seat", (gid,)).fetchall()
    finally:
        db.close()


def test_a_rated_match_updates_both_players_once(client: TestClient, tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    service = service_of(client)
    ala, ola = register(client, "Ala"), register(client, "Ola")
    gid, tokens = rated_match(service.store.sync, ala, ola, seed=5)
    final = play_out(client, gid, tokens, random.Random(5))
    winner = final["match_result"]["winner"]
    ratings = {r[0]: r for r in stored_ratings(path)}
    assert set(ratings) == {ala["id"], ola["id"]}
    assert all(r[1] == "luzak-line" and r[5] == 1 for r in ratings.values())
    # equal before, so the changes are equal and opposite, the winner's up
    up = ratings[ala["id"]][2] - 1500
    assert ratings[ola["id"]][2] - 1500 == pytest.approx(-up)
    assert up > 0 if winner == 0 else up < 0 if winner == 1 else up == 0
    expected = rate(START, [(1500.0, 350.0, 1.0 if winner == 0 else 0.0)])
    assert ratings[ala["id"]][2:5] == pytest.approx(
        (expected.rating, expected.rd, expected.volatility))
    assert len(changes_of(path, gid)) == 2
    once = stored_ratings(path)

    # the end seen again, twice in a row and twice at once: nothing more is counted
    live = service.games[gid]

    async def again() -> None:
        await service.finisher.finished(live)
        await service.finisher.finished(live)
        await asyncio.gather(service.finisher.finished(live), service.finisher.finished(live))

    client.portal.call(again)  # type: ignore[union-attr]
    assert stored_ratings(path) == once and len(changes_of(path, gid)) == 2

    # and the players' pages say so
    for who, seat in ((ala, 0), (ola, 1)):
        page = client.get(f"/api/players/{who['id']}").json()
        mine = page["ratings"]["luzak-line"]
        assert mine["games"] == 1 and mine["provisional"] is True
        assert page["ratings"]["luzak"] is None and page["ratings"]["widelec"] is None
        [match] = page["matches"]
        assert match["rated"] is True
        change = match["rating"]
        assert change["before"] == 1500.0
        assert change["change"] == pytest.approx(round(ratings[who["id"]][2] - 1500, 1),
                                                 abs=0.11)
        assert match["seat"] == seat


def test_two_servers_that_see_one_end_count_it_once(tmp_path: Path) -> None:
    """Two services over one database file (as two server processes are), each applying
    the same matches at once: each match counts once, and a player in two matches has both
    counted, one after the other (the second reckoned again from the first's result)."""
    path = tmp_path / "shared.sqlite3"
    setup = Store(path)
    a, b, c = ({"id": f"player{i}x", "name": n} for i, n in enumerate(("Ala", "Ola", "Ela")))
    from dominolab.web.storage.store import PlayerRow
    for p in (a, b, c):
        assert setup.create_player(PlayerRow(p["id"], p["name"], token_hash(p["id"]), 1.0),
                                   p["name"].lower())
    first, _ = rated_match(setup, a, b, seed=1)
    second, _ = rated_match(setup, a, c, seed=2)
    for gid, winner in ((first, 0), (second, 1)):
        setup.add_moves(gid, 0, [(0, "stored for the test")], True,
                        GameResult(winner, (61, 30)))
    rows = [loaded[0] for gid in (first, second) if (loaded := setup.load_game(gid))]
    setup.close()

    async def race() -> list[bool]:
        services = [GameService(Store(path), workers=0) for _ in range(2)]
        appliers = [Standings(s.store, s.clock) for s in services]
        try:
            return list(await asyncio.gather(*(s.apply(row) for s in appliers
                                               for row in rows)))
        finally:
            for s in services:
                await s.close()

    applied = run_async(race())
    assert sorted(applied) == [False, False, True, True]
    ratings = {r[0]: r for r in stored_ratings(path)}
    assert ratings[a["id"]][5] == 2 and ratings[b["id"]][5] == 1 and ratings[c["id"]][5] == 1
    # Ala's second match was reckoned from her rating after the first, in whichever order
    db = sqlite3.connect(path)
    ala_changes = db.execute("SELECT rating_before, rating_after FROM rating_changes WHERE "
                             "player = ? ORDER BY at, rating_before", (a["id"],)).fetchall()
    db.close()
    assert len(ala_changes) == 2
    starts = sorted(before for before, _ in ala_changes)
    assert starts[0] == 1500.0
    assert starts[1] in [after for _, after in ala_changes]


def test_non_default_rules_never_count(client: TestClient, tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    service = service_of(client)
    ala, ola = register(client, "Ala"), register(client, "Ola")
    # a match marked rated but played to 20 (no route makes one): the ratings refuse it
    gid, tokens = rated_match(service.store.sync, ala, ola, seed=7, options={"target": 20})
    play_out(client, gid, tokens, random.Random(7))
    assert stored_ratings(path) == [] and changes_of(path, gid) == []
    assert service.store.sync.ratings_due() == []  # looked at, and left for good
    match = client.get(f"/api/players/{ala['id']}").json()["matches"][0]
    assert match["rated"] is True and match["rating"] is None
    # and no rated match is made to other rules, nor with a friend, nor without a player
    key = {"X-Player-Key": ala["key"]}
    refused = [
        ({"opponent": "easy", "rated": True, "options": {"target": 20}}, key, "default rules"),
        ({"opponent": "easy", "rated": True, "game": "luzak",
          "options": {"short_ends_any_time": False}}, key, "default rules"),
        ({"opponent": "friend", "rated": True}, key, "casual"),
        ({"opponent": "hard", "rated": True}, {}, "player key"),
    ]
    for body, headers, why in refused:
        r = client.post("/api/games", json=body, headers=headers)
        assert r.status_code == 422 and why in r.json()["error"], (body, r.text)
    r = client.post("/api/games", json={"opponent": "easy", "rated": "yes"}, headers=key)
    assert r.status_code == 400
    # the defaults written out are the defaults
    r = client.post("/api/games", json={"opponent": "easy", "rated": True,
                                        "options": {"target": 61}}, headers=key)
    assert r.status_code == 201 and r.json()["rated"] is True


def test_a_rated_computer_game_updates_only_the_player(client: TestClient,
                                                       tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    ala = register(client, "Ala")
    r = client.post("/api/games", json={"opponent": "easy", "rated": True, "first": "me",
                                        "game": "luzak-line"},
                    headers={"X-Player-Key": ala["key"]})
    assert r.status_code == 201, r.text
    made = r.json()
    assert made["rated"] is True
    final = play_out(client, made["id"], (made["token"],), random.Random(3))
    [(player, game, rating, rd, _vol, games)] = stored_ratings(path)
    assert (player, game, games) == (ala["id"], "luzak-line", 1)
    easy = float(LEVEL_RATINGS["luzak-line"]["easy"])
    won = final["match_result"]["winner"] == 0
    expected = rate(START, [(easy, LEVEL_RD, 1.0 if won else 0.0)])
    assert (rating, rd) == pytest.approx((expected.rating, expected.rd))
    [(seat, who, before, after)] = changes_of(path, made["id"])
    assert (seat, who, before, after) == (0, ala["id"], 1500.0, pytest.approx(rating))
    # the level is where it was, on the leaderboard too
    board = client.get("/api/leaderboard/luzak-line").json()
    levels = {e["level"]: e["rating"] for e in board["entries"] if e["kind"] == "computer"}
    assert levels == {k: float(v) for k, v in LEVEL_RATINGS["luzak-line"].items()}
    # an unrated game against the computer changes nothing
    casual = client.post("/api/games", json={"opponent": "easy", "first": "me",
                                             "game": "luzak-line"}).json()
    assert casual["rated"] is False
    play_out(client, casual["id"], (casual["token"],), random.Random(4))
    assert [r[5] for r in stored_ratings(path)] == [1]


def test_the_leaderboard_orders_players_and_shows_the_levels(client: TestClient,
                                                             tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    players = {name: register(client, name) for name in ("Ala", "Ola", "Ela", "Iza", "Jan")}
    # (rating, RD, games) set as the matches would have left them
    given = {"Ala": (2100.0, 60.0, 30), "Ola": (1650.0, 80.0, 20), "Ela": (2400.0, 200.0, 2),
             "Iza": (1400.0, 100.0, 12), "Jan": (1300.0, 300.0, 1)}
    db = sqlite3.connect(path)
    for name, (rating, rd, games) in given.items():
        db.execute("INSERT INTO ratings (player, game, rating, rd, volatility, games, updated) "
                   "VALUES (?, 'luzak', ?, ?, 0.06, ?, 1.0)",
                   (players[name]["id"], rating, rd, games))
    db.execute("INSERT INTO ratings (player, game, rating, rd, volatility, games, updated) "
               "VALUES (?, 'widelec', 1700, 50, 0.06, 40, 1.0)", (players["Jan"]["id"],))
    db.commit()
    db.close()
    board = client.get("/api/leaderboard/luzak").json()
    assert board["game"] == "luzak" and board["provisional_rd"] == PROVISIONAL_RD
    shown = [(e["kind"], e.get("name") or e["level"], e["rating"]) for e in board["entries"]]
    levels = LEVEL_RATINGS["luzak"]
    settled = sorted([("player", "Ala", 2100.0), ("player", "Ola", 1650.0),
                      ("player", "Iza", 1400.0)]
                     + [("computer", lv, float(r)) for lv, r in levels.items()],
                     key=lambda e: -e[2])
    # the settled players and the levels by rating, then the provisional players by rating
    assert shown == [*settled, ("player", "Ela", 2400.0), ("player", "Jan", 1300.0)]
    people = [e for e in board["entries"] if e["kind"] == "player"]
    assert [e["rank"] for e in people] == [1, 2, 3, 4, 5]
    assert [e["provisional"] for e in people] == [False, False, False, True, True]
    assert people[0]["id"] == players["Ala"]["id"] and people[0]["games"] == 30
    assert people[0]["rd"] == 60.0
    assert all(e["rd"] == LEVEL_RD and not e["provisional"]
               for e in board["entries"] if e["kind"] == "computer")
    # each game has its own board
    widelec = client.get("/api/leaderboard/widelec").json()["entries"]
    assert [e["name"] for e in widelec if e["kind"] == "player"] == ["Jan"]
    assert [e["kind"] for e in client.get("/api/leaderboard/luzak-line").json()["entries"]
            ] == ["computer"] * 3
    for bad in ("chess", "LUZAK", "luzak%20", "..%2Fluzak"):
        r = client.get(f"/api/leaderboard/{bad}")
        assert r.status_code == 404 and "error" in r.json(), bad
    # the player page has the ratings per game
    page = client.get(f"/api/players/{players['Jan']['id']}").json()
    assert page["ratings"]["widelec"]["rating"] == 1700.0
    assert page["ratings"]["luzak"]["provisional"] is True
    assert page["ratings"]["luzak-line"] is None


def test_a_rated_match_whose_end_was_not_applied_is_on_the_next_sweep(tmp_path: Path
                                                                       ) -> None:
    """A server that stopped (or whose database failed) just as a rated match ended: the
    next sweep of any server applies it, once."""
    path = tmp_path / "games.sqlite3"
    store = Store(path)
    from dominolab.web.storage.store import PlayerRow
    a, b = {"id": "player-one", "name": "Ala"}, {"id": "player-two", "name": "Ola"}
    for p in (a, b):
        store.create_player(PlayerRow(p["id"], p["name"], token_hash(p["id"]), 1.0),
                            p["name"].lower())
    gid, _ = rated_match(store, a, b, seed=3)
    store.add_moves(gid, 0, [(0, "stored for the test")], True, GameResult(None, (40, 40)))
    assert [r.id for r in store.ratings_due()] == [gid]

    async def sweep() -> tuple[int, int]:
        service = GameService(store, workers=0)
        try:
            standings = Standings(service.store, service.clock)
            return await standings.apply_due(), await standings.apply_due()
        finally:
            await service.close()

    assert run_async(sweep()) == (1, 0)
    again = Store(path)
    ratings = again.ratings_of("luzak-line", [a["id"], b["id"]])
    again.close()
    # a drawn match between equals moves neither rating
    assert sorted(ratings) == sorted([a["id"], b["id"]])
    assert all(r.rating == pytest.approx(1500.0) and r.games == 1 for r in ratings.values())


def test_a_failing_database_costs_no_move_and_the_sweep_applies_the_ratings_later(
        client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "games.sqlite3"
    service = service_of(client)
    store = service.store.sync
    ala, ola = register(client, "Ala"), register(client, "Ola")
    gid, tokens = rated_match(store, ala, ola, seed=9)

    def locked(*args: Any) -> Any:
        raise sqlite3.OperationalError("database is locked")

    with monkeypatch.context() as patch:
        patch.setattr(store, "apply_ratings", locked)
        final = play_out(client, gid, tokens, random.Random(9))  # every move answered 200
        assert final["match_result"] is not None and stored_ratings(path) == []
        patch.setattr(store, "leaderboard", locked)
        patch.setattr(store, "player_ratings", locked)
        for url in ("/api/leaderboard/luzak-line", f"/api/players/{ala['id']}"):
            r = client.get(url)
            assert r.status_code == 503 and int(r.headers["retry-after"]) >= 1, url
    assert [row.id for row in store.ratings_due()] == [gid]

    standings: Standings = client.app.state.standings  # type: ignore[attr-defined]

    async def sweep() -> int:
        return await standings.apply_due()

    assert client.portal.call(sweep) == 1  # type: ignore[union-attr]
    assert sorted(r[5] for r in stored_ratings(path)) == [1, 1]
    assert store.ratings_due() == []


def test_servers_sharing_postgresql_count_one_end_once(pg_url: str) -> None:
    """The same race on PostgreSQL, where several server processes really share one
    database: four appliers of one rated match at once, one of them counts it."""
    from dominolab.web.storage.store import PlayerRow

    setup = Store(pg_url)
    a, b = ({"id": f"player{i}y", "name": n} for i, n in enumerate(("Ala", "Ola")))
    for p in (a, b):
        assert setup.create_player(PlayerRow(p["id"], p["name"], token_hash(p["id"]), 1.0),
                                   p["name"].lower())
    gid, _ = rated_match(setup, a, b, seed=3)
    setup.add_moves(gid, 0, [(0, "stored for the test")], True, GameResult(0, (61, 30)))
    loaded = setup.load_game(gid)
    assert loaded is not None
    setup.close()

    async def race() -> list[bool]:
        services = [GameService(Store(pg_url), workers=0) for _ in range(2)]
        appliers = [Standings(s.store, s.clock) for s in services]
        try:
            return list(await asyncio.gather(*(s.apply(loaded[0]) for s in appliers
                                               for _ in range(2))))
        finally:
            for s in services:
                await s.close()

    assert sorted(run_async(race())) == [False, False, False, True]
    ratings = Store(pg_url).ratings_of("luzak-line", [a["id"], b["id"]])
    assert ratings[a["id"]].games == ratings[b["id"]].games == 1
    assert ratings[a["id"]].rating > 1500 > ratings[b["id"]].rating
