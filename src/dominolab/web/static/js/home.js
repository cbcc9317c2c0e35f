// The start page: the new-game form built from GET /api/meta, and the games this device
// holds a token for.

import { api, ApiError, storedGames, forgetGame, loadPlayer } from "./api.js";
import { t, onLangChange, has, playerName } from "./i18n.js";
import { el } from "./ui.js";
import { tileSVG } from "./tiles.js";
import { MOVE_SECONDS, DEFAULT_SECONDS, secondsText } from "./lobby.js";
import { featuredPanel } from "./featured.js";

let metaCache = null;

export class HomeView {
  constructor(navigate) {
    this.navigate = navigate;
    this.values = { game: null, opponent: "medium", first: "lot", options: {}, rated: false, seconds: DEFAULT_SECONDS };
    this.disposers = [];
    this.submitting = false;
    this.createError = null;   // why the last creation failed (an ApiError), shown in the form
  }

  mount(root) {
    this.root = root;
    this.mounted = true;
    const [featured, stopFeatured, drawFeatured] = featuredPanel();
    this.featuredEl = featured;
    this.disposers.push(stopFeatured, onLangChange(drawFeatured));
    this.disposers.push(onLangChange(() => this.render()));
    this.dailyEl = this.dailyPuzzle();
    document.title = "dominolab — Luzak & Widelec";
    if (metaCache) {
      this.meta = metaCache;
      this.render();
    } else {
      this.renderLoading();
      this.load();
    }
  }

  /** The daily puzzle of the game last played here (or Luzak): a slot filled when the
   * puzzle code (read only now, a dynamic import) has drawn it. */
  dailyPuzzle() {
    const slot = el("div", { class: "daily-slot" });
    const last = storedGames().find((g) => ["luzak", "luzak-line", "widelec"].includes(g.game));
    import("./puzzles.js").then(({ dailyPanel }) => {
      if (!this.mounted) return;
      const [panel, redraw] = dailyPanel(last ? last.game : "luzak");
      this.disposers.push(onLangChange(redraw));
      slot.replaceChildren(panel);
    }).catch(() => { /* the start page works without it */ });
    return slot;
  }

  unmount() {
    this.mounted = false;
    for (const d of this.disposers) d();
  }

  /** Read the games' options; shown only while this view is the page's (a slow answer
   * must not cover the page navigated to meanwhile). */
  async load() {
    try {
      const meta = await api.meta();
      metaCache = meta;
      if (!this.mounted) return;
      this.meta = meta;
      this.render();
    } catch (err) {
      if (!this.mounted) return;
      this.error = err;
      this.render();
    }
  }

  renderLoading() {
    this.root.replaceChildren(el("section", { class: "panel notice" }, [el("p", { class: "muted", text: t("home.loadingMeta") })]));
  }

  gameMeta(name) {
    return (this.meta.games || []).find((g) => g.name === name) || this.meta.games[0];
  }

