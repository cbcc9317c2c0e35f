"""``dominolab simulate --game GAME``: many matches between two computer players, every hand
recorded in a simulation result file (JSON Lines, format ``dominolab-sim``; docs/lab.md).

Matches run on every core, or on a Dask cluster with ``--scheduler tcp://HOST:PORT`` (the
``cluster`` extra; the same file as locally); progress with the time left goes to stderr
(:mod:`dominolab.cli.progress`: a bar on a terminal, a line now and then off one). Ctrl-C
or SIGTERM stops the run and keeps the whole matches finished so far, in order (exit
status 130); ``--resume`` continues it, to the file an uninterrupted run
writes. The same arguments give the same file byte for byte, unless a player thinks against
the clock (a search player without a worlds-only budget).

The file is named by the game, the seed and the options that differ from the defaults
(``sim-widelec-1-edge-double=no.jsonl``) unless ``--out`` names it; an existing file is
never replaced without ``--force``, and a name of a compressed file (``X.jsonl.gz``) is
refused: the run writes plain text (compress the finished file; ``report`` reads it).
``--format parquet`` writes the same content as a Parquet file (``.parquet``; needs
pyarrow, the ``lab`` extra), which ``--resume`` cannot continue. An option given a comma
list of values (``--option target=31,41,61``) sweeps them: one run, and one file, per
combination.
"""

from __future__ import annotations

import argparse
import os
import sys

from dominolab.cli.inputs import MAX_MATCHES, MAX_WORKERS, check_player_text
from dominolab.cli.interrupt import EXIT_INTERRUPTED
from dominolab.cli.progress import Progress
from dominolab.core import OptionError
from dominolab.lab.pool import NO_WORKERS_TIMEOUT
from dominolab.lab.simfile import require_pyarrow
from dominolab.lab.simulate import (
    FileMode,
    OutKind,
    OutputExists,
    SimInterrupted,
    SimOutcome,
    SimSetup,
    check_out_name,
    default_out,
    make_sweep,
    option_label,
    simulate_to_file,
)
from dominolab.players import plain_name, thinks_against_clock


def _check_args(args: argparse.Namespace) -> None:
    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        raise OptionError(f"--workers must be at least 1 and at most {MAX_WORKERS}, "
                          f"not {args.workers}")
    if args.matches > MAX_MATCHES:
        raise OptionError(f"--matches must be at most {MAX_MATCHES:,}, not {args.matches:,}")
    check_player_text(args.players, "--players")
    if getattr(args, "scheduler", None) is not None and args.workers is not None:
        raise OptionError("give --workers or --scheduler, not both (on a cluster its "
                          "workers play)")
    if (getattr(args, "no_workers_timeout", None) is not None
            and getattr(args, "scheduler", None) is None):
        raise OptionError("--no-workers-timeout is for a run on a cluster: give it with "
                          "--scheduler")
    if getattr(args, "force", False) and getattr(args, "resume", False):
        raise OptionError("give --force (start the file afresh) or --resume (continue it), "
                          "not both")
    if getattr(args, "resume", False) and getattr(args, "format", "jsonl") == "parquet":
        raise OptionError("--resume continues JSON Lines files only (a Parquet file is "
                          "completed when it is closed); give --force to start afresh")


def _notes(setup: SimSetup) -> None:
    for seat, (name, budget) in enumerate(zip(setup.players, setup.budgets, strict=True)):
        if thinks_against_clock(name, budget):
            print(f"note: seat {seat} ({name}{'' if budget is None else f':{budget}'}) thinks "
                  f"against the clock, so the file will not be reproducible; give it a "
                  f"budget in worlds only (e.g. {plain_name(name)}:500w)", file=sys.stderr)


def run_simulate(args: argparse.Namespace) -> int:
    """The ``simulate`` command: 0 when done, 130 when interrupted (the file then holds the
    whole matches finished), 2 (through the caller) on bad input, an existing file without
    ``--force`` or ``--resume``, a file ``--resume`` cannot continue, or when the Dask
    cluster of ``--scheduler`` cannot be used (:class:`~dominolab.lab.pool.ClusterError`)."""
    _check_args(args)
    scheduler = getattr(args, "scheduler", None)
    resume = bool(getattr(args, "resume", False))
    force = bool(getattr(args, "force", False))
    kind: OutKind = getattr(args, "format", "jsonl")
    no_workers: float | None = getattr(args, "no_workers_timeout", None)
    setups = make_sweep(args.game, args.players, args.matches, args.seed, args.option)
    if len(setups) > 1 and args.out is not None:
        raise OptionError(f"--out names one file, but the options sweep {len(setups)} runs; "
                          f"leave it out (each run's file is named by its options)")
    outs = [args.out if args.out is not None
            else str(default_out(s.game, s.seed, s.options, kind)) for s in setups]
    for out in outs:
        check_out_name(out)
    if not force and not resume:
        for out in outs:
            if os.path.isfile(out):
                raise OutputExists(f"{out} exists; give --force to replace it or --resume "
                                   f"to continue an interrupted run into it")
    if kind == "parquet":
        require_pyarrow()
    _notes(setups[0])
    mode: FileMode = "resume" if resume else "replace" if force else "new"
    for number, (setup, out) in enumerate(zip(setups, outs, strict=True), start=1):
        bar = Progress("matches")
        interrupted = False
        try:
            outcome = simulate_to_file(
                setup, out, args.workers, bar, scheduler, mode=mode, kind=kind,
                no_workers_timeout=NO_WORKERS_TIMEOUT if no_workers is None else no_workers)
        except SimInterrupted as stop:
            outcome = stop.outcome
            interrupted = True
        finally:
            bar.close()
        if interrupted:
            again = "--resume continues it" if kind == "jsonl" else "it cannot be continued"
            print(f"interrupted: {out} holds the {outcome.written} whole matches finished "
                  f"(of {outcome.requested}); {again}", file=sys.stderr)
            return EXIT_INTERRUPTED
        print(_done_line(setup, out, outcome, number, len(setups)), flush=True)
    if len(setups) > 1:
        values = [s.options.to_dict() for s in setups]
        swept = [name.replace("_", "-") for name in values[0]
                 if len({v[name] for v in values}) > 1]
        print(f"{len(setups)} files ({', '.join(swept)} swept): {' '.join(outs)}")
    return 0


def _done_line(setup: SimSetup, out: str, outcome: SimOutcome, number: int, runs: int) -> str:
    where = f"[{number}/{runs}] " if runs > 1 else ""
    label = option_label(setup.options)
    what = (f"{outcome.written} matches of {setup.game}"
            f"{' (' + label + ')' if runs > 1 and label else ''}, "
            f"{setup.players[0]} vs {setup.players[1]}, seeds {setup.seed}.."
            f"{setup.seed + setup.matches - 1}, {outcome.seconds:.1f} s")
    if outcome.resumed == outcome.requested:
        what += " (already complete)"
    elif outcome.resumed:
        what += f" (resumed after {outcome.resumed})"
    return f"{where}{out}: {what}"
