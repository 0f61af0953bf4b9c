// @ts-check
// The analysis of a finished game: each seat's win chance along the game (polled while the
// bots review it) and the moves that cost most, each shown on the board as it stood.

import { api } from "./api.js";
import { chartNote, costWords, measureName, reviewNote } from "./measure.js";
import { GAMES, GAME_TITLES, notePieces, pastBoardParts } from "./games.js";
import { list, number, t, tNodes, translateReason } from "./i18n.js";
import { nameAt, seatWord } from "./names.js";
import { tokenAt } from "./state.js";
import { capitalised, el, icon, link, messageOf, percent, put, setTitle, svg, toast } from "./ui.js";

/** @typedef {import("./types").AnalysisFound} AnalysisFound */
/** @typedef {import("./types").BoardFrame} BoardFrame */
/** @typedef {import("./types").GameModule} GameModule */
/** @typedef {import("./types").Pieces} Pieces */
/** @typedef {import("./types").Renderer} Renderer */
/** @typedef {import("./types").Replay} Replay */
/** @typedef {import("./types").Review} Review */
/** @typedef {import("./types").Screen} Screen */

/**
 * A finished game's analysis: win chances along the game and the moves that cost most.
 * @param {HTMLElement} root
 * @param {string} id
 * @returns {Screen}
 */
