// The game page (/game/ID): one seat's view of a match. It renders every STATE the server
// sends (WebSocket) or returns (HTTP), lets the player pick a tile and one of its places,
// asks for hints, and shows the end-of-hand and end-of-match screens.

import { api, ApiError, loadSeat, saveSeat, loadAck, saveAck, saveInfo, forgetGame } from "./api.js";
import { t, getLang, onLangChange, formatNumber, playerName } from "./i18n.js";
import { GameSocket } from "./socket.js";
import { attention, titled, notifyControls } from "./notify.js";
import { ChatPanel } from "./chat.js";
import { TableView, groupSpots, handTileButton, chooserDialog } from "./table.js";
import { s as svgEl, tileSVG, digits, tileBack, spinnerMark, flyTile, reducedMotion } from "./tiles.js";
import { el, toast, spinner, downloadText, layoutMode } from "./ui.js";
import {
  seatName, opponentName, moveText, reasonText, pointsText, endText, winnerText, bonusText, parseMove,
  tablePlays,
} from "./words.js";

const PLACE_KINDS = new Set(["play", "luzak", "lead"]);
/** How far (px) a pressed tile must move before it is being dragged (less is a tap). */
const DRAG_START_PX = 8;
/** A tile's flight lasts this long (ms); the flights of one update follow each other by
 * FLIGHT_GAP ms, and an update of more than MAX_FLIGHTS moves (a reconnect) flies none. */
const FLIGHT_MS = 260, FLIGHT_GAP = 140, MAX_FLIGHTS = 4;

// ---- sounds --------------------------------------------------------------------------------

const SOUND_KEY = "dominolab/sound";

/**
 * Short table sounds made with WebAudio (no files, nothing fetched): a clack when a tile is
 * laid, a soft slide when one is drawn. Off by default; the choice is kept in localStorage.
 * No AudioContext exists until sounds are turned on (and browsers let it start only after
 * the person has touched the page, so it is woken on each touch while sounds are on).
 */
class Sounds {
  constructor() {
    let saved = null;
    try { saved = localStorage.getItem(SOUND_KEY); } catch (_) { /* storage may be off */ }
    this.on = saved === "on";
    this.ctx = null;
    this.noise = null;
  }

  set(on) {
    this.on = on;
    try { localStorage.setItem(SOUND_KEY, on ? "on" : "off"); } catch (_) { /* ignore */ }
    if (on) this.wake();
  }

  /** Make (or resume) the audio context: call it from a touch or a key. */
  wake() {
    if (!this.on) return null;
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    if (!this.ctx) this.ctx = new Ctx();
    if (this.ctx.state === "suspended") this.ctx.resume().catch(() => {});
    return this.ctx;
  }

  /** A burst of noise, fading fast, from the filter KIND at FREQ Hz, SECONDS long. */
  burst(kind, freq, seconds, level, t0) {
    const ctx = this.ctx;
    if (!this.noise) {
      const n = Math.floor(ctx.sampleRate * 0.25);
      this.noise = ctx.createBuffer(1, n, ctx.sampleRate);
      const data = this.noise.getChannelData(0);
      for (let i = 0; i < n; i++) data[i] = Math.random() * 2 - 1;
    }
    const src = ctx.createBufferSource();
    src.buffer = this.noise;
    const filter = ctx.createBiquadFilter();
    filter.type = kind;
    filter.frequency.value = freq;
    filter.Q.value = 1.1;
    const gain = ctx.createGain();
    gain.gain.setValueAtTime(level, t0);
    gain.gain.exponentialRampToValueAtTime(0.0005, t0 + seconds);
    src.connect(filter).connect(gain).connect(ctx.destination);
    src.start(t0);
    src.stop(t0 + seconds + 0.02);
  }

  /** Ivory on wood: a bright click and a low knock, DELAY seconds from now. */
  clack(delay = 0) {
    const ctx = this.wake();
    if (!ctx) return;
    const t0 = ctx.currentTime + delay;
    this.burst("bandpass", 2600, 0.07, 0.55, t0);
    const knock = ctx.createOscillator();
    knock.frequency.setValueAtTime(190, t0);
    knock.frequency.exponentialRampToValueAtTime(85, t0 + 0.08);
    const gain = ctx.createGain();
    gain.gain.setValueAtTime(0.3, t0);
    gain.gain.exponentialRampToValueAtTime(0.0005, t0 + 0.1);
    knock.connect(gain).connect(ctx.destination);
    knock.start(t0);
    knock.stop(t0 + 0.12);
  }

  /** A tile slid off the boneyard, DELAY seconds from now. */
  slide(delay = 0) {
    const ctx = this.wake();
    if (!ctx) return;
    this.burst("lowpass", 1400, 0.16, 0.28, ctx.currentTime + delay);
  }
}

/** "23" → "32": tiles in STATE.hand and LEGAL.tile are written high half first. */
function canonical(tile) {
  return tile[0] >= tile[1] ? tile : tile[1] + tile[0];
}

/** A button that copies TEXT to the clipboard (or asks the person to copy it). */
/** How the match ended, in words; a clock that ran out names who ran out of time. */
function matchEndText(mr, st, ctx) {
  if (mr.end !== "time") return t(`match.end.${mr.end}`);
  if (mr.winner === null || mr.winner === undefined) return t("match.end.time");
  return mr.winner === st.seat ? t("match.end.timeThem", { name: opponentName(ctx) }) : t("match.end.timeYou");
}

function copyButton(text, testid) {
  const btn = el("button", {
    type: "button", class: "button", "data-testid": testid,
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(text);
        toast(t("invite.copied"));
      } catch (_) {
        const input = btn.parentElement && btn.parentElement.querySelector("input");
        if (input) { input.focus(); input.select(); }
        try { document.execCommand("copy") ? toast(t("invite.copied")) : toast(t("invite.copyFailed")); }
        catch (__) { toast(t("invite.copyFailed")); }
      }
    },
  }, [t("btn.copy")]);
  return btn;
}

/** A loudspeaker, with sound waves when ON, or crossed out. */
function speakerIcon(on) {
  return svgEl("svg", {
    class: "speaker", viewBox: "0 0 24 24", width: 20, height: 20, "aria-hidden": "true", focusable: "false",
  }, [
    svgEl("path", { class: "speaker-body", d: "M3 9h4l5-4v14l-5-4H3z" }),
    on ? svgEl("path", { class: "speaker-waves", d: "M15.5 8.5a5 5 0 0 1 0 7M18.5 5.5a9 9 0 0 1 0 13" })
      : svgEl("path", { class: "speaker-off", d: "M16 9l6 6M22 9l-6 6" }),
  ]);
}

export class GameView {
  constructor(id, navigate) {
    this.id = id;
    this.navigate = navigate;
    this.state = null;
    this.picked = null;        // the picked tile ("65") or null
    this.focusedSpot = -1;
    this.groups = [];
    this.busy = false;
    this.hints = null;         // {version, moves} | "loading" | null
    this.hintedMoves = null;   // Set of moves highlighted from a hint entry
    this.matchDismissed = false;
    this.chooser = null;       // the open luzak dialog
    this.layout = layoutMode();
    this.connStatus = "connecting";
    this.disposers = [];
    this.sounds = new Sounds();
    this.drag = null;          // the tile being dragged: {tile, id, x0, y0, active, ghost, over}
    this.dropFrom = null;      // {tile, rect}: where a dragged tile was let go, for its flight
  }

  // ---- lifecycle -----------------------------------------------------------------------

