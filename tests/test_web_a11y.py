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
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal, cast

import pytest
from playwright.sync_api import Browser, Page, expect

from browser import JS_HAS_VERSION, Ui, friend_game_via_api, new_game, play_via_api
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
#: axe rules still marked experimental, switched on here: a control's visible text (a hand
#: tile's key number, the header's tagline) must be part of its accessible name
EXPERIMENTAL = ("label-content-name-mismatch",)
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
    finished_id: str         # Ala and Ola's rated match, over (its replay)
    study_id: str            # a lab study of two variants, done (its report)
    other_study_id: str      # another, of one variant and the same seed (compared with it)


@pytest.fixture(scope="module")
def site(rated: dict[str, Any]) -> Site:
    """Ala and Ola played a rated match; a moderator hid Ola's name; Ala plays a rated match
    against the computer."""
    server: ServerProcess = rated["server"]
    ola_id = rated["ola"]["id"]
    # "--": an id may begin with "-"
    assert main(["admin", "--db", str(server.db), "--by", "a11y", "hide-name", "--", ola_id]) == 0
    until(lambda: get(server.base, f"/api/players/{ola_id}")["name"] == HIDDEN_NAME["en"],
          10.0, "the server showing the hidden name")
    made = post(server.base, "/api/games", {"game": "luzak", "opponent": "easy", "rated": True,
                                            "move_seconds": 120, "first": "me"},
                key=rated["ala"]["key"])
    study = post(server.base, "/api/studies", {"game": "luzak", "sweep": {
        "option": "target", "values": [31, 61]}, "matches": 100, "seed": 7})
    other = post(server.base, "/api/studies", {"game": "luzak", "options": {"target": 41},
                                               "matches": 100, "seed": 7})

    def done(sid: str) -> bool:
        return bool(get(server.base, f"/api/studies/{sid}")["state"] == "done")

    until(lambda: done(study["id"]) and done(other["id"]), 60.0, "the lab's studies done")
    return Site(server, rated["ala"], ola_id, made["id"], rated["game"], study["id"],
                other["id"])


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
        # Ala's rated match (the other views' friend games are hers too)
        mine = page.locator(f'[data-testid="my-game"][data-id="{site.game_id}"]')
        expect(mine).to_have_count(1)
        expect(page.get_by_test_id("no-seeks")).to_be_visible()
    elif name == "game":
        page.locator(f'[data-testid="my-game"][data-id="{site.game_id}"]').get_by_test_id(
            "rejoin").click()
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
    rules.update({rule: {"enabled": True} for rule in EXPERIMENTAL})
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


#: every other view, reached by its address: [name, path, a test id it draws when ready];
#: a {game}, {finished}, {ala}, {study} in the path is the site's
ADDRESSED = (
    ("watch", "/watch/{game}", "seat-hand"),
    ("player", "/player/{ala}", "player-page"),
    ("guide", "/rules/luzak", "guide-section"),
    ("learn", "/learn", "learn-game"),
    ("lesson", "/learn/luzak#arms", "lesson-tile"),
    ("replay", "/replay/{finished}", "replay-frame"),
    ("not-found", "/player/no-such-player", "player-error"),
    ("link", "/link", "link-form"),
    ("puzzles", "/puzzles/luzak", "puzzle-table"),
    ("lab", "/lab", "lab-form"),
    ("study", "/lab/{study}", "study-report"),
    ("compare", "/lab/compare/{study},{other_study}", "study-report"),
)


def show_addressed(page: Page, site: Site, path: str, ready: str, lang: str) -> None:
    """Open ``path`` (its {game}, {finished}, {ala}, {study} filled in) and wait until it
    drew ``ready`` in ``lang``."""
    page.goto(path.format(game=site.game_id, finished=site.finished_id, ala=site.ala["id"],
                          study=site.study_id, other_study=site.other_study_id))
    expect(page.get_by_test_id(ready).first).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", lang)


def audit(ui: Ui, page: Page, name: str, tag: str, failures: list[str]) -> None:
    """Append to ``failures`` axe's blocking violations on ``page`` now and a page wider
    than its window, under ``name``, with a screenshot named by ``tag``."""
    found = blocking_violations(page)
    wide = cast(list[int], page.evaluate(JS_WIDEST))
    if found or wide[0] > wide[1]:
        shot = ui.shots / f"{name}-{tag}.png"
        page.screenshot(path=str(shot), full_page=True)
        failures.append(f"{name} (screenshot {shot}):")
        failures.extend(f"  {line}" for line in found)
        if wide[0] > wide[1]:
            failures.append(f"  the page or a table is {wide[0]} px wide in a {wide[1]} px box")


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("lang", LANGS)
def test_every_other_view_has_no_serious_violations(axe_ui: Ui, site: Site, width: str,
                                                    lang: str) -> None:
    """The views the test above does not reach by clicking: a friend game waiting for the
    friend, a spectator's view, a player's page, a game's guide, Learn and a lesson, a
    finished match's replay, the page of an address that names no one and the form that
    links this device to a player."""
    failures: list[str] = []
    with axe_ui.guard():
        page = open_site(axe_ui, site, lang, WIDTHS[width])
        for name, path, ready in ADDRESSED:
            show_addressed(page, site, path, ready, lang)
            audit(axe_ui, page, name, f"{lang}-{width}", failures)
        new_game(page, "luzak", opponent="friend", first="me")
        audit(axe_ui, page, "friend", f"{lang}-{width}", failures)
    assert not failures, (f"{lang}, {width}: serious or critical axe violations, or sideways "
                          "scrolling:\n" + "\n".join(failures))


