// @ts-check
// The server's HTTP and WebSocket API (docs/contract.md), version 2 (docs/server.md,
// "Versions": every call says `Cradle-Api: 2`, the WebSocket's first message `"api": 2`): a
// frame holds the game's view and the table's state side by side. A token never goes in a
// URL: HTTP sends it in the Authorization header, a WebSocket in its first message.

import { language, serverReason } from "./i18n.js";
import { shareAt } from "./state.js";

/** @typedef {import("./types").AccountInfo} AccountInfo */
/** @typedef {import("./types").Analysis} Analysis */
/** @typedef {import("./types").SignedIn} SignedIn */
/** @typedef {import("./types").MyGames} MyGames */
/** @typedef {import("./types").Transfer} Transfer */
/** @typedef {import("./types").ChatLine} ChatLine */
/** @typedef {import("./types").ChatPage} ChatPage */
/** @typedef {import("./types").PlayerProfile} PlayerProfile */
/** @typedef {import("./types").RatingsPage} RatingsPage */
/** @typedef {import("./types").Created} Created */
/** @typedef {import("./types").Explanation} Explanation */
/** @typedef {import("./types").FriendList} FriendList */
/** @typedef {import("./types").FriendAnswer} FriendAnswer */
/** @typedef {import("./types").Invitations} Invitations */
/** @typedef {import("./types").AccountFrame} AccountFrame */
/** @typedef {import("./types").Frame} Frame */
/** @typedef {import("./types").Hints} Hints */
/** @typedef {import("./types").History} History */
/** @typedef {import("./types").Joined} Joined */
/** @typedef {import("./types").Lessons} Lessons */
/** @typedef {import("./types").LobbyPage} LobbyPage */
/** @typedef {import("./types").LobbyFilter} LobbyFilter */
/** @typedef {import("./types").Meta} Meta */
/** @typedef {import("./types").CreateBody} CreateBody */
/** @typedef {import("./types").BoardAfter} BoardAfter */
/** @typedef {import("./types").LessonPicture} LessonPicture */
/** @typedef {import("./types").Replay} Replay */
/** @typedef {import("./types").Reported} Reported */
/** @typedef {import("./types").Share} Share */
/** @typedef {import("./types").Seat} Seat */
/** @typedef {import("./types").ServerFrame} ServerFrame */
/** @typedef {import("./types").TigrisMap} TigrisMap */

/** The version of the API this client speaks. */
const API = 2;

/** An answer other than 2xx: its status, the server's reason and the refusal's kind (an
 * action: "malformed" when it is no action, "disallowed" when not allowed now). */
export class ApiError extends Error {
  /** @param {number} status @param {string} message @param {string | null} [kind] */
  constructor(status, message, kind = null) {
    super(message);
    this.status = status;
    this.kind = kind;
  }
}

/** The signed-in session's CSRF token (GET /api/me), sent with every change; null: a guest. */
let csrf = /** @type {string | null} */ (null);

/** @param {string | null} token */
export function setCsrf(token) {
  csrf = token;
}

/**
 * One call of the HTTP API: its JSON answer, or an ApiError with the server's reason.
 * @param {"GET" | "POST" | "PATCH" | "DELETE"} method
 * @param {string} path
 * @param {object} [body]
 * @param {string | null} [token]
 * @template T
 * @returns {Promise<T>} the answer as JSON: each call of `api` below says what it is
 */
