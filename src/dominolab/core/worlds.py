"""Possible worlds: what the rules prove about the tiles a seat cannot see, and the hand
state a view would have under one assignment of those tiles.

Search players sample worlds (which hidden tile is where) and search each one. The facts
of the rules, and the one exact sampler built on them (:class:`HiddenWorlds`, used by the
Python and the native search, hence the hints, and by the OpenSpiel adapter), live here:

* Luzak games: a luzak proves its layer held no tile fitting any free port then, and
  without drawing that is still true of every tile they hold now (RULES.md §2, §3).
* Widelec: a draw or a pass proves the drawer held no tile fitting either end then; tiles
  drawn later may fit, so each fact allows as many fitting tiles as the opponent has drawn
  since without showing them (RULES.md §4). A kept playable tile (option) fits, and so does
  a tile just drawn that the drawer must now lay.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from dominolab.core.errors import InvalidMoveError
from dominolab.core.games import get_game
from dominolab.core.hand import Deal, Hand, WidelecHand
from dominolab.core.moves import Draw, Keep, Move, Pass, Play
from dominolab.core.table import LineTable, TreeTable
from dominolab.core.tiles import Tile
from dominolab.core.view import View


@dataclass(frozen=True, slots=True)
class Limit:
    """At most ``allowed`` of the opponent's current tiles have a half in ``values``."""

    values: frozenset[int]
    allowed: int

    def count(self, tiles: Sequence[Tile]) -> int:
        values = self.values
        return sum(1 for t in tiles if t.hi in values or t.lo in values)


def opponent_limits(view: View) -> tuple[Limit, ...]:
    """What the opponent's moves in this hand prove about the tiles they hold now."""
    opponent = 1 - view.seat
    table = view.new_table_empty()
    history = view.history
    facts: list[tuple[int, frozenset[int], int]] = []  # (index in history, values, kept)
    for i, (seat, move) in enumerate(history):
        if seat == opponent:
            if isinstance(move, Play) and move.luzak:
                facts.append((i, open_values(table), 0))
            elif isinstance(move, Draw | Pass):
                # the drawn tile fits when it was kept (option), or when it is the last move
                # and the drawer is still to move: it must be laid now
                kept = int(i + 1 < len(history) and isinstance(history[i + 1][1], Keep)) or int(
                    isinstance(move, Draw) and i + 1 == len(history)
                    and view.to_move == opponent)
                facts.append((i, open_values(table), kept))
        if isinstance(move, Play):
            table.place(move)
    # draws by the opponent whose tile stayed hidden (not laid at once)
    hidden_draws = [
        i for i, (seat, move) in enumerate(history)
        if seat == opponent and isinstance(move, Draw)
        and not (i + 1 < len(history) and history[i + 1][0] == opponent
                 and isinstance(history[i + 1][1], Play))
    ]
    limits = []
    for i, values, kept in facts:
        later = sum(1 for j in hidden_draws if j > i)
        limits.append(Limit(values, later + kept))
    return tuple(limits)


def open_values(table: TreeTable | LineTable) -> frozenset[int]:
    """The values a tile may match on ``table`` now: every free port's (none before the
    lead); what a luzak, a draw or a pass proves its layer held no tile of."""
    if isinstance(table, TreeTable):
        return frozenset(table.port_value.values())
    if table.n == 0:
        return frozenset()
    return frozenset(table.end_values[0]) | frozenset(table.end_values[1])


def proven_absent(view: View) -> frozenset[Tile]:
    """The unseen tiles the opponent's moves prove it does not hold now: those with a half
    in the values of a limit of :func:`opponent_limits` that allows no fitting tile."""
    values = proven_values(view)
    return frozenset(t for t in view.unseen() if t.hi in values or t.lo in values)


def proven_values(view: View) -> frozenset[int]:
    """The values the opponent's moves prove it holds no tile of now (whatever this seat's
    own tiles): those of the limits of :func:`opponent_limits` that allow no fitting tile."""
    return frozenset(v for limit in opponent_limits(view) if limit.allowed == 0
                     for v in limit.values)


def fits_limits(tiles: Sequence[Tile], limits: Sequence[Limit]) -> bool:
    return all(limit.count(tiles) <= limit.allowed for limit in limits)


