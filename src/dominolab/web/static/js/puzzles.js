// The puzzles (docs/web.md, "Puzzles"): /puzzles/GAME gives the player the next puzzle of
// the game, /puzzles/GAME/ID that one. The position is drawn as the game page draws a
// table, and a move is picked the way the game page picks one (table.js); the
// answer lights the best move on the table and says why, with the count and the points, and
// how the puzzle rating moved. Also the daily puzzle's panel for the start page. Read when
// first shown (a dynamic import): the game page's first visit does not carry it.

import { api, loadPlayer } from "./api.js";
import { t, addStrings, onLangChange, formatNumber } from "./i18n.js";
import { TableView, groupSpots, handTileButton, chooserDialog } from "./table.js";
import { percent } from "./review.js";
import { el, toast } from "./ui.js";
import * as strings from "./strings/puzzles.js";

addStrings(strings);

// the puzzles' styles, read with their code (beside this file, under the same version)
if (!document.querySelector("link[data-puzzles-css]")) {
  document.head.append(Object.assign(document.createElement("link"), {
    rel: "stylesheet", href: new URL("../css/puzzles.css", import.meta.url).href,
  }));
  document.head.lastElementChild.setAttribute("data-puzzles-css", "");
}

export const PUZZLE_GAMES = ["luzak", "luzak-line", "widelec"];
const PLACE_KINDS = new Set(["play", "luzak", "lead"]);
const SHOWN_KEY = "dominolab/puzzles/shown";

function gameTitle(game) {
  return t(`game.${game}`);
}

/** The ids of the puzzles this tab was shown lately (a visitor is not given them again). */
function shownIds() {
  try { return JSON.parse(sessionStorage.getItem(SHOWN_KEY) || "[]").slice(-50); } catch (_) { return []; }
}

function remember(id) {
  const ids = shownIds().filter((x) => x !== id);
  ids.push(id);
  try { sessionStorage.setItem(SHOWN_KEY, JSON.stringify(ids.slice(-50))); } catch (_) { /* off */ }
}

/** The sentences of why: what the best move does now (the count and the points, a luzak's
 * pips, a quartet) and to the hand's end against the next best; and the player's move. */
export function whyLines(answer, rules) {
  const [best, other] = answer.moves;
  const lines = [nowLine(best, rules)];
  if (other) {
    lines.push(t("pz.ahead", {
      move: best.move, margin: best.margin, gap: percent(Math.max(0, best.win - other.win)),
      other: other.move, otherNow: other.now[0], otherMargin: other.margin,
    }));
  }
  if (answer.chosen > 0) {
    const mine = answer.moves[answer.chosen];
    lines.push(nowLine(mine, rules));
    lines.push(t("pz.yours", { move: mine.move, now: mine.now[0], margin: mine.margin, win: percent(mine.win), best: percent(best.win) }));
  }
  return lines;
}

/** What move J does at once, in words, under RULES (the page's rules facts: a luzak's pips
 * go to the opponent in Luzak; in Luzak without spinners a luzak's count does). */
function nowLine(j, rules) {
  const counted = j.count !== null && j.count !== undefined && j.n && j.count > 0 && j.count % j.n === 0;
  const rule = counted ? { count: j.count, n: j.n, q: j.count / j.n } : {};
  if (j.kind === "luzak" && rules.luzak_pips) {
    const pips = t("pz.luzak", { move: j.move, pips: j.now[1] });
    return j.now[0] > 0 && counted ? `${pips} ${t("pz.luzakCounts", { points: j.now[0], ...rule })}` : pips;
  }
  if (j.kind === "luzak") {
    return counted && j.now[1] > 0
      ? t("pz.luzakLine", { move: j.move, points: j.now[1], ...rule })
      : t("pz.luzakLineNothing", { move: j.move, count: j.count, n: j.n });
  }
  if (j.count !== null && j.count !== undefined && j.n) {
    if (j.now[0] > 0 && j.count % j.n === 0) return t("pz.scores", { move: j.move, points: j.now[0], count: j.count, n: j.n, q: j.count / j.n });
    return t("pz.scoresNothing", { move: j.move, count: j.count, n: j.n });
  }
  if (j.quartet) return t("pz.quartet", { move: j.move, quartet: j.quartet, points: j.now[0] });
  if (j.kind === "play" || j.kind === "lead") return t("pz.noQuartet", { move: j.move });
  return t("pz.otherMove", { move: j.move, points: j.now[0] });
}

export class PuzzlesView {
  constructor(path, navigate) {
    this.navigate = navigate;
    const m = /^\/puzzles(?:\/([^/]+))?(?:\/([^/]+))?\/?$/.exec(path) || [];
    this.game = PUZZLE_GAMES.includes(m[1]) ? m[1] : "luzak";
    this.wanted = m[2] ? decodeURIComponent(m[2]) : null;
    this.data = null;      // {puzzle, rating, tries, you, tried}
    this.answer = null;
    this.picked = null;
    this.groups = [];
    this.focusedSpot = -1;
    this.busy = false;
    this.disposers = [];
  }

