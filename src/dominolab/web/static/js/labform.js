// The lab's form (/lab; docs/web.md, "The lab"): a game, its rule options from GET
// /api/lab (each with its range, its default and its rule in the guide), a sweep of one
// option, the two players, the matches and the seed; "Run" starts the study and goes to its
// page. Part of the lab's page (lab.js), read with it.

import { request } from "./api.js";
import { t, formatNumber, has } from "./i18n.js";
import { el } from "./ui.js";

const enc = encodeURIComponent;
const labApi = {
  lab: () => request("GET", "/api/lab"),
  start: (body) => request("POST", "/api/studies", { body }),
};

/** The form's last values, kept while the tab lives: "change and run again" fills it. */
let lastParams = null;

/** Keep PARAMS (a study's) for the next form: "change and run again". */
export function rememberParams(params) {
  lastParams = params;
}

/** The query of a link that fills the form with PARAMS (a study's): readable and short,
 * ``?game=luzak&target=61&sweep=target:31,61,91&players=greedy,greedy&matches=1000&seed=1``
 * (each rule option by its name). */
export function paramsQuery(params) {
  const q = new URLSearchParams();
  q.set("game", params.game);
  const yes = (x) => (typeof x === "boolean" ? (x ? "yes" : "no") : String(x));
  for (const [k, x] of Object.entries(params.options || {})) {
    if (!params.sweep || k !== params.sweep.option) q.set(k, yes(x));
  }
  if (params.sweep) q.set("sweep", `${params.sweep.option}:${params.sweep.values.map(yes).join(",")}`);
  q.set("players", params.players.join(","));
  q.set("matches", String(params.matches));
  q.set("seed", String(params.seed));
  return `?${q.toString()}`;
}

/** The form's values from a link's QUERY (paramsQuery's), over DEFAULTS; what is not a
 * game's, an option's or a player's is left as DEFAULTS has it (the server checks the rest
 * when the form is sent). */
function fromQuery(query, lab, defaults) {
  const q = new URLSearchParams(query);
  const game = lab.games.find((g) => g.name === q.get("game"));
  if (!game) return null;
  const v = { ...defaults, game: game.name, options: {}, sweepOption: "", sweepValues: "" };
  for (const o of game.options) {
    if (!q.has(o.name)) continue;
    const x = q.get(o.name);
    v.options[o.name] = o.kind === "bool" ? ["yes", "true", "1", "on"].includes(x.toLowerCase()) : x;
  }
  const sweep = /^([a-z_]+):(.+)$/.exec(q.get("sweep") || "");
  if (sweep && game.options.some((o) => o.name === sweep[1])) {
    v.sweepOption = sweep[1];
    v.sweepValues = sweep[2].split(",").join(", ");
  }
  const specs = lab.players.map((p) => p.spec);
  const players = (q.get("players") || "").split(",");
  if (players.length === 2 && players.every((p) => specs.includes(p))) v.players = players;
  for (const k of ["matches", "seed"]) if (/^\d+$/.test(q.get(k) || "")) v[k] = q.get(k);
  return v;
}

/** A player of GET /api/lab in the page's language: by its name (``greedy``,
 * ``expert:200w``: the name, then the worlds a move); the API's own label otherwise. */
export function playerLabel(p) {
  const [name, budget] = p.spec.split(":");
  const key = `lab.player.${name}`;
  return has(key) ? t(key, { w: formatNumber(parseInt(budget || "0", 10)) }) : p.label;
}

/** The form of the lab's page VIEW (its render(), mounted, navigate, element). */
export class LabForm {
  constructor(view) {
    this.view = view;
    this.lab = null;
    this.values = null;
    this.error = null;
    this.submitting = false;
  }


  async load() {
    this.error = null;
    try {
      this.lab = await labApi.lab();
    } catch (err) {
      this.error = err.describe ? err.describe() : String(err);
    }
    if (!this.view.mounted) return;
    if (this.lab && this.lab.enabled) {
      const given = location.search ? fromQuery(location.search, this.lab, this.initialValues()) : null;
      // a link's parameters fill the form; nothing runs until Run is pressed
      this.fromLink = given !== null;
      this.values = given || this.initialValues();
    }
    this.view.render();
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

  parts() {
    const head = el("header", { class: "lab-head" }, [
      el("h1", { text: t("lab.title") }),
      el("p", { class: "lead", text: t("lab.lead") }),
    ]);
    if (this.error) {
      return [head, el("section", { class: "panel", role: "alert", "data-testid": "lab-error" }, [
        el("p", { text: t("lab.loadFailed", { e: this.error }) }),
        el("button", { type: "button", class: "button", onclick: () => this.load() }, [t("lab.retry")]),
      ])];
    }
    if (!this.lab) return [head, el("p", { class: "muted", "data-testid": "lab-loading", text: t("lab.loading") })];
    if (!this.lab.enabled) {
      return [head, el("section", { class: "panel lab-off", "data-testid": "lab-off" }, [
        el("h2", { class: "section-title", text: t("lab.offTitle") }),
        el("p", { text: this.lab.why || "" }),
      ])];
    }
    return [head, this.formElement()];
  }

  formElement() {
    const v = this.values;
    const game = this.game();
    const errorBox = el("p", { class: "form-error", role: "alert", "data-testid": "lab-form-error", hidden: true });
    const gameSel = el("select", { id: "lab-game", name: "game", onchange: (e) => { v.game = e.target.value; v.options = {}; v.sweepOption = ""; this.view.render(); } },
      this.lab.games.map((g) => el("option", { value: g.name, selected: g.name === v.game }, [has(`game.${g.name}`) ? t(`game.${g.name}`) : g.title])));
    const options = el("fieldset", { class: "options lab-options" }, [
      el("legend", { text: t("lab.options") }),
      ...game.options.map((o) => this.optionField(o)),
    ]);
    const sweepSel = el("select", { id: "lab-sweep", name: "sweep", "data-testid": "lab-sweep-option", onchange: (e) => { v.sweepOption = e.target.value; this.view.render(); this.view.element.querySelector("#lab-sweep").focus(); } }, [
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
      this.fromLink ? el("p", { class: "lab-from-link", "data-testid": "lab-from-link", text: t("lab.fromLink") }) : null,
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
      if (this.view.mounted) this.view.navigate(made.url || `/lab/${enc(made.id)}`);
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
}
