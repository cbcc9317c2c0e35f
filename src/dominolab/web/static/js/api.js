// The HTTP side of docs/web.md: JSON requests, readable errors, and the tokens kept in
// localStorage under dominolab/game/ID as {token, seat, invite}.

import { t } from "./i18n.js";

/** An error the page can show: the server's sentence (or a network problem) and a status. */
export class ApiError extends Error {
  constructor(message, status = 0, retryAfter = null) {
    super(message);
    this.status = status;
    this.retryAfter = retryAfter;   // seconds from a Retry-After header, or null
  }

  /** The sentence for a person, in the current language around the server's words. */
  describe() {
    if (this.status === 0) return t("err.network");
    if (this.message) return t("err.status", { msg: this.message, status: this.status });
    return t("err.generic", { status: this.status });
  }
}

/** Seconds from a Retry-After header (a number of seconds or an HTTP date), or null. */
function retryAfterSeconds(value) {
  if (!value) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const when = Date.parse(text);
  if (Number.isNaN(when)) return null;
  return Math.max(0, Math.ceil((when - Date.now()) / 1000));
}

export async function request(method, path, { token = null, body = undefined, playerKey = null } = {}) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (playerKey) headers["X-Player-Key"] = playerKey;  // a header: never in a URL
  const init = { method, headers, cache: "no-store" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (_) {
    throw new ApiError("", 0);
  }
  let data = null;
  const text = await response.text();
  if (text) {
    try { data = JSON.parse(text); } catch (_) { data = null; }
  }
  if (!response.ok) {
    const msg = data && typeof data.error === "string" ? data.error : "";
    throw new ApiError(msg, response.status, retryAfterSeconds(response.headers.get("Retry-After")));
  }
  if (data === null) throw new ApiError("not JSON", response.status);
  return data;
}

const enc = encodeURIComponent;

