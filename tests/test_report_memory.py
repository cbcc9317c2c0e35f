"""The report reads a result file in one pass and holds running sums, not the matches.

Its peak memory (``tracemalloc``) summarising N matches must be a fifth of what holding
them takes, or less; from a file of N matches to one of 4N it must grow far less than the
file does (slow: the daily sample runs it); and its figures must equal those of the
whole-file way (every match in memory, the per-match sums as :class:`ClusterSample` s),
computed again here.
"""

from __future__ import annotations

import gc
import gzip
import json
import math
import statistics
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from dominolab.lab import dumps, make_setup, match_lines, read_sim_file
from dominolab.lab.report import (
    completed,
    differences,
    handed_over,
    hands_to_target,
    replay_targets,
    summarise_file,
    summarise_files,
    summary_text,
)
from dominolab.lab.simfile import MatchLine, SimFile
from dominolab.lab.stats import (
    Estimate,
    mean,
    mean_interval,
    percentile,
)
from reference_stats import ClusterSample, paired_difference, unpaired_difference

#: distinct matches played for the big files; their lines are repeated under new indices
TEMPLATES = 60


def _templates(game: str, players: tuple[str, str], seed: int,
               options: list[str] | None = None) -> tuple[dict[str, Any], list[list[Any]]]:
    setup = make_setup(game, players, seed=seed, matches=TEMPLATES, options=options or [])
    return setup.header(), [[json.loads(x) for x in match_lines(setup, i).splitlines()]
                            for i in range(TEMPLATES)]


def _write(path: Path, header: dict[str, Any], templates: list[list[Any]],
           matches: int) -> None:
    """A valid file of ``matches`` matches: match ``i`` repeats template ``i % TEMPLATES``
    under its own index and seed (the reader checks both)."""
    head = {**header, "matches": matches}
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(dumps(head) + "\n")
        for i in range(matches):
            for obj in templates[i % len(templates)]:
                obj["match"] = i
                if obj["type"] == "match":
                    obj["seed"] = head["seed"] + i
                fh.write(dumps(obj) + "\n")


def _peak(path: Path) -> int:
    """The report's peak memory summarising ``path``, over what was held before."""
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        s = summarise_file(path)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert s.matches > 0
    return peak


def _held_whole(path: Path, matches: int) -> int:
    """What the whole-file way holds for ``path``: every match in memory."""
    tracemalloc.start()
    try:
        whole = read_sim_file(path)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(whole.matches) == matches
    return held


def test_the_report_holds_far_less_than_the_matches(tmp_path: Path) -> None:
    """The bounded check that runs every time (the growth from N to 4N below is slow: it
    summarises 5N matches under tracemalloc): summarising N matches peaks at a fifth of
    what holding them takes, or less."""
    header, templates = _templates("luzak", ("random", "random"), seed=7)
    warm, small = tmp_path / "warm.jsonl", tmp_path / "n.jsonl"
    n = 1000
    _write(warm, header, templates, TEMPLATES)
    _write(small, header, templates, n)
    summarise_file(warm)  # imports and caches warmed before measuring
    p1 = _peak(small)
    held = _held_whole(small, n)
    assert held > 5 * p1, (held, p1)


@pytest.mark.slow
def test_peak_memory_does_not_grow_with_the_file(tmp_path: Path) -> None:
    header, templates = _templates("luzak", ("random", "random"), seed=7)
    small, big = tmp_path / "n.jsonl", tmp_path / "4n.jsonl"
    n = 1000
    _write(small, header, templates, n)
    _write(big, header, templates, 4 * n)
    summarise_file(small)  # imports and caches warmed before measuring
    p1, p4 = _peak(small), _peak(big)
    size = big.stat().st_size
    assert p4 < 1.5 * p1, (p1, p4)
    assert p4 < size / 4, (p4, size)  # about 1 MB, mostly the interpreter's free lists
    # the whole-file way holds every match: many times this, for the small file already
    # (kept as a sanity check of the measurement itself; reading the big file too, under
    # tracemalloc, took a third of the test)
    assert _held_whole(small, n) > 5 * p4


# -- the figures equal the whole-file way's -----------------------------------------------------

def _per_match(matches: tuple[MatchLine, ...], x: Any, h: Any) -> ClusterSample:
    return ClusterSample(tuple(m.match for m in matches), tuple(float(x(m)) for m in matches),
                         tuple(float(h(m)) for m in matches))


def _per_hand(matches: tuple[MatchLine, ...], x: Any, every: bool = False) -> ClusterSample:
    def hands(m: MatchLine) -> Any:
        return m.hands if every else completed(m)
    return _per_match(matches, lambda m: math.fsum(x(hd) for hd in hands(m)),
                      lambda m: len(hands(m)))


def _score(m: MatchLine, seat: int) -> float:
    return 0.5 if m.winner is None else 1.0 if m.winner == seat else 0.0


