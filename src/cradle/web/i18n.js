// @ts-check
// Every word the client shows comes from a message catalogue: i18n/<tag>.json, one per language
// (docs/translating.md). A message is a whole sentence with named placeholders ("{name} joined
// the table"), never pieces glued together; a message that depends on a count is an object of
// the language's plural forms (Intl.PluralRules' categories: "one", "few", "many", "other"...)
// chosen by its `count` parameter. Numbers, dates and lists are written by Intl for the language.
//
// A catalogue may name a "@fallback" catalogue and hold only the messages that differ from it
// (pt-PT holds the words European Portuguese writes otherwise than pt-BR); every language falls
// back to English last. The language is the signed-in account's, else the one this browser chose
// with the switch (remembered), else the first of the browser's languages that a catalogue
// speaks, else English.

/** @typedef {import("./types").Child} Child */
/** @typedef {string | Record<string, string>} Message */
/** @typedef {Record<string, Message>} Catalogue */

const CHOICE_KEY = "cradle.lang";
const SOURCE = "en";
const PLACEHOLDER = /\{(\w+)\}/g;

/**
 * The rules engines' reasons in the language (i18n/reasons/<tag>.json, written from the Python
 * catalogues by packaging/web_reasons.py): each English message with its translation, and the
 * game's words a reason may name, by their kind.
 * @typedef {{messages: Record<string, string>, words: Record<string, Record<string, string>>}} Reasons
 */
/** @type {Reasons | null} */
let reasons = null;
/** @type {{template: string, pattern: RegExp, literal: number}[]} the English messages, most specific first */
let reasonPatterns = [];

/** @type {string[]} the catalogues' tags (i18n/languages.json) */
let tags = [SOURCE];
let current = SOURCE;
/** @type {Catalogue[]} the current language's catalogue, then its fallbacks, English last */
let chain = [];
/** @type {Intl.PluralRules | null} */
let plurals = null;

/** @param {string} tag @returns {Promise<Catalogue>} */
async function fetchCatalogue(tag) {
  const response = await fetch(`/static/i18n/${encodeURIComponent(tag)}.json`, { cache: "no-cache" });
  if (!response.ok) throw new Error(`no catalogue for ${tag}`);
  return response.json();
}

/**
 * The language's catalogue and those it falls back on, English last.
 * @param {string} tag
 * @returns {Promise<Catalogue[]>}
 */
async function catalogueChain(tag) {
  /** @type {Catalogue[]} */
  const out = [];
  /** @type {string | undefined} */
  let next = tag;
  while (next && !out.some((c) => c["@tag"] === next)) {
    /** @type {Catalogue} */
    const catalogue = await fetchCatalogue(next);
    catalogue["@tag"] = next;
    out.push(catalogue);
    /** @type {Message | undefined} */
    const fallback = catalogue["@fallback"];
    next = typeof fallback === "string" ? fallback : next === SOURCE ? undefined : SOURCE;
  }
  return out;
}

/**
 * The catalogue that speaks one of `wanted` (the browser's languages, best first): the same tag,
 * else the first catalogue of the same language ("es-MX" reads es, "pt" reads pt-BR).
 * @param {readonly string[]} wanted
 * @param {readonly string[]} available
 */
export function bestLanguage(wanted, available) {
  const lower = available.map((t) => t.toLowerCase());
  for (const tag of wanted) {
    const exact = lower.indexOf(tag.toLowerCase());
    if (exact >= 0) return available[exact];
    const base = tag.split("-")[0].toLowerCase();
    const same = lower.findIndex((t) => t.split("-")[0] === base);
    if (same >= 0) return available[same];
  }
  return SOURCE;
}

/** The browser's remembered choice, if it is still a catalogue. */
function remembered() {
  try {
    const choice = localStorage.getItem(CHOICE_KEY);
    return choice && tags.includes(choice) ? choice : null;
  } catch {
    return null;
  }
}

