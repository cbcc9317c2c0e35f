"""The learned players (dominolab.players.learned, .policy): the learned reading's worlds
weighed exactly as one world at a time would be, the network's slots and inputs, the
``learned`` player, root-parallel searches, the shipped networks, and play never needing
PyTorch."""

from __future__ import annotations

import math
import random
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from dominolab.core import TILES, Match, View
from dominolab.lab.train import SHIPPED_CONFIG, load_config
from dominolab.players import (
    Budget,
    ExpertPlayer,
    GreedyPlayer,
    PimcPlayer,
    Player,
    make_player,
)
from dominolab.players.beliefs import ChoiceStep, MixedModel, choice_views
from dominolab.players.learned import LearnedModel, LearnedPlayer
from dominolab.players.policy import (
    FEATURES_VERSION,
    PLAY_SLOTS,
    PRIVATE_SIZE,
    ROLES,
    SLOTS,
    Network,
    gains,
    inputs,
    move_slot,
    public_inputs,
    public_size,
    shipped,
    slots_of,
)

GAMES = ("luzak", "luzak-line", "widelec")


def random_network(game: str, seed: int = 0, hidden: int = 12) -> Network:
    rng = np.random.default_rng(seed)
    n = PRIVATE_SIZE + public_size(game)
    weights = (rng.normal(0, 0.5, (n, hidden)).astype(np.float32),
               rng.normal(0, 0.5, (hidden, SLOTS)).astype(np.float32))
    biases = (rng.normal(0, 0.1, hidden).astype(np.float32),
              rng.normal(0, 0.1, SLOTS).astype(np.float32))
    return Network(weights, biases, {"game": game, "features": FEATURES_VERSION})


def gains_network(game: str) -> Network:
    """A one-layer network whose logit of a play slot is 400 times its gain input: it
    prefers the play that scores most now."""
    n = PRIVATE_SIZE + public_size(game)
    w = np.zeros((n, SLOTS), dtype=np.float32)
    start = n - PLAY_SLOTS - 2  # the gains come just before the two match totals
    w[start + np.arange(PLAY_SLOTS), np.arange(PLAY_SLOTS)] = 400.0
    return Network((w,), (np.zeros(SLOTS, dtype=np.float32),),
                   {"game": game, "features": FEATURES_VERSION})


def position(game: str, seed: int, moves: int) -> View:
    """The view of the seat to move after ``moves`` moves of greedy against pimc:8w."""
    match = Match(game, seed=seed)
    players: list[Player] = [GreedyPlayer(), PimcPlayer(random.Random(seed))]
    for _ in range(moves):
        seat = match.to_move
        assert seat is not None
        match.apply(players[seat].choose(match.view(seat), Budget(worlds=8)))
    assert match.to_move is not None
    return match.view(match.to_move)


def one_world_log(view: View, hand: tuple[object, ...], network: Network,
                  floor: float) -> float:
    """The readable statement: the log-likelihood of the opponent's choices had it held
    ``hand`` now, one choice and one world at a time (no hidden draws: Luzak games)."""
    now = sum(1 << t.index for t in hand)  # type: ignore[attr-defined]
    total = 0.0
    for then in choice_views(view).values():
        step = ChoiceStep(then, view)
        held = tuple(t for t in TILES if step.held(now, {}) >> t.index & 1)
        seen = replace(then, hand=held)
        legal = slots_of(step.table.normal_plays(held))
        if legal.sum() < 2:
            continue
        h, public = inputs(seen)
        p = network.probabilities(h[None, :], public, legal[None, :])[0][move_slot(step.move)]
        total += math.log(floor / legal.sum() + (1 - floor) * p)
    return total


