"""The report's cluster statistics written the plain way, a whole sample in memory: the
definition that the running sums of :mod:`dominolab.lab.stats` (``RatioSums``,
``PairedSums``), which the report uses, are checked against. Written apart from them on
purpose, with the textbook formulas, so that the tests compare two independent
computations."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from dominolab.lab.stats import Z95, Estimate, RatioSums, mean


@dataclass(frozen=True, slots=True)
class ClusterSample:
    """A figure measured in independent clusters: cluster ``keys[i]`` contributes
    ``numerators[i]`` over ``denominators[i]``; the figure is ``R = sum(x) / sum(h)``."""

    keys: tuple[int, ...]
    numerators: tuple[float, ...]
    denominators: tuple[float, ...]

    def __post_init__(self) -> None:
        if not len(self.keys) == len(self.numerators) == len(self.denominators):
            raise ValueError("keys, numerators and denominators differ in length")

    def restricted(self, keys: Sequence[int]) -> ClusterSample:
        """The clusters named by ``keys`` (each must be present), in that order."""
        where = {k: i for i, k in enumerate(self.keys)}
        idx = [where[k] for k in keys]
        return ClusterSample(tuple(keys), tuple(self.numerators[i] for i in idx),
                             tuple(self.denominators[i] for i in idx))

    @property
    def ratio(self) -> float:
        total = math.fsum(self.denominators)
        return math.fsum(self.numerators) / total if total else math.nan

    def influence(self) -> list[float]:
        """Each cluster's linearised contribution to ``R``: ``(x_i - R h_i) / mean(h)``."""
        n = len(self.keys)
        total = math.fsum(self.denominators)
        r = self.ratio
        return [(x - r * h) / (total / n)
                for x, h in zip(self.numerators, self.denominators, strict=True)]

    def estimate(self) -> Estimate:
        """``R`` with the delta method's interval: ``se = sqrt(Σ z_i² / (n (n - 1)))``."""
        n, r = len(self.keys), self.ratio
        if n < 2 or math.isnan(r):
            return Estimate(r, None, None)
        se = math.sqrt(math.fsum(v * v for v in self.influence()) / (n * (n - 1)))
        return Estimate(r, (r - Z95 * se, r + Z95 * se), se)

    def sums(self) -> RatioSums:
        """The running sums of this sample, fed a cluster at a time."""
        sums = RatioSums()
        for x, h in zip(self.numerators, self.denominators, strict=True):
            sums.add(x, h)
        return sums


def _se(values: Sequence[float]) -> float | None:
    n = len(values)
    if n < 2:
        return None
    m = mean(values)
    return math.sqrt(math.fsum((v - m) ** 2 for v in values) / (n * (n - 1)))


def paired_difference(a: ClusterSample, b: ClusterSample) -> Estimate:
    """``R_b - R_a`` over the clusters both hold, paired: the per-cluster differences of the
    linearised contributions are the independent units."""
    in_b = set(b.keys)
    common = [k for k in a.keys if k in in_b]
    ra, rb = a.restricted(common), b.restricted(common)
    d = rb.ratio - ra.ratio
    if len(common) < 2 or math.isnan(d):
        return Estimate(d, None, None)
    se = _se([y - x for x, y in zip(ra.influence(), rb.influence(), strict=True)])
    assert se is not None
    return Estimate(d, (d - Z95 * se, d + Z95 * se), se)


def unpaired_difference(a: ClusterSample, b: ClusterSample) -> Estimate:
    """``R_b - R_a`` for independent runs: ``d ± z sqrt(se_a² + se_b²)``."""
    return b.estimate().minus(a.estimate())