  mount(root) {
    this.root = root;
    // A link carries a seat token (#t=TOKEN) or a one-time invitation code (#i=CODE) in its
    // fragment. Nothing from a link is stored before the server has accepted it, and a seat
    // this device already holds for the game is never replaced without the player's say.
    const frag = new URLSearchParams(location.hash.replace(/^#/, ""));
    const linkToken = frag.get("t");
    const linkInvite = frag.get("i");
    const linkUrl = location.href;
    if (linkToken || linkInvite) history.replaceState(history.state, "", location.pathname + location.search);
    const stored = loadSeat(this.id);
    if (linkInvite) {
      if (stored) {
        // the creator opening their own invitation (keep seat 0, remind what the link is
        // for), or the friend opening it again (keep the seat it gave)
        this.start(stored, stored.seat === 1 ? { kind: "joined" } : { kind: "own-invite", url: linkUrl });
      } else {
        this.claim(linkInvite);
      }
      return;
    }
    if (linkToken) {
      if (stored && stored.token === linkToken) this.start(stored);
      else if (stored) this.start(stored, { kind: "other-token", token: linkToken });
      else this.adopt(linkToken);
      return;
    }
    if (!stored) {
      this.renderNoToken();
      return;
    }
    this.start(stored);
  }

  /** Claim seat 1 with an invitation code; store the token only once the server gave it. */
  async claim(code) {
    this.renderWaiting(t("link.joining"));
    let res;
    try {
      res = await api.join(this.id, code);
    } catch (err) {
      if (this.unmounted) return;
      this.renderLinkError("invite", err, () => this.claim(code));
      return;
    }
    if (this.unmounted) return;
    if (!res || typeof res.token !== "string") {
      this.renderLinkError("invite", new ApiError("", 500), () => this.claim(code));
      return;
    }
    const seat = { token: res.token, seat: res.seat ?? 1, invite: null };
    saveSeat(this.id, seat);
    this.start(seat, null, res.state || null);
  }

  /** A seat token from a link, for a game this device holds no seat of: ask the server
   * first, and keep the token only if it is accepted. */
  async adopt(token) {
    this.renderWaiting(t("link.checking"));
    let st;
    try {
      st = await api.state(this.id, token, this.layout);
    } catch (err) {
      if (this.unmounted) return;
      this.renderLinkError("token", err, () => this.adopt(token));
      return;
    }
    if (this.unmounted) return;
    const seat = { token, seat: st.seat ?? null, invite: null };
    saveSeat(this.id, seat);
    this.start(seat, null, st);
  }

  /** Play with SEAT ({token, seat, invite}); NOTICE about the link that was opened, if any;
   * FIRST a STATE already fetched. */
  start(seat, notice = null, first = null) {
    this.token = seat.token;
    this.invite = seat.invite;
    this.notice = notice;
    this.buildShell();
    this.renderNotice();
    this.socket = new GameSocket({
      id: this.id,
      token: this.token,
      watch: !!this.spectator,
      layout: this.layout,
      onState: (st, now) => {
        if (typeof now === "number") this.skew = now - Date.now() / 1000;
        this.receive(st);
      },
      onError: (msg) => {
        if (this.chat && this.chat.refused(msg)) return;
        toast(msg.error || t("err.generic", { status: msg.status }), "error");
      },
      onChat: (msg) => { if (this.chat) this.chat.receive(msg); },
      onStatus: (st) => this.setConn(st),
      onFatal: (code) => this.renderFatal(code),
    });
    this.socket.connect();
    if (first) this.receive(first);

    const onKey = (ev) => this.onKey(ev);
    document.addEventListener("keydown", onKey);
    this.disposers.push(() => document.removeEventListener("keydown", onKey));
    let resizeTimer = null;
    const onResize = () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => {
        const mode = layoutMode();
        if (mode !== this.layout) {
          this.layout = mode;
          this.socket.setLayout(mode);
        }
      }, 250);
    };
    window.addEventListener("resize", onResize);
    this.disposers.push(() => window.removeEventListener("resize", onResize));
    this.disposers.push(onLangChange(() => this.render()));
    // browsers start sound only after a touch: with sounds on, each touch wakes them
    const wake = () => this.sounds.wake();
    document.addEventListener("pointerdown", wake, true);
    document.addEventListener("keydown", wake, true);
    this.disposers.push(() => {
      document.removeEventListener("pointerdown", wake, true);
      document.removeEventListener("keydown", wake, true);
    });
  }

  unmount() {
    this.unmounted = true;
    this.endDrag();
    if (this.socket) this.socket.close();
    for (const d of this.disposers) d();
    this.disposers = [];
  }

  // ---- skeleton ------------------------------------------------------------------------

  buildShell() {
    this.table = new TableView({
      minWidth: this.layout === "narrow" ? 9 : 16,
      minHeight: this.layout === "narrow" ? 6 : 6,
      onSpot: (grp, i) => this.chooseSpot(grp, i),
    });
    this.titleEl = el("h1", { class: "game-title" });
    this.vsEl = el("span", { class: "game-vs", "data-testid": "players" });
    // a lobby match's clock: the time left for the move, counted down here from the
    // state's deadline (server time) and the server's clock as the socket last said it
    this.clockEl = el("p", { class: "move-clock", "data-testid": "clock", hidden: true, "aria-live": "off" });
    const tick = setInterval(() => this.renderClock(), 1000);
    this.disposers.push(() => clearInterval(tick));
    this.connEl = el("span", { class: "conn", "data-testid": "connection", "data-state": "connecting", role: "status" });
    this.watchingEl = el("span", { class: "watching", "data-testid": "watching", "data-count": "0", hidden: true });
    this.soundEl = el("button", {
      type: "button", class: "sound-toggle", "data-testid": "sound", onclick: () => this.toggleSound(),
    });
    this.inviteEl = el("section", { class: "invite panel", hidden: true });
    // told when it's my turn in a background tab (notify.js); a seat's canned messages (chat.js)
    this.notifyEl = this.spectator ? null : notifyControls();
    this.chat = this.spectator ? null : new ChatPanel({
      send: (obj) => this.socket && this.socket.send(obj),
      seat: () => (this.state ? this.state.seat : null),
      opponent: () => {
        const st = this.state;
        const p = st && st.players && st.players[1 - st.seat];
        return p ? playerName(p.name) : null;
      },
    });
    if (this.chat) {
      this.chat.root.hidden = true;
      this.disposers.push(() => this.chat.dispose());
    }
    if (this.notifyEl) this.disposers.push(() => this.notifyEl.dispose());
    this.noticeEl = el("section", { class: "link-notice panel", hidden: true, role: "status" });
    this.statusEl = el("p", { class: "status-line", "data-testid": "status", "aria-live": "polite" });
    this.oppEl = el("div", { class: "opp-strip", "data-testid": "opponent" });
    this.feltEl = el("div", { class: "felt" }, [this.table.svg]);
    this.legendEl = el("p", { class: "table-legend", "data-testid": "spinner-legend", hidden: true });
    this.lastMoveEl = el("p", { class: "last-move", "aria-live": "polite" });
    this.handTitle = el("h2", { class: "section-title" });
    this.handEl = el("div", { class: "hand", role: "group" });
    this.actionsEl = el("div", { class: "actions" });
    this.keyHintEl = el("p", { class: "key-hint" });
    this.hintsEl = el("section", { class: "hints panel", "data-testid": "hints", hidden: true, "aria-live": "polite" });
    this.scoresEl = el("section", { class: "scores panel", "data-testid": "scores" });
    this.historyTitle = el("h2", { class: "section-title" });
    this.historyEl = el("ol", { class: "history", "data-testid": "history", tabindex: "0" });
    this.overlayEl = el("div", { class: "overlay-host" });
    this.bannerEl = el("div", { class: "match-banner", hidden: true });

    this.gameEl = el("section", {
      class: "game", "data-testid": "game", "data-turn": "none", "data-version": "", "data-hand": "", "data-seat": "",
    }, [
      el("div", { class: "game-bar" }, [
        el("div", { class: "game-heading" }, [this.titleEl, this.vsEl]),
        el("div", { class: "game-tools" }, [this.watchingEl, this.notifyEl, this.soundEl, this.connEl]),
      ]),
      this.bannerEl,
      this.noticeEl,
      this.inviteEl,
      el("div", { class: "game-grid" }, [
        el("div", { class: "board-col" }, [
          this.statusEl,
          this.clockEl,
          this.oppEl,
          this.lastMoveEl,
          this.feltEl,
          // my tiles and the buttons stay in view at the bottom while the page scrolls
          el("section", { class: "hand-area", "data-testid": "dock" }, [
            el("div", { class: "hand-head" }, [this.handTitle, this.actionsEl]), this.handEl, this.keyHintEl,
          ]),
          this.hintsEl,
        ]),
        el("aside", { class: "side-col" }, [
          this.scoresEl,
          el("section", { class: "panel history-panel" }, [this.historyTitle, this.historyEl]),
          this.chat ? this.chat.root : null,
        ]),
      ]),
      this.overlayEl,
    ]);
    // clicking the felt outside a spot drops the pick
    this.feltEl.addEventListener("click", (ev) => {
      if (ev.target.closest && ev.target.closest(".spot")) return;
      if (this.picked) this.dropPick();
    });
    this.root.replaceChildren(this.gameEl);
    this.setConn("connecting");
    this.statusEl.textContent = t("conn.connecting");
  }

  renderNoToken() {
    this.root.replaceChildren(el("section", { class: "panel notice", "data-testid": "no-token" }, [
      el("h1", { text: t("notoken.title") }),
      el("p", { text: t("notoken.text") }),
      el("p", {}, [el("a", { href: "/", "data-link": "", class: "button primary", text: t("notoken.home") })]),
    ]));
    this.disposers.push(onLangChange(() => this.renderNoToken()));
  }

  renderWaiting(text) {
    this.root.replaceChildren(el("section", { class: "panel notice", "data-testid": "link-waiting" }, [
      el("p", { class: "muted" }, [spinner(text), " ", text]),
    ]));
  }

