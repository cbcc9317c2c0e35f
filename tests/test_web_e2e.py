"""End-to-end tests of the web app (docs/web.md): the real `dominolab serve` in a subprocess,
driven through Debian's Chromium by Playwright the way a person uses it, by clicks and keys.

The page is found only through the `data-testid` hooks of docs/web.md ("Testing hooks in the
page"). On a failure every open page is saved as a screenshot in the test's tmp dir, and the
assertion message names the file, the page's state and the failed requests it saw.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Playwright,
    Request,
    Response,
    WebSocket,
    expect,
    sync_playwright,
)

from dominolab.core import Match, Play, replay
from dominolab.web.process import ServerProcess, request_json

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic"]
GAMES = ("luzak", "luzak-line", "widelec")
STEP_MS = 15_000          # one wait for the page (a move, a push, a screen)
HAND_SECONDS = 120.0      # a whole hand, played by clicking
GAME = '[data-testid="game"]'
PLAYABLE = '[data-testid="hand-tile"][data-playable="true"]'

# -- JavaScript run in the page --------------------------------------------------------------

_JS_VISIBLE = ("const vis = e => e.getClientRects().length > 0"
               " && getComputedStyle(e).visibility !== 'hidden';"
               " const shown = id => [...document.querySelectorAll(`[data-testid=\"${id}\"]`)]"
               ".some(vis);")

# '' while waiting; 'match-over' / 'hand-over' when such a screen shows; 'me' on my turn.
JS_STATUS = ("() => { " + _JS_VISIBLE + """
  if (shown('match-over')) return 'match-over';
  if (shown('hand-over')) return 'hand-over';
  const g = document.querySelector('[data-testid="game"]');
  if (g && g.dataset.version && g.dataset.turn === 'me') return 'me';
  return '';
}""")

JS_VERSION_CHANGED = """old => {
  const g = document.querySelector('[data-testid="game"]');
  return !!g && !!g.dataset.version && g.dataset.version !== old;
}"""

JS_VERSION_IS = """v => {
  const g = document.querySelector('[data-testid="game"]');
  return !!g && g.dataset.version === v;
}"""

JS_HAS_VERSION = """() => {
  const g = document.querySelector('[data-testid="game"]');
  return !!g && !!g.dataset.version;
}"""

# Tiles of the table in play (not those drawn on an end-of-hand screen or a replay).
JS_TABLE_COUNT = """() => [...document.querySelectorAll('[data-testid="table-tile"]')]
  .filter(e => !e.closest('[data-testid="hand-over"], [data-testid="match-over"],'
                          + ' [data-testid="replay-frame"]')).length"""

JS_PICKED = ("old => { " + _JS_VISIBLE + """
  const g = document.querySelector('[data-testid="game"]');
  if (g && g.dataset.version !== old) return 'moved';
  if (shown('choose-move')) return 'choose';
  if (shown('spot')) return 'spots';
  return '';
}""")

JS_CHOOSE_OR_MOVED = ("old => { " + _JS_VISIBLE + """
  const g = document.querySelector('[data-testid="game"]');
  if (g && g.dataset.version !== old) return 'moved';
  if (shown('choose-move')) return 'choose';
  return '';
}""")

JS_GAME_ATTRS = """() => {
  const g = document.querySelector('[data-testid="game"]');
  if (!g) return 'no [data-testid=game]';
  return ['version', 'hand', 'turn', 'seat'].map(k => `data-${k}=${g.dataset[k]}`).join(' ');
}"""


# -- the server and the browser --------------------------------------------------------------

@pytest.fixture(scope="session")
def server_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The real server on a free port, for the whole session."""
    with ServerProcess(tmp_path_factory.mktemp("e2e-server") / "e2e.sqlite3") as proc:
        yield proc


@pytest.fixture(scope="session")
def server(server_process: ServerProcess) -> str:
    """The session server's base URL."""
    return server_process.base


@pytest.fixture(scope="session")
def chromium() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: install Debian's chromium package"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    playwright: Playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()
    finally:
        playwright.stop()