@pytest.mark.parametrize("game", ["luzak", "luzak-line"])
def test_the_reading_weighs_each_world_as_one_world_at_a_time(game: str) -> None:
    view = position(game, 3, 9)
    assert choice_views(view), "the position must follow some choices of the opponent"
    network = random_network(game)
    found = LearnedModel(48, 0.2, network).weighed(view, random.Random(1))
    assert found is not None and len(found.hands) == 48
    for hand, log in zip(found.hands, found.logs, strict=True):
        assert len(hand) == view.opponent_tiles
        assert log == pytest.approx(one_world_log(view, hand, network, 0.2), abs=1e-4)


def test_the_reading_in_widelec_gives_hands_of_the_opponents_size() -> None:
    view = position("widelec", 4, 14)
    found = LearnedModel(64, 0.1, random_network("widelec")).weighed(view, random.Random(2))
    if found is not None:
        assert all(len(h) == view.opponent_tiles for h in found.hands)
        assert all(np.isfinite(found.logs))


def test_a_surprising_move_lowers_a_world_but_never_rules_it_out() -> None:
    view = position("luzak-line", 3, 9)
    found = LearnedModel(200, 0.1, gains_network("luzak-line")).weighed(view, random.Random(4))
    assert found is not None
    logs = np.array(found.logs)
    assert np.isfinite(logs).all() and logs.max() > logs.min()  # the worlds differ


def test_the_reading_declines_before_the_opponents_first_choice() -> None:
    match = Match("luzak-line", seed=8)
    view = match.view(match.to_move or 0)
    assert LearnedModel(16, network=random_network("luzak-line")).weighed(
        view, random.Random(0)) is None


def test_bad_model_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="samples"):
        LearnedModel(0)
    with pytest.raises(ValueError, match="floor"):
        LearnedModel(16, 0.0)


def test_a_moves_slot_is_its_tile_and_the_half_it_joins() -> None:
    match = Match("luzak", seed=2)
    seen: set[int] = set()
    for move in match.legal_moves():
        slot = move_slot(move)
        assert 0 <= slot < PLAY_SLOTS and slot // 2 == move.tile.index  # type: ignore[union-attr]
        seen.add(slot)
    assert slots_of(match.legal_moves()).sum() == len(seen)


def test_gains_are_the_best_immediate_margin_of_each_slot() -> None:
    view = position("luzak", 5, 6)
    g = gains(view)
    on_table = {p.tile for p in view.table}
    score = view.spec.hand_class.score_placement
    table = view.new_table()
    best: dict[int, float] = {}
    for play in table.normal_plays([t for t in TILES if t not in on_table]):
        pts = score(table.copy(), play, view.seat, view.options)
        m = (pts[view.seat] - pts[1 - view.seat]) / 20.0
        best[move_slot(play)] = max(best.get(move_slot(play), -1e9), m)
    assert set(np.flatnonzero(g)) <= set(best)
    for slot, m in best.items():
        assert g[slot] == pytest.approx(m)


def test_the_learned_player_plays_its_networks_favourite() -> None:
    match = Match("luzak-line", seed=6)
    player = LearnedPlayer(gains_network("luzak-line"))
    for _ in range(40):
        seat = match.to_move
        if seat is None:
            break
        seat_view = match.view(seat)
        move = player.choose(seat_view)
        assert move in seat_view.legal_moves
        if len({move_slot(m) for m in seat_view.legal_moves}) > 1:
            g = gains(seat_view)
            assert g[move_slot(move)] == max(g[move_slot(m)] for m in seat_view.legal_moves)
        match.apply(move)