async function call(method, path, body, token) {
  /** @type {Record<string, string>} */
  const headers = body === undefined ? {} : { "Content-Type": "application/json" };
  headers["Cradle-Api"] = String(API);
  // The language the page is read in (the switch's, else the browser's): a new account takes
  // it for its mails.
  headers["Accept-Language"] = language();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (csrf && method !== "GET") headers["X-CSRF-Token"] = csrf;
  // A private game a player shared with this browser: its key opens the game's every read.
  const game = /^\/api\/games\/([^/?]+)/.exec(path);
  const key = game ? shareAt(decodeURIComponent(game[1])) : null;
  if (key) headers["Cradle-Share"] = key;
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
    // Signed out elsewhere while this page still sent its token: the page asks who it is now.
    if (response.status === 401 && csrf) window.dispatchEvent(new CustomEvent("cradleunauthorized"));
    // The server's reason in the language: the message it names, else its English.
    const reason = data?.error ? serverReason(data.error, data.message, data.params) : `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, reason, data?.kind);
  }
  return data;
}

/** Each call of the API (docs/server.md), typed by what the server answers. */
export const api = {
  /** @returns {Promise<Meta>} */
  meta: () => call("GET", "/api/meta"),
  /**
   * One page of the lobby, filtered.
   * @param {LobbyFilter} [filter]
   * @returns {Promise<LobbyPage>}
   */
  lobby: (filter = {}) => {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(filter)) {
      if (value !== undefined && value !== "") query.set(key, String(value));
    }
    const text = query.toString();
    return call("GET", `/api/games${text ? `?${text}` : ""}`);
  },
  /**
   * The seat of `token` gives up: the game ends with it last.
   * @param {string} id
   * @param {string} token
   * @returns {Promise<Frame>}
   */
  concede: (id, token) => call("POST", `/api/games/${encodeURIComponent(id)}/concede`, {}, token),
  /**
   * A seat whose deadline passed: its stand-in bot plays for it until its person is back
   * ("bot"), or the game ends without it ("end").
   * @param {string} id @param {string} token @param {"bot" | "end"} choice
   * @returns {Promise<Frame>}
   */
  timeout: (id, token, choice) => call("POST", `/api/games/${encodeURIComponent(id)}/timeout`, { choice }, token),
  /**
   * "I'm back": the seat of `token` plays its turns itself again.
   * @param {string} id @param {string} token
   * @returns {Promise<Frame>}
   */
  comeBack: (id, token) => call("POST", `/api/games/${encodeURIComponent(id)}/return`, {}, token),
  /**
   * The creator removes a table nobody has moved at.
   * @param {string} id
   * @param {string} token
   * @returns {Promise<{id: string, status: string}>}
   */
  remove: (id, token) => call("DELETE", `/api/games/${encodeURIComponent(id)}`, undefined, token),
  /**
   * A turn notice's "no more mails" link.
   * @param {string} code
   * @returns {Promise<{stopped: boolean}>}
   */
  stopMail: (code) => call("POST", "/api/mail/stop", { code }),
  /** @param {CreateBody} body @returns {Promise<Created>} */
  create: (body) => call("POST", "/api/games", body),
  /** @param {string} game @returns {Promise<Lessons>} a guided game's steps */
  lessons: (game) => call("GET", `/api/lessons/${encodeURIComponent(game)}`),
  /**
   * A step's table; `name`: a guest's name for the learner's seat.
   * @param {string} game @param {string} lesson @param {string | null} [name]
   * @returns {Promise<Created>}
   */
  lesson: (game, lesson, name) => call("POST", "/api/lessons", { game, lesson, ...(name ? { name } : {}) }),
  /**
   * @param {string} game @param {string} lesson @param {number} after
   * @returns {Promise<LessonPicture>} what all see of a lesson's position after its first moves
   */
  picture: (game, lesson, after) =>
    call("GET", `/api/lessons/${encodeURIComponent(game)}/${encodeURIComponent(lesson)}/picture?after=${after}`),
  /**
   * An invite code (from an invite link) is exchanged once for its seat's own token; without
   * one, the first open seat.
   * @param {string} id
   * @param {string} [invite]
   * @param {string | null} [name] a guest's name for the seat
   * @returns {Promise<Joined>}
   */
  join: (id, invite, name) =>
    call("POST", `/api/games/${encodeURIComponent(id)}/join`, { ...(invite ? { invite } : {}), ...(name ? { name } : {}) }),
  /** @param {string} id @param {string | null} token @returns {Promise<Frame>} */
  view: (id, token) => call("GET", `/api/games/${encodeURIComponent(id)}`, undefined, token),
  /**
   * A finished game step by step (a private table's: for its players, by their token).
   * @param {string} id @param {Seat | null} [seat] @param {string | null} [token]
   * @returns {Promise<Replay>}
   */
  replay: (id, seat, token) =>
    call("GET", `/api/games/${encodeURIComponent(id)}/replay${seat === null || seat === undefined ? "" : `?seat=${seat}`}`, undefined, token),
  /** @param {string} game @param {string} name @returns {Promise<TigrisMap>} */
  board: (game, name) => call("GET", `/api/boards/${game}?board=${encodeURIComponent(name)}`),
  /**
   * The game's log as this seat (or spectators) may know it.
   * @param {string} id
   * @param {string | null} token
   * @returns {Promise<History>}
   */
  history: (id, token) => call("GET", `/api/games/${encodeURIComponent(id)}/history`, undefined, token),
  /**
   * The board after any move, as this seat saw it (another seat's, once the game is over).
   * @param {string} id
   * @param {number} ply
   * @param {string | null} token
   * @param {Seat | null} [seat]
   * @returns {Promise<BoardAfter>}
   */
  pastBoard: (id, ply, token, seat) =>
    call("GET", `/api/games/${encodeURIComponent(id)}/board?ply=${ply}${seat === null || seat === undefined ? "" : `&seat=${seat}`}`, undefined, token),
  /** @param {string} id @param {string} action @param {string | null} token @returns {Promise<Explanation>} */
  explain: (id, action, token) => call("POST", `/api/games/${encodeURIComponent(id)}/explain`, { action }, token),
  /** @param {string} id @param {string | null} token @returns {Promise<Hints>} */
  hint: (id, token) => call("POST", `/api/games/${encodeURIComponent(id)}/hint`, {}, token),
  /** @param {string} id @param {string | null} [token] @returns {Promise<Analysis>} */
  analysis: (id, token) => call("GET", `/api/games/${encodeURIComponent(id)}/analysis`, undefined, token),
  /**
   * The table's chat as this viewer may read it (after line `after`).
   * @param {string} id
   * @param {string | null} token
   * @param {number} [after]
   * @returns {Promise<ChatPage>}
   */
  chat: (id, token, after = 0) => call("GET", `/api/games/${encodeURIComponent(id)}/chat${after ? `?after=${after}` : ""}`, undefined, token),
  /** @param {string} id @param {string} text @param {string | null} token @returns {Promise<ChatLine>} */
  say: (id, text, token) => call("POST", `/api/games/${encodeURIComponent(id)}/chat`, { text }, token),
  /**
   * Mute a speaker of the table (muted false: hear them again).
   * @param {string} id
   * @param {string} speaker
   * @param {boolean} muted
   * @param {string | null} token
   * @returns {Promise<ChatPage>}
   */
  mute: (id, speaker, muted, token) => call("POST", `/api/games/${encodeURIComponent(id)}/mute`, { speaker, muted }, token),
  /**
   * Tell the operator about a line of the table's chat.
   * @param {string} id @param {number} line @param {string} reason @param {string | null} token
   * @returns {Promise<Reported>}
   */
  reportLine: (id, line, reason, token) =>
    call("POST", `/api/games/${encodeURIComponent(id)}/chat/${line}/report`, { reason }, token),
  /** @param {string} name @param {string} reason @returns {Promise<Reported>} */
  reportPlayer: (name, reason) => call("POST", `/api/players/${encodeURIComponent(name)}/report`, { reason }),
  /**
   * A private table's share key (its players only): it opens the finished game to others.
   * @param {string} id @param {string | null} token @returns {Promise<Share>}
   */
  share: (id, token) => call("GET", `/api/games/${encodeURIComponent(id)}/share`, undefined, token),
  /** @param {string} game @param {number | null} players @returns {Promise<RatingsPage>} */
  ratings: (game, players) => call("GET", `/api/ratings?game=${encodeURIComponent(game)}${players ? `&players=${players}` : ""}`),
  /** @param {string} name @returns {Promise<PlayerProfile>} */
  player: (name) => call("GET", `/api/players/${encodeURIComponent(name)}`),
  /** @param {string} id @param {string | null} [token] @returns {Promise<Analysis>} */
  analyse: (id, token) => call("POST", `/api/games/${encodeURIComponent(id)}/analysis`, {}, token),
  /** @returns {Promise<SignedIn>} the signed-in account (null for a guest) and its CSRF token */
  me: () => call("GET", "/api/me"),
  /**
   * A new account, signed in; an address (optional) gets a mail whose link verifies it.
   * @param {string} name @param {string} password @param {string | null} [email]
   * @returns {Promise<SignedIn>}
   */
  signUp: (name, password, email) => call("POST", "/api/accounts", { name, password, ...(email ? { email } : {}) }),
  /**
   * Mail a password reset link to the account's verified address (the same answer whether or
   * not there is such an account).
   * @param {{name: string} | {email: string}} who
   * @returns {Promise<{asked: boolean}>}
   */
  askReset: (who) => call("POST", "/api/password-reset", who),
  /** @param {string} code @param {string} password @returns {Promise<SignedIn>} signed in */
  reset: (code, password) => call("POST", `/api/password-reset/${encodeURIComponent(code)}`, { password }),
  /** @param {string} code @returns {Promise<{email: string}>} the address now verified */
  verify: (code) => call("POST", `/api/email-verification/${encodeURIComponent(code)}`, {}),
  /** @returns {Promise<{asked: boolean}>} a new check of the account's address, mailed */
  sendCheck: () => call("POST", "/api/me/verify", {}),
  /** @returns {Promise<FriendList>} */
  friends: () => call("GET", "/api/friends"),
  /** @param {string} name @returns {Promise<FriendAnswer>} a request, or theirs accepted */
  askFriend: (name) => call("POST", "/api/friends", { name }),
  /** @param {string} name @returns {Promise<FriendList>} */
  unfriend: (name) => call("DELETE", `/api/friends/${encodeURIComponent(name)}`),
  /** @param {string} name @returns {Promise<FriendList>} */
  block: (name) => call("POST", "/api/blocks", { name }),
  /** @param {string} name @returns {Promise<FriendList>} */
  unblock: (name) => call("DELETE", `/api/blocks/${encodeURIComponent(name)}`),
  /** @param {string} id @param {string} name @returns {Promise<{id: string, seat: Seat, name: string}>} */
  inviteFriend: (id, name) => call("POST", `/api/games/${encodeURIComponent(id)}/invite`, { name }),
  /** @returns {Promise<Invitations>} */
  invitations: () => call("GET", "/api/me/invitations"),
  /** @param {string} invitation @returns {Promise<Joined>} the seat, taken */
  acceptInvitation: (invitation) => call("POST", `/api/me/invitations/${encodeURIComponent(invitation)}`, {}),
  /** @param {string} invitation @returns {Promise<Invitations>} */
  declineInvitation: (invitation) => call("DELETE", `/api/me/invitations/${encodeURIComponent(invitation)}`),
  /** @param {string} name @param {string} password @returns {Promise<SignedIn>} */
  signIn: (name, password) => call("POST", "/api/session", { name, password }),
  /** @returns {Promise<SignedIn>} */
  signOut: () => call("DELETE", "/api/session"),
  /** @param {{email?: string | null, turn_mail?: boolean, invite_mail?: boolean, language?: string}} settings @returns {Promise<{account: AccountInfo}>} */
  settings: (settings) => call("PATCH", "/api/me", settings),
  /** @param {string} password @param {string} newPassword @returns {Promise<{changed: boolean}>} */
  changePassword: (password, newPassword) => call("POST", "/api/me/password", { password, new_password: newPassword }),
  /** @param {string} password @returns {Promise<SignedIn>} */
  deleteAccount: (password) => call("DELETE", "/api/me", { password }),
  /** @returns {Promise<MyGames>} */
  myGames: () => call("GET", "/api/me/games"),
  /**
   * The signed-in player's seat here, on this device: the token this browser holds while it is
   * still the seat's, else a new one (the seat then leaves the device that held it).
   * @param {string} id @param {string | null} [token] @returns {Promise<Joined>}
   */
  mySeat: (id, token) => call("POST", `/api/games/${encodeURIComponent(id)}/seat`, {}, token),
  /** @param {string} id @param {string} token @returns {Promise<Transfer>} */
  transfer: (id, token) => call("POST", `/api/games/${encodeURIComponent(id)}/transfer`, {}, token),
  /** @param {string} id @param {string} code @returns {Promise<Joined>} */
  continueHere: (id, code) => call("POST", `/api/games/${encodeURIComponent(id)}/continue`, { code }),
};

/**
 * A game's connection: "offline" (the browser has no network), "reconnecting" (lost, being
 * tried again), "refused" (the seat's token no longer opens it: given up on), "connected".
 * @typedef {"connected" | "reconnecting" | "offline" | "refused"} LiveState
 */

/** How long a move waits for the server's answer before the connection is taken for lost. */
const ANSWER_MS = 10000;

/**
 * A WebSocket to one game that reconnects by itself (the server resends the current view on
 * every connection, so a reconnection resumes exactly where the game is). The browser going
 * offline closes it at once (a socket whose network is gone may look open for minutes), and
 * so does a move the server does not answer in ANSWER_MS; coming back online reconnects.
 */
export class Live {
  /**
   * @param {string} id
   * @param {string | null} token
   * @param {{
   *   onView: (frame: Frame) => void,
   *   onError: (message: string, status: number, kind: string | null) => void,
   *   onState?: (state: LiveState) => void,
   *   onChat?: (line: ChatLine) => void,
   * }} listeners
   */
  constructor(id, token, { onView, onError, onState, onChat }) {
    this.id = id;
    this.token = token;
    this.onView = onView;
    this.onError = onError;
    this.onState = onState || (() => {});
    this.onChat = onChat || (() => {});
    this.closed = false;
    this.retry = 0;
    /** @type {WebSocket | null} */
    this.ws = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} a move's answer awaited */
    this.awaiting = undefined;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.retryTimer = undefined;
    this.offline = () => this.lost("offline");
    this.online = () => { if (!this.closed) { this.retry = 0; this.reconnect(); } };
    window.addEventListener("offline", this.offline);
    window.addEventListener("online", this.online);
    if (navigator.onLine === false) this.onState("offline");
    else this.open();
  }

  /**
   * The connection is gone (the browser is offline, or a move got no answer): say so, and
   * try again (at once when back online).
   * @param {"offline" | "reconnecting"} state
   */
  lost(state) {
    if (this.closed) return;
    clearTimeout(this.awaiting);
    const ws = this.ws;
    this.ws = null;
    if (ws) { ws.onclose = null; ws.onmessage = null; ws.close(); }
    this.onState(state);
    if (state === "reconnecting") this.reconnect(Math.min(8000, 300 * 2 ** this.retry++));
  }

  /** @param {number} [wait] */
  reconnect(wait = 0) {
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      if (this.closed || navigator.onLine === false) return;
      if (this.ws) { this.ws.onclose = null; this.ws.close(); this.ws = null; }
      this.open();
    }, wait);
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/games/${encodeURIComponent(this.id)}`);
    this.ws = ws;
    let accepted = false;
    ws.onopen = () => {
      ws.send(JSON.stringify(this.token ? { token: this.token, api: API } : { api: API }));
    };
    ws.onmessage = (message) => {
      clearTimeout(this.awaiting); // the server answers: the connection lives
      /** @type {ServerFrame} */
      let frame;
      try {
        frame = JSON.parse(message.data);
      } catch {
        return;
      }
      if (frame.type === "view" && !accepted) {
        // Connected once the server took the token (its first view): a refused token reads
        // nothing more (no chat or history asked for with it).
        accepted = true;
        this.retry = 0;
        this.onState("connected");
      }
      if (frame.type === "view") this.onView(frame);
      else if (frame.type === "error") this.onError(serverReason(frame.error, frame.message, frame.params), frame.status, frame.kind ?? null);
      else if (frame.type === "chat") this.onChat(frame.line);
    };
    ws.onclose = (event) => {
      if (this.closed || this.ws !== ws) return;
      clearTimeout(this.awaiting);
      if ([4400, 4403, 4404, 4410].includes(event.code)) {
        this.closed = true;
        this.onState("refused");
        return;
      }
      this.ws = null;
      if (navigator.onLine === false) { this.onState("offline"); return; }
      this.onState("reconnecting");
      this.reconnect(Math.min(8000, 300 * 2 ** this.retry++));
    };
  }

  /** Whether a request sent now would go out (online, and the socket open). */
  ready() {
    return navigator.onLine !== false && this.ws?.readyState === WebSocket.OPEN;
  }

  /**
   * Send a request; false when not connected (it is not kept for later).
   * @param {object} frame
   */
  send(frame) {
    if (this.ready() && this.ws) {
      this.ws.send(JSON.stringify(frame));
      // Every request is answered (a view, or an error): silence means the line is dead.
      clearTimeout(this.awaiting);
      this.awaiting = setTimeout(() => this.lost("reconnecting"), ANSWER_MS);
      return true;
    }
    return false;
  }

  /** @param {string} action */
  act(action) { return this.send({ action }); }

  undo() { return this.send({ undo: true }); }

  close() {
    this.closed = true;
    clearTimeout(this.awaiting);
    clearTimeout(this.retryTimer);
    window.removeEventListener("offline", this.offline);
    window.removeEventListener("online", this.online);
    this.ws?.close();
  }
}

