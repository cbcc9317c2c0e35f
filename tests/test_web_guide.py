"""The player's guide (docs/learn.md, "The player's guide"): its pages are built from the
texts in web/content/guide/ with every number in a caption taken from the engine, the worked
examples of RULES.md section 6 show their own numbers, both languages say the same things
in the same order, and the API refuses unknown games and languages with a JSON 404.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from dominolab.core import GAMES, Play, best_quartets, get_game, parse_tile, score_moves
from dominolab.web.content.guide import (
    DIAGRAMS,
    LANGS,
    SECTIONS,
    GuideError,
    fill,
    guide_index,
    guide_page,
)
from dominolab.web.edge.app import create_app
from dominolab.web.games.layout import layout_table
from dominolab.web.games.payload import step_json

PAGES = [(game, lang) for game in GAMES for lang in LANGS]


def texts_of(page: dict[str, Any]) -> list[str]:
    """Every text of a page a player reads (HTML with its tags dropped)."""
    out = [page["title"], page["summary"], page["intro"]]
    for section in page["sections"]:
        out.append(section["title"])
        out.extend(block["html"] for block in section["blocks"] if "html" in block)
    for diagram in page["diagrams"]:
        out += [diagram["caption"], diagram["label"]]
    return [re.sub(r"<[^>]+>", " ", text) for text in out]


def diagram(game: str, lang: str, name: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [d for d in guide_page(game, lang)["diagrams"]
                                   if d["id"] == name]
    assert len(found) == 1, f"{game}/{lang} has {len(found)} diagrams {name!r}"
    return found[0]


# -- the pages -------------------------------------------------------------------------------

@pytest.mark.parametrize(("game", "lang"), PAGES)
def test_every_page_has_the_sections_and_places_every_diagram(game: str, lang: str) -> None:
    page = guide_page(game, lang)
    assert page["game"] == game and page["lang"] == lang
    assert tuple(s["id"] for s in page["sections"]) == SECTIONS
    assert all(s["title"] and s["blocks"] for s in page["sections"])
    placed = [b["diagram"] for s in page["sections"] for b in s["blocks"] if "diagram" in b]
    assert placed == [d.id for d in DIAGRAMS[game]] == [d["id"] for d in page["diagrams"]]
    assert page["links"] == {"index": "/rules", "exact": "/rules/exact",
                             "learn": f"/learn/{game}"}


@pytest.mark.parametrize("game", list(GAMES))
def test_both_languages_have_the_same_sections_and_diagrams(game: str) -> None:
    en, pl = guide_page(game, "en"), guide_page(game, "pl")

    def shape(page: dict[str, Any]) -> list[tuple[str, list[str]]]:
        return [(s["id"], [b.get("diagram", "text") for b in s["blocks"]])
                for s in page["sections"]]

    assert shape(en) == shape(pl)
    for a, b in zip(en["diagrams"], pl["diagrams"], strict=True):
        # the same picture and the same engine figures; only the words differ
        assert {k: v for k, v in a.items() if k not in ("caption", "label", "numbers")} == \
            {k: v for k, v in b.items() if k not in ("caption", "label", "numbers")}
        figures = {k: v for k, v in a["numbers"].items() if isinstance(v, int)}
        assert figures == {k: v for k, v in b["numbers"].items() if isinstance(v, int)}
        assert a["caption"] != b["caption"]


@pytest.mark.parametrize(("game", "lang"), PAGES)
def test_no_developer_markers_and_every_placeholder_filled(game: str, lang: str) -> None:
    for text in texts_of(guide_page(game, lang)):
        assert "[choice]" not in text and "§" not in text, text
        assert not re.search(r"\bports?\b|\bseat\b|\bRULES\.md\b", text, re.I), text
        assert not re.search(r"\b(section|sekcj\w*|rozdzia\w*)\s+\d", text, re.I), text
        assert "{" not in text and "}" not in text, text
        assert "[object" not in text and "None" not in text, text
    # no numbered sections or lists: "## 2. Luzak", "1. ..."
    page = guide_page(game, lang)
    assert not any(re.match(r"\s*\d", s["title"]) for s in page["sections"])
    html = [b["html"] for s in page["sections"] for b in s["blocks"] if "html" in b]
    assert not any("<ol" in h or "<h" in h for h in [*html, page["intro"]])


#: the originals' words (RULES.md section 7) each Polish page uses
GLOSSARY = {
    "luzak": ["kamie", "dublet", "oczk", "łańcuch", "końcówk", "ramię", "spinner", "luzak",
              "dokłada", "suma stołu", "partia", "rozgrywk", "talon", "otwierając"],
    "luzak-line": ["kamie", "dublet", "łańcuch", "końcówk", "luzak", "dokłada",
                   "suma stołu", "partia", "rozgrywk"],
    "widelec": ["kamie", "dublet", "oczek", "talon", "łańcuch", "kwartet", "dokłada",
                "dobiera", "spasuj", "blokada", "partia", "rozgrywk", "premi", "domino!",
                "otwierając"],
}


@pytest.mark.parametrize("game", list(GAMES))
def test_polish_pages_use_the_originals_words(game: str) -> None:
    text = " ".join(texts_of(guide_page(game, "pl"))).lower()
    missing = [word for word in GLOSSARY[game] if word not in text]
    assert not missing, f"the Polish {game} page never says {missing}"
    # the English words must not leak into the Polish page
    assert not re.search(r"\b(tile|pips?|boneyard|count|hand|match|the)\b", text), game


# -- the numbers come from the engine --------------------------------------------------------

@pytest.mark.parametrize("game", list(GAMES))
def test_every_table_diagram_is_what_the_engine_and_the_layout_give(game: str) -> None:
    spec = get_game(game)
    for d in DIAGRAMS[game]:
        if d.hand:
            continue
        got = diagram(game, "en", d.id)
        steps = score_moves(game, d.moves)
        assert got["moves"] == [str(s.move) for s in steps]
        assert got["steps"] == [step_json(spec, s, None) for s in steps]
        options = spec.options_class()
        placements = [s.move for s in steps if isinstance(s.move, Play)]
        assert got["layout"] == layout_table(spec, options, placements).to_json()
        # the caption's numbers are the engine's, step by step
        for i, step in enumerate(steps, start=1):
            assert got["numbers"][f"n{i}"] == step.n == i
            assert got["numbers"][f"points{i}"] == sum(step.points)
            if spec.has_count:
                assert got["numbers"][f"count{i}"] == step.count
        assert set(got["highlight"]) <= {t["k"] for t in got["layout"]["tiles"]}


def test_l1_the_originals_opening() -> None:
    """RULES.md §6 L1: 11 (N=1), 10 (N=2), 8 (none), the luzak [1|1] gives seat 0 its 2
    pips, 10 (N=5); totals 23 and 10."""
    count, luzak = diagram("luzak", "en", "count"), diagram("luzak", "en", "luzak")
    assert [s["count"] for s in count["steps"]] == [11, 10, 8]
    assert [s["points"] for s in count["steps"]] == [[11, 0], [0, 10], [0, 0]]
    assert [s["count"] for s in luzak["steps"]] == [11, 10, 8, 6, 10]
    fourth = luzak["steps"][3]
    assert fourth["move"] == "11@2e*" and fourth["seat"] == 1
    assert fourth["reason"]["kind"] == "luzak"
    assert fourth["reason"]["to"] == 0 and fourth["reason"]["pips"] == 2
    assert fourth["points"] == [2, 0]
    assert luzak["steps"][4]["points"] == [10, 0]
    assert luzak["highlight"] == [4]
    for lang, names in (("en", ("Ann", "Ben")), ("pl", ("Ania", "Bartek"))):
        numbers = diagram("luzak", lang, "luzak")["numbers"]
        assert (numbers["pips4"], numbers["to4"], numbers["by4"]) == (2, names[0], names[1])
        assert (numbers["count5"], numbers["points5"]) == (10, 10)
        assert (numbers["total0"], numbers["total1"]) == (23, 10)
        caption = diagram("luzak", lang, "luzak")["caption"]
        assert "[1|1]" in caption and " 23" in caption and " 10" in caption
        caption = diagram("luzak", lang, "count")["caption"]
        assert all(f" {x}" in caption for x in ("11", "10", "8"))


def test_l3_a_spinner_and_its_arms_count_15() -> None:
    """RULES.md §6 L3: counts 6, 7, 1, 1, 7, 13, 15; the lead [3|3] is the spinner."""
    got = diagram("luzak", "en", "spinner")
    assert [s["count"] for s in got["steps"]] == [6, 7, 1, 1, 7, 13, 15]
    assert got["numbers"]["count"] == 15 and got["numbers"]["n"] == 7
    lead = got["layout"]["tiles"][0]
    assert lead["tile"] == "33" and lead["spinner"] and got["highlight"] == [1]
    for lang in LANGS:
        assert diagram("luzak", lang, "spinner")["caption"].rstrip(".").endswith("15")


def test_v1_the_opponent_scores_a_luzaks_count() -> None:
    """RULES.md §6 V1: 10, 14, 10, the luzak [5|1] makes 8 (N=4) for seat 0, then 5."""
    got = diagram("luzak-line", "en", "line-luzak")
    assert [s["count"] for s in got["steps"]] == [10, 14, 10, 8, 5]
    assert [s["points"] for s in got["steps"]] == [[10, 0], [0, 14], [0, 0], [8, 0], [5, 0]]
    assert got["steps"][3]["reason"]["to"] == 0 and got["steps"][3]["seat"] == 1
    assert got["numbers"]["to4"] == got["numbers"]["scorer4"] == "Ann"
    assert got["numbers"]["points4"] == 8 and "8 points" in got["caption"]
    first = diagram("luzak-line", "pl", "line-count")
    assert (first["numbers"]["count2"], first["numbers"]["points2"]) == (14, 14)
    assert "14 punktów" in first["caption"]


def test_w2_a_quartet_at_the_two_ends_scores_9() -> None:
    """RULES.md §6 W2: [2|1], [1|0] (no quartet), [0|6]: the ends form 6012, 9 points."""
    got = diagram("widelec", "en", "quartet")
    assert [s["points"] for s in got["steps"]] == [[0, 0], [0, 0], [9, 0]]
    assert got["steps"][2]["reason"] == {"kind": "quartet", "quartet": "6012", "n": 3,
                                         "ends": ["21", "60"], "points": 9}
    assert got["highlight"] == [1, 3]  # the two end tiles
    assert "6012" in got["caption"] and "9 points" in got["caption"]
    assert "9 punktów" in diagram("widelec", "pl", "quartet")["caption"]


def test_w3_the_end_of_hand_bonus_is_26() -> None:
    """RULES.md §6 W3: [3|4] [5|6] [2|2] [1|3] [0|6]: [3|4]+[5|6] (18), [2|2]+[1|3] (8),
    bonus 26 — the engine's matching, best_quartets."""
    got = diagram("widelec", "en", "bonus")
    held = [parse_tile(t) for t in ("34", "56", "22", "13", "06")]
    total, pairs = best_quartets(held)
    assert got["bonus"] == total == 26
    assert [p["tiles"] for p in got["pairs"]] == [[a.digits, b.digits] for a, b in pairs]
    assert {p["quartet"]: p["worth"] for p in got["pairs"]} == {"3456": 18, "1223": 8}
    assert got["left"] == ["60"]
    assert len(got["layout"]["tiles"]) == 5 and len(got["highlight"]) == 4
    assert "26 points" in got["caption"]
    assert "26 punktów" in diagram("widelec", "pl", "bonus")["caption"]