  mount(root) {
    this.root = root;
    this.mounted = true;
    this.layout = window.matchMedia("(max-width: 640px)").matches ? "narrow" : "wide";
    this.table = new TableView({ onSpot: (grp, i) => this.chooseSpot(grp, i), label: t("pz.table") });
    this.table.svg.setAttribute("data-testid", "puzzle-table");
    this.keyHandler = (ev) => this.onKey(ev);
    document.addEventListener("keydown", this.keyHandler);
    this.disposers.push(() => document.removeEventListener("keydown", this.keyHandler));
    this.disposers.push(onLangChange(() => this.render()));
    document.title = `${t("pz.title")} — dominolab`;
    this.render();
    this.load();
  }

  unmount() {
    this.mounted = false;
    for (const d of this.disposers) d();
  }

  get key() {
    const p = loadPlayer();
    return p ? p.key : null;
  }

  async load() {
    this.data = null;
    this.answer = null;
    this.error = null;
    this.picked = null;
    this.render();
    try {
      const data = this.wanted
        ? await api.puzzle(this.game, this.wanted, this.key, this.layout)
        : await api.nextPuzzle(this.game, shownIds(), this.key, this.layout);
      if (!this.mounted) return;
      this.data = data;
      remember(data.puzzle.id);
    } catch (err) {
      if (!this.mounted) return;
      this.error = err;
    }
    this.render();
  }

  legalFor(tile) {
    return ((this.data && this.data.puzzle.legal) || []).filter((l) => l.tile === tile && PLACE_KINDS.has(l.kind));
  }

  render() {
    const tabs = el("nav", { class: "board-tabs puzzle-tabs", "aria-label": t("pz.games") }, PUZZLE_GAMES.map((g) =>
      el("a", {
        href: `/puzzles/${g}`, "data-link": true, class: "board-tab", "data-testid": "puzzle-tab", "data-game": g,
        "aria-current": g === this.game ? "page" : null, text: gameTitle(g),
      })));
    const head = el("div", { class: "puzzle-head" }, [
      el("h1", { text: t("pz.title") }),
      el("p", { class: "lead", text: t("pz.lead") }),
      tabs,
    ]);
    let body;
    if (this.error) {
      body = el("div", { class: "panel notice", role: "alert", "data-testid": "puzzle-error" }, [
        el("p", { text: `${t("pz.failed")} ${this.error.describe ? this.error.describe() : ""}` }),
        el("button", { type: "button", class: "button primary", onclick: () => this.load(), text: t("pz.retry") }),
      ]);
    } else if (!this.data) {
      body = el("p", { class: "muted", "aria-live": "polite", text: t("pz.loading") });
    } else {
      body = this.board();
    }
    this.overlayEl = el("div", { class: "puzzle-overlay" });
    this.root.replaceChildren(el("section", { class: "puzzles", "data-testid": "puzzle-page", "data-game": this.game }, [head, body, this.overlayEl]));
  }

  board() {
    const { puzzle: pz, you } = this.data;
    const rating = you
      ? t("pz.yourRating", { title: gameTitle(pz.game), rating: formatNumber(you.rating), provisional: you.provisional, tries: you.tries })
      : t("pz.noRating");
    const task = pz.rules.count ? t("pz.task", { n: pz.number }) : t("pz.taskNoCount");
    const facts = [
      t("pz.score", { me: pz.totals[0], them: pz.totals[1], target: pz.target, hme: pz.hand_points[0], hthem: pz.hand_points[1] }),
      pz.count !== null && pz.count !== undefined ? t("pz.count", { count: pz.count }) : null,
      t("pz.oppTiles", { n: pz.opponent_tiles }),
    ].filter(Boolean);
    this.handEl = el("div", { class: "hand", role: "group", "aria-label": t("pz.hand"), "data-testid": "puzzle-hand" });
    this.actionsEl = el("div", { class: "actions" });
    this.resultEl = el("div", { class: "puzzle-result", "aria-live": "polite" });
    const felt = el("div", { class: "felt" }, [this.table.svg]);
    this.feltEl = felt;
    const out = el("div", { class: "puzzle-board panel", "data-testid": "puzzle", "data-id": pz.id }, [
      el("div", { class: "puzzle-meta" }, [
        el("h2", { text: t("pz.heading", { id: pz.id }) }),
        el("span", { class: "muted", "data-testid": "puzzle-rating", text: t("pz.puzzleRating", { rating: formatNumber(this.data.rating) }) }),
      ]),
      el("p", { class: "puzzle-you", "data-testid": "puzzle-you", text: rating }),
      el("p", { class: "puzzle-task", "data-testid": "puzzle-task", text: task }),
      el("p", { class: "puzzle-facts", "data-testid": "puzzle-score", text: facts.join(" · ") }),
      felt,
      el("h3", { class: "hand-title", text: t("pz.hand") }),
      this.handEl,
      this.actionsEl,
      el("p", { class: "puzzle-hint", text: this.answer ? "" : t("pz.pickHint") }),
      this.resultEl,
    ]);
    this.renderTable();
    this.renderHand();
    this.renderResult();
    return out;
  }

