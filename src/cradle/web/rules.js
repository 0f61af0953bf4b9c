// @ts-check
// The rules in the browser (#/rules/GAME): each game's rules in the project's own words, with
// pictures drawn by the game's own board drawing from small positions (the guided game's steps,
// GET /api/lessons/{game}/{name}/picture), and the variants a table may be created with.

import { api } from "./api.js";
import { GAMES, GAME_TITLES } from "./games.js";
import { t } from "./i18n.js";
import { el, link, messageOf, put } from "./ui.js";

/** @typedef {import("./types").BoardFrame} BoardFrame */
/** @typedef {import("./types").Child} Child */
/** @typedef {import("./types").Screen} Screen */

/**
 * A picture: which lesson's position, after how many of its moves; its caption is the message
 * rules.GAME.picture.ID.
 * @typedef {{id: string, lesson: string, after: number}} Picture
 */

/**
 * A section of the rules: its paragraphs (a list: bullet points) by their messages' last words
 * (rules.GAME.SECTION.p1, rules.GAME.SECTION.p2.1 ...), its heading rules.GAME.SECTION.title,
 * and its pictures.
 * @typedef {{id: string, text: (string | string[])[], pictures?: Picture[]}} Section
 */

/** @type {Record<string, Section[]>} */
export const RULES = {
  tigris: [
    { id: "goal", text: ["p1", "p2"] },
    { id: "pieces", text: ["p1", ["p2.1", "p2.2", "p2.3", "p2.4"]] },
    { id: "turn", text: ["p1", ["p2.1", "p2.2", "p2.3", "p2.4"], "p3"] },
    { id: "kingdoms", text: ["p1", "p2"], pictures: [{ id: "kingdom", lesson: "tiles", after: 1 }] },
    { id: "revolt", text: ["p1", "p2"], pictures: [{ id: "revolt", lesson: "revolt", after: 1 }] },
    { id: "war", text: ["p1", "p2", "p3"], pictures: [{ id: "war", lesson: "war", after: 1 }] },
    { id: "monument", text: ["p1", "p2"], pictures: [{ id: "monument", lesson: "monument", after: 2 }] },
    { id: "catastrophe", text: ["p1"] },
    { id: "treasure", text: ["p1"], pictures: [{ id: "treasure", lesson: "scoring", after: 1 }] },
    { id: "end", text: ["p1", "p2"] },
    { id: "variants", text: [["p1.1", "p1.2", "p1.3", "p1.4", "p1.5"]] },
  ],
  gheos: [
    { id: "goal", text: ["p1"] },
    { id: "tiles", text: ["p1", "p2"], pictures: [{ id: "continent", lesson: "continent", after: 1 }] },
    { id: "turn", text: [["p1.1", "p1.2", "p1.3", "p1.4"]] },
    { id: "war", text: ["p1"], pictures: [{ id: "war-before", lesson: "war", after: 0 }, { id: "war", lesson: "war", after: 2 }] },
    { id: "migration", text: ["p1"], pictures: [{ id: "migration-before", lesson: "migration", after: 0 }, { id: "migration", lesson: "migration", after: 1 }] },
    { id: "temples", text: ["p1", "p2"] },
    { id: "epoch", text: ["p1", "p2"], pictures: [{ id: "epoch", lesson: "epoch", after: 1 }] },
    { id: "variants", text: ["p1"] },
  ],
};

/**
 * #/rules: both games; #/rules/GAME: that game's rules and pictures.
 * @param {HTMLElement} root
 * @param {string | undefined} game
 * @returns {Screen | null}
 */
