// The table: a LAYOUT drawn into one <svg>, with the places (spots) where the picked tile
// may go, and picking a move as the game page and the puzzles both do it (a hand tile as a
// button, the dialog for a place that takes the picked tile more than one way). The
// viewBox fits the layout's bounds and every spot, plus a margin, so the whole table always
// fits the width of the screen.

import { t } from "./i18n.js";
import { s, drawTile, tileLabel, tileText, tileSVG, handTileLabel, digits } from "./tiles.js";
import { el } from "./ui.js";

const MARGIN = 0.45;
/** The least size, in screen pixels, of the area that takes a tap or a drop on a spot. */
const HIT_PX = 48;
/** How far (units) a spot's hit area may reach past its tile on each side. */
const HIT_MAX = 0.9;

function rectKey(r) {
  return [r.x, r.y, r.w, r.h].map((v) => Number(v).toFixed(3)).join(",");
}

/** Group LEGAL entries that have a spot by their rectangle: [{key, rect, legal: [...]}]. */
export function groupSpots(legals) {
  const groups = new Map();
  for (const l of legals) {
    if (!l.spot) continue;
    const key = rectKey(l.spot);
    if (!groups.has(key)) groups.set(key, { key, rect: l.spot, legal: [] });
    groups.get(key).legal.push(l);
  }
  // a stable reading order: top to bottom, then left to right
  return [...groups.values()].sort((p, q) => (p.rect.y - q.rect.y) || (p.rect.x - q.rect.x));
}

/** Normalise the optional link segments of a LAYOUT into lists of points. */
function linkPoints(link) {
  if (Array.isArray(link)) {
    if (link.length === 4 && link.every((v) => typeof v === "number")) {
      return [[link[0], link[1]], [link[2], link[3]]];
    }
    if (link.every((p) => Array.isArray(p) && p.length === 2)) return link;
    return null;
  }
  if (link && typeof link === "object") {
    if ("x1" in link) return [[link.x1, link.y1], [link.x2, link.y2]];
    if (link.from && link.to) return [link.from, link.to];
    if (Array.isArray(link.points)) return link.points;
  }
  return null;
}

/** The rectangle [x0, y0, x1, y1] that holds the layout and the given extra rectangles. */
export function extent(layout, extra = []) {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  const add = (a, b, c, d) => {
    x0 = Math.min(x0, a); y0 = Math.min(y0, b); x1 = Math.max(x1, c); y1 = Math.max(y1, d);
  };
  const tiles = (layout && layout.tiles) || [];
  if (layout && Array.isArray(layout.bounds) && layout.bounds.length === 4 && tiles.length) {
    add(...layout.bounds);
  }
  for (const p of tiles) add(p.x, p.y, p.x + p.w, p.y + p.h);
  for (const r of extra) add(r.x, r.y, r.x + r.w, r.y + r.h);
  if (!Number.isFinite(x0)) return [-2, -1, 2, 1];
  return [x0, y0, x1, y1];
}

export class TableView {
  /**
   * @param {object} opts  minWidth / minHeight in units (so a lone tile is not huge),
   *                       label for the svg, onSpot(group) when a spot is clicked.
   */
  constructor({ minWidth = 14, minHeight = 5, onSpot = null, small = false, label = null } = {}) {
    this.minWidth = minWidth;
    this.minHeight = minHeight;
    this.onSpot = onSpot;
    this.label = label;
    this.svg = s("svg", {
      class: `table-svg${small ? " table-svg--small" : ""}`,
      role: "group",
      "aria-label": label || t("table.label"),
      preserveAspectRatio: "xMidYMid meet",
    });
    this.tilesLayer = s("g", { class: "tiles-layer" });
    this.linkLayer = s("g", { class: "link-layer" });
    this.spotLayer = s("g", { class: "spot-layer" });
    this.emptyNote = s("text", { class: "table-empty", "text-anchor": "middle" });
    this.svg.append(this.linkLayer, this.tilesLayer, this.spotLayer, this.emptyNote);
    this.lastK = null;
    this.spotEls = [];
    this.groups = [];
  }

