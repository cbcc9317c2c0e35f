// Dominoes in SVG. Units as in LAYOUT: a tile is 2 units long and 1 wide; `a` is the half
// drawn left (horizontal tile) or top (vertical tile), `b` the other.

import { t } from "./i18n.js";

export const SVG_NS = "http://www.w3.org/2000/svg";

/** Make an SVG element with attributes (null/undefined skipped) and children. */
export function s(tag, attrs = {}, children = []) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    node.setAttribute(k, String(v));
  }
  for (const c of [].concat(children)) if (c) node.append(c);
  return node;
}

// Pip centres in a unit square for a half seen upright (as in a vertical tile): the
// standard die arrangements; the 6 is two columns of three.
const L = 0.26, M = 0.5, H = 0.74;
const PIPS = {
  0: [],
  1: [[M, M]],
  2: [[H, L], [L, H]],
  3: [[H, L], [M, M], [L, H]],
  4: [[L, L], [H, L], [L, H], [H, H]],
  5: [[L, L], [H, L], [M, M], [L, H], [H, H]],
  6: [[L, L], [H, L], [L, M], [H, M], [L, H], [H, H]],
};

const GAP = 0.045;      // half the space between neighbouring tiles
const RADIUS = 0.12;    // corner rounding
const PIP_R = 0.088;

function pipsOf(value, hx, hy, horizontal) {
  const out = [];
  for (const [px, py] of PIPS[value] || []) {
    // a horizontal tile shows its halves turned a quarter: swap the axes
    const [dx, dy] = horizontal ? [py, px] : [px, py];
    out.push(s("circle", { class: "pip", cx: hx + dx, cy: hy + dy, r: PIP_R }));
  }
  return out;
}

/** A label for a tile, "tile 6|5" in the current language. */
export function tileLabel(a, b) {
  return t("tile.label", { a, b });
}

/** "65" → [6, 5]. */
export function digits(tile) {
  return [Number(tile[0]), Number(tile[1])];
}

/** "65" → "6|5", for text. */
export function tileText(tile) {
  return tile && tile.length === 2 ? `${tile[0]}|${tile[1]}` : String(tile ?? "");
}

/**
 * A domino as an SVG group, from a PLACED-like rectangle {x, y, w, h, a, b}.
 * opts: {cls, spinner, luzak}
 */
export function drawTile(p, opts = {}) {
  const horizontal = p.w >= p.h;
  const x = p.x + GAP, y = p.y + GAP, w = p.w - 2 * GAP, h = p.h - 2 * GAP;
  const classes = ["domino"];
  if (opts.cls) classes.push(opts.cls);
  if (opts.spinner) classes.push("is-spinner");
  if (opts.luzak) classes.push("is-luzak");
  const g = s("g", { class: classes.join(" ") });
  g.append(
    s("rect", { class: "domino-shadow", x: x + 0.03, y: y + 0.05, width: w, height: h, rx: RADIUS }),
    s("rect", { class: "domino-body", x, y, width: w, height: h, rx: RADIUS }),
    s("rect", {
      class: "domino-shine", x: x + 0.05, y: y + 0.04, width: w - 0.1, height: (horizontal ? h : h) * 0.18,
      rx: RADIUS * 0.7,
    }),
  );
  if (horizontal) {
    const mx = p.x + p.w / 2;
    g.append(s("line", { class: "domino-divider", x1: mx, y1: y + 0.13, x2: mx, y2: y + h - 0.13 }));
  } else {
    const my = p.y + p.h / 2;
    g.append(s("line", { class: "domino-divider", x1: x + 0.13, y1: my, x2: x + w - 0.13, y2: my }));
  }
  const a = Number(p.a), b = Number(p.b);
  if (horizontal) {
    g.append(...pipsOf(a, p.x, p.y, true), ...pipsOf(b, p.x + 1, p.y, true));
  } else {
    g.append(...pipsOf(a, p.x, p.y, false), ...pipsOf(b, p.x, p.y + 1, false));
  }
  if (opts.spinner) {
    // a small brass pin in the middle: a spinner
    g.append(s("circle", { class: "spinner-pin", cx: p.x + p.w / 2, cy: p.y + p.h / 2, r: 0.075 }));
  }
  if (opts.luzak) {
    g.append(s("rect", {
      class: "luzak-ring", x: x - 0.02, y: y - 0.02, width: w + 0.04, height: h + 0.04, rx: RADIUS + 0.02,
    }));
  }
  return g;
}

/**
 * A standalone <svg> of one tile (for the hand, dialogs, bonus pairs).
 * orientation: "vertical" (a on top) or "horizontal" (a on the left). px = length in pixels.
 */
export function tileSVG(a, b, { orientation = "vertical", px = 64, label = true, cls = "" } = {}) {
  const vertical = orientation === "vertical";
  const w = vertical ? 1 : 2, h = vertical ? 2 : 1;
  const pad = 0.06;
  const svg = s("svg", {
    class: `tile-svg ${cls}`.trim(),
    viewBox: `${-pad} ${-pad} ${w + 2 * pad} ${h + 2 * pad}`,
    width: vertical ? px / 2 : px,
    height: vertical ? px : px / 2,
    role: label ? "img" : null,
    "aria-hidden": label ? null : "true",
    "aria-label": label ? tileLabel(a, b) : null,
    focusable: "false",
  });
  svg.append(drawTile({ x: 0, y: 0, w, h, a, b }));
  return svg;
}
