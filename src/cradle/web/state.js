// @ts-check
// What this browser keeps between pages: each game's seat tokens, the hot-seat token and the
// invites it made, the share keys of private games shared with it (localStorage, keyed by game
// id). A token never goes in a URL (a share key does: it is made to be passed on).

/** @typedef {import("./types").SavedTable} SavedTable */

const KEY = "cradle.tables";

/** @returns {Record<string, SavedTable>} */
function tables() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "{}");
  } catch {
    return {};
  }
}

/**
 * Keep what this browser learnt of a game (merged into what it kept before).
 * @param {string} id
 * @param {SavedTable} entry
 */
export function remember(id, entry) {
  const all = tables();
  all[id] = { ...(all[id] || {}), ...entry, saved: Date.now() };
  localStorage.setItem(KEY, JSON.stringify(all));
}

/** @param {string} id @returns {SavedTable | null} */
export function remembered(id) {
  return tables()[id] || null;
}

/**
 * This browser's token at a game (a seat's, else the hot-seat screen's): it opens a private
 * table's finished game (its replay and analysis) to its players.
 * @param {string} id
 * @returns {string | null}
 */
export function tokenAt(id) {
  const saved = remembered(id);
  return saved?.token || saved?.table_token || null;
}

/** A share key's form (the server's: 32 hexadecimal digits); anything else is no key. */
const SHARE_KEY = /^[0-9a-f]{32}$/;

/**
 * Keep a private game's share key that came in a link (only one of the right form: it goes
 * in a header).
 * @param {string} id
 * @param {string} key
 */
export function rememberShare(id, key) {
  if (SHARE_KEY.test(key)) remember(id, { share: key });
}

/**
 * The key a player shared a private game with this browser by, if any.
 * @param {string} id
 * @returns {string | null}
 */
export function shareAt(id) {
  const key = remembered(id)?.share;
  return key && SHARE_KEY.test(key) ? key : null;
}

export function rememberedAll() {
  return tables();
}
