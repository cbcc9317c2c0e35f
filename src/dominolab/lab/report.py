"""Reports on simulation result files (:mod:`dominolab.lab.simfile`).

:func:`summarise_files` computes the figures of one or more files in one pass over each,
reading them a match at a time (:func:`~dominolab.lab.simfile.iter_sim`; JSON Lines, gzip
or Parquet) and in step, so that its memory stays flat however many matches a file holds:
a :class:`FileSummary` keeps running sums (:class:`~dominolab.lab.stats.RatioSums`) and
counts of whole numbers, never the matches. :func:`summarise_file` is one file's (a path,
or a :class:`~dominolab.lab.simfile.SimFile` already read). :func:`report_tables` lays out
every table of a report of one or more files; :func:`summary_text` renders them as text
and :func:`render_html` as a self-contained HTML page with the same tables and plots
(matplotlib, imported only there).

How the figures are measured (intervals are 95%, from :mod:`dominolab.lab.stats`):

- **The match is the unit of independence.** Hands of one match share its players' state
  and its scores, so every per-hand figure is a ratio estimator over matches (the figure's
  sum over a match's hands, over its number of hands) with a cluster-robust interval
  (:class:`~dominolab.lab.stats.RatioSums`). Shares of matches (the first opener wins,
  a draw counting half; drawn matches) use the Wilson interval over matches.
- **Completed hands only.** With Widelec's ``win_at_once`` the hand in which a total reaches
  the target is cut short; counting it would make every per-hand figure move with the
  target. Per-hand figures therefore count completed hands only, and the share of cut
  hands is a figure of its own. (Luzak hands are always played out.)
- **Differences** (file k minus file 1) are *paired by deal* when both files share their
  deals — the same header seed and the same number of tiles a hand, so match ``i`` of each
  is dealt the same hands and has the same first opener: each match's contribution to the
  difference is taken within the match, which takes the luck of the deal out of the
  interval (the two files are read in step, and each figure keeps its paired sums,
  :class:`~dominolab.lab.stats.PairedSums`).
  Otherwise the runs are independent and the interval comes from the two standard errors.
  Differences of shares are in percentage points (pp).

This module prints nothing; ``dominolab report`` is its command.
"""

from __future__ import annotations

import base64
import functools
import html
import io
import math
import os
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from dominolab.core import Deal, GameSpec, get_game, parse_tile
from dominolab.lab.simfile import (
    HandLine,
    HeaderFacts,
    MatchLine,
    SimFile,
    SimStream,
    iter_sim,
)
from dominolab.lab.stats import (
    Estimate,
    PairedSums,
    RatioSums,
    mean_interval_of_counts,
    mean_of_counts,
    median_of_counts,
    percentile_of_counts,
)


class MatplotlibMissing(ImportError):
    """The HTML report needs matplotlib, which is not installed."""


# -- figures ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class FigureRow:
    """One row of the figures table: a key, a label, whether it is a share (shown in %,
    its differences in percentage points)."""

    key: str
    label: str
    percent: bool = False


#: the rows shown for every game, then for Luzak games, then for Widelec
COMMON_ROWS = (
    FigureRow("opener_points", "opener's points per hand"),
    FigureRow("responder_points", "responder's points per hand"),
    FigureRow("opener_advantage", "opener advantage per hand (points)"),
    FigureRow("hand_points", "points per hand (each seat)"),
    FigureRow("seat_margin", "seat 0 - seat 1 points per hand"),
    FigureRow("first_opener_wins", "first opener wins the match (draw = half)", percent=True),
    FigureRow("seat0_wins", "seat 0 wins the match (draw = half)", percent=True),
    FigureRow("draws", "drawn matches", percent=True),
    FigureRow("match_total", "match total (each seat)"),
    FigureRow("match_hands", "match length (hands)"),
)
LUZAK_ROWS = (
    FigureRow("luzaks_per_hand", "luzaks per hand"),
    FigureRow("luzak_cost", "luzak cost: points handed over per luzak"),
)
WIDELEC_ROWS = (
    FigureRow("cut_share", "hands cut short at the target (of all hands)", percent=True),
    FigureRow("quartets_per_hand", "quartets per hand"),
    FigureRow("quartet_points_per_hand", "quartet points per hand"),
    FigureRow("bonus_share", "hands with an end bonus", percent=True),
    FigureRow("bonus_size", "bonus size (when there is one)"),
    FigureRow("domino_share", "completed hands ending in a domino", percent=True),
    FigureRow("block_share", "completed hands ending in a block", percent=True),
    FigureRow("draws_per_hand", "draws per hand"),
    FigureRow("passes_per_hand", "passes per hand"),
)
#: figures that are shares of matches (Wilson interval); other shares are shares of hands
_MATCH_SHARES = frozenset({"first_opener_wins", "seat0_wins", "draws"})


@dataclass(frozen=True, slots=True)
class TargetLength:
    """Match length had the match been played to ``target``: replayed from the hands' scores
    (see :func:`hands_to_target`) over ``matches`` matches."""

    target: int
    matches: int
    mean: float
    ci: tuple[float, float] | None
    median: float
    p10: float
    p90: float


@dataclass(frozen=True, slots=True)
class TileFigure:
    """One tile's figure: ``value`` over ``base`` (hands, or times laid), with its interval
    clustered by match."""

    tile: str
    count: float
    base: float
    estimate: Estimate


@dataclass(frozen=True, slots=True)
class SimInfo(HeaderFacts):
    """What a summary keeps of its file: the path, the header, how many whole matches it
    held (``read``) and whether the run stopped early; never the matches."""

    path: str
    header: dict[str, Any]
    read: int
    interrupted: bool


#: a file as the labels and headers take it: a summary's :class:`SimInfo`, a whole
#: :class:`~dominolab.lab.simfile.SimFile` or an open :class:`~dominolab.lab.simfile.SimStream`
Sim = SimInfo | SimFile | SimStream


@dataclass(frozen=True, slots=True)
class Pairing:
    """A file's figures paired match by match with those of the file it is compared with
    (``first``, the same :class:`SimInfo`): the sums of each figure over the ``matches``
    matches both hold (see :class:`~dominolab.lab.stats.PairedSums`)."""

    first: SimInfo
    matches: int
    sums: dict[str, PairedSums]


@dataclass(frozen=True, slots=True)
class FileSummary:
    """The figures of one file, gathered in one pass over its matches: it holds running
    sums and counts, never the matches. ``estimates`` (for display) and ``samples`` (each
    figure's per-match sums, for differences) are keyed by :class:`FigureRow` keys; the
    distributions, over completed hands, count how often each whole number occurs (for
    the plots). ``paired``: this file's figures paired with the first file's, when
    :func:`summarise_files` read the two in step (they share their deals)."""

    sim: SimInfo
    matches: int
    hands: int
    estimates: dict[str, Estimate]
    samples: dict[str, RatioSums]
    hand_points: Counter[int]
    match_totals: Counter[int]
    match_hands: Counter[int]
    match_ends: dict[str, int]
    hand_ends: dict[str, int]
    completed_hands: int = 0
    #: Luzak: N -> (points per hand scored at tile N, share of hands scoring at N)
    points_by_n: dict[int, tuple[float, float]] = field(default_factory=dict)
    luzaks_per_hand: Counter[int] = field(default_factory=Counter)
    luzak_costs: Counter[int] = field(default_factory=Counter)
    quartets_per_hand: Counter[int] = field(default_factory=Counter)
    bonuses: Counter[int] = field(default_factory=Counter)
    draws_per_hand: Counter[int] = field(default_factory=Counter)
    target_lengths: tuple[TargetLength, ...] = ()
    #: tiles laid as luzaks per hand (files with the ``luzaked`` field), most first
    luzaked: tuple[TileFigure, ...] = ()
    #: points scored per laying of each tile (files with ``scored`` and ``left``)
    tile_worth: tuple[TileFigure, ...] = ()
    paired: Pairing | None = None


