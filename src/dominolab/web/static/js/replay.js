// The replay of a finished match (/replay/ID): every FRAME with its table, both hands,
// the scores and the reason of its step; buttons, a slider and the arrow keys move along.
// Without a seat of the game on this device it is a spectator's replay (by the id alone).

import { api, loadSeat } from "./api.js";
import { t, onLangChange } from "./i18n.js";
import { TableView } from "./table.js";
import { tileSVG, digits } from "./tiles.js";
import { el, layoutMode } from "./ui.js";
import { seatName, publicNames, moveText, reasonText, pointsText, endText, winnerText, bonusText, tablePlays } from "./words.js";

/** For each FRAME, the number of its move within its hand (0 for a hand's deal). */
export function moveNumbers(frames) {
  const out = [];
  let hand = null, k = 0;
  for (const f of frames) {
    if (f.hand !== hand || !f.step) { hand = f.hand; k = 0; }
    if (f.step) k += 1;
    out.push(k);
  }
  return out;
}

/** What the replay of a match this device holds no seat of is shown by: the game, its rules
 * and the seats' players, from the public replay's own fields. */
function publicState(replay) {
  return { game: replay.game, rules: replay.rules, mode: replay.mode, opponent: replay.opponent, seat: null, players: replay.players || [null, null] };
}

export class ReplayView {
  constructor(id, navigate) {
    this.id = id;
    this.navigate = navigate;
    this.frames = null;
    this.index = 0;
    this.disposers = [];
  }

  mount(root) {
    this.root = root;
    // without a seat of this game the replay is the public one (anyone's once the match is
    // over, as a player's page links it); until then the server answers 401
    const seat = loadSeat(this.id);
    this.token = seat ? seat.token : null;
    this.layout = layoutMode();
    this.root.replaceChildren(el("section", { class: "panel notice" }, [el("p", { class: "muted", text: t("replay.loading") })]));
    this.load();
    const onKey = (ev) => this.onKey(ev);
    document.addEventListener("keydown", onKey);
    this.disposers.push(() => document.removeEventListener("keydown", onKey));
    this.disposers.push(onLangChange(() => this.render()));
  }

  unmount() {
    for (const d of this.disposers) d();
  }

  renderMessage(title, text) {
    this.root.replaceChildren(el("section", { class: "panel notice", role: "alert" }, [
      el("h1", { text: title }),
      el("p", { text }),
      el("p", {}, [el("a", { href: "/", "data-link": "", class: "button primary", text: t("notoken.home") })]),
    ]));
  }

  async load() {
    try {
      const [state, replay] = await Promise.all([
        this.token ? api.state(this.id, this.token, this.layout) : null,
        api.replay(this.id, this.layout),
      ]);
      this.state = state || publicState(replay);
      this.frames = replay.frames || [];
      this.moveNumbers = moveNumbers(this.frames);
      this.index = 0;
      this.build();
      this.render();
    } catch (err) {
      if (!this.token && err.status === 401) this.renderMessage(t("notoken.title"), t("notoken.text"));
      else this.renderMessage(t("replay.title"), err.describe ? err.describe() : String(err));
    }
  }

  get ctx() {
    return { seat: this.state.seat, mode: this.state.mode, opponent: this.state.opponent, names: this.state.players ? publicNames(this.state) : undefined };
  }

  build() {
    this.table = new TableView({ minWidth: this.layout === "narrow" ? 9 : 16, minHeight: 6 });
    this.titleEl = el("h1", { class: "game-title" });
    const back = this.token ? "game" : "watch";
    this.backEl = el("a", { href: `/${back}/${encodeURIComponent(this.id)}`, "data-link": "", class: "button subtle" });
    this.prevBtn = el("button", { type: "button", class: "button", "data-testid": "replay-prev", onclick: () => this.go(this.index - 1) });
    this.nextBtn = el("button", { type: "button", class: "button primary", "data-testid": "replay-next", onclick: () => this.go(this.index + 1) });
    this.firstBtn = el("button", { type: "button", class: "button subtle", onclick: () => this.go(0) });
    this.lastBtn = el("button", { type: "button", class: "button subtle", onclick: () => this.go(this.frames.length - 1) });
    this.slider = el("input", {
      type: "range", min: "0", max: String(Math.max(0, this.frames.length - 1)), step: "1", value: "0",
      class: "replay-slider", "data-testid": "replay-slider",
      oninput: (ev) => this.go(Number(ev.target.value)),
    });
    this.posEl = el("p", { class: "replay-pos", "data-testid": "replay-position", "aria-live": "polite" });
    this.frameEl = el("div", { class: "replay-frame", "data-testid": "replay-frame", "data-index": "0" });
    this.keysEl = el("p", { class: "key-hint" });
    if (!this.token) this.backEl.hidden = true;  // no seat here to go back to
    this.root.replaceChildren(el("section", { class: "replay", "data-testid": "replay-view" }, [
      el("div", { class: "game-bar" }, [this.titleEl, this.backEl]),
      el("div", { class: "replay-controls panel" }, [
        el("div", { class: "replay-buttons" }, [this.firstBtn, this.prevBtn, this.nextBtn, this.lastBtn]),
        this.slider, this.posEl, this.keysEl,
      ]),
      this.frameEl,
      this.reviewElement(),
    ]));
  }

