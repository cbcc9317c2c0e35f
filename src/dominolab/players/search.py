"""Search players under hidden information: sample the worlds a view allows, play each
candidate move out in every world, keep the move with the best mean value.

* :class:`PimcPlayer` — plain perfect-information Monte Carlo: uniform worlds, greedy
  playouts to the end of the hand, point margin as the value. The baseline.
* :class:`ExpertPlayer` — worlds weighed by what the opponent's moves proved
  (:mod:`dominolab.core.worlds`), more of them, and the *match* as the value: near the target
  it maximises its chance to win the match (RULES.md §2 even number of hands, §4 win at once),
  not its points.
* :class:`OmniscientPlayer` — the expert's search in the one true world (sees every tile).

Every player takes its randomness from the ``random.Random`` it is built with; with a
``worlds`` budget (and no ``seconds``) its choices repeat exactly.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dominolab.core import Hand, Move, View, WidelecOptions
from dominolab.core.worlds import Limit, fits_limits, hand_from_view, opponent_limits
from dominolab.players.base import Budget

#: spread (logistic scale) of one hand's point margin, per game, from greedy self-play
_HAND_SCALE = {"luzak": 6.6, "luzak-line": 5.9, "widelec": 8.2}
#: points a player scores in a hand, on average (greedy self-play)
_HAND_POINTS = {"luzak": 12.5, "luzak-line": 10.5, "widelec": 11.1}


@dataclass(frozen=True, slots=True)
class MoveValue:
    """How one legal move looks to a search player.

    ``value``: mean value over the worlds searched — the estimated chance to win the match
    (expert) or the point margin (pimc). ``margin``: mean point margin, mine minus the
    opponent's, from this move to the end of the hand (its own points included).
    ``win_chance``: the estimated chance to win the match (None for pimc).
    """

    move: Move
    value: float
    margin: float
    win_chance: float | None
    worlds: int


class MatchValue:
    """The value of a hand's outcome for the seat to move: its chance to win the match."""

    def __init__(self, view: View) -> None:
        self.seat = view.seat
        self.target = view.options.target
        me, opp = view.seat, 1 - view.seat
        self.banked = (view.totals[me] - view.hand_points[me],
                       view.totals[opp] - view.hand_points[opp])
        self.scale = _HAND_SCALE[view.game]
        self.per_hand = _HAND_POINTS[view.game]
        self.at_once = isinstance(view.options, WidelecOptions) and view.options.win_at_once
        even = bool(getattr(view.options, "even_hands", False))
        #: one more hand follows even when the target is reached
        self.one_more = even and view.hand_number % 2 == 1
        # points each seat (by seat number) still needs in this hand to reach the target
        need = [0, 0]
        need[me] = self.target - self.banked[0]
        need[opp] = self.target - self.banked[1]
        self.need = (need[0], need[1])

    def __call__(self, points: Sequence[int], reached: bool) -> float:
        me, opp = self.seat, 1 - self.seat
        mine = self.banked[0] + points[me]
        theirs = self.banked[1] + points[opp]
        if reached or (self.at_once and (mine >= self.target or theirs >= self.target)):
            return 1.0 if mine >= self.target else 0.0
        diff = mine - theirs
        top = max(mine, theirs)
        if top >= self.target:
            if not self.one_more:
                return 1.0 if diff > 0 else 0.0 if diff < 0 else 0.5
            return _logistic(diff / self.scale)
        hands_left = 1.0 + (self.target - top) / self.per_hand
        return _logistic(diff / (self.scale * math.sqrt(hands_left)))


def _logistic(x: float) -> float:
    if x < -30:
        return 0.0
    if x > 30:
        return 1.0
    return 1.0 / (1.0 + math.exp(-x))


def greedy_playout(hand: Hand[Any], need: tuple[int, int] | None = None) -> bool:
    """Play ``hand`` to its end, each side taking its move with the best immediate point
    margin (first in order on ties). With ``need``, stop as soon as a seat's points in the
    hand reach its need (Widelec's win at once); return True if that happened."""
    while hand.result is None:
        legal = hand.legal_moves()
        if len(legal) == 1:
            move = legal[0]
        else:
            seat = hand.to_move
            move = legal[0]
            best = -10_000
            for candidate in legal:
                p = hand.points_of(candidate)
                v = p[seat] - p[1 - seat]
                if v > best:
                    best = v
                    move = candidate
        hand.apply_unchecked(move)
        if need is not None and (hand.points[0] >= need[0] or hand.points[1] >= need[1]):
            return True
    return False


def sample_world(view: View, rng: random.Random,
                 limits: Sequence[Limit] = ()) -> Hand[Any]:
    """A hand state consistent with ``view``: the unseen tiles dealt at random to the
    opponent and the rest (the boneyard in random order), respecting ``limits`` when a
    deal that does can be found quickly."""
    unseen = list(view.unseen())
    k = view.opponent_tiles
    for _ in range(64 if limits else 1):
        rng.shuffle(unseen)
        if not limits:
            return hand_from_view(view, unseen[:k], unseen[k:])
        chosen: list[Any] = []
        left: list[Any] = []
        for tile in unseen:
            if len(chosen) < k and fits_limits([*chosen, tile], limits):
                chosen.append(tile)
            else:
                left.append(tile)
        if len(chosen) == k:
            return hand_from_view(view, chosen, left)
    rng.shuffle(unseen)
    return hand_from_view(view, unseen[:k], unseen[k:])


