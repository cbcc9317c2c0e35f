// Telling a player in a background tab that something needs them (docs/web.md, "Told when
// it's your turn"): their turn in a game, their seek taken in the lobby, a match over. While
// the tab is hidden, the title gains a mark ("● Your turn — …") and the icon a dot; an
// optional short beep (off by default, kept in localStorage); and a browser notification
// when the player allowed them (asked only on a click of "Notify me", never on load).
// Back in the tab, the title and the icon are what they were. Nothing leaves the server's
// page: no push service.

import { t, onLangChange } from "./i18n.js";
import { el } from "./ui.js";

const SOUND_KEY = "dominolab/notify-sound";
const MARK = "● ";

/** The reason shown while the tab is hidden: "turn", "seek" or "over" (null: none). */
let reason = null;
/** The page's own title, as the page last set it (through titled()). */
let base = document.title;
let baseIcon = null;
let audio = null;

/** The page's TITLE, marked while something waits for the player in a hidden tab. The
 * pages set document.title through this, so a redraw keeps the mark. */
export function titled(title) {
  base = title;
  return reason ? `${MARK}${t(`notify.${reason}`)} — ${title}` : title;
}

export function soundOn() {
  try { return localStorage.getItem(SOUND_KEY) === "on"; } catch (_) { return false; }
}

export function setSound(on) {
  try { localStorage.setItem(SOUND_KEY, on ? "on" : "off"); } catch (_) { /* storage off */ }
}

function iconLink() {
  return document.querySelector('link[rel="icon"]');
}

/** The site's icon with a red dot in its corner, as a data: URL. */
const DOT_ICON = "data:image/svg+xml," + encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
  + '<rect width="32" height="32" rx="6" fill="#1f5e3b"/>'
  + '<rect x="9" y="3" width="14" height="26" rx="2.5" fill="#fbf6e9" stroke="#2a1a10"/>'
  + '<line x1="11" y1="16" x2="21" y2="16" stroke="#2a1a10" stroke-width="1.2"/>'
  + '<circle cx="24" cy="8" r="7.5" fill="#d93025" stroke="#fff" stroke-width="1.5"/></svg>');

function beep() {
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    audio = audio || new Ctx();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.0001, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.2, audio.currentTime + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.25);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.3);
  } catch (_) { /* no sound, then */ }
}

/** Whether notifications may be shown (the player allowed them). */
export function allowed() {
  return "Notification" in window && Notification.permission === "granted";
}

/** Something waits for the player: KIND "turn", "seek" or "over"; BODY a sentence for the
 * notification. Nothing happens while the tab is in view. */
export function attention(kind, body = "") {
  if (!document.hidden) return;
  const fresh = reason !== kind;
  reason = kind;
  document.title = titled(base);
  const link = iconLink();
  if (link) {
    if (baseIcon === null) baseIcon = link.getAttribute("href");
    link.setAttribute("href", DOT_ICON);
  }
  if (!fresh) return;
  if (soundOn()) beep();
  if (allowed()) {
    try {
      const note = new Notification(t(`notify.${kind}`), { body, tag: "dominolab", icon: "/static/favicon.svg" });
      note.onclick = () => { window.focus(); note.close(); };
    } catch (_) { /* some browsers make them from a service worker only */ }
  }
}

/** The tab is in view again: the title and the icon as they were. */
function restore() {
  if (document.hidden || reason === null) return;
  reason = null;
  document.title = base;
  const link = iconLink();
  if (link && baseIcon !== null) link.setAttribute("href", baseIcon);
  baseIcon = null;
}

document.addEventListener("visibilitychange", restore);
window.addEventListener("focus", restore);

/** The "Notify me" button and the beep's toggle, for a page's tool bar; they follow the
 * language. Permission is asked for on the button's click only. */
export function notifyControls() {
  const ask = el("button", { type: "button", class: "notify-ask", "data-testid": "notify-ask" });
  const sound = el("button", { type: "button", class: "notify-sound", "data-testid": "notify-sound" });
  const draw = () => {
    const api = "Notification" in window;
    const perm = api ? Notification.permission : "unsupported";
    ask.dataset.permission = perm;
    ask.hidden = !api || perm === "denied";
    ask.disabled = perm === "granted";
    ask.textContent = perm === "granted" ? t("notify.on") : t("notify.ask");
    const on = soundOn();
    sound.setAttribute("aria-pressed", on ? "true" : "false");
    sound.textContent = t("notify.sound");
    group.setAttribute("aria-label", t("notify.group"));
  };
  ask.addEventListener("click", async () => {
    if (!("Notification" in window)) return;
    try { await Notification.requestPermission(); } catch (_) { /* refused */ }
    draw();
  });
  sound.addEventListener("click", () => {
    setSound(!soundOn());
    if (soundOn()) {
      // a click is when a browser lets sound start: a quiet check that it works
      beep();
    }
    draw();
  });
  const group = el("div", { class: "notify-controls", role: "group" }, [ask, sound]);
  draw();
  const off = onLangChange(draw);
  group.dispose = off;
  return group;
}
