// @ts-check
// The lobby: open, running and finished games (polled), and the form for a new table.

import { me, seatName } from "./account.js";
import { nameAt } from "./names.js";
import { api } from "./api.js";
import { GAME_TITLES } from "./games.js";
import { remember, rememberedAll } from "./state.js";
import { date, has, list, t } from "./i18n.js";
import { dialog, el, fieldChecked, fieldValue, link, messageOf, put, ratedBadge, toast } from "./ui.js";

/** @typedef {import("./types").BotChoice} BotInfo */
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
 * @typedef {{game: string, players: number, mode: "online" | "hotseat", seats: string[], options: Options, pace: "live" | "turn", deadline: number, clock: "none" | keyof CLOCKS, secret: boolean, rated: boolean, spectatorChat: boolean}} NewTableForm
 */

/** The times per move a turn-based table may give, in seconds. */
const DEADLINES = [3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 3 * 86400, 7 * 86400];
/** A live table's named clocks: each person's base time and the seconds added per turn. */
const CLOCKS = {
  quick: { base_s: 5 * 60, increment_s: 5 },
  standard: { base_s: 15 * 60, increment_s: 10 },
  relaxed: { base_s: 30 * 60, increment_s: 20 },
};

/** @type {Record<string, string[]>} */
const OPTION_CHOICES = { board: ["standard", "advanced"] };

/**
 * A table option's name ("Board side"), or its key when this client does not know it.
 * @param {string} key
 */
export function optionLabel(key) {
  return has(`option.${key}`) ? t(`option.${key}`) : key.replace(/_/g, " ");
}

/**
 * A choice of a table option ("advanced" for the board side).
 * @param {string} key @param {string} choice
 */
export function optionChoice(key, choice) {
  return has(`option.${key}.${choice}`) ? t(`option.${key}.${choice}`) : choice;
}

/**
 * The lobby: the games (polled) and the form for a new table.
 * @param {HTMLElement} root
 * @returns {Screen}
 */
export function lobbyScreen(root) {
  const games = el("div", { class: "lobby-list" }, el("p", { class: "muted" }, t("common.loading")));
  const filters = el("div", { class: "lobby-filters", id: "lobby-filters" });
  const form = el("div", { class: "card new-table" }, el("p", { class: "muted" }, t("common.loading")));
  root.append(el("div", { class: "lobby" },
    el("section", { class: "card learn-banner", id: "learn-banner" },
      el("strong", {}, t("lobby.new_here")), " ",
      link("#/learn", t("lobby.learn"), { class: "btn primary", id: "learn-to-play" }), " ",
      link("#/rules", t("lobby.rules"), { class: "btn" })),
    el("section", { class: "card" }, el("h1", {}, t("lobby.games")), filters, games),
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
      const { games: found } = mine && !asked.ids ? { games: [] } : await api.lobby(asked);
      if (!alive) return;
      put(games, lobbyTable(found, refresh));
    } catch (error) {
      put(games, el("p", { class: "error" }, t("lobby.unreachable", { reason: messageOf(error) })));
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
      const option = optionLabel(key);
      const game = GAME_TITLES[info.name] || info.name;
      if (typeof value === "boolean") {
        // A switched variant in whole words, on and off ("with the wonder", "without the
        // wonder": "no " glued before a name read "no the wonder"); an option this client
        // has no words for, by its name.
        const on = has(`option.${key}.on`) ? t(`option.${key}.on`) : option;
        variants.push(
          [`${key}=true`, t("lobby.variant_with", { game, option: on })],
          [`${key}=false`, has(`option.${key}.off`) ? t("lobby.variant_with", { game, option: t(`option.${key}.off`) }) : t("lobby.variant_without", { game, option })]);
      } else if (OPTION_CHOICES[key]) {
        for (const choice of OPTION_CHOICES[key]) {
          variants.push([`${key}=${choice}`, t("lobby.variant_choice", { game, option, choice: optionChoice(key, choice) })]);
        }
      }
    }
  }
  /** @param {string} id @param {string} label @param {keyof LobbyFilter} key @param {[string, string][]} choices */
  const select = (id, label, key, choices) => el("label", { class: "filter" }, label,
    el("select", { id, onchange: (/** @type {Event} */ e) => set(key, fieldValue(e)) },
      el("option", { value: "" }, t("lobby.any")),
      choices.map(([value, words]) => el("option", { value }, words))));
  return [
    select("filter-game", t("lobby.game"), "game", meta.games.map((g) => [g.name, GAME_TITLES[g.name] || g.name])),
    select("filter-players", t("lobby.players"), "players", range(least, most).map((n) => [String(n), String(n)])),
    select("filter-mode", t("lobby.pace"), "mode", [["live", t("lobby.live")], ["turn", t("lobby.turn_based")]]),
    variants.length ? select("filter-variant", t("lobby.variant"), "variant", variants) : null,
    el("label", { class: "check filter" },
      el("input", { type: "checkbox", id: "filter-mine",
        onchange: (/** @type {Event} */ e) => { filter.mine = fieldChecked(e); refresh(); } }), " ", t("account.my_games")),
  ];
}

