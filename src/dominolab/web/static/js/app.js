// The page's entry point: the header (rules link, language buttons), a small router for
// /, /game/ID, /watch/ID, /rules, /replay/ID and /puzzles (history.pushState), and the
// toasts' host.

import { t, getLang, setLang, onLangChange } from "./i18n.js";
import { HomeView } from "./home.js";
import { GameView } from "./game.js";
import { WatchView } from "./watch.js";
import { ReplayView } from "./replay.js";
import { RulesView } from "./rules.js";
import { LearnView } from "./learn.js";
import { PlayerView } from "./player.js";
import { LeaderboardView } from "./leaderboard.js";
import { LobbyView } from "./lobby.js";
import { LinkView } from "./devices.js";

const main = document.getElementById("main");
let view = null;

function route(path) {
  let m;
  if ((m = /^\/game\/([^/]+)\/?$/.exec(path))) return new GameView(decodeURIComponent(m[1]), navigate);
  if ((m = /^\/replay\/([^/]+)\/?$/.exec(path))) return new ReplayView(decodeURIComponent(m[1]), navigate);
  if ((m = /^\/watch\/([^/]+)\/?$/.exec(path))) return new WatchView(decodeURIComponent(m[1]), navigate);
  // /rules, /rules/GAME, /rules/exact: the player's guide (rules.js) decides
  if (/^\/rules(\/[^/]*)?\/?$/.test(path)) return new RulesView(path, navigate);
  // /learn, /learn/GAME: the tutorial (learn.js)
  if (/^\/learn(\/[^/]*)?\/?$/.test(path)) return new LearnView(path, navigate);
  // a player's page and the leaderboard (player.js, leaderboard.js)
  if ((m = /^\/player\/([^/]+)\/?$/.exec(path))) return new PlayerView(decodeURIComponent(m[1]), navigate);
  if ((m = /^\/leaderboard(?:\/([^/]+))?\/?$/.exec(path))) return new LeaderboardView(m[1] ? decodeURIComponent(m[1]) : null, navigate);
  if (/^\/lobby\/?$/.test(path)) return new LobbyView(navigate);
  // the puzzles, read when first shown (puzzles.js)
  if (/^\/puzzles(\/[^/]+){0,2}\/?$/.test(path)) return lazyView(() => import("./puzzles.js").then((m) => new m.PuzzlesView(path, navigate)));
  // another device's code (devices.js)
  if (/^\/link\/?$/.test(path)) return new LinkView(navigate);
  return new HomeView(navigate);
}

/** A view whose code is read when first shown: MAKE() resolves to the view, mounted into
 * the page if it is still the page's by then. */
function lazyView(make) {
  let real = null, root = null, gone = false;
  const made = make();
  made.then((v) => {
    real = v;
    if (!gone && root) real.mount(root);
  }).catch(() => {
    if (!gone && root) root.replaceChildren(Object.assign(document.createElement("p"), { className: "panel notice", textContent: t("err.network") }));
  });
  return {
    mount(r) { root = r; },
    unmount() { gone = true; if (real && real.unmount) real.unmount(); },
  };
}

function show() {
  if (view && view.unmount) view.unmount();
  main.replaceChildren();
  view = route(location.pathname);
  view.mount(main);
  markNav();
}

/** Go to PATH inside the page (no reload). */
export function navigate(path) {
  if (path !== location.pathname + location.hash) history.pushState({}, "", path);
  show();
  window.scrollTo(0, 0);
  main.focus({ preventScroll: true });
}

function markNav() {
  for (const a of document.querySelectorAll("header a[data-link]")) {
    const href = a.getAttribute("href");
    const here = href === location.pathname || (href !== "/" && location.pathname.startsWith(`${href}/`));
    if (here) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}

function renderHeader() {
  document.querySelector("[data-i18n=brand-tagline]").textContent = t("app.tagline");
  // the name holds the text shown (the tagline too), and names the link when a phone
  // shows only the mark
  document.querySelector(".brand").setAttribute("aria-label", `dominolab: ${t("app.tagline")}`);
  document.querySelector("[data-testid=rules-link]").textContent = t("nav.rules");
  document.querySelector("[data-testid=learn-link]").textContent = t("nav.learn");
  document.querySelector("[data-testid=puzzles-link]").textContent = t("nav.puzzles");
  document.querySelector("[data-testid=leaderboard-link] .nav-label").textContent = t("nav.leaderboard");
  document.querySelector("[data-testid=lobby-link]").textContent = t("nav.lobby");
  document.querySelector("[data-i18n=home-link]").textContent = t("nav.home");
  document.querySelector(".lang-switch").setAttribute("aria-label", t("nav.language"));
  for (const lang of ["en", "pl"]) {
    const b = document.querySelector(`[data-testid=lang-${lang}]`);
    b.setAttribute("aria-pressed", String(getLang() === lang));
    b.setAttribute("title", t(`lang.${lang}`));
  }
  document.querySelector(".skip-link").textContent = getLang() === "pl" ? "Przejdź do treści" : "Skip to the content";
}

// internal links: <a data-link href="/...">
document.addEventListener("click", (ev) => {
  const a = ev.target.closest && ev.target.closest("a[data-link]");
  if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin) return;
  ev.preventDefault();
  navigate(url.pathname + url.hash);
});

window.addEventListener("popstate", show);

for (const lang of ["en", "pl"]) {
  document.querySelector(`[data-testid=lang-${lang}]`).addEventListener("click", () => setLang(lang));
}
onLangChange(renderHeader);
setLang(getLang());
renderHeader();
show();
