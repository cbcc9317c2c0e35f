"""The greedy players: the most immediate points for itself minus what the opponent can
answer with next, judged only from what its seat may see.

* :class:`GreedyPlayer` (``greedy``, the ``easy`` level) — the opponent's answer is its
  EXPECTED best answer over the hands it may hold.
* :class:`WorstCaseGreedyPlayer` (``greedy-worst``) — the earlier greedy: the opponent's
  answer is the best over ALL unseen tiles, as if the opponent held every one of them. An
  independent greedy of the first kind beat it (issue 13: 36.7% of Luzak duplicate pairs).

Both: for each legal move, lay it on a copy of the table and take ``gain = mine -
opponent's`` points; if the move ends the hand (it empties the hand, or lays the Luzak
games' last tile) there is no answer. The score is gain - answer; the highest wins, ties
going to a move that empties the hand, then to the first in legal-move order. Draw, pass and
keep score 0.

**The expected answer.** The opponent holds ``k = view.opponent_tiles`` of the ``u``
*candidate* tiles: the tiles the seat cannot see (in Widelec the boneyard's tiles are among
them: the opponent holds k of the unseen tiles, the boneyard the rest) minus the tiles the
opponent's moves prove it does not hold — the facts of
:func:`dominolab.core.worlds.opponent_limits` that allow no fitting tile (``allowed == 0``:
a Luzak luzak; a Widelec draw or pass with no hidden draw since). Facts that allow some
fitting tiles (a Widelec draw followed by draws whose tiles stayed hidden) are ignored: those
tiles stay candidates. Each k-subset of the candidates is taken as equally likely. With
``a_t`` the best net points (opponent's - mine, at least 0) of tile t's normal plays on the
new table, sorted ``a_1 >= a_2 >= ...``, the expected best answer is
``E = sum_i a_i * C(u - i, k - 1) / C(u, k)`` (tile i is the best held exactly when it is
held and none of the i - 1 better ones is). Scores are compared multiplied by ``C(u, k)``,
as integers, so the native fast path (csrc/rules.c ``st_greedy_expected_choice``) makes
bit-identical choices.

This module is the readable statement of the players; where the native fast path is in use,
the same choices are computed there (:func:`dominolab.native.greedy_choice`, checked against
this one in tests/test_native_engine.py and tests/test_baselines.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from math import comb
from typing import Any

from dominolab import native
from dominolab.core import TILES, Hand, Move, Options, Play, Points, Tile, View, get_game
from dominolab.core.worlds import proven_absent
from dominolab.players.base import Budget, legal_moves_of

#: ``score_placement(table, move, seat, options)``: lay the move, return its points
_Scorer = Callable[[Any, Play, int, Options], Points]


def expected_best(answers: Iterable[int], u: int, k: int) -> int:
    """``C(u, k)`` times the expected best of ``max(0, a)`` over a uniformly random k-subset
    of ``u`` tiles, ``answers`` being the candidates' answers (the others' are 0)."""
    if k <= 0:
        return 0
    total = 0
    for i, a in enumerate(sorted((a for a in answers if a > 0), reverse=True), start=1):
        if u - i < k - 1:
            break
        total += a * comb(u - i, k - 1)
    return total


def expected_choice(legal: Sequence[Move], table: Any, seat: int, hand: Sequence[Tile],
                    candidates: Sequence[Tile], k: int, options: Options, game: str) -> Move:
    """The expected-answer greedy's choice among ``legal`` (see the module's docstring):
    ``table`` is the table now (left untouched), ``hand`` the seat's tiles, ``candidates``
    the tiles the opponent may hold, ``k`` how many it holds."""
    best: Move = legal[0]
    best_key: tuple[int, bool] | None = None
    for move in legal:
        key = expected_score(move, table, seat, len(hand) == 1 and move.tile in hand
                             if isinstance(move, Play) else False,
                             candidates, k, options, game)
        if best_key is None or key > best_key:
            best, best_key = move, key
    return best


def expected_score(move: Move, table: Any, seat: int, goes_out: bool,
                   candidates: Sequence[Tile], k: int, options: Options,
                   game: str) -> tuple[int, bool]:
    """The expected-answer greedy's key for one legal move: (``C(u, k)`` times its gain less
    the opponent's expected best answer, whether it empties the hand — ``goes_out``, which
    the caller knows from the seat's tiles). ``table`` is left untouched."""
    if not isinstance(move, Play):
        return (0, False)
    spec = get_game(game)
    scorer: _Scorer = spec.hand_class.score_placement
    u = len(candidates)
    k = min(k, u)
    after = table.copy()
    points = scorer(after, move, seat, options)
    gain = (points[seat] - points[1 - seat]) * comb(u, k)
    if goes_out or (not spec.has_boneyard and after.n >= spec.tiles_per_hand):
        return (gain, goes_out)
    answers = (_answer(after, tile, scorer, seat, options) for tile in candidates)
    return (gain - expected_best(answers, u, k), goes_out)


