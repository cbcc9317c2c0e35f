"""Players behind one protocol (:class:`Player`): each sees only its seat's View.

Names: ``random``, ``greedy`` (one ply minus the opponent's expected best answer),
``pimc`` (plain perfect-information Monte Carlo with greedy playouts, the baseline every
search idea must beat), ``expert`` (the strongest honest player: ISMCTS reading the
opponent's choices, as a greedy or a searching player's), ``expert-plain`` (the expert on
the rules' posterior alone, as it was before it read the opponent), ``omniscient`` (sees
every tile; a measuring stick, never a person's opponent), ``learned`` (a network trained on
the values a search gives each move, :mod:`dominolab.players.learned`: its best-valued move, no
search). The earlier forms of the
baselines (issue 13): ``greedy-worst`` (the greedy that subtracts the opponent's best
answer over all unseen tiles) and ``pimc-classic`` (40 worlds, playouts by the best
immediate margin).
Levels for people: ``easy``, ``medium``, ``hard`` (see :data:`LEVELS`). A spec
``NAME:BUDGET`` sets the budget, e.g. ``expert:0.5s``, ``pimc:40w``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
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


def _learned(seed: int) -> Player:
    """The ``learned`` player, its module (and NumPy) read only when one is made: every
    command and the web app import the players, few of them ask for this one."""
    from dominolab.players.learned import LearnedPlayer

    return LearnedPlayer()


@dataclass(frozen=True, slots=True)
class PlayerKind:
    """One entry of the registry: how to make the player and what a front end says of it.

    ``make``: a factory taking a seed; ``clocked``: its default budget includes seconds,
    so its choices repeat exactly only under a budget in worlds alone (a player that takes
    no budget, such as greedy, never reads a clock); ``about``: a few words for help texts.
    """

    make: Callable[[int], Player]
    clocked: bool
    about: str


#: name -> kind, in the order help texts list them
KINDS: Final[dict[str, PlayerKind]] = {
    "random": PlayerKind(lambda seed: RandomPlayer(_rng("random", seed)), False,
                         "uniform over the legal moves"),
    "greedy": PlayerKind(lambda seed: GreedyPlayer(), False,
                         "one ply minus the opponent's expected best answer"),
    "pimc": PlayerKind(lambda seed: PimcPlayer(_rng("pimc", seed)), True,
                       "perfect-information Monte Carlo"),
    "greedy-worst": PlayerKind(lambda seed: WorstCaseGreedyPlayer(), False,
                               "the earlier greedy, against the opponent's best answer"),
    "pimc-classic": PlayerKind(lambda seed: ClassicPimcPlayer(_rng("pimc-classic", seed)),
                               True, "the earlier pimc"),
    "expert": PlayerKind(lambda seed: ExpertPlayer(_rng("expert", seed)), True,
                         "ISMCTS reading the opponent"),
    # the same random stream: where the model declines the two play the same moves, and
    # runs of the expert before the model (docs/strength/log.md) repeat exactly
    "expert-plain": PlayerKind(lambda seed: ExpertPlayer(_rng("expert", seed), reading=False),
                               True, "the expert without reading the opponent"),
    "omniscient": PlayerKind(lambda seed: OmniscientPlayer(_rng("omniscient", seed)), True,
                             "sees every tile; a measuring stick"),
    "learned": PlayerKind(_learned, False,
                          "a trained network's best-valued move, no search"),
}

#: name -> factory taking a seed
PLAYERS: Final[dict[str, Callable[[int], Player]]] = {
    name: kind.make for name, kind in KINDS.items()}

#: strength levels offered to people: level -> (player, budget). Budgets in worlds only:
#: a level plays as strongly on a busy server as on a quiet one, and the same position gives
#: the same move (hard's 40,000 iterations fit its time, a median of at most 1 s and at most
#: 3 s a move on the 2-core machine: docs/strength.md, "Time a move at the level people meet")
LEVELS: Final[dict[str, tuple[str, Budget | None]]] = {
    "easy": ("greedy", None),
    "medium": ("pimc", Budget(worlds=40)),
    "hard": ("expert", Budget(worlds=40_000)),
}


def _no_player(name: str) -> OptionError:
    return OptionError(f"no player {shown(name)}; players: {', '.join(PLAYERS)} "
                       f"(levels: {', '.join(LEVELS)})")


def plain_name(name: str) -> str:
    """The player behind ``name``: a level's player, or the name itself (lower case)."""
    key = name.strip().lower()
    return LEVELS[key][0] if key in LEVELS else key


def thinks_against_clock(name: str, budget: Budget | None) -> bool:
    """Whether the player ``name`` (a player or a level) under ``budget`` (None: its own
    default) reads the clock, so that its choices need not repeat: a clocked player
    (:attr:`PlayerKind.clocked`) unless the budget is in worlds only; OptionError for a
    name that is neither."""
    kind = KINDS.get(plain_name(name))
    if kind is None:
        raise _no_player(name)
    if not kind.clocked:
        return False
    return budget is None or budget.seconds is not None or budget.worlds is None


def players_text() -> str:
    """Every player's name, comma-separated in the registry's order, for help texts."""
    return ", ".join(KINDS)


def make_player(name: str, seed: int) -> Player:
    """The player called ``name`` (a player or a level), seeded with ``seed``."""
    factory = PLAYERS.get(plain_name(name))
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


__all__ = ["KINDS", "LEVELS", "PLAYERS", "Budget", "ClassicPimcPlayer", "ExpertPlayer",
           "GreedyPlayer", "OmniscientPlayer", "PimcPlayer", "Player",
           "PlayerKind", "RandomPlayer", "SeeingPlayer", "WorstCaseGreedyPlayer", "make_player",
           "parse_player_spec", "plain_name", "players_text", "thinks_against_clock"]
