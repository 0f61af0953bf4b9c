// @ts-check
// Who is playing: the signed-in account (GET /api/me) or a guest with a name of their own (kept
// in this browser); the header's account links and "your turn" count; the sign-up, sign-in,
// account and inbox pages; and a guest's seat moved to another device by a one-time link.

import { api, setCsrf } from "./api.js";
import { GAME_TITLES } from "./games.js";
import { nameAt } from "./names.js";
import { remember } from "./state.js";
import { byId, el, link, messageOf, put, ratedBadge, toast } from "./ui.js";

/** @typedef {import("./types").Account} Account */
/** @typedef {import("./types").Me} Me */
/** @typedef {import("./types").MyGame} MyGame */
/** @typedef {import("./types").Screen} Screen */

const GUEST_KEY = "cradle.guest";
const NAME_RULE = "3 to 24 letters, digits, spaces, - or _";

/** @type {{account: Account | null, known: boolean, waiting: number}} */
export const me = { account: null, known: false, waiting: 0 };

/** @param {Me} answer */
function signedAs(answer) {
  me.account = answer.account;
  me.known = true;
  setCsrf(answer.csrf);
  renderHeader();
}

/** Ask the server who this browser is (at start, and after signing in or out). */
export async function loadMe() {
  try {
    signedAs(await api.me());
  } catch {
    me.known = true;
    renderHeader();
  }
  await refreshWaiting();
}

/** The header's count of games waiting for this player's move. */
export async function refreshWaiting() {
  if (!me.account) {
    me.waiting = 0;
  } else {
    try {
      me.waiting = (await api.myGames()).your_turn;
    } catch {
      return;
    }
  }
  renderHeader();
}

/** The guest name this browser plays under (chosen, or made up once). */
export function guestName() {
  let name = localStorage.getItem(GUEST_KEY);
  if (!name) {
    name = `Guest ${Math.floor(1000 + Math.random() * 9000)}`;
    localStorage.setItem(GUEST_KEY, name);
  }
  return name;
}

/** @param {string} name */
function setGuestName(name) {
  localStorage.setItem(GUEST_KEY, name.trim());
  renderHeader();
}

/** The name a new seat of this browser shows: the account's, or the guest's. */
export function seatName() {
  return me.account ? null : guestName(); // an account's seat takes the account's name
}

function renderHeader() {
  const slot = byId("account");
  if (!slot) return;
  if (!me.known) return;
  if (me.account) {
    put(slot,
      link("#/inbox", me.waiting ? `Your turn: ${me.waiting}` : "My games",
        { id: "inbox-link", class: me.waiting ? "btn waiting" : "btn" }),
      " ",
      link("#/account", me.account.name, { id: "account-link" }));
  } else {
    put(slot,
      el("span", { class: "muted guest-name", title: "Your name as a guest (change it on the sign-in page)" }, guestName()),
      " ",
      link(`#/signin${afterwards()}`, "Sign in", { id: "signin-link" }),
      " ",
      link(`#/signup${afterwards()}`, "Sign up", { id: "signup-link" }));
  }
}

/** The screens a sign-in may return to (a game's seat from a turn mail, a page being read). */
const RETURNS = new Set(["play", "hotseat", "watch", "replay", "analysis", "player", "ratings", "rules", "learn", "inbox", "account"]);

/**
 * The screen shown now, as the tail of a sign-in address ("/play/ID"), when a sign-in may
 * come back to it; "" otherwise.
 */
function afterwards() {
  const words = location.hash.replace(/^#\/?/, "").split("/");
  if (words[0] === "signin" || words[0] === "signup") return words.length > 1 ? `/${words.slice(1).join("/")}` : "";
  return RETURNS.has(words[0]) ? `/${words.join("/")}` : "";
}

/**
 * Where a sign-in (or sign-up) goes once done: the screen named after it in its own address
 * ("#/signin/play/ID": that game's seat), else the inbox.
 * @param {string[]} next the address's words after "signin"
 */
function returnTo(next) {
  if (!next.length || !RETURNS.has(next[0])) return "#/inbox";
  return `#/${next.map(encodeURIComponent).join("/")}`;
}

/**
 * A form of labelled fields and one button; `submit` gets the values and may throw.
 * @param {string} id
 * @param {{name: string, label: string, type?: string, autocomplete?: string, value?: string}[]} fields
 * @param {string} action
 * @param {(values: Record<string, string>) => Promise<void>} submit
 */
function form(id, fields, action, submit) {
  const error = el("p", { class: "error", role: "alert", id: `${id}-error` });
  /** @type {Record<string, HTMLInputElement>} */
  const inputs = {};
  const node = el("form", { class: "account-form", id },
    fields.map((f) => {
      const input = el("input", {
        id: `${id}-${f.name}`, name: f.name, type: f.type || "text", autocomplete: f.autocomplete || "off",
        value: f.value || "", required: f.type !== "email",
      });
      inputs[f.name] = input;
      return el("label", {}, el("span", {}, f.label), input);
    }),
    el("button", { type: "submit", class: "btn primary", id: `${id}-submit` }, action),
    error);
  node.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    /** @type {Record<string, string>} */
    const values = {};
    for (const [name, input] of Object.entries(inputs)) values[name] = input.value;
    try {
      await submit(values);
    } catch (failure) {
      error.textContent = messageOf(failure);
    }
  });
  return node;
}

