// The tutorial (/learn, /learn/GAME; docs/learn.md, "The tutorial"): short lessons on the
// real table. The server computes everything (GET /api/lessons/GAME, web/lessons.py): the
// table's layout, the learner's legal moves with their places and outcomes, and the
// sentences that explain each of them as text keys with the engine's numbers. This page
// only draws, lets the learner pick a tile and a place (tap, click or keys, as in a game),
// and words the server's sentences. Progress is kept in localStorage, per game.

import { api } from "./api.js";
import { t, onLangChange, has } from "./i18n.js";
import { el, layoutMode } from "./ui.js";
import { TableView, groupSpots } from "./table.js";
import { tileSVG, handTileLabel, digits } from "./tiles.js";
import { moveText, reasonText, tablePlays } from "./words.js";
import { createErrorText } from "./home.js";

const PROGRESS_PREFIX = "dominolab/learn/";
const PLACE_KINDS = new Set(["lead", "play", "luzak"]);

// ---- progress ------------------------------------------------------------------------------

/** The ids of GAME's lessons this browser has done. */
export function loadProgress(game) {
  try {
    const v = JSON.parse(localStorage.getItem(PROGRESS_PREFIX + game) || "[]");
    return new Set(Array.isArray(v) ? v.filter((x) => typeof x === "string") : []);
  } catch (_) {
    return new Set();
  }
}

function saveProgress(game, done) {
  try { localStorage.setItem(PROGRESS_PREFIX + game, JSON.stringify([...done])); } catch (_) { /* storage off */ }
}

// ---- data ----------------------------------------------------------------------------------

const cache = new Map();

/** The lessons of GAME laid out for LAYOUT (asked once per page load). */
function fetchLessons(game, layout) {
  const key = `${game}/${layout}`;
  if (!cache.has(key)) {
    const p = api.lessons(game, layout);
    p.catch(() => cache.delete(key));
    cache.set(key, p);
  }
  return cache.get(key);
}

let indexCache = null;

function fetchIndex() {
  if (!indexCache) {
    indexCache = api.lessonIndex();
    indexCache.catch(() => { indexCache = null; });
  }
  return indexCache;
}

/** Replace NODE's children with the given ones (null ones left out). */
function put(node, ...children) {
  node.replaceChildren(...children.filter((c) => c !== null && c !== undefined && c !== false));
}

/** A server sentence {key, vars} in the current language. */
function say(s) {
  return t(s.key, s.vars || {});
}

function gameTitle(name, fallback) {
  return has(`game.${name}`) ? t(`game.${name}`) : (fallback || name);
}

/** The progress line: a bar and "COUNT of TOTAL lessons done". */
function progressBar(count, total) {
  return el("p", {
    class: "learn-progress" + (count === total ? " is-complete" : ""), "data-testid": "learn-progress",
    "data-done": String(count), "data-total": String(total),
  }, [el("span", { class: "learn-bar", "aria-hidden": "true" }, [
    el("span", { style: `width: ${Math.round((100 * count) / total)}%` }),
  ]), progressText(count, total)]);
}

function progressText(done, total) {
  return t("learn.progress", { done, total });
}

// ---- the view ------------------------------------------------------------------------------

export class LearnView {
  constructor(path, navigate) {
    const m = /^\/learn\/?([^/]*)\/?$/.exec(path);
    this.game = m && m[1] ? decodeURIComponent(m[1]) : null;
    this.navigate = navigate;
    this.disposers = [];
    this.data = null;
    this.error = null;
    this.layout = layoutMode();
    // the lesson on screen and what the learner has done in it
    this.index = 0;
    this.turn = 0;
    this.picked = null;
    this.groups = [];
    this.focusedSpot = -1;
    this.chooser = null;      // a place that means several moves (a luzak's outward half)
    this.result = null;       // {kind: "goal" | "miss" | "drew" | "refused", entry}
    this.starting = false;
    this.startError = null;
  }

