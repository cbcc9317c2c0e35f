"""Where do the expert's moves lose? ``python docs/strength/regret.py GAME MATCHES [SEED]``:
MATCHES matches of ``expert`` against ``pimc`` (the seats swapped every other match; match
seeds from SEED, 5000 unless given), every choice of either judged by the omniscient
search in the true deal at 30,000 iterations: a move's *regret* is the best move's value
there (the chance to win the match) less the chosen move's, and the same for the hand's
margin. It prints both players' mean regrets for each tile number of a hand (the first
tile is the opener's lead, the second the answer to it, ...). ``python
docs/strength/regret.py GAME POSITIONS --opening BUDGETS``: the opening lead alone, in
POSITIONS deals, chosen by the expert (without its reading, which has nothing to read
yet) at each comma-separated iteration budget and judged at 100,000 iterations.

The judge's values are estimates, so its best move is a little too good (most where there
are many moves) and every regret a little too high: compare players and budgets with each
other, not with zero. The judge sees the opponent's tiles, so a regret is what the move
lost to not knowing them as much as to the search (docs/strength.md, "Where the expert's
moves lose").
"""

from __future__ import annotations

import random
import sys
from collections import defaultdict

from dominolab.core import Match, Move, OptionError, View, get_game
from dominolab.lab.play import play_match
from dominolab.players import Budget, ExpertPlayer, OmniscientPlayer
from dominolab.players.hints import distinct

JUDGE = Budget(worlds=30_000)


def judged(judge: OmniscientPlayer, match: Match, view: View, move: Move,
           budget: Budget = JUDGE) -> tuple[float, float] | None:
    """(regret in the match's chance, regret in the hand's margin) of ``move``, or None
    where the view has one move (a class of equivalent moves) only."""
    values = judge.analyse_seeing(match.hand, view, budget)
    if len(distinct(values, view)) < 2:
        return None
    chosen = next(v for v in values if v.move == move)
    return (max(v.value for v in values) - chosen.value,
            max(v.margin for v in values) - chosen.margin)


def by_tile(game: str, matches: int, seed: int) -> dict[tuple[int, str], list[float]]:
    """Summed regrets and counts, by (tile number, player): [chance, margin, choices]. Each
    match is played as the arena plays it (:func:`~dominolab.lab.play.play_match`), then
    replayed move by move for the judge."""
    judge = OmniscientPlayer(random.Random(99))
    sums: dict[tuple[int, str], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for i in range(matches):
        match_seed = seed + i
        names = ("expert", "pimc") if i % 2 == 0 else ("pimc", "expert")
        played = play_match(game, get_game(game).options_class(), match_seed, names).match
        match = Match(game, seed=match_seed)
        for step in (step for hand in played.steps for step in hand):
            view = match.view(step.seat)
            found = judged(judge, match, view, step.move)
            if found is not None:
                row = sums[(len(view.history) + 1, names[step.seat])]
                row[0] += found[0]
                row[1] += found[1]
                row[2] += 1
            match.apply(step.move)
        print(f"match {i + 1} of {matches}", file=sys.stderr, flush=True)
    return sums


def opening(game: str, positions: int, budgets: list[int]) -> dict[int, list[float]]:
    """Summed regrets of the expert's opening leads by budget: [chance, margin]."""
    judge = OmniscientPlayer(random.Random(99))
    sums = {b: [0.0, 0.0] for b in budgets}
    for s in range(positions):
        match = Match(game, seed=20_000 + s)
        view = match.view(match.hand.to_move)
        for b in budgets:
            move = ExpertPlayer(random.Random(s), reading=False).choose(view, Budget(worlds=b))
            found = judged(judge, match, view, move, Budget(worlds=100_000))
            if found is not None:
                sums[b][0] += found[0]
                sums[b][1] += found[1]
    return sums


def main(argv: list[str]) -> None:
    budgets: list[str] = argv[3].split(",") if len(argv) == 4 else []
    numbers = [argv[1], *budgets] + ([argv[2]] if len(argv) == 3 else [])
    if (len(argv) not in (2, 3, 4) or (len(argv) == 4 and argv[2] != "--opening")
            or not all(n.isdigit() and int(n) > 0 for n in numbers)):
        sys.exit(__doc__)  # whole numbers from 1
    game, count = argv[0], int(argv[1])
    try:
        get_game(game)
    except OptionError as error:  # no such game
        sys.exit(f"regret.py: {error}")
    if budgets:
        for b, (chance, margin) in opening(game, count, [int(b) for b in budgets]).items():
            print(f"{game}\topening lead at {b} iterations\tregret {chance / count:.4f}"
                  f"\tmargin {margin / count:.3f}\t{count} deals")
        return
    sums = by_tile(game, count, int(argv[2]) if len(argv) == 3 else 5000)
    for tile in sorted({t for t, _ in sums}):
        parts = [f"{who} regret {s[0] / s[2]:.4f} margin {s[1] / s[2]:.3f} ({s[2]:.0f})"
                 for who in ("expert", "pimc") if (s := sums.get((tile, who)))]
        print(f"{game}\ttile {tile}\t" + "\t".join(parts))


if __name__ == "__main__":
    main(sys.argv[1:])
