"""The tutorial's lessons (docs/learn.md, "The tutorial"; web/content/lessons.py): every position is
laid through the engine, every goal a lesson claims is checked through the engine, the
numbers of a lesson built on a worked example are the example's (RULES.md section 6), and
every text the page shows exists in English and Polish with each placeholder filled by a
number the server computed."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from conftest import T, tiles
from dominolab.core import DRAW, PASS, Deal, InvalidMoveError, Play, get_game
from dominolab.core.scripted import count_parts, scripted_position
from dominolab.web.content import lessons as L
from dominolab.web.edge.app import create_app

STRINGS = Path(L.__file__).parent.parent / "static" / "js" / "strings" / "learn.js"
LINE = re.compile(r'^\s*"(?P<key>[^"\\]+)":\s*"(?P<value>(?:[^"\\]|\\.)*)",\s*$')
PLACEHOLDER = re.compile(r"\{(\w+)\}")
WIDTHS = ("wide", "narrow")


def read_strings() -> dict[str, dict[str, str]]:
    """static/js/strings/learn.js as {"en": {key: text}, "pl": {...}}: every line inside the
    two objects is one ``"key": "text",`` (or blank, or a comment)."""
    out: dict[str, dict[str, str]] = {}
    lang = None
    for number, line in enumerate(STRINGS.read_text(encoding="utf-8").splitlines(), 1):
        start = re.match(r"^export const (en|pl) = \{$", line)
        if start:
            lang = start.group(1)
            out[lang] = {}
            continue
        if lang is None or not line.strip() or line.strip().startswith("//"):
            continue
        if line == "};":
            lang = None
            continue
        m = LINE.match(line)
        assert m, f"learn.js line {number} is not one \"key\": \"text\", entry: {line!r}"
        assert m["key"] not in out[lang], f"learn.js: {m['key']} twice in {lang}"
        out[lang][m["key"]] = json.loads(f'"{m["value"]}"')
    assert set(out) == {"en", "pl"}
    return out


STRINGS_BY_LANG = read_strings()


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


def fill(text: str, values: dict[str, Any]) -> str:
    return PLACEHOLDER.sub(lambda m: str(values[m[1]]), text)


def all_lessons() -> Iterator[tuple[str, L.Lesson]]:
    for game, lessons in L.LESSONS.items():
        for lesson in lessons:
            yield game, lesson


LESSON_IDS = [f"{game}/{lesson.id}" for game, lesson in all_lessons()]


def lesson_data(game: str, lesson_id: str, width: str = "wide") -> dict[str, Any]:
    data = L.lessons_json(game, width)
    return next(x for x in data["lessons"] if x["id"] == lesson_id)


def outcome_of(game: str, lesson_id: str, move: str, turn: int = 0) -> Any:
    spec = get_game(game)
    lesson = next(x for x in L.LESSONS[game] if x.id == lesson_id)
    position = L.positions(spec, lesson)[turn]
    found = next(m for m in position.legal if str(m) == move)
    return position, position.outcome(found)


# -- every lesson is a real position, laid through the engine ---------------------------------

def test_lessons_cover_every_game() -> None:
    from dominolab.core import GAMES

    assert set(L.LESSONS) == set(GAMES)
    for game, lessons in L.LESSONS.items():
        assert 5 <= len(lessons) <= 8, f"{game}: {len(lessons)} lessons"
        ids = [x.id for x in lessons]
        assert len(set(ids)) == len(ids), f"{game}: a lesson id twice"


@pytest.mark.parametrize(("game", "lesson"), list(all_lessons()), ids=LESSON_IDS)
def test_lesson_position_is_laid_by_the_engine(game: str, lesson: L.Lesson) -> None:
    spec = get_game(game)
    turns = L.positions(spec, lesson)
    assert len(turns) == len(lesson.goals)
    first = turns[0]
    # the table is the scripted moves, each checked legal by score_moves as it was laid
    assert [str(m) for m in first.placements] == lesson.table.split()
    assert first.hand == tuple(sorted(tiles(lesson.hand), key=lambda t: t.index))
    assert first.legal, "the learner has no legal move"
    for position in turns:
        plays = {m.tile for m in position.legal if isinstance(m, Play)}
        for tile in position.hand:
            # each held tile can be laid, or the engine says why not
            assert (tile in plays) == (position.blocked(tile) is None)
    data = lesson_data(game, lesson.id)
    for position, turn in zip(turns, data["turns"], strict=True):
        assert [x["move"] for x in turn["legal"]] == [str(m) for m in position.legal]
        assert turn["hand"] == [t.digits for t in position.hand]


@pytest.mark.parametrize(("game", "lesson"), list(all_lessons()), ids=LESSON_IDS)
def test_the_goal_moves_meet_the_goal_and_no_others(game: str, lesson: L.Lesson) -> None:
    spec = get_game(game)
    turns = L.positions(spec, lesson)
    for i, (position, goal) in enumerate(zip(turns, lesson.goals, strict=True)):
        met = {str(m) for m in position.legal if L.meets_goal(position, goal.kind, m)}
        assert met == set(goal.moves), (
            f"{game}/{lesson.id} turn {i + 1}: the lesson says {sorted(goal.moves)} meet "
            f"{goal.kind!r}; the engine says {sorted(met)}")
        # the learner's first choice teaches something (a drawn tile may fit one place only)
        assert i > 0 or len(met) < len(position.legal) or goal.kind in ("draw", "out"), (
            f"{game}/{lesson.id}: every legal move meets the goal, nothing to learn")
    for width in WIDTHS:
        data = lesson_data(game, lesson.id, width)
        for goal, turn in zip(lesson.goals, data["turns"], strict=True):
            assert {x["move"] for x in turn["legal"] if x["goal"]} == set(goal.moves)


def test_goal_kinds_are_known() -> None:
    for game, lesson in all_lessons():
        for goal in lesson.goals:
            assert goal.kind in L.GOALS, f"{game}/{lesson.id}: goal {goal.kind!r}"
    position = scripted_position("luzak", "", "65")
    with pytest.raises(ValueError, match="no goal"):
        L.meets_goal(position, "win", position.legal[0])


# -- the numbers of the worked examples (RULES.md section 6) -----------------------------------

def check(game: str, lesson_id: str, move: str, *, n: int, points: tuple[int, int],
          count: int | None = None, quartet: str | None = None, turn: int = 0) -> Any:
    position, outcome = outcome_of(game, lesson_id, move, turn)
    step = outcome.step
    assert step.n == n
    assert step.points == points
    if count is not None:
        assert step.count == count
        assert sum(map(sum, outcome.parts)) == count
    if quartet is not None:
        assert step.quartet == quartet
    # the page is sent the same numbers
    entry = next(x for x in lesson_data(game, lesson_id)["turns"][turn]["legal"]
                 if x["move"] == move)
    assert entry["step"]["n"] == n and entry["step"]["points"] == list(points)
    if count is not None:
        assert entry["step"]["count"] == count
    return position, outcome


def test_section6_L1_step1_lead_counts_11() -> None:
    check("luzak", "lead", "65", n=1, count=11, points=(11, 0))


def test_section6_L1_step2_count_10_divisible_by_2() -> None:
    position, outcome = check("luzak", "divisible", "54@1e", n=2, count=10, points=(0, 10))
    assert position.seat == 1
    assert L.parts_text(outcome.parts) == "6 + 4"


def test_section6_L1_step3_count_8_not_divisible_by_3() -> None:
    check("luzak", "where", "64@1w", n=3, count=8, points=(0, 0))
    # the same tile on the other end: 6 + 6 = 12, divisible by 3
    check("luzak", "where", "46@2e", n=3, count=12, points=(12, 0))


def test_section6_L1_step4_luzak_gives_its_2_pips() -> None:
    position, outcome = check("luzak", "luzak", "11@2e*", n=4, count=6, points=(2, 0))
    assert position.seat == 1
    assert L.parts_text(outcome.parts) == "4 + [1+1]"


def test_section6_L1_step5_count_10_and_the_totals_23_10() -> None:
    _, outcome = check("luzak", "finish", "44@3e", n=5, count=10, points=(10, 0))
    assert L.parts_text(outcome.parts) == "[1+1] + [4+4]"
    entry = next(x for x in lesson_data("luzak", "finish")["turns"][0]["legal"]
                 if x["move"] == "44@3e")
    assert entry["totals"] == [23, 10]


def test_section6_L3_count_15() -> None:
    position, outcome = check("luzak", "arms", "32@1s", n=7, count=15, points=(0, 0))
    assert [s.count for s in position.steps] == [6, 7, 1, 1, 7, 13]
    assert L.parts_text(outcome.parts) == "1 + [0+0] + [6+6] + 2"


def test_section6_L5_a_spinner_stops_counting() -> None:
    position, _ = check("luzak", "spinner", "53@1e", n=3, count=3, points=(3, 0))
    assert [s.count for s in position.steps] == [10, 10]


def test_section6_V1() -> None:
    check("luzak-line", "lead", "64", n=1, count=10, points=(10, 0))
    check("luzak-line", "double", "44@R", n=2, count=14, points=(0, 14))
    check("luzak-line", "divisible", "62@L", n=3, count=10, points=(0, 0))
    position, outcome = check("luzak-line", "luzak", "51@R*", n=4, count=8, points=(8, 0))
    assert position.seat == 1 and L.parts_text(outcome.parts) == "2 + [5+1]"
    check("luzak-line", "either", "13@R", n=5, count=5, points=(5, 0))


def test_section6_W2_quartet_6012_scores_9() -> None:
    position, _ = check("widelec", "quartet", "06@R", n=3, quartet="6012", points=(9, 0))
    assert [s.quartet for s in position.steps] == [None, None]


def test_section6_W1_quartets_3456_and_4556() -> None:
    check("widelec", "pairs", "65@R", n=3, quartet="3456", points=(18, 0))
    check("widelec", "doubles", "55@R", n=3, quartet="4556", points=(20, 0))


def test_section6_W3_bonus_26() -> None:
    _, outcome = check("widelec", "domino", "50@R", n=3, points=(0, 0))
    assert outcome.ends_hand and outcome.bonus == 26
    assert {frozenset(p) for p in outcome.bonus_quartets} == {
        frozenset((T("34"), T("56"))), frozenset((T("22"), T("13")))}
    entry = lesson_data("widelec", "domino")["turns"][0]["legal"][0]
    assert entry["bonus"] == 26 and entry["totals"] == [26, 0]


def test_drawing_lesson_draws_a_tile_that_must_be_played() -> None:
    position, outcome = outcome_of("widelec", "draw", "draw")
    assert position.legal == (DRAW,)
    assert outcome.step.drew == T("42")
    then = outcome.then
    assert then is not None and then.pending == T("42")
    assert [str(m) for m in then.legal] == ["24@R"]
    check("widelec", "draw", "24@R", n=3, quartet="2345", points=(14, 0), turn=1)


# -- the texts ---------------------------------------------------------------------------------

def test_both_languages_have_every_key() -> None:
    en, pl = STRINGS_BY_LANG["en"], STRINGS_BY_LANG["pl"]
    assert set(en) == set(pl), (f"only English: {sorted(set(en) - set(pl))}; "
                                f"only Polish: {sorted(set(pl) - set(en))}")
    for key in en:
        assert en[key].strip() and pl[key].strip(), f"{key} is empty"
        assert placeholders(en[key]) == placeholders(pl[key]), f"{key}: placeholders differ"


def test_no_learn_key_clashes_with_the_other_strings() -> None:
    i18n = (STRINGS.parent.parent / "i18n.js").read_text(encoding="utf-8")
    for key in STRINGS_BY_LANG["en"]:
        assert f'"{key}":' not in i18n, f"{key} is defined in i18n.js too"


@pytest.mark.parametrize(("game", "lesson"), list(all_lessons()), ids=LESSON_IDS)
def test_every_lesson_text_exists_and_is_filled_by_computed_numbers(
        game: str, lesson: L.Lesson) -> None:
    data = lesson_data(game, lesson.id)
    values = data["vars"]
    assert all(isinstance(v, int | str) for v in values.values())
    parts = ["title", "intro", "goal", "done"] + [f"goal{i}" for i in
                                                  range(2, len(lesson.goals) + 1)]
    for lang, strings in STRINGS_BY_LANG.items():
        for part in parts:
            key = f"learn.{game}.{lesson.id}.{part}"
            assert key in strings, f"{lang}: no {key}"
            missing = placeholders(strings[key]) - set(values)
            assert not missing, f"{lang} {key}: {missing} are not numbers of the lesson"
            # and no number is typed in where the lesson has one
            for name in ("n", "count"):
                if name in values and placeholders(strings[key]) & {name}:
                    assert "{" not in fill(strings[key], values)
    own = {k for k in STRINGS_BY_LANG["en"] if k.startswith(f"learn.{game}.{lesson.id}.")}
    assert own == {f"learn.{game}.{lesson.id}.{p}" for p in parts}, "a text of no use"


def sentences(data: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for turn in data["turns"]:
        for entry in turn["legal"]:
            yield from entry["say"]
        for entry in turn["blocked"]:
            yield from entry["say"]


@pytest.mark.parametrize(("game", "lesson"), list(all_lessons()), ids=LESSON_IDS)
def test_every_sentence_is_filled_by_computed_numbers(game: str, lesson: L.Lesson) -> None:
    data = lesson_data(game, lesson.id)
    for turn in data["turns"]:
        for entry in turn["legal"]:
            assert entry["say"], f"{entry['move']} is not explained"
            step = entry["step"]
            for s in entry["say"]:
                # the numbers named are the engine's numbers of this move
                if "n" in s["vars"]:
                    assert s["vars"]["n"] == step["n"]
                if "count" in s["vars"]:
                    assert s["vars"]["count"] == step["count"]
                if "quartet" in s["vars"]:
                    assert s["vars"]["quartet"] == step["reason"]["quartet"]
                    assert s["vars"]["worth"] == max(step["points"])
                if "sum" in s["vars"]:
                    assert s["vars"]["sum"].endswith(str(step["count"]))
        for entry in turn["blocked"]:
            assert entry["say"], f"why {entry['tile']} cannot be laid is not said"
    for s in sentences(data):
        for lang, strings in STRINGS_BY_LANG.items():
            assert s["key"] in strings, f"{lang}: no {s['key']}"
            missing = placeholders(strings[s["key"]]) - set(s["vars"])
            assert not missing, f"{lang} {s['key']}: nothing fills {missing}"
            assert all(isinstance(v, int | str) for v in s["vars"].values())
            assert "{" not in fill(strings[s["key"]], s["vars"])


def test_a_missed_move_says_its_real_outcome() -> None:
    entry = next(x for x in lesson_data("luzak", "where")["turns"][0]["legal"]
                 if x["move"] == "64@1w")
    assert not entry["goal"]
    [sentence] = entry["say"]
    assert sentence["key"] == "learn.say.countNot"
    text = fill(STRINGS_BY_LANG["en"][sentence["key"]], sentence["vars"])
    assert text == "Tile 3: the count is 4 + 4 = 8. 8 is not divisible by 3: no points."


def test_a_tile_that_cannot_be_laid_says_why() -> None:
    turn = lesson_data("luzak", "divisible")["turns"][0]
    [blocked] = turn["blocked"]
    assert blocked["tile"] == "30" and blocked["reason"] == "luzak-not-allowed"
    texts = [fill(STRINGS_BY_LANG["en"][s["key"]], s["vars"]) for s in blocked["say"]]
    assert texts == [
        "3|0 does not fit: its halves are 3 and 0, and the free ends show 5, 6.",
        "You may lay a luzak only when none of your tiles matches, and these do: "
        "5|1, 5|4, 6|2.",
    ]
    drawing = lesson_data("widelec", "draw")["turns"]
    assert [b["reason"] for b in drawing[0]["blocked"]] == ["no-match"] * 3
    assert drawing[0]["blocked"][0]["say"][-1]["key"] == "learn.why.drawNow"
    assert [b["reason"] for b in drawing[1]["blocked"]] == ["drawn-first"] * 3


# -- the scripted position (core/scripted.py) ---------------------------------------------------

def test_a_luzak_only_without_a_normal_play() -> None:
    position = scripted_position("luzak", "65 54@1e 64@1w", "11 43")
    assert all(isinstance(m, Play) and not m.luzak for m in position.legal)
    assert [str(m) for m in position.legal] == ["43@2e", "43@3e"]
    blocked = position.blocked(T("11"))
    assert blocked is not None and blocked.reason == "luzak-not-allowed"
    assert blocked.matching == (T("43"),) and blocked.values == (4,)
    stuck = scripted_position("luzak", "65 54@1e 64@1w", "11")
    assert {str(m) for m in stuck.legal} == {"11@2e*", "11@3e*"}
    line = scripted_position("luzak-line", "64 44@R 62@L", "51").legal
    assert all(isinstance(m, Play) and m.luzak for m in line)


def test_widelec_draws_then_passes() -> None:
    assert scripted_position("widelec", "53 32@R", "44", boneyard="01").legal == (DRAW,)
    assert scripted_position("widelec", "53 32@R", "44").legal == (PASS,)
    position = scripted_position("widelec", "53 32@R", "44", boneyard="01 42")
    outcome = position.outcome(DRAW)
    assert outcome.step.drew == T("01") and outcome.then is None


def test_scripted_positions_refuse_bad_input() -> None:
    with pytest.raises(InvalidMoveError, match="once"):
        scripted_position("luzak", "65", "65")
    with pytest.raises(InvalidMoveError, match="once"):
        scripted_position("widelec", "65", "11", opponent="11")
    with pytest.raises(InvalidMoveError, match="holds"):
        scripted_position("luzak", "65", "")
    with pytest.raises(InvalidMoveError, match="no boneyard"):
        scripted_position("luzak", "65", "11", boneyard="22")
    position = scripted_position("luzak", "65", "54")
    with pytest.raises(InvalidMoveError):
        position.blocked(T("11"))
    with pytest.raises(Exception, match="not legal"):
        position.outcome(PASS)


@pytest.mark.parametrize("game", ["luzak", "luzak-line"])
def test_count_parts_sum_to_the_count(game: str) -> None:
    """Over random hands: the count's terms always add up to the table's count."""
    spec = get_game(game)
    rng = random.Random(14)
    for number in range(40):
        hand = spec.hand_class(Deal.for_hand(2026, number + 1, spec.hand_size), number % 2,
                               spec.options_class())
        while not hand.is_over:
            hand.apply(rng.choice(hand.legal_moves()))
            table = hand.table
            assert sum(map(sum, count_parts(table))) == table.count


# -- the API -----------------------------------------------------------------------------------

@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "games.sqlite3", workers=1)) as c:
        yield c


def test_api_serves_the_lessons(client: TestClient) -> None:
    index = client.get("/api/lessons")
    assert index.status_code == 200
    assert [g["game"] for g in index.json()["games"]] == list(L.LESSONS)
    for game in L.LESSONS:
        for width in WIDTHS:
            answer = client.get(f"/api/lessons/{game}?layout={width}")
            assert answer.status_code == 200
            body = answer.json()
            assert body["game"] == game and body["width"] == width
            assert [x["id"] for x in body["lessons"]] == [x.id for x in L.LESSONS[game]]
    # an unknown layout is the wide one, as everywhere in the API
    assert client.get("/api/lessons/luzak?layout=huge").json()["width"] == "wide"


@pytest.mark.parametrize("name", ["nope", "kwartety", "LUZAK", "%00", "x" * 300, "%C5%BC"])
def test_api_unknown_game_is_404_json(client: TestClient, name: str) -> None:
    answer = client.get(f"/api/lessons/{name}")
    assert answer.status_code == 404
    body = answer.json()
    assert set(body) == {"error", "status"} and body["status"] == 404
    assert "luzak, luzak-line, widelec" in body["error"]
    assert len(body["error"]) < 200


def test_api_lessons_deeper_path_is_404_json(client: TestClient) -> None:
    answer = client.get("/api/lessons/luzak/widelec")
    assert answer.status_code == 404 and answer.json()["status"] == 404


def test_lessons_are_computed_once() -> None:
    assert L.lessons_json("luzak", "wide") is L.lessons_json("luzak", "wide")
    with pytest.raises(L.UnknownGame):
        L.lessons_json("chess", "wide")