def layer_of(hand: HandLine, n: int) -> int:
    """The seat that laid tile number ``n`` of a Luzak hand: the seats alternate (a Luzak
    hand has no draws or passes), the opener laying the odd-numbered tiles."""
    return hand.opener if n % 2 == 1 else 1 - hand.opener


def handed_over(hand: HandLine, game: str) -> int:
    """Points a Luzak hand's luzaks handed to the opponent: Luzak, the luzaks' pips (the
    pip bonus); Luzak without spinners, the counts scored by the seat that did not lay the
    tile (only a luzak's count goes to the opponent there)."""
    if get_game(game).luzak_pips:
        return sum(hand.luzak_pips)
    return sum(p for n, seat, p in hand.scored_n if seat != layer_of(hand, n))


def completed(match: MatchLine) -> tuple[HandLine, ...]:
    """The match's hands that were played to their end (not cut short at the target)."""
    return tuple(h for h in match.hands if h.end != "target")


#: how a completed hand ends -> the figure giving its share of completed hands
HAND_ENDS: Final = {"domino": "domino_share", "block": "block_share"}


def hand_end_shares(summary: FileSummary) -> dict[str, float]:
    """How a Widelec file's completed hands ended, in percent (the "hand-ends" plot): the
    figures table's own shares, so that plot and table count the same hands."""
    shares = {}
    for end, key in HAND_ENDS.items():
        e = summary.estimates.get(key)
        shares[end] = 0.0 if e is None else e.value * 100
    return shares


def _match_score(m: MatchLine, seat: int) -> float:
    return 0.5 if m.winner is None else 1.0 if m.winner == seat else 0.0


def _clipped(e: Estimate, lo: float = 0.0, hi: float = 1.0) -> Estimate:
    if e.ci is None:
        return e
    return Estimate(e.value, (max(lo, e.ci[0]), min(hi, e.ci[1])), e.se)


def hands_to_target(points: Sequence[tuple[int, int]], target: int, even_hands: bool = False,
                    ) -> int | None:
    """The number of hands a match would have lasted with this ``target``, from its hands'
    points in order: the first hand after which a total has reached the target (with
    ``even_hands``, the first even-numbered such hand). None when the hands given end before
    that. Also right for Widelec's ``win_at_once``: scores only grow within a hand, so the
    target is first reached during the first hand whose end total reaches it (a cut hand's
    points are those made up to the cut, which reached the run's own target)."""
    totals = [0, 0]
    reached = False
    for k, (a, b) in enumerate(points, start=1):
        totals[0] += a
        totals[1] += b
        reached = reached or max(totals) >= target
        if reached and not (even_hands and k % 2 == 1):
            return k
    return None


def replay_targets(sim: Sim) -> tuple[int, ...]:
    """The targets a file's hands can answer for: its own target and every 10 below it
    (down to 10). A higher target needs a run with that target: the run's matches stopped
    once its own target was reached."""
    target = int(sim.header.get("options", {}).get("target", 0))
    if target <= 0:
        return ()
    return tuple(sorted(t for t in range(target, 0, -10) if t >= 10 or t == target))


@functools.lru_cache(maxsize=256)
def _digits(text: str) -> str:
    """A tile as written in a file (``"65"``, either half first) in its two-digit form."""
    return parse_tile(text).digits


def _dealt(spec: GameSpec, m: MatchLine, h: HandLine) -> list[str]:
    """Every tile that came into play in a hand: both hands of its deal (hand ``h`` of the
    match's seed), and for a game with a boneyard the tiles drawn (the boneyard's first)."""
    deal = Deal.for_hand(m.seed, h.hand, spec.hand_size)
    tiles = [*deal.hands[0], *deal.hands[1]]
    if spec.has_boneyard:
        tiles += deal.rest[:sum(h.draws)]
    return [t.digits for t in tiles]


def match_figures(m: MatchLine, game: str) -> dict[str, tuple[float, float]]:
    """One match's contribution to each figure of its game: ``key -> (x, h)``, the figure
    summed over the match's hands (or the match's value) and its number of hands (or 1).
    The figure is ``sum(x) / sum(h)`` over the matches (a per-hand figure over completed
    hands; a share of matches)."""
    hands = m.hands
    done = [h for h in hands if h.end != "target"]
    k = float(len(done))
    opener = responder = margin = both = seats = 0
    for h in done:
        a, b = h.points
        mine, theirs = (a, b) if h.opener == 0 else (b, a)
        opener += mine
        responder += theirs
        margin += mine - theirs
        both += a + b
        seats += a - b
    fig: dict[str, tuple[float, float]] = {
        "opener_points": (float(opener), k),
        "responder_points": (float(responder), k),
        "opener_advantage": (float(margin), k),
        "hand_points": (float(both) / 2, k),
        "seat_margin": (float(seats), k),
        "first_opener_wins": (_match_score(m, m.first_opener), 1.0),
        "seat0_wins": (_match_score(m, 0), 1.0),
        "draws": (float(m.winner is None), 1.0),
        "match_total": ((m.totals[0] + m.totals[1]) / 2, 1.0),
        "match_hands": (float(len(hands)), 1.0),
    }
    if get_game(game).luzaks:
        luzaks = [sum(h.luzaks) for h in done]
        fig["luzaks_per_hand"] = (float(sum(luzaks)), k)
        fig["luzak_cost"] = (float(sum(handed_over(h, game) for h in done)),
                             float(sum(luzaks)))
    else:
        bonus = [h.bonus for h in done]
        with_bonus = float(sum(b > 0 for b in bonus))
        fig["cut_share"] = (float(len(hands) - len(done)), float(len(hands)))
        fig["quartets_per_hand"] = (float(sum(sum(h.quartets) for h in done)), k)
        fig["quartet_points_per_hand"] = (float(sum(sum(h.quartet_points) for h in done)), k)
        fig["bonus_share"] = (with_bonus, k)
        fig["bonus_size"] = (float(sum(bonus)), with_bonus)
        fig["domino_share"] = (float(sum(h.end == "domino" for h in done)), k)
        fig["block_share"] = (float(sum(h.end == "block" for h in done)), k)
        fig["draws_per_hand"] = (float(sum(sum(h.draws) for h in done)), k)
        fig["passes_per_hand"] = (float(sum(sum(h.passes) for h in done)), k)
    return fig


def _tile_figures(sums: dict[str, RatioSums], matches: int,
                  denominators: RatioSums | None = None) -> tuple[TileFigure, ...]:
    """Each tile's figure from its sums over the matches that had it; the others add
    ``(0, h)``: only their number (``matches``) and, with ``denominators`` (the sums of
    ``(0, h)`` over every match), their denominators count."""
    out = []
    for tile, s in sums.items():
        whole = RatioSums(matches, s.sx, s.sh, s.sxx, s.sxh, s.shh) if denominators is None \
            else RatioSums(matches, s.sx, denominators.sh, s.sxx, s.sxh, denominators.shh)
        out.append(TileFigure(tile, whole.sx, whole.sh,
                              _clipped(whole.estimate(), 0.0, math.inf)))
    return tuple(sorted(out, key=lambda f: (-f.estimate.value, f.tile)))


