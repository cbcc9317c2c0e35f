"""Duplicate matches between two computer players, and the statistics of the outcome.

A *pair* is one set of deals played twice with the seats swapped: pair ``i`` uses the match
seed ``seed + i`` (a :class:`~dominolab.core.Match` deals hand ``h`` from its seed and hand
number, and draws the first opener by lot from the seed), player A sits in seat 0 in the
first match and in seat 1 in the second. Whatever luck the deals hold is dealt to both
players once, so it largely cancels within a pair, and the pair, not the match, is the unit
of independence for every interval here.

Every figure is from A's side: a match scores 1 (A won), 0.5 (a draw) or 0 (B won); a hand's
margin is A's points in the hand minus B's. The same seed gives the same matches: players
are seeded from the match seed and their seat, and with budgets in worlds only (``pimc:20w``)
their choices repeat exactly; budgets in seconds depend on the machine's speed.

This module prints nothing; ``dominolab arena`` (:mod:`dominolab.cli.arena`) is its command.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dominolab.core import Match, OptionError, Options, get_game
from dominolab.players import Budget, make_player, parse_player_spec

#: the normal quantile of a two-sided 95% interval (1.95996..., rounded as usual)
Z95 = 1.96

#: ``progress(matches_done, matches_total)``; called from the calling process only
ProgressCallback = Callable[[int, int], None]

#: a match longer than this is a bug in the engine or a player, not a long match
_MAX_MOVES_PER_MATCH = 100_000


# -- statistics (pure) --------------------------------------------------------------------------

def mean(values: Sequence[float]) -> float:
    """The arithmetic mean (``nan`` for no values)."""
    return math.fsum(values) / len(values) if values else math.nan


def sample_sd(values: Sequence[float]) -> float:
    """The sample standard deviation (divisor ``n - 1``); ``nan`` below two values."""
    n = len(values)
    if n < 2:
        return math.nan
    m = mean(values)
    return math.sqrt(math.fsum((v - m) ** 2 for v in values) / (n - 1))


def mean_interval(values: Sequence[float], z: float = Z95,
                  clip: tuple[float, float] | None = None) -> tuple[float, float] | None:
    """Normal-approximation interval of the mean: ``mean ± z * sd / sqrt(n)``, optionally
    clipped to ``clip``. None below two values (no spread to measure)."""
    n = len(values)
    if n < 2:
        return None
    m = mean(values)
    half = z * sample_sd(values) / math.sqrt(n)
    lo, hi = m - half, m + half
    if clip is not None:
        lo, hi = max(clip[0], lo), min(clip[1], hi)
    return (lo, hi)


def ratio_interval(numerators: Sequence[float], denominators: Sequence[float],
                   z: float = Z95) -> tuple[float, tuple[float, float] | None]:
    """A ratio of sums over clusters and its normal-approximation interval.

    ``R = sum(x) / sum(h)`` — e.g. the points margin per hand over every hand, with ``x_i``
    the margin summed over pair ``i``'s hands and ``h_i`` its number of hands. The interval
    treats each cluster (pair) as one independent unit (the delta method):
    ``se = sqrt(sum((x_i - R h_i)^2) / (n (n - 1))) / mean(h)``. When every cluster has the
    same denominator this is exactly :func:`mean_interval` of the per-cluster ratios.
    Returns ``(R, None)`` below two clusters.
    """
    if len(numerators) != len(denominators):
        raise ValueError("numerators and denominators differ in length")
    n = len(numerators)
    total = math.fsum(denominators)
    if n == 0 or total == 0:
        return (math.nan, None)
    ratio = math.fsum(numerators) / total
    if n < 2:
        return (ratio, None)
    residuals = math.fsum((x - ratio * h) ** 2 for x, h in zip(numerators, denominators,
                                                                 strict=True))
    se = math.sqrt(residuals / (n * (n - 1))) / (total / n)
    return (ratio, (ratio - z * se, ratio + z * se))


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion ``successes / n`` (draws may count as half
    a success). None for ``n == 0``."""
    if n <= 0:
        return None
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100), interpolated linearly between the closest ranks
    (numpy's default); ``nan`` for no values."""
    if not 0 <= q <= 100:
        raise ValueError(f"a percentile lies in 0..100, not {q}")
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


@dataclass(frozen=True, slots=True)
class Timing:
    """Seconds one player took per move, over every move it made (forced ones included)."""

    moves: int
    median: float
    p95: float
    max: float
    mean: float

    @staticmethod
    def of(seconds: Sequence[float]) -> Timing:
        return Timing(len(seconds), percentile(seconds, 50), percentile(seconds, 95),
                      max(seconds) if seconds else math.nan, mean(seconds))


# -- records ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One match of an arena, as played.

    ``pair``: the pair's index (its match seed is ``seed + pair``); ``a_seat``: A's seat
    (0 in a pair's first match, 1 in its second); ``score``: 1 if A won, 0.5 for a draw, 0
    if B won; ``a_points``/``b_points``: the match totals; ``hand_margins``: A's points
    minus B's in each hand, in order; ``a_seconds``/``b_seconds``: each player's thinking
    time per move; ``first_deal``: the first hand's deal as text (seat 0's tiles / seat 1's
    tiles / the rest), equal within a pair; ``first_opener``: the seat that opened hand 1;
    ``end``: how the match ended (see :class:`~dominolab.core.MatchResult`).
    """

    pair: int
    match_seed: int
    a_seat: int
    score: float
    a_points: int
    b_points: int
    hand_margins: tuple[int, ...]
    a_seconds: tuple[float, ...]
    b_seconds: tuple[float, ...]
    first_deal: str
    first_opener: int
    end: str

    @property
    def hands(self) -> int:
        return len(self.hand_margins)

    @property
    def moves(self) -> int:
        return len(self.a_seconds) + len(self.b_seconds)


@dataclass(frozen=True, slots=True)
class ArenaSummary:
    """The figures of an arena, all from A's side.

    ``win_rate``: A's mean match score (a draw counts half). ``win_rate_ci95``: its 95%
    interval over *pairs* (pair score = the mean of its two matches; ``mean ± 1.96 sd/√n``
    clipped to [0, 1]); None below two pairs. ``win_rate_wilson95``: the Wilson interval over
    individual matches, for reference only (it takes the matches as independent, which a
    pair's two matches, sharing their deals, are not).
    ``margin_per_hand``: A's points minus B's per hand, over every hand played;
    ``margin_ci95``: its 95% interval with pairs as the unit (:func:`ratio_interval`).
    ``a_wins``, ``b_wins``, ``draws``: matches won by A, by B, and drawn. ``a_timing``,
    ``b_timing``: seconds per move of each player (median, p95, max), the time of its
    ``choose`` call only.
    """

    pairs: int
    matches: int
    hands: int
    moves: int
    a_wins: int
    b_wins: int
    draws: int
    win_rate: float
    win_rate_ci95: tuple[float, float] | None
    win_rate_wilson95: tuple[float, float] | None
    margin_per_hand: float
    margin_ci95: tuple[float, float] | None
    a_timing: Timing
    b_timing: Timing


def summarise(records: Sequence[MatchRecord]) -> ArenaSummary:
    """The figures of an arena from its match records (any order; a pair missing one of its
    matches, as after an interruption, still counts as a unit of what it has)."""
    by_pair: dict[int, list[MatchRecord]] = {}
    for rec in records:
        by_pair.setdefault(rec.pair, []).append(rec)
    pairs = [by_pair[p] for p in sorted(by_pair)]
    pair_scores = [mean([r.score for r in recs]) for recs in pairs]
    scores = [r.score for r in records]
    ratio, ratio_ci = ratio_interval(
        [float(sum(sum(r.hand_margins) for r in recs)) for recs in pairs],
        [float(sum(r.hands for r in recs)) for recs in pairs])
    return ArenaSummary(
        pairs=len(pairs),
        matches=len(records),
        hands=sum(r.hands for r in records),
        moves=sum(r.moves for r in records),
        a_wins=sum(1 for s in scores if s == 1),
        b_wins=sum(1 for s in scores if s == 0),
        draws=sum(1 for s in scores if s == 0.5),
        win_rate=mean(scores),
        win_rate_ci95=mean_interval(pair_scores, clip=(0.0, 1.0)),
        win_rate_wilson95=wilson_interval(math.fsum(scores), len(scores)),
        margin_per_hand=ratio,
        margin_ci95=ratio_ci,
        a_timing=Timing.of([s for r in records for s in r.a_seconds]),
        b_timing=Timing.of([s for r in records for s in r.b_seconds]),
    )


def complete_pairs(records: Sequence[MatchRecord]) -> tuple[MatchRecord, ...]:
    """The records of the pairs whose both matches are there (an interrupted run may leave
    a pair half played; its lone match would not cancel the deals' luck)."""
    seats: dict[int, set[int]] = {}
    for rec in records:
        seats.setdefault(rec.pair, set()).add(rec.a_seat)
    return tuple(r for r in records if seats[r.pair] == {0, 1})


@dataclass(frozen=True, slots=True)
class ArenaResult:
    """An arena's setup, its raw match records (ordered by pair, then A's seat) and summary.

    ``a``/``b``: the players' names; ``a_budget``/``b_budget``: their budgets per move
    (None: the player's default); ``pairs_requested``: the pairs asked for; ``seconds``:
    wall-clock time of the whole run. After an interruption (``interrupted``) the records
    hold every finished match but the summary covers complete pairs only.
    """

    game: str
    options: Options
    seed: int
    a: str
    b: str
    a_budget: Budget | None
    b_budget: Budget | None
    pairs_requested: int
    records: tuple[MatchRecord, ...]
    summary: ArenaSummary
    seconds: float
    interrupted: bool = False

    @property
    def a_spec(self) -> str:
        return player_label(self.a, self.a_budget)

    @property
    def b_spec(self) -> str:
        return player_label(self.b, self.b_budget)

    def to_json(self) -> dict[str, Any]:
        """Every figure as plain JSON values (intervals as ``[lo, hi]`` or null)."""
        s = self.summary
        return {
            "a": self.a_spec,
            "b": self.b_spec,
            "budgets": {"a": _budget_text(self.a_budget), "b": _budget_text(self.b_budget)},
            "game": self.game,
            "options": self.options.to_dict(),
            "seed": self.seed,
            "pairs": s.pairs,
            "matches": s.matches,
            "hands": s.hands,
            "moves": s.moves,
            "a_wins": s.a_wins,
            "b_wins": s.b_wins,
            "draws": s.draws,
            "win_rate": _num(s.win_rate),
            "win_rate_ci95": _pair(s.win_rate_ci95),
            "win_rate_wilson95": _pair(s.win_rate_wilson95),
            "margin_per_hand": _num(s.margin_per_hand),
            "margin_ci95": _pair(s.margin_ci95),
            "seconds_per_move": {"a": _timing_json(s.a_timing), "b": _timing_json(s.b_timing)},
            "seconds": round(self.seconds, 3),
            "interrupted": self.interrupted,
        }


class ArenaInterrupted(KeyboardInterrupt):
    """Ctrl-C during an arena: the pool is stopped; ``partial`` holds the finished matches.

    A :class:`KeyboardInterrupt`, so code that does not care still stops as on any Ctrl-C.
    """

    def __init__(self, partial: ArenaResult) -> None:
        super().__init__("arena interrupted")
        self.partial = partial


def player_label(name: str, budget: Budget | None) -> str:
    """``name`` or ``name:budget``, the way a player spec is written."""
    return name if budget is None else f"{name}:{budget}"


def _budget_text(budget: Budget | None) -> str | None:
    return None if budget is None else str(budget)


def _num(x: float) -> float | None:
    return None if math.isnan(x) else round(x, 6)


def _pair(ci: tuple[float, float] | None) -> list[float] | None:
    return None if ci is None else [round(ci[0], 6), round(ci[1], 6)]


def _timing_json(t: Timing) -> dict[str, Any]:
    return {"median": _num(t.median), "p95": _num(t.p95), "max": _num(t.max),
            "mean": _num(t.mean), "moves": t.moves}


# -- playing ------------------------------------------------------------------------------------

def player_seed(match_seed: int, seat: int) -> int:
    """The seed of the player in ``seat`` of the match with ``match_seed``. It depends on
    the seat, not on the player: two copies of one player facing each other play both
    matches of a pair identically, seats swapped, so self-play scores exactly even."""
    return 2 * match_seed + seat


def deal_text(match: Match, hand_number: int = 1) -> str:
    """A hand's deal as text: seat 0's tiles / seat 1's tiles / the rest (in order)."""
    deal = match.deal_for(hand_number)
    return " / ".join(" ".join(str(t) for t in part)
                      for part in (deal.hands[0], deal.hands[1], deal.rest))


@dataclass(frozen=True, slots=True)
class _Task:
    game: str
    options: dict[str, Any]
    a: str
    a_budget: Budget | None
    b: str
    b_budget: Budget | None
    pair: int
    match_seed: int
    a_seat: int


def play_match(game: str, options: Options, match_seed: int, a: str, b: str, a_seat: int,
               a_budget: Budget | None = None, b_budget: Budget | None = None,
               pair: int = 0) -> MatchRecord:
    """Play one whole match, A in ``a_seat``, and record it. A player that sees every tile
    (``sees_all``, the omniscient one) is handed a copy of the hand state each move."""
    match = Match(game, options, seed=match_seed)
    names = (a, b) if a_seat == 0 else (b, a)
    budgets = (a_budget, b_budget) if a_seat == 0 else (b_budget, a_budget)
    players = [make_player(names[seat], player_seed(match_seed, seat)) for seat in (0, 1)]
    seconds: tuple[list[float], list[float]] = ([], [])
    clock = time.perf_counter
    for _ in range(_MAX_MOVES_PER_MATCH):
        seat = match.to_move
        if seat is None:
            break
        player = players[seat]
        view = match.view(seat)
        if getattr(player, "sees_all", False):
            hand = match.hand.copy()
            start = clock()
            move = player.choose_seeing(hand, view, budgets[seat])  # type: ignore[attr-defined]
        else:
            start = clock()
            move = player.choose(view, budgets[seat])
        seconds[seat].append(clock() - start)
        match.apply(move)
    else:
        raise RuntimeError(f"{game} seed {match_seed}: no end after "
                           f"{_MAX_MOVES_PER_MATCH} moves")
    result = match.result
    assert result is not None
    b_seat = 1 - a_seat
    score = 0.5 if result.winner is None else 1.0 if result.winner == a_seat else 0.0
    return MatchRecord(
        pair=pair,
        match_seed=match_seed,
        a_seat=a_seat,
        score=score,
        a_points=result.totals[a_seat],
        b_points=result.totals[b_seat],
        hand_margins=tuple(h.points[a_seat] - h.points[b_seat] for h in match.hands),
        a_seconds=tuple(seconds[a_seat]),
        b_seconds=tuple(seconds[b_seat]),
        first_deal=deal_text(match),
        first_opener=match.first_opener,
        end=result.end,
    )


def _run_task(task: _Task) -> MatchRecord:
    spec = get_game(task.game)
    options = spec.options_class.from_dict(task.options)
    return play_match(task.game, options, task.match_seed, task.a, task.b, task.a_seat,
                      task.a_budget, task.b_budget, task.pair)


def _ignore_sigint() -> None:
    """Pool workers leave Ctrl-C to the parent, which stops them all."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def resolve_player(spec: str, budget: Budget | str | None = None) -> tuple[str, Budget | None]:
    """A player spec (``expert:0.5s``, ``greedy``, ``medium``) -> (player, budget): the
    spec's own budget (or its level's), else ``budget``, else None (the player's default).
    Raises :class:`~dominolab.core.OptionError` for an unknown player or a bad budget."""
    name, own = parse_player_spec(spec)
    if own is not None:
        return name, own
    if isinstance(budget, str):
        budget = Budget.parse(budget) if budget.strip() else None
    return name, budget


def run_arena_matches(game: str, a_spec: str, b_spec: str, pairs: int, seed: int = 1,
                      options: Options | Sequence[str] | None = None,
                      budget: Budget | str | None = None, workers: int | None = None,
                      progress_callback: ProgressCallback | None = None) -> ArenaResult:
    """Play ``pairs`` duplicate pairs of ``game`` between ``a_spec`` and ``b_spec``.

    Pair ``i`` plays the match seed ``seed + i`` twice, A in seat 0 then in seat 1.
    ``options``: the rule options (an :class:`~dominolab.core.Options` or ``NAME=VALUE``
    texts; default: the game's defaults). ``budget``: the budget per move of a player
    whose spec gives none. ``workers``: processes (default: every core; 1 plays in this
    process). ``progress_callback(done, total)`` counts matches and is also called about
    twice a second while waiting. The records come back ordered by pair and A's seat, the
    same whatever the number of workers.

    Raises :class:`~dominolab.core.OptionError` for bad input, and
    :class:`ArenaInterrupted` (holding the finished matches) on Ctrl-C.
    """
    spec = get_game(game)
    opts = spec.options(options)
    a, a_budget = resolve_player(a_spec, budget)
    b, b_budget = resolve_player(b_spec, budget)
    if isinstance(pairs, bool) or not isinstance(pairs, int) or pairs < 1:
        raise OptionError(f"the number of matches (pairs) must be at least 1, not {pairs!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise OptionError(f"the seed must be a whole number, not {seed!r}")
    if workers is None:
        workers = os.cpu_count() or 1
    if workers < 1:
        raise OptionError(f"workers must be at least 1, not {workers}")
    tasks = [_Task(spec.name, opts.to_dict(), a, a_budget, b, b_budget, i, seed + i, a_seat)
             for i in range(pairs) for a_seat in (0, 1)]
    total = len(tasks)
    done: list[MatchRecord] = []
    start = time.perf_counter()

    def finish(interrupted: bool) -> ArenaResult:
        records = tuple(sorted(done, key=lambda r: (r.pair, r.a_seat)))
        return ArenaResult(spec.name, opts, seed, a, b, a_budget, b_budget, pairs, records,
                           summarise(complete_pairs(records)), time.perf_counter() - start,
                           interrupted)

    def report() -> None:
        if progress_callback is not None:
            progress_callback(len(done), total)

    report()
    workers = min(workers, total)
    try:
        if workers == 1:
            for task in tasks:
                done.append(_run_task(task))
                report()
        else:
            with multiprocessing.get_context().Pool(workers, _ignore_sigint) as pool:
                try:
                    results = pool.imap_unordered(_run_task, tasks, chunksize=1)
                    while len(done) < total:
                        with contextlib.suppress(multiprocessing.TimeoutError):
                            done.append(results.next(timeout=0.5))
                        report()
                except BaseException:
                    pool.terminate()
                    raise
    except KeyboardInterrupt:
        raise ArenaInterrupted(finish(True)) from None
    return finish(False)


__all__ = ["ArenaInterrupted", "ArenaResult", "ArenaSummary", "MatchRecord",
           "ProgressCallback", "Timing", "Z95", "complete_pairs", "deal_text", "mean",
           "mean_interval", "percentile", "play_match", "player_label", "player_seed",
           "ratio_interval", "resolve_player", "run_arena_matches", "sample_sd", "summarise",
           "wilson_interval"]
