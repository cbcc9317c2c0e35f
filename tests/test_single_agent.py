"""The single-agent Gymnasium environment: Gymnasium's own env checker, seeded resets, the
opponent's view, the action mask against the engine, rewards against the engine's points,
and a tiny masked policy trained in the loop MaskablePPO would run."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env

from dominolab.core import Move, OptionError, View, view_of
from dominolab.integrations.actions import codec
from dominolab.integrations.pettingzoo import illegal_reward
from dominolab.integrations.single_agent import SingleAgentEnv
from dominolab.players import Budget, RandomPlayer, make_player

GAMES = ("luzak", "luzak-line", "widelec")


def _first_legal(env: SingleAgentEnv) -> int:
    return int(np.flatnonzero(env.action_masks())[0])


@pytest.mark.filterwarnings("ignore:.*render modes.*")
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_gymnasium_check_env(game: str, opponent: str) -> None:
    check_env(SingleAgentEnv(game, opponent=opponent, render_mode="ansi"),
              skip_render_check=False)


@pytest.mark.parametrize("game", GAMES)
def test_seeded_resets_reproduce(game: str) -> None:
    def run(seed: int) -> list[Any]:
        env = SingleAgentEnv(game, opponent="random")
        out: list[Any] = []
        for episode in range(4):
            obs, info = env.reset(seed=seed if episode == 0 else None)
            out.append((obs.tolist(), info["seat"], info["opener"]))
            done = False
            while not done:
                obs, reward, done, _, info = env.step(_first_legal(env))
                out.append((obs.tolist(), reward))
        return out

    assert run(5) == run(5)
    assert run(5) != run(6)
    env = SingleAgentEnv(game, seat=1)
    assert all(env.reset(seed=s)[1]["seat"] == 1 for s in range(3))


class SpyPlayer:
    """A random player that checks every view it is given against the true hand."""

    name = "spy"

    def __init__(self) -> None:
        self.inner = RandomPlayer(random.Random(0))
        self.env: SingleAgentEnv | None = None
        self.views = 0

    def choose(self, view: View, budget: Budget | None = None) -> Move:
        env = self.env
        assert env is not None
        hand = env.hand
        seat = 1 - env.seat
        assert view.seat == seat and view.to_move == seat  # its own seat, to move
        assert view == view_of(hand, seat, hand_number=1)  # exactly its own view
        assert list(view.hand) == list(hand.hands[seat])
        assert not set(view.hand) & set(hand.hands[env.seat])
        self.views += 1
        return self.inner.choose(view, budget)


@pytest.mark.parametrize("game", GAMES)
def test_the_opponent_sees_only_its_own_view(game: str) -> None:
    spy = SpyPlayer()
    env = SingleAgentEnv(game, opponent=spy)
    spy.env = env
    for episode in range(8):
        env.reset(seed=episode)
        done = False
        while not done:
            _, _, done, _, _ = env.step(_first_legal(env))
    assert spy.views > 20
    with pytest.raises(OptionError, match="own view"):
        SingleAgentEnv(game, opponent="omniscient")
    with pytest.raises(OptionError):
        SingleAgentEnv(game, opponent="nobody")


@pytest.mark.parametrize("game", GAMES)
def test_masks_are_the_legal_moves_and_rewards_add_up_to_the_margin(game: str) -> None:
    env = SingleAgentEnv(game, opponent="greedy")
    cd = codec(game)
    rng = np.random.default_rng(1)
    for episode in range(15):
        _, info = env.reset(seed=episode)
        total = 0.0
        done = False
        while not done:
            hand = env.hand
            assert hand.to_move == env.seat
            mask = env.action_masks()
            assert mask.dtype == np.bool_ and mask.shape == (cd.num_actions,)
            legal = sorted(cd.encode(m) for m in hand.legal_moves())
            assert np.flatnonzero(mask).tolist() == legal
            assert legal == sorted(cd.encode(m) for m in env.view().legal_moves)
            assert (info["action_mask"] == mask).all()
            _, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            assert not truncated and not info["illegal"]
            total += float(reward)
        hand = env.hand
        assert hand.result is not None and not env.action_masks().any()
        assert total == info["margin"] == hand.points[env.seat] - hand.points[1 - env.seat]
        with pytest.raises(RuntimeError, match="reset"):
            env.step(0)


@pytest.mark.parametrize("game", GAMES)
def test_an_illegal_action_ends_the_episode_with_the_penalty(game: str) -> None:
    env = SingleAgentEnv(game)
    env.reset(seed=3)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and not truncated and info["illegal"]
    assert reward == illegal_reward(game) == env.illegal_reward
    assert reward < -100
    env.reset(seed=3)
    assert env.step(env.n + 5)[2]  # out of range: the same


def test_opponent_specs_and_budgets() -> None:
    env = SingleAgentEnv("luzak-line", opponent="expert:20w", seat=0)
    assert env.opponent_name == "expert" and env.opponent_budget == Budget(worlds=20)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, done, _, _ = env.step(_first_legal(env))
    assert SingleAgentEnv("widelec", opponent="easy").opponent_name == "greedy"
    assert SingleAgentEnv("luzak", opponent=make_player("greedy", 0)).opponent_name == "greedy"
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv("luzak", seat=2)


# -- the training loop's shape, with a tiny NumPy policy in place of MaskablePPO -----------

def _masked_choice(w: npt.NDArray[np.float64], obs: npt.NDArray[np.float32],
                   mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
    """A linear softmax policy over the legal actions only."""
    logits = np.where(mask, np.append(obs, 1.0) @ w, -np.inf)
    p = np.exp(logits - logits.max())
    return p / p.sum()  # type: ignore[no-any-return]


def _evaluate(env: SingleAgentEnv, w: npt.NDArray[np.float64] | None, hands: int) -> float:
    rng = np.random.default_rng(99)
    total = 0.0
    for h in range(hands):
        obs, _ = env.reset(seed=99 if h == 0 else None)
        done = False
        while not done:
            mask = env.action_masks()
            if w is None:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                action = int(np.argmax(_masked_choice(w, obs, mask)))
            obs, reward, done, _, _ = env.step(action)
            total += float(reward)
    return total / hands


def test_a_tiny_masked_policy_learns_to_beat_random() -> None:
    """REINFORCE with a linear softmax policy masked by ``action_masks()``: the contract
    MaskablePPO relies on (masks, seeded resets, rewards adding up to the margin), at a CI
    budget (1,000 hands of Luzak without spinners, a few seconds)."""
    env = SingleAgentEnv("luzak-line", opponent="random")
    n = env.n
    assert env.observation_space.shape is not None
    w = np.zeros((env.observation_space.shape[0] + 1, n))
    rng = np.random.default_rng(0)
    for episode in range(1000):
        obs, _ = env.reset(seed=0 if episode == 0 else None)
        steps = []
        ret = 0.0
        done = False
        while not done:
            mask = env.action_masks()
            p = _masked_choice(w, obs, mask)
            action = int(rng.choice(n, p=p))
            assert mask[action]  # a masked policy never picks an illegal action
            steps.append((np.append(obs, 1.0), mask, p, action))
            obs, reward, done, _, _ = env.step(action)
            ret += float(reward)
        for x, mask, p, action in steps:
            grad = -p
            grad[action] += 1.0
            grad[~mask] = 0.0
            w += 0.01 * (ret / 10.0) * np.outer(x, grad)
    learned = _evaluate(env, w, 400)
    uniform = _evaluate(env, None, 400)
    assert learned > uniform and learned > 1.0, (learned, uniform)
