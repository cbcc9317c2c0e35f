// The report of a study or of studies compared (lab.js's /lab/ID and /lab/compare/A,B),
// drawn from readReport()'s shape: the key figures first (who wins, by how much, how long a
// match lasts) in words, then the charts (the figure chosen across the variants, the
// differences, every distribution of the report), then each full table folded under its
// title (<details>: reached by keyboard, opened with Enter). Every figure keeps its sentence.

import { t, formatNumber, has } from "./i18n.js";
import { el } from "./ui.js";
import { EDGES, ciOf, diffVerdict, figureLabel, figureSentence, intervalText, num, valueText } from "./labwords.js";
import { barsChart, figureBlock, intervalChart, linesChart } from "./labcharts.js";

/** TEXT with its first letter a capital: titles are in sentence case. */
export const sentenceCase = (text) => (text ? text[0].toUpperCase() + text.slice(1) : text);

//: the key figures, shown first: who wins, by how much, how long a match lasts
const KEY_FIGURES = ["first_opener_wins", "opener_advantage", "seat0_wins", "match_hands"];
//: the report's distributions drawn, each with the figure giving its mean
const DISTRIBUTIONS = [
  ["hand_points", "hand_points"], ["match_totals", "match_total"], ["luzaks_per_hand", "luzaks_per_hand"],
  ["luzak_costs", "luzak_cost"], ["quartets_per_hand", "quartets_per_hand"], ["bonuses", "bonus_size"],
  ["draws_per_hand", "draws_per_hand"],
];

/** A folded table: its title the summary (a keyboard stop of its own), its body below. */
function folded(testid, title, body) {
  return el("details", { class: "lab-details", "data-testid": testid }, [el("summary", { text: sentenceCase(title) }), ...body]);
}

/** A table that may scroll sideways, a keyboard stop with its name. */
function scroller(label, table) {
  return el("div", { class: "lab-scroll", tabindex: "0", role: "region", "aria-label": label }, [table]);
}

export class LabReport {
  /** REPORT: readReport()'s shape; RERENDER: called when the reader changes the chart. */
  constructor(report, rerender) {
    this.r = report;
    this.rerender = rerender;
    this.chartKey = "first_opener_wins";
  }

  get many() {
    return this.r.variants.length > 1;
  }

  element() {
    const r = this.r;
    const parts = [el("h2", { class: "section-title", text: t("report.title") })];
    if (this.many) {
      const all = r.paired.every(Boolean), none = !r.paired.some(Boolean);
      parts.push(el("p", { class: "muted", "data-testid": "report-pairing", "data-paired": r.paired.map(String).join(","),
        text: t(all ? "report.paired" : none ? "report.unpaired" : "report.somePaired") }));
    }
    parts.push(this.keyFigures());
    const charts = [this.mainChart(), this.many && r.diffs.length ? this.diffChart() : null, this.lengthsChart(),
      this.pointsByNChart(), ...this.distributionCharts()].filter(Boolean);
    parts.push(el("h3", { text: t("report.charts") }), el("div", { class: "lab-charts" }, charts));
    parts.push(el("h3", { text: t("report.tables") }));
    parts.push(folded("figures", t("report.figures"), [el("div", { class: "lab-figures" },
      r.rows.filter((row) => r.variants.some((v) => v.figures[row.key])).map((row) => this.figureSection(row)))]));
    parts.push(...[this.targetTable(), this.matchEnds(), this.handEnds(), this.pointsByNTable(), ...this.tileTables()].filter(Boolean));
    return el("section", { class: "panel lab-report", "data-testid": "study-report" }, parts);
  }

  sentences(key, percent) {
    const scale = (v) => v.figures.hand_points?.value ?? null;
    return this.r.variants.map((v, i) => {
      const said = figureSentence(key, v.figures[key], percent, scale(v));
      return said ? { i, label: v.label, said } : null;
    }).filter(Boolean);
  }

