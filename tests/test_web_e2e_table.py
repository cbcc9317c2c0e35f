"""End-to-end tests of the table that feels alive (docs/web.md, "Testing hooks in the page"):
tiles dragged to their place with the mouse, the hand docked in view on a phone with
targets large enough to tap, tiles that fly (and do not when the person asks for less
motion), the opponent's tiles face down and Widelec's boneyard as a pile, the drawn tile
marked, sounds off until turned on, and the move list's words for where a tile went.

The server, the browser and the helpers are those of tests/browser.py; games made over the
API use the helpers of tests/test_web_e2e.py.
"""

from __future__ import annotations

import random
import re
import time
from typing import Any, cast

from playwright.sync_api import Locator, Page, expect

from browser import (
    GAME,
    HAND_SECONDS,
    JS_CHOOSE_OR_MOVED,
    JS_HAS_VERSION,
    JS_IS_MY_TURN,
    JS_VERSION_IS,
    PLAYABLE,
    STEP_MS,
    Ui,
    button_move,
    friend_game_via_api,
    game_attr,
    game_id_of,
    left_ms,
    make_move,
    new_game,
    play_via_api,
    stored_seats,
    table_count,
    wait_status,
    wait_version_change,
)
from dominolab.web.edge.process import request_json

#: Recorded in the page before it loads: every Web Animation started (by its id) and every
#: AudioContext made, so that a test can say whether a tile flew and whether sound was made
#: (a flight lasts a quarter of a second, too short to be caught by looking).
RECORDER = """
window.__animations = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (...args) {
  const anim = animate.apply(this, args);
  queueMicrotask(() => window.__animations.push(anim.id || '(none)'));
  return anim;
};
window.__audioContexts = 0;
if (window.AudioContext) {
  const Real = window.AudioContext;
  window.AudioContext = class extends Real {
    constructor(...args) { super(...args); window.__audioContexts += 1; }
  };
}
"""

#: The places lit for the picked tile that the pointer can reach where they are drawn
#: (not under the docked hand): [{moves, x, y}] with their centres.
JS_REACHABLE_SPOTS = """() => [...document.querySelectorAll('[data-testid="spot"]')]
  .map(s => {
    const r = s.querySelector('.spot-ring').getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const hit = document.elementFromPoint(x, y);
    return {moves: s.dataset.moves, x, y, ok: !!hit && hit.closest('.spot') === s};
  })
  .filter(s => s.ok)"""

JS_FLIGHTS = "() => window.__animations.filter(id => id === 'fly-tile').length"


def page_state(page: Page) -> dict[str, Any]:
    """The STATE the page's seat gets from the server now (over HTTP, with its token)."""
    gid = game_id_of(page)
    token = stored_seats(page)[gid]["token"]
    return cast(dict[str, Any], request_json(page.url.split("/game/")[0], "GET",
                                             f"/api/games/{gid}", token=token))


def settled_state(page: Page, deadline: float) -> dict[str, Any]:
    """On my turn: the server's STATE, once the page shows that same version."""
    page.wait_for_function(JS_IS_MY_TURN, timeout=left_ms(deadline))
    state = page_state(page)
    page.wait_for_function(JS_VERSION_IS, arg=str(state["version"]), timeout=left_ms(deadline))
    return state


def box_of(locator: Locator) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not shown"
    return cast(dict[str, float], box)


