"""Simulation result files (format ``dominolab-sim``, version 2): the one writer and reader.

The file is JSON Lines (UTF-8, one JSON object a line, ``\\n`` line ends): a header line,
then for each match ``i = 0 .. matches-1`` in order one line per hand and one line for the
match (see docs/lab.md for every field). The data model is :class:`SimFile` (the header and
the whole matches), :class:`MatchLine` (a match line with its hands) and :class:`HandLine`.
A line is built from what happened in its hand or match (:class:`HandFacts`,
:class:`MatchFacts`) by one builder, :func:`line_of_hand` (:func:`line_of_match`); a finished
:class:`~dominolab.core.Match` gives its facts (:func:`match_facts`; :func:`hand_line` and
:func:`match_line` build its lines), and so does the native loop of greedy matches, which
keeps no ``Match``. A line's ``to_json`` gives its object, :func:`dumps` its text,
:func:`facts_text` (:func:`match_text`) a whole match's lines. :func:`iter_sim` reads and
checks a file a match at a time, in constant memory (:class:`SimStream`);
:func:`read_sim_file` reads a whole file through it and :func:`parse_sim` a file's lines;
anything malformed raises :class:`SimFileError` naming the file and the line.

Three kinds of file hold the same content, and every reader here takes each, told apart by
their first bytes: JSON Lines, the same gzip-compressed (``.jsonl.gz``), and Parquet
(:class:`ParquetSimWriter`; needs pyarrow): one row per hand, the pair fields as two
columns (``points_0``, ``points_1``), the match's fields repeated on each of its hands
(``match_end``, ``match_winner``, ``match_totals_0`` ...; a match's seed is the header's
seed plus its index), the header's JSON line in the key-value metadata ``dominolab-sim``.

A game without a boneyard (Luzak, Luzak without spinners) writes the luzak fields
(``luzaks``, ``luzak_pips``, ``scored_n``, ``luzaked``); a game with one (Widelec) writes the
quartet, bonus, draw and pass fields. Every hand of version 2 also records its tiles:
``scored`` (each tile whose laying scored, with the points it scored) and ``left`` (each
seat's tiles when the hand ended). Version 1 files, without the tile fields, are still read
(the fields are then None in the model).

:func:`recover_sim_file` finds how much of an interrupted file is whole (for resuming a run).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, BinaryIO, Final

from dominolab.core import (
    GAMES,
    RULES_VERSION,
    DominoError,
    Draw,
    GameSpec,
    HandResult,
    JsonError,
    Match,
    MatchResult,
    Move,
    OptionError,
    Pass,
    Play,
    Points,
    RecordError,
    Tile,
    get_game,
    read_json,
)
from dominolab.core.errors import shown

FORMAT: Final = "dominolab-sim"
FORMAT_VERSION: Final = 2
#: the versions this module reads (1: without the tile fields)
READ_VERSIONS: Final = (1, 2)
HAND_ENDS: Final = ("tiles", "domino", "block", "target")
MATCH_ENDS: Final = ("target", "at-once", "deals")
#: the longest line read: a hand line is well under 2 KiB, a header under 1 KiB
MAX_LINE_BYTES: Final = 1024 * 1024


class SimFileError(RecordError):
    """A simulation result file that is malformed; the message names the file and line."""


#: json.dumps(obj, separators=(",", ":")), its encoder made once
_ENCODE: Final = json.JSONEncoder(separators=(",", ":")).encode


def dumps(obj: Any) -> str:
    """One line of a simulation file: compact JSON, keys in the order they were built."""
    return _ENCODE(obj)


# -- the data model -----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class HandLine:
    """One ``hand`` line. The Luzak-only and Widelec-only fields are zeros for the other.

    The tile fields (version 2; None when the file does not record them, as in version 1),
    tiles written as two digits, high half first (``Tile.digits``, ``"65"``):
    ``luzaked``, the tiles laid as luzaks, in order (Luzak games; None for Widelec);
    ``scored``, each tile whose laying scored, in order, with the points that laying gave
    (to either seat: a luzak's pips count); ``left``, each seat's tiles when the hand ended,
    in the order of the set (``00``, ``10``, ``11``, ``20`` ...)."""

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
    luzaked: tuple[str, ...] | None = None
    scored: tuple[tuple[str, int], ...] | None = None
    left: tuple[tuple[str, ...], tuple[str, ...]] | None = None

    @property
    def opener_margin(self) -> int:
        """The opener's points in the hand minus the other's."""
        return self.points[self.opener] - self.points[1 - self.opener]

    def to_json(self, has_boneyard: bool) -> dict[str, Any]:
        """The line's object: the common fields, then the luzak fields (no boneyard) or the
        quartet fields (a boneyard), then the tile fields this line records."""
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
            if self.luzaked is not None:
                obj["luzaked"] = list(self.luzaked)
        if self.scored is not None:
            obj["scored"] = [[tile, points] for tile, points in self.scored]
        if self.left is not None:
            obj["left"] = [list(self.left[0]), list(self.left[1])]
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


class HeaderFacts:
    """What a file's header tells, shared by :class:`SimFile` and :class:`SimStream`."""

    __slots__ = ()
    header: dict[str, Any]

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

    def label(self) -> str:
        players = self.header.get("players", ["?", "?"])
        budgets = self.header.get("budgets", [None, None])
        specs = [p if b is None else f"{p}:{b}" for p, b in zip(players, budgets, strict=True)]
        return f"{self.game} {specs[0]} v {specs[1]}"


@dataclass(frozen=True, slots=True)
class SimFile(HeaderFacts):
    """A whole result file: its header and its whole matches, in order."""

    path: str
    header: dict[str, Any]
    matches: tuple[MatchLine, ...]

    @property
    def interrupted(self) -> bool:
        """True when the run stopped early (fewer matches than the header asked for)."""
        return len(self.matches) < self.requested

    @property
    def hand_lines(self) -> tuple[HandLine, ...]:
        return tuple(h for m in self.matches for h in m.hands)


# -- writing ------------------------------------------------------------------------------------

#: one move of a hand as its line needs it: (seat, move, tiles on the table after it, the
#: points it gave to each seat, a Widelec end bonus not included), as a :class:`Step` says
StepFacts = tuple[int, Move, int, Points]


@dataclass(frozen=True, slots=True)
class HandFacts:
    """What a hand's line is made of: who opened it, how it ended (``result``: its end,
    winner, points and bonus), each move (``steps``) and each seat's tiles when it ended
    (``left``). A finished :class:`~dominolab.core.Match` gives them (:func:`hand_facts`),
    and so does the native fast path, which plays greedy hands without a ``Match``; both
    go through the one line builder, :func:`line_of_hand`."""

    opener: int
    result: HandResult
    steps: Sequence[StepFacts]
    left: tuple[Sequence[Tile], Sequence[Tile]]


@dataclass(frozen=True, slots=True)
class MatchFacts:
    """What a match's lines are made of: its seed, the first hand's opener, how it ended,
    and its hands' facts in order."""

    seed: int
    first_opener: int
    result: MatchResult
    hands: Sequence[HandFacts]


def hand_facts(match: Match, hand_number: int) -> HandFacts:
    """The facts of hand ``hand_number`` (1-based) of ``match``, a finished hand played
    through the checked ``Match.apply`` (its steps are kept). ValueError if it is not over."""
    hand = match.hands[hand_number - 1]
    if hand.result is None:
        raise ValueError(f"hand {hand_number} is not over")
    steps = [(step.seat, step.move, step.n, step.points)
             for step in match.steps[hand_number - 1]]
    return HandFacts(hand.opener, hand.result, steps, (hand.hands[0], hand.hands[1]))


def match_facts(match: Match) -> MatchFacts:
    """The facts of a finished ``match`` dealt from a seed. ValueError if it is not over or
    was dealt otherwise."""
    if match.result is None:
        raise ValueError("the match is not over")
    if match.seed is None:
        raise ValueError("the match was not dealt from a seed")
    return MatchFacts(match.seed, match.first_opener, match.result,
                      [hand_facts(match, h) for h in range(1, len(match.hands) + 1)])


_INDEX: Final = attrgetter("index")


def line_of_hand(spec: GameSpec, match_index: int, hand_number: int,
                 facts: HandFacts) -> HandLine:
    """Hand ``hand_number`` (1-based) of match ``match_index``, as its line: the one place
    a hand line's fields are computed from what happened in the hand (one pass over its
    steps: a simulation builds a line for every hand it plays)."""
    result = facts.result
    steps = facts.steps
    points = result.points
    left0, left1 = (tuple([t.digits for t in sorted(tiles, key=_INDEX)]) for tiles in facts.left)
    scored: list[tuple[str, int]] = []  # each laying that scored, and what it gave in all
    if spec.has_boneyard:
        quartets = [0, 0]
        quartet_points = [0, 0]
        draws = [0, 0]
        passes = [0, 0]
        for seat, move, _, (g0, g1) in steps:
            if isinstance(move, Play):
                if g0 or g1:
                    scored.append((move.tile.digits, g0 + g1))
                    worth = g1 if seat else g0
                    if worth:
                        quartets[seat] += 1
                        quartet_points[seat] += worth
            elif isinstance(move, Draw):
                draws[seat] += 1
            elif isinstance(move, Pass):
                passes[seat] += 1
        return HandLine(match_index, hand_number, facts.opener, result.end, result.winner,
                        (points[0], points[1]), len(steps), quartets=(quartets[0], quartets[1]),
                        quartet_points=(quartet_points[0], quartet_points[1]),
                        bonus=result.bonus, draws=(draws[0], draws[1]),
                        passes=(passes[0], passes[1]), scored=tuple(scored),
                        left=(left0, left1))
    pips_scored = spec.luzak_pips  # Luzak without spinners has no pip bonus
    luzaks = [0, 0]
    luzak_pips = [0, 0]
    scored_n: list[tuple[int, int, int]] = []
    luzaked: list[str] = []
    for seat, move, n, (g0, g1) in steps:
        if not isinstance(move, Play):
            continue  # the Luzak games have plays only
        if g0 or g1:
            scored.append((move.tile.digits, g0 + g1))
        if move.luzak:
            tile = move.tile
            luzaks[seat] += 1
            luzak_pips[seat] += tile.pips
            luzaked.append(tile.digits)
            if pips_scored:  # the opponent's pip bonus is not a score of tile n
                if seat:
                    g0 -= tile.pips
                else:
                    g1 -= tile.pips
        if g0:
            scored_n.append((n, 0, g0))
        if g1:
            scored_n.append((n, 1, g1))
    return HandLine(match_index, hand_number, facts.opener, result.end, result.winner,
                    (points[0], points[1]), len(steps), luzaks=(luzaks[0], luzaks[1]),
                    luzak_pips=(luzak_pips[0], luzak_pips[1]), scored_n=tuple(scored_n),
                    luzaked=tuple(luzaked), scored=tuple(scored), left=(left0, left1))


def hand_line(spec: GameSpec, match_index: int, hand_number: int, match: Match) -> HandLine:
    """Hand ``hand_number`` (1-based) of a finished ``match``, as its line."""
    return line_of_hand(spec, match_index, hand_number, hand_facts(match, hand_number))


def line_of_match(spec: GameSpec, match_index: int, facts: MatchFacts) -> MatchLine:
    """Match ``match_index`` as its line, with its hands (:func:`line_of_hand`)."""
    result = facts.result
    hands = tuple(line_of_hand(spec, match_index, h, hand)
                  for h, hand in enumerate(facts.hands, start=1))
    return MatchLine(match_index, facts.seed, facts.first_opener, result.end, result.winner,
                     (result.totals[0], result.totals[1]), hands)


def match_line(spec: GameSpec, match_index: int, match: Match) -> MatchLine:
    """A finished ``match`` as its line, with its hands."""
    return line_of_match(spec, match_index, match_facts(match))


def facts_text(spec: GameSpec, match_index: int, facts: MatchFacts) -> str:
    """A match's lines from its facts (its hands, then the match line), each ending in
    ``\\n``: what a simulation file holds for it."""
    line = line_of_match(spec, match_index, facts)
    objs = [h.to_json(spec.has_boneyard) for h in line.hands]
    objs.append(line.to_json())
    return "".join(dumps(obj) + "\n" for obj in objs)


def match_text(spec: GameSpec, match_index: int, match: Match) -> str:
    """A finished match's lines (its hands, then the match line), each ending in ``\\n``."""
    return facts_text(spec, match_index, match_facts(match))


# -- reading ----------------------------------------------------------------------------------

class _Checker:
    """Field checks for one line (or Parquet row); every failure names ``where`` (the file
    and the line)."""

    def __init__(self, where: str, obj: dict[str, Any]) -> None:
        self.where, self.obj = where, obj

    def fail(self, what: str) -> SimFileError:
        return SimFileError(f"{self.where}: {what}")

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
            raise self.fail(f"{key!r} must be a whole number, not {shown(v)}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise self.fail(f"{key!r} is out of range: {shown(v)}")
        return v

    def seat(self, key: str, nullable: bool = False) -> int | None:
        return self.int_(key, 0, 1, nullable=nullable)  # type: ignore[no-any-return]

    def pair(self, key: str, lo: int | None = 0) -> tuple[int, int]:
        v = self.get(key)
        if not isinstance(v, list) or len(v) != 2:
            raise self.fail(f"{key!r} must be a list of two whole numbers, not {shown(v)}")
        return (self.int_(key, lo, value=v[0]), self.int_(key, lo, value=v[1]))

    def choice(self, key: str, choices: Sequence[str]) -> str:
        v = self.get(key)
        if v not in choices:
            raise self.fail(f"{key!r} must be one of {', '.join(choices)}, not {shown(v)}")
        return str(v)


def _parse_json(where: str, text: str | bytes, what: str = f"a {FORMAT} line"
                ) -> dict[str, Any]:
    """One line's object, read by the one bounded reader (:func:`~dominolab.core.read_json`:
    bytes are UTF-8; a number too long, NaN, nesting too deep are refused)."""
    try:
        obj = read_json(text, what, max_bytes=MAX_LINE_BYTES)
    except JsonError as exc:
        raise SimFileError(f"{where}: {exc}") from None
    if not isinstance(obj, dict):
        raise SimFileError(f"{where}: not a JSON object but {_json_kind(obj)}")
    return obj


def _json_kind(value: Any) -> str:
    """What a JSON value is, in a word or two, for messages."""
    kinds = {list: "a list", str: "a text", bool: "true or false", int: "a number",
             float: "a number", type(None): "null"}
    return kinds.get(type(value), type(value).__name__)


def _check_header(where: str, obj: dict[str, Any]) -> dict[str, Any]:
    c = _Checker(where, obj)
    if "format" not in obj:
        raise c.fail(f"not a {FORMAT} file (no header)")
    if obj.get("format") != FORMAT:
        raise c.fail(f"not a {FORMAT} file (format {shown(obj.get('format'))})")
    version = obj.get("format_version")
    if isinstance(version, bool) or version not in READ_VERSIONS:
        raise c.fail(f"format version {shown(version)} is not supported (this dominolab reads "
                     f"versions {', '.join(map(str, READ_VERSIONS))})")
    rules = obj.get("rules_version")
    if isinstance(rules, bool) or rules != RULES_VERSION:
        raise c.fail(f"made under rules version {shown(rules)}; this dominolab plays version "
                     f"{RULES_VERSION} (its figures would not be comparable)")
    game = c.get("game")
    if game not in GAMES:
        raise c.fail(f"unknown game {shown(game)} (the games: {', '.join(GAMES)})")
    if not isinstance(c.get("options"), dict):
        raise c.fail("'options' must be a JSON object")
    try:
        GAMES[game].options_class.from_dict(obj["options"])
    except OptionError as exc:
        raise c.fail(f"'options': {exc}") from None
    for key in ("players", "budgets"):
        v = c.get(key)
        if not isinstance(v, list) or len(v) != 2:
            raise c.fail(f"{key!r} must be a list of two")
    c.int_("seed")
    c.int_("matches", 0)
    return obj


def _is_tile(v: Any) -> bool:
    return (isinstance(v, str) and len(v) == 2 and v.isascii() and v.isdigit()
            and "0" <= v[1] <= v[0] <= "6")


def _tile_fields(c: _Checker, luzaks: bool) -> dict[str, Any]:
    """The optional tile fields of a hand line (version 2), checked."""
    out: dict[str, Any] = {}
    if luzaks and "luzaked" in c.obj:
        raw = c.obj["luzaked"]
        if not isinstance(raw, list) or not all(_is_tile(t) for t in raw):
            raise c.fail(f"'luzaked' must be a list of tiles like \"65\", not {shown(raw)}")
        out["luzaked"] = tuple(raw)
    if "scored" in c.obj:
        raw = c.obj["scored"]
        if not isinstance(raw, list):
            raise c.fail("'scored' must be a list of [tile, points]")
        for item in raw:
            if (not isinstance(item, list) or len(item) != 2 or not _is_tile(item[0])
                    or isinstance(item[1], bool) or not isinstance(item[1], int)):
                raise c.fail(f"'scored' holds {shown(item)}, not [tile, points]")
        out["scored"] = tuple((item[0], item[1]) for item in raw)
    if "left" in c.obj:
        raw = c.obj["left"]
        if (not isinstance(raw, list) or len(raw) != 2
                or not all(isinstance(h, list) and all(_is_tile(t) for t in h) for h in raw)):
            raise c.fail(f"'left' must be two lists of tiles like \"65\", not {shown(raw)}")
        out["left"] = (tuple(raw[0]), tuple(raw[1]))
    return out


def _check_hand(where: str, obj: dict[str, Any], has_boneyard: bool) -> HandLine:
    c = _Checker(where, obj)
    common: dict[str, Any] = {
        "match": c.int_("match", 0), "hand": c.int_("hand", 1), "opener": c.seat("opener"),
        "end": c.choice("end", HAND_ENDS), "winner": c.seat("winner", nullable=True),
        "points": c.pair("points", lo=None), "moves": c.int_("moves", 0),
        **_tile_fields(c, not has_boneyard)}
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
            raise c.fail(f"'scored_n' holds {shown(item)}, not [n, seat, points]")
        scored.append((item[0], item[1], item[2]))
    return HandLine(**common, luzaks=c.pair("luzaks"), luzak_pips=c.pair("luzak_pips"),
                    scored_n=tuple(scored))


class _Reader:
    """The one checker of a file's structure, fed a line (or a Parquet row) at a time:
    :meth:`line` checks one JSON line, :meth:`take` one line's object, and each returns the
    match it completes, if any; :meth:`finish` checks the end. Keeps only the hands of the
    match in progress. ``unit`` names a line in messages (``line``, or ``row`` in Parquet)."""

    def __init__(self, path: str, unit: str = "line") -> None:
        self.path = path
        self.unit = unit
        self.header: dict[str, Any] | None = None
        self.has_boneyard = False
        self.seed = 0
        self.complete = 0
        self.hands: list[HandLine] = []
        self.first_hand_line = 0

    def where(self, number: int) -> str:
        return f"{self.path}, {self.unit} {number}"

    def start(self, where: str, obj: dict[str, Any]) -> None:
        """Check and keep the header (found at ``where``)."""
        self.header = _check_header(where, obj)
        self.has_boneyard = get_game(self.header["game"]).has_boneyard
        self.seed = int(self.header["seed"])

    def line(self, number: int, text: str | bytes) -> MatchLine | None:
        """Check line ``number`` (its text, or its bytes as read: UTF-8)."""
        if self.header is None:
            if not text.strip():
                raise SimFileError(f"{self.where(1)}: empty; expected the {FORMAT} header")
            self.start(self.where(1), _parse_json(self.where(1), text))
            return None
        if not text.strip():
            return None
        return self.take(number, _parse_json(self.where(number), text))

    def take(self, number: int, obj: dict[str, Any]) -> MatchLine | None:
        assert self.header is not None
        where = self.where(number)
        c = _Checker(where, obj)
        expected = self.complete
        hands = self.hands
        kind = obj.get("type")
        if kind == "hand":
            h = _check_hand(where, obj, self.has_boneyard)
            if h.match != expected:
                raise c.fail(f"a hand of match {h.match} where match {expected} was due")
            if h.hand != len(hands) + 1:
                raise c.fail(f"hand {h.hand} where hand {len(hands) + 1} was due")
            if not hands:
                self.first_hand_line = number
            hands.append(h)
            return None
        if kind != "match":
            raise c.fail(f"unknown line type {shown(kind)} (expected 'hand' or 'match')")
        i = c.int_("match", 0)
        if i != expected:
            raise c.fail(f"match {i} where match {expected} was due")
        k = c.int_("hands", 0)
        if k != len(hands):
            raise c.fail(f"match {i} says {k} hand(s) but {len(hands)} hand line(s) "
                         "precede it")
        s = c.int_("seed")
        if s != self.seed + i:
            raise c.fail(f"match {i} has seed {s}, not {self.seed + i} (header seed + {i})")
        m = MatchLine(i, s, c.seat("first_opener"),  # type: ignore[arg-type]
                      c.choice("end", MATCH_ENDS), c.seat("winner", nullable=True),
                      c.pair("totals", lo=None), tuple(hands))
        if hands and hands[0].opener != m.first_opener:
            raise c.fail(f"match {i}: first opener {m.first_opener} but hand 1 was "
                         f"opened by seat {hands[0].opener}")
        if i >= self.header["matches"]:
            raise c.fail(f"match {i}, more than the {self.header['matches']} matches of the "
                         "header")
        self.complete += 1
        self.hands = []
        return m

    def finish(self) -> None:
        """The end of the file: a match cut short (hands without their match line) is an
        error."""
        if self.hands:
            raise SimFileError(f"{self.where(self.first_hand_line)}: match {self.complete} is "
                               f"cut short: hand {self.unit}s but no match {self.unit} (a "
                               "file holds whole matches only)")


class SimStream(HeaderFacts):
    """A result file read a match at a time (:func:`iter_sim`): its ``header`` (checked
    when the file is opened), then, iterated, each whole match in order as a
    :class:`MatchLine` with its hands, every line checked as :func:`read_sim_file` checks
    it. Only the match being read is held, so memory stays flat whatever the file's size.
    ``kind``: ``"jsonl"``, ``"jsonl.gz"`` or ``"parquet"``; ``read``: the matches yielded
    so far. A context manager; the file is closed at the end of the matches, on an error,
    or by :meth:`close`."""

    __slots__ = ("_close", "_matches", "done", "header", "kind", "path", "read")

    def __init__(self, path: str, kind: str, header: dict[str, Any],
                 matches: Iterator[MatchLine], close: Callable[[], None]) -> None:
        self.path = path
        self.kind = kind
        self.header = header
        self.read = 0
        self.done = False
        self._matches = matches
        self._close = close

    def __iter__(self) -> Iterator[MatchLine]:
        return self

    def __next__(self) -> MatchLine:
        try:
            m = next(self._matches)
        except StopIteration:
            self.done = True
            self.close()
            raise
        except BaseException:
            self.close()
            raise
        self.read += 1
        return m

    @property
    def interrupted(self) -> bool:
        """Once every match is read: True when the run stopped early (fewer matches than
        the header asked for)."""
        if not self.done:
            raise ValueError("interrupted is known once every match is read")
        return self.read < self.requested

    def close(self) -> None:
        close, self._close = self._close, _nothing
        close()

    def __enter__(self) -> SimStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _nothing() -> None:
    pass


@contextmanager
def _decoding(path: str) -> Iterator[None]:
    """Turns the errors of reading a gzip file into :class:`SimFileError` (each line's
    UTF-8 is checked by the reader, which names the line)."""
    try:
        yield
    except EOFError:
        raise SimFileError(f"{path}: the gzip data ends early (a file cut short)") from None
    except (gzip.BadGzipFile, zlib.error) as exc:
        raise SimFileError(f"{path}: damaged gzip data ({exc})") from None


def _line_matches(reader: _Reader, lines: Iterator[tuple[int, str | bytes]]
                  ) -> Iterator[MatchLine]:
    with _decoding(reader.path):
        for number, text in lines:
            m = reader.line(number, text)
            if m is not None:
                yield m
    reader.finish()


def _stream_lines(path: str, kind: str, lines: Iterable[str | bytes],
                  close: Callable[[], None] = _nothing) -> SimStream:
    """A :class:`SimStream` over a file's lines; its header is read and checked now."""
    reader = _Reader(path)
    numbered = enumerate(lines, start=1)
    try:
        with _decoding(path):
            first = next(numbered, None)
        if first is None:
            raise SimFileError(f"{reader.where(1)}: empty; expected the {FORMAT} header")
        reader.line(*first)
    except BaseException:
        close()
        raise
    assert reader.header is not None
    return SimStream(path, kind, reader.header, _line_matches(reader, numbered), close)


#: the first bytes of a gzip file and of a Parquet file
GZIP_MAGIC: Final = b"\x1f\x8b"
PARQUET_MAGIC: Final = b"PAR1"


def sim_kind(path: str | os.PathLike[str]) -> str:
    """What a result file is, by its first bytes: ``"parquet"``, ``"jsonl.gz"`` (gzip)
    or ``"jsonl"``."""
    with open(path, "rb") as fh:
        start = fh.read(4)
    if start == PARQUET_MAGIC:
        return "parquet"
    if start.startswith(GZIP_MAGIC):
        return "jsonl.gz"
    return "jsonl"


def iter_sim(path: str | os.PathLike[str]) -> SimStream:
    """Open a result file to read it a match at a time, in constant memory: JSON Lines,
    gzip-compressed JSON Lines (``.jsonl.gz``) or Parquet (told apart by their first
    bytes). The header is read and checked now (``stream.header``); iterating gives each
    whole match as a :class:`MatchLine`, checked as it is read. Raises
    :class:`SimFileError` (naming the file and the line or row) for anything malformed,
    when the header is read or when the line at fault is reached, and :class:`OSError` if
    the file cannot be read. Use it in a ``with`` block, or read it to the end::

        with iter_sim("sim-luzak-1.jsonl") as stream:
            game = stream.game
            for match in stream:
                ...
    """
    name = str(path)
    kind = sim_kind(path)
    if kind == "parquet":
        return _parquet_stream(name)
    # read as bytes: each line's UTF-8 is checked by the reader, which names the line
    if kind == "jsonl.gz":
        fh: io.BufferedIOBase = gzip.open(path, "rb")  # noqa: SIM115 -- as below
    else:
        fh = open(path, "rb")  # noqa: SIM115 -- closed by the stream
    return _stream_lines(name, kind, fh, fh.close)


def parse_sim(lines: Iterable[str], path: str = "<simulation>") -> SimFile:
    """Read a simulation file's lines (``path`` names it in messages) and check them: the
    header, then each match's hand lines in order followed by its match line; blank lines
    are skipped. Raises :class:`SimFileError` naming the line at fault."""
    stream = _stream_lines(path, "jsonl", lines)
    return SimFile(path, stream.header, tuple(stream))


def read_sim_file(path: str | os.PathLike[str]) -> SimFile:
    """Read and check a whole result file (any kind :func:`iter_sim` reads) into memory.
    Raises :class:`SimFileError` (naming the file and the line) for anything malformed,
    and :class:`OSError` if it cannot be read."""
    with iter_sim(path) as stream:
        return SimFile(stream.path, stream.header, tuple(stream))


# -- Parquet ------------------------------------------------------------------------------------

#: the key of a Parquet file's key-value metadata that holds the header, as its JSON line
PARQUET_HEADER_KEY: Final = FORMAT
#: hands buffered before they are written as one row group (bounds the writer's memory)
ROW_GROUP_HANDS: Final = 16_384
#: the pair fields (``[a, b]`` in JSON) written as two columns, ``NAME_0`` and ``NAME_1``
_PAIRS_COMMON: Final = ("points",)
_PAIRS_LUZAK: Final = ("luzaks", "luzak_pips")
_PAIRS_BONEYARD: Final = ("quartets", "quartet_points", "draws", "passes")


class PyarrowMissing(DominoError, ImportError):
    """Parquet files need pyarrow, which is not installed."""


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise PyarrowMissing("Parquet files need pyarrow: pip install 'dominolab[lab]' (or "
                             "pip install pyarrow)") from None
    return pyarrow


def require_pyarrow() -> None:
    """Raise :class:`PyarrowMissing` unless pyarrow can be imported."""
    _pyarrow()


def _parquet_schema(pa: Any, has_boneyard: bool, header: dict[str, Any]) -> Any:
    i8, i32, text = pa.int8(), pa.int32(), pa.string()
    tiles = pa.list_(text)

    def pairs(names: Sequence[str]) -> list[tuple[str, Any]]:
        return [(f"{n}_{s}", i32) for n in names for s in (0, 1)]

    fields: list[tuple[str, Any]] = [
        ("match", i32), ("hand", i32), ("opener", i8), ("end", text), ("winner", i8),
        *pairs(_PAIRS_COMMON), ("moves", i32)]
    if has_boneyard:
        fields += [*pairs(("quartets", "quartet_points")), ("bonus", i32),
                   *pairs(("draws", "passes"))]
    else:
        fields += [*pairs(_PAIRS_LUZAK),
                   ("scored_n", pa.list_(pa.struct([("n", i32), ("seat", i8),
                                                    ("points", i32)]))),
                   ("luzaked", tiles)]
    fields += [("scored", pa.list_(pa.struct([("tile", text), ("points", i32)]))),
               ("left_0", tiles), ("left_1", tiles),
               ("match_first_opener", i8), ("match_end", text), ("match_winner", i8),
               ("match_totals_0", i32), ("match_totals_1", i32), ("match_hands", i32)]
    return pa.schema(fields, metadata={PARQUET_HEADER_KEY: dumps(header)})


class ParquetSimWriter:
    """Writes a result file as Parquet, one row per hand (see docs/lab.md), in row groups
    of :data:`ROW_GROUP_HANDS` hands as the matches come, so its memory stays flat.

    It takes what :func:`~dominolab.lab.simulate.run_simulation` writes to a text stream
    (:meth:`write`: the header line, then whole matches' lines; each line is checked as
    :func:`read_sim_file` checks it), or :meth:`write_header` and :meth:`write_match`.
    :meth:`close` (or the end of a ``with`` block, also on Ctrl-C) writes the last rows
    and the file's footer: a file is valid only once closed. ``exclusive``: fail with
    :class:`FileExistsError` if the file exists. Raises :class:`PyarrowMissing`."""

    def __init__(self, path: str | os.PathLike[str], exclusive: bool = False,
                 row_group_hands: int = ROW_GROUP_HANDS) -> None:
        self._pa = _pyarrow()
        self.path = str(path)
        self.row_group_hands = row_group_hands
        self._fh: BinaryIO = open(path, "xb" if exclusive else "wb")  # noqa: SIM115
        self._writer: Any = None
        self._reader = _Reader(self.path)
        self._number = 0
        self._columns: dict[str, list[Any]] = {}
        self._rows = 0

    def write(self, text: str, /) -> int:
        """Take whole lines of a JSON Lines result file."""
        for line in text.splitlines():
            self._number += 1
            if self._reader.header is None:
                self._reader.line(self._number, line)
                assert self._reader.header is not None
                self.write_header(self._reader.header)
                continue
            m = self._reader.line(self._number, line)
            if m is not None:
                self.write_match(m)
        return len(text)

    def flush(self) -> None:
        """Nothing: rows are written a row group at a time (the file is whole once
        closed)."""

    def write_header(self, header: dict[str, Any]) -> None:
        if self._writer is not None:
            raise ValueError("the header is written already")
        pa = self._pa
        self._has_boneyard = get_game(header["game"]).has_boneyard
        schema = _parquet_schema(pa, self._has_boneyard, header)
        self._writer = pa.parquet.ParquetWriter(self._fh, schema, compression="zstd")
        self._columns = {name: [] for name in schema.names}

    def write_match(self, m: MatchLine) -> None:
        if self._writer is None:
            raise ValueError("write the header first")
        if not m.hands:
            raise ValueError(f"match {m.match} has no hands (a Parquet file has a row per "
                             "hand)")
        cols = self._columns
        pairs = _PAIRS_COMMON + (_PAIRS_BONEYARD if self._has_boneyard else _PAIRS_LUZAK)
        for h in m.hands:
            for name in ("match", "hand", "opener", "end", "winner", "moves"):
                cols[name].append(getattr(h, name))
            for name in pairs:
                a, b = getattr(h, name)
                cols[f"{name}_0"].append(a)
                cols[f"{name}_1"].append(b)
            if self._has_boneyard:
                cols["bonus"].append(h.bonus)
            else:
                cols["scored_n"].append([{"n": n, "seat": s, "points": p}
                                         for n, s, p in h.scored_n])
                cols["luzaked"].append(None if h.luzaked is None else list(h.luzaked))
            cols["scored"].append(None if h.scored is None else
                                  [{"tile": t, "points": p} for t, p in h.scored])
            cols["left_0"].append(None if h.left is None else list(h.left[0]))
            cols["left_1"].append(None if h.left is None else list(h.left[1]))
            cols["match_first_opener"].append(m.first_opener)
            cols["match_end"].append(m.end)
            cols["match_winner"].append(m.winner)
            cols["match_totals_0"].append(m.totals[0])
            cols["match_totals_1"].append(m.totals[1])
            cols["match_hands"].append(len(m.hands))
        self._rows += len(m.hands)
        if self._rows >= self.row_group_hands:
            self._write_rows()

    def _write_rows(self) -> None:
        if self._rows:
            schema = self._writer.schema
            batch = self._pa.RecordBatch.from_pydict(self._columns, schema=schema)
            self._writer.write_batch(batch)
            self._columns = {name: [] for name in schema.names}
            self._rows = 0

    def close(self) -> None:
        """Write the last rows and the footer, and close the file."""
        if self._fh.closed:
            return
        try:
            if self._writer is not None:
                self._write_rows()
                self._writer.close()
        finally:
            self._fh.close()

    def __enter__(self) -> ParquetSimWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _hand_object(row: dict[str, Any], has_boneyard: bool) -> dict[str, Any]:
    """A Parquet row's hand, as the object of its JSON line."""
    obj = {"type": "hand", "match": row["match"], "hand": row["hand"],
           "opener": row["opener"], "end": row["end"], "winner": row["winner"],
           "moves": row["moves"]}
    for name in _PAIRS_COMMON + (_PAIRS_BONEYARD if has_boneyard else _PAIRS_LUZAK):
        obj[name] = [row[f"{name}_0"], row[f"{name}_1"]]
    if has_boneyard:
        obj["bonus"] = row["bonus"]
    else:
        scored_n = row["scored_n"]
        obj["scored_n"] = scored_n if scored_n is None else [
            [x["n"], x["seat"], x["points"]] if isinstance(x, dict) else x for x in scored_n]
        if row.get("luzaked") is not None:
            obj["luzaked"] = row["luzaked"]
    scored = row.get("scored")
    if scored is not None:
        obj["scored"] = [[x["tile"], x["points"]] if isinstance(x, dict) else x
                         for x in scored]
    if row.get("left_0") is not None and row.get("left_1") is not None:
        obj["left"] = [row["left_0"], row["left_1"]]
    return obj


def _match_object(row: dict[str, Any], seed: int) -> dict[str, Any]:
    """The match of a Parquet row (its last hand's), as the object of its JSON line."""
    match = row["match"]
    return {"type": "match", "match": match,
            "seed": seed + match if isinstance(match, int) else None,
            "first_opener": row["match_first_opener"], "end": row["match_end"],
            "winner": row["match_winner"],
            "totals": [row["match_totals_0"], row["match_totals_1"]],
            "hands": row["match_hands"]}


def _parquet_batches(path: str, parquet: Any) -> Iterator[Any]:
    batches = parquet.iter_batches(batch_size=4096)
    while True:
        try:
            batch = next(batches, None)
        except (_pyarrow().ArrowException, OSError) as exc:  # pyarrow raises OSError too
            raise SimFileError(f"{path}: damaged Parquet data ({_arrow_text(exc)})") from None
        if batch is None:
            return
        yield batch


def _arrow_text(exc: BaseException) -> str:
    """pyarrow's message on one line, cut short (some end in a newline or hold several)."""
    text = " ".join(str(exc).split()).rstrip(":") or type(exc).__name__
    text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)
    return text if len(text) <= 200 else text[:197] + "..."


def _parquet_matches(reader: _Reader, parquet: Any) -> Iterator[MatchLine]:
    number = 0
    for batch in _parquet_batches(reader.path, parquet):
        for row in batch.to_pylist():
            number += 1
            reader.take(number, _hand_object(row, reader.has_boneyard))
            if row["hand"] == row["match_hands"]:
                m = reader.take(number, _match_object(row, reader.seed))
                assert m is not None
                yield m
    reader.finish()


def _parquet_stream(path: str) -> SimStream:
    pa = _pyarrow()
    try:
        parquet = pa.parquet.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:  # a damaged footer: OSError from pyarrow
        if isinstance(exc, FileNotFoundError | PermissionError):
            raise
        raise SimFileError(f"{path}: not a whole Parquet file ({_arrow_text(exc)})") from None
    try:
        where = f"{path}, key-value metadata {PARQUET_HEADER_KEY!r}"
        raw = (parquet.schema_arrow.metadata or {}).get(PARQUET_HEADER_KEY.encode())
        if raw is None:
            raise SimFileError(f"{where}: missing (not a {FORMAT} file)")
        reader = _Reader(path, unit="row")
        reader.start(where, _parse_json(where, raw, f"a {FORMAT} header"))
        expected = _parquet_schema(pa, reader.has_boneyard, {}).names
        missing = [n for n in expected if n not in parquet.schema_arrow.names]
        if missing:
            raise SimFileError(f"{path}: no column {', '.join(map(repr, missing))} (a "
                               f"{reader.header and reader.header['game']} file has them)")
    except BaseException:
        parquet.close()
        raise
    assert reader.header is not None
    return SimStream(path, "parquet", reader.header, _parquet_matches(reader, parquet),
                     parquet.close)


# -- recovering an interrupted file ---------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Recovered:
    """What an interrupted file holds: its ``header``, ``matches`` whole matches
    (``0 .. matches-1``) in its first ``whole_bytes`` bytes, and ``torn_bytes`` after them
    that belong to no whole match (a match cut short, a line cut mid-write)."""

    header: dict[str, Any]
    matches: int
    whole_bytes: int
    torn_bytes: int


def recover_sim_file(path: str | os.PathLike[str]) -> Recovered:
    """Check a result file that a run may have left unfinished (stopped by Ctrl-C, or killed
    mid-write) and say how much of it is whole, reading it a line at a time.

    The run writes whole matches in order, each with one write, so only the end of the file
    can be torn: hand lines of the next match without its match line, and perhaps a last
    line without its ``\n``. Every line that ends in ``\n`` must be a valid line in its
    place; anything else raises :class:`SimFileError` (the file is not one a run left)."""
    name = str(path)
    reader = _Reader(name)
    whole = 0
    offset = 0
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.endswith(b"\n"):
                break  # the last line, cut mid-write
            offset += len(raw)
            if reader.line(number, raw) is not None or number == 1:
                whole = offset
        size = fh.seek(0, os.SEEK_END)
    if reader.header is None:
        raise SimFileError(f"{name}, line 1: no whole {FORMAT} header")
    return Recovered(reader.header, reader.complete, whole, size - whole)


__all__ = ["FORMAT", "FORMAT_VERSION", "GZIP_MAGIC", "HAND_ENDS", "MATCH_ENDS",
           "PARQUET_HEADER_KEY", "PARQUET_MAGIC", "READ_VERSIONS", "ROW_GROUP_HANDS",
           "HandFacts", "HandLine", "MatchFacts", "MatchLine", "ParquetSimWriter",
           "PyarrowMissing", "Recovered", "SimFile", "SimFileError", "SimStream", "StepFacts",
           "dumps", "facts_text", "hand_facts", "hand_line", "iter_sim", "line_of_hand",
           "line_of_match", "match_facts", "match_line", "match_text", "parse_sim",
           "read_sim_file", "recover_sim_file", "require_pyarrow", "sim_kind"]
