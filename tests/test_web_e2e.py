"""End-to-end tests of the web app (docs/web.md): the real `dominolab serve` in a subprocess,
driven through Debian's Chromium by Playwright the way a person uses it, by clicks and keys
(the server, the browser and the helpers are in tests/browser.py).
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
import time
from pathlib import Path
from typing import Any, cast

import pytest
from playwright.sync_api import (
    Browser,
    Locator,
    Page,
    Route,
    expect,
)

from browser import (
    GAME,
    GAMES,
    HAND_SECONDS,
    JS_CHOOSE_OR_MOVED,
    JS_HAS_VERSION,
    JS_HISTORY_IS_VERSION,
    JS_PICKED,
    JS_STATUS,
    JS_TABLE_COUNT,
    JS_VERSION_IS,
    PLAYABLE,
    STEP_MS,
    Ui,
    assert_hands_disjoint,
    friend_game_via_api,
    game_attr,
    game_id_of,
    hand_over_screen,
    hand_tiles,
    invitation_of,
    left_ms,
    make_move,
    make_server,
    new_game,
    play_moves,
    play_via_api,
    shown,
    start_friend_game,
    start_friend_game_with_link,
    stored_seats,
    table_count,
    wait_status,
    wait_turn_of,
    wait_version_change,
)
from dominolab.core import Match, Play, replay
from dominolab.web.edge.process import ServerProcess, request_json

# -- the tests -------------------------------------------------------------------------------

#: after my play: the table has more tiles, or the hand is over, or the next one began
JS_PLAY_SHOWN = ("([before, hand]) => { const status = (" + JS_STATUS + ")(); "
                 "const g = document.querySelector('[data-testid=\"game\"]'); "
                 "return status === 'hand-over' || status === 'match-over' "
                 "|| (g !== null && g.dataset.hand !== hand) || (" + JS_TABLE_COUNT
                 + ")() > before; }")

#: the status, the hand and the table-tile count, read at one moment
JS_STATUS_HAND_TABLE = ("() => { const g = document.querySelector('[data-testid=\"game\"]'); "
                        "return [(" + JS_STATUS + ")(), g === null ? '' : g.dataset.hand, ("
                        + JS_TABLE_COUNT + ")()]; }")


@pytest.mark.parametrize("game", GAMES)
def test_full_hand_by_clicking(ui: Ui, game: str) -> None:
    page = ui.new_page(game)
    with ui.guard():
        new_game(page, game, opponent="easy")
        assert game_attr(page, "hand") == "1"
        deadline = time.monotonic() + HAND_SECONDS
        moves = 0
        while True:
            status = wait_status(page, deadline)
            if status != "me":
                break
            before = table_count(page)
            hand = game_attr(page, "hand")
            kind = make_move(page, deadline)
            moves += 1
            if kind == "play":
                # the play shows on the table, unless it ended the hand: then the hand's end
                # (whose panel may come a moment after the new version) or the next hand
                page.wait_for_function(JS_PLAY_SHOWN, arg=[before, hand],
                                       timeout=left_ms(deadline))
            # status, hand and table read together: read one by one, the computer's reply
            # that ends the hand can land between them (the next hand's empty table)
            status_now, hand_now, after = page.evaluate(JS_STATUS_HAND_TABLE)
            if status_now in ("hand-over", "match-over") or hand_now != hand:
                continue
            if kind == "play":
                assert after > before, f"table-tile count {before} -> {after} after a play"
                # one li per move; in hand 1 that is every move of the match so far (read
                # together: the computer may move between two separate reads)
                page.wait_for_function(JS_HISTORY_IS_VERSION, arg=hand, timeout=5000)
                if game_attr(page, "hand") != hand:
                    continue  # the computer's reply ended the hand meanwhile
                expect(page.get_by_test_id("scores")).to_contain_text(re.compile(r"\d"))
                if game != "widelec":
                    expect(page.get_by_test_id("count")).to_have_text(re.compile(r"\d"))
                    expect(page.get_by_test_id("n")).to_have_text(re.compile(r"\d"))
        assert moves >= 1, "the hand ended before I moved"
        if status == "hand-over":
            expect(page.get_by_test_id("hand-over")).to_be_visible()
            page.get_by_test_id("next-hand").click()
            expect(page.get_by_test_id("hand-over")).to_be_hidden()
            expect(page.locator(GAME)).to_have_attribute("data-hand", "2")
            status = wait_status(page, deadline)
            assert status == "me", f"hand 2 did not come to my turn ({status!r})"
        else:
            # Only Widelec may end a match in its first hand (61 points at once).
            assert game == "widelec", f"{game}: match over after one hand at target 61"


def test_keyboard_moves(ui: Ui) -> None:
    page = ui.new_page("keyboard")
    with ui.guard():
        new_game(page, "luzak", opponent="easy", first="me")
        deadline = time.monotonic() + 60
        made = 0
        while made < 2:
            assert wait_status(page, deadline) == "me"
            tiles = page.locator('[data-testid="hand-tile"]').all()
            playable = [i for i, t in enumerate(tiles)
                        if t.get_attribute("data-playable") == "true"]
            assert playable, "my turn in Luzak without a playable tile"
            if playable[0] >= 10:  # only the first ten tiles have keys: play by mouse
                make_move(page, deadline)
                continue
            index = playable[0]
            old = game_attr(page, "version")
            page.keyboard.press("0" if index == 9 else str(index + 1))
            picked = cast(str, page.wait_for_function(JS_PICKED, arg=old,
                                                      timeout=STEP_MS).json_value())
            assert picked != "moved", "a digit key alone played the tile (Enter should)"
            page.keyboard.press("Enter")
            if page.wait_for_function(JS_CHOOSE_OR_MOVED, arg=old,
                                      timeout=STEP_MS).json_value() == "choose":
                page.keyboard.press("Enter")
            wait_version_change(page, old, deadline, f"keys {index + 1} and Enter")
            assert int(game_attr(page, "version")) > int(old)
            made += 1


def test_friend_game_two_browsers(ui: Ui) -> None:
    with ui.guard():
        a, b = start_friend_game(ui)
        assert_hands_disjoint(a, b)
        for page in (a, b):
            expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "open")
        deadline = time.monotonic() + 60
        for _ in range(6):
            mover = wait_turn_of((a, b), deadline)
            other = b if mover is a else a
            before = table_count(mover)
            assert make_move(mover, deadline) == "play"
            now = table_count(mover)
            assert now == before + 1, f"mover's table-tile count {before} -> {now}"
            version = game_attr(mover, "version")
            try:
                other.wait_for_function(JS_VERSION_IS, arg=version, timeout=STEP_MS)
                other.wait_for_function(f"() => ({JS_TABLE_COUNT})() === {now}",
                                        timeout=STEP_MS)
            except Exception as exc:
                raise AssertionError(
                    f"the other browser did not get the move without reloading (version "
                    f"{version}, {now} table tiles expected, it shows "
                    f"{game_attr(other, 'version')} / {table_count(other)})") from exc
            assert_hands_disjoint(a, b)


def test_reload_computer_game(ui: Ui) -> None:
    page = ui.new_page("reload")
    with ui.guard():
        new_game(page, "luzak", opponent="easy", first="me")
        deadline = time.monotonic() + 60
        play_moves(page, 3, deadline)
        assert wait_status(page, deadline) == "me"
        seat, version = game_attr(page, "seat"), game_attr(page, "version")
        hand, tiles = hand_tiles(page), table_count(page)
        url = page.url
        page.reload()
        try:
            page.wait_for_function(JS_VERSION_IS, arg=version, timeout=STEP_MS)
        except Exception as exc:
            raise AssertionError(f"after reload data-version is not {version}") from exc
        assert "/game/" in page.url, f"{url} reloaded to {page.url}"
        assert game_attr(page, "seat") == seat
        assert sorted(hand_tiles(page)) == sorted(hand), "the hand changed on reload"
        assert table_count(page) == tiles
        play_moves(page, 1, deadline)


def test_reload_friend_game(ui: Ui) -> None:
    with ui.guard():
        a, b = start_friend_game(ui)
        deadline = time.monotonic() + 60
        play_moves(a, 1, deadline)
        play_moves(b, 1, deadline)
        a.wait_for_function(JS_VERSION_IS, arg=game_attr(b, "version"))
        seat, version, hand = game_attr(b, "seat"), game_attr(b, "version"), hand_tiles(b)
        b.reload()
        try:
            b.wait_for_function(JS_VERSION_IS, arg=version, timeout=STEP_MS)
        except Exception as exc:
            raise AssertionError(f"B after reload: data-version is not {version}") from exc
        assert game_attr(b, "seat") == seat == "1", "B did not rejoin seat 1"
        assert sorted(hand_tiles(b)) == sorted(hand)
        play_moves(a, 1, deadline)
        try:
            b.wait_for_function(JS_VERSION_IS, arg=game_attr(a, "version"), timeout=STEP_MS)
        except Exception as exc:
            raise AssertionError("B, reloaded, did not get A's move pushed") from exc
        play_moves(b, 1, deadline)
        a.wait_for_function(JS_VERSION_IS, arg=game_attr(b, "version"))


def test_server_killed_mid_game_the_page_reconnects_and_play_goes_on(
        chromium: Browser, tmp_path: Path) -> None:
    """Nothing lost, seen from the browser: the server is killed mid-game; the page says the
    connection is gone, and once the server is back on the same database it rejoins the
    same seat and game by itself, and play continues."""
    srv = make_server(tmp_path / "restart.sqlite3")
    ui = Ui(chromium, srv.start(), tmp_path)
    try:
        page = ui.new_page("restart")
        with ui.guard():
            new_game(page, "luzak", opponent="easy", first="me")
            deadline = time.monotonic() + 90
            play_moves(page, 2, deadline)
            assert wait_status(page, deadline) == "me"
            version, hand = game_attr(page, "version"), hand_tiles(page)
            connection = page.get_by_test_id("connection")
            expect(connection).to_have_attribute("data-state", "open")
            srv.kill()
            expect(connection).not_to_have_attribute("data-state", "open")
            # while the connection is down the page does not claim it is my turn, and
            # offers no move (what it shows may be out of date)
            status = page.get_by_test_id("status")
            expect(status).to_contain_text("Connection to the server lost")
            expect(status).not_to_contain_text("Your turn")
            expect(page.get_by_test_id("turn")).not_to_have_text("Your turn")
            expect(page.locator(PLAYABLE)).to_have_count(0)
            expect(page.get_by_test_id("hint")).to_be_disabled()
            page.locator('[data-testid="hand-tile"]').first.click(force=True)
            expect(page.locator('[data-testid="spot"]')).to_have_count(0)
            srv.start()
            expect(connection).to_have_attribute("data-state", "open", timeout=30_000)
            expect(status).to_contain_text("Your turn")
            assert game_attr(page, "version") == version
            assert sorted(hand_tiles(page)) == sorted(hand)
            play_moves(page, 1, deadline)
    finally:
        ui.close()
        srv.stop()


def moves_to_a_luzak_choice(server: ServerProcess, gid: str) -> list[str] | None:
    """Moves from the start of this game's first hand to a position where seat 0 must lay
    a luzak of a non-double (so it chooses the outward half), found by random playouts
    with the engine over the game's stored seed; None if none turned up."""
    with sqlite3.connect(server.db) as db:
        seed, first = db.execute("SELECT seed, first_opener FROM games WHERE id = ?",
                                 (gid,)).fetchone()
    rng = random.Random(seed)
    for _ in range(3000):
        match = Match("luzak", seed=seed, first_opener=first)
        moves: list[str] = []
        while match.hand_number == 1 and not match.is_over:
            legal = match.legal_moves()
            if match.to_move == 0 and all(isinstance(m, Play) and m.luzak for m in legal) \
                    and any(isinstance(m, Play) and not m.tile.is_double for m in legal):
                return moves
            move = rng.choice(legal)
            match.apply(move)
            moves.append(str(move))
    return None


