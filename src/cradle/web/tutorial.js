// @ts-check
// The guided first games (#/learn, #/learn/GAME): one short step per rule, each on a server
// table made from the step's named position (the real engine, a fixed seed). The step says what
// to try and outlines it; a move off the script is held back with a word, a refused one gets
// the engine's reason. Progress is kept in this browser (the step, its table and seat token),
// so a reload or another day resumes it; the last step leads to a normal game against `easy`.

import { seatName } from "./account.js";
import { api } from "./api.js";
import { namedText, seatingOf } from "./names.js";
import { GAMES, GAME_TITLES } from "./games.js";
import { remember } from "./state.js";
import { tableScreen } from "./table.js";
import { has, t, translateReason } from "./i18n.js";
import { bringIntoView, clear, el, link, messageOf, put, toast } from "./ui.js";

/** @typedef {import("./types").Frame} Frame */
/** @typedef {import("./types").GameModule} GameModule */
/** @typedef {import("./types").Guide} Guide */
/** @typedef {import("./types").Highlight} Highlight */
/** @typedef {import("./types").LessonStep} Lesson */
/** @typedef {import("./types").Screen} Screen */

/**
 * Where a learner is: the step, its table and seat, how many of its moves are made, and the
 * table's version when the last one went (the step is over once a later frame comes).
 * @typedef {{step: number, id: string, token: string, made: number, sent: number | null}} Progress
 */

const KEY = "cradle.learn";
const GUIDE_COLOUR = "#00d5ff"; // an outline no dynasty, tile or conflict ring uses

/** @param {string} game @returns {Progress | null} */
export function progressOf(game) {
  try {
    const all = JSON.parse(localStorage.getItem(KEY) || "{}");
    const found = all[game];
    return found && typeof found.id === "string" && typeof found.token === "string" ? found : null;
  } catch {
    return null;
  }
}

/** @param {string} game @param {Progress | null} progress */
function save(game, progress) {
  let all = {};
  try { all = JSON.parse(localStorage.getItem(KEY) || "{}"); } catch { all = {}; }
  all = { ...all, [game]: progress };
  localStorage.setItem(KEY, JSON.stringify(all));
}

/**
 * Whether `action` is what a step's try asks for (cradle.core.lessons.matches).
 * @param {string} pattern
 * @param {string} action
 */
export function matches(pattern, action) {
  const want = pattern.toLowerCase().split(/\s+/).filter(Boolean).join(" ");
  const got = action.toLowerCase().split(/\s+/).filter(Boolean).join(" ");
  return want.endsWith("*") ? got.startsWith(want.slice(0, -1).trimEnd()) : got === want;
}

/**
 * #/learn: the two guided games; #/learn/GAME: that game's.
 * @param {HTMLElement} root
 * @param {string | undefined} game
 * @returns {Screen | null}
 */
export function learnScreen(root, game) {
  if (game && Object.hasOwn(GAMES, game)) return tutorial(root, game);
  root.append(el("div", { class: "learn-pick" },
    el("h1", {}, t("lobby.learn")),
    el("p", {}, t("learn.about")),
    ["tigris", "gheos"].map((name) => {
      const saved = progressOf(name);
      return el("section", { class: "card learn-card", "data-game": name },
        el("h2", {}, GAME_TITLES[name]),
        el("p", { class: "muted" }, name === "tigris" ? t("learn.tigris_about") : t("learn.gheos_about")),
        el("div", { class: "row-buttons" },
          link(`#/learn/${name}`, saved ? t("learn.resume", { number: saved.step + 1 }) : t("learn.start"), { class: "btn primary", id: `learn-${name}` }),
          link(`#/rules/${name}`, t("learn.read_rules"), { class: "btn" })));
    })));
  return null;
}

/**
 * A game's guided steps, one table each.
 * @param {HTMLElement} root
 * @param {string} game
 * @returns {Screen}
 */
