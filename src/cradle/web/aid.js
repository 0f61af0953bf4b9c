// @ts-check
// The player aid: a "?" on the game screen opens the turn and the scoring on one screen beside
// the board (a sheet over the bottom half of a phone); the game stays as it is underneath.
// Escape closes it, and the keyboard's focus goes back to the "?".

import { aidOf } from "./rules.js";
import { t } from "./i18n.js";
import { el, iconButton, link, onEscape } from "./ui.js";

/**
 * Open the aid in `host` (the game screen), or close it when it is open.
 * @param {HTMLElement} host
 * @param {string} game
 */
export function toggleAid(host, game) {
  const open = host.querySelector("#aid");
  if (open) {
    closeAid(host);
    return;
  }
  /** @type {HTMLElement} */
  const aside = el("aside", { class: "card aid", id: "aid", role: "complementary", "aria-label": t("aid.title") },
    el("div", { class: "outcome-head" }, el("strong", {}, t("aid.title")),
      iconButton("close", t("aid.close"), { class: "btn icon-btn quiet small", id: "aid-close", onclick: () => closeAid(host) })),
    aidOf(game),
    el("p", { class: "small" }, link(`#/rules/${game}`, t("aid.whole_rules"), { class: "btn small", target: "_blank", rel: "noopener", id: "aid-rules" }),
      " ", t("aid.new_tab")));
  host.append(aside);
  const stop = onEscape(() => { stop(); return closeAid(host); });
  /** @type {HTMLElement | null} */ (aside.querySelector("#aid-close"))?.focus({ preventScroll: true });
}

/**
 * Close the aid, the focus back on its button when it was inside; false when none was open.
 * @param {HTMLElement} host
 */
function closeAid(host) {
  const aside = host.querySelector("#aid");
  if (!aside) return false;
  const hadFocus = aside.contains(document.activeElement);
  aside.remove();
  if (hadFocus) /** @type {HTMLElement | null} */ (host.querySelector("#aid-open"))?.focus({ preventScroll: true });
  return true;
}
