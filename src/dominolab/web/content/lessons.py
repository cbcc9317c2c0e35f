"""The tutorial (docs/learn.md, "The tutorial"): short lessons per game, each a real position
on the real table, in which the learner makes one move (or draws, then moves).

A lesson is data: the moves laid before the learner's turn (RULES.md section 6 notation,
laid by :func:`~dominolab.core.scripted.scripted_position`), the tiles the learner holds, and
a goal with the moves that meet it. Everything the page shows is computed here through the
engine, once per process: the table's layout (:func:`~dominolab.web.games.layout.layout_table`),
every legal move with where its tile would lie (:func:`~dominolab.web.games.payload.move_json`),
what the move would do (its Step, :func:`~dominolab.web.games.payload.step_json`), and the
sentences that explain it as text keys with the numbers to fill in (``say``). A held tile
that cannot be laid gets the sentences that say why.

The goal moves a lesson names are claims: ``tests/test_web_lessons.py`` checks through the
engine that exactly those legal moves meet the lesson's goal (:func:`meets_goal`).

The learner is the seat to move after the scripted moves (seats alternate from seat 0, as
in the worked examples), so a lesson built on a worked example gives its numbers to the
same seats as the example does.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from dominolab.core import GAMES, Draw, GameSpec, Move, Play, Tile, get_game
from dominolab.core.scripted import Blocked, Outcome, Position, scripted_position
from dominolab.web.errors import ApiError
from dominolab.web.games.layout import TableLayout, layout_table
from dominolab.web.games.live import width_of
from dominolab.web.games.payload import WIDTHS, move_json, rules_json, step_json

#: what a goal asks of the learner's move (:func:`meets_goal`)
GOALS: Final = {
    "score": "the learner scores points",
    "most": "the learner scores the most points any legal move scores (and some)",
    "least": "the opponent gets the fewest points any legal move gives them",
    "quartet": "the two end tiles form a quartet",
    "draw": "the learner draws from the boneyard",
    "out": "the learner lays their last tile and ends the hand",
}


@dataclass(frozen=True, slots=True)
class Goal:
    """What one turn of a lesson asks (a kind of :data:`GOALS`) and the legal moves that
    meet it (texts as the engine writes them)."""

    kind: str
    moves: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Lesson:
    """One lesson. ``table``: the moves laid before the learner's turn; ``hand``: the
    learner's tiles; ``goals``: the goal of the learner's turn, and of the turn after a draw
    (a drawn tile that fits must be laid at once); ``opponent``: the opponent's tiles,
    shown (the end-of-hand bonus); ``boneyard``: what a draw takes, first first;
    ``example``: the worked example of RULES.md section 6 the lesson is built on."""

    id: str
    table: str
    hand: str
    goals: tuple[Goal, ...]
    opponent: str = ""
    boneyard: str = ""
    example: str = ""


def _goal(kind: str, *moves: str) -> Goal:
    return Goal(kind, moves)


#: the lessons of each game, in order; their texts are the ``learn.GAME.ID.*`` strings of
#: static/js/strings/learn.js
LESSONS: Final[dict[str, tuple[Lesson, ...]]] = {
    "luzak": (
        # §6 L1 step 1: [6|5] opens, count 11, N=1
        Lesson("lead", "", "65 31 20", (_goal("most", "65"),), example="L1 step 1"),
        # §6 L1 step 2: [5|4] on the 5 of [6|5], count 10, N=2
        Lesson("divisible", "65", "54 51 62 30", (_goal("score", "54@1e"),),
               example="L1 step 2"),
        # §6 L1 step 3: [4|6] on the 6 of [6|5] makes 8, N=3; on the 4 it makes 12
        Lesson("where", "65 54@1e", "64 63 42", (_goal("score", "46@2e"),),
               example="L1 step 3"),
        # §6 L5: [5|3] on the other long side of [5|5] makes 3
        Lesson("spinner", "55 50@1w", "53 40 21", (_goal("score", "53@1e"),),
               example="L5"),
        # §6 L3: [3|2] on the other short end makes 15 (1 + [0+0] + [6+6] + 2), N=7
        Lesson("arms", "33 31@1w 30@1e 00@3e 36@1n 66@5e", "32 61 54",
               (_goal("score", "61@6n", "61@6s"),), example="L3"),
        # §6 L1 step 4: no 4 in hand, luzak [1|1] on the 4 of [5|4]: count 6, N=4, +2
        Lesson("luzak", "65 54@1e 64@1w", "11 32 55",
               (_goal("least", "11@2e*", "11@3e*"),), example="L1 step 4"),
        # §6 L1 step 5: [4|4] on the 4 of [4|6]: (4+4) + (1+1) = 10, N=5; totals 23 : 10
        Lesson("finish", "65 54@1e 64@1w 11@2e*", "44 31 42", (_goal("score", "44@3e"),),
               example="L1 step 5"),
    ),
    "luzak-line": (
        # §6 V1 step 1: [6|4] opens: 10
        Lesson("lead", "", "64 31 20", (_goal("most", "64"),), example="V1 step 1"),
        # §6 V1 step 2: [4|4] on the 4: 6 + 8 = 14, N=2
        Lesson("double", "64", "44 41 61", (_goal("score", "44@R"),), example="V1 step 2"),
        # §6 V1 step 3: [6|2] on the 6: 2 + 8 = 10, N=3, no score
        Lesson("divisible", "64 44@R", "62 61 30", (_goal("score", "61@L"),),
               example="V1 step 3"),
        # §6 V1 step 4: luzak [5|1] across the [4|4] end: 2 + (5+1) = 8, N=4: the opponent
        # scores 8
        Lesson("luzak", "64 44@R 62@L", "51 30 66",
               (_goal("least", "51@L*", "30@L*", "30@R*", "66@R*"),), example="V1 step 4"),
        # §6 V1 step 5: [1|3] on the luzak's 1: 2 + 3 = 5, N=5
        Lesson("either", "64 44@R 62@L 51@R*", "13 50 43", (_goal("score", "13@R"),),
               example="V1 step 5"),
    ),
    "widelec": (
        # §6 W2: [0|6] on the 0: [2|1] and [0|6] form 6012, 9 points
        Lesson("quartet", "21 10@R", "06 05 35", (_goal("quartet", "06@R"),), example="W2"),
        # §6 W1: [3|4] + [5|6] is 3456, 18 points
        Lesson("pairs", "43 36@R", "65 62 00", (_goal("quartet", "65@R"),), example="W1"),
        # §6 W1: [5|5] + [4|6] is 4556, 20 points
        Lesson("doubles", "64 45@R", "55 52 61", (_goal("quartet", "55@R"),), example="W1"),
        # no tile fits: draw; the drawn [4|2] fits and must be laid: 2345, 14 points
        Lesson("draw", "53 32@R", "10 44 66",
               (_goal("draw", "draw"), _goal("quartet", "24@R")), boneyard="42"),
        # §6 W3: going out against [3|4] [5|6] [2|2] [1|3] [0|6]: bonus 18 + 8 = 26
        Lesson("domino", "21 15@R", "50", (_goal("out", "50@R"),),
               opponent="34 56 22 13 06", example="W3"),
    ),
}


class UnknownGame(ApiError):
    """No lessons for this name: a 404 of the API."""

    def __init__(self, game: object) -> None:
        super().__init__(404, f"there are no lessons for {str(game)[:40]!r}; the games are: "
                              f"{', '.join(LESSONS)}")


def lessons_of(game: str) -> tuple[GameSpec, tuple[Lesson, ...]]:
    """The game's spec and lessons (``game``: its name); raises UnknownGame."""
    if not isinstance(game, str) or game not in LESSONS:
        raise UnknownGame(game)
    return get_game(game), LESSONS[game]


