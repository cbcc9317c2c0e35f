"""``dominolab puzzles``: make a puzzle file from real and simulated matches, re-check one,
show one (:mod:`dominolab.lab.puzzles` does the work; docs/lab.md, "Puzzles").

    dominolab puzzles make --game luzak --count 300 --out luzak.jsonl [--seed 1]
        [--records FILE...] [--workers N]
    dominolab puzzles check luzak.jsonl [--sample K] [--seed S]
    dominolab puzzles show luzak.jsonl luzak-0042

Progress goes to stderr (:mod:`dominolab.cli.progress`). Ctrl-C or SIGTERM stops ``make``
with nothing written (the file is written whole under a temporary name and renamed); exit
status 130. Bad input is one line on stderr and exit status 2; ``check`` exits 1 if a
puzzle no longer holds.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from dominolab.cli.inputs import COUNT, MAX_WORKERS, SEED, whole_number
from dominolab.cli.progress import Progress
from dominolab.core import OptionError
from dominolab.players.puzzles import DEEP_WORLDS

#: exit status of ``check`` when a puzzle no longer holds
EXIT_FAILED = 1


def add_parser(sub: Any) -> None:
    """The ``puzzles`` subcommand and its actions, on ``dominolab``'s subparsers."""
    p = sub.add_parser(
        "puzzles", help="make, re-check and show puzzles: positions where one move is "
                        "clearly best (docs/lab.md)",
        description="Puzzles are positions from real and simulated matches where the "
        "expert's deep search finds one move clearly best. See docs/lab.md, \"Puzzles\".")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    a = actions.add_parser(
        "make", help="find puzzles in seeded matches between the site's levels (and in "
                     "match records) and write them to a file",
        description="Play seeded matches between the site's computer levels (match i: "
        "seed SEED+i), after reading the records given, and keep the positions where the "
        "deep search finds one move clearly best, twice with two seeds; write the first "
        "COUNT as JSON Lines. The same arguments write the same bytes, whatever --workers. "
        "Ctrl-C (or SIGTERM) stops with nothing written.")
    a.add_argument("--game", required=True, help="luzak, luzak-line or widelec")
    a.add_argument("--count", type=whole_number(1, 100_000, digits=6), required=True,
                   help="how many puzzles to make")
    a.add_argument("--out", required=True, metavar="FILE",
                   help="the puzzle file to write (replaced when the run is complete)")
    a.add_argument("--seed", type=SEED, default=1,
                   help="the first simulated match's seed (default: 1)")
    a.add_argument("--records", nargs="+", default=[], metavar="FILE",
                   help="match records (dominolab play --save, the site's record "
                        "download) to find puzzles in first")
    a.add_argument("--workers", type=COUNT, default=None,
                   help="processes (default: every core); the file is the same")
    a.add_argument("--deep", type=whole_number(1, 10_000_000, digits=8),
                   default=DEEP_WORLDS,
                   help=f"the deep search's worlds a move (default: {DEEP_WORLDS})")

    a = actions.add_parser(
        "check", help="re-run the deep search with another seed on a file's puzzles",
        description="Re-run the deep search with another seed (the puzzle's seed + SEED) on "
        "K puzzles of FILE (all by default, picked by SEED) and print each whose best move "
        "is no longer clearly best; exit status 1 if any. --seed 1 repeats the re-check "
        "the generator made.")
    a.add_argument("file", metavar="FILE", help="a puzzle file (JSON Lines)")
    a.add_argument("--sample", type=whole_number(1, 100_000, digits=6), default=None,
                   metavar="K", help="re-check K puzzles picked by the seed (default: all)")
    a.add_argument("--seed", type=whole_number(1, 2**62, digits=19), default=2,
                   help="the other seed, added to each puzzle's (default: 2)")
    a.add_argument("--workers", type=COUNT, default=None,
                   help="processes (default: every core)")

    a = actions.add_parser(
        "show", help="print a puzzle's position and its answer with the why",
        description="Print the puzzle's match so far, the seat to move's tiles, and every "
        "move the deep search judged, the best first, with what it scores and its chances.")
    a.add_argument("file", metavar="FILE", help="a puzzle file (JSON Lines)")
    a.add_argument("id", metavar="ID", help="the puzzle's id, e.g. luzak-0042")


