"""Players behind one protocol (:class:`Player`): each sees only its seat's View."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

from dominolab.core import OptionError
from dominolab.players.base import Player
from dominolab.players.greedy import GreedyPlayer
from dominolab.players.simple import RandomPlayer

#: name -> factory taking a seed
PLAYERS: Final[dict[str, Callable[[int], Player]]] = {
    "random": lambda seed: RandomPlayer(random.Random(f"dominolab/player/random/{seed}")),
    "greedy": lambda seed: GreedyPlayer(),
}


def make_player(name: str, seed: int) -> Player:
    """The player called ``name`` (``random``, ``greedy``), seeded with ``seed``."""
    factory = PLAYERS.get(name.strip().lower())
    if factory is None:
        raise OptionError(f"no player {name!r}; the players are: {', '.join(PLAYERS)}")
    return factory(seed)


__all__ = ["PLAYERS", "GreedyPlayer", "Player", "RandomPlayer", "make_player"]
