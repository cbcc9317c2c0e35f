// The tutorial (/learn, /learn/GAME): placeholder until the lessons land.

import { el } from "./ui.js";

export class LearnView {
  constructor(path, navigate) {
    this.path = path;
    this.navigate = navigate;
  }

  mount(root) {
    root.replaceChildren(el("article", { class: "panel", "data-testid": "learn" }));
  }
}
