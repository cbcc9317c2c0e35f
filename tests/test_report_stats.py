"""The report's statistics against known answers: hand-computed small cases, and simulations
of known distributions checking that the 95% intervals cover the truth about 95% of the time.

Hands of one match are correlated (a cluster), and two runs with the same seed share their
deals (a pair); the intervals must account for both.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter

import pytest

from dominolab.lab.report import hands_to_target
from dominolab.lab.stats import (
    Estimate,
    PairedSums,
    RatioSums,
    mean,
    mean_interval,
    mean_interval_of_counts,
    mean_of_counts,
    median_of_counts,
    percentile,
    percentile_of_counts,
    ratio_interval,
)
from reference_stats import ClusterSample, paired_difference, unpaired_difference


def _sample(xs: list[float], hs: list[float]) -> ClusterSample:
    return ClusterSample(tuple(range(len(xs))), tuple(xs), tuple(hs))


# -- hand-computed ------------------------------------------------------------------------------

def test_cluster_ratio_by_hand() -> None:
    # three matches: 2 points in 1 hand, 4 in 2, 9 in 3 -> R = 15/6 = 2.5
    # residuals x - R h: -0.5, -1, 1.5; squares 3.5; se = sqrt(3.5 / (3 * 2)) / mean(h) = 2
    e = _sample([2, 4, 9], [1, 2, 3]).estimate()
    se = math.sqrt(3.5 / 6) / 2
    assert e.value == pytest.approx(2.5)
    assert e.ci == pytest.approx((2.5 - 1.96 * se, 2.5 + 1.96 * se))
    assert e.ci == pytest.approx(ratio_interval([2, 4, 9], [1, 2, 3])[1])


def test_paired_difference_with_unit_denominators_is_the_paired_t_interval() -> None:
    # per-match differences 1, 0, 2: mean 1, sd 1, se 1/sqrt(3)
    a = _sample([1, 2, 3], [1, 1, 1])
    b = _sample([2, 2, 5], [1, 1, 1])
    d = paired_difference(a, b)
    assert d.value == pytest.approx(1.0)
    half = 1.96 / math.sqrt(3)
    assert d.ci == pytest.approx((1 - half, 1 + half))
    # the same figures taken as independent runs: sd 1 and 1.732 -> se sqrt((1 + 3) / 3)
    u = unpaired_difference(a, b)
    assert u.value == pytest.approx(1.0)
    assert u.ci == pytest.approx((1 - 1.96 * math.sqrt(4 / 3), 1 + 1.96 * math.sqrt(4 / 3)))


def test_paired_difference_of_ratios_by_hand() -> None:
    # a: 2/1, 4/2, 9/3 (R_a = 2.5, mean h 2); b: 3/1, 3/1, 12/4 (R_b = 3, mean h 2)
    # influence a: (-0.5, -1, 1.5)/2; b: (0, 0, 0)/2 -> d_i = (0.25, 0.5, -0.75)
    # mean 0; sum of squares 0.0625 + 0.25 + 0.5625 = 0.875; se = sqrt(0.875 / 6)
    a = _sample([2, 4, 9], [1, 2, 3])
    b = _sample([3, 3, 12], [1, 1, 4])
    d = paired_difference(a, b)
    se = math.sqrt(0.875 / 6)
    assert d.value == pytest.approx(0.5)
    assert d.ci == pytest.approx((0.5 - 1.96 * se, 0.5 + 1.96 * se))


def test_paired_difference_keeps_the_common_clusters() -> None:
    a = ClusterSample((0, 1, 2, 3), (1.0, 2.0, 3.0, 100.0), (1.0, 1.0, 1.0, 1.0))
    b = ClusterSample((0, 1, 2), (2.0, 2.0, 5.0), (1.0, 1.0, 1.0))
    assert paired_difference(a, b).value == pytest.approx(1.0)
    assert paired_difference(b, a).value == pytest.approx(-1.0)


def test_below_two_clusters_there_is_no_interval() -> None:
    one = _sample([3], [2])
    assert one.estimate() == Estimate(1.5, None, None)
    assert paired_difference(one, one).ci is None


def test_hands_to_target_by_hand() -> None:
    points = [(20, 5), (15, 30), (30, 10), (0, 40)]  # totals 20/5, 35/35, 65/45, 65/85
    assert hands_to_target(points, 20) == 1
    assert hands_to_target(points, 21) == 2
    assert hands_to_target(points, 61) == 3
    assert hands_to_target(points, 61, even_hands=True) == 4
    assert hands_to_target(points, 21, even_hands=True) == 2
    assert hands_to_target(points, 86) is None
    assert hands_to_target(points, 85, even_hands=True) == 4


# -- coverage of known distributions ------------------------------------------------------------

def _clustered(rng: random.Random, matches: int, effect: float) -> tuple[list[float], list[float],
                                                                         list[float]]:
    """Matches of 1-6 hands; a hand's figure is the match's effect plus its own noise (true
    mean per hand 0). Returns per-match sums, hands, and every hand's value."""
    xs, hs, flat = [], [], []
    for _ in range(matches):
        u = rng.gauss(0, effect)
        k = rng.randint(1, 6)
        values = [u + rng.gauss(0, 1) for _ in range(k)]
        xs.append(sum(values))
        hs.append(float(k))
        flat.extend(values)
    return xs, hs, flat


