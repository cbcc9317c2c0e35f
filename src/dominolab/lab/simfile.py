"""Simulation result files (format ``dominolab-sim``, version 1): the one writer and reader.

The file is JSON Lines (UTF-8, one JSON object a line, ``\\n`` line ends): a header line,
then for each match ``i = 0 .. matches-1`` in order one line per hand and one line for the
match (see docs/lab.md for every field). The data model is :class:`SimFile` (the header and
the whole matches), :class:`MatchLine` (a match line with its hands) and :class:`HandLine`;
:func:`hand_line` and :func:`match_line` build them from a finished
:class:`~dominolab.core.Match`, their ``to_json`` gives the line's object, :func:`dumps` its
text. :func:`read_sim_file` and :func:`parse_sim` read and check a file; anything malformed
raises :class:`SimFileError` naming the file and the line.

A game without a boneyard (Luzak, Luzak without spinners) writes the luzak fields
(``luzaks``, ``luzak_pips``, ``scored_n``); a game with one (Widelec) writes the quartet,
bonus, draw and pass fields.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from dominolab.core import GAMES, Draw, GameSpec, Match, Pass, Play, RecordError, Step, get_game

FORMAT: Final = "dominolab-sim"
FORMAT_VERSION: Final = 1
HAND_ENDS: Final = ("tiles", "domino", "block", "target")
MATCH_ENDS: Final = ("target", "at-once", "deals")


class SimFileError(RecordError):
    """A simulation result file that is malformed; the message names the file and line."""


def dumps(obj: Any) -> str:
    """One line of a simulation file: compact JSON, keys in the order they were built."""
    return json.dumps(obj, separators=(",", ":"))


# -- the data model -----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class HandLine:
    """One ``hand`` line. The Luzak-only and Widelec-only fields are zeros for the other."""

    match: int
    hand: int
    opener: int
    end: str
    winner: int | None
    points: tuple[int, int]
    moves: int
    luzaks: tuple[int, int] = (0, 0)
    luzak_pips: tuple[int, int] = (0, 0)
    scored_n: tuple[tuple[int, int, int], ...] = ()
    quartets: tuple[int, int] = (0, 0)
    quartet_points: tuple[int, int] = (0, 0)
    bonus: int = 0
    draws: tuple[int, int] = (0, 0)
    passes: tuple[int, int] = (0, 0)

    @property
    def opener_margin(self) -> int:
        """The opener's points in the hand minus the other's."""
        return self.points[self.opener] - self.points[1 - self.opener]

    def to_json(self, has_boneyard: bool) -> dict[str, Any]:
        """The line's object: the common fields, then the luzak fields (no boneyard) or the
        quartet fields (a boneyard)."""
        obj: dict[str, Any] = {
            "type": "hand", "match": self.match, "hand": self.hand, "opener": self.opener,
            "end": self.end, "winner": self.winner, "points": list(self.points),
            "moves": self.moves,
        }
        if has_boneyard:
            obj.update(quartets=list(self.quartets), quartet_points=list(self.quartet_points),
                       bonus=self.bonus, draws=list(self.draws), passes=list(self.passes))
        else:
            obj.update(luzaks=list(self.luzaks), luzak_pips=list(self.luzak_pips),
                       scored_n=[list(x) for x in self.scored_n])
        return obj


@dataclass(frozen=True, slots=True)
class MatchLine:
    """One ``match`` line with the hand lines before it."""

    match: int
    seed: int
    first_opener: int
    end: str
    winner: int | None
    totals: tuple[int, int]
    hands: tuple[HandLine, ...]

    def to_json(self) -> dict[str, Any]:
        """The line's object (its hands are counted, not included)."""
        return {"type": "match", "match": self.match, "seed": self.seed,
                "first_opener": self.first_opener, "end": self.end, "winner": self.winner,
                "totals": list(self.totals), "hands": len(self.hands)}


