"""The featured live game on the home page and a spectator's seats with their ratings
(docs/web.md, "The featured game")."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from browser import STEP_MS, Ui, game_id_of, new_game
from dominolab.players.ratings import LEVEL_RATINGS


def test_the_home_page_features_a_live_game_and_its_spectator_sees_ratings(ui: Ui) -> None:
    player = ui.new_page("player")
    watcher = ui.new_page("watcher")
    with ui.guard():
        new_game(player, "luzak", "easy")
        gid = game_id_of(player)
        watcher.goto("/")
        panel = watcher.get_by_test_id("featured")
        # read again every few seconds: the game shows without a reload
        expect(panel).to_have_attribute("data-game", gid, timeout=3 * STEP_MS)
        easy = round(LEVEL_RATINGS["luzak"]["easy"])
        expect(panel.get_by_test_id("featured-players")).to_contain_text(
            f"Guest vs Computer (easy, {easy})")
        watcher.get_by_test_id("featured-watch").click()
        watcher.wait_for_url(re.compile(f"/watch/{gid}$"))
        expect(watcher.get_by_test_id("players")).to_have_text(
            f"Watching: Guest vs Computer (easy, {easy})")
        expect(watcher.locator('[data-testid="hand-tile"]')).to_have_count(0)