/**
 * What the lobby says of a finished game: the winner, the scores, how it ended, the date.
 * @param {TableSummary} g
 */
function finishedWords(g) {
  const result = [...(g.result || [])].sort((a, b) => a.place - b.place);
  const winners = result.filter((line) => line.place === 1).map((line) => nameAt(g, line.seat));
  const won = winners.length ? t("lobby.winners", { count: winners.length, names: list(winners) }) : "";
  const scores = result.map((line) => String(line.score)).join("–");
  const out = result.find((line) => line.out);
  const how = out && g.ended_by ? endedBy(g.ended_by, nameAt(g, out.seat)) : "";
  const when = date(g.updated * 1000, { day: "numeric", month: "short", year: "numeric" });
  return [won, scores && t("lobby.scores", { scores }), how, when].filter(Boolean).join(" · ");
}

/**
 * How a game ended early ("conceded", "timeout", "abandoned"), said of the seat that left it.
 * @param {string} how @param {string} name
 */
export function endedBy(how, name) {
  return has(`ending.${how}`) ? t(`ending.${how}`, { name }) : how;
}

/**
 * A turn-based table's time per move in words: "1 day", "6 hours".
 * @param {number} seconds
 */
export function paceWords(seconds) {
  return seconds >= 86400 ? t("common.days", { count: Math.round(seconds / 86400) }) : t("common.hours", { count: Math.round(seconds / 3600) });
}

/**
 * @param {TableSummary[]} games
 * @param {() => void} refresh
 */
