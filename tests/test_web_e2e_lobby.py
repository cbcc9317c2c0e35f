"""The lobby in the browser (docs/web.md, "The lobby"): two people, each in a browser of
their own, choose names; one opens a seek, the other accepts it, and both land in the game
with both names shown and the clock running. The real `dominolab serve` (a database of its
own, so the names are free) under Debian's Chromium; helpers in tests/browser.py."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from browser import JS_HAS_VERSION, Ui, game_attr, game_id_of, make_server, stored_seats
from rawsocket import call, lobby_hello

pytestmark = pytest.mark.timeout(180)


def choose_name(page: Page, name: str) -> None:
    page.goto("/lobby")
    dialog = page.get_by_test_id("name-dialog")
    expect(dialog).to_be_visible()
    dialog.locator("input[name=name]").fill(name)
    page.get_by_test_id("name-submit").click()
    expect(page.get_by_test_id("lobby-player-name")).to_have_text(name)
    expect(page.get_by_test_id("lobby-connection")).to_have_attribute("data-state", "open")


def seek_accepted(page: Page, base: str) -> dict[str, Any]:
    """Ala, on ``page``, opens a seek in the lobby and Ola (made over the API) accepts it:
    her accept's answer (the game's id, her seat and token), once Ala's page is on it."""
    choose_name(page, "Ala")
    page.get_by_test_id("new-seek").get_by_test_id("open-seek").click()
    mine = page.locator('[data-testid=seek][data-mine="true"]')
    expect(mine).to_have_count(1)
    seek = mine.get_attribute("data-id") or ""
    ola = call(base, "POST", "/api/players", {"name": "Ola"})[1]
    status, joined = call(base, "POST", f"/api/seeks/{seek}/accept", {}, key=ola["key"])
    assert status == 201, joined
    page.wait_for_url(re.compile(rf"/game/{re.escape(joined['id'])}$"))
    answer: dict[str, Any] = joined
    return answer


def test_two_players_meet_in_the_lobby_and_play(chromium: Browser, tmp_path: Path) -> None:
    with make_server(tmp_path / "lobby.sqlite3") as server:
        ui = Ui(chromium, server.base, tmp_path)
        urls: list[str] = []
        try:
            with ui.guard():
                a = ui.new_page("A")
                a.on("request", lambda r: urls.append(r.url))
                a.on("websocket", lambda ws: urls.append(ws.url))
                choose_name(a, "Ala")
                expect(a.get_by_test_id("no-seeks")).to_be_visible()
                form = a.get_by_test_id("new-seek")
                form.locator("select[name=move_seconds]").select_option("60")
                form.get_by_test_id("open-seek").click()
                expect(a.locator('[data-testid=seek][data-mine="true"]')).to_have_count(1)
                expect(a.get_by_test_id("seek-waiting")).to_be_visible()

                b = ui.new_page("B")
                b.on("request", lambda r: urls.append(r.url))
                b.on("websocket", lambda ws: urls.append(ws.url))
                choose_name(b, "Ola")
                seek = b.get_by_test_id("seek").filter(has_text="Ala")
                expect(seek).to_have_count(1)
                expect(seek).to_contain_text("1 min")
                seek.get_by_test_id("seek-accept").click()

                for page in (a, b):
                    page.wait_for_url(re.compile(r"/game/[^/#?]+$"))
                    page.wait_for_function(JS_HAS_VERSION)
                gid = game_id_of(a)
                assert game_id_of(b) == gid
                assert (game_attr(a, "seat"), game_attr(b, "seat")) == ("0", "1")
                expect(a.get_by_test_id("players")).to_have_text("Ala vs Ola")
                expect(b.get_by_test_id("players")).to_have_text("Ola vs Ala")
                for page in (a, b):
                    clock = page.get_by_test_id("clock")
                    expect(clock).to_be_visible()
                    seconds = int(clock.get_attribute("data-seconds") or "0")
                    assert 0 < seconds <= 60, seconds
                    expect(page.get_by_test_id("hint")).to_have_count(0)
                # whose move it is, the clock says by name on the other page
                mover, other = (a, b) if game_attr(a, "turn") == "me" else (b, a)
                expect(mover.get_by_test_id("clock")).to_have_attribute("data-mine", "true")
                name = "Ala" if mover is a else "Ola"
                expect(other.get_by_test_id("clock")).to_contain_text(name)
                # the seats' tokens and the players' keys never were in a URL
                secrets = [stored_seats(p)[gid]["token"] for p in (a, b)]
                secrets += [p.evaluate("() => JSON.parse(localStorage['dominolab.player']).key")
                            for p in (a, b)]
                assert len(set(secrets)) == 4
                for url in urls:
                    for secret in secrets:
                        assert secret not in url, url
        finally:
            ui.close()


def test_a_matched_seek_is_acknowledged_and_the_live_game_rejoined_from_another_device(
        chromium: Browser, tmp_path: Path) -> None:
    """Ala's page is told her seek was accepted, keeps her seat and acknowledges it (her
    next lobby socket is told nothing); on another device holding only her key, the lobby
    lists the live game and opens her seat (its token derived from the key)."""
    with make_server(tmp_path / "lobby.sqlite3") as server:
        ui = Ui(chromium, server.base, tmp_path)
        try:
            with ui.guard():
                a = ui.new_page("A")
                joined = seek_accepted(a, server.base)
                gid = joined["id"]
                a.wait_for_function(JS_HAS_VERSION)
                assert game_attr(a, "seat") == "0"
                player = a.evaluate("() => localStorage['dominolab.player']")
                key = json.loads(player)["key"]
                # acknowledged: a lobby socket of hers now is told nothing
                ws, _welcome = lobby_hello(server.base, key)
                ws.send({"type": "ping"})
                kinds = [ws.receive()["type"]]
                while kinds[-1] != "pong" and len(kinds) < 10:
                    kinds.append(ws.receive()["type"])
                ws.close()
                assert kinds[-1] == "pong" and "matched" not in kinds, kinds

                other = ui.new_page("A elsewhere")
                other.goto("/")
                other.evaluate("(p) => localStorage.setItem('dominolab.player', p)", player)
                other.goto("/lobby")
                listed = other.get_by_test_id("my-game")
                expect(listed).to_have_count(1)
                expect(listed).to_have_attribute("data-id", gid)
                expect(listed).to_have_attribute("data-seat", "0")
                expect(listed).to_contain_text("Ola")
                assert gid not in stored_seats(other)
                listed.get_by_test_id("rejoin").click()
                other.wait_for_url(re.compile(rf"/game/{re.escape(gid)}$"))
                other.wait_for_function(JS_HAS_VERSION)
                assert game_attr(other, "seat") == "0"
                expect(other.get_by_test_id("players")).to_have_text("Ala vs Ola")
                assert stored_seats(other)[gid]["token"] == stored_seats(a)[gid]["token"]
        finally:
            ui.close()
