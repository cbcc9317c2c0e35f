"""Accessibility of the pages people see most, checked by axe-core (the copy bundled with the
`axe-playwright-python` package) in Debian's Chromium: the start page with a rated match's
clock showing, the lobby listing "your live games", the game page of a rated match against
the computer, the leaderboard after a moderator hid a name, and the rules page; each at a
desktop's width and a phone's, in English and in Polish. No violation of impact "serious"
or "critical" may remain. Beside axe: the page's `lang` is the language shown, neither the
page nor a table scrolls sideways, a rated match shows no hint button and a hidden name is
shown in the page's language.

One server and one browser for the module (the fixtures of tests/browser.py and the rated
match of tests/test_web_e2e_ratings.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any, cast

import pytest
from playwright.sync_api import Browser, Page, expect

from browser import JS_HAS_VERSION, Ui
from dominolab.cli.main import main
from dominolab.web.edge.process import ServerProcess
from loops import until
from test_web_e2e_ratings import as_player, get, post, rated

__all__ = ["rated"]  # the rated match's fixture, used here through `site`

pytestmark = pytest.mark.timeout(180)

#: axe-core, as the package bundles it (read as a file: the package's Python has no types)
AXE_JS = (files("axe_playwright_python") / "axe.min.js").read_text(encoding="utf-8")
#: the impacts that fail the test
BLOCKING = ("serious", "critical")
#: axe rules switched off here, each with the reason (none: every rule is met)
DISABLED: dict[str, str] = {}
#: a moderator's hidden name as the page shows it, by language
HIDDEN_NAME = {"en": "hidden name", "pl": "ukryta nazwa"}
WIDTHS = {"desktop": (1280, 800), "phone": (390, 844)}
LANGS = ("en", "pl")
PAGES = ("start", "lobby", "game", "leaderboard", "rules")
#: [how wide, how wide it may be] of the page, or of a table's sideways-scrolling box that
#: is wider than its box (the first found): a person would have to scroll to read it
JS_WIDEST = """() => {
  const over = [...document.querySelectorAll('.table-scroll')]
    .find(e => e.scrollWidth > e.clientWidth);
  if (over) return [over.scrollWidth, over.clientWidth];
  return [document.documentElement.scrollWidth, window.innerWidth];
}"""


@dataclass(frozen=True)
class Site:
    """The module's server, with the people and the games the pages show."""

    server: ServerProcess
    ala: dict[str, Any]      # the player this browser plays as
    hidden_id: str           # the player whose name a moderator hid (Ala's rated opponent)
    game_id: str             # Ala's rated match against the computer, live


@pytest.fixture(scope="module")
def site(rated: dict[str, Any]) -> Site:
    """Ala and Ola played a rated match; a moderator hid Ola's name; Ala plays a rated match
    against the computer."""
    server: ServerProcess = rated["server"]
    ola_id = rated["ola"]["id"]
    assert main(["admin", "--db", str(server.db), "--by", "a11y", "hide-name", ola_id]) == 0
    until(lambda: get(server.base, f"/api/players/{ola_id}")["name"] == HIDDEN_NAME["en"],
          10.0, "the server showing the hidden name")
    made = post(server.base, "/api/games", {"game": "luzak", "opponent": "easy", "rated": True,
                                            "move_seconds": 120, "first": "me"},
                key=rated["ala"]["key"])
    return Site(server, rated["ala"], ola_id, made["id"])


@pytest.fixture
def axe_ui(chromium: Browser, site: Site, tmp_path: Path) -> Iterator[Ui]:
    """The module's browser on the module's server; a context a test."""
    it = Ui(chromium, site.server.base, tmp_path)
    yield it
    it.close()


def open_site(ui: Ui, site: Site, lang: str, size: tuple[int, int]) -> Page:
    """A page of Ala's browser in ``lang`` at ``size``, on the start page."""
    page = ui.new_page(f"{lang}-{size[0]}", width=size[0], height=size[1])
    as_player(page, site.ala)
    page.add_init_script(f"localStorage.setItem('dominolab/lang', {json.dumps(lang)})")
    page.goto("/")
    return page


