// The server's HTTP and WebSocket API (docs/contract.md), and the tokens this browser holds.
// A token never goes in a URL: HTTP sends it in the Authorization header, a WebSocket in its
// first message.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function call(method, path, body, token) {
  const headers = body === undefined ? {} : { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    throw new ApiError(response.status, data?.error || `${response.status} ${response.statusText}`);
  }
  return data;
}

export const api = {
  meta: () => call("GET", "/api/meta"),
  lobby: () => call("GET", "/api/games"),
  create: (body) => call("POST", "/api/games", body),
  // An invite code (from an invite link) is exchanged once for its seat's own token.
  join: (id, invite) => call("POST", `/api/games/${encodeURIComponent(id)}/join`, invite ? { invite } : {}),
  view: (id, token) => call("GET", `/api/games/${encodeURIComponent(id)}`, undefined, token),
  replay: (id, seat) =>
    call("GET", `/api/games/${encodeURIComponent(id)}/replay${seat === null || seat === undefined ? "" : `?seat=${seat}`}`),
  board: (game, name) => call("GET", `/api/boards/${game}?board=${encodeURIComponent(name)}`),
  // The game's log as this seat (or spectators) may know it, and the board after any move.
  history: (id, token) => call("GET", `/api/games/${encodeURIComponent(id)}/history`, undefined, token),
  pastBoard: (id, ply, token, seat) =>
    call("GET", `/api/games/${encodeURIComponent(id)}/board?ply=${ply}${seat === null || seat === undefined ? "" : `&seat=${seat}`}`, undefined, token),
  explain: (id, action, token) => call("POST", `/api/games/${encodeURIComponent(id)}/explain`, { action }, token),
  hint: (id, token) => call("POST", `/api/games/${encodeURIComponent(id)}/hint`, {}, token),
  analysis: (id) => call("GET", `/api/games/${encodeURIComponent(id)}/analysis`),
  analyse: (id) => call("POST", `/api/games/${encodeURIComponent(id)}/analysis`, {}),
};

/**
 * A WebSocket to one game that reconnects by itself (the server resends the current view on
 * every connection, so a reconnection resumes exactly where the game is).
 */
export class Live {
  constructor(id, token, { onView, onError, onState }) {
    this.id = id;
    this.token = token;
    this.onView = onView;
    this.onError = onError;
    this.onState = onState || (() => {});
    this.closed = false;
    this.retry = 0;
    this.open();
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/games/${encodeURIComponent(this.id)}`);
    this.ws = ws;
    ws.onopen = () => {
      ws.send(JSON.stringify(this.token ? { token: this.token } : {}));
      this.retry = 0;
      this.onState("connected");
    };
    ws.onmessage = (message) => {
      let frame;
      try {
        frame = JSON.parse(message.data);
      } catch {
        return;
      }
      if (frame.type === "view") this.onView(frame);
      else if (frame.type === "error") this.onError(frame.error, frame.status);
    };
    ws.onclose = (event) => {
      if (this.closed) return;
      if ([4400, 4403, 4404, 4410].includes(event.code)) {
        this.closed = true;
        this.onState("refused");
        return;
      }
      this.onState("reconnecting");
      const wait = Math.min(8000, 300 * 2 ** this.retry++);
      setTimeout(() => { if (!this.closed) this.open(); }, wait);
    };
  }

  send(frame) {
    if (this.ws?.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(frame));
      return true;
    }
    return false;
  }

  act(action) { return this.send({ action }); }

  undo() { return this.send({ undo: true }); }

  close() {
    this.closed = true;
    this.ws?.close();
  }
}

// Tokens live in this browser only (localStorage), keyed by game id.
const KEY = "cradle.tables";

function tables() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "{}");
  } catch {
    return {};
  }
}

export function remember(id, entry) {
  const all = tables();
  all[id] = { ...(all[id] || {}), ...entry, saved: Date.now() };
  localStorage.setItem(KEY, JSON.stringify(all));
}

export function remembered(id) {
  return tables()[id] || null;
}

export function rememberedAll() {
  return tables();
}