def positions(spec: GameSpec, lesson: Lesson) -> list[Position]:
    """The lesson's turns: the learner's position, and after a draw (the first goal's
    move) the position in which the drawn tile is laid."""
    first = scripted_position(spec, lesson.table, lesson.hand, opponent=lesson.opponent,
                              boneyard=lesson.boneyard)
    out = [first]
    for goal in lesson.goals[:-1]:
        move = _find(out[-1], goal.moves[0])
        then = out[-1].outcome(move).then
        if then is None:
            raise ValueError(f"lesson {lesson.id}: {move} leads to no further turn")
        out.append(then)
    return out


def _find(position: Position, text: str) -> Move:
    for move in position.legal:
        if str(move) == text:
            return move
    raise ValueError(f"{text} is not a legal move here (legal: "
                     f"{', '.join(map(str, position.legal))})")


def meets_goal(position: Position, kind: str, move: Move) -> bool:
    """Does ``move`` (legal in ``position``) meet a goal of this kind? Asked of the
    engine's outcomes only."""
    if kind not in GOALS:
        raise ValueError(f"no goal {kind!r}; the goals are {', '.join(GOALS)}")
    me = position.seat
    outcome = position.outcome(move)
    points = outcome.step.points
    if kind == "score":
        return points[me] > 0
    if kind == "most":
        best = max(position.outcome(m).step.points[me] for m in position.legal)
        return best > 0 and points[me] == best
    if kind == "least":
        least = min(position.outcome(m).step.points[1 - me] for m in position.legal)
        return points[1 - me] == least
    if kind == "quartet":
        return outcome.step.quartet is not None
    if kind == "draw":
        return isinstance(move, Draw)
    return outcome.ends_hand