  /** A link (an invitation, KIND "invite", or a seat token, "token") that the server did
   * not accept: say why, store nothing; RETRY when trying again may help. */
  renderLinkError(kind, err, retry) {
    const status = err instanceof ApiError ? err.status : 0;
    let reason, title, text;
    if (status === 404) {
      reason = "gone"; title = t("gone.title"); text = t("link.noGame");
    } else if (kind === "invite" && status === 409) {
      reason = "used"; title = t("link.usedTitle"); text = t("link.usedText");
    } else if (kind === "invite" && (status === 403 || status === 401 || status === 400 || status === 422)) {
      reason = "invalid"; title = t("link.invalidTitle"); text = t("link.invalidText");
    } else if (kind === "token" && (status === 403 || status === 401 || status === 400)) {
      reason = "refused"; title = t("link.refusedTitle"); text = t("link.refusedText");
    } else if (status === 429) {
      reason = "limited"; title = t("link.failedTitle");
      text = err.retryAfter !== null && err.retryAfter !== undefined
        ? t("link.rateLimited", { s: err.retryAfter }) : t("link.rateLimitedSoon");
    } else {
      reason = "other"; title = t("link.failedTitle");
      text = err instanceof ApiError ? err.describe() : String(err);
    }
    const canRetry = retry && (reason === "limited" || reason === "other");
    this.root.replaceChildren(el("section", {
      class: "panel notice", role: "alert", "data-testid": "link-error", "data-reason": reason,
    }, [
      el("h1", { text: title }),
      el("p", { text }),
      el("p", { class: "notice-actions" }, [
        canRetry ? el("button", { type: "button", class: "button", onclick: () => retry(), text: t("home.retry") }) : null,
        el("a", { href: "/", "data-link": "", class: "button primary", text: t("notoken.home") }),
      ]),
    ]));
  }

  /** What the opened link meant when this device already held a seat of the game. */
  renderNotice() {
    const n = this.notice;
    if (!n || !this.noticeEl) return;
    this.noticeEl.hidden = false;
    const close = el("button", {
      type: "button", class: "button subtle small notice-close", "aria-label": t("btn.close"),
      onclick: () => { this.notice = null; this.noticeEl.hidden = true; this.noticeEl.replaceChildren(); },
    }, ["×"]);
    if (n.kind === "own-invite") {
      this.noticeEl.dataset.testid = "invite-notice";
      this.noticeEl.replaceChildren(
        close,
        el("p", { class: "notice-text", text: t("link.ownInvite") }),
        el("div", { class: "invite-row" }, [
          el("input", {
            class: "invite-input", readonly: true, value: n.url, "aria-label": t("invite.title"),
            onfocus: (ev) => ev.target.select(),
          }),
          copyButton(n.url, "copy-notice-invite"),
        ]),
      );
      return;
    }
    if (n.kind === "joined") {
      this.noticeEl.dataset.testid = "joined-notice";
      this.noticeEl.replaceChildren(close, el("p", { class: "notice-text", text: t("link.alreadyJoined") }));
      return;
    }
    this.noticeEl.dataset.testid = "switch-notice";
    const problem = n.problem ? el("p", { class: "notice-problem", role: "alert", text: n.problem }) : null;
    this.noticeEl.replaceChildren(
      close,
      el("p", { class: "notice-text", text: t("link.otherToken") }),
      problem,
      el("div", { class: "notice-actions" }, [
        el("button", {
          type: "button", class: "button", "data-testid": "switch-seat", disabled: !!n.checking,
          onclick: () => this.switchTo(n.token),
        }, [t("link.switch")]),
      ]),
    );
  }

