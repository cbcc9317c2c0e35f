"""Puzzles found in matches: positions of real and simulated play where one move is clearly
best by the expert's deep search (:mod:`dominolab.players.puzzles`), written as a puzzle
file that anyone can make again byte for byte.

Where the positions come from. *Simulated*: match ``i`` of a run is a seeded match
(:func:`~dominolab.lab.play.play_match`, the lab's one loop, match seed ``seed + i``)
between two of the site's computer levels, the pairing ``i`` of :data:`PAIRINGS` in turn
(the expert as the hard level at :data:`EXPERT_BUDGET`, a budget in worlds, so the matches
repeat exactly), so the positions are ones real play reaches, not random play's. *Real*:
match records (the core's record format: ``dominolab play --save``, the site's record
download), each judged the same way, read before any simulated match.

How a position is chosen. Every position of a match where the seat to move has at least two
distinct moves (:func:`~dominolab.players.hints.move_classes`) is a candidate; they are
tried in an order shuffled by the match's seed, at most one per hand and
:data:`MAX_TRIES` per match, until :data:`PER_MATCH` are kept, so a match gives puzzles from
several hands and stages and from both seats. A candidate is kept when

1. a cheap search (:func:`~dominolab.players.puzzles.judge` in :data:`PREFILTER_WORLDS`
   worlds a move) finds one move clearly best
   (:func:`~dominolab.players.puzzles.clearly_best`),
2. the deep search (:data:`~dominolab.players.puzzles.DEEP_WORLDS` worlds a move, the
   position's own seed) finds one clearly best too, and
3. the deep search again with another seed (the puzzle's seed + 1:
   :func:`~dominolab.players.puzzles.recheck`) agrees: a puzzle that a re-check could
   overturn is not shipped.

The starting rating: how hard the site's computer levels find it. Each level's player
(:data:`~dominolab.players.ratings.LEVEL_SPECS`: easy, medium, hard, at their own budgets)
chooses in the position with the puzzle's seed; the puzzle's rating is the fixed rating
(:data:`~dominolab.players.ratings.LEVEL_RATINGS`) of the weakest level whose choice solves
it, or :data:`ABOVE_HARD` points above the hard level's when none does.

Deterministic: the puzzles are taken in match order (records first), the first ``count``
of them, so the same arguments write the same bytes whatever the number of worker
processes (:func:`~dominolab.lab.pool.run_tasks`, the lab's one runner). The file is
written to a temporary name beside it and renamed, so an interrupted run leaves nothing
half-written.

This module prints nothing; ``dominolab puzzles`` is its command.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from dominolab.core import (
    MAX_RECORD_BYTES,
    DominoError,
    JsonError,
    Match,
    OptionError,
    Options,
    RecordError,
    View,
    get_game,
    match_record,
    replay,
)
from dominolab.core.errors import shown
from dominolab.jsonfile import read_json_file
from dominolab.lab.play import play_match, player_seed, resolve_player
from dominolab.lab.pool import ProgressCallback, check_workers, run_tasks
from dominolab.players import make_player
from dominolab.players.hints import move_classes
from dominolab.players.puzzles import (
    DEEP_WORLDS,
    Puzzle,
    PuzzleError,
    clearly_best,
    judge,
    read_puzzles,
    recheck,
    write_puzzles,
)
from dominolab.players.ratings import LEVEL_RATINGS, LEVEL_SPECS

#: the worlds a move the cheap search that picks candidates spends (the deep search decides)
PREFILTER_WORLDS: Final = 400
#: the most puzzles kept from one match (or record)
PER_MATCH: Final = 3
#: of which at most this many the easy level solves (so the puzzles are of every difficulty:
#: the greedy player finds most of the clearly best moves real play reaches)
EASY_PER_MATCH: Final = 1
#: the most candidate positions of one match searched (cheaply)
MAX_TRIES: Final = 16
#: the hard level's player as it plays the simulated matches: the expert at a budget in
#: worlds (so a match repeats exactly) that plays a match in seconds, not minutes
EXPERT_BUDGET: Final = "expert-plain:500w"
#: the players of simulated match ``i``: pairing ``i % len(PAIRINGS)`` (each level in both
#: seats, the expert against each, and against itself)
PAIRINGS: Final[tuple[tuple[str, str], ...]] = (
    (EXPERT_BUDGET, "medium"), ("medium", EXPERT_BUDGET), (EXPERT_BUDGET, "easy"),
    ("easy", EXPERT_BUDGET), (EXPERT_BUDGET, EXPERT_BUDGET), ("medium", "easy"),
    ("easy", "medium"),
)
#: a puzzle no level solves is rated this much above the hard level
ABOVE_HARD: Final = 150.0
#: the simulated matches a run may play for each puzzle asked for, before it gives up
MATCHES_PER_PUZZLE: Final = 20
#: the most puzzles one run makes (and the most records it reads)
MAX_COUNT: Final = 100_000
MAX_RECORDS: Final = 10_000
#: the levels, weakest first
LEVELS_ORDER: Final = ("easy", "medium", "hard")


class PuzzleRunError(DominoError):
    """A run that cannot make what it was asked: bad input, or too few puzzles found."""


@dataclass(frozen=True, slots=True)
class Source:
    """Where task ``index``'s positions come from: a record (``record`` and its file's
    ``name``), or simulated match ``number`` (``record`` None)."""

    index: int
    name: str
    record: Mapping[str, Any] | None = None
    number: int = 0


@dataclass(frozen=True, slots=True)
class PuzzleSetup:
    """What a run makes: ``count`` puzzles of ``game`` under ``options``; simulated match
    ``i`` has the seed ``seed + i``; ``records``: real matches judged first (name, record);
    ``deep``/``prefilter``: the worlds a move of the deep and the cheap search."""

    game: str
    options: Options
    count: int
    seed: int
    records: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    deep: int = DEEP_WORLDS
    prefilter: int = PREFILTER_WORLDS


def make_puzzle_setup(game: str, count: int, seed: int = 1,
                      records: Sequence[str | os.PathLike[str]] = (),
                      deep: int = DEEP_WORLDS, prefilter: int = PREFILTER_WORLDS
                      ) -> PuzzleSetup:
    """Check the input and read the records: a :class:`PuzzleSetup`. Raises
    :class:`~dominolab.core.OptionError` for a bad game, count or seed, and
    :class:`PuzzleRunError` naming the file for a record that cannot be read, does not
    replay, or is of another game."""
    spec = get_game(game)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COUNT:
        raise OptionError(f"the number of puzzles must be from 1 to {MAX_COUNT}, not "
                          f"{shown(count)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise OptionError(f"the seed must be a whole number, 0 or more, not {shown(seed)}")
    for what, worlds in (("deep", deep), ("prefilter", prefilter)):
        if isinstance(worlds, bool) or not isinstance(worlds, int) or worlds < 1:
            raise OptionError(f"the {what} search's worlds must be at least 1, not "
                              f"{shown(worlds)}")
    if len(records) > MAX_RECORDS:
        raise OptionError(f"at most {MAX_RECORDS} record files, not {len(records)}")
    read: list[tuple[str, Mapping[str, Any]]] = []
    for path in records:
        name = os.fsdecode(path)
        record = read_record(name)
        if record.get("game") != spec.name:
            raise PuzzleRunError(f"{name}: a record of {shown(record.get('game'))}, not of "
                                 f"{spec.name}")
        read.append((os.path.basename(name), record))
    return PuzzleSetup(spec.name, spec.options(None), count, seed, tuple(read), deep,
                       prefilter)


def read_record(path: str) -> dict[str, Any]:
    """The record in the file at ``path``, checked by replaying it. Raises
    :class:`PuzzleRunError` naming the file."""
    try:
        record = read_json_file(path, "a record", max_bytes=MAX_RECORD_BYTES)
    except (JsonError, OSError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise PuzzleRunError(f"{path}: {reason}") from None
    try:
        replay(record)
    except RecordError as exc:
        raise PuzzleRunError(f"{path}: {exc}") from None
    assert isinstance(record, dict)
    return record


# -- one match ---------------------------------------------------------------------------------

def position_seed(run_seed: int, index: int, move: int) -> int:
    """The deep search's seed of the position after ``move`` moves of task ``index`` of a
    run with ``run_seed``: one per position, so no two puzzles share a search."""
    return (run_seed * 1_000_003 + index) * 100_000 + move


def _positions(match: Match) -> list[tuple[int, int, Match]]:
    """Every position of ``match`` (replayed from its start) where the seat to move has two
    distinct moves or more: (moves made before it, hand number, the match then)."""
    again = Match(match.spec, match.options, seed=match.seed,
                  deals=[h.deal for h in match.hands], first_opener=match.first_opener)
    out: list[tuple[int, int, Match]] = []
    made = 0
    for hand in match.hands:
        for _, move in hand.moves:
            seat = again.to_move
            assert seat is not None
            if len(move_classes(again.view(seat))) >= 2:
                out.append((made, again.hand_number, again.copy()))
            again.apply(move)
            made += 1
    return out


def level_rating(game: str, view: View, puzzle: Puzzle) -> float:
    """The rating of the weakest level whose choice in ``view`` solves ``puzzle`` (each
    level's player seeded with the puzzle's seed), or :data:`ABOVE_HARD` above the hard
    level's when none does."""
    ratings = LEVEL_RATINGS[game]
    for level in LEVELS_ORDER:
        name, budget = resolve_player(LEVEL_SPECS[game][level])
        move = make_player(name, player_seed(puzzle.seed, view.seat)).choose(view, budget)
        if puzzle.solves(view, move):
            return float(ratings[level])
    return ratings["hard"] + ABOVE_HARD