class _MonteCarlo:
    """The shared search: every legal move played out in the same sampled worlds."""

    name = "search"
    default = Budget(worlds=40, seconds=1.0)
    inference = False
    match_aware = False
    #: in each world, the opponent answers each candidate with its best reply (by the
    #: playouts that follow) instead of the greedy one
    reply_search = False

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: View, budget: Budget | None = None) -> Move:
        legal = view.legal_moves
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal move (it is not to move)")
        if len(legal) == 1:
            return legal[0]
        return self.analyse(view, budget)[0].move

    def analyse(self, view: View, budget: Budget | None = None) -> list[MoveValue]:
        """Every legal move with its value, best first."""
        return self._search(view, budget, None)

    def _best_reply(self, hand: Hand[Any], me: int, need: tuple[int, int] | None,
                    value: MatchValue) -> tuple[float, float]:
        """The opponent's reply that is worst for ``me`` after greedy playouts: (margin,
        score) of that line."""
        opp = 1 - me
        worst: tuple[float, float] | None = None
        for reply in hand.legal_moves():
            line = hand.copy()
            line.apply_unchecked(reply)
            reached = need is not None and (line.points[0] >= need[0]
                                            or line.points[1] >= need[1])
            if not reached:
                reached = greedy_playout(line, need)
            margin = line.points[me] - line.points[opp]
            score = value(line.points, reached) if self.match_aware else margin
            if worst is None or (score, margin) < worst[::-1]:
                worst = (margin, score)
        assert worst is not None
        return worst

    def _worlds(self, view: View, true_hand: Hand[Any] | None,
                limits: Sequence[Limit]) -> Hand[Any]:
        if true_hand is not None:
            return true_hand
        return sample_world(view, self.rng, limits)

    def _search(self, view: View, budget: Budget | None,
                true_hand: Hand[Any] | None) -> list[MoveValue]:
        legal = list(view.legal_moves)
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal move (it is not to move)")
        budget = budget or self.default
        worlds = budget.worlds if budget.worlds is not None else (
            self.default.worlds if budget.seconds is None else 1_000_000)
        assert worlds is not None
        if true_hand is not None:
            worlds = 1
        deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds
        me, opp = view.seat, 1 - view.seat
        value = MatchValue(view)
        need = value.need if value.at_once and self.match_aware else None
        limits = opponent_limits(view) if self.inference and true_hand is None else ()
        sums = [0.0] * len(legal)
        margins = [0.0] * len(legal)
        done = 0
        while done < worlds:
            world = self._worlds(view, true_hand, limits)
            before = world.points[me] - world.points[opp]
            for i, move in enumerate(legal):
                hand = world.copy()
                hand.apply_unchecked(move)
                if self.reply_search and hand.result is None and hand.to_move == opp:
                    margin, score = self._best_reply(hand, me, need, value)
                else:
                    reached = greedy_playout(hand, need)
                    margin = hand.points[me] - hand.points[opp]
                    score = value(hand.points, reached) if self.match_aware else margin
                margins[i] += margin - before
                sums[i] += score - (0 if self.match_aware else before)
            done += 1
            if deadline is not None and time.perf_counter() >= deadline:
                break
        results = [
            MoveValue(move, sums[i] / done, margins[i] / done,
                      sums[i] / done if self.match_aware else None, done)
            for i, move in enumerate(legal)
        ]
        order = sorted(range(len(legal)), key=lambda i: (-results[i].value,
                                                         -results[i].margin, i))
        return [results[i] for i in order]


class PimcPlayer(_MonteCarlo):
    """Plain perfect-information Monte Carlo: 40 uniform worlds, greedy playouts to the end
    of the hand, the best mean point margin."""

    name = "pimc"
    default = Budget(worlds=40, seconds=3.0)


class ExpertPlayer(_MonteCarlo):
    """The strongest honest player: worlds consistent with everything the opponent's moves
    proved, more of them, and the match's outcome as the value."""

    name = "expert"
    default = Budget(worlds=200, seconds=1.0)
    inference = True
    match_aware = True


class OmniscientPlayer(_MonteCarlo):
    """Sees every tile (a measuring stick only): the expert's search in the true world."""

    name = "omniscient"
    sees_all = True
    default = Budget(worlds=1, seconds=3.0)
    match_aware = True

    def choose_seeing(self, hand: Hand[Any], view: View, budget: Budget | None = None) -> Move:
        legal = view.legal_moves
        if len(legal) == 1:
            return legal[0]
        return self._search(view, budget, hand)[0].move

    def choose(self, view: View, budget: Budget | None = None) -> Move:
        raise TypeError("the omniscient player must be given the hand: use choose_seeing")


__all__ = ["ExpertPlayer", "MatchValue", "MoveValue", "OmniscientPlayer", "PimcPlayer",
           "greedy_playout", "sample_world"]
