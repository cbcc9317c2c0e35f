"""The tutorial in the browser (docs/learn.md, "The tutorial"): every lesson of every game is
completed in English and in Polish by clicks and keys, one wrong move and one tile that
cannot be laid per game are explained with the engine's numbers, progress survives a
reload, and the last lesson's button starts a match against the easy computer. The server,
the browser and the helpers are in tests/browser.py; the lessons' data and texts are read
the way tests/test_web_lessons.py reads them."""

from __future__ import annotations

import re
from typing import Any, cast

from playwright.sync_api import Page, expect

from browser import GAME, Ui, game_id_of, stored_seats
from dominolab.web.content.lessons import LESSONS, lessons_json
from dominolab.web.edge.process import request_json
from test_web_lessons import STRINGS_BY_LANG, fill

#: per game, a lesson with a move that is legal but misses the goal, and what it shows
WRONG = {"luzak": ("where", "64@1w"), "luzak-line": ("divisible", "62@L"),
         "widelec": ("quartet", "05@R")}
#: per game, a lesson with a tile that cannot be laid
REFUSED = {"luzak": ("divisible", "30"), "luzak-line": ("either", "43"),
           "widelec": ("draw", "44")}

# the spot that holds MOVE: its index among the spots and how many moves it means (null
# until it shows)
JS_SPOT = """move => {
  const spots = [...document.querySelectorAll('[data-testid="spot"]')];
  const i = spots.findIndex(s => s.dataset.moves.split(',').includes(move));
  return i < 0 ? null : {i, n: spots[i].dataset.moves.split(',').length};
}"""
JS_FORGET_PROGRESS = """() => Object.keys(localStorage)
  .filter(k => k.startsWith('dominolab/learn/')).forEach(k => localStorage.removeItem(k))"""


def sentences(lang: str, say: list[dict[str, Any]]) -> list[str]:
    return [fill(STRINGS_BY_LANG[lang][s["key"]], s["vars"]) for s in say]


def text(lang: str, key: str, values: dict[str, Any]) -> str:
    return fill(STRINGS_BY_LANG[lang][key], values)


def play(page: Page, entry: dict[str, Any]) -> None:
    """Make a lesson's move as a person does: a button for a draw; else the tile, its lit
    place, and (when the place means several moves) the outward half."""
    if entry["kind"] not in ("lead", "play", "luzak"):
        page.get_by_test_id(f"lesson-{entry['kind']}").click()
        return
    page.locator(f'[data-testid="lesson-tile"][data-tile="{entry["tile"]}"]').click()
    spot = cast(dict[str, int], page.wait_for_function(JS_SPOT, arg=entry["move"]).json_value())
    page.locator('[data-testid="spot"]').nth(spot["i"]).click()
    if spot["n"] > 1:
        page.locator(f'[data-testid="choose-move"][data-move="{entry["move"]}"]').click()


def expect_explained(page: Page, lang: str, result: str, say: list[dict[str, Any]]) -> None:
    box = page.get_by_test_id("lesson-explain")
    expect(box).to_have_attribute("data-result", result)
    expect(box.locator('[data-testid="lesson-say"] li')).to_have_text(sentences(lang, say))


def do_lessons(page: Page, lang: str, game: str) -> None:
    """Every lesson of GAME in order, from the first, with the wrong moves of WRONG and
    REFUSED on the way."""
    data = lessons_json(game, "wide")
    lessons = data["lessons"]
    page.goto(f"/learn/{game}")
    for i, lesson in enumerate(lessons):
        lid = lesson["id"]
        card = page.get_by_test_id("lesson")
        expect(card).to_have_attribute("data-lesson", lid)
        expect(card.get_by_test_id("lesson-goal")).to_contain_text(
            text(lang, f"learn.{game}.{lid}.goal", lesson["vars"]))
        expect(card.get_by_test_id("lesson-intro")).to_have_text(
            text(lang, f"learn.{game}.{lid}.intro", lesson["vars"]))
        if REFUSED[game][0] == lid:
            tile = REFUSED[game][1]
            page.locator(f'[data-testid="lesson-tile"][data-tile="{tile}"]').click()
            blocked = next(b for b in lesson["turns"][0]["blocked"] if b["tile"] == tile)
            expect_explained(page, lang, "refused", blocked["say"])
        if WRONG[game][0] == lid:
            wrong = next(x for x in lesson["turns"][0]["legal"] if x["move"] == WRONG[game][1])
            assert not wrong["goal"]
            play(page, wrong)
            expect_explained(page, lang, "miss", wrong["say"])
            expect(page.get_by_test_id("table-tile")).to_have_count(len(lesson["history"]) + 1)
            page.get_by_test_id("lesson-retry").click()
            expect(page.get_by_test_id("lesson-explain")).to_have_attribute("data-result", "")
            expect(page.get_by_test_id("table-tile")).to_have_count(len(lesson["history"]))
        for t, turn in enumerate(lesson["turns"]):
            goal = next(x for x in turn["legal"] if x["goal"])
            if game == "luzak" and lid == "lead":
                # by keys: the tile's number, then Enter on the first lit place
                page.locator("body").press(str(turn["hand"].index(goal["tile"]) + 1))
                expect(page.locator('[data-testid="spot"]')).to_have_count(1)
                page.keyboard.press("Enter")
            else:
                play(page, goal)
            last_turn = t == len(lesson["turns"]) - 1
            expect_explained(page, lang, "goal" if last_turn else "drew", goal["say"])
            if not last_turn:
                expect(page.get_by_test_id("lesson-goal")).to_contain_text(
                    text(lang, f"learn.{game}.{lid}.goal{t + 2}", lesson["vars"]))
        expect(page.get_by_test_id("lesson-done")).to_have_text(
            text(lang, f"learn.{game}.{lid}.done", lesson["vars"]))
        shown_text = page.get_by_test_id("lesson").inner_text()
        assert not {"{", "null", "undefined", "NaN"} & set(re.findall(r"\{|\w+", shown_text))
        if i < len(lessons) - 1:
            expect(page.get_by_test_id("lesson-next")).to_be_focused()
            page.get_by_test_id("lesson-next").click()
        else:
            expect(page.get_by_test_id("learn-play")).to_be_focused()
    progress = page.get_by_test_id("learn-progress")
    expect(progress).to_have_attribute("data-done", str(len(lessons)))


