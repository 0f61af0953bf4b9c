// @ts-check
// Tigris & Euphrates in the browser: the board as SVG (our own drawing), the hand, the decisions,
// and the game's words for the log, hints and the analysis. Everything the player may do comes
// from the frame's legal_actions (the engine's notation, docs/contract.md); the client only finds
// which cells and buttons each action belongs to, and asks the server why the others are not legal.

import { api } from "./api.js";
import { has, list, t, translateReason } from "./i18n.js";
import { BoardKeys } from "./keys.js";
import { nameAt, namedText, seatWord, seatingOf, whoAt } from "./names.js";
import { bringIntoView, clear, closeDialog, put, dialog, el, rememberFocus, svg, panel } from "./ui.js";

/** @typedef {import("./types").Attrs} Attrs */
/** @typedef {import("./keys.js").KeyCell} KeyCell */
/** @typedef {import("./types").BoardParts} BoardParts */
/** @typedef {import("./types").Child} Child */
/** @typedef {import("./types").DialogButton} DialogButton */
/** @typedef {import("./types").BoardFrame<import("./types").TigrisView>} TigrisFrame */
/** @typedef {import("./types").GameEvent} GameEvent */
/** @typedef {import("./types").Outcome} Outcome */
/** @typedef {import("./types").Pieces} Pieces */
/** @typedef {import("./types").RenderOptions} RenderOptions */
/** @typedef {import("./types").Renderer} Renderer */
/** @typedef {import("./types").Said} Said */
/** @typedef {import("./types").Seat} Seat */
/** @typedef {import("./types").Step} Step */
/** @typedef {import("./types").TableContext} TableContext */
/** @typedef {import("./types").TigrisColor} TigrisColor */
/** @typedef {import("./types").TigrisConflict} TigrisConflict */
/** @typedef {import("./types").TigrisPending} TigrisPending */
/** @typedef {import("./types").TigrisConflictResult} TigrisConflictResult */
/** @typedef {import("./types").TigrisMap} TigrisMap */
/** @typedef {import("./types").TigrisResult} TigrisResult */
/** @typedef {import("./types").TigrisRole} TigrisRole */
/** @typedef {import("./types").View} View */
/** @typedef {import("./types").Words} Words */
/** @typedef {import("./types").Named} Named */
/** @typedef {import("./types").Seating} Seating */

/**
 * The legal actions sorted by what they act on: the squares of each leader and tile colour,
 * the leaders that may withdraw, the catastrophe's squares, the swaps, and the rest.
 * @typedef {{
 *   leader: Record<string, Set<string>>, withdraw: Set<string>, tile: Record<string, Set<string>>,
 *   catastrophe: Set<string>, swap: string[], pass: boolean, other: string[],
 * }} Legal
 */

/**
 * The piece picked to place.
 * @typedef {{kind: "tile", color: string} | {kind: "leader", role: string} | {kind: "catastrophe"}} Selection
 */

/** @typedef {{leader: string | undefined, supporters: Set<string>}} ConflictSide */

export const name = "tigris";

const S = 40; // a cell's size in SVG units
const COLS = "ABCDEFGHIJKLMNOP";
/** @type {TigrisColor[]} */
const COLORS = ["red", "blue", "green", "black"];
/** @type {TigrisRole[]} */
const ROLES = ["king", "priest", "farmer", "trader"];
/** @type {Record<string, string>} */
const FILL = { red: "#c0392b", blue: "#2874a6", green: "#239b56", black: "#3b3f46" };
/** @type {Record<string, string>} */
const ROLE_COLOR = { king: "black", priest: "red", farmer: "blue", trader: "green" };
/** @type {Record<string, string>} */
const ROLE_OF_COLOR = { black: "king", red: "priest", blue: "farmer", green: "trader" };
/** @type {Record<string, string>} */
const DYNASTY_ACCENT = { archer: "#e67e22", bull: "#8e44ad", pot: "#17a589", lion: "#d4ac0d" };
// A conflict's rings: colours no dynasty and no tile has (the archer's orange read as "archer").
const ATTACK = "#e8178a";
const DEFEND = "#283593";
const CELL_RE = /^[A-P](?:[1-9]|1[01])$/i;

/** @type {Record<string, Promise<TigrisMap>>} */
const boards = {};

/** @param {string} board */
function boardMap(board) {
  if (!boards[board]) boards[board] = api.board("tigris", board);
  return boards[board];
}

/**
 * A square's top-left corner in SVG units.
 * @param {string} cell
 * @returns {[number, number]}
 */
function cellXY(cell) {
  const col = COLS.indexOf(cell[0].toUpperCase());
  const row = Number(cell.slice(1)) - 1;
  return [col * S, row * S];
}

/** @param {number} col @param {number} row */
function cellName(col, row) {
  return `${COLS[col]}${row + 1}`;
}

/** @param {string} cell */
function neighbours(cell) {
  const col = COLS.indexOf(cell[0]);
  const row = Number(cell.slice(1)) - 1;
  const out = [];
  for (const [dc, dr] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
    const c = col + dc;
    const r = row + dr;
    if (c >= 0 && c < 16 && r >= 0 && r < 11) out.push(cellName(c, r));
  }
  return out;
}

/** @param {string[]} players @param {Seat} seat */
export function seatColour(players, seat) {
  return DYNASTY_ACCENT[players[seat]] || "#7a7468";
}

// -- pictures ----------------------------------------------------------------------------------

/**
 * The dynasty's own symbol, drawn in a 20x20 box around (0, 0).
 * @param {string} dynasty
 */
function dynastySymbol(dynasty, color = "#fff") {
  /** @type {Attrs} */
  const stroke = { stroke: color, "stroke-width": 2, fill: "none", "stroke-linecap": "round", "stroke-linejoin": "round" };
  switch (dynasty) {
    case "archer": // a bow with its arrow
      return svg("g", {}, svg("path", { ...stroke, d: "M-4,-8 Q8,0 -4,8" }), svg("path", { ...stroke, "stroke-width": 1, d: "M-4,-8 L-4,8" }),
        svg("path", { ...stroke, d: "M-8,0 L8,0 M4,-3 L8,0 L4,3" }));
    case "bull": // a head with two horns
      return svg("g", {}, svg("path", { ...stroke, d: "M-8,-7 Q-8,-1 -3,0 M8,-7 Q8,-1 3,0" }),
        svg("ellipse", { cx: 0, cy: 3, rx: 4, ry: 5, fill: color }));
    case "pot": // a jar
      return svg("path", { d: "M-3,-8 L3,-8 L2,-5 Q8,0 4,7 L-4,7 Q-8,0 -2,-5 Z", fill: color });
    case "lion": // a mane around a face
      return svg("g", {},
        [0, 45, 90, 135, 180, 225, 270, 315].map((a) => svg("line", { ...stroke, x1: 0, y1: -6, x2: 0, y2: -9, transform: `rotate(${a})` })),
        svg("circle", { cx: 0, cy: 0, r: 4.5, fill: color }));
    default:
      return svg("text", { "text-anchor": "middle", y: 4, fill: color, "font-size": 12 }, dynasty[0].toUpperCase());
  }
}

/** @param {number} x @param {number} y */
function templeMark(x, y, color = "rgba(255,255,255,0.85)") {
  // A small stepped temple, so that red tiles read as temples and not only as red.
  return svg("path", { d: `M${x - 8},${y + 7} h16 v-3 h-3 v-3 h-3 v-4 h-4 v4 h-3 v3 h-3 z`, fill: color });
}

/**
 * The picture on a tile of a colour, centred on (x, y).
 * @param {string} color
 * @param {number} x
 * @param {number} y
 */
