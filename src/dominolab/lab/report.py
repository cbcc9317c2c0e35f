"""Reports on simulation result files (:mod:`dominolab.lab.simfile`).

:func:`summarise_file` computes the figures of one file read with
:func:`~dominolab.lab.simfile.read_sim_file`; :func:`summary_text` renders one or more
files side by side as text, and :func:`render_html` as a self-contained HTML page with
plots (matplotlib, imported only there).

Intervals are 95%, from :mod:`dominolab.lab.stats`. Units of independence: the
*opener advantage per hand* and the other per-hand means take the hands as independent
(hands of one match share its seed, so the true interval may be somewhat wider); shares of
matches (first opener wins) use the Wilson interval over matches, a draw counting half;
ratios over luzaks (a luzak's cost) are clustered by match
(:func:`~dominolab.lab.stats.ratio_interval`). The difference of two files (file k - file 1)
is ``d ± 1.96 sqrt(se1² + se2²)``, the files being independent runs.

This module prints nothing; ``dominolab report`` is its command.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dominolab.core import get_game
from dominolab.lab.simfile import HandLine, MatchLine, SimFile
from dominolab.lab.stats import Estimate


class MatplotlibMissing(ImportError):
    """The HTML report needs matplotlib, which is not installed."""


# -- figures ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class FigureRow:
    """One row of the summary table: a key, a label, a unit of format."""

    key: str
    label: str
    percent: bool = False


#: the rows shown for every game, then for Luzak games, then for Widelec
COMMON_ROWS = (
    FigureRow("opener_advantage", "opener advantage per hand (points)"),
    FigureRow("first_opener_wins", "first opener wins the match", percent=True),
    FigureRow("seat0_wins", "seat 0 wins the match", percent=True),
    FigureRow("seat_margin", "seat 0 - seat 1 points per hand"),
    FigureRow("hand_points", "points per hand (each seat)"),
    FigureRow("match_total", "match total (each seat)"),
    FigureRow("match_hands", "match length (hands)"),
)
LUZAK_ROWS = (
    FigureRow("luzaks_per_hand", "luzaks per hand"),
    FigureRow("luzak_cost", "luzak cost: points handed over per luzak"),
)
WIDELEC_ROWS = (
    FigureRow("quartets_per_hand", "quartets per hand"),
    FigureRow("quartet_points_per_hand", "quartet points per hand"),
    FigureRow("bonus_share", "hands with an end bonus", percent=True),
    FigureRow("bonus_size", "bonus size (when there is one)"),
    FigureRow("domino_share", "hands ending in a domino", percent=True),
    FigureRow("block_share", "hands ending in a block", percent=True),
    FigureRow("draws_per_hand", "draws per hand"),
    FigureRow("passes_per_hand", "passes per hand"),
)


@dataclass(frozen=True, slots=True)
class FileSummary:
    """The figures of one file. ``estimates`` is keyed by :class:`FigureRow` keys;
    the distributions are raw values for the plots."""

    sim: SimFile
    matches: int
    hands: int
    estimates: dict[str, Estimate]
    hand_points: tuple[int, ...]
    match_totals: tuple[int, ...]
    match_hands: tuple[int, ...]
    match_ends: dict[str, int]
    hand_ends: dict[str, int]
    #: Luzak: N -> (points per hand scored at tile N, share of hands scoring at N)
    points_by_n: dict[int, tuple[float, float]] = field(default_factory=dict)
    luzaks_per_hand: tuple[int, ...] = ()
    luzak_costs: tuple[int, ...] = ()
    quartets_per_hand: tuple[int, ...] = ()
    bonuses: tuple[int, ...] = ()
    draws_per_hand: tuple[int, ...] = ()


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


def _share_matches(matches: Sequence[MatchLine], seat_of: Callable[[MatchLine], int]) -> Estimate:
    score = math.fsum(0.5 if m.winner is None else 1.0 if m.winner == seat_of(m) else 0.0
                      for m in matches)
    return Estimate.of_share(score, len(matches))


def summarise_file(sim: SimFile) -> FileSummary:
    """Every figure of one file."""
    matches = sim.matches
    hands = sim.hand_lines
    n_hands = len(hands)
    est: dict[str, Estimate] = {
        "opener_advantage": Estimate.of_mean([float(h.opener_margin) for h in hands]),
        "first_opener_wins": _share_matches(matches, lambda m: m.first_opener),
        "seat0_wins": _share_matches(matches, lambda m: 0),
        "seat_margin": Estimate.of_mean([float(h.points[0] - h.points[1]) for h in hands]),
        "hand_points": Estimate.of_mean([float(p) for h in hands for p in h.points]),
        "match_total": Estimate.of_mean([float(t) for m in matches for t in m.totals]),
        "match_hands": Estimate.of_mean([float(len(m.hands)) for m in matches]),
    }
    summary: dict[str, Any] = {}
    if sim.is_luzak:
        by_n: dict[int, float] = {}
        hands_at_n: Counter[int] = Counter()
        for h in hands:
            for n in {n for n, _, _ in h.scored_n}:
                hands_at_n[n] += 1
            for n, _, p in h.scored_n:
                by_n[n] = by_n.get(n, 0.0) + p
        summary["points_by_n"] = {n: (by_n[n] / n_hands, hands_at_n[n] / n_hands)
                                  for n in sorted(by_n)}
        summary["luzaks_per_hand"] = tuple(sum(h.luzaks) for h in hands)
        est["luzaks_per_hand"] = Estimate.of_mean([float(x) for x in summary["luzaks_per_hand"]])
        est["luzak_cost"] = Estimate.of_ratio(
            [float(sum(handed_over(h, sim.game) for h in m.hands)) for m in matches],
            [float(sum(sum(h.luzaks) for h in m.hands)) for m in matches])
        costs: list[int] = []
        for h in hands:
            if sum(h.luzaks):
                costs.append(handed_over(h, sim.game))
        summary["luzak_costs"] = tuple(costs)
    else:
        q = [sum(h.quartets) for h in hands]
        summary["quartets_per_hand"] = tuple(q)
        summary["bonuses"] = tuple(h.bonus for h in hands if h.bonus > 0)
        summary["draws_per_hand"] = tuple(sum(h.draws) for h in hands)
        est["quartets_per_hand"] = Estimate.of_mean([float(x) for x in q])
        est["quartet_points_per_hand"] = Estimate.of_mean(
            [float(sum(h.quartet_points)) for h in hands])
        est["bonus_share"] = Estimate.of_share(len(summary["bonuses"]), n_hands)
        est["bonus_size"] = Estimate.of_mean([float(b) for b in summary["bonuses"]])
        ends = Counter(h.end for h in hands)
        est["domino_share"] = Estimate.of_share(ends["domino"], n_hands)
        est["block_share"] = Estimate.of_share(ends["block"], n_hands)
        est["draws_per_hand"] = Estimate.of_mean([float(x) for x in summary["draws_per_hand"]])
        est["passes_per_hand"] = Estimate.of_mean([float(sum(h.passes)) for h in hands])
    return FileSummary(
        sim=sim, matches=len(matches), hands=n_hands, estimates=est,
        hand_points=tuple(p for h in hands for p in h.points),
        match_totals=tuple(t for m in matches for t in m.totals),
        match_hands=tuple(len(m.hands) for m in matches),
        match_ends=dict(Counter(m.end for m in matches)),
        hand_ends=dict(Counter(h.end for h in hands)),
        **summary)


def rows_for(summaries: Sequence[FileSummary]) -> tuple[FigureRow, ...]:
    """The table rows that apply to at least one of the files."""
    rows: tuple[FigureRow, ...] = COMMON_ROWS
    if any(s.sim.is_luzak for s in summaries):
        rows += LUZAK_ROWS
    if any(not s.sim.is_luzak for s in summaries):
        rows += WIDELEC_ROWS
    return rows


def differences(summaries: Sequence[FileSummary]) -> list[dict[str, Estimate]]:
    """For files 2.., each figure minus file 1's (where both files have it)."""
    first = summaries[0].estimates
    return [{k: e.minus(first[k]) for k, e in s.estimates.items() if k in first}
            for s in summaries[1:]]


