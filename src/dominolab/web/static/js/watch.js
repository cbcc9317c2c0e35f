// The spectator's page (/watch/ID): any game's table, live, as a spectator's STATE shows it
// (docs/web.md, "Spectators"): both hands face down, the scores, the moves, "N watching".
// It is the game page (game.js) with no seat: the table, the score panel, the history and
// the tiles' flights are the game page's own; no hand to play, no hint, no end screens to
// acknowledge (the last hand's result and the match's stay in a panel of their own).

import { GameView } from "./game.js";
import { t, getLang } from "./i18n.js";
import { tileBack } from "./tiles.js";
import { el, spinner } from "./ui.js";
import { seatName, publicNames } from "./words.js";
import { loadSeats, seatWords } from "./featured.js";

export class WatchView extends GameView {
  constructor(id, navigate) {
    super(id, navigate);
    this.spectator = true;
    this.resultKey = null;
  }

  mount(root) {
    this.root = root;
    // nothing to read from a link or from this device: a spectator needs no key
    this.start({ token: null, invite: null });
  }

  get ctx() {
    const st = this.state;
    // the seats' names as a replay has them: the players', the computer's by its level
    const names = publicNames(st);
    return { seat: null, mode: st.mode, opponent: st.opponent, names: names.some((n) => n) ? names : null };
  }

  /** The players' names with their ratings ("Ala (1523) vs Computer (easy, 1210)"), read
   * once from GET /api/games/ID/seats; the names alone until then. */
  showSeats() {
    if (this.seats) {
      this.vsEl.textContent = `${t("watch.title")}: ${t("watch.vs", { a: seatWords(this.seats[0]), b: seatWords(this.seats[1]) })}`;
      return;
    }
    if (this.seatsAsked) return;
    this.seatsAsked = true;
    loadSeats(this.id).then((seats) => {
      if (!seats || this.unmounted) return;
      this.seats = seats;
      if (this.state && this.vsEl) this.showSeats();
    });
  }

  buildShell() {
    super.buildShell();
    this.gameEl.dataset.watch = "true";
    this.gameEl.classList.add("is-watching");
    this.resultEl = el("section", { class: "panel watch-result", "data-testid": "watch-result", hidden: true });
    this.scoresEl.before(this.resultEl);
  }

  /** Where SEAT's tiles lie face down: seat 1 across the table, seat 0 in the dock. */
  backsOf(seat) {
    return (seat === 0 ? this.handEl : this.oppEl).querySelector(".opp-backs");
  }

  render() {
    const st = this.state;
    if (!st || !this.gameEl) {
      this.drawConn();
      return;
    }
    const ctx = this.ctx;
    const turn = st.to_move === null || st.to_move === undefined ? "none" : String(st.to_move);
    Object.assign(this.gameEl.dataset, {
      version: String(st.version), hand: String(st.hand_number), turn, seat: "", game: st.game,
    });
    document.title = `${t("watch.title")} · ${t(`game.${st.game}`)} · dominolab`;
    this.titleEl.textContent = t(`game.${st.game}`) || st.title;
    this.vsEl.textContent = `${t("watch.title")}: ${t("watch.vs", { a: seatName(0, ctx), b: seatName(1, ctx) })}`;
    this.showSeats();
    this.drawConn();
    this.gameEl.classList.toggle("is-offline", !this.live);
    this.renderWatching();
    this.renderSound();
    this.renderStatus();
    this.renderOpponent();
    this.renderTable();
    this.renderLastMove();
    this.renderHand();
    this.renderScores(turn);
    this.renderHistory();
    this.renderResult();
  }

  /** The spectator is one of those watching: the line is always there. */
  renderWatching() {
    super.renderWatching();
    this.watchingEl.hidden = false;
  }

  renderStatus() {
    const st = this.state;
    const parts = [];
    let cls = "status-line";
    if (!this.live && !st.match_result) {
      cls += " is-offline";
      const text = this.offlineText();
      parts.push(spinner(text), " ", el("strong", { class: "status-main", text }));
    } else {
      parts.push(el("strong", { class: "status-main", text: this.turnWords() }));
      parts.push(el("span", { class: "status-tip", text: t("watch.note") }));
    }
    this.statusEl.className = cls;
    this.statusEl.replaceChildren(...parts);
  }

