"""Every statistic of the lab, in one place: means, intervals, percentiles, timings.

Pure functions of plain numbers; the arena, the report, the benchmarks and the
head-to-head all take their figures from here. Intervals are two-sided 95% by default.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True, slots=True)
class Estimate:
    """A figure with its 95% interval and standard error (None: not enough data)."""

    value: float
    ci: tuple[float, float] | None
    se: float | None

    @staticmethod
    def of_mean(values: Sequence[float]) -> Estimate:
        n = len(values)
        se = sample_sd(values) / math.sqrt(n) if n >= 2 else None
        return Estimate(mean(values), mean_interval(values), se)

    @staticmethod
    def of_share(successes: float, n: int) -> Estimate:
        p = successes / n if n else math.nan
        se = math.sqrt(p * (1 - p) / n) if n else None
        return Estimate(p, wilson_interval(successes, n), se)

    @staticmethod
    def of_ratio(numerators: Sequence[float], denominators: Sequence[float]) -> Estimate:
        value, ci = ratio_interval(numerators, denominators)
        se = None if ci is None else (ci[1] - ci[0]) / (2 * Z95)
        return Estimate(value, ci, se)

    def minus(self, other: Estimate) -> Estimate:
        """``self - other`` for independent runs (normal approximation)."""
        d = self.value - other.value
        if self.se is None or other.se is None or math.isnan(d):
            return Estimate(d, None, None)
        se = math.sqrt(self.se ** 2 + other.se ** 2)
        return Estimate(d, (d - Z95 * se, d + Z95 * se), se)


def rounded(x: float) -> float | None:
    """A figure for JSON: None for ``nan``, else rounded to six decimals."""
    return None if math.isnan(x) else round(x, 6)


def rounded_interval(ci: tuple[float, float] | None) -> list[float] | None:
    """An interval for JSON: ``[lo, hi]`` rounded to six decimals, or None."""
    return None if ci is None else [round(ci[0], 6), round(ci[1], 6)]


__all__ = ["Estimate", "Timing", "Z95", "mean", "mean_interval", "percentile",
           "ratio_interval", "rounded", "rounded_interval", "sample_sd", "wilson_interval"]
