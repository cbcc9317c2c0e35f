"""The home page for a first-time visitor (docs/web.md, "First visit"): a call to Learn
while this browser holds no player key and no game, the end of the lessons' first match
against the easy computer, and the new-game form's rule options folded under "More rules"
with the rules named in words, in both languages."""

from __future__ import annotations

from playwright.sync_api import expect

from browser import GAME, Ui, game_id_of, stored_seats
from dominolab.web.content.lessons import lessons_json
from dominolab.web.edge.process import request_json
from test_web_e2e_learn import play

STANDARD_LUZAK = {
    "en": "Standard rules: to 61 points, a double's short sides are open from the start, "
          "a luzak still scores by the table count, an even number of hands.",
    "pl": "Zasady standardowe: do 61 punktów, krótkie boki dubletu są otwarte od początku, "
          "luzak też zdobywa punkty za sumę stołu, parzysta liczba partii.",
}
STANDARD_WIDELEC = {
    "en": "Standard rules: to 61 points, a double may stand at a quartet's edge, a drawn tile "
          "that fits must be played, reaching the target wins at once.",
    "pl": "Zasady standardowe: do 61 punktów, dublet może stać na brzegu kwartetu, dobrany "
          "kamień, który pasuje, trzeba zagrać, osiągnięcie celu od razu wygrywa.",
}
CALL = {"en": "New here? Learn Luzak in 3 minutes",
        "pl": "Pierwszy raz? Naucz się Luzaka w 3 minuty"}


def test_a_fresh_browser_is_called_to_learn_then_to_a_first_match(ui: Ui, server: str) -> None:
    page = ui.new_page("first")
    with ui.guard():
        page.goto("/")
        for lang in ("en", "pl"):
            page.get_by_test_id(f"lang-{lang}").click()
            expect(page.get_by_test_id("first-learn")).to_have_text(CALL[lang])
        # a call, not a redirect: the home page and its form stay
        assert page.url.rstrip("/") == server.rstrip("/")
        expect(page.get_by_test_id("new-game")).to_be_visible()
        page.get_by_test_id("lang-en").click()
        page.get_by_test_id("first-learn").click()
        page.wait_for_url("**/learn/luzak")
        # the lessons' last one done, its button starts a first match against easy
        last = lessons_json("luzak", "wide")["lessons"][-1]
        page.goto(f"/learn/luzak#{last['id']}")
        play(page, next(x for x in last["turns"][-1]["legal"] if x["goal"]))
        page.get_by_test_id("learn-play").click()
        expect(page.locator(GAME)).to_be_visible()
        gid = game_id_of(page)
        state = request_json(server, "GET", f"/api/games/{gid}",
                             token=stored_seats(page)[gid]["token"])
        assert (state["game"], state["opponent"]) == ("luzak", "easy")
        # played once: the home page calls no more
        page.goto("/")
        expect(page.get_by_test_id("new-game")).to_be_visible()
        expect(page.get_by_test_id("first-learn")).to_have_count(0)


def test_rule_options_fold_under_more_rules_named_in_words(ui: Ui, server: str) -> None:
    page = ui.new_page("rules", width=390, height=844)
    with ui.guard():
        page.goto("/")
        form = page.get_by_test_id("new-game")
        target = form.locator('input[name="opt-target"]')
        line = form.get_by_test_id("rules-line")
        for lang in ("en", "pl"):
            page.get_by_test_id(f"lang-{lang}").click()
            form.locator("select[name=game]").select_option("luzak")
            expect(line).to_have_text(STANDARD_LUZAK[lang])
            expect(target).to_be_hidden()
            form.locator("select[name=game]").select_option("widelec")
            expect(line).to_have_text(STANDARD_WIDELEC[lang])
            expect(form.get_by_test_id("more-rules-toggle")).to_have_text(
                {"en": "More rules", "pl": "Więcej zasad"}[lang])
            expect(target).to_be_hidden()
        # opened, the options show; a changed one is named as the player's rules
        page.get_by_test_id("lang-en").click()
        form.get_by_test_id("more-rules-toggle").click()
        expect(target).to_be_visible()
        target.fill("40")
        target.dispatch_event("change")
        expect(line).to_have_attribute("data-standard", "false")
        expect(line).to_contain_text("Your rules: to 40 points, ")
        form.locator('input[name="opt-win_at_once"]').uncheck()
        expect(line).to_contain_text("the hand is played out.")
        # still open after a language switch (the form is drawn again)
        page.get_by_test_id("lang-pl").click()
        expect(target).to_be_visible()
        expect(line).to_contain_text("Twoje zasady: do 40 punktów, ")
        form.get_by_test_id("start").click()
        expect(page.locator(GAME)).to_be_visible()
        gid = game_id_of(page)
        state = request_json(server, "GET", f"/api/games/{gid}",
                             token=stored_seats(page)[gid]["token"])
        assert state["options"]["target"] == 40, state.get("options")