def show(page: Page, site: Site, name: str, lang: str) -> None:
    """Go to view ``name`` inside the page as a person does (the header's links, the lobby's
    rejoin button, the leaderboard's tab) and wait until it has drawn what it shows."""
    if name == "start":
        page.get_by_test_id("new-game").locator("select[name=opponent]").select_option("easy")
        page.get_by_test_id("rated").check()
        expect(page.get_by_test_id("rated-time")).to_be_visible()
    elif name == "lobby":
        page.get_by_test_id("lobby-link").click()
        mine = page.get_by_test_id("my-game")
        expect(mine).to_have_count(1)
        expect(mine).to_have_attribute("data-id", site.game_id)
        expect(page.get_by_test_id("no-seeks")).to_be_visible()
    elif name == "game":
        page.get_by_test_id("my-game").get_by_test_id("rejoin").click()
        page.wait_for_function(JS_HAS_VERSION)
        expect(page.get_by_test_id("clock")).to_be_visible()
        # the rating is the player's, not the expert's: no hint in a rated match
        expect(page.get_by_test_id("hint")).to_have_count(0)
    elif name == "leaderboard":
        page.get_by_test_id("leaderboard-link").click()
        page.locator('[data-testid="board-tab"][data-game="luzak-line"]').click()
        hidden = page.locator(f'[data-testid="board-entry"][data-player-id="{site.hidden_id}"]')
        expect(hidden).to_contain_text(HIDDEN_NAME[lang])
    elif name == "rules":
        page.get_by_test_id("rules-link").click()
        expect(page.get_by_test_id("guide-card").first).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", lang)


def blocking_violations(page: Page) -> list[str]:
    """axe-core's violations of impact serious or critical on ``page``, one line a node:
    the rule's id, impact, the node's selector and the rule's help."""
    if not page.evaluate("() => typeof axe === 'object'"):
        page.evaluate(AXE_JS)  # once a page: the views change inside it
    rules = {rule: {"enabled": False} for rule in DISABLED}
    result = cast(dict[str, Any], page.evaluate(
        "options => axe.run(document, options)",
        {"resultTypes": ["violations"], "rules": rules}))
    return [f"{v['id']} ({v['impact']}) {' '.join(map(str, node['target']))}: {v['help']}"
            for v in result["violations"] if v["impact"] in BLOCKING for node in v["nodes"]]


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("lang", LANGS)
def test_no_serious_accessibility_violations(axe_ui: Ui, site: Site, width: str,
                                             lang: str) -> None:
    """Each view in turn, in one page: axe's serious and critical violations, and a page
    wider than the window, are listed for all the views at once."""
    failures: list[str] = []
    with axe_ui.guard():
        page = open_site(axe_ui, site, lang, WIDTHS[width])
        for name in PAGES:
            show(page, site, name, lang)
            found = blocking_violations(page)
            wide = cast(list[int], page.evaluate(JS_WIDEST))
            if found or wide[0] > wide[1]:
                shot = axe_ui.shots / f"{name}-{lang}-{width}.png"
                page.screenshot(path=str(shot), full_page=True)
                failures.append(f"{name} (screenshot {shot}):")
                failures.extend(f"  {line}" for line in found)
                if wide[0] > wide[1]:
                    failures.append(f"  the page or a table is {wide[0]} px wide in a "
                                    f"{wide[1]} px box")
    assert not failures, (f"{lang}, {width}: serious or critical axe violations, or sideways "
                          "scrolling:\n" + "\n".join(failures))


def test_axe_finds_a_violation_it_is_meant_to(axe_ui: Ui, site: Site) -> None:
    """The check itself works: a button with no name on the start page is reported."""
    with axe_ui.guard():
        page = open_site(axe_ui, site, "en", WIDTHS["desktop"])
        show(page, site, "start", "en")
        page.evaluate("() => document.querySelector('main').append("
                      "Object.assign(document.createElement('button'), {id: 'nameless'}))")
        found = blocking_violations(page)
    assert [line for line in found if line.startswith("button-name") and "#nameless" in line], (
        f"axe did not report the nameless button: {found}")
