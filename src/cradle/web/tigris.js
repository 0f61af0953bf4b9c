// Tigris & Euphrates in the browser: the board as SVG (our own drawing), the hand, the decisions.
// Everything the player may do comes from the frame's legal_actions (the engine's notation,
// docs/contract.md); the client only finds which cells and buttons each action belongs to.

import { api } from "./api.js";
import { clear, put, dialog, el, svg, titleCase } from "./ui.js";

const S = 40; // a cell's size in SVG units
const COLS = "ABCDEFGHIJKLMNOP";
const COLORS = ["red", "blue", "green", "black"];
const FILL = { red: "#c0392b", blue: "#2874a6", green: "#239b56", black: "#3b3f46" };
const ROLE_COLOR = { king: "black", priest: "red", farmer: "blue", trader: "green" };
const ROLE_OF_COLOR = { black: "king", red: "priest", blue: "farmer", green: "trader" };
const DYNASTY_ACCENT = { archer: "#e67e22", bull: "#8e44ad", pot: "#17a589", lion: "#d4ac0d" };
const TILE_NAME = { red: "temple", blue: "farm", green: "market", black: "settlement" };
const BUILDING_NAME = { black: "palace", red: "library", green: "market hall", blue: "granary" };

const boards = {};

function boardMap(name) {
  if (!boards[name]) boards[name] = api.board("tigris", name);
  return boards[name];
}

function cellXY(cell) {
  const col = COLS.indexOf(cell[0].toUpperCase());
  const row = Number(cell.slice(1)) - 1;
  return [col * S, row * S];
}

function cellName(col, row) {
  return `${COLS[col]}${row + 1}`;
}

// -- pictures ----------------------------------------------------------------------------------

