"""How well a model of the opponent finds its tiles, measured before any match is played:
``python docs/strength/inference.py GAME OPPONENT POSITIONS MODEL [MODEL ...]``, e.g.
``python docs/strength/inference.py luzak pimc 100 0.5,0 2,0.5 searching``.

``OPPONENT`` (a player name) plays both seats of hand 1 of matches seeded 0, 1, ...; at
seat 0's first turn from a move of the hand drawn at random from the 5th to the 12th, its view
is handed to :class:`~dominolab.players.beliefs.ChoiceModel` (sharpness S, floor F, 1,000
sampled worlds; ``0,0`` is the exact posterior of the rules alone, every world the
opponent's luzaks, draws and passes allow equally likely), a MODEL written ``S,F``; or, for
MODEL ``searching`` or ``searching:N,K[,W,T,F]``, to
:class:`~dominolab.players.beliefs.SearchingModel` (N fresh worlds a call, at most K kept,
W deals in each small PIMC, softmax temperature T points, floor F),
which is shown each of seat 0's views of the hand up to that one, as in a match, so that it
carries its worlds through the hand as it would there; for MODEL ``greedy``, to
:class:`~dominolab.players.beliefs.GreedyModel` (the opponent read as the expected-answer
greedy; ``greedy:S,F``: S worlds, floor F, where ``greedy`` is 256, 0.1); for MODEL
``reading`` (``reading:S,F``: with that greedy model), to the expert's own model
(:func:`~dominolab.players.search.reading_model`: is the opponent a greedy or a searching
player?); for MODEL ``searching-fresh:N,K,W,T,F``, to the searching model as the expert
uses it, started afresh at every view (N worlds, at most K choices valued, W deals, T, F;
``searching-fresh`` alone: the expert's own 64, 400, 8, 3, 0.1), which reads Widelec too;
for MODEL ``calibrated:M,F``, to that searching model with a likelihood of a PIMC player's
choice that has PIMC's own noise (:class:`CalibratedModel`: M deals valued one by one, floor
F; docs/strength.md, "A calibrated model of a searching opponent"); for MODEL ``learned``, to
the learned reading (:class:`~dominolab.players.learned.LearnedModel`: 512 worlds weighed by
the shipped network's chance of each of the opponent's choices, floor 0.1; ``learned:N,F``:
N worlds, floor F), which reads every game.
Where a model declines (in Widelec, or before the opponent has chosen) the rules
alone stand in. From the weighted hands, each
unseen tile's chance of being in the opponent's hand is scored against the truth:

- Brier: the mean squared error of those chances over the unseen tiles (lower is better);
- log: the mean log chance given to the tiles the opponent really holds (higher is better).

A model worth searching with must beat ``0,0`` on both; docs/strength.md has the figures.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable, Sequence

from dominolab.core import Match, Move, Tile, View
from dominolab.core.worlds import Beliefs
from dominolab.players import make_player
from dominolab.players.base import Budget
from dominolab.players.beliefs import (
    ChoiceModel,
    GreedyModel,
    MixedModel,
    OpponentModel,
    SearchingModel,
)
from dominolab.players.learned import LearnedModel
from dominolab.players.search import PimcPlayer, reading_model

#: the models that start afresh at every view (not shown the earlier ones)
_FRESH: dict[str, Callable[[], OpponentModel]] = {"greedy": GreedyModel,
                                                  "reading": reading_model,
                                                  "learned": LearnedModel}


def score(game: str, opponent: str, positions: int,
          models: list[str]) -> dict[str, tuple[float, float]]:
    """(mean Brier, mean log) per model (``S,F``, ``searching`` or ``searching:N,K``) over
    the positions of ``positions`` matches (a hand that ends before its drawn turn gives
    none)."""
    found: dict[str, list[tuple[float, float]]] = {m: [] for m in models}
    for seed in range(positions):
        match = Match(game, seed=seed)
        players = [make_player(opponent, 2 * seed), make_player(opponent, 2 * seed + 1)]
        stop = random.Random(seed).randrange(4, 12)
        searching = {m: _searching(m) for m in models if _carried(m)}
        rngs = {m: random.Random(seed) for m in searching}
        laid = 0
        while not match.is_over and match.hand_number == 1:
            seat = match.to_move
            assert seat is not None
            view = match.view(seat)
            if seat == 0 and laid >= stop:
                truth = set(match.hand.hands[1])
                unseen = list(view.unseen())
                if len(unseen) > view.opponent_tiles:
                    for name in models:
                        model: OpponentModel
                        if name in searching:
                            model, rng = searching[name], rngs[name]
                        else:
                            model, rng = _afresh(name), random.Random(seed)
                        found[name].append(_scored(model, view, unseen, truth, rng))
                break
            if seat == 0:  # the searching models see every view of seat 0's, as in a match
                for name, model in searching.items():
                    model.beliefs(view, rngs[name])
            match.apply(players[seat].choose(view))
            laid += 1
    return {m: (sum(b for b, _ in v) / len(v), sum(g for _, g in v) / len(v))
            for m, v in found.items() if v}


def _carried(name: str) -> bool:
    """Whether model ``name`` carries its worlds through a hand (a ``searching`` model)."""
    return name.startswith("searching") and not name.startswith("searching-fresh")


def _afresh(name: str) -> OpponentModel:
    """Model ``name``, made anew for one position (every model but a carried one)."""
    if name in _FRESH:
        return _FRESH[name]()
    if name.startswith(("greedy:", "reading:")):
        return _greedy(name)
    if name.startswith("searching-fresh"):
        return _searching_fresh(name)
    if name.startswith("calibrated:"):
        deals, share = name.split(":")[1].split(",")
        return CalibratedModel(int(deals), float(share))
    if name.startswith("learned:"):
        samples, floor = name.split(":")[1].split(",")
        return LearnedModel(int(samples), float(floor))
    sharpness, floor = (float(x) for x in name.split(","))
    return ChoiceModel(sharpness, samples=1000, floor=floor)


def _searching(name: str) -> SearchingModel:
    if name == "searching":
        return SearchingModel()
    given = name.split(":")[1].split(",")
    samples, keep, worlds, tau, floor = given + ["64", "128", "8", "2", "0.1"][len(given):]
    return SearchingModel(int(samples), int(keep), int(worlds), float(tau), float(floor))


def _greedy(name: str) -> OpponentModel:
    """``greedy:S,F`` (the greedy model, S worlds, floor F) or ``reading:S,F`` (the
    expert's model with that greedy model)."""
    kind, given = name.split(":")
    samples, floor = given.split(",")
    greedy = GreedyModel(int(samples), float(floor))
    if kind == "greedy":
        return greedy
    return MixedModel([(0.5, greedy), (0.5, SearchingModel(tau=3.0, work=400, carry=False))])


def _searching_fresh(name: str) -> SearchingModel:
    given = name.split(":")[1].split(",") if ":" in name else []
    samples, work, worlds, tau, floor = given + ["64", "400", "8", "3", "0.1"][len(given):]
    return SearchingModel(int(samples), max(int(samples), 128), int(worlds), float(tau),
                          float(floor), work=int(work), carry=False)


class CalibratedModel(SearchingModel):
    """The expert's searching model (64 fresh worlds, at most 400 choices valued a move)
    with the chance of a choice worked out as a `pimc` player's, not as a softmax of fixed
    temperature: `pimc` makes the move with the best mean margin over its own N deals (40,
    or 64 with a boneyard), so where its deals disagree its choice is nearly a toss and
    where they agree it is sure. Each class of the opponent's moves is valued in ``deals``
    deals of its view one at a time (a PIMC of one deal, each on a seed of its own), and the
    chance of the chosen class is the share of :attr:`RESAMPLINGS` resamplings in which it
    has the best mean over N deals drawn from those (N: :meth:`PimcPlayer.worlds_for`), the
    ``deals`` themselves first redrawn so that the estimate's own error counts (a double
    bootstrap); mixed with a share ``floor`` of a uniform choice
    (:meth:`~dominolab.players.beliefs.SearchingModel.choice_chance`)."""

    #: the bootstrap's resamplings of each choice
    RESAMPLINGS = 400

    def __init__(self, deals: int, floor: float) -> None:
        super().__init__(64, 128, 8, tau=3.0, floor=floor, work=400, carry=False)
        self.deals = deals

    def choice_chance(self, seen: View, at: int, classes: Sequence[Move],
                      chosen: int) -> float:
        import numpy as np

        base = self.seed(at, seen.hand)
        margins = np.empty((self.deals, len(classes)))
        for d in range(self.deals):
            pimc = PimcPlayer(random.Random(f"{base}/{d}"))
            value = {v.move: v.margin for v in pimc.analyse(seen, Budget(worlds=1))}
            margins[d] = [value[c] for c in classes]
        n, times = PimcPlayer.worlds_for(seen), self.RESAMPLINGS
        rng = np.random.default_rng(random.Random(base).getrandbits(64))
        redrawn = rng.integers(0, self.deals, size=(times, self.deals))
        drawn = np.take_along_axis(redrawn, rng.integers(0, self.deals, size=(times, n)),
                                   axis=1)
        best = np.bincount(margins[drawn].mean(axis=1).argmax(axis=1),
                           minlength=len(classes))
        return float((best[chosen] + 0.5) / (times + 0.5 * len(classes)))


def _scored(model: OpponentModel, view: View, unseen: list[Tile],
            truth: set[Tile], rng: random.Random) -> tuple[float, float]:
    found = model.beliefs(view, rng)
    beliefs: Beliefs = found if found is not None else ChoiceModel(0.0, 1000).beliefs(view,
                                                                                    rng)
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
    models = ["0,0", *specs]
    for name in models:  # every model made once before any play, so a bad one is named now
        try:
            _searching(name) if _carried(name) else _afresh(name)
        except (ValueError, IndexError) as error:
            print(f"inference.py: no model {name!r} ({error}); see the usage:\n{__doc__}",
                  file=sys.stderr)
            return 2
    for name, (brier, log) in score(game, opponent, int(positions), models).items():
        label = name
        if "," in name and ":" not in name:
            label = "sharpness {:g}\tfloor {:g}".format(*(float(x) for x in name.split(",")))
        print(f"{game}\t{opponent}\t{label}\tBrier {brier:.4f}\tlog {log:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
