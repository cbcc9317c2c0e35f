"""``dominolab report``: reading result files, the figures, the text and HTML reports.

The fixture files are written here from real matches (``Match`` with greedy/random players),
every field computed from the matches' steps as the dominolab-sim format specifies; the
expected figures are then computed again from those raw records, independently of
:mod:`dominolab.lab.report`.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from dominolab.cli.main import main
from dominolab.core import Match, Play, get_game
from dominolab.core.moves import Draw, Pass
from dominolab.lab import (
    SimFileError,
    dumps,
    expected_plots,
    make_setup,
    match_lines,
    player_seed,
    read_sim_file,
    render_html,
    render_plots,
    summarise_file,
    summary_text,
)
from dominolab.lab.report import report_tables, sweep_option, variant_labels
from dominolab.players import make_player

Record = dict[str, Any]


# -- fixtures: real matches written in the format -----------------------------------------------

def _play(game: str, options: Any, seed: int, players: tuple[str, str]) -> Match:
    match = Match(game, options, seed=seed)
    bots = [make_player(players[s], player_seed(seed, s)) for s in (0, 1)]
    while match.to_move is not None:
        seat = match.to_move
        match.apply(bots[seat].choose(match.view(seat)))
    return match


def _hand_line(game: str, i: int, h: int, match: Match) -> tuple[Record, int]:
    """The hand's line, and (Luzak games) the points its luzaks handed to the opponent,
    tallied straight from the steps."""
    hand, steps = match.hands[h - 1], match.steps[h - 1]
    result = hand.result
    assert result is not None
    rec: Record = {"type": "hand", "match": i, "hand": h, "opener": hand.opener,
                   "end": result.end, "winner": result.winner, "points": list(result.points),
                   "moves": len(steps)}
    handed = 0
    if game == "widelec":
        q, qp, d, p = [0, 0], [0, 0], [0, 0], [0, 0]
        for st in steps:
            if st.points[st.seat]:
                q[st.seat] += 1
                qp[st.seat] += st.points[st.seat]
            if isinstance(st.move, Draw):
                d[st.seat] += 1
            if isinstance(st.move, Pass):
                p[st.seat] += 1
        rec.update(quartets=q, quartet_points=qp, bonus=result.bonus, draws=d, passes=p)
        return rec, 0
    lz, lp, scored = [0, 0], [0, 0], []
    for st in steps:
        gain = list(st.points)
        assert isinstance(st.move, Play)
        if st.move.luzak:
            lz[st.seat] += 1
            lp[st.seat] += st.move.tile.pips
            if game == "luzak":
                gain[1 - st.seat] -= st.move.tile.pips
                handed += st.move.tile.pips
            else:
                handed += gain[1 - st.seat]
        for seat in (0, 1):
            if gain[seat]:
                scored.append([st.n, seat, gain[seat]])
    rec.update(luzaks=lz, luzak_pips=lp, scored_n=scored)
    return rec, handed


def write_sim(path: Path, game: str, matches: int, seed: int = 1,
              players: tuple[str, str] = ("greedy", "random"), asked: int | None = None,
              options: list[str] | None = None) -> tuple[list[Record], list[Record], list[int]]:
    """Write a file; return its hand records, match records and the handed-over points of
    each hand (Luzak games)."""
    spec = get_game(game)
    opts = spec.options(options or [])
    header = {"format": "dominolab-sim", "format_version": 1, "game": game,
              "rules_version": 1, "options": opts.to_dict(), "players": list(players),
              "budgets": [None, None], "seed": seed,
              "matches": matches if asked is None else asked, "dominolab": "0.1.0"}
    lines = [json.dumps(header)]
    hands: list[Record] = []
    ms: list[Record] = []
    handed: list[int] = []
    for i in range(matches):
        match = _play(game, opts, seed + i, players)
        for h in range(1, len(match.hands) + 1):
            rec, x = _hand_line(game, i, h, match)
            hands.append(rec)
            handed.append(x)
            lines.append(json.dumps(rec))
        res = match.result
        assert res is not None
        mrec = {"type": "match", "match": i, "seed": seed + i,
                "first_opener": match.first_opener, "end": res.end, "winner": res.winner,
                "totals": list(res.totals), "hands": res.hands}
        ms.append(mrec)
        lines.append(json.dumps(mrec))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return hands, ms, handed


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def _by_match(hands: list[Record], value: Any, keep: Any = None) -> list[tuple[float, float]]:
    """Per match: the sum of ``value(hand)`` over its hands (those ``keep`` keeps), and how
    many hands that is."""
    out: dict[int, list[float]] = {}
    for h in hands:
        x = out.setdefault(h["match"], [0.0, 0.0])
        if keep is None or keep(h):
            x[0] += value(h)
            x[1] += 1
    return [(x, n) for x, n in out.values()]


def _cluster_ci(per_match: list[tuple[float, float]]) -> tuple[float, float, float]:
    """The ratio of sums with its interval, the match as the unit (the delta method)."""
    n = len(per_match)
    r = sum(x for x, _ in per_match) / sum(h for _, h in per_match)
    mean_h = sum(h for _, h in per_match) / n
    se = math.sqrt(sum((x - r * h) ** 2 for x, h in per_match) / (n * (n - 1))) / mean_h
    return r, r - 1.96 * se, r + 1.96 * se


def _done(h: Record) -> bool:
    return bool(h["end"] != "target")


# -- figures ------------------------------------------------------------------------------------

@pytest.mark.parametrize("game", ["luzak", "luzak-line"])
def test_luzak_figures_match_the_raw_records(tmp_path: Path, game: str) -> None:
    path = tmp_path / f"{game}.jsonl"
    hands, ms, handed = write_sim(path, game, 12)
    s = summarise_file(read_sim_file(str(path)))
    assert s.matches == 12 and s.hands == len(hands)
    margins = [float(h["points"][h["opener"]] - h["points"][1 - h["opener"]]) for h in hands]
    e = s.estimates["opener_advantage"]
    assert _close(e.value, _mean(margins))
    # hands of a match are one cluster: the interval is the ratio estimator's, by match
    r, lo, hi = _cluster_ci(_by_match(hands, lambda h: h["points"][h["opener"]]
                                      - h["points"][1 - h["opener"]]))
    assert e.ci is not None and _close(r, e.value) and _close(e.ci[0], lo)
    assert _close(e.ci[1], hi)
    opener = _mean([float(h["points"][h["opener"]]) for h in hands])
    responder = _mean([float(h["points"][1 - h["opener"]]) for h in hands])
    assert _close(s.estimates["opener_points"].value, opener)
    assert _close(s.estimates["responder_points"].value, responder)
    won = sum(1.0 if m["winner"] == m["first_opener"] else 0.5 if m["winner"] is None else 0.0
              for m in ms)
    assert _close(s.estimates["first_opener_wins"].value, won / len(ms))
    drawn = sum(m["winner"] is None for m in ms)
    assert _close(s.estimates["draws"].value, drawn / len(ms))
    assert _close(s.estimates["match_hands"].value, _mean([float(m["hands"]) for m in ms]))
    # points by N: the table-count points, per hand
    by_n: dict[int, int] = {}
    for h in hands:
        for n, _seat, p in h["scored_n"]:
            by_n[n] = by_n.get(n, 0) + p
    assert {n: v[0] for n, v in s.points_by_n.items()} == pytest.approx(
        {n: p / len(hands) for n, p in by_n.items()})
    # every hand point is either a table count or a luzak's pips
    for h in hands:
        per_seat = [sum(p for _n, seat, p in h["scored_n"] if seat == k) for k in (0, 1)]
        bonus = [h["luzak_pips"][1], h["luzak_pips"][0]] if game == "luzak" else [0, 0]
        assert [a + b for a, b in zip(per_seat, bonus, strict=True)] == h["points"]
    luzaks = [float(sum(h["luzaks"])) for h in hands]
    assert _close(s.estimates["luzaks_per_hand"].value, _mean(luzaks))
    assert sum(luzaks) > 0, "the fixture should hold some luzaks"
    assert _close(s.estimates["luzak_cost"].value, sum(handed) / sum(luzaks))


def test_widelec_figures_count_completed_hands(tmp_path: Path) -> None:
    """With win-at-once the hand in which the target is reached is cut short: per-hand
    figures take the completed hands only, and the cut hands have a share of their own."""
    path = tmp_path / "w.jsonl"
    every, ms, _ = write_sim(path, "widelec", 10)
    hands = [h for h in every if _done(h)]
    assert len(hands) < len(every), "each match should end in a cut hand"
    s = summarise_file(read_sim_file(str(path)))
    assert s.hands == len(every) and s.completed_hands == len(hands)
    n = len(hands)
    est = s.estimates
    assert _close(est["cut_share"].value, (len(every) - n) / len(every))
    assert _close(est["quartets_per_hand"].value, sum(sum(h["quartets"]) for h in hands) / n)
    bonuses = [h["bonus"] for h in hands if h["bonus"]]
    assert s.bonuses == Counter(bonuses)  # how often each bonus size occurs
    assert _close(est["bonus_share"].value, len(bonuses) / n)
    assert _close(est["domino_share"].value, sum(h["end"] == "domino" for h in hands) / n)
    assert _close(est["block_share"].value, sum(h["end"] == "block" for h in hands) / n)
    assert _close(est["domino_share"].value + est["block_share"].value, 1.0)
    assert _close(est["draws_per_hand"].value, sum(sum(h["draws"]) for h in hands) / n)
    r, lo, hi = _cluster_ci(_by_match(every, lambda h: float(h["end"] == "domino"), _done))
    assert _close(est["domino_share"].value, r)
    ci = est["domino_share"].ci
    assert ci is not None and _close(ci[0], max(0.0, lo)) and _close(ci[1], min(1.0, hi))
    margins = [float(h["points"][h["opener"]] - h["points"][1 - h["opener"]]) for h in hands]
    assert _close(est["opener_advantage"].value, _mean(margins))
    totals = [float(t) for m in ms for t in m["totals"]]
    assert _close(est["match_total"].value, _mean(totals))
    # Wilson: the interval holds the share
    e = est["first_opener_wins"]
    assert e.ci is not None and e.ci[0] <= e.value <= e.ci[1]


def test_lab_writer_agrees_with_the_fixture(tmp_path: Path) -> None:
    lab = pytest.importorskip("dominolab.lab")
    if not hasattr(lab, "make_setup") or not hasattr(lab, "match_lines"):
        pytest.skip("dominolab.lab has no writer yet")
    for game in ("luzak", "luzak-line", "widelec"):
        path = tmp_path / f"{game}.jsonl"
        write_sim(path, game, 3)
        setup = lab.make_setup(game, ("greedy", "random"), seed=1, matches=3)
        ours = [json.loads(x) for x in path.read_text().splitlines()[1:]]
        theirs = [json.loads(x) for i in range(3)
                  for x in lab.match_lines(setup, i).splitlines()]
        for obj in theirs:  # the optional tile fields are checked on their own below
            for key in ("luzaked", "scored", "left"):
                obj.pop(key, None)
        assert ours == theirs


# -- text, HTML, several files ------------------------------------------------------------------

class _Imgs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.imgs: list[dict[str, str | None]] = []
        self.figures: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.imgs.append(dict(attrs))
        if tag == "figure":
            self.figures.append(dict(attrs).get("id"))


@pytest.mark.parametrize(("game", "plots"), [
    ("luzak", ["advantage", "scores", "match-length", "points-by-n", "luzaks",
               "target-length"]),
    ("widelec", ["advantage", "scores", "match-length", "quartets", "bonus", "hand-ends",
                 "draws", "target-length"]),
])
def test_html_holds_every_plot(tmp_path: Path, game: str, plots: list[str]) -> None:
    pytest.importorskip("matplotlib")
    path = tmp_path / "sim.jsonl"
    write_sim(path, game, 6)
    out = tmp_path / "report.html"
    assert main(["report", str(path), "--html", str(out)]) == 0
    parser = _Imgs()
    parser.feed(out.read_text(encoding="utf-8"))
    parser.close()
    summaries = [summarise_file(read_sim_file(str(path)))]
    assert expected_plots(summaries) == plots
    assert len(parser.imgs) == len(plots)
    assert parser.figures == plots
    assert all((i.get("src") or "").startswith("data:image/png;base64,") for i in parser.imgs)


def _row(text: str, label: str) -> str:
    return next(line for line in text.splitlines() if line.strip().startswith(label))


def test_two_files_with_the_same_seed_are_paired_by_deal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    ha, _, _ = write_sim(a, "luzak", 8, players=("greedy", "random"))
    hb, _, _ = write_sim(b, "luzak", 8, players=("greedy", "greedy"),
                         options=["luzak-scores-count=no"])
    assert main(["report", str(a), str(b)]) == 0
    text = capsys.readouterr().out
    assert "[2]-[1]" in text and str(a) in text and str(b) in text
    assert "luzak_scores_count=no" in text and "seat 1 random" in text
    assert "luzak-scores-count=no" in text  # the variant's name in the column head
    assert "paired by deal" in text and "unpaired" not in text
    # the paired difference, computed here from the per-match sums: each match's
    # linearised contribution to R_b minus its contribution to R_a
    margin = lambda h: float(h["points"][h["opener"]] - h["points"][1 - h["opener"]])  # noqa: E731
    pa, pb = _by_match(ha, margin), _by_match(hb, margin)
    ra = sum(x for x, _ in pa) / sum(h for _, h in pa)
    rb = sum(x for x, _ in pb) / sum(h for _, h in pb)
    ma, mb = sum(h for _, h in pa) / 8, sum(h for _, h in pb) / 8
    d = [(xb - rb * hb_) / mb - (xa - ra * ha_) / ma
         for (xa, ha_), (xb, hb_) in zip(pa, pb, strict=True)]
    md = sum(d) / 8
    se = math.sqrt(sum((x - md) ** 2 for x in d) / (8 * 7))
    diff = rb - ra
    row = _row(text, "opener advantage")
    assert f"{diff:+.2f} [{diff - 1.96 * se:+.2f}, {diff + 1.96 * se:+.2f}]" in row
    # shares of matches differ in percentage points
    assert " pp [" in _row(text, "first opener wins")


def test_two_files_with_different_seeds_are_unpaired(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write_sim(a, "luzak", 8, players=("greedy", "random"))
    write_sim(b, "luzak", 8, seed=100, players=("greedy", "greedy"))
    assert main(["report", str(a), str(b)]) == 0
    text = capsys.readouterr().out
    assert "unpaired: different seeds (1 and 100)" in text
    sa, sb = (summarise_file(read_sim_file(str(p))) for p in (a, b))
    ea, eb = sa.estimates["opener_advantage"], sb.estimates["opener_advantage"]
    d = eb.value - ea.value
    assert ea.se is not None and eb.se is not None
    half = 1.96 * math.sqrt(ea.se ** 2 + eb.se ** 2)
    assert f"{d:+.2f} [{d - half:+.2f}, {d + half:+.2f}]" in _row(text, "opener advantage")
    # Luzak (12 tiles) against Widelec (7): different deals even with one seed
    c = tmp_path / "c.jsonl"
    write_sim(c, "widelec", 4)
    sc = summarise_file(read_sim_file(str(c)))
    assert "different deals (12 and 7 tiles a hand)" in summary_text([sa, sc])


def _tables_in_html(page: str) -> list[str]:
    return re.findall(r'<h2 id="table-([^"]+)">', page)


@pytest.mark.parametrize("files", [1, 2, 4])
def test_html_has_every_table_and_plot(tmp_path: Path, files: int) -> None:
    pytest.importorskip("matplotlib")
    paths = []
    for k in range(files):
        p = tmp_path / f"f{k}.jsonl"
        game = "luzak" if k % 2 == 0 else "widelec"
        write_sim(p, game, 4, options=[f"target={41 + 10 * k}"])
        paths.append(p)
    summaries = [summarise_file(read_sim_file(str(p))) for p in paths]
    tables = report_tables(summaries)
    text = summary_text(summaries)
    page = render_html(summaries)
    assert _tables_in_html(page) == [t.id for t in tables]
    for t in tables:
        assert t.title + ":" in text
        for row in t.rows:  # every cell of the text's tables is in the page
            assert all(html.escape(cell) in page for cell in row)
    parser = _Imgs()
    parser.feed(page)
    assert parser.figures == expected_plots(summaries)


def test_variant_labels_name_what_differs(tmp_path: Path) -> None:
    a, b, c = (tmp_path / f"{x}.jsonl" for x in "abc")
    write_sim(a, "widelec", 1)
    write_sim(b, "widelec", 1, options=["edge-double=no"])
    write_sim(c, "luzak", 1)
    sims = [read_sim_file(str(p)) for p in (a, b, c)]
    assert variant_labels(sims[:2]) == ["edge-double=yes", "edge-double=no"]
    assert variant_labels([sims[1]]) == ["widelec edge-double=no"]
    assert variant_labels([sims[0], sims[2]]) == ["widelec", "luzak"]
    assert variant_labels([sims[0], sims[0]]) == ["a [1]", "a [2]"]


def test_a_sweep_plots_each_figure_against_the_option(tmp_path: Path) -> None:
    paths = []
    for t in (31, 61, 41):
        p = tmp_path / f"t{t}.jsonl"
        write_sim(p, "widelec", 3, options=[f"target={t}"])
        paths.append(p)
    sims = [read_sim_file(str(p)) for p in paths]
    assert sweep_option(sims) == "target"
    assert variant_labels(sims) == ["target=31", "target=61", "target=41"]
    assert sweep_option(sims[:1]) is None
    summaries = [summarise_file(s) for s in sims]
    assert expected_plots(summaries)[-1] == "sweep"
    pytest.importorskip("matplotlib")
    assert "sweep" in render_plots(summaries)


def test_target_replay_reproduces_the_run_and_answers_lower_targets(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    hands, ms, _ = write_sim(path, "luzak", 12)
    s = summarise_file(read_sim_file(str(path)))
    by_target = {t.target: t for t in s.target_lengths}
    assert sorted(by_target) == [11, 21, 31, 41, 51, 61]
    # at the run's own target the replay gives the matches' real lengths
    assert _close(by_target[61].mean, _mean([float(m["hands"]) for m in ms]))
    # lower targets: replayed here by hand, even hands honoured
    for target in (21, 41):
        lengths = []
        for m in ms:
            pts = [h["points"] for h in hands if h["match"] == m["match"]]
            totals, k = [0, 0], 0
            for k, (p0, p1) in enumerate(pts, start=1):
                totals = [totals[0] + p0, totals[1] + p1]
                if max(totals) >= target and k % 2 == 0:
                    break
            lengths.append(float(k))
        assert _close(by_target[target].mean, _mean(lengths))
        assert all(x % 2 == 0 for x in lengths)


def _lab_file(path: Path, game: str, matches: int, options: list[str] | None = None) -> None:
    """A file written by the simulator itself (it records the tiles of each hand)."""
    setup = make_setup(game, ("greedy", "random"), seed=3, matches=matches,
                       options=options or [])
    text = dumps(setup.header()) + "\n" + "".join(match_lines(setup, i)
                                                   for i in range(matches))
    path.write_text(text, encoding="utf-8")


def test_tiles_luzaked_and_what_each_tile_is_worth(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    _lab_file(path, "luzak", 6)
    raw = [json.loads(x) for x in path.read_text().splitlines()[1:]]
    hands = [h for h in raw if h["type"] == "hand"]
    if "luzaked" not in hands[0]:
        pytest.skip("this simulator writes no tile fields")
    s = summarise_file(read_sim_file(str(path)))
    counts: dict[str, int] = {}
    for h in hands:
        for t in h["luzaked"]:
            counts[t] = counts.get(t, 0) + 1
    assert {f.tile: f.count for f in s.luzaked} == counts
    assert all(_close(f.estimate.value, f.count / len(hands)) for f in s.luzaked)
    values = [f.estimate.value for f in s.luzaked]
    assert values == sorted(values, reverse=True)
    # every tile laid is counted once (a Luzak hand lays ``moves`` tiles), and the points
    # are those the file says each laying scored
    assert sum(f.base for f in s.tile_worth) == sum(h["moves"] for h in hands)
    assert sum(f.count for f in s.tile_worth) == sum(p for h in hands for _, p in h["scored"])
    text = summary_text([s])
    assert "Which tiles are luzaked most" in text and "What each tile is worth" in text
    # Widelec: the drawn tiles come into play too
    w = tmp_path / "w.jsonl"
    _lab_file(w, "widelec", 4)
    sw = summarise_file(read_sim_file(str(w)))
    wh = [json.loads(x) for x in w.read_text().splitlines()[1:]]
    done = [h for h in wh if h["type"] == "hand" and h["end"] != "target"]
    laid = sum(7 + 7 + sum(h["draws"]) - len(h["left"][0]) - len(h["left"][1]) for h in done)
    assert sum(f.base for f in sw.tile_worth) == laid
    assert not sw.luzaked


def test_files_without_tile_fields_skip_the_tile_sections(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    write_sim(path, "luzak", 3)
    s = summarise_file(read_sim_file(str(path)))
    assert not s.luzaked and not s.tile_worth
    assert [t.id for t in report_tables([s])] == ["figures", "points-by-n", "target-length"]
    assert "tile" not in " ".join(expected_plots([s]))


def test_mixed_games_and_an_interrupted_file(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write_sim(a, "luzak-line", 3, asked=10)
    write_sim(b, "widelec", 3)
    sims = [read_sim_file(str(p)) for p in (a, b)]
    assert sims[0].interrupted and not sims[1].interrupted
    text = summary_text([summarise_file(s) for s in sims])
    assert "3 of 10 matches (interrupted run)" in text
    assert "luzaks per hand" in text and "quartets per hand" in text


# -- bad input ----------------------------------------------------------------------------------

def _bad(tmp_path: Path, mutate: Any) -> Path:
    good = tmp_path / "good.jsonl"
    write_sim(good, "widelec", 2)
    lines = good.read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(mutate(lines)) + "\n", encoding="utf-8")
    return bad


def _points(line: str, value: Any) -> str:
    obj = json.loads(line)
    obj["points"] = value
    return json.dumps(obj)


@pytest.mark.parametrize(("mutate", "where", "what"), [
    (lambda ls: ["not json", *ls[1:]], "line 1", "not JSON"),
    (lambda ls: [ls[0].replace("dominolab-sim", "other"), *ls[1:]], "line 1", "format"),
    (lambda ls: [ls[0].replace('"widelec"', '"chess"'), *ls[1:]], "line 1", "unknown game"),
    (lambda ls: [ls[0], _points(ls[1], [1]), *ls[2:]], "line 2", "points"),
    (lambda ls: [ls[0], _points(ls[1], "x"), *ls[2:]], "line 2", "points"),
    (lambda ls: [ls[0], ls[1][:-5], *ls[2:]], "line 2", "not JSON"),
    (lambda ls: [ls[0], *ls[2:]], "line", "hand"),
    (lambda ls: ls[:-1], "line", "no match line"),
    (lambda ls: [ls[0], '{"type": "nonsense"}', *ls[1:]], "line 2", "line type"),
])
def test_malformed_files(tmp_path: Path, capsys: pytest.CaptureFixture[str], mutate: Any,
                         where: str, what: str) -> None:
    bad = _bad(tmp_path, mutate)
    with pytest.raises(SimFileError) as info:
        read_sim_file(str(bad))
    assert str(bad) in str(info.value) and where in str(info.value)
    assert what in str(info.value)
    assert main(["report", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dominolab report: {bad}") and "Traceback" not in err


def test_missing_file_and_missing_matplotlib(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["report", str(tmp_path / "nope.jsonl")]) == 2
    assert "nope.jsonl" in capsys.readouterr().err
    good = tmp_path / "good.jsonl"
    write_sim(good, "luzak", 2)
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)
    assert main(["report", str(good), "--html", str(tmp_path / "r.html")]) == 2
    assert "needs matplotlib" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()
