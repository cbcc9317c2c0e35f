// The rules pages (docs/learn.md, "The player's guide"): /rules, the guide's index (one card
// per game, GET /api/guide/LANG); /rules/GAME, a game's page for players (GET
// /api/guide/GAME/LANG: trusted HTML from the server and diagrams drawn by diagram.js);
// /rules/exact, the exact reading (GET /api/rules/LANG). Each follows the language switch.

import { api } from "./api.js";
import { t, getLang, onLangChange } from "./i18n.js";
import { el } from "./ui.js";
import { drawDiagram } from "./diagram.js";

// answers by address: they never change while the page lives
const cache = new Map();

function fetchOnce(key, get) {
  if (!cache.has(key)) {
    const promise = get();
    cache.set(key, promise);
    promise.catch(() => cache.delete(key));
  }
  return cache.get(key);
}

/** What PATH shows: {kind: "index"} / {kind: "exact"} / {kind: "guide", game}. */
function parse(path) {
  const m = /^\/rules(?:\/([^/]*))?\/?$/.exec(path || "");
  const part = m && m[1] ? decodeURIComponent(m[1]) : "";
  if (!part) return { kind: "index" };
  if (part === "exact") return { kind: "exact" };
  return { kind: "guide", game: part };
}

function link(href, text, attrs = {}) {
  return el("a", { href, "data-link": true, ...attrs }, [text]);
}

/** Links inside server HTML: ours move within the page, others open a new tab. */
function fixLinks(root) {
  for (const a of root.querySelectorAll("a[href]")) {
    const href = a.getAttribute("href");
    if (href.startsWith("/")) a.setAttribute("data-link", "");
    else if (/^https?:/.test(href)) { a.target = "_blank"; a.rel = "noopener"; }
  }
}

function html(tag, cls, markup) {
  const node = el(tag, { class: cls });
  node.innerHTML = markup; // trusted: rendered by our server from our own texts
  fixLinks(node);
  return node;
}

export class RulesView {
  constructor(path = "/rules", navigate = null) {
    this.where = parse(path);
    this.navigate = navigate;
    this.disposers = [];
    this.token = 0;
  }

  mount(root) {
    this.root = root;
    const testid = { index: "guide-index", guide: "guide", exact: "rules" }[this.where.kind];
    this.article = el("article", {
      class: `rules panel guide-page guide-page--${this.where.kind}`,
      "data-testid": testid,
      "data-game": this.where.game || null,
      lang: getLang(),
    });
    this.root.replaceChildren(this.article);
    this.disposers.push(onLangChange(() => this.load()));
    this.load();
  }

  unmount() {
    for (const d of this.disposers) d();
    this.token++;
  }

  async load() {
    const lang = getLang();
    const mine = ++this.token;
    const { kind, game } = this.where;
    this.article.setAttribute("lang", lang);
    this.article.removeAttribute("data-ready");
    const key = `${kind}/${game || ""}/${lang}`;
    if (!cache.has(key)) {
      this.article.replaceChildren(el("p", { class: "muted", role: "status", text: t(kind === "exact" ? "rules.loading" : "guide.loading") }));
    }
    try {
      const data = await fetchOnce(key, () => (kind === "index" ? api.guide(lang)
        : kind === "exact" ? api.rules(lang) : api.guidePage(game, lang)));
      if (mine !== this.token) return;
      if (kind === "index") this.showIndex(data);
      else if (kind === "exact") this.showExact(data);
      else this.showGuide(data);
      this.article.setAttribute("data-ready", "true");
    } catch (err) {
      if (mine !== this.token) return;
      await this.showError(err, lang, mine);
    }
  }

  showIndex(data) {
    document.title = `${t("guide.title")} · dominolab`;
    const cards = data.games.map((g) => el("li", { class: "guide-card", "data-testid": "guide-card", "data-game": g.game }, [
      el("h2", { text: g.title }),
      g.preview ? drawDiagram(g.preview, { preview: true }) : null,
      el("p", { text: g.summary }),
      el("p", { class: "guide-card-links" }, [
        link(g.guide, t("guide.read"), { class: "button primary", "data-testid": "guide-open", "data-game": g.game }),
        link(g.learn, t("guide.learn"), { class: "button", "data-testid": "guide-learn", "data-game": g.game }),
      ]),
    ]));
    this.article.replaceChildren(
      el("h1", { text: t("guide.title") }),
      el("p", { class: "guide-lead", text: t("guide.lead") }),
      el("ul", { class: "guide-cards" }, cards),
      el("p", { class: "guide-exact-note" }, [
        `${t("guide.exactIndex")} `,
        link(data.exact, t("guide.exact"), { "data-testid": "guide-exact-link" }),
      ]),
    );
  }