/** @param {HTMLElement} root @param {string[]} [next] the screen to go to afterwards @returns {null} */
export function signUpScreen(root, next = []) {
  root.append(el("div", { class: "card narrow" }, el("h1", {}, "Sign up"),
    el("p", { class: "muted" }, `A name (${NAME_RULE}) and a password of at least 8 characters. Your seats then follow you to every device you sign in on.`),
    form("signup", [
      { name: "name", label: "Name", autocomplete: "username" },
      { name: "password", label: "Password", type: "password", autocomplete: "new-password" },
    ], "Sign up", async ({ name, password }) => {
      signedAs(await api.signUp(name, password));
      toast(`Welcome, ${me.account?.name}`, "info");
      location.hash = returnTo(next);
    }),
    el("p", {}, "Already have an account? ", link(`#/signin${afterwards()}`, "Sign in"))));
  return null;
}

/** @param {HTMLElement} root @param {string[]} [next] the screen to go to afterwards @returns {null} */
export function signInScreen(root, next = []) {
  root.append(el("div", { class: "card narrow" }, el("h1", {}, "Sign in"),
    form("signin", [
      { name: "name", label: "Name", autocomplete: "username" },
      { name: "password", label: "Password", type: "password", autocomplete: "current-password" },
    ], "Sign in", async ({ name, password }) => {
      signedAs(await api.signIn(name, password));
      await refreshWaiting();
      location.hash = returnTo(next);
    }),
    el("p", {}, "No account? ", link(`#/signup${afterwards()}`, "Sign up"), " — or play as a guest:"),
    form("guest", [{ name: "guest", label: "Guest name", value: guestName() }], "Keep this guest name",
      async ({ guest }) => {
        const name = guest.trim();
        if (name.length < 3 || name.length > 24) throw new Error(`A name has ${NAME_RULE}.`);
        setGuestName(name);
        toast(`You play as ${name}`, "info");
      })));
  return null;
}

/** @param {HTMLElement} root @returns {null} */
export function accountScreen(root) {
  const account = me.account;
  if (!account) {
    root.append(el("div", { class: "card narrow" }, el("h1", {}, "Not signed in"),
      link("#/signin", "Sign in"), " ", link("#/signup", "Sign up")));
    return null;
  }
  const mail = el("input", { id: "turn-mail", type: "checkbox", checked: account.turn_mail });
  root.append(el("div", { class: "card narrow" }, el("h1", {}, account.name),
    el("p", { class: "muted" }, `Signed in since you made the account on ${new Date(account.created * 1000).toLocaleDateString()}.`),
    el("h2", {}, "Turn notices by e-mail"),
    el("label", { class: "check" }, mail, " Mail me when it is my turn (at most one mail per turn)"),
    form("mail", [{ name: "email", label: "E-mail address", type: "email", autocomplete: "email", value: account.email || "" }],
      "Save", async ({ email }) => {
        const answer = await api.settings({ email: email.trim() || null, turn_mail: mail.checked });
        me.account = answer.account;
        toast("Saved", "info");
      }),
    el("h2", {}, "Change password"),
    form("password", [
      { name: "old", label: "Present password", type: "password", autocomplete: "current-password" },
      { name: "new", label: "New password", type: "password", autocomplete: "new-password" },
    ], "Change password", async (values) => {
      await api.changePassword(values.old, values.new);
      toast("Password changed: your other devices are signed out", "info");
    }),
    el("h2", {}, "Sign out"),
    el("button", { id: "signout", class: "btn", onclick: async () => {
      try {
        signedAs(await api.signOut());
        location.hash = "#/";
      } catch (error) { toast(messageOf(error)); }
    } }, "Sign out"),
    el("h2", {}, "Delete the account"),
    el("p", { class: "muted" }, "Your games stay; your name in them becomes \u201cformer player\u201d."),
    form("delete", [{ name: "password", label: "Password", type: "password", autocomplete: "current-password" }],
      "Delete my account", async ({ password }) => {
        signedAs(await api.deleteAccount(password));
        toast("Your account is deleted", "info");
        location.hash = "#/";
      })));
  return null;
}