  mount(root) {
    this.root = root;
    this.disposers.push(onLangChange(() => this.render()));
    document.title = `${t("learn.title")} — dominolab`;
    if (!this.game) {
      this.renderLoading();
      fetchIndex().then((index) => { this.index_ = index; this.render(); })
        .catch((err) => { this.error = err; this.render(); });
      return;
    }
    this.table = new TableView({
      minWidth: this.layout === "narrow" ? 9 : 14, minHeight: 3.5,
      onSpot: (grp, i) => this.chooseSpot(grp, i),
    });
    this.renderLoading();
    this.load();
    const onKey = (ev) => this.onKey(ev);
    document.addEventListener("keydown", onKey);
    this.disposers.push(() => document.removeEventListener("keydown", onKey));
    let timer = null;
    const onResize = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (layoutMode() !== this.layout) {
          this.layout = layoutMode();
          this.load({ keep: true });
        }
      }, 250);
    };
    window.addEventListener("resize", onResize);
    this.disposers.push(() => { window.removeEventListener("resize", onResize); clearTimeout(timer); });
  }

  unmount() {
    for (const d of this.disposers) d();
    this.disposers = [];
    this.unmounted = true;
  }

  async load({ keep = false } = {}) {
    try {
      const data = await fetchLessons(this.game, this.layout);
      if (this.unmounted) return;
      const old = this.data;
      this.data = data;
      this.error = null;
      if (keep && old) {
        // the same lesson, laid out for the new width; a shown result follows its move
        const entry = this.result && this.result.entry;
        if (entry && entry.move) {
          const legal = this.currentTurn().legal.find((l) => l.move === entry.move);
          this.result = legal ? { ...this.result, entry: legal } : null;
        }
        this.dropPick(false);
      } else {
        this.index = this.startIndex();
      }
      this.render();
    } catch (err) {
      if (this.unmounted) return;
      this.error = err;
      this.render();
    }
  }

  /** The lesson named in the address (#ID), else the first one not done, else the last. */
  startIndex() {
    const lessons = this.data.lessons;
    const wanted = decodeURIComponent(location.hash.replace(/^#/, ""));
    const named = lessons.findIndex((l) => l.id === wanted);
    if (named >= 0) return named;
    const done = loadProgress(this.data.game);
    const first = lessons.findIndex((l) => !done.has(l.id));
    return first >= 0 ? first : lessons.length - 1;
  }

  renderLoading() {
    this.pageEl = null;
    this.root.replaceChildren(el("section", { class: "panel notice", "data-testid": "learn-loading" }, [
      el("p", { class: "muted", text: t("learn.loading") }),
    ]));
  }

  render() {
    if (this.unmounted) return;
    document.title = `${t("learn.title")} — dominolab`;
    if (this.error) return this.renderError();
    if (!this.game) {
      if (this.index_) this.renderIndex();
      else this.renderLoading();
      return;
    }
    if (!this.data) return this.renderLoading();
    this.renderGame();
  }

  renderError() {
    this.pageEl = null;
    const missing = this.error && this.error.status === 404;
    this.root.replaceChildren(el("section", { class: "panel notice", role: "alert", "data-testid": "learn-error" }, [
      el("p", { text: missing ? t("learn.noGame") : `${t("learn.failed")} ${this.error.describe ? this.error.describe() : ""}` }),
      el("a", { class: "button", href: "/learn", "data-link": "", text: t("learn.back") }),
    ]));
  }

  // ---- /learn ----------------------------------------------------------------------------

  renderIndex() {
    const cards = this.index_.games.map((g) => {
      const done = loadProgress(g.game);
      const total = g.lessons.length;
      const count = g.lessons.filter((id) => done.has(id)).length;
      const label = count === 0 ? t("learn.start") : count < total ? t("learn.continue") : t("learn.review");
      return el("li", { class: "learn-card panel", "data-testid": "learn-game", "data-game": g.game }, [
        el("h2", { class: "section-title", text: gameTitle(g.game, g.title) }),
        el("p", { class: "blurb", text: has(`blurb.${g.game}`) ? t(`blurb.${g.game}`) : "" }),
        el("div", { class: "learn-card-foot" }, [
          progressBar(count, total),
          el("a", {
            class: "button primary", href: `/learn/${encodeURIComponent(g.game)}`, "data-link": "",
            "data-testid": "learn-open", "aria-label": `${label}: ${gameTitle(g.game, g.title)}`, text: label,
          }),
        ]),
      ]);
    });
    this.root.replaceChildren(el("div", { class: "learn-home", "data-testid": "learn" }, [
      el("header", { class: "learn-hero" }, [
        el("h1", { text: t("learn.title") }),
        el("p", { class: "lead", text: t("learn.lead") }),
      ]),
      el("ul", { class: "learn-cards" }, cards),
    ]));
  }

  // ---- /learn/GAME -----------------------------------------------------------------------

  lesson() {
    return this.data.lessons[this.index];
  }

  currentTurn() {
    return this.lesson().turns[this.turn];
  }

  textKey(part) {
    return `learn.${this.data.game}.${this.lesson().id}.${part}`;
  }

  /** The page's parts that stay while the learner works: the live explanation above all
   * (a live region must stay in the page to be announced), the table and the hand. */
  buildShell() {
    this.headEl = el("header", { class: "learn-head" });
    this.navEl = el("nav", { class: "lesson-nav panel" });
    this.topEl = el("div", { class: "lesson-top" });
    this.feltEl = el("div", { class: "felt" }, [this.table.svg]);
    this.feltEl.addEventListener("click", (ev) => {
      if (ev.target.closest && ev.target.closest(".spot")) return;
      if (this.picked) this.dropPick();
    });
    this.handEl = el("section", { class: "hand-area lesson-hand" });
    this.explainEl = el("section", { class: "lesson-explain", "data-testid": "lesson-explain", "aria-live": "polite" });
    this.articleEl = el("article", { class: "lesson panel", "data-testid": "lesson", "aria-labelledby": "lesson-title" }, [
      this.topEl, el("div", { class: "lesson-board" }, [this.feltEl, this.handEl, this.explainEl]),
    ]);
    this.pageEl = el("div", { class: "learn-page", "data-testid": "learn" }, [
      this.headEl, el("div", { class: "learn-grid" }, [this.navEl, this.articleEl]),
    ]);
    this.historyOpen = this.layout !== "narrow";
  }

  renderGame() {
    const data = this.data;
    const lesson = this.lesson();
    const done = loadProgress(data.game);
    const total = data.lessons.length;
    const count = data.lessons.filter((l) => done.has(l.id)).length;
    if (!this.pageEl) this.buildShell();
    if (this.root.firstChild !== this.pageEl) this.root.replaceChildren(this.pageEl);
    this.pageEl.dataset.game = data.game;

    put(this.headEl,
      el("p", { class: "learn-crumbs" }, [
        el("a", { href: "/learn", "data-link": "", "data-testid": "learn-back", text: t("learn.back") }),
      ]),
      el("h1", { text: `${t("learn.title")}: ${gameTitle(data.game, data.title)}` }),
      progressBar(count, total),
    );

    const list = el("ol", { class: "lesson-list", "data-testid": "lesson-list" },
      data.lessons.map((l, i) => {
        const isDone = done.has(l.id);
        return el("li", {}, [el("button", {
          type: "button", class: "lesson-link" + (i === this.index ? " is-current" : "") + (isDone ? " is-done" : ""),
          "data-testid": "lesson-link", "data-lesson": l.id, "data-done": String(isDone),
          "aria-current": i === this.index ? "step" : null,
          onclick: () => this.goTo(i),
        }, [
          el("span", { class: "lesson-link-number", text: String(i + 1) }),
          el("span", { class: "lesson-link-title", text: t(`learn.${data.game}.${l.id}.title`) }),
          isDone ? el("span", { class: "lesson-link-mark", "aria-hidden": "true", text: "✓" }) : null,
          isDone ? el("span", { class: "visually-hidden", text: ` (${t("learn.doneMark")})` }) : null,
        ])]);
      }));
    this.navEl.setAttribute("aria-label", t("learn.lessons"));
    put(this.navEl,
      el("h2", { class: "section-title", text: t("learn.lessons") }), list,
      count ? el("button", {
        type: "button", class: "button subtle small", "data-testid": "learn-reset",
        onclick: () => { saveProgress(data.game, new Set()); this.goTo(0); },
        text: t("learn.resetProgress"),
      }) : null,
    );
    this.renderLesson(lesson, total);
  }

  renderLesson(lesson, total) {
    const turn = this.currentTurn();
    const rules = this.data.rules;
    const played = this.result && this.result.entry && PLACE_KINDS.has(this.result.entry.kind)
      ? this.result.entry : null;
    const answered = this.result && (this.result.kind === "goal" || this.result.kind === "miss");
    const goalKey = this.turn === 0 ? "goal" : `goal${this.turn + 1}`;

    // the moves before the learner's turn, in the game's words
    const ctx = { seat: lesson.seat, mode: "lesson", opponent: null };
    const plays = tablePlays(lesson.history);
    const history = lesson.history.length
      ? el("ol", { class: "lesson-history", "data-testid": "lesson-history" }, lesson.history.map((step) => {
        const scored = (step.points || []).some((p) => p > 0);
        return el("li", {}, [
          el("strong", { class: step.seat === lesson.seat ? "who-me" : "who-opp", text: step.seat === lesson.seat ? t("who.me") : t("who.opponent") }),
          " ", moveText(step, { plays }), " — ",
          el("span", { class: "reason" + (scored ? " scored" : ""), text: reasonText(step, rules, ctx) }),
        ]);
      }))
      : el("p", { class: "muted lesson-history", text: t("learn.emptyTable") });

    // the table, with the learner's tile on it once played
    const layout = played && played.spot
      ? { ...lesson.table, tiles: [...lesson.table.tiles, played.spot] }
      : lesson.table;
    const frame = turn.legal.filter((l) => l.spot).map((l) => l.spot);
    this.table.minWidth = this.layout === "narrow" ? 9 : 14;
    this.table.setLayout(layout, { frame });
    this.groups = this.picked && !answered ? groupSpots(this.legalFor(this.picked)) : [];
    this.table.setSpots(this.groups, { focused: this.focusedSpot });
    this.feltEl.classList.toggle("is-picking", !!this.picked);

    const totals = answered ? this.result.entry.totals : lesson.totals;
    const me = lesson.seat;
    const facts = [];
    if (rules.count) {
      facts.push([t("learn.count"), String(answered ? this.result.entry.step.count : turn.count), "lesson-count"]);
      facts.push([t("learn.nextN"), String(turn.n), "lesson-n"]);
    }
    facts.push([t("learn.score"), t("learn.scoreLine", { me: totals[me], them: totals[1 - me] }), "lesson-score"]);

    const article = this.articleEl;
    article.dataset.lesson = lesson.id;
    article.dataset.turn = String(this.turn);
    article.dataset.state = this.result ? this.result.kind : "play";
    const before = el("details", { class: "lesson-before", open: this.historyOpen }, [
      el("summary", { text: t("learn.before") }), history,
    ]);
    before.addEventListener("toggle", () => { this.historyOpen = before.open; });
    put(this.topEl,
      el("p", { class: "lesson-number", text: t("learn.lessonOf", { i: lesson.number, total }) }),
      el("h2", { id: "lesson-title", class: "lesson-title", tabindex: "-1", text: t(this.textKey("title")) }),
      el("p", { class: "lesson-intro", "data-testid": "lesson-intro", text: t(this.textKey("intro"), lesson.vars) }),
      el("p", { class: "lesson-goal", "data-testid": "lesson-goal" }, [
        el("strong", { text: t("learn.goalLabel") }), " ", t(this.textKey(goalKey), lesson.vars),
      ]),
      before,
      el("dl", { class: "lesson-facts" }, facts.map(([k, v, id]) => el("div", {}, [
        el("dt", { text: k }), el("dd", { "data-testid": id, text: v }),
      ]))),
      lesson.opponent_hand ? el("section", { class: "lesson-opponent", "data-testid": "lesson-opponent" }, [
        el("h3", { class: "section-title", text: t("learn.oppTiles") }),
        el("div", { class: "lesson-opponent-tiles" }, lesson.opponent_hand.map((tile) => {
          const [a, b] = digits(tile);
          return tileSVG(a, b, { orientation: "vertical", px: 56 });
        })),
      ]) : null,
    );
    this.renderHand(turn, played);
    this.renderExplain(lesson);
  }

  renderHand(turn, played) {
    const locked = !!(this.result && (this.result.kind === "goal" || this.result.kind === "miss"));
    const tiles = turn.hand.filter((tile) => !played || tile !== played.tile);
    const buttons = tiles.map((tile, i) => {
      const playable = this.legalFor(tile).length > 0;
      const [a, b] = digits(tile);
      const key = i < 9 ? String(i + 1) : "";
      const drawn = turn.pending === tile;
      return el("button", {
        type: "button",
        class: "hand-tile lesson-tile" + (playable ? " is-playable" : "") + (this.picked === tile ? " is-picked" : "") + (drawn ? " is-drawn" : ""),
        "data-testid": "lesson-tile", "data-tile": tile, "data-playable": String(playable),
        "aria-pressed": this.picked === tile ? "true" : "false",
        "aria-label": handTileLabel(a, b, { playable, key, mark: drawn ? t("learn.drawnMark") : "" }),
        disabled: locked,
        onclick: () => this.pick(tile),
      }, [
        tileSVG(a, b, { orientation: "vertical", px: 72, label: false }),
        el("span", { class: "key", "aria-hidden": "true", text: key || "\u00a0" }),
        // after the key, as in the game's hand (it is placed above the tile): the name
        // holds the visible text in this order
        drawn ? el("span", { class: "drawn-mark", "aria-hidden": "true", text: t("learn.drawnMark") }) : null,
      ]);
    });
    const actions = turn.legal.filter((l) => !PLACE_KINDS.has(l.kind)).map((l) => el("button", {
      type: "button", class: "button primary", "data-testid": `lesson-${l.kind}`, disabled: locked,
      onclick: () => this.play(l),
    }, [t(`btn.${l.kind}`)]));
    const chooser = this.chooser ? el("div", { class: "lesson-chooser", role: "group", "aria-labelledby": "lesson-chooser-title" }, [
      el("p", { id: "lesson-chooser-title", text: t("choose.title") }),
      el("div", { class: "choose-row" }, this.chooser.legal.map((l, i) => {
        const sp = l.spot || {};
        const horizontal = (sp.w ?? 2) >= (sp.h ?? 1);
        return el("button", {
          type: "button", class: "choose-button", "data-testid": "choose-move", "data-move": l.move,
          "data-autofocus": i === 0 ? "" : null,
          onclick: () => this.play(l),
        }, [
          tileSVG(sp.a ?? digits(l.tile)[0], sp.b ?? digits(l.tile)[1], { orientation: horizontal ? "horizontal" : "vertical", px: 72 }),
          el("span", { text: t("choose.outward", { v: l.outer }) }),
        ]);
      })),
      el("button", { type: "button", class: "button subtle small", onclick: () => this.dropPick(), text: t("btn.cancel") }),
    ]) : null;
    put(this.handEl,
      el("div", { class: "hand-head" }, [el("h3", { class: "section-title", text: t("learn.yourTiles") })]),
      el("div", { class: "hand", role: "group", "aria-label": t("learn.yourTiles") },
        buttons.length ? buttons : [el("p", { class: "muted", text: t("hand.empty") })]),
      chooser,
      actions.length ? el("div", { class: "actions" }, actions) : null,
      el("p", { class: "key-hint", text: t("hand.keyHint") }),
    );
  }

  renderExplain(lesson) {
    const r = this.result;
    const box = this.explainEl;
    box.className = "lesson-explain" + (r ? ` is-${r.kind}` : "");
    box.dataset.result = r ? r.kind : "";
    const content = [];
    if (!r) {
      const kinds = new Set(this.currentTurn().legal.map((l) => l.kind));
      let tip = t("turn.pickTile");
      if (this.picked) tip = t("turn.pickSpot");
      else if (kinds.has("lead")) tip = t("turn.lead");
      else if (kinds.has("luzak") && !kinds.has("play")) tip = t("turn.luzak");
      else if (kinds.size === 1 && kinds.has("draw")) tip = t("turn.drawOnly");
      content.push(el("p", { class: "lesson-tip", text: tip }));
      box.replaceChildren(...content);
      return;
    }
    const heading = {
      goal: "learn.result.goal", miss: "learn.result.miss", drew: "learn.result.drew", refused: "learn.result.refused",
    }[r.kind];
    content.push(el("h3", { class: "lesson-verdict", text: t(heading) }));
    content.push(el("ul", { class: "lesson-say", "data-testid": "lesson-say" },
      r.entry.say.map((s) => el("li", { "data-key": s.key, text: say(s) }))));
    const actions = [];
    if (r.kind === "miss") {
      content.push(el("p", { text: t("learn.result.missText") }));
      actions.push(el("button", {
        type: "button", class: "button primary", "data-testid": "lesson-retry", "data-autofocus": "",
        onclick: () => this.retry(), text: t("learn.retry"),
      }));
    }
    if (r.kind === "goal") {
      content.push(el("p", { class: "lesson-done", "data-testid": "lesson-done", text: t(this.textKey("done"), lesson.vars) }));
      const last = this.index === this.data.lessons.length - 1;
      if (!last) {
        actions.push(el("button", {
          type: "button", class: "button primary", "data-testid": "lesson-next", "data-autofocus": "",
          onclick: () => this.goTo(this.index + 1), text: t("learn.next"),
        }));
      } else {
        content.push(el("p", { class: "lesson-all-done", text: t("learn.allDone") }));
        actions.push(el("button", {
          type: "button", class: "button primary big", "data-testid": "learn-play", "data-autofocus": "",
          disabled: this.starting, onclick: () => this.startMatch(),
        }, [t("learn.play"), el("span", { class: "learn-play-note", text: ` (${t("learn.playNote")})` })]));
        if (this.startError) {
          actions.push(el("p", { class: "form-error", role: "alert", "data-testid": "start-error", text: createErrorText(this.startError) }));
        }
      }
      actions.push(el("button", {
        type: "button", class: "button", "data-testid": "lesson-again", onclick: () => this.retry(), text: t("learn.again"),
      }));
    }
    if (actions.length) content.push(el("div", { class: "lesson-actions" }, actions));
    box.replaceChildren(...content);
  }

  // ---- acting ----------------------------------------------------------------------------

  legalFor(tile) {
    return this.currentTurn().legal.filter((l) => l.tile === tile && PLACE_KINDS.has(l.kind));
  }

  /** Reset the lesson on screen (its first turn, nothing picked). */
  reset() {
    this.turn = 0;
    this.result = null;
    this.dropPick(false);
  }

  goTo(i) {
    this.index = Math.max(0, Math.min(i, this.data.lessons.length - 1));
    this.reset();
    this.startError = null;
    history.replaceState(history.state, "", `/learn/${encodeURIComponent(this.data.game)}#${this.lesson().id}`);
    this.render();
    const title = this.root.querySelector("#lesson-title");
    if (title) title.focus({ preventScroll: true });
    const article = this.root.querySelector("[data-testid=lesson]");
    if (article && article.scrollIntoView) article.scrollIntoView({ block: "start" });
  }

  retry() {
    // a missed move is taken back; a draw stays drawn (the drawn tile must be played)
    if (this.result && this.result.kind === "goal" && this.turn > 0) this.turn = 0;
    this.result = this.turn > 0 ? { kind: "drew", entry: this.drewEntry } : null;
    this.dropPick(false);
    this.render();
    const first = this.root.querySelector("[data-testid=lesson-tile].is-playable, [data-testid=lesson-draw]");
    if (first) first.focus();
  }

  pick(tile, { focus = false } = {}) {
    if (this.result && (this.result.kind === "goal" || this.result.kind === "miss")) return;
    const legal = this.legalFor(tile);
    this.chooser = null;
    if (!legal.length) {
      // not refused in silence: the server says why this tile cannot be laid
      const why = this.currentTurn().blocked.find((b) => b.tile === tile);
      this.picked = null;
      this.focusedSpot = -1;
      if (why) this.result = { kind: "refused", entry: why };
      this.render();
      this.focusTile(tile);
      if (this.explainEl.scrollIntoView) this.explainEl.scrollIntoView({ block: "nearest" });
      return;
    }
    if (this.result && this.result.kind === "refused") this.result = this.turn > 0 ? { kind: "drew", entry: this.drewEntry } : null;
    this.picked = tile;
    this.focusedSpot = focus ? 0 : -1;
    this.render();
    if (focus && this.groups.length) this.table.focusSpot(0);
    else this.focusTile(tile);
    this.showTable();
  }

  /** A phone: bring the table, with its lit places, above the hand docked at the bottom. */
  showTable() {
    if (this.layout !== "narrow" || !this.feltEl || !this.feltEl.scrollIntoView) return;
    const box = this.feltEl.getBoundingClientRect();
    const bottom = this.handEl ? this.handEl.getBoundingClientRect().top : window.innerHeight;
    if (box.top < 0 || box.bottom > bottom + 1) this.feltEl.scrollIntoView({ block: "start" });
  }

  focusTile(tile) {
    const b = this.root.querySelector(`[data-testid=lesson-tile][data-tile="${tile}"]`);
    if (b) b.focus({ preventScroll: true });
  }

  dropPick(render = true) {
    this.picked = null;
    this.focusedSpot = -1;
    this.chooser = null;
    if (render) this.render();
  }

  chooseSpot(grp, i) {
    this.focusedSpot = i;
    if (grp.legal.length === 1) {
      this.play(grp.legal[0]);
      return;
    }
    this.chooser = grp;
    this.render();
    const f = this.root.querySelector(".lesson-chooser [data-autofocus]");
    if (f) f.focus({ preventScroll: true });
    this.showTable();
  }

  play(entry) {
    const last = this.turn === this.lesson().turns.length - 1;
    this.picked = null;
    this.focusedSpot = -1;
    this.chooser = null;
    if (entry.goal && !last) {
      // a draw that meets the goal: the drawn tile now waits in the hand (the next turn)
      this.turn += 1;
      this.drewEntry = entry;
      this.result = { kind: "drew", entry };
      this.render();
      const drawn = this.root.querySelector("[data-testid=lesson-tile].is-drawn");
      if (drawn) drawn.focus();
      return;
    }
    this.result = { kind: entry.goal ? "goal" : "miss", entry };
    if (entry.goal) {
      const done = loadProgress(this.data.game);
      done.add(this.lesson().id);
      saveProgress(this.data.game, done);
    }
    this.render();
    const box = this.root.querySelector("[data-testid=lesson-explain]");
    if (box && box.scrollIntoView) box.scrollIntoView({ block: "center" });
    const f = this.root.querySelector("[data-testid=lesson-explain] [data-autofocus]");
    if (f) f.focus({ preventScroll: true });
  }

  async startMatch() {
    if (this.starting) return;
    this.starting = true;
    this.startError = null;
    this.render();
    try {
      const res = await api.createGame({ game: this.data.game, opponent: "easy", first: "lot", options: {} });
      this.starting = false;
      this.navigate(`/game/${encodeURIComponent(res.id)}`);
    } catch (err) {
      this.starting = false;
      this.startError = err;
      this.render();
    }
  }

  // ---- keyboard --------------------------------------------------------------------------

  onKey(ev) {
    if (!this.data || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const tag = (ev.target && ev.target.tagName) || "";
    if (["INPUT", "TEXTAREA", "SELECT"].includes(tag)) return;
    if (ev.key === "Escape") {
      if (this.picked || this.chooser) { this.dropPick(); ev.preventDefault(); }
      return;
    }
    if (this.result && (this.result.kind === "goal" || this.result.kind === "miss")) return;
    const turn = this.currentTurn();
    if (/^[1-9]$/.test(ev.key)) {
      const shown = turn.hand;
      const tile = shown[Number(ev.key) - 1];
      if (tile) {
        ev.preventDefault();
        this.pick(tile, { focus: true });
      }
      return;
    }
    const cycle = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, Tab: ev.shiftKey ? -1 : 1 };
    if (ev.key in cycle && this.picked && this.groups.length && !this.chooser) {
      ev.preventDefault();
      const n = this.groups.length;
      this.focusedSpot = this.focusedSpot < 0 ? (cycle[ev.key] > 0 ? 0 : n - 1) : (this.focusedSpot + cycle[ev.key] + n) % n;
      this.table.focusSpot(this.focusedSpot);
      return;
    }
    if (ev.key === "Enter" && this.picked && !this.chooser && this.focusedSpot >= 0 && this.groups[this.focusedSpot]) {
      ev.preventDefault();
      this.chooseSpot(this.groups[this.focusedSpot], this.focusedSpot);
      return;
    }
    if (ev.key.toLowerCase() === "d") {
      const draw = turn.legal.find((l) => l.kind === "draw");
      if (draw) { ev.preventDefault(); this.play(draw); }
    }
  }
}