/**
 * A signed-in page's own live connection (`/ws/me`, with the session cookie): the server says
 * when the account's inbox changed (a friend's request or invitation) and when this session
 * ended elsewhere; it reconnects by itself while signed in.
 */
export class AccountLive {
  /**
   * @param {{onInbox: () => void, onSignedOut: (reason: string) => void}} listeners
   */
  constructor({ onInbox, onSignedOut }) {
    this.onInbox = onInbox;
    this.onSignedOut = onSignedOut;
    this.closed = false;
    this.retry = 0;
    /** @type {WebSocket | null} */
    this.ws = null;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.pinger = undefined;
    this.open();
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/me`);
    this.ws = ws;
    ws.onmessage = (message) => {
      /** @type {AccountFrame} */
      let frame;
      try {
        frame = JSON.parse(message.data);
      } catch {
        return;
      }
      if (frame.type === "hello") this.retry = 0;
      else if (frame.type === "inbox") this.onInbox();
      else if (frame.type === "signed_out") {
        this.closed = true;
        this.onSignedOut(frame.reason);
      }
    };
    clearInterval(this.pinger);
    this.pinger = setInterval(() => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "ping" }));
    }, 25000);
    ws.onclose = (event) => {
      if (this.closed || event.code === 4401) return;
      const wait = Math.min(30000, 1000 * 2 ** this.retry++);
      setTimeout(() => { if (!this.closed) this.open(); }, wait);
    };
  }

  close() {
    this.closed = true;
    clearInterval(this.pinger);
    this.ws?.close();
  }
}