def test_root_parallel_spends_the_budget_over_the_trees() -> None:
    view = position("luzak", 7, 3)
    one = ExpertPlayer(random.Random(1), reading=False)
    three = ExpertPlayer(random.Random(1), reading=False)
    three.roots = 3
    budget = Budget(worlds=3001)
    values = three.analyse(view, budget)
    assert sum(v.worlds for v in values) == 3001
    again = ExpertPlayer(random.Random(1), reading=False)
    again.roots = 3
    assert [(v.move, v.worlds) for v in again.analyse(view, budget)] == [
        (v.move, v.worlds) for v in values]
    assert sum(v.worlds for v in one.analyse(view, budget)) == 3001


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("role", ROLES)
def test_the_shipped_networks_were_made_by_the_shipped_config(game: str, role: str) -> None:
    network = shipped(game, role)
    assert network is not None, f"no {role} network shipped for {game}: dominolab train"
    config = {c.game: c for c in load_config(SHIPPED_CONFIG)}[game]
    assert network.meta["config"] == config.digest()
    assert network.meta["role"] == role and network.meta["game"] == game
    size = sum(w.nbytes + b.nbytes for w, b in zip(network.weights, network.biases, strict=True))
    assert size < 1_000_000
    # it predicts its held-out choices better than a uniform choice among the legal moves
    assert network.meta["held_out_accuracy"] > 0.3


@pytest.mark.parametrize("game", GAMES)
def test_learned_plays_whole_matches_and_the_expert_reads_with_it(game: str) -> None:
    match = Match(game, seed=21)
    learned = make_player("learned", 1)
    expert = ExpertPlayer(random.Random(2))
    expert.opponent_model = MixedModel([(1.0, LearnedModel(128))])
    for _ in range(400):
        seat = match.to_move
        if seat is None:
            break
        view = match.view(seat)
        move = (learned.choose(view) if seat == 0 else
                expert.choose(view, Budget(worlds=300)))
        match.apply(move)
    assert match.is_over or match.hand_number > 1


def fresh_python(code: str) -> str:
    """What ``code`` prints, run in a new interpreter (what it imports is its own)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_command_line_and_the_players_load_numpy_only_when_a_network_is_asked_for(
        ) -> None:
    code = ("import sys\n"
            "import dominolab.players\n"
            "from dominolab.cli.main import build_parser\n"
            "build_parser()\n"
            "assert 'numpy' not in sys.modules, 'numpy was imported'\n"
            "dominolab.players.make_player('learned', 1)\n"
            "assert 'numpy' in sys.modules\n"
            "print('ok')\n")
    assert fresh_python(code) == "ok"


def test_playing_never_imports_torch() -> None:
    code = ("import sys\n"
            "from dominolab.core import Match\n"
            "from dominolab.players import make_player, Budget\n"
            "m = Match('luzak', seed=1)\n"
            "for name in ('learned', 'hard'):\n"
            "    p = make_player(name, 1)\n"
            "    for _ in range(6):\n"
            "        s = m.to_move\n"
            "        m.apply(p.choose(m.view(s), Budget(worlds=200)))\n"
            "import dominolab.web.edge.app\n"
            "assert 'torch' not in sys.modules, 'torch was imported'\n"
            "print('ok')\n")
    assert fresh_python(code) == "ok"


@pytest.mark.parametrize("game", GAMES)
def test_the_reading_sees_each_past_choice_as_the_chooser_saw_it(game: str) -> None:
    """What the network is given at one of the opponent's past choices (built from the
    table and the history) is what the opponent's own view gave at that moment, as in the
    training rows: the reading asks the network the question it was trained on."""
    match = Match(game, seed=31)
    players: list[Player] = [GreedyPlayer(), PimcPlayer(random.Random(3))]
    seen: dict[int, View] = {}
    compared = 0
    for _ in range(60):
        seat = match.to_move
        if seat is None or match.hand_number > 1:
            break
        view = match.view(seat)
        if seat == 1:
            seen[len(view.history)] = view
        match.apply(players[seat].choose(view, Budget(worlds=8)))
        if match.hand_number > 1 or match.to_move is None:
            break
        later = match.view(0)
        for at, then in choice_views(later).items():
            own = seen[at]
            assert np.array_equal(public_inputs(then), public_inputs(own)), (game, at)
            assert np.array_equal(inputs(replace(then, hand=own.hand))[0], inputs(own)[0])
            compared += 1
    assert compared > 3