#: the dark theme's sweeps in each language: English always, Polish in the slow sample.
#: Contrast is a matter of the theme's colours, which no language changes; the English
#: sweep is the always-run test that catches a dark colour that fails axe, or a page that
#: does not follow the system's dark setting
DARK_LANGS = [pytest.param("en", id="en"),
              pytest.param("pl", id="pl", marks=[pytest.mark.slow])]


@pytest.mark.parametrize("lang", DARK_LANGS)
def test_the_dark_theme_passes_axe(axe_ui: Ui, site: Site, lang: str) -> None:
    """With the system set to dark, the pages follow it (a dark background) and their
    contrast still passes axe: start, game, lobby, leaderboard, rules, a lesson, a replay."""
    failures: list[str] = []
    with axe_ui.guard():
        page = open_site(axe_ui, site, lang, WIDTHS["phone"])
        page.emulate_media(color_scheme="dark")
        background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
        channels = [int(c) for c in background[background.index("(") + 1:-1].split(",")[:3]]
        assert max(channels) < 80, f"the dark theme's background is {background}"
        for name in PAGES:
            show(page, site, name, lang)
            audit(axe_ui, page, name, f"{lang}-dark", failures)
        for name, path, ready in ADDRESSED:
            if name in ("lesson", "replay", "lab", "study", "compare"):
                show_addressed(page, site, path, ready, lang)
                audit(axe_ui, page, name, f"{lang}-dark", failures)
    assert not failures, f"{lang}, dark: serious or critical axe violations:\n" + "\n".join(
        failures)


#: [key, values, the Polish a Polish player reads] for the issue's stiff sentences
POLISH: tuple[tuple[str, dict[str, object], str], ...] = (
    ("board.empty", {"title": "Luzak"}, "Nikt jeszcze nie zagrał rankingowo w Luzaka."),
    ("board.empty", {"title": "Widelec (Kwartety)"},
     "Nikt jeszcze nie zagrał rankingowo w Widelca (Kwartety)."),
    ("over.more", {"name": "Komputer (łatwy)", "a": 21, "b": 17},
     "Więcej punktów w tej partii: Komputer (łatwy), 21:17."),
    ("create.rateLimited", {"s": 30},
     "Zbyt wiele nowych gier z tego adresu; spróbuj ponownie za 30 s."),
    ("watch.full.title", {}, "Tę grę ogląda już maksymalna liczba widzów"),
    ("learn.luzak.arms.done", {}, "Suma stołu to suma oczek na końcach wszystkich ramion; "
     "dublet na końcu ramienia liczy się podwójnie."),
    ("board.rd", {}, "± punkty"),
    ("over.samePoints", {"a": 12}, "Tyle samo punktów w tej partii: po 12."),
    ("watch.limited.title", {}, "Zbyt wiele oglądanych gier z tego adresu"),
    ("lobby.refused", {}, "Ta strona nie może połączyć się z lobby z tego adresu."),
    ("opt.win_at_once", {},
     "Kto osiągnie cel, od razu wygrywa (wyłączone: partię gra się do końca)"),
    ("link.alreadyJoined", {}, "Już jesteś w tej grze: grasz dalej na swoim miejscu."),
    ("notify.over", {}, "Koniec rozgrywki"),
    ("devices.vs", {"game": "Luzak", "who": "Ola"}, "Luzak — przeciwnik: Ola"),
)


def test_the_polish_reads_as_a_player_says_it(axe_ui: Ui, site: Site) -> None:
    """The issue's examples, as the page's own strings give them in Polish."""
    with axe_ui.guard():
        page = open_site(axe_ui, site, "pl", WIDTHS["desktop"])
        expect(page.locator("html")).to_have_attribute("lang", "pl")
        said = cast(list[str], page.evaluate(
            """async pairs => { const i18n = await import('/static/js/i18n.js');
               return pairs.map(([key, values]) => i18n.t(key, values)); }""",
            [[key, values] for key, values, _ in POLISH]))
    assert said == [text for _, _, text in POLISH]


