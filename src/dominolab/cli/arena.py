"""``dominolab arena A B --game GAME``: duplicate matches between two computer players.

Every pair of matches is one set of deals played twice with the seats swapped, so the
deals' luck cancels; pairs run on every core. The figures (see :mod:`dominolab.lab.arena`):
A's match win rate with its 95% interval over pairs (and the Wilson interval over matches),
A's points margin per hand with its 95% interval, each player's seconds per move (median,
p95, max), and the counts. Progress goes to stderr (:mod:`dominolab.cli.progress`: a bar on
a terminal, a line now and then off one); Ctrl-C or SIGTERM stops the run and reports the
matches that finished (exit status 130).
"""

from __future__ import annotations

import argparse
import json
import sys

from dominolab.cli.inputs import MAX_MATCHES, MAX_WORKERS, check_player_text
from dominolab.cli.interrupt import EXIT_INTERRUPTED
from dominolab.cli.progress import Progress
from dominolab.core import OptionError, get_game
from dominolab.jsonfile import read_json_file
from dominolab.lab import (
    ArenaInterrupted,
    ArenaResult,
    Comparison,
    Estimate,
    Timing,
    compare_arenas,
    fmt_estimate,
    run_arena_matches,
)
from dominolab.lab.stats import rounded, rounded_interval


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _interval(ci: tuple[float, float] | None, fmt: str) -> str:
    if ci is None:
        return "n/a (needs 2 pairs)"
    return f"[{format(ci[0], fmt)}, {format(ci[1], fmt)}]"


def _ms(seconds: float) -> str:
    if seconds != seconds:  # nan: no moves
        return "-"
    if seconds < 0.001:
        return f"{seconds * 1e6:.0f} µs"
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def format_result(result: ArenaResult) -> str:
    """The human-readable table of an arena's figures."""
    s = result.summary
    spec = get_game(result.game)
    default = spec.options_class()
    changed = [f"{k.replace('_', '-')}={v}" for k, v in result.options.to_dict().items()
               if getattr(default, k) != v]
    a_label, b_label = result.a_spec, result.b_spec
    lines = [
        f"arena: A = {a_label}  vs  B = {b_label}",
        f"game {result.game}"
        + (f" (options: {', '.join(changed)})" if changed else " (default options)")
        + f", seeds {result.seed}..{result.seed + result.pairs_requested - 1}",
    ]
    if result.interrupted:
        lines.append(f"INTERRUPTED: {len(result.records)} of {2 * result.pairs_requested} "
                     f"matches finished; the figures cover the {s.pairs} complete pairs only")
    lines += [
        f"{s.pairs} duplicate pairs = {s.matches} matches (each deal set played twice, seats "
        f"swapped), {s.hands} hands, {s.moves} moves, {result.seconds:.1f} s",
        "",
        f"  matches won           A {s.a_wins}, B {s.b_wins}, drawn {s.draws}",
        f"  A's win rate          {_pct(s.win_rate if s.matches else None):>7}   "
        f"95% CI over pairs {_pct_interval(s.win_rate_ci95)}",
        f"                                  Wilson over matches "
        f"{_pct_interval(s.win_rate_wilson95)}",
        f"  A's margin per hand   {_signed(s.margin_per_hand):>7}   "
        f"95% CI over pairs {_interval(s.margin_ci95, '+.2f')}  (points, A minus B)",
        "",
        f"  seconds per move      {'median':>10} {'p95':>10} {'max':>10} {'moves':>8}",
        _timing_row(f"A {a_label}", s.a_timing),
        _timing_row(f"B {b_label}", s.b_timing),
    ]
    return "\n".join(lines)


def _pct_interval(ci: tuple[float, float] | None) -> str:
    if ci is None:
        return "n/a (needs 2 pairs)"
    return f"[{_pct(ci[0])}, {_pct(ci[1])}]"


def _signed(x: float) -> str:
    return "n/a" if x != x else f"{x:+.2f}"


def _timing_row(label: str, t: Timing) -> str:
    if len(label) > 20:
        label = label[:19] + "…"
    return f"    {label:<20}{_ms(t.median):>10} {_ms(t.p95):>10} {_ms(t.max):>10} {t.moves:>8}"


def run_arena(args: argparse.Namespace) -> int:
    """The ``arena`` command: 0 when done, 130 when interrupted (after the partial report),
    2 (through the caller) on bad input."""
    if args.matches < 1:
        raise OptionError(f"--matches must be at least 1, not {args.matches}")
    if args.matches > MAX_MATCHES:
        raise OptionError(f"--matches must be at most {MAX_MATCHES:,}, not {args.matches:,}")
    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        raise OptionError(f"--workers must be at least 1 and at most {MAX_WORKERS}, "
                          f"not {args.workers}")
    check_player_text(args.a, "player A")
    check_player_text(args.b, "player B")
    if args.budget is not None:
        check_player_text(args.budget, "--budget")
    bar = Progress("matches")
    interrupted = False
    try:
        result = run_arena_matches(args.game, args.a, args.b, args.matches, seed=args.seed,
                                   options=args.option, budget=args.budget,
                                   workers=args.workers, progress_callback=bar)
    except ArenaInterrupted as stop:
        result = stop.partial
        interrupted = True
    finally:
        bar.close()
    if interrupted:
        print("interrupted: stopped the workers", file=sys.stderr)
    if args.json:
        print(json.dumps(result.to_json()))
    elif result.summary.matches:
        print(format_result(result))
    else:
        print("no match finished", file=sys.stderr)
    return EXIT_INTERRUPTED if interrupted else 0


def _record(path: str) -> object:
    """The JSON of an arena record file, read by the one bounded reader; JsonError (naming
    the file and what is wrong) or OSError."""
    return read_json_file(path, "an arena record")


def format_comparison(c: Comparison) -> str:
    """The human-readable comparison of two arena runs."""
    return "\n".join([
        f"compare: against {c.b} in {c.game}, {c.pairs} pairs of deals played by both",
        f"  first  A = {c.first}: wins {c.first_win_rate:.1%}, margin "
        f"{c.first_margin:+.2f} a hand",
        f"  second A = {c.second}: wins {c.second_win_rate:.1%}, margin "
        f"{c.second_margin:+.2f} a hand",
        f"  second - first, paired (95% CI): wins {fmt_estimate(c.win_rate, True, True)}, "
        f"margin a hand {fmt_estimate(c.margin, signed=True)}",
    ])


def run_compare(args: argparse.Namespace) -> int:
    """The ``compare`` command: 0, or 2 (through the caller) for records that do not pair."""
    first, second = _record(args.first), _record(args.second)
    for path, record in ((args.first, first), (args.second, second)):
        if not isinstance(record, dict):
            raise OptionError(f"{path} is not an arena record: an arena record is a JSON "
                              "object (made by dominolab arena --json)")
    assert isinstance(first, dict) and isinstance(second, dict)
    c = compare_arenas(first, second, (args.first, args.second))
    if args.json:
        def est(e: Estimate) -> dict[str, object]:
            return {"value": rounded(e.value), "ci95": rounded_interval(e.ci)}
        print(json.dumps({"first": c.first, "second": c.second, "b": c.b, "game": c.game,
                          "pairs": c.pairs, "first_win_rate": rounded(c.first_win_rate),
                          "second_win_rate": rounded(c.second_win_rate),
                          "win_rate_difference": est(c.win_rate),
                          "first_margin": rounded(c.first_margin),
                          "second_margin": rounded(c.second_margin),
                          "margin_difference": est(c.margin)}))
    else:
        print(format_comparison(c))
    return 0
