"""End-to-end tests of the ratings' pages (docs/web.md, "Ratings"): a player's page with its
ratings, matches and their public replays, the leaderboard's tabs with the computer levels and
"you" marked, in English and Polish, and a rated match started from the start page. A server
of their own, so the boards hold only what these tests made."""

from __future__ import annotations

import json
import random
import re
import secrets
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from browser import JS_HAS_VERSION, Ui, game_attr, make_server, play_via_api, stored_seats
from dominolab.core import RULES_VERSION, first_opener_by_lot, get_game
from dominolab.players.ratings import LEVEL_RATINGS
from dominolab.web.edge.process import ServerProcess
from dominolab.web.games.live import token_hash
from dominolab.web.storage.store import GameRow, PlayerRef, Store


def post(base: str, path: str, body: Any, key: str | None = None) -> Any:
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    if key is not None:
        req.add_header("X-Player-Key", key)
    with urllib.request.urlopen(req, timeout=30) as answer:
        return json.loads(answer.read())


def get(base: str, path: str) -> Any:
    with urllib.request.urlopen(base + path, timeout=30) as answer:
        return json.loads(answer.read())


@pytest.fixture(scope="module")
def rated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server with two players, Ala and Ola, who played one rated match of Luzak without
    spinners (stored as the lobby stores one, then played over HTTP to its end)."""
    db = tmp_path_factory.mktemp("ratings-e2e") / "ratings.sqlite3"
    with make_server(db) as proc:
        ala = post(proc.base, "/api/players", {"name": "Ala"})
        ola = post(proc.base, "/api/players", {"name": "Ola"})
        spec = get_game("luzak-line")
        tokens = (secrets.token_urlsafe(24), secrets.token_urlsafe(24))
        store = Store(db)
        gid = secrets.token_urlsafe(9)
        store.create_game(GameRow(
            id=gid, game=spec.name, options=spec.options(None).to_dict(), seed=11,
            first_opener=first_opener_by_lot(11), mode="friend", opponent=None,
            token_hashes=(token_hash(tokens[0]), token_hash(tokens[1])),
            rules_version=RULES_VERSION, created=store.clock(), finished=False,
            players=(PlayerRef(ala["id"], "Ala"), PlayerRef(ola["id"], "Ola")), rated=True))
        store.close()
        final = play_via_api(proc.base, gid, tokens, random.Random(11), until="match",
                             limit=3000)
        yield {"server": proc, "ala": ala, "ola": ola, "game": gid, "final": final}


@pytest.fixture
def ui_rated(chromium: Browser, rated: dict[str, Any], tmp_path: Path) -> Iterator[Ui]:
    server: ServerProcess = rated["server"]
    it = Ui(chromium, server.base, tmp_path)
    yield it
    it.close()


def as_player(page: Page, player: dict[str, Any]) -> None:
    """This browser keeps ``player`` as the name dialog does."""
    stored = json.dumps({"id": player["id"], "name": player["name"], "key": player["key"]})
    page.add_init_script(f"localStorage.setItem('dominolab.player', {json.dumps(stored)})")


def test_a_player_page_lists_ratings_and_matches_with_replays(ui_rated: Ui,
                                                              rated: dict[str, Any]) -> None:
    ala, gid = rated["ala"], rated["game"]
    page = ui_rated.new_page("player")
    as_player(page, ala)
    with ui_rated.guard():
        page.goto(f"/player/{ala['id']}")
        expect(page.get_by_test_id("player-name")).to_have_text("Ala")
        expect(page.get_by_test_id("player-you")).to_be_visible()
        line = page.locator('[data-testid="player-rating"][data-game="luzak-line"]')
        expect(line).to_have_attribute("data-provisional", "true")
        rating = float(line.get_attribute("data-rating") or "nan")
        assert rating != 1500.0 or rated["final"]["match_result"]["winner"] is None
        expect(line).to_contain_text(str(round(rating)))
        expect(page.locator('[data-testid="player-rating"][data-game="luzak"]')).to_contain_text(
            "no rated match yet")
        match = page.locator(f'[data-testid="player-match"][data-game-id="{gid}"]')
        expect(match).to_have_attribute("data-rated", "true")
        expect(match).to_contain_text("Ola")
        totals = rated["final"]["totals"]
        expect(match).to_contain_text(f"{totals[0]} : {totals[1]}")
        change = float(match.get_by_test_id("rating-change").get_attribute("data-change") or "0")
        assert change == pytest.approx(rating - 1500, abs=0.11)
        # the opponent's page is one click away, and the replay is anyone's: no seat here
        match.get_by_test_id("replay-link").click()
        expect(page).to_have_url(re.compile(f"/replay/{gid}$"))
        expect(page.get_by_test_id("replay-view")).to_be_visible()
        expect(page.get_by_test_id("replay-frame")).to_have_attribute("data-index", "0")
        page.get_by_test_id("replay-next").click()
        expect(page.get_by_test_id("replay-frame")).to_have_attribute("data-index", "1")
        expect(page.get_by_test_id("replay-view")).to_contain_text(re.compile("Ala|Ola"))
        page.go_back()
        page.locator(f'[data-testid="player-match"][data-game-id="{gid}"] a',
                     has_text="Ola").click()
        expect(page.get_by_test_id("player-name")).to_have_text("Ola")
        expect(page.get_by_test_id("player-you")).to_have_count(0)
        # in Polish
        page.get_by_test_id("lang-pl").click()
        expect(page.locator("main")).to_contain_text("Rozegrane rozgrywki")
        expect(page.get_by_test_id("player-match").first).to_contain_text("Powtórka")
        page.get_by_test_id("lang-en").click()


def test_the_leaderboard_has_a_tab_per_game_and_marks_you(ui_rated: Ui,
                                                          rated: dict[str, Any]) -> None:
    ala, ola = rated["ala"], rated["ola"]
    page = ui_rated.new_page("leaderboard")
    as_player(page, ala)
    with ui_rated.guard():
        page.goto("/")
        page.get_by_test_id("leaderboard-link").click()
        expect(page).to_have_url(re.compile("/leaderboard$"))
        board = page.get_by_test_id("leaderboard")
        expect(board).to_have_attribute("data-game", "luzak")
        tabs = page.get_by_test_id("board-tab")
        expect(tabs).to_have_count(3)
        expect(page.locator('[data-testid="board-tab"][aria-current="page"]')).to_have_attribute(
            "data-game", "luzak")
        # nobody has played rated Luzak: the levels alone, best first
        entries = page.get_by_test_id("board-entry")
        expect(entries).to_have_count(3)
        levels = [e.get_attribute("data-level") for e in entries.all()]
        assert levels == ["hard", "medium", "easy"]
        expect(page.get_by_test_id("board-empty")).to_be_visible()
        page.locator('[data-testid="board-tab"][data-game="luzak-line"]').click()
        expect(page).to_have_url(re.compile("/leaderboard/luzak-line$"))
        expect(board).to_have_attribute("data-game", "luzak-line")
        expect(entries).to_have_count(5)
        shown = [(e.get_attribute("data-kind"), float(e.get_attribute("data-rating") or 0))
                 for e in entries.all()]
        # the levels at their fixed ratings, best first; the two provisional players after
        assert [r for k, r in shown if k == "computer"] == sorted(
            (float(v) for v in LEVEL_RATINGS["luzak-line"].values()), reverse=True)
        assert [k for k, _ in shown] == ["computer"] * 3 + ["player"] * 2
        mine = page.locator('[data-testid="board-entry"][data-me="true"]')
        expect(mine).to_have_attribute("data-player-id", ala["id"])
        expect(mine.get_by_test_id("board-you")).to_have_text(re.compile("you"))
        expect(page.locator(f'[data-player-id="{ola["id"]}"]')).not_to_have_attribute(
            "data-me", "true")
        expect(board).to_contain_text("Computer — hard")
        # in Polish
        page.get_by_test_id("lang-pl").click()
        expect(board.locator("h1")).to_have_text("Ranking")
        expect(board).to_contain_text("Komputer — trudny")
        expect(mine).to_contain_text("(ty)")
        page.get_by_test_id("lang-en").click()
        # a player's name leads to their page
        mine.locator("a").click()
        expect(page.get_by_test_id("player-name")).to_have_text("Ala")


def test_a_rated_match_against_the_computer_from_the_start_page(ui_rated: Ui,
                                                               rated: dict[str, Any]) -> None:
    server: ServerProcess = rated["server"]
    ela = post(server.base, "/api/players", {"name": "Ela"})
    page = ui_rated.new_page("rated-start")
    as_player(page, ela)
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    with ui_rated.guard():
        page.goto("/")
        form = page.get_by_test_id("new-game")
        form.locator("select[name=opponent]").select_option("friend")
        expect(page.get_by_test_id("rated")).to_be_hidden()
        form.locator("select[name=opponent]").select_option("easy")
        # a rated match has the lobby's clock: its choice shows once rated is ticked
        expect(page.get_by_test_id("rated-time")).to_be_hidden()
        page.get_by_test_id("rated").check()
        expect(page.get_by_test_id("rated-time")).to_have_value("120")
        page.get_by_test_id("rated-time").select_option("60")
        with page.expect_response(lambda r: r.url.endswith("/api/games")) as answer:
            form.get_by_test_id("start").click()
        made = answer.value.json()
        assert made["rated"] is True and made["state"]["players"][0]["id"] == ela["id"]
        assert made["state"]["move_seconds"] == 60
        page.wait_for_function(JS_HAS_VERSION)
        # the game page shows it as a lobby match's, on the player's turn (the computer's
        # has none)
        clock = page.get_by_test_id("clock")
        expect(clock).to_have_attribute("data-mine", "true")
        expect(clock).to_be_visible()
        assert 0 < int(clock.get_attribute("data-seconds") or "0") <= 60
        # and no hint button: the rating is the player's, not the expert's
        expect(page.get_by_test_id("hint")).to_have_count(0)
        # to other rules it is refused, with the server's reason shown
        page.goto("/")
        form.locator("select[name=opponent]").select_option("easy")
        form.get_by_test_id("more-rules-toggle").click()
        form.locator('input[name="opt-target"]').fill("20")
        page.get_by_test_id("rated").check()
        form.get_by_test_id("start").click()
        expect(page.get_by_test_id("start-error")).to_contain_text("default rules")
        # the player's own page is linked from the start page
        page.get_by_test_id("my-page-link").click()
        expect(page.get_by_test_id("player-name")).to_have_text("Ela")
    assert get(server.base, f"/api/players/{ela['id']}")["ratings"]["luzak"] is None
    # the player's key went in a header only: no address the server logs holds it
    assert urls and not [u for u in urls if ela["key"] in u]


def test_a_rated_computer_match_is_rejoined_from_a_browser_holding_only_the_key(
        ui_rated: Ui, rated: dict[str, Any]) -> None:
    """Uma's rated match against the computer, made elsewhere: a browser holding only her
    key lists it in the lobby's "your live games" (the computer's level, rated, the clock)
    and opens her seat with the token it derives from the key; a casual game made before
    tokens were derived (stored here with a random token) is listed as held elsewhere."""
    server: ServerProcess = rated["server"]
    uma = post(server.base, "/api/players", {"name": "Uma"})
    spec = get_game("luzak-line")
    store = Store(server.db)
    old = secrets.token_urlsafe(9)
    store.create_game(GameRow(
        id=old, game=spec.name, options=spec.options(None).to_dict(), seed=5,
        first_opener=first_opener_by_lot(5), mode="computer", opponent="hard",
        token_hashes=(token_hash(secrets.token_urlsafe(24)), ""),
        rules_version=RULES_VERSION, created=store.clock() - 60, finished=False,
        players=(PlayerRef(uma["id"], "Uma"), None)))
    store.close()
    made = post(server.base, "/api/games", {"game": "luzak-line", "opponent": "easy",
                                            "rated": True, "move_seconds": 300,
                                            "first": "me"}, key=uma["key"])
    gid = made["id"]
    page = ui_rated.new_page("rejoin-elsewhere")
    as_player(page, uma)
    with ui_rated.guard():
        page.goto("/lobby")
        listed = page.get_by_test_id("my-game")
        expect(listed).to_have_count(2)
        mine = listed.nth(0)  # the newest first
        expect(mine).to_have_attribute("data-id", gid)
        expect(mine).to_have_attribute("data-mode", "computer")
        expect(mine).to_contain_text("Computer (easy)")
        expect(mine).to_contain_text("rated")
        expect(mine).to_contain_text("5 min a move")
        elsewhere = listed.nth(1)
        expect(elsewhere).to_have_attribute("data-id", old)
        expect(elsewhere).to_contain_text("Computer (hard)")
        expect(elsewhere).to_contain_text("casual")
        expect(elsewhere.get_by_test_id("device-only")).to_be_visible()
        expect(elsewhere.get_by_test_id("rejoin")).to_have_count(0)
        assert gid not in stored_seats(page)
        mine.get_by_test_id("rejoin").click()
        page.wait_for_url(re.compile(rf"/game/{re.escape(gid)}$"))
        page.wait_for_function(JS_HAS_VERSION)
        assert game_attr(page, "seat") == "0"
        assert stored_seats(page)[gid]["token"] == made["token"]
