// The WebSocket of one game (/ws/games/ID): hello with the token (or a spectator's hello),
// every `state` message to the page, reconnection with backoff after a drop. A bad hello
// (4401, 4404) is final, and so is a spectator refused by a limit (4409, 4429).

const FATAL = new Set([4401, 4403, 4404, 4409, 4429]);

export class GameSocket {
  /**
   * @param {object} o id, token (or watch: true, a spectator's socket), layout,
   *                   onState(state), onError({status, error}),
   *                   onStatus("open"|"connecting"|"closed"), onFatal(code),
 *                   onChat({seat, phrase})
   */
  constructor(o) {
    Object.assign(this, o);
    this.ws = null;
    this.attempt = 0;
    this.timer = null;
    this.stopped = false;
    this.status = "closed";
    this._online = () => this.kick();
    this._visible = () => { if (document.visibilityState === "visible") this.kick(); };
    window.addEventListener("online", this._online);
    document.addEventListener("visibilitychange", this._visible);
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}/ws/games/${encodeURIComponent(this.id)}`;
  }

  setStatus(st) {
    if (st === this.status) return;
    this.status = st;
    if (this.onStatus) this.onStatus(st);
  }

  connect() {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.setStatus("connecting");
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch (_) {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (ws !== this.ws) return;
      ws.send(JSON.stringify(this.watch ? { type: "hello", watch: true, layout: this.layout }
        : { type: "hello", token: this.token, layout: this.layout }));
    });
    ws.addEventListener("message", (ev) => {
      if (ws !== this.ws) return;
      let msg;
      try { msg = JSON.parse(ev.data); } catch (_) { return; }
      if (msg.type === "state" && msg.state) {
        this.attempt = 0;
        this.setStatus("open");
        if (this.onState) this.onState(msg.state, msg.now);   // now: the server's clock
      } else if (msg.type === "chat") {
        if (this.onChat) this.onChat(msg);              // a canned message (chat.js)
      } else if (msg.type === "error") {
        if (this.onError) this.onError(msg);
      }
    });
    ws.addEventListener("close", (ev) => {
      if (ws !== this.ws) return;
      this.ws = null;
      if (FATAL.has(ev.code)) {
        this.stopped = true;
        this.setStatus("closed");
        if (this.onFatal) this.onFatal(ev.code);
        return;
      }
      this.scheduleRetry();
    });
    // errors are followed by close; nothing else to do
    ws.addEventListener("error", () => {});
  }

  scheduleRetry() {
    if (this.stopped) return;
    this.setStatus("closed");
    const delay = Math.min(10000, 500 * 2 ** this.attempt) * (0.8 + Math.random() * 0.4);
    this.attempt += 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** Try again now (the network came back, the tab became visible). */
  kick() {
    if (this.stopped || this.ws) return;
    this.attempt = 0;
    this.connect();
  }

  /** Change the layout the server draws for: reconnect with a new hello. */
  setLayout(layout) {
    if (layout === this.layout) return;
    this.layout = layout;
    if (this.ws) {
      const old = this.ws;
      this.ws = null;
      try { old.close(1000); } catch (_) { /* ignore */ }
    }
    this.attempt = 0;
    this.connect();
  }

  send(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(obj));
      return true;
    }
    return false;
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    window.removeEventListener("online", this._online);
    document.removeEventListener("visibilitychange", this._visible);
    if (this.ws) {
      const old = this.ws;
      this.ws = null;
      try { old.close(1000); } catch (_) { /* ignore */ }
    }
    this.setStatus("closed");
  }
}
