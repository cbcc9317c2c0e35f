// The lab in the browser (docs/web.md, "The lab"): /lab is the form of a study (a game, its
// rule options from GET /api/lab, a sweep of one option, the two players, the matches and
// the seed); /lab/ID is a study's own page: its progress over the WebSocket
// (/ws/studies/ID), a Cancel button, then the report drawn here: a table of every figure
// with its 95% interval and a sentence saying what it means for a player, the differences
// from the first variant, and charts in inline SVG of our own. Read when first shown (a
// dynamic import): the game page's first visit does not carry it.

import { request } from "./api.js";
import { t, addStrings, onLangChange, formatNumber, getLang, has } from "./i18n.js";
import { s } from "./tiles.js";
import { el, toast } from "./ui.js";
import * as strings from "./strings/lab.js";

addStrings(strings);

// the lab's styles, read with its code (beside this file, under the same version)
if (!document.querySelector("link[data-lab-css]")) {
  document.head.append(Object.assign(document.createElement("link"), {
    rel: "stylesheet", href: new URL("../css/lab.css", import.meta.url).href,
  }));
  document.head.lastElementChild.setAttribute("data-lab-css", "");
}

const enc = encodeURIComponent;
const labApi = {
  lab: () => request("GET", "/api/lab"),
  start: (body) => request("POST", "/api/studies", { body }),
  study: (id) => request("GET", `/api/studies/${enc(id)}`),
  cancel: (id) => request("POST", `/api/studies/${enc(id)}/cancel`, { body: {} }),
  report: (id) => request("GET", `/api/studies/${enc(id)}/report`),
};

/** The form's last values, kept while the tab lives: "change and run again" fills it. */
let lastParams = null;

// -- numbers in words ---------------------------------------------------------------------

/** X in the page's language with DIGITS decimals (a decimal comma in Polish). */
const num = (x, digits = 2) => formatNumber(x, digits);

/** An interval as the page writes it: [53.2, 55.0] in English, [53,2; 55,0] in Polish. */
export function intervalText(lo, hi, digits = 1, signed = false) {
  const f = (x) => (signed && x >= 0 ? "+" : x < 0 ? "−" : "") + num(Math.abs(x), digits);
  return getLang() === "pl" ? `[${f(lo)}; ${f(hi)}]` : `[${f(lo)}, ${f(hi)}]`;
}

/** The figure's text: a share in % with one decimal, other figures with two. */
export function valueText(value, percent, signed = false) {
  const digits = percent ? 1 : 2;
  const x = percent ? value * 100 : value;
  const sign = signed && x >= 0 ? "+" : x < 0 ? "−" : "";
  const body = `${sign}${num(Math.abs(x), digits)}`;
  if (!percent) return body;
  return signed ? t("unit.pp", { v: body }) : `${body}%`;
}

function ciOf(est, percent, signed = false) {
  if (!est || !est.ci) return "";
  const k = percent ? 100 : 1;
  return intervalText(est.ci[0] * k, est.ci[1] * k, percent ? 1 : 2, signed);
}

// figures read against a centre: a share of matches against 50%, a margin against 0; the
// side the figure favours when it is above the centre, and when below
const EDGES = {
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

function figureLabel(key, fallback) {
  return has(`fig.${key}`) ? t(`fig.${key}`) : fallback;
}

// -- the report, as the page reads it -----------------------------------------------------

/** An estimate of the report ({value, low, high, se}, or null) as {value, ci}. */
const est = (x) => (x && x.value !== null && x.value !== undefined
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
    handEnds: f.hand_ends ?? {},
    luzaked: (raw.tiles_luzaked?.[i] || []).map((x) => ({ tile: x.tile, est: est(x.estimate), count: x.count, base: x.base })),
    worth: (raw.tile_worth?.[i] || []).map((x) => ({ tile: x.tile, est: est(x.estimate), count: x.count, base: x.base })),
  }));
  const rows = figures.map((r) => ({ key: r.key, label: r.label ?? r.key, percent: !!r.percent }));
  const diffs = files.slice(1).map((_, j) => Object.fromEntries(figures.map((row) => [row.key, est(row.differences?.[j])])));
  const paired = (raw.comparisons || []).map((c) => !!c.paired);
  return { variants, rows, diffs, paired, sweep: raw.sweep ?? study?.params?.sweep?.option ?? null };
}

// -- charts (inline SVG: the review's curve is the model) -----------------------------------

const CW = 420, CH = 240, PAD = { l: 52, r: 12, t: 12, b: 46 };

function ticks(lo, hi, n = 4) {
  const span = hi - lo || 1;
  const step0 = span / n;
  const mag = 10 ** Math.floor(Math.log10(step0));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((x) => x >= step0);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toFixed(10)));
  return { out, step };
}

/** The frame of a chart: axes, the y ticks, the x names; returns [svg, x(i), y(v)]. */
/** A player of GET /api/lab in the page's language: by its name (``greedy``,
 * ``expert:200w``: the name, then the worlds a move); the API's own label otherwise. */
export function playerLabel(p) {
  const [name, budget] = p.spec.split(":");
  const key = `lab.player.${name}`;
  return has(key) ? t(key, { w: formatNumber(parseInt(budget || "0", 10)) }) : p.label;
}

