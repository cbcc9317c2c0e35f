"""The featured live game on the home page and a spectator's seats with their ratings
(docs/web.md, "The featured game")."""

from __future__ import annotations

import re
from collections.abc import Iterator
from importlib.resources import files

import pytest
from playwright.sync_api import expect

from browser import STEP_MS, Ui, game_id_of, make_server, new_game
from dominolab.players.ratings import LEVEL_RATINGS
from dominolab.web.community.featured import FEATURED_SECONDS
from dominolab.web.edge.process import request_json
from loops import until

_POLL = re.search(r"const FEATURED_POLL_MS = (\d+);", (
    files("dominolab.web") / "static" / "js" / "featured.js").read_text(encoding="utf-8"))
assert _POLL is not None, "static/js/featured.js no longer says FEATURED_POLL_MS"
#: how often the panel reads the featured game again, as static/js/featured.js says
FEATURED_POLL_MS = int(_POLL[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of this module's own: the featured game is the one the test makes, not a
    game another test left going on the session's server."""
    with make_server(tmp_path_factory.mktemp("featured") / "featured.sqlite3") as proc:
        yield proc.base


def test_the_home_page_features_a_live_game_and_its_spectator_sees_ratings(ui: Ui) -> None:
    player = ui.new_page("player")
    watcher = ui.new_page("watcher")
    with ui.guard():
        # the watcher's start page first, with no game going on; its clock is the test's, so
        # the panel's next reading (FEATURED_POLL_MS on) is not waited for in real time
        watcher.clock.install()
        watcher.goto("/")
        panel = watcher.get_by_test_id("featured")
        expect(panel.get_by_test_id("featured-none")).to_be_visible()
        new_game(player, "luzak", "easy")
        gid = game_id_of(player)
        # the server keeps its choice (no game) for FEATURED_SECONDS, then finds this one
        until(lambda: (request_json(ui.base_url, "GET", "/api/featured")["featured"]
                       or {}).get("id") == gid, 6 * FEATURED_SECONDS,
              "the server featuring the new game")
        # read again every FEATURED_POLL_MS: the game shows without a reload
        watcher.clock.run_for(FEATURED_POLL_MS)
        expect(panel).to_have_attribute("data-game", gid)
        easy = round(LEVEL_RATINGS["luzak"]["easy"])
        expect(panel.get_by_test_id("featured-players")).to_contain_text(
            f"Guest vs Computer (easy, {easy})")
        watcher.goto("/lobby")  # the lobby shows it too
        expect(watcher.get_by_test_id("featured")).to_have_attribute("data-game", gid,
                                                                     timeout=3 * STEP_MS)
        watcher.get_by_test_id("featured-watch").click()
        watcher.wait_for_url(re.compile(f"/watch/{gid}$"))
        expect(watcher.get_by_test_id("players")).to_have_text(
            f"Watching: Guest vs Computer (easy, {easy})")
        expect(watcher.locator('[data-testid="hand-tile"]')).to_have_count(0)


def test_a_spectator_on_a_phone_sees_who_plays_everywhere_on_the_page(ui: Ui) -> None:
    """At 390 px the names and ratings are on a line of their own (a player's page hides
    it: the opponent's name is on their side of the table), and the score table and the
    turn line name the computer by its level, not "Seat 1"."""
    player = ui.new_page("player")
    watcher = ui.new_page("phone-watcher", width=390, height=844)
    with ui.guard():
        new_game(player, "luzak", "easy")
        gid = game_id_of(player)
        watcher.goto("/")
        watcher.get_by_test_id("lang-en").click()
        watcher.goto(f"/watch/{gid}")
        easy = round(LEVEL_RATINGS["luzak"]["easy"])
        players = watcher.get_by_test_id("players")
        expect(players).to_have_text(f"Watching: Guest vs Computer (easy, {easy})")
        expect(players).to_be_visible()
        scores = watcher.get_by_test_id("scores")
        expect(scores).to_contain_text("Computer (easy)")
        expect(scores).not_to_contain_text("Seat 1")
