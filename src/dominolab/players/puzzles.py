"""Puzzles: positions from real and simulated matches where one move is clearly best by the
expert's deep search, with what a person needs to see why (the count, the points).

A puzzle is the record of a match up to the moment a seat is to move (the core replays it:
:func:`~dominolab.core.replay`, so a puzzle's position is exactly the game's, under its
rules version and options), and the deep search's judgement of every distinct legal move
there (:func:`judge`). The search is the expert's (:class:`~dominolab.players.search.
ExpertPlayer` without its model of the opponent's choices, as hints use it), run on each
distinct move alone (:func:`~dominolab.players.hints.focused`) in :data:`DEEP_WORLDS`
sampled worlds, so every move's value rests on as many worlds and a seed repeats it
exactly. A move is *clearly best* when it wins at least :data:`MIN_WIN_GAP` more often
than every other move and by more than both values' "±" (:func:`~dominolab.players.hints.
_spread`'s about 95%), or, where the match's outcome does not hang on the choice (win
chances within :data:`FLAT_WIN`), when it ends the hand at least :data:`MIN_POINTS_GAP`
points better off on average. Moves that are the same in all but a port's name are one
move (:func:`~dominolab.players.hints.move_classes`): any of them solves the puzzle.

Anyone can re-check a puzzle: :func:`recheck` runs the same search with another seed and
says whether the same move is still clearly best.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from dominolab.core import (
    JsonError,
    LineTable,
    Match,
    Move,
    Play,
    RecordError,
    View,
    parse_move,
    quartet_text,
    read_json,
    replay,
)
from dominolab.core.errors import DominoError, shown
from dominolab.jsonfile import read_bounded
from dominolab.players.hints import (
    chance_spread,
    equivalent,
    focused,
    immediate_points,
    move_classes,
    win_chance,
)
from dominolab.players.search import MoveValue

#: the worlds each distinct move is searched in by the deep search: about 0.6 s a Luzak
#: position (3 s at 20,000), its "±" about 0.02, well under :data:`MIN_WIN_GAP`; the
#: generator keeps only puzzles that a second search with another seed confirms
DEEP_WORLDS: Final = 5_000
#: the least win chance the best move must win by, over every other move
MIN_WIN_GAP: Final = 0.08
#: win chances this close are "the same match outcome": the points decide
FLAT_WIN: Final = 0.01
#: the least expected margin (points, to the hand's end) the best move must win by then
MIN_POINTS_GAP: Final = 8.0
#: the format of a puzzle file's lines (JSON Lines, one puzzle a line)
FORMAT: Final = "dominolab-puzzle"
FORMAT_VERSION: Final = 1
#: the largest puzzle file read (a few hundred puzzles with their records: a few MiB)
MAX_PUZZLE_FILE_BYTES: Final = 64 * 1024 * 1024


class PuzzleError(DominoError):
    """A puzzle (or a puzzle file) that is malformed or whose position does not replay."""


@dataclass(frozen=True, slots=True)
class Judged:
    """One distinct legal move as the deep search sees it, with the facts that explain it.

    ``move``: the class's representative in the text notation (``56@4e``); ``same``: the
    other moves of its class (the same tile on ports that differ only in name); ``win``: the
    chance to win the match after it; ``margin``: the expected point margin (mine minus the
    opponent's) from it to the end of the hand; ``worlds``: how many worlds that rests on;
    ``now``: the points it scores at once (mine, the opponent's: a luzak gives the opponent
    its pips); ``count``: the table count after it and ``n`` the tile's number in the hand
    (the counting games; ``count`` is divisible by ``n`` when it scores); ``quartet``: the
    quartet its line's end tiles make after it (Widelec), else None.
    """

    move: str
    same: tuple[str, ...]
    win: float
    margin: float
    worlds: int
    now: tuple[int, int]
    count: int | None
    n: int
    quartet: str | None

    def to_json(self) -> dict[str, Any]:
        return {"move": self.move, "same": list(self.same), "win": round(self.win, 4),
                "margin": round(self.margin, 2), "worlds": self.worlds, "now": list(self.now),
                "count": self.count, "n": self.n, "quartet": self.quartet}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Judged:
        return Judged(_str(data, "move"), tuple(_strs(data, "same")),
                      _num(data, "win"), _num(data, "margin"), _int(data, "worlds"),
                      _pair(data, "now"), _opt_int(data, "count"), _int(data, "n"),
                      _opt_str(data, "quartet"))


@dataclass(frozen=True, slots=True)
class Puzzle:
    """A position and the deep search's judgement of it.

    ``id``: unique over a game's puzzles (``luzak-0042``); ``game``: the game's name;
    ``record``: the match's record up to the position (:func:`~dominolab.core.match_record`
    of the match then); ``moves``: every distinct legal move judged, the clearly best first;
    ``rating``: the puzzle's starting rating (how hard the levels found it: the lab's
    generator says how it is set); ``source``: where the position comes from, in words
    (``simulated: expert vs greedy, seed 12``, ``the site's game 4f2a…``); ``seed`` and
    ``worlds``: the deep search's, to repeat it.
    """

    id: str
    game: str
    record: Mapping[str, Any]
    moves: tuple[Judged, ...]
    rating: float
    source: str
    seed: int
    worlds: int

    @property
    def best(self) -> Judged:
        return self.moves[0]

    @property
    def runner_up(self) -> Judged:
        return self.moves[1]

    def match(self) -> Match:
        """The match at the puzzle's position (the record replayed: every figure checked).
        Raises :class:`PuzzleError` if the record does not replay."""
        try:
            match = replay(self.record)
        except RecordError as exc:
            raise PuzzleError(f"puzzle {self.id}: {exc}") from None
        if match.is_over or match.to_move is None:
            raise PuzzleError(f"puzzle {self.id}: the match in its record is over")
        return match

    def view(self) -> View:
        """What the seat to move sees: the puzzle as a person is shown it."""
        match = self.match()
        assert match.to_move is not None
        return match.view(match.to_move)

    def solves(self, view: View, move: Move) -> bool:
        """True if ``move`` (legal in ``view``, this puzzle's view) is the best move or one
        the same in all but a port's name."""
        return equivalent(view, parse_move(self.best.move), move)

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "id": self.id,
                "game": self.game, "rating": round(self.rating, 1), "source": self.source,
                "seed": self.seed, "worlds": self.worlds,
                "moves": [m.to_json() for m in self.moves], "record": dict(self.record)}

    @staticmethod
    def from_json(data: Any) -> Puzzle:
        """A puzzle from its JSON value; :class:`PuzzleError` naming what is wrong (the
        position itself is checked by :meth:`match`)."""
        if not isinstance(data, Mapping):
            raise PuzzleError(f"a puzzle is a JSON object, not {type(data).__name__}")
        try:
            if data.get("format") != FORMAT or data.get("format_version") != FORMAT_VERSION:
                raise PuzzleError(f"not a puzzle of format {FORMAT} {FORMAT_VERSION}: "
                                  f"format {shown(data.get('format'))} "
                                  f"{shown(data.get('format_version'))}")
            moves = tuple(Judged.from_json(m) for m in _list(data, "moves"))
            if len(moves) < 2:
                raise PuzzleError("a puzzle judges at least two moves")
            record = data.get("record")
            if not isinstance(record, Mapping):
                raise PuzzleError("a puzzle's record is a JSON object")
            return Puzzle(_str(data, "id"), _str(data, "game"), record, moves,
                          _num(data, "rating"), _str(data, "source"), _int(data, "seed"),
                          _int(data, "worlds"))
        except (KeyError, TypeError, ValueError) as exc:
            raise PuzzleError(f"not a puzzle: {exc}") from None


def read_puzzles(path: str | os.PathLike[str]) -> list[Puzzle]:
    """The puzzles of a file (JSON Lines, one puzzle a line, read through the bounded JSON
    reader). Raises :class:`PuzzleError` naming the file and line of the first bad one, and
    :class:`OSError` if the file cannot be read."""
    name = os.fsdecode(path)
    try:
        data = read_bounded(path, "a puzzle file", MAX_PUZZLE_FILE_BYTES)
    except JsonError as exc:
        raise PuzzleError(str(exc)) from None
    out: list[Puzzle] = []
    seen: set[str] = set()
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            puzzle = Puzzle.from_json(read_json(line, "a puzzle"))
        except (JsonError, PuzzleError) as exc:
            raise PuzzleError(f"{name}, line {number}: {exc}") from None
        if puzzle.id in seen:
            raise PuzzleError(f"{name}, line {number}: puzzle {puzzle.id} appears twice")
        seen.add(puzzle.id)
        out.append(puzzle)
    return out


def write_puzzles(path: str | os.PathLike[str], puzzles: Iterable[Puzzle]) -> None:
    """Write ``puzzles`` to ``path`` as JSON Lines (keys sorted, so a re-run that finds the
    same puzzles writes the same bytes)."""
    with open(path, "w", encoding="utf-8") as fh:
        for p in puzzles:
            fh.write(json.dumps(p.to_json(), sort_keys=True, separators=(",", ":")) + "\n")


# -- the deep search -------------------------------------------------------------------------

def facts(view: View, move: Move) -> tuple[tuple[int, int], int | None, str | None]:
    """What ``move`` does at once in ``view``: the points (mine, the opponent's), the table
    count after it (the counting games) and the quartet of the line's end tiles after it
    when it scores one (Widelec)."""
    now = immediate_points(view, move)
    if not isinstance(move, Play):
        return now, view.count, None
    table = view.new_table()
    view.spec.hand_class.score_placement(table, move, view.seat, view.options)
    if view.spec.scoring == "quartets":
        quartet = None
        if now[0] and isinstance(table, LineTable):
            left, right = table.end_tiles
            if left is not None and right is not None:
                quartet = quartet_text(left, right,
                                       bool(getattr(view.options, "edge_double", True)))
        return now, None, quartet
    return now, table.count, None


def spread(a: Judged, b: Judged) -> float:
    """The "±" (about 95%) of the difference of two judged moves' win chances, as a
    review's (:func:`~dominolab.players.hints.chance_spread`)."""
    return chance_spread((a.win, a.worlds), (b.win, b.worlds))


def clearly_best(moves: Sequence[Judged]) -> bool:
    """True if ``moves[0]`` is clearly better than each of the others (module docstring)."""
    best = moves[0]
    for other in moves[1:]:
        gap = best.win - other.win
        if abs(gap) <= FLAT_WIN:
            if best.margin - other.margin < MIN_POINTS_GAP:
                return False
        elif gap < MIN_WIN_GAP or gap <= spread(best, other):
            return False
    return True


def _judged(view: View, value: MoveValue, cls: tuple[Move, ...]) -> Judged:
    now, count, quartet = facts(view, value.move)
    return Judged(str(value.move), tuple(str(m) for m in cls if m != value.move),
                  win_chance(value), value.margin, value.worlds, now, count, view.n + 1,
                  quartet)


def judge(view: View, worlds: int = DEEP_WORLDS, seed: int = 0) -> list[Judged]:
    """Every distinct legal move of ``view`` by the deep search (each alone, in ``worlds``
    worlds), best first: by win chance, then, among chances within :data:`FLAT_WIN` of the
    best, by margin. Deterministic for a seed. Raises :class:`ValueError` if the view's seat
    is not to move."""
    if not view.my_turn or not view.legal_moves:
        raise ValueError(f"seat {view.seat} is not to move, so it has no moves to judge")
    out = [_judged(view, focused(view, cls[0], worlds, seed), cls)
           for cls in move_classes(view)]
    top = max(j.win for j in out)
    out.sort(key=lambda j: (-(top if top - j.win <= FLAT_WIN else j.win), -j.margin, j.move))
    return out


def recheck(puzzle: Puzzle, seed: int, worlds: int | None = None) -> bool:
    """True if the deep search, run again with ``seed`` (and ``worlds``, the puzzle's by
    default), still finds the puzzle's best move clearly best."""
    view = puzzle.view()
    again = judge(view, worlds or puzzle.worlds, seed)
    return (len(again) >= 2 and equivalent(view, parse_move(again[0].move),
                                           parse_move(puzzle.best.move))
            and clearly_best(again))


# -- reading fields --------------------------------------------------------------------------

def _str(data: Mapping[str, Any], key: str) -> str:
    value = data[key]
    if not isinstance(value, str):
        raise TypeError(f"{key} must be a string, not {shown(value)}")
    return value


def _opt_str(data: Mapping[str, Any], key: str) -> str | None:
    return None if data.get(key) is None else _str(data, key)


def _int(data: Mapping[str, Any], key: str) -> int:
    value = data[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{key} must be a whole number, not {shown(value)}")
    return value


def _opt_int(data: Mapping[str, Any], key: str) -> int | None:
    return None if data.get(key) is None else _int(data, key)


def _num(data: Mapping[str, Any], key: str) -> float:
    value = data[key]
    if not isinstance(value, (int, float)) or isinstance(value, bool) \
            or not math.isfinite(value):
        raise TypeError(f"{key} must be a number, not {shown(value)}")
    return float(value)


def _list(data: Mapping[str, Any], key: str) -> list[Any]:
    value = data[key]
    if not isinstance(value, list):
        raise TypeError(f"{key} must be a list, not {shown(value)}")
    return value


def _strs(data: Mapping[str, Any], key: str) -> list[str]:
    values = _list(data, key)
    for v in values:
        if not isinstance(v, str):
            raise TypeError(f"{key} must hold strings, not {shown(v)}")
    return values


def _pair(data: Mapping[str, Any], key: str) -> tuple[int, int]:
    values = _list(data, key)
    if len(values) != 2 or not all(isinstance(v, int) and not isinstance(v, bool)
                                   for v in values):
        raise TypeError(f"{key} must be two whole numbers, not {shown(values)}")
    return values[0], values[1]


__all__ = ["DEEP_WORLDS", "FLAT_WIN", "MIN_POINTS_GAP", "MIN_WIN_GAP", "Judged", "Puzzle",
           "PuzzleError", "clearly_best", "facts", "judge", "read_puzzles", "recheck",
           "spread", "write_puzzles"]