  showGuide(data) {
    document.title = `${t("guide.pageTitle", { title: data.title })} · dominolab`;
    const diagrams = new Map(data.diagrams.map((d) => [d.id, d]));
    const sections = data.sections.map((sec) => {
      const id = `guide-${sec.id}`;
      const node = el("section", { class: "guide-section", "data-testid": "guide-section", "data-section": sec.id, "aria-labelledby": id }, [
        el("h2", { id, text: sec.title }),
      ]);
      for (const block of sec.blocks) {
        if (block.diagram) node.append(drawDiagram(diagrams.get(block.diagram)));
        else node.append(html("div", "guide-text", block.html));
      }
      return node;
    });
    const contents = el("nav", { class: "guide-contents", "aria-label": t("guide.contents") }, [
      el("ul", {}, data.sections.map((sec) => el("li", {}, [
        el("a", { href: `#guide-${sec.id}`, onclick: (ev) => this.jump(ev, sec.id) }, [sec.title]),
      ]))),
    ]);
    this.article.replaceChildren(
      el("p", { class: "guide-crumbs" }, [link(data.links.index, t("guide.all"), { "data-testid": "guide-back" })]),
      el("h1", { text: data.title }),
      el("p", { class: "guide-summary", text: data.summary }),
      el("p", { class: "guide-exact-note" }, [
        `${t("guide.exactNote")} `,
        link(data.links.exact, t("guide.exact"), { "data-testid": "guide-exact-link" }),
      ]),
      contents,
      data.intro ? html("div", "guide-text guide-intro", data.intro) : null,
      ...sections,
      el("footer", { class: "guide-foot" }, [
        link(data.links.learn, t("guide.learnMore"), { class: "button primary", "data-testid": "guide-learn" }),
        link(data.links.exact, t("guide.exact"), { class: "button" }),
        link(data.links.index, t("guide.all"), { class: "button subtle" }),
      ].filter(Boolean)),
    );
  }

  /** Scroll to a section without changing the address (the router owns it). */
  jump(ev, id) {
    const target = this.article.querySelector(`#guide-${id}`);
    if (!target) return;
    ev.preventDefault();
    target.scrollIntoView({ block: "start" });
    target.setAttribute("tabindex", "-1");
    target.focus({ preventScroll: true });
  }

  showExact(data) {
    document.title = `${data.title || t("nav.rules")} · dominolab`;
    const body = html("div", "guide-exact", data.html);
    const nodes = [el("p", { class: "guide-crumbs" }, [link("/rules", t("guide.back"), { "data-testid": "guide-back" })])];
    // a heading for the page if the html brings none
    if (!body.querySelector("h1")) nodes.push(el("h1", { text: data.title || t("nav.rules") }));
    this.article.replaceChildren(...nodes, ...body.childNodes);
  }

  async showError(err, lang, mine) {
    const nodes = [el("p", { role: "alert", "data-testid": "guide-error" }, [
      err.status === 404 && this.where.kind === "guide" ? t("guide.noGame")
        : `${t(this.where.kind === "exact" ? "rules.failed" : "guide.failed")} ${err.describe ? err.describe() : ""}`,
    ])];
    document.title = `${t("guide.title")} · dominolab`;
    this.article.replaceChildren(...nodes);
    if (this.where.kind !== "guide") return;
    // an unknown game: offer the games there are
    try {
      const index = await fetchOnce(`index//${lang}`, () => api.guide(lang));
      if (mine !== this.token) return;
      this.article.append(el("ul", {}, index.games.map((g) => el("li", {}, [link(g.guide, g.title)]))));
    } catch (_) { /* the message above is enough */ }
  }
}
