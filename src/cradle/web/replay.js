// @ts-check
// The replay viewer: a finished game step by step (first, back, play, forward, last, a slider),
// seen by spectators or by one seat.

import { api } from "./api.js";
import { GAMES, GAME_TITLES, notePieces } from "./games.js";
import { t } from "./i18n.js";
import { moverWords } from "./log.js";
import { nameAt, seatWord } from "./names.js";
import { shareDialog } from "./report.js";
import { tokenAt } from "./state.js";
import { el, fieldValue, iconButton, link, messageOf, put, setTitle } from "./ui.js";

/** @typedef {import("./types").BoardFrame} BoardFrame */
/** @typedef {import("./types").Pieces} Pieces */
/** @typedef {import("./types").Renderer} Renderer */
/** @typedef {import("./types").Replay} Replay */
/** @typedef {import("./types").Screen} Screen */
/** @typedef {import("./types").Seat} Seat */

/**
 * A finished game step by step, as spectators or one seat knew it.
 * @param {HTMLElement} root
 * @param {string} id
 * @returns {Screen}
 */
export function replayScreen(root, id) {
  const parts = {
    banner: el("div", { class: "banner" }),
    board: el("div", { class: "board-wrap", id: "board" }),
    hand: el("div", { class: "hand-panel", id: "hand" }),
    // The renderer draws its own controls here; the replay's controls live apart (a renderer
    // redrawing, say when the board map arrives, must never wipe them).
    controls: el("div", { class: "controls" }),
    scores: el("div", { class: "scores", id: "scores" }),
    log: el("ol", { class: "log" }),
    extra: el("div"),
  };
  const deck = el("div", { class: "replay-controls", id: "replay-controls" });
  root.append(el("div", { class: "game-screen" },
    el("section", { class: "board-col" }, parts.banner, parts.board),
    el("aside", { class: "side" }, deck, parts.hand, parts.scores,
      el("div", { class: "card" }, el("h2", { class: "section" }, t("replay.this_step")), parts.log))));
  /** @type {Replay | null} */
  let data = null;
  let step = 0;
  /** @type {Seat | null} */
  let seat = null; // whose view: null for spectators
  /** @type {Renderer | null} */
  let renderer = null;
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let timer;
  /** @type {Pieces} */
  let pieces = {};

  async function load() {
    try {
      data = await api.replay(id, seat, tokenAt(id));
    } catch (error) {
      put(root, el("div", { class: "card" }, el("h1", {}, t("replay.none")), el("p", {}, messageOf(error)), link("#/", t("common.back"))));
      return;
    }
    for (const s of data.steps) notePieces(pieces, s.view);
    step = Math.min(step, data.steps.length - 1);
    setTitle(t("replay.tab", { game: GAME_TITLES[data.game] }));
    render();
  }

  function render() {
    if (!data) return;
    const module = GAMES[data.game];
    const s = data.steps[step];
    const lastStep = data.steps.length - 1;
    /** @type {BoardFrame} */
    const frame = {
      view: s.view,
      legal_actions: [],
      table: { game: data.game, seat, seats: data.seats, names: data.names, status: step === lastStep ? "over" : "running",
        result: data.result, players: data.players, moves: step, to_move: null, events: s.events, last: null, can_undo: false, version: step },
    };
    if (!renderer) renderer = module.createRenderer(parts, { mode: "replay", act() {}, undo() {} });
    const moved = s.action !== null && s.seat !== null ? { seat: s.seat, action: s.action } : null;
    const highlights = moved ? [{ seat: moved.seat, cells: module.cellsOf(moved.action), colour: module.seatColour(data.players, moved.seat), fresh: true }] : [];
    const origin = module.originOf(data.steps[lastStep].view);
    renderer.update(frame, { interactive: false, highlights, pieces, origin });
    const words = module.wordsFor(data.players, { view: data.steps[lastStep].view, table: data }, pieces, origin);
    const game = data;
    /** @param {string} dynasty @param {number} i a seat, named with its dynasty (its colour) */
    const seen = (dynasty, i) => (nameAt(game, i) === seatWord(dynasty) ? nameAt(game, i) : t("names.twin", { name: nameAt(game, i), seat: seatWord(dynasty) }));
    const shown = s.action !== null && s.seat !== null ? { ply: step, seat: s.seat, action: s.action, events: s.events, standin: s.standin } : null;
    const said = shown ? module.describeStep(shown, moverWords(words, shown)) : null;
    put(parts.banner,
      el("h1", { class: "banner-title" }, el("span", { class: `badge ${data.game}` }, GAME_TITLES[data.game])),
      el("strong", { id: "replay-step" }, " ", t("replay.step", { step, last: lastStep })),
      el("span", { class: "muted detail" }, el("span", { class: "sep" }, "· "), said ? said.text : t("replay.the_start")));
    put(parts.log, said ? [el("li", {}, said.text), said.details.map((d) => el("li", { class: "small" }, d))] : el("li", { class: "muted" }, t("replay.setup")));
    put(deck, el("div", { class: "card" },
      el("div", { class: "replay-buttons" },
        iconButton("first", t("replay.first"), { id: "replay-first", onclick: () => go(0) }),
        iconButton("prev", t("replay.prev"), { id: "replay-prev", onclick: () => go(step - 1) }),
        iconButton(timer ? "pause" : "play", timer ? t("replay.pause") : t("replay.play"), { id: "replay-play", onclick: toggle }),
        iconButton("next", t("replay.next"), { id: "replay-next", onclick: () => go(step + 1) }),
        iconButton("last", t("replay.last"), { id: "replay-last", onclick: () => go(lastStep) })),
      el("input", { type: "range", min: 0, max: lastStep, value: step, id: "replay-slider", "aria-label": t("replay.slider"),
        oninput: (e) => go(Number(fieldValue(e))) }),
      el("label", { class: "seat-choice" }, t("replay.seen_by"),
        el("select", { onchange: (e) => { seat = fieldValue(e) === "" ? null : Number(fieldValue(e)); load(); } },
          el("option", { value: "", selected: seat === null }, t("replay.spectators")),
          data.players.map((p, i) => el("option", { value: i, selected: seat === i }, seen(p, i))))),
      link(`#/analysis/${id}`, t("replay.analysis"), { id: "replay-analysis" }),
      data.private && tokenAt(id) ? el("button", { class: "btn small", type: "button", id: "replay-share",
        onclick: () => shareDialog(id, tokenAt(id)) }, t("share.button")) : null,
      step === lastStep ? module.resultTable([...data.result].sort((a, b) => a.place - b.place), game) : null,
    ));
  }

  /** @param {number} n */
  function go(n) {
    if (!data) return;
    step = Math.max(0, Math.min(data.steps.length - 1, n));
    if (step === data.steps.length - 1 && timer) toggle();
    render();
  }

  function toggle() {
    if (timer) {
      clearInterval(timer);
      timer = undefined;
    } else {
      timer = setInterval(() => go(step + 1), 600);
    }
    render();
  }

  load();
  return { destroy() { clearInterval(timer); renderer?.destroy?.(); } };
}