  /** Who wins, by how much and how long a match lasts: each variant's figure in a sentence. */
  keyFigures() {
    const r = this.r;
    const cards = KEY_FIGURES.map((key) => r.rows.find((row) => row.key === key)).filter((row) => row && r.variants.some((v) => v.figures[row.key])).map((row) => {
      const lines = this.sentences(row.key, row.percent).map(({ i, label, said }) => el("li", { "data-testid": "key-sentence", "data-key": row.key, "data-variant": String(i) },
        [this.many ? el("strong", { text: `${label}: ` }) : null, said]));
      return el("section", { class: "lab-key", "data-testid": "key-figure", "data-key": row.key }, [
        el("h4", { text: sentenceCase(figureLabel(row.key, row.label)) }), el("ul", { class: "lab-words" }, lines)]);
    });
    return el("div", { class: "lab-keys", "data-testid": "key-figures" }, cards);
  }

  /** One figure: a small table (each variant's value and interval, its difference from the
   * first) and what it means for a player, in a sentence a variant. */
  figureSection(row) {
    const r = this.r;
    const many = this.many;
    const label = figureLabel(row.key, row.label);
    const body = r.variants.map((v, i) => {
      const e = v.figures[row.key];
      const d = i > 0 ? r.diffs[i - 1]?.[row.key] : null;
      const cell = e ? [el("span", { class: "lab-v", text: valueText(e.value, row.percent) }), " ", el("span", { class: "lab-ci", text: ciOf(e, row.percent) })] : ["–"];
      const dcell = d ? [el("span", { class: "lab-v", text: valueText(d.value, row.percent, true) }), " ", el("span", { class: "lab-ci", text: ciOf(d, row.percent, true) })] : [i ? "–" : ""];
      return el("tr", {}, [
        many ? el("th", { scope: "row", text: v.label }) : null,
        el("td", { "data-testid": "figure-cell", "data-key": row.key, "data-variant": String(i), "data-value": e ? String(e.value) : "", "data-lo": e?.ci ? String(e.ci[0]) : "", "data-hi": e?.ci ? String(e.ci[1]) : "" }, cell),
        many ? el("td", { "data-testid": i ? "diff-cell" : null, "data-key": row.key, "data-variant": String(i), "data-value": d ? String(d.value) : "", "data-lo": d?.ci ? String(d.ci[0]) : "", "data-hi": d?.ci ? String(d.ci[1]) : "" }, dcell) : null,
      ]);
    });
    const sentences = this.sentences(row.key, row.percent).map(({ i, label: vl, said }) => el("li", { "data-testid": "figure-sentence", "data-key": row.key, "data-variant": String(i) },
      [many ? el("strong", { text: `${vl}: ` }) : null, said]));
    r.variants.forEach((v, i) => {
      const d = i > 0 ? r.diffs[i - 1]?.[row.key] : null;
      const dv = diffVerdict(d, r.variants[0].figures[row.key], row.percent);
      if (!dv) return;
      sentences.push(el("li", { "data-testid": "diff-sentence", "data-key": row.key, "data-variant": String(i) }, [t(r.paired[i - 1] ? "say.diff" : "say.diffUnpaired", {
        label: v.label, first: r.variants[0].label, figure: label, v: valueText(d.value, row.percent, true), ci: ciOf(d, row.percent, true), verdict: t(`verdict.diff.${dv}`),
      })]));
    });
    return el("section", { class: "lab-figure", "data-testid": "figure", "data-key": row.key }, [
      el("h4", { text: `${sentenceCase(label)} (95%)` }),
      el("table", { class: "lab-table" }, [
        many ? el("thead", {}, [el("tr", {}, [el("th", { scope: "col", text: t("report.variant") }), el("th", { scope: "col", text: t("report.value") }), el("th", { scope: "col", text: t("report.diffFrom", { a: r.variants[0].label }) })])]) : null,
        el("tbody", {}, body),
      ]),
      el("ul", { class: "lab-words" }, sentences),
    ]);
  }

  names() {
    const r = this.r;
    const sweep = r.sweep;
    return r.variants.map((v) => (sweep && v.options && sweep in v.options ? (typeof v.options[sweep] === "boolean" ? t(v.options[sweep] ? "lab.yes" : "lab.no") : String(v.options[sweep])) : v.label));
  }