class Ui:
    """Browser contexts for one test, with what each page went through, for failures."""

    def __init__(self, browser: Browser, base_url: str, shots: Path) -> None:
        self.browser = browser
        self.base_url = base_url
        self.shots = shots
        self.contexts: list[BrowserContext] = []
        self.pages: list[tuple[str, Page, list[str]]] = []

    def new_page(self, name: str, width: int = 1280, height: int = 800) -> Page:
        context = self.browser.new_context(viewport={"width": width, "height": height},
                                           base_url=self.base_url, accept_downloads=True)
        context.set_default_timeout(STEP_MS)
        self.contexts.append(context)
        page = context.new_page()
        events: list[str] = []
        self.pages.append((name, page, events))

        def on_console(msg: ConsoleMessage) -> None:
            if msg.type == "error":
                events.append(f"console error: {msg.text}")

        def on_response(response: Response) -> None:
            if response.status >= 400:
                body = ""
                with contextlib.suppress(Exception):
                    body = response.text()[:300]
                events.append(f"HTTP {response.status} {response.request.method} "
                              f"{response.url} {body}")

        def on_failed(request: Request) -> None:
            events.append(f"request failed: {request.method} {request.url} {request.failure}")

        def on_websocket(ws: WebSocket) -> None:
            events.append(f"websocket opened: {ws.url}")

            def on_frame(payload: str | bytes) -> None:
                text = payload if isinstance(payload, str) else payload.decode(errors="replace")
                if '"error"' in text:
                    events.append(f"websocket message: {text[:300]}")

            ws.on("framereceived", on_frame)
            ws.on("close", lambda _ws: events.append(f"websocket closed: {ws.url}"))

        page.on("console", on_console)
        page.on("pageerror", lambda exc: events.append(f"page error: {exc}"))
        page.on("response", on_response)
        page.on("requestfailed", on_failed)
        page.on("websocket", on_websocket)
        return page

    def report(self, exc: BaseException) -> str:
        lines = [f"{type(exc).__name__}: {exc}"]
        for name, page, events in self.pages:
            path = self.shots / f"failure-{name}.png"
            try:
                page.screenshot(path=str(path), full_page=True)
                shot = f"screenshot: {path}"
            except Exception as err:
                shot = f"(no screenshot: {err})"
            try:
                attrs = str(page.evaluate(JS_GAME_ATTRS))
            except Exception as err:
                attrs = f"(page not readable: {err})"
            lines.append(f"[{name}] {page.url} {attrs}\n  {shot}")
            lines.extend(f"  {event}" for event in events[-15:])
        return "\n".join(lines)

    @contextlib.contextmanager
    def guard(self) -> Iterator[None]:
        """Turn any failure inside into an AssertionError with screenshots and events."""
        try:
            yield
        except Exception as exc:
            raise AssertionError(self.report(exc)) from exc

    def close(self) -> None:
        for context in self.contexts:
            with contextlib.suppress(Exception):
                context.close()


@pytest.fixture
def ui(chromium: Browser, server: str, tmp_path: Path) -> Iterator[Ui]:
    it = Ui(chromium, server, tmp_path)
    yield it
    it.close()


# -- driving the page ------------------------------------------------------------------------

def game_attr(page: Page, name: str) -> str:
    return page.locator(GAME).get_attribute(f"data-{name}") or ""


def table_count(page: Page) -> int:
    return int(page.evaluate(JS_TABLE_COUNT))


def hand_tiles(page: Page) -> list[str]:
    return [t.get_attribute("data-tile") or "" for t in
            page.locator('[data-testid="hand-tile"]').all()]


def shown(page: Page, name: str) -> bool:
    return page.locator(f'[data-testid="{name}"]').filter(visible=True).count() > 0