def test_a_luzak_asks_which_half_goes_outward(ui: Ui, server_process: ServerProcess) -> None:
    base = server_process.base
    for _attempt in range(10):
        gid, tokens = friend_game_via_api(base, "luzak")
        moves = moves_to_a_luzak_choice(server_process, gid)
        if moves is not None:
            break
    else:
        pytest.fail("no position with a luzak choice in 10 deals")
    for i, text in enumerate(moves):
        request_json(base, "POST", f"/api/games/{gid}/moves", {"move": text, "version": i},
            tokens[i % 2])
    state = request_json(base, "GET", f"/api/games/{gid}", token=tokens[0])
    luzaks = [m for m in state["legal"] if m["kind"] == "luzak" and m["tile"][0] != m["tile"][1]]
    tile, port = luzaks[0]["tile"], luzaks[0]["port"]
    pair = sorted(m["move"] for m in luzaks if m["tile"] == tile and m["port"] == port)
    assert len(pair) == 2, pair
    page = ui.new_page("luzak-choice")
    with ui.guard():
        page.goto(f"/game/{gid}#t={tokens[0]}")
        page.wait_for_function(JS_VERSION_IS, arg=str(len(moves)))
        page.locator(f'[data-testid="hand-tile"][data-tile="{tile}"]').click()
        spot = page.locator(", ".join(f'[data-testid="spot"][data-moves="{",".join(p)}"]'
                                      for p in (pair, pair[::-1])))
        spot.first.click()
        choices = page.locator('[data-testid="choose-move"]').filter(visible=True)
        expect(choices).to_have_count(2)
        assert sorted(c.get_attribute("data-move") or "" for c in choices.all()) == pair
        page.locator(f'[data-testid="choose-move"][data-move="{pair[1]}"]').click()
        page.wait_for_function(JS_VERSION_IS, arg=str(len(moves) + 1))
    after = request_json(base, "GET", f"/api/games/{gid}", token=tokens[1])
    assert after["history"][-1]["move"] == pair[1]
    assert after["table"]["tiles"][-1]["luzak"] is True


