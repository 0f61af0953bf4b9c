// The web client: lobby, new-table form, live game screen (seat, hot seat, spectator), replays
// and the analysis of finished games. Routes live in the URL's hash; tokens live in this
// browser's localStorage, never in a URL:
//   #/                      lobby and new table
//   #/play/ID               this browser's seat at the game
//   #/invite/ID/CODE        an invite link: the one-time code is exchanged for the seat
//   #/hotseat/ID            one screen for every human at the table
//   #/watch/ID              spectators (public view only)
//   #/replay/ID             step through a finished game
//   #/analysis/ID           a finished game's analysis: win chances, costly moves
// (#/play/ID/TOKEN and #/hotseat/ID/TOKEN still open: the token is stored, the URL replaced.)

import { api, Live, remember, remembered, rememberedAll } from "./api.js";
import {
  chime, clear, closeDialog, dialog, el, icon, iconButton, percent, put, setSound, setStatus,
  setTitle, soundOn, svg, titleCase, toast,
} from "./ui.js";
import * as tigris from "./tigris.js";
import * as gheos from "./gheos.js";

const GAMES = { tigris, gheos };
const GAME_TITLES = { tigris: "Tigris & Euphrates", gheos: "Gheos" };
const OPTION_CHOICES = { board: ["standard", "advanced"] };
const OPTION_LABELS = {
  board: "Board side",
  buildings: "Civilization buildings",
  english: "English commitment rules",
  wonder: "The wonder",
  open_scoring: "Open scoring",
};

const app = document.getElementById("app");
let current = null; // the screen being shown: has destroy()

function route() {
  current?.destroy?.();
  current = null;
  closeDialog();
  setStatus("");
  setTitle("");
  clear(app);
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  const [page, id, secret] = parts;
  if ((page === "play" || page === "hotseat") && id && secret) {
    // An old-style link: keep the token here and take it out of the address and history.
    remember(id, page === "play" ? { token: secret } : { table_token: secret });
    location.replace(`#/${page}/${encodeURIComponent(id)}`);
    return;
  }
  if (page === "invite" && id && secret) current = inviteScreen(id, secret);
  else if (page === "play" && id) current = seatScreen(id, "token", "seat");
  else if (page === "hotseat" && id) current = seatScreen(id, "table_token", "hotseat");
  else if (page === "watch" && id) current = gameScreen(id, null, "spectator");
  else if (page === "replay" && id) current = replayScreen(id);
  else if (page === "analysis" && id) current = analysisScreen(id);
  else current = lobbyScreen();
}

function seatScreen(id, key, mode) {
  const token = remembered(id)?.[key];
  if (token) return gameScreen(id, token, mode);
  app.append(el("div", { class: "card" }, el("h1", {}, "No seat here"),
    el("p", {}, "This browser holds no seat of this game (seats are kept in the browser that took them)."),
    link(`#/watch/${id}`, "Watch"), " ", link("#/", "Back to the lobby")));
  return null;
}

function inviteScreen(id, code) {
  app.append(el("div", { class: "card" }, el("p", { class: "muted" }, "Taking your seat…")));
  api.join(id, code).then((joined) => {
    remember(id, { token: joined.token, seat: joined.seat });
    location.replace(`#/play/${encodeURIComponent(id)}`);
  }).catch((error) => {
    const saved = remembered(id);
    put(app, el("div", { class: "card" }, el("h1", {}, "This invite does not open a seat"),
      el("p", {}, error.message),
      saved?.token ? link(`#/play/${id}`, "Go to your seat") : link(`#/watch/${id}`, "Watch"),
      " ", link("#/", "Back to the lobby")));
  });
  return null;
}

// -- lobby -------------------------------------------------------------------------------------

function lobbyScreen() {
  const list = el("div", { class: "lobby-list" }, el("p", { class: "muted" }, "Loading…"));
  const form = el("div", { class: "card new-table" }, el("p", { class: "muted" }, "Loading…"));
  app.append(el("div", { class: "lobby" },
    el("section", { class: "card" }, el("h1", {}, "Games"), list),
    form));
  let timer = null;
  let alive = true;

  async function refresh() {
    try {
      const { games } = await api.lobby();
      if (!alive) return;
      put(list, lobbyTable(games));
    } catch (error) {
      put(list, el("p", { class: "error" }, `Cannot reach the server: ${error.message}`));
    }
    if (alive) timer = setTimeout(refresh, 4000);
  }

  api.meta().then((meta) => { if (alive) put(form, newTableForm(meta)); })
    .catch((error) => put(form, el("p", { class: "error" }, error.message)));
  refresh();
  return { destroy() { alive = false; clearTimeout(timer); } };
}

