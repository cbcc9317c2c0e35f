"""The player's guide in the browser (docs/learn.md, "The player's guide"): the index at
/rules, each game's page in English and in Polish through the header's language buttons,
with its diagrams drawn as SVG tiles and their captions as the server filled them from the
engine, the link to the exact rules and back, and the pages at a phone's width. The real
server and Chromium come from tests/browser.py.
"""

from __future__ import annotations

from typing import Any, cast

from playwright.sync_api import Page, Route, expect

from browser import GAMES, Ui
from dominolab.web.content.guide import DIAGRAMS, SECTIONS, guide_page

INDEX = '[data-testid="guide-index"][data-ready="true"]'
GUIDE = '[data-testid="guide"][data-ready="true"]'

#: each figure: its diagram id, how many tiles its svg draws, how many are highlighted, the
#: caption shown
JS_FIGURES = """() => [...document.querySelectorAll('[data-testid="guide-diagram"]')].map(f => ({
  id: f.dataset.diagram,
  tiles: f.querySelectorAll('svg .domino').length,
  marked: f.querySelectorAll('svg .is-highlight, svg .is-paired').length,
  label: f.querySelector('svg[role="img"]').getAttribute('aria-label'),
  caption: f.querySelector('figcaption').textContent,
}))"""

#: the width of every diagram's svg
JS_DIAGRAM_WIDTHS = """() => [...document.querySelectorAll('[data-testid="guide-diagram"] svg')]
  .map(s => s.getBoundingClientRect().width)"""

#: how far <main>'s content reaches, in CSS pixels (what scrolls inside a box, like a wide
#: table of the exact rules, stays in it)
JS_MAIN_RIGHT = """() => { const m = document.querySelector('main');
  return m.getBoundingClientRect().left + m.scrollWidth; }"""


def check_guide(page: Page, game: str, lang: str) -> None:
    """The page of GAME in LANG shows the server's sections and every diagram, drawn."""
    want = guide_page(game, lang)
    article = page.locator(GUIDE)
    expect(article).to_have_attribute("lang", lang)
    expect(article).to_have_attribute("data-game", game)
    expect(article.locator("h1")).to_have_text(want["title"])
    sections = article.get_by_test_id("guide-section")
    expect(sections).to_have_count(len(SECTIONS))
    for i, section in enumerate(want["sections"]):
        expect(sections.nth(i).locator("h2")).to_have_text(section["title"])
    figures = cast(list[dict[str, Any]], page.evaluate(JS_FIGURES))
    assert [f["id"] for f in figures] == [d.id for d in DIAGRAMS[game]], figures
    for shown, sent in zip(figures, want["diagrams"], strict=True):
        assert shown["tiles"] == len(sent["layout"]["tiles"]) >= 2, shown
        assert shown["marked"] == len(sent["highlight"]) >= 1, shown
        assert shown["caption"] == sent["caption"] and shown["label"] == sent["label"]
    assert want["title"] in page.title(), page.title()


def test_guide_pages_in_english_and_polish(ui: Ui) -> None:
    page = ui.new_page("guide")
    with ui.guard():
        page.goto("/")
        page.get_by_test_id("lang-en").click()
        page.get_by_test_id("rules-link").click()
        expect(page.locator(INDEX)).to_be_visible()
        expect(page.get_by_test_id("guide-card")).to_have_count(len(GAMES))
        for game in GAMES:
            page.locator(f'[data-testid="guide-open"][data-game="{game}"]').click()
            expect(page).to_have_url(f"{ui.base_url}/rules/{game}")
            check_guide(page, game, "en")
            page.get_by_test_id("lang-pl").click()
            expect(page.locator("html")).to_have_attribute("lang", "pl")
            check_guide(page, game, "pl")
            page.get_by_test_id("lang-en").click()
            check_guide(page, game, "en")
            learn = page.locator('[data-testid="guide"] [data-testid="guide-learn"]')
            expect(learn).to_have_attribute("href", f"/learn/{game}")
            page.get_by_test_id("guide-back").click()
            expect(page.locator(INDEX)).to_be_visible()

        # the exact rules are one link away from a game's page, and lead back
        page.locator('[data-testid="guide-open"][data-game="widelec"]').click()
        expect(page.locator(GUIDE)).to_be_visible()
        page.locator('[data-testid="guide"] [data-testid="guide-exact-link"]').click()
        expect(page).to_have_url(f"{ui.base_url}/rules/exact")
        rules = page.locator('[data-testid="rules"][data-ready="true"]')
        expect(rules).to_contain_text("The rules, made exact")
        page.get_by_test_id("lang-pl").click()
        expect(rules).to_contain_text("Kwartety")
        expect(rules).to_have_attribute("lang", "pl")
        page.get_by_test_id("guide-back").click()
        expect(page.locator(INDEX)).to_have_attribute("lang", "pl")
        expect(page.locator(INDEX).locator("h1")).to_have_text("Zasady gry")

        # an unknown game: a clear message and the games there are
        page.goto("/rules/chess")
        expect(page.get_by_test_id("guide-error")).to_be_visible()
        expect(page.locator('[data-testid="guide"] a[href="/rules/luzak"]')).to_be_visible()


def test_guide_at_a_phones_width(ui: Ui) -> None:
    page = ui.new_page("guide-phone", width=390, height=844)
    with ui.guard():
        page.goto("/")
        for lang in ("en", "pl"):
            page.get_by_test_id(f"lang-{lang}").click()
            for path in ["/rules", *(f"/rules/{g}" for g in GAMES), "/rules/exact"]:
                page.goto(path)
                ready = page.locator('main article[data-ready="true"]')
                expect(ready).to_have_attribute("lang", lang)
                right = float(page.evaluate(JS_MAIN_RIGHT))
                assert right <= 391, f"{path} ({lang}): the page's content reaches x={right}"
                if lang == "en":  # the Polish header is not this page's (see the report)
                    width = int(page.evaluate("() => document.documentElement.scrollWidth"))
                    assert width <= 391, f"{path}: scrollWidth {width} > 390"
                if path not in ("/rules/exact", "/rules"):
                    sizes = cast(list[float], page.evaluate(JS_DIAGRAM_WIDTHS))
                    assert sizes and all(120 <= w <= 390 for w in sizes), sizes


def test_a_slow_home_page_does_not_cover_the_page_navigated_to(ui: Ui) -> None:
    """The home page's options arrive after the player has gone on to the rules: they are
    kept for later, not drawn over the rules (a race seen under load)."""
    page = ui.new_page("guide")
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    page.route("**/api/meta", hold)
    with ui.guard():
        page.goto("/")
        page.get_by_test_id("rules-link").click()
        expect(page.locator(INDEX)).to_be_visible()
        assert len(held) == 1
        with page.expect_response("**/api/meta") as answer:
            held[0].continue_()
        answer.value.finished()
        # two turns of the page's event loop: the home view's handler of the answer has run
        page.evaluate("() => new Promise((done) => setTimeout(() => setTimeout(done, 0), 0))")
        expect(page.locator(INDEX)).to_be_visible()
        expect(page.get_by_test_id("guide-card")).to_have_count(len(GAMES))