  /** The review of the seat this device holds (review.js), each costly move with a button
   * that shows it here; a visitor's replay reviews either seat, chosen by two buttons
   * (seat 0's first: the match's maker). */
  reviewElement() {
    if (this.review) this.review.dispose();
    this.review = null;
    const mine = this.state.seat !== null && this.state.seat !== undefined;
    const seat = mine ? this.state.seat : (this.reviewSeat ?? 0);
    // the review's code is read when a replay is first shown, not on the site's first visit
    const slot = el("div", { class: "review-slot" });
    const made = (this.reviewsMade = (this.reviewsMade || 0) + 1);
    import("./review.js").then(({ ReviewPanel }) => {
      if (made !== this.reviewsMade || !slot.isConnected) return;  // drawn again since
      this.review = new ReviewPanel({
        id: this.id, seat, token: this.token, layout: this.layout,
        name: mine ? null : () => seatName(seat, this.ctx),
        onShow: (frame) => { this.go(frame); this.frameEl.scrollIntoView({ block: "start" }); },
      });
      const review = this.review;
      this.disposers.push(() => review.dispose());
      slot.replaceWith(review.element);
    }).catch(() => { /* the replay stands without it */ });
    if (mine) return slot;
    const wrap = el("div", { class: "review-whose" });
    const buttons = [0, 1].map((s) => el("button", {
      type: "button", class: "button subtle", "data-testid": `review-seat-${s}`,
      "aria-pressed": String(s === seat),
      onclick: () => { if (s !== seat) { this.reviewSeat = s; wrap.replaceWith(this.reviewElement()); } },
    }));
    const label = () => {
      group.setAttribute("aria-label", t("review.whose"));
      buttons.forEach((b, s) => { b.textContent = seatName(s, this.ctx); });
    };
    const group = el("div", { class: "review-seats", role: "group" }, buttons);
    label();
    if (this.offWhose) this.offWhose();
    this.offWhose = onLangChange(label);
    this.disposers.push(() => this.offWhose());
    wrap.append(group, slot);
    return wrap;
  }

  go(i) {
    if (!this.frames || !this.frames.length) return;
    const j = Math.max(0, Math.min(this.frames.length - 1, i));
    if (j === this.index && this.frameEl.dataset.index === String(j)) return;
    this.index = j;
    this.render();
  }

  onKey(ev) {
    if (!this.frames || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const tag = (ev.target && ev.target.tagName) || "";
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return; // the slider handles its own arrows
    const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -1, ArrowDown: 1 };
    if (ev.key in moves) { ev.preventDefault(); this.go(this.index + moves[ev.key]); }
    else if (ev.key === "Home") { ev.preventDefault(); this.go(0); }
    else if (ev.key === "End") { ev.preventDefault(); this.go(this.frames.length - 1); }
  }

