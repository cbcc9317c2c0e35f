// The lab in the browser (docs/web.md, "The lab"): /lab is the form of a study (a game, its
// rule options from GET /api/lab, a sweep of one option, the two players, the matches and
// the seed); /lab/ID is a study's own page: its progress over the WebSocket
// (/ws/studies/ID), a Cancel button, then the report drawn here: a table of every figure
// with its 95% interval and a sentence saying what it means for a player, the differences
// from the first variant, and charts in inline SVG of our own. Read when first shown (a
// dynamic import): the game page's first visit does not carry it.

import { request } from "./api.js";
import { t, onLangChange, formatNumber, has } from "./i18n.js";
import { el, toast } from "./ui.js";
import { readReport } from "./labwords.js";
import { LabReport } from "./labreport.js";
import { comparePanel, keepStudy } from "./labcompare.js";
import { LabForm, paramsQuery, playerLabel, rememberParams } from "./labform.js";

const enc = encodeURIComponent;
const labApi = {
  study: (id) => request("GET", `/api/studies/${enc(id)}`),
  cancel: (id) => request("POST", `/api/studies/${enc(id)}/cancel`, { body: {} }),
  report: (id) => request("GET", `/api/studies/${enc(id)}/report`),
};

// -- the view -------------------------------------------------------------------------------

export class LabView {
  /** ID: a study's id (/lab/ID), or null for the form (/lab). */
  constructor(id, navigate) {
    this.id = id;
    this.navigate = navigate;
    this.disposers = [];
    this.study = null;
    this.report = null;
    this.error = null;
    //: the form (/lab), or null on a study's page
    this.form = id ? null : new LabForm(this);
  }

  mount(root) {
    this.root = root;
    this.mounted = true;
    this.element = el("div", { class: "lab", "data-testid": this.id ? "study" : "lab" });
    root.append(this.element);
    this.disposers.push(onLangChange(() => this.render()));
    document.title = `${t("lab.title")} — dominolab`;
    this.render();
    if (this.id) this.loadStudy();
    else this.form.load();
  }

  unmount() {
    this.mounted = false;
    this.stopWatching();
    for (const d of this.disposers) d();
  }

  render() {
    if (!this.mounted) return;
    document.title = `${t("lab.title")} — dominolab`;
    this.element.replaceChildren(...(this.id ? this.studyParts() : this.form.parts()));
  }

  // ---- a study ----

  async loadStudy() {
    try {
      this.study = await labApi.study(this.id);
      this.error = null;
    } catch (err) {
      this.error = err;
    }
    if (!this.mounted) return;
    if (this.study) keepStudy(this.id);
    this.render();
    if (this.study) this.follow();
  }

  /** Follow the study until it ends: the socket's progress, or a GET a second when the
   * socket cannot be had; then the report. */
  follow() {
    if (this.finished()) {
      this.loadReport();
      return;
    }
    this.watch();
  }

  finished() {
    return this.study && ["done", "cancelled", "failed"].includes(this.study.state);
  }

  watch() {
    this.stopWatching();
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    let ws;
    try {
      ws = new WebSocket(`${proto}//${location.host}/ws/studies/${enc(this.id)}`);
    } catch (_) {
      this.poll();
      return;
    }
    this.ws = ws;
    ws.addEventListener("message", (ev) => {
      if (ws !== this.ws) return;
      let msg;
      try { msg = JSON.parse(ev.data); } catch (_) { return; }
      if (msg.type !== "progress") return;
      this.progress(msg);
    });
    ws.addEventListener("close", () => {
      if (ws !== this.ws) return;
      this.ws = null;
      // closed before the end (a restart, the network): ask by GET until it ends
      if (this.mounted && !this.finished()) this.poll();
    });
    ws.addEventListener("error", () => {});
  }

  poll() {
    clearTimeout(this.timer);
    this.timer = setTimeout(async () => {
      if (!this.mounted) return;
      try {
        const st = await labApi.study(this.id);
        this.study = st;
        this.progress(st);
      } catch (_) { /* the next try */ }
      if (this.mounted && !this.finished()) this.poll();
    }, 1000);
  }

