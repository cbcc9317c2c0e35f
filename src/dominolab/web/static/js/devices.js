// Your games on any device (docs/web.md, "Your games on any device"): on your own player
// page, a one-time code that links another device, a recovery code to write down, what
// happens if this browser forgets you, and your games going on (from /api/me: the same on
// every linked device); and /link, where another device types a code.

import { api, ApiError, claimCode, loadPlayer, loadSeat, makeCode, saveSeat, liveSeatToken } from "./api.js";
import { t, has, playerName } from "./i18n.js";
import { el } from "./ui.js";

/** The confirmation asked before this browser forgets the player: stronger when the key
 * is nowhere else (ME: /api/me's answer, or null when unknown). */
export function forgetText(me) {
  if (me && (me.recovery || me.linked > 0)) return t("lobby.forgetSafe");
  return t("lobby.forgetUnsafe");
}

function gameName(name) {
  return has(`game.${name}`) ? t(`game.${name}`) : name;
}

/** The player page's part for the player themself: codes, the warning and live games. */
export class DevicesPanel {
  constructor(navigate, onChange) {
    this.navigate = navigate;
    this.onChange = onChange;   // re-render the page around this panel
    this.me = null;             // /api/me's answer
    this.shown = null;          // the code just made: {code, kind}
    this.error = null;
  }

  async load() {
    const player = loadPlayer();
    if (!player) return;
    try {
      this.me = await api.me(player.key);
    } catch (err) {
      this.error = err instanceof ApiError ? err.describe() : String(err);
    }
    this.onChange();
  }

  async make(kind) {
    const player = loadPlayer();
    if (!player) return;
    this.error = null;
    try {
      this.shown = await makeCode(player.key, kind);
      if (kind === "recovery" && this.me) this.me = { ...this.me, recovery: true };
    } catch (err) {
      this.error = `${t("devices.failed")} ${err instanceof ApiError ? err.describe() : String(err)}`;
    }
    this.onChange();
  }

  async open(g) {
    const player = loadPlayer();
    const kept = loadSeat(g.id);
    if (!kept || !kept.token || kept.seat !== g.seat) {
      const token = await liveSeatToken(player.key, g);
      if (!token) {
        this.error = t(g.device_only ? "lobby.deviceOnly" : "lobby.noDerive");
        this.onChange();
        return;
      }
      saveSeat(g.id, { token, seat: g.seat, invite: null });
    }
    this.navigate(`/game/${encodeURIComponent(g.id)}`);
  }

