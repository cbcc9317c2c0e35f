"""A single-agent Gymnasium environment: the agent plays one seat of a hand, a computer
player from :mod:`dominolab.players` the other.

Install the PettingZoo extra (``pip install -e '.[pettingzoo]'``: Gymnasium, PettingZoo,
NumPy); the observations and actions are those of :mod:`dominolab.integrations.pettingzoo`::

    from dominolab.integrations.single_agent import SingleAgentEnv

    env = SingleAgentEnv("luzak-line", opponent="greedy")      # or "random", "expert:200w"
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].argmax()))

* **Episode**: one hand, as in the PettingZoo and OpenSpiel adapters (a match is a series of
  hands whose rewards add up: a learner that maximises the hand's margin plays the match
  well, and short episodes learn faster). Each ``reset`` deals a new hand: the deal and the
  opener of hand 1 of ``Match(game, seed=m)`` with ``m`` drawn from the environment's
  generator, which ``reset(seed=s)`` seeds (Gymnasium's convention): the same seed, the
  same episodes. The agent's seat is ``seat`` (0 or 1), or, with ``seat=None`` (the
  default), drawn from the same generator each episode, so the agent learns both seats
  and opens about half the hands.
* **Opponent**: a player spec (``"random"``, ``"greedy"``, ``"pimc:40w"``, ``"expert:200w"``,
  a level ``"easy"`` / ``"medium"`` / ``"hard"``), made each episode with a seed drawn from
  the environment's generator; or a :class:`~dominolab.players.Player` instance (used as
  is). It sees only its own seat's :class:`~dominolab.core.View`; ``omniscient`` (which
  sees every tile) is refused. It moves inside ``reset`` and ``step`` until the agent is
  to move or the hand is over.
* **Observation**: the agent's float32 vector of :func:`~dominolab.integrations.pettingzoo.
  observation_layout` (built from the agent's view only). **Action**: ``Discrete(n)``
  numbered by :mod:`dominolab.integrations.actions`.
* **Action mask**: :meth:`SingleAgentEnv.action_masks` (a boolean array of length ``n``,
  what sb3-contrib's ``MaskablePPO`` calls through ``ActionMasker`` or directly), also
  ``info["action_mask"]`` after every ``reset`` and ``step``; all False once the hand ends.
* **Reward**: the points the agent gained minus the points the opponent gained since the
  agent's last action (the opponent's replies included; the first reward also holds what
  the opponent scored before the agent's first action, when it opened); an episode's
  rewards add up to the agent's margin for the hand, ``info["margin"]`` at the end. An
  illegal action ends the episode (``terminated``) with
  :func:`~dominolab.integrations.pettingzoo.illegal_reward`, as the PettingZoo environment
  does; ``info["illegal"]`` is then True. There is no truncation.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from dominolab.core import OptionError, View
from dominolab.integrations.pettingzoo import AGENTS, illegal_reward, raw_env
from dominolab.players import (
    LEVELS,
    Budget,
    Player,
    SeeingPlayer,
    make_player,
    parse_player_spec,
)

Obs = npt.NDArray[np.float32]


class SingleAgentEnv(gymnasium.Env[Obs, np.int64]):
    """One hand of a dominolab game against a computer player (see the module doc)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012

    def __init__(self, game: str = "luzak", opponent: str | Player = "random",
                 seat: int | None = None, render_mode: str | None = None,
                 **options: Any) -> None:
        if seat not in (None, 0, 1):
            raise ValueError(f"seat must be 0, 1 or None, not {seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be 'ansi' or None, not {render_mode!r}")
        self.aec = raw_env(game, **options)
        self.game: str = self.aec.game
        self.render_mode = render_mode
        self.fixed_seat = seat
        self.opponent_budget: Budget | None = None
        if isinstance(opponent, str):
            name, self.opponent_budget = parse_player_spec(opponent)
            self.opponent_name = LEVELS[name][0] if name in LEVELS else name
            self._check_player(make_player(name, 0))
        else:
            self._check_player(opponent)
            self.opponent_name = opponent.name
        self._given: Player | None = None if isinstance(opponent, str) else opponent
        self.opponent: Player | None = self._given
        self.n = self.aec.codec.num_actions
        self.action_space = spaces.Discrete(self.n)
        self.observation_space = self.aec.observation_space(AGENTS[0])["observation"]
        self.illegal_reward = illegal_reward(self.game, self.aec.options)
        self.reward_range = (self.illegal_reward, float(-self.illegal_reward))
        self.metadata = {**self.metadata, "name": f"{self.aec.metadata['name']}_vs_opponent"}
        self.seat = 0
        self._done = True
        self._carry = 0.0

    @staticmethod
    def _check_player(player: object) -> None:
        if isinstance(player, SeeingPlayer) and getattr(player, "sees_all", False):
            raise OptionError("the opponent must play from its own view; a player that sees "
                              "every tile (omniscient) is not allowed")
        if not isinstance(player, Player):
            raise TypeError(f"the opponent must be a player spec or a Player, not {player!r}")

    # -- what the agent sees ------------------------------------------------------------------
    @property
    def agent(self) -> str:
        return AGENTS[self.seat]

    def view(self) -> View:
        """The agent's view of the hand (its observation is built from this alone)."""
        return self.aec.view(self.agent)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions of the agent now (all False once the hand is over)."""
        mask = np.zeros(self.n, dtype=np.bool_)
        hand = self.aec.hand
        if hand.result is None and hand.to_move == self.seat:
            mask[self.aec.codec.legal_actions(hand)] = True
        return mask

    def _obs(self) -> Obs:
        return self.aec.features(self.view())

    def _info(self, **extra: Any) -> dict[str, Any]:
        hand = self.aec.hand
        info: dict[str, Any] = {"action_mask": self.action_masks(), "seat": self.seat,
                                "opener": hand.opener, **extra}
        if hand.result is not None:
            info["margin"] = hand.points[self.seat] - hand.points[1 - self.seat]
        return info

    # -- Gymnasium's API ---------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        match_seed = int(rng.integers(2**62))
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(2))
        opponent_seed = int(rng.integers(2**31))
        if self._given is None:
            self.opponent = make_player(self.opponent_name, opponent_seed)
        self.aec.reset(seed=match_seed, options=options)
        self._done = False
        # what the opponent scores before the agent's first action comes with its reward
        self._carry = self._opponent_moves()
        self._done = self.aec.hand.result is not None
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[Obs, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("the hand is over: call reset()")
        a = int(action)
        if not (0 <= a < self.n and self.action_masks()[a]):
            self._done = True
            return self._obs(), self.illegal_reward, True, False, self._info(illegal=True)
        self.aec.step(a)
        reward = self._carry + self.aec.rewards[self.agent]
        self._carry = 0.0
        reward += self._opponent_moves()
        self._done = self.aec.hand.result is not None
        return self._obs(), float(reward), self._done, False, self._info(illegal=False)

    def _opponent_moves(self) -> float:
        """The opponent plays until the agent is to move or the hand ends; the agent's
        rewards meanwhile."""
        hand = self.aec.hand
        other = AGENTS[1 - self.seat]
        gained = 0.0
        while hand.result is None and hand.to_move != self.seat:
            assert self.opponent is not None
            view = self.aec.view(other)  # the opponent's own view, nothing more
            move = self.opponent.choose(view, self.opponent_budget)
            self.aec.step(self.aec.codec.encode(move))
            gained += self.aec.rewards[self.agent]
        return gained

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        return self.aec.text()


__all__ = ["SingleAgentEnv"]