function tileMark(color, x, y) {
  const c = "rgba(255,255,255,0.8)";
  if (color === "red") return templeMark(x, y);
  if (color === "blue") return svg("path", { d: `M${x - 8},${y + 5} q4,-6 8,0 q4,6 8,0 M${x - 8},${y - 2} q4,-6 8,0 q4,6 8,0`, stroke: c, "stroke-width": 2, fill: "none" });
  if (color === "green") return svg("g", {}, svg("circle", { cx: x - 4, cy: y + 2, r: 3.5, fill: c }), svg("circle", { cx: x + 4, cy: y + 2, r: 3.5, fill: c }), svg("circle", { cx: x, cy: y - 4, r: 3.5, fill: c }));
  return svg("path", { d: `M${x - 7},${y + 7} v-8 l7,-6 l7,6 v8 z`, fill: c });
}

/** @param {number} x @param {number} y */
function treasureMark(x, y) {
  return svg("path", { d: `M${x},${y - 7} l7,7 l-7,7 l-7,-7 z`, fill: "#f4d03f", stroke: "#7d6608", "stroke-width": 1.5, class: "treasure" });
}

/** @param {string} dynasty @param {string} role @param {number} x @param {number} y */
function leaderToken(dynasty, role, x, y, size = 30) {
  const color = FILL[ROLE_COLOR[role]];
  const r = size / 2;
  return svg("g", { transform: `translate(${x},${y})` },
    svg("circle", { r, fill: color, stroke: DYNASTY_ACCENT[dynasty] || "#fff", "stroke-width": 3.5 }),
    svg("g", { transform: `scale(${size / 30})` }, dynastySymbol(dynasty)));
}

/** @param {number} x @param {number} y */
function catastropheArt(x, y) {
  return svg("g", { class: "catastrophe" }, svg("rect", { x: x + 2, y: y + 2, width: S - 4, height: S - 4, rx: 4, fill: "#5d4037" }),
    svg("path", { d: `M${x + 10},${y + 10} L${x + 30},${y + 30} M${x + 30},${y + 10} L${x + 10},${y + 30}`, stroke: "#ffab91", "stroke-width": 4, "stroke-linecap": "round" }));
}

/**
 * A tile of the hand as a button.
 * @param {string} color
 * @param {boolean} selected
 * @param {(() => void) | null} onclick
 * @param {Attrs} [attrs]
 */
function handTile(color, selected, onclick, attrs = {}) {
  return el("button", {
    class: `tile-btn ${color}${selected ? " selected" : ""}`,
    title: tileWords(color),
    "aria-label": tileWords(color),
    "data-color": color,
    onclick,
    ...attrs,
  }, svgIcon(tileMark(color, 0, 0)));
}

/** @param {Child} content */
function svgIcon(content, view = "-12 -12 24 24", size = 24) {
  return svg("svg", { viewBox: view, width: size, height: size, "aria-hidden": "true" }, content);
}

/**
 * A small square of a colour (points columns), drawn: no font needed.
 * @param {string} color
 */
function swatch(color) {
  return svg("svg", { viewBox: "0 0 10 10", width: 11, height: 11, "aria-hidden": "true", class: "swatch" },
    svg("rect", { x: 0.5, y: 0.5, width: 9, height: 9, rx: 1.5, fill: FILL[color] }));
}

function treasureIcon() {
  return svg("svg", { viewBox: "-8 -8 16 16", width: 12, height: 12, "aria-hidden": "true" }, treasureMark(0, 0));
}

// -- words --------------------------------------------------------------------------------------

/**
 * What the log, hints and analysis need to put the game in words (the seats named by their
 * people, where the frame's table knows them).
 * @param {string[]} players
 * @param {Named | null} [frame]
 * @param {Pieces} [_pieces]
 * @returns {Words}
 */
export function wordsFor(players, frame = null, _pieces = {}) {
  const seating = seatingOf(players, frame);
  return { players, who: whoAt(seating), named: (text) => namedText(text, seating), label: (cell) => cell };
}

/**
 * A tile by its colour: "temple (red)".
 * @param {string} color
 */
function tileWords(color) {
  return has(`tigris.tile.${color}`) ? t(`tigris.tile.${color}`) : color;
}

/**
 * A tile by its colour, with its article: "a temple (red)".
 * @param {string} color
 */
function aTile(color) {
  return has(`tigris.a_tile.${color}`) ? t(`tigris.a_tile.${color}`) : color;
}

/** @param {string} color a colour's own word ("red") */
function colourWord(color) {
  return has(`colour.${color}`) ? t(`colour.${color}`) : color;
}

/** @param {string} role a leader's word ("king") */
function roleWord(role) {
  return has(`tigris.role.${role}`) ? t(`tigris.role.${role}`) : role;
}

/** @param {string} color the war of a colour, with its leaders: "the red war (priests)" */
function warWords(color) {
  return has(`tigris.war.${color}`) ? t(`tigris.war.${color}`) : color;
}

/** @param {string} color the war of a colour: "the red war" */
function warShort(color) {
  return has(`tigris.war_short.${color}`) ? t(`tigris.war_short.${color}`) : color;
}

/** @param {string} color a war's title: "Red war (priests)" */
function capitalisedWar(color) {
  return has(`tigris.war_title.${color}`) ? t(`tigris.war_title.${color}`) : color;
}

/** @param {string} word with its first letter a capital */
function capitalisedWord(word) {
  return word ? word[0].toLocaleUpperCase() + word.slice(1) : word;
}

/** @param {string} color @param {number} count "2 red tiles" */
function tilesOf(color, count) {
  return has(`tigris.tiles.${color}`) ? t(`tigris.tiles.${color}`, { count }) : `${count} ${color}`;
}

/** @param {string} color @param {number} count "2 red points" */
function pointsOf(color, count) {
  return has(`tigris.points.${color}`) ? t(`tigris.points.${color}`, { count }) : `${count} ${color}`;
}

/** @param {string} pair a monument by its colours ("red-blue") */
function monumentWords(pair) {
  return t("tigris.monument", { colours: pair.split("-").map(colourWord).join("–") });
}

/** The board's labels never move in Tigris. */
export function originOf() {
  return null;
}

/**
 * An action in the player's words ("a temple (red) on K2").
 * @param {string} action
 * @param {Words | null} [words]
 */
export function describeAction(action, words = null) {
  const p = action.split(" ");
  /** @param {string | undefined} x */
  const cell = (x) => (x || "").toUpperCase();
  switch (p[0]) {
    case "tile": return t("tigris.do.tile", { tile: aTile(p[1]), cell: cell(p[2]) });
    case "leader": return t("tigris.do.leader", { role: roleWord(p[1]), cell: cell(p[2]) });
    case "withdraw": return t("tigris.do.withdraw", { role: roleWord(p[1]) });
    case "catastrophe": return t("tigris.do.catastrophe", { cell: cell(p[1]) });
    case "swap": return p.length === 2 && /^\d+$/.test(p[1]) ? t("tigris.do.swap_count", { count: Number(p[1]) })
      : t("tigris.do.swap", { count: p.length - 1, tiles: list(p.slice(1).map(colourWord)) });
    case "pass": return t("tigris.do.pass");
    case "commit": return t("tigris.do.commit", { count: Number(p[1]) });
    case "war": return t("tigris.do.war", { war: warWords(p[1]) });
    case "monument": return t("tigris.do.monument", { monument: monumentWords(p[1]), cell: cell(p[2]) });
    case "treasure": return t("tigris.do.treasure", { cell: cell(p[1]) });
    case "building": return t("tigris.do.building", { cell: cell(p[1]) });
    case "wonder": return t("tigris.do.wonder", { cell: cell(p[1]) });
    case "wonderpoint": return t("tigris.do.wonderpoint", { colour: colourWord(p[1]) });
    case "decline": return t("tigris.do.decline");
    default: return words ? action : action;
  }
}

/** @type {Record<string, string>} */
const STEP_KINDS = {
  tile: "tile", leader: "leader", withdraw: "leader", catastrophe: "catastrophe", swap: "swap",
  pass: "pass", commit: "conflict", war: "conflict", monument: "monument", treasure: "treasure",
  building: "building", wonder: "monument", wonderpoint: "monument", decline: "pass",
};