def test_widelec_buttons_appear_only_when_legal(ui: Ui, server: str) -> None:
    """At every position of first hands, draw, pass and keep show exactly when legal; hands
    are played (through the API) until a position with a draw has been checked."""
    page = ui.new_page("widelec-buttons")
    seen: set[str] = set()
    with ui.guard():
        for attempt in range(10):
            gid, tokens = friend_game_via_api(server, "widelec")
            rng = random.Random(attempt)
            page.goto(f"/game/{gid}#t={tokens[0]}")
            for _ in range(120):
                states = [request_json(server, "GET", f"/api/games/{gid}", token=t)
                          for t in tokens]
                if states[0]["match_result"] is not None or states[0]["hand_number"] > 1:
                    break
                page.wait_for_function(JS_VERSION_IS, arg=str(states[0]["version"]))
                kinds = {m["kind"] for m in states[0]["legal"]}
                for button in ("draw", "pass", "keep"):
                    assert shown(page, button) == (button in kinds), (
                        f"{button} shown={shown(page, button)} but legal kinds are {kinds}")
                seen.update(kinds if kinds else {"waiting"})
                mover = next(st for st in states if st["to_move"] == st["seat"])
                choice = rng.choice(mover["legal"])["move"]
                request_json(server, "POST", f"/api/games/{gid}/moves",
                             {"move": choice, "version": mover["version"]},
                             tokens[mover["seat"]])
            if {"draw", "play", "waiting"} <= seen:
                break
    assert {"draw", "play", "waiting"} <= seen, seen


