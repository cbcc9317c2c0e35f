"""OpenSpiel's ISMCTS bot against uniform random play on one of our games, unmodified.

    .venv/bin/python docs/examples/openspiel_ismcts.py --hands 100

The bot is ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` with random rollouts; it
samples worlds through the adapter's ``resample_from_infostate``. Seats alternate hand by
hand (the bot is seat 0 in even hands, seat 1 in odd ones); the game's opener is seat 0.
Every random choice is seeded, so a run repeats exactly.
"""

from __future__ import annotations

import argparse
import math
import random
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import dominolab.integrations.openspiel  # noqa: F401  (registers the games)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="python_luzak",
                        choices=["python_luzak", "python_luzak_line", "python_widelec"])
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--simulations", type=int, default=200,
                        help="ISMCTS simulations per move")
    parser.add_argument("--uct-c", type=float, default=15.0,
                        help="exploration constant (returns are point margins)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    game = pyspiel.load_game(args.game)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=2,
                                            random_state=np.random.RandomState(args.seed))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=args.uct_c,
                           max_simulations=args.simulations,
                           random_state=np.random.RandomState(args.seed),
                           child_selection_policy=ismcts.ChildSelectionPolicy.UCT)
    sampler = pyspiel.UniformProbabilitySampler(args.seed, 0.0, 1.0)
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))
    rng = random.Random(args.seed)

    margins: list[float] = []
    start = time.perf_counter()
    for h in range(args.hands):
        seat = h % 2
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
            elif state.current_player() == seat:
                state.apply_action(bot.step(state))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.random() * len(legal))])
        margins.append(state.returns()[seat])
    elapsed = time.perf_counter() - start

    n = len(margins)
    wins = sum(m > 0 for m in margins)
    ties = sum(m == 0 for m in margins)
    mean = sum(margins) / n
    sd = math.sqrt(sum((m - mean) ** 2 for m in margins) / max(n - 1, 1))
    print(f"{args.game}: ISMCTS ({args.simulations} simulations a move, UCT c={args.uct_c:g}, "
          f"random rollouts) vs uniform random, {n} hands, seats alternating")
    print(f"  ISMCTS won {wins} ({wins / n:.0%}), tied {ties}, lost {n - wins - ties}")
    print(f"  mean point margin per hand {mean:+.2f} (standard error {sd / math.sqrt(n):.2f})")
    print(f"  {elapsed:.0f} s ({elapsed / n:.2f} s a hand)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