  /**
   * Draw LAYOUT; `frame` = extra rectangles the view must hold (all legal spots, so
   * the view does not jump when a tile is picked); `animateLast` pulses a new last tile.
   */
  setLayout(layout, { frame = [], animateLast = true } = {}) {
    const tiles = (layout && layout.tiles) || [];
    // named again at each drawing: a language switch draws the table again
    this.svg.setAttribute("aria-label", this.label || t("table.label"));
    this.tilesLayer.replaceChildren();
    this.linkLayer.replaceChildren();
    let maxK = null;
    for (const p of tiles) if (maxK === null || p.k > maxK) maxK = p.k;
    for (const p of tiles) {
      const isLast = p.k === maxK;
      const g = drawTile(p, {
        spinner: !!p.spinner,
        luzak: !!p.luzak,
        cls: isLast ? "is-last" + (animateLast && this.lastK !== maxK ? " just-played" : "") : "",
      });
      g.setAttribute("data-testid", "table-tile");
      g.setAttribute("data-k", String(p.k));
      g.setAttribute("data-tile", p.tile);
      if (p.spinner) g.setAttribute("data-spinner", "true");
      g.setAttribute("role", "img");
      const words = [tileLabel(p.a, p.b), `N=${p.k}`];
      if (p.spinner) words.push(t("legend.spinner"));
      if (p.luzak) words.push(t("tile.luzak"));
      if (isLast) words.push(t("tile.last"));
      g.setAttribute("aria-label", words.join(", "));
      g.prepend(s("title", {}, [document.createTextNode(words.join(", "))]));
      this.tilesLayer.append(g);
    }
    const links = [...((layout && layout.links) || [])];
    for (const p of tiles) if (p.link) links.push(p.link);
    for (const link of links) {
      const pts = linkPoints(link);
      if (!pts || pts.length < 2) continue;
      this.linkLayer.append(s("polyline", {
        class: "link", points: pts.map((p) => p.join(",")).join(" "),
      }));
    }
    this.lastK = maxK;
    this.layout = layout;
    this.frame = frame;
    this.fit();
    // the empty table gets a quiet word in the middle
    if (!tiles.length) {
      const [x0, y0, x1, y1] = this.viewRect;
      this.emptyNote.setAttribute("x", String((x0 + x1) / 2));
      this.emptyNote.setAttribute("y", String(y0 + (y1 - y0) * 0.18 + 0.3));
      this.emptyNote.textContent = t("table.empty");
    } else {
      this.emptyNote.textContent = "";
    }
  }

  fit() {
    let [x0, y0, x1, y1] = extent(this.layout, this.frame);
    x0 -= MARGIN; y0 -= MARGIN; x1 += MARGIN; y1 += MARGIN;
    const w = x1 - x0, h = y1 - y0;
    if (w < this.minWidth) { const d = (this.minWidth - w) / 2; x0 -= d; x1 += d; }
    if (h < this.minHeight) { const d = (this.minHeight - h) / 2; y0 -= d; y1 += d; }
    this.viewRect = [x0, y0, x1, y1];
    this.svg.setAttribute("viewBox", `${x0} ${y0} ${x1 - x0} ${y1 - y0}`);
    this.svg.style.aspectRatio = `${x1 - x0} / ${y1 - y0}`;
  }

  /** Screen pixels per unit of the drawn table (0 while it is not shown). */
  unitPx() {
    const box = this.svg.getBoundingClientRect();
    const [x0, y0, x1, y1] = this.viewRect || [0, 0, 1, 1];
    if (!box.width || !box.height) return 0;
    return Math.min(box.width / (x1 - x0), box.height / (y1 - y0));
  }

  /** Draw the places of the picked tile: groups from groupSpots(). Each place takes taps
   * and drops on an area at least HIT_PX square on the screen. */
  setSpots(groups, { focused = -1, hinted = null } = {}) {
    this.spotLayer.replaceChildren();
    this.spotEls = [];
    this.groups = groups;
    const unit = groups.length ? this.unitPx() : 0;
    const reach = (size) => (unit ? Math.min(HIT_MAX, Math.max(0, (HIT_PX / unit - size) / 2)) : 0);
    groups.forEach((grp, i) => {
      const r = grp.rect;
      const moves = grp.legal.map((l) => l.move);
      const g = s("g", {
        class: "spot" + (i === focused ? " is-focused" : "") +
          (hinted && moves.some((m) => hinted.has(m)) ? " is-hinted" : ""),
        "data-testid": "spot",
        "data-moves": moves.join(","),
        tabindex: "0",
        role: "button",
        "aria-label": t("spot.label", { tile: tileText(grp.legal[0].tile || ""), moves: moves.join(", ") }),
      });
      const px = reach(r.w), py = reach(r.h);
      g.append(s("rect", {
        class: "spot-hit", x: r.x - px, y: r.y - py, width: r.w + 2 * px, height: r.h + 2 * py,
      }));
      // a faint preview of the tile as it would lie (when the place means one move)
      if (grp.legal.length === 1 && r.a !== undefined && r.a !== null) {
        const ghost = drawTile(r, { cls: "ghost", spinner: false });
        g.append(ghost);
      }
      g.append(s("rect", {
        class: "spot-ring", x: r.x + 0.03, y: r.y + 0.03, width: r.w - 0.06, height: r.h - 0.06, rx: 0.14,
      }));
      if (grp.legal.length > 1) {
        g.append(s("text", {
          class: "spot-choice", x: r.x + r.w / 2, y: r.y + r.h / 2, "text-anchor": "middle",
          "dominant-baseline": "central",
        }, [document.createTextNode("?")]));
      }
      g.addEventListener("click", (ev) => {
        ev.stopPropagation();
        if (this.onSpot) this.onSpot(grp, i);
      });
      g.addEventListener("keydown", (ev) => {
        if (ev.key === " ") {
          ev.preventDefault();
          if (this.onSpot) this.onSpot(grp, i);
        }
      });
      this.spotLayer.append(g);
      this.spotEls.push(g);
    });
  }