# -- text ---------------------------------------------------------------------------------------

def fmt_estimate(e: Estimate | None, percent: bool = False, signed: bool = False) -> str:
    """``12.3 [10.1, 14.5]`` (or percent: ``51.0% [47.9, 54.1]``); ``-`` when absent."""
    if e is None or math.isnan(e.value):
        return "-"
    scale, suffix = (100.0, "%") if percent else (1.0, "")
    sign = "+" if signed else ""
    text = f"{e.value * scale:{sign}.2f}{suffix}"
    if e.ci is not None:
        text += f" [{e.ci[0] * scale:{sign}.2f}, {e.ci[1] * scale:{sign}.2f}]"
    return text


def header_lines(sim: SimFile) -> list[str]:
    """The header of a file as ``key: value`` lines."""
    h = sim.header
    options = ", ".join(f"{k}={_option_text(v)}" for k, v in h.get("options", {}).items())
    done = f"{len(sim.matches)} of {sim.requested} matches"
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


def _option_text(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def summary_text(summaries: Sequence[FileSummary]) -> str:
    """The terminal summary of one or more files (file k compared with file 1)."""
    out: list[str] = []
    for i, s in enumerate(summaries, start=1):
        out.append(f"[{i}] {s.sim.path}")
        out.extend("    " + line for line in header_lines(s.sim))
        ends = ", ".join(f"{k} {v}" for k, v in sorted(s.match_ends.items()))
        out.append(f"    {s.matches} matches ({ends}), {s.hands} hands")
    out.append("")
    diffs = differences(summaries)
    heads = [f"[{i}]" for i in range(1, len(summaries) + 1)]
    heads += [f"[{i}]-[1]" for i in range(2, len(summaries) + 1)]
    table: list[list[str]] = [["figure (95% interval)", *heads]]
    for row in rows_for(summaries):
        cells = [fmt_estimate(s.estimates.get(row.key), row.percent) for s in summaries]
        cells += [fmt_estimate(d.get(row.key), row.percent, signed=True) for d in diffs]
        table.append([row.label, *cells])
    widths = [max(len(r[c]) for r in table) for c in range(len(table[0]))]
    for r in table:
        out.append("  ".join(cell.ljust(w) if c == 0 else cell.rjust(w)
                             for c, (cell, w) in enumerate(zip(r, widths, strict=True))).rstrip())
    luzak = [s for s in summaries if s.sim.is_luzak]
    if luzak:
        out.append("")
        out.append("points per hand by tile number N (Luzak; share of hands scoring at N):")
        ns = sorted({n for s in luzak for n in s.points_by_n})
        out.append("  " + " " * 5 + "   ".join(
            f"[{summaries.index(s) + 1}]".rjust(15) for s in luzak))
        for n in ns:
            cells = []
            for s in luzak:
                pts, share = s.points_by_n.get(n, (0.0, 0.0))
                cells.append(f"{pts:6.2f} ({share * 100:4.1f}%)")
            out.append(f"  N={n:<3}" + "   ".join(cells))
    out.append("")
    out.append("Per-hand intervals take the hands as independent; match shares are Wilson\n"
               "intervals over matches (a draw counts half); the luzak cost is clustered by\n"
               "match. Differences: file k - file 1, normal approximation.")
    return "\n".join(out)


# -- plots and HTML -----------------------------------------------------------------------------

def expected_plots(summaries: Sequence[FileSummary]) -> list[str]:
    """The plots a report of these files holds, in order (their ids)."""
    plots = ["advantage", "scores", "match-length"]
    if any(s.sim.is_luzak for s in summaries):
        plots += ["points-by-n", "luzaks"]
    if any(not s.sim.is_luzak for s in summaries):
        plots += ["quartets", "bonus", "hand-ends", "draws"]
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


def _errorbars(ax: Any, names: Sequence[str], ests: Sequence[Estimate | None], title: str,
               scale: float = 1.0, ref: float | None = None) -> None:
    for i, e in enumerate(ests):
        if e is None or math.isnan(e.value):
            continue
        if e.ci is not None:
            ax.errorbar([i], [e.value * scale], yerr=[[(e.value - e.ci[0]) * scale],
                                                      [(e.ci[1] - e.value) * scale]],
                        fmt="o", capsize=6)
        else:
            ax.plot([i], [e.value * scale], "o")
    if ref is not None:
        ax.axhline(ref, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(names)), names)
    ax.set_xlim(-0.6, len(names) - 0.4)
    ax.set_title(title, fontsize=10)