/**
 * Load the language to show: `preferred` (a signed-in account's), else the switch's remembered
 * choice, else the browser's languages. Call once before drawing the first screen.
 * @param {string | null} [preferred]
 */
export async function startLanguage(preferred = null) {
  try {
    const response = await fetch("/static/i18n/languages.json", { cache: "no-cache" });
    tags = response.ok ? await response.json() : [SOURCE];
  } catch {
    tags = [SOURCE];
  }
  const wanted = [preferred, remembered(), ...(navigator.languages || [navigator.language])].filter(
    /** @returns {t is string} */ (t) => Boolean(t));
  await useLanguage(bestLanguage(wanted, tags));
}

/** @param {string} tag */
async function useLanguage(tag) {
  try {
    chain = await catalogueChain(tag);
    current = tag;
  } catch {
    chain = await catalogueChain(SOURCE);
    current = SOURCE;
  }
  plurals = new Intl.PluralRules(current);
  await loadReasons(current);
  // Last: the page says its new language only once all of it is ready to be drawn in it.
  document.documentElement.lang = current;
}

/** @param {string} tag */
async function loadReasons(tag) {
  reasons = null;
  reasonPatterns = [];
  if (tag === SOURCE) return;
  try {
    const response = await fetch(`/static/i18n/reasons/${encodeURIComponent(tag)}.json`, { cache: "no-cache" });
    if (response.ok) useReasons(await response.json());
  } catch {
    // no reasons file: the engines' reasons stay in English
  }
}

/**
 * Use the engines' reasons already read (Node's tests read them from the files).
 * @param {Reasons | null} found
 */
export function useReasons(found) {
  reasons = found;
  reasonPatterns = found ? Object.keys(found.messages).map(templatePattern).sort((a, b) => b.literal - a.literal) : [];
}

/**
 * An English message as a pattern that reads its placeholders back from a sentence.
 * @param {string} template
 */
function templatePattern(template) {
  /** @type {string[]} */
  const names = [];
  let source = "^";
  let literal = 0;
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const text = template.slice(last, match.index);
    source += escapeRegExp(text);
    literal += text.length;
    source += names.includes(match[1]) ? `\\k<${match[1]}>` : `(?<${match[1]}>${SHAPES[match[1]] || ".+?"})`;
    names.push(match[1]);
    last = (match.index || 0) + match[0].length;
  }
  const tail = template.slice(last);
  return { template, pattern: new RegExp(`${source}${escapeRegExp(tail)}$`, "s"), literal: literal + tail.length };
}

/**
 * What a placeholder of the engines' and bots' messages may hold, by its name (any text for the
 * names not here): a word, a cell, a count. A message is then read back only where it fits.
 * @type {Record<string, string>}
 */
const SHAPES = {
  colour: "[\\w-]+", leader: "[\\w-]+", player: "[\\w-]+", kind: "[\\w-]+", monument: "\\w+-\\w+",
  cell: "[\\w,:-]+", area: "[\\w,:-]+",
  count: "-?\\d+", attack: "-?\\d+", defence: "-?\\d+", ours: "-?\\d+", them: "-?\\d+", theirs: "-?\\d+",
  held: "-?\\d+", id: "-?\\d+", slot: "-?\\d+", last: "-?\\d+",
  gain: "[-+]?[\\d.]+", delta: "[-+]?\\d+", odds: "\\d+%",
  changes: "[^;()]+", returned: "[^;()]+", followers: "[^;,()]+", cups: "[^;,()]+", pyramids: "[^;,()]+", swords: "[^;,()]+",
};

/** @param {string} text */
function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * A rules engine's reason for refusing a move (the server gives its English sentence) in the
 * language: the message it is, with its params read back and the game's words among them
 * translated. A sentence no message matches stays as it is.
 * @param {string} text
 */
