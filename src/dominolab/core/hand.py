"""One hand of each game: deal, legal moves, scoring, end of hand (RULES.md sections 2-4).

A hand is a mutable state. :meth:`Hand.apply` checks the move and returns a :class:`Step`
describing what it did; :meth:`Hand.apply_unchecked` is the fast path for search code: it
trusts the move (a member of :meth:`Hand.legal_moves`) and returns only the points.
"""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, ClassVar, Final, Generic, TypeVar

from dominolab.core.errors import GameOverError, IllegalMoveError, InvalidMoveError, shown
from dominolab.core.moves import DRAW, KEEP, PASS, Draw, Keep, Move, Pass, Play, resolve_move
from dominolab.core.options import LuzakLineOptions, LuzakOptions, Options, WidelecOptions
from dominolab.core.quartets import QUARTET_WORTH, best_quartets, quartet_text
from dominolab.core.table import LineTable, TreeTable
from dominolab.core.tiles import TILES, Tile, parse_tile

Points = tuple[int, int]
_INDEX: Final = attrgetter("index")
_RANGE28: Final = range(28)
_DEFAULT_LuzakOptions: Final = LuzakOptions()
_DEFAULT_LuzakLineOptions: Final = LuzakLineOptions()
_DEFAULT_WidelecOptions: Final = WidelecOptions()
NO_POINTS: Final[Points] = (0, 0)