  render() {
    const me = this.me;
    const safe = me && (me.recovery || me.linked > 0);
    const what = me ? [me.recovery ? t("devices.safeRecovery") : null,
      me.linked > 0 ? t("devices.safeLinked", { n: me.linked }) : null].filter(Boolean).join(", ") : "";
    const shown = this.shown;
    const url = `${location.origin}/link`;
    const devices = el("section", { class: "panel devices", "data-testid": "devices", "aria-labelledby": "devices-title" }, [
      el("h2", { id: "devices-title", class: "section-title", text: t("devices.title") }),
      el("p", { class: "muted", text: t("devices.lead") }),
      me ? el("p", {
        class: safe ? "muted" : "form-error", "data-testid": safe ? "devices-safe" : "devices-unsafe",
        text: safe ? t("devices.safe", { what }) : t("devices.unsafe"),
      }) : null,
      el("div", { class: "form-actions" }, [
        el("button", { type: "button", class: "button primary", "data-testid": "link-device", onclick: () => this.make("link") }, [t("devices.link")]),
        el("button", { type: "button", class: "button", "data-testid": "make-recovery", onclick: () => this.make("recovery") },
          [t(me && me.recovery ? "devices.recoveryNew" : "devices.recovery")]),
      ]),
      shown ? el("div", { class: "device-code", role: "status" }, [
        el("p", { text: shown.kind === "link" ? t("devices.linkShown", { url }) : t("devices.recoveryShown") }),
        el("p", {}, [el("strong", { class: "code-text", "data-testid": `${shown.kind}-code`, translate: "no", text: shown.code })]),
        shown.qr ? el("figure", { class: "device-qr" }, [
          el("img", { src: shown.qr, alt: t("devices.qrAlt", { code: shown.code }), width: "200", height: "200", "data-testid": "link-qr" }),
          el("figcaption", { class: "muted", text: t("devices.qr") }),
        ]) : null,
      ]) : null,
      this.error ? el("p", { class: "form-error", role: "alert", "data-testid": "devices-error", text: this.error }) : null,
    ]);
    const games = (me && me.live) || [];
    const live = el("section", { class: "panel", "aria-labelledby": "live-title" }, [
      el("h2", { id: "live-title", class: "section-title", text: t("devices.live") }),
      games.length ? el("ul", { class: "live-list" }, games.map((g) => el("li", { "data-testid": "my-live-game", "data-game-id": g.id }, [
        t("devices.vs", {
          game: gameName(g.game),
          who: g.opponent ? playerName(g.opponent.name)
            : g.computer ? t("board.computer", { level: has(`levelShort.${g.computer}`) ? t(`levelShort.${g.computer}`) : g.computer })
              : t("who.friend"),
        }), " ",
        el("button", { type: "button", class: "button small", "data-testid": "open-live-game", onclick: () => this.open(g) }, [t("devices.open")]),
      ]))) : el("p", { class: "muted", "data-testid": "no-live-games", text: me ? t("devices.noLive") : t("player.loading") }),
    ]);
    return [devices, live];
  }
}

/** /link (or /link#c=CODE): type a code from another device, and play as that player. */
export class LinkView {
  constructor(navigate) {
    this.navigate = navigate;
    this.error = null;
    this.done = null;
    this.busy = false;
  }

  mount(root) {
    this.root = root;
    document.title = `${t("link.title")} · dominolab`;
    const m = /(?:^#|&)c=([^&]+)/.exec(location.hash);
    this.prefill = m ? decodeURIComponent(m[1]) : "";
    this.render();
  }

  unmount() {}

  async submit(form) {
    if (this.busy) return;
    this.busy = true;
    this.error = null;
    try {
      this.done = await claimCode(form.elements.code.value);
    } catch (err) {
      this.error = err instanceof ApiError && err.status && err.status < 500 && err.message
        ? err.message : (err instanceof ApiError ? err.describe() : String(err));
    } finally {
      this.busy = false;
    }
    this.render();
  }

  render() {
    if (this.done) {
      const p = this.done;
      this.root.replaceChildren(el("section", { class: "panel", role: "status", "data-testid": "link-done" }, [
        el("h1", { class: "game-title", text: t("link.title") }),
        el("p", { text: t("link.done", { name: playerName(p.name) }) }),
        el("p", {}, [el("a", { href: `/player/${encodeURIComponent(p.id)}`, "data-link": "", class: "button primary", "data-testid": "link-my-page", text: t("link.page") })]),
      ]));
      return;
    }
    const form = el("form", {
      class: "panel", "data-testid": "link-form", onsubmit: (ev) => { ev.preventDefault(); this.submit(form); },
    }, [
      el("h1", { class: "game-title", text: t("link.title") }),
      el("p", { text: t("link.lead") }),
      el("div", { class: "field" }, [
        el("label", { for: "f-code", text: t("link.label") }),
        el("input", { id: "f-code", name: "code", type: "text", required: true, autocomplete: "one-time-code", autocapitalize: "characters", spellcheck: "false", maxlength: "40", value: this.prefill, "data-testid": "link-code-input" }),
      ]),
      this.error ? el("p", { class: "form-error", role: "alert", "data-testid": "link-error", text: this.error }) : null,
      el("div", { class: "form-actions" }, [el("button", { type: "submit", class: "button primary", "data-testid": "link-submit", text: t("link.submit") })]),
    ]);
    this.root.replaceChildren(form);
  }
}
