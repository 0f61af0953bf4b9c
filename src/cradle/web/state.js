// What this browser keeps between pages: each game's seat tokens, the hot-seat token and the
// invites it made (localStorage, keyed by game id). A token never goes in a URL.

const KEY = "cradle.tables";

function tables() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "{}");
  } catch {
    return {};
  }
}

export function remember(id, entry) {
  const all = tables();
  all[id] = { ...(all[id] || {}), ...entry, saved: Date.now() };
  localStorage.setItem(KEY, JSON.stringify(all));
}

export function remembered(id) {
  return tables()[id] || null;
}

export function rememberedAll() {
  return tables();
}
