"""Every statistic of the lab, in one place: means, intervals, percentiles, timings.

Pure functions of plain numbers; the arena, the report, the benchmarks and the
head-to-head all take their figures from here. Intervals are two-sided 95% by default.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol, TypeVar

#: the normal quantile of a two-sided 95% interval (1.95996..., rounded as usual)
Z95 = 1.96


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
    sums = RatioSums()
    for x, h in zip(numerators, denominators, strict=True):
        sums.add(x, h)
    estimate = sums.estimate(z)
    return (estimate.value, estimate.ci)


class Paired(Protocol):
    """A record of one duplicate pair's match or hand: ``pair`` names the pair, ``score`` is
    1 for a win, 0.5 for a draw, 0 for a loss."""

    @property
    def pair(self) -> int: ...

    @property
    def score(self) -> float: ...


P = TypeVar("P", bound=Paired)


def by_pair(records: Sequence[P]) -> list[list[P]]:
    """The records grouped by ``pair``, in pair order: the unit of every interval of a
    duplicate run (a pair missing a record, as after an interruption, is a unit of what it
    has)."""
    groups: dict[int, list[P]] = {}
    for record in records:
        groups.setdefault(record.pair, []).append(record)
    return [groups[p] for p in sorted(groups)]


def win_rate(records: Sequence[Paired], pairs: Sequence[Sequence[Paired]]
             ) -> tuple[float, tuple[float, float] | None, tuple[float, float] | None]:
    """The share of points won (a draw half), its 95% interval over pairs (clipped to
    0..1), and the Wilson interval over the records themselves."""
    scores = [r.score for r in records]
    pair_scores = [mean([r.score for r in group]) for group in pairs]
    return (mean(scores), mean_interval(pair_scores, clip=(0.0, 1.0)),
            wilson_interval(math.fsum(scores), len(scores)))


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


@dataclass(frozen=True, slots=True)
class Estimate:
    """A figure with its 95% interval and standard error (None: not enough data)."""

    value: float
    ci: tuple[float, float] | None
    se: float | None

    @staticmethod
    def of_share(successes: float, n: int) -> Estimate:
        p = successes / n if n else math.nan
        se = math.sqrt(p * (1 - p) / n) if n else None
        return Estimate(p, wilson_interval(successes, n), se)

    def minus(self, other: Estimate) -> Estimate:
        """``self - other`` for independent runs (normal approximation)."""
        d = self.value - other.value
        if self.se is None or other.se is None or math.isnan(d):
            return Estimate(d, None, None)
        se = math.sqrt(self.se ** 2 + other.se ** 2)
        return Estimate(d, (d - Z95 * se, d + Z95 * se), se)


# -- running sums: the same figures read a cluster at a time, in constant memory ------------------

@dataclass(slots=True)
class RatioSums:
    """A figure measured in independent clusters (a match, a pair of matches), fed one
    cluster at a time (:meth:`add`): cluster ``i`` contributes ``x_i`` (e.g. the points of
    its hands) over ``h_i`` (its number of hands); units within a cluster may be
    correlated, the clusters are not. Kept as the number of clusters and the sums of ``x``,
    ``h``, ``x²``, ``x h`` and ``h²``, so memory does not grow with the clusters. Its
    :meth:`estimate` is the ratio of the sums with the cluster-robust interval of the delta
    method, ``se = sqrt(Σ(x_i - R h_i)² / (n (n - 1))) / mean(h)``, whose sum of squared
    residuals is expanded over the sums and evaluated exactly. The sums are
    exact while the values are whole numbers, halves or quarters below 2**50 (every figure
    of the report); otherwise they round as any running float sum does."""

    n: int = 0
    sx: float = 0.0
    sh: float = 0.0
    sxx: float = 0.0
    sxh: float = 0.0
    shh: float = 0.0

    def add(self, x: float, h: float) -> None:
        """One cluster: numerator ``x`` over denominator ``h``."""
        self.n += 1
        self.sx += x
        self.sh += h
        self.sxx += x * x
        self.sxh += x * h
        self.shh += h * h

    @property
    def ratio(self) -> float:
        return self.sx / self.sh if self.sh else math.nan

    def residuals(self, r: float) -> Fraction:
        """``Σ(x_i - r h_i)²``, exactly (from the sums)."""
        fr = Fraction(r)
        return Fraction(self.sxx) - 2 * fr * Fraction(self.sxh) + fr * fr * Fraction(self.shh)

    def estimate(self, z: float = Z95) -> Estimate:
        """``R`` with its cluster-robust interval (below two clusters, none)."""
        n = self.n
        if n == 0 or self.sh == 0:
            return Estimate(math.nan, None, None)
        ratio = self.sx / self.sh
        if n < 2:
            return Estimate(ratio, None, None)
        se = math.sqrt(float(self.residuals(ratio)) / (n * (n - 1))) / (self.sh / n)
        ci = (ratio - z * se, ratio + z * se)
        return Estimate(ratio, ci, (ci[1] - ci[0]) / (2 * Z95))


@dataclass(slots=True)
class PairedSums:
    """Two figures over the same clusters (two runs that share their deals, match by match),
    fed a cluster of each at a time (:meth:`add`), kept as each one's :class:`RatioSums` and
    the cross sums (``Σ x_a x_b``, ``Σ x_a h_b``, ``Σ h_a x_b``, ``Σ h_a h_b``)."""

    a: RatioSums
    b: RatioSums
    xaxb: float = 0.0
    xahb: float = 0.0
    haxb: float = 0.0
    hahb: float = 0.0

    @staticmethod
    def new() -> PairedSums:
        return PairedSums(RatioSums(), RatioSums())

    def add(self, xa: float, ha: float, xb: float, hb: float) -> None:
        """One cluster: ``xa / ha`` in the first sample, ``xb / hb`` in the second."""
        self.a.add(xa, ha)
        self.b.add(xb, hb)
        self.xaxb += xa * xb
        self.xahb += xa * hb
        self.haxb += ha * xb
        self.hahb += ha * hb

    def difference(self, z: float = Z95) -> Estimate:
        """``R_b - R_a``, paired cluster by cluster: the per-cluster difference of the
        linearised contributions, ``d_i = (x_bi - R_b h_bi) / mean(h_b) - (x_ai - R_a h_ai) /
        mean(h_a)``, is one independent unit per cluster, and ``se = sqrt(Σ(d_i - mean(d))² /
        (n (n - 1)))`` (with every ``h`` 1, the textbook paired interval). The sum is expanded
        over the sums and evaluated exactly."""
        a, b = self.a, self.b
        n = a.n
        d = b.ratio - a.ratio
        if n < 2 or math.isnan(d):
            return Estimate(d, None, None)
        ra, rb = Fraction(a.ratio), Fraction(b.ratio)
        ma, mb = Fraction(a.sh / n), Fraction(b.sh / n)
        # d_i = (x_bi - R_b h_bi) / m_b - (x_ai - R_a h_ai) / m_a
        total = ((Fraction(b.sx) - rb * Fraction(b.sh)) / mb
                 - (Fraction(a.sx) - ra * Fraction(a.sh)) / ma)
        cross = (Fraction(self.xaxb) - ra * Fraction(self.haxb) - rb * Fraction(self.xahb)
                 + ra * rb * Fraction(self.hahb))
        squares = (b.residuals(b.ratio) / (mb * mb) + a.residuals(a.ratio) / (ma * ma)
                   - 2 * cross / (ma * mb))
        spread = squares - total * total / n
        se = math.sqrt(float(spread) / (n * (n - 1)))
        return Estimate(d, (d - z * se, d + z * se), se)


def _nth_of_counts(ordered: Sequence[tuple[float, int]], i: int) -> float:
    """The ``i``-th (0-based) of the values, each ``(value, count)`` in increasing order."""
    seen = 0
    for v, c in ordered:
        seen += c
        if i < seen:
            return v
    raise IndexError(i)


def _ordered(counts: Mapping[int, int]) -> list[tuple[float, int]]:
    return [(float(v), c) for v, c in sorted(counts.items()) if c]


def mean_of_counts(counts: Mapping[int, int]) -> float:
    """:func:`mean` of whole numbers given as ``value -> how often``."""
    n = sum(counts.values())
    return float(sum(v * c for v, c in counts.items())) / n if n else math.nan


def mean_interval_of_counts(counts: Mapping[int, int], z: float = Z95,
                            ) -> tuple[float, float] | None:
    """:func:`mean_interval` of whole numbers given as ``value -> how often`` (the same
    floats: the squared deviations are summed exactly, as :func:`math.fsum` does)."""
    n = sum(counts.values())
    if n < 2:
        return None
    m = mean_of_counts(counts)
    squares = float(sum(c * Fraction((v - m) ** 2) for v, c in counts.items()))
    half = z * math.sqrt(squares / (n - 1)) / math.sqrt(n)
    return (m - half, m + half)


def percentile_of_counts(counts: Mapping[int, int], q: float) -> float:
    """:func:`percentile` of whole numbers given as ``value -> how often``."""
    if not 0 <= q <= 100:
        raise ValueError(f"a percentile lies in 0..100, not {q}")
    ordered = _ordered(counts)
    n = sum(c for _, c in ordered)
    if not n:
        return math.nan
    pos = (n - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, n - 1)
    low = _nth_of_counts(ordered, lo)
    return low + (_nth_of_counts(ordered, hi) - low) * (pos - lo)


def median_of_counts(counts: Mapping[int, int]) -> float:
    """:func:`statistics.median` of whole numbers given as ``value -> how often``."""
    ordered = _ordered(counts)
    n = sum(c for _, c in ordered)
    if not n:
        raise ValueError("no median for no values")
    if n % 2:
        return _nth_of_counts(ordered, n // 2)
    return (_nth_of_counts(ordered, n // 2 - 1) + _nth_of_counts(ordered, n // 2)) / 2


def rounded(x: float) -> float | None:
    """A figure for JSON: None for ``nan``, else rounded to six decimals."""
    return None if math.isnan(x) else round(x, 6)


def rounded_interval(ci: tuple[float, float] | None) -> list[float] | None:
    """An interval for JSON: ``[lo, hi]`` rounded to six decimals, or None."""
    return None if ci is None else [round(ci[0], 6), round(ci[1], 6)]


__all__ = ["Estimate", "PairedSums", "Paired", "RatioSums", "Timing", "Z95", "by_pair", "mean",
           "mean_interval",
           "mean_interval_of_counts", "mean_of_counts", "median_of_counts", "percentile",
           "percentile_of_counts", "ratio_interval", "rounded", "rounded_interval",
           "sample_sd", "wilson_interval", "win_rate"]
