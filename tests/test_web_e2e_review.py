"""The review in the browser (docs/web.md, "Review"; issue 41, must-have 5), through
Debian's Chromium: after a hand the end-of-hand screen shows the costliest move and the
better move lit on the table; a finished match's replay shows the match's review and the
graph of the win chance; both languages."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from browser import Ui, friend_game_via_api, hand_over_screen, play_via_api
from dominolab.web.edge.process import request_json
from test_web_a11y import blocking_violations


def reviewed(server: str, until: str, options: dict[str, Any]
             ) -> tuple[str, str, dict[str, Any]]:
    """A friend game played at random over HTTP to the end of its first hand (or the
    match), whose review for seat 0 lists a costly move: its id, seat 0's token and that
    review (worked out now, so the page gets the same one, kept)."""
    for attempt in range(10):
        gid, tokens = friend_game_via_api(server, "luzak", options)
        play_via_api(server, gid, tokens, random.Random(40 + attempt), until=until)
        review = request_json(server, "GET", f"/api/games/{gid}/review?seat=0",
                              token=tokens[0])
        costly = review["hands"][0]["costly"] if until == "hand" else review["costly"]
        if costly:
            return gid, tokens[0], review
    raise AssertionError("no random game in 10 whose review lists a costly move")


def test_after_a_hand_the_review_shows_the_costliest_move_on_the_table(
        ui: Ui, server: str) -> None:
    gid, token, review = reviewed(server, "hand", {"target": 500})
    top = review["hands"][0]["costly"][0]
    page = ui.new_page("review-hand")
    with ui.guard():
        over = hand_over_screen(page, gid, token)
        panel = over.get_by_test_id("review")
        expect(panel).to_have_attribute("data-state", "ready")
        expect(panel).to_contain_text("Review of hand 1")
        item = panel.get_by_test_id("review-item").first
        expect(item).to_have_attribute("data-move", top["move"])
        expect(item).to_have_attribute("data-better", top["better_move"])
        expect(item.get_by_test_id("review-cost")).to_contain_text("win chance (±")
        expect(item.get_by_test_id("review-better")).to_contain_text(f"Better: {top['better']}")
        if top["preview"] is not None:  # a tile laid: lit where it would have gone
            better = item.get_by_test_id("review-better-tile")
            expect(better).to_have_attribute("data-tile", top["preview"]["tile"])
            expect(better).to_have_attribute("aria-label", re.compile("the better move$"))
        # the same screen in Polish (the language buttons are behind the screen: reload)
        page.evaluate("() => localStorage.setItem('dominolab/lang', 'pl')")
        page.reload()
        panel = page.get_by_test_id("hand-over").get_by_test_id("review")
        expect(panel).to_have_attribute("data-state", "ready")
        expect(panel).to_contain_text("Przegląd partii 1")
        expect(panel.get_by_test_id("review-better").first).to_contain_text(
            f"Lepiej: {top['better']}")


def test_the_replay_shows_the_matchs_review_and_the_graph(ui: Ui, server: str) -> None:
    gid, _token, review = reviewed(server, "match", {"target": 40})
    page = ui.new_page("review-replay")
    with ui.guard():
        page.goto("/")
        page.get_by_test_id("lang-en").click()
        page.goto(f"/replay/{gid}")  # no seat here: the public replay, seat 0's review
        panel = page.get_by_test_id("review")
        expect(panel).to_have_attribute("data-state", "ready")
        # a visitor is not the seat: the review names whose play it is, never "your"
        seat0 = page.get_by_test_id("review-seat-0")
        expect(seat0).to_have_attribute("aria-pressed", "true")
        name = seat0.inner_text()
        expect(panel).to_contain_text(f"Review of {name}'s match")
        expect(panel).not_to_contain_text("your")
        items = panel.get_by_test_id("review-item")
        expect(items).to_have_count(len(review["costly"]))
        expect(items.first).to_have_attribute("data-move", review["costly"][0]["move"])
        curve = panel.get_by_test_id("review-curve")
        expect(curve).to_have_attribute("data-points", str(len(review["curve"])))
        expect(curve).to_have_attribute(
            "aria-label", re.compile(f"^{re.escape(name)}'s win chance over the match: "))
        # "Show in the replay" goes to the position before that move
        items.first.get_by_role("button").click()
        expect(page.get_by_test_id("replay-frame")).to_have_attribute(
            "data-index", str(review["costly"][0]["frame"]))
        # the other seat's review, by its button
        other = request_json(server, "GET", f"/api/games/{gid}/review?seat=1")
        page.get_by_test_id("review-seat-1").click()
        expect(page.get_by_test_id("review-seat-1")).to_have_attribute("aria-pressed", "true")
        panel = page.get_by_test_id("review")
        expect(panel).to_have_attribute("data-state", "ready")
        expect(panel).to_contain_text(
            f"Review of {page.get_by_test_id('review-seat-1').inner_text()}'s match")
        expect(panel.get_by_test_id("review-curve")).to_have_attribute(
            "data-points", str(len(other["curve"])))
        if other["costly"]:
            expect(panel.get_by_test_id("review-item").first).to_have_attribute(
                "data-move", other["costly"][0]["move"])
        page.evaluate("() => localStorage.setItem('dominolab/lang', 'pl')")
        page.reload()
        panel = page.get_by_test_id("review")
        expect(panel).to_have_attribute("data-state", "ready")
        name = page.get_by_test_id("review-seat-0").inner_text()
        expect(panel).to_contain_text(f"Przegląd rozgrywki: {name}")
        expect(panel).not_to_contain_text("twoj")
        expect(panel.get_by_test_id("review-curve")).to_have_attribute(
            "aria-label", re.compile(f"^{re.escape(name)}: szansa wygranej w trakcie rozgrywki: "))


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_the_review_passes_axe_at_both_widths_in_both_languages(
        ui: Ui, server: str, size: tuple[int, int]) -> None:
    """The replay's review and an end-of-hand screen's, once drawn: no serious or critical
    axe violation, in English and in Polish."""
    match, _token, _review = reviewed(server, "match", {"target": 40})
    gid, token, _review = reviewed(server, "hand", {"target": 500})
    # no motion: axe reads the colours of a screen still fading in as too faint
    page = ui.new_page(f"review-axe-{size[0]}", width=size[0], height=size[1],
                       reduced_motion="reduce")
    with ui.guard():
        page.goto("/")
        for lang in ("en", "pl"):
            page.evaluate(f"() => localStorage.setItem('dominolab/lang', '{lang}')")
            for path, scope in ((f"/replay/{match}", page),
                                (f"/game/{gid}#t={token}", page.get_by_test_id("hand-over"))):
                # from another path: a change of the hash alone would not load the page (a
                # reload instead could come before the page has kept the token it was given)
                page.goto("/")
                page.goto(path)
                panel = scope.get_by_test_id("review")
                expect(panel).to_have_attribute("data-state", "ready")
                expect(page.locator("html")).to_have_attribute("lang", lang)
                found = blocking_violations(page)
                assert not found, f"{path} ({lang}, {size}): {found}"
