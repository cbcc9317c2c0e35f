"""The arena: its statistics on hand-made data, the duplicate structure of its matches,
determinism across worker counts and runs, and the ``dominolab arena`` command."""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from dominolab.cli.arena import format_result
from dominolab.cli.main import main
from dominolab.cli.progress import Progress
from dominolab.core import Match, OptionError
from dominolab.lab import (
    Z95,
    ArenaInterrupted,
    ArenaResult,
    MatchRecord,
    compare_arenas,
    complete_pairs,
    mean,
    mean_interval,
    percentile,
    ratio_interval,
    resolve_player,
    run_arena_matches,
    sample_sd,
    summarise,
    wilson_interval,
)
from dominolab.players import Budget

# -- statistics -------------------------------------------------------------------------------


def test_mean_and_sd() -> None:
    assert mean([1, 2, 3, 4, 5]) == 3
    assert sample_sd([1, 2, 3, 4, 5]) == pytest.approx(math.sqrt(2.5))
    assert math.isnan(mean([]))
    assert math.isnan(sample_sd([7]))


def test_mean_interval_known_values() -> None:
    ci = mean_interval([1, 2, 3, 4, 5])
    assert ci is not None
    half = 1.96 * math.sqrt(2.5) / math.sqrt(5)
    assert ci == pytest.approx((3 - half, 3 + half))
    assert mean_interval([4.0]) is None


def test_mean_interval_clipped_to_unit_range() -> None:
    # mean 0.625, sd 0.4787: the upper bound 1.094 is clipped to 1
    ci = mean_interval([0, 1, 0.5, 1], clip=(0.0, 1.0))
    assert ci is not None
    assert ci[0] == pytest.approx(0.625 - 1.96 * math.sqrt(0.6875 / 3) / 2)
    assert ci[1] == 1.0
    assert mean_interval([1, 1, 1], clip=(0.0, 1.0)) == (1.0, 1.0)


def test_wilson_interval_known_value() -> None:
    # 8 of 10: the textbook Wilson 95% interval is 0.490 .. 0.943
    ci = wilson_interval(8, 10)
    assert ci is not None
    assert ci == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert wilson_interval(0, 0) is None
    lo, hi = wilson_interval(10, 10) or (0, 0)
    assert hi == 1.0 and lo == pytest.approx(0.7225, abs=1e-4)


def test_ratio_interval_equal_denominators_is_mean_interval() -> None:
    margins, hands = [12.0, -4.0, 6.0, 10.0], [4.0, 4.0, 4.0, 4.0]
    ratio, ci = ratio_interval(margins, hands)
    assert ratio == pytest.approx(24 / 16)
    assert ci == pytest.approx(mean_interval([m / h for m, h in zip(margins, hands,
                                                                      strict=True)]))


def test_ratio_interval_weighs_by_hands() -> None:
    # pair 1: +10 over 2 hands, pair 2: 0 over 8 hands: +1 a hand over all 10 hands
    ratio, ci = ratio_interval([10.0, 0.0], [2.0, 8.0])
    assert ratio == pytest.approx(1.0)
    assert ci is not None and ci[0] < 1.0 < ci[1]
    assert ratio_interval([5.0], [2.0]) == (2.5, None)


def test_percentile_interpolates_like_numpy() -> None:
    values = [float(v) for v in range(10, 0, -1)]
    assert percentile(values, 50) == pytest.approx(5.5)
    assert percentile(values, 95) == pytest.approx(9.55)
    assert percentile(values, 100) == 10 and percentile(values, 0) == 1
    assert math.isnan(percentile([], 50))


def _record(pair: int, a_seat: int, score: float, margins: tuple[int, ...]) -> MatchRecord:
    return MatchRecord(pair, pair + 1, a_seat, score, 0, 0, margins, (0.1, 0.3), (0.2,),
                       "deal", 0, "target")


