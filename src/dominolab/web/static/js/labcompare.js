// Studies side by side (/lab/compare/A,B: docs/web.md, GET /api/studies/compare): one report
// over every study's variants, the first variant of the first study the reference, each
// difference said to be paired by deal (the same seed: the same hands) or not. And the ids
// of the studies this browser ran, kept in localStorage to pick one to compare with.

import { request } from "./api.js";
import { t, onLangChange } from "./i18n.js";
import { el } from "./ui.js";
import { readReport } from "./labwords.js";
import { LabReport } from "./labreport.js";

const KEY = "dominolab/lab/studies";
//: the most studies remembered, the newest first
const KEPT = 20;

/** The ids of the studies this browser ran or opened, the newest first. */
export function keptStudies() {
  try {
    const xs = JSON.parse(localStorage.getItem(KEY) || "[]");
    return Array.isArray(xs) ? xs.filter((x) => typeof x === "string") : [];
  } catch (_) {
    return [];
  }
}

/** Remember study ID (first in the list). */
export function keepStudy(id) {
  try {
    localStorage.setItem(KEY, JSON.stringify([id, ...keptStudies().filter((x) => x !== id)].slice(0, KEPT)));
  } catch (_) { /* private mode: nothing kept */ }
}

/** A study's id from what a reader pasted: its link (…/lab/ID) or the id itself; null if neither. */
export function studyIdOf(text) {
  const m = /(?:\/lab\/)?([0-9a-f]{6,64})\/?\s*$/i.exec(String(text).trim());
  return m ? m[1].toLowerCase() : null;
}

/** The panel of a finished study ID: compare it with a kept study, or a pasted link. */
export function comparePanel(id, navigate) {
  const others = keptStudies().filter((x) => x !== id);
  const error = el("p", { class: "form-error", role: "alert", "data-testid": "compare-error", hidden: true });
  const input = el("input", { type: "text", id: "lab-compare-with", "data-testid": "compare-with", autocomplete: "off", spellcheck: "false" });
  const go = (other) => navigate(`/lab/compare/${id},${other}`);
  const form = el("form", { class: "field", onsubmit: (e) => {
    e.preventDefault();
    const other = studyIdOf(input.value);
    if (!other || other === id) {
      error.textContent = t("compare.badLink", { v: input.value.trim() });
      error.hidden = false;
      return;
    }
    go(other);
  } }, [el("label", { for: "lab-compare-with", text: t("compare.paste") }), input, error,
    el("div", { class: "form-actions" }, [el("button", { type: "submit", class: "button", "data-testid": "compare-go" }, [t("compare.go")])])]);
  return el("section", { class: "panel lab-compare lab-status", "data-testid": "compare-panel" }, [
    el("h2", { class: "section-title", text: t("compare.title") }),
    others.length ? el("ul", {}, others.map((o) => el("li", {}, [el("a", { class: "button", href: `/lab/compare/${id},${o}`, "data-link": true, "data-testid": "compare-kept", "data-study": o }, [t("compare.with", { id: o })])]))) : el("p", { class: "muted", text: t("compare.none") }),
    form,
  ]);
}

export class CompareView {
  /** IDS: "A,B" as the address has it. */
  constructor(ids, navigate) {
    this.ids = String(ids).split(",").map((x) => x.trim()).filter(Boolean);
    this.navigate = navigate;
    this.report = null;
    this.error = null;
    this.disposers = [];
  }

  mount(root) {
    this.mounted = true;
    this.element = el("div", { class: "lab", "data-testid": "compare" });
    root.append(this.element);
    this.disposers.push(onLangChange(() => this.render()));
    this.render();
    this.load();
  }

  unmount() {
    this.mounted = false;
    for (const d of this.disposers) d();
  }

  async load() {
    try {
      const raw = await request("GET", `/api/studies/compare?ids=${this.ids.map(encodeURIComponent).join(",")}`);
      const report = readReport(raw, null);
      // each column named by its study and variant ("A as set"), as the API names them
      report.variants.forEach((v, i) => { if (raw.variants?.[i]) v.label = raw.variants[i]; });
      report.columns = raw.columns || [];
      this.report = new LabReport(report, () => this.render());
    } catch (err) {
      this.error = err.describe ? err.describe() : String(err);
    }
    if (this.mounted) this.render();
  }

  render() {
    if (!this.mounted) return;
    document.title = `${t("compare.pageTitle")} — dominolab`;
    const head = el("header", { class: "lab-head" }, [
      el("h1", { text: t("compare.pageTitle") }),
      el("p", { class: "lead" }, this.ids.flatMap((id, i) => [i ? " · " : "", el("a", { href: `/lab/${id}`, "data-link": true }, [t("study.title", { id })])])),
    ]);
    const parts = [head];
    if (this.error) parts.push(el("section", { class: "panel", role: "alert", "data-testid": "compare-failed" }, [el("p", { text: t("compare.failed", { e: this.error }) })]));
    else if (!this.report) parts.push(el("p", { class: "muted", text: t("study.reportLoading") }));
    else parts.push(this.report.element());
    this.element.replaceChildren(...parts);
  }
}