export function translateReason(text) {
  if (!reasons) return text;
  const found = reasons;
  // A bot's reason joins its parts with "; " (a part may hold "; " itself): from the start,
  // the longest run of parts that is one message, then the rest.
  const parts = text.split("; ");
  const out = [];
  for (let start = 0; start < parts.length;) {
    let end = parts.length;
    let said = null;
    for (; end > start && said === null; end -= 1) said = translateMessage(found, parts.slice(start, end).join("; "));
    if (said === null) {
      out.push(parts[start]);
      start += 1;
    } else {
      out.push(said);
      start = end + 1;
    }
  }
  return out.join("; ");
}

/**
 * The message `text` is, translated; null when no message matches it.
 * @param {Reasons} found
 * @param {string} text
 * @returns {string | null}
 */
function translateMessage(found, text) {
  for (const { template, pattern } of reasonPatterns) {
    const match = pattern.exec(text);
    if (!match) continue;
    /** @type {Record<string, string>} */
    const params = {};
    for (const [name, value] of Object.entries(match.groups || {})) params[name] = reasonWord(found, name, value);
    return found.messages[template].replace(PLACEHOLDER, (whole, name) => params[name] ?? whole);
  }
  return null;
}

/**
 * The server's reason for refusing a request, in the language: the message it names (an
 * English message of the Python catalogues, docs/translating.md) with its named params, the
 * game's words among them translated; else its English sentence read back as an engine's
 * reason (translateReason), else as it is.
 * @param {string} english the server's sentence (`error`)
 * @param {string | null | undefined} message the message it is (`message`)
 * @param {Record<string, string | number> | null | undefined} params its params (`params`)
 */
export function serverReason(english, message, params) {
  if (!reasons || !message || !Object.hasOwn(reasons.messages, message)) return translateReason(english);
  const found = reasons;
  /** @type {Record<string, string>} */
  const words = {};
  for (const [name, value] of Object.entries(params || {})) {
    words[name] = typeof value === "number" ? number(value) : reasonWord(found, name, value);
  }
  return found.messages[message].replace(PLACEHOLDER, (whole, name) => words[name] ?? whole);
}

/**
 * A game's word among a reason's params, by the param's name (its kind).
 * @param {Reasons} found
 * @param {string} kind
 * @param {string} value
 */
function reasonWord(found, kind, value) {
  const colours = found.words.colour || {};
  const players = found.words.player || {};
  if (kind === "monument") return value.split("-").map((c) => colours[c] ?? c).join("-");
  if (kind === "colours") return list(value.split(/, | and /).map((c) => colours[c] ?? c));
  // A message within the message: an engine's reason, a score's, a count ("2 cups"), what the
  // server could not store when its database failed ("doing").
  if (["reason", "why", "doing", "followers", "cups", "pyramids", "swords"].includes(kind)) return translateReason(value);
  if (kind === "changes") return value.split(", ").map((part) => translateMessage(found, part) ?? part).join(", ");
  if (kind === "returned") { // "north 2, east 1": each player with the followers returned
    return value.split(", ").map((part) => part.replace(/^(\S+)/, (name) => players[name] ?? name)).join(", ");
  }
  return found.words[kind]?.[value] ?? value;
}

/**
 * Switch to `tag` at once and remember it in this browser; the page redraws itself on the
 * "cradlelanguage" event of window (app.js).
 * @param {string} tag
 */
export async function setLanguage(tag) {
  try { localStorage.setItem(CHOICE_KEY, tag); } catch { /* private mode: this page only */ }
  await useLanguage(tag);
  window.dispatchEvent(new Event("cradlelanguage"));
}

/**
 * Use catalogues already read (Node's tests read them from the files): the language's, then
 * those it falls back on.
 * @param {string} tag
 * @param {Catalogue[]} catalogues
 */
export function useCatalogues(tag, catalogues) {
  chain = catalogues;
  current = tag;
  plurals = new Intl.PluralRules(tag);
}

/** The language shown (a BCP 47 tag). */
export function language() {
  return current;
}

/** The tags of every catalogue. */
export function languages() {
  return [...tags];
}

/**
 * A language's own name, written in that language ("español", "português (Portugal)").
 * @param {string} tag
 */
