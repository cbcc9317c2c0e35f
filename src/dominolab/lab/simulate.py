"""Simulations for the game designer: many matches between two computer players, every hand
recorded in a simulation result file (:mod:`dominolab.lab.simfile`).

Match ``i`` is ``Match(game, options, seed=seed+i)``; seat 0 is always ``players[0]``; each
player is seeded from the match seed and its seat (:func:`dominolab.lab.play.player_seed`).
With players that need no clock (``random``, ``greedy``, search players with a budget in
worlds only, e.g. ``expert:500w``) the same arguments give the same file byte for byte,
whatever the number of worker processes, and on a Dask cluster (``scheduler=``, the
``cluster`` extra) the same as locally. A match's lines are written together once it is
complete, in match order, so an interrupted run leaves a valid file holding matches
``0 .. j-1`` only.

This module prints nothing; ``dominolab simulate`` is its command.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TextIO

from dominolab import __version__
from dominolab.core import RULES_VERSION, OptionError, Options, get_game
from dominolab.lab.play import play_match, resolve_player
from dominolab.lab.pool import ProgressCallback, check_workers, cluster_client, run_tasks
from dominolab.lab.simfile import FORMAT, FORMAT_VERSION, dumps, match_text
from dominolab.players import LEVELS, Budget

#: players whose choices never depend on a clock, whatever their budget
_CLOCKLESS: Final = frozenset({"random", "greedy"})

_BUDGET_PART = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(s|ms|w)\s*", re.IGNORECASE)


# -- setup --------------------------------------------------------------------------------------

def split_players(text: str) -> list[str]:
    """``"A,B"`` -> ``["A", "B"]``, keeping a budget's own commas (``expert:200w,1s,greedy``
    -> ``["expert:200w,1s", "greedy"]``)."""
    parts: list[str] = []
    for part in text.split(","):
        if parts and ":" in parts[-1] and _BUDGET_PART.fullmatch(part):
            parts[-1] += "," + part.strip()
        else:
            parts.append(part.strip())
    return parts


def is_reproducible(name: str, budget: Budget | None) -> bool:
    """Whether a player's choices repeat exactly: it needs no clock (random, greedy), or its
    budget is in worlds only (a search player's default budget includes seconds)."""
    key = LEVELS[name][0] if name in LEVELS else name
    if key in _CLOCKLESS:
        return True
    return budget is not None and budget.seconds is None and budget.worlds is not None


@dataclass(frozen=True, slots=True)
class SimSetup:
    """What a simulation plays: ``matches`` matches of ``game`` under ``options``, match
    ``i`` with the seed ``seed + i``, ``players[0]`` in seat 0 with ``budgets[0]``."""

    game: str
    options: Options
    players: tuple[str, str]
    budgets: tuple[Budget | None, Budget | None]
    seed: int
    matches: int

    @property
    def reproducible(self) -> bool:
        return all(is_reproducible(n, b) for n, b in zip(self.players, self.budgets,
                                                         strict=True))

    def header(self) -> dict[str, Any]:
        """The first line of the file."""
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "game": self.game,
            "rules_version": RULES_VERSION,
            "options": self.options.to_dict(),
            "players": list(self.players),
            "budgets": [None if b is None else str(b) for b in self.budgets],
            "seed": self.seed,
            "matches": self.matches,
            "dominolab": __version__,
        }