  stopWatching() {
    clearTimeout(this.timer);
    if (this.ws) {
      const old = this.ws;
      this.ws = null;
      try { old.close(1000); } catch (_) { /* ignore */ }
    }
  }

  /** A progress message {done, total, state}: the bar moves; at the end, the study again
   * (its variants' counts) and the report. */
  async progress(msg) {
    const was = this.study.state;
    Object.assign(this.study, { done: msg.done, total: msg.total, state: msg.state });
    this.drawProgress();
    if (this.finished() && !["done", "cancelled", "failed"].includes(was)) {
      this.stopWatching();
      try { this.study = await labApi.study(this.id); } catch (_) { /* keep what we have */ }
      if (!this.mounted) return;
      this.render();
      this.loadReport();
    }
  }

  drawProgress() {
    const box = this.element.querySelector("[data-testid=study-progress]");
    if (!box) { this.render(); return; }
    const st = this.study;
    box.replaceWith(this.progressBox());
    this.element.dataset.state = st.state;
    const cancel = this.element.querySelector("[data-testid=study-cancel]");
    if (cancel && this.finished()) cancel.remove();
  }

  progressBox() {
    const st = this.study;
    const total = Math.max(1, st.total || 0);
    return el("div", { class: "lab-progress", "data-testid": "study-progress", "data-done": String(st.done), "data-total": String(st.total), "data-state": st.state }, [
      el("p", { class: "lab-state", "data-testid": "study-state" }, [el("strong", { text: t(`study.state.${st.state}`) }), " — ",
        t("study.progressText", { done: formatNumber(st.done), total: formatNumber(st.total), count: st.total })]),
      el("progress", { max: String(total), value: String(Math.min(st.done, total)), "aria-label": t("study.progress") }),
    ]);
  }

  async cancel(button) {
    button.disabled = true;
    button.textContent = t("study.cancelling");
    try {
      const st = await labApi.cancel(this.id);
      if (st && st.state) this.progress(st);
    } catch (err) {
      toast(t("study.cancelFailed", { e: err.describe ? err.describe() : String(err) }), "error");
      button.disabled = false;
      button.textContent = t("study.cancel");
    }
  }

  async loadReport() {
    // a cancelled study has a report once every variant has a match (docs/web.md)
    const st = this.study;
    if (!st || st.state === "failed" || !st.done || (st.variants || []).some((v) => !v.done)) return;
    this.reportError = null;
    try {
      this.report = new LabReport(readReport(await labApi.report(this.id), this.study), () => this.render());
    } catch (err) {
      this.reportError = err.describe ? err.describe() : String(err);
    }
    if (this.mounted) this.render();
  }

  studyParts() {
    const head = el("header", { class: "lab-head" }, [el("h1", { text: t("study.title", { id: this.id }) })]);
    if (this.error) {
      const text = this.error.status === 404 ? t("study.notFound", { id: this.id })
        : t("study.failedLoad", { e: this.error.describe ? this.error.describe() : String(this.error) });
      return [head, el("section", { class: "panel", role: "alert", "data-testid": "study-error" }, [
        el("p", { text }), el("p", {}, [el("a", { href: "/lab", "data-link": true, class: "button" }, [t("lab.title")])]),
      ])];
    }
    const st = this.study;
    if (!st) return [head, el("p", { class: "muted", text: t("study.loading") })];
    this.element.dataset.state = st.state;
    const parts = [head];
    const status = el("section", { class: "panel lab-status", "aria-live": "polite" }, [this.progressBox()]);
    if (!this.finished()) {
      status.append(el("button", { type: "button", class: "button", "data-testid": "study-cancel", onclick: (e) => this.cancel(e.currentTarget) }, [t("study.cancel")]));
    }
    if (st.state === "failed") status.append(el("p", { class: "form-error", role: "alert", text: t("study.error", { e: st.error || "" }) }));
    if (st.state === "cancelled") status.append(el("p", { class: "muted", text: t("study.cancelledNote") }));
    parts.push(status);
    // a finished study's report first (its key figures, then its charts), then what was
    // run and the downloads; a running study's parameters under its progress
    if (!this.finished()) parts.push(this.paramsPanel());
    if (this.finished()) {
      if (this.report) parts.push(this.report.element());
      else if (this.reportError) parts.push(el("p", { class: "form-error", role: "alert", "data-testid": "report-error", text: t("study.reportFailed", { e: this.reportError }) }));
      else if (st.done && !(st.variants || []).some((v) => !v.done)) parts.push(el("p", { class: "muted", text: t("study.reportLoading") }));
      if (this.report) parts.push(comparePanel(this.id, this.navigate));
      parts.push(this.paramsPanel(), this.downloads());
    }
    return parts;
  }