def check_world(view: View, opponent: Sequence[Tile], rest: Sequence[Tile]) -> None:
    """Raise InvalidMoveError unless ``opponent`` and ``rest`` can be the hidden tiles of
    ``view``: the hand is not over, the opponent's count and the boneyard's size match, and
    together they are the unseen tiles, each once."""
    if view.result is not None:
        raise InvalidMoveError("the hand is over; there is nothing to search")
    if len(opponent) != view.opponent_tiles:
        raise InvalidMoveError(f"the opponent holds {view.opponent_tiles} tiles, "
                               f"not {len(opponent)}")
    if view.boneyard is not None and len(rest) != view.boneyard:
        raise InvalidMoveError(f"the boneyard holds {view.boneyard} tiles, not {len(rest)}")
    unseen = set(view.unseen())
    given = [*opponent, *rest]
    if set(given) != unseen or len(given) != len(unseen):
        raise InvalidMoveError("the opponent's tiles and the rest must be the unseen tiles, "
                               "each once")


def passes_in_a_row(history: Sequence[tuple[int, Move]]) -> int:
    """Passes at the end of a hand's history (two in a row end it: RULES.md section 4)."""
    passes = 0
    for _, move in reversed(history):
        if not isinstance(move, Pass):
            break
        passes += 1
    return passes


def hand_from_view(view: View, opponent: Sequence[Tile], rest: Sequence[Tile]) -> Hand[Any]:
    """The hand state ``view`` describes, with ``opponent`` as the opponent's tiles and
    ``rest`` as the unused tiles (Luzak) or the boneyard, next draw first (Widelec).

    The result is a full state for search (its ``deal`` is a stand-in built from this
    world, not the real deal). Raises InvalidMoveError if the tiles do not fit the view.
    """
    check_world(view, opponent, rest)
    cls: type[Hand[Any]] = get_game(view.game).hand_class
    hand = cls.__new__(cls)
    own = sorted(view.hand, key=_index)
    theirs = sorted(opponent, key=_index)
    hands = [own, theirs] if view.seat == 0 else [theirs, own]
    hand.options = view.options
    on_table = tuple(p.tile for p in view.table)
    hand.deal = Deal((tuple(hands[0]), tuple(hands[1])), (*on_table, *rest))
    hand.opener = view.opener
    hand.to_move = view.to_move if view.to_move is not None else view.seat
    hand.hands = hands
    hand.points = [view.hand_points[0], view.hand_points[1]]
    hand.moves = list(view.history)
    hand.result = None
    table = view.new_table()
    hand.table = table
    if isinstance(hand, WidelecHand):
        hand.boneyard = list(reversed(rest))
        hand.pending = view.pending  # the drawn tile, which must be laid
        hand.passes = passes_in_a_row(view.history)
        from dominolab.core.quartets import QUARTET_WORTH

        hand._worth = QUARTET_WORTH[view.options.edge_double]  # type: ignore[attr-defined]
    return hand


def _index(tile: Tile) -> int:
    return tile.index


# -- the exact world sampler -------------------------------------------------------------------

_NEVER = 1 << 30  # the release time of a tile the opponent still holds


@dataclass(frozen=True, slots=True)
class HiddenDraw:
    """An opponent's draw whose tile stayed hidden: ``at`` is its index in the history;
    ``fits``: the tile fitted the line then (kept, with the option, or pending: it must be
    laid now), else it did not (RULES.md §4: a drawn playable tile must be played)."""

    at: int
    fits: bool


@dataclass(frozen=True, slots=True)
class _Slot:
    """Where one tile may have come from: the opponent's deal (``initial``) and/or the
    hidden draws (indexes into :attr:`HiddenWorlds.draws`)."""

    initial: bool
    draws: frozenset[int]