function tutorial(root, game) {
  const panel = el("section", { class: "card guide", id: "guide", "aria-live": "polite" }, el("p", { class: "muted" }, t("learn.loading")));
  const tableRoot = el("div", { class: "guide-table" });
  root.append(el("div", { class: "learn" }, panel, tableRoot));
  /** @type {Lesson[]} */
  let lessons = [];
  let progress = progressOf(game);
  /** @type {Screen | null} */
  let screen = null;
  let alive = true;
  let finished = false; // the step's effect is on the board
  let feedback = { text: "", kind: "" };
  /** @type {Frame | null} */
  let last = null;

  api.lessons(game).then((answer) => {
    if (!alive) return;
    lessons = answer.lessons;
    if (progress && progress.step < lessons.length) open();
    else begin(0);
  }).catch((error) => put(panel, el("p", { class: "error" }, messageOf(error))));

  /** @param {number} step a fresh table for this step */
  async function begin(step) {
    put(panel, el("p", { class: "muted" }, t("learn.setting_up")));
    try {
      const created = await api.lesson(game, lessons[step].name, seatName());
      if (!alive) return;
      progress = { step, id: created.id, token: created.seats[0].token, made: 0, sent: null };
      save(game, progress);
      open();
    } catch (error) {
      put(panel, el("p", { class: "error" }, messageOf(error)), el("button", { class: "btn", onclick: () => begin(step) }, t("analysis.again")));
    }
  }

  function open() {
    if (!progress) return;
    screen?.destroy();
    clear(tableRoot);
    finished = false;
    feedback = { text: "", kind: "" };
    last = null;
    remember(progress.id, { token: progress.token, seat: 0, game });
    screen = tableScreen(tableRoot, progress.id, progress.token, "seat", guide);
    draw();
  }

  function lesson() {
    return progress ? lessons[progress.step] : undefined;
  }

  /** @param {string} text @param {"wrong" | "held" | "done" | ""} kind */
  function say(text, kind) {
    feedback = { text, kind };
    draw();
    const line = document.getElementById("guide-feedback");
    if (line) bringIntoView(line);
  }

  /** @type {Guide} */
  const guide = {
    act(action) {
      const step = lesson();
      if (!step || !progress || finished || progress.made >= step.tries.length) return null;
      const want = step.tries[progress.made];
      if (matches(want, action)) {
        progress.made += 1;
        if (progress.made >= step.tries.length) progress.sent = last ? Number(last.table.version) : 0;
        save(game, progress);
        feedback = { text: "", kind: "" };
        draw();
        return null;
      }
      const message = t("learn.held", { next: words(step, "hint", progress.made) || words(step, "intro") });
      say(message, "held");
      return message;
    },
    refused(action, reason) {
      say(t("learn.refused", { action, reason: translateReason(reason) }), "wrong");
    },
    shown(frame, module) {
      last = frame;
      const step = lesson();
      if (!step || !progress || finished) return;
      const over = frame.table.status === "over";
      const settled = over || !module.waitingFor(frame); // no conflict still being decided
      if (progress.made >= step.tries.length && progress.sent !== null && Number(frame.table.version) > progress.sent && settled) {
        finished = true;
        say(words(step, "done"), "done");
      } else {
        draw();
      }
    },
    highlights(module) {
      const step = lesson();
      if (!step || !progress || finished || progress.made >= step.tries.length) return [];
      const want = step.tries[progress.made];
      const cells = want.includes("*") ? step.cells : module.cellsOf(want);
      /** @type {Highlight[]} */
      const marks = cells.length ? [{ seat: -1, cells, colour: GUIDE_COLOUR, fresh: true }] : [];
      return marks;
    },
  };

  /**
   * A step's words in the language: the catalogue's message for the lesson where it has one,
   * else the server's (English) text.
   * @param {Lesson} step
   * @param {"title" | "intro" | "hint" | "done" | "wrong"} part
   * @param {number} [n] which hint
   */
  function words(step, part, n = 0) {
    const key = `lesson.${game}.${step.name}.${part}${part === "hint" ? `.${n}` : ""}`;
    if (has(key)) return t(key);
    if (part === "hint") return step.hints[n] || "";
    return step[part] || "";
  }

  /**
   * A step's words with the seats named as the table names them (the opponent "Random bot",
   * not "the bull"), once the table's first frame has come.
   * @param {string} text
   */
  function named(text) {
    return last ? namedText(text, seatingOf(last.view.players, last)) : text;
  }

  function draw() {
    const step = lesson();
    if (!step || !progress) return;
    const index = progress.step;
    const final = index === lessons.length - 1;
    const next = progress.made < step.hints.length ? words(step, "hint", progress.made) : "";
    put(panel,
      el("div", { class: "guide-head" },
        el("span", { class: `badge ${game}` }, GAME_TITLES[game]),
        el("strong", { id: "guide-step", "data-step": step.name }, t("learn.step", { number: index + 1, total: lessons.length, title: words(step, "title") })),
        link(`#/rules/${game}`, t("lobby.rules"), { class: "btn small", id: "guide-rules" })),
      el("p", { class: "guide-intro", id: "guide-intro" }, named(words(step, "intro"))),
      !finished && next ? el("p", { class: "guide-try", id: "guide-try" }, el("strong", {}, t("learn.now")), " ", named(next)) : null,
      !finished && step.wrong ? el("p", { class: "small muted guide-wrong" }, named(words(step, "wrong"))) : null,
      feedback.text ? el("p", { class: `guide-feedback ${feedback.kind}`, id: "guide-feedback", role: "status" }, named(feedback.text)) : null,
      el("div", { class: "row-buttons" },
        el("button", { class: "btn small", id: "guide-again", onclick: () => begin(index) }, t("learn.again")),
        index > 0 ? el("button", { class: "btn small", id: "guide-back", onclick: () => begin(index - 1) }, t("learn.previous")) : null,
        finished && !final ? el("button", { class: "btn primary", id: "guide-next", onclick: () => begin(index + 1) }, t("learn.next")) : null,
        finished && final ? el("button", { class: "btn primary", id: "guide-play", onclick: () => playEasy(game) }, t("learn.play_easy")) : null));
  }

  return {
    destroy() { alive = false; screen?.destroy(); },
  };
}

/**
 * The guided game's end: a normal game against `easy`, this browser's seat.
 * @param {string} game
 */
async function playEasy(game) {
  try {
    // The seat shows the person's name, as the lesson's did (an account's is the server's).
    const name = seatName();
    const created = await api.create({ game, players: 2, seats: ["human", "bot:easy"], options: {}, hotseat: false, ...(name ? { name } : {}) });
    const mine = created.seats[0];
    remember(created.id, { token: mine.token, seat: mine.seat, game });
    save(game, null);
    location.hash = `#/play/${created.id}`;
  } catch (error) {
    toast(messageOf(error));
  }
}
