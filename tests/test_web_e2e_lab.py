"""The lab page in Debian's Chromium (issue 42, must-have 6), used as a designer uses it: a
small sweep of the target (31/61/91, 300 matches each) run from the form, its progress
moving, then the report drawn in the page: tables of figures equal to the API's report,
the charts, the sentences in English and in Polish; a second study reloaded mid-run and
found again at its address, then cancelled; a bad value refused in words; and a server
with the lab off saying so, with nothing to click. Every wait has a deadline."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from playwright.sync_api import Browser, Page, expect

from browser import UNLIMITED, Ui
from dominolab.web.edge.process import ServerProcess, request_json

pytestmark = pytest.mark.timeout(240)

#: the longest a study of this file may take from "Run" to its report, in ms
STUDY_MS = 90_000
#: every value the progress bar showed, read by an observer the page is given at its start
JS_WATCH_PROGRESS = """() => {
  window.__progress = [];
  new MutationObserver(() => {
    const bar = document.querySelector('[data-testid="study-progress"]');
    if (bar) window.__progress.push([Number(bar.dataset.done), bar.dataset.state]);
  }).observe(document, {subtree: true, childList: true, attributes: true});
}"""


def open_lab(ui: Ui, name: str, lang: str = "en", width: int = 1280) -> Page:
    page = ui.new_page(name, width=width, height=900)
    page.add_init_script(f"localStorage.setItem('dominolab/lang', {json.dumps(lang)})")
    page.add_init_script(f"({JS_WATCH_PROGRESS})()")
    page.goto("/")
    page.get_by_test_id("lab-link").click()
    expect(page.get_by_test_id("lab-form")).to_be_visible()
    return page


def fill_sweep(page: Page, values: str, matches: int) -> None:
    page.get_by_test_id("lab-sweep-option").select_option("target")
    page.get_by_test_id("lab-sweep-values").fill(values)
    page.get_by_test_id("lab-matches").fill(str(matches))


def study_id(page: Page) -> str:
    expect(page).to_have_url(re.compile(r"/lab/[0-9a-f]+$"))
    return page.url.rsplit("/lab/", 1)[1]


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def assert_figures_are(page: Page, api: dict[str, Any]) -> int:
    """Every figure of the report ``api`` (a study's or a comparison's JSON) is on
    ``page`` as it says: each column's value and interval, each difference from the first
    and its interval. Returns how many values were checked."""
    shown = 0
    for figure in api["figures"]:
        for i, value in enumerate(figure["values"]):
            if value is None:
                continue
            cell = page.locator(f'[data-testid="figure-cell"][data-key="{figure["key"]}"]'
                                f'[data-variant="{i}"]')
            expect(cell).to_have_count(1)
            assert close(float(cell.get_attribute("data-value") or "nan"), value["value"]), (
                f"{figure['key']} [{i}]: shown {cell.get_attribute('data-value')}, "
                f"API {value['value']}")
            if value["low"] is not None:
                assert close(float(cell.get_attribute("data-lo") or "nan"), value["low"])
                assert close(float(cell.get_attribute("data-hi") or "nan"), value["high"])
            shown += 1
        for j, diff in enumerate(figure["differences"]):
            if diff is None:
                continue
            cell = page.locator(f'[data-testid="diff-cell"][data-key="{figure["key"]}"]'
                                f'[data-variant="{j + 1}"]')
            assert close(float(cell.get_attribute("data-value") or "nan"), diff["value"])
            if diff["low"] is not None:
                assert close(float(cell.get_attribute("data-lo") or "nan"), diff["low"])
    return shown


def test_a_sweep_from_the_form_shows_its_progress_and_report(ui: Ui, server: str) -> None:
    with ui.guard():
        page = open_lab(ui, "sweep")
        # a value that is not a number is refused in words before anything is sent
        fill_sweep(page, "31, sixty", 300)
        page.get_by_test_id("lab-run").click()
        expect(page.get_by_test_id("lab-form-error")).to_contain_text("sixty")
        # nine values are the server's to refuse: its sentence is shown
        fill_sweep(page, "11, 21, 31, 41, 51, 61, 71, 81, 91", 300)
        page.get_by_test_id("lab-run").click()
        expect(page.get_by_test_id("lab-form-error")).to_contain_text("8")
        expect(page).to_have_url(f"{server}/lab")

        fill_sweep(page, "31, 61, 91", 300)
        page.get_by_test_id("lab-run").click()
        sid = study_id(page)
        report = page.get_by_test_id("study-report")
        expect(report).to_be_visible(timeout=STUDY_MS)

        # the progress moved: it was shown below its total before it reached it
        seen = cast(list[list[Any]], page.evaluate("() => window.__progress"))
        dones = [done for done, _state in seen]
        assert dones and dones[-1] == 900, f"the bar ended at {dones[-1:]} of 900: {seen}"
        assert min(dones) < 900, f"the bar was never shown below its total: {seen}"
        assert dones == sorted(dones), f"the bar went backwards: {seen}"
        bar = page.get_by_test_id("study-progress")
        expect(bar).to_have_attribute("data-state", "done")
        expect(page.get_by_test_id("study-cancel")).to_have_count(0)

        # the figures shown are the API's report, each variant and each difference
        api = request_json(server, "GET", f"/api/studies/{sid}/report")
        shown = assert_figures_are(page, api)
        assert shown >= 3 * 10, f"only {shown} figures shown"
        # and in words: the opener's share as the API has it, with its interval
        wins = next(f for f in api["figures"] if f["key"] == "first_opener_wins")["values"][0]
        sentence = page.locator('[data-testid="figure-sentence"][data-key="first_opener_wins"]'
                                '[data-variant="0"]')
        expect(sentence).to_contain_text(f"wins {100 * wins['value']:.1f}% of matches "
                                         f"[{100 * wins['low']:.1f}, {100 * wins['high']:.1f}]")
        expect(sentence).to_contain_text(
            "edge" if wins["low"] > 0.5 or wins["high"] < 0.5 else "no clear edge")

        # the charts, drawn in the page: one point per variant, a line per variant
        expect(page.get_by_test_id("chart-figure").locator('[data-testid="chart-point"]')
               ).to_have_count(3)
        expect(page.get_by_test_id("chart-diff").locator('[data-testid="chart-point"]')
               ).to_have_count(2)
        expect(page.get_by_test_id("chart-lengths").locator('[data-testid="chart-series"]')
               ).to_have_count(3)
        # the key figures first, the full tables folded: the page is short to read
        expect(page.get_by_test_id("key-figure")).to_have_count(4)
        height = cast(int, page.evaluate("() => document.documentElement.scrollHeight"))
        assert height < 5000, f"a finished sweep's page is {height} px high at 1280 px"
        figures = page.get_by_test_id("figures")
        expect(figures.locator('[data-testid="figure-cell"]').first).to_be_hidden()
        figures.locator("summary").focus()
        page.keyboard.press("Enter")
        expect(figures.locator('[data-testid="figure-cell"]').first).to_be_visible()
        expect(page.get_by_test_id("chart-points-by-n").locator('[data-testid="chart-line"]')
               ).to_have_count(3)
        # another figure chosen is drawn instead
        page.get_by_test_id("chart-choice").select_option("match_hands")
        points = page.get_by_test_id("chart-figure").locator('[data-testid="chart-point"]')
        hands = next(f for f in api["figures"] if f["key"] == "match_hands")["values"]
        expect(points.nth(2)).to_have_attribute("data-value", str(hands[2]["value"]))

        # the downloads: each variant's file, and the command line that makes them
        study = request_json(server, "GET", f"/api/studies/{sid}")
        files = page.get_by_test_id("variant-file")
        expect(files).to_have_count(3)
        for k, variant in enumerate(study["variants"]):
            expect(files.nth(k)).to_have_attribute("href", variant["file"])
        expect(page.get_by_test_id("study-command")).to_have_value(study["command"])
        with page.expect_download() as download:
            files.nth(1).click()
        assert download.value.suggested_filename == study["variants"][1]["file_name"]

        # in Polish: decimal commas, the interval's semicolon, the player's words
        page.get_by_test_id("lang-pl").click()
        pl = (f"{100 * wins['value']:.1f}% rozgrywek [{100 * wins['low']:.1f}; "
              f"{100 * wins['high']:.1f}]").replace(".", ",")
        expect(sentence).to_contain_text("Otwierający pierwszą partię wygrywa")
        expect(sentence).to_contain_text(pl)
        expect(page.locator("html")).to_have_attribute("lang", "pl")

        # the study's address, opened afresh, shows the same report
        again = ui.new_page("again")
        again.goto(f"/lab/{sid}")
        expect(again.get_by_test_id("study-report")).to_be_visible()
        expect(again.locator('[data-testid="figure-cell"]')).to_have_count(
            page.locator('[data-testid="figure-cell"]').count())


def test_a_study_survives_a_reload_and_is_cancelled(ui: Ui, server: str) -> None:
    """A slow study (a search player against greedy) on a phone, in Polish: reloaded while
    it runs it is found again at /lab/ID, still running; Cancel stops it."""
    with ui.guard():
        page = open_lab(ui, "cancel", lang="pl", width=390)
        lab = request_json(server, "GET", "/api/lab")
        search = next(p["spec"] for p in lab["players"] if p["spec"].endswith("w"))
        page.get_by_test_id("lab-player-0").select_option(search)
        page.get_by_test_id("lab-matches").fill("400")
        page.get_by_test_id("lab-seed").fill("42")
        page.get_by_test_id("lab-run").click()
        sid = study_id(page)
        bar = page.get_by_test_id("study-progress")
        expect(bar).to_have_attribute("data-state", "running", timeout=STUDY_MS)

        page.reload()
        assert page.url.endswith(f"/lab/{sid}"), page.url
        expect(page.get_by_test_id("study")).to_be_visible()
        expect(bar).to_have_attribute("data-state", "running")
        # the players in the page's words: "Monte Carlo (pimc), 40 rozdań na ruch"
        worlds = search.split(":")[1].rstrip("w")
        expect(page.get_by_test_id("study-params")).to_contain_text(f"{worlds} rozdań na ruch")
        page.get_by_test_id("study-cancel").click()
        expect(bar).to_have_attribute("data-state", "cancelled")
        expect(page.get_by_test_id("study-state")).to_contain_text("Przerwane")
        expect(page.get_by_test_id("study-cancel")).to_have_count(0)
        assert request_json(server, "GET", f"/api/studies/{sid}")["state"] == "cancelled"


@pytest.fixture(scope="module")
def lab_off(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server whose operator turned the lab off, for the machine too."""
    db = tmp_path_factory.mktemp("lab-off") / "off.sqlite3"
    with ServerProcess(db, extra=(*UNLIMITED, "--lab", "off")) as proc:
        yield proc