def test_page_numbers_come_from_the_spec() -> None:
    luzak = " ".join(texts_of(guide_page("luzak", "en")))
    assert "12 tiles" in luzak and "4 tiles" in luzak and "61 points" in luzak
    widelec = " ".join(texts_of(guide_page("widelec", "pl")))
    assert "7 kamieni" in widelec and "61 punktów" in widelec
    assert "3456" in widelec and "18 punktów" in widelec and "20 punktów" in widelec


def test_fill_words_and_refusals() -> None:
    numbers: dict[str, int | str] = {"a": 1, "b": 2, "c": 5, "d": 12, "e": 22, "name": "Ann"}
    forms = "|punkt|punkty|punktów"
    assert fill(" ".join(f"{{{k}{forms}}}" for k in "abcde"), numbers, "pl", "t") == \
        "1 punkt 2 punkty 5 punktów 12 punktów 22 punkty"
    assert fill("{a|pip|pips}, {b|pip|pips}", numbers, "en", "t") == "1 pip, 2 pips"
    assert fill("{quartet:21:06} {worth:21:06}", {}, "en", "t") == "6012 9"
    for bad in ("{nothing}", "{name|word|words}", "{quartet:45:56}", "{a b}", "open { brace",
                "{a|one|two|three}"):
        with pytest.raises(GuideError):
            fill(bad, numbers, "en", "t")