# -- what the page is sent -------------------------------------------------------------------

def tile_text(tile: Tile) -> str:
    """A tile as the page writes it in a sentence: ``6|5``."""
    return f"{tile.hi}|{tile.lo}"


def parts_text(parts: tuple[tuple[int, ...], ...]) -> str:
    """``1 + [0+0] + [6+6] + 2``: the count's terms as RULES.md writes them."""
    return " + ".join(f"[{p[0]}+{p[1]}]" if len(p) == 2 else str(p[0]) for p in parts)


def sum_text(parts: tuple[tuple[int, ...], ...], count: int) -> str:
    """The count with its terms: ``4 + [1+1] = 6`` (just ``6`` for a single end)."""
    if len(parts) == 1 and len(parts[0]) == 1:
        return str(count)
    return f"{parts_text(parts)} = {count}"


Say = list[tuple[str, dict[str, Any]]]


def outcome_say(spec: GameSpec, position: Position, outcome: Outcome) -> Say:
    """The sentences that explain ``outcome``: text keys of static/js/strings/learn.js with
    the engine's numbers to fill their placeholders."""
    step = outcome.step
    move = step.move
    me = position.seat
    if isinstance(move, Draw):
        drew = step.drew
        assert drew is not None
        key = "learn.say.drewFits" if outcome.then is not None else "learn.say.drewNoFit"
        return [(key, {"tile": tile_text(drew)})]
    assert isinstance(move, Play)
    say: Say = []
    if spec.has_count:
        count = step.count or 0
        n = step.n
        pips = move.tile.pips if move.luzak and spec.luzak_pips else 0
        if pips:
            say.append(("learn.say.luzakPips", {"tile": tile_text(move.tile), "pips": pips}))
        elif move.luzak:
            say.append(("learn.say.luzakAcross", {"tile": tile_text(move.tile)}))
        numbers = {"n": n, "count": count, "sum": sum_text(outcome.parts, count)}
        if count == 0:
            say.append(("learn.say.countZero", {"n": n}))
        elif count % n:
            say.append(("learn.say.countNot", numbers))
        elif step.points[me] >= count:
            say.append(("learn.say.countYou", numbers))
        elif step.points[1 - me] - pips >= count:
            say.append(("learn.say.countOpponent", numbers))
        else:
            say.append(("learn.say.countNobody", numbers))
    elif step.ends is None:
        say.append(("learn.say.lead", {}))
    else:
        a, b = step.ends
        if step.quartet is not None:
            say.append(("learn.say.quartet", {"a": tile_text(a), "b": tile_text(b),
                                              "quartet": step.quartet,
                                              "worth": step.points[me]}))
        else:
            say.append(("learn.say.noQuartet", {"a": tile_text(a), "b": tile_text(b)}))
    if outcome.ends_hand and spec.hand_end == "out":
        say.append(("learn.say.domino", {}))
        if position.opponent:
            if outcome.bonus:
                pairs = ", ".join(
                    f"{tile_text(x)} + {tile_text(y)} ({x.pips + y.pips})"
                    for x, y in outcome.bonus_quartets)
                say.append(("learn.say.bonus", {"pairs": pairs, "bonus": outcome.bonus}))
            else:
                say.append(("learn.say.noBonus", {}))
    return say


def blocked_say(blocked: Blocked, position: Position) -> Say:
    """The sentences that say why a held tile cannot be laid."""
    tile = blocked.tile
    ends = ", ".join(map(str, blocked.values))
    if blocked.reason == "drawn-first":
        assert position.pending is not None
        return [("learn.why.drawnFirst", {"tile": tile_text(tile),
                                          "drawn": tile_text(position.pending)})]
    say: Say = [("learn.why.noMatch", {"tile": tile_text(tile), "a": tile.hi, "b": tile.lo,
                                       "ends": ends})]
    if blocked.reason == "luzak-not-allowed":
        say.append(("learn.why.noLuzak", {
            "matching": ", ".join(tile_text(t) for t in blocked.matching)}))
    elif any(isinstance(m, Draw) for m in position.legal):
        say.append(("learn.why.drawNow", {}))
    return say


