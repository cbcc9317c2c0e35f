// Wording of the game's structured data in the current language: who a seat is, what a
// move did (STEP), why points were scored (REASON), how a hand or match ended (RESULT).

import { t, playerName } from "./i18n.js";
import { tileText, digits } from "./tiles.js";

/**
 * ctx = {seat: my seat (or null for a neutral view), mode: "computer"|"friend"|"lobby",
 * opponent, players: STATE's players ([{id, name} or null, ...]) if known}
 */
export function seatName(seat, ctx) {
  if (seat === null || seat === undefined) return "";
  if (ctx.names && ctx.names[seat]) return playerName(ctx.names[seat]);  // a public replay: the seats' names
  if (ctx.seat === null || ctx.seat === undefined) return t("who.seat", { seat });
  if (seat === ctx.seat) return t("who.me");
  return opponentName(ctx);
}

/** The seats' names for a neutral reader (a public replay, a spectator): the players', the
 * computer's by its level, null for an unnamed seat (a friend game's guest). */
export function publicNames(st) {
  return (st.players || [null, null]).map((p, seat) => {
    if (p) return p.name;
    if (st.mode === "computer" && seat === 1) return opponentName({ mode: "computer", opponent: st.opponent });
    return null;
  });
}

export function opponentName(ctx) {
  const named = ctx.players && ctx.seat !== null && ctx.seat !== undefined ? ctx.players[1 - ctx.seat] : null;
  if (named && named.name) return playerName(named.name);
  if (ctx.mode === "friend" || ctx.opponent === "friend") return t("who.friend");
  if (ctx.mode === "computer" || ["easy", "medium", "hard"].includes(ctx.opponent)) {
    return ctx.opponent
      ? t("who.computerLevel", { level: t(`levelShort.${ctx.opponent}`) })
      : t("who.computer");
  }
  return t("who.opponent");
}

/** "54@1e" → {tile: "54", port: "1e", luzak: false}; "65" → lead; draw/pass/keep. */
export function parseMove(move) {
  if (move === "draw" || move === "pass" || move === "keep") return { kind: move };
  const m = /^(\d)(\d)(?:@([0-9]*[a-zA-Z]+))?(\*)?$/.exec(move || "");
  if (!m) return { kind: "other", text: move };
  const tile = m[1] + m[2];
  if (!m[3]) return { kind: "lead", tile };
  return { kind: m[4] ? "luzak" : "play", tile, port: m[3] };
}

/** A tile in canonical text, high half first: "45" → "5|4". */
export function canonTile(tile) {
  if (!tile || tile.length !== 2) return tileText(tile);
  const [x, y] = [tile[0], tile[1]];
  return x >= y ? `${x}|${y}` : `${y}|${x}`;
}

/** The moves that laid a hand's tiles, in order (tile N is entry N-1), from its STEPs (a
 * STATE's `history`, or a finished hand's). */
export function tablePlays(steps) {
  return (steps || []).map((s) => s.move)
    .filter((m) => ["lead", "play", "luzak"].includes(parseMove(m).kind));
}

/**
 * Where a tile went, in a player's words: "on the left end", "on a short end of spinner
 * [6|6]", "on the 5 of [6|5]". PORT is the move's port ("L", "2n"); PLAYS the moves that
 * laid the table's tiles so far (tablePlays), which say what tile N is and which of its
 * halves is outward. Without them a tree port keeps its notation ("on 2n").
 */
export function whereText(port, plays = null) {
  if (port === "L" || port === "R") return t(`where.${port}`);
  const m = /^(\d+)([wens])$/.exec(port || "");
  const under = m && plays ? parseMove(plays[Number(m[1]) - 1]) : null;
  if (!under || !under.tile) return t("where.port", { port });
  const [x, y] = digits(under.tile);
  const tile = `[${canonTile(under.tile)}]`;
  const side = m[2];
  if (x === y) return t(side === "n" || side === "s" ? "where.short" : "where.long", { tile });
  // a non-double: the lead's two ends are its high half (w) and low half (e); a later
  // tile's only port is its outward half, written second in its move
  let v;
  if (under.kind === "lead") v = side === "w" ? Math.max(x, y) : Math.min(x, y);
  else if (side === "e") v = y;
  else return t("where.port", { port });
  return t("where.half", { tile, v });
}

/**
 * What a STEP did, without the name: "played 5|4 on the 5 of [6|5]". PLAYS (optional): the
 * moves that laid the table's tiles (tablePlays of the hand's history), to name where the
 * tile went in words (whereText); the notation itself is STEP.move.
 */
export function moveText(step, { plays = null } = {}) {
  const mv = parseMove(step.move);
  switch (mv.kind) {
    case "draw":
      return step.drew ? t("move.drewTile", { tile: canonTile(step.drew) }) : t("move.draw");
    case "pass": return t("move.pass");
    case "keep": return t("move.keep");
    case "lead": return t("move.lead", { tile: canonTile(mv.tile) });
    case "play": return t("move.play", { tile: tileText(mv.tile), where: whereText(mv.port, plays) });
    case "luzak": return t("move.luzak", { tile: tileText(mv.tile), where: whereText(mv.port, plays) });
    default: return step.move;
  }
}

