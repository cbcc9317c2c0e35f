// The leaderboard (/leaderboard, /leaderboard/GAME): a tab per game, the players by rating
// with their deviation and matches, the computer levels among them at their fixed ratings,
// and "you" marked (GET /api/leaderboard/GAME; docs/web.md, "Ratings").

import { api, loadPlayer } from "./api.js";
import { t, has, onLangChange, playerName } from "./i18n.js";
import { el } from "./ui.js";
import { gameTitle, ratingText } from "./player.js";

let gamesCache = null;

export class LeaderboardView {
  constructor(game, navigate) {
    this.game = game;         // null: the first game
    this.navigate = navigate;
    this.board = null;
    this.error = null;
    this.disposers = [];
  }

  mount(root) {
    this.root = root;
    document.title = `${t("board.title")} — dominolab`;
    this.disposers.push(onLangChange(() => this.render()));
    this.render();
    this.load();
  }

  unmount() {
    for (const d of this.disposers) d();
  }

  async load() {
    try {
      if (!gamesCache) gamesCache = (await api.meta()).games.map((g) => g.name);
      this.games = gamesCache;
      if (!this.game) this.game = this.games[0];
      this.board = await api.leaderboard(this.game);
    } catch (err) {
      this.error = err;
    }
    this.render();
  }

  render() {
    const tabs = this.games ? el("nav", { class: "board-tabs", "aria-label": t("board.tabs") }, this.games.map((g) => el("a", {
      href: `/leaderboard/${encodeURIComponent(g)}`, "data-link": "", "data-testid": "board-tab", "data-game": g,
      class: "board-tab", "aria-current": g === this.game ? "page" : null, text: gameTitle(g),
    }))) : null;
    let body;
    if (this.error) {
      body = el("p", { role: "alert", "data-testid": "board-error", text: this.error.status === 404 ? this.error.message : `${t("board.failed")} ${this.error.describe()}` });
    } else if (!this.board) {
      body = el("p", { class: "muted", text: t("board.loading") });
    } else {
      body = this.table();
    }
    this.root.replaceChildren(el("section", { class: "leaderboard", "data-testid": "leaderboard", "data-game": this.board ? this.board.game : "" }, [
      el("h1", { class: "game-title", text: t("board.title") }),
      el("p", { class: "muted board-lead", text: t("board.lead") }),
      tabs,
      el("div", { class: "panel" }, [body]),
    ]));
  }

  table() {
    const b = this.board;
    const me = loadPlayer();
    const players = b.entries.filter((e) => e.kind === "player");
    const rows = b.entries.map((e) => {
      const mine = e.kind === "player" && me && me.id === e.id;
      const who = e.kind === "computer"
        ? [t("board.computer", { level: has(`levelShort.${e.level}`) ? t(`levelShort.${e.level}`) : e.level }), el("span", { class: "muted small-note", text: ` (${t("board.computerNote")})` })]
        : [el("a", { href: `/player/${encodeURIComponent(e.id)}`, "data-link": "", text: playerName(e.name) }), mine ? el("span", { class: "you-mark", "data-testid": "board-you", text: ` (${t("board.you")})` }) : null];
      return el("tr", {
        "data-testid": "board-entry", "data-kind": e.kind, "data-rating": String(e.rating),
        "data-player-id": e.kind === "player" ? e.id : null, "data-level": e.kind === "computer" ? e.level : null,
        "data-me": mine ? "true" : null,
        class: [e.kind === "computer" ? "board-computer" : "", mine ? "me" : "", e.provisional ? "provisional" : ""].join(" ").trim() || null,
      }, [
        el("td", { class: "num", text: e.kind === "player" ? String(e.rank) : "" }),
        el("th", { scope: "row" }, who),
        el("td", { class: "num" }, [el("strong", { text: ratingText(e) })]),
        el("td", { class: "num muted", text: `± ${Math.round(e.rd)}` }),
        el("td", { class: "num", text: e.kind === "player" ? String(e.games) : "" }),
      ]);
    });
    return el("div", {}, [
      el("div", { class: "table-scroll" }, [el("table", { class: "match-table board-table" }, [
        el("thead", {}, [el("tr", {}, ["rank", "player", "rating", "rd", "games"].map((k) => el("th", { scope: "col", class: k === "player" ? null : "num", text: t(`board.${k}`) })))]),
        el("tbody", {}, rows),
      ])]),
      players.length ? null : el("p", { class: "muted", "data-testid": "board-empty", text: t("board.empty", { title: gameTitle(b.game) }) }),
      el("p", { class: "muted small-note", text: t("board.provisionalNote", { rd: Math.round(b.provisional_rd) }) }),
    ]);
  }
}