def test_the_lab_off_says_so_in_words(chromium: Browser, lab_off: ServerProcess,
                                      tmp_path: Path) -> None:
    ui = Ui(chromium, lab_off.base, tmp_path)
    try:
        with ui.guard():
            page = ui.new_page("off")
            page.goto("/lab")
            off = page.get_by_test_id("lab-off")
            why = request_json(lab_off.base, "GET", "/api/lab")["why"]
            assert why, "the API gives no reason when the lab is off"
            expect(off).to_contain_text(why)
            expect(page.get_by_test_id("lab-form")).to_have_count(0)
            expect(page.locator("main button, main input, main select")).to_have_count(0)
    finally:
        ui.close()


def test_a_widelec_and_a_luzak_without_spinners_study_show_the_whole_report(
        ui: Ui, server: str) -> None:
    """The two games no study had been opened in: every figure the report JSON holds for
    them is in the page (hand ends as the report counts them, how matches end, which target
    gives matches of N hands, the distributions' charts, the tiles), each with its words."""
    with ui.guard():
        for game, dists in (("widelec", ("hand_points", "match_totals", "quartets_per_hand",
                                         "bonuses", "draws_per_hand")),
                            ("luzak-line", ("hand_points", "match_totals", "luzaks_per_hand"))):
            made = request_json(server, "POST", "/api/studies", {
                "game": game, "options": {}, "sweep": None, "players": ["greedy", "greedy"],
                "matches": 200, "seed": 3})
            page = ui.new_page(game, width=1280, height=900)
            page.goto(f"/lab/{made['id']}")
            expect(page.get_by_test_id("study-report")).to_be_visible(timeout=STUDY_MS)
            api = request_json(server, "GET", f"/api/studies/{made['id']}/report")
            f = api["files"][0]
            shares = f["hand_end_shares"]
            if game == "widelec":
                assert shares, "Widelec's report gives no hand ends"
                for end, share in shares.items():
                    cell = page.locator(f'[data-testid="hand-ends-cell"][data-end="{end}"]')
                    assert close(float(cell.get_attribute("data-value") or "nan"), share)
                expect(page.locator('[data-testid="hand-ends-sentence"][data-end="domino"]')
                       ).to_contain_text(f"{shares['domino']:.1f}% of completed hands")
            else:
                expect(page.get_by_test_id("hand-ends")).to_have_count(0)
            total = sum(f["match_ends"].values())
            for end, n in f["match_ends"].items():
                cell = page.locator(f'[data-testid="match-ends-cell"][data-end="{end}"]')
                assert close(float(cell.get_attribute("data-value") or "nan"), 100 * n / total)
            targets = api["target_lengths"][0]
            assert targets, f"{game}: no target lengths in the report"
            for x in targets:
                cell = page.locator(f'[data-testid="target-cell"][data-target="{x["target"]}"]')
                assert close(float(cell.get_attribute("data-value") or "nan"), x["mean"])
            expect(page.get_by_test_id("target-sentence")).to_have_count(len(targets))
            for name in dists:
                chart = page.get_by_test_id(f"chart-dist-{name}")
                expect(chart.locator('[data-testid="chart-series"]')).to_have_count(1)
            worth = api["tile_worth"][0]
            expect(page.locator('[data-testid="worth-cell"]')).to_have_count(len(worth))
            expect(page.get_by_test_id("worth-sentence")).to_contain_text(worth[0]["tile"])
            luzaked = api["tiles_luzaked"][0]
            expect(page.locator('[data-testid="luzaked-cell"]')).to_have_count(
                min(8, len(luzaked)))
            # nothing is written minus zero: a figure that rounds to zero has no sign
            minus = "\u2212"
            assert f"{minus}0,00" not in page.content() and f"{minus}0.00" not in page.content()
            page.get_by_test_id("lang-pl").click()
            expect(page.get_by_test_id("target-lengths").locator("summary")).to_have_text(
                "Przy jakim celu rozgrywka trwa N partii")
            page.close()