  /** The figure the reader chooses (the opener's wins first), across the sweep's values
   * or the variants, with interval bars. */
  mainChart() {
    const r = this.r;
    const rows = r.rows.filter((row) => r.variants.some((v) => v.figures[row.key]));
    if (!rows.some((row) => row.key === this.chartKey) && rows.length) this.chartKey = rows[0].key;
    const row = rows.find((x) => x.key === this.chartKey);
    if (!row) return null;
    const sweep = r.sweep;
    const names = this.names();
    const ests = r.variants.map((v) => v.figures[row.key]);
    const label = figureLabel(row.key, row.label);
    const edge = EDGES[row.key];
    const title = sweep && this.many ? t("report.chartSweep", { figure: label, option: has(`opt.${sweep}`) ? t(`opt.${sweep}`) : sweep }) : t("report.chartVariants", { figure: label });
    const values = r.variants.map((v, i) => `${names[i]}: ${ests[i] ? `${valueText(ests[i].value, row.percent)} ${ciOf(ests[i], row.percent)}` : "–"}`).join("; ");
    const svg = intervalChart({ testid: "chart-figure", label: t("report.chartSweepLabel", { figure: label, values }), names, ests, percent: row.percent, centre: edge ? edge.centre : null });
    const choose = el("div", { class: "field lab-chart-choice" }, [
      el("label", { for: "lab-chart-figure", text: t("report.chartFigure") }),
      el("select", { id: "lab-chart-figure", "data-testid": "chart-choice", onchange: (e) => { this.chartKey = e.target.value; this.rerender(); document.getElementById("lab-chart-figure")?.focus(); } },
        rows.map((x) => el("option", { value: x.key, selected: x.key === this.chartKey }, [sentenceCase(figureLabel(x.key, x.label))]))),
    ]);
    return figureBlock(sentenceCase(title), svg, [], choose);
  }

  diffChart() {
    const r = this.r;
    const row = r.rows.find((x) => x.key === this.chartKey);
    if (!row) return null;
    const label = figureLabel(row.key, row.label);
    const others = r.variants.slice(1);
    const ests = others.map((_, i) => r.diffs[i]?.[row.key] || null);
    if (!ests.some(Boolean)) return null;
    const names = others.map((v) => v.label);
    const values = others.map((v, i) => `${v.label}: ${ests[i] ? `${valueText(ests[i].value, row.percent, true)} ${ciOf(ests[i], row.percent, true)}` : "–"}`).join("; ");
    const svg = intervalChart({ testid: "chart-diff", label: t("report.chartDiffLabel", { figure: label, values }), names, ests, percent: row.percent, signed: true, centre: 0 });
    return figureBlock(sentenceCase(t("report.chartDiff", { first: r.variants[0].label, figure: label })), svg, []);
  }

  /** What a distribution means in words, a variant: its commonest value and its mean. */
  distributionWords(dists, meanKey) {
    const r = this.r;
    return el("ul", { class: "lab-words" }, r.variants.map((v, i) => {
      const d = dists[i] || {};
      const total = Object.values(d).reduce((a, b) => a + b, 0);
      if (!total) return null;
      const [mode, count] = Object.entries(d).reduce((a, b) => (b[1] > a[1] ? b : a));
      const mean = v.figures[meanKey];
      const said = t(mean ? "say.dist" : "say.distMode", { mode, share: `${num((100 * count) / total, 1)}%`, v: mean ? valueText(mean.value, false) : "", ci: mean ? ciOf(mean, false) : "" });
      return el("li", { "data-testid": "dist-sentence", "data-variant": String(i) }, [this.many ? el("strong", { text: `${v.label}: ` }) : null, said]);
    }).filter(Boolean));
  }

  lengthsChart() {
    const r = this.r;
    const dists = r.variants.map((v) => v.matchHands);
    const svg = barsChart({ testid: "chart-lengths", label: t("report.lengthsLabel"), dists, xName: t("report.lengthsAxis") });
    return svg ? figureBlock(t("report.lengths"), svg, r.variants, this.distributionWords(dists, "match_hands")) : null;
  }

  distributionCharts() {
    const r = this.r;
    return DISTRIBUTIONS.map(([name, meanKey]) => {
      const dists = r.variants.map((v) => v.dists[name] || {});
      const svg = barsChart({ testid: `chart-dist-${name}`, label: t(`dist.${name}.label`), dists, xName: t(`dist.${name}.axis`) });
      return svg ? figureBlock(t(`dist.${name}`), svg, r.variants, this.distributionWords(dists, meanKey)) : null;
    });
  }