function frame({ testid, label, names, lo, hi, yText, centre = null }) {
  const pad = (hi - lo) * 0.08 || Math.abs(hi) * 0.1 || 1;
  lo -= pad; hi += pad;
  const n = names.length;
  const innerW = CW - PAD.l - PAD.r, innerH = CH - PAD.t - PAD.b;
  const x = (i) => PAD.l + (n > 1 ? (i + 0.5) * (innerW / n) : innerW / 2);
  const y = (v) => PAD.t + (1 - (v - lo) / (hi - lo)) * innerH;
  const svg = s("svg", { class: "lab-chart", viewBox: `0 0 ${CW} ${CH}`, role: "img", "aria-label": label, "data-testid": testid });
  for (const v of ticks(lo, hi).out) {
    svg.append(s("line", { class: "lab-grid", x1: PAD.l, x2: CW - PAD.r, y1: y(v), y2: y(v) }));
    const tx = s("text", { class: "lab-tick", x: PAD.l - 6, y: y(v) + 4, "text-anchor": "end" });
    tx.textContent = yText(v);
    svg.append(tx);
  }
  if (centre !== null && centre >= lo && centre <= hi) {
    svg.append(s("line", { class: "lab-centre", x1: PAD.l, x2: CW - PAD.r, y1: y(centre), y2: y(centre) }));
  }
  svg.append(s("line", { class: "lab-axis", x1: PAD.l, x2: PAD.l, y1: PAD.t, y2: CH - PAD.b }));
  svg.append(s("line", { class: "lab-axis", x1: PAD.l, x2: CW - PAD.r, y1: CH - PAD.b, y2: CH - PAD.b }));
  const every = Math.max(1, Math.ceil(n / 8));
  names.forEach((name, i) => {
    if (i % every) return;
    const tx = s("text", { class: "lab-tick", x: x(i), y: CH - PAD.b + 18, "text-anchor": "middle" });
    tx.textContent = String(name).length > 14 ? `${String(name).slice(0, 13)}…` : String(name);
    svg.append(tx);
  });
  return [svg, x, y];
}

/** Points with interval bars, one a variant (the figure across a sweep's values, or each
 * variant's difference from the first): EST a list of {value, ci}. */
function intervalChart({ testid, label, names, ests, percent, signed = false, centre = null }) {
  const k = percent ? 100 : 1;
  const vals = ests.flatMap((e) => (e ? [e.value, ...(e.ci || [])] : [])).map((v) => v * k);
  if (centre !== null) vals.push(centre * k);
  const [svg, x, y] = frame({
    testid, label, names, lo: Math.min(...vals), hi: Math.max(...vals), centre: centre === null ? null : centre * k,
    yText: (v) => (percent ? `${num(v, Math.abs(v) < 10 && v % 1 ? 1 : 0)}${signed ? "" : "%"}` : num(v, Math.abs(v) < 10 ? 1 : 0)),
  });
  ests.forEach((e, i) => {
    if (!e) return;
    const g = s("g", { class: `lab-series lab-s${i % 8}`, "data-testid": "chart-point", "data-value": String(e.value) });
    if (e.ci) {
      const [a, b] = [y(e.ci[0] * k), y(e.ci[1] * k)];
      g.append(s("line", { class: "lab-bar", x1: x(i), x2: x(i), y1: a, y2: b }));
      g.append(s("line", { class: "lab-bar", x1: x(i) - 7, x2: x(i) + 7, y1: a, y2: a }));
      g.append(s("line", { class: "lab-bar", x1: x(i) - 7, x2: x(i) + 7, y1: b, y2: b }));
    }
    g.append(s("circle", { class: "lab-dot", cx: x(i), cy: y(e.value * k), r: 5 }));
    svg.append(g);
  });
  if (ests.filter(Boolean).length > 1) {
    const pts = ests.map((e, i) => (e ? `${x(i)},${y(e.value * k)}` : null)).filter(Boolean).join(" ");
    svg.insertBefore(s("polyline", { class: "lab-join", points: pts }), svg.querySelector(".lab-series"));
  }
  return svg;
}

/** Lines of several variants over a shared x (the match lengths' shares, points by N). */
function linesChart({ testid, label, xs, series, yText, xName }) {
  const all = series.flatMap((ys) => ys.filter((v) => v !== null));
  const [svg, x, y] = frame({ testid, label, names: xs, lo: Math.min(0, ...all), hi: Math.max(...all, 0.001), yText });
  series.forEach((ys, i) => {
    const pts = ys.map((v, j) => (v === null ? null : `${x(j)},${y(v)}`)).filter(Boolean).join(" ");
    svg.append(s("polyline", { class: `lab-line lab-s${i % 8}`, points: pts, "data-testid": "chart-line" }));
    ys.forEach((v, j) => { if (v !== null) svg.append(s("circle", { class: `lab-dot lab-s${i % 8}`, cx: x(j), cy: y(v), r: 2.5 })); });
  });
  const cap = s("text", { class: "lab-tick", x: PAD.l + (CW - PAD.l - PAD.r) / 2, y: CH - 8, "text-anchor": "middle" });
  cap.textContent = xName;
  svg.append(cap);
  return svg;
}

function legend(variants) {
  if (variants.length < 2) return null;
  return el("ul", { class: "lab-legend" }, variants.map((v, i) => el("li", {}, [
    el("span", { class: `lab-swatch lab-s${i % 8}`, "aria-hidden": "true" }), v.label,
  ])));
}

function figureBlock(title, svg, variants, extra = null) {
  return el("figure", { class: "lab-figure-chart" }, [svg, legend(variants), extra, el("figcaption", { text: title })]);
}

// -- the view -------------------------------------------------------------------------------

