"""Reports on simulation result files (``dominolab-sim`` version 1, JSON Lines).

:func:`read_sim_file` reads and checks one file (a :class:`SimFileError` names the file and
the line of anything malformed); :func:`summarise_file` computes its figures;
:func:`summary_text` renders one or more files side by side as text, and :func:`render_html`
as a self-contained HTML page with plots (matplotlib, imported only there).

Intervals are 95%, from :mod:`dominolab.arena`'s helpers. Units of independence: the
*opener advantage per hand* and the other per-hand means take the hands as independent
(hands of one match share its seed, so the true interval may be somewhat wider); shares of
matches (first opener wins) use the Wilson interval over matches, a draw counting half;
ratios over luzaks (a luzak's cost) are clustered by match (:func:`ratio_interval`).
The difference of two files (file k - file 1) is ``d ± 1.96 sqrt(se1² + se2²)``, the files
being independent runs.

This module prints nothing; ``dominolab report`` (:mod:`dominolab.cli.report`) is its command.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dominolab.arena import Z95, mean, mean_interval, ratio_interval, sample_sd, wilson_interval
from dominolab.core import GAMES, RecordError

FORMAT = "dominolab-sim"
FORMAT_VERSION = 1
LUZAK_GAMES = ("luzak", "luzak-line")
HAND_ENDS = ("tiles", "domino", "block", "target")
MATCH_ENDS = ("target", "at-once", "deals")


class SimFileError(RecordError):
    """A simulation result file that is malformed; the message names the file and line."""


class MatplotlibMissing(ImportError):
    """The HTML report needs matplotlib, which is not installed."""


# -- reading ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class HandLine:
    """One ``hand`` line. The Luzak-only and Widelec-only fields are zeros for the other."""

    match: int
    hand: int
    opener: int
    end: str
    winner: int | None
    points: tuple[int, int]
    moves: int
    luzaks: tuple[int, int] = (0, 0)
    luzak_pips: tuple[int, int] = (0, 0)
    scored_n: tuple[tuple[int, int, int], ...] = ()
    quartets: tuple[int, int] = (0, 0)
    quartet_points: tuple[int, int] = (0, 0)
    bonus: int = 0
    draws: tuple[int, int] = (0, 0)
    passes: tuple[int, int] = (0, 0)

    @property
    def opener_margin(self) -> int:
        """The opener's points in the hand minus the other's."""
        return self.points[self.opener] - self.points[1 - self.opener]


@dataclass(frozen=True, slots=True)
class MatchLine:
    """One ``match`` line with the hand lines before it."""

    match: int
    seed: int
    first_opener: int
    end: str
    winner: int | None
    totals: tuple[int, int]
    hands: tuple[HandLine, ...]


@dataclass(frozen=True, slots=True)
class SimFile:
    """A whole result file: its header and its matches, in order."""

    path: str
    header: dict[str, Any]
    matches: tuple[MatchLine, ...]

    @property
    def game(self) -> str:
        return str(self.header["game"])

    @property
    def is_luzak(self) -> bool:
        return self.game in LUZAK_GAMES

    @property
    def requested(self) -> int:
        return int(self.header["matches"])

    @property
    def interrupted(self) -> bool:
        return len(self.matches) < self.requested

    @property
    def hand_lines(self) -> tuple[HandLine, ...]:
        return tuple(h for m in self.matches for h in m.hands)

    def label(self) -> str:
        players = self.header.get("players", ["?", "?"])
        budgets = self.header.get("budgets", [None, None])
        specs = [p if b is None else f"{p}:{b}" for p, b in zip(players, budgets, strict=True)]
        return f"{self.game} {specs[0]} v {specs[1]}"


class _Checker:
    """Field checks for one line; every failure names the file and line."""

    def __init__(self, path: str, line: int, obj: dict[str, Any]) -> None:
        self.path, self.line, self.obj = path, line, obj

    def fail(self, what: str) -> SimFileError:
        return SimFileError(f"{self.path}, line {self.line}: {what}")

    def get(self, key: str) -> Any:
        if key not in self.obj:
            raise self.fail(f"no {key!r}")
        return self.obj[key]

    def int_(self, key: str, lo: int | None = None, hi: int | None = None,
             value: Any = None, nullable: bool = False) -> Any:
        v = self.get(key) if value is None else value
        if v is None and nullable:
            return None
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(f"{key!r} must be a whole number, not {v!r}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise self.fail(f"{key!r} is out of range: {v!r}")
        return v

    def seat(self, key: str, nullable: bool = False) -> int | None:
        return self.int_(key, 0, 1, nullable=nullable)  # type: ignore[no-any-return]

    def pair(self, key: str, lo: int | None = 0) -> tuple[int, int]:
        v = self.get(key)
        if not isinstance(v, list) or len(v) != 2:
            raise self.fail(f"{key!r} must be a list of two whole numbers, not {v!r}")
        return (self.int_(key, lo, value=v[0]), self.int_(key, lo, value=v[1]))

    def choice(self, key: str, choices: Sequence[str]) -> str:
        v = self.get(key)
        if v not in choices:
            raise self.fail(f"{key!r} must be one of {', '.join(choices)}, not {v!r}")
        return str(v)


def _parse_json(path: str, number: int, text: str) -> dict[str, Any]:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SimFileError(f"{path}, line {number}: not JSON ({exc.msg}, "
                           f"column {exc.colno})") from None
    if not isinstance(obj, dict):
        raise SimFileError(f"{path}, line {number}: not a JSON object")
    return obj


def _check_header(path: str, obj: dict[str, Any]) -> dict[str, Any]:
    c = _Checker(path, 1, obj)
    if obj.get("format") != FORMAT:
        raise c.fail(f"not a {FORMAT} file (format {obj.get('format')!r})")
    if obj.get("format_version") != FORMAT_VERSION:
        raise c.fail(f"format version {obj.get('format_version')!r} is not supported "
                     f"(this dominolab reads version {FORMAT_VERSION})")
    game = c.get("game")
    if game not in GAMES:
        raise c.fail(f"unknown game {game!r} (the games: {', '.join(GAMES)})")
    if not isinstance(c.get("options"), dict):
        raise c.fail("'options' must be a JSON object")
    for key in ("players", "budgets"):
        v = c.get(key)
        if not isinstance(v, list) or len(v) != 2:
            raise c.fail(f"{key!r} must be a list of two")
    c.int_("seed")
    c.int_("matches", 0)
    c.get("rules_version")
    return obj


def _check_hand(path: str, number: int, obj: dict[str, Any], luzak: bool) -> HandLine:
    c = _Checker(path, number, obj)
    common: dict[str, Any] = {
        "match": c.int_("match", 0), "hand": c.int_("hand", 1), "opener": c.seat("opener"),
        "end": c.choice("end", HAND_ENDS), "winner": c.seat("winner", nullable=True),
        "points": c.pair("points", lo=None), "moves": c.int_("moves", 0)}
    if luzak:
        raw = c.get("scored_n")
        if not isinstance(raw, list):
            raise c.fail("'scored_n' must be a list of [n, seat, points]")
        scored: list[tuple[int, int, int]] = []
        for item in raw:
            if (not isinstance(item, list) or len(item) != 3
                    or any(isinstance(x, bool) or not isinstance(x, int) for x in item)
                    or item[0] < 1 or item[1] not in (0, 1)):
                raise c.fail(f"'scored_n' holds {item!r}, not [n, seat, points]")
            scored.append((item[0], item[1], item[2]))
        return HandLine(**common, luzaks=c.pair("luzaks"), luzak_pips=c.pair("luzak_pips"),
                        scored_n=tuple(scored))
    return HandLine(**common, quartets=c.pair("quartets"),
                    quartet_points=c.pair("quartet_points", lo=None),
                    bonus=c.int_("bonus", 0), draws=c.pair("draws"), passes=c.pair("passes"))


def read_sim_file(path: str) -> SimFile:
    """Read and check a result file. Raises :class:`SimFileError` (naming the file and the
    line) for anything malformed, and :class:`OSError` if it cannot be read."""
    with open(path, encoding="utf-8") as fh:
        try:
            lines = fh.read().splitlines()
        except UnicodeDecodeError as exc:
            raise SimFileError(f"{path}: not UTF-8 text ({exc.reason})") from None
    if not lines or not lines[0].strip():
        raise SimFileError(f"{path}, line 1: empty; expected the {FORMAT} header")
    header = _check_header(path, _parse_json(path, 1, lines[0]))
    luzak = header["game"] in LUZAK_GAMES
    seed = int(header["seed"])
    matches: list[MatchLine] = []
    hands: list[HandLine] = []
    first_hand_line = 0
    for number, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        obj = _parse_json(path, number, text)
        c = _Checker(path, number, obj)
        expected = len(matches)
        kind = obj.get("type")
        if kind == "hand":
            h = _check_hand(path, number, obj, luzak)
            if h.match != expected:
                raise c.fail(f"a hand of match {h.match} where match {expected} was due")
            if h.hand != len(hands) + 1:
                raise c.fail(f"hand {h.hand} where hand {len(hands) + 1} was due")
            if not hands:
                first_hand_line = number
            hands.append(h)
        elif kind == "match":
            i = c.int_("match", 0)
            if i != expected:
                raise c.fail(f"match {i} where match {expected} was due")
            k = c.int_("hands", 0)
            if k != len(hands):
                raise c.fail(f"match {i} says {k} hand(s) but {len(hands)} hand line(s) "
                             "precede it")
            s = c.int_("seed")
            if s != seed + i:
                raise c.fail(f"match {i} has seed {s}, not {seed + i} (header seed + {i})")
            m = MatchLine(i, s, c.seat("first_opener"),  # type: ignore[arg-type]
                          c.choice("end", MATCH_ENDS), c.seat("winner", nullable=True),
                          c.pair("totals", lo=None), tuple(hands))
            if hands and hands[0].opener != m.first_opener:
                raise c.fail(f"match {i}: first opener {m.first_opener} but hand 1 was "
                             f"opened by seat {hands[0].opener}")
            matches.append(m)
            hands = []
        else:
            raise c.fail(f"unknown line type {kind!r} (expected 'hand' or 'match')")
    if hands:
        raise SimFileError(f"{path}, line {first_hand_line}: match {len(matches)} has hand "
                           "lines but no match line (a file holds whole matches only)")
    if len(matches) > header["matches"]:
        raise SimFileError(f"{path}: {len(matches)} matches, more than the "
                           f"{header['matches']} of the header")
    return SimFile(path, header, tuple(matches))


# -- figures ------------------------------------------------------------------------------------

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
    if game == "luzak":
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


__all__ = ["COMMON_ROWS", "Estimate", "FigureRow", "FileSummary", "HandLine", "LUZAK_ROWS",
           "MatchLine", "MatplotlibMissing", "SimFile", "SimFileError", "WIDELEC_ROWS",
           "differences", "expected_plots", "fmt_estimate", "handed_over", "header_lines",
           "layer_of", "read_sim_file", "render_html", "render_plots", "rows_for",
           "summarise_file", "summary_text"]
