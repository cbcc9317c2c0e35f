// The lobby (/lobby; docs/web.md, "The lobby"): choose a name once (the browser keeps the
// player's key), see the open seeks and the matches being played, live over /ws/lobby;
// open a seek, accept one, or play anyone now. A seek lasts while this page's socket is
// open. When someone accepts my seek, the socket says so with my seat's token; the page
// keeps it, acknowledges it (until then every lobby socket of mine is told it again), and
// goes to the game. Every live game I hold a seat in (lobby, against the computer, with a
// friend) is listed from /api/me, each rejoined with a token derived from my key (or, for
// one made before tokens were derived, only on the device that holds it).

import { forgetText } from "./devices.js";
import { api, ApiError, checkedPlayer, forgetPlayer, loadPlayer, loadSeat, registerPlayer, saveSeat, liveSeatToken } from "./api.js";
import { t, onLangChange, has, playerName } from "./i18n.js";
import { el, spinner, layoutMode } from "./ui.js";
import { featuredPanel } from "./featured.js";
import { attention, titled, notifyControls } from "./notify.js";

// a clock's choices (the server's MOVE_SECONDS_RANGE); a rated match against the computer
// (home.js) offers the same
export const MOVE_SECONDS = [30, 60, 120, 180, 300, 600];
export const DEFAULT_SECONDS = 120;
// close codes after which reconnecting with the same hello cannot help
const NOBODY = 4401, ORIGIN = 4403;

/** "2 min", "30 s" */
/** How my live game G of /api/me reads: the opponent (a player, or the computer's level),
 * rated or casual, the clock and whose move it is. */
function mineText(g) {
  const who = g.mode === "computer"
    ? t("who.computerLevel", { level: has(`levelShort.${g.computer}`) ? t(`levelShort.${g.computer}`) : g.computer })
    : (g.opponent && playerName(g.opponent.name)) || t("lobby.nobodyYet");
  const parts = [t("lobby.against", { name: who }), t(g.rated ? "lobby.rated" : "lobby.casual")];
  if (g.move_seconds) parts.push(t("lobby.perMove", { t: secondsText(g.move_seconds) }));
  if (g.to_move !== null && g.to_move !== undefined) parts.push(t(g.to_move === g.seat ? "lobby.yourMove" : "lobby.theirMove"));
  return parts.join(" · ");
}

export function secondsText(s) {
  if (s % 60 === 0) return t("lobby.minutes", { n: s / 60 });
  return t("lobby.seconds", { n: s });
}

function gameTitle(name, meta) {
  if (has(`game.${name}`)) return t(`game.${name}`);
  const g = meta && (meta.games || []).find((x) => x.name === name);
  return g ? g.title : name;
}

/** The lobby's WebSocket: hello with the player's key (or none), every message to the
 * page, reconnection with backoff after a drop. */
class LobbySocket {
  constructor({ key, onMessage, onStatus, onFatal }) {
    Object.assign(this, { key, onMessage, onStatus, onFatal });
    this.ws = null;
    this.attempt = 0;
    this.timer = null;
    this.stopped = false;
    this._online = () => this.kick();
    window.addEventListener("online", this._online);
  }

