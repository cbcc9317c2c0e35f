"""Your games on any device in the browser (issue 41, must-have 1; docs/web.md, "Your
games on any device"): Ala, in one browser, makes a link code on her page; a second
browser context types it at /link and then plays as her: the same rating, and the same
live game, which it opens in her seat. The real `dominolab serve` under Debian's Chromium."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from browser import JS_HAS_VERSION, Ui, game_attr, make_server, stored_seats
from rawsocket import call
from test_web_e2e_lobby import seek_accepted

pytestmark = pytest.mark.timeout(180)


def test_a_second_device_linked_with_a_code_sees_the_same_rating_and_live_game(
        chromium: Browser, tmp_path: Path) -> None:
    db = tmp_path / "devices.sqlite3"
    with make_server(db) as server:
        ui = Ui(chromium, server.base, tmp_path)
        try:
            with ui.guard():
                a = ui.new_page("A")
                joined = seek_accepted(a, server.base)
                gid = joined["id"]
                ala = a.evaluate("() => JSON.parse(localStorage['dominolab.player'])")
                # a rating of hers, as a finished rated match would leave it
                with sqlite3.connect(db) as conn:
                    conn.execute("INSERT INTO ratings VALUES (?, 'luzak', 1612.4, 80.0, "
                                 "0.06, 7, 0)", (ala["id"],))

                a.goto(f"/player/{ala['id']}")
                expect(a.get_by_test_id("devices-unsafe")).to_be_visible()
                expect(a.get_by_test_id("my-live-game")).to_have_attribute("data-game-id", gid)
                a.get_by_test_id("link-device").click()
                code = a.get_by_test_id("link-code").inner_text()
                assert re.fullmatch(r"[0-9A-Z]{4}-[0-9A-Z]{4}", code), code
                # its QR code, drawn (the page's policy lets a data: image through)
                qr = a.get_by_test_id("link-qr")
                expect(qr).to_be_visible()
                assert qr.evaluate("img => img.complete && img.naturalWidth > 0")

                b = ui.new_page("B", width=390, height=844)
                b.goto("/lobby")
                b.get_by_test_id("link-have-code").click()
                b.wait_for_url(re.compile(r"/link$"))
                b.get_by_test_id("link-code-input").fill(code.lower())
                b.get_by_test_id("link-submit").click()
                expect(b.get_by_test_id("link-done")).to_contain_text("Ala")
                b.get_by_test_id("link-my-page").click()
                b.wait_for_url(re.compile(rf"/player/{re.escape(ala['id'])}$"))
                # the same player, the same rating, the same live game
                expect(b.get_by_test_id("player-you")).to_be_visible()
                a.reload()
                for page in (a, b):
                    rating = page.locator('[data-testid=player-rating][data-game=luzak]')
                    expect(rating).to_have_attribute("data-rating", "1612.4")
                    expect(rating).to_contain_text("1612")
                expect(b.get_by_test_id("devices-safe")).to_be_visible()
                expect(a.get_by_test_id("devices-safe")).to_be_visible()
                listed = b.get_by_test_id("my-live-game")
                expect(listed).to_have_count(1)
                expect(listed).to_have_attribute("data-game-id", gid)
                expect(listed).to_contain_text("Ola")
                # a second claim of the code is refused
                assert call(server.base, "POST", "/api/codes", {"code": code})[0] == 404
                listed.get_by_test_id("open-live-game").click()
                b.wait_for_url(re.compile(rf"/game/{re.escape(gid)}$"))
                b.wait_for_function(JS_HAS_VERSION)
                assert game_attr(b, "seat") == "0"
                assert stored_seats(b)[gid]["token"] == stored_seats(a)[gid]["token"]
                assert b.evaluate("() => JSON.parse(localStorage['dominolab.player']).key") \
                    == ala["key"]
        finally:
            ui.close()
