// @ts-check
// The game's log: its history as this screen may know it, and its entries in words.

import { api } from "./api.js";
import { notePieces } from "./games.js";
import { t } from "./i18n.js";
import { botName } from "./names.js";
import { el, put, svg } from "./ui.js";

/** @typedef {import("./types").Frame} Frame */
/** @typedef {import("./types").GameModule} GameModule */
/** @typedef {import("./types").Highlight} Highlight */
/** @typedef {import("./types").Pieces} Pieces */
/** @typedef {import("./types").Said} Said */
/** @typedef {import("./types").Seat} Seat */
/** @typedef {import("./types").Step} Step */
/** @typedef {import("./types").Words} Words */

/** @type {Record<string, string>} */
const KIND_ICONS = {
  tile: "M5,5 h14 v14 h-14 z",
  leader: "M12,4 a8,8 0 1,1 0,16 a8,8 0 1,1 0,-16 z",
  catastrophe: "M6,4 l6,6 l6,-6 l2,2 l-6,6 l6,6 l-2,2 l-6,-6 l-6,6 l-2,-2 l6,-6 l-6,-6 z",
  swap: "M4,8 h12 v-3 l5,5 l-5,5 v-3 h-12 z M20,16 h-12 v3 l-5,-5 l5,-5 v3 h12 z",
  pass: "M5,11 h14 v2.5 h-14 z",
  conflict: "M4,4 l8,8 l-2,2 l2,2 l-2,2 l-2,-2 l-3,3 l-1.5,-1.5 l3,-3 l-2,-2 l2,-2 z M20,4 l-8,8 l2,2 l-2,2 l2,2 l2,-2 l3,3 l1.5,-1.5 l-3,-3 l2,-2 l-2,-2 z",
  monument: "M4,20 h16 v-2 h-2 v-8 l-6,-5 l-6,5 v8 h-2 z",
  treasure: "M12,3 l8,9 l-8,9 l-8,-9 z",
  building: "M4,20 v-9 l8,-6 l8,6 v9 z",
  civ: "M12,3 a5,5 0 1,1 0,10 a5,5 0 1,1 0,-10 z M4,21 a8,6 0 0,1 16,0 z",
  score: "M12,3 l2.6,6 l6.4,0.6 l-4.9,4.2 l1.5,6.3 l-5.6,-3.4 l-5.6,3.4 l1.5,-6.3 l-4.9,-4.2 l6.4,-0.6 z",
  other: "M12,8 a4,4 0 1,1 0,8 a4,4 0 1,1 0,-8 z",
};

/**
 * The small picture of a log entry's kind (Said.kind), in the mover's colour.
 * @param {string} kind
 * @param {string} colour
 */
function kindIcon(kind, colour) {
  return svg("svg", { viewBox: "0 0 24 24", width: 16, height: 16, class: "log-icon", "aria-hidden": "true" },
    svg("path", { d: KIND_ICONS[kind] || KIND_ICONS.other, fill: colour }));
}

/**
 * The game's history as this screen may know it: fetched from the server (the record, redacted
 * for this seat) when the screen opens, after a reconnection or an undo; between those, each new
 * move's frame adds its entry.
 */
export class GameLog {
  /**
   * @param {string} id
   * @param {string | null} token
   * @param {string} mode the screen's: "seat", "hotseat" or "spectator"
   */
  constructor(id, token, mode) {
    this.id = id;
    this.token = token;
    this.mode = mode;
    /** @type {Step[]} */
    this.steps = [];
    /** @type {Pieces} what is drawn on the tiles the steps name (Gheos) */
    this.pieces = {};
    this.moves = -1; // the moves the log holds
    /** @type {Promise<void> | null} */
    this.loading = null;
    this.fresh = 0; // entries newer than this ply are new on screen
  }