export class LabView {
  /** ID: a study's id (/lab/ID), or null for the form (/lab). */
  constructor(id, navigate) {
    this.id = id;
    this.navigate = navigate;
    this.disposers = [];
    this.lab = null;
    this.study = null;
    this.report = null;
    this.error = null;
    this.values = null;
    this.chartKey = "first_opener_wins";
  }

  mount(root) {
    this.root = root;
    this.mounted = true;
    this.element = el("div", { class: "lab", "data-testid": this.id ? "study" : "lab" });
    root.append(this.element);
    this.disposers.push(onLangChange(() => this.render()));
    document.title = `${t("lab.title")} — dominolab`;
    this.render();
    if (this.id) this.loadStudy();
    else this.loadLab();
  }

  unmount() {
    this.mounted = false;
    this.stopWatching();
    for (const d of this.disposers) d();
  }

  render() {
    if (!this.mounted) return;
    document.title = `${t("lab.title")} — dominolab`;
    this.element.replaceChildren(...(this.id ? this.studyParts() : this.formParts()));
  }

  // ---- the form ----

  async loadLab() {
    this.error = null;
    try {
      this.lab = await labApi.lab();
    } catch (err) {
      this.error = err.describe ? err.describe() : String(err);
    }
    if (!this.mounted) return;
    if (this.lab && this.lab.enabled) this.values = this.initialValues();
    this.render();
  }

  initialValues() {
    const games = this.lab.games;
    const from = lastParams && games.some((g) => g.name === lastParams.game) ? lastParams : null;
    const game = from ? from.game : games[0].name;
    const specs = this.lab.players.map((p) => p.spec);
    const players = from ? from.players : [specs.includes("greedy") ? "greedy" : specs[0], specs.includes("greedy") ? "greedy" : specs[0]];
    return {
      game,
      options: from ? { ...from.options } : {},
      sweepOption: from && from.sweep ? from.sweep.option : "",
      sweepValues: from && from.sweep ? from.sweep.values.map((v) => (typeof v === "boolean" ? t(v ? "lab.yes" : "lab.no") : String(v))).join(", ") : "",
      players: [...players],
      matches: String(from ? from.matches : 1000),
      seed: String(from ? from.seed : 1),
    };
  }

  game() {
    return this.lab.games.find((g) => g.name === this.values.game) || this.lab.games[0];
  }

  formParts() {
    const head = el("header", { class: "lab-head" }, [
      el("h1", { text: t("lab.title") }),
      el("p", { class: "lead", text: t("lab.lead") }),
    ]);
    if (this.error) {
      return [head, el("section", { class: "panel", role: "alert", "data-testid": "lab-error" }, [
        el("p", { text: t("lab.loadFailed", { e: this.error }) }),
        el("button", { type: "button", class: "button", onclick: () => this.loadLab() }, [t("lab.retry")]),
      ])];
    }
    if (!this.lab) return [head, el("p", { class: "muted", "data-testid": "lab-loading", text: t("lab.loading") })];
    if (!this.lab.enabled) {
      return [head, el("section", { class: "panel lab-off", "data-testid": "lab-off" }, [
        el("h2", { class: "section-title", text: t("lab.offTitle") }),
        el("p", { text: this.lab.why || "" }),
      ])];
    }
    return [head, this.form()];
  }

  form() {
    const v = this.values;
    const game = this.game();
    const errorBox = el("p", { class: "form-error", role: "alert", "data-testid": "lab-form-error", hidden: true });
    const gameSel = el("select", { id: "lab-game", name: "game", onchange: (e) => { v.game = e.target.value; v.options = {}; v.sweepOption = ""; this.render(); } },
      this.lab.games.map((g) => el("option", { value: g.name, selected: g.name === v.game }, [has(`game.${g.name}`) ? t(`game.${g.name}`) : g.title])));
    const options = el("fieldset", { class: "options lab-options" }, [
      el("legend", { text: t("lab.options") }),
      ...game.options.map((o) => this.optionField(o)),
    ]);
    const sweepSel = el("select", { id: "lab-sweep", name: "sweep", "data-testid": "lab-sweep-option", onchange: (e) => { v.sweepOption = e.target.value; this.render(); this.element.querySelector("#lab-sweep").focus(); } }, [
      el("option", { value: "", selected: !v.sweepOption }, [t("lab.sweepNone")]),
      ...game.options.map((o) => el("option", { value: o.name, selected: o.name === v.sweepOption }, [this.optionText(o)])),
    ]);
    const sweep = el("fieldset", { class: "options lab-sweep" }, [
      el("legend", { text: t("lab.sweep") }),
      el("div", { class: "field" }, [el("label", { for: "lab-sweep", class: "visually-hidden", text: t("lab.sweep") }), sweepSel]),
      v.sweepOption ? el("div", { class: "field" }, [
        el("label", { for: "lab-sweep-values", text: t("lab.sweepValues") }),
        el("input", { type: "text", id: "lab-sweep-values", name: "sweep-values", "data-testid": "lab-sweep-values", value: v.sweepValues, autocomplete: "off", "aria-describedby": "lab-sweep-hint", oninput: (e) => { v.sweepValues = e.target.value; } }),
        el("p", { id: "lab-sweep-hint", class: "muted small-note", text: t("lab.sweepValuesHint") }),
      ]) : null,
    ]);
    const playerSel = (seat) => el("div", { class: "field" }, [
      el("label", { for: `lab-player-${seat}`, text: t(seat ? "lab.playerB" : "lab.playerA") }),
      el("select", { id: `lab-player-${seat}`, name: `player-${seat}`, "data-testid": `lab-player-${seat}`, onchange: (e) => { v.players[seat] = e.target.value; } },
        this.lab.players.map((p) => el("option", { value: p.spec, selected: p.spec === v.players[seat] }, [playerLabel(p)]))),
    ]);
    const numberField = (name, label, hint = null) => el("div", { class: "field" }, [
      el("label", { for: `lab-${name}`, text: label }),
      el("input", { type: "number", id: `lab-${name}`, name, "data-testid": `lab-${name}`, value: v[name], min: name === "matches" ? "1" : "0", step: "1", inputmode: "numeric", required: true, "aria-describedby": hint ? `lab-${name}-hint` : null, oninput: (e) => { v[name] = e.target.value; } }),
      hint ? el("p", { id: `lab-${name}-hint`, class: "muted small-note", text: hint }) : null,
    ]);
    const run = el("button", { type: "submit", class: "button primary big", "data-testid": "lab-run" }, [t("lab.run")]);
    const form = el("form", { class: "panel lab-form", "data-testid": "lab-form", novalidate: true, onsubmit: (e) => { e.preventDefault(); this.submit(run, errorBox); } }, [
      el("div", { class: "field" }, [el("label", { for: "lab-game", text: t("lab.game") }), gameSel]),
      options,
      sweep,
      el("fieldset", { class: "options" }, [el("legend", { text: t("lab.players") }), el("div", { class: "field-row" }, [playerSel(0), playerSel(1)])]),
      el("div", { class: "field-row" }, [numberField("matches", t("lab.matches")), numberField("seed", t("lab.seed"))]),
      el("p", { class: "muted small-note", text: t("lab.seedHint") }),
      errorBox,
      el("div", { class: "form-actions" }, [run]),
    ]);
    return form;
  }

