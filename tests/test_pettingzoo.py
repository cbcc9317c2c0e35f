"""The PettingZoo AEC environments: PettingZoo's own api_test and seed_test, the action mask
against the engine's legal moves, rewards against the engine's points, observations that
never show hidden tiles, and rendering."""

from __future__ import annotations

import pickle
import random
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test  # type: ignore[import-untyped, unused-ignore]

from dominolab.core import (
    TILES,
    Deal,
    IllegalMoveError,
    OptionError,
    WidelecHand,
    WidelecOptions,
    first_opener_by_lot,
    get_game,
    parse_tile,
)
from dominolab.integrations.actions import codec
from dominolab.integrations.bounds import hand_points_bound
from dominolab.integrations.pettingzoo import (
    AGENTS,
    LuzakEnv,
    LuzakLineEnv,
    WidelecEnv,
    env,
    illegal_reward,
    observation_layout,
    raw_env,
)

#: (game, options): every game with its defaults, and one non-default option set each
CASES: list[tuple[str, dict[str, Any]]] = [
    ("luzak", {}),
    ("luzak", {"short_ends_any_time": False, "luzak_scores_count": False}),
    ("luzak-line", {}),
    ("luzak-line", {"even_hands": False, "target": 30}),
    ("widelec", {}),
    ("kwartety", {"must_play_drawn": False, "edge_double": False}),
]
IDS = [f"{g}-{'-'.join(o) or 'default'}" for g, o in CASES]


def play_episode(e: Any, seed: int, rng: random.Random, *,
                 options: dict[str, Any] | None = None) -> tuple[list[int], dict[str, float]]:
    """Play one hand with random legal actions; check the mask and the observation against
    the engine at every step. Return the actions and each agent's total reward."""
    e.reset(seed=seed, options=options)
    raw: raw_env = e.unwrapped
    c = codec(raw.game)
    actions: list[int] = []
    totals = dict.fromkeys(AGENTS, 0.0)
    for agent in e.agent_iter(1000):
        obs, _, terminated, truncated, _ = e.last()
        assert not truncated
        assert e.observation_space(agent).contains(obs)
        hand = raw.hand
        seat = AGENTS.index(agent)
        other = e.observe(AGENTS[1 - seat])
        assert not other["action_mask"].any()  # only the agent to move has legal actions
        if terminated:
            assert hand.is_over and not obs["action_mask"].any()
            e.step(None)
            continue
        assert hand.to_move == seat
        legal = c.legal_actions(hand)
        assert np.flatnonzero(obs["action_mask"]).tolist() == legal
        vec = obs["observation"]
        lay = raw.layout
        assert np.flatnonzero(vec[lay["hand"]]).tolist() == [t.index for t in hand.hands[seat]]
        if isinstance(hand, WidelecHand):
            assert vec[lay["drawn_pending"]][0] == (hand.pending is not None)
        action = legal[rng.randrange(len(legal))]
        actions.append(action)
        e.step(action)
        assert e.rewards[AGENTS[0]] == -e.rewards[AGENTS[1]]  # zero-sum at every step
        for a, r in e.rewards.items():
            totals[a] += r
    assert not e.agents
    return actions, totals


# api_test warns about every Dict observation outside PettingZoo's own list of classic games
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.parametrize(("game", "options"), CASES, ids=IDS)
def test_pettingzoo_api_and_seed_tests(game: str, options: dict[str, Any]) -> None:
    api_test(env(game, **options), num_cycles=100, verbose_progress=False)
    seed_test(lambda: env(game, **options), num_cycles=100)


@pytest.mark.parametrize(("game", "options"), CASES, ids=IDS)
def test_mask_and_rewards_follow_the_engine(game: str, options: dict[str, Any]) -> None:
    spec = get_game(game)
    e = env(game, **options)
    rng = random.Random(game)
    for seed in range(20):
        actions, totals = play_episode(e, seed, rng)
        # the same deal and opener as hand 1 of Match(game, seed=seed), replayed in a plain Hand
        hand = spec.hand_class(Deal.for_hand(seed, 1, spec.hand_size), first_opener_by_lot(seed),
                               spec.options_class.from_dict(options))
        c = codec(game)
        for action in actions:
            hand.apply(c.move(hand, action))
        assert hand.result is not None
        p0, p1 = hand.result.points
        assert totals == {"player_0": p0 - p1, "player_1": p1 - p0}
        assert e.unwrapped.hand.result == hand.result