def test_summary_uses_pairs_as_the_unit() -> None:
    records = [_record(0, 0, 1.0, (5, 5)), _record(0, 1, 0.5, (0, 2)),
               _record(1, 0, 0.0, (-3,)), _record(1, 1, 1.0, (4, 4, 1))]
    s = summarise(records)
    assert (s.pairs, s.matches, s.hands, s.moves) == (2, 4, 8, 12)
    assert (s.a_wins, s.b_wins, s.draws) == (2, 1, 1)
    assert s.win_rate == pytest.approx(2.5 / 4)
    # pair scores 0.75 and 0.5: mean 0.625, sd 0.1768
    assert s.win_rate_ci95 == pytest.approx(mean_interval([0.75, 0.5]))
    assert s.win_rate_wilson95 == pytest.approx(wilson_interval(2.5, 4))
    assert s.margin_per_hand == pytest.approx(18 / 8)
    assert s.a_timing.moves == 8 and s.a_timing.median == pytest.approx(0.2)
    assert s.b_timing.max == pytest.approx(0.2)


def test_complete_pairs_drops_a_lone_match() -> None:
    records = [_record(0, 0, 1.0, (1,)), _record(0, 1, 0.0, (1,)), _record(1, 0, 1.0, (1,))]
    assert [r.pair for r in complete_pairs(records)] == [0, 0]


# -- running matches --------------------------------------------------------------------------


def _played(result: ArenaResult) -> list[tuple[object, ...]]:
    """Everything of the records but the timings."""
    return [(r.pair, r.match_seed, r.a_seat, r.score, r.a_points, r.b_points, r.hand_margins,
             len(r.a_seconds), len(r.b_seconds), r.first_deal, r.first_opener, r.end)
            for r in result.records]


@pytest.fixture(scope="module")
def greedy_vs_random() -> ArenaResult:
    return run_arena_matches("luzak", "greedy", "random", 4, seed=11, workers=1)


def test_greedy_beats_random(greedy_vs_random: ArenaResult) -> None:
    s = greedy_vs_random.summary
    assert (s.pairs, s.matches) == (4, 8)
    assert s.win_rate >= 0.75
    assert s.margin_per_hand > 0
    assert s.hands == sum(r.hands for r in greedy_vs_random.records)
    assert s.moves == s.a_timing.moves + s.b_timing.moves
    assert s.win_rate_ci95 is not None and s.margin_ci95 is not None


def test_same_results_on_one_or_two_workers(greedy_vs_random: ArenaResult) -> None:
    two = run_arena_matches("luzak", "greedy", "random", 4, seed=11, workers=2)
    assert _played(two) == _played(greedy_vs_random)
    assert two.summary.win_rate == greedy_vs_random.summary.win_rate
    assert two.summary.margin_ci95 == greedy_vs_random.summary.margin_ci95


def test_duplicate_structure(greedy_vs_random: ArenaResult) -> None:
    records = greedy_vs_random.records
    assert [(r.pair, r.a_seat) for r in records] == [(p, s) for p in range(4) for s in (0, 1)]
    for first, second in zip(records[::2], records[1::2], strict=True):
        assert first.match_seed == second.match_seed == 11 + first.pair
        assert first.first_deal == second.first_deal
        assert first.first_opener == second.first_opener
        match = Match("luzak", seed=first.match_seed)
        assert match.first_opener == first.first_opener
        deal = match.deal_for(1)
        assert first.first_deal.startswith(" ".join(str(t) for t in deal.hands[0]))
    assert len({r.first_deal for r in records}) == 4  # every pair its own deals
    # the points agree with the hand margins
    for r in records:
        assert r.a_points - r.b_points == sum(r.hand_margins)


def test_self_play_is_exactly_even() -> None:
    """Players are seeded by seat: the same player in both seats plays a pair's two
    matches identically, seats swapped, so every pair scores exactly one half."""
    result = run_arena_matches("widelec", "random", "random", 3, seed=5, workers=1)
    s = result.summary
    assert s.win_rate == 0.5 and s.margin_per_hand == 0
    assert s.win_rate_ci95 == (0.5, 0.5)
    for first, second in zip(result.records[::2], result.records[1::2], strict=True):
        assert first.hand_margins == tuple(-m for m in second.hand_margins)