/**
 * A log entry: the action (in words) and what followed it (the engine's events).
 * @param {Step} step
 * @param {Words} words
 * @returns {Said}
 */
export function describeStep(step, words) {
  const kind = step.action.split(" ")[0];
  const details = [];
  const text = t("log.step", { name: words.who(step.seat), action: describeAction(step.action, words) });
  for (const event of step.events || []) {
    if (!event.text) continue;
    if (event.type === kind || (kind === "leader" && event.type === "leader") || event.type === "turn") continue;
    details.push(eventWords(event, words));
  }
  const turn = (step.events || []).find((e) => e.type === "turn");
  return { kind: STEP_KINDS[kind] || "other", text, details, turn: turn?.seat !== undefined ? words.who(turn.seat) : null };
}


/**
 * An engine event in the language, from its fields. Where the engine's event lacks a field that
 * its English sentence holds (a score's reason, the tile a catastrophe destroyed), that part is
 * read from the sentence; an event this client does not know keeps the engine's words.
 * @param {GameEvent} event
 * @param {Words} words
 */
export function eventWords(event, words) {
  const e = /** @type {Record<string, any>} */ (event);
  const who = (/** @type {unknown} */ seat) => words.who(Number(seat));
  const text = event.text || "";
  switch (event.type) {
    case "score": {
      const why = text.match(/\(([^()]*)\)$/)?.[1] || "";
      return t("tigris.event.score", { name: who(e.seat), points: pointsOf(e.color, e.amount), why: scoreWhy(why) });
    }
    case "leader_returned": return t("tigris.event.leader_returned", { name: who(e.seat), role: roleWord(e.role), cell: e.cell });
    case "revolt": return t("tigris.event.revolt", { attacker: who(e.attacker), defender: who(e.defender), role: roleWord(e.role) });
    case "unification": return e.wars?.length
      ? t("tigris.event.unification_war", { cell: e.cell, wars: list(e.wars.map(colourWord)) })
      : t("tigris.event.unification", { cell: e.cell });
    case "catastrophe": {
      const hit = text.match(/destroying a (\w+) tile/)?.[1];
      return hit ? t("tigris.event.catastrophe_hit", { name: who(e.seat), cell: e.cell, tile: aTile(hit) })
        : t("tigris.event.catastrophe", { name: who(e.seat), cell: e.cell });
    }
    case "unification_removed": return t("tigris.event.unification_removed");
    case "war": return t("tigris.event.war", { war: warShort(e.color), attacker: who(e.attacker), defender: who(e.defender) });
    case "commit": return t("tigris.event.commit", { name: who(e.seat), tiles: tilesOf(e.color, e.count) });
    case "decline": return t("tigris.event.decline");
    case "revolt_result": return t("tigris.event.revolt_result", { winner: who(e.winner), loser: who(e.loser), high: Math.max(e.attack, e.defence), low: Math.min(e.attack, e.defence) });
    case "war_result": {
      const color = text.match(/wins the (\w+) war/)?.[1] || "";
      return t("tigris.event.war_result", { winner: who(e.winner), loser: who(e.loser), war: warShort(color),
        high: Math.max(e.attack, e.defence), low: Math.min(e.attack, e.defence), tiles: tilesOf(color, (e.removed || []).length) });
    }
    case "building": return t("tigris.event.building", { building: buildingWords(e.color), cell: e.cell });
    case "wonder": return t("tigris.event.wonder", { cell: e.cell });
    case "monument": return t("tigris.event.monument", { monument: monumentWords(e.monument), cell: e.cell });
    case "treasure": return t("tigris.event.treasure", { name: who(e.seat), cell: e.cell });
    case "game_over": return text.includes("bag") ? t("tigris.event.over_bag") : t("tigris.event.over_treasures");
    default: return words.named(text);
  }
}

/**
 * A score's reason (the engine's words in parentheses) in the language.
 * @param {string} why
 */
function scoreWhy(why) {
  let m;
  if ((m = why.match(/^(\w+) tile on (\w+)(, by the king)?$/))) {
    return t(m[3] ? "tigris.why.tile_king" : "tigris.why.tile", { tile: tileWords(m[1]), cell: m[2] });
  }
  if (why === "revolt won") return t("tigris.why.revolt");
  if ((m = why.match(/^(\w+) war won$/))) return t("tigris.why.war", { war: warShort(m[1]) });
  if ((m = why.match(/^monument, (\w+)$/))) return t("tigris.why.monument", { role: roleWord(m[1]) });
  if (why === "the wonder") return t("tigris.why.wonder");
  return why;
}

/** @param {string} color a civilization building by its colour */
function buildingWords(color) {
  return has(`tigris.building.${color}`) ? t(`tigris.building.${color}`) : color;
}

/**
 * The squares an action names (for the last-move highlight).
 * @param {string} action
 */
export function cellsOf(action) {
  return action.split(" ").filter((w) => CELL_RE.test(w)).map((w) => w.toUpperCase());
}

/**
 * A hint's or analysis's reason in the player's words (Tigris's are already).
 * @param {string} text
 */
export function reasonWords(text) {
  return text;
}

/**
 * A revolt or war decided: its event.
 * @param {GameEvent} event
 * @returns {event is TigrisConflictResult}
 */
function isConflictResult(event) {
  return event.type === "revolt_result" || event.type === "war_result";
}

/**
 * A conflict decided by the last change: who won, by how much, and the tie rule.
 * @param {GameEvent[]} events
 * @param {TigrisFrame} frame
 * @returns {Outcome | null}
 */
export function conflictOutcome(events, frame) {
  const found = (events || []).find(isConflictResult);
  if (!found) return null;
  const me = frame.table?.seat;
  const seating = seatingOf(frame.view.players, frame);
  const who = whoAt(seating);
  const attacker = found.attack > found.defence ? found.winner : found.loser;
  const defender = attacker === found.winner ? found.loser : found.winner;
  /** @param {Seat} seat */
  const strength = (seat) => (seat === attacker ? found.attack : found.defence);
  const tie = found.attack === found.defence;
  const what = found.type === "revolt_result" ? t("tigris.the_revolt") : warShort(found.text.match(/the (\w+) war/)?.[1] || "");
  let title;
  let win = null;
  if (me === found.winner || me === found.loser) {
    win = me === found.winner;
    const other = win ? found.loser : found.winner;
    const key = `tigris.outcome.${win ? "win" : "lose"}${tie ? "_tie" : ""}`;
    title = t(key, { conflict: what, mine: strength(me), theirs: strength(other) });
  } else {
    title = t(`tigris.outcome.other${tie ? "_tie" : ""}`, { winner: who(found.winner), loser: who(found.loser), conflict: what, high: strength(found.winner), low: strength(found.loser) });
  }
  const lines = [
    t("tigris.outcome.sides", { attacker: who(attacker), attack: found.attack, defender: who(defender), defence: found.defence }),
    eventWords(found, { players: frame.view.players, who, named: (text) => namedText(text, seating), label: (cell) => cell }),
  ];
  return { title, lines, win };
}

// -- the legal actions, sorted by what they act on ----------------------------------------------

/** @param {string[]} actions @returns {Legal} */
function parseActions(actions) {
  /** @type {Legal} */
  const out = { leader: {}, withdraw: new Set(), tile: {}, catastrophe: new Set(), swap: [], pass: false, other: [] };
  for (const a of actions) {
    const p = a.split(" ");
    if (p[0] === "leader") (out.leader[p[1]] ||= new Set()).add(p[2]);
    else if (p[0] === "withdraw") out.withdraw.add(p[1]);
    else if (p[0] === "tile") (out.tile[p[1]] ||= new Set()).add(p[2]);
    else if (p[0] === "catastrophe") out.catastrophe.add(p[1]);
    else if (p[0] === "swap") out.swap.push(a);
    else if (p[0] === "pass") out.pass = true;
    else out.other.push(a);
  }
  return out;
}