  optionText(o) {
    return has(`opt.${o.name}`) ? t(`opt.${o.name}`) : o.text;
  }

  /** One rule option: its input (a number with its range, or a switch), its default and
   * a link to its rule in the player's guide. */
  optionField(o) {
    const v = this.values;
    const id = `lab-opt-${o.name}`;
    const current = o.name in v.options ? v.options[o.name] : o.default;
    const range = o.kind === "bool" ? "" : o.max === null || o.max === undefined ? t("lab.rangeFrom", { min: o.min ?? 0 }) : t("lab.range", { min: o.min ?? 0, max: o.max });
    const dflt = t("lab.default", { v: o.kind === "bool" ? t(o.default ? "lab.yes" : "lab.no") : o.default });
    const hint = el("p", { id: `${id}-hint`, class: "muted small-note lab-hint" }, [
      [range, dflt].filter(Boolean).join(", "), " · ",
      el("a", { href: o.guide, "data-link": true, "data-testid": "option-guide", "data-option": o.name }, [t("lab.theRule")]),
    ]);
    if (o.kind === "bool") {
      return el("div", { class: "check lab-check" }, [
        el("input", { type: "checkbox", id, name: `opt-${o.name}`, checked: !!current, "aria-describedby": `${id}-hint`, onchange: (e) => { v.options[o.name] = e.target.checked; } }),
        el("label", { for: id, text: this.optionText(o) }),
        hint,
      ]);
    }
    return el("div", { class: "field" }, [
      el("label", { for: id, text: this.optionText(o) }),
      el("input", { type: "number", id, name: `opt-${o.name}`, value: String(current), min: o.min ?? null, max: o.max ?? null, step: "1", inputmode: "numeric", "aria-describedby": `${id}-hint`, oninput: (e) => { v.options[o.name] = e.target.value; } }),
      hint,
    ]);
  }

  /** The form's values as POST /api/studies takes them, or throws an Error whose message
   * names the bad field. */
  body() {
    const v = this.values;
    const game = this.game();
    const whole = (text, what) => {
      const s0 = String(text).trim();
      if (!/^-?\d+$/.test(s0)) throw new Error(t("lab.badValue", { what, value: s0 }));
      return Number(s0);
    };
    const yesNo = (text, what) => {
      const w = String(text).trim().toLowerCase();
      if (["yes", "true", "on", "tak", "1", t("lab.yes")].includes(w)) return true;
      if (["no", "false", "off", "nie", "0", t("lab.no")].includes(w)) return false;
      throw new Error(t("lab.badValue", { what, value: text }));
    };
    const options = {};
    for (const o of game.options) {
      if (!(o.name in v.options) || o.name === v.sweepOption) continue;
      const x = v.options[o.name];
      options[o.name] = o.kind === "bool" ? !!x : whole(x, this.optionText(o));
    }
    let sweep = null;
    if (v.sweepOption) {
      const o = game.options.find((x) => x.name === v.sweepOption);
      const parts = v.sweepValues.split(/[,;\s]+/).filter(Boolean);
      if (!parts.length) throw new Error(t("lab.noValues"));
      sweep = { option: o.name, values: parts.map((p) => (o.kind === "bool" ? yesNo(p, this.optionText(o)) : whole(p, this.optionText(o)))) };
    }
    return {
      game: game.name, options, sweep, players: [...v.players],
      matches: whole(v.matches, t("lab.matches")), seed: whole(v.seed, t("lab.seed")),
    };
  }