def test_resets_deal_the_hands_of_a_match_with_alternating_openers() -> None:
    spec = get_game("widelec")
    e = raw_env("widelec")
    e.reset(seed=7)
    first = first_opener_by_lot(7)
    for number in (1, 2, 3):
        if number > 1:
            e.reset()
        assert e.hand.deal == Deal.for_hand(7, number, spec.hand_size)
        assert e.hand.opener == (first if number % 2 else 1 - first)
        assert e.agent_selection == AGENTS[e.hand.opener]
    fixed = raw_env("luzak", opener=1)
    for seed in (None, 3, None):
        fixed.reset(seed=seed)
        assert fixed.hand.opener == 1
    unseeded = raw_env("luzak")
    unseeded.reset()
    unseeded.reset()
    assert unseeded.hand_number == 2 and unseeded.match_seed is not None


def _swap_hidden(deal: Deal) -> Deal:
    """The same deal but seat 1's first tile swapped with the last of the rest (Luzak: an
    unused tile; Widelec: the tile drawn last)."""
    mine = deal.hands[1][0]
    rest = deal.rest[-1]
    seat1 = tuple(sorted((*deal.hands[1][1:], rest), key=lambda t: t.index))
    return Deal((deal.hands[0], seat1), (*deal.rest[:-1], mine))


@pytest.mark.parametrize("game", ["luzak", "luzak-line", "widelec"])
def test_observation_does_not_depend_on_hidden_tiles(game: str) -> None:
    spec = get_game(game)
    compared = 0
    for seed in range(6):
        deal = Deal.for_hand(seed, 1, spec.hand_size)
        other = _swap_hidden(deal)
        assert other != deal and other.hands[0] == deal.hands[0]
        a, b = raw_env(game), raw_env(game)
        a.reset(options={"deal": deal, "opener": 0})
        b.reset(options={"deal": other, "opener": 0})
        assert a.hand.deal == deal and b.hand.deal == other
        rng = random.Random(seed)
        while not a.hand.is_over and not b.hand.is_over:
            if isinstance(a.hand, WidelecHand) and len(a.hand.boneyard) <= 1:
                break  # the next draw could be the swapped tile
            oa, ob = a.observe("player_0"), b.observe("player_0")
            assert np.array_equal(oa["observation"], ob["observation"])
            assert np.array_equal(oa["action_mask"], ob["action_mask"])
            compared += 1
            assert a.agent_selection == b.agent_selection
            if a.agent_selection == "player_0":
                choices = np.flatnonzero(oa["action_mask"]).tolist()
            else:  # the opponent plays a move it has in both deals, if there is one
                masks = a.observe("player_1")["action_mask"] & b.observe("player_1")["action_mask"]
                choices = np.flatnonzero(masks).tolist()
                if not choices:
                    break
            action = choices[rng.randrange(len(choices))]
            a.step(action)
            b.step(action)
    assert compared > 30


def test_observation_values_after_an_opening() -> None:
    e = raw_env("luzak")
    text = "65 54 46 11 44 00 10 20 21 22 30 31"
    tiles = [parse_tile(t) for t in text.split()]
    others = [t for t in TILES if t not in tiles]
    deal = Deal((tuple(sorted(tiles)), tuple(sorted(others[:12]))), tuple(others[12:]))
    e.reset(options={"deal": deal, "opener": 0})
    e.step(codec("luzak").encode(e.hand.parse_move("65")))
    lay = e.layout
    mine = e.observe("player_0")["observation"]
    theirs = e.observe("player_1")["observation"]
    assert np.flatnonzero(theirs[lay["table"]]).tolist() == [parse_tile("65").index]
    assert theirs[lay["ports"]].tolist() == [0, 0, 0, 0, 0, 1, 1]
    assert theirs[lay["count"]][0] == pytest.approx(0.11)
    assert theirs[lay["tiles_on_table"]][0] == pytest.approx(1 / 12)
    assert mine[lay["my_points"]][0] == pytest.approx(0.11) == theirs[lay["their_points"]][0]
    assert theirs[lay["their_tiles"]][0] == pytest.approx(11 / 28)
    assert mine[lay["opener"]][0] == 1 and theirs[lay["opener"]][0] == 0
    assert e.rewards == {"player_0": 11.0, "player_1": -11.0}


def test_layouts_cover_the_vectors() -> None:
    for game, size in (("luzak", 69), ("luzak-line", 80), ("widelec", 81)):
        lay = observation_layout(game)
        assert max(s.stop for s in lay.values()) == size
        space = raw_env(game).observation_space("player_0")["observation"]
        assert space.shape == (size,)