export function rulesScreen(root, game) {
  if (!game || !Object.hasOwn(RULES, game)) {
    root.append(el("div", { class: "card rules" }, el("h1", {}, t("lobby.rules")),
      el("p", {}, link("#/rules/tigris", "Tigris & Euphrates"), " ", link("#/rules/gheos", "Gheos"))));
    return null;
  }
  const sections = RULES[game];
  const other = game === "tigris" ? "gheos" : "tigris";
  root.append(el("article", { class: "card rules", id: "rules", "data-game": game },
    el("h1", {}, t("rules.title", { game: GAME_TITLES[game] })),
    el("nav", { class: "rules-nav" },
      sections.map((s) => el("a", { href: `#/rules/${game}`, "data-section": s.id, onclick: (e) => { e.preventDefault(); document.getElementById(`rules-${s.id}`)?.scrollIntoView(); } }, t(`rules.${game}.${s.id}.title`))),
      link(`#/learn/${game}`, t("rules.guided"), { class: "btn primary" }),
      link(`#/rules/${other}`, t("rules.other", { game: GAME_TITLES[other] }), { class: "btn" })),
    sections.map((s) => el("section", { id: `rules-${s.id}` },
      el("h2", {}, t(`rules.${game}.${s.id}.title`)),
      s.text.map((p) => (typeof p === "string" ? el("p", {}, t(`rules.${game}.${s.id}.${p}`))
        : el("ul", {}, p.map((item) => el("li", {}, t(`rules.${game}.${s.id}.${item}`)))))),
      (s.pictures || []).map((p) => picture(game, p))))));
  return null;
}

/**
 * A picture: the game's own board drawing of a lesson's position.
 * @param {string} game
 * @param {Picture} p
 */
function picture(game, p) {
  const board = el("div", { class: "board-wrap rules-board" }, el("p", { class: "muted" }, t("rules.drawing")));
  const figure = el("figure", { class: "rules-picture", id: `picture-${p.id}`, "data-picture": p.id },
    board, el("figcaption", {}, t(`rules.${game}.picture.${p.id}`)));
  const module = GAMES[game];
  api.picture(game, p.lesson, p.after).then((answer) => {
    /** @type {BoardFrame} */
    const frame = {
      view: answer.view,
      legal_actions: [],
      table: {
        game, players: answer.view.players, seats: answer.view.players.map(() => "human"), seat: null,
        status: answer.over ? "over" : "running", moves: p.after, to_move: answer.over ? null : answer.view.to_move,
        events: [], can_undo: false, version: `picture-${p.id}`,
      },
    };
    const parts = { board, hand: el("div"), controls: el("div"), scores: el("div"), decision: el("div") };
    const renderer = module.createRenderer(parts, { mode: "replay", act() {}, undo() {} });
    renderer.update(frame, { interactive: false });
    figure.dataset.drawn = "1";
  }).catch((error) => put(board, el("p", { class: "error" }, messageOf(error))));
  return figure;
}

/**
 * The one-screen player aid: the turn and the scoring in a few lines.
 * @param {string} game
 * @returns {Child[]}
 */
export function aidOf(game) {
  if (game === "gheos") {
    return [
      el("h3", {}, t("aid.gheos.turn")),
      el("ol", {},
        el("li", {}, t("aid.gheos.turn.1")),
        el("li", {}, t("aid.gheos.turn.2")),
        el("li", {}, t("aid.gheos.turn.3")),
        el("li", {}, t("aid.gheos.turn.4"))),
      el("h3", {}, t("aid.conflicts")),
      el("ul", {},
        el("li", {}, t("aid.gheos.war")),
        el("li", {}, t("aid.gheos.migration"))),
      el("h3", {}, t("aid.end")),
      el("p", {}, t("aid.gheos.end")),
    ];
  }
  return [
    el("h3", {}, t("aid.tigris.turn")),
    el("ul", {},
      el("li", {}, t("aid.tigris.turn.1")),
      el("li", {}, t("aid.tigris.turn.2")),
      el("li", {}, t("aid.tigris.turn.3"))),
    el("h3", {}, t("aid.conflicts")),
    el("ul", {},
      el("li", {}, t("aid.tigris.revolt")),
      el("li", {}, t("aid.tigris.war")),
      el("li", {}, t("aid.tigris.ties"))),
    el("h3", {}, t("aid.tigris.turn_end")),
    el("p", {}, t("aid.tigris.turn_end.1")),
    el("h3", {}, t("aid.end")),
    el("p", {}, t("aid.tigris.end")),
  ];
}