  /**
   * Bring the log up to the frame; a promise when the server must be asked.
   * @param {Frame} frame
   */
  sync(frame) {
    const t = frame.table;
    notePieces(this.pieces, frame.view);
    if (this.moves === t.moves) return null;
    // The hot-seat screen shows each person's view in turn: its log is always the spectators'.
    const last = t.last;
    const append = this.mode !== "hotseat" && this.moves >= 0 && t.moves === this.moves + 1 && last
      && !(t.events || []).some((e) => e.type === "undo");
    if (append) {
      this.fresh = this.moves;
      this.steps.push({ ply: t.moves, seat: last.seat, action: last.action, events: t.events || [], standin: last.standin });
      this.moves = t.moves;
      return null;
    }
    return this.load();
  }

  load() {
    if (!this.loading) {
      const first = this.moves < 0;
      this.loading = api.history(this.id, this.token).then((history) => {
        this.fresh = first ? history.moves : Math.min(this.moves, history.moves);
        this.steps = history.steps;
        Object.assign(this.pieces, history.pieces || {});
        this.moves = history.moves;
      }).finally(() => { this.loading = null; });
    }
    return this.loading;
  }

  /**
   * The cells of each other seat's last moves: its latest run of moves in a row (its turn), so
   * they stay outlined while this seat takes the actions of its own turn.
   * @param {GameModule} module
   * @param {string[]} players
   * @param {Seat | null} me
   */
  highlights(module, players, me) {
    /** @type {Highlight[]} */
    const out = [];
    for (let seat = 0; seat < players.length; seat += 1) {
      if (seat === me) continue;
      let end = this.steps.length - 1;
      while (end >= 0 && this.steps[end].seat !== seat) end -= 1;
      let start = end;
      while (start > 0 && this.steps[start - 1].seat === seat) start -= 1;
      const run = end < 0 ? [] : this.steps.slice(start, end + 1);
      const cells = run.flatMap((s) => module.cellsOf(s.action));
      if (cells.length) {
        out.push({ seat, cells, colour: module.seatColour(players, seat), fresh: run.some((s) => s.ply > this.fresh) });
      }
    }
    return out;
  }
}

/**
 * The words of a step, naming who really made it: a stand-in bot that played for its seat's
 * person is named so ("Easy bot for Ann"), not as the person.
 * @param {Words} words
 * @param {Step} step
 * @returns {Words}
 */
export function moverWords(words, step) {
  const level = step.standin;
  if (!level) return words;
  return { ...words, who: (seat) => (seat === step.seat ? t("log.standin_for", { bot: botName(level), name: words.who(seat) }) : words.who(seat)) };
}

/**
 * The log in the side column: one entry per step, the newest marked; a click shows that board.
 * @param {HTMLElement} node
 * @param {GameLog} log
 * @param {GameModule} module
 * @param {Frame} frame
 * @param {(step: Step, said: Said) => void} onPick
 */
export function renderLog(node, log, module, frame, onPick) {
  const words = module.wordsFor(frame.view.players, frame, log.pieces);
  const entries = log.steps.map((step) => {
    const said = module.describeStep(step, moverWords(words, step));
    const colour = module.seatColour(frame.view.players, step.seat);
    return el("li", {
      class: `log-entry${step.ply > log.fresh ? " new" : ""}`, "data-ply": step.ply, tabindex: 0,
      title: t("log.show_move", { number: step.ply }), style: `--seat:${colour}`,
      onclick: () => onPick(step, said), onkeydown: (e) => { if (e.key === "Enter") onPick(step, said); },
    },
    el("span", { class: "log-ply" }, String(step.ply)),
    kindIcon(said.kind, colour),
    el("span", { class: "log-text" }, said.text,
      said.details.length ? el("span", { class: "log-details" }, said.details.map((d) => el("span", {}, d))) : null));
  });
  const atBottom = node.scrollHeight - node.scrollTop - node.clientHeight < 40;
  put(node, entries.length ? entries : el("li", { class: "muted" }, t("log.no_move")));
  if (atBottom || log.fresh < log.moves) node.scrollTop = node.scrollHeight;
}
