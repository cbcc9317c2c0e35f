"""Simulations for the game designer: many matches between two computer players, every hand
recorded, written as a *simulation result file* (format ``dominolab-sim``, version 1).

The file is JSON Lines (UTF-8, one JSON object a line, ``\\n`` line ends): a header line,
then for each match ``i = 0 .. matches-1`` in order one line per hand and one line for the
match (see docs/lab.md for every field). Match ``i`` is ``Match(game, options, seed=seed+i)``;
seat 0 is always ``players[0]``; each player is seeded from the match seed and its seat
(:func:`dominolab.arena.player_seed`). With players that need no clock (``random``,
``greedy``, search players with a budget in worlds only, e.g. ``expert:500w``) the same
arguments give the same file byte for byte, whatever the number of worker processes, and
on a Dask cluster (``scheduler=``, the ``cluster`` extra) the same as locally. A
match's lines are written together once it is complete, in match order, so an interrupted
run leaves a valid file holding matches ``0 .. j-1`` only.

This module prints nothing; ``dominolab simulate`` (:mod:`dominolab.cli.simulate`) is its
command.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import re
import signal
import socket
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TextIO

from dominolab import __version__
from dominolab.arena import ProgressCallback, player_seed, resolve_player
from dominolab.core import (
    RULES_VERSION,
    DominoError,
    Draw,
    Match,
    OptionError,
    Options,
    Pass,
    Play,
    RecordError,
    Step,
    get_game,
)
from dominolab.players import LEVELS, Budget, make_player

FORMAT: Final = "dominolab-sim"
FORMAT_VERSION: Final = 1

#: players whose choices never depend on a clock, whatever their budget
_CLOCKLESS: Final = frozenset({"random", "greedy"})

#: a match longer than this is a bug in the engine or a player, not a long match
_MAX_MOVES_PER_MATCH: Final = 100_000

_BUDGET_PART = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(s|ms|w)\s*", re.IGNORECASE)


def dumps(obj: Any) -> str:
    """One line of a simulation file: compact JSON, keys in the order they were built."""
    return json.dumps(obj, separators=(",", ":"))


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


# -- one match ----------------------------------------------------------------------------------

def play_match(game: str, options: Options, match_seed: int, players: Sequence[str],
               budgets: Sequence[Budget | None] = (None, None)) -> Match:
    """Play one whole match through the checked path (every hand's steps are kept),
    ``players[seat]`` in each seat, seeded from the match seed and the seat."""
    match = Match(game, options, seed=match_seed)
    bots = [make_player(players[seat], player_seed(match_seed, seat)) for seat in (0, 1)]
    for _ in range(_MAX_MOVES_PER_MATCH):
        seat = match.to_move
        if seat is None:
            return match
        bot = bots[seat]
        view = match.view(seat)
        if getattr(bot, "sees_all", False):
            move = bot.choose_seeing(match.hand.copy(), view, budgets[seat])  # type: ignore[attr-defined]
        else:
            move = bot.choose(view, budgets[seat])
        match.apply(move)
    raise RuntimeError(f"{game} seed {match_seed}: no end after {_MAX_MOVES_PER_MATCH} moves")


def _per_seat(steps: Iterable[Step], kind: type) -> list[int]:
    counts = [0, 0]
    for step in steps:
        if isinstance(step.move, kind):
            counts[step.seat] += 1
    return counts


def hand_record(game: str, match_index: int, hand_number: int, match: Match) -> dict[str, Any]:
    """The line of hand ``hand_number`` (1-based) of a finished ``match``."""
    hand = match.hands[hand_number - 1]
    steps = match.steps[hand_number - 1]
    result = hand.result
    if result is None:
        raise ValueError(f"hand {hand_number} is not over")
    rec: dict[str, Any] = {
        "type": "hand", "match": match_index, "hand": hand_number, "opener": hand.opener,
        "end": result.end, "winner": result.winner, "points": list(result.points),
        "moves": len(steps),
    }
    spec = get_game(game)
    if spec.has_boneyard:  # Widelec
        quartets = [0, 0]
        quartet_points = [0, 0]
        for step in steps:
            worth = step.points[step.seat]
            if worth:
                quartets[step.seat] += 1
                quartet_points[step.seat] += worth
        rec.update(quartets=quartets, quartet_points=quartet_points, bonus=result.bonus,
                   draws=_per_seat(steps, Draw), passes=_per_seat(steps, Pass))
        return rec
    pips_scored = spec.name == "luzak"  # Luzak without spinners has no pip bonus
    luzaks = [0, 0]
    luzak_pips = [0, 0]
    scored_n: list[list[int]] = []
    for step in steps:
        move = step.move
        gain = list(step.points)
        if isinstance(move, Play) and move.luzak:
            luzaks[step.seat] += 1
            luzak_pips[step.seat] += move.tile.pips
            if pips_scored:
                gain[1 - step.seat] -= move.tile.pips
        for seat in (0, 1):
            if gain[seat]:
                scored_n.append([step.n, seat, gain[seat]])
    rec.update(luzaks=luzaks, luzak_pips=luzak_pips, scored_n=scored_n)
    return rec


def match_record(match_index: int, match: Match) -> dict[str, Any]:
    """The line closing a finished match."""
    result = match.result
    if result is None:
        raise ValueError("the match is not over")
    return {"type": "match", "match": match_index, "seed": match.seed,
            "first_opener": match.first_opener, "end": result.end, "winner": result.winner,
            "totals": list(result.totals), "hands": result.hands}


def match_lines(setup: SimSetup, index: int) -> str:
    """Play match ``index`` of ``setup``; return its lines (hands, then the match), each
    ending in ``\\n``."""
    match = play_match(setup.game, setup.options, setup.seed + index, setup.players,
                       setup.budgets)
    records = [hand_record(setup.game, index, h, match) for h in range(1, len(match.hands) + 1)]
    records.append(match_record(index, match))
    return "".join(dumps(r) + "\n" for r in records)


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


def _ignore_sigint() -> None:
    """Pool workers leave Ctrl-C to the parent, which stops them all."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_task(task: tuple[SimSetup, int]) -> tuple[int, str]:
    setup, index = task
    return index, match_lines(setup, index)


# -- a Dask cluster (the ``cluster`` extra) -------------------------------------------------------

CONNECT_TIMEOUT: Final = 5.0
CLUSTER_HINT: Final = "pip install 'dominolab[cluster]'"


class ClusterError(DominoError):
    """The Dask cluster cannot be used: ``distributed`` is not installed, the scheduler
    address is bad or unreachable, or the workers run another dominolab."""


def _worker_versions() -> tuple[str, int]:
    """Run on each worker: what it would play with."""
    return __version__, RULES_VERSION


def _drop_half_made_client(exc: BaseException, client_class: type) -> None:
    """A ``Client`` whose constructor failed still closes itself when collected, slowly
    and with a traceback on stderr: close it now, quietly, at once."""
    tb = exc.__traceback__
    while tb is not None:
        obj = tb.tb_frame.f_locals.get("self")
        if isinstance(obj, client_class):
            with contextlib.suppress(Exception):
                obj.close(timeout=0.5)  # type: ignore[attr-defined]
            with contextlib.suppress(Exception):
                obj.status = "closed"  # type: ignore[attr-defined]
            return
        tb = tb.tb_next


@contextlib.contextmanager
def cluster_client(scheduler: Any) -> Iterator[Any]:
    """A scheduler address connected (:func:`connect_cluster`) for the ``with`` block and
    closed after it; anything else (None, a connected client) passes through untouched."""
    if not isinstance(scheduler, str):
        yield scheduler
        return
    client = connect_cluster(scheduler)
    try:
        yield client
    finally:
        client.close()


def connect_cluster(address: str, timeout: float = CONNECT_TIMEOUT) -> Any:
    """A ``distributed.Client`` connected to the scheduler at ``address``
    (``tcp://HOST:PORT``), not made the default client; close it when done. Raises
    :class:`ClusterError` with a one-line reason when that cannot be done."""
    try:
        import distributed
        from distributed.comm.addressing import get_address_host_port, parse_address
    except ImportError:
        raise ClusterError(f"running on a Dask cluster needs the cluster extra: "
                           f"{CLUSTER_HINT}") from None
    where = f"the Dask scheduler {address!r}"
    try:
        scheme, _ = parse_address(address)
        if scheme in ("tcp", "tls"):
            host, port = get_address_host_port(address)
            with socket.create_connection((host, port), timeout=timeout):
                pass
    except (OSError, ValueError, TypeError) as exc:
        if isinstance(exc, TimeoutError):
            reason = f"no answer in {timeout:g} s"
        elif isinstance(exc, OSError):
            reason = exc.strerror or str(exc)
        else:
            reason = str(exc)
        raise ClusterError(f"cannot reach {where} ({reason}); give --scheduler "
                           f"tcp://HOST:PORT") from None
    make_client: Any = distributed.Client  # untyped
    try:
        client = make_client(address, timeout=timeout, set_as_default=False)
    except Exception as exc:  # whatever answered there is not a Dask scheduler
        _drop_half_made_client(exc, distributed.Client)
        raise ClusterError(f"cannot connect to {where} (is a Dask scheduler listening "
                           f"there?): {type(exc).__name__}") from None
    try:
        versions = client.run(_worker_versions)
    except Exception as exc:
        client.close()
        raise ClusterError(f"the workers of {where} cannot run dominolab (is it installed "
                           f"there?): {exc}") from None
    mine = (__version__, RULES_VERSION)
    for worker, theirs in versions.items():
        if tuple(theirs) != mine:
            client.close()
            raise ClusterError(f"worker {worker} runs dominolab {theirs[0]} (rules "
                               f"{theirs[1]}), not {mine[0]} (rules {mine[1]}); install "
                               f"the same version on every worker")
    return client


def _gather_cluster(client: Any, tasks: Sequence[tuple[SimSetup, int]],
                    take: Callable[[int, str], None], report: Callable[[], None]) -> None:
    """One Dask task per match (the same :func:`_run_task` as the local pool); ``take``
    each result as it completes, ``report`` about twice a second."""
    import distributed

    wait: Any = distributed.wait  # untyped
    remaining = set(client.map(_run_task, tasks, pure=False))
    try:
        with client.as_current():
            while remaining:
                try:
                    done = wait(list(remaining), timeout=0.5,
                                return_when="FIRST_COMPLETED").done
                except TimeoutError:
                    done = set()
                for future in done:
                    take(*future.result())
                    remaining.discard(future)
                report()
    except BaseException:
        client.cancel(list(remaining))
        raise


def run_simulation(setup: SimSetup, out: TextIO, workers: int | None = None,
                   progress_callback: ProgressCallback | None = None,
                   scheduler: Any = None) -> SimOutcome:
    """Play ``setup`` and write its file to ``out`` (the header first, then each match's
    lines once the match and every one before it are complete; ``out`` is flushed after
    each match). ``workers``: processes (default: every core; 1 plays in this process).
    ``scheduler``: run on a Dask cluster instead (``workers`` is then not used): its
    scheduler's address ``tcp://HOST:PORT`` (see :func:`connect_cluster`) or a connected
    ``distributed.Client``; the file is the same as a local run's.
    ``progress_callback(done, total)`` counts finished matches and is also called about
    twice a second while waiting. Raises :class:`SimInterrupted` on Ctrl-C (or when the
    callback raises :class:`KeyboardInterrupt`), after which ``out`` holds whole matches."""
    if isinstance(scheduler, str):
        with cluster_client(scheduler) as client:
            return run_simulation(setup, out, workers, progress_callback, client)
    if workers is None:
        workers = os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise OptionError(f"workers must be at least 1, not {workers!r}")
    total = setup.matches
    start = time.perf_counter()
    pending: dict[int, str] = {}
    written = 0
    received = 0

    def take(index: int, text: str) -> None:
        nonlocal written, received
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
        if scheduler is not None:
            _gather_cluster(scheduler, tasks, take, report)
        elif min(workers, total) == 1:
            for task in tasks:
                take(*_run_task(task))
                report()
        else:
            with multiprocessing.get_context().Pool(min(workers, total), _ignore_sigint) as pool:
                try:
                    results = pool.imap_unordered(_run_task, tasks, chunksize=1)
                    while received < total:
                        with contextlib.suppress(multiprocessing.TimeoutError):
                            take(*results.next(timeout=0.5))
                        report()
                except BaseException:
                    pool.terminate()
                    raise
    except KeyboardInterrupt:
        raise SimInterrupted(outcome(True)) from None
    return outcome(False)


def simulate_to_file(setup: SimSetup, path: str | os.PathLike[str], workers: int | None = None,
                     progress_callback: ProgressCallback | None = None,
                     scheduler: Any = None) -> SimOutcome:
    """:func:`run_simulation` into the file ``path`` (UTF-8, ``\\n`` line ends), replacing it.
    With a ``scheduler`` address the cluster is connected first: if that fails
    (:class:`ClusterError`), the file is not touched."""
    with cluster_client(scheduler) as client, \
            open(path, "w", encoding="utf-8", newline="\n") as fh:
        return run_simulation(setup, fh, workers, progress_callback, client)


# -- reading ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SimMatch:
    """One match of a file: its match line and its hand lines, as parsed."""

    record: dict[str, Any]
    hands: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class Simulation:
    """A parsed simulation file: the header and the whole matches, in order."""

    header: dict[str, Any]
    matches: tuple[SimMatch, ...]

    @property
    def complete(self) -> bool:
        """False when the run was interrupted (fewer matches than the header asked for)."""
        return bool(len(self.matches) == self.header["matches"])

    @property
    def hands(self) -> list[dict[str, Any]]:
        return [h for m in self.matches for h in m.hands]


def parse_simulation(lines: Iterable[str], name: str = "<simulation>") -> Simulation:
    """Read a simulation file's lines; check its structure (header, then each match's hand
    lines followed by its match line, in order). Raises
    :class:`~dominolab.core.RecordError` naming the line at fault."""
    header: dict[str, Any] | None = None
    matches: list[SimMatch] = []
    hands: list[dict[str, Any]] = []
    number = 0
    for number, line in enumerate(lines, 1):
        where = f"{name} line {number}"
        if not line.strip():
            raise RecordError(f"{where}: an empty line")
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(f"{where}: not JSON ({exc})") from None
        if not isinstance(obj, dict):
            raise RecordError(f"{where}: not a JSON object")
        if header is None:
            if obj.get("format") != FORMAT:
                raise RecordError(f"{where}: not a {FORMAT} file (no header)")
            if obj.get("format_version") != FORMAT_VERSION:
                raise RecordError(f"{where}: format version {obj.get('format_version')!r}; "
                                  f"this dominolab reads version {FORMAT_VERSION}")
            header = obj
            continue
        expected = len(matches)
        if obj.get("match") != expected:
            raise RecordError(f"{where}: match {obj.get('match')!r}, expected {expected}")
        kind = obj.get("type")
        if kind == "hand":
            if obj.get("hand") != len(hands) + 1:
                raise RecordError(f"{where}: hand {obj.get('hand')!r}, expected "
                                  f"{len(hands) + 1}")
            hands.append(obj)
        elif kind == "match":
            if obj.get("hands") != len(hands):
                raise RecordError(f"{where}: the match has {obj.get('hands')!r} hands but "
                                  f"{len(hands)} hand lines precede it")
            matches.append(SimMatch(obj, tuple(hands)))
            hands = []
        else:
            raise RecordError(f"{where}: unknown line type {kind!r}")
    if header is None:
        raise RecordError(f"{name}: empty, no header")
    if hands:
        raise RecordError(f"{name} line {number}: match {len(matches)} is cut short")
    if len(matches) > header["matches"]:
        raise RecordError(f"{name}: more matches than the header's {header['matches']}")
    return Simulation(header, tuple(matches))


def read_simulation(path: str | os.PathLike[str]) -> Simulation:
    """Read and check a simulation file (see :func:`parse_simulation`)."""
    try:
        with open(path, encoding="utf-8") as fh:
            return parse_simulation(fh, str(path))
    except UnicodeDecodeError as exc:
        raise RecordError(f"{path}: not UTF-8 text ({exc})") from None


def default_out(game: str, seed: int) -> Path:
    """The default file name: ``sim-GAME-SEED.jsonl``."""
    return Path(f"sim-{game}-{seed}.jsonl")


__all__ = ["CLUSTER_HINT", "CONNECT_TIMEOUT", "FORMAT", "FORMAT_VERSION", "ClusterError",
           "SimInterrupted", "SimMatch", "SimOutcome", "SimSetup", "Simulation",
           "connect_cluster", "default_out", "dumps", "hand_record", "is_reproducible",
           "make_setup", "match_lines", "match_record", "parse_simulation", "play_match",
           "read_simulation", "run_simulation", "simulate_to_file", "split_players"]