def test_rendering(capsys: pytest.CaptureFixture[str]) -> None:
    e = env("luzak-line", render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert isinstance(text, str) and "player_0" in text and "empty table" in text
    mask = e.last()[0]["action_mask"]
    e.step(int(np.flatnonzero(mask)[0]))
    assert "L:" in e.render() and "count" in e.render()
    human = env("widelec", render_mode="human")
    human.reset(seed=2)
    human.render()
    assert "boneyard 14 tiles" in capsys.readouterr().out
    human.step(int(np.flatnonzero(human.last()[0]["action_mask"])[0]))
    assert "to move" in capsys.readouterr().out  # human mode prints after each step
    e.close()
    human.close()


def test_options_are_checked() -> None:
    with pytest.raises(OptionError):
        env("luzak", no_such_option=True)
    with pytest.raises(OptionError):
        env("widelec", must_play_drawn="no")
    with pytest.raises(OptionError):
        env("domino")
    with pytest.raises(ValueError):
        raw_env("luzak", opener=2)
    assert raw_env("kwartety", edge_double=False).options == WidelecOptions(edge_double=False)


@pytest.mark.parametrize(("game", "options"), CASES, ids=IDS)
def test_illegal_action_ends_the_hand_worse_than_any_legal_result(
        game: str, options: dict[str, Any]) -> None:
    """PettingZoo's convention (TerminateIllegalWrapper, its classic games): an illegal
    action ends the episode, the offender getting the lowest reward, the other agent 0;
    scaled to points, so that no hand played out legally ends worse for the offender."""
    raw = raw_env(game, **options)
    raw.reset(seed=0)
    mask = raw.observe(raw.agent_selection)["action_mask"]
    with pytest.raises(IllegalMoveError):
        raw.step(int(np.flatnonzero(mask == 0)[0]))
    penalty = illegal_reward(game, raw.options)
    bound = hand_points_bound(game)
    assert penalty <= -2 * bound and penalty <= -raw.options.target
    rng = random.Random(11)
    for seed in range(5):
        wrapped = env(game, **options)
        wrapped.reset(seed=seed)
        totals = dict.fromkeys(AGENTS, 0.0)
        for _ in range(rng.randrange(1, 8)):  # some legal moves first, points may be earned
            obs = wrapped.observe(wrapped.agent_selection)
            wrapped.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            for a, r in wrapped.rewards.items():
                totals[a] += r
        agent = wrapped.agent_selection
        other = AGENTS[1 - AGENTS.index(agent)]
        obs = wrapped.observe(agent)
        wrapped.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))  # "Illegal move made"
        assert all(wrapped.terminations.values())
        assert wrapped.rewards == {agent: penalty, other: 0.0}
        for a, r in wrapped.rewards.items():
            totals[a] += r
        # the offender ends below the worst margin any legal hand can give (-bound)
        assert totals[agent] < -bound
        # the episode is over for both: each takes its last observation and steps None
        for _ in wrapped.agent_iter(4):
            wrapped.last()
            wrapped.step(None)
        assert not wrapped.agents


def test_illegal_reward_is_at_least_the_match_target() -> None:
    assert illegal_reward("luzak-line", raw_env("luzak-line", target=10_000).options) == -10_000
    e = env("luzak-line", target=10_000)
    e.reset(seed=1)
    agent = e.agent_selection
    e.step(int(np.flatnonzero(e.observe(agent)["action_mask"] == 0)[0]))
    assert e.rewards[agent] == -10_000
    assert illegal_reward("kwartety") == -2 * hand_points_bound("widelec")


def test_each_game_reports_its_own_name() -> None:
    names = {"luzak": "luzak_v0", "luzak-line": "luzak_line_v0", "widelec": "widelec_v0",
             "kwartety": "widelec_v0"}
    for game, name in names.items():
        raw = raw_env(game)
        assert type(raw).metadata["name"] == name  # at class level
        assert raw.metadata["name"] == name  # and on the instance
        assert env(game).metadata["name"] == name  # through the wrappers
        assert isinstance(raw, raw_env)
    assert LuzakEnv.metadata["name"] == "luzak_v0"
    assert LuzakLineEnv.metadata["name"] == "luzak_line_v0"
    assert WidelecEnv.metadata["name"] == "widelec_v0"
    assert WidelecEnv().game == "widelec" and type(raw_env("widelec")) is WidelecEnv
    copy = pickle.loads(pickle.dumps(raw_env("luzak-line", opener=1)))
    assert type(copy) is LuzakLineEnv and copy.fixed_opener == 1
    with pytest.raises(ValueError, match="plays widelec"):
        WidelecEnv("luzak")