POLISH_LETTERS = re.compile("[ąćęłńóśźżĄĆĘŁŃÓŚŹŻ]")


def test_language_and_rules(ui: Ui) -> None:
    page = ui.new_page("lang")
    with ui.guard():
        page.goto("/")
        expect(page.get_by_test_id("new-game")).to_be_visible()
        page.get_by_test_id("lang-en").click()
        expect(page.locator("html")).to_have_attribute("lang", "en")
        english = page.locator("body").inner_text()
        page.get_by_test_id("lang-pl").click()
        expect(page.locator("html")).to_have_attribute("lang", "pl")
        page.wait_for_function("en => document.body.innerText !== en", arg=english)
        polish = page.locator("body").inner_text()
        assert POLISH_LETTERS.search(polish), f"no Polish after lang-pl: {polish[:300]!r}"
        expect(page.get_by_test_id("rules-link")).to_contain_text("Zasady")

        page.get_by_test_id("rules-link").click()
        # /rules is the player's guide; the exact rules are one link away
        page.get_by_test_id("guide-exact-link").click()
        rules = page.get_by_test_id("rules")
        expect(rules).to_contain_text("Luzak")
        rules_pl = rules.inner_text()
        assert len(POLISH_LETTERS.findall(rules_pl)) >= 20, (
            f"the rules in Polish have no Polish letters: {rules_pl[:300]!r}")

        page.goto("/")
        page.get_by_test_id("lang-en").click()
        expect(page.locator("html")).to_have_attribute("lang", "en")
        page.get_by_test_id("rules-link").click()
        page.get_by_test_id("guide-exact-link").click()
        rules = page.get_by_test_id("rules")
        expect(rules).to_contain_text("Luzak")
        expect(rules).to_contain_text("spinner")
        rules_en = rules.inner_text()
        assert rules_en != rules_pl
        the_en = len(re.findall(r"\bthe\b", rules_en))
        the_pl = len(re.findall(r"\bthe\b", rules_pl))
        assert the_en >= 10 and the_pl * 5 < the_en, (
            f"'the' appears {the_en} times in the English rules, {the_pl} in the Polish ones")