class _Summariser:
    """Every figure of one file, fed a match at a time (:meth:`add`), as running sums and
    counts: its memory grows with the number of distinct values (scores, lengths, tiles),
    not with the number of matches."""

    def __init__(self, path: str, header: dict[str, Any]) -> None:
        self.path, self.header = path, header
        self.game = str(header["game"])
        self.spec = get_game(self.game)
        self.samples: dict[str, RatioSums] = {}
        self.matches = self.hands = self.done = 0
        self.hand_points: Counter[int] = Counter()
        self.match_totals: Counter[int] = Counter()
        self.match_hands: Counter[int] = Counter()
        self.match_ends: Counter[str] = Counter()
        self.hand_ends: Counter[str] = Counter()
        self.by_n: dict[int, float] = {}
        self.hands_at_n: Counter[int] = Counter()
        self.luzaks_per_hand: Counter[int] = Counter()
        self.luzak_costs: Counter[int] = Counter()
        self.quartets_per_hand: Counter[int] = Counter()
        self.bonuses: Counter[int] = Counter()
        self.draws_per_hand: Counter[int] = Counter()
        opts = header.get("options", {})
        self.even = bool(opts.get("even_hands", False)) and not opts.get("win_at_once", False)
        self.lengths: dict[int, Counter[int]] = {t: Counter() for t in replay_targets(
            SimInfo(path, header, 0, False))}
        # the tile sections: kept while every hand so far records the fields they need
        self.luzaked_ok = self.spec.luzaks
        self.worth_ok = True
        self.all_hands = RatioSums()
        self.luzaked: dict[str, RatioSums] = {}
        self.worth: dict[str, RatioSums] = {}

    def add(self, m: MatchLine) -> dict[str, tuple[float, float]]:
        """Take one match; returns its contributions (:func:`match_figures`)."""
        fig = match_figures(m, self.game)
        for key, (x, per) in fig.items():
            sums = self.samples.get(key)
            if sums is None:
                sums = self.samples[key] = RatioSums()
            sums.add(x, per)
        hands = m.hands
        self.matches += 1
        self.hands += len(hands)
        self.match_totals.update(m.totals)
        self.match_hands[len(hands)] += 1
        self.match_ends[m.end] += 1
        luzaks = self.spec.luzaks
        for h in hands:
            self.hand_ends[h.end] += 1
            if h.end == "target":
                continue
            self.done += 1
            self.hand_points.update(h.points)
            if luzaks:
                for n in {n for n, _, _ in h.scored_n}:
                    self.hands_at_n[n] += 1
                for n, _, p in h.scored_n:
                    self.by_n[n] = self.by_n.get(n, 0.0) + p
                count = sum(h.luzaks)
                self.luzaks_per_hand[count] += 1
                if count:
                    self.luzak_costs[handed_over(h, self.game)] += 1
            else:
                self.quartets_per_hand[sum(h.quartets)] += 1
                if h.bonus > 0:
                    self.bonuses[h.bonus] += 1
                self.draws_per_hand[sum(h.draws)] += 1
        if self.lengths:
            points = [h.points for h in hands]
            for t, counts in self.lengths.items():
                k = hands_to_target(points, t, self.even)
                if k is not None:
                    counts[k] += 1
        self._tiles(m)
        return fig

    def _tiles(self, m: MatchLine) -> None:
        hands = m.hands
        self.all_hands.add(0.0, float(len(hands)))
        if self.luzaked_ok and any(h.luzaked is None for h in hands):
            self.luzaked_ok = False
            self.luzaked.clear()
        if self.luzaked_ok:
            counts = Counter(_digits(t) for h in hands for t in h.luzaked or ())
            for tile, c in counts.items():
                sums = self.luzaked.get(tile)
                if sums is None:
                    sums = self.luzaked[tile] = RatioSums()
                sums.add(float(c), float(len(hands)))
        if self.worth_ok and any(h.scored is None or h.left is None for h in hands):
            self.worth_ok = False
            self.worth.clear()
        if self.worth_ok:
            points: Counter[str] = Counter()
            laid: Counter[str] = Counter()
            for h in hands:
                if h.end == "target":
                    continue
                left = {_digits(t) for seat in h.left or () for t in seat}
                laid.update(t for t in _dealt(self.spec, m, h) if t not in left)
                for t, p in h.scored or ():
                    points[_digits(t)] += p
            for tile, c in laid.items():
                sums = self.worth.get(tile)
                if sums is None:
                    sums = self.worth[tile] = RatioSums()
                sums.add(float(points[tile]), float(c))

    def _target_lengths(self) -> tuple[TargetLength, ...]:
        out = []
        for t, counts in self.lengths.items():
            n = sum(counts.values())
            if not n:
                continue
            out.append(TargetLength(t, n, mean_of_counts(counts),
                                    mean_interval_of_counts(counts), median_of_counts(counts),
                                    percentile_of_counts(counts, 10),
                                    percentile_of_counts(counts, 90)))
        return tuple(out)

    def summary(self, paired: Pairing | None = None) -> FileSummary:
        """The figures of the matches taken so far."""
        est: dict[str, Estimate] = {}
        percent = {r.key for r in (*COMMON_ROWS, *LUZAK_ROWS, *WIDELEC_ROWS) if r.percent}
        for key, sums in self.samples.items():
            if key in _MATCH_SHARES:
                est[key] = Estimate.of_share(sums.sx, sums.n)
            elif key in percent:
                est[key] = _clipped(sums.estimate())
            else:
                est[key] = sums.estimate()
        extra: dict[str, Any] = {}
        if self.spec.luzaks:
            n_done = self.done
            extra["points_by_n"] = {n: (self.by_n[n] / n_done, self.hands_at_n[n] / n_done)
                                    for n in sorted(self.by_n)}
            extra.update(luzaks_per_hand=self.luzaks_per_hand, luzak_costs=self.luzak_costs)
            if self.luzaked_ok and self.matches:
                extra["luzaked"] = _tile_figures(self.luzaked, self.matches, self.all_hands)
        else:
            extra.update(quartets_per_hand=self.quartets_per_hand, bonuses=self.bonuses,
                         draws_per_hand=self.draws_per_hand)
        if self.worth_ok and self.matches:
            extra["tile_worth"] = _tile_figures(self.worth, self.matches)
        requested = int(self.header["matches"])
        return FileSummary(
            sim=SimInfo(self.path, self.header, self.matches, self.matches < requested),
            matches=self.matches, hands=self.hands, completed_hands=self.done,
            estimates=est, samples=self.samples, hand_points=self.hand_points,
            match_totals=self.match_totals, match_hands=self.match_hands,
            match_ends=dict(self.match_ends), hand_ends=dict(self.hand_ends),
            target_lengths=self._target_lengths(), paired=paired, **extra)


def _pair(sums: dict[str, PairedSums], a: dict[str, tuple[float, float]],
          b: dict[str, tuple[float, float]]) -> None:
    """Add match ``i`` of two files (their :func:`match_figures`) to the paired sums of the
    figures both have."""
    for key, (xb, hb) in b.items():
        if key in a:
            xa, ha = a[key]
            pair = sums.get(key)
            if pair is None:
                pair = sums[key] = PairedSums.new()
            pair.add(xa, ha, xb, hb)


Source = SimFile | str | os.PathLike[str]


def _open(source: Source, stack: ExitStack) -> tuple[str, dict[str, Any], Iterator[MatchLine]]:
    if isinstance(source, SimFile):
        return source.path, source.header, iter(source.matches)
    stream = stack.enter_context(iter_sim(source))
    return stream.path, stream.header, stream


def summarise_files(sources: Sequence[Source]) -> list[FileSummary]:
    """Every figure of each file (a path, read a match at a time with
    :func:`~dominolab.lab.simfile.iter_sim`, or a :class:`SimFile` already read), in one
    pass over each: the files are read in step, match ``i`` of each together, so that each
    file that shares its deals with the first (:func:`shares_deals`) is paired with it
    match by match (its summary's ``paired``) as they are read. Memory holds one match of
    each file and the running sums. Raises what :func:`~dominolab.lab.simfile.iter_sim`
    raises."""
    with ExitStack() as stack:
        opened = [_open(src, stack) for src in sources]
        builders = [_Summariser(path, header) for path, header, _ in opened]
        heads = [SimInfo(path, header, 0, False) for path, header, _ in opened]
        paired = [k for k in range(1, len(opened)) if shares_deals(heads[0], heads[k])]
        pair_sums: dict[int, dict[str, PairedSums]] = {k: {} for k in paired}
        pair_matches = dict.fromkeys(paired, 0)
        live: list[Iterator[MatchLine] | None] = [it for _, _, it in opened]
        while any(it is not None for it in live):
            figs: list[dict[str, tuple[float, float]] | None] = []
            for i, it in enumerate(live):
                m = None if it is None else next(it, None)
                if m is None:
                    live[i] = None
                    figs.append(None)
                else:
                    figs.append(builders[i].add(m))
            first = figs[0]
            if first is None:
                continue
            for k in paired:
                other = figs[k]
                if other is not None:
                    _pair(pair_sums[k], first, other)
                    pair_matches[k] += 1
    out = [builders[0].summary()] if builders else []
    for k in range(1, len(builders)):
        pairing = (Pairing(out[0].sim, pair_matches[k], pair_sums[k]) if k in pair_sums
                   else None)
        out.append(builders[k].summary(pairing))
    return out