def test_every_lesson_in_both_languages_then_a_first_match(ui: Ui, server: str) -> None:
    page = ui.new_page("learn")
    with ui.guard():
        page.goto("/learn")
        for lang in ("en", "pl"):
            page.get_by_test_id(f"lang-{lang}").click()
            page.evaluate(JS_FORGET_PROGRESS)
            for game in LESSONS:
                do_lessons(page, lang, game)
            # progress is kept in the browser: after a reload every lesson is still done
            page.reload()
            links = page.get_by_test_id("lesson-link")
            expect(links).to_have_count(len(LESSONS["widelec"]))
            for link in links.all():
                expect(link).to_have_attribute("data-done", "true")
            page.goto("/learn")
            cards = page.get_by_test_id("learn-game")
            expect(cards).to_have_count(len(LESSONS))
            for game, lessons in LESSONS.items():
                progress = page.locator(f'[data-testid="learn-game"][data-game="{game}"] '
                                        '[data-testid="learn-progress"]')
                expect(progress).to_have_attribute("data-done", str(len(lessons)))
                expect(progress).to_have_text(text(lang, "learn.progress", {
                    "done": len(lessons), "total": len(lessons)}))
        # the last lesson's button starts a match against the easy computer
        page.goto(f"/learn/widelec#{LESSONS['widelec'][-1].id}")
        last = lessons_json("widelec", "wide")["lessons"][-1]
        play(page, next(x for x in last["turns"][-1]["legal"] if x["goal"]))
        page.get_by_test_id("learn-play").click()
        expect(page.locator(GAME)).to_be_visible()
        gid = game_id_of(page)
        seat = stored_seats(page)[gid]
        state = request_json(server, "GET", f"/api/games/{gid}", token=seat["token"])
        assert state["game"] == "widelec" and state["opponent"] == "easy"


def test_a_lesson_on_a_phone(ui: Ui) -> None:
    """390 px wide: the hand and the lit places are there to tap, each at least 44 px."""
    page = ui.new_page("phone", width=390, height=844)
    with ui.guard():
        page.goto("/learn/luzak#arms")
        page.get_by_test_id("lang-en").click()
        lesson = next(x for x in lessons_json("luzak", "narrow")["lessons"] if x["id"] == "arms")
        tiles = page.get_by_test_id("lesson-tile")
        expect(tiles).to_have_count(len(lesson["turns"][0]["hand"]))
        for box in [t.bounding_box() for t in tiles.all()] + [
                link.bounding_box() for link in page.get_by_test_id("lesson-link").all()]:
            assert box is not None and box["width"] >= 44 and box["height"] >= 44, box
        assert page.evaluate("document.documentElement.scrollWidth") <= 390 + 4
        goal = next(x for x in lesson["turns"][0]["legal"] if x["goal"])
        page.locator(f'[data-testid="lesson-tile"][data-tile="{goal["tile"]}"]').click()
        spots = page.locator('[data-testid="spot"]')
        expect(spots.first).to_be_in_viewport()
        for spot in spots.all():
            box = spot.bounding_box()
            assert box is not None and box["width"] >= 44 and box["height"] >= 44, box
        play(page, goal)
        expect_explained(page, "en", "goal", goal["say"])
        expect(page.get_by_test_id("lesson-next")).to_be_in_viewport()