def test_worlds_budget_runs_repeat_exactly() -> None:
    runs = [run_arena_matches("luzak-line", "pimc:5w", "greedy", 2, seed=3,
                              options=["target=30"], workers=1) for _ in range(2)]
    assert _played(runs[0]) == _played(runs[1])
    assert runs[0].summary.win_rate == runs[1].summary.win_rate
    assert runs[0].summary.margin_per_hand == runs[1].summary.margin_per_hand
    assert runs[0].a_budget == Budget(worlds=5) and runs[0].b_budget is None


def test_omniscient_player_is_handed_the_hand() -> None:
    result = run_arena_matches("luzak", "omniscient", "greedy", 1, seed=2,
                               options=["target=30"], budget="1w", workers=1)
    s = result.summary
    assert (s.pairs, s.matches) == (1, 2)
    assert result.a_budget == Budget(worlds=1) and result.b_budget == Budget(worlds=1)
    assert s.win_rate_ci95 is None and s.margin_ci95 is None  # one pair: no spread
    assert s.a_timing.moves > 0
    assert "n/a" in format_result(result)


def test_budgets_resolve() -> None:
    assert resolve_player("expert:200w", "1s") == ("expert", Budget(worlds=200))
    assert resolve_player("pimc", "0.5s") == ("pimc", Budget(seconds=0.5))
    assert resolve_player("greedy") == ("greedy", None)
    assert resolve_player("medium") == ("medium", Budget(worlds=40))  # a level: pimc:40w


@pytest.mark.parametrize("kwargs", [
    {"a_spec": "nobody"}, {"b_spec": "pimc:fast"}, {"game": "chess"}, {"pairs": 0},
    {"budget": "10x"}, {"options": ["nope=1"]}, {"workers": 0},
])
def test_bad_input_raises_option_errors(kwargs: dict[str, object]) -> None:
    args: dict[str, object] = {"game": "luzak", "a_spec": "greedy", "b_spec": "random",
                               "pairs": 1, "workers": 1}
    args.update(kwargs)
    with pytest.raises(OptionError):
        run_arena_matches(**args)  # type: ignore[arg-type]


@pytest.mark.parametrize("workers", [1, 2])
def test_interruption_keeps_the_finished_matches(workers: int) -> None:
    def stop_after_three(done: int, total: int) -> None:
        if done >= 3:
            raise KeyboardInterrupt

    with pytest.raises(ArenaInterrupted) as caught:
        run_arena_matches("luzak", "greedy", "random", 5, seed=1, workers=workers,
                          progress_callback=stop_after_three)
    partial = caught.value.partial
    assert partial.interrupted and len(partial.records) >= 3
    assert partial.summary.matches == 2 * partial.summary.pairs  # complete pairs only
    assert "INTERRUPTED" in format_result(partial)


def test_progress_reaches_the_total() -> None:
    calls: list[tuple[int, int]] = []
    run_arena_matches("luzak", "greedy", "greedy", 2, workers=1,
                      progress_callback=lambda d, t: calls.append((d, t)))
    assert calls[0] == (0, 4) and calls[-1] == (4, 4)


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_redraws_in_place_on_a_terminal() -> None:
    tty = _Tty()
    bar = Progress("matches", stream=tty)
    bar(0, 4)
    bar(2, 4)
    bar(4, 4)
    bar.close()
    out = tty.getvalue()
    assert out.count("\r") >= 2 and out.endswith("\n")
    assert "4/4" in out and "matches" in out
    plain = io.StringIO()
    quiet = Progress("matches", stream=plain)
    quiet(0, 4)
    quiet(2, 4)
    quiet(4, 4)
    quiet.close()
    lines = plain.getvalue().splitlines()  # not a terminal and quick: a start and an end
    assert "\r" not in plain.getvalue() and "0/4" in lines[0] and "4/4" in lines[-1]


# -- the command ------------------------------------------------------------------------------