  render() {
    if (!this.meta) {
      if (this.error) {
        this.root.replaceChildren(el("section", { class: "panel notice", role: "alert" }, [
          el("p", { text: `${t("home.metaFailed")} ${this.error.describe ? this.error.describe() : ""}` }),
          el("button", { type: "button", class: "button primary", onclick: () => { this.error = null; this.renderLoading(); this.load(); }, text: t("home.retry") }),
        ]));
      } else {
        this.renderLoading();
      }
      return;
    }
    const games = this.meta.games || [];
    if (!this.values.game && games.length) this.values.game = games[0].name;
    const game = this.gameMeta(this.values.game);
    const levels = this.meta.levels || ["easy", "medium", "hard"];
    if (!levels.includes(this.values.opponent) && this.values.opponent !== "friend") {
      this.values.opponent = levels[Math.min(1, levels.length - 1)] || "friend";
    }

    const gameSelect = el("select", {
      name: "game", id: "f-game",
      onchange: (ev) => { this.values.game = ev.target.value; this.render(); this.root.querySelector("select[name=game]").focus(); },
    }, games.map((g) => el("option", { value: g.name, selected: g.name === game.name }, [has(`game.${g.name}`) ? t(`game.${g.name}`) : g.title])));

    const opts = (game.options || []).map((o) => this.optionField(game.name, o));

    const opponent = el("select", {
      name: "opponent", id: "f-opponent",
      onchange: (ev) => { this.values.opponent = ev.target.value; this.showRated(); },
    }, [...levels, "friend"].map((lv) => el("option", { value: lv, selected: lv === this.values.opponent }, [has(`level.${lv}`) ? t(`level.${lv}`) : lv])));

    const first = el("select", {
      name: "first", id: "f-first",
      onchange: (ev) => { this.values.first = ev.target.value; },
    }, ["me", "opponent", "lot"].map((v) => el("option", { value: v, selected: v === this.values.first }, [t(`form.first.${v}`)])));

    const start = el("button", {
      type: "submit", class: "button primary big", "data-testid": "start", disabled: this.submitting,
    }, [this.submitting ? t("form.starting") : t("form.start")]);

    const form = el("form", {
      class: "new-game panel", "data-testid": "new-game", novalidate: false,
      onsubmit: (ev) => { ev.preventDefault(); this.submit(form); },
    }, [
      el("div", { class: "field" }, [el("label", { for: "f-game", text: t("form.game") }), gameSelect]),
      el("p", { class: "blurb" }, [has(`blurb.${game.name}`) ? t(`blurb.${game.name}`) : ""]),
      opts.length ? this.rulesLine(game) : null,
      opts.length ? el("details", { class: "more-rules", "data-testid": "more-rules", open: this.rulesOpen, ontoggle: (ev) => { this.rulesOpen = ev.target.open; } }, [
        el("summary", { "data-testid": "more-rules-toggle", text: t("std.more") }),
        el("fieldset", { class: "options" }, [el("legend", { text: t("form.options") }), ...opts]),
      ]) : null,
      el("div", { class: "field-row" }, [
        el("div", { class: "field" }, [el("label", { for: "f-opponent", text: t("form.opponent") }), opponent]),
        el("div", { class: "field" }, [el("label", { for: "f-first", text: t("form.first") }), first]),
      ]),
      this.ratedField(),
      this.createError ? el("p", {
        class: "form-error", role: "alert", "data-testid": "start-error", text: createErrorText(this.createError),
      }) : null,
      el("div", { class: "form-actions" }, [start]),
    ]);

    const hero = el("section", { class: "hero" }, [
      el("div", { class: "hero-tiles", "aria-hidden": "true" }, [
        tileSVG(6, 5, { orientation: "horizontal", px: 76, label: false }),
        tileSVG(5, 5, { orientation: "vertical", px: 76, label: false }),
        tileSVG(5, 1, { orientation: "horizontal", px: 76, label: false }),
      ]),
      el("h1", { text: t("home.title") }),
      el("p", { class: "lead", text: t("home.lead") }),
      el("p", { class: "home-lobby" }, [el("a", { href: "/lobby", "data-link": "", "data-testid": "home-lobby-link", text: t("home.lobby") })]),
      firstVisitCall(),
    ]);

    const saved = storedGames();
    const savedList = saved.length ? el("section", { class: "panel saved-games" }, [
      el("h2", { class: "section-title", text: t("home.continue") }),
      el("ul", {}, saved.slice(0, 8).map((g) => el("li", {}, [
        el("a", { href: `/game/${encodeURIComponent(g.id)}`, "data-link": "" }, [
          t("home.continueGame", { title: g.game && has(`game.${g.game}`) ? t(`game.${g.game}`) : (g.title || "?"), id: g.id }),
        ]),
        g.totals ? el("span", { class: "muted", text: ` ${g.totals[g.seat ?? 0]} : ${g.totals[1 - (g.seat ?? 0)]}${g.over ? " ✓" : ""}` }) : null,
        el("button", {
          type: "button", class: "button subtle small",
          onclick: () => { forgetGame(g.id); this.render(); },
        }, [t("home.forget")]),
      ]))),
    ]) : null;

    this.root.replaceChildren(el("div", { class: "home" }, [hero, form, this.featuredEl, this.dailyEl, savedList]));
  }

