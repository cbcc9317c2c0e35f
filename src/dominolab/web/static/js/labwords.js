// The lab's words (lab.js, labreport.js): numbers, intervals and verdicts in the page's
// language, each figure's sentence, and the report of GET /api/studies/ID/report (or of a
// comparison of studies) read into one shape for the drawing.

import { t, addStrings, formatNumber, getLang, has } from "./i18n.js";
import * as strings from "./strings/lab.js";

addStrings(strings);

// the lab's styles, read with its code (beside this file, under the same version)
if (!document.querySelector("link[data-lab-css]")) {
  document.head.append(Object.assign(document.createElement("link"), {
    rel: "stylesheet", href: new URL("../css/lab.css", import.meta.url).href,
  }));
  document.head.lastElementChild.setAttribute("data-lab-css", "");
}

// -- numbers in words ---------------------------------------------------------------------

/** X in the page's language with DIGITS decimals (a decimal comma in Polish). */
export const num = (x, digits = 2) => formatNumber(x, digits);

/** The sign X is written with at DIGITS decimals: none for what rounds to zero ("0.00",
 * never "−0.00"), "+" before a positive difference when SIGNED. */
function signOf(x, digits, signed) {
  const r = Number(Math.abs(x).toFixed(digits));
  if (r === 0) return "";
  return x < 0 ? "−" : signed ? "+" : "";
}

/** An interval as the page writes it: [53.2, 55.0] in English, [53,2; 55,0] in Polish. */
export function intervalText(lo, hi, digits = 1, signed = false) {
  const f = (x) => signOf(x, digits, signed) + num(Math.abs(x), digits);
  return getLang() === "pl" ? `[${f(lo)}; ${f(hi)}]` : `[${f(lo)}, ${f(hi)}]`;
}

/** The figure's text: a share in % with one decimal, other figures with two. */
export function valueText(value, percent, signed = false) {
  const digits = percent ? 1 : 2;
  const x = percent ? value * 100 : value;
  const sign = signOf(x, digits, signed);
  const body = `${sign}${num(Math.abs(x), digits)}`;
  if (!percent) return body;
  return signed ? t("unit.pp", { v: body }) : `${body}%`;
}

export function ciOf(est, percent, signed = false) {
  if (!est || !est.ci) return "";
  const k = percent ? 100 : 1;
  return intervalText(est.ci[0] * k, est.ci[1] * k, percent ? 1 : 2, signed);
}

// figures read against a centre: a share of matches against 50%, a margin against 0; the
// side the figure favours when it is above the centre, and when below
export const EDGES = {
  first_opener_wins: { centre: 0.5, above: "who.opener", below: "who.other" },
  seat0_wins: { centre: 0.5, above: "who.a", below: "who.b" },
  opener_advantage: { centre: 0, above: "who.opener", below: "who.other" },
  seat_margin: { centre: 0, above: "who.a", below: "who.b" },
};
//: an edge under this share of a match (5 points of %) or of a player's points a hand is small
const SMALL_SHARE = 0.05;
const SMALL_POINTS = 0.1;

/**
 * The verdict of figure KEY (an estimate {value, ci}) by its interval: "none" when the
 * interval holds the centre, else "small" or "clear" by how far the figure is from it
 * (a share of matches: 5 points of %; points: a tenth of a player's points a hand,
 * SCALE), and the side it favours.
 */
export function verdict(key, est, scale = null) {
  const edge = EDGES[key];
  if (!edge || !est || !est.ci) return null;
  const [lo, hi] = est.ci;
  if (lo <= edge.centre && edge.centre <= hi) return { size: "none", who: null };
  const gap = Math.abs(est.value - edge.centre);
  const small = edge.centre === 0.5 ? gap < SMALL_SHARE : gap < SMALL_POINTS * Math.abs(scale || 10);
  return { size: small ? "small" : "clear", who: est.value > edge.centre ? edge.above : edge.below, below: est.value < edge.centre };
}

function verdictWords(v, subject) {
  if (v.size === "none") return t("verdict.edge.none");
  // the sentence's subject having the edge goes without saying ("the opener wins 54%: a
  // small edge"); the other side is named
  if (v.who === subject) return t(`verdict.edge.${v.size}`);
  return t(`verdict.edge.${v.size}For`, { who: t(v.who) });
}