def _hist(ax: Any, names: Sequence[str], data: Sequence[Sequence[int]], title: str,
          xlabel: str, discrete: bool = True) -> None:
    present = [(n, d) for n, d in zip(names, data, strict=True) if d]
    if not present:
        ax.set_title(title + " (no data)", fontsize=10)
        return
    lo = min(min(d) for _, d in present)
    hi = max(max(d) for _, d in present)
    if discrete and hi - lo <= 60:
        bins: Any = [x - 0.5 for x in range(lo, hi + 2)]
    else:
        bins = 30
    for n, d in present:
        ax.hist(d, bins=bins, alpha=0.55 if len(present) > 1 else 0.9, label=n,
                weights=[1 / len(d)] * len(d))
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share")
    if len(present) > 1:
        ax.legend(fontsize=8)


def _grouped_bars(ax: Any, names: Sequence[str], cats: Sequence[Any],
                  values: Sequence[Sequence[float]], title: str, xlabel: str) -> None:
    k = max(len(values), 1)
    width = 0.8 / k
    for j, (n, vals) in enumerate(zip(names, values, strict=True)):
        ax.bar([i + (j - (k - 1) / 2) * width for i in range(len(cats))], vals, width, label=n)
    ax.set_xticks(range(len(cats)), [str(c) for c in cats])
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    if k > 1:
        ax.legend(fontsize=8)


