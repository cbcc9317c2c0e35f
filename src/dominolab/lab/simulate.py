"""Simulations for the game designer: many matches between two computer players, every hand
recorded in a simulation result file (:mod:`dominolab.lab.simfile`).

Match ``i`` is ``Match(game, options, seed=seed+i)``; seat 0 is always ``players[0]``; each
player is seeded from the match seed and its seat (:func:`dominolab.lab.play.player_seed`).
With players that need no clock (``random``, ``greedy``, search players with a budget in
worlds only, e.g. ``expert:500w``) the same arguments give the same file byte for byte,
whatever the number of worker processes, and on a Dask cluster (``scheduler=``, the
``cluster`` extra) the same as locally. A match's lines are written together once it is
complete, in match order, so an interrupted run leaves a valid file holding matches
``0 .. j-1`` only; one killed mid-write leaves them and a torn tail.
:func:`simulate_to_file` with ``mode="resume"`` continues either: it checks the header is
the one these arguments write, cuts the torn tail and plays only the missing matches, and
the file ends byte for byte as an uninterrupted run's.

:func:`default_out` names a run's file by its game, seed and non-default options;
:func:`make_sweep` makes one setup per combination of listed option values
(``target=31,41,61``).

This module prints nothing; ``dominolab simulate`` is its command.
"""

from __future__ import annotations

import itertools
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, Protocol, TextIO, cast

from dominolab import __version__
from dominolab.core import RULES_VERSION, DominoError, OptionError, Options, get_game
from dominolab.lab.play import play_match_facts, resolve_player
from dominolab.lab.pool import (
    NO_WORKERS_TIMEOUT,
    ClusterError,
    ProgressCallback,
    check_no_workers_timeout,
    check_workers,
    cluster_client,
    run_tasks,
)
from dominolab.lab.simfile import (
    FORMAT,
    FORMAT_VERSION,
    ParquetSimWriter,
    SimFileError,
    dumps,
    facts_text,
    recover_sim_file,
    require_pyarrow,
)
from dominolab.players import Budget, thinks_against_clock

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
    """Whether a player's choices repeat exactly: it does not think against the clock
    (:func:`~dominolab.players.thinks_against_clock`: the registry says so)."""
    return not thinks_against_clock(name, budget)


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


def option_label(options: Options) -> str:
    """The options that differ from the game's defaults, as ``name=value`` joined by ``-``
    in the options' own order (``edge-double=no``; yes/no for flags), or ``""``."""
    defaults = type(options)().to_dict()
    parts = []
    for name, value in options.to_dict().items():
        if value != defaults[name]:
            text = ("yes" if value else "no") if isinstance(value, bool) else str(value)
            parts.append(f"{name.replace('_', '-')}={text}")
    return "-".join(parts)


#: the kinds of file a run writes: JSON Lines, or Parquet (needs pyarrow)
OutKind = Literal["jsonl", "parquet"]
OUT_KINDS: Final = ("jsonl", "parquet")


def default_out(game: str, seed: int, options: Options | None = None,
                kind: OutKind = "jsonl") -> Path:
    """The default file name: ``sim-GAME-SEED.jsonl`` with the default options, else
    ``sim-GAME-SEED-NAME=VALUE[-NAME=VALUE...].jsonl`` naming each option that differs
    from its default (:func:`option_label`), e.g. ``sim-widelec-1-edge-double=no.jsonl``;
    ``.parquet`` for ``kind="parquet"``."""
    label = "" if options is None else option_label(options)
    return Path(f"sim-{game}-{seed}{'-' + label if label else ''}.{kind}")


def split_sweep(texts: Sequence[str]) -> list[list[str]]:
    """``NAME=VALUE`` texts, each value perhaps a comma list (``target=31,41``) -> every
    combination of one value per option, the first option's values outermost, each as
    ``NAME=VALUE`` texts: ``["target=31,41", "edge-double=yes,no"]`` ->
    ``[["target=31", "edge-double=yes"], ["target=31", "edge-double=no"], ...]``."""
    choices: list[list[str]] = []
    for text in texts:
        name, sep, values = text.partition("=") if isinstance(text, str) else ("", "", "")
        if sep and "," in values:
            choices.append([f"{name}={v}" for v in values.split(",")])
        else:
            choices.append([text])
    return [list(combo) for combo in itertools.product(*choices)]