export const api = {
  meta: () => request("GET", "/api/meta"),
  // the puzzles (docs/web.md, "Puzzles"): the position has nothing of the answer
  puzzle: (game, id, playerKey, layout) =>
    request("GET", `/api/puzzles/${enc(game)}/${enc(id)}?layout=${enc(layout)}`, { playerKey }),
  nextPuzzle: (game, after, playerKey, layout) =>
    request("GET", `/api/puzzles/${enc(game)}/next?layout=${enc(layout)}&after=${enc(after.join(","))}`, { playerKey }),
  dailyPuzzle: (game) => request("GET", `/api/puzzles/daily?game=${enc(game)}&layout=narrow`),
  answerPuzzle: (game, id, move, playerKey, layout) =>
    request("POST", `/api/puzzles/${enc(game)}/${enc(id)}/answer`, { body: { move, layout }, playerKey }),
  /** The featured live game ({featured: {...} or null}; docs/web.md, "The featured game"). */
  featured: () => request("GET", "/api/featured"),
  /** A game's two seats with their ratings, for a spectator. */
  seats: (id) => request("GET", `/api/games/${encodeURIComponent(id)}/seats`),
  /** Make a game and keep its seat on this device (the start page, the tutorial's match). */
  createGame: async (body, playerKey = null) => {
    const res = await request("POST", "/api/games", { body, playerKey });
    saveSeat(res.id, { token: res.token, seat: res.seat ?? 0, invite: res.invite ?? null });
    return res;
  },
  // claim seat 1 of a friend game with the one-time invitation code: {id, seat, token, state}
  join: (id, invite) =>
    request("POST", `/api/games/${encodeURIComponent(id)}/join`, { body: { invite } }),
  state: (id, token, layout) =>
    request("GET", `/api/games/${encodeURIComponent(id)}?layout=${layout}`, { token }),
  move: (id, token, move, version, layout) =>
    // the server draws the returned STATE for `layout` (read from the body)
    request("POST", `/api/games/${encodeURIComponent(id)}/moves`,
      { token, body: { move, version, layout } }),
  hint: (id, token) => request("POST", `/api/games/${encodeURIComponent(id)}/hint`, { token, body: {} }),
  // the finished match's rematch, the same game for both seats whoever asks first; the
  // caller keeps its seat and token there: {id, seat, token, state}
  rematch: (id, token, layout) =>
    request("POST", `/api/games/${encodeURIComponent(id)}/rematch`, { token, body: { layout } }),
  record: (id, token) => request("GET", `/api/games/${encodeURIComponent(id)}/record`, { token }),
  // a finished match's replay is anyone's who has its id (nothing is hidden any more)
  replay: (id, layout) =>
    request("GET", `/api/games/${encodeURIComponent(id)}/replay?layout=${layout}`),
  // a seat's review of the finished hands (docs/web.md, REVIEW): the seat's token until the
  // match is over, anyone's after
  review: (id, seat, token, layout) =>
    request("GET", `/api/games/${encodeURIComponent(id)}/review?seat=${seat}&layout=${layout}`, { token }),
  // a spectator's: any game's public state, by id alone
  watch: (id, layout) => request("GET", `/api/games/${encodeURIComponent(id)}/watch?layout=${layout}`),
  rules: (lang) => request("GET", `/api/rules/${lang}`),
  // a player's page (name, ratings, finished matches) and a game's leaderboard: public
  player: (id) => request("GET", `/api/players/${encodeURIComponent(id)}`),
  leaderboard: (game) => request("GET", `/api/leaderboard/${encodeURIComponent(game)}`),
  // the player's guide: its index, and one game's page (docs/learn.md)
  guide: (lang) => request("GET", `/api/guide/${lang}`),
  guidePage: (game, lang) => request("GET", `/api/guide/${encodeURIComponent(game)}/${lang}`),
  // the tutorial: the games' lesson ids, and one game's lessons laid out for `layout`
  lessonIndex: () => request("GET", "/api/lessons"),
  lessons: (game, layout) =>
    request("GET", `/api/lessons/${encodeURIComponent(game)}?layout=${layout}`),
  // the player of KEY, and every live game they hold a seat in (no tokens: see liveSeatToken)
  me: (key) => request("GET", "/api/me", { playerKey: key }),
  // the lobby (docs/web.md, "The lobby"); KEY is the player's key
  openSeek: (key, body) => request("POST", "/api/seeks", { playerKey: key, body }),
  cancelSeek: (key, id) => request("DELETE", `/api/seeks/${encodeURIComponent(id)}`, { playerKey: key }),
  // accepting a seek or being paired: {id, seat, token, state}, kept on this device
  acceptSeek: async (key, id, layout) => keepNew(await request("POST",
    `/api/seeks/${encodeURIComponent(id)}/accept`, { playerKey: key, body: { layout } })),
  quick: async (key, game, layout) => {
    const res = await request("POST", "/api/quick", { playerKey: key, body: { game, layout } });
    return res.matched ? keepNew(res) : res;
  },
};

function keepNew(res) {
  saveSeat(res.id, { token: res.token, seat: res.seat, invite: null });
  return res;
}

/** HMAC-SHA256 of DOMAIN + SOURCE under KEY, its first 24 bytes in URL-safe base64, as
 * the server derives seat tokens (web/games/live.py); null without WebCrypto. */