def _say_json(say: Say) -> list[dict[str, Any]]:
    return [{"key": key, "vars": values} for key, values in say]


def _turn_json(spec: GameSpec, position: Position, goal: Goal,
               layout: TableLayout) -> dict[str, Any]:
    me = position.seat
    before = position.totals
    table = position.table()
    legal = []
    for move in position.legal:
        outcome = position.outcome(move)
        points = outcome.step.points
        entry = move_json(move, layout)
        entry.update({
            "goal": str(move) in goal.moves,
            "step": step_json(spec, outcome.step, None),
            "ends_hand": outcome.ends_hand,
            "bonus": outcome.bonus,
            "totals": [before[0] + points[0] + (outcome.bonus if me == 0 else 0),
                       before[1] + points[1] + (outcome.bonus if me == 1 else 0)],
            "say": _say_json(outcome_say(spec, position, outcome)),
        })
        legal.append(entry)
    blocked = []
    for tile in position.hand:
        why = position.blocked(tile)
        if why is not None:
            blocked.append({"tile": tile.digits, "reason": why.reason,
                            "say": _say_json(blocked_say(why, position))})
    return {
        "hand": [t.digits for t in position.hand],
        "pending": None if position.pending is None else position.pending.digits,
        "n": table.n + 1,
        "count": table.count if spec.has_count else None,
        "goal": goal.kind,
        "legal": legal,
        "blocked": blocked,
    }


def lesson_vars(spec: GameSpec, position: Position) -> dict[str, Any]:
    """The numbers a lesson's own texts may name: ``{n}`` (the number of the tile the
    learner lays), ``{count}`` (the count now, count games) and ``{ends}`` (what the free
    ends show)."""
    table = position.table()
    values: set[int] = set()
    for shown in table.port_values().values():
        values.update(shown if isinstance(shown, tuple) else (shown,))
    out: dict[str, Any] = {"n": table.n + 1, "ends": ", ".join(map(str, sorted(values)))}
    if spec.has_count:
        out["count"] = table.count
    return out


def lesson_json(spec: GameSpec, lesson: Lesson, number: int, width: str) -> dict[str, Any]:
    turns = positions(spec, lesson)
    first = turns[0]
    layout = layout_table(spec, first.options, first.placements, width)
    return {
        "id": lesson.id,
        "number": number,
        "example": lesson.example or None,
        "seat": first.seat,
        "history": [step_json(spec, s, None) for s in first.steps],
        "totals": list(first.totals),
        "opponent_hand": [t.digits for t in first.opponent] or None,
        "table": layout.to_json(),
        "vars": lesson_vars(spec, first),
        "turns": [_turn_json(spec, p, g, layout) for p, g in zip(turns, lesson.goals,
                                                                 strict=True)],
    }


@cache
def lessons_json(game: str, width: str) -> dict[str, Any]:
    """Everything the tutorial page needs for one game, laid out for ``width`` (``wide`` or
    ``narrow``), computed once per process. Raises UnknownGame (not cached)."""
    spec, lessons = lessons_of(game)
    if width not in WIDTHS:
        raise ValueError(f"unknown layout width {width!r}")
    return {
        "game": spec.name,
        "title": spec.title,
        "rules": rules_json(spec),
        "width": width,
        "lessons": [lesson_json(spec, lesson, i, width)
                    for i, lesson in enumerate(lessons, start=1)],
    }


def lessons_index() -> dict[str, Any]:
    """The games and their lesson ids, for the tutorial's first page."""
    return {"games": [{"game": name, "title": GAMES[name].title,
                       "lessons": [lesson.id for lesson in lessons]}
                      for name, lessons in LESSONS.items()]}


async def lessons_endpoint(request: Request) -> Response:
    """``GET /api/lessons/{game}?layout=wide|narrow``: :func:`lessons_json`; 404 for a name
    that is no game."""
    width = width_of(request.query_params.get("layout"))
    return JSONResponse(lessons_json(str(request.path_params["game"]), width))


async def lessons_index_endpoint(request: Request) -> Response:
    """``GET /api/lessons``: :func:`lessons_index`."""
    return JSONResponse(lessons_index())


__all__ = ["GOALS", "LESSONS", "Goal", "Lesson", "UnknownGame", "blocked_say", "lesson_json",
           "lesson_vars", "lessons_endpoint", "lessons_index", "lessons_index_endpoint",
           "lessons_json", "lessons_of", "meets_goal", "outcome_say", "parts_text", "positions",
           "sum_text", "tile_text"]