def drag_tile_to(page: Page, tile: str, moves: str | None, deadline: float) -> str:
    """Drag hand tile TILE with the mouse onto the lit place whose data-moves is MOVES (None:
    the first place the pointer can reach); check that, while dragging, the places are lit
    and the one under the pointer is marked; drop it; choose the first outward half if asked.
    Returns the place's data-moves."""
    old = game_attr(page, "version")
    source = page.locator(f'[data-testid="hand-tile"][data-tile="{tile}"]')
    start = box_of(source)
    x0, y0 = start["x"] + start["width"] / 2, start["y"] + start["height"] / 2
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x0 + 6, y0 - 12, steps=3)  # past the few pixels that still make a tap
    expect(page.locator('[data-testid="spot"]').first).to_be_attached(timeout=left_ms(deadline))
    spots = cast(list[dict[str, Any]], page.evaluate(JS_REACHABLE_SPOTS))
    if moves is not None:
        spots = [s for s in spots if s["moves"] == moves]
    if not spots:  # the place is off screen: bring it into view, the drag goes on
        wanted = (f'[data-testid="spot"][data-moves="{moves}"]' if moves
                  else '[data-testid="spot"]')
        page.locator(wanted).first.evaluate("s => s.scrollIntoView({block: 'center'})")
        spots = [s for s in cast(list[dict[str, Any]], page.evaluate(JS_REACHABLE_SPOTS))
                 if moves is None or s["moves"] == moves]
    assert spots, f"dragging {tile}: no lit place {moves or ''} the pointer can reach"
    target = spots[0]
    page.mouse.move(target["x"], target["y"], steps=8)
    lit = page.locator('[data-testid="spot"].is-drop-target')
    expect(lit).to_have_count(1)
    assert lit.get_attribute("data-moves") == target["moves"]
    expect(page.locator(".drag-ghost")).to_have_count(1)
    page.mouse.up()
    expect(page.locator(".drag-ghost")).to_have_count(0)
    if "," in target["moves"]:  # two luzak moves share the place: the chooser asks
        page.locator('[data-testid="choose-move"]').filter(visible=True).first.click()
    wait_version_change(page, old, deadline, f"dragging {tile} onto {target['moves']}")
    return cast(str, target["moves"])


def drag_move(page: Page, deadline: float) -> str:
    """My move, with the mouse: draw, pass or keep by their buttons, a tile by dragging it
    onto its first place. Returns the kind of move."""
    old = game_attr(page, "version")
    done = button_move(page, old, deadline)
    if done is not None:
        return done
    playable = page.locator(PLAYABLE)
    page.evaluate("() => window.scrollTo(0, 0)")
    drag_tile_to(page, playable.first.get_attribute("data-tile") or "", None, deadline)
    return "play"


def play_hand_by_dragging(page: Page, max_moves: int) -> int:
    """Play up to MAX_MOVES of my moves by dragging (or until the hand is over); each laid
    tile must be on the table afterwards. Returns the tiles laid."""
    deadline = time.monotonic() + HAND_SECONDS
    laid = 0
    for _ in range(max_moves):
        if wait_status(page, deadline) != "me":
            break
        before = page_state(page)
        kind = drag_move(page, deadline)
        after = page_state(page)
        if kind != "play":
            continue
        laid += 1
        if after["hand_number"] == before["hand_number"]:
            mine = [s for s in after["history"] if s["seat"] == after["seat"]]
            assert len(after["table"]["tiles"]) > len(before["table"]["tiles"])
            assert mine[-1]["move"] not in ("draw", "pass", "keep"), mine[-1]
    return laid


# -- the tests -------------------------------------------------------------------------------

def test_a_luzak_match_played_by_dragging(ui: Ui) -> None:
    """A whole match (target 1: two hands) with every tile dragged onto its place."""
    page = ui.new_page("drag-luzak")
    with ui.guard():
        new_game(page, "luzak", opponent="easy", first="me", options={"target": 1})
        deadline = time.monotonic() + HAND_SECONDS
        assert wait_status(page, deadline) == "me"
        # dropped where no place is, the tile goes back: nothing is played
        old = game_attr(page, "version")
        tile = page.locator(PLAYABLE).first
        start = box_of(tile)
        page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
        page.mouse.down()
        page.mouse.move(start["x"] + 40, start["y"] - 30, steps=4)
        status = box_of(page.get_by_test_id("status"))
        page.mouse.move(status["x"] + 10, status["y"] + status["height"] / 2, steps=6)
        expect(page.locator('[data-testid="spot"].is-drop-target')).to_have_count(0)
        page.mouse.up()
        expect(page.locator('[data-testid="spot"]')).to_have_count(0)
        expect(page.locator(".drag-ghost")).to_have_count(0)
        assert game_attr(page, "version") == old, "a tile dropped off the table was played"
        # the whole first hand (six tiles of mine) by dragging
        assert play_hand_by_dragging(page, 6) == 6
        assert wait_status(page, deadline) == "hand-over"
        # and the second, which the computer opens; then the match is over
        page.get_by_test_id("next-hand").click()
        assert play_hand_by_dragging(page, 6) == 6
        assert wait_status(page, time.monotonic() + HAND_SECONDS) == "match-over"


