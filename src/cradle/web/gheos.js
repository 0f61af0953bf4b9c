// Gheos in the browser: the triangular map as SVG (our own drawing), tiles turned before placing,
// civilizations, followers and scoring. Actions come from the frame's legal_actions:
//   place|replace TILE CELL rN · start COLOUR REGION · take COLOUR · pay COLOUR
//   migrate COLOUR REGION · winner COLOUR · token · pass
// Cells are "row,col"; a cell points up when row + col is even. Edges are numbered clockwise,
// 0 being the horizontal one (up: s, nw, ne; down: n, se, sw); a tile turned r times puts its
// edge i on the cell's edge (i + r) % 3.

import { clear, put, dialog, el, svg, titleCase } from "./ui.js";

const S = 64; // side of a triangle
const H = (S * Math.sqrt(3)) / 2;
const EDGES_UP = ["s", "nw", "ne"];
const EDGES_DOWN = ["n", "se", "sw"];
const CIV_FILL = { red: "#c0392b", green: "#229954", yellow: "#f1c40f", blue: "#2471a3", black: "#212f3c", white: "#fdfefe" };
const PLAYER_ACCENT = ["#e67e22", "#8e44ad", "#17a589", "#c0392b"];
const LAND = "#a9c97a";
const COAST = "#ead9a4";
const WATER = "#86bfe0";

function parseCell(name) {
  const [row, col] = name.split(",").map(Number);
  return { row, col, up: (((row + col) % 2) + 2) % 2 === 0 };
}

/** The three corners of a cell, and for each edge name the pair of corners it joins. */
function corners(row, col) {
  const up = (((row + col) % 2) + 2) % 2 === 0;
  const cx = (col * S) / 2;
  const top = row * H;
  if (up) {
    const T = [cx, top];
    const BL = [cx - S / 2, top + H];
    const BR = [cx + S / 2, top + H];
    return { up, points: [T, BL, BR], edges: { s: [BL, BR], nw: [T, BL], ne: [T, BR] }, center: [cx, top + (2 * H) / 3] };
  }
  const TL = [cx - S / 2, top];
  const TR = [cx + S / 2, top];
  const B = [cx, top + H];
  return { up, points: [TL, TR, B], edges: { n: [TL, TR], se: [TR, B], sw: [B, TL] }, center: [cx, top + H / 3] };
}