  renderTable() {
    const pz = this.data.puzzle;
    const frame = (pz.legal || []).filter((l) => l.spot).map((l) => l.spot);
    this.table.minWidth = this.layout === "narrow" ? 9 : 14;
    this.table.setLayout(pz.table, { frame, animateLast: false });
    if (this.answer) {
      // the best move lit where it lies
      const best = this.answer.moves[0];
      const lit = best.spot ? [{ key: "best", rect: best.spot, legal: [{ move: best.move, tile: best.tile, spot: best.spot }] }] : [];
      this.table.setSpots(lit, { hinted: new Set([best.move]) });
      for (const g of this.table.spotEls) { g.setAttribute("data-testid", "puzzle-best"); g.removeAttribute("tabindex"); g.setAttribute("role", "img"); }
    } else {
      this.groups = this.picked ? groupSpots(this.legalFor(this.picked)) : [];
      this.table.setSpots(this.groups, { focused: this.focusedSpot });
    }
    this.feltEl.classList.toggle("is-picking", !!this.picked);
  }

  renderHand() {
    const pz = this.data.puzzle;
    const open = !this.answer && !this.busy;
    this.handEl.replaceChildren(...pz.hand.map((tile, i) => handTileButton(tile, i, {
      playable: open && this.legalFor(tile).length > 0, picked: this.picked === tile,
      onPick: () => this.pick(tile),
    })));
    const actions = [];
    for (const kind of ["draw", "pass", "keep"]) {
      const legal = pz.legal.find((l) => l.kind === kind);
      if (!legal || this.answer) continue;
      actions.push(el("button", { type: "button", class: "button primary", "data-testid": kind, disabled: this.busy, onclick: () => this.send(legal.move), text: t(`btn.${kind}`) }));
    }
    this.actionsEl.replaceChildren(...actions);
  }

  renderResult() {
    const a = this.answer;
    if (!a) { this.resultEl.replaceChildren(); return; }
    const headline = a.solved ? t("pz.solved", { move: a.move }) : t("pz.missed", { move: a.move, best: a.best.move });
    const why = el("div", { class: "puzzle-why", "data-testid": "puzzle-why" }, whyLines(a, this.data.puzzle.rules).map((line) => el("p", { text: line })));
    let change;
    if (a.rating && a.rated) {
      change = t("pz.ratingChange", { before: formatNumber(a.rating.before), after: formatNumber(a.rating.after), change: a.rating.change, pb: formatNumber(a.rating.puzzle_before), pa: formatNumber(a.rating.puzzle_after) });
    } else if (a.rating) {
      change = t("pz.notRated", { before: formatNumber(a.rating.before), after: formatNumber(a.rating.after) });
    } else {
      change = t("pz.visitor");
    }
    const rows = a.moves.map((j, i) => el("tr", { class: i === 0 ? "is-best" : i === a.chosen ? "is-chosen" : null, "data-testid": "puzzle-move", "data-move": j.move }, [
      el("th", { scope: "row" }, [el("code", { text: j.move })]),
      el("td", { text: String(j.now[0] - j.now[1]) }),
      el("td", { text: `${j.margin >= 0 ? "+" : "−"}${formatNumber(Math.abs(j.margin), 1)}` }),
      el("td", { text: percent(j.win) }),
    ]));
    const table = el("div", { class: "table-scroll" }, [el("table", { class: "puzzle-moves" }, [
      el("caption", { text: t("pz.movesTitle") }),
      el("thead", {}, [el("tr", {}, [t("pz.colMove"), t("pz.colNow"), t("pz.colMargin"), t("pz.colWin")].map((h) => el("th", { scope: "col", text: h })))]),
      el("tbody", {}, rows),
    ])]);
    const next = el("button", { type: "button", class: "button primary", "data-testid": "next-puzzle", onclick: () => this.next(), text: t("pz.next") });
    this.resultEl.replaceChildren(...[
      el("p", { class: `puzzle-verdict ${a.solved ? "is-solved" : "is-missed"}`, "data-testid": "puzzle-verdict", "data-solved": String(a.solved), text: headline }),
      a.best.same.length ? el("p", { class: "muted", text: t("pz.same", { moves: a.best.same.join(", ") }) }) : null,
      el("h3", { text: t("pz.whyTitle") }),
      why,
      el("p", { class: "puzzle-change", "data-testid": "puzzle-rating-change", text: change }),
      table,
      el("div", { class: "modal-actions" }, [next]),
    ].filter(Boolean));
  }