def _judge_position(setup: PuzzleSetup, match: Match, seed: int, source: str
                    ) -> Puzzle | None:
    seat = match.to_move
    assert seat is not None
    view = match.view(seat)
    if not clearly_best(judge(view, setup.prefilter, seed)):
        return None
    moves = judge(view, setup.deep, seed)
    if not clearly_best(moves):
        return None
    puzzle = Puzzle("", setup.game, match_record(match), tuple(moves), 0.0, source, seed,
                    setup.deep)
    if not recheck(puzzle, seed + 1):
        return None
    return replace(puzzle, rating=level_rating(setup.game, view, puzzle))


def find_in_match(setup: PuzzleSetup, match: Match, index: int, about: str
                  ) -> list[Puzzle]:
    """The puzzles kept from ``match`` (task ``index`` of ``setup``; ``about`` says where
    it comes from): at most :data:`PER_MATCH`, one a hand, :data:`EASY_PER_MATCH` of them
    the easy level solves, from at most :data:`MAX_TRIES`
    candidates tried in an order shuffled by the task's seed; in the order of the match."""
    positions = _positions(match)
    random.Random(f"dominolab/puzzles/{setup.seed}/{index}").shuffle(positions)
    kept: list[tuple[int, Puzzle]] = []
    hands: set[int] = set()
    easy = LEVEL_RATINGS[setup.game]["easy"]
    easy_kept = 0
    for made, hand, at in positions[:MAX_TRIES]:
        if hand in hands:
            continue
        seat = at.to_move
        source = f"{about}, hand {hand}, move {len(at.hand.moves) + 1}, seat {seat}"
        puzzle = _judge_position(setup, at, position_seed(setup.seed, index, made), source)
        if puzzle is not None and (puzzle.rating > easy or easy_kept < EASY_PER_MATCH):
            easy_kept += puzzle.rating <= easy
            kept.append((made, puzzle))
            hands.add(hand)
            if len(kept) == PER_MATCH:
                break
    return [p for _, p in sorted(kept, key=lambda k: k[0])]