def make_sweep(game: str, players: Sequence[str] | str = ("greedy", "greedy"),
               matches: int = 100, seed: int = 1,
               options: Sequence[str] = ()) -> list[SimSetup]:
    """One :class:`SimSetup` per combination of the listed option values
    (:func:`split_sweep`; one setup when no value is a list), in that order. Raises
    :class:`~dominolab.core.OptionError` for bad input or a combination given twice."""
    setups: list[SimSetup] = []
    for combo in split_sweep(options):
        setup = make_setup(game, players, matches, seed, combo)
        if any(s.options == setup.options for s in setups):
            raise OptionError(f"{' '.join(combo)}: these options are swept twice (a value "
                              f"repeats)")
        setups.append(setup)
    return setups


# -- one match ----------------------------------------------------------------------------------

def match_lines(setup: SimSetup, index: int) -> str:
    """Play match ``index`` of ``setup``; return its lines (hands, then the match), each
    ending in ``\\n``."""
    facts = play_match_facts(setup.game, setup.options, setup.seed + index, setup.players,
                             setup.budgets)
    return facts_text(get_game(setup.game), index, facts)


def _run_task(task: tuple[SimSetup, int]) -> tuple[int, str]:
    setup, index = task
    return index, match_lines(setup, index)


# -- running ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SimOutcome:
    """What a run left: ``written`` whole matches (``0 .. written-1``) of ``requested``, the
    first ``resumed`` of them already in the file when it started (``--resume``)."""

    requested: int
    written: int
    seconds: float
    interrupted: bool = False
    resumed: int = 0


class SimInterrupted(KeyboardInterrupt):
    """Ctrl-C during a simulation: the pool is stopped; the file holds ``outcome.written``
    whole matches. A :class:`KeyboardInterrupt`, so careless code still stops."""

    def __init__(self, outcome: SimOutcome) -> None:
        super().__init__("simulation interrupted")
        self.outcome = outcome


class SimStopped(ClusterError):
    """The Dask cluster was lost mid-run (every worker gone, or the scheduler): the run
    stopped; the file holds ``outcome.written`` whole matches, and the message says so."""

    def __init__(self, message: str, outcome: SimOutcome) -> None:
        super().__init__(message)
        self.outcome = outcome