def _no_horizontal_scroll(page: Page, where: str) -> None:
    width = int(page.evaluate("() => document.documentElement.scrollWidth"))
    assert width <= 391, f"{where}: scrollWidth {width} > 390 (a horizontal scrollbar)"


def test_phone_width(ui: Ui) -> None:
    page = ui.new_page("phone", width=390, height=844)
    with ui.guard():
        page.goto("/")
        expect(page.get_by_test_id("new-game")).to_be_visible()
        _no_horizontal_scroll(page, "the new-game form")
        new_game(page, "luzak", opponent="easy", first="me")
        deadline = time.monotonic() + 60
        play_moves(page, 2, deadline)
        assert wait_status(page, deadline) == "me"
        _no_horizontal_scroll(page, "the game page")
        box = page.evaluate("""() => {
          const t = document.querySelector('[data-testid="table-tile"]');
          const svg = t && t.closest('svg');
          if (!svg) return null;
          const r = svg.getBoundingClientRect();
          return [r.left, r.right];
        }""")
        assert box is not None, "no table-tile inside an svg on the game page"
        left, right = cast(list[float], box)
        assert left >= -1 and right <= 391, f"the table svg spans x {left}..{right} (> 390)"
        assert right - left >= 200, f"the table svg is only {right - left} px wide"


def test_hint(ui: Ui) -> None:
    page = ui.new_page("hint")
    with ui.guard():
        new_game(page, "luzak", opponent="easy", first="me")
        deadline = time.monotonic() + 60
        play_moves(page, 1, deadline)
        assert wait_status(page, deadline) == "me"
        page.get_by_test_id("hint").click()
        hints = page.get_by_test_id("hints")
        expect(hints).to_be_visible(timeout=30_000)
        expect(hints.locator("li").first).to_be_visible(timeout=30_000)


def test_finished_match_replay_and_download(ui: Ui) -> None:
    page = ui.new_page("match")
    with ui.guard():
        new_game(page, "luzak", opponent="easy", first="me",
                 options={"target": 1, "even_hands": False})
        deadline = time.monotonic() + HAND_SECONDS
        while True:
            status = wait_status(page, deadline)
            if status == "match-over":
                break
            if status == "hand-over":
                page.get_by_test_id("next-hand").click()
                expect(page.get_by_test_id("hand-over")).to_be_hidden()
                continue
            make_move(page, deadline)
        expect(page.get_by_test_id("match-over")).to_be_visible()

        with page.expect_download() as info:
            page.get_by_test_id("download-record").click()
        download = info.value
        text = Path(download.path()).read_text()
        try:
            record: Any = json.loads(text)
        except ValueError as exc:
            raise AssertionError(f"the download is not JSON: {text[:300]!r}") from exc
        assert isinstance(record, dict) and isinstance(record.get("hands"), list), (
            f"the download has no hands: {text[:300]!r}")
        assert record["hands"] and record["hands"][0]["moves"], "the record has no moves"
        match = replay(record)
        assert match.is_over, "the downloaded record replays to an unfinished match"

        page.get_by_test_id("replay").click()
        frame = page.get_by_test_id("replay-frame")
        expect(frame).to_be_visible()
        index = int(frame.get_attribute("data-index") or "-1")
        for _ in range(3):
            page.get_by_test_id("replay-next").click()
            expect(frame).to_have_attribute("data-index", str(index + 1))
            index += 1
        page.get_by_test_id("replay-prev").click()
        expect(frame).to_have_attribute("data-index", str(index - 1))