def test_two_studies_with_one_seed_side_by_side(ui: Ui, server: str) -> None:
    """Two studies of one seed and different targets, the second compared with the first
    from its page (the first kept by this browser): the figures and differences shown are
    the compare API's, and they are said to be paired by deal."""
    with ui.guard():
        ids = []
        page = ui.new_page("compare", width=1280, height=900)
        for target in (31, 61):
            made = request_json(server, "POST", "/api/studies", {
                "game": "luzak", "options": {"target": target}, "sweep": None,
                "players": ["greedy", "greedy"], "matches": 200, "seed": 5})
            ids.append(made["id"])
            page.goto(f"/lab/{made['id']}")
            expect(page.get_by_test_id("study-report")).to_be_visible(timeout=STUDY_MS)
        page.get_by_test_id("compare-with").fill("not a link")
        page.get_by_test_id("compare-go").click()
        expect(page.get_by_test_id("compare-error")).to_contain_text("not a link")
        page.locator(f'[data-testid="compare-kept"][data-study="{ids[0]}"]').click()
        expect(page).to_have_url(f"{server}/lab/compare/{ids[1]},{ids[0]}")
        expect(page.get_by_test_id("study-report")).to_be_visible(timeout=STUDY_MS)
        api = request_json(server, "GET", f"/api/studies/compare?ids={ids[1]},{ids[0]}")
        assert api["comparisons"][0]["paired"] is True
        expect(page.get_by_test_id("report-pairing")).to_contain_text("paired by deal")
        assert_figures_are(page, api)
        expect(page.get_by_test_id("chart-diff").locator('[data-testid="chart-point"]')
               ).to_have_count(1)