function lobbyTable(games, refresh) {
  if (!games.length) return el("p", { class: "muted" }, t("lobby.none"));
  const mine = rememberedAll();
  /** @type {[TableStatus, string][]} */
  const groups = [["open", t("lobby.group_open")], ["running", t("lobby.group_running")], ["over", t("lobby.group_over")]];
  return groups.map(([status, heading]) => {
    const rows = games.filter((g) => g.status === status);
    if (!rows.length) return null;
    return el("div", { class: "lobby-group" },
      el("h2", { class: "section" }, heading),
      el("ul", { class: "games" }, rows.slice(0, 30).map((g) => {
        const seats = g.seats.map((_, i) => nameAt(g, i)); // a bot's by its level
        const saved = mine[g.id];
        const buttons = [];
        if (saved?.token && status !== "over") buttons.push(link(`#/play/${g.id}`, t("lobby.resume")));
        if (saved?.table_token && status !== "over") buttons.push(link(`#/hotseat/${g.id}`, t("lobby.resume")));
        if (status === "open" && !saved) {
          buttons.push(el("button", { class: "btn", onclick: () => joinGame(g.id) }, t("lobby.join")));
        }
        if (status !== "over") buttons.push(link(`#/watch/${g.id}`, t("common.watch")));
        else buttons.push(link(`#/replay/${g.id}`, t("common.replay")), link(`#/analysis/${g.id}`, t("common.analysis")));
        const token = saved?.token || saved?.table_token;
        if (saved?.creator && token && status !== "over" && g.moves === 0) {
          buttons.push(el("button", { class: "btn danger", "data-remove": g.id,
            onclick: () => removeGame(g.id, token, refresh) }, t("lobby.remove")));
        }
        const pace = g.mode === "turn" && g.deadline_s ? t("lobby.turn_pace", { time: paceWords(g.deadline_s) }) : "";
        return el("li", { class: "game-row", "data-game-id": g.id },
          el("span", { class: `badge ${g.game}` }, GAME_TITLES[g.game] || g.game),
          g.rated ? ratedBadge(g.id) : null,
          el("span", { class: "who" }, seats.join(" · ")),
          el("span", { class: "muted" }, [t("common.moves", { count: g.moves }), g.hotseat ? t("lobby.hot_seat") : "", pace].filter(Boolean).join(" · ")),
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
    title: t("lobby.remove_title"),
    body: [el("p", {}, t("lobby.remove_about"))],
    buttons: [
      { label: t("lobby.keep_it"), onclick: () => {} },
      { label: t("lobby.remove_table"), kind: "danger", action: "remove", onclick: async () => {
        try {
          await api.remove(id, token);
          toast(t("lobby.removed"), "info");
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
  return bot.seconds > 0 ? t("bot.thinks", { seconds: bot.seconds }) : t("bot.at_once");
}

/**
 * A bot's name ("Expert"), in the language where the catalogue knows it.
 * @param {string} name
 */
export function botName(name) {
  return has(`bot.name.${name}`) ? t(`bot.name.${name}`) : name;
}

/**
 * What a bot is, in the language where the catalogue knows it, else the server's words.
 * @param {BotInfo} bot
 */
function botAbout(bot) {
  return has(`bot.about.${bot.name}`) ? t(`bot.about.${bot.name}`) : bot.about;
}

/** @param {Meta} meta */
function newTableForm(meta) {
  const games = meta.games;
  if (!games.length) return el("p", { class: "error" }, t("lobby.no_game"));
  const bots = botMenu(meta);
  const defaultBot = `bot:${(bots.levels[0] || bots.others[0] || { name: "random" }).name}`;
  /** @type {NewTableForm} */
  const state = { game: games[0].name, players: 2, mode: "online", seats: [], options: {},
    pace: "live", deadline: 86400, clock: "none", secret: false, rated: false, spectatorChat: false };
  const body = el("div");

  /** @param {string} kind */
  function seatLabel(kind) {
    if (kind === "human") return t("lobby.seat_human");
    if (kind === "open") return t("lobby.seat_open");
    const bot = bots.byName[kind.slice(4)];
    const time = bot ? thinkingTime(bot) : "";
    const name = botName(kind.slice(4));
    return time ? t("lobby.seat_bot_time", { bot: name, time }) : t("lobby.seat_bot", { bot: name });
  }

  /** @param {number} i */
  function seatSelect(i) {
    /** @param {string} k */
    const option = (k) => el("option", { value: k, selected: k === state.seats[i] }, seatLabel(k));
    return el("select", { "data-seat": i, onchange: (e) => { state.seats[i] = fieldValue(e); render(); } },
      option("human"), option("open"),
      bots.levels.length ? el("optgroup", { label: t("lobby.bots_levels") }, bots.levels.map((b) => option(`bot:${b.name}`))) : null,
      bots.others.length ? el("optgroup", { label: t("lobby.bots_others") }, bots.others.map((b) => option(`bot:${b.name}`))) : null);
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
      el("label", { class: "field" }, t("lobby.game"),
        el("select", { id: "new-game", onchange: (e) => { state.game = fieldValue(e); state.options = {}; render(); } },
          games.map((g) => el("option", { value: g.name, selected: g.name === state.game }, GAME_TITLES[g.name] || g.name)))),
      el("label", { class: "field" }, t("lobby.players"),
        el("select", { id: "new-players", onchange: (e) => { state.players = Number(fieldValue(e)); render(); } },
          range(info.min_players, info.max_players).map((n) =>
            el("option", { value: n, selected: n === state.players }, String(n))))),
      el("fieldset", { class: "field" }, el("legend", {}, t("lobby.seats")),
        range(0, state.players - 1).map((i) => {
          const kind = state.seats[i];
          const bot = kind.startsWith("bot:") ? bots.byName[kind.slice(4)] : null;
          return el("div", { class: "seat-line" },
            el("label", { class: "seat-choice" }, t("lobby.seat", { number: i + 1 }), seatSelect(i)),
            bot?.about ? el("p", { class: "muted small seat-about", "data-about": i },
              t("lobby.bot_about", { bot: botName(bot.name), about: botAbout(bot) })) : null);
        })),
      optionFields(info, state),
      el("fieldset", { class: "field" }, el("legend", {}, t("lobby.how_people_play")),
        el("label", { class: "radio" },
          el("input", { type: "radio", name: "mode", value: "online", checked: state.mode === "online", onchange: () => { state.mode = "online"; } }),
          " ", t("lobby.online")),
        el("label", { class: "radio" },
          el("input", { type: "radio", name: "mode", value: "hotseat", checked: state.mode === "hotseat", onchange: () => { state.mode = "hotseat"; state.pace = "live"; render(); } }),
          " ", t("lobby.hotseat"))),
      state.mode === "online" ? paceFields(state, render) : null,
      el("fieldset", { class: "field" }, el("legend", {}, t("lobby.table")),
        el("label", { class: "check" },
          el("input", { type: "checkbox", id: "new-rated", checked: state.rated, onchange: (e) => { state.rated = fieldChecked(e); } }),
          " ", t("lobby.rated")),
        el("label", { class: "check" },
          el("input", { type: "checkbox", id: "new-spectator-chat", checked: state.spectatorChat, onchange: (e) => { state.spectatorChat = fieldChecked(e); } }),
          " ", t("lobby.spectator_chat"))),
      el("button", { class: "btn primary", id: "create-game", onclick: () => createGame(state) }, t("lobby.start")),
    );
  }
  render();
  return [el("h1", {}, t("lobby.new_table")), body];
}

/**
 * Live or turn-based, the time per move, invite only: each explained.
 * @param {NewTableForm} state @param {() => void} render
 */
function paceFields(state, render) {
  const turn = state.pace === "turn";
  return el("fieldset", { class: "field", id: "pace" }, el("legend", {}, t("lobby.pace_privacy")),
    el("label", { class: "radio" },
      el("input", { type: "radio", name: "pace", value: "live", checked: !turn, onchange: () => { state.pace = "live"; render(); } }),
      " ", t("lobby.live_about")),
    el("label", { class: "radio" },
      el("input", { type: "radio", name: "pace", value: "turn", checked: turn, onchange: () => { state.pace = "turn"; render(); } }),
      " ", t("lobby.turn_about")),
    turn ? el("label", { class: "seat-choice" }, t("lobby.time_per_move"),
      el("select", { id: "new-deadline", onchange: (/** @type {Event} */ e) => { state.deadline = Number(fieldValue(e)); } },
        DEADLINES.map((seconds) => el("option", { value: seconds, selected: seconds === state.deadline }, paceWords(seconds))))) : null,
    turn ? el("p", { class: "muted small", id: "pace-about" },
      t("lobby.deadline_about")) : null,
    turn ? null : el("label", { class: "seat-choice" }, t("lobby.clock"),
      el("select", { id: "new-clock", onchange: (/** @type {Event} */ e) => { state.clock = /** @type {NewTableForm["clock"]} */ (fieldValue(e)); render(); } },
        el("option", { value: "none", selected: state.clock === "none" }, t("lobby.clock_none")),
        Object.entries(CLOCKS).map(([name, clock]) => el("option", { value: name, selected: name === state.clock },
          t("lobby.clock_choice", { name: t(`lobby.clock_${name}`), minutes: clock.base_s / 60, seconds: clock.increment_s }))))),
    !turn && state.clock !== "none" ? el("p", { class: "muted small", id: "clock-about" }, t("lobby.clock_about")) : null,
    el("label", { class: "check" },
      el("input", { type: "checkbox", id: "new-private", checked: state.secret,
        onchange: (/** @type {Event} */ e) => { state.secret = fieldChecked(e); render(); } }),
      " ", t("lobby.private")),
    state.secret ? el("p", { class: "muted small", id: "private-about" }, t("lobby.private_about")) : null);
}

/** @param {GameInfo} info @param {NewTableForm} state */
function optionFields(info, state) {
  const fields = Object.entries(info.options).filter(([, v]) => v !== null);
  if (!fields.length) return null;
  return el("fieldset", { class: "field" }, el("legend", {}, t("lobby.variants")),
    fields.map(([key, value]) => {
      const label = optionLabel(key);
      const help = has(`option.${key}.help`) ? el("span", { class: "option-help small muted", "data-help": key }, t(`option.${key}.help`)) : null;
      if (typeof value === "boolean") {
        return el("label", { class: "check" },
          el("input", { type: "checkbox", "data-option": key, checked: state.options[key],
            onchange: (e) => { state.options[key] = fieldChecked(e); } }), ` ${label}`, help);
      }
      const choices = OPTION_CHOICES[key];
      if (choices) {
        return el("label", { class: "seat-choice" }, label,
          el("select", { "data-option": key, onchange: (e) => { state.options[key] = fieldValue(e); } },
            choices.map((c) => el("option", { value: c, selected: c === state.options[key] }, optionChoice(key, c)))), help);
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
    /** @type {import("./types").CreateBody} */
    const body = { game: state.game, players: state.players, seats, options: state.options, hotseat,
      rated: state.rated, spectator_chat: state.spectatorChat,
      ...(hotseat || !seatName() ? {} : { name: seatName() || undefined }) };
    if (!hotseat && state.pace === "turn") Object.assign(body, { mode: "turn", deadline_s: state.deadline });
    if (!hotseat && state.pace === "live" && state.clock !== "none") body.clock = { ...CLOCKS[state.clock] };
    if (!hotseat && state.secret) body.private = true;
    const created = await api.create(body);
    if (hotseat) {
      remember(created.id, { table_token: created.table_token || undefined, game: state.game, creator: true });
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
