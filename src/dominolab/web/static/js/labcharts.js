// The lab's charts (labreport.js), inline SVG of our own: a frame with its axes, points with
// interval bars, lines over a shared x, and bars of a distribution; each chart an img with a
// label saying its values in words.

import { s } from "./tiles.js";
import { el } from "./ui.js";
import { num } from "./labwords.js";

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
function frame({ testid, label, names, lo, hi, yText, centre = null, zero = false }) {
  const pad = (hi - lo) * 0.08 || Math.abs(hi) * 0.1 || 1;
  if (!zero) lo -= pad;
  hi += pad;
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
export function intervalChart({ testid, label, names, ests, percent, signed = false, centre = null }) {
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
export function linesChart({ testid, label, xs, series, yText, xName }) {
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

export function legend(variants) {
  if (variants.length < 2) return null;
  return el("ul", { class: "lab-legend" }, variants.map((v, i) => el("li", {}, [
    el("span", { class: `lab-swatch lab-s${i % 8}`, "aria-hidden": "true" }), v.label,
  ])));
}

export function figureBlock(title, svg, variants, extra = null) {
  return el("figure", { class: "lab-figure-chart" }, [svg, legend(variants), extra, el("figcaption", { text: title })]);
}


/** Bars of distributions (DISTS: one a variant, whole number -> count) as shares of each
 * variant's count in %, a group of bars a value, or a bin of values when they span more
 * than MOST; null when there is nothing to draw. */
export function barsChart({ testid, label, dists, xName, most = 30 }) {
  const keys = dists.flatMap((d) => Object.keys(d).map(Number));
  if (!keys.length) return null;
  const lo = Math.min(...keys), hi = Math.max(...keys);
  const width = Math.max(1, Math.ceil((hi - lo + 1) / most));
  const start = Math.floor(lo / width) * width;
  const bins = [];
  for (let b = start; b <= hi; b += width) bins.push(b);
  const series = dists.map((d) => {
    const total = Object.values(d).reduce((a, b) => a + b, 0) || 1;
    const ys = bins.map(() => 0);
    for (const [k, c] of Object.entries(d)) ys[Math.floor((Number(k) - start) / width)] += c;
    return ys.map((y) => (100 * y) / total);
  });
  const names = bins.map((b) => (width === 1 ? String(b) : `${b}–${b + width - 1}`));
  const top = Math.max(...series.flat(), 1);
  const [svg, x, y] = frame({ testid, label, names, lo: 0, hi: top, zero: true, yText: (v) => `${num(v, 0)}%` });
  const slot = (CW - PAD.l - PAD.r) / bins.length;
  const w = Math.max(1, (slot * 0.84) / series.length);
  series.forEach((ys, i) => {
    const g = s("g", { class: `lab-bars lab-s${i % 8}`, "data-testid": "chart-series", "data-variant": String(i) });
    ys.forEach((v, j) => {
      if (!v) return;
      const left = x(j) - (slot * 0.84) / 2 + i * w;
      g.append(s("rect", { class: "lab-barfill", x: left, y: y(v), width: w, height: Math.max(0.5, y(0) - y(v)) }));
    });
    svg.append(g);
  });
  const cap = s("text", { class: "lab-tick", x: PAD.l + (CW - PAD.l - PAD.r) / 2, y: CH - 8, "text-anchor": "middle" });
  cap.textContent = xName;
  svg.append(cap);
  return svg;
}