JSON_KEYS = {"a", "b", "budgets", "game", "options", "seed", "pairs", "matches", "hands",
             "moves", "a_wins", "b_wins", "draws", "win_rate", "win_rate_ci95",
             "win_rate_wilson95", "margin_per_hand", "margin_ci95", "seconds_per_move",
             "seconds", "interrupted", "by_pair"}


def test_cli_json() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "dominolab.cli.main", "arena", "greedy", "random",
         "--game", "luzak", "--matches", "2", "--json"],
        capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == JSON_KEYS
    assert (data["a"], data["b"], data["game"], data["seed"]) == ("greedy", "random", "luzak", 1)
    assert (data["pairs"], data["matches"]) == (2, 4)
    assert len(data["win_rate_ci95"]) == 2 and len(data["margin_ci95"]) == 2
    assert set(data["seconds_per_move"]) == {"a", "b"}
    assert {"median", "p95", "max"} <= set(data["seconds_per_move"]["a"])
    assert data["options"]["target"] == 61
    assert "Traceback" not in proc.stderr


def test_cli_table(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["arena", "greedy", "random", "--game", "luzak-line", "--matches", "2",
                 "--workers", "1", "-o", "target=30"])
    out = capsys.readouterr().out
    assert code == 0
    assert "A = greedy" in out and "B = random" in out
    assert "target=30" in out and "win rate" in out and "margin per hand" in out
    assert "2 duplicate pairs = 4 matches" in out


@pytest.mark.parametrize("argv, message", [
    (["nobody", "random", "--game", "luzak"], "no player"),
    (["greedy", "random", "--game", "chess"], "no game"),
    (["greedy", "random", "--game", "luzak", "--matches", "0"], "--matches"),
    (["greedy", "pimc:fast", "--game", "luzak"], "not a budget"),
    (["greedy", "pimc", "--game", "luzak", "--budget", "5q"], "not a budget"),
    (["greedy", "random", "--game", "luzak", "-o", "nope=1"], "options are"),
])
def test_cli_bad_input(capsys: pytest.CaptureFixture[str], argv: list[str],
                       message: str) -> None:
    code = main(["arena", *argv])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("dominolab arena:") and message in err
    assert "Traceback" not in err


def test_cli_bad_input_in_a_process() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "dominolab.cli.main", "arena", "greedy", "random",
         "--game", "luzak", "--matches", "0"],
        capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2
    assert "--matches must be at least 1" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""


# -- comparing two runs on the same deals -------------------------------------------------------

def test_the_json_keeps_every_pair(greedy_vs_random: ArenaResult) -> None:
    rows = greedy_vs_random.to_json()["by_pair"]
    assert [r[0] for r in rows] == [0, 1, 2, 3]
    for pair, score, margin, hands in rows:
        recs = [r for r in greedy_vs_random.records if r.pair == pair]
        assert score == sum(r.score for r in recs)
        assert margin == sum(sum(r.hand_margins) for r in recs)
        assert hands == sum(r.hands for r in recs)


def _arena_record(a: str, pairs: list[list[object]], **changes: object) -> dict[str, object]:
    return {"a": a, "b": "pimc", "game": "luzak", "options": {"target": 61}, "seed": 1000,
            "by_pair": pairs, **changes}


def test_a_comparison_is_paired_pair_by_pair() -> None:
    # the second A wins half a match more in every pair: no spread, so a zero-width interval
    first = _arena_record("x", [[0, 1.0, 4, 4], [1, 0.5, -2, 2], [2, 2.0, 10, 5]])
    second = _arena_record("y", [[0, 1.5, 8, 4], [1, 1.0, 0, 2], [2, 2.0, 10, 5], [3, 2, 9, 3]])
    c = compare_arenas(first, second)
    assert (c.first, c.second, c.b, c.game, c.pairs) == ("x", "y", "pimc", "luzak", 3)
    assert math.isclose(c.first_win_rate, 3.5 / 6) and math.isclose(c.second_win_rate, 4.5 / 6)
    assert math.isclose(c.win_rate.value, 1 / 6)
    # pairs 0 and 1 gained 0.25 of their matches, pair 2 nothing: the paired interval
    d = [0.25, 0.25, 0.0]
    se = math.sqrt(sum((x - sum(d) / 3) ** 2 for x in d) / (3 * 2))
    assert c.win_rate.ci is not None
    assert math.isclose(c.win_rate.ci[1] - c.win_rate.ci[0], 2 * Z95 * se)
    assert math.isclose(c.first_margin, 12 / 11) and math.isclose(c.second_margin, 18 / 11)


