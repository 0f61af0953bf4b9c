// @ts-check
// The lobby: open, running and finished games (polled), and the form for a new table.

import { api } from "./api.js";
import { GAME_TITLES } from "./games.js";
import { OPTION_HELP } from "./rules.js";
import { remember, rememberedAll } from "./state.js";
import { el, fieldChecked, fieldValue, link, messageOf, put, titleCase, toast } from "./ui.js";

/** @typedef {import("./types").BotInfo} BotInfo */
/** @typedef {import("./types").GameInfo} GameInfo */
/** @typedef {import("./types").Meta} Meta */
/** @typedef {import("./types").Options} Options */
/** @typedef {import("./types").Screen} Screen */
/** @typedef {import("./types").TableSummary} TableSummary */
/** @typedef {import("./types").TableStatus} TableStatus */

/**
 * The new-table form as the person fills it in.
 * @typedef {{game: string, players: number, mode: "online" | "hotseat", seats: string[], options: Options, rated: boolean, spectatorChat: boolean}} NewTableForm
 */

/** @type {Record<string, string[]>} */
const OPTION_CHOICES = { board: ["standard", "advanced"] };
/** @type {Record<string, string>} */
const OPTION_LABELS = {
  board: "Board side",
  buildings: "Civilization buildings",
  english: "English commitment rules",
  wonder: "The wonder",
  open_scoring: "Open scoring",
};

/**
 * The lobby: the games (polled) and the form for a new table.
 * @param {HTMLElement} root
 * @returns {Screen}
 */
export function lobbyScreen(root) {
  const list = el("div", { class: "lobby-list" }, el("p", { class: "muted" }, "Loading…"));
  const form = el("div", { class: "card new-table" }, el("p", { class: "muted" }, "Loading…"));
  root.append(el("div", { class: "lobby" },
    el("section", { class: "card learn-banner", id: "learn-banner" },
      el("strong", {}, "New to these games?"), " ",
      link("#/learn", "Learn to play", { class: "btn primary", id: "learn-to-play" }), " ",
      link("#/rules", "Rules", { class: "btn" })),
    el("section", { class: "card" }, el("h1", {}, "Games"), list),
    form));
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let alive = true;

  async function refresh() {
    try {
      const { games } = await api.lobby();
      if (!alive) return;
      put(list, lobbyTable(games));
    } catch (error) {
      put(list, el("p", { class: "error" }, `Cannot reach the server: ${messageOf(error)}`));
    }
    if (alive) timer = setTimeout(refresh, 4000);
  }

  api.meta().then((meta) => { if (alive) put(form, newTableForm(meta)); })
    .catch((error) => put(form, el("p", { class: "error" }, error.message)));
  refresh();
  return { destroy() { alive = false; clearTimeout(timer); } };
}

/** @param {TableSummary[]} games */
function lobbyTable(games) {
  if (!games.length) return el("p", { class: "muted" }, "No games yet: start one.");
  const mine = rememberedAll();
  /** @type {[TableStatus, string][]} */
  const groups = [["open", "Open: seats waiting for players"], ["running", "Running"], ["over", "Finished"]];
  return groups.map(([status, heading]) => {
    const rows = games.filter((g) => g.status === status);
    if (!rows.length) return null;
    return el("div", { class: "lobby-group" },
      el("h3", {}, heading),
      el("ul", { class: "games" }, rows.slice(0, 30).map((g) => {
        const seats = g.seats.map((kind, i) =>
          `${titleCase(g.players[i])}${kind === "human" ? "" : ` (${kind.replace("bot:", "bot ")})`}`);
        const saved = mine[g.id];
        const buttons = [];
        if (saved?.token && status !== "over") buttons.push(link(`#/play/${g.id}`, "Resume"));
        if (saved?.table_token && status !== "over") buttons.push(link(`#/hotseat/${g.id}`, "Resume"));
        if (status === "open" && !saved) {
          buttons.push(el("button", { class: "btn", onclick: () => joinGame(g.id) }, "Join"));
        }
        if (status !== "over") buttons.push(link(`#/watch/${g.id}`, "Watch"));
        else buttons.push(link(`#/replay/${g.id}`, "Replay"), link(`#/analysis/${g.id}`, "Analysis"));
        return el("li", { class: "game-row", "data-game-id": g.id },
          el("span", { class: `badge ${g.game}` }, GAME_TITLES[g.game] || g.game),
          el("span", { class: "who" }, seats.join(" · ")),
          el("span", { class: "muted" }, `${g.moves} moves${g.hotseat ? " · hot seat" : ""}`),
          el("span", { class: "row-buttons" }, buttons));
      })));
  });
}

