"""A whole match (Luzak) or game (Widelec): hands dealt from a seed, alternating openers,
totals, and the end at the target (RULES.md sections 1-5)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dominolab.core.errors import GameOverError, OptionError, shown
from dominolab.core.games import GameSpec, get_game
from dominolab.core.hand import Deal, Hand, HandResult, Points, Step, WidelecHand
from dominolab.core.moves import Move
from dominolab.core.options import Options
from dominolab.core.view import View, view_of


@dataclass(frozen=True, slots=True)
class MatchResult:
    """How the match ended: ``winner`` (None for a draw), the totals, the hands played.

    ``end`` is ``"target"`` (a player reached the target and the hands were played out),
    ``"at-once"`` (Widelec: the target was reached and won at once, perhaps mid-hand) or
    ``"deals"`` (the deals given to the match ran out before the target was reached; the
    higher total wins).
    """

    end: str
    winner: int | None
    totals: Points
    hands: int


def first_opener_by_lot(seed: int) -> int:
    """The seat that opens the first hand, drawn by lot from the match seed."""
    return random.Random(f"dominolab/{seed}/lot").randrange(2)


def opener_of_hand(first_opener: int, number: int) -> int:
    """The seat that opens hand ``number`` (1, 2, ...) of a match whose first hand
    ``first_opener`` opens: openers alternate hand by hand (RULES.md section 1)."""
    return first_opener if number % 2 == 1 else 1 - first_opener


def end_of_match(totals: Points, hands: int, hand_over: bool, options: Options,
                 out_of_deals: bool = False) -> MatchResult | None:
    """How a match under ``options`` ends after a move, or None while it goes on: the one
    statement of the match's end (RULES.md sections 2, 4 and 5), which :class:`Match`
    follows after every move and a fast loop that plays whole hands at once asks after each.

    ``totals``: each seat's points, the hand just played into included; ``hands``: hands
    dealt so far, the last one over (``hand_over``) or not. With the option ``win_at_once`` a
    seat that reaches the target wins at once, even mid-hand (``"at-once"``; the hand in
    progress is then cut). Otherwise the match ends only with a hand: at the target
    (``"target"``), unless ``even_hands`` asks for one more hand after an odd number, or when
    the deals given to it have run out (``out_of_deals``, ``"deals"``); the higher total
    then wins."""
    target = options.target
    reached = totals[0] >= target or totals[1] >= target
    if reached and getattr(options, "win_at_once", False):
        return MatchResult("at-once", 0 if totals[0] >= target else 1, totals, hands)
    if not hand_over:
        return None
    if reached and not (getattr(options, "even_hands", False) and hands % 2 == 1):
        end = "target"
    elif out_of_deals:
        end = "deals"
    else:
        return None
    a, b = totals
    return MatchResult(end, 0 if a > b else 1 if b > a else None, totals, hands)


def points_to_win_at_once(banked: Points, options: Options) -> Points | None:
    """The points in a hand at which each seat, ``banked`` holding its points from the hands
    before, reaches the target and so wins at once (the ``"at-once"`` of
    :func:`end_of_match`); None when reaching the target ends no hand (``win_at_once`` off,
    or a game without that option)."""
    if not getattr(options, "win_at_once", False):
        return None
    return (options.target - banked[0], options.target - banked[1])


class Match:
    """A match of one game under one set of rule options.

    Deals come from ``seed`` (hand ``h`` from :meth:`Deal.for_hand`), or from ``deals`` given
    in order (a record's). The next hand starts by itself when one ends.
    """

    def __init__(self, game: str | GameSpec, options: Options | None = None, *,
                 seed: int | None = None, deals: Sequence[Deal] | None = None,
                 first_opener: int | None = None) -> None:
        self.spec = get_game(game) if isinstance(game, str) else game
        self.options: Any = self.spec.options(options)
        if seed is None and deals is None:
            raise OptionError("a match needs a seed or its deals")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise OptionError(f"the seed must be a whole number, not {shown(seed)}")
        self.seed = seed
        self._deals = tuple(deals) if deals is not None else None
        if first_opener is None:
            if seed is None:
                raise OptionError("without a seed, say who opens the first hand")
            first_opener = first_opener_by_lot(seed)
        if first_opener not in (0, 1):
            raise OptionError(f"first opener must be seat 0 or 1, not {shown(first_opener)}")
        self.first_opener = first_opener
        self.hands: list[Hand[Any]] = []
        #: the steps of every hand made through the checked :meth:`apply`
        self.steps: list[list[Step]] = []
        self._banked = [0, 0]
        self.result: MatchResult | None = None
        self._win_at_once = bool(getattr(self.options, "win_at_once", False))
        self._start_hand()

    # -- state -------------------------------------------------------------------------------
    @property
    def hand(self) -> Hand[Any]:
        """The hand in progress (or the last one, once the match is over)."""
        return self.hands[-1]

    @property
    def hand_number(self) -> int:
        return len(self.hands)

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def to_move(self) -> int | None:
        return None if self.result is not None else self.hands[-1].to_move

    @property
    def totals(self) -> Points:
        if self._current_banked:
            return (self._banked[0], self._banked[1])
        p = self.hands[-1].points
        return (self._banked[0] + p[0], self._banked[1] + p[1])

    def deal_for(self, number: int) -> Deal:
        if self._deals is not None:
            if number > len(self._deals):
                raise GameOverError(f"no deal given for hand {number}")
            return self._deals[number - 1]
        assert self.seed is not None
        return Deal.for_hand(self.seed, number, self.spec.hand_size)

    def opener_of(self, number: int) -> int:
        return opener_of_hand(self.first_opener, number)

    def _start_hand(self) -> None:
        number = len(self.hands) + 1
        self.hands.append(self.spec.hand_class(self.deal_for(number), self.opener_of(number),
                                               self.options))
        self.steps.append([])
        self._current_banked = False

    # -- moves -------------------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        if self.result is not None:
            return []
        return self.hands[-1].legal_moves()

    def parse_move(self, text: str) -> Move:
        if self.result is not None:
            raise GameOverError(f"{shown(text)}: the match is over")
        return self.hands[-1].parse_move(text)

    def apply(self, move: Move) -> Step:
        """Check and apply a move of the seat to move; return what it did."""
        if self.result is not None:
            raise GameOverError(f"{move}: the match is over")
        step = self.hands[-1].apply(move)
        self.steps[-1].append(step)
        self._after_move()
        return step

    def apply_unchecked(self, move: Move) -> Points:
        """Fast path for search and simulation: ``move`` must be legal. Steps are not kept."""
        points = self.hands[-1].apply_unchecked(move)
        self._after_move()
        return points

    def _after_move(self) -> None:
        hand = self.hands[-1]
        over = hand.result is not None
        if not over and not self._win_at_once:
            return  # only a hand's end, or reaching the target with win_at_once, decides
        out_of_deals = self._deals is not None and len(self.hands) >= len(self._deals)
        result = end_of_match(self.totals, len(self.hands), over, self.options, out_of_deals)
        if result is None:
            if over:
                self._bank(hand)
                self._start_hand()
            return
        if not over:
            assert isinstance(hand, WidelecHand)
            hand.cut()
        self._bank(hand)
        self.result = result

    def _bank(self, hand: Hand[Any]) -> None:
        self._banked[0] += hand.points[0]
        self._banked[1] += hand.points[1]
        self._current_banked = True

    # -- views and copies --------------------------------------------------------------------
    def results(self) -> tuple[HandResult, ...]:
        """How each finished hand ended."""
        return tuple(h.result for h in self.hands if h.result is not None)

    def view(self, seat: int) -> View:
        """What ``seat`` may see now."""
        previous = tuple(h.result for h in self.hands[:-1] if h.result is not None)
        return view_of(self.hands[-1], seat, hand_number=len(self.hands), totals=self.totals,
                       previous=previous, match_result=self.result)

    def copy(self) -> Match:
        new = Match.__new__(Match)
        new.spec = self.spec
        new.options = self.options
        new.seed = self.seed
        new._deals = self._deals
        new.first_opener = self.first_opener
        new.hands = [*self.hands[:-1], self.hands[-1].copy()]
        new.steps = [s.copy() for s in self.steps]
        new._banked = self._banked.copy()
        new._current_banked = self._current_banked
        new.result = self.result
        new._win_at_once = self._win_at_once
        return new