def _workers(value: int | None) -> int | None:
    if value is not None and not 1 <= value <= MAX_WORKERS:
        raise OptionError(f"--workers must be at least 1 and at most {MAX_WORKERS}, "
                          f"not {value}")
    return value


def run_puzzles(args: argparse.Namespace) -> int:
    if args.action == "make":
        return _make(args)
    if args.action == "check":
        return _check(args)
    return _show(args)


def _make(args: argparse.Namespace) -> int:
    from dominolab.lab.puzzles import make_puzzle_setup, make_puzzles, write_atomically

    workers = _workers(args.workers)
    folder = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(folder):
        raise OptionError(f"--out {args.out}: no folder {folder} to write it in")
    setup = make_puzzle_setup(args.game, args.count, args.seed, args.records, args.deep)
    with Progress("puzzles", delay=1.0) as bar:
        outcome = make_puzzles(setup, workers, bar)
    write_atomically(args.out, outcome.puzzles)
    ratings = sorted(p.rating for p in outcome.puzzles)
    print(f"{args.out}: {len(outcome.puzzles)} puzzles of {setup.game} from "
          f"{outcome.matches} matches and records, ratings {ratings[0]:.0f}.."
          f"{ratings[-1]:.0f} (median {ratings[len(ratings) // 2]:.0f}), "
          f"{outcome.seconds:.1f} s")
    return 0


def _check(args: argparse.Namespace) -> int:
    from dominolab.lab.puzzles import check_puzzles

    workers = _workers(args.workers)
    with Progress("puzzles", delay=1.0) as bar:
        results = check_puzzles(args.file, args.sample, args.seed, workers, bar)
    failed = [r for r in results if not r.held]
    for r in failed:
        best = r.puzzle.best
        print(f"{r.puzzle.id}: {best.move} is no longer clearly best with seed "
              f"{r.puzzle.seed + args.seed} ({r.puzzle.source})")
    print(f"{args.file}: {len(results) - len(failed)} of {len(results)} puzzles hold with "
          f"another seed")
    return EXIT_FAILED if failed else 0


def _show(args: argparse.Namespace) -> int:
    from dominolab.cli.render import show_match
    from dominolab.players.puzzles import PuzzleError, read_puzzles

    puzzles = {p.id: p for p in read_puzzles(args.file)}
    puzzle = puzzles.get(args.id)
    if puzzle is None:
        raise PuzzleError(f"{args.file}: no puzzle {args.id!r} (it holds {len(puzzles)}, "
                          f"e.g. {next(iter(puzzles), 'none')})")
    match = puzzle.match()
    view = puzzle.view()
    print(f"puzzle {puzzle.id} ({puzzle.game}, rating {puzzle.rating:.0f}): {puzzle.source}")
    show_match(match, color=sys.stdout.isatty())
    print(f"seat {view.seat} to move, totals {view.totals[0]}-{view.totals[1]}"
          + ("" if view.count is None else f", table count {view.count}")
          + f"; your tiles: {' '.join(str(t) for t in view.hand)}")
    print(f"the deep search ({puzzle.worlds} worlds a move, seed {puzzle.seed}):")
    for rank, j in enumerate(puzzle.moves, start=1):
        also = f" (or {', '.join(j.same)})" if j.same else ""
        scores = f", scores {j.now[0]}" if j.now[0] else ""
        gives = f", gives the opponent {j.now[1]}" if j.now[1] else ""
        count = "" if j.count is None else f", count {j.count}"
        quartet = f", quartet {j.quartet}" if j.quartet else ""
        print(f"  {'best' if rank == 1 else f'{rank:>4}'}  {j.move}{also}: wins "
              f"{j.win:.0%}, {j.margin:+.1f} points to the hand's end{count}{scores}"
              f"{gives}{quartet}")
    return 0


__all__ = ["add_parser", "run_puzzles"]