def pairing(index: int) -> tuple[str, str]:
    """The players (seat 0, seat 1) of simulated match ``index``."""
    return PAIRINGS[index % len(PAIRINGS)]


def _run_task(task: tuple[PuzzleSetup, Source]) -> tuple[int, list[Puzzle]]:
    setup, source = task
    if source.record is not None:
        return source.index, find_in_match(setup, replay(source.record), source.index,
                                           f"record {source.name}")
    match_seed = setup.seed + source.number
    players = pairing(source.number)
    (a, a_budget), (b, b_budget) = resolve_player(players[0]), resolve_player(players[1])
    played = play_match(setup.game, setup.options, match_seed, (a, b), (a_budget, b_budget))
    about = f"simulated: {players[0]} vs {players[1]}, match seed {match_seed}"
    return source.index, find_in_match(setup, played.match, source.index, about)


# -- a run -------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class PuzzleOutcome:
    """What a run made: ``puzzles`` (numbered), from ``matches`` matches and records
    searched, in ``seconds``."""

    puzzles: tuple[Puzzle, ...]
    matches: int
    seconds: float


class _Enough(Exception):
    """Raised from the runner's ``take`` once the matches in order hold enough puzzles."""


def make_puzzles(setup: PuzzleSetup, workers: int | None = 1,
                 progress_callback: ProgressCallback | None = None) -> PuzzleOutcome:
    """The first ``setup.count`` puzzles of the records and then the simulated matches, in
    that order, numbered ``GAME-0001`` on. ``workers``: processes (1 plays in this one).
    ``progress_callback(done, total)`` counts puzzles. Raises :class:`PuzzleRunError` when
    the records and :data:`MATCHES_PER_PUZZLE` simulated matches a puzzle give too few, and
    KeyboardInterrupt on Ctrl-C (nothing is kept)."""
    processes = check_workers(workers)
    start = time.perf_counter()
    sources = [Source(i, name, record) for i, (name, record) in enumerate(setup.records)]
    first_sim = len(sources)
    sims = MATCHES_PER_PUZZLE * setup.count
    sources += [Source(first_sim + i, "", None, i) for i in range(sims)]
    found: dict[int, list[Puzzle]] = {}
    ready: list[Puzzle] = []
    nxt = 0

    def take(result: tuple[int, list[Puzzle]]) -> None:
        nonlocal nxt
        index, puzzles = result
        found[index] = puzzles
        while nxt in found:
            ready.extend(found.pop(nxt))
            nxt += 1
        if len(ready) >= setup.count:
            raise _Enough

    def report() -> None:
        if progress_callback is not None:
            progress_callback(min(len(ready), setup.count), setup.count)

    tasks = [(setup, s) for s in sources]
    report()
    with contextlib.suppress(_Enough):
        run_tasks(_run_task, tasks, take, workers=processes, tick=report)
    report()
    if len(ready) < setup.count:
        raise PuzzleRunError(f"only {len(ready)} puzzles found in {len(setup.records)} "
                             f"records and {sims} simulated matches, not {setup.count}")
    numbered = tuple(replace(p, id=f"{setup.game}-{k:04d}")
                     for k, p in enumerate(ready[:setup.count], start=1))
    return PuzzleOutcome(numbered, nxt, time.perf_counter() - start)


