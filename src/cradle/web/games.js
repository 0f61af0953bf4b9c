// The games this client draws: each game's module (board, decisions, words) by name.

import * as tigris from "./tigris.js";
import * as gheos from "./gheos.js";

export const GAMES = { tigris, gheos };
export const GAME_TITLES = { tigris: "Tigris & Euphrates", gheos: "Gheos" };

/** Note what is drawn on the tiles of a view's map (Gheos), keeping what is known already. */
export function notePieces(pieces, view) {
  for (const cell of view.map || []) pieces[cell.tile] ||= { pyramid: cell.pyramid, regions: cell.regions };
}
