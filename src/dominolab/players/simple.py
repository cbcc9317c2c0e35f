"""The random player: a uniform choice among the legal moves."""

from __future__ import annotations

import random

from dominolab.core import Move, View
from dominolab.players.base import Budget, legal_moves_of


class RandomPlayer:
    """Picks uniformly among ``view.legal_moves``, with its own seeded generator."""

    name: str = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: View, budget: Budget | None = None) -> Move:
        legal = legal_moves_of(view)
        return legal[self.rng.randrange(len(legal))]
