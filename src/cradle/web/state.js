// @ts-check
// What this browser keeps between pages: each game's seat tokens, the hot-seat token and the
// invites it made (localStorage, keyed by game id). A token never goes in a URL.

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

export function rememberedAll() {
  return tables();
}
