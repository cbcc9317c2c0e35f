"""The greedy player: the most immediate points for itself minus the most the opponent can
answer with next, judged only from what its seat may see.

For each legal move: lay it on a copy of the table and take ``mine - opponent's`` points.
Then every normal play of every tile the seat cannot see (the opponent may hold any of
them) is tried on the resulting table; the best ``opponent's - mine`` among them is the
answer (0 if there is none, or if the move ends the hand). The score is gain - answer; the
highest wins, ties going to a move that empties the hand, then to the first in legal-move
order. Draw, pass and keep score 0.

This module is the readable statement of the player; where the native fast path is in use,
the same choice is computed there (:func:`dominolab.native.greedy_choice`, checked against
this one in tests/test_native_engine.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dominolab import native
from dominolab.core import Move, Options, Play, Points, Tile, View, get_game
from dominolab.players.base import Budget, legal_moves_of

#: ``score_placement(table, move, seat, options)``: lay the move, return its points
_Scorer = Callable[[Any, Play, int, Options], Points]


class GreedyPlayer:
    """One-ply greedy with a look at the opponent's best immediate answer. Deterministic."""

    name: str = "greedy"

    def choose(self, view: View, budget: Budget | None = None) -> Move:
        legal = legal_moves_of(view)
        if len(legal) == 1:
            return legal[0]
        if native.enabled():
            return native.greedy_choice(view)
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