  /** A stored player may make a match against the computer rated (ratings: the default
   * rules only, which the server checks), with a clock as the lobby's (the time a move
   * may take; walking away loses on time); with a link to their page. */
  ratedField() {
    const player = loadPlayer();
    this.ratedEl = null;
    this.clockFieldEl = null;
    if (!player) return null;
    this.ratedEl = el("div", { class: "check" }, [
      el("input", {
        type: "checkbox", name: "rated", id: "f-rated", "data-testid": "rated", checked: this.values.rated,
        onchange: (ev) => { this.values.rated = ev.target.checked; this.showRated(); },
      }),
      el("label", { for: "f-rated", text: t("home.rated") }),
    ]);
    this.clockFieldEl = el("div", { class: "field" }, [
      el("label", { for: "f-rated-time", text: t("lobby.time") }),
      el("select", {
        id: "f-rated-time", name: "move_seconds", "data-testid": "rated-time",
        onchange: (ev) => { this.values.seconds = Number(ev.target.value); },
      }, MOVE_SECONDS.map((s) => el("option", { value: String(s), selected: s === this.values.seconds }, [secondsText(s)]))),
      el("p", { class: "muted small-note", text: t("home.ratedClock") }),
    ]);
    this.showRated();
    return el("div", { class: "field" }, [
      this.ratedEl,
      this.clockFieldEl,
      el("p", { class: "small-note" }, [el("a", { href: `/player/${encodeURIComponent(player.id)}`, "data-link": "", "data-testid": "my-page-link", text: `${t("home.myPage")} (${playerName(player.name)})` })]),
    ]);
  }

  /** The rated choice is not for a friend game; its clock shows while it is chosen. */
  showRated() {
    const friend = this.values.opponent === "friend";
    if (this.ratedEl) this.ratedEl.hidden = friend;
    if (this.clockFieldEl) this.clockFieldEl.hidden = friend || !this.values.rated;
  }

  /** The game's rules in words ("Standard rules: to 61 points, ..."), above the folded
   * options: a newcomer reads what the match will be without opening them. */
  rulesLine(game) {
    this.rulesLineEl = el("p", { class: "rules-line", "data-testid": "rules-line", "aria-live": "polite" });
    this.showRulesLine(game.name);
    return this.rulesLineEl;
  }

  showRulesLine(gameName) {
    if (!this.rulesLineEl) return;
    const game = this.gameMeta(gameName);
    let changed = false;
    const words = (game.options || []).map((o) => {
      const key = `${game.name}:${o.name}`;
      const raw = key in this.values.options ? this.values.options[key] : o.default;
      const value = o.type === "bool" ? !!raw : Number.parseInt(raw, 10);
      if (value !== o.default) changed = true;
      return ruleWords(o, value);
    }).filter((w) => w);
    this.rulesLineEl.dataset.standard = String(!changed);
    this.rulesLineEl.textContent = t(changed ? "std.yours" : "std.standard", { list: words.join(", ") });
  }

