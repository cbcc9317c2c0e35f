"""Train sb3-contrib's MaskablePPO on one seat of a dominolab game against random play,
then measure it against random play on fresh hands (docs/research.md, "Single-agent
environment").

Needs ``pip install -e '.[pettingzoo]' sb3-contrib`` (sb3-contrib brings
stable-baselines3 and PyTorch). ``--timesteps 0`` skips training and measures a uniform
random masked agent the same way (no PyTorch needed), the baseline.

    python docs/examples/maskable_ppo.py --game luzak-line --timesteps 200000 --hands 2000
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from dominolab.integrations.single_agent import SingleAgentEnv

Policy = Callable[[Any, Any], int]


def evaluate(env: SingleAgentEnv, policy: Policy, hands: int, seed: int) -> dict[str, float]:
    """Play ``hands`` hands (seeded) with ``policy(obs, mask)``: win rate and mean margin."""
    won = tied = 0
    margins = []
    for h in range(hands):
        obs, info = env.reset(seed=seed if h == 0 else None)
        done = False
        while not done:
            obs, _, done, _, info = env.step(policy(obs, env.action_masks()))
        margins.append(float(info["margin"]))
        won += info["margin"] > 0
        tied += info["margin"] == 0
    mean = float(np.mean(margins))
    se = float(np.std(margins, ddof=1) / math.sqrt(hands))
    return {"win_rate": (won + tied / 2) / hands, "margin": mean, "margin_se": se}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="luzak-line")
    parser.add_argument("--opponent", default="random", help="the player trained against")
    parser.add_argument("--timesteps", type=int, default=200_000)
    parser.add_argument("--hands", type=int, default=2000, help="hands measured at the end")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    env = SingleAgentEnv(args.game, opponent=args.opponent)
    start = time.perf_counter()
    if args.timesteps:
        from sb3_contrib import MaskablePPO  # type: ignore[import-not-found, unused-ignore]

        model = MaskablePPO("MlpPolicy", env, seed=args.seed, verbose=0)
        model.learn(total_timesteps=args.timesteps)

        def policy(obs: Any, mask: Any) -> int:
            action, _ = model.predict(obs, action_masks=mask, deterministic=True)
            return int(action)
        name = f"MaskablePPO ({args.timesteps:,} steps)"
    else:
        rng = np.random.default_rng(args.seed)

        def policy(obs: Any, mask: Any) -> int:
            return int(rng.choice(np.flatnonzero(mask)))
        name = "uniform random (masked)"
    trained = time.perf_counter() - start
    # fresh hands: a seed the training never used; the opponent is random play
    test_env = SingleAgentEnv(args.game, opponent="random")
    result = evaluate(test_env, policy, args.hands, seed=10_000 + args.seed)
    print(f"{args.game}: {name} vs random, {args.hands} hands, seats drawn at random")
    print(f"  hands won {result['win_rate']:.1%} (ties half), mean margin "
          f"{result['margin']:+.2f} (standard error {result['margin_se']:.2f})")
    print(f"  training {trained:.0f} s")


if __name__ == "__main__":
    main()
