// @ts-check
// How a seat is named, on every screen: the person at it (an account's or a guest's name), a
// bot by its level, and only else the game's own name for the seat (a dynasty: Archer, Bull…).
// The dynasty stays the seat's colour and symbol, drawn beside the name where it matters.
// Names are always put on the page as text (el() makes text nodes), never as markup.

import { has, t } from "./i18n.js";
import { titleCase } from "./ui.js";

/** @typedef {import("./types").Named} Named */

// The name the server shows at the seats of a deleted account (no account may take it).
const FORMER = "former player";
/** @typedef {import("./types").Seating} Seating */

/**
 * The seating of a board: its game's names for the seats and, where the board comes with its
 * table (a frame), the seats' kinds and the people's names.
 * @param {string[]} players
 * @param {Named | null | undefined} frame
 * @returns {Seating}
 */
export function seatingOf(players, frame) {
  return { players, seats: frame?.table?.seats, names: frame?.table?.names };
}

/**
 * A bot by its level, in the language ("Easy bot").
 * @param {string} level
 * @returns {string}
 */
export function botName(level) {
  return t("names.bot", { level: has(`bot.name.${level}`) ? titleCase(t(`bot.name.${level}`)) : titleCase(level) });
}

/**
 * The name at `seat` before telling two alike apart.
 * @param {Seating} game
 * @param {number} seat
 */
function plainName(game, seat) {
  const person = game.names?.[seat];
  if (person === FORMER) return t("names.former_player");
  if (person) return person;
  const kind = game.seats?.[seat] || "";
  if (kind.startsWith("bot:")) return botName(kind.slice(4));
  return game.players[seat] ? seatWord(game.players[seat]) : t("names.seat", { number: seat + 1 });
}

/**
 * A seat's own name in its game (a Tigris dynasty: "Archer"), in the language.
 * @param {string} player
 */
export function seatWord(player) {
  return has(`seat.${player}`) ? t(`seat.${player}`) : titleCase(player);
}

/**
 * The name of `seat`: the person's, a bot's by its level ("Expert bot"), else the dynasty. Two
 * seats that would read alike (two bots of one level) get their dynasty after the name.
 * @param {Seating} game
 * @param {number} seat
 */
export function nameAt(game, seat) {
  const name = plainName(game, seat);
  const dynasty = game.players[seat];
  if (!dynasty || name === seatWord(dynasty)) return name;
  const twins = game.players.some((_, other) => other !== seat && plainName(game, other) === name);
  return twins ? t("names.twin", { name, seat: seatWord(dynasty) }) : name;
}

/**
 * `nameAt` for one game, as a function of the seat.
 * @param {Seating} game
 * @returns {(seat: number) => string}
 */
export function whoAt(game) {
  return (seat) => nameAt(game, seat);
}

/**
 * A sentence with each seat's word replaced by the name at that seat, in one pass (a person
 * named like another seat's dynasty is not replaced again), and its first letter capitalised.
 * A seat's word is its game name in any case (an engine's "archer scores 1 red", a lesson's
 * "the bull's priest") or its word in the language as the catalogue writes it (a lesson's
 * "el sacerdote del Toro"; written so, "este" (this) is not "Este" (east)).
 * @param {string} text
 * @param {Seating} game
 */
export function namedText(text, game) {
  const seats = new Map(game.players.map((p, seat) => [p.toLowerCase(), seat]));
  const words = new Map(game.players.map((p, seat) => [seatWord(p), seat]));
  const alternatives = [...new Set([...seats.keys(), ...words.keys()])]
    .filter((p) => /^[\p{L}\p{N}_-]+$/u.test(p))
    .sort((a, b) => b.length - a.length);
  let out = text;
  let named = false; // the sentence starts with a name: written as its person wrote it
  if (alternatives.length) {
    const found = new RegExp(`(?<![\\p{L}\\p{N}_])(${alternatives.join("|")})(?![\\p{L}\\p{N}_])`, "giu");
    out = text.replace(found, (m, _word, at) => {
      const seat = seats.get(m.toLowerCase()) ?? words.get(m);
      if (seat === undefined) return m; // the language's word in another case: another word
      if (at === 0) named = true;
      return nameAt(game, seat);
    });
  }
  return out && !named ? out[0].toUpperCase() + out.slice(1) : out;
}