  async submit(button, errorBox) {
    if (this.submitting) return;
    let body;
    try {
      body = this.body();
    } catch (err) {
      errorBox.textContent = err.message;
      errorBox.hidden = false;
      return;
    }
    this.submitting = true;
    button.disabled = true;
    button.textContent = t("lab.running");
    errorBox.hidden = true;
    try {
      const made = await labApi.start(body);
      lastParams = body;
      if (this.mounted) this.navigate(made.url || `/lab/${enc(made.id)}`);
    } catch (err) {
      errorBox.textContent = err.status === 429 && err.retryAfter !== null
        ? t("lab.tooMany", { s: err.retryAfter })
        : t("lab.refused", { e: err.describe ? err.describe() : String(err) });
      errorBox.hidden = false;
      button.disabled = false;
      button.textContent = t("lab.run");
    } finally {
      this.submitting = false;
    }
  }

  // ---- a study ----

  async loadStudy() {
    try {
      this.study = await labApi.study(this.id);
      this.error = null;
    } catch (err) {
      this.error = err;
    }
    if (!this.mounted) return;
    this.render();
    if (this.study) this.follow();
  }

  /** Follow the study until it ends: the socket's progress, or a GET a second when the
   * socket cannot be had; then the report. */
  follow() {
    if (this.finished()) {
      this.loadReport();
      return;
    }
    this.watch();
  }

  finished() {
    return this.study && ["done", "cancelled", "failed"].includes(this.study.state);
  }

  watch() {
    this.stopWatching();
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    let ws;
    try {
      ws = new WebSocket(`${proto}//${location.host}/ws/studies/${enc(this.id)}`);
    } catch (_) {
      this.poll();
      return;
    }
    this.ws = ws;
    ws.addEventListener("message", (ev) => {
      if (ws !== this.ws) return;
      let msg;
      try { msg = JSON.parse(ev.data); } catch (_) { return; }
      if (msg.type !== "progress") return;
      this.progress(msg);
    });
    ws.addEventListener("close", () => {
      if (ws !== this.ws) return;
      this.ws = null;
      // closed before the end (a restart, the network): ask by GET until it ends
      if (this.mounted && !this.finished()) this.poll();
    });
    ws.addEventListener("error", () => {});
  }

  poll() {
    clearTimeout(this.timer);
    this.timer = setTimeout(async () => {
      if (!this.mounted) return;
      try {
        const st = await labApi.study(this.id);
        this.study = st;
        this.progress(st);
      } catch (_) { /* the next try */ }
      if (this.mounted && !this.finished()) this.poll();
    }, 1000);
  }

  stopWatching() {
    clearTimeout(this.timer);
    if (this.ws) {
      const old = this.ws;
      this.ws = null;
      try { old.close(1000); } catch (_) { /* ignore */ }
    }
  }

  /** A progress message {done, total, state}: the bar moves; at the end, the study again
   * (its variants' counts) and the report. */
  async progress(msg) {
    const was = this.study.state;
    Object.assign(this.study, { done: msg.done, total: msg.total, state: msg.state });
    this.drawProgress();
    if (this.finished() && !["done", "cancelled", "failed"].includes(was)) {
      this.stopWatching();
      try { this.study = await labApi.study(this.id); } catch (_) { /* keep what we have */ }
      if (!this.mounted) return;
      this.render();
      this.loadReport();
    }
  }

  drawProgress() {
    const box = this.element.querySelector("[data-testid=study-progress]");
    if (!box) { this.render(); return; }
    const st = this.study;
    box.replaceWith(this.progressBox());
    this.element.dataset.state = st.state;
    const cancel = this.element.querySelector("[data-testid=study-cancel]");
    if (cancel && this.finished()) cancel.remove();
  }

  progressBox() {
    const st = this.study;
    const total = Math.max(1, st.total || 0);
    return el("div", { class: "lab-progress", "data-testid": "study-progress", "data-done": String(st.done), "data-total": String(st.total), "data-state": st.state }, [
      el("p", { class: "lab-state", "data-testid": "study-state" }, [el("strong", { text: t(`study.state.${st.state}`) }), " — ",
        t("study.progressText", { done: formatNumber(st.done), total: formatNumber(st.total), count: st.total })]),
      el("progress", { max: String(total), value: String(Math.min(st.done, total)), "aria-label": t("study.progress") }),
    ]);
  }

  async cancel(button) {
    button.disabled = true;
    button.textContent = t("study.cancelling");
    try {
      const st = await labApi.cancel(this.id);
      if (st && st.state) this.progress(st);
    } catch (err) {
      toast(t("study.cancelFailed", { e: err.describe ? err.describe() : String(err) }), "error");
      button.disabled = false;
      button.textContent = t("study.cancel");
    }
  }

  async loadReport() {
    // a cancelled study has a report once every variant has a match (docs/web.md)
    const st = this.study;
    if (!st || st.state === "failed" || !st.done || (st.variants || []).some((v) => !v.done)) return;
    this.reportError = null;
    try {
      this.report = readReport(await labApi.report(this.id), this.study);
    } catch (err) {
      this.reportError = err.describe ? err.describe() : String(err);
    }
    if (this.mounted) this.render();
  }