def summarise_file(source: Source) -> FileSummary:
    """Every figure of one file (a path, read a match at a time, or a :class:`SimFile`)."""
    return summarise_files([source])[0]


def rows_for(summaries: Sequence[FileSummary]) -> tuple[FigureRow, ...]:
    """The table rows that apply to at least one of the files."""
    rows: tuple[FigureRow, ...] = COMMON_ROWS
    if any(s.sim.is_luzak for s in summaries):
        rows += LUZAK_ROWS
    if any(not s.sim.is_luzak for s in summaries):
        rows += WIDELEC_ROWS
    return rows


# -- comparing files ----------------------------------------------------------------------------

def shares_deals(a: Sim, b: Sim) -> bool:
    """Whether match ``i`` of both files is dealt the same hands: the same header seed and
    the same number of tiles a hand (hand ``h`` of seed ``s`` is then the same deal, and the
    first opener, drawn by lot from the seed, is the same)."""
    return a.header.get("seed") == b.header.get("seed") and a.spec.hand_size == b.spec.hand_size


def comparison_text(first: FileSummary, other: FileSummary) -> str:
    """How ``other`` is compared with ``first``, and why."""
    a, b = first.sim, other.sim
    if shares_deals(a, b):
        # both files hold matches 0, 1, ... in order: the first min(n_a, n_b) are common
        common = min(first.matches, other.matches)
        return (f"paired by deal: both use seed {a.header.get('seed')} and deal "
                f"{a.spec.hand_size} tiles a hand, so match i of each is dealt the same hands "
                f"with the same first opener; each difference is taken match by match over "
                f"the {common} matches both hold, which takes the luck of the deal out of "
                f"its interval")
    why = (f"different seeds ({a.header.get('seed')} and {b.header.get('seed')})"
           if a.header.get("seed") != b.header.get("seed")
           else f"different deals ({a.spec.hand_size} and {b.spec.hand_size} tiles a hand)")
    return (f"unpaired: {why}, so the deals are independent; the interval comes from the "
            f"two standard errors")


def _paired_sums(first: FileSummary, other: FileSummary) -> dict[str, PairedSums]:
    """The paired sums of ``other`` with ``first``: those :func:`summarise_files` gathered
    when it read the two in step, else read now, the two files in step from their paths."""
    if other.paired is not None and other.paired.first is first.sim:
        return other.paired.sums
    sums: dict[str, PairedSums] = {}
    with iter_sim(first.sim.path) as sa, iter_sim(other.sim.path) as sb:
        for ma, mb in zip(sa, sb, strict=False):
            _pair(sums, match_figures(ma, sa.game), match_figures(mb, sb.game))
    return sums


def differences(summaries: Sequence[FileSummary]) -> list[dict[str, Estimate]]:
    """For files 2.., each figure minus file 1's (where both files have it): paired by deal
    when the files share their deals (:func:`shares_deals`), unpaired otherwise."""
    first = summaries[0]
    out = []
    for s in summaries[1:]:
        if shares_deals(first.sim, s.sim):
            pairs = _paired_sums(first, s)
            out.append({k: pairs[k].difference() if k in pairs else Estimate(math.nan, None,
                                                                              None)
                        for k in s.samples if k in first.samples})
        else:
            out.append({k: smp.estimate().minus(first.samples[k].estimate())
                        for k, smp in s.samples.items() if k in first.samples})
    return out


