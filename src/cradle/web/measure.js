// @ts-check
// What the bots' numbers are, in words, from one place (hints, the analysis, the end screen):
// with two players the chance to win; with more, the expected share of opponents beaten (the
// search's reward, cradle/core/results.py), which is not a chance to win.

import { percent } from "./ui.js";

/** @param {number} players @returns {string} what the number is, as a heading says it */
export function measureName(players) {
  return players === 2 ? "win chance" : "expected share of opponents beaten";
}

/** @param {number} players @param {number} value @returns {string} a number with its meaning */
export function measured(players, value) {
  return players === 2 ? `win chance ${percent(value)}` : `beats ${percent(value)} of the opponents (expected)`;
}

/** @param {number} players @param {number} loss @returns {string} what a move gave up */
export function costWords(players, loss) {
  return players === 2 ? `costs ${percent(loss)} of win chance` : `costs ${percent(loss)} of expected share of opponents beaten`;
}

/** @param {number} players @returns {string} the analysis chart's note: what each line is */
export function chartNote(players) {
  const what = players === 2 ? "chance to win" : "expected share of the opponents beaten";
  return `Each player's ${what} after every move, as the search bots judge the position with every tile known (the game is over).`;
}

/** @returns {string} how the moves were reviewed (not with every tile known) */
export function reviewNote() {
  return "Each decision was searched again from what its player knew at the time (their own tiles, not the others').";
}
