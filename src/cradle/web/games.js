// @ts-check
// The games this client draws: each game's module (board, decisions, words) by name.

import * as tigris from "./tigris.js";
import * as gheos from "./gheos.js";
import { el } from "./ui.js";

/** @typedef {import("./types").GameModule} GameModule */
/** @typedef {import("./types").Pieces} Pieces */
/** @typedef {import("./types").View} View */

/** @type {Record<string, GameModule>} */
export const GAMES = { tigris, gheos };
/** @type {Record<string, string>} */
export const GAME_TITLES = { tigris: "Tigris & Euphrates", gheos: "Gheos" };

/**
 * The parts a game's renderer draws a finished game's board into (replays, analyses), with a
 * banner, a log and an extra part for the screen to place or leave out.
 */
export function pastBoardParts() {
  return {
    banner: el("div", { class: "banner" }),
    board: el("div", { class: "board-wrap", id: "board" }),
    hand: el("div", { class: "hand-panel", id: "hand" }),
    // The renderer draws its own controls here; a replay's controls live apart (a renderer
    // redrawing, say when the board map arrives, must never wipe them).
    controls: el("div", { class: "controls" }),
    scores: el("div", { class: "scores", id: "scores" }),
    log: el("ol", { class: "log" }),
    extra: el("div"),
  };
}

/**
 * Note what is drawn on the tiles of a view's map (Gheos), keeping what is known already.
 * @param {Pieces} pieces
 * @param {View} view
 */
export function notePieces(pieces, view) {
  if (!("map" in view)) return; // a game whose map shows no pieces
  for (const cell of view.map || []) pieces[cell.tile] ||= { pyramid: cell.pyramid, regions: cell.regions };
}