@dataclass(frozen=True, slots=True)
class SimFile:
    """A whole result file: its header and its whole matches, in order."""

    path: str
    header: dict[str, Any]
    matches: tuple[MatchLine, ...]

    @property
    def game(self) -> str:
        return str(self.header["game"])

    @property
    def spec(self) -> GameSpec:
        return get_game(self.game)

    @property
    def is_luzak(self) -> bool:
        """Whether the game lays luzaks (its hands carry the luzak fields)."""
        return self.spec.luzaks

    @property
    def requested(self) -> int:
        return int(self.header["matches"])

    @property
    def interrupted(self) -> bool:
        """True when the run stopped early (fewer matches than the header asked for)."""
        return len(self.matches) < self.requested

    @property
    def hand_lines(self) -> tuple[HandLine, ...]:
        return tuple(h for m in self.matches for h in m.hands)

    def label(self) -> str:
        players = self.header.get("players", ["?", "?"])
        budgets = self.header.get("budgets", [None, None])
        specs = [p if b is None else f"{p}:{b}" for p, b in zip(players, budgets, strict=True)]
        return f"{self.game} {specs[0]} v {specs[1]}"


# -- writing ------------------------------------------------------------------------------------

def _per_seat(steps: Iterable[Step], kind: type) -> tuple[int, int]:
    counts = [0, 0]
    for step in steps:
        if isinstance(step.move, kind):
            counts[step.seat] += 1
    return (counts[0], counts[1])


def hand_line(spec: GameSpec, match_index: int, hand_number: int, match: Match) -> HandLine:
    """Hand ``hand_number`` (1-based) of a finished ``match``, as its line."""
    hand = match.hands[hand_number - 1]
    steps = match.steps[hand_number - 1]
    result = hand.result
    if result is None:
        raise ValueError(f"hand {hand_number} is not over")
    common: dict[str, Any] = {
        "match": match_index, "hand": hand_number, "opener": hand.opener, "end": result.end,
        "winner": result.winner, "points": (result.points[0], result.points[1]),
        "moves": len(steps)}
    if spec.has_boneyard:
        quartets = [0, 0]
        quartet_points = [0, 0]
        for step in steps:
            worth = step.points[step.seat]
            if worth:
                quartets[step.seat] += 1
                quartet_points[step.seat] += worth
        return HandLine(**common, quartets=(quartets[0], quartets[1]),
                        quartet_points=(quartet_points[0], quartet_points[1]),
                        bonus=result.bonus, draws=_per_seat(steps, Draw),
                        passes=_per_seat(steps, Pass))
    pips_scored = spec.luzak_pips  # Luzak without spinners has no pip bonus
    luzaks = [0, 0]
    luzak_pips = [0, 0]
    scored_n: list[tuple[int, int, int]] = []
    for step in steps:
        move = step.move
        gain = list(step.points)
        if isinstance(move, Play) and move.luzak:
            luzaks[step.seat] += 1
            luzak_pips[step.seat] += move.tile.pips
            if pips_scored:
                gain[1 - step.seat] -= move.tile.pips
        for seat in (0, 1):
            if gain[seat]:
                scored_n.append((step.n, seat, gain[seat]))
    return HandLine(**common, luzaks=(luzaks[0], luzaks[1]),
                    luzak_pips=(luzak_pips[0], luzak_pips[1]), scored_n=tuple(scored_n))


def match_line(spec: GameSpec, match_index: int, match: Match) -> MatchLine:
    """A finished ``match`` as its line, with its hands."""
    result = match.result
    if result is None:
        raise ValueError("the match is not over")
    if match.seed is None:
        raise ValueError("the match was not dealt from a seed")
    hands = tuple(hand_line(spec, match_index, h, match) for h in range(1, len(match.hands) + 1))
    return MatchLine(match_index, match.seed, match.first_opener, result.end, result.winner,
                     (result.totals[0], result.totals[1]), hands)


def match_text(spec: GameSpec, match_index: int, match: Match) -> str:
    """A finished match's lines (its hands, then the match line), each ending in ``\\n``."""
    line = match_line(spec, match_index, match)
    objs = [h.to_json(spec.has_boneyard) for h in line.hands]
    objs.append(line.to_json())
    return "".join(dumps(obj) + "\n" for obj in objs)