/** The sentence of figure KEY of one variant, in the page's language. */
export function figureSentence(key, est, percent, scale = null) {
  if (!est || est.value === null || Number.isNaN(est.value)) return "";
  const sayKey = `say.${key}`;
  const v = verdict(key, est, scale);
  const edge = EDGES[key];
  if (edge && edge.centre === 0 && est.value < 0) {
    // "scores 1.2 points fewer [0.8, 1.6]", not "scores −1.2 points more"
    const flipped = { value: -est.value, ci: est.ci ? [-est.ci[1], -est.ci[0]] : null };
    return t(`${sayKey}.less`, { v: valueText(flipped.value, percent), ci: ciOf(flipped, percent),
      verdict: v ? verdictWords(v, edge.above) : "" });
  }
  const vars = { v: valueText(est.value, percent), ci: ciOf(est, percent),
    verdict: v ? verdictWords(v, edge.above) : "", figure: figureLabel(key, key) };
  return has(sayKey) ? t(sayKey, vars) : t("say.generic", vars);
}

/** How big a difference D is from the first variant's BASE: none, small or clear. */
export function diffVerdict(d, base, percent) {
  if (!d || !d.ci) return null;
  if (d.ci[0] <= 0 && 0 <= d.ci[1]) return "none";
  const small = percent ? Math.abs(d.value) < 0.02 : Math.abs(d.value) < 0.05 * Math.abs(base?.value || 1);
  return small ? "small" : "clear";
}

export function figureLabel(key, fallback) {
  return has(`fig.${key}`) ? t(`fig.${key}`) : fallback;
}

// -- the report, as the page reads it -----------------------------------------------------

/** An estimate of the report ({value, low, high, se}, or null) as {value, ci}. */
export const est = (x) => (x && x.value !== null && x.value !== undefined
  ? { value: x.value, ci: x.low !== null && x.low !== undefined && x.high !== null && x.high !== undefined ? [x.low, x.high] : null }
  : null);

/** The report of GET /api/studies/ID/report (docs/web.md, "The lab": lab/report.py's
 * report_json) in one shape for the drawing below: the variants (label, options, figures,
 * distributions, tiles), the rows (key, label, percent), each variant's differences from
 * the first and whether they are paired by deal, and the swept option. */
export function readReport(raw, study) {
  const files = raw.files || [];
  const figures = raw.figures || [];
  const variants = files.map((f, i) => ({
    label: f.label ?? study?.variants?.[i]?.label ?? `[${i + 1}]`,
    options: f.header?.options ?? study?.variants?.[i]?.options ?? {},
    matches: f.matches ?? 0,
    hands: f.hands ?? 0,
    figures: Object.fromEntries(figures.map((row) => [row.key, est(row.values?.[i])])),
    pointsByN: (raw.points_by_n || []).filter((p) => p.values?.[i]).map((p) => ({ n: p.n, points: p.values[i].points, share: p.values[i].share })),
    matchHands: raw.distributions?.match_hands?.[i] ?? {},
    // the distributions the report's plots draw (whole number -> count), by their names
    dists: Object.fromEntries(Object.entries(raw.distributions || {}).map(([k, xs]) => [k, xs?.[i] ?? {}])),
    matchEnds: f.match_ends ?? {},
    // Widelec: how completed hands ended, in percent, as the report counts them (null in Luzak)
    handEndShares: f.hand_end_shares ?? null,
    targets: (raw.target_lengths?.[i] || []).map((x) => ({ ...x, est: est({ value: x.mean, low: x.low, high: x.high }) })),
    luzaked: (raw.tiles_luzaked?.[i] || []).map((x) => ({ tile: x.tile, est: est(x.estimate), count: x.count, base: x.base })),
    worth: (raw.tile_worth?.[i] || []).map((x) => ({ tile: x.tile, est: est(x.estimate), count: x.count, base: x.base })),
  }));
  const rows = figures.map((r) => ({ key: r.key, label: r.label ?? r.key, percent: !!r.percent }));
  const diffs = files.slice(1).map((_, j) => Object.fromEntries(figures.map((row) => [row.key, est(row.differences?.[j])])));
  const paired = (raw.comparisons || []).map((c) => !!c.paired);
  return { variants, rows, diffs, paired, how: (raw.comparisons || []).map((c) => c.how ?? ""),
    sweep: raw.sweep ?? study?.params?.sweep?.option ?? null };
}

