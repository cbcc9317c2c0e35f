"""Our expert against OpenSpiel's ISMCTS and MCTS bots: tiny runs only (a few hands)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

pytest.importorskip("pyspiel")

from dominolab.cli import headtohead as h2h_cli
from dominolab.core import get_game
from dominolab.lab import headtohead as h2h
from dominolab.lab import stats

GAMES = ("luzak", "luzak-line", "widelec")


@pytest.mark.parametrize("opponent", h2h.OPPONENTS)
@pytest.mark.parametrize("game", GAMES)
def test_tiny_run_is_sane(game: str, opponent: str) -> None:
    result = h2h.run(game, opponent, hands=4, seconds=0.01, seed=7)
    s = result.summary
    assert (s.pairs, s.hands) == (2, 4)
    assert s.wins + s.ties + s.losses == 4
    assert 0.0 <= s.win_rate <= 1.0
    assert s.win_rate_ci95 is not None
    assert 0.0 <= s.win_rate_ci95[0] <= s.win_rate <= s.win_rate_ci95[1] <= 1.0
    assert s.margin_ci95 is not None
    assert s.margin_ci95[0] <= s.margin_per_hand <= s.margin_ci95[1]
    assert s.our_timing.moves > 0 and s.their_timing.moves > 0
    if opponent == "random":  # no search
        assert s.simulations_median == 0
    else:
        assert s.simulations_median >= 1
    # the clock is kept: a move takes about its 0.01 s (a slack for a busy machine)
    assert s.our_timing.median < 0.1 and s.their_timing.median < 0.1
    # records: ordered by pair then our seat; margins are ours, zero-sum with the points
    assert [(r.pair, r.our_seat) for r in result.records] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    for r in result.records:
        assert r.deal_seed == 7 + r.pair
        assert r.opener == r.pair % 2
        assert r.margin == r.points[r.our_seat] - r.points[1 - r.our_seat]
        assert len(r.simulations) == len(r.their_seconds)
    text = h2h_cli.report(result)
    assert game in text and "win rate" in text


@pytest.mark.parametrize("game", GAMES)
def test_duplicate_pairs_share_the_deal_and_the_boneyard(game: str) -> None:
    result = h2h.run(game, "ismcts", hands=4, seconds=0.005, seed=3)
    size = get_game(game).hand_size
    recs = result.records
    for first, second in (recs[0:2], recs[2:4]):
        assert first.pair == second.pair
        assert (first.our_seat, second.our_seat) == (0, 1)
        assert first.deal == second.deal
        assert len(first.deal) == 2 * size == len(set(first.deal))
        assert first.opener == second.opener
        # Widelec: the draws come off one stack, so one copy's are a prefix of the other's
        n = min(len(first.draws), len(second.draws))
        assert first.draws[:n] == second.draws[:n]
        assert not set(first.draws) & set(first.deal)
    assert recs[0].deal != recs[2].deal
    if game != "widelec":
        assert all(not r.draws for r in recs)


def test_boneyard_order_is_fixed_by_the_seed() -> None:
    order = h2h.boneyard_order(5)
    assert sorted(order) == list(range(28))
    assert order == h2h.boneyard_order(5)
    assert order != h2h.boneyard_order(6)


def _record(pair: int, seat: int, margin: float) -> h2h.HandRecord:
    return h2h.HandRecord(pair=pair, deal_seed=pair, our_seat=seat, margin=margin,
                          points=(0, 0), deal=(), opener=0, draws=(),
                          our_seconds=(0.01, 0.02), their_seconds=(0.03,), simulations=(10,))


def test_statistics_come_from_the_lab_stats() -> None:
    used = vars(h2h)
    for name in ("mean", "mean_interval", "by_pair", "win_rate", "percentile", "Timing"):
        assert used[name] is getattr(stats, name)
    margins = [(5, -3), (0, 2), (-4, -1), (7, 0)]
    records = [_record(p, s, m) for p, pair in enumerate(margins) for s, m in enumerate(pair)]
    s = h2h.summarise(records)
    scores = [1.0 if m > 0 else 0.5 if m == 0 else 0.0 for pair in margins for m in pair]
    pair_scores = [stats.mean(scores[2 * i:2 * i + 2]) for i in range(4)]
    pair_margins = [stats.mean([float(m) for m in pair]) for pair in margins]
    assert (s.wins, s.ties, s.losses) == (3, 2, 3)
    assert s.win_rate == pytest.approx(stats.mean(scores))
    assert s.win_rate_ci95 == stats.mean_interval(pair_scores, clip=(0.0, 1.0))
    assert s.win_rate_wilson95 == stats.wilson_interval(math.fsum(scores), 8)
    assert s.margin_per_hand == pytest.approx(6 / 8)
    assert s.margin_ci95 == stats.mean_interval(pair_margins)
    assert s.our_timing == stats.Timing.of([0.01, 0.02] * 8)
    assert s.simulations_per_second == pytest.approx(10 / 0.03)


def test_mcts_searches_a_resampled_world_not_the_true_state() -> None:
    game = h2h.load_game("luzak", 0)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    seen: list[tuple[Any, int]] = []
    bot = h2h.make_bot("mcts", game, 0.01, seed=1)
    assert isinstance(bot, h2h.TimedMCTSBot)
    true_resample = bot.resample

    def spy(s: Any, player: int) -> Any:
        world = true_resample(s, player)
        seen.append((world, player))
        return world

    bot.resample = spy
    action = bot.step(state)
    assert action in state.legal_actions()
    assert len(seen) == 1 and seen[0][1] == state.current_player()
    world = seen[0][0]
    assert world.information_state_string(0) == state.information_state_string(0)
    assert bot.simulations >= 1


def test_the_random_floor_plays_a_legal_action_for_its_own_seat() -> None:
    game = h2h.load_game("widelec", 0)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    seat = state.current_player()
    bot = h2h.make_bot("random", game, 0.01, seed=1, seat=seat)
    assert isinstance(bot, h2h.RandomBot) and bot.player_id() == seat
    assert bot.step(state) in state.legal_actions()
    assert bot.simulations == 0
    record = h2h.play_hand("widelec", "random", 0.005, deal_seed=3, our_seat=1)
    assert record.simulations == (0,) * len(record.their_seconds)
    with pytest.raises(ValueError, match="seat"):
        h2h.make_bot("random", game, 0.01, seed=1)


def test_workers_keep_the_order_and_the_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert h2h_cli.main(["--game", "luzak-line", "--opponent", "mcts", "--hands", "4",
                     "--seconds", "0.005", "--workers", "2", "--json", "--hands-json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hands"] == 4 and out["pairs"] == 2 and out["workers"] == 2
    assert [(r["pair"], r["our_seat"]) for r in out["records"]] == [(0, 0), (0, 1), (1, 0),
                                                                   (1, 1)]
    assert out["records"][0]["deal"] == out["records"][1]["deal"]
    assert len(out["win_rate_ci95"]) == 2


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="even"):
        h2h.run("luzak", "ismcts", hands=3, seconds=0.01)
    with pytest.raises(ValueError, match="opponent"):
        h2h.run("luzak", "alphazero", hands=2, seconds=0.01)


def test_timed_ismcts_survives_a_tiny_time_limit() -> None:
    """On a loaded machine the time can run out after one simulation; OpenSpiel's first one
    only expands the root, so the bot must go on until the root has a visit."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("python_luzak")
    bot = h2h.TimedISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(1)),
                             15.0, 1e-9, np.random.RandomState(1))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    for _ in range(3):
        state.apply_action(bot.step(state))
    assert bot.simulations >= 2


def test_timed_mcts_survives_a_tiny_time_limit() -> None:
    """As for ISMCTS: with the time gone at once, MCTS searches until its root has a child."""
    result = h2h.run("luzak-line", "mcts", hands=2, seconds=1e-9, seed=5)
    assert len(result.records) == 2