  studyParts() {
    const head = el("header", { class: "lab-head" }, [el("h1", { text: t("study.title", { id: this.id }) })]);
    if (this.error) {
      const text = this.error.status === 404 ? t("study.notFound", { id: this.id })
        : t("study.failedLoad", { e: this.error.describe ? this.error.describe() : String(this.error) });
      return [head, el("section", { class: "panel", role: "alert", "data-testid": "study-error" }, [
        el("p", { text }), el("p", {}, [el("a", { href: "/lab", "data-link": true, class: "button" }, [t("lab.title")])]),
      ])];
    }
    const st = this.study;
    if (!st) return [head, el("p", { class: "muted", text: t("study.loading") })];
    this.element.dataset.state = st.state;
    const parts = [head, this.paramsPanel()];
    const status = el("section", { class: "panel lab-status", "aria-live": "polite" }, [this.progressBox()]);
    if (!this.finished()) {
      status.append(el("button", { type: "button", class: "button", "data-testid": "study-cancel", onclick: (e) => this.cancel(e.currentTarget) }, [t("study.cancel")]));
    }
    if (st.state === "failed") status.append(el("p", { class: "form-error", role: "alert", text: t("study.error", { e: st.error || "" }) }));
    if (st.state === "cancelled") status.append(el("p", { class: "muted", text: t("study.cancelledNote") }));
    parts.push(status);
    if (this.finished()) {
      parts.push(this.downloads());
      if (this.report) parts.push(this.reportPanel());
      else if (this.reportError) parts.push(el("p", { class: "form-error", role: "alert", "data-testid": "report-error", text: t("study.reportFailed", { e: this.reportError }) }));
      else if (st.done && !(st.variants || []).some((v) => !v.done)) parts.push(el("p", { class: "muted", text: t("study.reportLoading") }));
    }
    return parts;
  }

  paramsPanel() {
    const p = this.study.params || {};
    const game = p.game ? (has(`game.${p.game}`) ? t(`game.${p.game}`) : p.game) : "";
    const yes = (x) => (typeof x === "boolean" ? t(x ? "lab.yes" : "lab.no") : String(x));
    const rows = [[t("lab.game"), game]];
    for (const [k, x] of Object.entries(p.options || {})) if (!p.sweep || k !== p.sweep.option) rows.push([has(`opt.${k}`) ? t(`opt.${k}`) : k, yes(x)]);
    if (p.sweep) rows.push([has(`opt.${p.sweep.option}`) ? t(`opt.${p.sweep.option}`) : p.sweep.option, p.sweep.values.map(yes).join(", ")]);
    if (p.players) rows.push([t("lab.players"), p.players.map((spec) => playerLabel({ spec, label: spec })).join(" — ")]);
    if (p.matches !== undefined) rows.push([t("lab.matches"), formatNumber(p.matches)]);
    if (p.seed !== undefined) rows.push([t("lab.seed"), String(p.seed)]);
    const again = el("button", { type: "button", class: "button", "data-testid": "study-again", onclick: () => {
      lastParams = { game: p.game, options: p.options || {}, sweep: p.sweep || null, players: p.players, matches: p.matches, seed: p.seed };
      this.navigate("/lab");
    } }, [t("study.again")]);
    return el("section", { class: "panel lab-params", "data-testid": "study-params" }, [
      el("h2", { class: "section-title", text: t("study.params") }),
      el("dl", { class: "lab-facts" }, rows.flatMap(([k, x]) => [el("dt", { text: k }), el("dd", { text: x })])),
      p.game ? again : null,
    ]);
  }

  downloads() {
    const st = this.study;
    const commands = Array.isArray(st.command) ? st.command.join("\n") : (st.command || "");
    const copy = el("button", { type: "button", class: "button", "data-testid": "copy-command", onclick: async () => {
      try {
        await navigator.clipboard.writeText(commands);
        toast(t("study.copied"));
      } catch (_) {
        toast(t("study.copyFailed"), "error");
      }
    } }, [t("study.copy")]);
    return el("section", { class: "panel lab-downloads", "data-testid": "study-downloads" }, [
      el("h2", { class: "section-title", text: t("study.downloads") }),
      el("ul", { class: "lab-files" }, (st.variants || []).map((v) => el("li", {}, [
        el("a", { href: v.file, download: v.file_name || "", "data-testid": "variant-file", class: "button" }, [
          t("study.file", { label: v.label, n: formatNumber(v.done ?? v.matches ?? 0), count: v.done ?? v.matches ?? 0 })]),
      ]))),
      el("label", { for: "lab-command", class: "lab-command-label", text: t("study.command") }),
      el("textarea", { id: "lab-command", class: "lab-command", "data-testid": "study-command", readonly: true, rows: String(Math.min(8, commands.split("\n").length + 1)), spellcheck: "false" }, [commands]),
      el("p", {}, [copy]),
    ]);
  }

  // ---- the report ----

  reportPanel() {
    const r = this.report;
    const parts = [el("h2", { class: "section-title", text: t("report.title") })];
    if (r.variants.length > 1) parts.push(el("p", { class: "muted", "data-testid": "report-pairing", text: t(r.paired.every(Boolean) ? "report.paired" : "report.unpaired") }));
    parts.push(this.mainChart());
    if (r.variants.length > 1 && r.diffs.length) parts.push(this.diffChart());
    parts.push(el("h3", { text: t("report.figures") }));
    parts.push(el("div", { class: "lab-figures" }, r.rows.filter((row) => r.variants.some((v) => v.figures[row.key])).map((row) => this.figureSection(row))));
    const lengths = this.lengthsChart();
    if (lengths) parts.push(lengths);
    const byN = this.pointsByN();
    if (byN) parts.push(...byN);
    const ends = this.handEnds();
    if (ends) parts.push(ends);
    parts.push(...this.tileTables());
    return el("section", { class: "panel lab-report", "data-testid": "study-report" }, parts);
  }

