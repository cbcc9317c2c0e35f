"""The native search's Python side: a view's facts as the plain values that the extension's
``search`` takes (csrc/search.c), and its sums back as moves.

The search itself is :mod:`dominolab.players.search`'s, step for step — PIMC (every legal
move played out in the same sampled worlds) and single-observer ISMCTS (one tree, a world
per iteration, UCB with ``seen`` counts, greedy playouts, the match value backed up) — with
its randomness from the native generator, seeded by the caller. The players turn the sums
into their :class:`~dominolab.players.search.MoveValue` lists, so the ordering rules live
in one place.

Nothing here reads a hidden tile: a position is built from a :class:`~dominolab.core.View`
alone, and a true world (the omniscient player's) is passed in only when asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, cast

from dominolab.core import TILES, Hand, Move, Tile, View
from dominolab.core.worlds import Beliefs, HiddenWorlds, Limit, passes_in_a_row
from dominolab.native import code_of, engine, mask_of, rules_of

#: the kinds of search: ``pimc`` (one ply, every move in every world), ``pimc-expected``
#: (the same with expected-answer greedy playouts) or ``ismcts``
Kind = Literal["pimc", "pimc-expected", "ismcts", "ismcts-expected"]

#: the extension's search: (rules, position, limits, value, budget, kind, seed, world)
_SearchFn = Callable[..., list[tuple[int, int, float, float, float]]]
#: the extension's sampler: (unseen, opponent_tiles, world distribution, count, seed)
_SampleFn = Callable[..., list[tuple[int, tuple[int, ...]]]]
#: a time budget is always positive when it reaches the extension
_LEAST_SECONDS: Final = 1e-9


class MatchValueLike(Protocol):
    """What the search needs of :class:`~dominolab.players.search.MatchValue`."""

    @property
    def banked(self) -> tuple[int, int]: ...
    @property
    def target(self) -> int: ...
    @property
    def scale(self) -> float: ...
    @property
    def per_hand(self) -> float: ...
    @property
    def at_once(self) -> bool: ...
    @property
    def one_more(self) -> bool: ...
    @property
    def lead(self) -> float: ...
    @property
    def margin_weight(self) -> float: ...


@dataclass(frozen=True, slots=True)
class Totals:
    """One root move's sums over a native search.

    ``count``: the worlds it was played out in (pimc) or its visits (ismcts). ``value``:
    the summed value (the match value, or for a margin search the point margin gained).
    ``margin``: the summed point margin, mine minus the opponent's, gained from the move
    to the end of the hand (its own points included). ``chance``: the summed chance to win
    the match (:meth:`MatchValue.chance <dominolab.players.search.MatchValue.chance>`, the
    next hand's opening counted; 0 for a margin search).
    """

    move: Move
    count: int
    value: float
    margin: float
    chance: float


def position_of(view: View) -> tuple[tuple[int, int], tuple[Any, ...]]:
    """(rules, position) of ``view`` as the extension takes them: the rule flags and tiles
    per hand, and (seat, hand, table codes, hand points, to move, opener, pending tile or
    -1, passes in a row, unseen tiles, the opponent's tile count, boneyard size)."""
    passes = passes_in_a_row(view.history)
    to_move = view.to_move if view.to_move is not None else view.seat
    position = (
        view.seat, mask_of(view.hand), [code_of(p) for p in view.table],
        (view.hand_points[0], view.hand_points[1]), to_move, view.opener,
        view.pending.index if view.pending is not None else -1, passes,
        mask_of(view.unseen()), view.opponent_tiles, view.boneyard or 0,
    )
    return rules_of(view.spec, view.options), position


def limits_of(limits: Sequence[Limit]) -> list[tuple[int, int]]:
    """Limits as (values as a bit mask, allowed) pairs."""
    return [(sum(1 << v for v in limit.values), limit.allowed) for limit in limits]


#: the world distribution as the extension takes it: (group masks, [(weight, counts)])
Distribution = tuple[list[int], list[tuple[float, tuple[int, ...]]]]


def distribution_of(view: View, limits: Sequence[Limit]) -> Distribution:
    """The exact posterior over the opponent's tiles (:class:`~dominolab.core.worlds.
    HiddenWorlds`) as the extension's sampler takes it: the groups of exchangeable unseen
    tiles as masks and, per choice of how many of each group the opponent holds, its weight
    (normalised). Non-empty ``limits`` ask for the inference; none give uniform worlds (no
    choices)."""
    if not limits:
        return [], []
    worlds = HiddenWorlds(view)
    total = worlds.total
    return ([mask_of(group) for group in worlds.groups],
            [(weight / total, counts) for weight, counts in worlds.choices])


def distribution_of_beliefs(view: View, beliefs: Beliefs) -> Distribution:
    """``beliefs`` (weighted opponent hands) as the extension's world distribution: every
    unseen tile a group of its own, and each hand a choice of one or none of each."""
    unseen = view.unseen()
    total = sum(beliefs.weights)
    choices = []
    for hand, weight in zip(beliefs.hands, beliefs.weights, strict=True):
        held = set(hand)
        choices.append((weight / total, tuple(int(t in held) for t in unseen)))
    return [1 << t.index for t in unseen], choices


def world_of(view: View, hand: Hand[Any]) -> tuple[int, list[int]]:
    """The true world of ``hand`` seen from ``view``'s seat: the opponent's tiles as a mask
    and the rest in order (the boneyard next draw first, or the unused tiles)."""
    theirs = hand.hands[1 - view.seat]
    if view.spec.has_boneyard:
        rest = [t.index for t in reversed(hand.boneyard)]  # type: ignore[attr-defined]
    else:
        held = set(theirs)
        rest = [t.index for t in view.unseen() if t not in held]
    return mask_of(theirs), rest


def search(view: View, *, kind: Kind, value: MatchValueLike | None,
           need: tuple[int, int] | None, iterations: int, seconds: float | None,
           exploration: float, seed: int, limits: Sequence[Limit] = (),
           true_hand: Hand[Any] | None = None,
           only: Sequence[Move] | None = None,
           beliefs: Beliefs | None = None, greedy: float = 0.0) -> list[Totals]:
    """Search ``view``'s position natively; the sums of each legal move, in the view's
    legal order.

    ``value``: the match value (None: the point margin, pimc only); ``need``: each seat's
    points still needed in this hand, to stop a playout at the target (win at once);
    ``iterations`` and ``seconds``: the search stops at whichever comes first, after at
    least one iteration; ``seed``: the native generator's seed (0 to 2**64-1), so that an
    iteration budget repeats exactly; ``limits``: what the opponent's moves proved
    (:func:`dominolab.core.worlds.opponent_limits`); ``true_hand``: search this one world
    instead of sampled ones; ``only``: search just these legal moves (the others get zero
    totals). Equivalent moves (:mod:`dominolab.core.equivalence`) are one move to the
    search and get the same totals; ``beliefs``: draw the opponent's hand from these
    weighted hands instead (a model of the opponent, :mod:`dominolab.players.beliefs`;
    ``limits`` are then unused); ``greedy`` (ismcts): the chance that the opponent, at each
    of its choices in the tree, makes the expected-answer greedy's move rather than the one
    UCB picks for it (how far it is read as a greedy player). ValueError for a position the
    view cannot have.
    """
    rules, position = position_of(view)
    value_args = None if value is None else (
        value.banked[0], value.banked[1], value.target, value.scale, value.per_hand,
        int(value.at_once), int(value.one_more), need, value.margin_weight, value.lead)
    budget = (iterations, None if seconds is None else max(seconds, _LEAST_SECONDS),
              exploration)
    world = None if true_hand is None else world_of(view, true_hand)
    run = cast(_SearchFn, engine().search)
    wanted = None if only is None else [code_of(move) for move in only]
    distribution: Distribution = ([], [])
    if true_hand is None:
        distribution = (distribution_of(view, limits) if beliefs is None
                        else distribution_of_beliefs(view, beliefs))
    sums = run(rules, position, distribution, value_args, budget, kind, seed, world,
               wanted, greedy)
    by_code = {code: (count, total, margin, chance)
               for code, count, total, margin, chance in sums}
    legal = view.legal_moves
    codes = [code_of(move) for move in legal]
    if set(codes) != set(by_code) or len(sums) != len(legal):
        raise RuntimeError(f"the native rules' legal moves differ from the view's: "
                           f"{sorted(by_code)} against {codes}")
    return [Totals(move, *by_code[code]) for move, code in zip(legal, codes, strict=True)]


def sample_worlds(view: View, limits: Sequence[Limit], count: int,
                  seed: int) -> list[tuple[tuple[Tile, ...], tuple[Tile, ...]]]:
    """``count`` deals of the tiles ``view`` cannot see by the native search's sampler: each
    (the opponent's tiles in tile order, the rest in order — the boneyard next draw first),
    exactly from the posterior over worlds (non-empty ``limits``) or uniform (none)."""
    run = cast(_SampleFn, engine().sample_worlds)
    deals = run(mask_of(view.unseen()), view.opponent_tiles, distribution_of(view, limits),
                count, seed)
    return [(tuple(t for t in TILES if mask >> t.index & 1), tuple(TILES[i] for i in rest))
            for mask, rest in deals]


__all__ = ["Distribution", "Kind", "MatchValueLike", "Totals", "distribution_of",
           "distribution_of_beliefs", "limits_of", "position_of", "sample_worlds", "search",
           "world_of"]
