// @ts-check
// Gheos in the browser: the triangular map as SVG (our own drawing), tiles turned before placing,
// civilizations, followers and scoring, and the game in players' words: tiles by what is drawn on
// them, places by the grid labels on the map's edges (column letters, row numbers), continents by
// the colour of their civilization. Actions come from the frame's legal_actions:
//   place|replace TILE CELL rN · start COLOUR REGION · take COLOUR · pay COLOUR
//   migrate COLOUR REGION · winner COLOUR · token · pass
// Cells are "row,col"; a cell points up when row + col is even. Edges are numbered clockwise,
// 0 being the horizontal one (up: s, nw, ne; down: n, se, sw); a tile turned r times puts its
// edge i on the cell's edge (i + r) % 3.

import { has, list, t, translateReason } from "./i18n.js";
import { BoardKeys } from "./keys.js";
import { nameAt, namedText, seatWord, seatingOf, whoAt } from "./names.js";
import { bringIntoView, capitalised, clear, dialog, put, el, rememberFocus, svg, panel, icon } from "./ui.js";

/** @typedef {import("./types").BoardFrame<import("./types").GheosView>} GheosFrame */
/** @typedef {import("./types").BoardParts} BoardParts */
/** @typedef {import("./types").DialogButton} DialogButton */
/** @typedef {import("./types").GameEvent} GameEvent */
/** @typedef {import("./types").AreaView} AreaView */
/** @typedef {import("./types").CellView} CellView */
/** @typedef {import("./types").GheosEvent} GheosEvent */
/** @typedef {import("./types").HandTile} HandTile */
/** @typedef {import("./types").RegionView} RegionView */
/** @typedef {import("./types").GheosResult} GheosResult */
/** @typedef {import("./types").GheosView} GheosView */
/** @typedef {import("./types").GheosWords} GheosWords */
/** @typedef {import("./types").Named} Named */
/** @typedef {import("./types").Seating} Seating */
/** @typedef {import("./types").Origin} Origin */
/** @typedef {import("./types").Outcome} Outcome */
/** @typedef {import("./types").Piece} Piece */
/** @typedef {import("./types").PieceRegion} PieceRegion */
/** @typedef {import("./types").Pieces} Pieces */
/** @typedef {import("./types").RenderOptions} RenderOptions */
/** @typedef {import("./types").Renderer} Renderer */
/** @typedef {import("./types").Said} Said */
/** @typedef {import("./types").Seat} Seat */
/** @typedef {import("./types").Step} Step */
/** @typedef {import("./types").TableContext} TableContext */
/** @typedef {import("./keys.js").KeyCell} KeyCell */

/** @typedef {[number, number]} Point */
/**
 * A triangle's corners, its edges by name (each a pair of corners) and its centre.
 * @typedef {{up: boolean, points: Point[], edges: Record<string, [Point, Point]>, center: Point}} Geo
 */
/**
 * A region as drawn on a cell: its edges by the cell's names; a region of the map also has its
 * ref ("row,col:edge"), area and civilization.
 * @typedef {PieceRegion & {edges: string[], ref?: string, area?: number, civ?: string | null}} DrawnRegion
 */
/**
 * The legal actions sorted by what they act on: each tile's cells per rotation ("t12 r1"), each
 * colour's continents to start on, and the rest.
 * @typedef {{
 *   tiles: Record<string, Map<string, string>>, start: Record<string, Map<string, string>>,
 *   take: string[], pay: string[], migrate: string[], winner: string[], token: boolean,
 *   pass: boolean, other: string[],
 * }} Legal
 */
/**
 * A war decided: its civilizations and the winner.
 * @typedef {GheosEvent & {type: "war", civs: string[], winner: string}} WarEvent
 */

export const name = "gheos";

const S = 64; // side of a triangle
const H = (S * Math.sqrt(3)) / 2;
const EDGES_UP = ["s", "nw", "ne"];
const EDGES_DOWN = ["n", "se", "sw"];
/** @type {Record<string, string>} */
const CIV_FILL = { red: "#c0392b", green: "#229954", yellow: "#f1c40f", blue: "#2471a3", black: "#212f3c", white: "#fdfefe" };
const PLAYER_ACCENT = ["#e67e22", "#8e44ad", "#17a589", "#c0392b"];
const LAND = "#a9c97a";
const COAST = "#ead9a4";
const WATER = "#86bfe0";
const REF_RE = /(-?\d+),(-?\d+)(?::(?:n|s|ne|nw|se|sw))?/g;

/** @param {string | undefined} cell @returns {{row: number, col: number, up: boolean}} */
function parseCell(cell) {
  const [row, col] = String(cell).split(":")[0].split(",").map(Number);
  return { row, col, up: (((row + col) % 2) + 2) % 2 === 0 };
}

/** @param {string[]} _players @param {Seat} seat */
export function seatColour(_players, seat) {
  return PLAYER_ACCENT[seat] || "#7a7468";
}

/**
 * The three corners of a cell, and for each edge name the pair of corners it joins.
 * @param {number} row
 * @param {number} col
 * @returns {Geo}
 */
function corners(row, col) {
  const up = (((row + col) % 2) + 2) % 2 === 0;
  const cx = (col * S) / 2;
  const top = row * H;
  if (up) {
    /** @type {Point} */
    const T = [cx, top];
    /** @type {Point} */
    const BL = [cx - S / 2, top + H];
    /** @type {Point} */
    const BR = [cx + S / 2, top + H];
    return { up, points: [T, BL, BR], edges: { s: [BL, BR], nw: [T, BL], ne: [T, BR] }, center: [cx, top + (2 * H) / 3] };
  }
  /** @type {Point} */
  const TL = [cx - S / 2, top];
  /** @type {Point} */
  const TR = [cx + S / 2, top];
  /** @type {Point} */
  const B = [cx, top + H];
  return { up, points: [TL, TR, B], edges: { n: [TL, TR], se: [TR, B], sw: [B, TL] }, center: [cx, top + H / 3] };
}