/** The dynasty's own symbol, drawn in a 20x20 box around (0, 0). */
function dynastySymbol(dynasty, color = "#fff") {
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

function templeMark(x, y, color = "rgba(255,255,255,0.85)") {
  // A small stepped temple, so that red tiles read as temples and not only as red.
  return svg("path", { d: `M${x - 8},${y + 7} h16 v-3 h-3 v-3 h-3 v-4 h-4 v4 h-3 v3 h-3 z`, fill: color });
}

function tileMark(color, x, y) {
  const c = "rgba(255,255,255,0.8)";
  if (color === "red") return templeMark(x, y);
  if (color === "blue") return svg("path", { d: `M${x - 8},${y + 5} q4,-6 8,0 q4,6 8,0 M${x - 8},${y - 2} q4,-6 8,0 q4,6 8,0`, stroke: c, "stroke-width": 2, fill: "none" });
  if (color === "green") return svg("g", {}, svg("circle", { cx: x - 4, cy: y + 2, r: 3.5, fill: c }), svg("circle", { cx: x + 4, cy: y + 2, r: 3.5, fill: c }), svg("circle", { cx: x, cy: y - 4, r: 3.5, fill: c }));
  return svg("path", { d: `M${x - 7},${y + 7} v-8 l7,-6 l7,6 v8 z`, fill: c });
}

function treasureMark(x, y) {
  return svg("path", { d: `M${x},${y - 7} l7,7 l-7,7 l-7,-7 z`, fill: "#f4d03f", stroke: "#7d6608", "stroke-width": 1.5, class: "treasure" });
}

function leaderToken(dynasty, role, x, y, size = 30) {
  const color = FILL[ROLE_COLOR[role]];
  const r = size / 2;
  return svg("g", { transform: `translate(${x},${y})` },
    svg("circle", { r, fill: color, stroke: DYNASTY_ACCENT[dynasty] || "#fff", "stroke-width": 3.5 }),
    svg("g", { transform: `scale(${size / 30})` }, dynastySymbol(dynasty)));
}

function handTile(color, selected, onclick, attrs = {}) {
  return el("button", {
    class: `tile-btn ${color}${selected ? " selected" : ""}`,
    title: `${TILE_NAME[color]} (${color})`,
    "data-color": color,
    onclick,
    ...attrs,
  }, svgIcon(tileMark(color, 0, 0)));
}

function svgIcon(content, view = "-12 -12 24 24") {
  return svg("svg", { viewBox: view, width: 24, height: 24, "aria-hidden": "true" }, content);
}

// -- the legal actions, sorted by what they act on ----------------------------------------------

function parseActions(actions) {
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

/** The cell a pending decision's action points at, if any ("treasure K1" -> K1). */
function actionCell(action) {
  const last = action.split(" ").at(-1);
  return /^[A-P]\d{1,2}$/i.test(last) ? last.toUpperCase() : null;
}

// -- the renderer --------------------------------------------------------------------------------

export function createRenderer(parts, ctx) {
  let selection = null; // {kind: "tile", color} | {kind: "leader", role} | {kind: "catastrophe"}
  let frame = null;
  let options = {};
  let map = null;
  let mapName = null;

  function update(next, opts = {}) {
    frame = next;
    options = opts;
    const name = frame.options?.board || "standard";
    if (mapName !== name) {
      mapName = name;
      map = null;
      boardMap(name).then((m) => { map = m; draw(); }).catch(() => { map = { river: [], temples: [], special: [] }; draw(); });
    }
    if (!options.interactive) selection = null;
    draw();
  }

  function choose(next) {
    selection = selection && next && selection.kind === next.kind && selection.color === next.color && selection.role === next.role ? null : next;
    draw();
  }

  function draw() {
    if (!frame) return;
    const legal = options.interactive ? parseActions(frame.legal_actions || []) : parseActions([]);
    drawBoard(legal);
    drawHand(legal);
    drawControls(legal);
    drawScores();
  }

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
    for (const cell of set || []) {
      const prefix = selection.kind === "tile" ? `tile ${selection.color}` : selection.kind === "leader" ? `leader ${selection.role}` : "catastrophe";
      cells.set(cell, `${prefix} ${cell}`);
    }
    return cells;
  }

  function drawBoard(legal) {
    const board = frame.board || {};
    const river = new Set(map?.river || []);
    const special = new Set(map?.special || []);
    const targets = targetsFor(legal);
    const me = frame.table?.seat;
    const myDynasty = me !== null && me !== undefined ? frame.players[me] : null;
    const root = svg("svg", { viewBox: `-22 -22 ${16 * S + 26} ${11 * S + 26}`, class: "board tigris-board", role: "img", "aria-label": "the board" });
    root.append(svg("rect", { x: -22, y: -22, width: 16 * S + 26, height: 11 * S + 26, fill: "#f7f1e1", rx: 8 }));
    for (let c = 0; c < 16; c += 1) root.append(svg("text", { x: c * S + S / 2, y: -7, class: "coord" }, COLS[c]));
    for (let r = 0; r < 11; r += 1) root.append(svg("text", { x: -11, y: r * S + S / 2 + 4, class: "coord" }, String(r + 1)));
    const cellsLayer = svg("g");
    const overLayer = svg("g");
    root.append(cellsLayer, overLayer);
    for (let r = 0; r < 11; r += 1) {
      for (let c = 0; c < 16; c += 1) {
        const name = cellName(c, r);
        const x = c * S;
        const y = r * S;
        const content = board[name];
        const g = svg("g", { class: "cell", "data-cell": name });
        g.append(svg("rect", { x, y, width: S, height: S, class: river.has(name) ? "river" : "land" }));
        if (special.has(name) && !content) {
          g.append(svg("path", { d: `M${x + S / 2},${y + 9} l4,8 l8,0 l-6,6 l3,8 l-9,-5 l-9,5 l3,-8 l-6,-6 l8,0 z`, class: "special" }));
        }
        if (content) g.append(drawContent(content, x, y));
        const action = targets.get(name);
        if (action) {
          g.classList.add("target");
          g.append(svg("rect", { x: x + 3, y: y + 3, width: S - 6, height: S - 6, class: "target-mark", rx: 5 }));
          g.addEventListener("click", () => ctx.act(action));
        } else if (options.interactive && content?.startsWith(`leader:${myDynasty}:`)) {
          const role = content.split(":")[2];
          if (legal.leader[role] || legal.withdraw.has(role)) {
            g.classList.add("own-leader");
            g.addEventListener("click", () => choose({ kind: "leader", role }));
          }
        }
        cellsLayer.append(g);
      }
    }
    for (const [color, cell] of Object.entries(frame.buildings || {})) {
      const [x, y] = cellXY(cell);
      overLayer.append(svg("g", { class: "building", "data-building": color },
        svg("path", { d: `M${x + 20},${y + 3} l13,9 v4 h-26 v-4 z`, fill: "#fdfefe", stroke: FILL[color], "stroke-width": 2.5 }),
        svg("title", {}, `${BUILDING_NAME[color]} (${color})`)));
    }
    for (const m of frame.monuments || []) {
      const [x, y] = cellXY(m.cell);
      const [a, b] = m.colors;
      overLayer.append(svg("g", { class: "monument", "data-monument": m.colors.join("-") },
        svg("path", { d: `M${x + 8},${y + 8} h${2 * S - 16} v${2 * S - 16} z`, fill: FILL[a], stroke: "#fff", "stroke-width": 2 }),
        svg("path", { d: `M${x + 8},${y + 8} v${2 * S - 16} h${2 * S - 16} z`, fill: FILL[b], stroke: "#fff", "stroke-width": 2 }),
        svg("rect", { x: x + 28, y: y + 28, width: 24, height: 24, fill: "#f5eedc", stroke: "#7b6a4a", "stroke-width": 2 }),
        svg("title", {}, `monument ${a}-${b}`)));
    }
    if (frame.wonder) {
      const [x, y] = cellXY(frame.wonder);
      overLayer.append(svg("path", {
        class: "wonder",
        d: `M${x},${y - S} h${S} v${S} h${S} v${S} h-${S} v${S} h-${S} v-${S} h-${S} v-${S} h${S} z`,
      }));
    }
    if (frame.unification) {
      const [x, y] = cellXY(frame.unification);
      overLayer.append(svg("rect", { x: x + 1.5, y: y + 1.5, width: S - 3, height: S - 3, class: "unification", rx: 4 }),
        svg("text", { x: x + S / 2, y: y + S - 4, class: "unification-label" }, "unite"));
    }
    put(parts.board, root);
  }

  function drawContent(content, x, y) {
    const cx = x + S / 2;
    const cy = y + S / 2;
    const treasure = content.endsWith("*");
    const value = treasure ? content.slice(0, -1) : content;
    if (value === "catastrophe") {
      return svg("g", { class: "catastrophe" }, svg("rect", { x: x + 2, y: y + 2, width: S - 4, height: S - 4, rx: 4, fill: "#5d4037" }),
        svg("path", { d: `M${x + 10},${y + 10} L${x + 30},${y + 30} M${x + 30},${y + 10} L${x + 10},${y + 30}`, stroke: "#ffab91", "stroke-width": 4, "stroke-linecap": "round" }));
    }
    if (value.startsWith("leader:")) {
      const [, dynasty, role] = value.split(":");
      return svg("g", { class: "leader", "data-leader": `${dynasty}:${role}` }, leaderToken(dynasty, role, cx, cy), svg("title", {}, `${dynasty}'s ${role}`));
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

  function drawHand(legal) {
    const seat = frame.table?.seat;
    clear(parts.hand);
    if (seat === null || seat === undefined) return;
    const me = frame.players[seat];
    const hidden = options.hideHand;
    const hand = hidden ? [] : frame.hand || [];
    const supply = (frame.supply || {})[me] || [];
    parts.hand.append(el("div", { class: "card hand" },
      el("h3", {}, "Your tiles ", el("span", { class: "dynasty-chip", style: `--accent:${DYNASTY_ACCENT[me]}` }, titleCase(me))),
      el("div", { class: "tiles", id: "hand-tiles" }, hidden ? el("p", { class: "muted" }, "hidden") :
        hand.map((color) => handTile(color, selection?.kind === "tile" && selection.color === color,
          legal.tile[color] ? () => choose({ kind: "tile", color }) : null, { disabled: !legal.tile[color] }))),
      el("div", { class: "leaders" },
        ["king", "priest", "farmer", "trader"].map((role) => {
          const inSupply = supply.includes(role);
          const usable = Boolean(legal.leader[role]);
          return el("button", {
            class: `leader-btn${selection?.kind === "leader" && selection.role === role ? " selected" : ""}${inSupply ? "" : " on-board"}`,
            "data-role": role,
            disabled: !usable,
            title: `${role}${inSupply ? "" : " (on the board: click it there or here to move it)"}`,
            onclick: () => choose({ kind: "leader", role }),
          }, svg("svg", { viewBox: "-16 -16 32 32", width: 32, height: 32 }, leaderToken(me, role, 0, 0, 28)), el("span", {}, role));
        }),
        el("button", {
          class: `leader-btn${selection?.kind === "catastrophe" ? " selected" : ""}`,
          "data-role": "catastrophe",
          disabled: !legal.catastrophe.size,
          onclick: () => choose({ kind: "catastrophe" }),
        }, svg("svg", { viewBox: "0 0 40 40", width: 32, height: 32 }, drawContent("catastrophe", 0, 0)),
        el("span", {}, `×${(frame.catastrophes || {})[me] ?? 0}`)))));
  }

  function drawControls(legal) {
    clear(parts.controls);
    const t = frame.table || {};
    const buttons = [];
    if (selection) {
      const what = selection.kind === "tile" ? `a ${TILE_NAME[selection.color]}` : selection.kind === "leader" ? `your ${selection.role}` : "a catastrophe";
      buttons.push(el("p", { class: "hint" }, `Place ${what}: pick a highlighted square.`));
      if (selection.kind === "leader" && legal.withdraw.has(selection.role)) {
        buttons.push(el("button", { class: "btn", "data-action": `withdraw ${selection.role}`, onclick: () => ctx.act(`withdraw ${selection.role}`) }, `Withdraw the ${selection.role}`));
      }
      buttons.push(el("button", { class: "btn quiet", onclick: () => choose(null) }, "Cancel"));
    } else if (options.interactive && !frame.pending) {
      buttons.push(el("p", { class: "hint" }, `${frame.actions_left ?? ""} action${frame.actions_left === 1 ? "" : "s"} left: pick a tile or a leader.`));
    }
    if (options.interactive && legal.swap.length) {
      buttons.push(el("button", { class: "btn", id: "swap", onclick: () => swapDialog(frame, legal, ctx) }, "Swap tiles"));
    }
    if (options.interactive && legal.pass) {
      buttons.push(el("button", { class: "btn", id: "pass", "data-action": "pass", onclick: () => ctx.act("pass") }, frame.actions_left === 2 ? "Pass the turn" : "End the turn"));
    }
    if (t.can_undo) buttons.push(el("button", { class: "btn", id: "undo", onclick: () => ctx.undo() }, "Undo"));
    if (buttons.length) parts.controls.append(el("div", { class: "card control-row" }, buttons));
    if (options.interactive && frame.legal_actions?.length) parts.controls.append(allActions(frame.legal_actions, ctx));
  }

  function drawScores() {
    const seat = frame.table?.seat;
    const over = frame.table?.status === "over";
    // Under the hot-seat cover, the next player's points are as hidden as the tiles.
    const points = options.hideHand ? {} : frame.points || {};
    const rows = frame.players.map((p, i) => {
      const own = points[p];
      return el("tr", { class: i === seat ? "me" : "", "data-player": p },
        el("td", {}, el("span", { class: "dynasty-chip", style: `--accent:${DYNASTY_ACCENT[p]}` }, titleCase(p)),
          frame.to_move === i && !over ? el("span", { class: "to-move", title: "decides now" }, " ●") : null),
        COLORS.map((c) => el("td", { class: `pts ${c}` }, own ? String(own[c]) : "?")),
        el("td", {}, String((frame.treasures || {})[p] ?? 0)),
        el("td", {}, String((frame.hand_sizes || {})[p] ?? "")));
    });
    put(parts.scores, el("div", { class: "card" },
      el("h3", {}, "Points"),
      el("table", { class: "score-table" },
        el("thead", {}, el("tr", {}, el("th", {}, ""), COLORS.map((c) => el("th", { class: `pts ${c}`, title: c }, "■")), el("th", { title: "treasures" }, "◆"), el("th", { title: "tiles in hand" }, "hand"))),
        el("tbody", {}, rows)),
      el("p", { class: "muted small" }, `Bag: ${frame.bag_size ?? "?"} tiles`,
        over ? " · final points" : frame.ending ? " · the bag ran short: this is the last turn" : "",
        over ? "" : frame.options?.open_scoring ? " · open scoring" : " · others' points stay hidden until the end")));
  }

  return {
    update,
    clearSelection() { selection = null; },
    destroy() {},
  };
}

function allActions(actions, ctx) {
  const list = el("div", { class: "action-list" });
  const filter = el("input", { type: "search", placeholder: "filter, e.g. tile red", oninput: () => fill() });
  function fill() {
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    const shown = actions.filter((a) => words.every((w) => a.includes(w))).slice(0, 120);
    put(list, shown.map((a) => el("button", { class: "btn small", "data-action": a, onclick: () => ctx.act(a) }, a)));
  }
  fill();
  return el("details", { class: "card all-actions" }, el("summary", {}, `Every legal action (${actions.length})`), filter, list);
}

function swapDialog(frame, legal, ctx) {
  const picked = new Array((frame.hand || []).length).fill(false);
  const swaps = new Map(legal.swap.map((a) => [a.split(" ").slice(1).sort().join(" "), a]));
  const tiles = el("div", { class: "tiles" });
  const confirm = el("button", { class: "btn primary", disabled: true }, "Swap");
  function render() {
    put(tiles, frame.hand.map((color, i) => handTile(color, picked[i], () => { picked[i] = !picked[i]; render(); })));
    const key = frame.hand.filter((_, i) => picked[i]).sort().join(" ");
    confirm.disabled = !swaps.has(key);
    confirm.onclick = () => { ctx.act(swaps.get(key)); document.getElementById("backdrop")?.remove(); };
  }
  render();
  dialog({
    id: "swap-dialog",
    title: "Swap tiles",
    body: [el("p", {}, "Pick the tiles to discard; you draw as many from the bag. This uses one action and cannot be undone."), tiles, confirm],
    dismissable: true,
  });
}

// -- decisions in dialogs ------------------------------------------------------------------------

export function needsDialog(frame) {
  return Boolean(frame.pending) && (frame.legal_actions || []).length > 0;
}

function strengthLine(frame, p, who) {
  const seat = p[who];
  const base = p[`${who}_strength`];
  const committed = who === "attacker" ? p.attacker_commit : null;
  const total = committed === null || committed === undefined ? base : base + committed;
  const extra = committed === null || committed === undefined ? "" : ` + ${committed} committed`;
  return el("div", { class: `strength ${who}` },
    el("span", { class: "dynasty-chip", style: `--accent:${DYNASTY_ACCENT[frame.players[seat]]}` }, titleCase(frame.players[seat])),
    ` ${who}: ${base}${extra}`, el("strong", {}, ` = ${total}`));
}

export function openDialog(frame, ctx) {
  const p = frame.pending;
  const actions = frame.legal_actions;
  const button = (a, label) => ({ label, action: a, onclick: () => ctx.act(a) });
  const me = frame.table.seat;
  const hand = frame.hand || [];
  if (p.kind === "revolt" || p.kind === "war") {
    const color = p.kind === "revolt" ? "red" : p.color;
    const mineCount = hand.filter((c) => c === color).length;
    const role = p.kind === "revolt" ? ROLE_OF_COLOR[p.color] : ROLE_OF_COLOR[p.color];
    dialog({
      id: "decision",
      title: p.kind === "revolt" ? `Revolt over the ${role}` : `${titleCase(p.color)} war`,
      body: [
        el("p", {}, p.kind === "revolt" ? "Strength: temples next to the leader, plus red tiles committed." : `Strength: ${color} tiles in the kingdom on each side, plus ${color} tiles committed.`),
        strengthLine(frame, p, "attacker"),
        strengthLine(frame, p, "defender"),
        el("p", {}, `You are the ${p.attacker === me ? "attacker" : "defender"}; you hold ${mineCount} ${color} tile${mineCount === 1 ? "" : "s"}. How many do you commit?`),
        p.queue?.length ? el("p", { class: "muted" }, `Wars still to fight: ${p.queue.join(", ")}`) : null,
      ],
      buttons: actions.map((a) => button(a, a.replace("commit ", "Commit "))),
    });
  } else if (p.kind === "war_order") {
    dialog({
      id: "decision",
      title: "Which war first?",
      body: [el("p", {}, "Joining the kingdoms started several wars. Pick the leader colour to fight over first.")],
      buttons: actions.map((a) => button(a, `${titleCase(a.split(" ")[1])} (${ROLE_OF_COLOR[a.split(" ")[1]]})`)),
    });
  } else if (p.kind === "monument") {
    dialog({
      id: "decision",
      title: "Build a monument?",
      body: [el("p", {}, "Four tiles of one colour form a square: you may turn them over and build a monument on them.")],
      buttons: actions.map((a) => a === "decline" ? { ...button(a, "No monument"), kind: "quiet" } : button(a, `Monument ${a.split(" ")[1]} on ${a.split(" ")[2]}`)),
    });
  } else if (p.kind === "treasure") {
    dialog({
      id: "decision",
      title: "Take a treasure",
      body: [el("p", {}, "Your trader's kingdom holds more than one treasure: choose which to take (highlighted on the board).")],
      buttons: actions.map((a) => button(a, `Treasure on ${a.split(" ")[1]}`)),
    });
  } else if (p.kind === "building") {
    dialog({
      id: "decision",
      title: "Place a building?",
      body: [el("p", {}, "The line of tiles you completed lets you put a civilization building on one of its squares.")],
      buttons: actions.map((a) => a === "decline" ? { ...button(a, "No building"), kind: "quiet" } : button(a, `Building on ${a.split(" ")[1]}`)),
    });
  } else if (p.kind === "wonder") {
    dialog({
      id: "decision",
      title: "Build the wonder?",
      body: [el("p", {}, "The wonder covers a cross of five squares.")],
      buttons: actions.map((a) => a === "decline" ? { ...button(a, "No wonder"), kind: "quiet" } : button(a, `Wonder centred on ${a.split(" ")[1]}`)),
    });
  } else if (p.kind === "wonderpoint") {
    dialog({
      id: "decision",
      title: "The wonder's point",
      body: [el("p", {}, "Choose the colour of the point the wonder gives you this turn.")],
      buttons: actions.map((a) => button(a, titleCase(a.split(" ")[1]))),
    });
  } else {
    dialog({ id: "decision", title: "Your decision", body: [el("pre", {}, JSON.stringify(p, null, 1))], buttons: actions.map((a) => button(a, a)) });
  }
}

export function resultTable(result, players) {
  return el("table", { class: "result-table", id: "result" },
    el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, "Dynasty"), COLORS.map((c) => el("th", { class: `pts ${c}` }, c)), el("th", {}, "◆"), el("th", {}, "Score"))),
    el("tbody", {}, result.map((r) => {
      const pts = r.final || r.points || {};
      return el("tr", { "data-place": r.place },
        el("td", {}, String(r.place)),
        el("td", {}, el("span", { class: "dynasty-chip", style: `--accent:${DYNASTY_ACCENT[players[r.seat]]}` }, titleCase(players[r.seat]))),
        COLORS.map((c) => el("td", { class: `pts ${c}` }, String(pts[c] ?? 0))),
        el("td", {}, String(r.treasures ?? 0)),
        el("td", {}, el("strong", {}, String(r.score))));
    })),
    el("caption", {}, "Score: the weakest colour, treasures added where they help most."));
}