  optionField(gameName, o) {
    const key = `${gameName}:${o.name}`;
    const id = `f-opt-${o.name}`;
    const label = has(`opt.${o.name}`) ? t(`opt.${o.name}`) : (o.help || o.name);
    const current = key in this.values.options ? this.values.options[key] : o.default;
    if (o.type === "bool") {
      const input = el("input", {
        type: "checkbox", name: `opt-${o.name}`, id, checked: !!current,
        onchange: (ev) => { this.values.options[key] = ev.target.checked; this.showRulesLine(gameName); },
      });
      return el("div", { class: "check" }, [input, el("label", { for: id }, [label, el("span", { class: "muted small-note", text: ` (${t("form.default", { v: o.default ? t("form.yes") : t("form.no") })})` })])]);
    }
    const input = el("input", {
      type: "number", name: `opt-${o.name}`, id, value: String(current), min: String(o.min ?? 1), max: o.max === undefined ? undefined : String(o.max), step: "1", required: true, inputmode: "numeric",
      onchange: (ev) => { this.values.options[key] = ev.target.value; this.showRulesLine(gameName); },
    });
    return el("div", { class: "field number" }, [el("label", { for: id }, [label, el("span", { class: "muted small-note", text: ` (${t("form.default", { v: o.default })})` })]), input]);
  }

  async submit(form) {
    if (this.submitting) return;
    const game = this.gameMeta(form.elements.game.value);
    const options = {};
    for (const o of game.options || []) {
      const input = form.elements[`opt-${o.name}`];
      if (!input) continue;
      if (o.type === "bool") options[o.name] = input.checked;
      else {
        const v = Number.parseInt(input.value, 10);
        options[o.name] = Number.isFinite(v) ? v : input.value;
      }
    }
    const body = {
      game: game.name,
      options,
      opponent: form.elements.opponent.value,
      first: form.elements.first.value,
    };
    const player = loadPlayer();
    const rated = !!player && body.opponent !== "friend" && !!form.elements.rated && form.elements.rated.checked;
    if (rated) {
      body.rated = true;
      body.move_seconds = Number(form.elements.move_seconds.value);
    }
    this.submitting = true;
    this.createError = null;
    const old = form.querySelector("[data-testid=start-error]");
    if (old) old.remove();
    const btn = form.querySelector("[data-testid=start]");
    if (btn) { btn.disabled = true; btn.textContent = t("form.starting"); }
    try {
      // a stored player's games are theirs: their seat opens on any device holding their key
      const res = await api.createGame(body, player ? player.key : null);
      this.submitting = false;
      this.navigate(`/game/${encodeURIComponent(res.id)}`);
    } catch (err) {
      this.submitting = false;
      this.createError = err;
      this.render();
      const shown = this.root.querySelector("[data-testid=start-error]");
      if (shown) shown.scrollIntoView({ block: "nearest" });
    }
  }
}

/** One rule option's value in plain words ("to 61 points"); "" for an option with no words
 * (a new option shows under "More rules" only). */
function ruleWords(o, value) {
  if (o.name === "target") return Number.isFinite(value) ? t("std.target", { n: value }) : "";
  const key = `std.${o.name}.${value ? "yes" : "no"}`;
  return o.type === "bool" && has(key) ? t(key) : "";
}

/** A first-time visitor's call to Learn (no player key and no game on this device): a link,
 * never a redirect; the end of the lessons offers a first match against the easy computer. */
function firstVisitCall() {
  if (loadPlayer() || storedGames().length) return null;
  return el("aside", { class: "first-visit panel", "data-testid": "first-visit", "aria-label": t("first.title") }, [
    el("a", { class: "button primary big", href: "/learn/luzak", "data-link": "", "data-testid": "first-learn", text: t("first.learn") }),
    el("p", { class: "muted", text: t("first.note") }),
  ]);
}

/** Why a new game could not be made, in words about making a game (never the server's
 * generic words about a game that exists, nor "unchanged"). */
export function createErrorText(err) {
  if (!(err instanceof ApiError)) return t("create.generic", { status: "?" });
  if (err.status === 429) {
    return err.retryAfter !== null && err.retryAfter !== undefined
      ? t("create.rateLimited", { s: err.retryAfter })
      : t("create.rateLimitedSoon");
  }
  if (err.status === 0) return t("create.network");
  if (err.status >= 500) return t("create.server");
  // 4xx: the server's sentence names what was wrong with the request (an option, say)
  if (err.message) return t("create.refused", { msg: err.message });
  return t("create.generic", { status: err.status });
}
