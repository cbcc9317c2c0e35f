"""Scripted positions: lay moves on an empty table without hands (RULES.md section 6).

Seats alternate from ``first_seat``. A luzak must be marked (``11@2e*``) and must fit no
open port, as in the worked examples; every tile may be laid once.

:func:`scripted_position` goes one step further, for teaching: a scripted table plus the
tiles one seat holds give that seat's legal moves (a luzak only without a normal play, a
draw only without a playable tile), what each of them would do, and why a held tile
cannot be laid.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from dominolab.core.errors import IllegalMoveError, InvalidMoveError, shown
from dominolab.core.games import GameSpec, get_game
from dominolab.core.hand import NO_POINTS, Step
from dominolab.core.moves import DRAW, KEEP, PASS, Draw, Move, Play, Port, resolve_move
from dominolab.core.options import Options
from dominolab.core.quartets import best_quartets, quartet_text
from dominolab.core.table import LineTable, TreeTable
from dominolab.core.tiles import TILES, Tile, parse_tile


def split_moves(text: str) -> list[str]:
    """Split a move list written with spaces, commas or semicolons."""
    return [t for t in text.replace(",", " ").replace(";", " ").split() if t]


def score_moves(game: str | GameSpec, moves: str | Iterable[str],
                options: Options | None = None, first_seat: int = 0) -> list[Step]:
    """Lay ``moves`` (a text or a list of move texts) and return a Step for each tile:
    N, the table count (Luzak games) or the end tiles and quartet (Widelec), the points."""
    spec = get_game(game) if isinstance(game, str) else game
    opts: Any = options if options is not None else spec.options_class()
    texts = split_moves(moves) if isinstance(moves, str) else list(moves)
    if not texts:
        raise InvalidMoveError("no moves given")
    table = spec.new_table(opts)
    used: set[object] = set()
    steps: list[Step] = []
    seat = first_seat
    for text in texts:
        unused = [t for t in TILES if t not in used]
        legal: list[Move] = list(table.normal_plays(unused))
        if spec.luzaks and table.n:
            legal.extend(table.luzak_plays([t for t in unused if not table.fits(t)]))
        position = (f"{spec.name} scripted, tile {table.n + 1}; table: "
                    + (" ".join(map(str, table.placements)) or "(empty)"))
        try:
            move = resolve_move(text, legal, position)
        except IllegalMoveError:
            _explain(text, table, used, spec.luzaks, position)
            raise
        assert isinstance(move, Play)
        used.add(move.tile)
        steps.append(_lay(spec, table, move, seat, opts))
        seat = 1 - seat
    return steps


def _lay(spec: GameSpec, table: TreeTable | LineTable, move: Play, seat: int,
         opts: Any) -> Step:
    """Lay ``move`` on ``table`` (unchecked) for ``seat`` and return its Step."""
    points = spec.hand_class.score_placement(table, move, seat, opts)
    if isinstance(table, LineTable) and spec.scoring == "quartets":
        ends = quartet = None
        if table.n >= 2:
            left, right = table.end_tiles
            assert left is not None and right is not None
            ends = (left, right)
            quartet = quartet_text(left, right, opts.edge_double) if any(points) else None
        return Step(seat, move, table.n, points, ends=ends, quartet=quartet)
    return Step(seat, move, table.n, points, count=table.count)


def count_parts(table: TreeTable | LineTable) -> tuple[tuple[int, ...], ...]:
    """The terms the table count is the sum of (RULES.md sections 2 and 3), in tile order
    (a line: the left end, then the right end): ``(v,)`` for a free end showing ``v``,
    ``(a, b)`` for a tile counting both halves (a double with a free long side, a luzak
    across a line's end). L3's ``1 + [0+0] + [6+6] + 2`` is ``((1,), (0, 0), (6, 6), (2,))``.
    For explaining a count; their sum is ``table.count``."""
    if table.n == 0:
        return ()
    first = table.placements[0].tile
    if isinstance(table, LineTable):
        if table.n == 1:
            return ((first.hi, first.lo),) if first.is_double else ((first.hi,), (first.lo,))
        parts: list[tuple[int, ...]] = []
        for e in (0, 1):
            tile = table.end_tiles[e]
            assert tile is not None
            parts.append((tile.hi, tile.lo) if table.end_wide[e] else (table.end_values[e][0],))
        return tuple(parts)
    free = table.port_value
    out: list[tuple[int, ...]] = []
    for k, mv in enumerate(table.placements, start=1):
        tile = mv.tile
        if tile.is_double:
            if table.long_free[k] > 0:
                out.append((tile.hi, tile.hi))
            continue
        for side in (("w", "e") if k == 1 else ("e",)):
            value = free.get(Port.tree(k, side).index)
            if value is not None:
                out.append((value,))
    return tuple(out)


_INDEX = attrgetter("index")


def _tiles(tiles: str | Iterable[Tile]) -> tuple[Tile, ...]:
    return tuple(map(parse_tile, split_moves(tiles))) if isinstance(tiles, str) else tuple(tiles)


@dataclass(frozen=True, slots=True)
class Blocked:
    """Why a held tile has no legal move in a :class:`Position`.

    ``reason``: ``"no-match"`` (no free end shows either half; in a game with a boneyard
    the seat may have to draw), ``"luzak-not-allowed"`` (no end matches it and it may not be
    a luzak, because ``matching`` tiles of the hand match), or ``"drawn-first"`` (a tile was
    just drawn that fits: only it may be laid). ``values``: what the free ends show,
    distinct and ascending."""

    tile: Tile
    reason: str
    values: tuple[int, ...]
    matching: tuple[Tile, ...] = ()


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one legal move of a :class:`Position` would do.

    ``step``: the move's Step, as a hand would give it (a draw names the tile ``drew``).
    ``parts``: the count's terms after it (:func:`count_parts`; count games, else empty).
    ``ends_hand``: it would end the hand (the seat's last tile in a game that ends on
    going out; the hand's last tile in a game of a fixed number of tiles). ``bonus`` and
    ``bonus_quartets``: the end-of-hand bonus its seat would score from the opponent's
    tiles, when those are given (RULES.md section 4). ``then``: after a draw of a tile that
    fits, the position in which that tile must (or may) be laid."""

    move: Move
    step: Step
    parts: tuple[tuple[int, ...], ...] = ()
    ends_hand: bool = False
    bonus: int = 0
    bonus_quartets: tuple[tuple[Tile, Tile], ...] = ()
    then: Position | None = None


@dataclass(frozen=True, slots=True)
class Position:
    """A scripted table and the tiles the seat to move holds (see :func:`scripted_position`).
    ``legal``: that seat's legal moves, in the order a hand gives them."""

    spec: GameSpec
    options: Options
    steps: tuple[Step, ...]
    seat: int
    hand: tuple[Tile, ...]
    opponent: tuple[Tile, ...]
    boneyard: tuple[Tile, ...]
    pending: Tile | None
    legal: tuple[Move, ...]

    @property
    def placements(self) -> tuple[Play, ...]:
        return tuple(s.move for s in self.steps if isinstance(s.move, Play))

    def table(self) -> TreeTable | LineTable:
        """A new table with the scripted tiles laid."""
        table = self.spec.new_table(self.options)
        for mv in self.placements:
            table.place(mv)
        return table

    @property
    def totals(self) -> tuple[int, int]:
        """The points the scripted steps gave each seat."""
        return (sum(s.points[0] for s in self.steps), sum(s.points[1] for s in self.steps))

    def outcome(self, move: Move) -> Outcome:
        """What ``move`` (one of :attr:`legal`) would do. Raises IllegalMoveError otherwise."""
        if move not in self.legal:
            raise IllegalMoveError(f"{move} is not legal here (legal: "
                                   f"{', '.join(map(str, self.legal))})")
        table = self.table()
        spec = self.spec
        if isinstance(move, Draw):
            drew = self.boneyard[0]
            then = None
            if table.fits(drew):
                then = _position(spec, self.options, self.steps, self.seat,
                                 (*self.hand, drew), self.opponent, self.boneyard[1:], drew)
            return Outcome(move, Step(self.seat, move, table.n, NO_POINTS, drew=drew),
                           then=then)
        if not isinstance(move, Play):
            return Outcome(move, Step(self.seat, move, table.n, NO_POINTS))
        step = _lay(spec, table, move, self.seat, self.options)
        left = [t for t in self.hand if t is not move.tile]
        ends_hand = not left if spec.hand_end == "out" else table.n == spec.tiles_per_hand
        bonus = 0
        pairs: tuple[tuple[Tile, Tile], ...] = ()
        if ends_hand and spec.out_bonus and self.opponent:
            bonus, pairs = best_quartets(self.opponent,
                                         bool(getattr(self.options, "edge_double", True)))
        parts = count_parts(table) if spec.has_count else ()
        return Outcome(move, step, parts, ends_hand, bonus, pairs)

    def blocked(self, tile: Tile) -> Blocked | None:
        """Why ``tile`` (held) cannot be laid now, or None if it can."""
        if tile not in self.hand:
            raise InvalidMoveError(f"{tile} is not held here")
        if any(isinstance(m, Play) and m.tile is tile for m in self.legal):
            return None
        table = self.table()
        if isinstance(table, LineTable):
            shown_values = {v for values in table.port_values().values() for v in values}
        else:
            shown_values = set(table.port_values().values())
        values = tuple(sorted(shown_values))
        if self.pending is not None:
            return Blocked(tile, "drawn-first", values)
        matching = tuple(t for t in self.hand if table.fits(t))
        if self.spec.luzaks and matching:
            return Blocked(tile, "luzak-not-allowed", values, matching)
        return Blocked(tile, "no-match", values, matching)


def scripted_position(game: str | GameSpec, moves: str | Iterable[str],
                      hand: str | Iterable[Tile], *, options: Options | None = None,
                      first_seat: int = 0, opponent: str | Iterable[Tile] = (),
                      boneyard: str | Iterable[Tile] = ()) -> Position:
    """The position after the scripted ``moves`` (laid as :func:`score_moves` lays them;
    may be empty), with the seat to move holding ``hand``. ``opponent``: the other seat's
    tiles, when they matter (the end-of-hand bonus); ``boneyard``: the tiles a draw takes,
    first first (games with a boneyard). Tiles are texts like ``"65 11"`` or Tile values;
    every tile may appear once in all of these. Raises InvalidMoveError or IllegalMoveError.
    """
    spec = get_game(game) if isinstance(game, str) else game
    opts: Options = spec.options(options)
    texts = split_moves(moves) if isinstance(moves, str) else list(moves)
    steps = tuple(score_moves(spec, texts, opts, first_seat)) if texts else ()
    held, other, pile = _tiles(hand), _tiles(opponent), _tiles(boneyard)
    if not held:
        raise InvalidMoveError("a scripted position needs the tiles the seat to move holds")
    every = [*(s.move.tile for s in steps if isinstance(s.move, Play)), *held, *other, *pile]
    if len(every) != len(set(every)):
        twice = sorted({str(t) for t in every if every.count(t) > 1})
        raise InvalidMoveError(f"each tile may appear once; twice: {', '.join(twice)}")
    if pile and not spec.has_boneyard:
        raise InvalidMoveError(f"{spec.name} has no boneyard")
    seat = 1 - steps[-1].seat if steps else first_seat
    return _position(spec, opts, steps, seat, held, other, pile, None)


def _position(spec: GameSpec, opts: Options, steps: tuple[Step, ...], seat: int,
              hand: Sequence[Tile], opponent: tuple[Tile, ...], boneyard: tuple[Tile, ...],
              pending: Tile | None) -> Position:
    """The Position and its legal moves, as the game's hand would give them."""
    held = tuple(sorted(hand, key=_INDEX))
    table = spec.new_table(opts)
    for s in steps:
        if isinstance(s.move, Play):
            table.place(s.move)
    legal: list[Move]
    if pending is not None:
        legal = list(table.normal_plays((pending,)))
        if not getattr(opts, "must_play_drawn", True):
            legal.append(KEEP)
    else:
        legal = list(table.normal_plays(held))
        if not legal and spec.luzaks and table.n:
            legal = list(table.luzak_plays(held))
        if not legal and spec.has_boneyard:
            legal = [DRAW if boneyard else PASS]
    return Position(spec, opts, steps, seat, held, opponent, boneyard, pending, tuple(legal))


def _explain(text: str, table: TreeTable | LineTable, used: set[object], luzaks: bool,
             position: str) -> None:
    """Raise a more precise IllegalMoveError for ``text`` if one can be told."""
    from dominolab.core.moves import parse_move

    try:
        move = parse_move(text)
    except InvalidMoveError:
        return
    if not isinstance(move, Play):
        raise IllegalMoveError(f"{shown(text)}: a scripted position holds only tiles laid. "
                               f"Position: {position}")
    if move.tile in used:
        raise IllegalMoveError(f"{shown(text)}: {move.tile} is on the table already. "
                               f"Position: {position}")
    if not luzaks and move.luzak:
        raise IllegalMoveError(f"{shown(text)}: this game has no luzak. Position: {position}")
    try:
        table.check(move)
    except IllegalMoveError as exc:
        raise IllegalMoveError(f"{exc}. Position: {position}") from None
    if move.luzak and table.fits(move.tile):
        raise IllegalMoveError(f"{shown(text)}: {move.tile} fits an open port, so it cannot be a "
                               f"luzak. Position: {position}")