/**
 * The cell a pending decision's action points at, if any ("treasure K1" -> K1).
 * @param {string} action
 */
function actionCell(action) {
  const words = action.split(" ");
  const last = words[words.length - 1];
  return CELL_RE.test(last) ? last.toUpperCase() : null;
}

/**
 * The leaders and supporting tiles of the conflict being decided, per side.
 * @param {TigrisFrame} frame
 * @returns {{attacker: ConflictSide, defender: ConflictSide} | null}
 */
function conflictCells(frame) {
  const p = frame.view.pending;
  if (!isConflict(p)) return null;
  const board = frame.view.board || {};
  const role = ROLE_OF_COLOR[p.color];
  /** @param {"attacker" | "defender"} side @returns {ConflictSide} */
  const sideOf = (side) => {
    const dynasty = frame.view.players[p[side]];
    const leader = Object.keys(board).find((c) => board[c] === `leader:${dynasty}:${role}`);
    /** @type {Set<string>} */
    const supporters = new Set();
    if (leader && p.kind === "revolt") {
      for (const n of neighbours(leader)) if (board[n] === "red" || board[n] === "red*") supporters.add(n);
    } else if (leader) {
      // The leader's side of the joined kingdom: what connects to it without the unification tile.
      const seen = new Set([leader]);
      const todo = [leader];
      let cell;
      while ((cell = todo.pop()) !== undefined) {
        for (const n of neighbours(cell)) {
          const v = board[n];
          if (seen.has(n) || !v || v === "catastrophe" || n === p.unification) continue;
          seen.add(n);
          todo.push(n);
          if (v === p.color || v === `${p.color}*`) supporters.add(n);
        }
      }
    }
    return { leader, supporters };
  };
  return { attacker: sideOf("attacker"), defender: sideOf("defender") };
}

/**
 * What lies on a square, in words (its tooltip, and what a tap on it says).
 * @param {TigrisFrame} frame
 * @param {TigrisMap | null} map
 * @param {string} cell
 */
function describeCell(frame, map, cell) {
  const board = frame.view.board || {};
  const value = board[cell];
  const river = (map?.river || []).includes(cell);
  const special = (map?.special || []).includes(cell);
  const parts = [];
  if (!value) parts.push(river ? t("tigris.cell.river") : t("tigris.cell.land"));
  else {
    const treasure = value.endsWith("*");
    const v = treasure ? value.slice(0, -1) : value;
    if (v === "catastrophe") parts.push(t("tigris.cell.catastrophe"));
    else if (v.startsWith("leader:")) {
      const [, dynasty, role] = v.split(":");
      const seat = frame.view.players.indexOf(dynasty);
      const name = seat < 0 ? seatWord(dynasty) : nameAt(seatingOf(frame.view.players, frame), seat);
      const leader = t(`tigris.leader_of.${ROLE_COLOR[role]}`);
      parts.push(name === seatWord(dynasty) // the symbol's name, where the person's is another
        ? t("tigris.cell.leader", { name, role: roleWord(role), leader })
        : t("tigris.cell.leader_symbol", { name, role: roleWord(role), dynasty: seatWord(dynasty), leader }));
    } else if (v.startsWith("wonder")) parts.push(t("tigris.cell.wonder_tile"));
    else if (v.startsWith("down:")) parts.push(t("tigris.cell.face_down", { tile: tileWords(v.slice(5)) }));
    else parts.push(tileWords(v));
    if (treasure) parts.push(t("tigris.cell.treasure"));
  }
  if (special) parts.push(t("tigris.cell.special"));
  for (const m of frame.view.monuments || []) {
    const [x, y] = cellXY(m.cell);
    const [cx, cy] = cellXY(cell);
    if (cx >= x && cx < x + 2 * S && cy >= y && cy < y + 2 * S) {
      parts.push(t("tigris.cell.monument", { monument: monumentWords(m.colors.join("-")), roles: list(m.colors.map((c) => roleWord(ROLE_OF_COLOR[c]))) }));
    }
  }
  for (const [color, at] of Object.entries(frame.view.buildings || {})) {
    if (at === cell) parts.push(t("tigris.cell.building", { building: buildingWords(color), tile: aTile(color) }));
  }
  if (frame.view.wonder && (value || "").startsWith("wonder")) parts.push(t("tigris.cell.wonder"));
  if (frame.view.unification === cell) parts.push(t("tigris.cell.unification"));
  return t("tigris.cell", { cell, about: parts.join("; ") });
}

/**
 * The start of the actions that place a selection ("tile red", "leader king", "catastrophe").
 * @param {Selection} selection
 */
function selectionPrefix(selection) {
  return selection.kind === "tile" ? `tile ${selection.color}` : selection.kind === "leader" ? `leader ${selection.role}` : "catastrophe";
}

// -- the renderer --------------------------------------------------------------------------------

/**
 * The board, the hand, the controls and the points of a Tigris table, drawn into `parts`.
 * @param {BoardParts} parts
 * @param {TableContext} ctx
 * @returns {Renderer}
 */