# -- reading ------------------------------------------------------------------------------------

class _Checker:
    """Field checks for one line; every failure names the file and line."""

    def __init__(self, path: str, line: int, obj: dict[str, Any]) -> None:
        self.path, self.line, self.obj = path, line, obj

    def fail(self, what: str) -> SimFileError:
        return SimFileError(f"{self.path}, line {self.line}: {what}")

    def get(self, key: str) -> Any:
        if key not in self.obj:
            raise self.fail(f"no {key!r}")
        return self.obj[key]

    def int_(self, key: str, lo: int | None = None, hi: int | None = None,
             value: Any = None, nullable: bool = False) -> Any:
        v = self.get(key) if value is None else value
        if v is None and nullable:
            return None
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(f"{key!r} must be a whole number, not {v!r}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise self.fail(f"{key!r} is out of range: {v!r}")
        return v

    def seat(self, key: str, nullable: bool = False) -> int | None:
        return self.int_(key, 0, 1, nullable=nullable)  # type: ignore[no-any-return]

    def pair(self, key: str, lo: int | None = 0) -> tuple[int, int]:
        v = self.get(key)
        if not isinstance(v, list) or len(v) != 2:
            raise self.fail(f"{key!r} must be a list of two whole numbers, not {v!r}")
        return (self.int_(key, lo, value=v[0]), self.int_(key, lo, value=v[1]))

    def choice(self, key: str, choices: Sequence[str]) -> str:
        v = self.get(key)
        if v not in choices:
            raise self.fail(f"{key!r} must be one of {', '.join(choices)}, not {v!r}")
        return str(v)


def _parse_json(path: str, number: int, text: str) -> dict[str, Any]:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SimFileError(f"{path}, line {number}: not JSON ({exc.msg}, "
                           f"column {exc.colno})") from None
    if not isinstance(obj, dict):
        raise SimFileError(f"{path}, line {number}: not a JSON object")
    return obj


def _check_header(path: str, obj: dict[str, Any]) -> dict[str, Any]:
    c = _Checker(path, 1, obj)
    if "format" not in obj:
        raise c.fail(f"not a {FORMAT} file (no header)")
    if obj.get("format") != FORMAT:
        raise c.fail(f"not a {FORMAT} file (format {obj.get('format')!r})")
    if obj.get("format_version") != FORMAT_VERSION:
        raise c.fail(f"format version {obj.get('format_version')!r} is not supported "
                     f"(this dominolab reads version {FORMAT_VERSION})")
    game = c.get("game")
    if game not in GAMES:
        raise c.fail(f"unknown game {game!r} (the games: {', '.join(GAMES)})")
    if not isinstance(c.get("options"), dict):
        raise c.fail("'options' must be a JSON object")
    for key in ("players", "budgets"):
        v = c.get(key)
        if not isinstance(v, list) or len(v) != 2:
            raise c.fail(f"{key!r} must be a list of two")
    c.int_("seed")
    c.int_("matches", 0)
    c.get("rules_version")
    return obj


def _check_hand(path: str, number: int, obj: dict[str, Any], has_boneyard: bool) -> HandLine:
    c = _Checker(path, number, obj)
    common: dict[str, Any] = {
        "match": c.int_("match", 0), "hand": c.int_("hand", 1), "opener": c.seat("opener"),
        "end": c.choice("end", HAND_ENDS), "winner": c.seat("winner", nullable=True),
        "points": c.pair("points", lo=None), "moves": c.int_("moves", 0)}
    if has_boneyard:
        return HandLine(**common, quartets=c.pair("quartets"),
                        quartet_points=c.pair("quartet_points", lo=None),
                        bonus=c.int_("bonus", 0), draws=c.pair("draws"),
                        passes=c.pair("passes"))
    raw = c.get("scored_n")
    if not isinstance(raw, list):
        raise c.fail("'scored_n' must be a list of [n, seat, points]")
    scored: list[tuple[int, int, int]] = []
    for item in raw:
        if (not isinstance(item, list) or len(item) != 3
                or any(isinstance(x, bool) or not isinstance(x, int) for x in item)
                or item[0] < 1 or item[1] not in (0, 1)):
            raise c.fail(f"'scored_n' holds {item!r}, not [n, seat, points]")
        scored.append((item[0], item[1], item[2]))
    return HandLine(**common, luzaks=c.pair("luzaks"), luzak_pips=c.pair("luzak_pips"),
                    scored_n=tuple(scored))


def parse_sim(lines: Iterable[str], path: str = "<simulation>") -> SimFile:
    """Read a simulation file's lines (``path`` names it in messages) and check them: the
    header, then each match's hand lines in order followed by its match line; blank lines
    are skipped. Raises :class:`SimFileError` naming the line at fault."""
    header: dict[str, Any] | None = None
    has_boneyard = False
    seed = 0
    matches: list[MatchLine] = []
    hands: list[HandLine] = []
    first_hand_line = 0
    for number, text in enumerate(lines, start=1):
        if header is None:
            if not text.strip():
                raise SimFileError(f"{path}, line 1: empty; expected the {FORMAT} header")
            header = _check_header(path, _parse_json(path, 1, text))
            has_boneyard = get_game(header["game"]).has_boneyard
            seed = int(header["seed"])
            continue
        if not text.strip():
            continue
        obj = _parse_json(path, number, text)
        c = _Checker(path, number, obj)
        expected = len(matches)
        kind = obj.get("type")
        if kind == "hand":
            h = _check_hand(path, number, obj, has_boneyard)
            if h.match != expected:
                raise c.fail(f"a hand of match {h.match} where match {expected} was due")
            if h.hand != len(hands) + 1:
                raise c.fail(f"hand {h.hand} where hand {len(hands) + 1} was due")
            if not hands:
                first_hand_line = number
            hands.append(h)
        elif kind == "match":
            i = c.int_("match", 0)
            if i != expected:
                raise c.fail(f"match {i} where match {expected} was due")
            k = c.int_("hands", 0)
            if k != len(hands):
                raise c.fail(f"match {i} says {k} hand(s) but {len(hands)} hand line(s) "
                             "precede it")
            s = c.int_("seed")
            if s != seed + i:
                raise c.fail(f"match {i} has seed {s}, not {seed + i} (header seed + {i})")
            m = MatchLine(i, s, c.seat("first_opener"),  # type: ignore[arg-type]
                          c.choice("end", MATCH_ENDS), c.seat("winner", nullable=True),
                          c.pair("totals", lo=None), tuple(hands))
            if hands and hands[0].opener != m.first_opener:
                raise c.fail(f"match {i}: first opener {m.first_opener} but hand 1 was "
                             f"opened by seat {hands[0].opener}")
            matches.append(m)
            hands = []
        else:
            raise c.fail(f"unknown line type {kind!r} (expected 'hand' or 'match')")
    if header is None:
        raise SimFileError(f"{path}, line 1: empty; expected the {FORMAT} header")
    if hands:
        raise SimFileError(f"{path}, line {first_hand_line}: match {len(matches)} is cut "
                           "short: hand lines but no match line (a file holds whole matches "
                           "only)")
    if len(matches) > header["matches"]:
        raise SimFileError(f"{path}: {len(matches)} matches, more than the "
                           f"{header['matches']} of the header")
    return SimFile(path, header, tuple(matches))


def read_sim_file(path: str | os.PathLike[str]) -> SimFile:
    """Read and check a result file (see :func:`parse_sim`), a line at a time. Raises
    :class:`SimFileError` (naming the file and the line) for anything malformed, and
    :class:`OSError` if it cannot be read."""
    name = str(path)
    with open(path, encoding="utf-8") as fh:
        try:
            return parse_sim(fh, name)
        except UnicodeDecodeError as exc:
            raise SimFileError(f"{name}: not UTF-8 text ({exc.reason})") from None


__all__ = ["FORMAT", "FORMAT_VERSION", "HAND_ENDS", "MATCH_ENDS", "HandLine", "MatchLine",
           "SimFile", "SimFileError", "dumps", "hand_line", "match_line", "match_text",
           "parse_sim", "read_sim_file"]
