"""The spectator's page (/watch/ID, docs/web.md "Spectators") in Debian's Chromium: a
friend game driven over HTTP is watched live, both hands face down, with no control to
play; the seats' own pages say how many watch (the server and the helpers are in
tests/browser.py)."""

from __future__ import annotations

import random
from pathlib import Path

from playwright.sync_api import expect

from browser import GAME, GAME_SEEDS, UNLIMITED, Ui, friend_game_via_api, play_via_api
from dominolab.web.edge.process import ServerProcess, request_json


def test_a_spectator_watches_a_friend_game_live(ui: Ui, server: str) -> None:
    gid, tokens = friend_game_via_api(server, "widelec")
    page = ui.new_page("watch")
    seat = ui.new_page("seat-0")
    with ui.guard():
        page.goto(f"/watch/{gid}")
        game = page.locator(GAME)
        expect(game).to_have_attribute("data-version", "0")
        expect(game).to_have_attribute("data-watch", "true")
        expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "open")
        expect(page.get_by_test_id("watching")).to_have_attribute("data-count", "1")
        expect(page.get_by_test_id("watching")).to_have_text("1 watching")
        # both hands face down, counts only; nothing to play or ask
        expect(page.get_by_test_id("seat-hand")).to_have_attribute("data-count", "7")
        expect(page.get_by_test_id("opponent-hand")).to_have_attribute("data-count", "7")
        expect(page.get_by_test_id("seat-hand").locator(".tile-back")).to_have_count(7)
        expect(page.get_by_test_id("boneyard-pile")).to_have_attribute("data-count", "14")
        for hook in ("hand-tile", "hint", "draw", "pass", "keep", "spot", "table-tile"):
            expect(page.get_by_test_id(hook)).to_have_count(0)
        expect(page.get_by_test_id("scores")).to_be_visible()
        expect(page.get_by_test_id("status")).to_contain_text("Seat 0 to move")

        # the seat's own page counts the spectator
        seat.goto(f"/game/{gid}#t={tokens[0]}")
        expect(seat.get_by_test_id("watching")).to_have_attribute("data-count", "1")
        expect(seat.locator(GAME)).to_have_attribute("data-turn", "me")

        # a move made over HTTP appears on the spectator's page, live
        state = request_json(server, "GET", f"/api/games/{gid}", token=tokens[0])
        lead = next(m for m in state["legal"] if m["kind"] == "lead")
        request_json(server, "POST", f"/api/games/{gid}/moves",
                     {"move": lead["move"], "version": 0}, tokens[0])
        expect(game).to_have_attribute("data-version", "1")
        expect(page.get_by_test_id("table-tile")).to_have_count(1)
        expect(page.get_by_test_id("table-tile")).to_have_attribute("data-tile", lead["tile"])
        expect(page.get_by_test_id("seat-hand")).to_have_attribute("data-count", "6")
        expect(page.get_by_test_id("history").locator("li")).to_have_count(1)
        expect(page.get_by_test_id("history")).to_contain_text("Seat 0")
        expect(page.get_by_test_id("status")).to_contain_text("Seat 1 to move")

        # a second spectator is counted on every page; Polish words for it
        other = ui.new_page("watch-2")
        other.goto(f"/watch/{gid}")
        expect(other.locator(GAME)).to_have_attribute("data-version", "1")
        expect(page.get_by_test_id("watching")).to_have_attribute("data-count", "2")
        expect(seat.get_by_test_id("watching")).to_have_attribute("data-count", "2")
        page.get_by_test_id("lang-pl").click()
        expect(page.get_by_test_id("watching")).to_have_text("2 osoby oglądają")
        expect(page.get_by_test_id("status")).to_contain_text("Ruch: Miejsce 1")
        other.close()
        expect(page.get_by_test_id("watching")).to_have_attribute("data-count", "1")


def test_a_finished_match_shows_its_result_and_replay_to_a_spectator(ui: Ui,
                                                                     server: str) -> None:
    gid, tokens = friend_game_via_api(server, "luzak-line", {"target": 15})
    final = play_via_api(server, gid, tokens, random.Random(5), until="match")
    winner = final["match_result"]["winner"]
    page = ui.new_page("watch-over")
    with ui.guard():
        page.goto(f"/watch/{gid}")
        result = page.get_by_test_id("watch-result")
        expect(result).to_have_attribute("data-kind", "match")
        expect(page.get_by_test_id("watch-verdict")).to_have_text(
            "The match is a draw." if winner is None else f"Seat {winner} won the match.")
        expect(page.get_by_test_id("match-over")).to_have_count(0)  # nothing to dismiss
        result.get_by_test_id("replay").click()
        expect(page).to_have_url(f"{server}/replay/{gid}")
        expect(page.get_by_test_id("replay-frame")).to_have_attribute("data-index", "0")
        page.get_by_test_id("replay-next").click()
        expect(page.get_by_test_id("replay-frame")).to_have_attribute("data-index", "1")
        expect(page.get_by_test_id("replay-frame")).to_contain_text("Seat 0")


def test_watching_a_game_that_does_not_exist(ui: Ui) -> None:
    page = ui.new_page("watch-gone")
    with ui.guard():
        page.goto("/watch/nosuchgame1234")
        expect(page.get_by_test_id("no-token")).to_be_visible()
        expect(page.get_by_test_id("no-token")).to_contain_text("No such game")


def test_a_full_game_says_so_and_lets_the_spectator_try_again(ui: Ui, tmp_path: Path) -> None:
    extra = (*UNLIMITED, "--watchers-per-game", "1")
    with ServerProcess(tmp_path / "full.sqlite3", game_seeds=GAME_SEEDS, extra=extra) as proc:
        gid, tokens = friend_game_via_api(proc.base, "luzak")
        first = ui.new_page("watch-first")
        second = ui.new_page("watch-second")
        seat = ui.new_page("seat-0")
        with ui.guard():
            seat.goto(f"{proc.base}/game/{gid}#t={tokens[0]}")
            first.goto(f"{proc.base}/watch/{gid}")
            expect(first.get_by_test_id("watching")).to_have_attribute("data-count", "1")
            second.goto(f"{proc.base}/watch/{gid}")
            refused = second.get_by_test_id("watch-refused")
            expect(refused).to_have_attribute("data-reason", "full")
            expect(refused).to_contain_text("as many spectators as it takes")
            first.close()
            # the server has seen the first spectator go (the seat's page is told)
            expect(seat.get_by_test_id("watching")).to_have_attribute("data-count", "0")
            refused.get_by_role("button").click()
            expect(second.get_by_test_id("watching")).to_have_attribute("data-count", "1")
            expect(second.locator(GAME)).to_have_attribute("data-version", "0")