def _answer(table: Any, tile: Tile, scorer: _Scorer, seat: int, options: Options) -> int:
    """The most the opponent nets (its points - the seat's, at least 0) with a normal play
    of ``tile`` on ``table``."""
    best = 0
    opp = 1 - seat
    for play in table.normal_plays((tile,)):
        if play.port is None:
            continue
        after = scorer(table.copy(), play, opp, options)
        best = max(best, after[opp] - after[seat])
    return best


class GreedyPlayer:
    """One-ply greedy minus the opponent's expected best immediate answer. Deterministic."""

    name: str = "greedy"

    def choose(self, view: View, budget: Budget | None = None) -> Move:
        legal = legal_moves_of(view)
        if len(legal) == 1:
            return legal[0]
        if native.enabled():
            return native.greedy_choice(view)
        return greedy_move_holding(view, view.hand, legal, proven_absent(view))


def greedy_move_holding(view: View, held: Sequence[Tile], legal: Sequence[Move],
                        absent: Iterable[Tile]) -> Move:
    """The expected-answer greedy's move in ``view`` had its seat held ``held`` (its legal
    moves then ``legal``) instead of its own tiles: how a greedy opponent would have played
    with other tiles (:class:`dominolab.players.beliefs.GreedyModel`). ``absent``: tiles the
    seat's opponent is proven not to hold (any held or on the table are ignored)."""
    return GreedyHolding(view, absent).move(held, legal)


class GreedyHolding:
    """:func:`greedy_move_holding` in one ``view`` for many hands its seat might hold, each
    of the same size (a model weighing hundreds of worlds at one of the opponent's choices):
    on the fast path the table is built once."""

    def __init__(self, view: View, absent: Iterable[Tile]) -> None:
        self.view = view
        self.absent = frozenset(absent)
        self._absent_mask = native.mask_of(self.absent)
        self._native: native.GreedyHolding | None = None

    def move(self, held: Sequence[Tile], legal: Sequence[Move]) -> Move:
        """The greedy's move had the seat held ``held`` (its legal moves then ``legal``)."""
        view = self.view
        if native.enabled():
            if self._native is None:
                self._native = native.GreedyHolding(view, len(held))
            return self._native.choice(native.mask_of(held), self._absent_mask)
        seen = {*held, *(p.tile for p in view.table), *self.absent}
        candidates = [t for t in TILES if t not in seen]
        return expected_choice(legal, view.new_table(), view.seat, held, candidates,
                               view.opponent_tiles, view.options, view.game)


def greedy_expected_move(hand: Hand[Any]) -> Move:
    """The expected-answer greedy's move for the seat to move in ``hand``, judged from that
    seat's own tiles and the table only (no proven facts): the search's playout policy."""
    legal = hand.legal_moves()
    if len(legal) == 1:
        return legal[0]
    seat = hand.to_move
    own = hand.hands[seat]
    seen = set(own)
    seen.update(p.tile for p in hand.table_placements)
    candidates = [t for t in TILES if t not in seen]
    return expected_choice(legal, hand.table, seat, own, candidates,
                           len(hand.hands[1 - seat]), hand.options, hand.GAME)


class WorstCaseGreedyPlayer:
    """The earlier greedy (``greedy-worst``): one ply minus the opponent's best immediate
    answer over all unseen tiles. Deterministic."""

    name: str = "greedy-worst"

    def choose(self, view: View, budget: Budget | None = None) -> Move:
        legal = legal_moves_of(view)
        if len(legal) == 1:
            return legal[0]
        if native.enabled():
            return native.greedy_worst_choice(view)
        scorer: _Scorer = get_game(view.game).hand_class.score_placement
        unseen = view.unseen()
        best: Move = legal[0]
        best_key: tuple[int, bool] | None = None
        for move in legal:
            key = self._evaluate(view, move, scorer, unseen)
            if best_key is None or key > best_key:
                best, best_key = move, key
        return best

    @staticmethod
    def _evaluate(view: View, move: Move, scorer: _Scorer,
                  unseen: tuple[Tile, ...]) -> tuple[int, bool]:
        """(score, empties the hand) of one legal move."""
        if not isinstance(move, Play):
            return (0, False)
        seat, opp, options = view.seat, 1 - view.seat, view.options
        table = view.new_table()
        points = scorer(table, move, seat, options)
        gain = points[seat] - points[opp]
        goes_out = len(view.hand) == 1 and move.tile in view.hand
        if goes_out or (view.boneyard is None and table.n >= 12):
            return (gain, goes_out)  # the hand ends: no answer
        answer = 0
        for play in table.normal_plays(unseen):
            if play.port is None:
                continue
            after = scorer(table.copy(), play, opp, options)
            answer = max(answer, after[opp] - after[seat])
        return (gain - answer, goes_out)


__all__ = ["GreedyPlayer", "WorstCaseGreedyPlayer", "expected_best", "expected_choice",
           "expected_score", "greedy_expected_move", "greedy_move_holding"]
