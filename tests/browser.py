"""The browser tests' common ground (imported by every tests/test_web_e2e*.py): the real
`dominolab serve` in a subprocess, Debian's Chromium under Playwright, and the helpers that
drive the page the way a person does, by clicks and keys.

The page is found only through the `data-testid` hooks of docs/web.md ("Testing hooks in the
page"). On a failure every open page is saved as a screenshot in the test's tmp dir, and the
assertion message names the file, the page's state and the failed requests it saw. The
fixtures (`chromium`, `server_process`, `server`, `ui`) reach the tests through
``pytest_plugins`` in tests/conftest.py.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, cast

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Locator,
    Page,
    Playwright,
    Request,
    Response,
    WebSocket,
    expect,
    sync_playwright,
)

from dominolab.web.edge.process import ServerProcess, request_json

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
  const c = document.querySelector('[data-testid="connection"]');
  if (g && g.dataset.version && g.dataset.turn === 'me' && c && c.dataset.state === 'open')
    return 'me';
  return '';
}""")

JS_IS_MY_TURN = "() => (" + JS_STATUS + ")() === 'me'"

# Whose turn a page shows once it shows a position: 'me' or 'opponent' ('' before that).
JS_TURN_KNOWN = """() => {
  const g = document.querySelector('[data-testid="game"]');
  const c = document.querySelector('[data-testid="connection"]');
  if (!g || !g.dataset.version || !c || c.dataset.state !== 'open') return '';
  return g.dataset.turn === 'me' || g.dataset.turn === 'opponent' ? g.dataset.turn : '';
}"""

# The seats this browser keeps in localStorage: {game id: {token, seat, invite}}.
JS_STORED_SEATS = """() => Object.fromEntries(Object.keys(localStorage)
  .filter(k => k.startsWith('dominolab/game/'))
  .map(k => [k.slice('dominolab/game/'.length), JSON.parse(localStorage.getItem(k))]))"""

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

#: every server of these tests deals its games from this seed, so each run plays the same deals
GAME_SEEDS = 20251201
#: the tests make many games from one address: the server's rate limits must not refuse them
UNLIMITED = ("--games-per-minute", "100000", "--hints-per-minute", "100000",
             "--reviews-per-minute", "100000")


def make_server(db: Path) -> ServerProcess:
    """A real server for these tests: fixed seeds, no computer delay, no rate limits."""
    return ServerProcess(db, computer_delay=0.0, game_seeds=GAME_SEEDS, extra=UNLIMITED)


