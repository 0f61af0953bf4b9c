// The web client: lobby, new-table form, live game screen (seat, hot seat, spectator), replays.
// Routes live in the URL's hash; tokens live in this browser's localStorage, never in a URL:
//   #/                      lobby and new table
//   #/play/ID               this browser's seat at the game
//   #/invite/ID/CODE        an invite link: the one-time code is exchanged for the seat
//   #/hotseat/ID            one screen for every human at the table
//   #/watch/ID              spectators (public view only)
//   #/replay/ID             step through a finished game
// (#/play/ID/TOKEN and #/hotseat/ID/TOKEN still open: the token is stored, the URL replaced.)

import { api, Live, remember, remembered, rememberedAll } from "./api.js";
import { clear, put, closeDialog, dialog, dialogOpen, el, setStatus, titleCase, toast } from "./ui.js";
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

window.addEventListener("hashchange", route);
route();

function route() {
  current?.destroy?.();
  current = null;
  closeDialog();
  setStatus("");
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
        if (saved?.token) buttons.push(link(`#/play/${g.id}`, "Resume"));
        if (saved?.table_token) buttons.push(link(`#/hotseat/${g.id}`, "Resume"));
        if (status === "open" && !saved) {
          buttons.push(el("button", { class: "btn", onclick: () => joinGame(g.id) }, "Join"));
        }
        if (status !== "over") buttons.push(link(`#/watch/${g.id}`, "Watch"));
        else buttons.push(link(`#/replay/${g.id}`, "Replay"));
        return el("li", { class: "game-row", "data-game-id": g.id },
          el("span", { class: `badge ${g.game}` }, GAME_TITLES[g.game] || g.game),
          el("span", { class: "who" }, seats.join(" · ")),
          el("span", { class: "muted" }, `${g.moves} moves${g.hotseat ? " · hot seat" : ""}`),
          el("span", { class: "row-buttons" }, buttons));
      })));
  });
}

