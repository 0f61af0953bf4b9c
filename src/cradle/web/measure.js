// @ts-check
// What the bots' numbers are, in words, from one place (hints, the analysis, the end screen):
// with two players the chance to win; with more, the expected share of opponents beaten (the
// search's reward, cradle/core/results.py), which is not a chance to win.

import { t } from "./i18n.js";
import { percent } from "./ui.js";

/** @param {number} players @returns {string} what the number is, as a heading says it */
export function measureName(players) {
  return players === 2 ? t("measure.name_two") : t("measure.name_more");
}

/** @param {number} players @param {number} value @returns {string} a number with its meaning */
export function measured(players, value) {
  return players === 2 ? t("measure.value_two", { share: percent(value) }) : t("measure.value_more", { share: percent(value) });
}

/** @param {number} players @param {number} loss @returns {string} what a move gave up */
export function costWords(players, loss) {
  return players === 2 ? t("measure.cost_two", { share: percent(loss) }) : t("measure.cost_more", { share: percent(loss) });
}

/** @param {number} players @returns {string} the analysis chart's note: what each line is */
export function chartNote(players) {
  return players === 2 ? t("measure.chart_two") : t("measure.chart_more");
}

/** @returns {string} how the moves were reviewed (not with every tile known) */
export function reviewNote() {
  return t("measure.review");
}