function lobbyTable(games) {
  if (!games.length) return el("p", { class: "muted" }, "No games yet: start one.");
  const mine = rememberedAll();
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

function link(href, label, attrs = {}) {
  return el("a", { class: "btn", href, ...attrs }, label);
}

async function joinGame(id) {
  try {
    const joined = await api.join(id);
    remember(id, { token: joined.token, seat: joined.seat });
    location.hash = `#/play/${id}`;
  } catch (error) {
    toast(error.message);
  }
}

/** The bots as the server describes them: the levels by strength, then the others. */
function botMenu(meta) {
  const menu = meta.bot_menu || (meta.bots || []).map((name) => ({ name, level: false, seconds: null, about: "" }));
  const levels = menu.filter((b) => b.level).sort((a, b) => a.strength - b.strength);
  const others = menu.filter((b) => !b.level);
  return { levels, others, byName: Object.fromEntries(menu.map((b) => [b.name, b])) };
}

function thinkingTime(bot) {
  if (bot.seconds === null || bot.seconds === undefined) return "";
  return bot.seconds > 0 ? `thinks up to ${bot.seconds} s` : "moves at once";
}

function newTableForm(meta) {
  const games = meta.games;
  if (!games.length) return el("p", { class: "error" }, "This server offers no game.");
  const bots = botMenu(meta);
  const defaultBot = `bot:${(bots.levels[0] || bots.others[0] || { name: "random" }).name}`;
  const state = { game: games[0].name, players: 2, mode: "online", seats: [], options: {} };
  const body = el("div");

  function seatLabel(kind) {
    if (kind === "human") return "a person (invite link)";
    if (kind === "open") return "anyone (lobby)";
    const bot = bots.byName[kind.slice(4)];
    const time = bot ? thinkingTime(bot) : "";
    return `bot: ${kind.slice(4)}${time ? ` (${time})` : ""}`;
  }

  function seatSelect(i) {
    const option = (k) => el("option", { value: k, selected: k === state.seats[i] }, seatLabel(k));
    return el("select", { "data-seat": i, onchange: (e) => { state.seats[i] = e.target.value; render(); } },
      option("human"), option("open"),
      bots.levels.length ? el("optgroup", { label: "Bots, weakest first" }, bots.levels.map((b) => option(`bot:${b.name}`))) : null,
      bots.others.length ? el("optgroup", { label: "Other bots" }, bots.others.map((b) => option(`bot:${b.name}`))) : null);
  }

  function render() {
    const info = games.find((g) => g.name === state.game);
    state.players = Math.min(Math.max(state.players, info.min_players), info.max_players);
    while (state.seats.length < info.max_players) state.seats.push(state.seats.length ? defaultBot : "human");
    for (const [key, value] of Object.entries(info.options)) {
      if (!(key in state.options) || typeof state.options[key] !== typeof value) state.options[key] = value;
    }
    put(body,
      el("label", { class: "field" }, "Game",
        el("select", { id: "new-game", onchange: (e) => { state.game = e.target.value; state.options = {}; render(); } },
          games.map((g) => el("option", { value: g.name, selected: g.name === state.game }, GAME_TITLES[g.name] || g.name)))),
      el("label", { class: "field" }, "Players",
        el("select", { id: "new-players", onchange: (e) => { state.players = Number(e.target.value); render(); } },
          range(info.min_players, info.max_players).map((n) =>
            el("option", { value: n, selected: n === state.players }, String(n))))),
      el("fieldset", { class: "field" }, el("legend", {}, "Seats"),
        range(0, state.players - 1).map((i) => {
          const kind = state.seats[i];
          const bot = kind.startsWith("bot:") ? bots.byName[kind.slice(4)] : null;
          return el("div", { class: "seat-line" },
            el("label", { class: "seat-choice" }, `Seat ${i + 1}`, seatSelect(i)),
            bot?.about ? el("p", { class: "muted small seat-about", "data-about": i },
              `${titleCase(bot.name)}: ${bot.about}${thinkingTime(bot) ? ` · here it ${thinkingTime(bot)}` : ""}.`) : null);
        })),
      optionFields(info, state),
      el("fieldset", { class: "field" }, el("legend", {}, "How people play"),
        el("label", { class: "radio" },
          el("input", { type: "radio", name: "mode", value: "online", checked: state.mode === "online", onchange: () => { state.mode = "online"; } }),
          " Online: each person on their own screen (invite links)"),
        el("label", { class: "radio" },
          el("input", { type: "radio", name: "mode", value: "hotseat", checked: state.mode === "hotseat", onchange: () => { state.mode = "hotseat"; } }),
          " Hot seat: everybody at this screen, hands hidden between turns")),
      el("button", { class: "btn primary", id: "create-game", onclick: () => createGame(state) }, "Start the game"),
    );
  }
  render();
  return [el("h1", {}, "New table"), body];
}

function optionFields(info, state) {
  const fields = Object.entries(info.options).filter(([, v]) => v !== null);
  if (!fields.length) return null;
  return el("fieldset", { class: "field" }, el("legend", {}, "Variants"),
    fields.map(([key, value]) => {
      const label = OPTION_LABELS[key] || key.replace(/_/g, " ");
      if (typeof value === "boolean") {
        return el("label", { class: "check" },
          el("input", { type: "checkbox", "data-option": key, checked: state.options[key],
            onchange: (e) => { state.options[key] = e.target.checked; } }), ` ${label}`);
      }
      const choices = OPTION_CHOICES[key];
      if (choices) {
        return el("label", { class: "seat-choice" }, label,
          el("select", { "data-option": key, onchange: (e) => { state.options[key] = e.target.value; } },
            choices.map((c) => el("option", { value: c, selected: c === state.options[key] }, c))));
      }
      return el("label", { class: "seat-choice" }, label,
        el("input", { "data-option": key, value: String(state.options[key]),
          onchange: (e) => { state.options[key] = e.target.value; } }));
    }));
}

async function createGame(state) {
  const hotseat = state.mode === "hotseat";
  // At one screen there is nobody to wait for: open seats are people at the table.
  const seats = state.seats.slice(0, state.players).map((k) => (hotseat && k === "open" ? "human" : k));
  try {
    const created = await api.create({
      game: state.game, players: state.players, seats, options: state.options, hotseat,
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
    toast(error.message);
  }
}

function range(a, b) {
  const out = [];
  for (let i = a; i <= b; i += 1) out.push(i);
  return out;
}

// -- the game's log -------------------------------------------------------------------------------

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

function kindIcon(kind, colour) {
  return svg("svg", { viewBox: "0 0 24 24", width: 16, height: 16, class: "log-icon", "aria-hidden": "true" },
    svg("path", { d: KIND_ICONS[kind] || KIND_ICONS.other, fill: colour }));
}

/**
 * The game's history as this screen may know it: fetched from the server (the record, redacted
 * for this seat) when the screen opens, after a reconnection or an undo; between those, each new
 * move's frame adds its entry.
 */
class GameLog {
  constructor(id, token, mode) {
    this.id = id;
    this.token = token;
    this.mode = mode;
    this.steps = []; // {ply, seat, action, events}
    this.pieces = {}; // what is drawn on the tiles the steps name (Gheos)
    this.moves = -1; // the moves the log holds
    this.loading = null;
    this.fresh = 0; // entries newer than this ply are new on screen
  }

  /** Bring the log up to the frame; a promise when the server must be asked. */
  sync(frame) {
    const t = frame.table;
    for (const cell of frame.map || []) this.pieces[cell.tile] ||= { pyramid: cell.pyramid, regions: cell.regions };
    if (this.moves === t.moves) return null;
    // The hot-seat screen shows each person's view in turn: its log is always the spectators'.
    const append = this.mode !== "hotseat" && this.moves >= 0 && t.moves === this.moves + 1 && t.last
      && !(t.events || []).some((e) => e.type === "undo");
    if (append) {
      this.fresh = this.moves;
      this.steps.push({ ply: t.moves, seat: t.last.seat, action: t.last.action, events: t.events || [] });
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

  /** The cells of each other seat's last moves: its latest run of moves in a row (its turn), so
   * they stay outlined while this seat takes the actions of its own turn. */
  highlights(module, players, me) {
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

function renderLog(node, log, module, frame, onPick) {
  const words = module.wordsFor(frame.players, frame, log.pieces);
  const entries = log.steps.map((step) => {
    const said = module.describeStep(step, words);
    const colour = module.seatColour(frame.players, step.seat);
    return el("li", {
      class: `log-entry${step.ply > log.fresh ? " new" : ""}`, "data-ply": step.ply, tabindex: 0,
      title: `Move ${step.ply}: show the board as it was then`, style: `--seat:${colour}`,
      onclick: () => onPick(step, said), onkeydown: (e) => { if (e.key === "Enter") onPick(step, said); },
    },
    el("span", { class: "log-ply" }, String(step.ply)),
    kindIcon(said.kind, colour),
    el("span", { class: "log-text" }, said.text,
      said.details.length ? el("span", { class: "log-details" }, said.details.map((d) => el("span", {}, d))) : null));
  });
  const atBottom = node.scrollHeight - node.scrollTop - node.clientHeight < 40;
  put(node, entries.length ? entries : el("li", { class: "muted" }, "No move yet."));
  if (atBottom || log.fresh < log.moves) node.scrollTop = node.scrollHeight;
}

// -- the game screen ---------------------------------------------------------------------------

function gameScreen(id, token, mode) {
  const parts = {
    banner: el("div", { class: "banner", id: "banner" }),
    past: el("div", { class: "past-bar", id: "past-bar", hidden: true }),
    board: el("div", { class: "board-wrap", id: "board" }),
    decision: el("div", { class: "decision-area", id: "decision-area" }),
    outcome: el("div", { id: "outcome-area" }),
    hand: el("div", { class: "hand-panel", id: "hand" }),
    controls: el("div", { class: "controls", id: "controls" }),
    assist: el("div", { class: "assist", id: "assist" }),
    scores: el("div", { class: "scores", id: "scores" }),
    log: el("ol", { class: "log", id: "log" }),
    extra: el("div", { class: "extra" }),
  };
  const screen = el("div", { class: "game-screen" },
    el("section", { class: "board-col" }, parts.banner, parts.past, parts.board),
    el("aside", { class: "side" },
      parts.decision, parts.outcome, parts.hand, parts.controls, parts.assist, parts.scores,
      el("details", { class: "card log-card", open: true }, el("summary", {}, "Game log"), parts.log),
      parts.extra));
  app.append(screen);

  let renderer = null;
  let module = null;
  let last = null;
  let shownSeat = null; // hot seat: the person whose hand is on screen
  let coverFor = null;
  let endShown = false;
  let decisionShown = null;
  let wasMine = false;
  let past = null; // the past board on screen: {ply, frame}
  let hints = null; // {version, list} | "loading"
  let outcomeShown = 0;
  let heard = false; // no sound for the page's first frame: only for a turn that comes
  const log = new GameLog(id, token, mode);
  const explained = new Map();

  const ctx = {
    mode,
    act(action) {
      if (!live.act(action)) toast("Not connected: trying again…");
      renderer?.clearSelection?.();
      clear(parts.outcome);
    },
    undo() { live.undo(); },
    explain(action) {
      const key = `${last?.table.version}|${action}`;
      if (!explained.has(key)) {
        explained.set(key, api.explain(id, action, token).then((answer) => (answer.legal ? null : answer.reason))
          .catch((error) => error.message));
      }
      return explained.get(key);
    },
  };

  const live = new Live(id, token, {
    onView: (frame) => show(frame),
    onError: (message) => { toast(message); if (last) show(last, true); },
    onState: (state) => {
      if (state === "refused") {
        put(app, el("div", { class: "card" }, el("h1", {}, "This link does not open a seat"),
          el("p", {}, "The game does not exist, or the seat's token is wrong or was replaced."),
          link("#/", "Back to the lobby")));
      }
      setStatus(state === "connected" ? "" : state);
    },
  });

  if (mode === "seat") remember(id, { token });

  function thinkingSeat(frame) {
    const seat = frame.to_move;
    if (seat === null || seat === undefined || frame.table.status === "over") return null;
    return (frame.table.seats[seat] || "").startsWith("bot:") ? seat : null;
  }

  function show(frame, again = false) {
    last = frame;
    const game = frame.table.game;
    module = GAMES[game];
    if (!renderer) renderer = module.createRenderer(parts, ctx);
    const seat = frame.table.seat;
    const over = frame.table.status === "over";
    const mine = seat !== null && frame.to_move === seat && !over;

    // For scripts and tests driving the page: which change is on screen, whose decision it is.
    document.body.dataset.version = String(frame.table.version);
    document.body.dataset.turn = over ? "over" : mine ? "mine" : "wait";

    notify(frame, mine, over);
    if (!again) {
      const loading = log.sync(frame);
      if (loading) loading.then(() => { if (last) show(last, true); }).catch((error) => toast(error.message));
      outcome(frame);
    }
    drawLog();
    banner(parts.banner, frame, mode, thinkingSeat(frame));
    invites(parts.extra, id, frame, mode);
    if (past && mine && !wasMine) leavePast();
    wasMine = mine;

    // Hot seat: when another person is to decide, cover the hands until they are ready.
    if (mode === "hotseat" && seat !== null && seat !== shownSeat && !over) {
      if (coverFor !== seat) {
        coverFor = seat;
        renderer.update(frame, { interactive: false, hideHand: true, pieces: log.pieces });
        clear(parts.decision);
        clear(parts.assist);
        decisionShown = null;
        dialog({
          id: "cover",
          title: `Pass the screen to ${titleCase(frame.players[seat])}`,
          body: [el("p", {}, "Hands stay hidden until the next player is ready.")],
          buttons: [{ label: `I am ${titleCase(frame.players[seat])}: show my tiles`, kind: "primary",
            action: "reveal", onclick: () => { shownSeat = seat; coverFor = null; show(last, true); } }],
        });
      }
      return;
    }

    if (!past) {
      renderer.update(frame, {
        interactive: mine,
        highlights: log.highlights(module, frame.players, seat),
        thinking: thinkingSeat(frame),
        pieces: log.pieces,
      });
    }
    drawAssist(frame, mine);
    if (over) {
      decisionShown = null;
      clear(parts.decision);
      if (!endShown) {
        endShown = true;
        closeDialog();
        showEnd(module, frame, id);
      }
      return;
    }
    const key = mine ? `${frame.table.version}` : null;
    if (mine && module.needsDecision(frame)) {
      if (decisionShown !== key || !parts.decision.firstChild) {
        decisionShown = key;
        module.openDecision(parts.decision, frame, ctx);
        keepInView(parts.decision);
      }
    } else {
      decisionShown = null;
      const waiting = module.waitingFor(frame);
      if (waiting) put(parts.decision, el("div", { class: "card decision-panel waiting", id: "waiting" }, el("p", {}, waiting)));
      else clear(parts.decision);
    }
  }

  function drawLog() {
    if (last && module) renderLog(parts.log, log, module, last, showPast);
  }


  /** The result of a conflict decided by the last change, in a panel that stays until closed. */
  function outcome(frame) {
    const found = module.conflictOutcome(frame.table.events, frame);
    if (!found || frame.table.version === outcomeShown) return;
    outcomeShown = frame.table.version;
    put(parts.outcome, el("div", { class: `card outcome ${found.win === true ? "won" : found.win === false ? "lost" : ""}`, id: "conflict-result", role: "status" },
      el("div", { class: "outcome-head" }, el("strong", {}, found.title),
        iconButton("close", "Close", { class: "btn icon-btn quiet small", onclick: () => clear(parts.outcome) })),
      found.lines.map((line) => el("p", { class: "small" }, line))));
  }

  function notify(frame, mine, over) {
    const who = frame.to_move !== null && frame.to_move !== undefined ? titleCase(frame.players[frame.to_move]) : "";
    if (over) setTitle("Game over");
    else if (mine) setTitle(mode === "hotseat" ? `${titleCase(frame.players[frame.table.seat])}: your turn` : "Your turn");
    else if (mode === "hotseat" && frame.table.seats[frame.to_move] === "human") setTitle(`${who}: your turn`);
    else setTitle(`Waiting for ${who}`);
    if (mine && !wasMine && heard) chime();
    heard = true;
  }

  async function showPast(step, said) {
    try {
      const answer = await api.pastBoard(id, step.ply, token);
      Object.assign(log.pieces, answer.pieces || {});
      const frame = {
        ...answer.view,
        to_move: answer.to_move,
        legal_actions: [],
        table: { ...last.table, seat: answer.seat, version: `past-${step.ply}`, can_undo: false, events: answer.step?.events || [] },
      };
      past = { ply: step.ply, frame };
      const colour = module.seatColour(last.players, step.seat);
      renderer.update(frame, {
        interactive: false,
        past: true,
        origin: module.originOf(last),
        hideHand: mode === "hotseat",
        highlights: [{ seat: step.seat, cells: module.cellsOf(step.action), colour, fresh: true }],
        pieces: log.pieces,
      });
      parts.past.hidden = false;
      put(parts.past, el("span", {}, el("strong", {}, `Move ${step.ply} of ${log.moves}`), ` · ${said.text}`),
        el("button", { class: "btn primary", id: "back-to-game", onclick: leavePast }, icon("back"), " Back to the game"));
      for (const li of parts.log.querySelectorAll(".log-entry")) li.classList.toggle("shown", Number(li.dataset.ply) === step.ply);
      clear(parts.decision);
      drawAssist(last, false);
    } catch (error) {
      toast(error.message);
    }
  }

  function leavePast() {
    past = null;
    parts.past.hidden = true;
    clear(parts.past);
    decisionShown = null;
    for (const li of parts.log.querySelectorAll(".log-entry.shown")) li.classList.remove("shown");
    if (last) show(last, true);
  }

  function drawAssist(frame, mine) {
    clear(parts.assist);
    const sound = el("button", {
      class: `btn small icon-btn${soundOn() ? " on" : ""}`, id: "sound", "aria-pressed": soundOn() ? "true" : "false",
      title: "A sound when it becomes your turn",
      onclick: () => { setSound(!soundOn()); if (soundOn()) chime(); drawAssist(last, mine); },
    }, icon("bell", 16), soundOn() ? " Sound on" : " Sound off");
    const row = [sound];
    if (frame.table.hints && mine && !past) {
      row.unshift(el("button", { class: "btn", id: "hint", onclick: () => askHint(frame) }, icon("bulb", 16), " Hint"));
    }
    const list = [];
    if (hints === "loading") list.push(el("p", { class: "muted", id: "hints-loading" }, el("span", { class: "spinner" }), " The bots are thinking about your move…"));
    else if (hints && hints.version === frame.table.version && mine) {
      const words = module.wordsFor(frame.players, frame, log.pieces);
      list.push(el("ol", { class: "hints", id: "hints" }, hints.list.map((h) => el("li", { class: "hint-row", "data-action": h.action },
        el("div", {}, el("strong", {}, capitalised(module.describeAction(h.action, words))), el("span", { class: "chance" }, ` win chance ${percent(h.win_chance)}`)),
        el("p", { class: "small muted" }, capitalised(module.reasonWords(h.reason, words))),
        el("div", { class: "hint-buttons" },
          el("button", { class: "btn small", onclick: () => renderer.preview?.(h.action) }, "Show"),
          el("button", { class: "btn small primary", "data-play": h.action, onclick: () => ctx.act(h.action) }, "Play it"))))));
    }
    parts.assist.append(el("div", { class: "card assist-card" }, el("div", { class: "assist-row" }, row), list));
  }

  async function askHint(frame) {
    hints = "loading";
    drawAssist(frame, true);
    try {
      const answer = await api.hint(id, token);
      hints = { version: answer.version, list: answer.hints };
    } catch (error) {
      hints = null;
      toast(error.message);
    }
    if (last) drawAssist(last, last.table.seat !== null && last.to_move === last.table.seat && last.table.status !== "over");
  }

  return {
    destroy() { live.close(); renderer?.destroy?.(); },
  };
}

/** On a phone the decision is a sheet over the bottom of the screen: scroll the page so that
 * the conflict on the board (its leaders) sits above it. */
function keepInView(sheet) {
  const leaders = [...document.querySelectorAll(".board .conflict-leader")];
  if (!leaders.length || getComputedStyle(sheet).position !== "fixed") return;
  const top = sheet.getBoundingClientRect().top;
  const lowest = Math.max(...leaders.map((l) => l.getBoundingClientRect().bottom));
  const highest = Math.min(...leaders.map((l) => l.getBoundingClientRect().top));
  if (lowest > top - 8) window.scrollBy(0, Math.min(lowest - top + 24, highest - 60));
}

function capitalised(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

function banner(node, frame, mode, thinking) {
  const t = frame.table;
  const players = frame.players;
  let text;
  if (t.status === "over") text = "The game is over.";
  else if (frame.to_move === null || frame.to_move === undefined) text = "";
  else if (t.seat !== null && frame.to_move === t.seat) {
    text = `${mode === "hotseat" ? `${titleCase(players[t.seat])}, your` : "Your"} decision`;
  } else if (thinking !== null) {
    text = null;
  } else {
    text = `Waiting for ${titleCase(players[frame.to_move])}`;
  }
  const who = t.seat === null ? "watching" : `you are ${titleCase(players[t.seat])}`;
  put(node,
    el("span", { class: `badge ${t.game}` }, GAME_TITLES[t.game] || t.game),
    text !== null ? el("strong", { class: frame.to_move === t.seat && t.status !== "over" ? "your-turn" : "" }, text) : null,
    thinking !== null ? el("strong", { class: "thinking-note", id: "thinking" }, el("span", { class: "spinner" }),
      ` ${titleCase(players[thinking])} (bot: ${t.seats[thinking].slice(4)}) is thinking…`) : null,
    el("span", { class: "muted detail" }, el("span", { class: "sep" }, "· "), `${who} · move ${t.moves}`));
}

function invites(node, id, frame, mode) {
  if (mode !== "seat") { clear(node); return; }
  const saved = remembered(id);
  const unused = frame.table.invites || [];
  const pending = (saved?.invites || []).filter((s) => s.invite && unused.includes(s.seat));
  if (!pending.length) { clear(node); return; }
  put(node, el("div", { class: "card invites" },
    el("h3", {}, "Invite players"),
    el("p", { class: "muted" }, "Send each person their own link: it holds their seat's secret."),
    pending.map((s) => {
      const url = `${location.origin}/#/invite/${id}/${s.invite}`;
      return el("div", { class: "invite" },
        el("span", {}, titleCase(frame.players[s.seat])),
        el("input", { readonly: true, value: url, "data-invite-seat": s.seat, onclick: (e) => e.target.select() }),
        el("button", { class: "btn", onclick: () => copy(url) }, "Copy"));
    })));
}

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    toast("Link copied", "info");
  } catch {
    toast("Select the link and copy it by hand", "info");
  }
}

function showEnd(module, frame, id) {
  const result = [...(frame.table.result || [])].sort((a, b) => a.place - b.place);
  dialog({
    id: "end-screen",
    title: result.length && result[0].place === 1 ? `${titleCase(frame.players[result[0].seat])} wins` : "The game is over",
    body: [module.resultTable(result, frame.players),
      el("p", { class: "muted small" }, "The bots are analysing the game: its win chances and the moves that cost most.")],
    buttons: [
      { label: "Analysis", action: "analysis", onclick: () => { location.hash = `#/analysis/${id}`; } },
      { label: "Replay this game", onclick: () => { location.hash = `#/replay/${id}`; } },
      { label: "Back to the lobby", kind: "primary", onclick: () => { location.hash = "#/"; } },
    ],
    dismissable: true,
  });
}

// -- replays -----------------------------------------------------------------------------------

function replayScreen(id) {
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
  app.append(el("div", { class: "game-screen" },
    el("section", { class: "board-col" }, parts.banner, parts.board),
    el("aside", { class: "side" }, deck, parts.hand, parts.scores,
      el("div", { class: "card" }, el("h3", {}, "This step"), parts.log))));
  let data = null;
  let step = 0;
  let seat = null;
  let renderer = null;
  let timer = null;
  let pieces = {};

  async function load() {
    try {
      data = await api.replay(id, seat);
    } catch (error) {
      put(app, el("div", { class: "card" }, el("h1", {}, "No replay"), el("p", {}, error.message), link("#/", "Back")));
      return;
    }
    for (const s of data.steps) for (const cell of s.view.map || []) pieces[cell.tile] ||= { pyramid: cell.pyramid, regions: cell.regions };
    step = Math.min(step, data.steps.length - 1);
    setTitle(`Replay: ${GAME_TITLES[data.game]}`);
    render();
  }

  function render() {
    const module = GAMES[data.game];
    const s = data.steps[step];
    const lastStep = data.steps.length - 1;
    const frame = {
      ...s.view,
      to_move: null,
      legal_actions: [],
      table: { game: data.game, seat, seats: data.seats, status: step === lastStep ? "over" : "running",
        result: data.result, players: data.players, moves: step, events: s.events, last: null, can_undo: false, version: step },
    };
    if (!renderer) renderer = module.createRenderer(parts, { mode: "replay", act() {}, undo() {} });
    const highlights = s.action ? [{ seat: s.seat, cells: module.cellsOf(s.action), colour: module.seatColour(data.players, s.seat), fresh: true }] : [];
    const origin = module.originOf(data.steps[lastStep].view);
    renderer.update(frame, { interactive: false, highlights, pieces, origin });
    const words = module.wordsFor(data.players, data.steps[lastStep].view, pieces, origin);
    const said = s.action ? module.describeStep({ ply: step, seat: s.seat, action: s.action, events: s.events }, words) : null;
    put(parts.banner,
      el("span", { class: `badge ${data.game}` }, GAME_TITLES[data.game]),
      el("strong", { id: "replay-step" }, ` Replay: step ${step} of ${lastStep}`),
      el("span", { class: "muted detail" }, el("span", { class: "sep" }, "· "), said ? said.text : "the start"));
    put(parts.log, said ? [el("li", {}, said.text), said.details.map((d) => el("li", { class: "small" }, d))] : el("li", { class: "muted" }, "Set-up"));
    put(deck, el("div", { class: "card" },
      el("div", { class: "replay-buttons" },
        iconButton("first", "First step", { id: "replay-first", onclick: () => go(0) }),
        iconButton("prev", "Step back", { id: "replay-prev", onclick: () => go(step - 1) }),
        iconButton(timer ? "pause" : "play", timer ? "Pause" : "Play", { id: "replay-play", onclick: toggle }),
        iconButton("next", "Step forward", { id: "replay-next", onclick: () => go(step + 1) }),
        iconButton("last", "Last step", { id: "replay-last", onclick: () => go(lastStep) })),
      el("input", { type: "range", min: 0, max: lastStep, value: step, id: "replay-slider", "aria-label": "step",
        oninput: (e) => go(Number(e.target.value)) }),
      el("label", { class: "seat-choice" }, "Seen by",
        el("select", { onchange: (e) => { seat = e.target.value === "" ? null : Number(e.target.value); load(); } },
          el("option", { value: "", selected: seat === null }, "spectators"),
          data.players.map((p, i) => el("option", { value: i, selected: seat === i }, titleCase(p))))),
      link(`#/analysis/${id}`, "Analysis of this game", { id: "replay-analysis" }),
      step === lastStep ? module.resultTable([...data.result].sort((a, b) => a.place - b.place), data.players) : null,
    ));
  }

  function go(n) {
    step = Math.max(0, Math.min(data.steps.length - 1, n));
    if (step === data.steps.length - 1 && timer) toggle();
    render();
  }

  function toggle() {
    if (timer) {
      clearInterval(timer);
      timer = null;
    } else {
      timer = setInterval(() => go(step + 1), 600);
    }
    render();
  }

  load();
  return { destroy() { clearInterval(timer); renderer?.destroy?.(); } };
}

// -- the analysis of a finished game --------------------------------------------------------------

function analysisScreen(id) {
  const head = el("div", { class: "banner" }, el("strong", {}, "Analysis"));
  const status = el("div", { class: "card", id: "analysis-status" }, el("p", { class: "muted" }, "Loading…"));
  const chart = el("div", { class: "card chart-card", id: "chances" });
  const moves = el("div", { class: "card", id: "costly" });
  const parts = {
    banner: el("div", { class: "banner" }),
    board: el("div", { class: "board-wrap", id: "board" }),
    hand: el("div", { class: "hand-panel", id: "hand" }),
    controls: el("div", { class: "controls" }),
    scores: el("div", { class: "scores", id: "scores" }),
    log: el("ol", { class: "log" }),
    extra: el("div"),
  };
  app.append(el("div", { class: "analysis-screen" }, head, status, chart,
    el("div", { class: "game-screen" },
      el("section", { class: "board-col" }, parts.banner, parts.board),
      el("aside", { class: "side" }, moves, parts.scores))));
  let timer = null;
  let alive = true;
  let replay = null;
  let renderer = null;
  let pieces = {};
  let shown = null;

  async function refresh() {
    let found;
    try {
      found = await api.analysis(id);
    } catch (error) {
      put(status, el("h1", {}, "No analysis"), el("p", {}, error.message), link("#/", "Back to the lobby"));
      return;
    }
    if (!alive) return;
    const module = GAMES[found.game];
    setTitle(`Analysis: ${GAME_TITLES[found.game]}`);
    put(head, el("span", { class: `badge ${found.game}` }, GAME_TITLES[found.game]),
      el("strong", {}, " Analysis"), el("span", { class: "muted" }, ` · ${found.players.map(titleCase).join(", ")} · ${found.moves} moves`),
      link(`#/replay/${id}`, "Replay"));
    drawStatus(found);
    if (found.analysis) {
      if (!replay) {
        replay = await api.replay(id, null).catch(() => null);
        if (replay) for (const s of replay.steps) for (const cell of s.view.map || []) pieces[cell.tile] ||= { pyramid: cell.pyramid, regions: cell.regions };
      }
      drawChart(found, module);
      drawMoves(found, module);
    }
    if (found.status === "queued" || found.status === "running") timer = setTimeout(refresh, 1500);
  }

  function drawStatus(found) {
    if (found.status === "none") {
      put(status, el("p", {}, "This game has not been analysed."),
        el("button", { class: "btn primary", id: "analyse", onclick: async () => {
          try { await api.analyse(id); refresh(); } catch (error) { toast(error.message); }
        } }, icon("chart", 16), " Analyse it"));
    } else if (found.status === "failed") {
      put(status, el("p", { class: "error" }, "The analysis failed."),
        el("button", { class: "btn", onclick: async () => { await api.analyse(id).catch((e) => toast(e.message)); refresh(); } }, "Try again"));
    } else if (found.status === "done") {
      put(status, el("p", { id: "analysis-done" }, `The search bots reviewed ${found.total} decisions, ${found.analysis.seconds} s each, from each player's own information.`));
    } else {
      const share = found.total ? found.done / found.total : 0;
      put(status, el("p", {}, found.status === "queued" ? "Waiting for a free helper…" : `The bots are reviewing the moves: ${found.done} of ${found.total}.`),
        el("div", { class: "progress", role: "progressbar", "aria-valuenow": Math.round(share * 100), "aria-valuemin": 0, "aria-valuemax": 100, id: "analysis-progress" },
          el("div", { class: "bar", style: `width:${(share * 100).toFixed(1)}%` })));
    }
  }

  function drawChart(found, module) {
    const chances = found.analysis.chances;
    const n = chances.length - 1;
    const W = 800;
    const Hh = 220;
    const pad = 30;
    const x = (ply) => pad + ((W - 2 * pad) * ply) / Math.max(1, n);
    const y = (p) => Hh - pad - (Hh - 2 * pad) * p;
    const root = svg("svg", { viewBox: `0 0 ${W} ${Hh}`, class: "chart", role: "img", "aria-label": "win chance of each seat along the game" });
    for (const p of [0, 0.25, 0.5, 0.75, 1]) {
      root.append(svg("line", { x1: pad, x2: W - pad, y1: y(p), y2: y(p), class: p === 0.5 ? "grid mid" : "grid" }),
        svg("text", { x: pad - 4, y: y(p) + 4, class: "axis", "text-anchor": "end" }, `${p * 100}`));
    }
    root.append(svg("text", { x: W - pad, y: Hh - 6, class: "axis", "text-anchor": "end" }, `move ${n}`));
    found.players.forEach((_p, seat) => {
      const points = chances.map((c, ply) => `${x(ply).toFixed(1)},${y(c[seat]).toFixed(1)}`).join(" ");
      root.append(svg("polyline", { points, class: "chance-line", stroke: module.seatColour(found.players, seat), "data-seat": seat }));
    });
    const reviews = new Map(found.analysis.reviews.map((r) => [r.ply, r]));
    for (const ply of found.analysis.costly || []) {
      const r = reviews.get(ply);
      if (!r) continue;
      const dot = svg("circle", { cx: x(ply), cy: y(chances[ply][r.seat]), r: 6, class: "costly-dot", fill: module.seatColour(found.players, r.seat), "data-ply": ply },
        svg("title", {}, `Move ${ply}: cost ${percent(r.loss)}`));
      dot.addEventListener("click", () => pick(r, found, module));
      root.append(dot);
    }
    put(chart, el("h3", {}, "Win chance along the game"),
      el("div", { class: "legend" }, found.players.map((p, seat) => el("span", { class: "dynasty-chip", style: `--accent:${module.seatColour(found.players, seat)}` }, titleCase(p)))),
      root,
      el("p", { class: "muted small" }, found.players.length === 2 ? "Each player's chance to win after every move, as the search bots judge the position (all tiles known, now that the game is over)." : "Each player's expected share of opponents beaten after every move, as the search bots judge the position."));
  }

  function drawMoves(found, module) {
    const reviews = new Map(found.analysis.reviews.map((r) => [r.ply, r]));
    const costly = (found.analysis.costly || []).map((p) => reviews.get(p)).filter(Boolean);
    const finalView = replay?.steps.at(-1)?.view || null;
    const items = costly.map((r) => {
      const words = module.wordsFor(found.players, finalView, { ...pieces, ...(r.pieces || {}) });
      return el("li", { class: `costly-move${shown === r.ply ? " shown" : ""}`, "data-ply": r.ply, tabindex: 0, style: `--seat:${module.seatColour(found.players, r.seat)}`,
        onclick: () => pick(r, found, module), onkeydown: (e) => { if (e.key === "Enter") pick(r, found, module); } },
      el("div", {}, el("strong", {}, `Move ${r.ply} · ${titleCase(found.players[r.seat])}`), el("span", { class: "loss" }, ` costs ${percent(r.loss)}`)),
      el("p", {}, "Played: ", capitalised(module.describeAction(r.played, words)), el("span", { class: "muted" }, ` (${percent(r.played_chance)})`)),
      el("p", { class: "better" }, "Better: ", el("strong", {}, capitalised(module.describeAction(r.best, words))), el("span", { class: "muted" }, ` (${percent(r.best_chance)})`)),
      el("p", { class: "small muted" }, "Why: ", capitalised(module.reasonWords(r.why, words))));
    });
    put(moves, el("h3", {}, "The moves that cost most"),
      found.status === "done" && !items.length ? el("p", { class: "muted" }, "No move cost much: well played.") : null,
      found.status !== "done" ? el("p", { class: "muted small" }, "Found so far; the list completes when the review does.") : null,
      el("ol", { class: "costly-list", id: "costly-list" }, items));
  }

  async function pick(review, found, module) {
    shown = review.ply;
    if (!replay) return;
    const before = replay.steps[review.ply - 1];
    const frame = {
      ...before.view,
      to_move: null,
      legal_actions: [],
      table: { game: found.game, seat: null, seats: found.seats, status: "running", players: found.players, moves: review.ply - 1, events: [], can_undo: false, version: review.ply },
    };
    if (!renderer) renderer = module.createRenderer(parts, { mode: "analysis", act() {}, undo() {} });
    const colour = module.seatColour(found.players, review.seat);
    renderer.update(frame, {
      interactive: false,
      pieces,
      origin: module.originOf(replay.steps.at(-1).view),
      highlights: [{ seat: review.seat, cells: module.cellsOf(review.played), colour, fresh: true }],
    });
    renderer.preview?.(review.best);
    const words = module.wordsFor(found.players, replay.steps.at(-1).view, { ...pieces, ...(review.pieces || {}) });
    put(parts.banner, el("strong", {}, `Before move ${review.ply}`),
      el("span", { class: "muted detail whole-line" }, `${titleCase(found.players[review.seat])} played ${module.describeAction(review.played, words)} (outlined); better: ${module.describeAction(review.best, words)} (marked)`));
    drawMoves(found, module);
  }

  refresh();
  return { destroy() { alive = false; clearTimeout(timer); renderer?.destroy?.(); } };
}

// Last: every screen's code (classes included) is defined by now.
window.addEventListener("hashchange", route);
route();