/** @param {string} id */
async function joinGame(id) {
  try {
    const joined = await api.join(id);
    remember(id, { token: joined.token, seat: joined.seat });
    location.hash = `#/play/${id}`;
  } catch (error) {
    toast(messageOf(error));
  }
}

/**
 * The bots as the server describes them: the levels by strength, then the others.
 * @param {Meta} meta
 */
function botMenu(meta) {
  /** @type {BotInfo[]} */
  const menu = meta.bot_menu || (meta.bots || []).map((name) => ({ name, level: false, strength: null, seconds: null, about: "" }));
  const levels = menu.filter((b) => b.level).sort((a, b) => (a.strength ?? 0) - (b.strength ?? 0));
  const others = menu.filter((b) => !b.level);
  return { levels, others, byName: Object.fromEntries(menu.map((b) => [b.name, b])) };
}

/** @param {BotInfo} bot */
function thinkingTime(bot) {
  if (bot.seconds === null || bot.seconds === undefined) return "";
  return bot.seconds > 0 ? `thinks up to ${bot.seconds} s` : "moves at once";
}

/** @param {Meta} meta */
function newTableForm(meta) {
  const games = meta.games;
  if (!games.length) return el("p", { class: "error" }, "This server offers no game.");
  const bots = botMenu(meta);
  const defaultBot = `bot:${(bots.levels[0] || bots.others[0] || { name: "random" }).name}`;
  /** @type {NewTableForm} */
  const state = { game: games[0].name, players: 2, mode: "online", seats: [], options: {}, rated: false, spectatorChat: false };
  const body = el("div");

  /** @param {string} kind */
  function seatLabel(kind) {
    if (kind === "human") return "a person (invite link)";
    if (kind === "open") return "anyone (lobby)";
    const bot = bots.byName[kind.slice(4)];
    const time = bot ? thinkingTime(bot) : "";
    return `bot: ${kind.slice(4)}${time ? ` (${time})` : ""}`;
  }

  /** @param {number} i */
  function seatSelect(i) {
    /** @param {string} k */
    const option = (k) => el("option", { value: k, selected: k === state.seats[i] }, seatLabel(k));
    return el("select", { "data-seat": i, onchange: (e) => { state.seats[i] = fieldValue(e); render(); } },
      option("human"), option("open"),
      bots.levels.length ? el("optgroup", { label: "Bots, weakest first" }, bots.levels.map((b) => option(`bot:${b.name}`))) : null,
      bots.others.length ? el("optgroup", { label: "Other bots" }, bots.others.map((b) => option(`bot:${b.name}`))) : null);
  }

  function render() {
    const info = games.find((g) => g.name === state.game);
    if (!info) return;
    state.players = Math.min(Math.max(state.players, info.min_players), info.max_players);
    while (state.seats.length < info.max_players) state.seats.push(state.seats.length ? defaultBot : "human");
    for (const [key, value] of Object.entries(info.options)) {
      if (!(key in state.options) || typeof state.options[key] !== typeof value) state.options[key] = value;
    }
    put(body,
      el("label", { class: "field" }, "Game",
        el("select", { id: "new-game", onchange: (e) => { state.game = fieldValue(e); state.options = {}; render(); } },
          games.map((g) => el("option", { value: g.name, selected: g.name === state.game }, GAME_TITLES[g.name] || g.name)))),
      el("label", { class: "field" }, "Players",
        el("select", { id: "new-players", onchange: (e) => { state.players = Number(fieldValue(e)); render(); } },
          range(info.min_players, info.max_players).map((n) =>
            el("option", { value: n, selected: n === state.players }, String(n))))),
      el("fieldset", { class: "field" }, el("legend", {}, "Seats"),
        range(0, state.players - 1).map((i) => {
          const kind = state.seats[i];
          const bot = kind.startsWith("bot:") ? bots.byName[kind.slice(4)] : null;
          return el("div", { class: "seat-line" },
            el("label", { class: "seat-choice" }, `Seat ${i + 1}`, seatSelect(i)),
            bot?.about ? el("p", { class: "muted small seat-about", "data-about": i },
              `${titleCase(bot.name)}: ${bot.about}.`) : null);
        })),
      optionFields(info, state),
      el("fieldset", { class: "field" }, el("legend", {}, "How people play"),
        el("label", { class: "radio" },
          el("input", { type: "radio", name: "mode", value: "online", checked: state.mode === "online", onchange: () => { state.mode = "online"; } }),
          " Online: each person on their own screen (invite links)"),
        el("label", { class: "radio" },
          el("input", { type: "radio", name: "mode", value: "hotseat", checked: state.mode === "hotseat", onchange: () => { state.mode = "hotseat"; } }),
          " Hot seat: everybody at this screen, hands hidden between turns")),
      el("fieldset", { class: "field" }, el("legend", {}, "Table"),
        el("label", { class: "check" },
          el("input", { type: "checkbox", id: "new-rated", checked: state.rated, onchange: (e) => { state.rated = fieldChecked(e); } }),
          " Rated: every seat a signed-in person (no bots), online; no undo, no hints"),
        el("label", { class: "check" },
          el("input", { type: "checkbox", id: "new-spectator-chat", checked: state.spectatorChat, onchange: (e) => { state.spectatorChat = fieldChecked(e); } }),
          " Spectators may chat too (players always can)")),
      el("button", { class: "btn primary", id: "create-game", onclick: () => createGame(state) }, "Start the game"),
    );
  }
  render();
  return [el("h1", {}, "New table"), body];
}