def test_a_widelec_hand_played_by_dragging(ui: Ui) -> None:
    """The first hand, to its end: tiles by dragging, draws and passes by their buttons."""
    page = ui.new_page("drag-widelec")
    with ui.guard():
        new_game(page, "widelec", opponent="easy", first="me")
        assert play_hand_by_dragging(page, 40) >= 2
        assert wait_status(page, time.monotonic() + 30) in ("hand-over", "match-over")


def test_phone_hand_in_view_and_targets_to_tap(ui: Ui) -> None:
    """At 390x844 my tiles and the buttons are in view at the top of the page and further
    down it (the hand is docked at the bottom), and every tile, button and lit place takes
    a tap of at least 44 px."""
    page = ui.new_page("phone-dock", width=390, height=844)
    with ui.guard():
        new_game(page, "luzak", opponent="easy", first="me")
        deadline = time.monotonic() + 90
        for turn in range(3):
            assert wait_status(page, deadline) == "me"
            for scroll in (0, 400):
                page.evaluate(f"() => window.scrollTo(0, {scroll})")
                for tile in page.locator('[data-testid="hand-tile"]').all():
                    box = box_of(tile)
                    assert box["width"] >= 44 and box["height"] >= 44, f"tile box {box}"
                    assert box["y"] >= 0 and box["y"] + box["height"] <= 844, (
                        f"turn {turn}, scrolled {scroll}: a tile of my hand at {box} is not "
                        f"in the 844 px high viewport")
                    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
                for name in ("hint", "sound"):
                    box = box_of(page.get_by_test_id(name))
                    assert box["width"] >= 44 and box["height"] >= 44, f"{name} {box}"
                expect(page.get_by_test_id("hint")).to_be_in_viewport(ratio=1)
            page.evaluate("() => window.scrollTo(0, 0)")
            page.locator(PLAYABLE).first.click()
            spots = page.locator('[data-testid="spot"]')
            expect(spots.first).to_be_attached()
            for spot in spots.all():
                box = box_of(spot)
                assert box["width"] >= 44 and box["height"] >= 44, f"a place to tap {box}"
            old = game_attr(page, "version")
            spots.first.click()
            if page.wait_for_function(JS_CHOOSE_OR_MOVED, arg=old,
                                      timeout=STEP_MS).json_value() == "choose":
                page.locator('[data-testid="choose-move"]').filter(visible=True).first.click()
            wait_version_change(page, old, deadline, "tapping a place")


def test_phone_end_of_hand_is_not_covered_by_the_docked_hand(ui: Ui, server: str) -> None:
    gid, tokens = friend_game_via_api(server, "luzak", {"target": 500})
    play_via_api(server, gid, tokens, random.Random(3), until="hand")
    page = ui.new_page("phone-dock-hand-over", width=390, height=844)
    with ui.guard():
        page.goto(f"/game/{gid}#t={tokens[0]}")
        expect(page.get_by_test_id("hand-over")).to_be_visible()
        for name in ("next-hand", "hand-over-totals"):
            part = page.get_by_test_id(name)
            part.scroll_into_view_if_needed()
            expect(part).to_be_in_viewport(ratio=1)
            box = box_of(part)
            on_top = page.evaluate(
                "([x, y, id]) => !!document.elementFromPoint(x, y)"
                "?.closest(`[data-testid='${id}']`)",
                [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, name])
            assert on_top, f"{name} at {box} is covered (by the docked hand?)"
        page.get_by_test_id("next-hand").click()
        expect(page.get_by_test_id("hand-over")).to_be_hidden()
        expect(page.get_by_test_id("dock")).to_be_in_viewport()


def test_reduced_motion_moves_nothing(ui: Ui) -> None:
    page = ui.new_page("still", reduced_motion="reduce")
    page.add_init_script(RECORDER)
    with ui.guard():
        new_game(page, "luzak", opponent="easy", first="me")
        deadline = time.monotonic() + 60
        for _ in range(2):
            assert wait_status(page, deadline) == "me"
            make_move(page, deadline)
            assert page.evaluate("() => document.getAnimations().length") == 0
            assert wait_status(page, deadline) == "me"  # the computer has moved too
            running = page.evaluate("() => document.getAnimations().map(a => a.id ||"
                                    " a.animationName || a.constructor.name)")
            assert running == [], f"animations under reduced motion: {running}"
        assert page.evaluate(JS_FLIGHTS) == 0