  paramsPanel() {
    const p = this.study.params || {};
    const game = p.game ? (has(`game.${p.game}`) ? t(`game.${p.game}`) : p.game) : "";
    const yes = (x) => (typeof x === "boolean" ? t(x ? "lab.yes" : "lab.no") : String(x));
    const rows = [[t("lab.game"), game]];
    for (const [k, x] of Object.entries(p.options || {})) if (!p.sweep || k !== p.sweep.option) rows.push([has(`opt.${k}`) ? t(`opt.${k}`) : k, yes(x)]);
    if (p.sweep) rows.push([has(`opt.${p.sweep.option}`) ? t(`opt.${p.sweep.option}`) : p.sweep.option, p.sweep.values.map(yes).join(", ")]);
    if (p.players) rows.push([t("lab.players"), p.players.map((spec) => playerLabel({ spec, label: spec })).join(" — ")]);
    if (p.matches !== undefined) rows.push([t("lab.matches"), formatNumber(p.matches)]);
    if (p.seed !== undefined) rows.push([t("lab.seed"), String(p.seed)]);
    const again = el("button", { type: "button", class: "button", "data-testid": "study-again", onclick: () => {
      rememberParams({ game: p.game, options: p.options || {}, sweep: p.sweep || null, players: p.players, matches: p.matches, seed: p.seed });
      this.navigate("/lab");
    } }, [t("study.again")]);
    // the parameters as a link: anyone, on any server, gets the same form (and, run with
    // the same seed, the same figures)
    const link = p.game ? el("p", {}, [el("a", { href: `/lab${paramsQuery(p)}`, "data-link": true, "data-testid": "study-params-link" }, [t("study.paramsLink")])]) : null;
    return el("section", { class: "panel lab-params", "data-testid": "study-params" }, [
      el("h2", { class: "section-title", text: t("study.params") }),
      el("dl", { class: "lab-facts" }, rows.flatMap(([k, x]) => [el("dt", { text: k }), el("dd", { text: x })])),
      link,
      p.game ? again : null,
    ]);
  }

  downloads() {
    const st = this.study;
    const commands = Array.isArray(st.command) ? st.command.join("\n") : (st.command || "");
    const copy = el("button", { type: "button", class: "button", "data-testid": "copy-command", onclick: async () => {
      try {
        await navigator.clipboard.writeText(commands);
        toast(t("study.copied"));
      } catch (_) {
        toast(t("study.copyFailed"), "error");
      }
    } }, [t("study.copy")]);
    return el("section", { class: "panel lab-downloads", "data-testid": "study-downloads" }, [
      el("h2", { class: "section-title", text: t("study.downloads") }),
      el("ul", { class: "lab-files" }, (st.variants || []).map((v) => el("li", {}, [
        el("a", { href: v.file, download: v.file_name || "", "data-testid": "variant-file", class: "button" }, [
          t("study.file", { label: v.label, n: formatNumber(v.done ?? v.matches ?? 0), count: v.done ?? v.matches ?? 0 })]),
      ]))),
      el("label", { for: "lab-command", class: "lab-command-label", text: t("study.command") }),
      el("textarea", { id: "lab-command", class: "lab-command", "data-testid": "study-command", readonly: true, rows: String(Math.min(8, commands.split("\n").length + 1)), spellcheck: "false" }, [commands]),
      el("p", {}, [copy]),
    ]);
  }

}