def write_atomically(path: str | os.PathLike[str], puzzles: Iterable[Puzzle]) -> None:
    """Write ``puzzles`` to ``path`` through a temporary file beside it, renamed over it when
    whole: an interrupted write leaves ``path`` as it was."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")  # made as any file is
    try:
        write_puzzles(tmp, puzzles)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# -- re-checking a file ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class CheckResult:
    """One puzzle re-checked: ``held`` if the deep search with the other seed agrees."""

    puzzle: Puzzle
    held: bool


def check_sample(puzzles: Sequence[Puzzle], sample: int | None, seed: int) -> list[Puzzle]:
    """``sample`` of ``puzzles`` picked by ``seed`` (all of them for None), in file order."""
    if sample is None or sample >= len(puzzles):
        return list(puzzles)
    picked = set(random.Random(f"dominolab/puzzles/check/{seed}").sample(
        range(len(puzzles)), sample))
    return [p for i, p in enumerate(puzzles) if i in picked]


def _check_task(task: tuple[Puzzle, int]) -> CheckResult:
    puzzle, seed = task
    return CheckResult(puzzle, recheck(puzzle, puzzle.seed + seed))


def check_puzzles(path: str | os.PathLike[str], sample: int | None = None, seed: int = 2,
                  workers: int | None = 1, progress_callback: ProgressCallback | None = None
                  ) -> list[CheckResult]:
    """Re-run the deep search on ``sample`` puzzles of the file at ``path`` (all by default;
    picked by ``seed``) with the seed ``puzzle.seed + seed`` (``seed`` 1 repeats the
    generator's own re-check); each puzzle's result, in file order. Raises
    :class:`~dominolab.players.puzzles.PuzzleError` naming the file and line of a bad
    puzzle (or naming the puzzle whose record does not replay), OptionError for a bad
    sample or seed."""
    if sample is not None and (isinstance(sample, bool) or sample < 1):
        raise OptionError(f"the sample must be at least 1, not {shown(sample)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 1:
        raise OptionError(f"the seed must be at least 1 (0 would repeat the puzzle's own "
                          f"search), not {shown(seed)}")
    puzzles = read_puzzles(path)
    for p in puzzles:
        p.match()  # a puzzle that does not replay: PuzzleError naming it
    chosen = check_sample(puzzles, sample, seed)
    results: dict[str, CheckResult] = {}

    def take(result: CheckResult) -> None:
        results[result.puzzle.id] = result

    def report() -> None:
        if progress_callback is not None:
            progress_callback(len(results), len(chosen))

    report()
    run_tasks(_check_task, [(p, seed) for p in chosen], take, workers=check_workers(workers),
              tick=report)
    return [results[p.id] for p in chosen]


__all__ = ["ABOVE_HARD", "EXPERT_BUDGET", "MATCHES_PER_PUZZLE", "MAX_TRIES", "PAIRINGS",
           "PER_MATCH", "PREFILTER_WORLDS", "CheckResult", "PuzzleError", "PuzzleOutcome",
           "PuzzleRunError", "PuzzleSetup", "Source", "check_puzzles", "check_sample",
           "find_in_match", "level_rating", "make_puzzle_setup", "make_puzzles", "pairing",
           "position_seed", "read_record", "write_atomically"]