def test_tiles_fly_to_the_table(ui: Ui) -> None:
    page = ui.new_page("motion")
    page.add_init_script(RECORDER)
    with ui.guard():
        new_game(page, "luzak", opponent="easy", first="me")
        deadline = time.monotonic() + 60
        assert wait_status(page, deadline) == "me"
        make_move(page, deadline)
        page.wait_for_function(f"() => ({JS_FLIGHTS})() >= 1", timeout=STEP_MS)
        assert wait_status(page, deadline) == "me"
        # the computer's tile flew from its side of the table too
        page.wait_for_function(f"() => ({JS_FLIGHTS})() >= 2", timeout=STEP_MS)
        # a flight is over in a moment and leaves nothing behind
        expect(page.locator(".flying-tile")).to_have_count(0)


def test_opponent_tiles_face_down_and_the_boneyard_pile(ui: Ui) -> None:
    page = ui.new_page("backs")
    with ui.guard():
        new_game(page, "widelec", opponent="easy", first="me")
        deadline = time.monotonic() + 90
        for _ in range(4):
            if wait_status(page, deadline) != "me":
                break
            state = settled_state(page, deadline)
            backs = page.get_by_test_id("opponent-hand")
            expect(backs.locator(".tile-back")).to_have_count(state["opponent_tiles"])
            expect(backs).to_have_attribute("data-count", str(state["opponent_tiles"]))
            pile = page.get_by_test_id("boneyard-pile")
            expect(pile).to_have_attribute("data-count", str(state["boneyard"]))
            expect(pile).to_contain_text(str(state["boneyard"]))
            expect(page.get_by_test_id("spinner-legend")).to_be_hidden()
            make_move(page, deadline)
        # Luzak: no boneyard, twelve tiles face down at the start, and the spinner's legend
        new_game(page, "luzak", opponent="easy", first="me")
        state = settled_state(page, deadline)
        expect(page.get_by_test_id("boneyard-pile")).to_have_count(0)
        expect(page.get_by_test_id("opponent-hand").locator(".tile-back")).to_have_count(
            state["opponent_tiles"])
        assert state["opponent_tiles"] == 12
        expect(page.get_by_test_id("spinner-legend")).to_be_visible()


def _expected_drawn(state: dict[str, Any]) -> str | None:
    """The tile my page should mark: my last draw, until my next move (a keep is none)."""
    mine = [s for s in state["history"] if s["seat"] == state["seat"] and s["move"] != "keep"]
    if mine and mine[-1]["move"] == "draw":
        return cast(str | None, mine[-1]["drew"])
    return None


def _to_a_draw_of_seat_0(server: str) -> tuple[str, tuple[str, str]]:
    """A Widelec friend game played over the API until seat 0 must draw."""
    for attempt in range(20):
        gid, tokens = friend_game_via_api(server, "widelec", {"target": 500})
        rng = random.Random(attempt)
        for _ in range(60):
            states = [request_json(server, "GET", f"/api/games/{gid}", token=t) for t in tokens]
            if states[0]["hand_number"] > 1 or states[0]["match_result"] is not None:
                break
            mover = next(s for s in states if s["to_move"] == s["seat"])
            kinds = {m["kind"] for m in mover["legal"]}
            if mover["seat"] == 0 and kinds == {"draw"}:
                return gid, tokens
            move = rng.choice(mover["legal"])["move"]
            request_json(server, "POST", f"/api/games/{gid}/moves",
                         {"move": move, "version": mover["version"]}, tokens[mover["seat"]])
    raise AssertionError("no Widelec position where seat 0 must draw in 20 games")