  /** One figure: a small table (each variant's value and interval, its difference from the
   * first) and what it means for a player, in a sentence a variant. */
  figureSection(row) {
    const r = this.report;
    const many = r.variants.length > 1;
    const label = figureLabel(row.key, row.label);
    const scale = (v) => v.figures.hand_points?.value ?? null;
    const body = r.variants.map((v, i) => {
      const e = v.figures[row.key];
      const d = i > 0 ? r.diffs[i - 1]?.[row.key] : null;
      const cell = e ? [el("span", { class: "lab-v", text: valueText(e.value, row.percent) }), " ", el("span", { class: "lab-ci", text: ciOf(e, row.percent) })] : ["–"];
      const dcell = d ? [el("span", { class: "lab-v", text: valueText(d.value, row.percent, true) }), " ", el("span", { class: "lab-ci", text: ciOf(d, row.percent, true) })] : [i ? "–" : ""];
      return el("tr", {}, [
        many ? el("th", { scope: "row", text: v.label }) : null,
        el("td", { "data-testid": "figure-cell", "data-key": row.key, "data-variant": String(i), "data-value": e ? String(e.value) : "", "data-lo": e?.ci ? String(e.ci[0]) : "", "data-hi": e?.ci ? String(e.ci[1]) : "" }, cell),
        many ? el("td", { "data-testid": i ? "diff-cell" : null, "data-key": row.key, "data-variant": String(i), "data-value": d ? String(d.value) : "" }, dcell) : null,
      ]);
    });
    const sentences = r.variants.map((v, i) => {
      const said = figureSentence(row.key, v.figures[row.key], row.percent, scale(v));
      if (!said) return null;
      return el("li", { "data-testid": "figure-sentence", "data-key": row.key, "data-variant": String(i) }, [many ? el("strong", { text: `${v.label}: ` }) : null, said]);
    });
    r.variants.forEach((v, i) => {
      const d = i > 0 ? r.diffs[i - 1]?.[row.key] : null;
      const dv = diffVerdict(d, r.variants[0].figures[row.key], row.percent);
      if (!dv) return;
      sentences.push(el("li", { "data-testid": "diff-sentence", "data-key": row.key, "data-variant": String(i) }, [t("say.diff", {
        label: v.label, first: r.variants[0].label, figure: label, v: valueText(d.value, row.percent, true), ci: ciOf(d, row.percent, true), verdict: t(`verdict.diff.${dv}`),
      })]));
    });
    return el("section", { class: "lab-figure", "data-testid": "figure", "data-key": row.key }, [
      el("h4", { text: `${label} (95%)` }),
      el("table", { class: "lab-table" }, [
        many ? el("thead", {}, [el("tr", {}, [el("th", { scope: "col", text: t("report.variant") }), el("th", { scope: "col", text: t("report.value") }), el("th", { scope: "col", text: t("report.diffFrom", { a: r.variants[0].label }) })])]) : null,
        el("tbody", {}, body),
      ]),
      el("ul", { class: "lab-words" }, sentences.filter(Boolean)),
    ]);
  }

  /** The figure the reader chooses (the opener's wins first), across the sweep's values
   * or the variants, with interval bars. */
  mainChart() {
    const r = this.report;
    const rows = r.rows.filter((row) => r.variants.some((v) => v.figures[row.key]));
    if (!rows.some((row) => row.key === this.chartKey) && rows.length) this.chartKey = rows[0].key;
    const row = rows.find((x) => x.key === this.chartKey);
    if (!row) return null;
    const sweep = r.sweep;
    const names = r.variants.map((v) => (sweep && v.options && sweep in v.options ? (typeof v.options[sweep] === "boolean" ? t(v.options[sweep] ? "lab.yes" : "lab.no") : String(v.options[sweep])) : v.label));
    const ests = r.variants.map((v) => v.figures[row.key]);
    const label = figureLabel(row.key, row.label);
    const edge = EDGES[row.key];
    const title = sweep && r.variants.length > 1 ? t("report.chartSweep", { figure: label, option: has(`opt.${sweep}`) ? t(`opt.${sweep}`) : sweep }) : t("report.chartVariants", { figure: label });
    const values = r.variants.map((v, i) => `${names[i]}: ${ests[i] ? `${valueText(ests[i].value, row.percent)} ${ciOf(ests[i], row.percent)}` : "–"}`).join("; ");
    const svg = intervalChart({ testid: "chart-figure", label: t("report.chartSweepLabel", { figure: label, values }), names, ests, percent: row.percent, centre: edge ? edge.centre : null });
    const choose = el("div", { class: "field lab-chart-choice" }, [
      el("label", { for: "lab-chart-figure", text: t("report.chartFigure") }),
      el("select", { id: "lab-chart-figure", "data-testid": "chart-choice", onchange: (e) => { this.chartKey = e.target.value; this.render(); this.element.querySelector("#lab-chart-figure").focus(); } },
        rows.map((x) => el("option", { value: x.key, selected: x.key === this.chartKey }, [figureLabel(x.key, x.label)]))),
    ]);
    return figureBlock(title, svg, [], choose);
  }

  diffChart() {
    const r = this.report;
    const row = r.rows.find((x) => x.key === this.chartKey);
    if (!row) return null;
    const label = figureLabel(row.key, row.label);
    const others = r.variants.slice(1);
    const ests = others.map((_, i) => r.diffs[i]?.[row.key] || null);
    if (!ests.some(Boolean)) return null;
    const names = others.map((v) => v.label);
    const values = others.map((v, i) => `${v.label}: ${ests[i] ? `${valueText(ests[i].value, row.percent, true)} ${ciOf(ests[i], row.percent, true)}` : "–"}`).join("; ");
    const svg = intervalChart({ testid: "chart-diff", label: t("report.chartDiffLabel", { figure: label, values }), names, ests, percent: row.percent, signed: true, centre: 0 });
    return figureBlock(t("report.chartDiff", { first: r.variants[0].label, figure: label }), svg, []);
  }