async function derive(key, domain, source) {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  if (!subtle) return null;
  const enc = new TextEncoder();
  const hmac = await subtle.importKey("raw", enc.encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const digest = new Uint8Array(await subtle.sign("HMAC", hmac, enc.encode(`${domain}${source}`)));
  const b64 = btoa(String.fromCharCode(...digest.slice(0, 24)));
  return b64.replace(/\+/g, "-").replace(/\//g, "_");
}

/** The token of the player's seat in the lobby game made of seek SEEK, derived from
 * their KEY as the server does (HMAC-SHA256 of "dominolab seat SEEK" under the key, its first
 * 24 bytes in URL-safe base64): so any page holding the key rejoins the player's live
 * games, and no listing carries a token. Null where the browser offers no WebCrypto (a
 * page not served over https or from this machine). */
export async function seatToken(key, seek) {
  return derive(key, "dominolab seat ", seek);
}

/** The token of the player's seat in a game they made with their KEY (against the
 * computer, or a friend's game), or in its rematches: "dominolab game seat GAME" under the
 * key, GAME the id of the game they made. Null without WebCrypto. */
export async function gameSeatToken(key, game) {
  return derive(key, "dominolab game seat ", game);
}

/** The token of my seat in G, a game of /api/me's live list, derived from my KEY and what
 * its token_from names (a seek or a game); null if it is not derived (device_only: held
 * only by the device that made the game) or without WebCrypto. */
export async function liveSeatToken(key, g) {
  const from = g.token_from;
  if (!from) return null;
  return from.kind === "seek" ? seatToken(key, from.id) : gameSeatToken(key, from.id);
}

// ---- the player (a name without a password; docs/web.md, "Players") ------------------

const PLAYER = "dominolab.player";   // the key loadPlayer reads

export function forgetPlayer() {
  try { localStorage.removeItem(PLAYER); } catch (_) { /* ignore */ }
}

/** A new player called NAME, kept in this browser (an ApiError says why not). */
export async function registerPlayer(name) {
  const res = await request("POST", "/api/players", { body: { name } });
  const player = { id: res.id, name: res.name, key: res.key };
  writeJSON(PLAYER, player);
  return player;
}

/** A code typed on this device (a link code or a recovery code): the player it stands
 * for is kept in this browser, as registerPlayer keeps a new one (an ApiError says why not). */
export async function claimCode(code) {
  const res = await request("POST", "/api/codes", { body: { code } });
  const player = { id: res.id, name: res.name, key: res.key };
  writeJSON(PLAYER, player);
  return player;
}

/** A new one-time link code ("link") or recovery code ("recovery") of the player of KEY. */
export function makeCode(key, kind) {
  return request("POST", `/api/me/${kind === "link" ? "link" : "recovery"}`, { playerKey: key });
}

/** The kept player, checked with the server: null if there is none, or if the server
 * knows not its key (401: then it is forgotten, and the page asks for a name again). A
 * server that cannot be reached keeps it. */
export async function checkedPlayer() {
  const player = loadPlayer();
  if (!player) return null;
  try {
    await request("GET", "/api/me", { playerKey: player.key });
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      forgetPlayer();
      return null;
    }
  }
  return player;
}

// ---- tokens and small per-game memories ----------------------------------------------

const GAME_PREFIX = "dominolab/game/";
const ACK_PREFIX = "dominolab/ack/";
const META_PREFIX = "dominolab/info/";

function readJSON(key) {
  try {
    const raw = localStorage.getItem(key);
    return raw ? JSON.parse(raw) : null;
  } catch (_) {
    return null;
  }
}

function writeJSON(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch (_) { /* storage off */ }
}

/** The player this browser plays as, {id, name, key}, or null (the name dialog keeps it). */
export function loadPlayer() {
  const v = readJSON("dominolab.player");
  return v && typeof v.id === "string" && typeof v.key === "string" ? v : null;
}

/** {token, seat, invite} for game ID, or null. */
export function loadSeat(id) {
  const v = readJSON(GAME_PREFIX + id);
  return v && typeof v.token === "string" ? v : null;
}

export function saveSeat(id, { token, seat = null, invite = null }) {
  writeJSON(GAME_PREFIX + id, { token, seat, invite });
}

export function forgetGame(id) {
  for (const p of [GAME_PREFIX, ACK_PREFIX, META_PREFIX]) {
    try { localStorage.removeItem(p + id); } catch (_) { /* ignore */ }
  }
}

/** The hand number the user last acknowledged in game ID (1 if none yet). */
export function loadAck(id) {
  const v = readJSON(ACK_PREFIX + id);
  return typeof v === "number" ? v : 1;
}

export function saveAck(id, hand) {
  writeJSON(ACK_PREFIX + id, hand);
}

/** A few words about a stored game for the start page's list ({game, updated, over}). */
export function saveInfo(id, info) {
  writeJSON(META_PREFIX + id, info);
}

/** Every game this device holds a token for, newest first. */
export function storedGames() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (!key || !key.startsWith(GAME_PREFIX)) continue;
      const id = key.slice(GAME_PREFIX.length);
      const info = readJSON(META_PREFIX + id) || {};
      out.push({ id, ...info });
    }
  } catch (_) { /* ignore */ }
  out.sort((a, b) => (b.updated || 0) - (a.updated || 0));
  return out;
}