def test_the_drawn_tile_is_marked_until_my_next_move(ui: Ui, server: str) -> None:
    gid, tokens = _to_a_draw_of_seat_0(server)
    page = ui.new_page("drawn")
    marked = page.locator('[data-testid="hand-tile"][data-drawn="true"]')
    with ui.guard():
        page.goto(f"/game/{gid}#t={tokens[0]}")
        page.wait_for_function(JS_HAS_VERSION)
        deadline = time.monotonic() + 60
        assert wait_status(page, deadline) == "me"
        expect(marked).to_have_count(0)
        old = game_attr(page, "version")
        page.get_by_test_id("draw").click()
        wait_version_change(page, old, deadline, "drawing")
        state = page_state(page)
        drew = _expected_drawn(state)
        assert drew is not None, state["history"][-1]
        page.wait_for_function(JS_VERSION_IS, arg=str(state["version"]))
        expect(marked).to_have_count(1)
        expect(marked).to_have_attribute("data-tile", drew)
        # the drawn tile did not fit: the friend moves (a draw of theirs is a move too, and
        # keeps the turn theirs) until it is mine again; the mark stays meanwhile
        friend = request_json(server, "GET", f"/api/games/{gid}", token=tokens[1])
        while friend["to_move"] == 1 and friend["hand_number"] == state["hand_number"]:
            request_json(server, "POST", f"/api/games/{gid}/moves",
                         {"move": friend["legal"][0]["move"], "version": friend["version"]},
                         tokens[1])
            page.wait_for_function(JS_VERSION_IS, arg=str(friend["version"] + 1))
            if page_state(page)["hand_number"] > state["hand_number"]:
                return
            expect(marked).to_have_attribute("data-tile", drew)
            friend = request_json(server, "GET", f"/api/games/{gid}", token=tokens[1])
        # my next move: the mark goes, or moves to a tile drawn again
        assert wait_status(page, deadline) == "me"
        make_move(page, deadline)
        state = page_state(page)
        if state["hand_number"] > 1:
            return
        page.wait_for_function(JS_VERSION_IS, arg=str(state["version"]))
        again = _expected_drawn(state)
        if again is None:
            expect(marked).to_have_count(0)
        else:
            expect(marked).to_have_attribute("data-tile", again)


def test_sounds_are_off_until_turned_on_and_the_choice_is_kept(ui: Ui) -> None:
    page = ui.new_page("sound")
    page.add_init_script(RECORDER)
    toggle = page.get_by_test_id("sound")
    with ui.guard():
        new_game(page, "luzak", opponent="easy", first="me")
        deadline = time.monotonic() + 60
        expect(toggle).to_have_attribute("aria-pressed", "false")
        assert wait_status(page, deadline) == "me"
        make_move(page, deadline)
        assert page.evaluate("() => window.__audioContexts") == 0, "sound made while off"
        toggle.click()
        expect(toggle).to_have_attribute("aria-pressed", "true")
        page.reload()
        page.wait_for_function(JS_HAS_VERSION)
        expect(toggle).to_have_attribute("aria-pressed", "true")
        assert wait_status(page, deadline) == "me"
        make_move(page, deadline)
        assert page.evaluate("() => window.__audioContexts") >= 1, "no sound while on"
        toggle.click()
        expect(toggle).to_have_attribute("aria-pressed", "false")
        page.reload()
        page.wait_for_function(JS_HAS_VERSION)
        expect(toggle).to_have_attribute("aria-pressed", "false")


SHORT_END = re.compile(r"^(\d+)[ns]$")


def _to_a_short_end_for_seat_0(server: str) -> tuple[str, tuple[str, str], dict[str, Any]]:
    """A Luzak friend game played over the API (doubles first, so that spinners come) until
    seat 0 may lay a tile on a spinner's short end; seat 0's state then."""
    for attempt in range(20):
        gid, tokens = friend_game_via_api(server, "luzak", {"target": 500})
        rng = random.Random(attempt)
        for _ in range(11):
            states = [request_json(server, "GET", f"/api/games/{gid}", token=t) for t in tokens]
            if states[0]["hand_number"] > 1:
                break
            mover = next(s for s in states if s["to_move"] == s["seat"])
            if mover["seat"] == 0 and any(m["kind"] == "play" and SHORT_END.match(m["port"])
                                          for m in mover["legal"]):
                return gid, tokens, mover
            doubles = [m for m in mover["legal"] if m["tile"][0] == m["tile"][1]]
            move = rng.choice(doubles or mover["legal"])["move"]
            request_json(server, "POST", f"/api/games/{gid}/moves",
                         {"move": move, "version": mover["version"]}, tokens[mover["seat"]])
    raise AssertionError("no Luzak position with a play on a short end in 20 games")