class HiddenWorlds:
    """The exact posterior over the tiles a view cannot see (RULES.md §1 hidden information).

    A *world* is the opponent's tiles now and the rest (Luzak: unused; Widelec: the
    boneyard, next draw first) and, in Widelec, the tile of each of the opponent's hidden
    draws. The deal is uniformly random and the opponent's choices are uninformative, so
    the posterior is uniform over the complete worlds (the opponent's dealt tiles and the
    boneyard's order) under which the view's history is legal. What legality proves:

    * Luzak games (RULES.md §2, §3): a luzak proves its layer held no tile fitting any free
      port then; without drawing every tile held now was held then. So the opponent's hand
      is a uniform k-subset of the unseen tiles that fit no such moment.
    * Widelec (RULES.md §4): a draw or a pass proves the drawer held no fitting tile then.
      A tile the opponent holds now (or laid later, not at once after a draw) was either
      dealt — then it fitted no draw/pass moment before it left the hand — or drawn at a
      hidden draw *j* — then it fitted no draw/pass moment after *j* while held, and at *j*
      itself it did not fit (or did, if kept or pending). Each hidden draw took exactly one
      tile; the tiles the opponent laid that were not drawn publicly are among them or dealt.
      The boneyard's undrawn tiles are unconstrained, so their order is uniform.

    Exactness: a tile's admissible sources (:class:`_Slot`) depend on the tile alone, so
    unseen tiles with the same admissible sources are exchangeable. A dynamic programme over
    the hidden draws in order (state: how many tiles of each such group and which laid tiles
    were drawn so far; a step multiplies by the number of distinct tiles still free in the
    group) counts every valid labelled assignment exactly once; the end multiplies by the
    ways to choose the dealt tiles still held. Sampling a path backwards in proportion to
    these integer counts, then labelling the group choices by a uniform draw without
    replacement, gives each valid (opponent's tiles, hidden draws) pair the same chance;
    the rest is shuffled uniformly. No constraint is ever dropped and nothing is rejected.

    ``drawing``: the opponent has chosen to draw and the tile is still to come (a chance
    node of the OpenSpiel adapter): that too proves no tile held now fits.
    ``infer=False`` ignores what the moves prove (uniform worlds, the PIMC baseline).
    Raises InvalidMoveError if no world fits the view (a view a real hand cannot have).
    """

    def __init__(self, view: View, *, drawing: bool = False, infer: bool = True) -> None:
        self.k = view.opponent_tiles
        unseen = view.unseen()
        self.unseen = unseen
        opponent = 1 - view.seat
        history = view.history
        n = len(history)
        self.draws: tuple[HiddenDraw, ...] = ()
        #: laid tiles that may have come from a hidden draw (with their sources)
        self.laid: tuple[tuple[Tile, _Slot], ...] = ()
        if not infer:
            groups: dict[_Slot, list[Tile]] = {_Slot(True, frozenset()): list(unseen)}
        else:
            table = view.new_table_empty()
            events = [i for i, (s, mv) in enumerate(history) if s == opponent and (
                isinstance(mv, Draw | Pass) or (isinstance(mv, Play) and mv.luzak))]
            if drawing:
                events.append(n)
            at_event = set(events)
            values: dict[int, int] = {}  # the open values before each event, as a bit mask
            for i, (_, move) in enumerate(history):
                if i in at_event:
                    values[i] = sum(1 << v for v in open_values(table))
                if isinstance(move, Play):
                    table.place(move)
            if n in at_event:
                values[n] = sum(1 << v for v in open_values(table))
            draws: list[HiddenDraw] = []
            public: set[Tile] = set()
            for i in events:
                mv = history[i][1] if i < n else None
                if not isinstance(mv, Draw):
                    continue
                nxt = history[i + 1] if i + 1 < n else None
                if nxt is not None and nxt[0] == opponent and isinstance(nxt[1], Play):
                    public.add(nxt[1].tile)
                    continue
                fits = (nxt is not None and isinstance(nxt[1], Keep)) or (
                    nxt is None and view.pending_seat == opponent)
                draws.append(HiddenDraw(i, fits))
            self.draws = tuple(draws)

            def slot(tile: Tile, until: int) -> _Slot:
                halves = 1 << tile.hi | 1 << tile.lo
                last = -1
                for e in events:
                    if e >= until:
                        break
                    if values[e] & halves:
                        last = e
                ok = frozenset(
                    j for j, d in enumerate(draws)
                    if d.at < until and bool(values[d.at] & halves) == d.fits
                    and (last < d.at if not d.fits else last <= d.at))
                return _Slot(last < 0, ok)

            groups = {}
            for tile in unseen:
                groups.setdefault(slot(tile, _NEVER), []).append(tile)
            if draws:
                first = draws[0].at
                laid = []
                for i, (s, mv) in enumerate(history):
                    if (s == opponent and isinstance(mv, Play) and i > first
                            and mv.tile not in public):
                        source = slot(mv.tile, i)
                        if not source.initial and not source.draws:
                            raise InvalidMoveError(f"no world explains {mv.tile} laid")
                        laid.append((mv.tile, source))
                self.laid = tuple(laid)
        #: the unseen tiles by their admissible sources (tiles with none are never held)
        self.groups: tuple[tuple[Tile, ...], ...] = tuple(
            tuple(tiles) for s, tiles in groups.items() if s.initial or s.draws)
        self._slots = tuple(s for s in groups if s.initial or s.draws)
        self._count()

    # the dynamic programme ------------------------------------------------------------------
    def _count(self) -> None:
        slots, draws, laid = self._slots, self.draws, self.laid
        sizes = [len(g) for g in self.groups]
        State = tuple[tuple[int, ...], int]  # (tiles taken per group, laid tiles taken mask)
        layer: dict[State, int] = {((0,) * len(slots), 0): 1}
        layers = [layer]
        for j in range(len(draws)):
            nxt: dict[State, int] = {}
            for (taken, mask), ways in layer.items():
                for g, s in enumerate(slots):
                    if j in s.draws and taken[g] < sizes[g]:
                        key = ((*taken[:g], taken[g] + 1, *taken[g + 1:]), mask)
                        nxt[key] = nxt.get(key, 0) + ways * (sizes[g] - taken[g])
                for b, (_, s) in enumerate(laid):
                    if j in s.draws and not mask >> b & 1:
                        key = (taken, mask | 1 << b)
                        nxt[key] = nxt.get(key, 0) + ways
            layer = nxt
            layers.append(layer)
        self._layers = layers
        dealt = [g for g, s in enumerate(slots) if s.initial]
        laid_dealt = sum(1 << b for b, (_, s) in enumerate(laid) if s.initial)
        ends: list[tuple[int, State, tuple[int, ...]]] = []  # (ways, state, counts held)
        for (taken, mask), ways in layer.items():
            if (~mask & ((1 << len(laid)) - 1)) & ~laid_dealt:
                continue  # a laid tile neither drawn nor possibly dealt
            extra = self.k - sum(taken)
            if extra < 0:
                continue
            for split, w in _splits(extra, [sizes[g] - taken[g] for g in dealt]):
                held = list(taken)
                for g, e in zip(dealt, split, strict=True):
                    held[g] += e
                ends.append((ways * w, (taken, mask), tuple(held)))
        if not ends:
            raise InvalidMoveError("no world is consistent with this view's history")
        self._ends = ends
        by_counts: dict[tuple[int, ...], int] = {}
        for ways, _, counts in ends:
            by_counts[counts] = by_counts.get(counts, 0) + ways
        #: the opponent's tile count from each group, with its number of worlds
        self.choices: tuple[tuple[int, tuple[int, ...]], ...] = tuple(
            (w, c) for c, w in by_counts.items())
        self._cumulative = list(_accumulate(w for w, _ in self.choices))
        self.total = self._cumulative[-1]

    # sampling ----------------------------------------------------------------------------
    def sample(self, rng: random.Random) -> tuple[list[Tile], list[Tile]]:
        """(the opponent's tiles, the rest in random order), exactly from the posterior."""
        i = bisect.bisect_right(self._cumulative, rng.randrange(self.total))
        counts = self.choices[i][1]
        theirs: list[Tile] = []
        for group, c in zip(self.groups, counts, strict=True):
            if c:
                theirs.extend(rng.sample(group, c))
        held = set(theirs)
        rest = [t for t in self.unseen if t not in held]
        rng.shuffle(rest)
        return theirs, rest

    def sample_hand(self, rng: random.Random) -> tuple[list[Tile], dict[int, Tile]]:
        """(the opponent's tiles, the tile of each hidden draw by its index in the history:
        none in the Luzak games), exactly from the posterior: :meth:`sample_draws` where the
        opponent drew unseen, else :meth:`sample`."""
        if self.draws:
            theirs, _, drawn = self.sample_draws(rng)
            return theirs, drawn
        theirs, _ = self.sample(rng)
        return theirs, {}

    def sample_draws(self, rng: random.Random
                     ) -> tuple[list[Tile], list[Tile], dict[int, Tile]]:
        """A whole world: (the opponent's tiles, the rest in random order, the tile of each
        hidden draw by its index in the history), exactly from the posterior."""
        _, (taken, mask), counts = self._ends[_pick(rng, [w for w, _, _ in self._ends])]
        sizes = [len(g) for g in self.groups]
        chosen: list[int | tuple[int]] = []  # per draw, backwards: a group, or (laid tile,)
        for j in range(len(self.draws) - 1, -1, -1):
            layer = self._layers[j]
            options: list[tuple[int, tuple[tuple[int, ...], int], int | tuple[int]]] = []
            for g, s in enumerate(self._slots):
                if j in s.draws and taken[g] > 0:
                    prev = ((*taken[:g], taken[g] - 1, *taken[g + 1:]), mask)
                    w = layer.get(prev, 0) * (sizes[g] - taken[g] + 1)
                    if w:
                        options.append((w, prev, g))
            for b, (_, s) in enumerate(self.laid):
                if j in s.draws and mask >> b & 1:
                    prev = (taken, mask & ~(1 << b))
                    w = layer.get(prev, 0)
                    if w:
                        options.append((w, prev, (b,)))
            _, (taken, mask), what = options[_pick(rng, [w for w, _, _ in options])]
            chosen.append(what)
        chosen.reverse()
        order = [rng.sample(group, c) for group, c in zip(self.groups, counts, strict=True)]
        theirs = [t for tiles in order for t in tiles]
        drawn: dict[int, Tile] = {}
        next_of = [0] * len(self.groups)
        for draw, what in zip(self.draws, chosen, strict=True):
            if isinstance(what, tuple):
                drawn[draw.at] = self.laid[what[0]][0]
            else:
                drawn[draw.at] = order[what][next_of[what]]
                next_of[what] += 1
        held = set(theirs)
        rest = [t for t in self.unseen if t not in held]
        rng.shuffle(rest)
        return theirs, rest, drawn