# -- the API ---------------------------------------------------------------------------------

@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "games.sqlite3", computer_delay=0)) as c:
        yield c


def test_api_serves_the_index_and_every_page(client: TestClient) -> None:
    for lang in LANGS:
        r = client.get(f"/api/guide/{lang}")
        assert r.status_code == 200 and r.json() == guide_index(lang)
        assert [g["game"] for g in r.json()["games"]] == list(GAMES)
        assert all(g["preview"]["layout"]["tiles"] for g in r.json()["games"])
        for game in GAMES:
            r = client.get(f"/api/guide/{game}/{lang}")
            assert r.status_code == 200, r.text
            assert r.json() == guide_page(game, lang)


@pytest.mark.parametrize("path", ["/api/guide/de", "/api/guide/luzak/de", "/api/guide/chess/en",
                                  "/api/guide/LUZAK/en", "/api/guide/kwartety/pl",
                                  "/api/guide/luzak/en/more", "/api/guide/%00/en",
                                  "/api/guide/" + "x" * 300 + "/en"])
def test_api_refuses_unknown_games_and_languages(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 404, r.text
    body = r.json()
    assert body["status"] == 404 and isinstance(body["error"], str) and body["error"]
    assert len(body["error"]) < 200


def test_the_exact_rules_stay_served(client: TestClient) -> None:
    assert "The rules, made exact" in client.get("/api/rules/en").json()["html"]
    for path in ("/rules", "/rules/luzak", "/rules/exact", "/rules/widelec/"):
        r = client.get(path)
        assert r.status_code == 200 and "<html" in r.text.lower()
