"""The random player: a uniform choice among the legal moves."""

from __future__ import annotations

import random

from dominolab.core import Move, View
from dominolab.players.base import Budget


class RandomPlayer:
    """Picks uniformly among ``view.legal_moves``, with its own seeded generator."""

    name: str = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: View, budget: Budget | None = None) -> Move:
        legal = view.legal_moves
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal move (it is not to move)")
        return legal[self.rng.randrange(len(legal))]