def test_cluster_interval_covers_where_the_hand_interval_does_not() -> None:
    rng = random.Random(11)
    reps, covered, naive_covered = 400, 0, 0
    for _ in range(reps):
        xs, hs, flat = _clustered(rng, 120, effect=1.5)
        ci = _sample(xs, hs).estimate().ci
        assert ci is not None
        covered += ci[0] <= 0 <= ci[1]
        naive = mean_interval(flat)
        assert naive is not None
        naive_covered += naive[0] <= 0 <= naive[1]
    # 95% nominal; 400 replicates give a standard error of about 1.1 points
    assert 0.92 <= covered / reps <= 0.98
    assert naive_covered / reps < 0.85  # hands taken as independent: far too narrow


def test_paired_interval_covers_and_is_narrower() -> None:
    """Two runs sharing their deals: each match's figure is the deal's luck plus the rule's
    effect (0.3) plus noise. The paired interval covers 0.3 about 95% of the time and is
    much narrower than the unpaired one, which also covers (it is conservative here)."""
    rng = random.Random(5)
    reps, covered, unpaired_covered = 300, 0, 0
    widths, unpaired_widths = [], []
    for _ in range(reps):
        a_x, a_h, b_x, b_h = [], [], [], []
        for _ in range(150):
            luck = rng.gauss(0, 2)
            ka, kb = rng.randint(2, 6), rng.randint(2, 6)
            a_x.append(sum(luck + rng.gauss(0, 1) for _ in range(ka)))
            b_x.append(sum(luck + 0.3 + rng.gauss(0, 1) for _ in range(kb)))
            a_h.append(float(ka))
            b_h.append(float(kb))
        a, b = _sample(a_x, a_h), _sample(b_x, b_h)
        p, u = paired_difference(a, b), unpaired_difference(a, b)
        assert p.ci is not None and u.ci is not None
        covered += p.ci[0] <= 0.3 <= p.ci[1]
        unpaired_covered += u.ci[0] <= 0.3 <= u.ci[1]
        widths.append(p.ci[1] - p.ci[0])
        unpaired_widths.append(u.ci[1] - u.ci[0])
    assert 0.92 <= covered / reps <= 0.98
    assert unpaired_covered / reps >= 0.92
    assert sum(widths) < 0.8 * sum(unpaired_widths)


# -- running sums (the report reads a match at a time) -------------------------------------------

def test_running_sums_give_the_samples_figures() -> None:
    """:class:`RatioSums` and :class:`PairedSums` kept a cluster at a time give the
    estimates of the whole samples: exactly for whole and half numbers, closely for any."""
    rng = random.Random(11)
    for whole in (True, False):
        a_x, a_h, b_x, b_h = [], [], [], []
        for _ in range(200):
            ka, kb = rng.randint(0, 6), rng.randint(1, 6)
            if whole:
                a_x.append(float(sum(rng.randint(-3, 20) for _ in range(ka))) / 2)
                b_x.append(float(sum(rng.randint(-3, 25) for _ in range(kb))))
            else:
                a_x.append(sum(rng.gauss(5, 3) for _ in range(ka)))
                b_x.append(sum(rng.gauss(6, 3) for _ in range(kb)))
            a_h.append(float(ka))
            b_h.append(float(kb))
        a, b = _sample(a_x, a_h), _sample(b_x, b_h)
        sa = a.sums()
        assert sa.ratio == a.ratio if whole else sa.ratio == pytest.approx(a.ratio)
        e, want = sa.estimate(), a.estimate()
        assert e.value == pytest.approx(want.value, rel=1e-12)
        assert e.ci == pytest.approx(want.ci, rel=1e-12)
        assert e.se == pytest.approx(want.se, rel=1e-9)
        pair = PairedSums.new()
        for xa, ha, xb, hb in zip(a_x, a_h, b_x, b_h, strict=True):
            pair.add(xa, ha, xb, hb)
        p, want = pair.difference(), paired_difference(a, b)
        assert p.value == pytest.approx(want.value, rel=1e-12)
        assert p.ci == pytest.approx(want.ci, rel=1e-12)
        assert p.se == pytest.approx(want.se, rel=1e-9)
    assert RatioSums().estimate().ci is None and math.isnan(RatioSums().estimate().value)
    one = RatioSums()
    one.add(3.0, 2.0)
    assert one.estimate() == Estimate(1.5, None, None)
    single = PairedSums.new()
    single.add(1.0, 1.0, 2.0, 1.0)
    assert single.difference() == Estimate(1.0, None, None)


def test_figures_of_counts_equal_those_of_the_values() -> None:
    rng = random.Random(3)
    for n in (1, 2, 5, 40, 101):
        values = [rng.randint(1, 12) for _ in range(n)]
        counts = Counter(values)
        floats = [float(v) for v in values]
        assert mean_of_counts(counts) == mean(floats)
        assert mean_interval_of_counts(counts) == mean_interval(floats)
        assert median_of_counts(counts) == statistics.median(floats)
        for q in (0, 10, 50, 90, 100):
            assert percentile_of_counts(counts, q) == percentile(floats, q)
    assert math.isnan(mean_of_counts(Counter()))
    assert math.isnan(percentile_of_counts(Counter(), 50))