# -- seats belong to the people who hold them ------------------------------------------------

def test_creator_opening_own_invitation_keeps_seat_0(ui: Ui) -> None:
    """The creator opening their own invitation does not claim it: the page keeps seat 0,
    says what the link is for, and the friend can still claim seat 1 with it."""
    with ui.guard():
        a = ui.new_page("creator")
        new_game(a, "luzak", opponent="friend", first="me")
        gid = game_id_of(a)
        token = stored_seats(a)[gid]["token"]
        url = invitation_of(a)
        a.goto(url)
        notice = a.get_by_test_id("invite-notice")
        expect(notice).to_be_visible()
        expect(notice).to_contain_text("This is your invitation link")
        expect(notice.get_by_test_id("copy-notice-invite")).to_be_visible()
        a.wait_for_function(JS_HAS_VERSION)
        assert game_attr(a, "seat") == "0", "the creator's page left seat 0"
        assert stored_seats(a)[gid]["token"] == token, "the creator's token was replaced"

        b = ui.new_page("friend")
        b.goto(url)
        b.wait_for_function(JS_HAS_VERSION)
        assert game_attr(b, "seat") == "1", "the invitation no longer gives seat 1"
        expect(b.get_by_test_id("invite-notice")).to_have_count(0)
        # once the friend is in, the creator's page stops offering the used link
        expect(a.get_by_test_id("invite-link")).to_have_count(0)


def test_invitation_works_once(ui: Ui) -> None:
    """A third browser opening an invitation already claimed is told so and keeps nothing."""
    with ui.guard():
        _a, b, url = start_friend_game_with_link(ui)
        # the friend opening the link again keeps the seat it gave
        b.goto(url)
        expect(b.get_by_test_id("joined-notice")).to_be_visible()
        expect(b.locator(GAME)).to_have_attribute("data-seat", "1")
        c = ui.new_page("third")
        c.goto(url)
        error = c.get_by_test_id("link-error")
        expect(error).to_be_visible()
        expect(error).to_have_attribute("data-reason", "used")
        expect(error).to_contain_text("already been used")
        expect(c.locator(GAME)).to_have_count(0)
        assert stored_seats(c) == {}, f"the refused claim stored {stored_seats(c)}"


def test_a_seat_token_link_never_replaces_the_stored_seat_silently(ui: Ui, server: str) -> None:
    """This browser holds seat 0 of a game. A link with a wrong token for that game keeps
    seat 0 and offers to switch; switching to a refused token changes nothing; switching to
    the other seat's real token (accepted by the server) does switch."""
    gid, tokens = friend_game_via_api(server, "luzak")
    page = ui.new_page("token-links")
    with ui.guard():
        page.goto(f"/game/{gid}#t={tokens[0]}")
        page.wait_for_function(JS_HAS_VERSION)
        assert game_attr(page, "seat") == "0"
        assert stored_seats(page)[gid]["token"] == tokens[0]

        page.goto(f"/game/{gid}#t=not-a-token-of-this-game")
        notice = page.get_by_test_id("switch-notice")
        expect(notice).to_be_visible()
        page.wait_for_function(JS_HAS_VERSION)
        assert game_attr(page, "seat") == "0", "a crafted link took this browser off its seat"
        assert "#" not in page.url, f"the token stays in the address bar: {page.url}"
        assert stored_seats(page)[gid]["token"] == tokens[0], "a crafted link replaced the token"
        notice.get_by_test_id("switch-seat").click()
        expect(notice).to_contain_text("did not accept")
        assert game_attr(page, "seat") == "0"
        assert stored_seats(page)[gid]["token"] == tokens[0], "a refused token was stored"

        page.goto(f"/game/{gid}#t={tokens[1]}")
        notice = page.get_by_test_id("switch-notice")
        expect(notice).to_be_visible()
        assert stored_seats(page)[gid]["token"] == tokens[0]
        notice.get_by_test_id("switch-seat").click()
        expect(page.locator(GAME)).to_have_attribute("data-seat", "1")
        expect(page.get_by_test_id("switch-notice")).to_have_count(0)
        assert stored_seats(page)[gid]["token"] == tokens[1]