def test_the_move_list_says_where_a_tile_went(ui: Ui, server: str) -> None:
    """A tile dragged onto a spinner's short end is listed as "on a short end of spinner
    [d|d]" (in Polish "na krótszy bok spinnera [d|d]"), the notation kept as its tooltip;
    the spinner is marked on the table."""
    gid, tokens, state = _to_a_short_end_for_seat_0(server)
    move = next(m for m in state["legal"] if m["kind"] == "play" and SHORT_END.match(m["port"]))
    port = SHORT_END.match(move["port"])
    assert port is not None
    k = int(port.group(1))
    spinner = state["table"]["tiles"][k - 1]
    assert spinner["spinner"] is True, spinner
    d = spinner["tile"][0]
    page = ui.new_page("words")
    with ui.guard():
        page.goto("/")
        page.get_by_test_id("lang-en").click()
        page.goto(f"/game/{gid}#t={tokens[0]}")
        page.wait_for_function(JS_VERSION_IS, arg=str(state["version"]))
        expect(page.locator(f'[data-testid="table-tile"][data-k="{k}"]')).to_have_attribute(
            "data-spinner", "true")
        expect(page.locator('[data-testid="table-tile"][data-spinner="true"] .spinner-pin')
               .first).to_be_visible()
        expect(page.get_by_test_id("spinner-legend")).to_contain_text("all four sides")
        deadline = time.monotonic() + 60
        drag_tile_to(page, move["tile"], move["move"], deadline)
        last = page.get_by_test_id("history").locator("li").last
        words = last.locator(".move-words")
        expect(words).to_contain_text(f"on a short end of spinner [{d}|{d}]")
        expect(words).to_have_attribute("data-move", move["move"])
        expect(words).to_have_attribute("title", re.compile(re.escape(move["move"])))
        page.get_by_test_id("lang-pl").click()
        expect(words).to_contain_text(f"na krótszy bok spinnera [{d}|{d}]")
        expect(page.get_by_test_id("spinner-legend")).to_contain_text("czterech stron")
        assert table_count(page) == len(state["table"]["tiles"]) + 1
        assert page.locator(GAME).get_attribute("data-version") == str(state["version"] + 1)


def test_a_tile_dragged_by_touch(ui: Ui) -> None:
    """On a phone the finger drags as the mouse does: touch events (sent as Chromium's own
    input, not made up in the page) carry a tile from the hand onto a lit place."""
    page = ui.new_page("drag-touch", width=390, height=844)
    with ui.guard():
        new_game(page, "luzak", opponent="easy", first="me")
        deadline = time.monotonic() + HAND_SECONDS
        cdp = page.context.new_cdp_session(page)

        def touch(kind: str, x: float, y: float) -> None:
            points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1}]
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

        for _ in range(2):
            assert wait_status(page, deadline) == "me"
            old = game_attr(page, "version")
            source = page.locator(PLAYABLE).first
            tile = source.get_attribute("data-tile")
            start = box_of(source)
            x0, y0 = start["x"] + start["width"] / 2, start["y"] + start["height"] / 2
            touch("touchStart", x0, y0)
            for k in range(1, 4):  # past the few pixels that still make a tap
                touch("touchMove", x0 + 2 * k, y0 - 4 * k)
            expect(page.locator('[data-testid="spot"]').first).to_be_attached()
            spots = cast(list[dict[str, Any]], page.evaluate(JS_REACHABLE_SPOTS))
            assert spots, f"touching {tile}: no lit place the finger can reach"
            target = spots[0]
            for k in range(1, 9):
                touch("touchMove", x0 + (target["x"] - x0) * k / 8,
                      y0 + (target["y"] - y0) * k / 8)
            expect(page.locator('[data-testid="spot"].is-drop-target')).to_have_count(1)
            touch("touchEnd", target["x"], target["y"])
            if "," in target["moves"]:
                page.locator('[data-testid="choose-move"]').filter(visible=True).first.click()
            wait_version_change(page, old, deadline, f"dragging {tile} by touch")
        cdp.detach()
