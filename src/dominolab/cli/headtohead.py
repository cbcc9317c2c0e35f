"""``python -m dominolab.cli.headtohead``: our expert against OpenSpiel's ISMCTS or MCTS
bot on duplicate hands, the same wall-clock time a move (:mod:`dominolab.lab.headtohead`).

    python -m dominolab.cli.headtohead --game luzak --opponent ismcts \\
        --hands 1000 --seconds 0.05 --workers 2 [--seed 1] [--json]

Needs the ``openspiel`` extra. Progress goes to stderr (:mod:`dominolab.cli.progress`); Ctrl-C
or SIGTERM stops the run (exit status 130).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from dominolab.cli.interrupt import EXIT_INTERRUPTED, sigterm_as_ctrl_c
from dominolab.cli.progress import Progress
from dominolab.core import GAMES
from dominolab.lab.headtohead import DEFAULT_UCT_C, OPPONENTS, HeadToHeadResult, run


def _interval(ci: tuple[float, float] | None, fmt: str) -> str:
    return "n/a" if ci is None else f"[{ci[0]:{fmt}}, {ci[1]:{fmt}}]"


def report(result: HeadToHeadResult) -> str:
    """The result as a few lines of text."""
    s = result.summary
    bot = {"ismcts": "OpenSpiel ISMCTSBot", "mcts": "OpenSpiel MCTSBot (resampled world)",
           "random": "OpenSpiel UniformRandomBot"}
    return "\n".join([
        f"{result.game}: expert vs {bot[result.opponent]}, {result.seconds_per_move:g} s a "
        f"move each, {s.hands} hands ({s.pairs} duplicate pairs), seed {result.seed}, "
        f"UCT c={result.uct_c:g}",
        f"  hands won {s.wins}, tied {s.ties}, lost {s.losses}",
        f"  win rate {s.win_rate:.1%}  95% CI over pairs "
        f"{_interval(s.win_rate_ci95, '.1%')}  (Wilson over hands "
        f"{_interval(s.win_rate_wilson95, '.1%')})",
        f"  point margin per hand {s.margin_per_hand:+.2f}  95% CI "
        f"{_interval(s.margin_ci95, '+.2f')}",
        f"  seconds a move (median / p95): expert {s.our_timing.median:.3f} / "
        f"{s.our_timing.p95:.3f}, bot {s.their_timing.median:.3f} / {s.their_timing.p95:.3f}",
        f"  bot simulations a move (median) {s.simulations_median:.0f}, "
        f"{s.simulations_per_second:.0f} a second",
        f"  {result.seconds:.0f} s",
    ])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dominolab.cli.headtohead",
        description="Our expert against OpenSpiel's ISMCTS or MCTS bot on duplicate hands, "
                    "the same wall-clock time a move.")
    parser.add_argument("--game", required=True, choices=list(GAMES))
    parser.add_argument("--opponent", required=True, choices=list(OPPONENTS))
    parser.add_argument("--hands", type=int, default=1000,
                        help="hands in all, even: hands/2 deals played twice (default 1000)")
    parser.add_argument("--seconds", type=float, default=0.05,
                        help="wall-clock seconds a move for each side (default 0.05)")
    parser.add_argument("--seed", type=int, default=1, help="deal d uses seed SEED + d")
    parser.add_argument("--workers", type=int, default=1,
                        help="processes (default 1; 0: every core)")
    parser.add_argument("--uct-c", type=float, default=DEFAULT_UCT_C,
                        help=f"the bots' UCT exploration constant (default {DEFAULT_UCT_C:g})")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--hands-json", action="store_true",
                        help="with --json: every hand's record too")
    args = parser.parse_args(argv)
    bar = Progress("hands")
    try:
        with sigterm_as_ctrl_c():
            result = run(args.game, args.opponent, args.hands, args.seconds, args.seed,
                         args.workers or os.cpu_count() or 1, args.uct_c, bar)
    except ValueError as exc:
        parser.error(str(exc))
    except KeyboardInterrupt:
        bar.close()
        print("interrupted: no result (a head-to-head keeps no partial run)", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        bar.close()
    if args.json:
        print(json.dumps(result.to_json(args.hands_json), indent=2))
    else:
        print(report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
