"""Told when it's your turn, and the canned messages, in the browser (docs/web.md, "Told
when it's your turn", "Messages during a game"): a friend game in two browsers, the waiting
page made hidden; the opponent's move marks its title and icon and, with notifications
allowed, makes a notification; in view again, both are as they were. The lobby's seek taken
in a hidden tab marks it too. A phrase goes from one browser to the other, and a page with
messages off neither shows nor offers them. Helpers in tests/browser.py."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from browser import (
    JS_HAS_VERSION,
    Ui,
    friend_game_via_api,
    make_move,
    make_server,
    play_via_api,
    start_friend_game,
    wait_status,
)
from test_web_e2e_lobby import choose_name

pytestmark = pytest.mark.timeout(180)

#: records every notification the page makes (the real one may not show when headless)
RECORD_NOTES = """(() => {
  const Real = window.Notification;
  window.__notes = [];
  window.__asked = 0;
  function Recorded(title, options) {
    window.__notes.push({ title, body: options && options.body });
    return new Real(title, options);
  }
  Object.defineProperty(Recorded, "permission", { get: () => Real.permission });
  Recorded.requestPermission = (...args) => {
    window.__asked += 1;
    return Real.requestPermission(...args);
  };
  window.Notification = Recorded;
})();"""

#: the tab hidden (true) or in view (false), as a browser says it when the tab changes
JS_SET_HIDDEN = """(hidden) => {
  Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
  Object.defineProperty(document, "visibilityState", { configurable: true,
    get: () => (hidden ? "hidden" : "visible") });
  document.dispatchEvent(new Event("visibilitychange"));
}"""

JS_ICON = "() => document.querySelector('link[rel=\"icon\"]').getAttribute('href')"


def notes(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate("() => window.__notes")
    return found


def test_a_hidden_tab_is_told_of_its_turn_and_restored(ui: Ui, server: str) -> None:
    with ui.guard():
        a, b = start_friend_game(ui)
        # B allows notifications with a click of "Notify me" (never asked for on load)
        b.context.add_init_script(RECORD_NOTES)
        b.reload()
        b.wait_for_function(JS_HAS_VERSION)
        ask = b.get_by_test_id("notify-ask")
        expect(ask).to_have_text("Notify me")
        assert b.evaluate("() => window.__asked") == 0
        b.context.grant_permissions(["notifications"], origin=server)
        ask.click()
        assert b.evaluate("() => window.__asked") == 1
        expect(ask).to_have_text("Notifications on")
        title, icon = b.title(), b.evaluate(JS_ICON)
        assert not title.startswith("●") and not icon.startswith("data:")
        # in view, the page's own moves and the opponent's change nothing
        deadline = time.monotonic() + 60
        assert wait_status(a, deadline) == "me"
        b.evaluate(JS_SET_HIDDEN, True)
        make_move(a, deadline)
        b.wait_for_function("() => document.title.startsWith('● Your turn')")
        assert b.evaluate(JS_ICON).startswith("data:image/svg+xml")
        assert notes(b) == [{"title": "Your turn", "body": "Luzak: your move."}]
        assert notes(a) is None or notes(a) == []
        assert not a.title().startswith("●")
        b.evaluate(JS_SET_HIDDEN, False)
        b.wait_for_function("(t) => document.title === t", arg=title)
        assert b.evaluate(JS_ICON) == icon


def test_a_page_that_was_not_allowed_makes_no_notification(ui: Ui, server: str) -> None:
    with ui.guard():
        a, b = start_friend_game(ui)
        b.context.add_init_script(RECORD_NOTES)
        b.reload()
        b.wait_for_function(JS_HAS_VERSION)
        deadline = time.monotonic() + 60
        assert wait_status(a, deadline) == "me"
        b.evaluate(JS_SET_HIDDEN, True)
        make_move(a, deadline)
        b.wait_for_function("() => document.title.startsWith('● Your turn')")
        assert notes(b) == []


def test_a_seek_taken_in_a_hidden_tab_marks_it(chromium: Browser, tmp_path: Path) -> None:
    with make_server(tmp_path / "lobby.sqlite3") as server:
        ui = Ui(chromium, server.base, tmp_path)
        try:
            with ui.guard():
                a = ui.new_page("A")
                a.context.add_init_script(RECORD_NOTES)
                choose_name(a, "Ala")
                assert a.evaluate("() => window.__asked") == 0
                a.context.grant_permissions(["notifications"], origin=server.base)
                a.get_by_test_id("notify-ask").click()
                expect(a.get_by_test_id("notify-ask")).to_have_text("Notifications on")
                a.get_by_test_id("new-seek").get_by_test_id("open-seek").click()
                expect(a.get_by_test_id("seek-waiting")).to_be_visible()
                a.evaluate(JS_SET_HIDDEN, True)
                b = ui.new_page("B")
                choose_name(b, "Ola")
                b.get_by_test_id("seek").filter(has_text="Ala").get_by_test_id(
                    "seek-accept").click()
                a.wait_for_url(re.compile(r"/game/[^/#?]+$"))
                a.wait_for_function(JS_HAS_VERSION)
                assert re.match(r"● (Your seek was taken|Your turn) — ", a.title()), a.title()
                titles = [n["title"] for n in notes(a)]
                assert titles[0] == "Your seek was taken", titles
                a.evaluate(JS_SET_HIDDEN, False)
                a.wait_for_function("() => !document.title.startsWith('●')")
        finally:
            ui.close()


def test_a_message_between_two_browsers_and_the_off_switch(ui: Ui) -> None:
    with ui.guard():
        a, b = start_friend_game(ui)
        a.get_by_test_id("chat-phrases").get_by_role("button", name="Good luck").click()
        expect(b.get_by_test_id("chat-log")).to_have_text("Opponent: Good luck")
        expect(a.get_by_test_id("chat-log")).to_have_text("You: Good luck")
        # B turns messages off: neither shown nor sendable
        b.get_by_test_id("chat-toggle").click()
        expect(b.get_by_test_id("chat-toggle")).to_have_attribute("aria-pressed", "false")
        expect(b.get_by_test_id("chat-phrases")).to_be_hidden()
        expect(b.get_by_test_id("chat-log")).to_be_hidden()
        expect(b.get_by_test_id("chat-off")).to_be_visible()
        a.get_by_test_id("chat-phrases").get_by_role("button", name="Thanks").click()
        expect(a.get_by_test_id("chat-log").locator("li")).to_have_count(2)
        # kept across a reload; on again, only what comes after shows (messages arrive in
        # order, so "Thanks" reached B before "Good game" did)
        b.reload()
        b.wait_for_function(JS_HAS_VERSION)
        expect(b.get_by_test_id("chat-toggle")).to_have_attribute("aria-pressed", "false")
        b.get_by_test_id("chat-toggle").click()
        a.get_by_test_id("chat-phrases").get_by_role("button", name="Good game").click()
        expect(b.get_by_test_id("chat-log")).to_have_text("Opponent: Good game")
        # and B, with messages on again, can send one back
        b.get_by_test_id("chat-phrases").get_by_role("button", name="Well played").click()
        expect(a.get_by_test_id("chat-log").locator("li").last).to_have_text(
            "Opponent: Well played")


def test_a_match_over_in_a_hidden_tab_marks_it_and_notifies(ui: Ui, server: str) -> None:
    """The match ends while seat 1's tab is hidden (both seats play over HTTP): the title
    says "The match is over", the icon has its dot, and the one notification made last is
    the match's end, named by its game; in view again, the title and icon are restored."""
    gid, tokens = friend_game_via_api(server, "widelec", {"target": 15})
    page = ui.new_page("over")
    with ui.guard():
        page.context.add_init_script(RECORD_NOTES)
        page.goto("/")
        page.get_by_test_id("lang-en").click()
        page.goto(f"/game/{gid}#t={tokens[1]}")
        page.wait_for_function(JS_HAS_VERSION)
        page.context.grant_permissions(["notifications"], origin=server)
        page.get_by_test_id("notify-ask").click()
        expect(page.get_by_test_id("notify-ask")).to_have_text("Notifications on")
        title, icon = page.title(), page.evaluate(JS_ICON)
        page.evaluate(JS_SET_HIDDEN, True)
        final = play_via_api(server, gid, tokens, random.Random(5), until="match")
        assert final["match_result"] is not None
        page.wait_for_function("() => document.title.startsWith('● The match is over — ')")
        assert page.evaluate(JS_ICON).startswith("data:image/svg+xml")
        game_name = page.evaluate(
            "async () => (await import('/static/js/i18n.js')).t('game.widelec')")
        made = notes(page)
        assert made and made[-1] == {"title": "The match is over", "body": game_name}, made
        assert [n for n in made if n["title"] == "The match is over"] == [made[-1]], made
        expect(page.get_by_test_id("match-over")).to_be_attached()
        page.evaluate(JS_SET_HIDDEN, False)
        page.wait_for_function("(t) => !document.title.startsWith('●')", arg=title)
        assert page.evaluate(JS_ICON) == icon