def test_links_the_server_refuses_are_not_kept(ui: Ui, server: str) -> None:
    """Links to no game (a token or an invitation) and a refused token say why, and none of
    them lands in "Your games on this device"."""
    gid, _tokens = friend_game_via_api(server, "luzak")
    page = ui.new_page("refused-links")
    with ui.guard():
        for path, reason in ((f"/game/NoSuchGame0123456789#t={'x' * 32}", "gone"),
                             (f"/game/NoSuchGame0123456789#i={'y' * 32}", "gone"),
                             (f"/game/{gid}#t={'z' * 32}", "refused")):
            page.goto(path)
            error = page.get_by_test_id("link-error")
            expect(error, f"{path} shows no link-error").to_be_visible()
            expect(error).to_have_attribute("data-reason", reason)
            expect(page.locator(GAME)).to_have_count(0)
            assert stored_seats(page) == {}, f"{path} stored {stored_seats(page)}"
        page.goto("/")
        expect(page.get_by_test_id("new-game")).to_be_visible()
        expect(page.locator(".saved-games")).to_have_count(0)
        expect(page.locator("body")).not_to_contain_text("NoSuchGame")


# -- what the page says ----------------------------------------------------------------------

def test_a_failed_creation_says_so_in_its_own_words(ui: Ui) -> None:
    """The server's generic 500 sentence ("... the game is unchanged") is not shown for a
    creation; a 429 tells when to try again (its Retry-After)."""
    page = ui.new_page("create-fails")
    answers = [
        (500, {}, {"error": "something went wrong on the server; the game is unchanged",
                   "status": 500}),
        (429, {"Retry-After": "17"}, {"error": "too many new games", "status": 429}),
    ]

    def refuse(route: Route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        status, headers, body = answers[0]
        route.fulfill(status=status, headers={"Content-Type": "application/json", **headers},
                      body=json.dumps(body))

    with ui.guard():
        page.route("**/api/games", refuse)
        page.goto("/")
        page.get_by_test_id("lang-en").click()
        form = page.get_by_test_id("new-game")
        expect(form).to_be_visible()
        form.get_by_test_id("start").click()
        error = page.get_by_test_id("start-error")
        expect(error).to_contain_text("Could not start the game")
        expect(error).not_to_contain_text("unchanged")
        assert "/game/" not in page.url

        answers.pop(0)
        form.get_by_test_id("start").click()
        expect(error).to_contain_text("Too many new games from here; try again in 17 s")
        page.get_by_test_id("lang-pl").click()
        expect(error).to_contain_text("17 s")
        expect(error).to_contain_text("Zbyt wiele nowych gier")
        page.get_by_test_id("lang-en").click()


def test_widelec_end_of_hand_says_who_went_out_and_who_scored_more(ui: Ui, server: str) -> None:
    """In Widelec the hand's `winner` is who went out (or had fewer pips in a block), not who
    scored more. For the player who went out yet scored fewer points, the end-of-hand screen
    must not say "You won the hand"."""
    found = None
    for attempt in range(25):
        gid, tokens = friend_game_via_api(server, "widelec", {"target": 500})
        state = play_via_api(server, gid, tokens, random.Random(attempt), until="hand")
        result = (state["previous_hand"] or {}).get("result") or {}
        winner = result.get("winner")
        if winner is not None and result["points"][winner] < result["points"][1 - winner]:
            found = gid, tokens[winner], result
            break
    assert found is not None, "no Widelec hand in 25 where who went out scored fewer points"
    gid, token, result = found
    winner = result["winner"]
    mine, theirs = result["points"][winner], result["points"][1 - winner]
    page = ui.new_page("widelec-hand-over")
    with ui.guard():
        over = hand_over_screen(page, gid, token)
        expect(over).not_to_contain_text("You won")
        went_out = ("You went out" if result["end"] == "domino"
                    else "You have fewer pips left")
        expect(page.get_by_test_id("result-end")).to_contain_text(went_out)
        expect(page.get_by_test_id("result-verdict")).to_have_text(
            f"Friend scored more in this hand: {theirs} to {mine}.")
        # the same screen in Polish (the language buttons are behind the screen: reload)
        page.evaluate("() => localStorage.setItem('dominolab/lang', 'pl')")
        page.reload()
        expect(page.get_by_test_id("result-verdict")).to_contain_text(
            f"Więcej punktów w tej partii: Znajomy, {theirs}:{mine}.")
        expect(over).not_to_contain_text("Wygrywasz")


def test_replay_counts_moves_not_tiles(ui: Ui, server: str) -> None:
    """The replay's "move N" is the move's number in its hand: a draw is a move too, though
    it lays no tile (the frame's `n` counts tiles)."""
    found = None
    for attempt in range(25):
        gid, tokens = friend_game_via_api(server, "widelec", {"target": 15})
        play_via_api(server, gid, tokens, random.Random(100 + attempt), until="match")
        frames = request_json(server, "GET", f"/api/games/{gid}/replay",
                              token=tokens[0])["frames"]
        deal = max(i for i, f in enumerate(frames) if f["step"] is None)
        moves = len(frames) - 1 - deal
        if frames[-1]["n"] != moves:
            found = gid, tokens[0], len(frames), moves
            break
    assert found is not None, "no Widelec match in 25 whose last hand had a draw"
    gid, token, count, moves = found
    page = ui.new_page("replay-moves")
    with ui.guard():
        page.goto("/")
        page.get_by_test_id("lang-en").click()
        page.goto(f"/game/{gid}#t={token}")
        expect(page.get_by_test_id("match-over")).to_be_visible()
        page.get_by_test_id("replay").click()
        frame = page.get_by_test_id("replay-frame")
        expect(frame).to_be_visible()
        page.keyboard.press("End")
        expect(frame).to_have_attribute("data-index", str(count - 1))
        expect(page.get_by_test_id("replay-position")).to_contain_text(f"move {moves} ·")


def test_phone_end_of_hand_and_header(ui: Ui, server: str) -> None:
    """At 390x844 the header keeps "New game" in view, and the end-of-hand screen's "Next
    hand" button covers none of the screen's content."""
    gid, tokens = friend_game_via_api(server, "widelec", {"target": 500})
    play_via_api(server, gid, tokens, random.Random(7), until="hand")
    page = ui.new_page("phone-hand-over", width=390, height=844)
    with ui.guard():
        page.goto(f"/game/{gid}#t={tokens[0]}")
        expect(page.get_by_test_id("hand-over")).to_be_visible()
        nav = page.locator("header a[data-link]", has_text=re.compile("New game|Nowa gra"))
        expect(nav).to_be_visible()
        box = _box(nav)
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, f"'New game' at {box}"
        for other in (page.get_by_test_id("rules-link"), page.locator(".lang-switch"),
                      page.locator(".brand")):
            assert not _overlap(box, _box(other)), f"'New game' {box} overlaps {_box(other)}"

        button = page.get_by_test_id("next-hand")
        expect(button).to_be_in_viewport(ratio=1)
        body = page.get_by_test_id("hand-over-body")
        assert not _overlap(_box(button), _box(body)), (
            f"next-hand {_box(button)} overlaps the screen's content {_box(body)}")
        # the content scrolls above the button: its last line can be read in full
        totals = page.get_by_test_id("hand-over-totals")
        totals.scroll_into_view_if_needed()
        expect(totals).to_be_in_viewport(ratio=1)
        assert not _overlap(_box(button), _box(totals)), (
            f"next-hand {_box(button)} covers the totals {_box(totals)}")
        page.screenshot(path=str(ui.shots / "phone-hand-over.png"))
        button.click()
        expect(page.get_by_test_id("hand-over")).to_be_hidden()


def _box(locator: Locator) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None, f"{locator} has no box (not shown)"
    return cast(dict[str, float], box)


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    """Do two boxes share area (touching edges do not count)?"""
    return (min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"]) > 0.5
            and min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"]) > 0.5)