export function createRenderer(parts, ctx) {
  /** @type {Selection | null} */
  let selection = null;
  /** @type {TigrisFrame | null} */
  let frame = null;
  /** @type {RenderOptions} */
  let options = {};
  /** @type {TigrisMap | null} */
  let map = null;
  /** @type {string | null} */
  let mapName = null;
  /** @type {string | null} */
  let hinted = null; // a hint shown on the board: its action
  let why = ""; // why the square last pointed at is not legal
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let hover;
  let fit = localStorage.getItem("cradle.fit") === "1";
  const keys = new BoardKeys();

  /** @param {TigrisFrame} next @param {RenderOptions} [opts] */
  function update(next, opts = {}) {
    if (frame && next.table?.version !== frame.table?.version) { why = ""; hinted = null; }
    frame = next;
    options = opts;
    const board = String(next.view.options?.board || "standard");
    if (mapName !== board) {
      mapName = board;
      map = null;
      boardMap(board).then((m) => { map = m; draw(); }).catch(() => { map = { river: [], temples: [], special: [] }; draw(); });
    }
    if (!options.interactive) selection = null;
    draw();
  }

  /**
   * Pick a piece to place (the same one again: put it back).
   * @param {Selection | null} next
   */
  function choose(next) {
    selection = selection && next && selectionPrefix(selection) === selectionPrefix(next) ? null : next;
    why = "";
    draw();
  }

  function draw() {
    if (!frame) return;
    const legal = options.interactive ? parseActions(frame.legal_actions || []) : parseActions([]);
    const hand = rememberFocus(parts.hand);
    const controls = rememberFocus(parts.controls);
    drawBoard(frame, legal);
    drawHand(frame, legal);
    drawControls(frame, legal);
    drawScores(frame);
    hand();
    controls();
  }

  /**
   * The squares the selection may go to (or the pending choice's), with their actions.
   * @param {Legal} legal
   * @returns {Map<string, string>}
   */
  function targetsFor(legal) {
    if (!selection) {
      // A pending choice on the board (treasure, building, wonder): its cells are the targets.
      const cells = new Map();
      for (const a of legal.other) {
        const cell = actionCell(a);
        if (cell && !a.startsWith("monument")) cells.set(cell, a);
      }
      return cells;
    }
    const set = selection.kind === "tile" ? legal.tile[selection.color]
      : selection.kind === "leader" ? legal.leader[selection.role]
        : legal.catastrophe;
    const cells = new Map();
    for (const cell of set || []) cells.set(cell, `${prefix()} ${cell}`);
    return cells;
  }

  function prefix() {
    if (!selection) return null;
    return selectionPrefix(selection);
  }

  /**
   * A click (or tap) on a square no action of the selection reaches: say why.
   * @param {string} cell
   */
  function explainCell(cell, reveal = true) {
    if (!frame) return;
    const about = describeCell(frame, map, cell);
    if (!options.interactive) { setWhy(about); return; }
    if (!selection) {
      setWhy(frame.view.pending ? t("tigris.why_decide_first", { about }) : t("tigris.why_pick_first", { about }));
      return;
    }
    const action = `${prefix()} ${cell}`;
    setWhy(t("tigris.checking", { cell }));
    ctx.explain?.(action).then((reason) => {
      if (frame && selection && `${prefix()} ${cell}` === action) setWhy(reason ? t("tigris.not_on", { cell, reason: translateReason(reason) }) : about, reveal);
    });
  }

  /**
   * @param {string} text
   * @param {boolean} [reveal] scroll it into view (a tap's answer; not a passing mouse's)
   */
  function setWhy(text, reveal = false) {
    why = text;
    const line = parts.controls.querySelector("#why");
    if (line) line.textContent = text;
    if (line && reveal) bringIntoView(line);
  }

  /** @param {TigrisFrame} frame @param {Legal} legal */
  function drawBoard(frame, legal) {
    const board = frame.view.board || {};
    const river = new Set(map?.river || []);
    const special = new Set(map?.special || []);
    const targets = targetsFor(legal);
    const me = frame.table?.seat;
    const myDynasty = me !== null && me !== undefined ? frame.view.players[me] : null;
    const conflict = conflictCells(frame);
    const highlight = new Map(); // cell -> [{colour, fresh}]
    for (const h of options.highlights || []) {
      for (const cell of h.cells) {
        if (!highlight.has(cell)) highlight.set(cell, []);
        highlight.get(cell).push(h);
      }
    }
    const hintCell = hinted ? actionCell(hinted) : null;
    const refocus = keys.holdsFocus();
    const root = svg("svg", { viewBox: `-22 -22 ${16 * S + 26} ${11 * S + 26}`, class: "board tigris-board", role: "group", "aria-label": t("tigris.board_keys") });
    root.append(svg("rect", { x: -22, y: -22, width: 16 * S + 26, height: 11 * S + 26, fill: "#f7f1e1", rx: 8, "aria-hidden": "true" }));
    for (let c = 0; c < 16; c += 1) root.append(svg("text", { x: c * S + S / 2, y: -7, class: "coord", "aria-hidden": "true" }, COLS[c]));
    for (let r = 0; r < 11; r += 1) root.append(svg("text", { x: -11, y: r * S + S / 2 + 4, class: "coord", "aria-hidden": "true" }, String(r + 1)));
    const cellsLayer = svg("g");
    const overLayer = svg("g", { "aria-hidden": "true" });
    const markLayer = svg("g", { class: "marks", "aria-hidden": "true" });
    const focusLayer = svg("g", { class: "marks", "aria-hidden": "true" });
    root.append(cellsLayer, overLayer, markLayer, focusLayer);
    /** @type {KeyCell[]} */
    const keyCells = [];
    for (let r = 0; r < 11; r += 1) {
      for (let c = 0; c < 16; c += 1) {
        const cell = cellName(c, r);
        const x = c * S;
        const y = r * S;
        const content = board[cell];
        const g = svg("g", { class: "cell", "data-cell": cell });
        g.append(svg("rect", { x, y, width: S, height: S, class: river.has(cell) ? "river" : "land" }));
        if (special.has(cell)) {
          g.append(svg("path", { d: `M${x + S / 2},${y + 9} l4,8 l8,0 l-6,6 l3,8 l-9,-5 l-9,5 l3,-8 l-6,-6 l8,0 z`, class: `special${content ? " under" : ""}` }));
        }
        if (content) g.append(drawContent(content, x, y));
        const about = describeCell(frame, map, cell);
        g.append(svg("title", {}, about));
        const action = targets.get(cell);
        /** @type {() => void} */
        let activate;
        let label = about;
        if (action) {
          g.classList.add("target");
          g.append(svg("rect", { x: x + 3, y: y + 3, width: S - 6, height: S - 6, class: "target-mark", rx: 5 }));
          activate = () => ctx.act(action);
          label = t("keys.enter", { about, action: describeAction(action) });
        } else if (options.interactive && content?.startsWith(`leader:${myDynasty}:`) && (legal.leader[content.split(":")[2]] || legal.withdraw.has(content.split(":")[2]))) {
          const role = content.split(":")[2];
          g.classList.add("own-leader");
          activate = () => choose({ kind: "leader", role });
          label = t("tigris.keys.pick_leader", { about, role: roleWord(role) });
        } else {
          g.classList.add(selection ? "not-legal" : "idle");
          activate = () => explainCell(cell);
          if (selection) {
            // A mouse resting on a square for a moment asks why, like a tap does.
            g.addEventListener("mouseenter", () => { clearTimeout(hover); hover = setTimeout(() => explainCell(cell, false), 350); });
            g.addEventListener("mouseleave", () => clearTimeout(hover));
          }
        }
        g.addEventListener("click", activate);
        keyCells.push({ cell, col: c, row: r, node: g, label, activate, target: Boolean(action),
          ring: () => svg("rect", { x: x + 1, y: y + 1, width: S - 2, height: S - 2, rx: 6, class: "focus-ring" }) });
        cellsLayer.append(g);
        for (const h of highlight.get(cell) || []) {
          markLayer.append(svg("rect", { x: x + 1.5, y: y + 1.5, width: S - 3, height: S - 3, rx: 5, class: `last-move${h.fresh ? " fresh" : ""}`, stroke: h.colour, "data-last-seat": h.seat }));
        }
        if (hintCell === cell) markLayer.append(svg("rect", { x: x + 1, y: y + 1, width: S - 2, height: S - 2, rx: 6, class: "hinted" }));
      }
    }
    if (conflict) {
      /** @type {["attacker" | "defender", string][]} */
      const sides = [["attacker", ATTACK], ["defender", DEFEND]];
      for (const [side, colour] of sides) {
        const found = conflict[side];
        for (const cell of found.supporters) {
          const [x, y] = cellXY(cell);
          markLayer.append(svg("rect", { x: x + 4, y: y + 4, width: S - 8, height: S - 8, rx: 4, class: `supporter ${side}`, stroke: colour }));
        }
        if (found.leader) {
          const [x, y] = cellXY(found.leader);
          markLayer.append(svg("circle", { cx: x + S / 2, cy: y + S / 2, r: S / 2 - 1, class: `conflict-leader ${side}`, stroke: colour }));
        }
      }
    }
    for (const [color, cell] of Object.entries(frame.view.buildings || {})) {
      const [x, y] = cellXY(cell);
      overLayer.append(svg("g", { class: "building", "data-building": color },
        svg("path", { d: `M${x + 20},${y + 3} l13,9 v4 h-26 v-4 z`, fill: "#fdfefe", stroke: FILL[color], "stroke-width": 2.5 })));
    }
    for (const m of frame.view.monuments || []) {
      const [x, y] = cellXY(m.cell);
      const [a, b] = m.colors;
      overLayer.append(svg("g", { class: "monument", "data-monument": m.colors.join("-") },
        svg("path", { d: `M${x + 8},${y + 8} h${2 * S - 16} v${2 * S - 16} z`, fill: FILL[a], stroke: "#fff", "stroke-width": 2 }),
        svg("path", { d: `M${x + 8},${y + 8} v${2 * S - 16} h${2 * S - 16} z`, fill: FILL[b], stroke: "#fff", "stroke-width": 2 }),
        svg("rect", { x: x + 28, y: y + 28, width: 24, height: 24, fill: "#f5eedc", stroke: "#7b6a4a", "stroke-width": 2 })));
    }
    if (frame.view.wonder) {
      const [x, y] = cellXY(frame.view.wonder);
      overLayer.append(svg("path", {
        class: "wonder",
        d: `M${x},${y - S} h${S} v${S} h${S} v${S} h-${S} v${S} h-${S} v-${S} h-${S} v-${S} h${S} z`,
      }));
    }
    if (frame.view.unification) {
      const [x, y] = cellXY(frame.view.unification);
      overLayer.append(svg("rect", { x: x + 1.5, y: y + 1.5, width: S - 3, height: S - 3, class: "unification", rx: 4 }),
        svg("text", { x: x + S / 2, y: y + S - 4, class: "unification-label" }, t("tigris.unite")));
    }
    const wrap = el("div", { class: `board-scroll${fit ? " fit" : ""}` }, root);
    const note = el("div", { class: "scroll-note" },
      el("span", {}, fit ? t("tigris.fits") : t("tigris.scrolls")),
      el("button", { class: "btn small", id: "fit-board", onclick: () => { fit = !fit; localStorage.setItem("cradle.fit", fit ? "1" : "0"); draw(); } },
        fit ? t("tigris.bigger") : t("tigris.fit")));
    const scrollLeft = parts.board.querySelector(".board-scroll")?.scrollLeft ?? null;
    put(parts.board, note, wrap);
    if (scrollLeft !== null) wrap.scrollLeft = scrollLeft;
    keys.attach(root, focusLayer, keyCells, refocus);
    // On a narrow screen, bring another player's new move into view.
    const fresh = (options.highlights || []).find((h) => h.fresh)?.cells[0];
    if (fresh && wrap.scrollWidth > wrap.clientWidth + 4) {
      const [x] = cellXY(fresh);
      const scale = wrap.scrollWidth / (16 * S + 26);
      const left = (x + 22) * scale;
      if (left < wrap.scrollLeft || left + S * scale > wrap.scrollLeft + wrap.clientWidth) {
        wrap.scrollLeft = Math.max(0, left - wrap.clientWidth / 2);
      }
    }
  }

  /**
   * What lies on a square (a board value: "red*", "leader:bull:king", ...), drawn at (x, y).
   * @param {string} content
   * @param {number} x
   * @param {number} y
   */
  function drawContent(content, x, y) {
    const cx = x + S / 2;
    const cy = y + S / 2;
    const treasure = content.endsWith("*");
    const value = treasure ? content.slice(0, -1) : content;
    if (value === "catastrophe") return catastropheArt(x, y);
    if (value.startsWith("leader:")) {
      const [, dynasty, role] = value.split(":");
      return svg("g", { class: "leader", "data-leader": `${dynasty}:${role}` }, leaderToken(dynasty, role, cx, cy));
    }
    if (value.startsWith("wonder")) {
      return svg("g", {}, svg("rect", { x: x + 1, y: y + 1, width: S - 2, height: S - 2, fill: "#f0c75e" }), treasure ? treasureMark(cx, cy) : null);
    }
    const down = value.startsWith("down:");
    const color = down ? value.slice(5) : value;
    return svg("g", { class: `tile ${color}${down ? " down" : ""}` },
      svg("rect", { x: x + 2, y: y + 2, width: S - 4, height: S - 4, rx: 4, fill: FILL[color] || "#999", opacity: down ? 0.55 : 1 }),
      down ? null : tileMark(color, cx, cy + (treasure ? 5 : 0)),
      treasure ? treasureMark(cx, y + 11) : null);
  }

  /** @param {TigrisFrame} frame @param {Legal} legal */
  function drawHand(frame, legal) {
    const seat = frame.table?.seat;
    clear(parts.hand);
    if (seat === null || seat === undefined) return;
    const me = frame.view.players[seat];
    const hidden = options.hideHand;
    const hand = hidden ? [] : frame.view.hand || [];
    const supply = (frame.view.supply || {})[me] || [];
    parts.hand.append(el("div", { class: "card hand" },
      el("h2", { class: "section" }, options.past ? t("tigris.tiles_then") : t("tigris.your_tiles"), " ", el("span", { class: "dynasty-chip", style: `--accent:${DYNASTY_ACCENT[me]}` }, seatWord(me))),
      el("div", { class: "tiles", id: "hand-tiles" }, hidden ? el("p", { class: "muted" }, t("tigris.hidden")) :
        hand.map((color, i) => handTile(color, selection?.kind === "tile" && selection.color === color && hand.indexOf(color) === i,
          legal.tile[color] ? () => choose({ kind: "tile", color }) : null, { disabled: !legal.tile[color] }))),
      el("div", { class: "leaders" },
        ROLES.map((role) => {
          const inSupply = supply.includes(role);
          const usable = Boolean(legal.leader[role]);
          return el("button", {
            class: `leader-btn${selection?.kind === "leader" && selection.role === role ? " selected" : ""}${inSupply ? "" : " on-board"}`,
            "data-role": role,
            disabled: !usable,
            title: inSupply ? t("tigris.in_supply", { role: roleWord(role) }) : t("tigris.on_board", { role: roleWord(role) }),
            onclick: () => choose({ kind: "leader", role }),
          }, svg("svg", { viewBox: "-16 -16 32 32", width: 32, height: 32, "aria-hidden": "true" }, leaderToken(me, role, 0, 0, 28)), el("span", {}, roleWord(role)));
        }),
        el("button", {
          class: `leader-btn${selection?.kind === "catastrophe" ? " selected" : ""}`,
          "data-role": "catastrophe",
          disabled: !legal.catastrophe.size,
          title: t("tigris.catastrophe_title"),
          onclick: () => choose({ kind: "catastrophe" }),
        }, svg("svg", { viewBox: "0 0 40 40", width: 32, height: 32, "aria-hidden": "true" }, catastropheArt(0, 0)),
        el("span", {}, t("tigris.left", { count: (frame.view.catastrophes || {})[me] ?? 0 }))))));
  }

  /** @param {TigrisFrame} frame @param {Legal} legal */
  function drawControls(frame, legal) {
    clear(parts.controls);
    const table = frame.table;
    const buttons = [];
    if (selection) {
      const placing = selection.kind === "tile" ? t("tigris.place_tile", { tile: aTile(selection.color) })
        : selection.kind === "leader" ? t("tigris.place_leader", { role: roleWord(selection.role) }) : t("tigris.place_catastrophe");
      buttons.push(el("p", { class: "hint" }, placing));
      if (selection.kind === "leader" && legal.withdraw.has(selection.role)) {
        const withdraw = `withdraw ${selection.role}`;
        buttons.push(el("button", { class: "btn", "data-action": withdraw, onclick: () => ctx.act(withdraw) }, t("tigris.withdraw", { role: roleWord(selection.role) })));
      }
      buttons.push(el("button", { class: "btn quiet", onclick: () => choose(null) }, t("common.cancel")));
    } else if (options.interactive && !frame.view.pending) {
      buttons.push(el("p", { class: "hint" }, t("tigris.actions_left", { count: frame.view.actions_left ?? 0 })));
    }
    if (options.interactive && legal.swap.length) {
      buttons.push(el("button", { class: "btn", id: "swap", onclick: () => swapDialog(frame, legal, ctx) }, t("tigris.swap_tiles")));
    }
    if (options.interactive && legal.pass) {
      buttons.push(el("button", { class: "btn", id: "pass", "data-action": "pass", onclick: () => ctx.act("pass") }, frame.view.actions_left === 2 ? t("tigris.pass_turn") : t("tigris.end_turn")));
    }
    if (table?.can_undo && !options.past) buttons.push(el("button", { class: "btn", id: "undo", onclick: () => ctx.undo() }, t("common.undo")));
    // The line that says why a square is not legal (or what lies there): always present, so a
    // tap fills it in place; the card shows only when it has something to say.
    buttons.push(el("p", { class: "why", id: "why", "aria-live": "polite" }, why));
    parts.controls.append(el("div", { class: `card control-row${buttons.length === 1 ? " quiet-card" : ""}` }, buttons));
    if (options.interactive && frame.legal_actions?.length) parts.controls.append(allActions(frame.legal_actions, ctx));
  }

  /** @param {TigrisFrame} frame */
  function drawScores(frame) {
    const seat = frame.table?.seat;
    const over = frame.table?.status === "over";
    // Under the hot-seat cover, the next player's points are as hidden as the tiles.
    const points = options.hideHand ? {} : frame.view.points || {};
    const thinking = options.thinking;
    const rows = frame.view.players.map((p, i) => {
      const own = points[p];
      const supply = (frame.view.supply || {})[p] || [];
      return el("tr", { class: i === seat ? "me" : "", "data-player": p },
        // The dot's place is kept on every row: one appearing never widens the table.
        el("td", {}, el("span", { class: "dynasty-chip", style: `--accent:${DYNASTY_ACCENT[p]}`, title: seatWord(p) }, nameAt(frame.table, i)),
          frame.table.to_move === i && !over ? el("span", { class: `to-move${thinking === i ? " thinking" : ""}`, title: thinking === i ? t("common.thinking") : t("common.decides_now") })
            : el("span", { class: "to-move idle", "aria-hidden": "true" })),
        COLORS.map((c) => el("td", { class: `pts ${c}` }, own ? String(own[c]) : "?")),
        el("td", {}, String((frame.view.treasures || {})[p] ?? 0)),
        el("td", {}, String((frame.view.hand_sizes || {})[p] ?? "")),
        el("td", { class: "catastrophes-left", title: t("tigris.catastrophes_left") }, String((frame.view.catastrophes || {})[p] ?? 0)),
        el("td", { class: "supply", title: supply.length ? t("tigris.supply_list", { roles: list(supply.map(roleWord)) }) : t("tigris.supply_none") },
          svg("svg", { viewBox: "0 0 46 12", width: 46, height: 12, "aria-hidden": "true" },
            ROLES.map((role, k) => svg("circle", { cx: 6 + k * 11.3, cy: 6, r: 4.6, fill: supply.includes(role) ? FILL[ROLE_COLOR[role]] : "none", stroke: FILL[ROLE_COLOR[role]], "stroke-width": 1.2, "data-supply": supply.includes(role) ? role : null })))));
    });
    const left = frame.view.unused_monuments || [];
    put(parts.scores, el("div", { class: "card" },
      el("h2", { class: "section" }, t("tigris.points")),
      el("div", { class: "table-fit" }, el("table", { class: "score-table" },
        el("thead", {}, el("tr", {}, el("th", {}, el("span", { class: "sr-only" }, t("ratings.player"))),
          COLORS.map((c) => el("th", { class: `pts ${c}`, title: t("tigris.colour_points", { colour: colourWord(c) }) }, swatch(c),
            el("span", { class: "sr-only" }, t("tigris.colour_points", { colour: colourWord(c) })))),
          el("th", { title: t("tigris.treasures") }, treasureIcon(), el("span", { class: "sr-only" }, t("tigris.treasures"))), el("th", { title: t("tigris.in_hand") }, t("tigris.hand")),
          el("th", { title: t("tigris.catastrophes_left") }, svg("svg", { viewBox: "0 0 40 40", width: 13, height: 13, "aria-hidden": "true" }, catastropheArt(0, 0)),
            el("span", { class: "sr-only" }, t("tigris.catastrophes_left"))),
          el("th", { title: t("tigris.supply_title") }, el("span", { class: "sr-only" }, t("tigris.supply")),
            svg("svg", { viewBox: "0 0 46 12", width: 46, height: 12, "aria-hidden": "true" },
              ROLES.map((role, k) => svg("circle", { cx: 6 + k * 11.3, cy: 6, r: 4.6, fill: "none", stroke: FILL[ROLE_COLOR[role]], "stroke-width": 1.2 })))))),
        el("tbody", {}, rows))),
      el("p", { class: "small monuments-left", id: "monuments-left", "data-left": left.length },
        left.length ? t("tigris.monuments_left") : t("tigris.no_monument_left"),
        left.map((m) => el("span", { class: "monument-chip", "data-monument": m.join("-"), title: list(m.map(colourWord)) },
          svg("svg", { viewBox: "0 0 20 20", width: 18, height: 18, "aria-hidden": "true" },
            svg("path", { d: "M2,2 h16 v16 z", fill: FILL[m[0]] }), svg("path", { d: "M2,2 v16 h16 z", fill: FILL[m[1]] })),
          " ", m.map(colourWord).join("-")))),
      el("p", { class: "muted small" }, t("tigris.bag", { count: frame.view.bag_size ?? 0 }),
        over ? t("tigris.final_points") : frame.view.ending ? t("tigris.last_turn") : "",
        over ? "" : frame.view.options?.open_scoring ? t("tigris.open_scoring") : t("tigris.hidden_points"))));
  }

  /**
   * Show a hinted action on the board: its piece picked, its square marked.
   * @param {string} action
   */
  function preview(action) {
    const p = action.split(" ");
    hinted = action;
    if (p[0] === "tile") selection = { kind: "tile", color: p[1] };
    else if (p[0] === "leader") selection = { kind: "leader", role: p[1] };
    else if (p[0] === "catastrophe") selection = { kind: "catastrophe" };
    draw();
  }

  return {
    update,
    preview,
    clearSelection() { selection = null; hinted = null; },
    destroy() {},
  };
}