/** @param {GameInfo} info @param {NewTableForm} state */
function optionFields(info, state) {
  const fields = Object.entries(info.options).filter(([, v]) => v !== null);
  if (!fields.length) return null;
  return el("fieldset", { class: "field" }, el("legend", {}, "Variants"),
    fields.map(([key, value]) => {
      const label = OPTION_LABELS[key] || key.replace(/_/g, " ");
      const help = OPTION_HELP[key] ? el("span", { class: "option-help small muted", "data-help": key }, OPTION_HELP[key]) : null;
      if (typeof value === "boolean") {
        return el("label", { class: "check" },
          el("input", { type: "checkbox", "data-option": key, checked: state.options[key],
            onchange: (e) => { state.options[key] = fieldChecked(e); } }), ` ${label}`, help);
      }
      const choices = OPTION_CHOICES[key];
      if (choices) {
        return el("label", { class: "seat-choice" }, label,
          el("select", { "data-option": key, onchange: (e) => { state.options[key] = fieldValue(e); } },
            choices.map((c) => el("option", { value: c, selected: c === state.options[key] }, c))), help);
      }
      return el("label", { class: "seat-choice" }, label,
        el("input", { "data-option": key, value: String(state.options[key]),
          onchange: (e) => { state.options[key] = fieldValue(e); } }));
    }));
}

/** @param {NewTableForm} state */
async function createGame(state) {
  const hotseat = state.mode === "hotseat";
  // At one screen there is nobody to wait for: open seats are people at the table.
  const seats = state.seats.slice(0, state.players).map((k) => (hotseat && k === "open" ? "human" : k));
  try {
    const created = await api.create({
      game: state.game, players: state.players, seats, options: state.options, hotseat,
      rated: state.rated, spectator_chat: state.spectatorChat,
    });
    if (hotseat) {
      remember(created.id, { table_token: created.table_token, game: state.game });
      location.hash = `#/hotseat/${created.id}`;
      return;
    }
    if (!created.seats.length) {
      location.hash = `#/watch/${created.id}`;
      return;
    }
    const [mine, ...others] = created.seats;
    const invites = others.map((s) => ({ seat: s.seat, invite: s.invite }));
    remember(created.id, { token: mine.token, seat: mine.seat, game: state.game, invites });
    location.hash = `#/play/${created.id}`;
  } catch (error) {
    toast(messageOf(error));
  }
}

/**
 * The whole numbers from a to b, both included.
 * @param {number} a
 * @param {number} b
 */
function range(a, b) {
  const out = [];
  for (let i = a; i <= b; i += 1) out.push(i);
  return out;
}