def make_setup(game: str, players: Sequence[str] | str = ("greedy", "greedy"),
               matches: int = 100, seed: int = 1,
               options: Options | Sequence[str] | None = None) -> SimSetup:
    """Check the input and build a :class:`SimSetup`. ``players``: two player specs
    (``expert:500w``, ``greedy``, a level), or one text ``"A,B"``; ``options``: an
    :class:`~dominolab.core.Options` or ``NAME=VALUE`` texts (default: the game's defaults).
    Raises :class:`~dominolab.core.OptionError` for bad input."""
    spec = get_game(game)
    opts = spec.options(options)
    specs = split_players(players) if isinstance(players, str) else list(players)
    if len(specs) != 2 or not all(specs):
        raise OptionError(f"give two players, as A,B (e.g. greedy,random), not "
                          f"{','.join(specs)!r}")
    a, a_budget = resolve_player(specs[0])
    b, b_budget = resolve_player(specs[1])
    if isinstance(matches, bool) or not isinstance(matches, int) or matches < 1:
        raise OptionError(f"the number of matches must be at least 1, not {matches!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise OptionError(f"the seed must be a whole number, not {seed!r}")
    return SimSetup(spec.name, opts, (a, b), (a_budget, b_budget), seed, matches)


def default_out(game: str, seed: int) -> Path:
    """The default file name: ``sim-GAME-SEED.jsonl``."""
    return Path(f"sim-{game}-{seed}.jsonl")


# -- one match ----------------------------------------------------------------------------------

def match_lines(setup: SimSetup, index: int) -> str:
    """Play match ``index`` of ``setup``; return its lines (hands, then the match), each
    ending in ``\\n``."""
    played = play_match(setup.game, setup.options, setup.seed + index, setup.players,
                        setup.budgets)
    return match_text(get_game(setup.game), index, played.match)


def _run_task(task: tuple[SimSetup, int]) -> tuple[int, str]:
    setup, index = task
    return index, match_lines(setup, index)


# -- running ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SimOutcome:
    """What a run wrote: ``written`` whole matches (``0 .. written-1``) of ``requested``."""

    requested: int
    written: int
    seconds: float
    interrupted: bool = False


class SimInterrupted(KeyboardInterrupt):
    """Ctrl-C during a simulation: the pool is stopped; the file holds ``outcome.written``
    whole matches. A :class:`KeyboardInterrupt`, so careless code still stops."""

    def __init__(self, outcome: SimOutcome) -> None:
        super().__init__("simulation interrupted")
        self.outcome = outcome


def run_simulation(setup: SimSetup, out: TextIO, workers: int | None = None,
                   progress_callback: ProgressCallback | None = None,
                   scheduler: Any = None) -> SimOutcome:
    """Play ``setup`` and write its file to ``out`` (the header first, then each match's
    lines once the match and every one before it are complete; ``out`` is flushed after
    each match). ``workers``: processes (default: every core; 1 plays in this process).
    ``scheduler``: run on a Dask cluster instead (``workers`` is then not used): its
    scheduler's address ``tcp://HOST:PORT`` (see :func:`~dominolab.lab.pool.connect_cluster`)
    or a connected ``distributed.Client``; the file is the same as a local run's.
    ``progress_callback(done, total)`` counts finished matches and is also called about
    twice a second while waiting. Raises :class:`SimInterrupted` on Ctrl-C (or when the
    callback raises :class:`KeyboardInterrupt`), after which ``out`` holds whole matches."""
    if isinstance(scheduler, str):
        with cluster_client(scheduler) as client:
            return run_simulation(setup, out, workers, progress_callback, client)
    processes = check_workers(workers)
    total = setup.matches
    start = time.perf_counter()
    pending: dict[int, str] = {}
    written = 0
    received = 0

    def take(result: tuple[int, str]) -> None:
        nonlocal written, received
        index, text = result
        received += 1
        pending[index] = text
        while written in pending:
            out.write(pending.pop(written))
            written += 1
        out.flush()

    def report() -> None:
        if progress_callback is not None:
            progress_callback(received, total)

    def outcome(interrupted: bool) -> SimOutcome:
        return SimOutcome(total, written, time.perf_counter() - start, interrupted)

    out.write(dumps(setup.header()) + "\n")
    out.flush()
    tasks = [(setup, i) for i in range(total)]
    try:
        report()
        run_tasks(_run_task, tasks, take, workers=processes, client=scheduler, tick=report)
    except KeyboardInterrupt:
        raise SimInterrupted(outcome(True)) from None
    return outcome(False)


def simulate_to_file(setup: SimSetup, path: str | os.PathLike[str], workers: int | None = None,
                     progress_callback: ProgressCallback | None = None,
                     scheduler: Any = None) -> SimOutcome:
    """:func:`run_simulation` into the file ``path`` (UTF-8, ``\\n`` line ends), replacing it.
    With a ``scheduler`` address the cluster is connected first: if that fails
    (:class:`~dominolab.lab.pool.ClusterError`), the file is not touched."""
    with cluster_client(scheduler) as client, \
            open(path, "w", encoding="utf-8", newline="\n") as fh:
        return run_simulation(setup, fh, workers, progress_callback, client)


__all__ = ["SimInterrupted", "SimOutcome", "SimSetup", "default_out", "is_reproducible",
           "make_setup", "match_lines", "run_simulation", "simulate_to_file", "split_players"]
