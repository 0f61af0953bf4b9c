// @ts-check
// The player aid: a "?" on the game screen opens the turn and the scoring on one screen beside
// the board (a sheet over the bottom half of a phone); the game stays as it is underneath.

import { aidOf } from "./rules.js";
import { t } from "./i18n.js";
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
  const aside = el("aside", { class: "card aid", id: "aid", role: "complementary", "aria-label": t("aid.title") },
    el("div", { class: "outcome-head" }, el("strong", {}, t("aid.title")),
      iconButton("close", t("aid.close"), { class: "btn icon-btn quiet small", id: "aid-close", onclick: () => host.querySelector("#aid")?.remove() })),
    aidOf(game),
    el("p", { class: "small" }, link(`#/rules/${game}`, t("aid.whole_rules"), { class: "btn small", target: "_blank", rel: "noopener", id: "aid-rules" }),
      " ", t("aid.new_tab")));
  host.append(aside);
}
