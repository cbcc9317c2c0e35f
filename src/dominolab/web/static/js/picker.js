// Picking a move the way the game page does, shared by the game page and the puzzles: a
// hand tile as a button (tap or a key number picks it) and the dialog that asks which
// move is meant when one place on the table takes the picked tile more than one way.

import { t } from "./i18n.js";
import { tileSVG, handTileLabel, digits } from "./tiles.js";
import { el } from "./ui.js";

/** The button of hand TILE, the I-th of the hand (keys 1-9, 0): `playable` and `picked`
 * as shown, `onPick()` on a tap, `onPointerDown(ev)` to start a drag, `mark` beside it. */
export function handTileButton(tile, i, { playable, picked, onPick, onPointerDown = null, mark = "" }) {
  const [a, b] = digits(tile);
  const key = i < 9 ? String(i + 1) : i === 9 ? "0" : "";
  return el("button", {
    type: "button",
    class: "hand-tile" + (playable ? " is-playable" : "") + (picked ? " is-picked" : "") + (mark ? " is-drawn" : ""),
    "data-testid": "hand-tile",
    "data-tile": tile,
    "data-playable": playable ? "true" : "false",
    "data-drawn": mark ? "true" : null,
    "aria-pressed": picked ? "true" : "false",
    "aria-disabled": playable ? null : "true",
    "aria-label": handTileLabel(a, b, { playable, key, mark }),
    onclick: onPick,
    onpointerdown: playable ? onPointerDown : null,
  }, [
    tileSVG(a, b, { orientation: "vertical", px: 72, label: false }),
    el("span", { class: "key", "aria-hidden": "true", text: key || "\u00a0" }),
    mark ? el("span", { class: "drawn-mark", "aria-hidden": "true", text: mark }) : null,
  ]);
}

/** The dialog for a place that takes the picked tile more than one way (GRP from
 * groupSpots): `onMove(move)` when one is chosen, `onClose()` to close it. Returns the
 * overlay; its first choice takes the focus once shown. */
export function chooserDialog(grp, { onMove, onClose }) {
  const buttons = grp.legal.map((l, i) => {
    const sp = l.spot || {};
    const horizontal = (sp.w ?? 2) >= (sp.h ?? 1);
    const a = sp.a ?? digits(l.tile)[0], b = sp.b ?? digits(l.tile)[1];
    return el("button", {
      type: "button", class: "choose-button", "data-testid": "choose-move", "data-move": l.move,
      "data-autofocus": i === 0 ? "" : null,
      onclick: () => { onClose(); onMove(l.move); },
    }, [
      tileSVG(a, b, { orientation: horizontal ? "horizontal" : "vertical", px: 88 }),
      el("span", { text: l.outer !== null && l.outer !== undefined ? t("choose.outward", { v: l.outer }) : l.move }),
      el("code", { class: "muted", text: l.move }),
    ]);
  });
  const box = el("div", { class: "overlay overlay--light", role: "presentation", onclick: (ev) => { if (ev.target === box) onClose(); } }, [
    el("div", { class: "modal chooser", role: "dialog", "aria-modal": "true", "aria-labelledby": "chooser-title" }, [
      el("h2", { id: "chooser-title", text: t("choose.title") }),
      el("div", { class: "choose-row" }, buttons),
      el("div", { class: "modal-actions" }, [el("button", { type: "button", class: "button subtle", onclick: onClose, text: t("btn.cancel") })]),
    ]),
  ]);
  setTimeout(() => { const f = box.querySelector("[data-autofocus]"); if (f) f.focus(); }, 0);
  return box;
}
