"""Train sb3-contrib's MaskablePPO on one seat of a dominolab game, then measure it against
random play on fresh hands (docs/research.md, "Single-agent environment").

Needs the ``train`` extra (``pip install -e '.[train]'``: Gymnasium, sb3-contrib and the CPU
build of PyTorch). ``--timesteps 0`` skips training and measures a uniform random masked
agent the same way, the baseline. ``--self-play N`` trains against itself: every N steps
the opponent's seat gets a frozen copy of the learner (``set_opponent``), the first N steps
against ``--opponent``.

    python docs/examples/maskable_ppo.py --game luzak-line --timesteps 200000 --hands 2000
    python docs/examples/maskable_ppo.py --game luzak-line --timesteps 200000 --self-play 20000
"""

from __future__ import annotations

import argparse
import copy
import math
import time
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np

from dominolab.integrations.registration import ENV_IDS

Policy = Callable[[Any, Any], int]


def evaluate(env: gymnasium.Env[Any, Any], policy: Policy, hands: int,
             seed: int) -> dict[str, float]:
    """Play ``hands`` hands (seeded) with ``policy(obs, mask)``: win rate and mean margin."""
    won = tied = 0
    margins = []
    for h in range(hands):
        obs, info = env.reset(seed=seed if h == 0 else None)
        done = False
        while not done:
            obs, _, done, _, info = env.step(policy(obs, info["action_mask"]))
        margins.append(float(info["margin"]))
        won += info["margin"] > 0
        tied += info["margin"] == 0
    mean = float(np.mean(margins))
    se = float(np.std(margins, ddof=1) / math.sqrt(hands)) if hands > 1 else 0.0
    return {"win_rate": (won + tied / 2) / hands, "margin": mean, "margin_se": se}


def frozen(model: Any) -> Policy:
    """A copy of ``model``'s policy as it is now, as an opponent policy (it samples): a new
    network of the same kind given the learner's weights (a deep copy of the policy itself
    fails on the tensors its last training step left behind)."""
    policy = model.policy_class(model.observation_space, model.action_space,
                                model.lr_schedule, **model.policy_kwargs)
    policy.load_state_dict(copy.deepcopy(model.policy.state_dict()))
    policy.set_training_mode(False)

    def act(obs: Any, mask: Any) -> int:
        action, _ = policy.predict(obs, action_masks=mask, deterministic=False)
        return int(action)
    return act


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="luzak-line", choices=sorted(ENV_IDS))
    parser.add_argument("--opponent", default="random", help="the player trained against")
    parser.add_argument("--timesteps", type=int, default=200_000)
    parser.add_argument("--self-play", type=int, default=0, metavar="N",
                        help="every N steps, a frozen copy of the learner becomes the opponent")
    parser.add_argument("--hands", type=int, default=2000, help="hands measured at the end")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    env = gymnasium.make(ENV_IDS[args.game], opponent=args.opponent)
    start = time.perf_counter()
    if args.timesteps:
        import torch
        from sb3_contrib import MaskablePPO  # type: ignore[import-not-found, unused-ignore]
        from stable_baselines3.common.callbacks import BaseCallback

        torch.set_num_threads(1)  # the same seed, the same run

        class SelfPlay(BaseCallback):  # type: ignore[misc, unused-ignore]
            """Swaps in a frozen copy of the learner every ``--self-play`` steps."""

            def _on_step(self) -> bool:
                if args.self_play and self.num_timesteps % args.self_play == 0:
                    env.unwrapped.set_opponent(frozen(self.model))  # type: ignore[attr-defined]
                return True

        # a run shorter than one rollout (2,048 steps, the default n_steps) collects only
        # its own steps rather than a whole rollout (the docs' tests run it at 64)
        model = MaskablePPO("MlpPolicy", env, seed=args.seed, verbose=0,
                            n_steps=min(2048, args.timesteps))
        model.learn(total_timesteps=args.timesteps, callback=SelfPlay())

        def policy(obs: Any, mask: Any) -> int:
            action, _ = model.predict(obs, action_masks=mask, deterministic=True)
            return int(action)
        name = f"MaskablePPO ({args.timesteps:,} steps"
        name += f", self-play every {args.self_play:,})" if args.self_play else ")"
    else:
        rng = np.random.default_rng(args.seed)

        def policy(obs: Any, mask: Any) -> int:
            return int(rng.choice(np.flatnonzero(mask)))
        name = "uniform random (masked)"
    trained = time.perf_counter() - start
    # fresh hands: a seed the training never used; the opponent is random play
    test_env = gymnasium.make(ENV_IDS[args.game], opponent="random")
    result = evaluate(test_env, policy, args.hands, seed=10_000 + args.seed)
    print(f"{args.game}: {name} vs random, {args.hands} hands, seats drawn at random")
    print(f"  hands won {result['win_rate']:.1%} (ties half), mean margin "
          f"{result['margin']:+.2f} (standard error {result['margin_se']:.2f})")
    print(f"  training {trained:.0f} s")


if __name__ == "__main__":
    main()