/**
 * Every legal action as a button, with a filter (for the rare action the board does not offer).
 * @param {string[]} actions
 * @param {TableContext} ctx
 */
function allActions(actions, ctx) {
  const shownList = el("div", { class: "action-list" });
  const filter = el("input", { type: "search", placeholder: t("tigris.filter"), oninput: () => fill() });
  function fill() {
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    const shown = actions.filter((a) => words.every((w) => a.toLowerCase().includes(w))).slice(0, 120);
    put(shownList, shown.map((a) => el("button", { class: "btn small", "data-action": a, title: describeAction(a), onclick: () => ctx.act(a) }, a)));
  }
  fill();
  return el("details", { class: "card all-actions" }, el("summary", {}, t("common.every_action", { count: actions.length })), filter, shownList);
}

/**
 * The swap: pick the tiles to discard, then confirm.
 * @param {TigrisFrame} frame
 * @param {Legal} legal
 * @param {TableContext} ctx
 */
function swapDialog(frame, legal, ctx) {
  const hand = frame.view.hand || [];
  const picked = new Array(hand.length).fill(false);
  const swaps = new Map(legal.swap.map((a) => [a.split(" ").slice(1).sort().join(" "), a]));
  const tiles = el("div", { class: "tiles" });
  const confirm = el("button", { class: "btn primary", disabled: true }, t("tigris.swap"));
  function render() {
    const kept = rememberFocus(tiles);
    put(tiles, hand.map((color, i) => handTile(color, picked[i], () => { picked[i] = !picked[i]; render(); },
      { "data-index": i, "aria-pressed": picked[i] ? "true" : "false" })));
    kept();
    const key = hand.filter((_, i) => picked[i]).sort().join(" ");
    const swap = swaps.get(key);
    confirm.disabled = !swap;
    confirm.onclick = () => { closeDialog(); if (swap) ctx.act(swap); };
  }
  render();
  dialog({
    id: "swap-dialog",
    title: t("tigris.swap_tiles"),
    body: [el("p", {}, t("tigris.swap_about")), tiles, confirm],
    dismissable: true,
  });
}