def _option_text(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    return plain_number(v) if isinstance(v, float) else str(v)


def _players_text(sim: Sim) -> str:
    players = sim.header.get("players", ["?", "?"])
    budgets = sim.header.get("budgets", [None, None])
    return ",".join(p if b is None else f"{p}:{b}"
                    for p, b in zip(players, budgets, strict=True))


def variant_labels(sims: Sequence[Sim]) -> list[str]:
    """A short name for each file from what sets it apart from the others: the game, the
    options that differ (``edge-double=no``), the players, the seed; the file name when
    nothing does. One file: its game and the options that differ from the defaults."""
    if len(sims) == 1:
        sim = sims[0]
        defaults = get_game(sim.game).options(None).to_dict()
        opts = [f"{k.replace('_', '-')}={_option_text(v)}"
                for k, v in sim.header.get("options", {}).items() if defaults.get(k) != v]
        return [" ".join([sim.game, *opts])]
    parts: list[list[str]] = [[] for _ in sims]
    if len({s.game for s in sims}) > 1:
        for p, s in zip(parts, sims, strict=True):
            p.append(s.game)
    keys: list[str] = []
    for s in sims:
        keys += [k for k in s.header.get("options", {}) if k not in keys]
    for k in keys:
        values = [s.header.get("options", {}).get(k) for s in sims]
        present = [v for v in values if v is not None]
        if len(present) == len(values) and len({repr(v) for v in present}) > 1:
            for p, v in zip(parts, values, strict=True):
                p.append(f"{k.replace('_', '-')}={_option_text(v)}")
    if len({_players_text(s) for s in sims}) > 1:
        for p, s in zip(parts, sims, strict=True):
            p.append(_players_text(s))
    if len({s.header.get("seed") for s in sims}) > 1:
        for p, s in zip(parts, sims, strict=True):
            p.append(f"seed {s.header.get('seed')}")
    labels = [" ".join(p) if p else Path(s.path).stem for p, s in zip(parts, sims, strict=True)]
    if len(set(labels)) < len(labels):
        labels = [f"{label} [{i}]" for i, label in enumerate(labels, start=1)]
    return labels


def sweep_option(sims: Sequence[Sim]) -> str | None:
    """The one option whose value sets two or more files of one game apart (and nothing
    else: the same players), or None."""
    if len(sims) < 2 or len({s.game for s in sims}) > 1 \
            or len({_players_text(s) for s in sims}) > 1:
        return None
    opts = [s.header.get("options", {}) for s in sims]
    differ = [k for k in opts[0] if len({repr(o.get(k)) for o in opts}) > 1]
    if len(differ) != 1 or len({repr(o.get(differ[0])) for o in opts}) != len(sims):
        return None
    return str(differ[0])


# -- tables -------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Table:
    """One table of the report, rendered alike in text and HTML."""

    id: str
    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""


def plain_number(x: float) -> str:
    """A count or a quantile as the tables print it: a whole number in full (``1584840``,
    never ``1.58484e+06``), otherwise with at most two decimals (``6.5``)."""
    if not math.isfinite(x):
        return "-"
    if x == int(x):
        return str(int(x))
    return f"{x:.2f}".rstrip("0").rstrip(".")


def fmt_estimate(e: Estimate | None, percent: bool = False, signed: bool = False) -> str:
    """``12.34 [11.90, 12.78]``; shares in % (``50.45% [48.26, 52.64]``), their differences
    in percentage points (``+3.95 pp [+2.71, +5.19]``)."""
    if e is None or math.isnan(e.value):
        return "-"
    scale = 100.0 if percent else 1.0
    sign = "+" if signed else ""
    unit = (" pp" if signed else "%") if percent else ""
    text = f"{e.value * scale:{sign}.2f}{unit}"
    if e.ci is not None:
        text += f" [{e.ci[0] * scale:{sign}.2f}, {e.ci[1] * scale:{sign}.2f}]"
    return text


def _figures_table(summaries: Sequence[FileSummary], labels: Sequence[str]) -> Table:
    diffs = differences(summaries)
    heads = [f"[{i}] {label}" for i, label in enumerate(labels, start=1)]
    heads += [f"[{i}]-[1]" for i in range(2, len(summaries) + 1)]
    rows = []
    for row in rows_for(summaries):
        cells = [fmt_estimate(s.estimates.get(row.key), row.percent) for s in summaries]
        cells += [fmt_estimate(d.get(row.key), row.percent, signed=True) for d in diffs]
        rows.append((row.label, *cells))
    counts = ", ".join(f"[{i}] {s.completed_hands} of {s.hands}"
                       for i, s in enumerate(summaries, start=1))
    note = ("Per-hand figures count completed hands only (" + counts + "); a Widelec hand "
            "cut short when a total reaches the target counts only in 'hands cut short'. "
            "Per-hand intervals are clustered by match (hands of one match are not "
            "independent); shares of matches are Wilson intervals over matches, a draw "
            "counting half in 'wins'. Differences of shares are in percentage points (pp).")
    return Table("figures", "Figures (95% intervals)", ("figure", *heads), tuple(rows), note)


def _comparisons_table(summaries: Sequence[FileSummary]) -> Table:
    rows = tuple((f"[{i}]-[1]", comparison_text(summaries[0], s))
                 for i, s in enumerate(summaries[1:], start=2))
    return Table("comparisons", "How the files are compared", ("difference", "how"), rows)


def _points_by_n_table(summaries: Sequence[FileSummary], labels: Sequence[str]) -> Table:
    luzak = [(i, s) for i, s in enumerate(summaries, start=1) if s.sim.is_luzak]
    ns = sorted({n for _, s in luzak for n in s.points_by_n})
    rows = []
    for n in ns:
        cells = []
        for _, s in luzak:
            pts, share = s.points_by_n.get(n, (0.0, 0.0))
            cells.append(f"{pts:.2f} ({share * 100:.1f}%)")
        rows.append((f"N={n}", *cells))
    return Table("points-by-n", "Points per hand by tile number N (Luzak games)",
                 ("tile N", *(f"[{i}] {labels[i - 1]}" for i, _ in luzak)), tuple(rows),
                 "Table-count points scored when laying tile N, per completed hand, and (in "
                 "brackets) the share of hands scoring at N.")


def _target_table(summaries: Sequence[FileSummary], labels: Sequence[str]) -> Table:
    rows = []
    for i, s in enumerate(summaries, start=1):
        for t in s.target_lengths:
            ci = "" if t.ci is None else f" [{t.ci[0]:.2f}, {t.ci[1]:.2f}]"
            rows.append((f"[{i}] {labels[i - 1]}", str(t.target), f"{t.mean:.2f}{ci}",
                         plain_number(t.median),
                         f"{plain_number(t.p10)}-{plain_number(t.p90)}", str(t.matches)))
    return Table("target-length", "Which target gives matches of N hands",
                 ("file", "target", "mean hands (95%)", "median", "10th-90th pct", "matches"),
                 tuple(rows),
                 "Replayed from each match's hand scores without re-running: the hand after "
                 "which a total first reaches the target (even-hands: the next even hand; "
                 "win-at-once: the hand in which it is reached). Only targets up to the run's "
                 "own can be answered, and the players played for the run's target, so the "
                 "lower targets are what the same play would have given.")


def _tile_table(summaries: Sequence[FileSummary], labels: Sequence[str], what: str,
                top: int | None) -> Table:
    rows = []
    for i, s in enumerate(summaries, start=1):
        figs = s.luzaked if what == "luzaked" else s.tile_worth
        scale = 100.0 if what == "luzaked" else 1.0
        for f in figs[:top]:
            e = f.estimate
            shown = Estimate(e.value * scale, None if e.ci is None else
                             (e.ci[0] * scale, e.ci[1] * scale), None)
            rows.append((f"[{i}] {labels[i - 1]}", f.tile, fmt_estimate(shown),
                         f"{plain_number(f.count)} / {plain_number(f.base)}"))
    if what == "luzaked":
        return Table("tiles-luzaked", "Which tiles are luzaked most",
                     ("file", "tile", "luzaks per 100 hands (95%)", "luzaks / hands"),
                     tuple(rows),
                     f"The {top} tiles laid most often as a luzak, per 100 hands (interval "
                     "clustered by match).")
    return Table("tile-worth", "What each tile is worth",
                 ("file", "tile", "points per laying (95%)", "points / times laid"),
                 tuple(rows),
                 "Points its laying scored, per time the tile was laid (completed hands).")


def report_tables(summaries: Sequence[FileSummary]) -> list[Table]:
    """Every table of the report of these files, in order."""
    labels = variant_labels([s.sim for s in summaries])
    tables = [_figures_table(summaries, labels)]
    if len(summaries) > 1:
        tables.append(_comparisons_table(summaries))
    if any(s.sim.is_luzak for s in summaries):
        tables.append(_points_by_n_table(summaries, labels))
    if any(s.target_lengths for s in summaries):
        tables.append(_target_table(summaries, labels))
    if any(s.luzaked for s in summaries):
        tables.append(_tile_table(summaries, labels, "luzaked", 8))
    if any(s.tile_worth for s in summaries):
        tables.append(_tile_table(summaries, labels, "worth", None))
    return tables


# -- data -----------------------------------------------------------------------------------------

def estimate_json(e: Estimate | None) -> dict[str, float | None] | None:
    """An estimate as JSON: ``{"value", "low", "high", "se"}`` (the 95% interval's ends and
    the standard error None when there is too little data), or None for no figure."""
    if e is None or math.isnan(e.value):
        return None
    low, high = (None, None) if e.ci is None else e.ci
    return {"value": e.value, "low": low, "high": high, "se": e.se}


def _counts_json(counts: Mapping[int, int]) -> dict[str, int]:
    return {str(k): int(v) for k, v in sorted(counts.items())}


def _tiles_json(figs: Sequence[TileFigure]) -> list[dict[str, Any]]:
    return [{"tile": f.tile, "count": f.count, "base": f.base,
             "estimate": estimate_json(f.estimate)} for f in figs]


#: the distributions of a summary (whole number -> how often), by their JSON names
DISTRIBUTIONS: Final = ("hand_points", "match_totals", "match_hands", "luzaks_per_hand",
                        "luzak_costs", "quartets_per_hand", "bonuses", "draws_per_hand")


def report_json(summaries: Sequence[FileSummary]) -> dict[str, Any]:
    """The figures of a report of these files as JSON values (the web app's lab): the same
    summaries and the same differences the text and HTML reports are made of. Shares are
    fractions (0.541, not 54.1%; a figure's ``percent`` says it is one), their differences
    too.

    ``files``: each file's label (:func:`variant_labels`), header, matches, hands, how the
    matches and the completed hands ended; ``figures``: each :class:`FigureRow` with each
    file's estimate and, for files 2.., its difference from file 1 (:func:`differences`:
    paired by deal when they share it); ``comparisons``: how each is compared;
    ``points_by_n`` (Luzak: points per hand scored at tile N and the share of hands scoring
    there), ``target_lengths``, ``tiles_luzaked`` and ``tile_worth`` per file; and the
    ``distributions`` the plots draw (:data:`DISTRIBUTIONS`, whole number -> count)."""
    labels = variant_labels([s.sim for s in summaries])
    diffs = differences(summaries) if summaries else []
    files = []
    for s, label in zip(summaries, labels, strict=True):
        files.append({"label": label, "header": s.sim.header, "read": s.sim.read,
                      "interrupted": s.sim.interrupted, "matches": s.matches,
                      "hands": s.hands, "completed_hands": s.completed_hands,
                      "match_ends": dict(s.match_ends), "hand_ends": dict(s.hand_ends),
                      "hand_end_shares": hand_end_shares(s) if not s.sim.is_luzak else None})
    figures = []
    for row in rows_for(summaries):
        figures.append({"key": row.key, "label": row.label, "percent": row.percent,
                        "values": [estimate_json(s.estimates.get(row.key)) for s in summaries],
                        "differences": [estimate_json(d.get(row.key)) for d in diffs]})
    comparisons = [{"file": k, "paired": shares_deals(summaries[0].sim, s.sim),
                    "how": comparison_text(summaries[0], s)}
                   for k, s in enumerate(summaries[1:], start=1)]
    ns = sorted({n for s in summaries for n in s.points_by_n})
    points_by_n = [{"n": n, "values": [
        None if n not in s.points_by_n else
        {"points": s.points_by_n[n][0], "share": s.points_by_n[n][1]} for s in summaries]}
        for n in ns]
    targets = [[{"target": t.target, "matches": t.matches, "mean": t.mean,
                 "low": None if t.ci is None else t.ci[0],
                 "high": None if t.ci is None else t.ci[1],
                 "median": t.median, "p10": t.p10, "p90": t.p90} for t in s.target_lengths]
               for s in summaries]
    return {"files": files, "figures": figures, "comparisons": comparisons,
            "sweep": sweep_option([s.sim for s in summaries]),
            "points_by_n": points_by_n, "target_lengths": targets,
            "tiles_luzaked": [_tiles_json(s.luzaked) for s in summaries],
            "tile_worth": [_tiles_json(s.tile_worth) for s in summaries],
            "distributions": {name: [_counts_json(getattr(s, name)) for s in summaries]
                              for name in DISTRIBUTIONS}}


# -- text ---------------------------------------------------------------------------------------

def header_lines(sim: Sim) -> list[str]:
    """A file's header, as lines of text."""
    h = sim.header
    options = ", ".join(f"{k}={_option_text(v)}" for k, v in h.get("options", {}).items())
    read = len(sim.matches) if isinstance(sim, SimFile) else sim.read
    done = f"{read} of {sim.requested} matches"
    if sim.interrupted:
        done += " (interrupted run)"
    budgets = ", ".join("default" if b is None else str(b) for b in h.get("budgets", []))
    return [f"game: {h['game']} (rules version {h.get('rules_version')}, "
            f"dominolab {h.get('dominolab', '?')})",
            f"options: {options or '(defaults)'}",
            f"players: seat 0 {h['players'][0]}, seat 1 {h['players'][1]} "
            f"(budgets: {budgets})",
            f"seed: {h['seed']} (matches use seeds {h['seed']}..)",
            f"played: {done}"]


def _wrap(text: str, width: int = 92, indent: str = "") -> list[str]:
    lines: list[str] = []
    line = indent
    for word in text.split():
        if len(line) + len(word) + 1 > width and line.strip():
            lines.append(line.rstrip())
            line = indent
        line += word + " "
    if line.strip():
        lines.append(line.rstrip())
    return lines


def table_text(table: Table) -> list[str]:
    """A table as aligned text lines (numbers right-aligned), its title first."""
    grid = [list(table.header), *[list(r) for r in table.rows]]
    widths = [max(len(r[c]) for r in grid) for c in range(len(grid[0]))]
    out = [table.title + ":"]
    for r in grid:
        out.append("  " + "  ".join(cell.ljust(w) if c == 0 else cell.rjust(w)
                                    for c, (cell, w) in enumerate(zip(r, widths, strict=True)))
                   .rstrip())
    if table.note:
        out.extend(_wrap(table.note, indent="  "))
    return out


def summary_text(summaries: Sequence[FileSummary]) -> str:
    """The terminal summary of one or more files (file k compared with file 1)."""
    labels = variant_labels([s.sim for s in summaries])
    out: list[str] = []
    for i, (s, label) in enumerate(zip(summaries, labels, strict=True), start=1):
        out.append(f"[{i}] {label}: {s.sim.path}")
        out.extend("    " + line for line in header_lines(s.sim))
        ends = ", ".join(f"{k} {v}" for k, v in sorted(s.match_ends.items()))
        out.append(f"    {s.matches} matches ({ends}), {s.hands} hands "
                   f"({s.completed_hands} completed)")
    for table in report_tables(summaries):
        out.append("")
        if table.id == "comparisons":
            out.append(table.title + ":")
            for diff, how in table.rows:
                out.extend(_wrap(f"{diff}: {how}", indent="  "))
            continue
        out.extend(table_text(table))
    return "\n".join(out)


# -- plots and HTML -----------------------------------------------------------------------------

#: the headline figures plotted against a swept option's value
SWEEP_FIGURES = ("opener_advantage", "first_opener_wins", "hand_points", "match_hands",
                 "luzaks_per_hand", "quartets_per_hand", "domino_share", "cut_share")


def expected_plots(summaries: Sequence[FileSummary]) -> list[str]:
    """The plots a report of these files holds, in order (their ids)."""
    plots = ["advantage", "scores", "match-length"]
    if any(s.sim.is_luzak for s in summaries):
        plots += ["points-by-n", "luzaks"]
    if any(not s.sim.is_luzak for s in summaries):
        plots += ["quartets", "bonus", "hand-ends", "draws"]
    if any(len(s.target_lengths) > 1 for s in summaries):
        plots.append("target-length")
    if any(s.luzaked for s in summaries):
        plots.append("tiles-luzaked")
    if any(s.tile_worth for s in summaries):
        plots.append("tile-worth")
    if sweep_option([s.sim for s in summaries]) is not None:
        plots.append("sweep")
    return plots


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise MatplotlibMissing(
            "the HTML report needs matplotlib: pip install 'dominolab[lab]' "
            "(or pip install matplotlib)") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png(plt: Any, fig: Any) -> str:
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


#: one colour per file, the same in every plot (colour-blind safe: Okabe and Ito)
_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442",
            "#000000")