const lerp = (a, b, t) => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
const pts = (list) => list.map((p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`).join(" ");

/** Polygons and an anchor point for a region touching `edges` (names) of the cell. */
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

const mid = ([a, b]) => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
const midpointOf = (list) => [list.reduce((s, p) => s + p[0], 0) / list.length, list.reduce((s, p) => s + p[1], 0) / list.length];

// -- symbols -----------------------------------------------------------------------------------

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

function templeIcon(kindOf, x, y) {
  return svg("g", { transform: `translate(${x.toFixed(1)},${y.toFixed(1)})`, class: "temple" },
    svg("path", { d: "M-10,-3 L0,-10 L10,-3 Z M-9,8 h18 v2 h-18 z", fill: "#f8f9f9", stroke: "#515a5a", "stroke-width": 1 }),
    svg("rect", { x: -8, y: -3, width: 16, height: 11, fill: "#f8f9f9", stroke: "#515a5a", "stroke-width": 1 }),
    symbolIcon(kindOf, 0, 2.5, 5));
}

function regionSymbols(region) {
  const list = [];
  for (const kind of ["wheat", "cup", "sword"]) for (let i = 0; i < (region[kind] || 0); i += 1) list.push(kind);
  for (let i = 0; i < (region.pyramid || 0); i += 1) list.push("pyramid");
  return list;
}

/** Where a civilization's marker sits in a region: in a corner, clear of the symbols. */
function markerPoint(geo, region) {
  if (!region.landmass) return lerp(mid(geo.edges[region.edges[0]]), geo.center, 0.5);
  if (region.edges.length === 3) return lerp(geo.points[0], geo.center, 0.42);
  const [a, b] = region.edges.map((e) => geo.edges[e]);
  const shared = a.find((p) => b.some((q) => q[0] === p[0] && q[1] === p[1])) || geo.points[0];
  return lerp(shared, geo.center, 0.42);
}

/** One tile's drawing on a cell: regions given with edge names of that cell. */
function drawTile(row, col, regions, { ghost = false, pyramidTile = false } = {}) {
  const geo = corners(row, col);
  const g = svg("g", { class: `tile-art${ghost ? " ghost" : ""}` });
  g.append(svg("polygon", { points: pts(geo.points), fill: WATER }));
  const anchors = [];
  for (const region of regions) {
    const shape = regionShape(geo, region.edges, region.landmass);
    const fill = region.landmass ? LAND : COAST;
    for (const poly of shape.polys) {
      g.append(svg("polygon", { points: pts(poly), fill, stroke: fill, "stroke-width": 0.8, "data-region": region.ref || "" }));
    }
    anchors.push([region, shape.anchor, markerPoint(geo, region)]);
  }
  for (const [region, [x, y]] of anchors) {
    const symbols = regionSymbols(region);
    const start = x - ((symbols.length - 1) * 11) / 2;
    symbols.forEach((kind, i) => g.append(symbolIcon(kind, start + i * 11, y + (region.temple ? 7 : 0))));
    if (region.temple) g.append(templeIcon(region.temple, x, y - (symbols.length ? 8 : 0)));
  }
  g.append(svg("polygon", { points: pts(geo.points), fill: "none", stroke: pyramidTile ? "#9a6b1f" : "#5d6d7e", "stroke-width": pyramidTile ? 1.6 : 1 }));
  return { g, anchors, geo };
}

/** A hand tile's regions (edges as tile numbers) turned onto a cell of the given direction. */
function turned(tile, rotation, up) {
  const names = up ? EDGES_UP : EDGES_DOWN;
  return tile.regions.map((r) => ({ ...r, edges: r.edges.map((i) => names[(i + rotation) % 3]) }));
}

/** Whether `region` of `cellName` is the region named by `ref` ("row,col:edge"). */
function markerRefs(ref, cellName, region) {
  const [cell, edge] = String(ref).split(":");
  return cell === cellName && region.edges.includes(edge);
}

function parseActions(actions) {
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

// -- the renderer --------------------------------------------------------------------------------

export function createRenderer(parts, ctx) {
  let frame = null;
  let options = {};
  let selectedTile = null; // tile id in hand
  const rotation = {}; // tile id -> 0..2
  let selectedCiv = null; // colour chosen to start

  function update(next, opts = {}) {
    frame = next;
    options = opts;
    const hand = (frame.hand || []).map((t) => t.tile);
    if (!options.interactive || !hand.includes(selectedTile)) selectedTile = null;
    if (!options.interactive) selectedCiv = null;
    draw();
  }

  function draw() {
    if (!frame) return;
    const legal = parseActions(options.interactive ? frame.legal_actions || [] : []);
    // With one tile in play, pick it for the player; likewise the rotation stays per tile.
    if (options.interactive && frame.phase === "tile" && !selectedTile && frame.hand?.length) {
      selectedTile = frame.hand[0].tile;
    }
    drawMap(legal);
    drawHand(legal);
    drawControls(legal);
    drawScores();
  }

  function regionIndex() {
    const byRef = new Map();
    for (const cell of frame.map || []) {
      for (const region of cell.regions) {
        for (const edge of region.edges) byRef.set(`${cell.cell}:${edge}`, region);
      }
    }
    return byRef;
  }

  function drawMap(legal) {
    const cells = frame.map || [];
    const key = selectedTile !== null ? `${selectedTile} r${rotation[selectedTile] || 0}` : null;
    const targets = key && legal.tiles[key] ? legal.tiles[key] : new Map();
    const handTile = (frame.hand || []).find((t) => t.tile === selectedTile);
    const byRef = regionIndex();
    // Region targets: start a civilization (after a colour is picked), or migrate.
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
    const all = [...cells.map((c) => c.cell), ...(options.interactive ? targets.keys() : []), ...(frame.frontier || [])].map(parseCell);
    const xs = all.flatMap((c) => [(c.col * S) / 2 - S / 2, (c.col * S) / 2 + S / 2]);
    const ys = all.flatMap((c) => [c.row * H, c.row * H + H]);
    // Never zoom closer than about 7 x 3 triangles: an early map is not one giant tile.
    const pad = 14;
    const spanX = Math.max(Math.max(...xs) - Math.min(...xs), 3.5 * S);
    const spanY = Math.max(Math.max(...ys) - Math.min(...ys), 3 * H);
    const minX = (Math.max(...xs) + Math.min(...xs)) / 2 - spanX / 2 - pad;
    const minY = (Math.max(...ys) + Math.min(...ys)) / 2 - spanY / 2 - pad;
    const width = spanX + 2 * pad;
    const height = spanY + 2 * pad;
    const root = svg("svg", { viewBox: `${minX.toFixed(1)} ${minY.toFixed(1)} ${width.toFixed(1)} ${height.toFixed(1)}`, class: "board gheos-board", role: "img", "aria-label": "the map" });
    root.append(svg("rect", { x: minX, y: minY, width, height, fill: "#d6eaf8", rx: 10 }));
    const civAnchors = [];
    for (const cell of cells) {
      const { g, anchors } = drawTile(cell.row, cell.col, cell.regions, { pyramidTile: cell.pyramid });
      const group = svg("g", { class: "cell", "data-cell": cell.cell }, g);
      for (const [region, , marker] of anchors) {
        const civ = region.civ && (frame.civilizations || {})[region.civ];
        if (civ && markerRefs(civ.ref, cell.cell, region)) civAnchors.push([region.civ, marker]);
        const action = regionTargets.get(region.area);
        if (action !== undefined) {
          group.classList.add("region-target");
          for (const poly of g.querySelectorAll(`[data-region="${region.ref}"]`)) {
            poly.classList.add("target-region");
            poly.addEventListener("click", (e) => { e.stopPropagation(); ctx.act(action); });
          }
        }
      }
      const action = targets.get(cell.cell);
      if (action) {
        group.classList.add("target");
        const geo = corners(cell.row, cell.col);
        const mark = svg("polygon", { points: pts(geo.points), class: "target-mark replace" });
        group.append(mark);
        mark.addEventListener("click", () => ctx.act(action));
        hoverGhost(group, cell.row, cell.col, handTile);
      }
      root.append(group);
    }
    // The empty triangles next to the map, faintly, so the grid can be read.
    for (const name of frame.frontier || []) {
      if (targets.has(name)) continue;
      const { row, col } = parseCell(name);
      root.append(svg("polygon", { points: pts(corners(row, col).points), class: "frontier" }));
    }
    for (const [name, action] of targets) {
      if (cells.some((c) => c.cell === name)) continue;
      const { row, col } = parseCell(name);
      const geo = corners(row, col);
      const group = svg("g", { class: "cell target empty", "data-cell": name },
        svg("polygon", { points: pts(geo.points), class: "target-mark" }));
      group.addEventListener("click", () => ctx.act(action));
      hoverGhost(group, row, col, handTile);
      root.append(group);
    }
    for (const [civ, [x, y]] of civAnchors) {
      root.append(svg("g", { class: "civ-marker", "data-civ": civ },
        svg("circle", { cx: x, cy: y, r: 7.5, fill: CIV_FILL[civ], stroke: civ === "white" ? "#555" : "#fff", "stroke-width": 2.5 }),
        svg("title", {}, `${civ} civilization`)));
    }
    put(parts.board, root);
  }

  function hoverGhost(group, row, col, tile) {
    if (!tile) return;
    group.addEventListener("mouseenter", () => {
      const up = parseCell(`${row},${col}`).up;
      const { g } = drawTile(row, col, turned(tile, rotation[tile.tile] || 0, up), { ghost: true });
      g.classList.add("ghost-preview");
      g.style.pointerEvents = "none";
      group.append(g);
    });
    group.addEventListener("mouseleave", () => group.querySelector(".ghost-preview")?.remove());
  }

  function drawHand(legal) {
    const seat = frame.table?.seat;
    clear(parts.hand);
    if (seat === null || seat === undefined) return;
    const hidden = options.hideHand;
    const hand = hidden ? [] : frame.hand || [];
    const tiles = hand.map((tile) => {
      const r = rotation[tile.tile] || 0;
      const { g } = drawTile(0, 0, turned(tile, r, true));
      const usable = Boolean(legal.tiles[`${tile.tile} r${r}`]) || Object.keys(legal.tiles).some((k) => k.startsWith(`${tile.tile} `));
      return el("div", { class: `hand-tile${tile.tile === selectedTile ? " selected" : ""}`, "data-tile": tile.tile },
        el("button", { class: "tile-pick", disabled: !usable, title: tile.text || tile.tile, onclick: () => { selectedTile = tile.tile; selectedCiv = null; draw(); } },
          svg("svg", { viewBox: `${-S / 2 - 3} -3 ${S + 6} ${H + 6}`, width: 118, height: 104 }, g)),
        el("button", { class: "btn small rotate", title: "turn the tile", "data-rotate": tile.tile,
          onclick: () => { rotation[tile.tile] = (r + 1) % 3; selectedTile = tile.tile; draw(); } }, "⟳ turn"));
    });
    parts.hand.append(el("div", { class: "card hand" },
      el("h3", {}, "Your tiles"),
      hidden ? el("p", { class: "muted" }, "hidden") : el("div", { class: "tiles gheos-hand", id: "hand-tiles" }, tiles)));
  }

  function drawControls(legal) {
    clear(parts.controls);
    if (!options.interactive) {
      if (frame.table?.can_undo) parts.controls.append(el("div", { class: "card control-row" }, el("button", { class: "btn", id: "undo", onclick: () => ctx.undo() }, "Undo")));
      return;
    }
    const rows = [];
    const phase = frame.phase;
    if (phase === "tile") {
      const key = selectedTile !== null ? `${selectedTile} r${rotation[selectedTile] || 0}` : null;
      const count = key && legal.tiles[key] ? legal.tiles[key].size : 0;
      rows.push(el("p", { class: "hint" }, count
        ? "Place or replace: pick a highlighted triangle (turn the tile first if you like)."
        : "This tile cannot go anywhere turned this way: turn it or pick the other one."));
    }
    if (phase === "civ") {
      rows.push(el("p", { class: "hint" }, "Start a civilization on a continent, or take a follower."));
      const startColours = Object.keys(legal.start);
      if (startColours.length) {
        rows.push(el("div", { class: "chip-row" }, el("span", {}, "Start: "), startColours.map((c) =>
          el("button", { class: `civ-chip${selectedCiv === c ? " selected" : ""}`, "data-start": c, style: `--civ:${CIV_FILL[c]}`,
            onclick: () => { selectedCiv = selectedCiv === c ? null : c; draw(); } }, c))));
        if (selectedCiv) rows.push(el("p", { class: "hint" }, `Pick a highlighted continent for the ${selectedCiv} civilization.`));
      }
      if (legal.take.length) {
        rows.push(el("div", { class: "chip-row" }, el("span", {}, "Take a follower: "), legal.take.map((a) => {
          const c = a.split(" ")[1];
          return el("button", { class: "civ-chip", "data-action": a, style: `--civ:${CIV_FILL[c]}`, onclick: () => ctx.act(a) }, c);
        })));
      }
    }
    if (phase === "token") {
      const gain = tokenGain();
      rows.push(el("p", { class: "hint" }, `Play a scoring token now (+${gain} for you), or keep it.`));
      if (legal.token) rows.push(el("button", { class: "btn primary", id: "token", "data-action": "token", onclick: () => ctx.act("token") }, `Score a token (+${gain})`));
    }
    if (legal.pass) rows.push(el("button", { class: "btn", id: "pass", "data-action": "pass", onclick: () => ctx.act("pass") }, phase === "token" ? "Keep the token" : "Pass"));
    if (frame.table?.can_undo) rows.push(el("button", { class: "btn", id: "undo", onclick: () => ctx.undo() }, "Undo"));
    parts.controls.append(el("div", { class: "card control-row" }, rows));
    parts.controls.append(allActions(frame.legal_actions, ctx));
  }

  function tokenGain() {
    const me = frame.players[frame.table.seat];
    const mine = (frame.followers || {})[me] || {};
    let total = 0;
    for (const [civ, n] of Object.entries(mine)) {
      const info = (frame.civilizations || {})[civ];
      const area = info ? (frame.areas || []).find((a) => a.area === info.area) : null;
      total += n * (area?.cup || 0);
    }
    return total;
  }

  function drawScores() {
    const seat = frame.table?.seat;
    const over = frame.table?.status === "over";
    const civs = Object.keys(CIV_FILL);
    const rows = frame.players.map((p, i) => el("tr", { class: i === seat ? "me" : "", "data-player": p },
      el("td", {}, el("span", { class: "dynasty-chip", style: `--accent:${PLAYER_ACCENT[i]}` }, titleCase(p)),
        frame.to_move === i && !over ? el("span", { class: "to-move", title: "decides now" }, " ●") : null),
      el("td", {}, el("strong", {}, String((frame.points || {})[p] ?? 0))),
      el("td", { class: "followers" }, civs.filter((c) => ((frame.followers || {})[p] || {})[c]).map((c) =>
        el("span", { class: "cube", style: `--civ:${CIV_FILL[c]}`, title: `${c} followers` }, String(frame.followers[p][c])))),
      el("td", {}, String((frame.tokens || {})[p] ?? 0))));
    const onBoard = Object.entries(frame.civilizations || {});
    put(parts.scores, el("div", { class: "card" },
      el("h3", {}, "Points"),
      el("table", { class: "score-table" },
        el("thead", {}, el("tr", {}, el("th", {}, ""), el("th", {}, "pts"), el("th", {}, "followers"), el("th", { title: "scoring tokens left" }, "tokens"))),
        el("tbody", {}, rows)),
      el("p", { class: "small" }, "Civilizations: ", onBoard.length ? onBoard.map(([c, info]) => {
        const area = (frame.areas || []).find((a) => a.area === info.area);
        return el("span", { class: "cube", style: `--civ:${CIV_FILL[c]}`, title: area ? `${c}: ${area.wheat} wheat, ${area.cup} cups, ${area.sword} swords, ${area.pyramid} pyramids` : c },
          `${info.supply} left`);
      }) : "none yet"),
      el("p", { class: "muted small" }, `Stack: ${frame.stack_size ?? "?"} tiles · epochs ${frame.epochs_drawn ?? 0} drawn, the game ends with the ${ordinal(frame.end_epoch)}`)));
  }

  return {
    update,
    clearSelection() { selectedCiv = null; },
    destroy() {},
  };
}

function ordinal(n) {
  if (!n) return "last";
  return `${n}${n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"}`;
}

function allActions(actions, ctx) {
  const list = el("div", { class: "action-list" });
  const filter = el("input", { type: "search", placeholder: "filter, e.g. place t3", oninput: () => fill() });
  function fill() {
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    const shown = actions.filter((a) => words.every((w) => a.includes(w))).slice(0, 120);
    put(list, shown.map((a) => el("button", { class: "btn small", "data-action": a, onclick: () => ctx.act(a) }, a)));
  }
  fill();
  return el("details", { class: "card all-actions" }, el("summary", {}, `Every legal action (${actions.length})`), filter, list);
}

// -- decisions in dialogs ------------------------------------------------------------------------

export function needsDialog(frame) {
  return ["pay", "migrate", "war"].includes(frame.phase) && (frame.legal_actions || []).length > 0;
}

export function openDialog(frame, ctx) {
  const p = frame.pending || {};
  const actions = frame.legal_actions;
  const button = (a, label) => ({ label, action: a, onclick: () => ctx.act(a) });
  const swords = Object.entries(p.swords || {}).map(([c, n]) => `${c} ${n}`).join(", ");
  if (frame.phase === "pay") {
    dialog({
      id: "decision",
      title: "Pay a follower",
      body: [el("p", {}, "Your tile starts a war or a migration: it costs you one of your followers.")],
      buttons: actions.map((a) => button(a, `Pay a ${a.split(" ")[1]} follower`)),
    });
  } else if (frame.phase === "migrate") {
    dialog({
      id: "decision",
      title: "Where does the civilization go?",
      body: [el("p", {}, "The continent split evenly: choose where the marker moves.")],
      buttons: actions.map((a) => button(a, `${titleCase(a.split(" ")[1])} to ${a.split(" ")[2]}`)),
    });
  } else {
    dialog({
      id: "decision",
      title: "A tied war",
      body: [el("p", {}, `The swords are even (${swords || "tied"}): you decide who wins.`)],
      buttons: actions.map((a) => button(a, `${titleCase(a.split(" ")[1])} wins`)),
    });
  }
}

export function resultTable(result, players) {
  return el("table", { class: "result-table", id: "result" },
    el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, "Player"), el("th", {}, "Points"), el("th", {}, "Followers"))),
    el("tbody", {}, result.map((r) => el("tr", { "data-place": r.place },
      el("td", {}, String(r.place)),
      el("td", {}, el("span", { class: "dynasty-chip", style: `--accent:${PLAYER_ACCENT[r.seat]}` }, titleCase(players[r.seat]))),
      el("td", {}, el("strong", {}, String(r.points ?? r.score))),
      el("td", {}, String(r.followers ?? 0))))),
    el("caption", {}, "Most points wins; ties go to the most followers."));
}