  render() {
    if (!this.frames || !this.frameEl) return;
    const st = this.state;
    const ctx = this.ctx;
    const total = this.frames.length;
    this.titleEl.textContent = `${t("replay.title")}: ${t(`game.${st.game}`)}`;
    this.backEl.textContent = t("replay.back");
    this.prevBtn.textContent = `◀ ${t("replay.prev")}`;
    this.nextBtn.textContent = `${t("replay.next")} ▶`;
    this.firstBtn.textContent = `« ${t("replay.first")}`;
    this.lastBtn.textContent = `${t("replay.last")} »`;
    this.prevBtn.disabled = this.index <= 0;
    this.nextBtn.disabled = this.index >= total - 1;
    this.slider.value = String(this.index);
    this.slider.setAttribute("aria-label", t("replay.slider"));
    this.keysEl.textContent = t("replay.keys");
    if (!total) {
      this.frameEl.replaceChildren(el("p", { class: "muted", text: "—" }));
      return;
    }
    const f = this.frames[this.index];
    // the move's number in its hand: draws and passes are moves too (f.n counts tiles)
    const where = f.step ? t("replay.frame", { h: f.hand, n: this.moveNumbers[this.index] }) : t("replay.deal", { h: f.hand });
    this.posEl.textContent = `${where} · ${t("replay.of", { i: this.index + 1, total })}`;
    this.frameEl.dataset.index = String(this.index);

    this.table.setLayout(f.table, { animateLast: true });
    // the hand's moves up to this one say which tile each port belongs to ("on 2n" → words)
    const steps = this.frames.slice(0, this.index + 1).filter((g) => g.hand === f.hand && g.step).map((g) => g.step);
    const stepEl = f.step ? el("p", { class: "last-move" }, [
      el("strong", { class: f.step.seat === ctx.seat ? "who-me" : "who-opp", text: seatName(f.step.seat, ctx) }),
      " ", el("span", { title: f.step.move, text: moveText(f.step, { plays: tablePlays(steps) }) }), " — ",
      el("span", { class: "reason", text: reasonText(f.step, st.rules, ctx) }),
      pointsText(f.step.points, ctx) ? el("span", { class: "pts", text: ` (${pointsText(f.step.points, ctx)})` }) : null,
    ]) : el("p", { class: "last-move muted", text: where });

    const seats = [ctx.seat ?? 0, 1 - (ctx.seat ?? 0)];
    const hands = el("section", { class: "panel replay-hands" }, [
      el("h2", { class: "section-title", text: t("replay.hands") }),
      ...seats.map((seat) => el("div", { class: "replay-hand" }, [
        el("h3", { text: `${seatName(seat, ctx)} (${(f.hands?.[seat] || []).length})` }),
        el("div", { class: "hand hand--small" }, (f.hands?.[seat] || []).map((tile) => tileSVG(...digits(tile), { orientation: "vertical", px: 52 }))),
      ])),
      f.boneyard !== null && f.boneyard !== undefined ? el("p", { class: "muted", text: t("replay.boneyard", { b: f.boneyard }) }) : null,
    ]);

    const scoreRows = seats.map((seat) => el("tr", { class: seat === ctx.seat ? "me" : "opp" }, [
      el("th", { scope: "row", text: seatName(seat, ctx) }),
      el("td", { class: "total", text: String(f.totals?.[seat] ?? 0) }),
      el("td", { text: String(f.hand_points?.[seat] ?? 0) }),
    ]));
    const facts = [];
    if (st.rules.count) {
      facts.push(el("dt", { text: t("scores.count") }), el("dd", { text: String(f.count ?? 0) }));
      facts.push(el("dt", { text: t("scores.n") }), el("dd", { text: String(f.n ?? 0) }));
    }
    const scores = el("section", { class: "panel scores" }, [
      el("h2", { class: "section-title", text: `${t("scores.title")} · ${t("scores.hand", { n: f.hand })}` }),
      el("table", { class: "score-table" }, [
        el("thead", {}, [el("tr", {}, [el("th", {}, [""]), el("th", { scope: "col", text: t("scores.total") }), el("th", { scope: "col", text: t("scores.thisHand") })])]),
        el("tbody", {}, scoreRows),
      ]),
      facts.length ? el("dl", { class: "facts" }, facts) : null,
    ]);

    let resultEl = null;
    if (f.result) {
      const r = f.result;
      resultEl = el("section", { class: "panel replay-result" }, [
        el("h2", { class: "section-title", text: t("over.title", { n: r.number ?? f.hand }) }),
        el("p", { text: endText(r, ctx, st.rules) }),
        winnerText(r, ctx, st.rules) ? el("p", { class: "result-winner", text: winnerText(r, ctx, st.rules) }) : null,
        el("p", { text: seats.map((seat) => `${seatName(seat, ctx)} +${r.points?.[seat] ?? 0}`).join(" · ") }),
        r.bonus_quartets && r.bonus_quartets.length ? el("p", { class: "bonus-title", text: bonusText(r, ctx) }) : null,
        r.bonus_quartets && r.bonus_quartets.length ? el("ul", { class: "bonus-pairs" }, r.bonus_quartets.map((pair) => el("li", { class: "bonus-pair" }, pair.map((tile) => tileSVG(...digits(tile), { orientation: "vertical", px: 48 }))))) : null,
        r.pips_left ? el("p", { class: "muted", text: `${t("over.pipsLeft")}: ${seats.map((seat) => `${seatName(seat, ctx)} ${r.pips_left[seat]}`).join(" · ")}` }) : null,
      ]);
    }

    this.frameEl.replaceChildren(el("div", { class: "game-grid" }, [
      el("div", { class: "board-col" }, [el("div", { class: "felt" }, [this.table.svg]), stepEl, resultEl, hands]),
      el("aside", { class: "side-col" }, [scores]),
    ]));
  }
}