def test_runs_from_different_first_seeds_pair_on_their_match_seeds() -> None:
    # the second run started 2 seeds later: its pair 0 is the first run's pair 2
    first = _arena_record("x", [[0, 2.0, 5, 4], [1, 0.0, -5, 4], [2, 1.0, 1, 4], [3, 0.0, -3, 4]])
    second = _arena_record("y", [[0, 2.0, 9, 4], [1, 1.0, 1, 4], [2, 2.0, 7, 4]], seed=1002)
    c = compare_arenas(first, second)
    assert c.pairs == 2  # seeds 1002 and 1003
    assert math.isclose(c.first_win_rate, 1 / 4) and math.isclose(c.second_win_rate, 3 / 4)
    assert math.isclose(c.first_margin, -2 / 8) and math.isclose(c.second_margin, 10 / 8)


def test_the_deals_luck_cancels_out_of_a_comparison() -> None:
    # deals that swing both runs alike: the paired interval is far narrower than the runs'
    luck = [12, -9, 15, -14, 3, 8, -6, 11]
    first = _arena_record("x", [[i, 1.0, v, 4] for i, v in enumerate(luck)])
    second = _arena_record("y", [[i, 1.0, v + 2 + (i % 2), 4] for i, v in enumerate(luck)])
    c = compare_arenas(first, second)
    assert c.margin.ci is not None and c.margin.ci[0] > 0
    assert math.isclose(c.margin.value, 2.5 / 4)


@pytest.mark.parametrize("second, message", [
    (_arena_record("y", [[0, 1, 2, 3], [1, 1, 2, 3]], b="greedy"), "differ in b"),
    (_arena_record("y", [[0, 1, 2, 3], [1, 1, 2, 3]], seed=7), "share 0 pair"),
    (_arena_record("y", [[0, 1, 2, 3], [1, 1, 2, 3]], seed=1001), "share 1 pair"),
    (_arena_record("y", [[0, 1, 2, 3], [1, 1, 2, 3]], seed="1000"), "seed is not a whole"),
    (_arena_record("y", [[0, 1, 2, 3], [1, 1, 2, 3]], game="widelec"), "differ in game"),
    (_arena_record("y", [[0, 1, 2, 3]]), "share 1 pair"),
    (_arena_record("y", [[0, 1, 2]]), "malformed pair"),
    (_arena_record("y", [[0, "1", 2, 3]]), "malformed pair"),
    ({"a": "y"}, "not an arena record"),
])
def test_records_that_do_not_pair_are_refused(second: dict[str, object], message: str) -> None:
    first = _arena_record("x", [[0, 1, 2, 3], [1, 1, 2, 3]])
    with pytest.raises(OptionError, match=message):
        compare_arenas(first, second)


def test_cli_compare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    for path, a in ((first, "greedy"), (second, "pimc:8w")):
        assert main(["arena", a, "random", "--game", "luzak-line", "--matches", "3",
                     "--workers", "1", "--seed", "5", "--json"]) == 0
        path.write_text(capsys.readouterr().out)
    assert main(["compare", str(first), str(second)]) == 0
    out = capsys.readouterr().out
    assert "3 pairs of deals played by both" in out and "second - first, paired" in out
    assert main(["compare", str(first), str(second), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["pairs"] == 3 and len(data["margin_difference"]["ci95"]) == 2
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\xff\xfe{")
    for bad, message in ((garbage, "not UTF-8"), (tmp_path / "gone.json", "No such file")):
        assert main(["compare", str(first), str(bad)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("dominolab compare:") and message in err
        assert "Traceback" not in err
