"""Is the expert's chance to win the match right? ``python docs/strength/calibration.py GAME
MATCHES [SEED]``: MATCHES matches of ``greedy`` against ``greedy`` (the native fast path,
:func:`~dominolab.lab.play.greedy_match_facts`, from SEED, 1 unless given), replayed
through ``Match``; at the end of every hand the match goes on from, seat 0's chance to win
the match as the expert's search values that end (:meth:`~dominolab.players.search.
MatchValue.chance` of the hand's points, seen from its start) is set against whether seat 0
won. It prints one line for each
tenth of the chances (the matches' mean chance there, the share won, how many), then the
log-loss of the chances against that of the base rate (docs/strength.md, "Told the
opponent's kind").
"""

from __future__ import annotations

import math
import sys

from dominolab.core import Options, get_game
from dominolab.core.match import Match
from dominolab.lab.play import greedy_match_facts
from dominolab.players.search import MatchValue


def chances(game: str, matches: int, seed: int) -> list[tuple[float, bool]]:
    """(seat 0's chance after a hand the match goes on from, as the search values that
    hand's end, seat 0 won the match)."""
    spec = get_game(game)
    options: Options = spec.options_class()
    found: list[tuple[float, bool]] = []
    for match_seed in range(seed, seed + matches):
        facts = greedy_match_facts(spec, options, match_seed)
        match = Match(spec, options, seed=match_seed)
        won = facts.result.winner == 0
        for hand in facts.hands[:-1]:
            value = MatchValue(match.view(0))
            found.append((value.chance(hand.result.points, False), won))
            for _, move, _, _ in hand.steps:
                match.apply_unchecked(move)
    return found


def main(argv: list[str]) -> None:
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    game, matches = argv[0], int(argv[1])
    found = chances(game, matches, int(argv[2]) if len(argv) == 3 else 1)
    for tenth in range(10):
        part = [(p, w) for p, w in found if min(int(p * 10), 9) == tenth]
        if part:
            mean = sum(p for p, _ in part) / len(part)
            won = sum(w for _, w in part) / len(part)
            print(f"{game}\t{tenth / 10:.1f}-{(tenth + 1) / 10:.1f}\tchance {mean:.3f}\t"
                  f"won {won:.3f}\t{len(part)} hands")
    eps = 1e-9
    loss = -sum(math.log(max(p, eps) if w else max(1.0 - p, eps)) for p, w in found)
    rate = sum(w for _, w in found) / len(found)
    base = -sum(math.log(rate if w else 1.0 - rate) for _, w in found)
    print(f"{game}\tlog-loss {loss / len(found):.3f}\tbase rate {base / len(found):.3f}\t"
          f"{len(found)} hands of {matches} matches")


if __name__ == "__main__":
    main(sys.argv[1:])