@pytest.fixture(scope="session")
def server_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The real server on a free port, for the whole session."""
    with make_server(tmp_path_factory.mktemp("e2e-server") / "e2e.sqlite3") as proc:
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

    def new_page(self, name: str, width: int = 1280, height: int = 800,
                 reduced_motion: Literal["reduce", "no-preference"] | None = None) -> Page:
        """A page in a context of its own; ``reduced_motion`` sets the media feature
        ``prefers-reduced-motion`` (None: the browser's default, no preference)."""
        context = self.browser.new_context(viewport={"width": width, "height": height},
                                           base_url=self.base_url, accept_downloads=True,
                                           reduced_motion=reduced_motion)
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

#: the history lists one move per version, both read at one moment
#: in hand HAND (the argument), one history item per move of the match so far; true too once
#: another hand is shown (the computer's reply may end the hand before the page is read)
JS_HISTORY_IS_VERSION = """(hand) => {
  const g = document.querySelector('[data-testid="game"]');
  if (g === null) return false;
  if (g.dataset.hand !== hand) return true;
  const items = document.querySelectorAll('[data-testid="history"] li').length;
  return items === Number(g.dataset.version);
}"""


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
    if options:
        # the rule options are folded away under "More rules"
        form.get_by_test_id("more-rules-toggle").click()
    for name, value in (options or {}).items():
        field = form.locator(f'input[name="opt-{name}"]')
        expect(field, f"the form has no input[name=opt-{name}] for {game}").to_have_count(1)
        if isinstance(value, bool):
            field.set_checked(value)
        else:
            field.fill(str(value))
    form.get_by_test_id("start").click()
    page.wait_for_function(JS_HAS_VERSION)


def button_move(page: Page, old: str, deadline: float) -> str | None:
    """Draw or pass if that button shows, or keep when no tile is playable and keep shows;
    wait for the version to change and say which. None: a tile is to be played."""
    for button in ("draw", "pass"):
        if shown(page, button):
            page.get_by_test_id(button).click()
            wait_version_change(page, old, deadline, f"clicking {button}")
            return button
    if page.locator(PLAYABLE).count() == 0 and shown(page, "keep"):
        page.get_by_test_id("keep").click()
        wait_version_change(page, old, deadline, "clicking keep")
        return "keep"
    return None


def make_move(page: Page, deadline: float) -> str:
    """On my turn, do what a person does: draw/pass if that button shows, else click the first
    playable tile, its first place and (for a luzak) the first outward half. Wait for the
    version to change. Returns 'draw', 'pass', 'keep' or 'play'."""
    old = game_attr(page, "version")
    done = button_move(page, old, deadline)
    if done is not None:
        return done
    playable = page.locator(PLAYABLE)
    if playable.count() == 0:
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


def wait_turn_of(pages: tuple[Page, Page], deadline: float) -> Page:
    """Of two pages of one game that show the same position, the one whose seat is to move:
    the first page says whose turn it is, and that page is waited for."""
    first, second = pages
    try:
        turn = cast(str, first.wait_for_function(JS_TURN_KNOWN,
                                                 timeout=left_ms(deadline)).json_value())
        mover = first if turn == "me" else second
        mover.wait_for_function(JS_IS_MY_TURN, timeout=left_ms(deadline))
    except Exception as exc:
        raise AssertionError("no page got data-turn=me") from exc
    return mover


def stored_seats(page: Page) -> dict[str, Any]:
    """The seats this page's browser keeps: {game id: {token, seat, invite}}."""
    return cast(dict[str, Any], page.evaluate(JS_STORED_SEATS))


def invitation_of(page: Page) -> str:
    """The invitation link the creator's page shows (a full URL with #i=CODE)."""
    link = page.get_by_test_id("invite-link")
    expect(link).to_be_visible()
    url = link.input_value()
    assert re.search(r"/game/[^/#]+#i=[^&]+$", url), (
        f"invite-link value {url!r} is not an invitation link /game/ID#i=CODE")
    assert url.startswith("http"), f"invite-link value {url!r} is not the full URL"
    return url


def start_friend_game(ui: Ui) -> tuple[Page, Page]:
    """A creates a Luzak game against a friend; B opens the invitation link and claims
    seat 1 with it."""
    a, b, _url = start_friend_game_with_link(ui)
    return a, b


def start_friend_game_with_link(ui: Ui) -> tuple[Page, Page, str]:
    """start_friend_game, and the invitation link B opened."""
    a = ui.new_page("A")
    new_game(a, "luzak", opponent="friend", first="me")
    gid = game_id_of(a)
    a_token = stored_seats(a)[gid]["token"]
    url = invitation_of(a)
    b = ui.new_page("B")
    b.goto(url)
    b.wait_for_function(JS_HAS_VERSION)
    a_seat, b_seat = game_attr(a, "seat"), game_attr(b, "seat")
    assert {a_seat, b_seat} == {"0", "1"}, f"seats A={a_seat!r} B={b_seat!r}"
    assert a_seat == "0", "the creator should have seat 0"
    assert "#" not in b.url, f"the invitation code stays in B's address bar: {b.url}"
    b_stored = stored_seats(b)
    assert set(b_stored) == {gid}, f"B keeps seats {sorted(b_stored)}, expected only {gid}"
    assert b_stored[gid]["token"] != a_token, "B got the creator's token"
    return a, b, url


def game_id_of(page: Page) -> str:
    match = re.search(r"/game/([^/#?]+)", page.url)
    assert match, f"{page.url} is not a game page"
    return match.group(1)


def assert_hands_disjoint(a: Page, b: Page) -> None:
    tiles_a, tiles_b = set(hand_tiles(a)), set(hand_tiles(b))
    assert tiles_a and tiles_b, f"empty hands: A {tiles_a}, B {tiles_b}"
    assert not tiles_a & tiles_b, f"B's page shows A's tiles {sorted(tiles_a & tiles_b)}"


# -- games made over HTTP --------------------------------------------------------------------

def friend_game_via_api(base: str, game: str, options: dict[str, Any] | None = None
                        ) -> tuple[str, tuple[str, str]]:
    """A friend game made and joined over HTTP: its id and both seats' tokens."""
    made = request_json(base, "POST", "/api/games",
                        {"game": game, "opponent": "friend", "first": "me",
                         "options": options or {}})
    gid, invite = made["id"], made["invite"]
    assert "#i=" in invite, f"the invitation {invite!r} carries no #i=CODE"
    joined = request_json(base, "POST", f"/api/games/{gid}/join",
                          {"invite": invite.split("#i=", 1)[1]})
    assert joined["seat"] == 1, joined
    return gid, (made["token"], joined["token"])


def hand_over_screen(page: Page, gid: str, token: str) -> Locator:
    """The end-of-hand screen of game ``gid`` as the seat of ``token`` sees it, in English
    (the language chosen on the start page first)."""
    page.goto("/")
    page.get_by_test_id("lang-en").click()
    page.goto(f"/game/{gid}#t={token}")
    over = page.get_by_test_id("hand-over")
    expect(over).to_be_visible()
    return over


def play_via_api(base: str, gid: str, tokens: tuple[str, str], rng: random.Random,
                 until: str, limit: int = 600) -> dict[str, Any]:
    """Random legal moves of both seats over HTTP until the first hand is over (`until`
    "hand") or the match is (`until` "match"); seat 0's state then."""
    for _ in range(limit):
        state = request_json(base, "GET", f"/api/games/{gid}", token=tokens[0])
        if state["match_result"] is not None or (until == "hand" and state["hand_number"] > 1):
            return cast(dict[str, Any], state)
        mover = state["to_move"]
        if mover != 0:
            state = request_json(base, "GET", f"/api/games/{gid}", token=tokens[mover])
        move = rng.choice(state["legal"])["move"]
        request_json(base, "POST", f"/api/games/{gid}/moves",
                     {"move": move, "version": state["version"]}, tokens[mover])
    raise AssertionError(f"game {gid}: not over after {limit} moves")
