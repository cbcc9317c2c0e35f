// Small DOM helpers shared by the views: element builder, toasts, a spinner, downloads.

import { t } from "./i18n.js";

/**
 * el("button", {class: "x", "data-testid": "y", onclick: fn}, ["text", child])
 * Attributes starting with "on" become listeners; `text` sets textContent.
 */
export function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") {
      node.addEventListener(k.slice(2), v);
    } else if (k === "text") {
      node.textContent = v;
    } else if (k === "html") {
      node.innerHTML = v;
    } else if (k === "value") {
      node.value = v;
    } else if (v === true) {
      node.setAttribute(k, "");
    } else {
      node.setAttribute(k, String(v));
    }
  }
  for (const c of [].concat(children)) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// ---- toasts -------------------------------------------------------------------------

let toastBox = null;

function box() {
  if (!toastBox) toastBox = document.getElementById("toasts");
  return toastBox;
}

/** Show a short message; kind "error" stays longer and is announced assertively. */
export function toast(message, kind = "info", ms = null) {
  const host = box();
  if (!host) return;
  const close = el("button", { class: "toast-close", type: "button", "aria-label": t("btn.close") }, ["×"]);
  const node = el("div", {
    class: `toast toast--${kind}`,
    role: kind === "error" ? "alert" : "status",
    "data-testid": kind === "error" ? "error-toast" : "toast",
  }, [el("span", { class: "toast-text" }, [message]), close]);
  const remove = () => {
    node.classList.add("is-leaving");
    setTimeout(() => node.remove(), 250);
  };
  close.addEventListener("click", remove);
  host.append(node);
  while (host.children.length > 4) host.firstElementChild.remove();
  setTimeout(remove, ms ?? (kind === "error" ? 9000 : 3500));
}

export function spinner(label = "") {
  return el("span", { class: "spinner", role: "status", "aria-label": label || t("hint.thinking") });
}

/** Save TEXT as a file named NAME through a Blob link. */
export function downloadText(name, text, type = "application/json") {
  const blob = new Blob([text], { type });
  const url = URL.createObjectURL(blob);
  const a = el("a", { href: url, download: name, class: "visually-hidden" });
  document.body.append(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(url); a.remove(); }, 1000);
}

/** The viewport's layout for the server: "narrow" below ~700 px. */
export function layoutMode() {
  return window.innerWidth < 700 ? "narrow" : "wide";
}