  /** The index of the spot under the screen point (x, y), or -1. */
  spotAt(x, y) {
    const hit = document.elementFromPoint(x, y);
    const g = hit && hit.closest ? hit.closest(".spot") : null;
    return g ? this.spotEls.indexOf(g) : -1;
  }

  /** Light the spot a dragged tile would be dropped on (-1: none). */
  markDrop(i) {
    this.spotEls.forEach((el, j) => el.classList.toggle("is-drop-target", i === j));
  }

  /** The drawn body of table tile number K (for its place on the screen), or null. */
  tileElement(k) {
    return this.tilesLayer.querySelector(`[data-k="${k}"] .domino-body`);
  }

  focusSpot(i) {
    this.spotEls.forEach((el, j) => el.classList.toggle("is-focused", i === j));
    const el = this.spotEls[i];
    if (el) el.focus({ preventScroll: false });
  }

  clearSpots() {
    this.setSpots([]);
  }
}

// ---- picking a move (the game page and the puzzles) ---------------------------------------

/** The button of hand TILE, the I-th of the hand (keys 1-9, 0): `playable` and `picked`
 * as shown, `onPick()` on a tap, `onPointerDown(ev)` to start a drag, `mark` beside it. */
export function handTileButton(tile, i, { playable, picked, onPick, onPointerDown = null, mark = "" }) {
  const [a, b] = digits(tile);
  const key = i < 9 ? String(i + 1) : i === 9 ? "0" : "";
  return el("button", {
    type: "button",
    class: "hand-tile" + (playable ? " is-playable" : "") + (picked ? " is-picked" : "") + (mark ? " is-drawn" : ""),
    "data-testid": "hand-tile",
    "data-tile": tile,
    "data-playable": playable ? "true" : "false",
    "data-drawn": mark ? "true" : null,
    "aria-pressed": picked ? "true" : "false",
    "aria-disabled": playable ? null : "true",
    "aria-label": handTileLabel(a, b, { playable, key, mark }),
    onclick: onPick,
    onpointerdown: playable ? onPointerDown : null,
  }, [
    tileSVG(a, b, { orientation: "vertical", px: 72, label: false }),
    el("span", { class: "key", "aria-hidden": "true", text: key || "\u00a0" }),
    mark ? el("span", { class: "drawn-mark", "aria-hidden": "true", text: mark }) : null,
  ]);
}

/** The dialog for a place that takes the picked tile more than one way (GRP from
 * groupSpots): `onMove(move)` when one is chosen, `onClose()` to close it. Returns the
 * overlay; its first choice takes the focus once shown. */
export function chooserDialog(grp, { onMove, onClose }) {
  const buttons = grp.legal.map((l, i) => {
    const sp = l.spot || {};
    const horizontal = (sp.w ?? 2) >= (sp.h ?? 1);
    const a = sp.a ?? digits(l.tile)[0], b = sp.b ?? digits(l.tile)[1];
    return el("button", {
      type: "button", class: "choose-button", "data-testid": "choose-move", "data-move": l.move,
      "data-autofocus": i === 0 ? "" : null,
      onclick: () => { onClose(); onMove(l.move); },
    }, [
      tileSVG(a, b, { orientation: horizontal ? "horizontal" : "vertical", px: 88 }),
      el("span", { text: l.outer !== null && l.outer !== undefined ? t("choose.outward", { v: l.outer }) : l.move }),
      el("code", { class: "muted", text: l.move }),
    ]);
  });
  const box = el("div", { class: "overlay overlay--light", role: "presentation", onclick: (ev) => { if (ev.target === box) onClose(); } }, [
    el("div", { class: "modal chooser", role: "dialog", "aria-modal": "true", "aria-labelledby": "chooser-title" }, [
      el("h2", { id: "chooser-title", text: t("choose.title") }),
      el("div", { class: "choose-row" }, buttons),
      el("div", { class: "modal-actions" }, [el("button", { type: "button", class: "button subtle", onclick: onClose, text: t("btn.cancel") })]),
    ]),
  ]);
  setTimeout(() => { const f = box.querySelector("[data-autofocus]"); if (f) f.focus(); }, 0);
  return box;
}
