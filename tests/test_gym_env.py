"""The registered Gymnasium environments: ``gymnasium.make`` of each id (keyword arguments
passed through) and Gymnasium's own checker, the pyproject entry point, the self-play hook
(an opponent that is a policy, swapped between rollouts), match episodes against
:class:`~dominolab.core.Match` itself, and the ``rgb_array`` picture."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib import import_module
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import dominolab.integrations  # noqa: F401  (registers the ids)
from dominolab.core import IllegalMoveError, Match, OptionError
from dominolab.integrations.actions import codec
from dominolab.integrations.picture import SHAPE
from dominolab.integrations.registration import ENTRY_POINT, ENV_IDS
from dominolab.integrations.single_agent import OpponentActionError, SingleAgentEnv
from dominolab.players import Budget

ROOT = Path(__file__).resolve().parent.parent
GAMES = tuple(ENV_IDS)


def _first_legal(mask: Any) -> int:
    return int(np.flatnonzero(mask)[0])


def _play_out(env: gymnasium.Env[Any, Any], seed: int) -> tuple[float, dict[str, Any]]:
    """One episode with the first legal action each step: the rewards' sum, the last info."""
    _, info = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        _, reward, done, truncated, info = env.step(_first_legal(info["action_mask"]))
        assert not truncated
        total += float(reward)
    return total, info


# -- registration ------------------------------------------------------------------------------

@pytest.mark.parametrize("game", GAMES)
def test_make_gives_the_single_agent_env_with_the_keywords_passed_through(game: str) -> None:
    env = gymnasium.make(ENV_IDS[game], opponent="greedy:3w", seat=1, episode="match",
                         render_mode="rgb_array", target=30)
    inner = env.unwrapped
    assert isinstance(inner, SingleAgentEnv)
    assert (inner.game, inner.fixed_seat, inner.episode) == (game, 1, "match")
    assert inner.opponent_name == "greedy" and inner.opponent_budget == Budget(worlds=3)
    assert inner.options.target == 30 and inner.render_mode == "rgb_array"
    total, info = _play_out(env, seed=2)
    assert info["seat"] == 1 and total == info["margin"]
    assert max(info["match_result"].totals) >= 30
    with pytest.raises(OptionError):
        gymnasium.make(ENV_IDS[game], no_such_rule=True)


@pytest.mark.filterwarnings("ignore:.*render modes.*")
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("episode", ["hand", "match"])
@pytest.mark.parametrize("render_mode", ["ansi", "rgb_array"])
def test_gymnasium_check_env_on_each_id(game: str, episode: str, render_mode: str) -> None:
    env = gymnasium.make(ENV_IDS[game], episode=episode, render_mode=render_mode)
    check_env(env.unwrapped, skip_render_check=False)


def test_the_entry_point_in_pyproject_registers_every_id() -> None:
    """The ``gymnasium.envs`` entry point (Gymnasium 0.26-0.29's plugin hook) names a
    function that registers the three ids with the environment's class."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    target = config["project"]["entry-points"]["gymnasium.envs"]["dominolab"]
    module, _, name = target.partition(":")
    register = getattr(import_module(module), name)
    for env_id in ENV_IDS.values():
        gymnasium.registry.pop(env_id)
    register()
    register()  # twice: no second registration, no warning
    for game, env_id in ENV_IDS.items():
        spec = gymnasium.registry[env_id]
        assert spec.entry_point == ENTRY_POINT and spec.kwargs == {"game": game}


def test_make_in_a_fresh_interpreter_by_the_module_in_the_id() -> None:
    """Gymnasium 1.x imports the module named in ``"module:id"``; nothing else imported."""
    code = ("import gymnasium, sys\n"
            "assert 'dominolab' not in sys.modules\n"
            "env = gymnasium.make('dominolab.integrations:dominolab/Widelec-v0', seat=0)\n"
            "print(type(env.unwrapped).__name__, env.unwrapped.game, env.reset(seed=1)[1]['seat'])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["SingleAgentEnv", "widelec", "0"]


# -- the self-play hook ---------------------------------------------------------------------

class Recorder:
    """A policy that plays the first legal action and keeps what it was given."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, Any]] = []

    def __call__(self, observation: Any, mask: Any) -> np.int64:
        self.calls.append((observation, mask))
        return np.int64(_first_legal(mask))


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("episode", ["hand", "match"])
def test_a_policy_opponent_plays_from_its_own_seat(game: str, episode: str) -> None:
    env = SingleAgentEnv(game, opponent="random", seat=0, episode=episode)  # type: ignore[arg-type]
    layout = env.aec.layout
    cd = codec(game)
    seen = 0

    def policy(observation: Any, mask: Any) -> int:
        nonlocal seen
        hand = env.hand
        assert hand.to_move == 1
        assert env.observation_space.contains(observation)
        held = np.flatnonzero(observation[layout["hand"]]).tolist()
        assert held == sorted(t.index for t in hand.hands[1])  # the opponent's own tiles
        assert mask.dtype == np.bool_
        assert np.flatnonzero(mask).tolist() == cd.legal_actions(hand)
        seen += 1
        return int(np.flatnonzero(mask)[-1])

    env.set_opponent(policy)
    assert env.opponent_name == "policy"
    for seed in range(3):
        total, info = _play_out(env, seed)
        assert total == info["margin"]
    assert seen > 10


