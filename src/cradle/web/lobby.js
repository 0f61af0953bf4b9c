// @ts-check
// The lobby: open, running and finished games (polled), and the form for a new table.

import { me, seatName } from "./account.js";
import { nameAt } from "./names.js";
import { api } from "./api.js";
import { GAME_TITLES } from "./games.js";
import { OPTION_HELP } from "./rules.js";
import { remember, rememberedAll } from "./state.js";
import { dialog, el, fieldChecked, fieldValue, link, messageOf, put, ratedBadge, titleCase, toast } from "./ui.js";

/** @typedef {import("./types").BotInfo} BotInfo */
/** @typedef {import("./types").GameInfo} GameInfo */
/** @typedef {import("./types").Meta} Meta */
/** @typedef {import("./types").Options} Options */
/** @typedef {import("./types").Screen} Screen */
/** @typedef {import("./types").TableSummary} TableSummary */
/** @typedef {import("./types").TableStatus} TableStatus */

/** @typedef {import("./types").LobbyFilter} LobbyFilter */

/**
 * The new-table form as the person fills it in: `pace` live or turn-based (with `deadline`
 * seconds per move), `secret` invite only.
 * @typedef {{game: string, players: number, mode: "online" | "hotseat", seats: string[], options: Options, pace: "live" | "turn", deadline: number, secret: boolean, rated: boolean, spectatorChat: boolean}} NewTableForm
 */

/** The time per move a turn-based table may give, in seconds, with its words. */
const DEADLINES = [
  [3600, "1 hour"], [6 * 3600, "6 hours"], [12 * 3600, "12 hours"], [86400, "1 day"],
  [2 * 86400, "2 days"], [3 * 86400, "3 days"], [7 * 86400, "7 days"],
];

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
 * A switched variant as the lobby's filter says it, on and off (written whole: "no " glued
 * before a name read "no the wonder").
 * @type {Record<string, [string, string]>}
 */
const OPTION_SWITCHED = {
  buildings: ["with civilization buildings", "without civilization buildings"],
  english: ["English commitment rules", "the standard commitment rules"],
  wonder: ["with the wonder", "without the wonder"],
  open_scoring: ["open scoring", "hidden scoring"],
};

/**
 * The lobby: the games (polled) and the form for a new table.
 * @param {HTMLElement} root
 * @returns {Screen}
 */
export function lobbyScreen(root) {
  const list = el("div", { class: "lobby-list" }, el("p", { class: "muted" }, "Loading…"));
  const filters = el("div", { class: "lobby-filters", id: "lobby-filters" });
  const form = el("div", { class: "card new-table" }, el("p", { class: "muted" }, "Loading…"));
  root.append(el("div", { class: "lobby" },
    el("section", { class: "card learn-banner", id: "learn-banner" },
      el("strong", {}, "New to these games?"), " ",
      link("#/learn", "Learn to play", { class: "btn primary", id: "learn-to-play" }), " ",
      link("#/rules", "Rules", { class: "btn" })),
    el("section", { class: "card" }, el("h1", {}, "Games"), filters, list),
    form));
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let alive = true;
  /** @type {LobbyFilter & {mine?: boolean}} */
  const filter = {};

  async function refresh() {
    clearTimeout(timer);
    try {
      const { mine, ...asked } = filter;
      if (mine) {
        // The games this browser holds a seat of, and a signed-in player's from any device.
        const ids = new Set(Object.keys(rememberedAll()).slice(-60));
        if (me.account) for (const game of (await api.myGames()).games) ids.add(game.id);
        asked.ids = [...ids].slice(0, 100).join(",");
      }
      const { games } = mine && !asked.ids ? { games: [] } : await api.lobby(asked);
      if (!alive) return;
      put(list, lobbyTable(games, refresh));
    } catch (error) {
      put(list, el("p", { class: "error" }, `Cannot reach the server: ${messageOf(error)}`));
    }
    if (alive) timer = setTimeout(refresh, 4000);
  }

  api.meta().then((meta) => {
    if (!alive) return;
    put(form, newTableForm(meta));
    put(filters, lobbyFilters(meta, filter, refresh));
  }).catch((error) => put(form, el("p", { class: "error" }, error.message)));
  refresh();
  return { destroy() { alive = false; clearTimeout(timer); } };
}

/**
 * The lobby's filters: the game, the players, the variant, live or turn-based, my games.
 * @param {Meta} meta
 * @param {LobbyFilter & {mine?: boolean}} filter changed in place
 * @param {() => void} refresh
 */