/** @param {Point} a @param {Point} b @param {number} t @returns {Point} */
const lerp = (a, b, t) => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
/** @param {Point[]} list */
const pts = (list) => list.map((p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`).join(" ");

/**
 * Polygons and an anchor point for a region touching `edges` (names) of the cell.
 * @param {Geo} geo
 * @param {string[]} edges
 * @param {boolean} landmass
 * @returns {{polys: Point[][], anchor: Point}}
 */
function regionShape(geo, edges, landmass) {
  const c = geo.center;
  if (landmass) {
    const polys = edges.map((e) => [c, ...geo.edges[e]]);
    const anchor = edges.length === 3 ? c : lerp(c, midpointOf(edges.map((e) => mid(geo.edges[e]))), 0.45);
    return { polys, anchor };
  }
  const [a, b] = geo.edges[edges[0]];
  const depth = 0.42;
  const strip = [a, b, lerp(b, c, depth), lerp(a, c, depth)];
  return { polys: [strip], anchor: lerp(mid([a, b]), c, 0.22) };
}

/** @param {[Point, Point]} edge @returns {Point} */
const mid = ([a, b]) => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
/** @param {Point[]} list @returns {Point} */
const midpointOf = (list) => [list.reduce((s, p) => s + p[0], 0) / list.length, list.reduce((s, p) => s + p[1], 0) / list.length];

// -- words --------------------------------------------------------------------------------------

/**
 * A grid column's letters: 0 is A, 25 Z, 26 AA.
 * @param {number} n
 */
function letters(n) {
  let out = "";
  let k = n;
  do {
    out = String.fromCharCode(65 + (k % 26)) + out;
    k = Math.floor(k / 26) - 1;
  } while (k >= 0);
  return out;
}

/**
 * A count of a symbol ("a cup", "2 swords").
 * @param {number} n
 * @param {string} kind wheat, cup, sword or pyramid
 */
function counted(n, kind) {
  return t(`gheos.symbol.${kind}`, { count: n });
}

/** @param {string} civ a civilization by its colour: "the red civilization" */
function civWords(civ) {
  return has(`gheos.civ.${civ}`) ? t(`gheos.civ.${civ}`) : civ;
}

/** @param {string} civ a civilization's colour on its own ("Red") */
function civName(civ) {
  return has(`gheos.civ_name.${civ}`) ? t(`gheos.civ_name.${civ}`) : civ;
}

/** @param {string} civ @param {number} count "2 red followers" */
function followersOf(civ, count) {
  return has(`gheos.followers.${civ}`) ? t(`gheos.followers.${civ}`, { count }) : `${count} ${civ}`;
}

/**
 * What is drawn on a tile ({regions: [...]}), in words: "a wheat temple, 2 cups and a sword".
 * @param {{pyramid?: boolean, regions: PieceRegion[]} | undefined} piece
 */
export function tileContents(piece) {
  if (!piece) return null;
  const total = { wheat: 0, cup: 0, sword: 0, pyramid: 0 };
  /** @type {("wheat" | "cup" | "sword" | "pyramid")[]} */
  const kinds = ["wheat", "cup", "sword", "pyramid"];
  const temples = [];
  for (const r of piece.regions || []) {
    for (const k of kinds) total[k] += r[k] || 0;
    if (r.temple) temples.push(t(`gheos.temple.${r.temple}`));
  }
  const things = /** @type {string[]} */ ([
    ...temples,
    total.wheat ? counted(total.wheat, "wheat") : null,
    total.cup ? counted(total.cup, "cup") : null,
    total.sword ? counted(total.sword, "sword") : null,
    total.pyramid ? counted(total.pyramid, "pyramid") : null,
  ].filter(Boolean));
  const coasts = (piece.regions || []).filter((r) => !r.landmass).length;
  const shape = coasts === (piece.regions || []).length ? "coasts" : coasts ? "mixed" : "land";
  return things.length ? list(things) : t(`gheos.bare.${shape}`);
}

/**
 * What the log, hints, dialogs and the analysis need to put the game in words: the players
 * (named by their people where the frame's table knows them), the grid labels of the map as
 * it is on screen (`frame`), and the tiles by what is on them.
 * @param {string[]} players
 * @param {import("./types").Named<GheosView> | null} [frame]
 * @param {Pieces} [pieces]
 * @param {Origin | null} [origin]
 * @returns {GheosWords}
 */
export function wordsFor(players, frame, pieces = {}, origin = null) {
  /** @type {Pieces} */
  const known = { ...pieces };
  const cells = [];
  const view = frame?.view;
  for (const cell of view?.map || []) {
    known[cell.tile] ||= { pyramid: cell.pyramid, regions: cell.regions };
    cells.push(parseCell(cell.cell));
  }
  for (const tile of view?.hand || []) known[tile.tile] ||= { pyramid: false, regions: tile.regions };
  for (const cell of view?.frontier || []) cells.push(parseCell(cell));
  // Labels count from the map's top-left: the map on screen, or one given (a past board is
  // labelled like the board of now, so that every text on the screen agrees with it).
  const minRow = origin ? origin[0] : cells.length ? Math.min(...cells.map((c) => c.row)) : 0;
  const minCol = origin ? origin[1] : cells.length ? Math.min(...cells.map((c) => c.col)) : 0;
  const areas = new Map((view?.areas || []).map((a) => [a.ref, a]));
  const seating = seatingOf(players, frame);
  return {
    players,
    origin: [minRow, minCol],
    who: whoAt(seating),
    named: (text) => namedText(text, seating),
    label(ref) {
      const { row, col } = parseCell(ref);
      if (Number.isNaN(row) || Number.isNaN(col)) return String(ref);
      return `${letters(col - minCol)}${row - minRow + 1}`;
    },
    tile(name) {
      const contents = name === null || name === undefined ? null : tileContents(known[name]);
      return contents ? t("gheos.the_tile_with", { contents }) : t("gheos.a_tile");
    },
    area(ref) {
      return areas.get(ref) || null;
    },
  };
}

/**
 * Where the grid labels of `frame`'s map start (row, col): other boards of the game on the
 * same screen are labelled from it.
 * @param {GheosView} view
 */
export function originOf(view) {
  return wordsFor(view.players || [], { view }).origin;
}

/**
 * An action in the player's words.
 * @param {string} action
 * @param {GheosWords} words
 * @param {{turns?: boolean}} how whether to say how far to turn a tile (yes by default)
 */
export function describeAction(action, words, { turns = true } = {}) {
  const p = action.split(" ");
  // How far to turn a tile matters to the one who will place it (a hint), not in a log.
  const turned = turns ? Number(p[3]?.slice(1)) || 0 : 0;
  const how = turned ? `_turned${turned}` : "";
  switch (p[0]) {
    case "place": return t(`gheos.do.place${how}`, { tile: words.tile(p[1]), place: words.label(p[2]) });
    case "replace": return t(`gheos.do.replace${how}`, { tile: words.tile(p[1]), place: words.label(p[2]) });
    case "start": return t("gheos.do.start", { civ: civWords(p[1]), place: words.label(p[2]) });
    case "migrate": return t("gheos.do.migrate", { civ: civWords(p[1]), place: words.label(p[2]) });
    case "take": return t("gheos.do.take", { followers: followersOf(p[1], 1) });
    case "pay": return t("gheos.do.pay", { followers: followersOf(p[1], 1) });
    case "winner": return t("gheos.do.winner", { civ: civWords(p[1]) });
    case "token": return t("gheos.do.token");
    case "pass": return t("gheos.do.pass");
    default: return action;
  }
}

/**
 * An engine event in the language, from its fields. Where the engine's event lacks a field that
 * its English sentence holds (a war's civilizations removed, the scores of a scoring), that part
 * is read from the sentence; an event this client does not know keeps the engine's words.
 * @param {GheosEvent} event
 * @param {GheosWords} words
 */
function eventWords(event, words) {
  const e = /** @type {Record<string, any>} */ (event);
  const text = event.text || "";
  const seatOf = (/** @type {string} */ player) => words.players.indexOf(player);
  const whoIs = (/** @type {string} */ player) => (seatOf(player) >= 0 ? words.who(seatOf(player)) : seatWord(player));
  /** The player a sentence starts with ("north takes…"). */
  const first = () => whoIs(text.split(" ")[0]);
  /** "north 3, east 0": each player's points. */
  const scores = (/** @type {Record<string, number>} */ points) => list(Object.entries(points || {}).map(([p, n]) => t("gheos.player_points", { name: whoIs(p), count: n })));
  switch (event.type) {
    case "place": return t("gheos.event.place", { tile: words.tile(event.tile), place: words.label(event.cell) });
    case "replace": return t("gheos.event.replace", { tile: words.tile(event.tile), removed: words.tile(event.removed), place: words.label(event.cell) });
    case "migration": return t("gheos.event.migration", { civ: civWords(String(event.civ)), place: words.label(event.to) });
    case "start": return t("gheos.event.start", { civ: civWords(String(event.civ)), place: words.label(event.at), followers: followersOf(String(event.civ), Number(event.followers)) });
    case "conflict": return t(text.includes("migration") ? "gheos.event.conflict_migration" : "gheos.event.conflict_war", { name: whoIs(text.split("; ")[1]?.split(" ")[0] || "") });
    case "pay": return t("gheos.event.pay", { name: first(), followers: followersOf(e.colour, 1) });
    case "war": return t("gheos.event.war", { civs: list((e.civs || []).map(civWords)), winner: civWords(e.winner) });
    case "civ_removed": return t(text.includes("migrated into") ? "gheos.event.removed_migrated" : text.includes(" lost") ? "gheos.event.removed_lost" : "gheos.event.removed", { civ: civWords(e.civ) });
    case "temple": {
      const [, kind, civ] = text.match(/the (\w+) temple on the (\w+) continent/) || [];
      return kind ? t("gheos.event.temple_on", { name: whoIs(e.player), count: e.points, kind: t(`gheos.kind.${kind}`), continent: t(`gheos.continent.${civ}`) })
        : t("gheos.event.temple", { name: whoIs(e.player), count: e.points });
    }
    case "take": return t("gheos.event.take", { name: first(), followers: followersOf(e.civ, 1) });
    case "token": return t("gheos.event.token", { name: whoIs(e.player), count: e.points });
    case "end": return text.startsWith("epoch") ? t("gheos.event.end_epoch") : t("gheos.event.end_tokens");
    case "skip": return t("gheos.event.skip", { name: first() });
    case "epoch": return t("gheos.event.epoch", { name: first(), number: e.epoch });
    case "epoch_scoring": return t("gheos.event.epoch_scoring", { scores: scores(e.points) });
    case "final_scoring": return t("gheos.event.final_scoring", { scores: scores(e.points) });
    case "result": return t("gheos.event.result", { ranking: list((e.ranking || []).map((/** @type {Record<string, any>} */ r) => t("gheos.ranked", { place: r.place, name: whoIs(r.player), count: r.points }))) });
    default: return words.named(text);
  }
}

/** @type {Record<string, string>} */
const STEP_KINDS = {
  place: "tile", replace: "tile", start: "civ", take: "civ", migrate: "civ", pay: "conflict", winner: "conflict", token: "score", pass: "pass",
};

/**
 * A log entry: the action in words, then what followed it.
 * @param {Step} step
 * @param {GheosWords} words
 * @returns {Said}
 */
export function describeStep(step, words) {
  const kind = step.action.split(" ")[0];
  const details = [];
  for (const event of step.events || []) {
    if (event.type === kind && ["place", "replace", "start", "take", "token"].includes(kind)) continue;
    if (event.type === "draw") continue;
    details.push(eventWords(event, words));
  }
  const verb = describeAction(step.action, words, { turns: false });
  return {
    kind: STEP_KINDS[kind] || "other",
    text: t("log.step", { name: words.who(step.seat), action: verb }),
    details,
  };
}

/**
 * The cells an action names (for the last-move highlight).
 * @param {string} action
 */
export function cellsOf(action) {
  const p = action.split(" ");
  if (p[0] === "place" || p[0] === "replace") return [p[2]];
  if (p[0] === "start" || p[0] === "migrate") return [p[2].split(":")[0]];
  return [];
}

/**
 * A reason from the AI in the player's words: places by their grid label, tiles by contents.
 * @param {string} text
 * @param {GheosWords} words
 */
export function reasonWords(text, words) {
  return text
    .replace(/\bt(\d+)\b/g, (_m, n) => words.tile(`t${n}`))
    .replace(REF_RE, (m) => words.label(m));
}

/**
 * A war decided: its event.
 * @param {GameEvent} event
 * @returns {event is WarEvent}
 */
function isWar(event) {
  return event.type === "war";
}

/**
 * A war decided by the last change (a tied one needed a choice).
 * @param {GameEvent[]} events
 * @param {GheosFrame} frame
 * @returns {Outcome | null}
 */
export function conflictOutcome(events, frame) {
  const wars = (events || []).filter(isWar);
  if (!wars.length) return null;
  return {
    title: wars.map((w) => t("gheos.war_title", { winner: civWords(w.winner), losers: list(w.civs.filter((c) => c !== w.winner).map(civWords)) })).join(" · "),
    lines: (events || []).filter((e) => e.type === "civ_removed").map((e) => eventWords(e, wordsFor(frame.view.players, frame))),
    win: null,
  };
}

// -- symbols -----------------------------------------------------------------------------------

/**
 * A symbol drawn on a region (wheat, cup, sword, pyramid) centred on (x, y).
 * @param {string} kind
 * @param {number} x
 * @param {number} y
 */
function symbolIcon(kind, x, y, size = 9) {
  const k = size / 9;
  const g = svg("g", { transform: `translate(${x.toFixed(1)},${y.toFixed(1)}) scale(${k})`, class: `sym ${kind}` });
  if (kind === "wheat") {
    g.append(svg("path", { d: "M0,8 L0,-7", stroke: "#7d5a00", "stroke-width": 1.6 }),
      ...[-5, -1, 3].map((dy) => svg("ellipse", { cx: -2.4, cy: dy, rx: 2.2, ry: 1.3, fill: "#f4c430", stroke: "#7d5a00", "stroke-width": 0.6, transform: `rotate(-30 -2.4 ${dy})` })),
      ...[-5, -1, 3].map((dy) => svg("ellipse", { cx: 2.4, cy: dy, rx: 2.2, ry: 1.3, fill: "#f4c430", stroke: "#7d5a00", "stroke-width": 0.6, transform: `rotate(30 2.4 ${dy})` })));
  } else if (kind === "cup") {
    g.append(svg("path", { d: "M-6,-7 h12 q0,8 -6,9 v4 h4 v2 h-10 v-2 h4 v-4 q-6,-1 -6,-9 z", fill: "#d4ac0d", stroke: "#6e5a06", "stroke-width": 0.8 }));
  } else if (kind === "sword") {
    g.append(svg("path", { d: "M0,-9 L2,-6 L2,3 L-2,3 L-2,-6 Z", fill: "#d5dbdb", stroke: "#2c3e50", "stroke-width": 0.8 }),
      svg("path", { d: "M-6,3 h12 v2 h-12 z M-1,5 h2 v5 h-2 z", fill: "#6e2c00" }));
  } else if (kind === "pyramid") {
    g.append(svg("path", { d: "M0,-8 L9,7 L-9,7 Z", fill: "#e5c07b", stroke: "#7e5109", "stroke-width": 1 }),
      svg("path", { d: "M0,-8 L2,7", stroke: "#7e5109", "stroke-width": 0.8 }));
  }
  return g;
}

/**
 * A temple, with the symbol it is of.
 * @param {string} kindOf
 * @param {number} x
 * @param {number} y
 */
function templeIcon(kindOf, x, y) {
  return svg("g", { transform: `translate(${x.toFixed(1)},${y.toFixed(1)})`, class: "temple" },
    svg("path", { d: "M-10,-3 L0,-10 L10,-3 Z M-9,8 h18 v2 h-18 z", fill: "#f8f9f9", stroke: "#515a5a", "stroke-width": 1 }),
    svg("rect", { x: -8, y: -3, width: 16, height: 11, fill: "#f8f9f9", stroke: "#515a5a", "stroke-width": 1 }),
    symbolIcon(kindOf, 0, 2.5, 5));
}

/** @param {PieceRegion} region */
function regionSymbols(region) {
  const list = [];
  /** @type {("wheat" | "cup" | "sword")[]} */
  const kinds = ["wheat", "cup", "sword"];
  for (const kind of kinds) for (let i = 0; i < (region[kind] || 0); i += 1) list.push(kind);
  for (let i = 0; i < (region.pyramid || 0); i += 1) list.push("pyramid");
  return list;
}

/**
 * Where a civilization's marker sits in a region: in a corner, clear of the symbols.
 * @param {Geo} geo
 * @param {DrawnRegion} region
 */
function markerPoint(geo, region) {
  if (!region.landmass) return lerp(mid(geo.edges[region.edges[0]]), geo.center, 0.5);
  if (region.edges.length === 3) return lerp(geo.points[0], geo.center, 0.42);
  const [a, b] = region.edges.map((e) => geo.edges[e]);
  const shared = a.find((p) => b.some((q) => q[0] === p[0] && q[1] === p[1])) || geo.points[0];
  return lerp(shared, geo.center, 0.42);
}

/**
 * One tile's drawing on a cell: regions given with edge names of that cell.
 * @template {DrawnRegion} R
 * @param {number} row
 * @param {number} col
 * @param {R[]} regions
 * @param {{ghost?: boolean, pyramidTile?: boolean, titles?: ((region: R) => string) | null}} how
 */
function drawTile(row, col, regions, { ghost = false, pyramidTile = false, titles = null } = {}) {
  const geo = corners(row, col);
  const g = svg("g", { class: `tile-art${ghost ? " ghost" : ""}` });
  g.append(svg("polygon", { points: pts(geo.points), fill: WATER }));
  /** @type {[R, Point, Point][]} each region, where its symbols and its marker go */
  const anchors = [];
  for (const region of regions) {
    const shape = regionShape(geo, region.edges, region.landmass);
    const fill = region.landmass ? LAND : COAST;
    for (const poly of shape.polys) {
      const polygon = svg("polygon", { points: pts(poly), fill, stroke: fill, "stroke-width": 0.8, "data-region": region.ref || "", class: "region" });
      if (titles) polygon.append(svg("title", {}, titles(region)));
      g.append(polygon);
    }
    anchors.push([region, shape.anchor, markerPoint(geo, region)]);
  }
  for (const [region, [x, y]] of anchors) {
    const symbols = regionSymbols(region);
    const start = x - ((symbols.length - 1) * 11) / 2;
    symbols.forEach((kind, i) => g.append(symbolIcon(kind, start + i * 11, y + (region.temple ? 7 : 0))));
    if (region.temple) g.append(templeIcon(region.temple, x, y - (symbols.length ? 8 : 0)));
  }
  g.append(svg("polygon", { points: pts(geo.points), fill: "none", stroke: pyramidTile ? "#9a6b1f" : "#5d6d7e", "stroke-width": pyramidTile ? 1.6 : 1, class: "outline" }));
  return { g, anchors, geo };
}

/**
 * A hand tile's regions (edges as tile numbers) turned onto a cell of the given direction.
 * @param {HandTile} tile
 * @param {number} rotation
 * @param {boolean} up
 * @returns {DrawnRegion[]}
 */
function turned(tile, rotation, up) {
  const edgeNames = up ? EDGES_UP : EDGES_DOWN;
  return tile.regions.map((r) => ({ ...r, edges: r.edges.map((i) => edgeNames[(i + rotation) % 3]) }));
}

/**
 * Whether `region` of `cellName` is the region named by `ref` ("row,col:edge").
 * @param {string} ref
 * @param {string} cellName
 * @param {DrawnRegion} region
 */
function markerRefs(ref, cellName, region) {
  const [cell, edge] = String(ref).split(":");
  return cell === cellName && region.edges.includes(edge);
}

/** @param {string[]} actions @returns {Legal} */
function parseActions(actions) {
  /** @type {Legal} */
  const out = { tiles: {}, start: {}, take: [], pay: [], migrate: [], winner: [], token: false, pass: false, other: [] };
  for (const a of actions) {
    const p = a.split(" ");
    if (p[0] === "place" || p[0] === "replace") {
      const key = `${p[1]} r${p[3].slice(1)}`;
      (out.tiles[key] ||= new Map()).set(p[2], a);
    } else if (p[0] === "start") (out.start[p[1]] ||= new Map()).set(p[2], a);
    else if (p[0] === "take") out.take.push(a);
    else if (p[0] === "pay") out.pay.push(a);
    else if (p[0] === "migrate") out.migrate.push(a);
    else if (p[0] === "winner") out.winner.push(a);
    else if (p[0] === "token") out.token = true;
    else if (p[0] === "pass") out.pass = true;
    else out.other.push(a);
  }
  return out;
}

/**
 * An area in words: "the red continent: 3 wheat, a cup, 2 swords".
 * @param {AreaView | null | undefined} area
 */
function areaWords(area) {
  if (!area) return "";
  const things = /** @type {string[]} */ ([
    area.wheat ? counted(area.wheat, "wheat") : null,
    area.cup ? counted(area.cup, "cup") : null,
    area.sword ? counted(area.sword, "sword") : null,
    area.pyramid ? counted(area.pyramid, "pyramid") : null,
  ].filter(Boolean));
  const what = area.civ ? t(`gheos.continent.${area.civ}`) : area.kind === "continent" ? t("gheos.free_continent") : area.kind === "island" ? t("gheos.island") : t("gheos.lone_land");
  return things.length ? t("gheos.area", { area: what, symbols: list(things) }) : what;
}

/**
 * What an area holds, in words ("3 wheat, a cup"), or that it is bare.
 * @param {AreaView | null | undefined} area
 */
function areaSymbols(area) {
  if (!area) return "";
  const things = [["wheat", area.wheat], ["cup", area.cup], ["sword", area.sword], ["pyramid", area.pyramid]]
    .filter(([, n]) => n).map(([kind, n]) => counted(Number(n), String(kind)));
  return things.length ? list(things) : t("gheos.bare_area");
}

// -- the renderer --------------------------------------------------------------------------------

/**
 * The map, the hand, the controls and the points of a Gheos table, drawn into `parts`.
 * @param {BoardParts} parts
 * @param {TableContext} ctx
 * @returns {Renderer}
 */
export function createRenderer(parts, ctx) {
  /** @type {GheosFrame | null} */
  let frame = null;
  /** @type {RenderOptions} */
  let options = {};
  /** @type {string | null} */
  let selectedTile = null; // tile id in hand
  /** @type {Record<string, number>} */
  const rotation = {}; // tile id -> 0..2
  /** @type {string | null} */
  let selectedCiv = null; // colour chosen to start
  /** @type {string | null} */
  let hinted = null;
  let why = "";
  const keys = new BoardKeys();

  /** @param {GheosFrame} next @param {RenderOptions} [opts] */
  function update(next, opts = {}) {
    if (frame && next.table?.version !== frame.table?.version) { why = ""; hinted = null; }
    frame = next;
    options = opts;
    const hand = (next.view.hand || []).map((t) => t.tile);
    if (!options.interactive || selectedTile === null || !hand.includes(selectedTile)) selectedTile = null;
    if (!options.interactive) selectedCiv = null;
    draw();
  }

  /** @param {GheosFrame} frame */
  function words(frame) {
    return wordsFor(frame.view.players, frame, options.pieces || {}, options.origin || null);
  }

  function draw() {
    if (!frame) return;
    const legal = parseActions(options.interactive ? frame.legal_actions || [] : []);
    // With one tile in play, pick it for the player; likewise the rotation stays per tile.
    if (options.interactive && frame.view.phase === "tile" && !selectedTile && frame.view.hand?.length) {
      selectedTile = frame.view.hand[0].tile;
    }
    const hand = rememberFocus(parts.hand);
    const controls = rememberFocus(parts.controls);
    drawMap(frame, legal);
    drawHand(frame, legal);
    drawControls(frame, legal);
    drawScores(frame);
    hand();
    controls();
  }

  /**
   * Each region of the map by its refs ("row,col:edge", one per edge it touches).
   * @param {GheosFrame} frame
   */
  function regionIndex(frame) {
    /** @type {Map<string, RegionView>} */
    const byRef = new Map();
    for (const cell of frame.view.map || []) {
      for (const region of cell.regions) {
        for (const edge of region.edges) byRef.set(`${cell.cell}:${edge}`, region);
      }
    }
    return byRef;
  }

  /** @param {string} text */
  function setWhy(text) {
    why = text;
    const line = parts.controls.querySelector("#why");
    if (line) line.textContent = text;
  }

  /**
   * A click on a triangle no action of the chosen tile reaches: say why (the engine's words).
   * @param {string} cellName
   * @param {string | null} occupied the tile on it
   */
  function explainCell(cellName, occupied) {
    if (!frame) return;
    const w = words(frame);
    const label = w.label(cellName);
    if (!options.interactive || frame.view.phase !== "tile" || selectedTile === null) {
      setWhy(occupied ? t("gheos.place_holds", { place: label, tile: w.tile(occupied) }) : t("gheos.empty_place", { place: label }));
      return;
    }
    const action = `${occupied ? "replace" : "place"} ${selectedTile} ${cellName} r${rotation[selectedTile] || 0}`;
    setWhy(t("tigris.checking", { cell: label }));
    ctx.explain?.(action).then((reason) => {
      if (!reason) return;
      setWhy(t("gheos.not_at", { place: label, reason: reasonWords(translateReason(reason), w) }));
      const line = parts.controls.querySelector("#why");
      if (line) bringIntoView(line);
    });
  }

  /** @param {GheosFrame} frame @param {Legal} legal */
  function drawMap(frame, legal) {
    const cells = frame.view.map || [];
    const w = words(frame);
    const key = selectedTile !== null ? `${selectedTile} r${rotation[selectedTile] || 0}` : null;
    const targets = key && legal.tiles[key] ? legal.tiles[key] : new Map();
    const handTile = (frame.view.hand || []).find((t) => t.tile === selectedTile);
    const byRef = regionIndex(frame);
    const areaOf = new Map((frame.view.areas || []).map((a) => [a.area, a]));
    // Region targets: start a civilization (after a colour is picked), or migrate.
    /** @type {Map<number, string>} */
    const regionTargets = new Map(); // area id -> action
    if (selectedCiv && legal.start[selectedCiv]) {
      for (const [ref, action] of legal.start[selectedCiv]) {
        const region = byRef.get(ref);
        if (region) regionTargets.set(region.area, action);
      }
    }
    for (const action of legal.migrate) {
      const region = byRef.get(action.split(" ")[2]);
      if (region) regionTargets.set(region.area, action);
    }
    /** @type {Map<string, import("./types").Highlight>} */
    const highlight = new Map();
    for (const h of options.highlights || []) for (const cell of h.cells) highlight.set(cell, h);
    const all = [...cells.map((c) => c.cell), ...(options.interactive ? targets.keys() : []), ...(frame.view.frontier || [])].map(parseCell);
    const xs = all.flatMap((c) => [(c.col * S) / 2 - S / 2, (c.col * S) / 2 + S / 2]);
    const ys = all.flatMap((c) => [c.row * H, c.row * H + H]);
    // Never zoom closer than about 7 x 3 triangles: an early map is not one giant tile.
    const pad = 10;
    const spanX = Math.max(Math.max(...xs) - Math.min(...xs), 3.5 * S);
    const spanY = Math.max(Math.max(...ys) - Math.min(...ys), 3 * H);
    // The grid labels keep about 13 px on screen however far the map is zoomed.
    const pixels = parts.board.clientWidth || 800;
    const font = Math.max(9, (spanX * 13) / pixels);
    const margin = 1.8 * font;
    const minX = (Math.max(...xs) + Math.min(...xs)) / 2 - spanX / 2 - pad - margin;
    const minY = (Math.max(...ys) + Math.min(...ys)) / 2 - spanY / 2 - pad - margin;
    const width = spanX + 2 * pad + margin;
    const height = spanY + 2 * pad + margin;
    const refocus = keys.holdsFocus();
    const root = svg("svg", { viewBox: `${minX.toFixed(1)} ${minY.toFixed(1)} ${width.toFixed(1)} ${height.toFixed(1)}`, class: "board gheos-board", role: "group", "aria-label": t("gheos.map_keys") });
    root.append(svg("rect", { x: minX, y: minY, width, height, fill: "#d6eaf8", rx: 10, "aria-hidden": "true" }));
    /** @type {KeyCell[]} */
    const keyCells = [];
    /**
     * A triangle the keyboard reaches.
     * @param {string} name @param {SVGElement} node @param {string} label @param {() => void} activate @param {boolean} [target]
     */
    const reach = (name, node, label, activate, target = false) => {
      const { row, col } = parseCell(name);
      keyCells.push({ cell: name, col, row, node, label, activate, target,
        ring: () => svg("polygon", { points: pts(corners(row, col).points), class: "focus-ring" }) });
    };
    // The grid labels: column letters along the top, row numbers down the left.
    const [minRow] = w.origin;
    const cols = all.map((c) => c.col);
    const rows = all.map((c) => c.row);
    for (let col = Math.min(...cols); col <= Math.max(...cols); col += 1) {
      root.append(svg("text", { x: (col * S) / 2, y: minY + margin - font * 0.45, class: "grid-label", "font-size": font.toFixed(1), "aria-hidden": "true" }, w.label(`${minRow},${col}`).replace(/\d+$/, "")));
    }
    for (let row = Math.min(...rows); row <= Math.max(...rows); row += 1) {
      root.append(svg("text", { x: minX + margin / 2 + 1, y: row * H + H / 2 + font * 0.35, class: "grid-label", "font-size": font.toFixed(1), "aria-hidden": "true" }, String(row - minRow + 1)));
    }
    /** @type {[string, Point][]} each civilization's marker */
    const civAnchors = [];
    /** @param {RegionView} region */
    const titles = (region) => t("gheos.place_holds", { place: w.label(region.ref), tile: areaWords(areaOf.get(region.area)) || t("gheos.land") });
    for (const cell of cells) {
      const { g, anchors, geo } = drawTile(cell.row, cell.col, cell.regions, { pyramidTile: cell.pyramid, titles });
      const group = svg("g", { class: "cell", "data-cell": cell.cell, "data-label": w.label(cell.cell) }, g);
      const about = t("gheos.place_holds", { place: w.label(cell.cell), tile: w.tile(cell.tile) });
      group.append(svg("title", {}, about));
      let regionTarget = false;
      /** @type {string[]} the region targets' actions on this tile */
      const regionActions = [];
      for (const [region, , marker] of anchors) {
        if (region.civ) {
          const civ = (frame.view.civilizations || {})[region.civ];
          if (civ && markerRefs(civ.ref, cell.cell, region)) civAnchors.push([region.civ, marker]);
        }
        const action = regionTargets.get(region.area);
        if (action !== undefined) {
          regionTarget = true;
          if (!regionActions.includes(action)) regionActions.push(action);
          group.classList.add("region-target");
          for (const poly of /** @type {NodeListOf<SVGElement>} */ (g.querySelectorAll(`[data-region="${region.ref}"]`))) {
            poly.classList.add("target-region");
            poly.dataset.action = action;
          }
        }
      }
      if (regionTarget) {
        // One listener for the whole tile: a click on a symbol lands on its region below it.
        group.addEventListener("click", (e) => {
          const target = /** @type {Element} */ (e.target);
          const hit = /** @type {SVGElement | null | undefined} */ (target.closest?.("[data-action]"));
          const action = hit?.dataset.action;
          if (action) ctx.act(action);
        });
      }
      const action = targets.get(cell.cell);
      if (action) {
        group.classList.add("target");
        const mark = svg("polygon", { points: pts(geo.points), class: "target-mark replace" });
        group.append(mark);
        mark.addEventListener("click", () => ctx.act(action));
        hoverGhost(group, cell.row, cell.col, handTile);
        reach(cell.cell, group, t("keys.enter", { about, action: describeAction(action, w) }), () => ctx.act(action), true);
      } else if (regionTarget) {
        const said = list(regionActions.map((a) => describeAction(a, w)), "disjunction");
        reach(cell.cell, group, t("keys.enter", { about, action: said }), () => pickRegion(regionActions, w), true);
      } else {
        group.addEventListener("click", () => explainCell(cell.cell, cell.tile));
        reach(cell.cell, group, about, () => explainCell(cell.cell, cell.tile));
      }
      const h = highlight.get(cell.cell);
      if (h) group.append(svg("polygon", { points: pts(geo.points), class: `last-move${h.fresh ? " fresh" : ""}`, stroke: h.colour, "data-last-seat": h.seat }));
      if (hinted && cellsOf(hinted)[0] === cell.cell) group.append(svg("polygon", { points: pts(geo.points), class: "hinted" }));
      root.append(group);
    }
    // The empty triangles next to the map, faintly, so the grid can be read.
    for (const cellName of frame.view.frontier || []) {
      if (targets.has(cellName)) continue;
      const { row, col } = parseCell(cellName);
      const poly = svg("polygon", { points: pts(corners(row, col).points), class: "frontier", "data-cell": cellName },
        svg("title", {}, t("gheos.empty_place", { place: w.label(cellName) })));
      poly.addEventListener("click", () => explainCell(cellName, null));
      reach(cellName, poly, t("gheos.empty_place", { place: w.label(cellName) }), () => explainCell(cellName, null));
      root.append(poly);
      const h = highlight.get(cellName);
      if (h) root.append(svg("polygon", { points: pts(corners(row, col).points), class: `last-move${h.fresh ? " fresh" : ""}`, stroke: h.colour, "data-last-seat": h.seat }));
      if (hinted && cellsOf(hinted)[0] === cellName) root.append(svg("polygon", { points: pts(corners(row, col).points), class: "hinted" }));
    }
    for (const [cellName, action] of targets) {
      if (cells.some((c) => c.cell === cellName)) continue;
      const { row, col } = parseCell(cellName);
      const geo = corners(row, col);
      const group = svg("g", { class: "cell target empty", "data-cell": cellName },
        svg("polygon", { points: pts(geo.points), class: "target-mark" }),
        svg("title", {}, t("gheos.place_here", { place: w.label(cellName), tile: w.tile(selectedTile) })));
      if (hinted && cellsOf(hinted)[0] === cellName) group.append(svg("polygon", { points: pts(geo.points), class: "hinted" }));
      group.addEventListener("click", () => ctx.act(action));
      hoverGhost(group, row, col, handTile);
      reach(cellName, group, t("keys.enter", { about: t("gheos.empty_place", { place: w.label(cellName) }), action: describeAction(action, w) }), () => ctx.act(action), true);
      root.append(group);
    }
    const focusLayer = svg("g", { class: "marks", "aria-hidden": "true" });
    for (const [civ, [x, y]] of civAnchors) {
      const info = (frame.view.civilizations || {})[civ];
      root.append(svg("g", { class: "civ-marker", "data-civ": civ, "aria-hidden": "true" },
        svg("circle", { cx: x, cy: y, r: 7.5, fill: CIV_FILL[civ], stroke: civ === "white" ? "#555" : "#fff", "stroke-width": 2.5 }),
        svg("title", {}, info ? t("gheos.civ_supply", { civ: civWords(civ), count: info.supply }) : civWords(civ))));
    }
    root.append(focusLayer);
    put(parts.board, root);
    keys.attach(root, focusLayer, keyCells, refocus);
  }

  /**
   * Enter on a tile with more than one continent to choose: the choices, as buttons.
   * @param {string[]} actions
   * @param {GheosWords} w
   */
  function pickRegion(actions, w) {
    if (actions.length === 1) { ctx.act(actions[0]); return; }
    dialog({
      id: "region-choice",
      title: t("gheos.which_continent"),
      body: [el("p", {}, t("gheos.which_continent_about"))],
      buttons: actions.map((a) => ({ label: capitalised(describeAction(a, w)), action: a, onclick: () => ctx.act(a) })),
      dismissable: true,
    });
  }

  /**
   * The tile picked, drawn faintly on a target while the mouse is over it.
   * @param {SVGElement} group
   * @param {number} row
   * @param {number} col
   * @param {HandTile | undefined} tile
   */
  function hoverGhost(group, row, col, tile) {
    if (!tile) return;
    group.addEventListener("mouseenter", () => {
      const up = parseCell(`${row},${col}`).up;
      const { g } = drawTile(row, col, turned(tile, rotation[tile.tile] || 0, up), { ghost: true });
      g.classList.add("ghost-preview");
      group.append(g);
    });
    group.addEventListener("mouseleave", () => group.querySelector(".ghost-preview")?.remove());
  }

  /** @param {GheosFrame} frame @param {Legal} legal */
  function drawHand(frame, legal) {
    const seat = frame.table?.seat;
    clear(parts.hand);
    if (seat === null || seat === undefined) return;
    const hidden = options.hideHand;
    const hand = hidden ? [] : frame.view.hand || [];
    const tiles = hand.map((tile) => {
      const r = rotation[tile.tile] || 0;
      const { g } = drawTile(0, 0, turned(tile, r, true));
      const usable = Boolean(legal.tiles[`${tile.tile} r${r}`]) || Object.keys(legal.tiles).some((k) => k.startsWith(`${tile.tile} `));
      const about = t("gheos.the_tile_with", { contents: tileContents(tile) || "" });
      return el("div", { class: `hand-tile${tile.tile === selectedTile ? " selected" : ""}`, "data-tile": tile.tile },
        el("button", { class: "tile-pick", disabled: !usable, title: about, "aria-label": about, onclick: () => { selectedTile = tile.tile; selectedCiv = null; why = ""; draw(); } },
          svg("svg", { viewBox: `${-S / 2 - 3} -3 ${S + 6} ${H + 6}`, width: 118, height: 104, "aria-hidden": "true" }, g)),
        el("button", { class: "btn small rotate", title: t("gheos.turn_title"), "data-rotate": tile.tile,
          onclick: () => { rotation[tile.tile] = (r + 1) % 3; selectedTile = tile.tile; why = ""; draw(); } }, icon("turn", 16), " ", t("gheos.turn")));
    });
    parts.hand.append(el("div", { class: "card hand" },
      el("h2", { class: "section" }, options.past ? t("tigris.tiles_then") : t("tigris.your_tiles")),
      hidden ? el("p", { class: "muted" }, t("tigris.hidden")) : el("div", { class: "tiles gheos-hand", id: "hand-tiles" }, tiles)));
  }

  /** @param {GheosFrame} frame @param {Legal} legal */
  function drawControls(frame, legal) {
    clear(parts.controls);
    const w = words(frame);
    if (!options.interactive) {
      const rows = [];
      if (frame.table?.can_undo && !options.past) rows.push(el("button", { class: "btn", id: "undo", onclick: () => ctx.undo() }, t("common.undo")));
      rows.push(el("p", { class: "why", id: "why", "aria-live": "polite" }, why));
      parts.controls.append(el("div", { class: `card control-row${rows.length === 1 ? " quiet-card" : ""}` }, rows));
      return;
    }
    const rows = [];
    const phase = frame.view.phase;
    if (phase === "tile") {
      const key = selectedTile !== null ? `${selectedTile} r${rotation[selectedTile] || 0}` : null;
      const count = key && legal.tiles[key] ? legal.tiles[key].size : 0;
      rows.push(el("p", { class: "hint" }, count
        ? t("gheos.place_or_replace")
        : t("gheos.cannot_go")));
    }
    if (phase === "civ") {
      rows.push(el("p", { class: "hint" }, t("gheos.start_or_take")));
      const startColours = Object.keys(legal.start);
      if (startColours.length) {
        rows.push(el("div", { class: "chip-row" }, el("span", {}, t("gheos.start")), " ", startColours.map((c) =>
          el("button", { class: `civ-chip${selectedCiv === c ? " selected" : ""}`, "data-start": c, style: `--civ:${CIV_FILL[c]}`,
            onclick: () => { selectedCiv = selectedCiv === c ? null : c; draw(); } }, civName(c)))));
        if (selectedCiv) rows.push(el("p", { class: "hint" }, t("gheos.pick_continent", { civ: civWords(selectedCiv) })));
      }
      if (legal.take.length) {
        rows.push(el("div", { class: "chip-row" }, el("span", {}, t("gheos.take_follower")), " ", legal.take.map((a) => {
          const c = a.split(" ")[1];
          const info = (frame.view.civilizations || {})[c];
          const area = info ? (frame.view.areas || []).find((x) => x.area === info.area) : null;
          return el("button", { class: "civ-chip", "data-action": a, style: `--civ:${CIV_FILL[c]}`, title: areaWords(area), onclick: () => ctx.act(a) }, civName(c));
        })));
      }
    }
    if (phase === "token") {
      const gain = tokenGain(frame);
      rows.push(el("p", { class: "hint" }, t("gheos.token_now", { gain })));
      if (legal.token) rows.push(el("button", { class: "btn primary", id: "token", "data-action": "token", onclick: () => ctx.act("token") }, t("gheos.token_button", { gain })));
    }
    if (legal.pass) rows.push(el("button", { class: "btn", id: "pass", "data-action": "pass", onclick: () => ctx.act("pass") }, phase === "token" ? t("gheos.keep_token") : t("gheos.pass")));
    if (frame.table?.can_undo) rows.push(el("button", { class: "btn", id: "undo", onclick: () => ctx.undo() }, t("common.undo")));
    rows.push(el("p", { class: "why", id: "why", "aria-live": "polite" }, why));
    parts.controls.append(el("div", { class: "card control-row" }, rows));
    parts.controls.append(allActions(frame.legal_actions, ctx, w));
  }

  /**
   * The points a scoring token would give this seat now: its followers times their cups.
   * @param {GheosFrame} frame
   */
  function tokenGain(frame) {
    const seat = frame.table.seat;
    if (seat === null) return 0;
    const me = frame.view.players[seat];
    const mine = (frame.view.followers || {})[me] || {};
    let total = 0;
    for (const [civ, n] of Object.entries(mine)) {
      const info = (frame.view.civilizations || {})[civ];
      const area = info ? (frame.view.areas || []).find((a) => a.area === info.area) : null;
      total += n * (area?.cup || 0);
    }
    return total;
  }

  /** @param {GheosFrame} frame */
  function drawScores(frame) {
    const seat = frame.table?.seat;
    const over = frame.table?.status === "over";
    const civs = Object.keys(CIV_FILL);
    const thinking = options.thinking;
    const rows = frame.view.players.map((p, i) => el("tr", { class: i === seat ? "me" : "", "data-player": p },
      el("td", {}, el("span", { class: "dynasty-chip", style: `--accent:${PLAYER_ACCENT[i]}`, title: seatWord(p) }, nameAt(frame.table, i)),
        frame.table.to_move === i && !over ? el("span", { class: `to-move${thinking === i ? " thinking" : ""}`, title: thinking === i ? t("common.thinking") : t("common.decides_now") }) : null),
      el("td", {}, el("strong", {}, String((frame.view.points || {})[p] ?? 0))),
      el("td", { class: "followers" }, civs.filter((c) => ((frame.view.followers || {})[p] || {})[c]).map((c) =>
        el("span", { class: "cube", style: `--civ:${CIV_FILL[c]}`, title: followersOf(c, frame.view.followers[p][c]) }, String(frame.view.followers[p][c])))),
      el("td", {}, String((frame.view.tokens || {})[p] ?? 0)),
      el("td", {}, String((frame.view.hand_sizes || {})[p] ?? ""))));
    const onBoard = Object.entries(frame.view.civilizations || {});
    put(parts.scores, el("div", { class: "card" },
      el("h2", { class: "section" }, t("tigris.points")),
      el("table", { class: "score-table" },
        el("thead", {}, el("tr", {}, el("th", {}, el("span", { class: "sr-only" }, t("ratings.player"))), el("th", {}, t("gheos.pts")), el("th", {}, t("gheos.followers")), el("th", { title: t("gheos.tokens_title") }, t("gheos.tokens")), el("th", { title: t("tigris.in_hand") }, t("tigris.hand")))),
        el("tbody", {}, rows)),
      el("p", { class: "small" }, t("gheos.civilizations"), " ", onBoard.length ? onBoard.map(([c, info]) => {
        const area = (frame.view.areas || []).find((a) => a.area === info.area);
        return el("span", { class: "cube", style: `--civ:${CIV_FILL[c]}`, title: areaWords(area) },
          t("tigris.left", { count: info.supply }));
      }) : t("gheos.none_yet")),
      el("p", { class: "muted small" }, frame.view.end_epoch
        ? t("gheos.stack", { count: frame.view.stack_size ?? 0, drawn: frame.view.epochs_drawn ?? 0, end: frame.view.end_epoch })
        : t("gheos.stack_last", { count: frame.view.stack_size ?? 0, drawn: frame.view.epochs_drawn ?? 0 }))));
  }

  /**
   * Show a hinted action: its tile picked and turned, its triangle marked.
   * @param {string} action
   */
  function preview(action) {
    const p = action.split(" ");
    hinted = action;
    if (p[0] === "place" || p[0] === "replace") {
      selectedTile = p[1];
      rotation[p[1]] = Number(p[3].slice(1)) || 0;
    } else if (p[0] === "start") selectedCiv = p[1];
    draw();
  }

  return {
    update,
    preview,
    clearSelection() { selectedCiv = null; hinted = null; },
    destroy() {},
  };
}

/**
 * Every legal action in words, with a filter.
 * @param {string[]} actions
 * @param {TableContext} ctx
 * @param {GheosWords} words
 */
function allActions(actions, ctx, words) {
  const shownList = el("div", { class: "action-list" });
  const filter = el("input", { type: "search", placeholder: t("gheos.filter"), oninput: () => fill() });
  /** @type {[string, string][]} each action and its words */
  const labelled = actions.map((a) => [a, describeAction(a, words)]);
  function fill() {
    const wanted = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    // The words of the language or of the notation ("take red"), whichever the person types.
    const shown = labelled.filter(([a, text]) => wanted.every((x) => text.toLowerCase().includes(x) || a.toLowerCase().includes(x))).slice(0, 120);
    put(shownList, shown.map(([a, text]) => el("button", { class: "btn small", "data-action": a, onclick: () => ctx.act(a) }, text)));
  }
  fill();
  return el("details", { class: "card all-actions" }, el("summary", {}, t("common.every_action", { count: actions.length })), filter, shownList);
}

// -- decisions in the side panel -----------------------------------------------------------------

/**
 * Whether this seat decides in the side panel now (a war, a migration).
 * @param {GheosFrame} frame
 */
export function needsDecision(frame) {
  return ["pay", "migrate", "war"].includes(frame.view.phase) && (frame.legal_actions || []).length > 0;
}

/**
 * The decision awaited from this seat: pay a follower, where a civilization goes, a tied war.
 * @param {HTMLElement} container
 * @param {GheosFrame} frame
 * @param {TableContext} ctx
 */
export function openDecision(container, frame, ctx) {
  const p = frame.view.pending;
  const actions = frame.legal_actions;
  const w = wordsFor(frame.view.players, frame);
  /** @param {string} a @param {string} label @returns {DialogButton} */
  const button = (a, label) => ({ label, action: a, onclick: () => ctx.act(a) });
  const swords = list(Object.entries(p?.swords || {}).map(([c, n]) => t("gheos.civ_swords", { civ: civName(c), swords: counted(n, "sword") })));
  if (frame.view.phase === "pay") {
    panel(container, {
      title: t("gheos.pay_title"),
      body: [el("p", {}, t("gheos.pay_about", { place: w.label(p?.cell || "") }))],
      buttons: actions.map((a) => button(a, capitalised(t("gheos.do.pay", { followers: followersOf(a.split(" ")[1], 1) })))),
    });
  } else if (frame.view.phase === "migrate") {
    panel(container, {
      title: t("gheos.migrate_title"),
      body: [el("p", {}, t("gheos.migrate_about"))],
      buttons: actions.map((a) => {
        const [, civ, ref] = a.split(" ");
        const area = w.area(ref);
        return button(a, area ? t("gheos.migrate_to_holding", { civ: civName(civ), place: w.label(ref), symbols: areaSymbols(area) })
          : t("gheos.migrate_to", { civ: civName(civ), place: w.label(ref) }));
      }),
    });
  } else {
    panel(container, {
      title: t("gheos.tied_title"),
      body: [el("p", {}, swords ? t("gheos.tied_about", { swords }) : t("gheos.tied_about_plain"))],
      buttons: actions.map((a) => button(a, t("gheos.civ_wins", { civ: civName(a.split(" ")[1]) }))),
    });
  }
}

/** Gheos has no decision of another seat to describe. */
export function waitingFor() {
  return null;
}

/**
 * The final ranking: points and followers.
 * @param {GheosResult[]} result
 * @param {Seating} seating the seats' game names, kinds and people's names
 */
export function resultTable(result, seating) {
  return el("table", { class: "result-table", id: "result" },
    el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, t("ratings.player")), el("th", {}, t("tigris.points")), el("th", {}, t("gheos.followers_title")))),
    el("tbody", {}, result.map((r) => el("tr", { "data-place": r.place },
      el("td", {}, String(r.place)),
      el("td", {}, el("span", { class: "dynasty-chip", style: `--accent:${PLAYER_ACCENT[r.seat]}`, title: seatWord(seating.players[r.seat]) }, nameAt(seating, r.seat))),
      el("td", {}, el("strong", {}, String(r.points ?? r.score))),
      el("td", {}, String(r.followers ?? 0))))),
    el("caption", {}, t("gheos.result_caption")));
}
