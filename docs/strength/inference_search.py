"""A prototype opponent model, world by world: ``python docs/strength/inference_search.py
GAME OPPONENT POSITIONS WORLDS TAU FLOOR PIMC_WORLDS``, e.g.
``python docs/strength/inference_search.py luzak pimc 100 100 2 0.1 8`` (Luzak games only:
it replays worlds without draws).

The positions are those of docs/strength/inference.py. ``WORLDS`` opponent hands are drawn
from the exact posterior of the rules alone; each is replayed through the engine from the
start of the hand (tests/worlds_support.py ``replay``), and at each of the opponent's choices
a small PIMC (``PIMC_WORLDS`` deals, :class:`~dominolab.players.search.PimcPlayer`) values
its legal moves *with that hand*; the world's weight is the product over its choices of
``FLOOR / moves + (1 - FLOOR) * softmax(values / TAU)[the move it made]``. Unlike
:class:`~dominolab.players.beliefs.ChoiceModel`, which scores each tile once for every world
as a greedy player would, this asks what a player that looks ahead would have done with
each hand. It prints the Brier score of the tile chances for the rules alone and for the
model, over the same worlds (lower is better); docs/strength.md has the figures.
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from dominolab.core import Hand, Match, Play, Tile
from dominolab.core.view import view_of
from dominolab.core.worlds import HiddenWorlds
from dominolab.players import make_player
from dominolab.players.base import Budget
from dominolab.players.search import PimcPlayer
from worlds_support import replay


def log_likelihood(hand: Hand[Any], view: Any, theirs: tuple[Tile, ...], pimc: PimcPlayer,
                   tau: float, floor: float, budget: Budget) -> float:
    """The log-likelihood of the opponent's choices in the world where it holds ``theirs``
    (minus infinity if the history is not legal there)."""
    opponent = 1 - view.seat
    total = 0.0

    def visit(world: Hand[Any], i: int) -> None:
        nonlocal total
        seat, move = view.history[i]
        if seat != opponent or not isinstance(move, Play) or move.luzak:
            return
        seen = view_of(world, opponent)
        if len(seen.legal_moves) < 2:
            return
        values = pimc.analyse(seen, budget)
        best = max(v.value for v in values)
        worth = {v.move: math.exp((v.value - best) / tau) for v in values}
        # the move made, or the one of its class the search valued (equivalent moves)
        chosen = worth.get(move, max((w for m, w in worth.items()
                                      if isinstance(m, Play) and m.tile == move.tile),
                                     default=0.0))
        total += math.log(floor / len(values) + (1 - floor) * chosen / sum(worth.values()))

    if replay(hand, view, theirs, {}, visit=visit) is None:
        return -math.inf
    return total


def brier(hands: list[tuple[Tile, ...]], weights: list[float], unseen: list[Tile],
          truth: set[Tile]) -> float:
    total = sum(weights)
    chance = dict.fromkeys(unseen, 0.0)
    for hand, weight in zip(hands, weights, strict=True):
        for tile in hand:
            chance[tile] += weight / total
    return sum((chance[t] - (t in truth)) ** 2 for t in unseen) / len(unseen)


def main(argv: list[str]) -> int:
    if len(argv) != 7:
        print(__doc__, file=sys.stderr)
        return 2
    game, opponent = argv[0], argv[1]
    positions, count = int(argv[2]), int(argv[3])
    tau, floor, budget = float(argv[4]), float(argv[5]), Budget(worlds=int(argv[6]))
    scores: dict[str, list[float]] = {"rules alone": [], "model": []}
    for seed in range(positions):
        match = Match(game, seed=seed)
        players = [make_player(opponent, 2 * seed), make_player(opponent, 2 * seed + 1)]
        stop = random.Random(seed).randrange(4, 12)
        laid = 0
        while not match.is_over and match.hand_number == 1:
            seat = match.to_move
            assert seat is not None
            view = match.view(seat)
            if seat == 0 and laid >= stop:
                unseen = list(view.unseen())
                rng = random.Random(seed)
                worlds = HiddenWorlds(view)
                hands = [tuple(worlds.sample(rng)[0]) for _ in range(count)]
                pimc = PimcPlayer(random.Random(seed))
                logs = [log_likelihood(match.hand, view, h, pimc, tau, floor, budget)
                        for h in hands]
                top = max(logs)
                truth = set(match.hand.hands[1])
                scores["rules alone"].append(brier(hands, [1.0] * count, unseen, truth))
                scores["model"].append(brier(hands, [math.exp(g - top) for g in logs],
                                             unseen, truth))
                break
            match.apply(players[seat].choose(view))
            laid += 1
    for name, found in scores.items():
        print(f"{game}\t{opponent}\t{name}\tBrier {sum(found) / len(found):.4f}\t"
              f"({len(found)} positions)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