/** @param {MyGame} game */
function inboxRow(game) {
  const title = GAME_TITLES[game.game] || game.game;
  const players = game.players.map((_, seat) => nameAt(game, seat)).join(", ");
  let state = game.status;
  if (game.your_turn) state = "Your turn";
  else if (game.to_move !== null && (game.status === "open" || game.status === "running")) state = `Waiting for ${nameAt(game, game.to_move)}`;
  else if (game.status === "over" && game.result) {
    const first = game.result.find((r) => r.place === 1);
    state = first ? `Over: ${nameAt(game, first.seat)} won` : "Over";
  }
  const live = game.status === "open" || game.status === "running";
  return el("li", { class: `inbox-game${game.your_turn ? " your-turn" : ""}`, dataset: { id: game.id } },
    el("div", {}, el("strong", {}, title), game.rated ? [" ", ratedBadge(game.id)] : null, " · ", players),
    el("div", { class: "muted" }, `${state} · ${game.moves} ${game.moves === 1 ? "move" : "moves"} · ${new Date(game.updated * 1000).toLocaleString()}`),
    live ? link(`#/play/${game.id}`, game.your_turn ? "Play" : "Open", { class: "btn small" })
      : link(`#/replay/${game.id}`, "Replay", { class: "btn small" }));
}

/** @param {HTMLElement} root @returns {Screen} */
export function inboxScreen(root) {
  const list = el("ul", { class: "inbox", id: "inbox" }, el("li", { class: "muted" }, "Loading…"));
  root.append(el("div", { class: "card" }, el("h1", {}, "My games"), list));
  let alive = true;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  async function refresh() {
    if (!me.account) {
      put(list, el("li", {}, link("#/signin", "Sign in"), " to see your games on every device."));
      return;
    }
    try {
      const mine = await api.myGames();
      if (!alive) return;
      me.waiting = mine.your_turn;
      renderHeader();
      put(list, mine.games.length ? mine.games.map(inboxRow)
        : el("li", { class: "muted" }, "No games yet: start one in the ", el("a", { href: "#/" }, "lobby"), "."));
    } catch (error) {
      put(list, el("li", { class: "error" }, messageOf(error)));
    }
    if (alive) timer = setTimeout(refresh, 10000);
  }
  refresh();
  return { destroy() { alive = false; clearTimeout(timer); } };
}

/**
 * A "continue on another device" link: its one-time code is exchanged for the seat.
 * @param {HTMLElement} root
 * @param {string} id
 * @param {string} code
 * @returns {null}
 */
export function continueScreen(root, id, code) {
  root.append(el("div", { class: "card" }, el("p", { class: "muted" }, "Moving your seat to this device…")));
  api.continueHere(id, code).then(async (joined) => {
    remember(id, { token: joined.token, seat: joined.seat });
    if (!me.account) {
      // The same person on another device: this browser takes the seat's guest name.
      const seen = await api.view(id, joined.token).catch(() => null);
      const name = seen?.table.names?.[joined.seat];
      if (name) setGuestName(name);
    }
    location.replace(`#/play/${encodeURIComponent(id)}`);
  }).catch((error) => {
    put(root, el("div", { class: "card" }, el("h1", {}, "This link does not open a seat"),
      el("p", {}, messageOf(error)), link(`#/watch/${id}`, "Watch"), " ", link("#/", "Back to the lobby")));
  });
  return null;
}

/**
 * The "continue on another device" panel for a guest's seat: a one-time link and its QR code.
 * @param {string} id
 * @param {string} token
 */
export async function transferPanel(id, token) {
  const answer = await api.transfer(id, token);
  const image = el("img", {
    class: "qr", id: "transfer-qr", alt: "QR code of the link",
    src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(answer.qr_svg)}`,
  });
  const field = el("input", { id: "transfer-link", readonly: true, value: answer.link });
  return el("div", { class: "transfer" },
    el("p", {}, "Open this link on the other device (once, within the hour). This device then gives the seat up."),
    field,
    el("button", { class: "btn", onclick: () => { field.select(); navigator.clipboard?.writeText(answer.link).catch(() => {}); } }, "Copy"),
    image);
}
