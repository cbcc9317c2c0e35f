"""``dominolab simulate --game GAME``: many matches between two computer players, every hand
recorded in a simulation result file (JSON Lines, format ``dominolab-sim``; docs/lab.md).

Matches run on every core, or on a Dask cluster with ``--scheduler tcp://HOST:PORT`` (the
``cluster`` extra; the same file as locally); a progress bar with the time left goes to
stderr when it is a terminal. Ctrl-C stops the run and keeps the whole matches finished so
far, in order (exit status 130). The same arguments give the same file byte for byte,
unless a player thinks against the clock (a search player without a worlds-only budget).
"""

from __future__ import annotations

import argparse
import sys

from dominolab.cli.arena import ProgressBar
from dominolab.cli.inputs import MAX_MATCHES, MAX_WORKERS, check_player_text
from dominolab.core import OptionError
from dominolab.lab import (
    SimInterrupted,
    default_out,
    is_reproducible,
    make_setup,
    simulate_to_file,
)
from dominolab.players import LEVELS

EXIT_INTERRUPTED = 130


def run_simulate(args: argparse.Namespace) -> int:
    """The ``simulate`` command: 0 when done, 130 when interrupted (the file then holds the
    whole matches finished), 2 (through the caller) on bad input or when the Dask cluster
    of ``--scheduler`` cannot be used (:class:`~dominolab.lab.pool.ClusterError`)."""
    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        raise OptionError(f"--workers must be at least 1 and at most {MAX_WORKERS}, "
                          f"not {args.workers}")
    if args.matches > MAX_MATCHES:
        raise OptionError(f"--matches must be at most {MAX_MATCHES:,}, not {args.matches:,}")
    check_player_text(args.players, "--players")
    scheduler = getattr(args, "scheduler", None)
    if scheduler is not None and args.workers is not None:
        raise OptionError("give --workers or --scheduler, not both (on a cluster its "
                          "workers play)")
    setup = make_setup(args.game, args.players, args.matches, args.seed, args.option)
    out = args.out if args.out is not None else str(default_out(setup.game, setup.seed))
    for seat, (name, budget) in enumerate(zip(setup.players, setup.budgets, strict=True)):
        plain = LEVELS[name][0] if name in LEVELS else name
        if not is_reproducible(name, budget):
            print(f"note: seat {seat} ({name}{'' if budget is None else f':{budget}'}) thinks "
                  f"against the clock, so the file will not be reproducible; give it a "
                  f"budget in worlds only (e.g. {plain}:500w)", file=sys.stderr)
    bar = ProgressBar(sys.stderr, plain_every=None)
    interrupted = False
    try:
        outcome = simulate_to_file(setup, out, args.workers, bar, scheduler)
    except SimInterrupted as stop:
        outcome = stop.outcome
        interrupted = True
    finally:
        bar.close()
    if interrupted:
        print(f"interrupted: {out} holds the {outcome.written} whole matches finished "
              f"(of {outcome.requested})", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(f"{out}: {outcome.written} matches of {setup.game}, "
          f"{setup.players[0]} vs {setup.players[1]}, seeds {setup.seed}.."
          f"{setup.seed + setup.matches - 1}, {outcome.seconds:.1f} s")
    return 0