  /** Play with the seat token of the opened link instead of the stored one, once the
   * server has accepted it. */
  async switchTo(token) {
    this.notice = { ...this.notice, checking: true, problem: null };
    this.renderNotice();
    let st;
    try {
      st = await api.state(this.id, token, this.layout);
    } catch (err) {
      if (this.unmounted) return;
      let problem;
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) problem = t("link.refusedText");
      else if (err instanceof ApiError && err.status === 404) problem = t("link.noGame");
      else problem = err instanceof ApiError ? err.describe() : String(err);
      this.notice = { ...this.notice, checking: false, problem };
      this.renderNotice();
      return;
    }
    if (this.unmounted) return;
    const seat = { token, seat: st.seat ?? null, invite: null };
    saveSeat(this.id, seat);
    this.unmount();
    this.unmounted = false;
    Object.assign(this, {
      state: null, picked: null, focusedSpot: -1, hints: null, hintedMoves: null, overlayKey: null,
      matchDismissed: false, everOpen: false,
    });
    this.start(seat, null, st);
  }

  renderFatal(code) {
    const gone = code === 4404;
    // the server knows no such game (it expired, say): it leaves "Your games on this device"
    if (gone) forgetGame(this.id);
    this.root.replaceChildren(el("section", { class: "panel notice", "data-testid": "no-token" }, [
      el("h1", { text: gone ? t("gone.title") : t("notoken.title") }),
      el("p", { text: gone ? t("gone.text") : t("badtoken.text") }),
      el("p", {}, [el("a", { href: "/", "data-link": "", class: "button primary", text: t("notoken.home") })]),
    ]));
  }

  setConn(st) {
    const changed = st !== this.connStatus;
    this.connStatus = st;
    if (st === "open") this.everOpen = true;
    if (changed && st !== "open") {
      // what is on the screen may be out of date: nothing can be played until it is fresh
      this.picked = null;
      this.focusedSpot = -1;
      this.hintedMoves = null;
      this.closeChooser();
    }
    if (changed && this.state && this.gameEl) this.render();
    else this.drawConn();
  }

  drawConn() {
    if (!this.connEl) return;
    const st = this.connStatus;
    this.connEl.dataset.state = st;
    this.connEl.replaceChildren(el("span", { class: "conn-dot", "aria-hidden": "true" }), t(`conn.${st}`));
  }

  /** The live updates are flowing: what the page shows is the server's current position. */
  get live() {
    return this.connStatus === "open";
  }

  /** The status line while the live updates are not flowing. */
  offlineText() {
    return this.everOpen ? t("conn.lostStatus") : t("conn.connectingStatus");
  }

  // ---- state ---------------------------------------------------------------------------

  receive(st) {
    if (!st || typeof st.version !== "number") return;
    if (this.state && st.version < this.state.version) return;
    const prev = this.state;
    // FLIP: where the tiles are now, before the new state is drawn, for their flights
    const before = prev && st.version > prev.version && this.gameEl ? this.snapshot() : null;
    this.state = st;
    if (!prev || prev.version !== st.version) {
      // a new position: the pick and the hints may no longer apply
      if (this.picked && !this.legalFor(this.picked).length) this.picked = null;
      if (this.hints && this.hints !== "loading" && this.hints.version !== st.version) this.hints = null;
      this.hintedMoves = null;
      if (this.chooser) this.closeChooser();
    }
    if (st.seat !== undefined && st.seat !== null) {
      const seat = loadSeat(this.id);
      if (seat && seat.seat !== st.seat) saveSeat(this.id, { ...seat, seat: st.seat });
    }
    // a spectator keeps nothing of the games it watches
    if (!this.spectator) {
      saveInfo(this.id, {
        game: st.game, title: st.title, updated: Date.now(), over: !!st.match_result,
        totals: st.totals, seat: st.seat,
      });
    }
    this.render();
    if (before) this.animateMoves(prev, st, before);
    this.tellIfHidden(prev, st);
  }

  /** In a background tab, tell the player the match ended or it is their turn (notify.js). */
  tellIfHidden(prev, st) {
    if (this.spectator || st.seat === null || st.seat === undefined) return;
    if (st.match_result) {
      if (prev && !prev.match_result) attention("over", t(`game.${st.game}`));
    } else if (st.to_move === st.seat && (!prev || prev.version !== st.version || prev.to_move !== st.seat)) {
      attention("turn", t("notify.turnBody", { game: t(`game.${st.game}`) }));
    }
  }

  get ctx() {
    const st = this.state;
    return { seat: st.seat, mode: st.mode, opponent: st.opponent, players: st.players };
  }

  legalFor(tile) {
    if (!this.state) return [];
    return (this.state.legal || []).filter((l) => l.tile === tile && PLACE_KINDS.has(l.kind));
  }

  legalKind(kind) {
    return (this.state && (this.state.legal || []).find((l) => l.kind === kind)) || null;
  }

  isMyTurn() {
    const st = this.state;
    return !!st && st.to_move !== null && st.to_move !== undefined && st.to_move === st.seat;
  }

  /** My turn, and the connection is up (moves are made over HTTP, but while the live
   * updates are down the position shown may be stale: the page offers no move then). */
  canMove() {
    return this.isMyTurn() && this.live;
  }

  // ---- rendering -----------------------------------------------------------------------

  render() {
    const st = this.state;
    if (!st || !this.gameEl) {
      this.drawConn();
      return;
    }
    const ctx = this.ctx;
    const turn = st.to_move === null || st.to_move === undefined ? "none" : (st.to_move === st.seat ? "me" : "opponent");
    Object.assign(this.gameEl.dataset, {
      version: String(st.version), hand: String(st.hand_number), turn, seat: String(st.seat), game: st.game,
    });
    this.gameEl.classList.toggle("is-my-turn", turn === "me" && this.live);
    document.title = titled(`${t(`game.${st.game}`)} · dominolab`);
    if (this.chat) this.chat.root.hidden = st.seat === null || st.seat === undefined || st.mode === "computer";
    this.titleEl.textContent = t(`game.${st.game}`) || st.title;
    // the players' names when they have them ("Ala vs Ola"; a spectator: seat 0's first)
    const named = (seat) => (st.players && st.players[seat] ? playerName(st.players[seat].name)
      : seat === st.seat ? t("who.me") : seatName(seat, ctx));
    const first = st.seat ?? 0;
    this.vsEl.textContent = `${named(first)} vs ${named(1 - first)}`;
    this.drawConn();
    this.gameEl.classList.toggle("is-offline", !this.live);

    this.renderInvite();
    this.renderWatching();
    this.renderSound();
    this.renderStatus(turn);
    this.renderClock();
    this.renderOpponent();
    this.renderTable();
    this.renderLastMove();
    this.renderHand();
    this.renderActions();
    this.renderHints();
    this.renderScores(turn);
    this.renderHistory();
    this.renderOverlays();
  }

  renderInvite() {
    const st = this.state;
    const other = 1 - st.seat;
    if (this.invite && st.connected && st.connected[other]) {
      // the friend is in: the invitation has done its work (it works only once)
      this.invite = null;
      const seat = loadSeat(this.id);
      if (seat && seat.token === this.token) saveSeat(this.id, { ...seat, invite: null });
    }
    const waiting = st.mode === "friend" && this.invite;
    this.inviteEl.hidden = !waiting;
    if (!waiting) { this.inviteEl.replaceChildren(); return; }
    const url = new URL(this.invite, location.origin).href;
    const input = el("input", {
      class: "invite-input", "data-testid": "invite-link", readonly: true, value: url,
      "aria-label": t("invite.title"), onfocus: (ev) => ev.target.select(),
    });
    const copy = copyButton(url, "copy-invite");
    this.inviteEl.replaceChildren(
      el("h2", { class: "section-title", text: t("invite.title") }),
      el("p", { text: t("invite.text") }),
      el("div", { class: "invite-row" }, [input, copy]),
      el("p", { class: "muted" }, [spinner(t("invite.waiting")), " ", t("invite.waiting")]),
    );
  }

  renderStatus(turn) {
    const st = this.state;
    const parts = [];
    let cls = "status-line";
    if (!this.live && !st.match_result) {
      cls += " is-offline";
      const text = this.offlineText();
      parts.push(spinner(text), " ", el("strong", { class: "status-main", text }));
      parts.push(el("span", { class: "status-tip", text: t("conn.movesWait") }));
    } else if (st.match_result) {
      parts.push(el("strong", { text: t("turn.matchOver") }));
    } else if (turn === "me") {
      cls += " is-me";
      parts.push(el("strong", { class: "status-main", text: t("turn.me") }));
      const legal = st.legal || [];
      const kinds = new Set(legal.map((l) => l.kind));
      let tip;
      if (this.picked) tip = t("turn.pickSpot");
      else if (kinds.has("keep")) tip = t("turn.keepOr");
      else if (kinds.has("lead")) tip = t("turn.lead");
      else if (kinds.has("luzak") && !kinds.has("play")) tip = t("turn.luzak");
      else if (kinds.size === 1 && kinds.has("draw")) tip = t("turn.drawOnly");
      else if (kinds.size === 1 && kinds.has("pass")) tip = t("turn.passOnly");
      else tip = t("turn.pickTile");
      parts.push(el("span", { class: "status-tip", text: tip }));
    } else if (turn === "opponent") {
      parts.push(spinner(), " ", el("span", { text: this.theirTurnText() }));
    } else {
      parts.push(el("strong", { text: t("turn.none") }));
    }
    this.statusEl.className = cls;
    this.statusEl.replaceChildren(...parts);
  }

  /** "The computer is thinking", "Your friend's turn", "Ola's turn". */
  theirTurnText() {
    const st = this.state;
    if (st.mode === "lobby") return t("turn.named", { name: opponentName(this.ctx) });
    return st.mode === "friend" ? t("turn.friend") : t("turn.computer");
  }

  /** The clock of a lobby match: whose move, and the time left for it (data-seconds). */
  renderClock() {
    const st = this.state;
    if (!this.clockEl || !st) return;
    const deadline = st.deadline;
    const shown = typeof deadline === "number" && !st.match_result && st.to_move !== null && st.to_move !== undefined;
    this.clockEl.hidden = !shown;
    if (!shown) return;
    const left = Math.max(0, Math.ceil(deadline - (Date.now() / 1000 + (this.skew || 0))));
    const mm = Math.floor(left / 60), ss = String(left % 60).padStart(2, "0");
    const mine = st.to_move === st.seat;
    const mover = st.players && st.players[st.to_move] ? playerName(st.players[st.to_move].name) : seatName(st.to_move, this.ctx);
    const text = left === 0 ? t("clock.out")
      : mine ? t("clock.mine", { t: `${mm}:${ss}` }) : t("clock.theirs", { name: mover, t: `${mm}:${ss}` });
    Object.assign(this.clockEl.dataset, { seconds: String(left), mine: String(mine) });
    this.clockEl.classList.toggle("is-mine", mine);
    this.clockEl.classList.toggle("is-low", left <= 15);
    this.clockEl.textContent = text;
  }

  renderTable() {
    const st = this.state;
    const frame = (st.legal || []).filter((l) => l.spot).map((l) => l.spot);
    this.table.minWidth = this.layout === "narrow" ? 9 : 16;
    this.table.setLayout(st.table, { frame });
    this.groups = this.picked ? groupSpots(this.legalFor(this.picked)) : [];
    if (this.focusedSpot >= this.groups.length) this.focusedSpot = this.groups.length ? 0 : -1;
    this.table.setSpots(this.groups, { focused: this.focusedSpot, hinted: this.hintedMoves });
    if (this.drag && this.drag.active) this.drag.over = -1;  // the spots were drawn anew
    this.feltEl.classList.toggle("is-picking", !!this.picked);
  }

  /** The opponent's tiles, face down (as many as they hold), and the boneyard, when the
   * game has one (STATE's rules say), as a pile with its count; in a game whose doubles are
   * spinners (a tree table), what the spinner's mark means. */
  renderOpponent() {
    const st = this.state;
    const ctx = this.ctx;
    // the seat across the table: the opponent (on a spectator's page, seat 1)
    const seat = 1 - (st.seat ?? 0);
    const n = (st.tiles ? st.tiles[seat] : st.opponent_tiles) ?? 0;
    const name = seatName(seat, ctx);
    const backs = el("div", {
      class: "opp-backs", "data-testid": "opponent-hand", "data-seat": String(seat), "data-count": String(n), role: "img",
      "aria-label": t("opp.tiles", { name, n }), title: t("opp.tiles", { name, n }),
    }, Array.from({ length: n }, () => tileBack()));
    const parts = [
      el("span", { class: "opp-name who-opp", text: name }),
      backs,
      el("span", { class: "opp-count", "aria-hidden": "true", text: String(n) }),
    ];
    if (st.rules && st.rules.boneyard) {
      const left = st.boneyard ?? 0;
      parts.push(el("div", {
        class: "pile" + (left ? "" : " is-empty"), "data-testid": "boneyard-pile", "data-count": String(left),
        role: "img", "aria-label": t("pile.label", { n: left }), title: t("pile.label", { n: left }),
      }, [
        el("span", { class: "pile-stack" }, Array.from({ length: Math.min(3, left) }, () => tileBack())),
        el("span", { class: "pile-text", "aria-hidden": "true" }, [
          el("span", { class: "pile-word", text: t("scores.boneyard") }),
          el("strong", { class: "pile-count", text: String(left) }),
        ]),
      ]));
    }
    const spinners = !!st.rules && st.rules.table === "tree";
    this.legendEl.hidden = !spinners;
    if (spinners) {
      this.legendEl.replaceChildren(spinnerMark(18), el("span", { text: t("legend.spinner") }));
      parts.push(this.legendEl);
    }
    this.oppEl.replaceChildren(...parts);
  }

  /** "N watching": how many spectators the game has (shown once there is one). */
  renderWatching() {
    const n = this.state.watching || 0;
    this.watchingEl.hidden = !n;
    this.watchingEl.dataset.count = String(n);
    this.watchingEl.textContent = t("watch.count", { n });
  }

  renderSound() {
    const on = this.sounds.on;
    this.soundEl.setAttribute("aria-pressed", on ? "true" : "false");
    this.soundEl.title = on ? t("sound.on") : t("sound.off");
    this.soundEl.setAttribute("aria-label", t("sound.label"));
    this.soundEl.replaceChildren(speakerIcon(on), el("span", { class: "sound-word", text: t("sound.label") }));
  }

  toggleSound() {
    this.sounds.set(!this.sounds.on);
    if (this.sounds.on) this.sounds.clack();
    this.renderSound();
  }

  /** My tile drawn last, until my next move ("keep" ends the draw, it is no new move). */
  drawnTile() {
    const st = this.state;
    const hist = st.history || [];
    for (let i = hist.length - 1; i >= 0; i--) {
      const step = hist[i];
      if (step.seat !== st.seat || step.move === "keep") continue;
      return step.move === "draw" && step.drew ? canonical(step.drew) : null;
    }
    return null;
  }

  renderLastMove() {
    const st = this.state;
    const hist = st.history || [];
    const last = hist[hist.length - 1];
    if (!last) {
      this.lastMoveEl.replaceChildren(el("span", { class: "muted", text: t("scores.hand", { n: st.hand_number }) + " · " + t("scores.opener", { name: seatName(st.opener, this.ctx) }) }));
      return;
    }
    this.lastMoveEl.replaceChildren(...this.stepLine(last, tablePlays(hist)));
  }

  /** A STEP in words; PLAYS the moves that laid the hand's tiles (words.js tablePlays), so
   * that where a tile went is said in words, the notation kept as the text's tooltip. */
  stepLine(step, plays = null) {
    const ctx = this.ctx;
    // the reason names the points (and who got them); other points get a note
    const explained = ["count", "luzak", "quartet"].includes(step.reason && step.reason.kind);
    const pts = explained ? "" : pointsText(step.points, ctx);
    const scored = (step.points || []).some((p) => p > 0);
    const out = [
      // a spectator's page colours seat 0 as a seat's page colours its own
      el("strong", { class: step.seat === (ctx.seat ?? 0) ? "who-me" : "who-opp", text: seatName(step.seat, ctx) }),
      " ", el("span", {
        class: "move-words", title: t("move.notation", { move: step.move }), "data-move": step.move,
        text: moveText(step, { plays }),
      }),
    ];
    // a draw, a pass or a keep says it all in its move words
    if (!["draw", "pass", "keep"].includes(step.reason && step.reason.kind)) {
      out.push(" — ", el("span", { class: "reason" + (scored ? " scored" : ""), text: reasonText(step, this.state.rules, ctx) }));
    }
    if (pts) out.push(el("span", { class: "pts", text: ` (${pts})` }));
    return out;
  }

  renderHand() {
    const st = this.state;
    this.handTitle.textContent = `${t("hand.title")} (${(st.hand || []).length})`;
    const mine = this.canMove();
    const drawn = this.drawnTile();
    const buttons = (st.hand || []).map((tile, i) => {
      const playable = mine && this.legalFor(tile).length > 0;
      return handTileButton(tile, i, {
        playable, picked: this.picked === tile, mark: tile === drawn ? t("tile.drawnMark") : "",
        onPick: () => this.pick(tile),
        // pressed and moved, it is dragged to a place on the table (a tap picks it)
        onPointerDown: (ev) => this.dragStart(ev, tile),
      });
    });
    this.handEl.setAttribute("aria-label", t("hand.title"));
    if (!buttons.length) buttons.push(el("p", { class: "muted", text: t("hand.empty") }));
    this.handEl.replaceChildren(...buttons);
  }

  renderActions() {
    const st = this.state;
    const btns = [];
    for (const kind of ["draw", "pass", "keep"]) {
      if (!this.live || !this.legalKind(kind)) continue;
      btns.push(el("button", {
        type: "button", class: "button primary action-" + kind, "data-testid": kind,
        disabled: this.busy, onclick: () => this.play(kind),
      }, [t(`btn.${kind}`), el("kbd", { "aria-hidden": "true", text: kind[0] })]));
    }
    const hintBtn = el("button", {
      type: "button", class: "button hint-button", "data-testid": "hint",
      disabled: !this.canMove() || this.hints === "loading",
      onclick: () => this.askHint(),
    }, [t("btn.hint"), el("kbd", { "aria-hidden": "true", text: "h" })]);
    // no hints against a person from the lobby, nor in a rated match (the server refuses
    // them too)
    if (st.mode !== "lobby" && !st.rated) btns.push(hintBtn);
    this.actionsEl.replaceChildren(...btns);
    this.keyHintEl.textContent = st.match_result ? "" : t("hand.keyHint");
  }

  renderHints() {
    const h = this.hints;
    if (!h) { this.hintsEl.hidden = true; this.hintsEl.replaceChildren(); return; }
    this.hintsEl.hidden = false;
    const title = el("h2", { class: "section-title", text: t("hint.title") });
    if (h === "loading") {
      this.hintsEl.replaceChildren(title, el("p", { class: "muted" }, [spinner(), " ", t("hint.thinking")]));
      return;
    }
    if (!h.moves || !h.moves.length) {
      this.hintsEl.replaceChildren(title, el("p", { class: "muted", text: t("hint.none") }));
      return;
    }
    const ctx = this.ctx;
    // moves that are the same but for a port's name (a spinner's two short ends) are one
    // entry: the first, which names the others' ports ("40@2n (or 2s)")
    const covered = new Set();
    const entries = h.moves.filter((hm) => {
      if (covered.has(hm.move)) return false;
      (hm.same || []).forEach((m) => covered.add(m));
      return true;
    });
    const portOf = (m) => m.split("@")[1].replace("*", "");
    const plays = tablePlays(this.state.history);
    const list = el("ol", { class: "hint-list" }, entries.map((hm, i) => {
      const also = (hm.same || []).filter((m) => m.includes("@")).map(portOf);
      const mv = parseMove(hm.move);
      const step = { move: hm.move, seat: ctx.seat, drew: null };
      const pts = hm.points || [0, 0];
      const mineNow = pts[ctx.seat] || 0, theirsNow = pts[1 - ctx.seat] || 0;
      const active = this.hintedMoves && this.hintedMoves.has(hm.move);
      const pct = formatNumber(Math.round((hm.win ?? 0) * 1000) / 10, 1);
      const margin = (hm.margin >= 0 ? "+" : "") + formatNumber(hm.margin ?? 0, 1);
      return el("li", {}, [el("button", {
        type: "button", class: "hint-entry" + (active ? " is-active" : "") + (i === 0 ? " is-best" : ""),
        "data-move": hm.move, onclick: () => this.showHint(hm.move),
      }, [
        mv.tile ? tileSVG(...digits(mv.tile), { orientation: "horizontal", px: 44, label: false }) : null,
        el("span", { class: "hint-move" }, [el("code", { text: hm.move }), also.length ? ` ${t("hint.alsoPorts", { ports: also.join(` ${t("hint.or")} `) })}` : "", " ", el("span", { class: "muted", text: moveText(step, { plays }) })]),
        el("span", { class: "hint-stats" }, [
          el("span", { class: "hint-win", text: t("hint.win", { p: pct }) }),
          el("span", { class: "hint-bar", "aria-hidden": "true" }, [el("span", { style: `width:${Math.max(2, Math.min(100, (hm.win ?? 0) * 100))}%` })]),
          el("span", { class: "muted", text: `${t("hint.margin", { m: margin })} · ${t("hint.now", { a: mineNow, b: theirsNow })}` }),
        ]),
      ])]);
    }));
    const stale = h.version !== this.state.version;
    const SHORT = 5;
    const extra = entries.length - SHORT;
    if (extra > 0 && !this.allHints) {
      [...list.children].slice(SHORT).forEach((li) => { li.hidden = true; });
    }
    const more = extra > 0 ? el("button", {
      type: "button", class: "button subtle small", "aria-expanded": String(!!this.allHints),
      onclick: () => { this.allHints = !this.allHints; this.renderHints(); },
    }, [this.allHints ? t("hint.fewer") : t("hint.more", { n: entries.length })]) : null;
    const kids = [title];
    if (stale) kids.push(el("p", { class: "muted", text: t("hint.stale") }));
    kids.push(list);
    if (more) kids.push(more);
    this.hintsEl.replaceChildren(...kids);
  }

  renderScores(turn) {
    const st = this.state;
    const ctx = this.ctx;
    const me = st.seat ?? 0, opp = 1 - me;
    const row = (seat, cls) => el("tr", { class: cls }, [
      el("th", { scope: "row" }, [seatName(seat, ctx), st.to_move === seat ? el("span", { class: "turn-mark", title: t("turn.me"), text: " ◀" }) : null]),
      el("td", { class: "total", "data-testid": seat === me ? "total-me" : "total-opp", text: String(st.totals?.[seat] ?? 0) }),
      el("td", { class: "this-hand", text: String(st.hand_points?.[seat] ?? 0) }),
    ]);
    const table = el("table", { class: "score-table" }, [
      el("thead", {}, [el("tr", {}, [el("th", { scope: "col" }, [el("span", { class: "visually-hidden", text: t("scores.player") })]), el("th", { scope: "col", text: t("scores.total") }), el("th", { scope: "col", text: t("scores.thisHand") })])]),
      el("tbody", {}, [row(me, "me"), row(opp, "opp")]),
    ]);
    const target = st.target ?? st.options?.target;
    const pct = (v) => Math.max(0, Math.min(100, (100 * v) / (target || 1)));
    const bars = el("div", { class: "target-bars", "aria-hidden": "true" }, [
      el("div", { class: "bar me" }, [el("span", { style: `width:${pct(st.totals?.[me] ?? 0)}%` })]),
      el("div", { class: "bar opp" }, [el("span", { style: `width:${pct(st.totals?.[opp] ?? 0)}%` })]),
    ]);
    const turnText = this.turnWords(turn);
    const facts = [
      [t("facts.target"), el("span", { "data-testid": "target", text: String(target) })],
      [t("facts.hand"), el("span", { "data-testid": "hand-number", text: String(st.hand_number) })],
      [t("facts.opener"), el("span", { text: seatName(st.opener, ctx) })],
    ];
    const oppTiles = st.seat === null || st.seat === undefined ? null
      : [t("scores.oppTilesShort"), el("span", { "data-testid": "opponent-tiles", text: String(st.opponent_tiles ?? 0) })];
    if (st.rules.boneyard) {
      facts.push([t("scores.boneyard"), el("span", { "data-testid": "boneyard", text: String(st.boneyard ?? 0) })]);
    } else {
      facts.push([t("scores.count"), el("span", { "data-testid": "count", class: "big-number", text: String(st.count ?? 0) })]);
      facts.push([t("scores.n"), el("span", { "data-testid": "n", class: "big-number", text: String(st.n ?? 0) })]);
    }
    if (oppTiles) facts.push(oppTiles);
    const dl = el("dl", { class: "facts" }, facts.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", {}, [v])]));
    this.scoresEl.replaceChildren(
      el("h2", { class: "section-title", text: t("scores.title") }),
      el("p", { class: "turn-now" + (turn === "me" && this.live ? " is-me" : "") + (this.live ? "" : " is-offline"), "data-testid": "turn", text: turnText }),
      table, bars, dl,
    );
  }

  /** Whose turn it is, in the score panel's words. */
  turnWords(turn) {
    const st = this.state;
    if (st.match_result) return t("turn.matchOver");
    if (!this.live) return this.offlineText();
    if (turn === "me") return t("turn.me");
    if (turn === "opponent") return this.theirTurnText();
    return t("turn.none");
  }

  renderHistory() {
    const st = this.state;
    this.historyTitle.textContent = `${t("history.title")} (${t("scores.hand", { n: st.hand_number })})`;
    const plays = tablePlays(st.history);
    const items = (st.history || []).map((step, i) => el("li", {
      class: "history-item" + (step.seat === (st.seat ?? 0) ? " is-me" : " is-opp"),
    }, [el("span", { class: "history-n", "aria-hidden": "true", text: String(i + 1) }), el("span", { class: "history-text" }, this.stepLine(step, plays))]));
    this.historyEl.replaceChildren(...items);
    if (!items.length) {
      this.historyEl.dataset.empty = t("history.empty");
    } else {
      delete this.historyEl.dataset.empty;
    }
    this.historyEl.scrollTop = this.historyEl.scrollHeight;
  }

  // ---- end of hand and match -----------------------------------------------------------

  renderOverlays() {
    const st = this.state;
    // an overlay is rebuilt only when what it shows changes (no flicker on every push)
    const show = (key, build) => {
      if (this.overlayKey === key && this.overlayEl.firstElementChild) return;
      this.overlayKey = key;
      this.overlayEl.replaceChildren(build());
      this.focusFirst();
    };
    const clear = () => {
      this.overlayKey = null;
      if (!this.chooser) this.overlayEl.replaceChildren();
    };
    if (st.match_result) {
      this.renderBanner(this.matchDismissed);
      if (this.matchDismissed) clear();
      else {
        show(`match:${st.version}:${getLang()}`, () => this.matchOverlay());
        this.renderRematch();
      }
      return;
    }
    this.renderBanner(false);
    const ack = loadAck(this.id);
    if (st.hand_number > ack) {
      if (st.previous_hand) {
        show(`hand:${st.hand_number}:${getLang()}`, () => this.handOverlay(st.previous_hand));
        return;
      }
      saveAck(this.id, st.hand_number);
    }
    if (this.overlayKey) clear();
  }

  focusFirst() {
    const btn = this.overlayEl.querySelector("[data-autofocus]");
    if (btn) setTimeout(() => btn.focus({ preventScroll: true }), 0);
  }

  renderBanner(show) {
    this.bannerEl.hidden = !show;
    if (!show) { this.bannerEl.replaceChildren(); return; }
    this.bannerEl.replaceChildren(
      el("strong", { text: t("match.title") }),
      el("button", {
        type: "button", class: "button primary", onclick: () => { this.matchDismissed = false; this.render(); },
      }, [t("match.show")]),
    );
  }

  resultBlock(result, layout) {
    const ctx = this.ctx;
    const me = ctx.seat ?? 0, opp = 1 - me;
    const small = new TableView({ small: true, minWidth: 8, minHeight: 3, label: t("over.finalTable") });
    small.setLayout(layout || { tiles: [], bounds: [0, 0, 0, 0] }, { animateLast: false });
    const rows = [
      el("tr", {}, [el("th", { scope: "col" }, [el("span", { class: "visually-hidden", text: t("scores.player") })]), el("th", { scope: "col", text: t("over.points") }),
        result.pips_left ? el("th", { scope: "col", text: t("over.pipsLeft") }) : null]),
      ...[me, opp].map((seat) => el("tr", { class: seat === me ? "me" : "opp" }, [
        el("th", { scope: "row", text: seatName(seat, ctx) }),
        el("td", { text: `+${result.points?.[seat] ?? 0}` }),
        result.pips_left ? el("td", { text: String(result.pips_left[seat]) }) : null,
      ])),
    ];
    const rules = this.state.rules;
    const verdict = winnerText(result, ctx, rules);
    const parts = [
      el("p", { class: "result-end", "data-testid": "result-end", text: endText(result, ctx, rules) }),
      verdict ? el("p", { class: "result-winner", "data-testid": "result-verdict", text: verdict }) : null,
      el("table", { class: "score-table result-table" }, rows),
    ];
    if (result.bonus_quartets && result.bonus_quartets.length) {
      parts.push(el("p", { class: "bonus-title", text: bonusText(result, ctx) }));
      parts.push(el("ul", { class: "bonus-pairs" }, result.bonus_quartets.map((pair) => el("li", { class: "bonus-pair" },
        pair.map((tile) => tileSVG(...digits(tile), { orientation: "vertical", px: 56 }))))));
    }
    parts.push(el("figure", { class: "final-table" }, [el("div", { class: "felt felt--small" }, [small.svg]), el("figcaption", { text: t("over.finalTable") })]));
    return parts;
  }

  handOverlay(prev) {
    const st = this.state;
    const ctx = this.ctx;
    const next = el("button", {
      type: "button", class: "button primary", "data-testid": "next-hand", "data-autofocus": "",
      onclick: () => { saveAck(this.id, this.state.hand_number); this.overlayKey = null; this.overlayEl.replaceChildren(); this.render(); },
    }, [t("over.next")]);
    const totals = el("p", { class: "totals-line", "data-testid": "hand-over-totals" }, [
      `${t("over.totals")}: ${seatName(st.seat, ctx)} ${st.totals[st.seat]} · ${opponentName(ctx)} ${st.totals[1 - st.seat]}`,
    ]);
    return el("div", { class: "overlay", role: "presentation" }, [
      el("div", {
        class: "modal hand-over", "data-testid": "hand-over", role: "dialog", "aria-modal": "true",
        "aria-labelledby": "hand-over-title",
      }, [
        el("h2", { id: "hand-over-title", text: t("over.title", { n: prev.number ?? (prev.result && prev.result.number) }) }),
        el("div", { class: "modal-body", "data-testid": "hand-over-body" }, [
          ...this.resultBlock(prev.result || {}, prev.table),
          totals,
          this.reviewBlock(prev.number ?? (prev.result && prev.result.number)),
          (prev.history || []).length ? el("details", { class: "prev-history" }, [
            el("summary", { text: `${t("history.title")} (${(prev.history || []).length})` }),
            el("ol", { class: "history" }, prev.history.map((step, i) => el("li", {
              class: "history-item" + (step.seat === st.seat ? " is-me" : " is-opp"),
            }, [el("span", { class: "history-n", "aria-hidden": "true", text: String(i + 1) }), el("span", { class: "history-text" }, this.stepLine(step, tablePlays(prev.history)))]))),
          ]) : null,
        ]),
        el("div", { class: "modal-actions" }, [next]),
      ]),
    ]);
  }

  /** The review of hand `hand` just ended (null: of the whole match, once it is over;
   * review.js); during a rated or a lobby match only a note that it comes at the end. */
  reviewBlock(hand) {
    const st = this.state;
    if (this.reviewPanel) this.reviewPanel.dispose();
    this.reviewPanel = null;
    if (st.seat === null || st.seat === undefined) return null;
    // none while a rated or a lobby match goes on (the server refuses it, as it does hints)
    if ((st.rated || st.mode === "lobby") && !st.match_result) return el("p", { class: "muted", "data-testid": "review-rated", text: t(st.rated ? "review.rated" : "review.lobby") });
    // the review's code is read when a hand first ends, not on the page's first visit
    const slot = el("div", { class: "review-slot" });
    const made = (this.reviewsMade = (this.reviewsMade || 0) + 1);
    import("./review.js").then(({ ReviewPanel }) => {
      if (made !== this.reviewsMade || !slot.isConnected) return;  // another screen since
      this.reviewPanel = new ReviewPanel({ id: this.id, seat: st.seat, token: this.token, layout: this.layout, hand });
      slot.replaceWith(this.reviewPanel.element);
    }).catch(() => { /* shown on the next end of a hand */ });
    return slot;
  }

  matchOverlay() {
    const st = this.state;
    const ctx = this.ctx;
    const mr = st.match_result;
    let verdict;
    if (mr.winner === null || mr.winner === undefined) verdict = t("match.draw");
    else if (mr.winner === st.seat) verdict = t("match.youWon");
    else verdict = t("match.theyWon", { name: seatName(mr.winner, ctx) });
    const results = st.results || [];
    const last = results[results.length - 1];
    const totals = mr.totals || st.totals;
    // the rematch button, and the line that offers the rematch the other seat asked for
    // (filled in place by renderRematch, so the screen is not rebuilt when the offer comes)
    const replay = el("button", {
      type: "button", class: "button primary", "data-testid": "replay", "data-autofocus": "",
      onclick: () => this.navigate(`/replay/${encodeURIComponent(this.id)}`),
    }, [t("match.replay")]);
    this.rematchButton = el("button", {
      type: "button", class: "button", "data-testid": "rematch", "data-offered": "false",
      onclick: (ev) => this.playRematch(ev.currentTarget),
    }, [t("match.rematch")]);
    this.rematchOffer = el("p", { class: "rematch-offer", "data-testid": "rematch-offer", role: "status", hidden: true });
    this.rematchAfter = replay;
    const buttons = el("div", { class: "modal-actions" }, [
      replay,
      this.rematchButton,
      el("button", {
        type: "button", class: "button", "data-testid": "download-record", onclick: () => this.download(),
      }, [t("match.download")]),
      el("a", { class: "button", href: "/", "data-link": "", "data-testid": "new-game-link", text: t("match.newGame") }),
      el("button", {
        type: "button", class: "button subtle", onclick: () => { this.matchDismissed = true; this.render(); },
      }, [t("match.viewTable")]),
    ]);
    return el("div", { class: "overlay", role: "presentation" }, [
      el("div", {
        class: "modal match-over" + (mr.winner === st.seat ? " is-win" : ""), "data-testid": "match-over",
        role: "dialog", "aria-modal": "true", "aria-labelledby": "match-over-title",
      }, [
        el("h2", { id: "match-over-title", text: t("match.title") }),
        el("p", { class: "verdict", text: verdict }),
        el("table", { class: "score-table" }, [
          el("tr", {}, [el("th", { scope: "col" }, [el("span", { class: "visually-hidden", text: t("scores.player") })]), el("th", { scope: "col", text: t("scores.total") })]),
          ...[st.seat, 1 - st.seat].map((seat) => el("tr", { class: seat === st.seat ? "me" : "opp" }, [
            el("th", { scope: "row", text: seatName(seat, ctx) }),
            el("td", { class: "total", text: String(totals[seat]) }),
          ])),
        ]),
        el("p", { class: "muted", "data-testid": "match-end", text: `${matchEndText(mr, st, ctx)} ${t("match.hands", { n: mr.hands ?? results.length })}` }),
        this.rematchOffer,
        buttons,
        this.reviewBlock(null),
        last ? el("details", { class: "last-hand", open: true }, [
          el("summary", { text: `${t("match.lastHand")} (${t("scores.hand", { n: last.number })})` }),
          ...this.resultBlock(last, st.table),
        ]) : null,
      ]),
    ]);
  }

  /** The end-of-match screen's rematch part: once the other seat has asked for one, the
   * button reads "Play it" at the end of the line that says so. */
  renderRematch() {
    const button = this.rematchButton, offer = this.rematchOffer;
    if (!button || !offer || !this.state) return;
    const st = this.state;
    const offered = !!st.rematch && st.rematch.by !== st.seat;
    if (button.dataset.offered === String(offered)) return;
    button.dataset.offered = String(offered);
    button.className = offered ? "button primary" : "button";
    button.textContent = offered ? t("match.rematchPlay") : t("match.rematch");
    offer.hidden = !offered;
    if (offered) offer.replaceChildren(t("match.rematchOffered"), " ", button);
    else this.rematchAfter.after(button);
  }

  /** Ask for the rematch (or take the one the other seat asked for), keep this seat's
   * token for it as the start page keeps a new game's, and go to it. */
  async playRematch(button) {
    if (this.rematching) return;
    this.rematching = true;
    button.disabled = true;
    try {
      const res = await api.rematch(this.id, this.token, this.layout);
      saveSeat(res.id, { token: res.token, seat: res.seat, invite: null });
      if (!this.unmounted) this.navigate(`/game/${encodeURIComponent(res.id)}`);
    } catch (err) {
      this.showError(err);
      button.disabled = false;
    } finally {
      this.rematching = false;
    }
  }

  async download() {
    try {
      const record = await api.record(this.id, this.token);
      downloadText(`dominolab-${this.state.game}-${this.id}.json`, JSON.stringify(record, null, 2));
    } catch (err) {
      this.showError(err);
    }
  }

  // ---- picking and playing -------------------------------------------------------------

  /** Pick TILE: its places light up. FOCUS: the first place gets the keyboard focus;
   * KEEP_HAND: the hand's buttons stay (only marked), as a drag begun on one needs. */
  pick(tile, { focus = false, keepHand = false } = {}) {
    if (!this.canMove() || this.busy) return;
    if (!this.legalFor(tile).length) return;
    this.picked = tile;
    this.groups = groupSpots(this.legalFor(tile));
    this.focusedSpot = focus && this.groups.length ? 0 : -1;
    this.renderTable();
    if (keepHand) {
      for (const btn of this.handEl.querySelectorAll('[data-testid="hand-tile"]')) {
        const on = btn.dataset.tile === tile;
        btn.classList.toggle("is-picked", on);
        btn.setAttribute("aria-pressed", on ? "true" : "false");
      }
    } else {
      this.renderHand();
    }
    this.renderStatus("me");
    if (focus && this.focusedSpot >= 0) this.table.focusSpot(this.focusedSpot);
  }

  // ---- dragging a tile to its place (mouse, pen and touch alike) ------------------------

  dragStart(ev, tile) {
    if (ev.pointerType === "mouse" && ev.button !== 0) return;
    if (this.drag || !this.canMove() || this.busy || !this.legalFor(tile).length) return;
    const drag = { tile, id: ev.pointerId, x0: ev.clientX, y0: ev.clientY, active: false, ghost: null, over: -1 };
    const move = (e) => this.dragMove(e);
    const up = (e) => this.dragEnd(e, false);
    const cancel = (e) => this.dragEnd(e, true);
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", cancel);
    drag.off = () => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", cancel);
    };
    drag.source = ev.currentTarget.querySelector("svg");
    this.drag = drag;
  }

  dragMove(ev) {
    const d = this.drag;
    if (!d || ev.pointerId !== d.id) return;
    if (!d.active) {
      if (Math.hypot(ev.clientX - d.x0, ev.clientY - d.y0) < DRAG_START_PX) return;
      if (!this.canMove() || this.busy) { this.endDrag(); return; }
      d.active = true;
      this.pick(d.tile, { keepHand: true });
      const box = d.source ? d.source.getBoundingClientRect() : { width: 36, height: 72 };
      const [a, b] = digits(d.tile);
      d.w = box.width; d.h = box.height;
      d.ghost = el("div", { class: "drag-ghost", "aria-hidden": "true" }, [
        tileSVG(a, b, { orientation: "vertical", px: box.height, label: false }),
      ]);
      document.body.append(d.ghost);
      this.gameEl.classList.add("is-dragging");
    }
    ev.preventDefault();
    d.ghost.style.transform = `translate(${ev.clientX - d.w / 2}px, ${ev.clientY - d.h / 2}px)`;
    const over = this.table.spotAt(ev.clientX, ev.clientY);
    if (over !== d.over) {
      d.over = over;
      this.table.markDrop(over);
    }
  }

  /** The pointer let go (CANCELLED: the browser took it): drop the tile on the place under
   * it, which plays that move (or opens the chooser when the place means several), or put
   * it back. A press that never moved far is a tap, left to the click. */
  dragEnd(ev, cancelled) {
    const d = this.drag;
    if (!d || ev.pointerId !== d.id) return;
    const rect = d.ghost ? d.ghost.getBoundingClientRect() : null;
    this.endDrag();
    if (!d.active) return;
    // the click that follows this pointerup is the drop's, not a tap on what lies beneath
    const swallow = (e) => { e.stopPropagation(); e.preventDefault(); };
    window.addEventListener("click", swallow, { capture: true, once: true });
    setTimeout(() => window.removeEventListener("click", swallow, { capture: true }), 0);
    const grp = this.picked === d.tile ? this.groups[d.over] : null;
    if (cancelled || !grp) {
      this.dropPick();
      return;
    }
    this.dropFrom = { tile: d.tile, rect };
    this.chooseSpot(grp, d.over);
  }

  /** Forget the drag under way (its ghost, its listeners, the lit drop place). */
  endDrag() {
    const d = this.drag;
    if (!d) return;
    this.drag = null;
    d.off();
    if (d.ghost) d.ghost.remove();
    if (this.gameEl) this.gameEl.classList.remove("is-dragging");
    if (this.table) this.table.markDrop(-1);
  }

  // ---- tiles that move -------------------------------------------------------------------

  /** Where things are on the screen now: my tiles, the opponent's and the boneyard. */
  snapshot() {
    const box = (node) => (node ? node.getBoundingClientRect() : null);
    const hand = new Map();
    for (const btn of this.handEl.querySelectorAll('[data-testid="hand-tile"]')) {
      hand.set(btn.dataset.tile, box(btn.querySelector("svg")));
    }
    const lastBack = (seat) => {
      const host = this.backsOf(seat);
      const backs = host ? host.querySelectorAll(".tile-back") : [];
      return box(backs[backs.length - 1] || host);
    };
    return {
      hand,
      backs: [lastBack(0), lastBack(1)],
      pile: box(this.oppEl.querySelector(".pile-stack .tile-back:last-child") || this.oppEl.querySelector(".pile")),
      drop: this.dropFrom,
    };
  }

  /** Where SEAT's tiles lie face down (the opponent's strip), or null (my own hand). */
  backsOf(seat) {
    return this.state && seat === this.state.seat ? null : this.oppEl.querySelector(".opp-backs");
  }

  /** The moves from PREV to ST, as they happened on the table: each laid tile flies to its
   * place from the hand that held it (or from where it was dropped), each drawn tile from
   * the boneyard into a hand; with sounds on, each is heard. BEFORE: snapshot() taken
   * before ST was drawn. A new hand, or many moves at once (a reconnect), just shows. */
  animateMoves(prev, st, before) {
    this.dropFrom = null;
    if (prev.hand_number !== st.hand_number) return;
    const steps = (st.history || []).slice((prev.history || []).length);
    if (!steps.length || steps.length > MAX_FLIGHTS) return;
    const motion = !reducedMotion();
    let k = tablePlays(prev.history).length;
    steps.forEach((step, i) => {
      const delay = i * FLIGHT_GAP;
      const mv = parseMove(step.move);
      const mine = step.seat === st.seat;
      if (PLACE_KINDS.has(mv.kind)) {
        k += 1;
        this.sounds.clack((delay + FLIGHT_MS * 0.8) / 1000);
        if (!motion) return;
        const target = this.table.tileElement(k);
        const tile = canonical(mv.tile);
        const from = mine ? (before.drop && before.drop.tile === tile ? before.drop.rect : before.hand.get(tile)) : before.backs[step.seat];
        const p = (st.table.tiles || []).find((x) => x.k === k);
        if (target && p) {
          flyTile(from, target.getBoundingClientRect(), { a: p.a, b: p.b, hide: target.closest("g"), delay, duration: FLIGHT_MS });
        }
      } else if (mv.kind === "draw") {
        this.sounds.slide(delay / 1000);
        if (!motion) return;
        if (mine && step.drew) {
          const btn = this.handEl.querySelector(`[data-testid="hand-tile"][data-tile="${canonical(step.drew)}"]`);
          const svg = btn && btn.querySelector("svg");
          if (svg) {
            const [a, b] = digits(canonical(step.drew));
            flyTile(before.pile, svg.getBoundingClientRect(), { a, b, hide: btn, delay, duration: FLIGHT_MS });
          }
        } else if (!mine) {
          const host = this.backsOf(step.seat);
          const backs = host ? host.querySelectorAll(".tile-back") : [];
          const last = backs[backs.length - 1];
          if (last) flyTile(before.pile, last.getBoundingClientRect(), { back: true, hide: last, delay, duration: FLIGHT_MS });
        }
      }
    });
  }

  dropPick() {
    this.picked = null;
    this.dropFrom = null;
    this.focusedSpot = -1;
    this.hintedMoves = null;
    this.closeChooser();
    if (this.state) {
      this.renderTable();
      this.renderHand();
      this.renderHints();
      this.renderStatus(this.isMyTurn() ? "me" : "opponent");
    }
  }

  cycleSpot(delta) {
    if (!this.groups.length) return;
    const n = this.groups.length;
    this.focusedSpot = this.focusedSpot < 0 ? (delta > 0 ? 0 : n - 1) : (this.focusedSpot + delta + n) % n;
    this.table.focusSpot(this.focusedSpot);
  }

  chooseSpot(grp, i) {
    this.focusedSpot = i;
    if (grp.legal.length === 1) {
      this.play(grp.legal[0].move);
      return;
    }
    this.openChooser(grp);
  }

  openChooser(grp) {
    this.closeChooser();
    this.chooser = chooserDialog(grp, { onMove: (move) => this.play(move), onClose: () => this.closeChooser() });
    this.overlayEl.append(this.chooser);
  }

  closeChooser() {
    if (this.chooser) {
      this.chooser.remove();
      this.chooser = null;
    }
  }

  async play(move) {
    if (!this.state || this.busy || !this.live) return;
    const version = this.state.version;
    this.busy = true;
    this.gameEl.classList.add("is-busy");
    try {
      const st = await api.move(this.id, this.token, move, version, this.layout);
      this.picked = null;
      this.focusedSpot = -1;
      this.busy = false;
      this.receive(st);
    } catch (err) {
      this.busy = false;
      this.showError(err);
      // the position may have moved on: fetch it again
      if (err instanceof ApiError && err.status === 409) this.refresh();
      else this.render();
    } finally {
      this.busy = false;
      this.gameEl.classList.remove("is-busy");
      // a push may have drawn the buttons while the request was out: enable them again
      if (this.state) this.renderActions();
    }
  }

  async refresh() {
    try {
      this.receive(await api.state(this.id, this.token, this.layout));
    } catch (err) {
      this.showError(err);
    }
  }

  async askHint() {
    if (this.state && this.state.mode === "lobby") return;
    if (!this.canMove() || this.hints === "loading") return;
    this.hints = "loading";
    this.allHints = false;
    this.renderHints();
    this.renderActions();
    try {
      const res = await api.hint(this.id, this.token);
      this.hints = res;
    } catch (err) {
      this.hints = null;
      this.showError(err);
    }
    this.renderHints();
    this.renderActions();
  }

  showHint(move) {
    const mv = parseMove(move);
    if (mv.tile) mv.tile = canonical(mv.tile);
    this.hintedMoves = new Set([move]);
    if (mv.tile && this.legalFor(mv.tile).length) {
      this.picked = mv.tile;
      this.groups = groupSpots(this.legalFor(mv.tile));
      this.focusedSpot = this.groups.findIndex((g) => g.legal.some((l) => l.move === move));
      this.renderTable();
      this.renderHand();
      this.renderStatus("me");
      if (this.focusedSpot >= 0) this.table.focusSpot(this.focusedSpot);
    } else {
      const btn = this.actionsEl.querySelector(`[data-testid="${mv.kind}"]`);
      if (btn) btn.focus();
    }
    this.renderHints();
  }

  showError(err) {
    if (err instanceof ApiError) toast(err.describe(), "error");
    else toast(String(err && err.message ? err.message : err), "error");
  }

  // ---- keyboard ------------------------------------------------------------------------

  onKey(ev) {
    if (!this.state || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const tag = (ev.target && ev.target.tagName) || "";
    if (["INPUT", "TEXTAREA", "SELECT"].includes(tag)) return;
    if (ev.key === "Escape") {
      if (this.chooser) { this.closeChooser(); ev.preventDefault(); return; }
      if (this.picked || this.hintedMoves) { this.dropPick(); ev.preventDefault(); }
      return;
    }
    // while a dialog or end screen is open, leave the keys to it
    if (this.overlayEl.childElementCount) return;
    const mine = this.canMove();
    if (/^[0-9]$/.test(ev.key)) {
      if (!mine) return;
      const idx = ev.key === "0" ? 9 : Number(ev.key) - 1;
      const tile = (this.state.hand || [])[idx];
      if (tile && this.legalFor(tile).length) {
        ev.preventDefault();
        this.pick(tile, { focus: true });
      }
      return;
    }
    const cycleKeys = { Tab: ev.shiftKey ? -1 : 1, ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    if (ev.key in cycleKeys && this.picked && this.groups.length) {
      ev.preventDefault();
      this.cycleSpot(cycleKeys[ev.key]);
      return;
    }
    if (ev.key === "Enter" && this.picked && this.focusedSpot >= 0 && this.groups[this.focusedSpot]) {
      ev.preventDefault();
      this.chooseSpot(this.groups[this.focusedSpot], this.focusedSpot);
      return;
    }
    const kinds = { d: "draw", p: "pass", k: "keep" };
    const k = ev.key.toLowerCase();
    if (k in kinds && mine && this.legalKind(kinds[k])) {
      ev.preventDefault();
      this.play(kinds[k]);
      return;
    }
    if (k === "h" && mine) {
      ev.preventDefault();
      this.askHint();
    }
  }
}