function countWords(r) {
  if (r.count === 0) return t("reason.count.zero", { n: r.n });
  return t(r.scored ? "reason.count.yes" : "reason.count.no", { n: r.n, count: r.count });
}

/** Why this STEP scored what it scored, in words. RULES is the state's `rules` (what the
 * game's rules are, asked instead of its name: docs/web.md, STATE). */
export function reasonText(step, rules, ctx) {
  const r = step.reason || { kind: "none" };
  const mv = parseMove(step.move);
  switch (r.kind) {
    case "count":
      return countWords(r);
    case "luzak": {
      const who = seatName(r.to, ctx);
      if (!rules.luzak_pips) {  // the opponent scores the count the luzak makes divisible
        if (r.scored && r.count) {
          return t("reason.luzak.line.yes", { n: r.n, count: r.count, who });
        }
        return t("reason.luzak.line.no", { n: r.n, count: r.count });
      }
      const parts = [t("reason.luzak.pips", {
        tile: canonTile(mv.tile || ""), who, pips: r.pips,
      })];
      if (r.count !== undefined && r.n !== undefined) parts.push(countWords(r));
      return parts.join(" · ");
    }
    case "quartet": {
      const ends = (r.ends || []).map(tileText).join(" + ");
      return t("reason.quartet", { quartet: r.quartet, ends, points: r.points });
    }
    case "draw": return t("reason.draw");
    case "pass": return t("reason.pass");
    case "keep": return t("reason.keep");
    default:
      if (rules.scoring === "quartets" && mv.kind === "play") return t("reason.noQuartet");
      return t("reason.none");
  }
}

/** The points of a STEP as "+10" for whoever got them, or "". */
export function pointsText(points, ctx) {
  if (!points) return "";
  const out = [];
  points.forEach((p, seat) => {
    if (p) out.push(`${seatName(seat, ctx)} +${p}`);
  });
  return out.join(", ");
}

/** How a hand ended: one sentence. In a game whose hands end by going out (Widelec), the
 * result's `winner` is who went out (or had fewer pips in a block) and takes the bonus; it
 * is not necessarily who scored more in the hand. RULES: the state's `rules`. */
export function endText(result, ctx, rules) {
  const out = rules.hand_end === "out";
  const w = result.winner;
  const hasWinner = w !== null && w !== undefined;
  const name = hasWinner ? seatName(w, ctx) : "";
  const me = hasWinner && ctx.seat !== null && ctx.seat !== undefined && w === ctx.seat;
  switch (result.end) {
    case "tiles": return t("over.end.tiles");
    case "domino":
      if (out && hasWinner) return me ? t("over.end.outYou") : t("over.end.out", { name });
      return t("over.end.domino", { name });
    case "block":
      if (out) {
        if (!hasWinner) return t("over.end.blockEven");
        return me ? t("over.end.blockFewerYou") : t("over.end.blockFewer", { name });
      }
      return t("over.end.block");
    case "target": return name ? t("over.end.target", { name }) : t("over.end.targetNoName");
    default: return result.end || "";
  }
}

/** Widelec's bonus, naming who took it from whose tiles; "" when there is none. */
export function bonusText(result, ctx) {
  const w = result.winner;
  if (w === null || w === undefined || !result.bonus_quartets || !result.bonus_quartets.length) return "";
  if (ctx.seat !== null && ctx.seat !== undefined) {
    return w === ctx.seat
      ? t("over.bonusYou", { b: result.bonus ?? 0 })
      : t("over.bonusThem", { name: seatName(w, ctx), b: result.bonus ?? 0 });
  }
  return t("over.bonusSeat", { name: seatName(w, ctx), b: result.bonus ?? 0 });
}

/** Who did better in the hand, by the points scored in it (bonus included). RULES: the
 * state's `rules`. */
export function winnerText(result, ctx, rules) {
  // a hand cut short by the target: the match's result says it all
  if (result.end === "target") return "";
  const pts = result.points || [0, 0];
  const seat = ctx.seat ?? 0;
  const mine = pts[seat] ?? 0, theirs = pts[1 - seat] ?? 0;
  if (ctx.seat === null || ctx.seat === undefined) {
    if (mine === theirs) return t("over.noWinner");
    return t("over.winner", { name: seatName(mine > theirs ? 0 : 1, ctx) });
  }
  if (rules.hand_end === "out") {
    // "won" is the rules' word for going out; the points say who did better
    if (mine > theirs) return t("over.moreYou", { a: mine, b: theirs });
    if (theirs > mine) return t("over.more", { name: opponentName(ctx), a: theirs, b: mine });
    return t("over.samePoints", { a: mine });
  }
  if (mine > theirs) return t("over.winnerYou");
  if (theirs > mine) return t("over.winner", { name: opponentName(ctx) });
  return t("over.noWinner");
}