class TextSink(Protocol):
    """Where :func:`run_simulation` writes a file's text: a text file, or a
    :class:`~dominolab.lab.simfile.ParquetSimWriter`."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


def run_simulation(setup: SimSetup, out: TextSink, workers: int | None = None,
                   progress_callback: ProgressCallback | None = None,
                   scheduler: Any = None, first: int = 0, *,
                   no_workers_timeout: float = NO_WORKERS_TIMEOUT) -> SimOutcome:
    """Play ``setup`` and write its file to ``out`` (the header first, then each match's
    lines once the match and every one before it are complete; ``out`` is flushed after
    each match). ``first``: ``out`` already holds the header and matches ``0 .. first-1``
    (a resumed run): play and write only the matches after them. ``workers``: processes
    (default: every core; 1 plays in this process).
    ``scheduler``: run on a Dask cluster instead (``workers`` is then not used): its
    scheduler's address ``tcp://HOST:PORT`` (see :func:`~dominolab.lab.pool.connect_cluster`)
    or a connected ``distributed.Client``; the file is the same as a local run's; a cluster
    without a worker for ``no_workers_timeout`` seconds stops the run
    (:func:`~dominolab.lab.pool.run_tasks`). ``progress_callback(done, total)`` counts
    finished matches and is also called about twice a second while waiting. Raises
    :class:`SimInterrupted` on Ctrl-C (or when the callback raises
    :class:`KeyboardInterrupt`), and :class:`SimStopped` when the cluster is lost mid-run,
    after which ``out`` holds whole matches."""
    if isinstance(scheduler, str):
        with cluster_client(scheduler) as client:
            return run_simulation(setup, out, workers, progress_callback, client, first,
                                  no_workers_timeout=no_workers_timeout)
    processes = check_workers(workers)
    total = setup.matches
    if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first <= total:
        raise OptionError(f"first must be from 0 to {total}, not {first!r}")
    start = time.perf_counter()
    pending: dict[int, str] = {}
    written = first
    received = first

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
        return SimOutcome(total, written, time.perf_counter() - start, interrupted, first)

    if first == 0:
        out.write(dumps(setup.header()) + "\n")
        out.flush()
    tasks = [(setup, i) for i in range(first, total)]
    try:
        report()
        run_tasks(_run_task, tasks, take, workers=processes, client=scheduler, tick=report,
                  no_workers_timeout=no_workers_timeout)
    except KeyboardInterrupt:
        raise SimInterrupted(outcome(True)) from None
    except ClusterError as exc:
        raise SimStopped(str(exc), outcome(True)) from None
    return outcome(False)


class OutputExists(DominoError):
    """The result file exists and the run was asked neither to replace nor to resume it."""


class ResumeMismatch(DominoError):
    """The file to resume was written with other arguments (or another dominolab)."""


#: how :func:`simulate_to_file` treats an existing file
FileMode = Literal["replace", "new", "resume"]


def _header_differences(theirs: dict[str, Any], ours: dict[str, Any]) -> list[str]:
    keys = list(ours) + [k for k in theirs if k not in ours]
    return [f"{k} {dumps(theirs.get(k))} (these arguments: {dumps(ours.get(k))})"
            for k in keys if theirs.get(k) != ours.get(k)]


def resume_point(setup: SimSetup, path: str | os.PathLike[str]) -> tuple[int, int]:
    """Where a resumed run of ``setup`` into ``path`` starts: (whole matches in the file,
    bytes to keep). ``(0, 0)`` when the file is missing or holds no whole header line yet
    (a run stopped before writing it). Raises :class:`ResumeMismatch` when its header is
    not the one ``setup`` writes, :class:`~dominolab.lab.simfile.SimFileError` when the
    file is not one a run left."""
    header_line = (dumps(setup.header()) + "\n").encode("utf-8")
    try:
        with open(path, "rb") as fh:
            start = fh.read(len(header_line))
    except FileNotFoundError:
        return 0, 0
    if header_line.startswith(start) and len(start) < len(header_line):
        return 0, 0  # nothing or a torn header: start afresh
    try:
        found = recover_sim_file(path)
    except SimFileError as exc:
        raise SimFileError(f"cannot resume: {exc}") from None
    differ = _header_differences(found.header, setup.header())
    if differ or not start == header_line:
        raise ResumeMismatch(f"cannot resume {os.fspath(path)}: it was written with other "
                             f"arguments: {'; '.join(differ) or 'its header is written apart'}")
    return found.matches, found.whole_bytes


class ResumeUnsupported(OptionError):
    """``--resume`` asked of a Parquet file (only JSON Lines files can be continued)."""


#: names of compressed files, which a run does not write (it writes plain text)
COMPRESSED_SUFFIXES: Final = (".gz", ".bz2", ".xz", ".zst")


def check_out_name(path: str | os.PathLike[str]) -> None:
    """:class:`OptionError` for a result file named as compressed (``X.jsonl.gz``): a run
    writes plain JSON Lines (or Parquet), which ``--resume`` continues byte for byte, and a
    ``.gz`` name over plain text would mislead every tool that trusts it. Compress the
    finished file instead (``gzip X.jsonl``; ``report`` reads ``.jsonl.gz``)."""
    name = os.fspath(path)
    suffix = next((s for s in COMPRESSED_SUFFIXES if name.lower().endswith(s)), None)
    if suffix is not None:
        raise OptionError(f"{name}: a run writes an uncompressed file, not {suffix}; name it "
                          f"without {suffix} and compress it once finished (report reads "
                          f"a gzipped file)")


def simulate_to_file(setup: SimSetup, path: str | os.PathLike[str], workers: int | None = None,
                     progress_callback: ProgressCallback | None = None,
                     scheduler: Any = None, mode: FileMode = "replace",
                     kind: OutKind = "jsonl", *,
                     no_workers_timeout: float = NO_WORKERS_TIMEOUT) -> SimOutcome:
    """:func:`run_simulation` into the file ``path``: JSON Lines (UTF-8, ``\\n`` line
    ends), or with ``kind="parquet"`` Parquet (a
    :class:`~dominolab.lab.simfile.ParquetSimWriter`; needs pyarrow, else
    :class:`~dominolab.lab.simfile.PyarrowMissing` before anything is touched).

    ``mode``: ``"replace"`` an existing file; ``"new"``: raise :class:`OutputExists` if a
    file is there; ``"resume"``: continue the file an interrupted run of the same setup
    left (:func:`resume_point`: its torn tail is cut, only the missing matches are played;
    a missing file is started); JSON Lines only: a Parquet file raises
    :class:`ResumeUnsupported` (its footer is written when it closes, so it cannot be
    appended to). The file is checked first; then, with a ``scheduler`` address, the
    cluster is connected: if that fails (:class:`~dominolab.lab.pool.ClusterError`), the
    file is not touched. A cluster lost mid-run raises :class:`SimStopped`, its message
    naming the file and the whole matches it holds, as does one without a worker for
    ``no_workers_timeout`` seconds (checked first:
    :func:`~dominolab.lab.pool.check_no_workers_timeout`)."""
    check_no_workers_timeout(no_workers_timeout)
    if mode not in ("replace", "new", "resume"):
        raise OptionError(f"mode must be replace, new or resume, not {mode!r}")
    if kind not in OUT_KINDS:
        raise OptionError(f"kind must be {' or '.join(OUT_KINDS)}, not {kind!r}")
    check_out_name(path)
    if kind == "parquet":
        return _simulate_to_parquet(setup, path, workers, progress_callback, scheduler, mode,
                                    no_workers_timeout)
    first, keep = resume_point(setup, path) if mode == "resume" else (0, 0)
    if mode == "new" and os.path.isfile(path):
        raise OutputExists(f"{os.fspath(path)} exists (not replaced)")
    if first == setup.matches:
        with open(path, "r+b") as fh:
            fh.truncate(keep)
        return SimOutcome(setup.matches, first, 0.0, False, first)
    with cluster_client(scheduler) as client:
        if first > 0:
            with open(path, "r+b") as fh:
                fh.truncate(keep)
            fh_mode = "a"
        else:
            fh_mode = "x" if mode == "new" and not os.path.exists(path) else "w"
        try:
            with open(path, fh_mode, encoding="utf-8", newline="\n") as out:
                return run_simulation(setup, cast(TextIO, out), workers, progress_callback,
                                      client, first, no_workers_timeout=no_workers_timeout)
        except SimStopped as stop:
            raise _stopped_in(stop, path, "--resume continues it") from None
        except FileExistsError:
            raise OutputExists(f"{os.fspath(path)} exists (not replaced)") from None


def _stopped_in(stop: SimStopped, path: str | os.PathLike[str], then: str) -> SimStopped:
    """``stop`` saying what the file at ``path`` holds, and ``then`` how to go on."""
    done = stop.outcome
    return SimStopped(f"{stop}; the run stopped: {os.fspath(path)} holds the {done.written} "
                      f"whole matches finished (of {done.requested}); {then}", done)


def _simulate_to_parquet(setup: SimSetup, path: str | os.PathLike[str], workers: int | None,
                         progress_callback: ProgressCallback | None, scheduler: Any,
                         mode: FileMode, no_workers_timeout: float) -> SimOutcome:
    if mode == "resume":
        raise ResumeUnsupported(
            f"cannot resume {os.fspath(path)}: only JSON Lines runs can be continued (a "
            f"Parquet file is completed when it is closed); start it afresh with --force, or "
            f"write JSON Lines")
    require_pyarrow()
    if mode == "new" and os.path.exists(path):
        raise OutputExists(f"{os.fspath(path)} exists (not replaced)")
    with cluster_client(scheduler) as client:
        try:
            with ParquetSimWriter(path, exclusive=mode == "new") as out:
                return run_simulation(setup, out, workers, progress_callback, client,
                                      no_workers_timeout=no_workers_timeout)
        except SimStopped as stop:
            raise _stopped_in(stop, path, "it cannot be continued (JSON Lines can)") from None
        except FileExistsError:
            raise OutputExists(f"{os.fspath(path)} exists (not replaced)") from None


__all__ = ["OUT_KINDS", "FileMode", "OutKind", "OutputExists", "ResumeMismatch",
           "ResumeUnsupported", "TextSink", "SimInterrupted", "SimOutcome", "SimStopped",
           "SimSetup", "check_out_name", "default_out", "is_reproducible", "make_setup",
           "make_sweep", "match_lines", "option_label", "resume_point", "run_simulation",
           "simulate_to_file", "split_players", "split_sweep"]
