"""The OpenSpiel adapter: registration, OpenSpiel's own API checks, chance, observations
that hide what a seat cannot see, resampling for ISMCTS, and agreement with the engine."""

from __future__ import annotations

import pickle
import random
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

import numpy as np  # noqa: E402

import dominolab.integrations.openspiel as adapter  # noqa: E402
from dominolab.core import TILES, Deal, Draw, get_game  # noqa: E402
from dominolab.integrations.actions import codec  # noqa: E402

NAMES = ("python_luzak", "python_luzak_line", "python_widelec")
ENGINE = {"python_luzak": "luzak", "python_luzak_line": "luzak-line",
          "python_widelec": "widelec"}
PARAMS: dict[str, list[dict[str, Any]]] = {
    "python_luzak": [{}, {"short_ends_any_time": False, "luzak_scores_count": False,
                          "opener": 1}],
    "python_luzak_line": [{}, {"opener": 1}],
    "python_widelec": [{}, {"must_play_drawn": False, "edge_double": False, "opener": 1}],
}
CASES = [(name, params) for name in NAMES for params in PARAMS[name]]


def _play_random(state: Any, rng: random.Random, stop: int = 10_000) -> Any:
    """Random play (chance included) until the end, or the first player node after
    ``stop`` player moves."""
    moves = 0
    while not state.is_terminal() and (moves < stop or state.is_chance_node()):
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
    return state