def _colour(i: int) -> str:
    return _COLOURS[i % len(_COLOURS)]


def _xticks(ax: Any, names: Sequence[str]) -> None:
    long = sum(len(n) for n in names) > 48
    ax.set_xticks(range(len(names)), names, rotation=20 if long else 0,
                  ha="right" if long else "center", fontsize=8)
    ax.set_xlim(-0.6, len(names) - 0.4)


def _errorbars(ax: Any, names: Sequence[str], ests: Sequence[Estimate | None], title: str,
               ylabel: str, scale: float = 1.0, ref: float | None = None,
               colours: Sequence[int] | None = None) -> None:
    for i, e in enumerate(ests):
        if e is None or math.isnan(e.value):
            continue
        c = _colour(colours[i] if colours is not None else i)
        if e.ci is not None:
            ax.errorbar([i], [e.value * scale], yerr=[[(e.value - e.ci[0]) * scale],
                                                      [(e.ci[1] - e.value) * scale]],
                        fmt="o", capsize=6, color=c)
        else:
            ax.plot([i], [e.value * scale], "o", color=c)
    if ref is not None:
        ax.axhline(ref, color="grey", linewidth=0.8, linestyle="--")
    _xticks(ax, names)
    ax.set_title(title, fontsize=10)
    ax.set_ylabel(ylabel)