def test_a_language_switch_renames_the_table_and_the_header(axe_ui: Ui, site: Site) -> None:
    """The game's table and the header's home link are named in the language shown, after a
    switch too (the table kept "The table" in Polish once)."""
    with axe_ui.guard():
        page = open_site(axe_ui, site, "en", WIDTHS["desktop"])
        show(page, site, "lobby", "en")
        show(page, site, "game", "en")
        table = page.locator("svg.table-svg").first
        expect(table).to_have_attribute("aria-label", "The table")
        expect(page.locator(".brand")).to_have_attribute("aria-label", "dominolab: Luzak & Widelec")
        page.get_by_test_id("lang-pl").click()
        expect(page.locator("html")).to_have_attribute("lang", "pl")
        expect(table).to_have_attribute("aria-label", "Stół")
        expect(page.locator(".brand")).to_have_attribute("aria-label", "dominolab: Luzak i Widelec")
        tile = page.get_by_test_id("hand-tile").first
        expect(tile).to_have_attribute("aria-label", re.compile(r"^1: "))


#: both kinds of toast, shown for a minute (the page's own ui.js makes them)
JS_TOASTS = """async () => { const ui = await import('/static/js/ui.js');
  const i18n = await import('/static/js/i18n.js');
  ui.toast(i18n.t('invite.copied'), 'info', 60000);
  ui.toast(i18n.t('chat.tooMany', { s: 9 }), 'error', 60000); }"""
#: no animation of a set length running (a screen fading in has its colours half-way: axe
#: would judge those); the endless ones (a pulsing spot, a spinner) stay
JS_SETTLED = """() => document.getAnimations().every(a => a.playState !== 'running'
  || a.effect.getComputedTiming().iterations === Infinity)"""


#: the screens that come and go, in the light theme (what most see) in both languages, and
#: in the dark in English (Polish in the slow sample: its colours are the same)
COME_AND_GO = [pytest.param("en", "light", id="en-light"),
               pytest.param("pl", "light", id="pl-light"),
               pytest.param("en", "dark", id="en-dark"),
               pytest.param("pl", "dark", id="pl-dark", marks=[pytest.mark.slow])]


@pytest.mark.parametrize(("lang", "scheme"), COME_AND_GO)
def test_the_screens_that_come_and_go_pass_axe(axe_ui: Ui, site: Site, lang: str,
                                               scheme: Literal["light", "dark"]) -> None:
    """The screens the page sweeps do not reach: the featured live game on the start page,
    the devices section of the player's own page (a link code with its QR code), a game's
    messages with a phrase sent and both kinds of toast, the hints of a casual game, and
    the end-of-hand and end-of-match screens (friend games played over HTTP, opened by a
    seat's key)."""
    base = site.server.base
    hand_id, hand_tokens = friend_game_via_api(base, "widelec", {"target": 500})
    play_via_api(base, hand_id, hand_tokens, random.Random(3), until="hand")
    match_id, match_tokens = friend_game_via_api(base, "widelec", {"target": 15})
    play_via_api(base, match_id, match_tokens, random.Random(4), until="match")
    chat_id, chat_tokens = friend_game_via_api(base, "luzak")
    failures: list[str] = []
    tag = f"{lang}-{scheme}-more"
    with axe_ui.guard():
        page = open_site(axe_ui, site, lang, WIDTHS["phone"])
        page.emulate_media(color_scheme=scheme)
        expect(page.get_by_test_id("featured-players")).to_be_visible()
        audit(axe_ui, page, "featured", tag, failures)
        show_addressed(page, site, "/player/{ala}", "devices", lang)
        page.get_by_test_id("link-device").click()
        expect(page.get_by_test_id("devices")).to_contain_text("/link")
        audit(axe_ui, page, "devices", tag, failures)
        page.goto(f"/game/{chat_id}#t={chat_tokens[0]}")
        page.wait_for_function(JS_HAS_VERSION)
        page.get_by_test_id("chat-phrases").get_by_role("button").first.click()
        expect(page.get_by_test_id("chat-log").locator("li")).to_have_count(1)
        page.evaluate(JS_TOASTS)
        expect(page.get_by_test_id("toast")).to_be_visible()
        expect(page.get_by_test_id("error-toast")).to_be_visible()
        audit(axe_ui, page, "chat-and-toasts", tag, failures)
        new_game(page, "luzak", opponent="easy", first="me")
        page.get_by_test_id("hint").click()
        expect(page.get_by_test_id("hints").locator(".hint-entry").first).to_be_visible()
        audit(axe_ui, page, "hints", tag, failures)
        page.goto(f"/game/{hand_id}#t={hand_tokens[0]}")
        expect(page.get_by_test_id("hand-over")).to_be_visible()
        page.wait_for_function(JS_SETTLED)
        audit(axe_ui, page, "hand-over", tag, failures)
        page.goto(f"/game/{match_id}#t={match_tokens[0]}")
        expect(page.get_by_test_id("match-over")).to_be_visible()
        page.wait_for_function(JS_SETTLED)
        audit(axe_ui, page, "match-over", tag, failures)
    assert not failures, f"{lang}, {scheme}: serious or critical axe violations:\n" + \
        "\n".join(failures)