def _player_states(game: Any, games: int, seed: int) -> list[Any]:
    """Clones of every player node of ``games`` random games."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                out.append(state.clone())
                state.apply_action(rng.choice(state.legal_actions()))
    return out


def test_registered_with_parameters() -> None:
    names = set(pyspiel.registered_names())
    assert set(NAMES) <= names
    expected = {
        "python_luzak": {"short_ends_any_time", "luzak_scores_count", "opener"},
        "python_luzak_line": {"opener"},
        "python_widelec": {"edge_double", "must_play_drawn", "opener"},
    }
    for name in NAMES:
        game = pyspiel.load_game(name)
        assert set(game.get_parameters()) == expected[name]
        assert game.num_distinct_actions() == codec(ENGINE[name]).num_actions
        assert game.max_chance_outcomes() == 28
        assert game.num_players() == 2
        assert game.max_game_length() == adapter.max_game_length(get_game(ENGINE[name]))
    game = pyspiel.load_game("python_luzak", {"short_ends_any_time": False, "opener": 1})
    state = _play_random(game.new_initial_state(), random.Random(1), stop=0)
    assert state.hand is not None
    assert state.hand.options.short_ends_any_time is False
    assert state.hand.opener == 1 and state.current_player() == 1
    with pytest.raises(Exception, match="opener"):
        pyspiel.load_game("python_widelec", {"opener": 2})


@pytest.mark.parametrize(("name", "params"), CASES)
def test_random_sim_test_with_serialization(name: str, params: dict[str, Any]) -> None:
    game = pyspiel.load_game(name, params)
    pyspiel.random_sim_test(game, num_sims=4, serialize=True, verbose=False)


@pytest.mark.parametrize("name", NAMES)
def test_pickle_and_serialize(name: str) -> None:
    game = pyspiel.load_game(name)
    state = _play_random(game.new_initial_state(), random.Random(2), stop=5)
    copy = pickle.loads(pickle.dumps(state))
    assert str(copy) == str(state) and copy.history() == state.history()
    _, again = pyspiel.deserialize_game_and_state(
        pyspiel.serialize_game_and_state(game, state))
    assert str(again) == str(state)
    assert str(pickle.loads(pickle.dumps(game))) == str(game)


@pytest.mark.parametrize(("name", "params"), CASES)
def test_chance_nodes(name: str, params: dict[str, Any]) -> None:
    game = pyspiel.load_game(name, params)
    size = get_game(ENGINE[name]).hand_size
    rng = random.Random(3)
    draws = 0
    for _ in range(20):
        state = game.new_initial_state()
        dealt = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                assert sum(p for _, p in outcomes) == pytest.approx(1.0)
                tiles = [a for a, _ in outcomes]
                assert tiles == sorted(tiles) and all(0 <= a < 28 for a in tiles)
                if state.hand is None:
                    assert len(tiles) == 28 - dealt
                    dealt += 1
                else:
                    assert len(tiles) == len(state.hand.boneyard)
                    draws += 1
                state.apply_action(rng.choice(tiles))
            else:
                assert dealt == 2 * size
                state.apply_action(rng.choice(state.legal_actions()))
    assert (draws > 0) == (name == "python_widelec")


def test_widelec_draw_is_a_chance_node() -> None:
    game = pyspiel.load_game("python_widelec")
    rng = random.Random(4)
    for _ in range(30):
        state = _play_random(game.new_initial_state(), rng, stop=0)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
                continue
            legal = state.legal_actions()
            draw = codec("widelec").encode(Draw())
            if legal == [draw]:
                seat = state.current_player()
                before = len(state.hand.hands[seat])
                state.apply_action(draw)
                assert state.is_chance_node()
                tile = rng.choice(state.chance_outcomes())[0]
                state.apply_action(tile)
                assert TILES[tile] in state.hand.hands[seat] or state.hand.table_placements[
                    -1].tile is TILES[tile]
                assert len(state.hand.hands[seat]) in (before, before + 1)
                return
            state.apply_action(rng.choice(legal))
    pytest.fail("no draw in 30 random hands")


@pytest.mark.parametrize("name", NAMES)
def test_tensors_have_the_declared_shape_and_hide_hidden_tiles(name: str) -> None:
    game = pyspiel.load_game(name)
    obs_size = game.observation_tensor_size()
    info_size = game.information_state_tensor_size()
    sampler = pyspiel.UniformProbabilitySampler(5, 0.0, 1.0)
    for state in _player_states(game, 6, seed=5)[::2]:
        for seat in (0, 1):
            obs = np.array(state.observation_tensor(seat))
            info = np.array(state.information_state_tensor(seat))
            assert obs.shape == (obs_size,) and info.shape == (info_size,)
            own = np.zeros(28)
            own[[t.index for t in state.hand.hands[seat]]] = 1
            assert (obs[2:30] == own).all()  # the hand piece follows the player piece
            # another world with the same information: the opponent's tiles, the rest and
            # the opponent's draws all redealt; what the seat observes must not change
            other = state.resample_from_infostate(seat, sampler)
            assert (np.array(other.observation_tensor(seat)) == obs).all()
            assert (np.array(other.information_state_tensor(seat)) == info).all()
            assert other.observation_string(seat) == state.observation_string(seat)


def test_observer_pieces() -> None:
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game("python_luzak")
    obs = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    assert list(obs.dict) == ["player", "hand", "to_move", "table", "n", "tile_counts",
                              "points", "ports", "count", "history"]
    assert obs.dict["ports"].shape == (48, 7) and obs.dict["history"].shape == (12, 87)
    state = _play_random(game.new_initial_state(), random.Random(6), stop=3)
    obs.set_from(state, 0)
    assert obs.dict["n"][0] == 3 and obs.dict["count"][0] == state.hand.table.count
    assert obs.dict["history"][:3, :2].sum() == 3 and obs.dict["history"][3:].sum() == 0
    public = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE))
    assert "hand" not in public.dict
    line = make_observation(pyspiel.load_game("python_widelec"),
                            pyspiel.IIGObservationType(perfect_recall=True))
    assert line.dict["ends"].shape == (2, 7) and line.dict["history"].shape == (58, 43)
    assert {"boneyard", "pending", "drawing"} <= set(line.dict)


@pytest.mark.parametrize(("name", "params"), CASES)
def test_resample_keeps_the_information_state(name: str, params: dict[str, Any]) -> None:
    game = pyspiel.load_game(name, params)
    rng = random.Random(7)
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    differs = 0
    for state in _player_states(game, 5, seed=7):
        seat = state.current_player()
        for player in (seat, 1 - seat):
            other = state.resample_from_infostate(player, sampler)
            assert other.information_state_string(player) == state.information_state_string(
                player)
            assert other.current_player() == seat
            differs += str(other) != str(state)
        other = state.resample_from_infostate(seat, sampler)
        assert other.legal_actions() == state.legal_actions()
        assert len(other.history()) == len(state.history())
        _play_random(other, rng)
        assert other.is_terminal()
    assert differs > 0


def test_resample_while_dealing() -> None:
    game = pyspiel.load_game("python_luzak")
    state = game.new_initial_state()
    for tile in range(15):
        state.apply_action(tile)
    sampler = pyspiel.UniformProbabilitySampler(8, 0.0, 1.0)
    for player in (0, 1):
        other = state.resample_from_infostate(player, sampler)
        assert other.information_state_string(player) == state.information_state_string(
            player)
        assert other.is_chance_node()


@pytest.mark.parametrize("name", NAMES)
def test_ismcts_plays_whole_hands(name: str) -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game(name)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1,
                                            random_state=np.random.RandomState(1))
    bots = [ismcts.ISMCTSBot(game, evaluator, uct_c=10.0, max_simulations=25,
                             random_state=np.random.RandomState(seat),
                             child_selection_policy=policy)
            for seat, policy in ((0, ismcts.ChildSelectionPolicy.PUCT),
                                 (1, ismcts.ChildSelectionPolicy.UCT))]
    rng = random.Random(9)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    returns = state.returns()
    assert returns[0] == -returns[1]
    assert returns[0] == state.hand.points[0] - state.hand.points[1]


@pytest.mark.parametrize(("name", "params"), CASES)
def test_points_agree_with_the_engine(name: str, params: dict[str, Any]) -> None:
    game = pyspiel.load_game(name, params)
    spec = get_game(ENGINE[name])
    cd = codec(spec.name)
    rng = random.Random(10)
    for _ in range(10):
        state = _play_random(game.new_initial_state(), rng)
        size = spec.hand_size
        dealt = state.history()[:2 * size]
        drawn = [tile for _, _, tile in state.record if tile >= 0]
        rest_tiles = [i for i in range(28) if i not in dealt and i not in drawn]
        deal = Deal((tuple(TILES[i] for i in sorted(dealt[:size])),
                     tuple(TILES[i] for i in sorted(dealt[size:]))),
                    tuple(TILES[i] for i in [*drawn, *rest_tiles]))
        hand = spec.hand_class(deal, state.hand.opener, state.hand.options)
        for _, action, _ in state.record:
            hand.apply(cd.move(hand, action))
        assert hand.result is not None
        assert hand.points == state.hand.points
        margin = hand.points[0] - hand.points[1]
        assert state.returns() == [margin, -margin]
        assert game.min_utility() <= margin <= game.max_utility()


def _widelec_state(deal: tuple[str, str], moves: str) -> Any:
    """A Widelec state (seat 0 opens) dealt ``deal`` after the moves in notation; a final
    ``draw`` is left waiting for its chance outcome."""
    from dominolab.core import parse_move, parse_tile

    game = pyspiel.load_game("python_widelec")
    state = game.new_initial_state()
    for tiles in deal:
        for text in tiles.split():
            state.apply_action(parse_tile(text).index)
    cd = codec("widelec")
    for text in moves.split():
        if state.is_chance_node():  # a draw's tile: any is fine here
            state.apply_action(state.chance_outcomes()[0][0])
        state.apply_action(cd.encode(parse_move(text)))
    return state


def _same_information(world: Any, state: Any, player: int) -> None:
    assert world.information_state_string(player) == state.information_state_string(player)
    assert world.information_state_tensor(player) == state.information_state_tensor(player)
    assert world.observation_string(player) == state.observation_string(player)
    assert world.current_player() == state.current_player()
    assert len(world.history()) == len(state.history())


def test_resample_at_a_draw_waiting_for_its_tile() -> None:
    # seat 0 draws with nothing fitting the ends 4 and 2: the draw proves seat 0 holds no 4
    # or 2 though the engine has not taken the draw yet (its tile is the chance outcome).
    # Of seat 1's 20 unseen tiles only 10 have no 4 or 2, so a world that ignores this
    # fact holds a fitting tile for seat 0 in 99.5% of tries.
    state = _widelec_state(("11 33 41 50 55 60 63", "10 12 30 51 53 62 65"), "41 12@R draw")
    assert state.is_chance_node()
    for seed in range(30):
        sampler = pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)
        for player in (0, 1):
            world = state.resample_from_infostate(player, sampler)
            _same_information(world, state, player)
            assert all(4 not in (t.hi, t.lo) and 2 not in (t.hi, t.lo)
                       for t in world.hand.hands[0])
            world.apply_action(world.chance_outcomes()[0][0])  # the draw completes


@pytest.mark.parametrize("params", PARAMS["python_widelec"])
def test_resample_never_fails_at_draw_chance_nodes(params: dict[str, Any]) -> None:
    """Every draw's chance node of seeded random hands, both seats: a world is always found
    (the true one exists), with the same information state, and it plays on."""
    game = pyspiel.load_game("python_widelec", params)
    rng = random.Random(12)
    sampler = pyspiel.UniformProbabilitySampler(12, 0.0, 1.0)
    nodes = 0
    for _ in range(120):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node() and state.hand is not None:
                nodes += 1
                for player in (0, 1):
                    world = state.resample_from_infostate(player, sampler)
                    _same_information(world, state, player)
                    assert sorted(a for a, _ in world.chance_outcomes()) == sorted(
                        t.index for t in world.hand.boneyard)
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    assert nodes > 500


@pytest.mark.parametrize("name", ("python_luzak", "python_luzak_line"))
def test_action_strings_are_the_engines_notation_luzaks_included(name: str) -> None:
    from dominolab.core import parse_move

    game = pyspiel.load_game(name)
    rng = random.Random(13)
    luzaks = 0
    for hands in range(1000):  # random play lays a luzak in a few hands in a hundred
        if luzaks >= 3:
            break
        state = _play_random(game.new_initial_state(), rng, stop=0)
        while not state.is_terminal():
            player = state.current_player()
            moves = {codec(ENGINE[name]).encode(m): m for m in state.hand.legal_moves()}
            if hands < 5 or any(getattr(m, "luzak", False) for m in moves.values()):
                for action in state.legal_actions():
                    text = state.action_to_string(player, action)
                    assert text == str(moves[action])
                    assert parse_move(text) == moves[action]
            action = rng.choice(state.legal_actions())
            move = moves[action]
            state.apply_action(action)
            if getattr(move, "luzak", False):
                luzaks += 1
                text = str(move)
                assert text.endswith("*")
                for seat in (0, 1):
                    assert f"{player}:{text}" in state.information_state_string(seat).split()
                assert f"{player}:{text}" in str(state).split()
    assert luzaks >= 3
