// A player's page (/player/ID): the name, a rating per game, and the finished matches with
// the opponent, the result, the points, the date, what each did to the rating and a link to
// its replay (GET /api/players/ID; docs/web.md, "Ratings"). Anyone may open it.

import { api, loadPlayer } from "./api.js";
import { t, has, getLang, onLangChange, playerName } from "./i18n.js";
import { el } from "./ui.js";
import { DevicesPanel } from "./devices.js";

export function gameTitle(name) {
  return has(`game.${name}`) ? t(`game.${name}`) : name;
}

/** A rating as shown: whole points, "?" when provisional. */
export function ratingText(r) {
  return `${Math.round(r.rating)}${r.provisional ? "?" : ""}`;
}

export function dateText(seconds) {
  return new Date(seconds * 1000).toLocaleDateString(getLang() === "pl" ? "pl-PL" : "en-GB",
    { year: "numeric", month: "short", day: "numeric" });
}

function signed(x) {
  const n = Math.round(x);
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0";
}

export class PlayerView {
  constructor(id, navigate) {
    this.id = id;
    this.navigate = navigate;
    this.data = null;
    this.error = null;
    this.disposers = [];
  }

  mount(root) {
    this.root = root;
    this.disposers.push(onLangChange(() => this.render()));
    this.render();
    this.load();
    // my own page: my devices' codes and my games going on (devices.js)
    const me = loadPlayer();
    if (me && me.id === this.id) {
      this.devices = new DevicesPanel(this.navigate, () => this.render());
      this.devices.load();
    }
  }

  unmount() {
    for (const d of this.disposers) d();
  }

  async load() {
    try {
      this.data = await api.player(this.id);
    } catch (err) {
      this.error = err;
    }
    this.render();
  }

  render() {
    if (!this.data) {
      const text = this.error ? (this.error.status === 404 ? this.error.message || t("player.failed") : `${t("player.failed")} ${this.error.describe()}`) : t("player.loading");
      this.root.replaceChildren(el("section", { class: "panel notice", role: this.error ? "alert" : null }, [
        el("p", { class: this.error ? null : "muted", "data-testid": this.error ? "player-error" : null, text }),
      ]));
      return;
    }
    const p = this.data;
    document.title = `${playerName(p.name)} — dominolab`;
    const me = loadPlayer();
    const head = el("section", { class: "panel player-head" }, [
      el("h1", { class: "game-title", "data-testid": "player-name", text: playerName(p.name) }),
      el("p", { class: "muted", text: t("player.since", { date: dateText(p.since) }) }),
      me && me.id === p.id ? el("p", { "data-testid": "player-you", text: t("player.you") }) : null,
    ]);

    const ratings = el("section", { class: "panel" }, [
      el("h2", { class: "section-title", text: t("player.ratings") }),
      el("table", { class: "rating-table" }, [
        el("tbody", {}, Object.entries(p.ratings || {}).map(([game, r]) => el("tr", {
          "data-testid": "player-rating", "data-game": game,
          "data-rating": r ? String(r.rating) : "", "data-provisional": r ? String(r.provisional) : "",
        }, [
          el("th", { scope: "row" }, [el("a", { href: `/leaderboard/${encodeURIComponent(game)}`, "data-link": "", text: gameTitle(game) })]),
          r ? el("td", { class: "rating-cell" }, [
            el("strong", { text: ratingText(r) }),
            el("span", { class: "muted", text: ` ± ${Math.round(r.rd)}` }),
            r.provisional ? el("span", { class: "muted small-note", text: ` (${t("board.provisional")})` }) : null,
          ]) : el("td", { class: "muted", text: t("player.noRating") }),
          el("td", { class: "muted", text: r ? t("player.ratingGames", { n: r.games }) : "" }),
        ]))),
      ]),
    ]);

    const rows = (p.matches || []).map((m) => this.matchRow(m));
    const matches = el("section", { class: "panel" }, [
      el("h2", { class: "section-title", text: t("player.matches") }),
      rows.length ? el("div", { class: "table-scroll" }, [el("table", { class: "match-table" }, [
        el("thead", {}, [el("tr", {}, ["date", "game", "opponent", "result", "points", "rated", "replay"].map((k) => el("th", { scope: "col", text: t(`player.${k}`) })))]),
        el("tbody", {}, rows),
      ])]) : el("p", { class: "muted", "data-testid": "player-no-matches", text: t("player.noMatches") }),
    ]);

    this.root.replaceChildren(el("div", { class: "player-page", "data-testid": "player-page", "data-player-id": p.id }, [head, ...(this.devices ? this.devices.render() : []), ratings, matches]));
  }

  matchRow(m) {
    let opponent;
    if (m.opponent) opponent = el("a", { href: `/player/${encodeURIComponent(m.opponent.id)}`, "data-link": "", text: playerName(m.opponent.name) });
    else if (m.computer) opponent = t("board.computer", { level: has(`levelShort.${m.computer}`) ? t(`levelShort.${m.computer}`) : m.computer });
    else opponent = t("who.friend");
    const result = m.outcome ? `${t(`player.${m.outcome}`)}${m.ended_by === "time" ? ` (${t("player.onTime")})` : ""}` : t("player.nobody");
    let rated;
    if (m.rating) {
      rated = el("span", {
        "data-testid": "rating-change", "data-change": String(m.rating.change),
        title: `${Math.round(m.rating.before)} → ${Math.round(m.rating.after)}`,
      }, [el("strong", { text: signed(m.rating.change) }), el("span", { class: "muted", text: ` → ${Math.round(m.rating.after)}` })]);
    } else {
      rated = el("span", { class: "muted", text: m.rated ? t("player.ratedNoChange") : t("player.casual") });
    }
    return el("tr", { "data-testid": "player-match", "data-game-id": m.id, "data-rated": String(!!m.rating), "data-outcome": m.outcome || "" }, [
      el("td", { text: dateText(m.played) }),
      el("td", { text: gameTitle(m.game) }),
      el("td", {}, [opponent]),
      el("td", { class: `outcome outcome--${m.outcome || "none"}`, text: result }),
      el("td", { class: "num", text: m.points ? `${m.points[0]} : ${m.points[1]}` : "" }),
      el("td", {}, [rated]),
      el("td", {}, [el("a", { href: `/replay/${encodeURIComponent(m.id)}`, "data-link": "", "data-testid": "replay-link", text: t("player.replay") })]),
    ]);
  }
}