function lobbyFilters(meta, filter, refresh) {
  /** @param {keyof LobbyFilter} key @param {string} value */
  const set = (key, value) => {
    if (value === "") delete filter[key];
    else if (key === "players") filter.players = Number(value);
    else /** @type {Record<string, string>} */ (filter)[key] = value;
    refresh();
  };
  const most = Math.max(...meta.games.map((g) => g.max_players));
  const least = Math.min(...meta.games.map((g) => g.min_players));
  /** @type {[string, string][]} */
  const variants = [];
  for (const info of meta.games) {
    for (const [key, value] of Object.entries(info.options)) {
      const label = OPTION_LABELS[key] || key.replace(/_/g, " ");
      const title = GAME_TITLES[info.name] || info.name;
      if (typeof value === "boolean") {
        const [on, off] = OPTION_SWITCHED[key] || [label, `without ${label}`];
        variants.push([`${key}=true`, `${title}: ${on}`], [`${key}=false`, `${title}: ${off}`]);
      } else if (OPTION_CHOICES[key]) {
        for (const choice of OPTION_CHOICES[key]) variants.push([`${key}=${choice}`, `${title}: ${label.toLowerCase()} ${choice}`]);
      }
    }
  }
  /** @param {string} id @param {string} label @param {keyof LobbyFilter} key @param {[string, string][]} choices */
  const select = (id, label, key, choices) => el("label", { class: "filter" }, label,
    el("select", { id, onchange: (/** @type {Event} */ e) => set(key, fieldValue(e)) },
      el("option", { value: "" }, "any"),
      choices.map(([value, words]) => el("option", { value }, words))));
  return [
    select("filter-game", "Game", "game", meta.games.map((g) => [g.name, GAME_TITLES[g.name] || g.name])),
    select("filter-players", "Players", "players", range(least, most).map((n) => [String(n), String(n)])),
    select("filter-mode", "Pace", "mode", [["live", "live"], ["turn", "turn-based"]]),
    variants.length ? select("filter-variant", "Variant", "variant", variants) : null,
    el("label", { class: "check filter" },
      el("input", { type: "checkbox", id: "filter-mine",
        onchange: (/** @type {Event} */ e) => { filter.mine = fieldChecked(e); refresh(); } }), " My games"),
  ];
}

/**
 * "1 move", "2 moves".
 * @param {number} count @param {string} word
 */