def _int_bins(lo: int, hi: int, most: int = 60) -> list[float]:
    """Bins for whole numbers ``lo..hi``: edges at half-integers, each bin the same number of
    whole numbers (1, 2, 5, 10, ...), so no bin holds more values than its neighbour."""
    width = 1
    steps = (1, 2, 5)
    k = 0
    while (hi - lo + 1) / width > most:
        k += 1
        width = steps[k % 3] * 10 ** (k // 3)
    start = lo - (lo % width) if width > 1 else lo
    edges = [start - 0.5 + width * j for j in range((hi - start) // width + 2)]
    return edges


def _step_hist(ax: Any, names: Sequence[str], data: Sequence[Mapping[int, int]], title: str,
               xlabel: str, ylabel: str, colours: Sequence[int] | None = None) -> None:
    """Distributions of whole numbers (each ``value -> how often``) as outlines (step
    histograms) on integer bins, as percentages, so that several files can be read over
    each other."""
    present = [(j, n, d) for j, (n, d) in enumerate(zip(names, data, strict=True))
               if sum(d.values())]
    if not present:
        ax.set_title(title + " (no data)", fontsize=10)
        return
    lo = min(min(d) for _, _, d in present)
    hi = max(max(d) for _, _, d in present)
    bins = _int_bins(lo, hi)
    width = bins[1] - bins[0]
    for j, n, d in present:
        c = _colour(colours[j] if colours is not None else j)
        values = sorted(d)
        total = sum(d.values())
        ax.hist(values, bins=bins, histtype="step", linewidth=1.6, color=c, label=n,
                weights=[100 * d[v] / total for v in values])
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel if width == 1 else f"{xlabel} (bins of {width:g})")
    ax.set_ylabel(ylabel)
    if len(names) > 1:
        ax.legend(fontsize=8)


def _grouped_bars(ax: Any, names: Sequence[str], cats: Sequence[Any],
                  values: Sequence[Sequence[float]], title: str, xlabel: str, ylabel: str,
                  colours: Sequence[int] | None = None) -> None:
    """Bars side by side, one colour per file."""
    k = max(len(values), 1)
    width = 0.8 / k
    for j, (n, vals) in enumerate(zip(names, values, strict=True)):
        c = _colour(colours[j] if colours is not None else j)
        ax.bar([i + (j - (k - 1) / 2) * width for i in range(len(cats))], vals, width,
               label=n, color=c)
    ax.set_xticks(range(len(cats)), [str(c) for c in cats])
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if k > 1:
        ax.legend(fontsize=8)


def _shares(data: Sequence[Mapping[int, int]]) -> tuple[list[int], list[list[float]]]:
    """The whole-number values seen (each file's ``value -> how often``), and each file's
    percentage at each."""
    cats = sorted({x for d in data for x, c in d.items() if c})
    out = []
    for d in data:
        total = sum(d.values())
        out.append([100 * d.get(x, 0) / total if total else 0.0 for x in cats])
    return cats, out


def _discrete(ax: Any, names: Sequence[str], data: Sequence[Mapping[int, int]], title: str,
              xlabel: str, ylabel: str, colours: Sequence[int] | None = None) -> None:
    """A distribution over a few whole numbers: bars side by side when there are few values,
    outlines when there are many."""
    cats, shares = _shares(data)
    if len(cats) * len(names) <= 48:
        _grouped_bars(ax, names, cats, shares, title, xlabel, ylabel, colours)
    else:
        _step_hist(ax, names, data, title, xlabel, ylabel, colours)


def _option_value(sim: Sim, key: str) -> Any:
    return sim.header.get("options", {}).get(key)


def render_plots(summaries: Sequence[FileSummary]) -> dict[str, tuple[str, str]]:
    """Every plot as ``id -> (caption, PNG data URI)``. Raises :class:`MatplotlibMissing`."""
    plt = _pyplot()
    names = variant_labels([s.sim for s in summaries])
    out: dict[str, tuple[str, str]] = {}
    wide = (12.0, 3.8)

    fig, axes = plt.subplots(1, 3, figsize=wide)
    for k, (key, marker) in enumerate((("opener_points", "o"), ("responder_points", "s"))):
        for i, s in enumerate(summaries):
            e = s.estimates[key]
            if e.ci is None or math.isnan(e.value):
                continue
            axes[0].errorbar([i + (k - 0.5) * 0.3], [e.value],
                             yerr=[[e.value - e.ci[0]], [e.ci[1] - e.value]], fmt=marker,
                             capsize=4, color=_colour(i), mfc="white" if k else _colour(i),
                             label=("opener" if k == 0 else "responder") if i == 0 else None)
    _xticks(axes[0], names)
    axes[0].set_title("points per hand: opener (filled), responder (open)", fontsize=10)
    axes[0].set_ylabel("points per hand")
    _errorbars(axes[1], names, [s.estimates["opener_advantage"] for s in summaries],
               "opener advantage per hand", "points per hand", ref=0.0)
    _errorbars(axes[2], names, [s.estimates["first_opener_wins"] for s in summaries],
               "first opener wins the match", "matches won (%, draw = half)", scale=100.0,
               ref=50.0)
    out["advantage"] = ("Opening: each seat's points per completed hand as opener and as "
                        "responder, the opener's advantage (their difference), and the "
                        "share of matches the first opener won; 95% intervals (hands "
                        "clustered by match; Wilson over matches).", _png(plt, fig))

    fig, axes = plt.subplots(1, 2, figsize=wide)
    _step_hist(axes[0], names, [s.hand_points for s in summaries],
               "points per completed hand (each seat)", "points in a hand", "hands (%)")
    _step_hist(axes[1], names, [s.match_totals for s in summaries],
               "match total (each seat)", "points in a match", "seats (%)")
    out["scores"] = ("Score distributions, drawn as outlines: each seat's points in a "
                     "completed hand, and each seat's match total.", _png(plt, fig))

    fig, ax = plt.subplots(figsize=(8, 3.8))
    _discrete(ax, names, [s.match_hands for s in summaries], "match length",
              "hands in the match", "matches (%)")
    out["match-length"] = ("Match length in hands.", _png(plt, fig))

    luzak = [(i, s) for i, s in enumerate(summaries) if s.sim.is_luzak]
    if luzak:
        ln = [names[i] for i, _ in luzak]
        lc = [i for i, _ in luzak]
        ns = sorted({n for _, s in luzak for n in s.points_by_n})
        fig, ax = plt.subplots(figsize=wide)
        _grouped_bars(ax, ln, ns,
                      [[s.points_by_n.get(n, (0.0, 0.0))[0] for n in ns] for _, s in luzak],
                      "points scored at each tile number N", "tile number N (the N-th tile "
                      "laid in the hand)", "points per hand", lc)
        out["points-by-n"] = ("Points by tile number N (Luzak games): the table-count points "
                              "scored when laying tile N, per completed hand (the luzak pip "
                              "bonus excluded).", _png(plt, fig))
        fig, axes = plt.subplots(1, 2, figsize=wide)
        _discrete(axes[0], ln, [s.luzaks_per_hand for _, s in luzak], "luzaks per hand",
                  "luzaks in a hand (both seats)", "hands (%)", lc)
        _errorbars(axes[1], ln, [s.estimates["luzak_cost"] for _, s in luzak],
                   "points handed over per luzak", "points per luzak", colours=lc)
        out["luzaks"] = ("Luzak frequency (luzaks per hand) and its cost: points handed to "
                         "the opponent per luzak (Luzak: its pips; without spinners: the "
                         "counts it gave away), 95% interval clustered by match.",
                         _png(plt, fig))

    wid = [(i, s) for i, s in enumerate(summaries) if not s.sim.is_luzak]
    if wid:
        wn = [names[i] for i, _ in wid]
        wc = [i for i, _ in wid]
        fig, ax = plt.subplots(figsize=(8, 3.8))
        _discrete(ax, wn, [s.quartets_per_hand for _, s in wid], "quartets per hand",
                  "quartets scored in a completed hand (both seats)", "hands (%)", wc)
        out["quartets"] = ("Quartets scored in play per completed hand (Widelec).",
                           _png(plt, fig))
        fig, ax = plt.subplots(figsize=(8, 3.8))
        _step_hist(ax, wn, [s.bonuses for _, s in wid], "end-of-hand bonus (hands with one)",
                   "bonus points", "hands with a bonus (%)", wc)
        out["bonus"] = ("Bonus sizes: the end-of-hand bonus of the completed hands that had "
                        "one (Widelec), as outlines.", _png(plt, fig))
        fig, ax = plt.subplots(figsize=(8, 3.8))
        _grouped_bars(ax, wn, list(HAND_ENDS), [list(hand_end_shares(s).values())
                                                for _, s in wid],
                      "how completed hands end", "end of the hand", "completed hands (%)", wc)
        out["hand-ends"] = ("How the completed hands ended (those not cut short at the "
                            "target): a domino (went out) or a block, the same shares as the "
                            "figures table's; the hands cut short are its 'hands cut short "
                            "at the target', a share of all hands.", _png(plt, fig))
        fig, ax = plt.subplots(figsize=(8, 3.8))
        _discrete(ax, wn, [s.draws_per_hand for _, s in wid], "draws per hand",
                  "tiles drawn in a completed hand (both seats)", "hands (%)", wc)
        out["draws"] = ("Draws from the boneyard per completed hand (Widelec).",
                        _png(plt, fig))

    if any(len(s.target_lengths) > 1 for s in summaries):
        fig, ax = plt.subplots(figsize=(8, 3.8))
        for i, s in enumerate(summaries):
            if len(s.target_lengths) < 2:
                continue
            ts = [t.target for t in s.target_lengths]
            ax.plot(ts, [t.mean for t in s.target_lengths], "o-", color=_colour(i),
                    label=names[i])
            ax.fill_between(ts, [t.ci[0] if t.ci else t.mean for t in s.target_lengths],
                            [t.ci[1] if t.ci else t.mean for t in s.target_lengths],
                            color=_colour(i), alpha=0.2)
            ax.plot(ts, [t.median for t in s.target_lengths], "--", color=_colour(i))
        ax.set_title("match length by target, replayed: mean (line, 95% band), median "
                     "(dashed)", fontsize=10)
        ax.set_xlabel("target (points)")
        ax.set_ylabel("hands in the match")
        ax.legend(fontsize=8)
        out["target-length"] = ("Which target gives matches of N hands: the mean (with its "
                                "95% interval) and median match length each target would "
                                "have given, replayed from the run's hand scores.",
                                _png(plt, fig))

    if any(s.luzaked for s in summaries):
        tiles = sorted({f.tile for s in summaries for f in s.luzaked[:8]})
        fig, ax = plt.subplots(figsize=wide)
        lz = [(i, {f.tile: 100 * f.estimate.value for f in s.luzaked}) for i, s in
              enumerate(summaries) if s.luzaked]
        _grouped_bars(ax, [names[i] for i, _ in lz], tiles,
                      [[d.get(t, 0.0) for t in tiles] for _, d in lz],
                      "tiles laid as luzaks", "tile", "luzaks per 100 hands",
                      [i for i, _ in lz])
        ax.set_ylim(bottom=0)
        out["tiles-luzaked"] = ("Which tiles are luzaked most: each file's most luzaked "
                                "tiles, as luzaks per 100 hands.", _png(plt, fig))
    if any(s.tile_worth for s in summaries):
        tw = [(i, {f.tile: f.estimate.value for f in s.tile_worth}) for i, s in
              enumerate(summaries) if s.tile_worth]
        tiles = sorted({t for _, d in tw for t in d}, key=lambda t: (-int(t[0]), -int(t[1])))
        fig, ax = plt.subplots(figsize=(14, 3.8))
        _grouped_bars(ax, [names[i] for i, _ in tw], tiles,
                      [[d.get(t, 0.0) for t in tiles] for _, d in tw],
                      "what each tile is worth", "tile", "points per laying",
                      [i for i, _ in tw])
        out["tile-worth"] = ("What each tile is worth: the points its laying scored, per "
                             "time it was laid.", _png(plt, fig))

    swept = sweep_option([s.sim for s in summaries])
    if swept is not None:
        rows = {r.key: r for r in rows_for(summaries)}
        figs = [k for k in SWEEP_FIGURES if all(k in s.estimates for s in summaries)]
        values = [_option_value(s.sim, swept) for s in summaries]
        numeric = all(isinstance(v, int) and not isinstance(v, bool) for v in values)
        order = sorted(range(len(values)), key=lambda i: values[i]) if numeric \
            else list(range(len(values)))
        cols = 4
        nrows = (len(figs) + cols - 1) // cols
        fig, axes = plt.subplots(nrows, cols, figsize=(12, 3.2 * nrows), squeeze=False)
        dashed = swept.replace("_", "-")
        for ax, fk in zip(axes.flat, figs, strict=False):
            scale = 100.0 if rows[fk].percent else 1.0
            xs = [values[i] if numeric else order.index(i) for i in order]
            ys = [summaries[i].estimates[fk].value * scale for i in order]
            lo = [y - (summaries[i].estimates[fk].ci or (0.0, 0.0))[0] * scale
                  if summaries[i].estimates[fk].ci else 0.0 for y, i in zip(ys, order,
                                                                            strict=True)]
            hi = [(summaries[i].estimates[fk].ci or (0.0, 0.0))[1] * scale - y
                  if summaries[i].estimates[fk].ci else 0.0 for y, i in zip(ys, order,
                                                                           strict=True)]
            ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o-", capsize=4, color=_colour(0))
            if not numeric:
                ax.set_xticks(range(len(order)), [_option_text(values[i]) for i in order])
            ax.set_title(rows[fk].label, fontsize=9)
            ax.set_xlabel(dashed)
            ax.set_ylabel("%" if rows[fk].percent else "")
        for ax in list(axes.flat)[len(figs):]:
            ax.axis("off")
        out["sweep"] = (f"Each headline figure against {dashed}, with its 95% interval.",
                        _png(plt, fig))
    assert list(out) == expected_plots(summaries)
    return out


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px}
td.num{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}
figure{margin:1.5em 0}figcaption{font-size:90%;color:#444;max-width:900px}
img{max-width:100%}.note{font-size:90%;color:#555;max-width:900px}"""


def table_html(table: Table) -> str:
    """A table as HTML, with its title and note."""
    e = html.escape
    parts = [f'<h2 id="table-{e(table.id)}">{e(table.title)}</h2>',
             f'<table class="{e(table.id)}"><tr>']
    parts.extend(f"<th>{e(h)}</th>" for h in table.header)
    parts.append("</tr>")
    for row in table.rows:
        parts.append("<tr>" + "".join(
            f"<td>{e(c)}</td>" if j == 0 or table.id == "comparisons"
            else f'<td class="num">{e(c)}</td>' for j, c in enumerate(row)) + "</tr>")
    parts.append("</table>")
    if table.note:
        parts.append(f'<p class="note">{e(table.note)}</p>')
    return "\n".join(parts)


def render_html(summaries: Sequence[FileSummary]) -> str:
    """A self-contained HTML report (plots embedded as data URIs) holding every table of
    the text report. Raises :class:`MatplotlibMissing` when matplotlib is not installed."""
    plots = render_plots(summaries)
    labels = variant_labels([s.sim for s in summaries])
    e = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>dominolab report</title>", f"<style>{_CSS}</style></head><body>",
             "<h1>dominolab simulation report</h1>", "<h2>Files</h2>"]
    for i, (s, label) in enumerate(zip(summaries, labels, strict=True), start=1):
        parts.append(f"<h3>[{i}] {e(label)}: {e(s.sim.path)}</h3><ul>")
        parts.extend(f"<li>{e(line)}</li>" for line in header_lines(s.sim))
        parts.append(f"<li>{s.matches} matches, {s.hands} hands ({s.completed_hands} "
                     "completed)</li></ul>")
    parts.extend(table_html(t) for t in report_tables(summaries))
    parts.append("<h2>Plots</h2>")
    for pid, (caption, uri) in plots.items():
        parts.append(f'<figure id="{pid}"><img src="{uri}" alt="{e(pid)}">'
                     f"<figcaption>{e(caption)}</figcaption></figure>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


__all__ = ["COMMON_ROWS", "DISTRIBUTIONS", "HAND_ENDS", "SWEEP_FIGURES", "FigureRow",
           "FileSummary", "LUZAK_ROWS", "MatplotlibMissing", "Pairing", "Sim", "SimInfo",
           "Table", "TargetLength", "TileFigure", "WIDELEC_ROWS", "comparison_text",
           "completed", "differences", "estimate_json", "expected_plots", "fmt_estimate",
           "hand_end_shares", "handed_over", "hands_to_target", "header_lines", "layer_of",
           "match_figures", "plain_number", "render_html", "render_plots", "replay_targets",
           "report_json", "report_tables", "rows_for", "shares_deals", "summarise_file",
           "summarise_files", "summary_text", "sweep_option", "table_html", "table_text",
           "variant_labels"]