  next() {
    this.wanted = null;
    this.navigate(`/puzzles/${this.game}`);
  }

  pick(tile, { focus = false } = {}) {
    if (this.answer || this.busy || !this.legalFor(tile).length) return;
    this.picked = tile;
    this.groups = groupSpots(this.legalFor(tile));
    this.focusedSpot = focus && this.groups.length ? 0 : -1;
    this.renderTable();
    this.renderHand();
    if (focus && this.focusedSpot >= 0) this.table.focusSpot(this.focusedSpot);
  }

  chooseSpot(grp, i) {
    if (this.answer) return;
    this.focusedSpot = i;
    if (grp.legal.length === 1) { this.send(grp.legal[0].move); return; }
    this.closeChooser();
    this.chooser = chooserDialog(grp, { onMove: (move) => this.send(move), onClose: () => this.closeChooser() });
    this.overlayEl.append(this.chooser);
  }

  closeChooser() {
    if (this.chooser) { this.chooser.remove(); this.chooser = null; }
  }

  async send(move) {
    if (this.busy || this.answer) return;
    this.busy = true;
    this.renderHand();
    try {
      const answer = await api.answerPuzzle(this.game, this.data.puzzle.id, move, this.key, this.layout);
      if (!this.mounted) return;
      this.answer = answer;
      this.picked = null;
    } catch (err) {
      toast(err.describe ? err.describe() : String(err), "error");
    }
    this.busy = false;
    if (!this.mounted) return;
    this.render();
    const verdict = this.root.querySelector("[data-testid=puzzle-verdict]");
    if (verdict) { verdict.setAttribute("tabindex", "-1"); verdict.focus({ preventScroll: false }); }
  }

  onKey(ev) {
    if (!this.data || this.answer || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const tag = (ev.target && ev.target.tagName) || "";
    if (["INPUT", "TEXTAREA", "SELECT"].includes(tag)) return;
    if (ev.key === "Escape") {
      if (this.chooser) { this.closeChooser(); ev.preventDefault(); return; }
      if (this.picked) { this.picked = null; this.focusedSpot = -1; this.renderTable(); this.renderHand(); ev.preventDefault(); }
      return;
    }
    if (this.chooser) return;
    if (/^[0-9]$/.test(ev.key)) {
      const tile = this.data.puzzle.hand[ev.key === "0" ? 9 : Number(ev.key) - 1];
      if (tile && this.legalFor(tile).length) { ev.preventDefault(); this.pick(tile, { focus: true }); }
      return;
    }
    const cycle = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    if (ev.key in cycle && this.picked && this.groups.length) {
      ev.preventDefault();
      const n = this.groups.length;
      this.focusedSpot = this.focusedSpot < 0 ? 0 : (this.focusedSpot + cycle[ev.key] + n) % n;
      this.table.focusSpot(this.focusedSpot);
      return;
    }
    if (ev.key === "Enter" && this.picked && this.focusedSpot >= 0 && this.groups[this.focusedSpot]) {
      ev.preventDefault();
      this.chooseSpot(this.groups[this.focusedSpot], this.focusedSpot);
    }
  }
}

/** The start page's daily puzzle of GAME: a small table and a link to solve it. Returns the
 * panel at once and fills it when the puzzle comes (nothing is shown if it does not). */
export function dailyPanel(game) {
  // named by its heading once drawn: a section named by a heading not yet there is not a
  // region, and may not carry aria-labelledby
  const panel = el("section", { class: "panel daily-puzzle", "data-testid": "daily-puzzle" });
  const draw = (data) => {
    panel.setAttribute("aria-labelledby", "daily-title");
    const pz = data.puzzle;
    const table = new TableView({ small: true, minWidth: 10, label: t("pz.table") });
    table.setLayout(pz.table, { animateLast: false });
    const text = pz.rules.count ? t("pz.dailyText", { title: gameTitle(pz.game), n: pz.number }) : t("pz.dailyTextNoCount", { title: gameTitle(pz.game) });
    panel.replaceChildren(
      el("h2", { id: "daily-title", class: "section-title", text: t("pz.daily") }),
      el("div", { class: "daily-table" }, [table.svg]),
      el("p", { text }),
      el("a", { href: `/puzzles/${pz.game}/${encodeURIComponent(pz.id)}`, "data-link": true, class: "button primary", "data-testid": "daily-puzzle-link", "data-id": pz.id, text: t("pz.solveIt") }),
    );
  };
  let shown = null;
  api.dailyPuzzle(game).then((data) => { shown = data; draw(data); }).catch(() => panel.remove());
  return [panel, () => { if (shown) draw(shown); }];
}