@dataclass(frozen=True, slots=True)
class Deal:
    """The tiles of one hand: each seat's hand, and the rest (Luzak: the unused tiles;
    Widelec: the boneyard, the next tile to be drawn first)."""

    hands: tuple[tuple[Tile, ...], tuple[Tile, ...]]
    rest: tuple[Tile, ...]

    def __post_init__(self) -> None:
        every = [*self.hands[0], *self.hands[1], *self.rest]
        if len(every) != 28 or len(set(every)) != 28:
            raise InvalidMoveError("a deal must hold each of the 28 tiles exactly once")
        for seat_hand in self.hands:
            if list(seat_hand) != sorted(seat_hand, key=_INDEX):
                raise InvalidMoveError("a deal lists each hand in tile order")

    @staticmethod
    def shuffle(rng: random.Random, hand_size: int) -> Deal:
        """Deal from a shuffle: the tiles ordered by one ``rng.random()`` key each, so the
        same generator state gives the same deal on any machine."""
        keys = [rng.random() for _ in _RANGE28]
        order = sorted(_RANGE28, key=keys.__getitem__)
        deal = Deal.__new__(Deal)
        tile = TILES.__getitem__
        object.__setattr__(deal, "hands", (
            tuple(map(tile, sorted(order[:hand_size]))),
            tuple(map(tile, sorted(order[hand_size:2 * hand_size])))))
        object.__setattr__(deal, "rest", tuple(map(tile, order[2 * hand_size:])))
        return deal

    @staticmethod
    def for_hand(seed: int, hand_number: int, hand_size: int) -> Deal:
        """The deal of hand ``hand_number`` (1, 2, ...) of the match with this seed. It depends
        only on the seed, the hand number and the hand size, on any machine."""
        return Deal.shuffle(random.Random(f"dominolab/{seed}/{hand_number}"), hand_size)

    def to_json(self) -> dict[str, list[str]]:
        return {"seat0": [str(t) for t in self.hands[0]],
                "seat1": [str(t) for t in self.hands[1]],
                "rest": [str(t) for t in self.rest]}

    @staticmethod
    def from_json(data: dict[str, list[str]]) -> Deal:
        hands = (tuple(sorted(map(parse_tile, data["seat0"]), key=_INDEX)),
                 tuple(sorted(map(parse_tile, data["seat1"]), key=_INDEX)))
        return Deal(hands, tuple(map(parse_tile, data["rest"])))


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended.

    ``end``: ``"tiles"`` (Luzak: 12 tiles on the table), ``"domino"`` (a player went out),
    ``"block"`` (both passed), ``"target"`` (Widelec: a player reached the target mid-hand).
    ``winner``: Widelec's winner of the hand (went out, or fewer pips in a block); in Luzak
    the seat that scored more in the hand; None when there is none.
    ``points``: what each seat scored in the hand, the bonus included.
    """

    end: str
    winner: int | None
    points: Points
    bonus: int = 0
    bonus_quartets: tuple[tuple[Tile, Tile], ...] = ()
    pips_left: Points | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """What one move did. ``drew`` (the tile drawn) is private to the drawing seat."""

    seat: int
    move: Move
    n: int
    points: Points
    count: int | None = None
    ends: tuple[Tile, Tile] | None = None
    quartet: str | None = None
    drew: Tile | None = None


OptionsT = TypeVar("OptionsT", bound=Options)


class Hand(Generic[OptionsT]):
    """Shared machinery of a hand; each game subclass writes only its own rules."""

    GAME: ClassVar[str]
    HAND_SIZE: ClassVar[int]

    options: OptionsT
    hands: list[list[Tile]]
    points: list[int]
    moves: list[tuple[int, Move]]
    result: HandResult | None
    table: TreeTable | LineTable
    #: a drawn tile that fits, which the seat to move must lay now (Widelec; else None)
    pending: Tile | None = None

    def __init__(self, deal: Deal, opener: int, options: OptionsT) -> None:
        if opener not in (0, 1):
            raise InvalidMoveError(f"opener must be seat 0 or 1, not {shown(opener)}")
        if any(len(h) != self.HAND_SIZE for h in deal.hands):
            raise InvalidMoveError(f"{self.GAME} deals {self.HAND_SIZE} tiles to each seat")
        self.options = options
        self.deal = deal
        self.opener = opener
        self.to_move = opener
        self.hands = [list(deal.hands[0]), list(deal.hands[1])]
        self.points = [0, 0]
        self.moves = []
        self.result = None

    # -- to be written by each game --------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        raise NotImplementedError

    def apply_unchecked(self, move: Move) -> Points:
        """Fast path: apply a legal move without checking it; return the points it gave."""
        raise NotImplementedError

    def _step(self, seat: int, move: Move, points: Points, drew: Tile | None) -> Step:
        raise NotImplementedError

    def points_of(self, move: Move) -> Points:
        """The points ``move`` would give now, without applying it (unchecked; whoever holds
        the tile). Draws, passes and keeps give none; a Widelec end-of-hand bonus is not
        included."""
        raise NotImplementedError

    @staticmethod
    def score_placement(table: Any, mv: Play, seat: int, options: Any) -> Points:
        """Lay ``mv`` on ``table`` (this game's table; unchecked, no hands involved) and
        return the points it gives. Shared by hands, scripted positions and players."""
        raise NotImplementedError

    def copy(self) -> Hand[OptionsT]:
        raise NotImplementedError

    @property
    def n(self) -> int:
        """Tiles on the table."""
        raise NotImplementedError

    @property
    def table_placements(self) -> tuple[Play, ...]:
        raise NotImplementedError

    # -- shared ----------------------------------------------------------------------------
    def _copy_into(self, new: Hand[OptionsT]) -> None:
        new.options = self.options
        new.deal = self.deal
        new.opener = self.opener
        new.to_move = self.to_move
        new.hands = [self.hands[0].copy(), self.hands[1].copy()]
        new.points = self.points.copy()
        new.moves = self.moves.copy()
        new.result = self.result

    @property
    def is_over(self) -> bool:
        return self.result is not None

    def apply(self, move: Move) -> Step:
        """Apply a move after checking it; raise a typed error naming move and position."""
        if self.result is not None:
            raise GameOverError(f"{move}: the hand is over ({self.result.end})")
        legal = self.legal_moves()
        if move not in legal:
            raise IllegalMoveError(f"{move} is not legal here: {self._why(move, legal)}. "
                                   f"Position: {self.describe()}")
        seat = self.to_move
        drew = self._next_draw() if isinstance(move, Draw) else None
        points = self.apply_unchecked(move)
        return self._step(seat, move, points, drew)

    def _next_draw(self) -> Tile | None:
        return None

    def _why(self, move: Move, legal: Sequence[Move]) -> str:
        hand = self.hands[self.to_move]
        if isinstance(move, Play):
            if move.tile not in hand:
                return f"seat {self.to_move} does not hold {move.tile}"
            if move.luzak and any(isinstance(m, Play) and not m.luzak for m in legal):
                return "a luzak is allowed only without a normal play"
            self._check_on_table(move)
            if any(isinstance(m, Play) and m.luzak for m in legal):
                return f"no tile fits, so a luzak must be laid (mark it with *, as {legal[0]})"
        return "the legal moves are " + ", ".join(map(str, legal[:12])) + (
            " ..." if len(legal) > 12 else "")

    def _check_on_table(self, move: Play) -> None:
        raise NotImplementedError

    def describe(self) -> str:
        """A one-line description of the position, for error messages."""
        table = " ".join(map(str, self.table_placements)) or "(empty)"
        return (f"{self.GAME}, tile {self.n + 1} to lay, seat {self.to_move} to move holding "
                f"{' '.join(map(str, self.hands[self.to_move]))}; table: {table}")

    def parse_move(self, text: str) -> Move:
        """Read a move, resolving short forms against the legal moves here (see
        :func:`dominolab.core.moves.resolve_move`)."""
        if self.result is not None:
            raise GameOverError(f"{shown(text)}: the hand is over")
        return resolve_move(text, self.legal_moves(), self.describe(), self.hands[self.to_move])


# -- Luzak and Luzak without spinners -----------------------------------------------------------

def luzak_points(count: int, n: int, seat: int, luzak: Play | None, pips_bonus: bool,
                 luzak_scores_count: bool) -> Points:
    """Points of laying tile number ``n`` that leaves ``count`` on the table.

    Luzak (section 2): the layer scores the count when N divides it; a luzak gives the
    opponent its pips, and its layer the count unless ``luzak_scores_count`` is off.
    Without spinners (section 3, ``pips_bonus`` off): the count of a luzak goes to the
    opponent and there is no pip bonus.
    """
    gain = [0, 0]
    if count and count % n == 0:
        if luzak is None:
            gain[seat] += count
        elif pips_bonus:
            if luzak_scores_count:
                gain[seat] += count
        else:
            gain[1 - seat] += count
    if luzak is not None and pips_bonus:
        gain[1 - seat] += luzak.tile.pips
    return gain[0], gain[1]


class _LuzakFamily(Hand[OptionsT]):
    HAND_SIZE: ClassVar[int] = 12
    TILES_PER_HAND: ClassVar[int] = 12
    table: TreeTable | LineTable

    def legal_moves(self) -> list[Move]:
        if self.result is not None:
            return []
        hand = self.hands[self.to_move]
        moves: list[Move] = self.table.normal_plays(hand)  # type: ignore[assignment]
        if not moves:
            moves.extend(self.table.luzak_plays(hand))
        return moves

    @property
    def n(self) -> int:
        return self.table.n

    @property
    def table_placements(self) -> tuple[Play, ...]:
        return tuple(self.table.placements)

    def _check_on_table(self, move: Play) -> None:
        self.table.check(move)

    def _finish(self) -> None:
        p0, p1 = self.points
        self.result = HandResult("tiles", 0 if p0 > p1 else 1 if p1 > p0 else None, (p0, p1))

    def _step(self, seat: int, move: Move, points: Points, drew: Tile | None) -> Step:
        return Step(seat, move, self.table.n, points, count=self.table.count)


class LuzakHand(_LuzakFamily[LuzakOptions]):
    """Luzak: every double a spinner (RULES.md section 2)."""

    GAME: ClassVar[str] = "luzak"
    table: TreeTable

    def __init__(self, deal: Deal, opener: int, options: LuzakOptions | None = None) -> None:
        super().__init__(deal, opener, options or _DEFAULT_LuzakOptions)
        self.table = TreeTable(self.options.short_ends_any_time)

    def copy(self) -> LuzakHand:
        new = LuzakHand.__new__(LuzakHand)
        self._copy_into(new)
        new.table = self.table.copy()
        return new

    @staticmethod
    def score_placement(table: TreeTable, mv: Play, seat: int, options: LuzakOptions) -> Points:
        """Lay ``mv`` on ``table`` (unchecked) and return the points it gives."""
        count = table.place(mv)
        return luzak_points(count, table.n, seat, mv if mv.luzak else None, True,
                            options.luzak_scores_count)

    def points_of(self, move: Move) -> Points:
        mv: Play = move  # type: ignore[assignment]
        table = self.table
        return luzak_points(table.count_after(mv), table.n + 1, self.to_move,
                            mv if mv.luzak else None, True, self.options.luzak_scores_count)

    def apply_unchecked(self, move: Move) -> Points:
        mv: Play = move  # type: ignore[assignment]
        seat = self.to_move
        self.hands[seat].remove(mv.tile)
        table = self.table
        count = table.place(mv)
        n = table.n
        if mv.luzak:
            gain = luzak_points(count, n, seat, mv, True, self.options.luzak_scores_count)
        elif count and count % n == 0:
            gain = (count, 0) if seat == 0 else (0, count)
        else:
            gain = NO_POINTS
        if gain is not NO_POINTS:
            self.points[0] += gain[0]
            self.points[1] += gain[1]
        self.moves.append((seat, mv))
        self.to_move = 1 - seat
        if n == 12:
            self._finish()
        return gain


class LuzakLineHand(_LuzakFamily[LuzakLineOptions]):
    """Luzak without spinners (RULES.md section 3)."""

    GAME: ClassVar[str] = "luzak-line"
    table: LineTable

    def __init__(self, deal: Deal, opener: int, options: LuzakLineOptions | None = None) -> None:
        super().__init__(deal, opener, options or _DEFAULT_LuzakLineOptions)
        self.table = LineTable()

    def copy(self) -> LuzakLineHand:
        new = LuzakLineHand.__new__(LuzakLineHand)
        self._copy_into(new)
        new.table = self.table.copy()
        return new

    @staticmethod
    def score_placement(table: LineTable, mv: Play, seat: int,
                        options: LuzakLineOptions) -> Points:
        table.place(mv)
        return luzak_points(table.count, table.n, seat, mv if mv.luzak else None, False, True)

    def points_of(self, move: Move) -> Points:
        mv: Play = move  # type: ignore[assignment]
        table = self.table
        return luzak_points(table.count_after(mv), table.n + 1, self.to_move,
                            mv if mv.luzak else None, False, True)

    def apply_unchecked(self, move: Move) -> Points:
        mv: Play = move  # type: ignore[assignment]
        seat = self.to_move
        self.hands[seat].remove(mv.tile)
        table = self.table
        count = table.count_after(mv)
        table.place(mv)
        n = table.n
        if count and count % n == 0:
            gain = luzak_points(count, n, seat, mv if mv.luzak else None, False, True)
            self.points[0] += gain[0]
            self.points[1] += gain[1]
        else:
            gain = NO_POINTS
        self.moves.append((seat, mv))
        self.to_move = 1 - seat
        if self.table.n == 12:
            self._finish()
        return gain


# -- Widelec --------------------------------------------------------------------------------------

class WidelecHand(Hand[WidelecOptions]):
    """Widelec / Kwartety (RULES.md section 4)."""

    GAME: ClassVar[str] = "widelec"
    HAND_SIZE: ClassVar[int] = 7
    table: LineTable

    def __init__(self, deal: Deal, opener: int, options: WidelecOptions | None = None) -> None:
        super().__init__(deal, opener, options or _DEFAULT_WidelecOptions)
        self.table = LineTable()
        self.boneyard = list(reversed(deal.rest))  # pop() draws the next tile
        self.pending = None  # a drawn tile that fits: play it (or keep it)
        self.passes = 0
        self._worth = QUARTET_WORTH[self.options.edge_double]

    def copy(self) -> WidelecHand:
        new = WidelecHand.__new__(WidelecHand)
        self._copy_into(new)
        new.table = self.table.copy()
        new.boneyard = self.boneyard.copy()
        new.pending = self.pending
        new.passes = self.passes
        new._worth = self._worth
        return new

    @property
    def n(self) -> int:
        return self.table.n

    @property
    def table_placements(self) -> tuple[Play, ...]:
        return tuple(self.table.placements)

    def _check_on_table(self, move: Play) -> None:
        if move.luzak:
            raise IllegalMoveError(f"{move}: Widelec has no luzak")
        self.table.check(move)
        if self.pending is not None and move.tile is not self.pending:
            raise IllegalMoveError(f"{move}: the drawn tile {self.pending} must be played")

    def legal_moves(self) -> list[Move]:
        if self.result is not None:
            return []
        if self.pending is not None:
            moves: list[Move] = list(self.table.normal_plays((self.pending,)))
            if not self.options.must_play_drawn:
                moves.append(KEEP)
            return moves
        moves = self.table.normal_plays(self.hands[self.to_move])  # type: ignore[assignment]
        if not moves:
            moves.append(DRAW if self.boneyard else PASS)
        return moves

    @staticmethod
    def score_placement(table: LineTable, mv: Play, seat: int, options: WidelecOptions) -> Points:
        table.place(mv)
        if table.n < 2:
            return NO_POINTS
        left, right = table.end_tiles
        worth = QUARTET_WORTH[options.edge_double][left.index][right.index]  # type: ignore[union-attr]
        if not worth:
            return NO_POINTS
        return (worth, 0) if seat == 0 else (0, worth)

    def _next_draw(self) -> Tile | None:
        return self.boneyard[-1] if self.boneyard else None

    def points_of(self, move: Move) -> Points:
        if type(move) is not Play or self.table.n == 0:
            return NO_POINTS
        table = self.table
        e = move.port.index  # type: ignore[union-attr]
        other = table.end_tiles[1 - e]
        worth = self._worth[move.tile.index][other.index]  # type: ignore[union-attr]
        if not worth:
            return NO_POINTS
        return (worth, 0) if self.to_move == 0 else (0, worth)

    def apply_unchecked(self, move: Move) -> Points:
        seat = self.to_move
        self.moves.append((seat, move))
        if type(move) is Play:
            hand = self.hands[seat]
            hand.remove(move.tile)
            self.pending = None
            self.passes = 0
            table = self.table
            table.place(move)
            gain = NO_POINTS
            if table.n >= 2:
                left, right = table.end_tiles
                worth = self._worth[left.index][right.index]  # type: ignore[union-attr]
                if worth:
                    gain = (worth, 0) if seat == 0 else (0, worth)
                    self.points[seat] += worth
            if not hand:
                self._finish("domino", seat)
            else:
                self.to_move = 1 - seat
            return gain
        if isinstance(move, Draw):
            tile = self.boneyard.pop()
            hand = self.hands[seat]
            insort(hand, tile, key=_INDEX)
            self.passes = 0
            if self.table.fits(tile):
                self.pending = tile
            else:
                self.to_move = 1 - seat
            return NO_POINTS
        if isinstance(move, Keep):
            self.pending = None
            self.passes = 0
            self.to_move = 1 - seat
            return NO_POINTS
        self.passes += 1
        if self.passes >= 2:
            a, b = (sum(t.pips for t in h) for h in self.hands)
            self._finish("block", 0 if a < b else 1 if b < a else None)
        else:
            self.to_move = 1 - seat
        return NO_POINTS

    def _finish(self, end: str, winner: int | None) -> None:
        bonus: int = 0
        pairs: tuple[tuple[Tile, Tile], ...] = ()
        if winner is not None:
            bonus, pairs = best_quartets(self.hands[1 - winner], self.options.edge_double)
            self.points[winner] += bonus
        pips = (sum(t.pips for t in self.hands[0]), sum(t.pips for t in self.hands[1]))
        self.result = HandResult(end, winner, (self.points[0], self.points[1]), bonus, pairs,
                                 pips)

    def cut(self) -> None:
        """End the hand at once because the match is won (option ``win_at_once``)."""
        self.result = HandResult("target", None, (self.points[0], self.points[1]))

    def _step(self, seat: int, move: Move, points: Points, drew: Tile | None) -> Step:
        table = self.table
        ends = quartet = None
        if isinstance(move, Play) and table.n >= 2:
            left, right = table.end_tiles
            assert left is not None and right is not None
            ends = (left, right)
            if points != NO_POINTS:
                quartet = quartet_text(left, right, self.options.edge_double)
        return Step(seat, move, table.n, points, ends=ends, quartet=quartet, drew=drew)


HAND_CLASSES: Final[dict[str, type[Hand[LuzakOptions]] | type[Hand[LuzakLineOptions]]
                         | type[Hand[WidelecOptions]]]] = {
    "luzak": LuzakHand, "luzak-line": LuzakLineHand, "widelec": WidelecHand,
}

__all__ = ["Deal", "Hand", "HandResult", "LuzakHand", "LuzakLineHand", "Points", "Step",
           "WidelecHand", "luzak_points", "PASS", "DRAW", "KEEP", "Pass"]