  connect() {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.onStatus("connecting");
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    let ws;
    try {
      ws = new WebSocket(`${proto}//${location.host}/ws/lobby`);
    } catch (_) {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (ws === this.ws) ws.send(JSON.stringify({ type: "hello", player: this.key || null }));
    });
    ws.addEventListener("message", (ev) => {
      if (ws !== this.ws) return;
      let msg;
      try { msg = JSON.parse(ev.data); } catch (_) { return; }
      if (msg.type === "lobby") { this.attempt = 0; this.onStatus("open"); }
      this.onMessage(msg);
    });
    ws.addEventListener("close", (ev) => {
      if (ws !== this.ws) return;
      this.ws = null;
      if (ev.code === NOBODY || ev.code === ORIGIN) {
        this.stopped = true;
        this.onStatus("closed");
        this.onFatal(ev.code);
        return;
      }
      this.retry();
    });
    ws.addEventListener("error", () => {});
  }

  retry() {
    if (this.stopped) return;
    this.onStatus("closed");
    const delay = Math.min(15000, 500 * 2 ** this.attempt) * (0.8 + Math.random() * 0.4);
    this.attempt += 1;
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** Send MSG if the socket is open (else it is lost: what it says is said again later). */
  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  kick() {
    if (this.stopped || this.ws) return;
    this.attempt = 0;
    this.connect();
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    window.removeEventListener("online", this._online);
    if (this.ws) {
      const old = this.ws;
      this.ws = null;
      try { old.close(1000); } catch (_) { /* ignore */ }
    }
  }
}

export class LobbyView {
  constructor(navigate) {
    this.navigate = navigate;
    this.player = loadPlayer();
    this.lobby = null;          // the last {seeks, live}
    this.mine = [];             // my live lobby games, from /api/me
    this.conn = null;           // this socket's id, from its welcome
    this.status = "connecting";
    this.meta = null;
    this.error = null;          // the last failed action's sentence
    this.nameError = null;
    this.busy = false;
    this.form = { game: "luzak", rated: false, seconds: DEFAULT_SECONDS, options: {} };
    this.disposers = [];
  }

  mount(root) {
    this.root = root;
    document.title = titled(`${t("lobby.title")} · dominolab`);
    const [featured, stopFeatured, drawFeatured] = featuredPanel();
    this.featuredEl = featured;   // kept across renders: it reads the server on its own
    this.disposers.push(stopFeatured, onLangChange(drawFeatured));
    this.disposers.push(onLangChange(() => this.render()));
    // "Notify me" and the beep: told in a background tab when my seek is taken (notify.js)
    this.notifyEl = notifyControls();
    this.disposers.push(() => this.notifyEl.dispose());
    this.render();
    api.meta().then((meta) => { this.meta = meta; this.render(); }).catch(() => {});
    // a kept key the server no longer knows is forgotten (then the name is asked again)
    checkedPlayer().then((player) => {
      if (this.unmounted) return;
      if ((player && player.key) !== (this.player && this.player.key)) this.setPlayer(player);
    });
    this.connect();
  }

  unmount() {
    this.unmounted = true;
    if (this.socket) this.socket.close();
    for (const d of this.disposers) d();
    this.disposers = [];
  }

  connect() {
    if (this.socket) this.socket.close();
    this.conn = null;
    this.socket = new LobbySocket({
      key: this.player && this.player.key,
      onMessage: (msg) => this.receive(msg),
      onStatus: (st) => { this.status = st; this.renderConn(); },
      onFatal: (code) => {
        if (code === NOBODY) { this.forget(); return; }
        this.error = t("lobby.refused");
        this.render();
      },
    });
    this.socket.connect();
  }

  setPlayer(player) {
    this.player = player;
    this.render();
    this.connect();   // the socket says hello with the new key (or none)
  }

  forget() {
    forgetPlayer();
    this.setPlayer(null);
  }

  receive(msg) {
    if (msg.type === "welcome") {
      this.conn = msg.conn;
      this.loadMine();
    } else if (msg.type === "lobby") {
      this.lobby = { seeks: msg.seeks || [], live: msg.live || [] };
      this.renderLists();
    } else if (msg.type === "matched" && msg.game && msg.token) {
      // my seek was accepted: my seat's token came over the socket, never in a URL
      saveSeat(msg.game, { token: msg.token, seat: msg.seat, invite: null });
      attention("seek", t("notify.seekBody"));
      // kept: the match is owed no more (the ack goes out before the socket's close)
      this.socket.send({ type: "ack", seek: msg.seek });
      this.navigate(`/game/${encodeURIComponent(msg.game)}`);
    }
  }

