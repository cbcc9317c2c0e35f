"""Duplicate matches between two computer players, and the statistics of the outcome.

A *pair* is one set of deals played twice with the seats swapped: pair ``i`` uses the match
seed ``seed + i`` (a :class:`~dominolab.core.Match` deals hand ``h`` from its seed and hand
number, and draws the first opener by lot from the seed), player A sits in seat 0 in the
first match and in seat 1 in the second. Whatever luck the deals hold is dealt to both
players once, so it largely cancels within a pair, and the pair, not the match, is the unit
of independence for every interval here.

Every figure is from A's side: a match scores 1 (A won), 0.5 (a draw) or 0 (B won); a hand's
margin is A's points in the hand minus B's. The same seed gives the same matches: players
are seeded from the match seed and their seat (:func:`~dominolab.lab.play.player_seed`),
and with budgets in worlds only (``pimc:20w``) their choices repeat exactly; budgets in
seconds depend on the machine's speed. Matches are played by the lab's one loop
(:mod:`dominolab.lab.play`) on its one runner (:mod:`dominolab.lab.pool`).

This module prints nothing; ``dominolab arena`` is its command.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dominolab.core import Match, OptionError, Options, get_game
from dominolab.core.errors import shown
from dominolab.lab.play import play_match, player_label, resolve_player
from dominolab.lab.pool import ProgressCallback, check_workers, run_tasks
from dominolab.lab.stats import (
    Estimate,
    PairedSums,
    Timing,
    by_pair,
    ratio_interval,
    rounded,
    rounded_interval,
    win_rate,
)
from dominolab.players import Budget

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
    pairs = by_pair(records)
    scores = [r.score for r in records]
    rate, rate_ci, rate_wilson = win_rate(records, pairs)
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
        win_rate=rate,
        win_rate_ci95=rate_ci,
        win_rate_wilson95=rate_wilson,
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
            "win_rate": rounded(s.win_rate),
            "win_rate_ci95": rounded_interval(s.win_rate_ci95),
            "win_rate_wilson95": rounded_interval(s.win_rate_wilson95),
            "margin_per_hand": rounded(s.margin_per_hand),
            "margin_ci95": rounded_interval(s.margin_ci95),
            "seconds_per_move": {"a": _timing_json(s.a_timing), "b": _timing_json(s.b_timing)},
            "seconds": round(self.seconds, 3),
            "interrupted": self.interrupted,
            "by_pair": [[recs[0].pair, sum(r.score for r in recs),
                         sum(sum(r.hand_margins) for r in recs), sum(r.hands for r in recs)]
                        for recs in by_pair(complete_pairs(self.records))],
        }


class ArenaInterrupted(KeyboardInterrupt):
    """Ctrl-C during an arena: the pool is stopped; ``partial`` holds the finished matches.

    A :class:`KeyboardInterrupt`, so code that does not care still stops as on any Ctrl-C.
    """

    def __init__(self, partial: ArenaResult) -> None:
        super().__init__("arena interrupted")
        self.partial = partial


def _budget_text(budget: Budget | None) -> str | None:
    return None if budget is None else str(budget)


def _timing_json(t: Timing) -> dict[str, Any]:
    return {"median": rounded(t.median), "p95": rounded(t.p95), "max": rounded(t.max),
            "mean": rounded(t.mean), "moves": t.moves}


# -- comparing two runs on the same deals ---------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Comparison:
    """Two arenas' A players against the same B on the same deals, pair by pair
    (:func:`compare_arenas`): ``win_rate``, ``margin``: the second A's figure minus the
    first's (win rate: share of matches; margin: points per hand), each an
    :class:`~dominolab.lab.stats.Estimate` whose interval is paired over the ``pairs``
    both runs played (:class:`~dominolab.lab.stats.PairedSums`)."""

    first: str
    second: str
    b: str
    game: str
    pairs: int
    first_win_rate: float
    second_win_rate: float
    win_rate: Estimate
    first_margin: float
    second_margin: float
    margin: Estimate


def pairs_by_seed(record: Mapping[str, Any], which: str = "the record") -> dict[
        int, tuple[float, float, float]]:
    """An arena record's pairs (:meth:`ArenaResult.to_json`'s ``by_pair``) by match seed
    (its first seed plus the pair's index): (A's score over the pair's two matches, A's
    margin over them, their hands). Raises :class:`~dominolab.core.OptionError` naming
    ``which`` (e.g. "the first record") when it is no arena record with its pairs, its seed
    is no whole number, or a pair is malformed."""
    if not isinstance(record, Mapping) or not isinstance(record.get("by_pair"), list):
        raise OptionError(f"{which} is not an arena record with its pairs "
                          "(made by dominolab arena --json)")
    seed = record.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise OptionError(f"{which}'s seed is not a whole number: {shown(seed)}")
    found: dict[int, tuple[float, float, float]] = {}
    for row in record["by_pair"]:
        if (not isinstance(row, list) or len(row) != 4
                or not all(isinstance(v, int | float) and not isinstance(v, bool)
                           and math.isfinite(v) for v in row)
                or not isinstance(row[0], int) or row[0] < 0
                or not 0 <= row[1] <= 2 or not isinstance(row[3], int) or row[3] < 1):
            raise OptionError(f"{which} has a malformed pair: {shown(row)} (a pair is [its "
                              "index, A's score 0 to 2, A's margin, its hands])")
        found[seed + int(row[0])] = (float(row[1]), float(row[2]), float(row[3]))
    return found


def compare_arenas(first: Mapping[str, Any], second: Mapping[str, Any],
                   names: tuple[str, str] = ("the first record", "the second record")
                   ) -> Comparison:
    """Compare two arena records (:meth:`ArenaResult.to_json`) whose A players met the
    same B in the same game and rules: the pairs both played (a pair is its match seed, the
    record's first seed plus its index, so runs from different first seeds pair on the
    deals they share) are paired one by one, so the deals' luck, shared by the two runs,
    cancels out of the difference as it does within a pair. Raises
    :class:`~dominolab.core.OptionError`, naming the field, when the records are not of
    that kind or share no two pairs; ``names`` name the two records in it (their files)."""
    a = pairs_by_seed(first, names[0])
    b = pairs_by_seed(second, names[1])
    for key in ("game", "options", "b"):
        if first.get(key) != second.get(key):
            raise OptionError(f"{names[0]} and {names[1]} differ in {key}: "
                              f"{shown(first.get(key))} and "
                              f"{shown(second.get(key))}; compare runs against the same "
                              "player on the same deals")
    common = sorted(a.keys() & b.keys())
    if len(common) < 2:
        raise OptionError(f"the two records share {len(common)} pair(s); at least 2 are "
                          "needed (match seeds both played: pair i of a run plays its "
                          "--seed + i)")
    wins, margins = PairedSums.new(), PairedSums.new()
    for pair in common:
        (sa, ma, ha), (sb, mb, hb) = a[pair], b[pair]
        wins.add(sa / 2, 1.0, sb / 2, 1.0)
        margins.add(ma, ha, mb, hb)
    return Comparison(str(first.get("a")), str(second.get("a")), str(first.get("b")),
                      str(first.get("game")), len(common), wins.a.ratio, wins.b.ratio,
                      wins.difference(), margins.a.ratio, margins.b.ratio,
                      margins.difference())


# -- playing ------------------------------------------------------------------------------------

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


def play_arena_match(game: str, options: Options, match_seed: int, a: str, b: str,
                     a_seat: int, a_budget: Budget | None = None,
                     b_budget: Budget | None = None, pair: int = 0) -> MatchRecord:
    """Play one whole match, A in ``a_seat`` (:func:`~dominolab.lab.play.play_match`), and
    record it from A's side."""
    names = (a, b) if a_seat == 0 else (b, a)
    budgets = (a_budget, b_budget) if a_seat == 0 else (b_budget, a_budget)
    played = play_match(game, options, match_seed, names, budgets)
    match = played.match
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
        a_seconds=played.seconds[a_seat],
        b_seconds=played.seconds[b_seat],
        first_deal=deal_text(match),
        first_opener=match.first_opener,
        end=result.end,
    )


def _run_task(task: _Task) -> MatchRecord:
    spec = get_game(task.game)
    options = spec.options_class.from_dict(task.options)
    return play_arena_match(task.game, options, task.match_seed, task.a, task.b, task.a_seat,
                            task.a_budget, task.b_budget, task.pair)


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
        raise OptionError(f"the seed must be a whole number, not {shown(seed)}")
    processes = check_workers(workers)
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

    try:
        report()
        run_tasks(_run_task, tasks, done.append, workers=processes, tick=report)
    except KeyboardInterrupt:
        raise ArenaInterrupted(finish(True)) from None
    return finish(False)


__all__ = ["ArenaInterrupted", "ArenaResult", "ArenaSummary", "Comparison", "MatchRecord",
           "compare_arenas", "complete_pairs", "deal_text", "pairs_by_seed", "play_arena_match",
           "run_arena_matches", "summarise"]