  turnWords() {
    const st = this.state;
    if (st.match_result) return t("turn.matchOver");
    if (!this.live) return this.offlineText();
    if (st.to_move === null || st.to_move === undefined) return t("turn.none");
    return t("watch.toMove", { name: seatName(st.to_move, this.ctx) });
  }

  /** The dock holds seat 0's tiles, face down, as many as it has. */
  renderHand() {
    const st = this.state;
    const n = (st.tiles && st.tiles[0]) ?? 0;
    const name = seatName(0, this.ctx);
    this.handTitle.textContent = t("opp.tiles", { name, n });
    this.handEl.setAttribute("aria-label", t("opp.tiles", { name, n }));
    this.handEl.replaceChildren(el("div", {
      class: "opp-backs", "data-testid": "seat-hand", "data-seat": "0", "data-count": String(n), role: "img",
      "aria-label": t("opp.tiles", { name, n }),
    }, Array.from({ length: n }, () => tileBack())));
  }

  /** How the match ended, or how the last hand did, in a panel beside the scores (a
   * spectator has nothing to acknowledge). */
  renderResult() {
    const st = this.state;
    const mr = st.match_result;
    const prev = st.previous_hand;
    const key = mr ? `match:${st.version}:${getLang()}` : prev ? `hand:${prev.number}:${getLang()}` : null;
    if (key === this.resultKey) return;
    this.resultKey = key;
    this.resultEl.hidden = !key;
    if (!key) { this.resultEl.replaceChildren(); return; }
    const ctx = this.ctx;
    if (mr) {
      const verdict = mr.winner === null || mr.winner === undefined ? t("match.draw")
        : t("match.theyWon", { name: seatName(mr.winner, ctx) });
      const results = st.results || [];
      const last = results[results.length - 1];
      this.resultEl.dataset.kind = "match";
      this.resultEl.replaceChildren(
        el("h2", { class: "section-title", text: t("match.title") }),
        el("p", { class: "verdict", "data-testid": "watch-verdict", text: verdict }),
        el("p", { class: "muted", text: `${t("match.end." + mr.end)} ${t("match.hands", { n: mr.hands ?? results.length })}` }),
        el("p", {}, [el("a", {
          class: "button primary", href: `/replay/${encodeURIComponent(this.id)}`, "data-link": "",
          "data-testid": "replay", text: t("match.replay"),
        })]),
        last ? el("details", { class: "last-hand" }, [
          el("summary", { text: `${t("match.lastHand")} (${t("scores.hand", { n: last.number })})` }),
          ...this.resultBlock(last, st.table),
        ]) : null,
      );
      return;
    }
    this.resultEl.dataset.kind = "hand";
    // open while the next hand has not begun
    this.resultEl.replaceChildren(el("details", { class: "last-hand", open: !(st.history || []).length }, [
      el("summary", { class: "section-title", text: t("watch.lastHand", { n: prev.number }) }),
      ...this.resultBlock(prev.result || {}, prev.table),
    ]));
  }

  renderFatal(code) {
    const why = { 4409: "full", 4429: "limited" }[code];
    if (!why) { super.renderFatal(code); return; }
    this.root.replaceChildren(el("section", {
      class: "panel notice", role: "alert", "data-testid": "watch-refused", "data-reason": why,
    }, [
      el("h1", { text: t(`watch.${why}.title`) }),
      el("p", { text: t(`watch.${why}.text`) }),
      el("p", { class: "notice-actions" }, [
        el("button", {
          type: "button", class: "button", text: t("home.retry"),
          onclick: () => {
            this.unmount();
            Object.assign(this, { unmounted: false, state: null, resultKey: null, everOpen: false });
            this.mount(this.root);
          },
        }),
        el("a", { href: "/", "data-link": "", class: "button primary", text: t("notoken.home") }),
      ]),
    ]));
  }
}