def test_set_opponent_swaps_the_policy_between_rollouts_of_maskable_ppo() -> None:
    """MaskablePPO trains while a callback swaps in a new opponent policy after each rollout
    (as the self-play example does with frozen copies of the learner): after a swap only the
    new policy is asked."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    torch.set_num_threads(1)
    env = gymnasium.make("dominolab/LuzakLine-v0", opponent="random")
    policies = [Recorder()]
    env.unwrapped.set_opponent(policies[0])  # type: ignore[attr-defined]

    class Swap(BaseCallback):
        def _on_step(self) -> bool:
            return True

        def _on_rollout_end(self) -> None:
            policies.append(Recorder())
            env.unwrapped.set_opponent(policies[-1])  # type: ignore[attr-defined]

    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    model.learn(total_timesteps=192, callback=Swap())
    assert len(policies) == 4  # three rollouts, three swaps
    assert all(p.calls for p in policies[:3]), [len(p.calls) for p in policies]
    before = [len(p.calls) for p in policies]
    _play_out(env, seed=7)
    assert [len(p.calls) for p in policies[:3]] == before[:3]  # the old ones are not asked
    assert len(policies[3].calls) > before[3]


@pytest.mark.parametrize("game", GAMES)
def test_an_illegal_action_of_the_policy_is_a_typed_error_naming_it(game: str) -> None:
    env = SingleAgentEnv(game, seat=1)

    def illegal(observation: Any, mask: Any) -> int:
        return int(np.flatnonzero(~mask)[0])

    for bad, shown in [(illegal, None), (lambda o, m: 10**6, "1000000"),
                       (lambda o, m: 2.5, "2.5"), (lambda o, m: "draw", "'draw'"),
                       (lambda o, m: np.array([1, 2]), "array")]:
        env.set_opponent(bad)
        with pytest.raises(OpponentActionError) as caught:
            for seed in range(8):  # until the opponent (seat 0) opens a hand
                _play_out(env, seed)
        error = caught.value
        assert isinstance(error, IllegalMoveError)
        assert error.position == env.hand.describe() and "Position: " in str(error)
        assert error.legal == tuple(codec(game).legal_actions(env.hand))
        assert f"action {shown or error.action}" in str(error)
    with pytest.raises(TypeError, match="policy"):
        env.set_opponent(42)  # type: ignore[arg-type]


# -- match episodes -----------------------------------------------------------------------------

@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("options", [{}, {"target": 150}, {"win_at_once": False}],
                         ids=["default", "target150", "played-out"])
def test_a_match_episode_ends_exactly_when_the_match_does(game: str,
                                                          options: dict[str, Any]) -> None:
    if "win_at_once" in options and game != "widelec":
        options = {}
    env = SingleAgentEnv(game, opponent="greedy", episode="match", **options)
    rng = np.random.default_rng(3)
    hands_seen: set[int] = set()
    for seed in range(4):
        _, info = env.reset(seed=seed)
        match = env.match
        assert match is not None
        total, done = 0.0, False
        while not done:
            assert not match.is_over and match.to_move == env.seat
            hands_seen.add(match.hand_number)
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, reward, done, _, info = env.step(action)
            total += float(reward)
            assert done == match.is_over  # ends exactly when the match says so
        result = match.result
        assert result is not None and info["match_result"] == result
        assert info["winner"] == result.winner
        me, other = env.seat, 1 - env.seat
        assert total == info["margin"] == result.totals[me] - result.totals[other]
        assert not env.action_masks().any()
        # the same moves in a Match of our own, checked, end the same way
        replay = Match(game, env.options, seed=match.seed)
        for hand in match.hands:
            for _, move in hand.moves:
                assert not replay.is_over
                replay.apply(move)
        assert replay.result == result
    assert len(hands_seen) > 1  # matches of several hands
    with pytest.raises(OptionError, match="deal"):
        env.reset(options={"opener": 0})


def test_match_observations_carry_the_totals() -> None:
    env = SingleAgentEnv("luzak-line", opponent="greedy", episode="match", target=100)
    hand_env = SingleAgentEnv("luzak-line")
    assert hand_env.observation_space.shape is not None
    assert env.observation_space.shape == (hand_env.observation_space.shape[0] + 2,)
    obs, info = env.reset(seed=5)
    done, hands = False, set()
    while not done:
        match = env.match
        assert match is not None
        totals = match.totals
        expected = np.array([totals[env.seat], totals[1 - env.seat]], dtype=np.float32) / 100
        assert np.array_equal(obs[-2:], expected)
        assert env.observation_space.contains(obs)
        hands.add(match.hand_number)
        obs, _, done, _, info = env.step(_first_legal(info["action_mask"]))
    assert len(hands) > 2 and max(info["match_result"].totals) >= 100


# -- pictures ---------------------------------------------------------------------------------

@pytest.mark.parametrize("game", GAMES)
def test_rgb_array_pictures(game: str) -> None:
    env = gymnasium.make(ENV_IDS[game], render_mode="rgb_array", seat=0, opener=0)
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0
    twin = SingleAgentEnv(game, render_mode="rgb_array", seat=0)
    _, info = env.reset(seed=4, options={"opener": 0})
    twin.reset(seed=4, options={"opener": 0})
    before = env.render()
    assert isinstance(before, np.ndarray)
    assert before.shape == SHAPE and before.dtype == np.uint8
    assert np.array_equal(before, twin.render())  # the same state, the same pixels
    action = _first_legal(info["action_mask"])
    env.step(action)
    after = env.render()
    assert isinstance(after, np.ndarray) and after.shape == SHAPE
    assert not np.array_equal(before, after)
    twin.step(action)
    assert np.array_equal(after, twin.render())
    ansi = SingleAgentEnv(game, render_mode="ansi")
    ansi.reset(seed=4)
    text = ansi.render()
    assert isinstance(text, str) and "player_0" in text and "player_1" in text
    with pytest.raises(ValueError, match="render_mode"):
        SingleAgentEnv(game, render_mode="human")