def _whole_file_samples(sim: SimFile) -> dict[str, ClusterSample]:
    """The per-match samples as the report took them with the whole file in memory."""
    ms = sim.matches
    smp = {
        "opener_points": _per_hand(ms, lambda h: h.points[h.opener]),
        "responder_points": _per_hand(ms, lambda h: h.points[1 - h.opener]),
        "opener_advantage": _per_hand(ms, lambda h: h.opener_margin),
        "hand_points": _per_hand(ms, lambda h: (h.points[0] + h.points[1]) / 2),
        "seat_margin": _per_hand(ms, lambda h: h.points[0] - h.points[1]),
        "first_opener_wins": _per_match(ms, lambda m: _score(m, m.first_opener), lambda m: 1),
        "seat0_wins": _per_match(ms, lambda m: _score(m, 0), lambda m: 1),
        "draws": _per_match(ms, lambda m: m.winner is None, lambda m: 1),
        "match_total": _per_match(ms, lambda m: (m.totals[0] + m.totals[1]) / 2, lambda m: 1),
        "match_hands": _per_match(ms, lambda m: len(m.hands), lambda m: 1),
    }
    if sim.is_luzak:
        smp["luzaks_per_hand"] = _per_hand(ms, lambda h: sum(h.luzaks))
        smp["luzak_cost"] = _per_match(
            ms, lambda m: sum(handed_over(h, sim.game) for h in completed(m)),
            lambda m: sum(sum(h.luzaks) for h in completed(m)))
    else:
        smp["cut_share"] = _per_hand(ms, lambda h: h.end == "target", every=True)
        smp["quartets_per_hand"] = _per_hand(ms, lambda h: sum(h.quartets))
        smp["bonus_size"] = _per_match(ms, lambda m: sum(h.bonus for h in completed(m)),
                                       lambda m: sum(h.bonus > 0 for h in completed(m)))
        smp["domino_share"] = _per_hand(ms, lambda h: h.end == "domino")
        smp["draws_per_hand"] = _per_hand(ms, lambda h: sum(h.draws))
    return smp


def _same(a: Estimate, b: Estimate) -> None:
    assert a.value == pytest.approx(b.value, rel=1e-12, abs=1e-12)
    assert (a.ci is None) == (b.ci is None)
    if a.ci is not None and b.ci is not None:
        assert a.ci == pytest.approx(b.ci, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("game", "options"), [("luzak", []), ("widelec", ["target=41"])])
def test_figures_equal_the_whole_file_way(tmp_path: Path, game: str,
                                          options: list[str]) -> None:
    header, templates = _templates(game, ("greedy", "random"), seed=3, options=options)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl.gz"
    _write(a, header, templates[:40], 40)
    other_header, other = _templates(game, ("greedy", "greedy"), seed=3, options=options)
    _write(tmp_path / "b.jsonl", other_header, other[:25], 25)  # a shorter run, same deals
    b.write_bytes(gzip.compress((tmp_path / "b.jsonl").read_bytes()))
    sa, sb = summarise_files([a, b])
    wa, wb = read_sim_file(a), read_sim_file(b)
    ra, rb = _whole_file_samples(wa), _whole_file_samples(wb)
    for key, sample in ra.items():
        if key in ("first_opener_wins", "seat0_wins", "draws"):
            want = Estimate.of_share(math.fsum(sample.numerators), len(sample.keys))
            _same(sa.estimates[key], want)
        else:
            est = sample.estimate()
            assert sa.estimates[key].value == pytest.approx(est.value, rel=1e-12)
            assert sa.samples[key].estimate().ci == pytest.approx(est.ci, rel=1e-9)
    # paired by deal over the 25 matches both hold, read in step
    assert sb.paired is not None and sb.paired.matches == 25
    diffs = {k: paired_difference(ra[k], rb[k]) for k in rb}
    ours = differences([sa, sb])[0]
    for key, want in diffs.items():
        _same(ours[key], want)
    # the same without the in-step pairing (summaries made one by one): read again in step
    alone = [summarise_file(a), summarise_file(b)]
    assert alone[1].paired is None
    for key, want in diffs.items():
        _same(differences(alone)[0][key], want)
    # unpaired: a different seed
    c = tmp_path / "c.jsonl"
    _write(c, {**other_header, "seed": 99}, other[:25], 25)
    sc = summarise_file(c)
    rc = _whole_file_samples(read_sim_file(c))
    for key in rc:
        _same(differences([sa, sc])[0][key], unpaired_difference(ra[key], rc[key]))
    # the distributions, the target replay and the tile figures
    done = [h for m in wa.matches for h in completed(m)]
    assert sa.hand_points == Counter(p for h in done for p in h.points)
    assert sa.match_hands == Counter(len(m.hands) for m in wa.matches)
    assert sa.match_totals == Counter(t for m in wa.matches for t in m.totals)
    opts = wa.header["options"]
    even = bool(opts.get("even_hands")) and not opts.get("win_at_once")
    for t in sa.target_lengths:
        known = [float(k) for m in wa.matches if (k := hands_to_target(
            [h.points for h in m.hands], t.target, even)) is not None]
        assert (t.matches, t.mean, t.ci, t.median, t.p10, t.p90) == (
            len(known), mean(known), mean_interval(known), statistics.median(known),
            percentile(known, 10), percentile(known, 90))
    assert [t.target for t in sa.target_lengths] == list(replay_targets(wa))
    if game == "luzak":
        assert sa.luzaked and sa.tile_worth
        per_tile: dict[str, Counter[int]] = {}
        for m in wa.matches:
            for h in m.hands:
                for tile in h.luzaked or ():
                    per_tile.setdefault(tile, Counter())[m.match] += 1
        for f in sa.luzaked:
            sample = ClusterSample(tuple(m.match for m in wa.matches),
                                   tuple(float(per_tile[f.tile][m.match]) for m in wa.matches),
                                   tuple(float(len(m.hands)) for m in wa.matches))
            assert f.estimate.value == pytest.approx(sample.estimate().value, rel=1e-12)
            ci = sample.estimate().ci
            assert f.estimate.ci is not None and ci is not None
            assert f.estimate.ci[1] == pytest.approx(ci[1], rel=1e-9)
    # and the text of the whole-file input is the text of the streamed one
    assert summary_text(summarise_files([wa, wb])) == summary_text([sa, sb])