function link(href, label) {
  return el("a", { class: "btn", href }, label);
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

function newTableForm(meta) {
  const games = meta.games;
  if (!games.length) return el("p", { class: "error" }, "This server offers no game.");
  const state = { game: games[0].name, players: 2, mode: "online", seats: [], options: {} };
  const body = el("div");

  function render() {
    const info = games.find((g) => g.name === state.game);
    state.players = Math.min(Math.max(state.players, info.min_players), info.max_players);
    while (state.seats.length < info.max_players) state.seats.push(state.seats.length ? "bot:random" : "human");
    for (const [key, value] of Object.entries(info.options)) {
      if (!(key in state.options) || typeof state.options[key] !== typeof value) state.options[key] = value;
    }
    // "human": a person with an invite link; "open": anyone who joins from the lobby.
    const seatKinds = ["human", "open", ...meta.bots.map((b) => `bot:${b}`)];
    const seatLabel = (k) => (k === "human" ? "person" : k === "open" ? "anyone (lobby)" : k.replace("bot:", "bot: "));
    put(body, 
      el("label", { class: "field" }, "Game",
        el("select", { id: "new-game", onchange: (e) => { state.game = e.target.value; state.options = {}; render(); } },
          games.map((g) => el("option", { value: g.name, selected: g.name === state.game }, GAME_TITLES[g.name] || g.name)))),
      el("label", { class: "field" }, "Players",
        el("select", { id: "new-players", onchange: (e) => { state.players = Number(e.target.value); render(); } },
          range(info.min_players, info.max_players).map((n) =>
            el("option", { value: n, selected: n === state.players }, String(n))))),
      el("fieldset", { class: "field" }, el("legend", {}, "Seats"),
        range(0, state.players - 1).map((i) =>
          el("label", { class: "seat-choice" }, `Seat ${i + 1}`,
            el("select", { "data-seat": i, onchange: (e) => { state.seats[i] = e.target.value; } },
              seatKinds.map((k) => el("option", { value: k, selected: k === state.seats[i] }, seatLabel(k)))))),
      ),
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

// -- the game screen ---------------------------------------------------------------------------

function gameScreen(id, token, mode) {
  const parts = {
    banner: el("div", { class: "banner", id: "banner" }),
    board: el("div", { class: "board-wrap", id: "board" }),
    hand: el("div", { class: "hand-panel", id: "hand" }),
    controls: el("div", { class: "controls", id: "controls" }),
    scores: el("div", { class: "scores", id: "scores" }),
    log: el("ol", { class: "log", id: "log" }),
    extra: el("div", { class: "extra" }),
  };
  const screen = el("div", { class: "game-screen" },
    el("section", { class: "board-col" }, parts.banner, parts.board),
    el("aside", { class: "side" },
      parts.hand, parts.controls, parts.scores,
      el("details", { class: "card log-card", open: true }, el("summary", {}, "Game log"), parts.log),
      parts.extra));
  app.append(screen);

  let renderer = null;
  let last = null;
  let shownSeat = null; // hot seat: the person whose hand is on screen
  let coverFor = null;
  let endShown = false;
  let pendingShown = null;
  let loggedVersion = -1;

  const ctx = {
    mode,
    act(action) {
      if (!live.act(action)) toast("Not connected: trying again…");
      renderer?.clearSelection?.();
    },
    undo() { live.undo(); },
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

  function show(frame, again = false) {
    last = frame;
    const game = frame.table.game;
    const module = GAMES[game];
    if (!renderer) renderer = module.createRenderer(parts, ctx);
    const seat = frame.table.seat;
    const over = frame.table.status === "over";
    const mine = seat !== null && frame.to_move === seat && !over;

    // For scripts and tests driving the page: which change is on screen, whose decision it is.
    document.body.dataset.version = String(frame.table.version);
    document.body.dataset.turn = over ? "over" : mine ? "mine" : "wait";

    if (!again && frame.table.version !== loggedVersion) {
      loggedVersion = frame.table.version;
      addLog(parts.log, frame);
    }
    banner(parts.banner, frame, mode);
    invites(parts.extra, id, frame, mode);

    // Hot seat: when another person is to decide, cover the hands until they are ready.
    if (mode === "hotseat" && seat !== null && seat !== shownSeat && !over) {
      if (coverFor !== seat) {
        coverFor = seat;
        renderer.update(frame, { interactive: false, hideHand: true });
        closeDialog();
        pendingShown = null;
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

    renderer.update(frame, { interactive: mine });
    if (over) {
      pendingShown = null;
      if (!endShown) {
        endShown = true;
        closeDialog();
        showEnd(module, frame, id);
      }
      return;
    }
    const decisionKey = mine ? `${frame.table.version}` : null;
    if (mine && module.needsDialog(frame)) {
      if (pendingShown !== decisionKey || !dialogOpen()) {
        pendingShown = decisionKey;
        module.openDialog(frame, ctx);
      }
    } else if (pendingShown !== null) {
      pendingShown = null;
      if (document.getElementById("decision")) closeDialog();
    }
  }

  return {
    destroy() { live.close(); renderer?.destroy?.(); },
  };
}

function banner(node, frame, mode) {
  const t = frame.table;
  const players = frame.players;
  let text;
  if (t.status === "over") text = "The game is over.";
  else if (frame.to_move === null || frame.to_move === undefined) text = "";
  else if (t.seat !== null && frame.to_move === t.seat) {
    text = `${mode === "hotseat" ? `${titleCase(players[t.seat])}, your` : "Your"} decision`;
  } else {
    const kind = t.seats[frame.to_move];
    text = `Waiting for ${titleCase(players[frame.to_move])}${kind.startsWith("bot:") ? " (bot)" : ""}`;
  }
  const who = t.seat === null ? "watching" : `you are ${titleCase(players[t.seat])}`;
  put(node, 
    el("span", { class: `badge ${t.game}` }, GAME_TITLES[t.game] || t.game),
    el("strong", { class: frame.to_move === t.seat && t.status !== "over" ? "your-turn" : "" }, text),
    el("span", { class: "muted" }, ` · ${who} · move ${t.moves}`));
}

function addLog(node, frame) {
  const t = frame.table;
  const lines = [];
  if (t.last && t.events.length === 0) lines.push(`${titleCase(frame.players[t.last.seat])}: ${t.last.action}`);
  for (const event of t.events || []) {
    if (event.text) lines.push(event.text);
  }
  for (const line of lines) {
    node.append(el("li", {}, line));
  }
  while (node.childElementCount > 200) node.firstElementChild.remove();
  node.scrollTop = node.scrollHeight;
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
    body: [module.resultTable(result, frame.players)],
    buttons: [
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
    controls: el("div", { class: "controls replay-controls" }),
    scores: el("div", { class: "scores", id: "scores" }),
    log: el("ol", { class: "log" }),
    extra: el("div"),
  };
  app.append(el("div", { class: "game-screen" },
    el("section", { class: "board-col" }, parts.banner, parts.board),
    el("aside", { class: "side" }, parts.controls, parts.hand, parts.scores,
      el("div", { class: "card" }, el("h3", {}, "This step"), parts.log))));
  let data = null;
  let step = 0;
  let seat = null;
  let renderer = null;
  let timer = null;

  async function load() {
    try {
      data = await api.replay(id, seat);
    } catch (error) {
      put(app, el("div", { class: "card" }, el("h1", {}, "No replay"), el("p", {}, error.message), link("#/", "Back")));
      return;
    }
    step = Math.min(step, data.steps.length - 1);
    render();
  }

  function render() {
    const module = GAMES[data.game];
    const s = data.steps[step];
    const frame = {
      ...s.view,
      to_move: null,
      legal_actions: [],
      table: { game: data.game, seat, seats: data.seats, status: step === data.steps.length - 1 ? "over" : "running",
        result: data.result, players: data.players, moves: step, events: s.events, last: null, can_undo: false },
    };
    if (!renderer) renderer = module.createRenderer(parts, { mode: "replay", act() {}, undo() {} });
    renderer.update(frame, { interactive: false });
    put(parts.banner, 
      el("span", { class: `badge ${data.game}` }, GAME_TITLES[data.game]),
      el("strong", {}, ` Replay: step ${step} of ${data.steps.length - 1}`),
      el("span", { class: "muted" }, s.action ? ` · ${titleCase(data.players[s.seat])}: ${s.action}` : " · the start"));
    put(parts.log, (s.events || []).map((e) => el("li", {}, e.text)));
    if (!s.events?.length) parts.log.append(el("li", { class: "muted" }, s.action ? s.action : "Set-up"));
    put(parts.controls, el("div", { class: "card" },
      el("div", { class: "replay-buttons" },
        el("button", { class: "btn", id: "replay-first", onclick: () => go(0) }, "⏮"),
        el("button", { class: "btn", id: "replay-prev", onclick: () => go(step - 1) }, "◀"),
        el("button", { class: "btn", id: "replay-play", onclick: toggle }, timer ? "⏸" : "▶"),
        el("button", { class: "btn", id: "replay-next", onclick: () => go(step + 1) }, "▶▶"),
        el("button", { class: "btn", id: "replay-last", onclick: () => go(data.steps.length - 1) }, "⏭")),
      el("input", { type: "range", min: 0, max: data.steps.length - 1, value: step, id: "replay-slider",
        oninput: (e) => go(Number(e.target.value)) }),
      el("label", { class: "seat-choice" }, "Seen by",
        el("select", { onchange: (e) => { seat = e.target.value === "" ? null : Number(e.target.value); load(); } },
          el("option", { value: "", selected: seat === null }, "spectators"),
          data.players.map((p, i) => el("option", { value: i, selected: seat === i }, titleCase(p))))),
      step === data.steps.length - 1 ? GAMES[data.game].resultTable([...data.result].sort((a, b) => a.place - b.place), data.players) : null,
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
