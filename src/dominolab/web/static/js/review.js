// The review of a seat's play (docs/web.md, REVIEW): after a hand, after the match and in a
// finished match's replay, the moves that lost the most win chance by the expert's judgement
// (with how sure that is, as the terminal's review says it), each with the table as it stood
// and the better move lit on it, and a graph of the seat's win chance over the match.

import { api } from "./api.js";
import { t, onLangChange } from "./i18n.js";
import { TableView } from "./table.js";
import { s } from "./tiles.js";
import { el } from "./ui.js";

/** A chance for people, as the terminal's hints write it: 62%, <1%, >99%. */
export function percent(x) {
  if (x > 0 && x < 0.005) return "<1%";
  if (x > 0.995 && x < 1) return ">99%";
  return `${Math.round(100 * x)}%`;
}

/** A loss of chance: 7%, 0.4% (the terminal's percent_change, without the sign). */
function lossText(x) {
  if (Math.abs(x) < 0.0005) return "0%";
  return Math.abs(x) < 0.01 ? `${(100 * x).toFixed(1)}%` : `${Math.round(100 * x)}%`;
}

/** How sure a loss is, in the terminal's words: ±3%, ±<1%, and "not sure" within it. */
export function certainty(item) {
  const spread = item.spread >= 0.005 ? `±${Math.round(100 * item.spread)}%` : "±<1%";
  return item.sure ? spread : t("review.notSure", { s: spread });
}

/** The graph of the win chance at each choice (an inline SVG; a line between hands). */
export function curveSVG(curve, name = null) {
  const W = 300, H = 100, pad = 4;
  const n = curve.length;
  const x = (i) => (n > 1 ? pad + (i * (W - 2 * pad)) / (n - 1) : W / 2);
  const y = (w) => pad + (1 - w) * (H - 2 * pad);
  const svg = s("svg", {
    class: "review-curve", viewBox: `0 0 ${W} ${H}`, role: "img", "data-testid": "review-curve",
    "data-points": String(n), preserveAspectRatio: "none",
    "aria-label": n ? t(name ? "review.curveLabelOf" : "review.curveLabel", { n, name, first: percent(curve[0].win), last: percent(curve[n - 1].win) }) : t(name ? "review.curveOf" : "review.curve", { name }),
  });
  svg.append(s("line", { class: "review-half", x1: 0, x2: W, y1: y(0.5), y2: y(0.5) }));
  curve.forEach((p, i) => {
    if (i && p.hand !== curve[i - 1].hand) {
      const at = (x(i - 1) + x(i)) / 2;
      svg.append(s("line", { class: "review-hand-line", x1: at, x2: at, y1: 0, y2: H }));
    }
  });
  if (n) {
    svg.append(s("polyline", { class: "review-line", points: curve.map((p, i) => `${x(i)},${y(p.win)}`).join(" ") }));
  }
  return svg;
}

/** One costly move: what was played, the better move, and the table with it lit. */
function itemBlock(item, layout, { onShow = null, name = null } = {}) {
  const table = new TableView({ small: true, minWidth: layout === "narrow" ? 7 : 9, minHeight: 3, label: t("review.table") });
  const base = item.table || { tiles: [], bounds: [0, 0, 0, 0] };
  const tiles = [...(base.tiles || [])];
  if (item.preview) tiles.push(item.preview);
  table.setLayout({ ...base, tiles }, { animateLast: false });
  if (item.preview) {
    const g = table.svg.querySelector(`[data-k="${item.preview.k}"]`);
    if (g) {
      g.classList.add("review-better");
      g.setAttribute("data-testid", "review-better-tile");
      g.setAttribute("aria-label", `${g.getAttribute("aria-label")}, ${t("review.betterTile")}`);
    }
  }
  let cost = t("review.cost", { loss: lossText(item.win_loss), sure: certainty(item) });
  if (item.points_loss >= 0.05) cost += t("review.costPoints", { p: item.points_loss.toFixed(1) });
  else if (item.points_loss <= -0.05) cost += t("review.morePoints", { p: (-item.points_loss).toFixed(1) });
  return el("li", { class: "review-item", "data-testid": "review-item", "data-move": item.move, "data-better": item.better_move }, [
    el("p", { class: "review-played" }, [
      el("strong", { text: t("review.where", { h: item.hand, n: item.n }) }), " ",
      t(name ? "review.playedOf" : "review.played", { move: item.move, win: percent(item.win) }), " ",
      el("span", { class: "review-cost", "data-testid": "review-cost", text: cost }),
    ]),
    el("p", { class: "review-better-line", "data-testid": "review-better", text: t("review.better", { move: item.better, win: percent(item.better_win) }) }),
    el("figure", { class: "final-table review-table" }, [
      el("div", { class: "felt felt--small" }, [table.svg]),
      el("figcaption", { text: t("review.table") }),
    ]),
    onShow ? el("button", { type: "button", class: "button subtle", onclick: () => onShow(item.frame) }, [t("review.showInReplay")]) : null,
  ]);
}

/**
 * The review panel of seat `seat` of game `id`: `hand` a hand's number (its review), or
 * null for the whole match's (with the graph). `token`: the seat's, needed until the match
 * is over. `onShow(frame)`: a button per move that shows it in the replay. `name`: the
 * seat's name when the reader is not that seat (a visitor's replay), else null ("your").
 */
export class ReviewPanel {
  constructor({ id, seat, token = null, layout = "wide", hand = null, onShow = null, name = null }) {
    Object.assign(this, { id, seat, token, layout, hand, onShow, name });
    this.data = null;
    this.error = null;
    this.element = el("section", { class: "panel review", "data-testid": "review", "data-state": "loading", "aria-live": "polite" });
    this.off = onLangChange(() => this.render());
    this.render();
    this.load();
  }

  dispose() { this.off(); }

  async load() {
    try {
      this.data = await api.review(this.id, this.seat, this.token, this.layout);
    } catch (err) {
      this.error = err.describe ? err.describe() : String(err);
    }
    this.render();
  }

  render() {
    const name = this.name ? this.name() : null;
    const of = (key) => (name ? `${key}Of` : key);
    const title = this.hand === null ? t(of("review.title"), { name }) : t("review.handTitle", { n: this.hand });
    const head = el("h2", { class: "section-title", text: title });
    if (this.error) {
      this.element.dataset.state = "error";
      this.element.replaceChildren(head, el("p", { class: "muted", text: t("review.error", { e: this.error }) }));
      return;
    }
    if (!this.data) {
      this.element.replaceChildren(head, el("p", { class: "muted", text: t(of("review.loading"), { name }) }));
      return;
    }
    const d = this.data;
    const hand = this.hand === null ? null : d.hands.find((h) => h.hand === this.hand);
    const costly = hand ? hand.costly : (this.hand === null ? d.costly : []);
    const choices = hand ? hand.choices : d.hands.reduce((a, h) => a + h.choices, 0);
    this.element.dataset.state = "ready";
    const parts = [head];
    if (!costly.length) parts.push(el("p", { "data-testid": "review-none", text: t(of("review.none"), { n: choices, name }) }));
    else {
      parts.push(el("p", { text: t(of("review.intro"), { n: choices, name }) }));
      parts.push(el("ol", { class: "review-list" }, costly.map((item) => itemBlock(item, this.layout, { onShow: this.onShow, name }))));
    }
    if (d.curve.length > 1) {
      parts.push(el("figure", { class: "review-graph" }, [curveSVG(d.curve, name), el("figcaption", { text: t(of("review.curve"), { name }) })]));
    }
    this.element.replaceChildren(...parts);
  }
}