  pointsByNChart() {
    const r = this.r;
    const ns = [...new Set(r.variants.flatMap((v) => v.pointsByN.map((p) => p.n)))].sort((a, b) => a - b);
    if (!ns.length) return null;
    const series = r.variants.map((v) => ns.map((n) => v.pointsByN.find((p) => p.n === n)?.points ?? null));
    const svg = linesChart({ testid: "chart-points-by-n", label: t("report.pointsByNLabel"), xs: ns, series, yText: (v) => num(v, 1), xName: t("report.pointsByNAxis") });
    const words = el("ul", { class: "lab-words" }, r.variants.map((v, i) => {
      if (!v.pointsByN.length) return null;
      const best = v.pointsByN.reduce((a, b) => (b.points > a.points ? b : a));
      return el("li", {}, [this.many ? el("strong", { text: `${v.label}: ` }) : null, t("say.pointsByN", { n: best.n, v: num(best.points, 2), share: `${num(100 * best.share, 1)}%` })]);
    }).filter(Boolean));
    return figureBlock(t("report.pointsByN"), svg, r.variants, words);
  }

  pointsByNTable() {
    const r = this.r;
    const ns = [...new Set(r.variants.flatMap((v) => v.pointsByN.map((p) => p.n)))].sort((a, b) => a - b);
    if (!ns.length) return null;
    return folded("points-by-n-table", t("report.pointsByN"), [scroller(t("report.pointsByN"), el("table", { class: "lab-table", "data-testid": "points-by-n" }, [
      el("thead", {}, [el("tr", {}, [el("th", { scope: "col", text: t("report.n") }), ...r.variants.map((v) => el("th", { scope: "col", text: v.label }))])]),
      el("tbody", {}, ns.map((n) => el("tr", {}, [el("th", { scope: "row", text: String(n) }), ...r.variants.map((v, i) => {
        const p = v.pointsByN.find((x) => x.n === n);
        return el("td", { "data-testid": "points-by-n-cell", "data-n": String(n), "data-variant": String(i), "data-value": p ? String(p.points) : "" }, [p ? `${num(p.points, 2)} (${num(100 * p.share, 1)}%)` : "–"]);
      })]))),
    ])), el("p", { class: "muted small-note", text: t("report.pointsByNNote") })]);
  }

  /** Which target gives matches of N hands: each target up to the run's, replayed. */
  targetTable() {
    const r = this.r;
    if (!r.variants.some((v) => v.targets.length)) return null;
    const rows = r.variants.flatMap((v, i) => v.targets.map((x) => el("tr", {}, [
      this.many ? el("td", { text: v.label }) : null,
      el("th", { scope: "row", text: String(x.target) }),
      el("td", { "data-testid": "target-cell", "data-target": String(x.target), "data-variant": String(i), "data-value": String(x.mean) }, [
        el("span", { class: "lab-v", text: num(x.mean, 2) }), " ", el("span", { class: "lab-ci", text: ciOf(x.est, false) })]),
      el("td", { text: num(x.median, 0) }),
      el("td", { text: `${num(x.p10, 0)}–${num(x.p90, 0)}` }),
      el("td", { text: formatNumber(x.matches) }),
    ])));
    const words = r.variants.flatMap((v, i) => v.targets.map((x) => el("li", { "data-testid": "target-sentence", "data-target": String(x.target), "data-variant": String(i) }, [
      this.many ? el("strong", { text: `${v.label}: ` }) : null,
      t("say.target", { target: x.target, v: num(x.mean, 2), ci: ciOf(x.est, false), median: num(x.median, 0), p10: num(x.p10, 0), p90: num(x.p90, 0) })])));
    return folded("target-lengths", t("report.targets"), [scroller(t("report.targets"), el("table", { class: "lab-table" }, [
      el("thead", {}, [el("tr", {}, [this.many ? el("th", { scope: "col", text: t("report.variant") }) : null, ...["report.target", "report.meanHands", "report.median", "report.p10p90", "report.matches"].map((k) => el("th", { scope: "col", text: t(k) }))])]),
      el("tbody", {}, rows),
    ])), el("ul", { class: "lab-words" }, words), el("p", { class: "muted small-note", text: t("report.targetsNote") })]);
  }

