// The page's entry point: the header (rules link, language buttons), a small router for
// /, /game/ID, /watch/ID, /rules, /replay/ID, /lab and the rest (history.pushState), and the
// toasts' host.

import { t, getLang, setLang, onLangChange } from "./i18n.js";
import { HomeView } from "./home.js";
import { GameView } from "./game.js";
import { el } from "./ui.js";

const main = document.getElementById("main");
let view = null;
let shown = 0;

// the other pages' code is read when one of them is first shown (the start page and the
// game page, the ones a visitor lands on, come with this file): a first visit reads only
// what it shows (docs/web.md, "What a visit transfers")
const lazy = (file, name) => () => import(file).then((m) => m[name]);
const WatchView = lazy("./watch.js", "WatchView");
const ReplayView = lazy("./replay.js", "ReplayView");
const RulesView = lazy("./rules.js", "RulesView");
const LearnView = lazy("./learn.js", "LearnView");
const PlayerView = lazy("./player.js", "PlayerView");
const LeaderboardView = lazy("./leaderboard.js", "LeaderboardView");
const LobbyView = lazy("./lobby.js", "LobbyView");
const LinkView = lazy("./devices.js", "LinkView");
const PuzzlesView = lazy("./puzzles.js", "PuzzlesView");
const LabView = lazy("./lab.js", "LabView");
const CompareView = lazy("./labcompare.js", "CompareView");
const now = (View) => () => Promise.resolve(View);

/** The view class of PATH (a promise: most are read on first use) and its arguments. */
function route(path) {
  let m;
  if ((m = /^\/game\/([^/]+)\/?$/.exec(path))) return [now(GameView), decodeURIComponent(m[1])];
  if ((m = /^\/replay\/([^/]+)\/?$/.exec(path))) return [ReplayView, decodeURIComponent(m[1])];
  if ((m = /^\/watch\/([^/]+)\/?$/.exec(path))) return [WatchView, decodeURIComponent(m[1])];
  // /rules, /rules/GAME, /rules/exact: the player's guide (rules.js) decides
  if (/^\/rules(\/[^/]*)?\/?$/.test(path)) return [RulesView, path];
  // /learn, /learn/GAME: the tutorial (learn.js)
  if (/^\/learn(\/[^/]*)?\/?$/.test(path)) return [LearnView, path];
  // a player's page and the leaderboard (player.js, leaderboard.js)
  if ((m = /^\/player\/([^/]+)\/?$/.exec(path))) return [PlayerView, decodeURIComponent(m[1])];
  if ((m = /^\/leaderboard(?:\/([^/]+))?\/?$/.exec(path))) return [LeaderboardView, m[1] ? decodeURIComponent(m[1]) : null];
  if (/^\/lobby\/?$/.test(path)) return [LobbyView];
  // the puzzles: /puzzles, /puzzles/GAME, /puzzles/GAME/ID (puzzles.js)
  if (/^\/puzzles(\/[^/]+){0,2}\/?$/.test(path)) return [PuzzlesView, path];
  // the lab: /lab (the form), /lab/ID (a study: its progress and report; lab.js)
  if ((m = /^\/lab\/compare\/([^/]+)\/?$/.exec(path))) return [CompareView, decodeURIComponent(m[1])];
  if ((m = /^\/lab(?:\/([^/]+))?\/?$/.exec(path))) return [LabView, m[1] ? decodeURIComponent(m[1]) : null];
  // another device's code (devices.js)
  if (/^\/link\/?$/.test(path)) return [LinkView];
  return [now(HomeView)];
}

async function show() {
  const mine = ++shown;
  const [load, ...args] = route(location.pathname);
  let View;
  try {
    View = await load();
  } catch (_) {
    if (mine !== shown) return;
    // the page's code could not be read (offline, or a new version deployed meanwhile)
    if (view && view.unmount) view.unmount();
    view = null;
    main.replaceChildren(el("section", { class: "panel notice", role: "alert" }, [
      el("p", { text: t("app.loadFailed") }),
      el("p", {}, [el("button", { type: "button", class: "button primary", onclick: () => location.reload() }, [t("app.reload")])]),
    ]));
    return;
  }
  if (mine !== shown) return;  // another page was asked for meanwhile
  if (view && view.unmount) view.unmount();
  main.replaceChildren();
  view = new View(...args, navigate);
  view.mount(main);
  markNav();
}

/** Go to PATH inside the page (no reload). */
export function navigate(path) {
  if (path !== location.pathname + location.search + location.hash) history.pushState({}, "", path);
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
  document.querySelector("[data-testid=lab-link] .nav-label").textContent = t("nav.lab");
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
  navigate(url.pathname + url.search + url.hash);
});

window.addEventListener("popstate", show);

for (const lang of ["en", "pl"]) {
  document.querySelector(`[data-testid=lang-${lang}]`).addEventListener("click", () => setLang(lang));
}
onLangChange(renderHeader);
setLang(getLang());
renderHeader();
show();
