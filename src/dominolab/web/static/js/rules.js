// The rules page (/rules): GET /api/rules/{lang}, the server-rendered (trusted) HTML in a
// readable article; it follows the language switch.

import { api } from "./api.js";
import { t, getLang, onLangChange } from "./i18n.js";
import { el } from "./ui.js";

const cache = new Map();

export class RulesView {
  constructor() {
    this.disposers = [];
    this.token = 0;
  }

  mount(root) {
    this.root = root;
    this.article = el("article", { class: "rules panel", "data-testid": "rules", lang: getLang() });
    this.root.replaceChildren(this.article);
    this.disposers.push(onLangChange(() => this.load()));
    this.load();
  }

  unmount() {
    for (const d of this.disposers) d();
  }

  async load() {
    const lang = getLang();
    const mine = ++this.token;
    this.article.setAttribute("lang", lang);
    if (!cache.has(lang)) {
      this.article.replaceChildren(el("p", { class: "muted", text: t("rules.loading") }));
    }
    try {
      const data = cache.get(lang) || await api.rules(lang);
      cache.set(lang, data);
      if (mine !== this.token) return;
      document.title = `${data.title || t("nav.rules")} · dominolab`;
      this.article.innerHTML = data.html;
      // a heading for the page if the html brings none
      if (!this.article.querySelector("h1")) {
        this.article.prepend(el("h1", { text: data.title || t("nav.rules") }));
      }
      // in-page links keep working; outside links open in a new tab
      for (const a of this.article.querySelectorAll("a[href^='http']")) {
        a.target = "_blank";
        a.rel = "noopener";
      }
    } catch (err) {
      if (mine !== this.token) return;
      this.article.replaceChildren(el("p", { role: "alert", text: `${t("rules.failed")} ${err.describe ? err.describe() : ""}` }));
    }
  }
}