@dataclass(frozen=True, slots=True)
class Beliefs:
    """A belief about the opponent's tiles beyond what the rules prove (a player's model of
    the opponent): its possible hands, each with a weight (not normalised). ``hands[i]``, a
    tuple of tiles in tile order, weighs ``weights[i]``; no hand appears twice."""

    hands: tuple[tuple[Tile, ...], ...]
    weights: tuple[float, ...]

    def __post_init__(self) -> None:
        if not self.hands or len(self.hands) != len(self.weights):
            raise ValueError("beliefs need one weight per hand, and at least one hand")
        if any(not w >= 0.0 for w in self.weights) or not sum(self.weights) > 0.0:
            raise ValueError("the weights must be non-negative and not all 0")

    @property
    def effective(self) -> float:
        """The effective number of hands (Kish): how many equally weighted hands carry as
        much information as these weighted ones."""
        total = sum(self.weights)
        return total * total / sum(w * w for w in self.weights)

    def sample(self, rng: random.Random, unseen: Sequence[Tile]
               ) -> tuple[list[Tile], list[Tile]]:
        """(one of the opponent's hands drawn by weight, the rest of ``unseen`` in random
        order: the boneyard's order given the opponent's tiles is uniform)."""
        cumulative = self._cumulative()
        hand = self.hands[bisect.bisect_right(cumulative, rng.random() * cumulative[-1])
                          if cumulative[-1] > 0 else 0]
        held = set(hand)
        rest = [t for t in unseen if t not in held]
        rng.shuffle(rest)
        return list(hand), rest

    def _cumulative(self) -> list[float]:
        total = 0.0
        out = []
        for w in self.weights:
            total += w
            out.append(total)
        return out



def _pick(rng: random.Random, weights: Sequence[int]) -> int:
    """An index drawn in proportion to the integer ``weights`` (exactly)."""
    return bisect.bisect_right(list(_accumulate(weights)), rng.randrange(sum(weights)))


def _accumulate(weights: Iterable[int]) -> Iterator[int]:
    total = 0
    for w in weights:
        total += w
        yield total


def _splits(extra: int, free: Sequence[int]) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every way to hold ``extra`` more dealt tiles from groups with ``free`` tiles each:
    (tiles per group, ways to choose them)."""
    if not free:
        if extra == 0:
            yield (), 1
        return
    for e in range(min(extra, free[0]) + 1):
        for rest, w in _splits(extra - e, free[1:]):
            yield (e, *rest), math.comb(free[0], e) * w
