"""How much a PIMC player's choice says of its hand: ``python docs/strength/agreement.py GAME
MATCHES WORLDS``, e.g. ``python docs/strength/agreement.py widelec 40 64``.

``pimc`` plays both seats of hand 1 of matches seeded 0, 1, ...; at each of its choices (a
normal play with two or more classes of equivalent moves) a second PIMC with another seed
and WORLDS deals is given the same view, the same hand, and asked for its move. It prints
how often the two choose the same class: a searching model of the opponent
(:class:`~dominolab.players.beliefs.SearchingModel`) can read a hand from a choice only as
far as the choice follows from the hand rather than from the chooser's own sampled deals.
"""

from __future__ import annotations

import random
import sys

from dominolab.core import Match, Play
from dominolab.core.equivalence import representatives
from dominolab.players import make_player
from dominolab.players.base import Budget
from dominolab.players.search import PimcPlayer


def agreement(game: str, matches: int, worlds: int) -> tuple[int, int]:
    """(choices seen, choices the second PIMC made alike) over hand 1 of ``matches``."""
    seen = alike = 0
    for seed in range(matches):
        match = Match(game, seed=seed)
        players = [make_player("pimc", 2 * seed), make_player("pimc", 2 * seed + 1)]
        while not match.is_over and match.hand_number == 1:
            seat = match.to_move
            assert seat is not None
            view = match.view(seat)
            move = players[seat].choose(view)
            legal = list(view.legal_moves)
            if isinstance(move, Play) and len(legal) > 1:
                reps = representatives(view.new_table(), legal, view.spec.scoring == "quartets")
                if len(set(map(id, reps))) > 1:
                    other = PimcPlayer(random.Random(f"agreement/{seed}/{len(view.history)}"))
                    best = other.analyse(view, Budget(worlds=worlds))[0].move
                    seen += 1
                    alike += reps[legal.index(best)] is reps[legal.index(move)]
            match.apply(move)
    return seen, alike


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    game, matches, worlds = argv[0], int(argv[1]), int(argv[2])
    seen, alike = agreement(game, matches, worlds)
    print(f"{game}\t{worlds} deals\t{seen} choices\talike {alike / max(seen, 1):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