export function languageName(tag) {
  let name = tag;
  try { name = new Intl.DisplayNames([tag], { type: "language" }).of(tag) || tag; } catch { /* an old browser */ }
  return name[0].toLocaleUpperCase(tag) + name.slice(1);
}

/** @param {string} key @returns {Message | undefined} */
function lookUp(key) {
  for (const catalogue of chain) {
    if (Object.hasOwn(catalogue, key)) return catalogue[key];
  }
  return undefined;
}

/**
 * Whether a catalogue holds `key` (a message for a word the server may send, such as a bot's
 * level, that an older client may not know).
 * @param {string} key
 */
export function has(key) {
  return lookUp(key) !== undefined;
}

/**
 * The message `key` with its placeholders filled: numbers written for the language, a plural
 * message's form chosen by `count`.
 * @param {string} key
 * @param {Record<string, string | number>} [params]
 */
export function t(key, params = {}) {
  const message = lookUp(key);
  if (message === undefined) return key;
  const text = typeof message === "string" ? message : pluralForm(message, params.count);
  return text.replace(PLACEHOLDER, (whole, name) => {
    if (!Object.hasOwn(params, name)) return whole;
    const value = params[name];
    return typeof value === "number" ? number(value) : value;
  });
}

/**
 * The message `key` as page content: its placeholders may be nodes (a link, a strong word).
 * @param {string} key
 * @param {Record<string, Child>} parts
 * @returns {Child[]}
 */
export function tNodes(key, parts) {
  /** @type {Record<string, string | number>} */
  const plain = {};
  for (const [name, value] of Object.entries(parts)) {
    if (typeof value === "string" || typeof value === "number") plain[name] = value;
  }
  const text = t(key, plain);
  /** @type {Child[]} */
  const out = [];
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    const at = match.index || 0;
    out.push(text.slice(last, at));
    out.push(Object.hasOwn(parts, match[1]) ? parts[match[1]] : match[0]);
    last = at + match[0].length;
  }
  out.push(text.slice(last));
  return out.filter((part) => part !== "");
}

/**
 * @param {Record<string, string>} forms
 * @param {string | number | undefined} count
 */
function pluralForm(forms, count) {
  const n = typeof count === "number" ? count : Number(count);
  const category = plurals && Number.isFinite(n) ? plurals.select(n) : "other";
  return forms[category] ?? forms.other ?? Object.values(forms)[0] ?? "";
}

/**
 * A number as the language writes it.
 * @param {number} value
 * @param {Intl.NumberFormatOptions} [options]
 */
export function number(value, options) {
  return new Intl.NumberFormat(current, options).format(value);
}

/**
 * A share as a whole percentage, as the language writes it.
 * @param {number} share 0..1
 */
export function percentage(share) {
  return number(share, { style: "percent", maximumFractionDigits: 0 });
}

/**
 * A date (and time) as the language writes it.
 * @param {Date | number | string} when
 * @param {Intl.DateTimeFormatOptions} [options]
 */
export function date(when, options = { dateStyle: "medium" }) {
  return new Intl.DateTimeFormat(current, options).format(when instanceof Date ? when : new Date(when));
}

/**
 * Words joined as the language lists them ("a, b and c"; "a, b o c").
 * @param {readonly string[]} items
 * @param {"conjunction" | "disjunction" | "unit"} [type]
 */
export function list(items, type = "conjunction") {
  return new Intl.ListFormat(current, { style: "long", type }).format(items);
}

/**
 * A time since `when` ("3 minutes ago"), as the language writes it.
 * @param {number} seconds how long ago, in seconds
 */
export function ago(seconds) {
  const format = new Intl.RelativeTimeFormat(current, { numeric: "auto" });
  if (seconds < 60) return format.format(-Math.round(seconds), "second");
  if (seconds < 3600) return format.format(-Math.round(seconds / 60), "minute");
  if (seconds < 86400) return format.format(-Math.round(seconds / 3600), "hour");
  return format.format(-Math.round(seconds / 86400), "day");
}
