// @ts-check
// The games this client draws: each game's module (board, decisions, words) by name.

import * as tigris from "./tigris.js";
import * as gheos from "./gheos.js";

/** @typedef {import("./types").GameModule} GameModule */
/** @typedef {import("./types").Pieces} Pieces */
/** @typedef {import("./types").View} View */

/** @type {Record<string, GameModule>} */
export const GAMES = { tigris, gheos };
/** @type {Record<string, string>} */
export const GAME_TITLES = { tigris: "Tigris & Euphrates", gheos: "Gheos" };

/**
 * Note what is drawn on the tiles of a view's map (Gheos), keeping what is known already.
 * @param {Pieces} pieces
 * @param {View} view
 */
export function notePieces(pieces, view) {
  if (!("map" in view)) return; // a game whose map shows no pieces
  for (const cell of view.map || []) pieces[cell.tile] ||= { pyramid: cell.pyramid, regions: cell.regions };
}
