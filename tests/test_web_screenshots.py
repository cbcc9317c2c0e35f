"""The README's pictures ("What it looks like"), taken in Debian's Chromium as a person sees
the app: a Luzak game against the computer at 1280 px, a Widelec game on a 390 px phone, a
tutorial lesson and a page of the player's guide.

Every run takes them (so a broken page fails here) into the test's tmp dir;
``make screenshots`` sets ``DOMINOLAB_SCREENSHOTS=docs/screenshots`` and the same test
writes the committed files. The tests' server deals from a fixed seed, so the pictures
change only when the page does.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from browser import HAND_SECONDS, Ui, new_game, play_moves, wait_status

PHONE = (390, 844)
DESKTOP = (1280, 800)


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where the pictures go: docs/screenshots under ``make screenshots``, else tmp."""
    target = os.environ.get("DOMINOLAB_SCREENSHOTS")
    folder = Path(target) if target else tmp_path / "shots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def settle(page: Page) -> None:
    """Let the page finish drawing: no running animations, fonts loaded."""
    page.wait_for_function("() => document.fonts.status === 'loaded'"
                           " && document.getAnimations().every(a => a.playState !== 'running')")


def shoot(page: Page, folder: Path, name: str) -> Path:
    settle(page)
    path = folder / f"{name}.png"
    page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000, f"{path} is suspiciously small"
    return path


def test_screenshots_of_games(ui: Ui, shots: Path) -> None:
    with ui.guard():
        page = ui.new_page("luzak-desktop", *DESKTOP)
        new_game(page, "luzak", opponent="easy", first="me")
        deadline = time.monotonic() + HAND_SECONDS
        play_moves(page, 4, deadline)
        assert wait_status(page, deadline) == "me"
        shoot(page, shots, "luzak-1280")

        phone = ui.new_page("widelec-phone", *PHONE)
        new_game(phone, "widelec", opponent="easy", first="me")
        deadline = time.monotonic() + HAND_SECONDS
        play_moves(phone, 2, deadline)
        assert wait_status(phone, deadline) == "me"
        expect(phone.get_by_test_id("hand-tile").first).to_be_in_viewport()
        shoot(phone, shots, "widelec-390")


def test_screenshots_of_learning(ui: Ui, shots: Path) -> None:
    with ui.guard():
        page = ui.new_page("tutorial", DESKTOP[0], 1000)
        page.goto("/learn/luzak")
        lesson = page.get_by_test_id("lesson")
        expect(lesson).to_have_attribute("data-state", "play")
        # the first lesson's goal is §6 L1's lead, [6|5], which scores 11
        page.locator('[data-testid="lesson-tile"][data-tile="65"]').click()
        page.locator('[data-testid="spot"]').filter(visible=True).first.click()
        expect(page.get_by_test_id("lesson-explain")).to_have_attribute("data-result", "goal")
        page.evaluate("window.scrollTo(0, 0)")
        shoot(page, shots, "tutorial-1280")

        phone = ui.new_page("guide-phone", *PHONE)
        phone.goto("/rules/luzak")
        expect(phone.get_by_test_id("guide")).to_have_attribute("data-ready", "true")
        diagram = phone.get_by_test_id("guide-diagram").first
        diagram.scroll_into_view_if_needed()
        expect(diagram.locator("svg[role=img]")).to_be_visible()
        shoot(phone, shots, "guide-390")