  /** Read my live lobby games (on each welcome: after a reconnection too). */
  async loadMine() {
    if (!this.player) return;
    const key = this.player.key;
    try {
      const me = await api.me(key);
      if (this.unmounted || !this.player || this.player.key !== key) return;
      this.mine = me.live || [];
      this.me = me;   // whether a recovery code or a linked device keeps the key elsewhere
      this.renderMine();
    } catch (_) { /* kept as it was: the next welcome reads it again */ }
  }

  /** Go to my live game G, with its seat's token: kept on this device, or derived. */
  async rejoin(g) {
    const kept = loadSeat(g.id);
    if (!kept || !kept.token || kept.seat !== g.seat) {
      const token = await liveSeatToken(this.player.key, g);
      if (!token) {
        this.error = t(g.device_only ? "lobby.deviceOnly" : "lobby.noDerive");
        this.renderError();
        return;
      }
      saveSeat(g.id, { token, seat: g.seat, invite: null });
    }
    this.navigate(`/game/${encodeURIComponent(g.id)}`);
  }

  /** Run an action of the player's; a 401 (a key nobody's) forgets the player. */
  async act(fn) {
    if (this.busy) return null;
    this.busy = true;
    this.error = null;
    this.renderError();
    try {
      return await fn(this.player.key);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) this.forget();
      this.error = err instanceof ApiError ? err.describe() : String(err);
      this.renderError();
      return null;
    } finally {
      this.busy = false;
    }
  }

  async accept(seek) {
    const res = await this.act((key) => api.acceptSeek(key, seek.id, layoutMode()));
    if (res) this.navigate(`/game/${encodeURIComponent(res.id)}`);
  }

  async cancel(seek) {
    await this.act((key) => api.cancelSeek(key, seek.id));
  }

  async quick(game) {
    const res = await this.act((key) => api.quick(key, game, layoutMode()));
    if (!res) return;
    // else my seek is open: it shows in the list, and the socket says when it is taken
    if (res.matched) this.navigate(`/game/${encodeURIComponent(res.id)}`);
  }

  async openSeek(formEl) {
    const game = this.gameMeta(this.form.game);
    const options = {};
    if (!this.form.rated) {
      for (const o of (game && game.options) || []) {
        const input = formEl.elements[`opt-${o.name}`];
        if (!input) continue;
        if (o.type === "bool") options[o.name] = input.checked;
        else {
          const v = Number.parseInt(input.value, 10);
          options[o.name] = Number.isFinite(v) ? v : input.value;
        }
      }
    }
    await this.act((key) => api.openSeek(key, {
      game: this.form.game, options, rated: this.form.rated, move_seconds: this.form.seconds,
      conn: this.conn || undefined,
    }));
  }

  async chooseName(formEl) {
    const name = formEl.elements.name.value;
    this.nameError = null;
    try {
      this.setPlayer(await registerPlayer(name));
    } catch (err) {
      this.nameError = err instanceof ApiError && err.status && err.status < 500 && err.message
        ? t("name.refused", { msg: err.message })
        : (err instanceof ApiError ? err.describe() : String(err));
      this.render();
      const input = this.root.querySelector("input[name=name]");
      if (input) { input.value = name; input.focus(); }
    }
  }

  gameMeta(name) {
    return this.meta && (this.meta.games || []).find((g) => g.name === name);
  }

  // ---- rendering -----------------------------------------------------------------------

  render() {
    const typed = this.root.querySelector("input[name=name]");
    const name = typed ? typed.value : "";
    this.connEl = el("span", { class: "conn", "data-testid": "lobby-connection", "data-state": this.status, role: "status" });
    this.errorEl = el("p", { class: "form-error", role: "alert", "data-testid": "lobby-error", hidden: true });
    this.seeksEl = el("section", { class: "panel lobby-seeks" });
    this.liveEl = el("section", { class: "panel lobby-live" });
    this.mineEl = el("section", { class: "panel lobby-mine", "data-testid": "my-games", hidden: true });
    this.root.replaceChildren(el("div", { class: "lobby", "data-testid": "lobby" }, [
      el("div", { class: "lobby-head" }, [el("h1", { text: t("lobby.title") }), this.notifyEl, this.connEl]),
      el("p", { class: "lead", text: t("lobby.lead") }),
      this.player ? this.renderMe() : this.renderNameDialog(),
      this.errorEl,
      this.mineEl,
      el("div", { class: "lobby-grid" }, [
        el("div", {}, [this.seeksEl, this.player ? this.renderQuick() : null, this.player ? this.renderSeekForm() : null]),
        el("div", {}, [this.featuredEl, this.liveEl]),
      ]),
    ]));
    const input = this.root.querySelector("input[name=name]");
    if (input && name) input.value = name;
    this.renderConn();
    this.renderError();
    this.renderLists();
    this.renderMine();
  }

  renderMine() {
    if (!this.mineEl) return;
    const mine = this.player ? this.mine : [];
    this.mineEl.hidden = !mine.length;
    this.mineEl.replaceChildren(
      el("h2", { class: "section-title", text: t("lobby.mine") }),
      el("ul", { class: "live-list" }, mine.map((g) => {
        // a game whose token is random opens only where it is kept
        const here = !g.device_only || !!(loadSeat(g.id) || {}).token;
        return el("li", { "data-testid": "my-game", "data-id": g.id, "data-seat": String(g.seat), "data-mode": g.mode || "lobby" }, [
          el("strong", { text: gameTitle(g.game, this.meta) }), " ",
          el("span", { class: "muted", text: `${mineText(g)} ` }),
          here
            ? el("button", { type: "button", class: "button primary small", "data-testid": "rejoin", onclick: () => this.rejoin(g) }, [t("lobby.rejoin")])
            : el("span", { class: "muted small-note", "data-testid": "device-only", text: t("lobby.deviceOnly") }),
        ]);
      })),
    );
  }

  renderConn() {
    if (!this.connEl) return;
    this.connEl.dataset.state = this.status;
    this.connEl.textContent = t(`lobby.conn.${this.status}`);
  }

  renderError() {
    if (!this.errorEl) return;
    this.errorEl.hidden = !this.error;
    this.errorEl.textContent = this.error || "";
  }

  renderNameDialog() {
    const form = el("form", {
      class: "panel name-dialog", "data-testid": "name-dialog", role: "dialog", "aria-labelledby": "name-title",
      onsubmit: (ev) => { ev.preventDefault(); this.chooseName(form); },
    }, [
      el("h2", { id: "name-title", class: "section-title", text: t("name.title") }),
      el("p", { text: t("name.text") }),
      el("div", { class: "field" }, [
        el("label", { for: "f-name", text: t("name.label") }),
        el("input", { id: "f-name", name: "name", type: "text", required: true, minlength: "3", maxlength: "20", autocomplete: "nickname", "data-autofocus": "" }),
      ]),
      el("p", { class: "muted", text: t("name.help") }),
      this.nameError ? el("p", { class: "form-error", role: "alert", "data-testid": "name-error", text: this.nameError }) : null,
      el("div", { class: "form-actions" }, [el("button", { type: "submit", class: "button primary", "data-testid": "name-submit", text: t("name.submit") })]),
      el("p", {}, [el("a", { href: "/link", "data-link": "", "data-testid": "link-have-code", text: t("link.have") })]),
    ]);
    return form;
  }

  renderMe() {
    return el("p", { class: "lobby-me", "data-testid": "lobby-player" }, [
      t("lobby.you"), " ", el("strong", { "data-testid": "lobby-player-name", text: playerName(this.player.name) }), " ",
      el("a", { href: `/player/${encodeURIComponent(this.player.id)}`, "data-link": "", class: "muted", text: t("lobby.myPage") }), " ",
      el("button", {
        type: "button", class: "button subtle small", "data-testid": "forget-player",
        onclick: () => { if (window.confirm(forgetText(this.me))) this.forget(); },
      }, [t("lobby.forget")]),
    ]);
  }

  renderQuick() {
    const games = (this.meta && this.meta.games) || [];
    return el("section", { class: "panel lobby-quick" }, [
      el("h2", { class: "section-title", text: t("lobby.quick") }),
      el("p", { class: "muted", text: t("lobby.quickText", { t: secondsText(DEFAULT_SECONDS) }) }),
      el("div", { class: "quick-buttons" }, games.map((g) => el("button", {
        type: "button", class: "button primary", "data-testid": `quick-${g.name}`,
        onclick: () => this.quick(g.name),
      }, [gameTitle(g.name, this.meta)]))),
    ]);
  }

  renderSeekForm() {
    const games = (this.meta && this.meta.games) || [];
    const game = this.gameMeta(this.form.game);
    const options = ((game && game.options) || []).map((o) => {
      const id = `f-seek-${o.name}`;
      const label = has(`opt.${o.name}`) ? t(`opt.${o.name}`) : (o.help || o.name);
      const key = `${this.form.game}:${o.name}`;
      const value = this.form.rated ? o.default : (key in this.form.options ? this.form.options[key] : o.default);
      const remember = (ev) => { this.form.options[key] = o.type === "bool" ? ev.target.checked : ev.target.value; };
      if (o.type === "bool") {
        return el("div", { class: "check" }, [
          el("input", { type: "checkbox", id, name: `opt-${o.name}`, checked: !!value, disabled: this.form.rated, onchange: remember }),
          el("label", { for: id, text: label }),
        ]);
      }
      return el("div", { class: "field number" }, [
        el("label", { for: id, text: label }),
        el("input", {
          type: "number", id, name: `opt-${o.name}`, value: String(value), min: String(o.min ?? 1),
          max: o.max === undefined ? undefined : String(o.max), step: "1", disabled: this.form.rated, onchange: remember,
        }),
      ]);
    });
    const form = el("form", {
      class: "panel new-seek", "data-testid": "new-seek",
      onsubmit: (ev) => { ev.preventDefault(); this.openSeek(form); },
    }, [
      el("h2", { class: "section-title", text: t("lobby.new") }),
      el("div", { class: "field" }, [
        el("label", { for: "f-seek-game", text: t("form.game") }),
        el("select", {
          id: "f-seek-game", name: "game",
          onchange: (ev) => { this.form.game = ev.target.value; this.render(); },
        }, games.map((g) => el("option", { value: g.name, selected: g.name === this.form.game }, [gameTitle(g.name, this.meta)]))),
      ]),
      el("div", { class: "check" }, [
        el("input", {
          type: "checkbox", id: "f-seek-rated", name: "rated", checked: this.form.rated,
          onchange: (ev) => { this.form.rated = ev.target.checked; this.render(); },
        }),
        el("label", { for: "f-seek-rated", text: t("lobby.ratedLabel") }),
      ]),
      options.length ? el("fieldset", { class: "options" }, [el("legend", { text: t("form.options") }), ...options]) : null,
      el("div", { class: "field" }, [
        el("label", { for: "f-seek-time", text: t("lobby.time") }),
        el("select", {
          id: "f-seek-time", name: "move_seconds",
          onchange: (ev) => { this.form.seconds = Number(ev.target.value); },
        }, MOVE_SECONDS.map((s) => el("option", { value: String(s), selected: s === this.form.seconds }, [secondsText(s)]))),
      ]),
      el("p", { class: "muted", text: t("lobby.timeHelp") }),
      el("div", { class: "form-actions" }, [el("button", { type: "submit", class: "button primary", "data-testid": "open-seek", text: t("lobby.open") })]),
    ]);
    return form;
  }

  renderLists() {
    if (!this.seeksEl) return;
    const lobby = this.lobby;
    const me = this.player && this.player.id;
    const seeks = lobby ? lobby.seeks : [];
    const mine = seeks.filter((s) => s.player && s.player.id === me);
    const seekItems = seeks.map((s) => {
      const own = s.player && s.player.id === me;
      const button = own
        ? el("button", { type: "button", class: "button small", "data-testid": "seek-cancel", onclick: () => this.cancel(s) }, [t("lobby.cancel")])
        : el("button", {
          type: "button", class: "button primary small", "data-testid": "seek-accept", disabled: !this.player,
          title: this.player ? null : t("lobby.nameFirst"), onclick: () => this.accept(s),
        }, [t("lobby.accept")]);
      return el("li", { class: "seek" + (own ? " is-mine" : ""), "data-testid": "seek", "data-id": s.id, "data-game": s.game, "data-mine": String(own) }, [
        el("span", { class: "seek-who" }, [el("strong", { text: s.player ? playerName(s.player.name) : "?" }), own ? el("span", { class: "muted", text: ` (${t("lobby.yours")})` }) : null]),
        el("span", { class: "seek-what" }, [
          gameTitle(s.game, this.meta), " · ",
          t(s.rated ? "lobby.rated" : "lobby.casual"), " · ",
          t("lobby.perMove", { t: secondsText(s.move_seconds) }),
          optionsText(s, this.gameMeta(s.game)),
        ]),
        button,
      ]);
    });
    this.seeksEl.replaceChildren(...[
      el("h2", { class: "section-title", text: t("lobby.seeks") }),
      !lobby ? el("p", { class: "muted" }, [spinner(), " ", t("lobby.loading")])
        : seeks.length ? el("ul", { class: "seek-list", "data-testid": "seeks" }, seekItems)
          : el("p", { class: "muted", "data-testid": "no-seeks", text: t("lobby.noSeeks") }),
      mine.length ? el("p", { class: "muted", "data-testid": "seek-waiting" }, [spinner(), " ", t("lobby.waiting")]) : null,
      this.player ? null : el("p", { class: "muted", text: t("lobby.nameFirst") }),
    ].filter(Boolean));
    const live = lobby ? lobby.live : [];
    this.liveEl.replaceChildren(
      el("h2", { class: "section-title", text: t("lobby.live") }),
      live.length ? el("ul", { class: "live-list", "data-testid": "live-matches" }, live.map((g) => el("li", { "data-testid": "live-match", "data-id": g.id }, [
        el("span", {}, [
          el("strong", { text: (g.players[0] && playerName(g.players[0].name)) || "?" }), " – ",
          el("strong", { text: (g.players[1] && playerName(g.players[1].name)) || "?" }),
        ]),
        el("span", { class: "muted", text: ` ${gameTitle(g.game, this.meta)}${g.totals ? ` · ${g.totals[0]} : ${g.totals[1]}` : ""}${g.rated ? ` · ${t("lobby.rated")}` : ""} ` }),
        el("a", { class: "button small", href: `/watch/${encodeURIComponent(g.id)}`, "data-link": "", "data-testid": "watch-link", text: t("lobby.watch") }),
      ]))) : el("p", { class: "muted", text: t("lobby.noLive") }),
    );
  }
}

/** The options of a seek that differ from the game's defaults: " · target 31". */
function optionsText(seek, game) {
  if (!game) return "";
  const parts = [];
  for (const o of game.options || []) {
    const v = seek.options ? seek.options[o.name] : undefined;
    if (v === undefined || v === o.default) continue;
    const label = has(`opt.${o.name}`) ? t(`opt.${o.name}`) : o.name;
    parts.push(o.type === "bool" ? `${label}: ${v ? t("form.yes") : t("form.no")}` : `${label}: ${v}`);
  }
  return parts.length ? ` · ${parts.join(", ")}` : "";
}
