"""Is the expert's chance to win the match right? ``python docs/strength/calibration.py GAME
MATCHES [SEED]``: MATCHES matches of ``greedy`` against ``greedy`` (the native fast path,
:func:`~dominolab.lab.play.greedy_match_facts`, from SEED, 1 unless given), replayed
through ``Match``; at the end of every hand the match goes on from, seat 0's chance to win
the match as the expert's search values that end (:meth:`~dominolab.players.search.
MatchValue.chance` of the hand's points, seen from its start) is set against whether seat 0
won (a drawn match counts half). It prints, for each tenth of the chances and then for the
hands after which seat 0 or its opponent opens the next hand (odd-numbered hands) or the
hands left come in pairs (even-numbered ones), with a chance from 0.3 to 0.7, the mean
chance, the share won and how many; then the mean margin of a hand's opener in it, and
the log-loss of the chances against that of the base rate (docs/strength.md, "The next
hand's opener in the match's chance").
"""

from __future__ import annotations

import math
import sys

from dominolab.core import OptionError, get_game
from dominolab.core.match import Match
from dominolab.lab.play import greedy_match_facts
from dominolab.players.search import MatchValue

#: after which hands the next hand's opener may count: an odd-numbered hand, seat 0 opening
#: the next or its opponent; after an even-numbered one the hands left come in pairs
GROUPS = ("seat 0 opens next", "seat 1 opens next", "paired")


def chances(game: str, matches: int, seed: int
            ) -> tuple[list[tuple[float, float, str]], float]:
    """Each (seat 0's chance after a hand the match goes on from, as the search values that
    hand's end, seat 0's score in the match: 1 won, 0.5 drawn, 0 lost, the hand's group in
    :data:`GROUPS`), and the mean margin of those hands' openers in them (the opener's
    points less the other's)."""
    spec = get_game(game)
    options = spec.options_class()
    found: list[tuple[float, float, str]] = []
    opener_margin = 0
    for match_seed in range(seed, seed + matches):
        facts = greedy_match_facts(spec, options, match_seed)
        match = Match(spec, options, seed=match_seed)
        winner = facts.result.winner
        won = 0.5 if winner is None else 1.0 if winner == 0 else 0.0
        for number, hand in enumerate(facts.hands[:-1], start=1):
            points = hand.result.points
            opener_margin += points[hand.opener] - points[1 - hand.opener]
            view = match.view(0)
            group = GROUPS[2] if number % 2 == 0 else GROUPS[1 - view.opener]
            found.append((MatchValue(view).chance(points, False), won, group))
            for _, move, _, _ in hand.steps:
                match.apply_unchecked(move)
    return found, opener_margin / len(found)


def _line(game: str, what: str, part: list[tuple[float, float, str]]) -> str:
    mean = sum(p for p, _, _ in part) / len(part)
    won = sum(w for _, w, _ in part) / len(part)
    return f"{game}\t{what}\tchance {mean:.3f}\twon {won:.3f}\t{len(part)} hands"


def main(argv: list[str]) -> None:
    if len(argv) not in (2, 3) or not all(a.isdigit() for a in argv[1:]) or argv[1] == "0":
        sys.exit(__doc__)  # MATCHES a whole number from 1, SEED a whole number
    game, matches = argv[0], int(argv[1])
    try:
        found, opener_margin = chances(game, matches, int(argv[2]) if len(argv) == 3 else 1)
    except OptionError as error:  # no such game
        sys.exit(f"calibration.py: {error}")
    if not found:
        sys.exit(f"calibration.py: no match of {matches} went on past its first hand")
    for tenth in range(10):
        part = [f for f in found if min(int(f[0] * 10), 9) == tenth]
        if part:
            print(_line(game, f"{tenth / 10:.1f}-{(tenth + 1) / 10:.1f}", part))
    for group in GROUPS:  # where the hands left are closest, the chance from 0.3 to 0.7
        part = [f for f in found if f[2] == group and 0.3 <= f[0] <= 0.7]
        if part:
            print(_line(game, f"{group}, 0.3-0.7", part))
    print(f"{game}\topener's margin a hand {opener_margin:+.2f}")
    eps = 1e-9
    loss = -sum(w * math.log(max(p, eps)) + (1.0 - w) * math.log(max(1.0 - p, eps))
                for p, w, _ in found)
    rate = sum(w for _, w, _ in found) / len(found)
    base = -sum(w * math.log(max(rate, eps)) + (1.0 - w) * math.log(max(1.0 - rate, eps))
                for _, w, _ in found)
    base = abs(base)  # never below 0; abs makes a -0.0 (every match one way) 0.0
    print(f"{game}\tlog-loss {loss / len(found):.3f}\tbase rate {base / len(found):.3f}\t"
          f"{len(found)} hands of {matches} matches")


if __name__ == "__main__":
    main(sys.argv[1:])
