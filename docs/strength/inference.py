"""How well a model of the opponent finds its tiles, measured before any match is played:
``python docs/strength/inference.py GAME OPPONENT POSITIONS S,F [S,F ...]``, e.g.
``python docs/strength/inference.py luzak pimc 100 0.5,0 2,0.5``.

``OPPONENT`` (a player name) plays both seats of hand 1 of matches seeded 0, 1, ...; at
seat 0's first turn from a move of the hand drawn at random from the 5th to the 12th, its view
is handed to :class:`~dominolab.players.beliefs.ChoiceModel` (sharpness S, floor F, 1,000
sampled worlds; ``0,0`` is the exact posterior of the rules alone, every world the
opponent's luzaks, draws and passes allow equally likely). From the weighted hands, each
unseen tile's chance of being in the opponent's hand is scored against the truth:

- Brier: the mean squared error of those chances over the unseen tiles (lower is better);
- log: the mean log chance given to the tiles the opponent really holds (higher is better).

A model worth searching with must beat ``0,0`` on both; docs/strength.md has the figures.
"""

from __future__ import annotations

import math
import random
import sys

from dominolab.core import Match, Tile
from dominolab.players import make_player
from dominolab.players.beliefs import ChoiceModel


def score(game: str, opponent: str, positions: int,
          models: list[tuple[float, float]]) -> dict[tuple[float, float], tuple[float, float]]:
    """(mean Brier, mean log) per model over the positions of ``positions`` matches (a
    hand that ends before its drawn turn gives none)."""
    found: dict[tuple[float, float], list[tuple[float, float]]] = {m: [] for m in models}
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
                truth = set(match.hand.hands[1])
                unseen = list(view.unseen())
                if len(unseen) > view.opponent_tiles:
                    for sharpness, floor in models:
                        model = ChoiceModel(sharpness, samples=1000, floor=floor)
                        found[(sharpness, floor)].append(
                            _scored(model, view, unseen, truth, random.Random(seed)))
                break
            match.apply(players[seat].choose(view))
            laid += 1
    return {m: (sum(b for b, _ in v) / len(v), sum(g for _, g in v) / len(v))
            for m, v in found.items() if v}


def _scored(model: ChoiceModel, view: object, unseen: list[Tile], truth: set[Tile],
            rng: random.Random) -> tuple[float, float]:
    beliefs = model.beliefs(view, rng)  # type: ignore[arg-type]
    total = sum(beliefs.weights)
    chance = dict.fromkeys(unseen, 0.0)
    for hand, weight in zip(beliefs.hands, beliefs.weights, strict=True):
        for tile in hand:
            chance[tile] += weight / total
    brier = sum((chance[t] - (t in truth)) ** 2 for t in unseen) / len(unseen)
    log = sum(math.log(max(chance[t], 1e-9)) for t in truth) / len(truth)
    return brier, log


def main(argv: list[str]) -> int:
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    game, opponent, positions, *specs = argv
    models = [(0.0, 0.0)] + [(float(s), float(f)) for s, f in (x.split(",") for x in specs)]
    for (sharpness, floor), (brier, log) in score(game, opponent, int(positions),
                                                  models).items():
        print(f"{game}\t{opponent}\tsharpness {sharpness:g}\tfloor {floor:g}\t"
              f"Brier {brier:.4f}\tlog {log:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