def left_ms(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise AssertionError("the time for this game ran out")
    return min(left * 1000, STEP_MS)


def wait_status(page: Page, deadline: float) -> str:
    """Wait until it is my turn or an end-of-hand/match screen shows; say which."""
    handle = page.wait_for_function(JS_STATUS, timeout=left_ms(deadline))
    return cast(str, handle.json_value())


def wait_version_change(page: Page, old: str, deadline: float, what: str) -> None:
    try:
        page.wait_for_function(JS_VERSION_CHANGED, arg=old, timeout=left_ms(deadline))
    except Exception as exc:
        raise AssertionError(f"after {what} the game's data-version stayed {old}") from exc


def new_game(page: Page, game: str, opponent: str = "easy", first: str | None = None,
             options: dict[str, int | bool] | None = None) -> None:
    """Fill the new-game form on / as a person does and start; wait for the game."""
    page.goto("/")
    form = page.get_by_test_id("new-game")
    expect(form).to_be_visible()
    form.locator("select[name=game]").select_option(game)
    form.locator("select[name=opponent]").select_option(opponent)
    if first is not None:
        form.locator("select[name=first]").select_option(first)
    for name, value in (options or {}).items():
        field = form.locator(f'input[name="opt-{name}"]')
        expect(field, f"the form has no input[name=opt-{name}] for {game}").to_have_count(1)
        if isinstance(value, bool):
            field.set_checked(value)
        else:
            field.fill(str(value))
    form.get_by_test_id("start").click()
    page.wait_for_function(JS_HAS_VERSION)


def make_move(page: Page, deadline: float) -> str:
    """On my turn, do what a person does: draw/pass if that button shows, else click the first
    playable tile, its first place and (for a luzak) the first outward half. Wait for the
    version to change. Returns 'draw', 'pass', 'keep' or 'play'."""
    old = game_attr(page, "version")
    for button in ("draw", "pass"):
        if shown(page, button):
            page.get_by_test_id(button).click()
            wait_version_change(page, old, deadline, f"clicking {button}")
            return button
    playable = page.locator(PLAYABLE)
    if playable.count() == 0:
        if shown(page, "keep"):
            page.get_by_test_id("keep").click()
            wait_version_change(page, old, deadline, "clicking keep")
            return "keep"
        raise AssertionError(f"data-turn=me but no {PLAYABLE} and no draw/pass/keep button "
                             f"(hand: {hand_tiles(page)})")
    tile = playable.first.get_attribute("data-tile")
    playable.first.click()
    picked = cast(str, page.wait_for_function(JS_PICKED, arg=old,
                                              timeout=left_ms(deadline)).json_value())
    if picked == "spots":
        spot = page.locator('[data-testid="spot"]').filter(visible=True).first
        spot.click()
        picked = cast(str, page.wait_for_function(JS_CHOOSE_OR_MOVED, arg=old,
                                                  timeout=left_ms(deadline)).json_value())
    if picked == "choose":
        page.locator('[data-testid="choose-move"]').filter(visible=True).first.click()
    wait_version_change(page, old, deadline, f"playing tile {tile}")
    return "play"


def play_moves(page: Page, count: int, deadline: float) -> None:
    """Make `count` moves of mine (any kind) in a game that goes on."""
    for i in range(count):
        status = wait_status(page, deadline)
        assert status == "me", f"move {i + 1}: expected my turn, got {status!r}"
        make_move(page, deadline)


def wait_turn_of(pages: list[Page], deadline: float) -> Page:
    """The page whose seat is to move."""
    while True:
        for page in pages:
            if page.evaluate(JS_STATUS) == "me":
                return page
        if time.monotonic() > deadline:
            raise AssertionError("no page got data-turn=me")
        pages[0].wait_for_timeout(50)


def start_friend_game(ui: Ui) -> tuple[Page, Page]:
    """A creates a Luzak game against a friend; B opens the invitation link."""
    a = ui.new_page("A")
    new_game(a, "luzak", opponent="friend", first="me")
    link = a.get_by_test_id("invite-link")
    expect(link).to_be_visible()
    url = link.input_value()
    assert re.search(r"/game/[^/#]+#t=.+", url), f"invite-link value {url!r} is not a link"
    assert url.startswith("http"), f"invite-link value {url!r} is not the full URL"
    b = ui.new_page("B")
    b.goto(url)
    b.wait_for_function(JS_HAS_VERSION)
    a_seat, b_seat = game_attr(a, "seat"), game_attr(b, "seat")
    assert {a_seat, b_seat} == {"0", "1"}, f"seats A={a_seat!r} B={b_seat!r}"
    assert a_seat == "0", "the creator should have seat 0"
    return a, b


def assert_hands_disjoint(a: Page, b: Page) -> None:
    tiles_a, tiles_b = set(hand_tiles(a)), set(hand_tiles(b))
    assert tiles_a and tiles_b, f"empty hands: A {tiles_a}, B {tiles_b}"
    assert not tiles_a & tiles_b, f"B's page shows A's tiles {sorted(tiles_a & tiles_b)}"


# -- the tests -------------------------------------------------------------------------------

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
            kind = make_move(page, deadline)
            moves += 1
            if page.evaluate(JS_STATUS) in ("hand-over", "match-over"):
                continue
            if kind == "play":
                after = table_count(page)
                assert after > before, f"table-tile count {before} -> {after} after a play"
                # one li per move; in hand 1 that is every move of the match so far
                expect(page.get_by_test_id("history").locator("li")).to_have_count(
                    int(game_attr(page, "version")))
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
            mover = wait_turn_of([a, b], deadline)
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
    srv = ServerProcess(tmp_path / "restart.sqlite3")
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
            srv.start()
            expect(connection).to_have_attribute("data-state", "open", timeout=30_000)
            assert game_attr(page, "version") == version
            assert sorted(hand_tiles(page)) == sorted(hand)
            play_moves(page, 1, deadline)
    finally:
        ui.close()
        srv.stop()


def friend_game_via_api(base: str, game: str) -> tuple[str, tuple[str, str]]:
    made = request_json(base, "POST", "/api/games",
                        {"game": game, "opponent": "friend", "first": "me"})
    return made["id"], (made["token"], made["invite"].split("#t=", 1)[1])


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
        rules = page.get_by_test_id("rules")
        expect(rules).to_contain_text("Luzak")
        rules_pl = rules.inner_text()
        assert len(POLISH_LETTERS.findall(rules_pl)) >= 20, (
            f"the rules in Polish have no Polish letters: {rules_pl[:300]!r}")

        page.goto("/")
        page.get_by_test_id("lang-en").click()
        expect(page.locator("html")).to_have_attribute("lang", "en")
        page.get_by_test_id("rules-link").click()
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
