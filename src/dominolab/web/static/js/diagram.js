// The player's guide's diagrams (docs/learn.md): a table the engine laid and web/layout.py
// placed (a LAYOUT, drawn by TableView), or the tiles left in a hand paired into quartets
// (placed by the server, each tile drawn by drawTile). The caption comes from the server
// with the engine's numbers filled in; the tiles it speaks of are highlighted.

import { TableView } from "./table.js";
import { s, drawTile } from "./tiles.js";
import { el } from "./ui.js";

// the largest a unit (half a tile) is drawn, in CSS pixels: small diagrams stay small
const UNIT_PX = 44;
// the same for a preview on the index's cards
const PREVIEW_UNIT_PX = 20;

/**
 * A <figure> with the diagram D of GET /api/guide/GAME/LANG and its caption; with
 * {preview: true} a smaller picture alone (the index's cards).
 */
export function drawDiagram(d, { preview = false } = {}) {
  const svg = d.kind === "hand" ? handSvg(d) : tableSvg(d);
  svg.classList.add("guide-svg");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", d.label);
  const [, , vw] = svg.getAttribute("viewBox").split(" ").map(Number);
  svg.style.width = `${Math.round(vw * (preview ? PREVIEW_UNIT_PX : UNIT_PX))}px`;
  const felt = el("div", { class: "felt felt--small guide-felt" }, [svg]);
  if (preview) return el("div", { class: "guide-preview", "data-testid": "guide-preview" }, [felt]);
  return el("figure", {
    class: "guide-figure", "data-testid": "guide-diagram", "data-diagram": d.id, "data-kind": d.kind,
  }, [felt, el("figcaption", { text: d.caption })]);
}

function tableSvg(d) {
  const view = new TableView({ minWidth: 3, minHeight: 1.5, small: true, label: d.label });
  view.setLayout(d.layout, { animateLast: false });
  const marked = new Set(d.highlight || []);
  for (const g of view.tilesLayer.querySelectorAll("[data-k]")) {
    g.classList.remove("is-last", "just-played");
    if (marked.has(Number(g.dataset.k))) g.classList.add("is-highlight");
  }
  return view.svg;
}

function handSvg(d) {
  const [x0, y0, x1, y1] = d.layout.bounds;
  const pad = 0.4, below = 1.0;
  const vx = x0 - pad, vy = y0 - pad, vw = x1 - x0 + 2 * pad, vh = y1 - y0 + 2 * pad + below;
  const svg = s("svg", {
    class: "table-svg table-svg--small guide-hand",
    viewBox: `${vx} ${vy} ${vw} ${vh}`,
    preserveAspectRatio: "xMidYMid meet",
  });
  svg.style.aspectRatio = `${vw} / ${vh}`;
  const marked = new Set(d.highlight || []);
  for (const p of d.layout.tiles) {
    const g = drawTile(p, { cls: marked.has(p.k) ? "is-paired" : "is-spare" });
    g.setAttribute("data-testid", "diagram-tile");
    g.setAttribute("data-tile", p.tile);
    g.setAttribute("aria-hidden", "true");
    svg.append(g);
  }
  for (const pair of d.pairs || []) {
    const [bx0, , bx1, by1] = pair.box;
    svg.append(
      s("path", { class: "guide-bracket", d: `M${bx0 + 0.12} ${by1 + 0.12} v0.18 H${bx1 - 0.12} v-0.18` }),
      s("text", {
        class: "guide-worth", x: (bx0 + bx1) / 2, y: by1 + 0.78, "text-anchor": "middle", "aria-hidden": "true",
      }, [document.createTextNode(`${pair.quartet} +${pair.worth}`)]),
    );
  }
  return svg;
}