  /** A table of how often each kind of end happened, a column a variant, with its sentences. */
  endsTable(testid, title, kinds, share, sayKey) {
    const r = this.r;
    const word = (k) => (has(`report.end.${k}`) ? t(`report.end.${k}`) : k);
    const words = r.variants.flatMap((v, i) => kinds.map((k) => {
      const x = share(v, k);
      if (x === null) return null;
      return el("li", { "data-testid": `${testid}-sentence`, "data-end": k, "data-variant": String(i) }, [this.many ? el("strong", { text: `${v.label}: ` }) : null,
        t(has(`${sayKey}.${k}`) ? `${sayKey}.${k}` : sayKey, { v: `${num(x, 1)}%`, end: word(k) })]);
    }).filter(Boolean));
    return folded(testid, title, [scroller(title, el("table", { class: "lab-table" }, [
      el("thead", {}, [el("tr", {}, [el("th", { scope: "col", text: t("report.end") }), ...r.variants.map((v) => el("th", { scope: "col", text: v.label }))])]),
      el("tbody", {}, kinds.map((k) => el("tr", {}, [el("th", { scope: "row", text: word(k) }), ...r.variants.map((v, i) => {
        const x = share(v, k);
        return el("td", { "data-testid": `${testid}-cell`, "data-end": k, "data-variant": String(i), "data-value": x === null ? "" : String(x) }, [x === null ? "–" : `${num(x, 1)}%`]);
      })]))),
    ])), el("ul", { class: "lab-words" }, words)]);
  }

  matchEnds() {
    const kinds = [...new Set(this.r.variants.flatMap((v) => Object.keys(v.matchEnds)))];
    if (!kinds.length) return null;
    const share = (v, k) => {
      const total = Object.values(v.matchEnds).reduce((a, b) => a + b, 0);
      return total ? (100 * (v.matchEnds[k] || 0)) / total : null;
    };
    return this.endsTable("match-ends", t("report.matchEnds"), kinds, share, "say.matchEnd");
  }

  /** How Widelec's completed hands end, as the report gives it (hand_end_shares). */
  handEnds() {
    const kinds = [...new Set(this.r.variants.flatMap((v) => Object.keys(v.handEndShares || {})))];
    if (!kinds.length) return null;
    const share = (v, k) => (v.handEndShares && k in v.handEndShares ? v.handEndShares[k] : null);
    return this.endsTable("hand-ends", t("report.handEnds"), kinds, share, "say.handEnd");
  }

  tileTables() {
    const r = this.r;
    const out = [];
    for (const [what, title, scale] of [["luzaked", "report.luzaked", 100], ["worth", "report.worth", 1]]) {
      if (!r.variants.some((v) => v[what].length)) continue;
      const rows = r.variants.flatMap((v, i) => v[what].slice(0, what === "luzaked" ? 8 : undefined).map((f) => el("tr", {}, [
        this.many ? el("td", { text: v.label }) : null,
        el("th", { scope: "row", text: f.tile }),
        el("td", { "data-testid": `${what}-cell`, "data-tile": f.tile, "data-variant": String(i), "data-value": f.est ? String(f.est.value) : "" },
          [f.est ? `${num(f.est.value * scale, 2)} ${f.est.ci ? intervalText(f.est.ci[0] * scale, f.est.ci[1] * scale, 2) : ""}` : "–"]),
        el("td", { text: `${formatNumber(f.count)} / ${formatNumber(f.base)}` }),
      ])));
      const words = r.variants.map((v, i) => {
        const [top, last] = [v[what][0], v[what][v[what].length - 1]];
        if (!top?.est) return null;
        const fmt = (f) => `${num(f.est.value * scale, 2)} ${f.est.ci ? intervalText(f.est.ci[0] * scale, f.est.ci[1] * scale, 2) : ""}`;
        return el("li", { "data-testid": `${what}-sentence`, "data-variant": String(i) }, [this.many ? el("strong", { text: `${v.label}: ` }) : null,
          t(`say.${what}`, { tile: top.tile, v: fmt(top), last: last.tile, w: fmt(last) })]);
      }).filter(Boolean);
      const table = el("table", { class: "lab-table" }, [
        el("thead", {}, [el("tr", {}, [this.many ? el("th", { scope: "col", text: t("report.variant") }) : null, el("th", { scope: "col", text: t("report.tile") }), el("th", { scope: "col", text: t(`${title}Col`) }), el("th", { scope: "col", text: t(`${title}Counts`) })])]),
        el("tbody", {}, rows),
      ]);
      out.push(folded(`tiles-${what}`, t(title), [scroller(t(title), table), el("ul", { class: "lab-words" }, words)]));
    }
    return out;
  }
}

