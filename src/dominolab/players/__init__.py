"""Players behind one protocol (:class:`Player`): each sees only its seat's View.

Names: ``random``, ``greedy`` (one ply minus the opponent's expected best answer),
``pimc`` (plain perfect-information Monte Carlo with greedy playouts, the baseline every
search idea must beat), ``expert`` (the strongest honest player: ISMCTS reading the
opponent's choices, as a greedy or a searching player's), ``expert-plain`` (the expert on
the rules' posterior alone, as it was before it read the opponent), ``omniscient`` (sees
every tile; a measuring stick, never a person's opponent). The earlier forms of the
baselines (issue 13): ``greedy-worst`` (the greedy that subtracts the opponent's best
answer over all unseen tiles) and ``pimc-classic`` (40 worlds, playouts by the best
immediate margin).
Levels for people: ``easy``, ``medium``, ``hard`` (see :data:`LEVELS`). A spec
``NAME:BUDGET`` sets the budget, e.g. ``expert:0.5s``, ``pimc:40w``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

from dominolab.core import OptionError
from dominolab.core.errors import shown
from dominolab.players.base import Budget, Player, SeeingPlayer
from dominolab.players.greedy import GreedyPlayer, WorstCaseGreedyPlayer
from dominolab.players.search import (
    ClassicPimcPlayer,
    ExpertPlayer,
    OmniscientPlayer,
    PimcPlayer,
)
from dominolab.players.simple import RandomPlayer


def _rng(name: str, seed: int) -> random.Random:
    return random.Random(f"dominolab/player/{name}/{seed}")


#: name -> factory taking a seed
PLAYERS: Final[dict[str, Callable[[int], Player]]] = {
    "random": lambda seed: RandomPlayer(_rng("random", seed)),
    "greedy": lambda seed: GreedyPlayer(),
    "pimc": lambda seed: PimcPlayer(_rng("pimc", seed)),
    "greedy-worst": lambda seed: WorstCaseGreedyPlayer(),
    "pimc-classic": lambda seed: ClassicPimcPlayer(_rng("pimc-classic", seed)),
    "expert": lambda seed: ExpertPlayer(_rng("expert", seed)),
    # the same random stream: where the model declines the two play the same moves, and
    # runs of the expert before the model (docs/strength.md) repeat exactly
    "expert-plain": lambda seed: ExpertPlayer(_rng("expert", seed), reading=False),
    "omniscient": lambda seed: OmniscientPlayer(_rng("omniscient", seed)),
}

#: strength levels offered to people: level -> (player, budget)
LEVELS: Final[dict[str, tuple[str, Budget | None]]] = {
    "easy": ("greedy", None),
    "medium": ("pimc", Budget(worlds=40)),
    "hard": ("expert", None),
}


def _no_player(name: str) -> OptionError:
    return OptionError(f"no player {shown(name)}; players: {', '.join(PLAYERS)} "
                       f"(levels: {', '.join(LEVELS)})")


def make_player(name: str, seed: int) -> Player:
    """The player called ``name`` (a player or a level), seeded with ``seed``."""
    key = name.strip().lower()
    if key in LEVELS:
        key = LEVELS[key][0]
    factory = PLAYERS.get(key)
    if factory is None:
        raise _no_player(name)
    return factory(seed)


def parse_player_spec(text: str) -> tuple[str, Budget | None]:
    """``NAME[:BUDGET]`` -> (name, budget); a level brings its own budget."""
    name, _, budget_text = text.strip().partition(":")
    key = name.strip().lower()
    if key not in PLAYERS and key not in LEVELS:
        raise _no_player(name)
    budget = Budget.parse(budget_text) if budget_text.strip() else None
    if key in LEVELS and budget is None:
        budget = LEVELS[key][1]
    return key, budget


__all__ = ["LEVELS", "PLAYERS", "Budget", "ClassicPimcPlayer", "ExpertPlayer", "GreedyPlayer",
           "OmniscientPlayer", "PimcPlayer", "Player", "RandomPlayer", "SeeingPlayer",
           "WorstCaseGreedyPlayer", "make_player", "parse_player_spec"]