def render_plots(summaries: Sequence[FileSummary]) -> dict[str, tuple[str, str]]:
    """Every plot as ``id -> (caption, PNG data URI)``. Raises :class:`MatplotlibMissing`."""
    plt = _pyplot()
    names = [f"[{i}]" for i in range(1, len(summaries) + 1)]
    out: dict[str, tuple[str, str]] = {}

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    _errorbars(axes[0], names, [s.estimates["opener_advantage"] for s in summaries],
               "opener advantage per hand (points)", ref=0.0)
    _errorbars(axes[1], names, [s.estimates["first_opener_wins"] for s in summaries],
               "first opener wins the match (%)", scale=100.0, ref=50.0)
    out["advantage"] = ("Opener advantage per hand (mean of the opener's points minus the "
                        "other's, 95% interval over hands) and the share of matches won by "
                        "the first opener (Wilson 95% interval).", _png(plt, fig))

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    _hist(axes[0], names, [s.hand_points for s in summaries], "points per hand (each seat)",
          "points", discrete=False)
    _hist(axes[1], names, [s.match_totals for s in summaries], "match totals (each seat)",
          "points", discrete=False)
    out["scores"] = ("Score distributions: each seat's points in a hand, and each seat's "
                     "match total.", _png(plt, fig))

    fig, ax = plt.subplots(figsize=(6, 3.4))
    _hist(ax, names, [s.match_hands for s in summaries], "match length", "hands")
    out["match-length"] = ("Match length in hands.", _png(plt, fig))

    luzak = [(n, s) for n, s in zip(names, summaries, strict=True) if s.sim.is_luzak]
    if luzak:
        ns = sorted({n for _, s in luzak for n in s.points_by_n})
        fig, ax = plt.subplots(figsize=(9, 3.4))
        _grouped_bars(ax, [n for n, _ in luzak], ns,
                      [[s.points_by_n.get(n, (0.0, 0.0))[0] for n in ns] for _, s in luzak],
                      "points per hand scored at tile number N", "N")
        out["points-by-n"] = ("Points by tile number N (Luzak games): the table-count points "
                              "scored when laying tile N, per hand (the luzak pip bonus "
                              "excluded).", _png(plt, fig))
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
        _hist(axes[0], [n for n, _ in luzak], [s.luzaks_per_hand for _, s in luzak],
              "luzaks per hand", "luzaks")
        _errorbars(axes[1], [n for n, _ in luzak],
                   [s.estimates["luzak_cost"] for _, s in luzak],
                   "points handed over per luzak")
        out["luzaks"] = ("Luzak frequency (luzaks per hand) and its cost: points handed to "
                         "the opponent per luzak (Luzak: its pips; without spinners: the "
                         "counts it gave away), 95% interval clustered by match.",
                         _png(plt, fig))

    wid = [(n, s) for n, s in zip(names, summaries, strict=True) if not s.sim.is_luzak]
    if wid:
        wn = [n for n, _ in wid]
        fig, ax = plt.subplots(figsize=(6, 3.4))
        _hist(ax, wn, [s.quartets_per_hand for _, s in wid], "quartets per hand", "quartets")
        out["quartets"] = ("Quartets scored in play per hand (Widelec).", _png(plt, fig))
        fig, ax = plt.subplots(figsize=(6, 3.4))
        _hist(ax, wn, [s.bonuses for _, s in wid], "end-of-hand bonus (hands with one)",
              "bonus points", discrete=False)
        out["bonus"] = ("Bonus sizes: the end-of-hand bonus of the hands that had one "
                        "(Widelec).", _png(plt, fig))
        fig, ax = plt.subplots(figsize=(6, 3.4))
        ends = ["domino", "block", "target"]
        _grouped_bars(ax, wn, ends,
                      [[s.hand_ends.get(e, 0) / max(s.hands, 1) * 100 for e in ends]
                       for _, s in wid], "how hands end (%)", "end")
        out["hand-ends"] = ("Domino versus block: how the hands ended (target: the match "
                            "was won mid-hand).", _png(plt, fig))
        fig, ax = plt.subplots(figsize=(6, 3.4))
        _hist(ax, wn, [s.draws_per_hand for _, s in wid], "draws per hand (both seats)",
              "draws")
        out["draws"] = ("Draws from the boneyard per hand (Widelec).", _png(plt, fig))
    assert list(out) == expected_plots(summaries)
    return out


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px}
td.num{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}
figure{margin:1.5em 0}figcaption{font-size:90%;color:#444;max-width:900px}
.note{font-size:90%;color:#555}"""


def render_html(summaries: Sequence[FileSummary]) -> str:
    """A self-contained HTML report (plots embedded as data URIs). Raises
    :class:`MatplotlibMissing` when matplotlib is not installed."""
    plots = render_plots(summaries)
    e = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>dominolab report</title>", f"<style>{_CSS}</style></head><body>",
             "<h1>dominolab simulation report</h1>", "<h2>Files</h2>"]
    for i, s in enumerate(summaries, start=1):
        parts.append(f"<h3>[{i}] {e(s.sim.path)}</h3><ul>")
        parts.extend(f"<li>{e(line)}</li>" for line in header_lines(s.sim))
        parts.append(f"<li>{s.matches} matches, {s.hands} hands</li></ul>")
    parts.append("<h2>Figures</h2><table><tr><th>figure (95% interval)</th>")
    parts.extend(f"<th>[{i}]</th>" for i in range(1, len(summaries) + 1))
    parts.extend(f"<th>[{i}] &minus; [1]</th>" for i in range(2, len(summaries) + 1))
    parts.append("</tr>")
    diffs = differences(summaries)
    for row in rows_for(summaries):
        cells = [fmt_estimate(s.estimates.get(row.key), row.percent) for s in summaries]
        cells += [fmt_estimate(d.get(row.key), row.percent, signed=True) for d in diffs]
        parts.append(f"<tr><td>{e(row.label)}</td>"
                     + "".join(f'<td class="num">{e(c)}</td>' for c in cells) + "</tr>")
    parts.append("</table>")
    parts.append('<p class="note">Per-hand intervals take the hands as independent (hands of '
                 "one match share its seed, so they may be somewhat narrow); match shares are "
                 "Wilson intervals over matches, a draw counting half; the luzak cost is "
                 "clustered by match. Differences are file k minus file 1 with a normal "
                 "95% interval from the two standard errors.</p>")
    parts.append("<h2>Plots</h2>")
    for pid, (caption, uri) in plots.items():
        parts.append(f'<figure id="{pid}"><img src="{uri}" alt="{e(pid)}">'
                     f"<figcaption>{e(caption)}</figcaption></figure>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


__all__ = ["COMMON_ROWS", "FigureRow", "FileSummary", "LUZAK_ROWS", "MatplotlibMissing",
           "WIDELEC_ROWS", "differences", "expected_plots", "fmt_estimate", "handed_over",
           "header_lines", "layer_of", "render_html", "render_plots", "rows_for",
           "summarise_file", "summary_text"]