export function analysisScreen(root, id) {
  const head = el("div", { class: "banner" }, el("h1", { class: "banner-title" }, t("common.analysis")));
  const status = el("div", { class: "card", id: "analysis-status" }, el("p", { class: "muted" }, t("common.loading")));
  const chart = el("div", { class: "card chart-card", id: "chances" });
  const moves = el("div", { class: "card", id: "costly" });
  const parts = pastBoardParts();
  root.append(el("div", { class: "analysis-screen" }, head, status, chart,
    el("div", { class: "game-screen" },
      el("section", { class: "board-col" }, parts.banner, parts.board),
      el("aside", { class: "side" }, moves, parts.scores))));
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let alive = true;
  /** @type {Replay | null} the game's steps, for the boards before costly moves */
  let replay = null;
  /** @type {Renderer | null} */
  let renderer = null;
  /** @type {Pieces} */
  let pieces = {};
  /** @type {number | null} the ply of the costly move on the board */
  let shown = null;

  async function refresh() {
    /** @type {import("./types").Analysis} */
    let found;
    try {
      found = await api.analysis(id, tokenAt(id));
    } catch (error) {
      put(status, el("h1", {}, t("analysis.none")), el("p", {}, messageOf(error)), link("#/", t("common.back_to_lobby")));
      return;
    }
    if (!alive) return;
    const module = GAMES[found.game];
    setTitle(t("analysis.tab", { game: GAME_TITLES[found.game] }));
    put(head, el("span", { class: `badge ${found.game}` }, GAME_TITLES[found.game]),
      el("h1", { class: "banner-title" }, " ", t("common.analysis")),
      el("span", { class: "muted" }, " · ", list(found.players.map((_, seat) => nameAt(found, seat))), " · ", t("common.moves", { count: found.moves })),
      link(`#/replay/${id}`, t("common.replay")));
    drawStatus(found);
    const analysed = found.analysis ? { ...found, analysis: found.analysis } : null;
    if (analysed) {
      if (!replay) {
        replay = await api.replay(id, null, tokenAt(id)).catch(() => null);
        if (replay) for (const s of replay.steps) notePieces(pieces, s.view);
      }
      drawChart(analysed, module);
      drawMoves(analysed, module);
    }
    if (found.status === "queued" || found.status === "running") timer = setTimeout(refresh, 1500);
  }

  /** @param {import("./types").Analysis} found */
  function drawStatus(found) {
    if (found.status === "none") {
      put(status, el("p", {}, t("analysis.not_yet")),
        el("button", { class: "btn primary", id: "analyse", onclick: async () => {
          try { await api.analyse(id, tokenAt(id)); refresh(); } catch (error) { toast(messageOf(error)); }
        } }, icon("chart", 16), " ", t("analysis.analyse")));
    } else if (found.status === "failed") {
      put(status, el("p", { class: "error" }, t("analysis.failed")),
        el("button", { class: "btn", onclick: async () => { await api.analyse(id, tokenAt(id)).catch((e) => toast(e.message)); refresh(); } }, t("analysis.again")));
    } else if (found.status === "done") {
      put(status, el("p", { id: "analysis-done" }, t("analysis.done", { count: found.total, seconds: found.analysis?.seconds ?? 0 }), " ", reviewNote()));
    } else {
      const share = found.total ? found.done / found.total : 0;
      put(status, el("p", {}, found.status === "queued" ? t("analysis.queued") : t("analysis.running", { done: found.done, total: found.total })),
        el("div", { class: "progress", role: "progressbar", "aria-valuenow": Math.round(share * 100), "aria-valuemin": 0, "aria-valuemax": 100, id: "analysis-progress" },
          el("div", { class: "bar", style: `width:${(share * 100).toFixed(1)}%` })));
    }
  }

  /** @param {AnalysisFound} found @param {GameModule} module */
  function drawChart(found, module) {
    const chances = found.analysis.chances;
    const n = chances.length - 1;
    const W = 800;
    const Hh = 220;
    const pad = 30;
    /** @param {number} ply */
    const x = (ply) => pad + ((W - 2 * pad) * ply) / Math.max(1, n);
    /** @param {number} p */
    const y = (p) => Hh - pad - (Hh - 2 * pad) * p;
    const root = svg("svg", { viewBox: `0 0 ${W} ${Hh}`, class: "chart", role: "img", "aria-label": t("analysis.chart_label", { measure: measureName(found.players.length) }) });
    for (const p of [0, 0.25, 0.5, 0.75, 1]) {
      root.append(svg("line", { x1: pad, x2: W - pad, y1: y(p), y2: y(p), class: p === 0.5 ? "grid mid" : "grid" }),
        svg("text", { x: pad - 4, y: y(p) + 4, class: "axis", "text-anchor": "end" }, number(p * 100)));
    }
    root.append(svg("text", { x: W - pad, y: Hh - 6, class: "axis", "text-anchor": "end" }, t("analysis.axis_move", { number: n })));
    found.players.forEach((_p, seat) => {
      const points = chances.map((c, ply) => `${x(ply).toFixed(1)},${y(c[seat]).toFixed(1)}`).join(" ");
      root.append(svg("polyline", { points, class: "chance-line", stroke: module.seatColour(found.players, seat), "data-seat": seat }));
    });
    const reviews = new Map(found.analysis.reviews.map((r) => [r.ply, r]));
    for (const ply of found.analysis.costly || []) {
      const r = reviews.get(ply);
      if (!r) continue;
      const dot = svg("circle", { cx: x(ply), cy: y(chances[ply][r.seat]), r: 6, class: "costly-dot", fill: module.seatColour(found.players, r.seat), "data-ply": ply },
        svg("title", {}, t("analysis.dot", { number: ply, cost: costWords(found.players.length, r.loss) })));
      dot.addEventListener("click", () => pick(r, found, module));
      root.append(dot);
    }
    put(chart, el("h2", { class: "section" }, t("analysis.chart_title", { measure: capitalised(measureName(found.players.length)) })),
      el("div", { class: "legend" }, found.players.map((p, seat) => el("span", { class: "dynasty-chip", style: `--accent:${module.seatColour(found.players, seat)}`, title: seatWord(p) }, nameAt(found, seat)))),
      root,
      el("p", { class: "muted small", id: "chart-note" }, chartNote(found.players.length)));
  }

  /** @param {AnalysisFound} found @param {GameModule} module */
  function drawMoves(found, module) {
    const reviews = new Map(found.analysis.reviews.map((r) => [r.ply, r]));
    const costly = (found.analysis.costly || []).flatMap((p) => reviews.get(p) || []);
    const finalView = replay?.steps.at(-1)?.view || null;
    const items = costly.map((r) => {
      const words = module.wordsFor(found.players, finalView && { view: finalView, table: found }, { ...pieces, ...(r.pieces || {}) });
      return el("li", { class: `costly-move${shown === r.ply ? " shown" : ""}`, "data-ply": r.ply, tabindex: 0, style: `--seat:${module.seatColour(found.players, r.seat)}`,
        onclick: () => pick(r, found, module), onkeydown: (e) => { if (e.key === "Enter") pick(r, found, module); } },
      el("div", {}, el("strong", {}, t("analysis.move_by", { number: r.ply, name: nameAt(found, r.seat) })), el("span", { class: "loss" }, " ", costWords(found.players.length, r.loss))),
      el("p", {}, tNodes("analysis.played", { action: capitalised(module.describeAction(r.played, words)), share: el("span", { class: "muted" }, percent(r.played_chance)) })),
      el("p", { class: "better" }, tNodes("analysis.better", { action: el("strong", {}, capitalised(module.describeAction(r.best, words))), share: el("span", { class: "muted" }, percent(r.best_chance)) })),
      // The bots' reasons come as the server's English sentences: read back into the language.
      el("p", { class: "small muted" }, t("analysis.why", { reason: capitalised(module.reasonWords(translateReason(r.why), words)) })));
    });
    put(moves, el("h2", { class: "section" }, t("analysis.costly")),
      found.status === "done" && !items.length ? el("p", { class: "muted" }, t("analysis.well_played")) : null,
      found.status !== "done" ? el("p", { class: "muted small" }, t("analysis.so_far")) : null,
      el("ol", { class: "costly-list", id: "costly-list" }, items));
  }

  /**
   * The board before a costly move: the move played outlined, the better one marked.
   * @param {Review} review
   * @param {AnalysisFound} found
   * @param {GameModule} module
   */
  async function pick(review, found, module) {
    shown = review.ply;
    if (!replay) return;
    const before = replay.steps[review.ply - 1];
    const finalView = replay.steps[replay.steps.length - 1].view;
    /** @type {BoardFrame} */
    const frame = {
      view: before.view,
      legal_actions: [],
      table: { game: found.game, seat: null, seats: found.seats, names: found.names, status: "running", players: found.players, moves: review.ply - 1, to_move: null, events: [], can_undo: false, version: review.ply },
    };
    if (!renderer) renderer = module.createRenderer(parts, { mode: "analysis", act() {}, undo() {} });
    const colour = module.seatColour(found.players, review.seat);
    renderer.update(frame, {
      interactive: false,
      pieces,
      origin: module.originOf(finalView),
      highlights: [{ seat: review.seat, cells: module.cellsOf(review.played), colour, fresh: true }],
    });
    renderer.preview?.(review.best);
    const words = module.wordsFor(found.players, { view: finalView, table: found }, { ...pieces, ...(review.pieces || {}) });
    put(parts.banner, el("strong", {}, t("analysis.before", { number: review.ply })),
      el("span", { class: "muted detail whole-line" }, t("analysis.before_detail", { name: nameAt(found, review.seat), played: module.describeAction(review.played, words), best: module.describeAction(review.best, words) })));
    drawMoves(found, module);
  }

  refresh();
  return { destroy() { alive = false; clearTimeout(timer); renderer?.destroy?.(); } };
}