  lengthsChart() {
    const r = this.report;
    const keys = [...new Set(r.variants.flatMap((v) => Object.keys(v.matchHands).map(Number)))].sort((a, b) => a - b);
    if (!keys.length) return null;
    const lo = keys[0], hi = keys[keys.length - 1];
    const xs = [];
    for (let k = lo; k <= hi; k += 1) xs.push(k);
    const series = r.variants.map((v) => {
      const total = Object.values(v.matchHands).reduce((a, b) => a + b, 0) || 1;
      return xs.map((k) => 100 * (v.matchHands[k] || 0) / total);
    });
    const svg = linesChart({ testid: "chart-lengths", label: t("report.lengthsLabel"), xs, series, yText: (v) => `${num(v, 0)}%`, xName: t("report.lengthsAxis") });
    return figureBlock(t("report.lengths"), svg, r.variants);
  }

  pointsByN() {
    const r = this.report;
    const ns = [...new Set(r.variants.flatMap((v) => v.pointsByN.map((p) => p.n)))].sort((a, b) => a - b);
    if (!ns.length) return null;
    const series = r.variants.map((v) => ns.map((n) => v.pointsByN.find((p) => p.n === n)?.points ?? null));
    const svg = linesChart({ testid: "chart-points-by-n", label: t("report.pointsByNLabel"), xs: ns, series, yText: (v) => num(v, 1), xName: t("report.pointsByNAxis") });
    const table = el("div", { class: "lab-scroll", tabindex: "0", role: "region", "aria-label": t("report.pointsByN") }, [el("table", { class: "lab-table", "data-testid": "points-by-n" }, [
      el("thead", {}, [el("tr", {}, [el("th", { scope: "col", text: t("report.n") }), ...r.variants.map((v) => el("th", { scope: "col", text: v.label }))])]),
      el("tbody", {}, ns.map((n, j) => el("tr", {}, [el("th", { scope: "row", text: String(n) }), ...series.map((ys, i) => {
        const p = r.variants[i].pointsByN.find((x) => x.n === n);
        return el("td", { "data-testid": "points-by-n-cell", "data-n": String(n), "data-variant": String(i), "data-value": p ? String(p.points) : "" }, [p ? `${num(ys[j], 2)} (${num(100 * p.share, 1)}%)` : "–"]);
      })]))),
    ])]);
    return [figureBlock(t("report.pointsByN"), svg, r.variants), table];
  }

  handEnds() {
    const r = this.report;
    const kinds = [...new Set(r.variants.flatMap((v) => Object.keys(v.handEnds)))];
    if (!kinds.length) return null;
    const word = (k) => (has(`report.end.${k}`) ? t(`report.end.${k}`) : k);
    return el("section", { class: "lab-figure", "data-testid": "hand-ends" }, [
      el("h3", { text: t("report.handEnds") }),
      el("div", { class: "lab-scroll", tabindex: "0", role: "region", "aria-label": t("report.handEnds") }, [el("table", { class: "lab-table" }, [
        el("thead", {}, [el("tr", {}, [el("th", { scope: "col", text: "" }), ...r.variants.map((v) => el("th", { scope: "col", text: v.label }))])]),
        el("tbody", {}, kinds.map((k) => el("tr", {}, [el("th", { scope: "row", text: word(k) }), ...r.variants.map((v) => {
          const total = Object.values(v.handEnds).reduce((a, b) => a + b, 0) || 1;
          return el("td", { text: `${num(100 * (v.handEnds[k] || 0) / total, 1)}%` });
        })]))),
      ])]),
    ]);
  }

  tileTables() {
    const r = this.report;
    const out = [];
    for (const [what, title, scale] of [["luzaked", "report.luzaked", 100], ["worth", "report.worth", 1]]) {
      if (!r.variants.some((v) => v[what].length)) continue;
      const rows = r.variants.flatMap((v, i) => v[what].slice(0, what === "luzaked" ? 8 : undefined).map((f) => el("tr", {}, [
        r.variants.length > 1 ? el("td", { text: v.label }) : null,
        el("th", { scope: "row", text: f.tile }),
        el("td", { "data-testid": `${what}-cell`, "data-tile": f.tile, "data-variant": String(i), "data-value": f.est ? String(f.est.value) : "" },
          [f.est ? `${num(f.est.value * scale, 2)} ${f.est.ci ? intervalText(f.est.ci[0] * scale, f.est.ci[1] * scale, 2) : ""}` : "–"]),
      ])));
      const table = el("table", { class: "lab-table" }, [
        el("thead", {}, [el("tr", {}, [r.variants.length > 1 ? el("th", { scope: "col", text: t("report.variant") }) : null, el("th", { scope: "col", text: t("report.tile") }), el("th", { scope: "col", text: "95%" })])]),
        el("tbody", {}, rows),
      ]);
      out.push(el("details", { class: "lab-details", "data-testid": `tiles-${what}` }, [el("summary", { text: t(title) }), el("div", { class: "lab-scroll", tabindex: "0", role: "region", "aria-label": t(title) }, [table])]));
    }
    return out;
  }
}
