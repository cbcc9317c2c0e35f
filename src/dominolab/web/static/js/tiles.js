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

/**
 * The accessible name of a tile button in a hand: what it shows beside the tile first (its
 * key number, a "new" mark; the name must hold the visible text), then the tile and whether
 * it can be played: "1 new: tile 6|5, playable".
 */
export function handTileLabel(a, b, { playable, key = "", mark = "" }) {
  const words = `${tileLabel(a, b)}, ${playable ? t("tile.playable") : t("tile.notPlayable")}`;
  const shown = [key, mark].filter(Boolean).join(" ");
  return shown ? `${shown}: ${words}` : words;
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
    // a brass four-pointed star in the middle: a spinner, open on all four sides
    g.append(spinnerStar(p.x + p.w / 2, p.y + p.h / 2, 0.2));
  }
  if (opts.luzak) {
    g.append(s("rect", {
      class: "luzak-ring", x: x - 0.02, y: y - 0.02, width: w + 0.04, height: h + 0.04, rx: RADIUS + 0.02,
    }));
  }
  return g;
}

/** The spinner's mark: a four-pointed star of radius R centred at (CX, CY). */
function spinnerStar(cx, cy, R) {
  const r = R * 0.32;
  const pts = [[0, -R], [r, -r], [R, 0], [r, r], [0, R], [-r, r], [-R, 0], [-r, -r]];
  return s("path", {
    class: "spinner-pin", d: "M" + pts.map(([x, y]) => `${cx + x},${cy + y}`).join(" L") + " Z",
  });
}

/** The spinner's mark alone, as a small inline <svg> for text (a legend). */
export function spinnerMark(px = 18) {
  const svg = s("svg", {
    class: "spinner-mark", viewBox: "-0.5 -0.5 1 1", width: px, height: px, "aria-hidden": "true",
    focusable: "false",
  });
  svg.append(spinnerStar(0, 0, 0.46));
  return svg;
}

/** A tile lying face down (the opponent's tiles, the boneyard): an HTML element drawn by
 * the stylesheet (class `tile-back`). */
export function tileBack(extra = "") {
  const node = document.createElement("span");
  node.className = `tile-back ${extra}`.trim();
  return node;
}

/** Does the person ask for less motion (`prefers-reduced-motion: reduce`)? */
export function reducedMotion() {
  return !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

/**
 * Fly a tile across the screen: a copy of it moves from the screen rectangle FROM (a
 * DOMRect: the hand, the opponent's tiles, the boneyard, where it was dropped) to TO, where
 * the real tile already lies (FLIP: the state is drawn first, then the copy plays the way
 * there). The copy is drawn as it lies at TO (face up with pips A and B, or face down with
 * `back`), turned a quarter when FROM and TO differ in orientation. HIDE, the real element
 * at TO, is kept invisible until the copy lands. Never blocks input (the copy takes no
 * pointer events) and does nothing when the person asks for reduced motion. Returns the
 * Animation, or null.
 */
export function flyTile(from, to, { a = 0, b = 0, back = false, hide = null, delay = 0, duration = 260 } = {}) {
  if (!from || !to || !from.width || !to.width || reducedMotion() || !Element.prototype.animate) return null;
  const horizontal = to.width > to.height;
  const length = Math.max(to.width, to.height);
  const box = document.createElement("div");
  box.className = "flying-tile";
  Object.assign(box.style, {
    left: `${to.left}px`, top: `${to.top}px`, width: `${to.width}px`, height: `${to.height}px`,
  });
  box.append(back ? tileBack(horizontal ? "is-horizontal" : "")
    : tileSVG(a, b, { orientation: horizontal ? "horizontal" : "vertical", px: length, label: false }));
  document.body.append(box);
  const turn = (from.width > from.height) === horizontal ? 0 : -90;
  const scale = Math.max(from.width, from.height) / length;
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const anim = box.animate([
    { transform: `translate(${dx}px, ${dy}px) rotate(${turn}deg) scale(${scale})` },
    { transform: "none" },
  ], { duration, delay, easing: "cubic-bezier(.2, .75, .35, 1)", fill: "backwards" });
  anim.id = "fly-tile";
  const done = () => box.remove();
  anim.onfinish = done;
  anim.oncancel = done;
  if (hide) {
    const veil = hide.animate([{ opacity: 0 }, { opacity: 0 }], { duration: delay + duration });
    veil.id = "fly-hide";
  }
  return anim;
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