// -- decisions in the side panel -----------------------------------------------------------------

/**
 * Whether this seat decides in the side panel now (a conflict, a choice).
 * @param {TigrisFrame} frame
 */
export function needsDecision(frame) {
  return Boolean(frame.view.pending) && (frame.legal_actions || []).length > 0;
}

/**
 * One side of a conflict: its strength on the board and what it committed.
 * @param {TigrisFrame} frame
 * @param {TigrisConflict} p
 * @param {"attacker" | "defender"} who
 */
function strengthLine(frame, p, who) {
  const seat = p[who];
  const base = who === "attacker" ? p.attacker_strength : p.defender_strength;
  const committed = who === "attacker" ? p.attacker_commit : null;
  const total = committed === null || committed === undefined ? base : base + committed;
  const words = committed === null || committed === undefined ? t(`tigris.strength.${who}`, { base })
    : t(`tigris.strength.${who}_committed`, { base, committed });
  return el("div", { class: `strength ${who}` },
    el("span", { class: "dynasty-chip", style: `--accent:${DYNASTY_ACCENT[frame.view.players[seat]]}`, title: seatWord(frame.view.players[seat]) }, nameAt(seatingOf(frame.view.players, frame), seat)),
    " ", words, el("strong", {}, ` = ${total}`));
}

