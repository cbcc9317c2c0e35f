// The featured live game (GET /api/featured; docs/web.md, "The featured game") shown on the
// home page and in the lobby, read again every FEATURED_POLL_MS while shown; and a game's
// seats with their ratings (GET /api/games/ID/seats) for the spectator's page.

import { api } from "./api.js";
import { t, playerName } from "./i18n.js";
import { el } from "./ui.js";

const FEATURED_POLL_MS = 10000;

/** A seat in words with its rating: "Ala (1523)", "Computer (easy, 1210)", "Guest". */
export function seatWords(seat) {
  if (!seat) return "";
  if (seat.kind === "player") return `${playerName(seat.name)} (${seat.rating})`;
  if (seat.kind === "computer") return `${t("featured.computer")} (${t(`levelShort.${seat.level}`)}, ${seat.rating})`;
  return t("featured.guest");
}

/** A game's two seats for a spectator, or null when they cannot be read. */
export async function loadSeats(id) {
  try {
    return (await api.seats(id)).seats;
  } catch (_) {
    return null;
  }
}

/** The featured game's panel: filled now and every FEATURED_POLL_MS; returns [node, stop]. */
export function featuredPanel() {
  const node = el("section", { class: "panel featured", "data-testid": "featured", "aria-live": "polite" });
  let last = null;
  let stopped = false;
  const draw = () => {
    const f = last;
    const parts = [el("h2", { class: "section-title", text: t("featured.title") })];
    if (!f) {
      parts.push(el("p", { class: "muted", "data-testid": "featured-none", text: t("featured.none") }));
    } else {
      node.dataset.game = f.id;
      const score = f.totals ? ` — ${f.totals[0]} : ${f.totals[1]}` : "";
      parts.push(
        el("p", { class: "featured-players", "data-testid": "featured-players", text: `${seatWords(f.players[0])} vs ${seatWords(f.players[1])}${score}` }),
        el("p", { class: "muted", text: `${t(`game.${f.game}`)} · ${t(f.rated ? "featured.rated" : "featured.unrated")}` }),
        el("a", { class: "button", href: `/watch/${encodeURIComponent(f.id)}`, "data-link": "", "data-testid": "featured-watch", text: t("featured.watch") }),
      );
    }
    node.replaceChildren(...parts);
  };
  const tick = async () => {
    if (stopped) return;
    try {
      last = (await api.featured()).featured;
      if (!stopped) draw();
    } catch (_) { /* shown again on the next tick */ }
  };
  draw();
  tick();
  const timer = setInterval(tick, FEATURED_POLL_MS);
  return [node, () => { stopped = true; clearInterval(timer); }, draw];
}
