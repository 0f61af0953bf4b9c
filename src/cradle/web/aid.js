// @ts-check
// The player aid: a "?" on the game screen opens the turn and the scoring on one screen beside
// the board (a sheet over the bottom half of a phone); the game stays as it is underneath.

import { aidOf } from "./rules.js";
import { el, iconButton, link } from "./ui.js";

/**
 * Open the aid in `host` (the game screen), or close it when it is open.
 * @param {HTMLElement} host
 * @param {string} game
 */
export function toggleAid(host, game) {
  const open = host.querySelector("#aid");
  if (open) {
    open.remove();
    return;
  }
  /** @type {HTMLElement} */
  const aside = el("aside", { class: "card aid", id: "aid", role: "complementary", "aria-label": "Player aid" },
    el("div", { class: "outcome-head" }, el("strong", {}, "Player aid"),
      iconButton("close", "Close the player aid", { class: "btn icon-btn quiet small", id: "aid-close", onclick: () => host.querySelector("#aid")?.remove() })),
    aidOf(game),
    el("p", { class: "small" }, link(`#/rules/${game}`, "The whole rules", { class: "btn small", target: "_blank", rel: "noopener", id: "aid-rules" }),
      " (in a new tab: this game stays open)"));
  host.append(aside);
}