/**
 * The decision awaited from this seat, in a panel beside the board (never over it).
 * @param {HTMLElement} container
 * @param {TigrisFrame} frame
 * @param {TableContext} ctx
 */
export function openDecision(container, frame, ctx) {
  const p = frame.view.pending;
  if (!p) return;
  const actions = frame.legal_actions;
  /** @param {string} a @param {string} label @returns {DialogButton} */
  const button = (a, label) => ({ label, action: a, onclick: () => ctx.act(a) });
  const me = frame.table.seat;
  const hand = frame.view.hand || [];
  if (isConflict(p)) {
    const color = p.kind === "revolt" ? "red" : p.color;
    const mineCount = hand.filter((c) => c === color).length;
    const role = ROLE_OF_COLOR[p.color];
    const attack = p.attacker_strength + (p.attacker_commit ?? 0);
    const defender = nameAt(seatingOf(frame.view.players, frame), p.defender);
    const need = me === p.defender
      ? Math.max(0, attack - p.defender_strength)
      : null;
    panel(container, {
      title: p.kind === "revolt" ? t("tigris.revolt_over", { role: roleWord(role) }) : capitalisedWar(p.color),
      kind: "conflict",
      body: [
        el("p", {}, p.kind === "revolt" ? t("tigris.revolt_strength") : t("tigris.war_strength", { tiles: t(`tigris.tiles_word.${color}`) })),
        strengthLine(frame, p, "attacker"),
        strengthLine(frame, p, "defender"),
        el("p", { class: "tie-rule" }, el("strong", {}, t("tigris.tie_rule", { name: defender }))),
        el("p", {}, p.attacker === me ? t("tigris.you_attack", { tiles: tilesOf(color, mineCount) }) : t("tigris.you_defend", { tiles: tilesOf(color, mineCount) }),
          need !== null ? [" ", need > mineCount ? t("tigris.need_short", { count: need }) : t("tigris.need", { count: need })] : ""),
        el("p", { class: "muted small" }, t("tigris.rings")),
        p.queue?.length ? el("p", { class: "muted" }, t("tigris.wars_left", { wars: list(p.queue.map(colourWord)) })) : null,
      ],
      buttons: actions.map((a) => button(a, a.startsWith("commit ") ? t("tigris.commit_button", { count: Number(a.split(" ")[1]) }) : a)),
    });
  } else if (p.kind === "war_order") {
    panel(container, {
      title: t("tigris.which_war"),
      body: [el("p", {}, t("tigris.which_war_about"))],
      buttons: actions.map((a) => button(a, capitalisedWar(a.split(" ")[1]))),
    });
  } else if (p.kind === "monument") {
    panel(container, {
      title: t("tigris.monument_ask"),
      body: [el("p", {}, t("tigris.monument_about"))],
      buttons: actions.map((a) => a === "decline" ? { ...button(a, t("tigris.no_monument")), kind: "quiet" } : button(a, t("tigris.monument_on", { monument: monumentWords(a.split(" ")[1]), cell: a.split(" ")[2] }))),
    });
  } else if (p.kind === "treasure") {
    panel(container, {
      title: t("tigris.treasure_ask"),
      body: [el("p", {}, t("tigris.treasure_about"))],
      buttons: actions.map((a) => button(a, t("tigris.treasure_on", { cell: a.split(" ")[1] }))),
    });
  } else if (p.kind === "building") {
    panel(container, {
      title: t("tigris.building_ask"),
      body: [el("p", {}, t("tigris.building_about"))],
      buttons: actions.map((a) => a === "decline" ? { ...button(a, t("tigris.no_building")), kind: "quiet" } : button(a, t("tigris.building_on", { cell: a.split(" ")[1] }))),
    });
  } else if (p.kind === "wonder") {
    panel(container, {
      title: t("tigris.wonder_ask"),
      body: [el("p", {}, t("tigris.wonder_about"))],
      buttons: actions.map((a) => a === "decline" ? { ...button(a, t("tigris.no_wonder")), kind: "quiet" } : button(a, t("tigris.wonder_on", { cell: a.split(" ")[1] }))),
    });
  } else if (p.kind === "wonderpoint") {
    panel(container, {
      title: t("tigris.wonder_point"),
      body: [el("p", {}, t("tigris.wonder_point_about"))],
      buttons: actions.map((a) => button(a, capitalisedWord(colourWord(a.split(" ")[1])))),
    });
  } else {
    panel(container, { title: t("table.your_decision"), body: [], buttons: actions.map((a) => button(a, describeAction(a))) });
  }
}

/**
 * A revolt or war in progress (its sides and strengths are in every view of one).
 * @param {TigrisPending | null | undefined} p
 * @returns {p is TigrisConflict}
 */
function isConflict(p) {
  return Boolean(p) && (p?.kind === "revolt" || p?.kind === "war");
}

/**
 * What another seat is deciding now, when it is not ours (a conflict in progress).
 * @param {TigrisFrame} frame
 */
export function waitingFor(frame) {
  const p = frame.view.pending;
  if (!p || (p.kind !== "revolt" && p.kind !== "war") || frame.table.to_move === null) return null;
  const who = nameAt(seatingOf(frame.view.players, frame), frame.table.to_move);
  const color = p.kind === "revolt" ? "red" : p.color;
  return t(frame.table.to_move === p.attacker ? "tigris.waiting_attacker" : "tigris.waiting_defender", { name: who, tiles: t(`tigris.tiles_word.${color}`) });
}

/**
 * The final ranking: each colour's points, the treasures and the score.
 * @param {TigrisResult[]} result
 * @param {Seating} seating the seats' dynasties, kinds and people's names
 */
export function resultTable(result, seating) {
  const players = seating.players;
  // Each colour shows the points earned, and apart ("+1") the treasures placed on it: the
  // treasures are counted once, never inside a colour and again beside it.
  return el("div", { class: "table-fit" }, el("table", { class: "result-table", id: "result" },
    el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, t("ratings.player")), COLORS.map((c) => el("th", { class: `pts ${c}`, title: colourWord(c) }, swatch(c), el("span", { class: "sr-only" }, colourWord(c)))), el("th", { title: t("tigris.result_treasures") }, treasureIcon(), el("span", { class: "sr-only" }, t("tigris.treasures"))), el("th", {}, t("common.score")))),
    el("tbody", {}, result.map((r) => {
      const earned = r.points || r.final || {};
      const final = r.final || earned;
      return el("tr", { "data-place": r.place },
        el("td", {}, String(r.place)),
        el("td", {}, el("span", { class: "dynasty-chip", style: `--accent:${DYNASTY_ACCENT[players[r.seat]]}`, title: seatWord(players[r.seat]) }, nameAt(seating, r.seat))),
        COLORS.map((c) => {
          const added = (final[c] ?? 0) - (earned[c] ?? 0);
          return el("td", { class: `pts ${c}`, "data-colour": c }, String(earned[c] ?? 0),
            added > 0 ? el("span", { class: "treasure-added", title: t("tigris.treasures_here", { count: added }) }, ` +${added}`) : null);
        }),
        el("td", { "data-treasures": r.treasures ?? 0 }, String(r.treasures ?? 0)),
        el("td", {}, el("strong", {}, String(r.score))));
    })),
    el("caption", {}, t("tigris.result_caption"))));
}
