// Canned messages during a game (docs/web.md, "Messages during a game"): four phrases a seat
// sends over its socket as ids, each page wording them in its own language; no free text.
// Shown to the two players only (a spectator's page has no panel, and the server sends
// spectators none). A per-player toggle kept in localStorage turns them off: then they are
// neither shown nor sendable.

import { t, onLangChange } from "./i18n.js";
import { el, toast } from "./ui.js";

export const PHRASES = ["good_luck", "well_played", "thanks", "good_game"];
const KEY = "dominolab/chat";
const KEEP = 5;

export function chatOn() {
  try { return localStorage.getItem(KEY) !== "off"; } catch (_) { return true; }
}

function setChatOn(on) {
  try { localStorage.setItem(KEY, on ? "on" : "off"); } catch (_) { /* storage off */ }
}

/** The messages panel of a seat's game page. */
export class ChatPanel {
  /**
   * @param {object} o send(obj) → whether it went out, seat() → my seat, opponent() →
   *                   the opponent's name (or null)
   */
  constructor(o) {
    Object.assign(this, o);
    this.lines = [];
    this.toggleEl = el("button", {
      type: "button", class: "chat-toggle", "data-testid": "chat-toggle", onclick: () => this.toggle(),
    });
    this.titleEl = el("h2", { class: "section-title" });
    this.buttonsEl = el("div", { class: "chat-phrases", role: "group", "data-testid": "chat-phrases" });
    this.logEl = el("ul", { class: "chat-log", "data-testid": "chat-log", "aria-live": "polite" });
    this.noteEl = el("p", { class: "muted chat-off", "data-testid": "chat-off" });
    this.root = el("section", { class: "chat panel", "data-testid": "chat" },
      [el("div", { class: "chat-head" }, [this.titleEl, this.toggleEl]), this.buttonsEl, this.logEl, this.noteEl]);
    this.dispose = onLangChange(() => this.render());
    this.render();
  }

  toggle() {
    setChatOn(!chatOn());
    if (!chatOn()) this.lines = [];
    this.render();
  }

  say(phrase) {
    if (!chatOn()) return;
    this.send({ type: "chat", phrase });
  }

  /** A message from the server: {seat, phrase}; dropped while messages are off. */
  receive(msg) {
    if (!chatOn() || !PHRASES.includes(msg.phrase)) return;
    this.lines.push({ mine: msg.seat === this.seat(), phrase: msg.phrase });
    this.lines = this.lines.slice(-KEEP);
    this.render();
  }

  /** A refusal of the server's: true if it was about messages (said here, translated). */
  refused(msg) {
    if (msg.status !== 429 || msg.retry_after === undefined || msg.retry_after === null) return false;
    toast(t("chat.tooMany", { s: msg.retry_after }), "error");
    return true;
  }

  render() {
    const on = chatOn();
    this.titleEl.textContent = t("chat.title");
    this.toggleEl.textContent = t("chat.toggle");
    this.toggleEl.setAttribute("aria-pressed", on ? "true" : "false");
    this.buttonsEl.setAttribute("aria-label", t("chat.phrases"));
    this.buttonsEl.hidden = !on;
    this.logEl.hidden = !on;
    this.noteEl.hidden = on;
    this.noteEl.textContent = t("chat.offNote");
    this.buttonsEl.replaceChildren(...PHRASES.map((p) => el("button", {
      type: "button", class: "chat-phrase", "data-phrase": p, onclick: () => this.say(p), text: t(`chat.${p}`),
    })));
    const who = (mine) => (mine ? t("chat.you") : (this.opponent() || t("chat.opponent")));
    this.logEl.replaceChildren(...this.lines.map((l) => el("li", {
      class: l.mine ? "chat-line mine" : "chat-line", "data-phrase": l.phrase,
      text: t("chat.line", { who: who(l.mine), phrase: t(`chat.${l.phrase}`) }),
    })));
  }
}