function counted(count, word) {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/**
 * What the lobby says of a finished game: the winner, the scores, how it ended, the date.
 * @param {TableSummary} g
 */
function finishedWords(g) {
  const result = [...(g.result || [])].sort((a, b) => a.place - b.place);
  const winners = result.filter((line) => line.place === 1).map((line) => nameAt(g, line.seat));
  const won = winners.length ? `${winners.join(" and ")} ${winners.length > 1 ? "tie" : "won"}` : "";
  const scores = result.map((line) => String(line.score)).join("–");
  const out = result.find((line) => line.out);
  const how = out && g.ended_by ? ENDINGS[g.ended_by](nameAt(g, out.seat)) : "";
  const when = new Date(g.updated * 1000).toLocaleDateString(undefined, { day: "numeric", month: "short", year: "numeric" });
  return [won, scores && `scores ${scores}`, how, when].filter(Boolean).join(" · ");
}

/**
 * How a game ended early, said of the seat that left it.
 * @type {Record<string, (who: string) => string>}
 */
export const ENDINGS = {
  conceded: (/** @type {string} */ who) => `${who} conceded`,
  timeout: (/** @type {string} */ who) => `ended without ${who} (time ran out)`,
  abandoned: (/** @type {string} */ who) => `nobody moved for three deadlines (${who} was to play)`,
};

/**
 * A turn-based table's time per move in words: "1 day", "6 hours".
 * @param {number} seconds
 */
export function paceWords(seconds) {
  const found = DEADLINES.find(([s]) => s === seconds);
  if (found) return String(found[1]);
  return seconds >= 86400 ? counted(Math.round(seconds / 86400), "day") : counted(Math.round(seconds / 3600), "hour");
}

/**
 * @param {TableSummary[]} games
 * @param {() => void} refresh
 */
function lobbyTable(games, refresh) {
  if (!games.length) return el("p", { class: "muted" }, "No games here: start one.");
  const mine = rememberedAll();
  /** @type {[TableStatus, string][]} */
  const groups = [["open", "Open: seats waiting for players"], ["running", "Running"], ["over", "Finished"]];
  return groups.map(([status, heading]) => {
    const rows = games.filter((g) => g.status === status);
    if (!rows.length) return null;
    return el("div", { class: "lobby-group" },
      el("h2", { class: "section" }, heading),
      el("ul", { class: "games" }, rows.slice(0, 30).map((g) => {
        const seats = g.seats.map((_, i) => nameAt(g, i)); // a bot's by its level
        const saved = mine[g.id];
        const buttons = [];
        if (saved?.token && status !== "over") buttons.push(link(`#/play/${g.id}`, "Resume"));
        if (saved?.table_token && status !== "over") buttons.push(link(`#/hotseat/${g.id}`, "Resume"));
        if (status === "open" && !saved) {
          buttons.push(el("button", { class: "btn", onclick: () => joinGame(g.id) }, "Join"));
        }
        if (status !== "over") buttons.push(link(`#/watch/${g.id}`, "Watch"));
        else buttons.push(link(`#/replay/${g.id}`, "Replay"), link(`#/analysis/${g.id}`, "Analysis"));
        const token = saved?.token || saved?.table_token;
        if (saved?.creator && token && status !== "over" && g.moves === 0) {
          buttons.push(el("button", { class: "btn danger", "data-remove": g.id,
            onclick: () => removeGame(g.id, token, refresh) }, "Remove"));
        }
        const pace = g.mode === "turn" && g.deadline_s ? `turn-based, ${paceWords(g.deadline_s)} a move` : "";
        return el("li", { class: "game-row", "data-game-id": g.id },
          el("span", { class: `badge ${g.game}` }, GAME_TITLES[g.game] || g.game),
          g.rated ? ratedBadge(g.id) : null,
          el("span", { class: "who" }, seats.join(" · ")),
          el("span", { class: "muted" }, [counted(g.moves, "move"), g.hotseat ? "hot seat" : "", pace].filter(Boolean).join(" · ")),
          status === "over" ? el("span", { class: "small finished", "data-finished": g.id }, finishedWords(g)) : null,
          el("span", { class: "row-buttons" }, buttons));
      })));
  });
}

/**
 * The creator removes a table nobody has moved at, once they confirm.
 * @param {string} id @param {string} token @param {() => void} refresh
 */
function removeGame(id, token, refresh) {
  dialog({
    id: "remove-table",
    title: "Remove this table?",
    body: [el("p", {}, "Nobody has moved yet. The table closes for everyone, and its invites stop working.")],
    buttons: [
      { label: "Keep it", onclick: () => {} },
      { label: "Remove the table", kind: "danger", action: "remove", onclick: async () => {
        try {
          await api.remove(id, token);
          toast("The table was removed", "info");
          refresh();
        } catch (error) {
          toast(messageOf(error));
        }
      } },
    ],
    dismissable: true,
  });
}

/** @param {string} id */
async function joinGame(id) {
  try {
    const joined = await api.join(id, undefined, seatName());
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
  const state = { game: games[0].name, players: 2, mode: "online", seats: [], options: {},
    pace: "live", deadline: 86400, secret: false, rated: false, spectatorChat: false };
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
          el("input", { type: "radio", name: "mode", value: "hotseat", checked: state.mode === "hotseat", onchange: () => { state.mode = "hotseat"; state.pace = "live"; render(); } }),
          " Hot seat: everybody at this screen, hands hidden between turns")),
      state.mode === "online" ? paceFields(state, render) : null,
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

/**
 * Live or turn-based, the time per move, invite only: each explained.
 * @param {NewTableForm} state @param {() => void} render
 */
function paceFields(state, render) {
  const turn = state.pace === "turn";
  return el("fieldset", { class: "field", id: "pace" }, el("legend", {}, "Pace and privacy"),
    el("label", { class: "radio" },
      el("input", { type: "radio", name: "pace", value: "live", checked: !turn, onchange: () => { state.pace = "live"; render(); } }),
      " Live: everyone plays now, with no clock"),
    el("label", { class: "radio" },
      el("input", { type: "radio", name: "pace", value: "turn", checked: turn, onchange: () => { state.pace = "turn"; render(); } }),
      " Turn-based: play when you can; each person has a time per move"),
    turn ? el("label", { class: "seat-choice" }, "Time per move",
      el("select", { id: "new-deadline", onchange: (/** @type {Event} */ e) => { state.deadline = Number(fieldValue(e)); } },
        DEADLINES.map(([seconds, words]) => el("option", { value: seconds, selected: seconds === state.deadline }, String(words))))) : null,
    turn ? el("p", { class: "muted small", id: "pace-about" },
      "When someone's time runs out, the others may let a bot play that turn for them, or end the game without them. ",
      "A game nobody moves in for three times the time per move ends by itself. Signed-in players who asked for them get an e-mail when their turn comes.") : null,
    el("label", { class: "check" },
      el("input", { type: "checkbox", id: "new-private", checked: state.secret,
        onchange: (/** @type {Event} */ e) => { state.secret = fieldChecked(e); render(); } }),
      " Private: invite only"),
    state.secret ? el("p", { class: "muted small", id: "private-about" },
      "The table is not listed in the lobby: only the people you send an invite link join (so no seat is offered to \"anyone\"), and watching needs its address.") : null);
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
    /** @type {import("./types").NewTable} */
    const body = { game: state.game, players: state.players, seats, options: state.options, hotseat,
      rated: state.rated, spectator_chat: state.spectatorChat,
      ...(hotseat || !seatName() ? {} : { name: seatName() || undefined }) };
    if (!hotseat && state.pace === "turn") Object.assign(body, { mode: "turn", deadline_s: state.deadline });
    if (!hotseat && state.secret) body.private = true;
    const created = await api.create(body);
    if (hotseat) {
      remember(created.id, { table_token: created.table_token, game: state.game, creator: true });
      location.hash = `#/hotseat/${created.id}`;
      return;
    }
    if (!created.seats.length) {
      location.hash = `#/watch/${created.id}`;
      return;
    }
    const [mine, ...others] = created.seats;
    const invites = others.map((s) => ({ seat: s.seat, invite: s.invite }));
    remember(created.id, { token: mine.token, seat: mine.seat, game: state.game, invites, creator: true });
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