def test_a_study_s_parameters_travel_as_a_link(ui: Ui, server: str) -> None:
    """A finished study's page links to its parameters (`/lab?game=...`); opened in another
    browser the link fills the form, runs nothing until Run, and Run gives the same study
    (the same id: the same figures)."""
    params = {"game": "luzak", "options": {"target": 41, "even_hands": False},
              "sweep": {"option": "target", "values": [21, 41]},
              "players": ["greedy", "random"], "matches": 150, "seed": 9}
    made = request_json(server, "POST", "/api/studies", params)
    with ui.guard():
        page = ui.new_page("params-link", width=1280, height=900)
        page.goto(f"/lab/{made['id']}")
        link = page.get_by_test_id("study-params-link")
        href = link.get_attribute("href") or ""
        assert href.startswith("/lab?game=luzak&"), href
        assert "sweep=target%3A21%2C41" in href and "players=greedy%2Crandom" in href
        other = ui.new_page("params-link-2", width=390, height=844)
        other.goto(href)
        expect(other.get_by_test_id("lab-from-link")).to_be_visible()
        expect(other.get_by_test_id("lab-sweep-values")).to_have_value("21, 41")
        expect(other.get_by_test_id("lab-player-1")).to_have_value("random")
        expect(other.get_by_test_id("lab-matches")).to_have_value("150")
        expect(other.get_by_test_id("lab-seed")).to_have_value("9")
        expect(other.locator("#lab-opt-even_hands")).not_to_be_checked()
        other.get_by_test_id("lab-run").click()
        assert study_id(other) == made["id"]
        # a link inside the page keeps its query (the router used to drop it)
        page.get_by_test_id("study-params-link").click()
        expect(page).to_have_url(f"{server}{href}")
        expect(page.get_by_test_id("lab-from-link")).to_be_visible()
