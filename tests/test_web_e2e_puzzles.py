"""The puzzle page in Debian's Chromium (issue 41, must-have 6): a person solves a puzzle
with the right move and misses one with a wrong move, picking tiles and places as on the
game page, in English and in Polish, on a phone and a desktop, and sees the best move lit,
the why with the count and the points, and the rating change; the daily puzzle on the start
page links to its puzzle. Which move is right is read from the shipped puzzle files."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from browser import Ui
from dominolab.core import Play, parse_move
from dominolab.players.puzzles import Puzzle, read_puzzles
from dominolab.web.content.puzzles import PUZZLE_DIR
from test_web_e2e_ratings import as_player, get, post

pytestmark = pytest.mark.timeout(180)

#: the words of a verdict, a why's count, and a rating change, by language
WORDS = {
    "en": {"solved": "Solved!", "missed": "Not the best", "count": "the table counts",
           "points": "points", "rating": "Your puzzle rating"},
    "pl": {"solved": "Rozwiązane!", "missed": "nie jest najlepszy", "count": "suma stołu",
           "points": "pkt", "rating": "Twój ranking zadań"},
}


def puzzle_of(game: str, pid: str) -> Puzzle:
    return next(p for p in read_puzzles(PUZZLE_DIR / f"{game}.jsonl") if p.id == pid)


def play(page: Page, move_text: str) -> None:
    """Make ``move_text`` on the puzzle page as a person does: its hand tile, then its
    place on the table (and the move, when the place takes the tile more than one way)."""
    move = parse_move(move_text)
    if not isinstance(move, Play):
        page.get_by_test_id(move_text).click()
        return
    digits = move.tile.digits
    tile = page.locator(f'[data-testid="hand-tile"][data-tile="{digits}"], '
                        f'[data-testid="hand-tile"][data-tile="{digits[::-1]}"]')
    tile.first.click()
    expect(page.locator('[data-testid="spot"]').first).to_be_visible()
    spots = [s for s in page.locator('[data-testid="spot"]').all()
             if move_text in (s.get_attribute("data-moves") or "").split(",")]
    assert len(spots) == 1, f"{move_text}: {len(spots)} places on the table"
    spots[0].click()
    chooser = page.locator(f'[data-testid="choose-move"][data-move="{move_text}"]')
    if chooser.count():
        chooser.click()


def open_page(ui: Ui, server: str, lang: str, width: int, player: dict[str, Any] | None
              ) -> Page:
    page = ui.new_page(f"puzzles-{lang}-{width}", width=width, height=844)
    if player is not None:
        as_player(page, player)
    page.add_init_script(f"localStorage.setItem('dominolab/lang', {json.dumps(lang)})")
    return page


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("lang", ["en", "pl"])
def test_a_person_solves_one_puzzle_and_misses_another(ui: Ui, server: str, lang: str,
                                                       width: int) -> None:
    player = post(server, "/api/players", {"name": f"Puzzler {lang} {width}"})
    words = WORDS[lang]
    with ui.guard():
        page = open_page(ui, server, lang, width, player)
        page.goto("/")
        page.get_by_test_id("puzzles-link").click()
        board = page.get_by_test_id("puzzle")
        expect(board).to_be_visible()
        expect(page.locator("html")).to_have_attribute("lang", lang)
        for solve in (True, False):
            pid = board.get_attribute("data-id")
            assert pid is not None
            game = page.get_by_test_id("puzzle-page").get_attribute("data-game") or ""
            puzzle = puzzle_of(game, pid)
            if puzzle.best.count is not None:
                expect(page.get_by_test_id("puzzle-task")).to_contain_text(str(puzzle.best.n))
            move = puzzle.best.move if solve else puzzle.moves[-1].move
            play(page, move)
            verdict = page.get_by_test_id("puzzle-verdict")
            expect(verdict).to_have_attribute("data-solved", "true" if solve else "false")
            expect(verdict).to_contain_text(words["solved" if solve else "missed"])
            why = page.get_by_test_id("puzzle-why")
            expect(why).to_contain_text(puzzle.best.move)
            expect(why).to_contain_text(words["points"])
            if puzzle.best.count is not None and puzzle.best.now[0]:
                expect(why).to_contain_text(words["count"])
                expect(why).to_contain_text(f"{puzzle.best.count} ÷ {puzzle.best.n}")
            if puzzle.best.quartet:
                expect(why).to_contain_text(puzzle.best.quartet)
            expect(why).to_contain_text(puzzle.runner_up.move)
            change = page.get_by_test_id("puzzle-rating-change")
            expect(change).to_contain_text(words["rating"])
            expect(change).to_contain_text("→")
            if isinstance(parse_move(puzzle.best.move), Play):
                expect(page.get_by_test_id("puzzle-best")).to_have_count(1)
            page.get_by_test_id("next-puzzle").click()
            expect(board).not_to_have_attribute("data-id", pid)
            expect(page.get_by_test_id("puzzle-hand")).to_be_visible()


def test_the_daily_puzzle_on_the_start_page_links_to_it(ui: Ui, server: str) -> None:
    daily = get(server, "/api/puzzles/daily?game=luzak")
    with ui.guard():
        page = open_page(ui, server, "pl", 390, None)
        page.goto("/")
        link = page.get_by_test_id("daily-puzzle-link")
        expect(link).to_have_attribute("data-id", daily["puzzle"]["id"])
        expect(page.get_by_test_id("daily-puzzle")).to_contain_text("Zadanie dnia")
        link.click()
        expect(page.get_by_test_id("puzzle")).to_have_attribute("data-id", daily["puzzle"]["id"])
        # a visitor answers, and is told it was not rated
        play(page, puzzle_of("luzak", daily["puzzle"]["id"]).best.move)
        expect(page.get_by_test_id("puzzle-verdict")).to_have_attribute("data-solved", "true")
        expect(page.get_by_test_id("puzzle-rating-change")).to_contain_text("Bez rankingu")


def test_a_luzak_s_why_names_both_what_it_gives_away_and_what_it_scores(
        ui: Ui, server: str) -> None:
    """A luzak in Luzak gives the opponent its pips and may still score its player the
    count (luzak-0007: [1|1] gives 2 and scores 8, the count of 8 over 8 tiles); a luzak in
    Luzak without spinners gives the opponent the count itself (no shipped puzzle has one
    among its best moves: the page's own words are asked for one)."""
    puzzle = puzzle_of("luzak", "luzak-0007")
    best = puzzle.best
    assert best.move.endswith("*") and best.now == (8, 2) and best.count == 8 == best.n
    with ui.guard():
        page = open_page(ui, server, "en", 1280, None)
        page.goto(f"/puzzles/luzak/{puzzle.id}")
        play(page, best.move)
        why = page.get_by_test_id("puzzle-why")
        expect(why).to_contain_text(f"{best.move} is a luzak: it gives your opponent 2 points")
        expect(why).to_contain_text("It still scores 8 for you: the table counts 8 with 8 "
                                    "tiles laid (8 ÷ 8 = 1)")
        line = page.evaluate("""async () => {
          const src = document.querySelector('script[type=module]').src;
          const { whyLines } = await import(new URL('puzzles.js', src));
          const luzak = { move: '64@L*', kind: 'luzak', now: [0, 20], count: 20, n: 5,
                          margin: -9, win: 0.3, quartet: null };
          return whyLines({ moves: [luzak], chosen: 0 },
                          { luzaks: true, luzak_pips: false, count: true })[0];
        }""")
        assert line == ("64@L* is a luzak: the table counts 20 with 5 tiles laid (20 ÷ 5 = 4),"
                        " and a luzak's count goes to your opponent: 20 points for them.")
