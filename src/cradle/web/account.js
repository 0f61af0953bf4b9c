// @ts-check
// Who is playing: the signed-in account (GET /api/me) or a guest with a name of their own (kept
// in this browser); the header's account links and "your turn" count; the sign-up, sign-in,
// password reset, address check, account and inbox pages (friends' invitations among them);
// the signed-in page's live connection (its inbox changed, its session ended elsewhere); and a
// guest's seat moved to another device by a one-time link.

import { AccountLive, api, setCsrf } from "./api.js";
import { GAME_TITLES } from "./games.js";
import { nameAt } from "./names.js";
import { remember } from "./state.js";
import { date, language, languageName, languages, list, setLanguage, t, tNodes } from "./i18n.js";
import { byId, dialog, el, fieldValue, link, messageOf, put, ratedBadge, toast } from "./ui.js";

/** @typedef {import("./types").AccountInfo} Account */
/** @typedef {import("./types").InvitationInfo} InvitationInfo */
/** @typedef {import("./types").SignedIn} Me */
/** @typedef {import("./types").MyGame} MyGame */
/** @typedef {import("./types").Screen} Screen */

const GUEST_KEY = "cradle.guest";

/** @type {{account: Account | null, known: boolean, waiting: number, invited: number}} */
export const me = { account: null, known: false, waiting: 0, invited: 0 };

/** @type {AccountLive | null} */
let live = null; // the signed-in page's own connection
let signingOut = false; // this page signs out: its own connection's notice says nothing new

/** @param {Me} answer */
function signedAs(answer) {
  me.account = answer.account;
  me.known = true;
  setCsrf(answer.csrf);
  renderHeader();
  if (answer.ended) signedOutHere(answer.ended);
  if (me.account && !live) {
    const current = new AccountLive({
      onInbox: () => {
        refreshWaiting();
        window.dispatchEvent(new CustomEvent("cradleinbox"));
      },
      onSignedOut: (reason) => {
        // This page's own sign-out (its connection closed already) says nothing new.
        if (live !== current || signingOut) return;
        live = null;
        loadMe().finally(() => signedOutHere(reason));
      },
    });
    live = current;
  } else if (!me.account && live) {
    live.close();
    live = null;
  }
  // A signed-in account reads its own language on every device.
  const chosen = answer.account?.language;
  if (chosen && chosen !== language() && languages().includes(chosen)) setLanguage(chosen);
}

/**
 * Say that this device was signed out elsewhere, and why (the password changed or was reset
 * on another device, or the account signed out there).
 * @param {string} reason
 */
function signedOutHere(reason) {
  if (me.account) return; // signed in again meanwhile
  const words = reason === "password" ? t("account.ended_password")
    : reason === "reset" ? t("account.ended_reset") : t("account.ended_other");
  dialog({
    title: t("account.ended_title"),
    id: "signed-out",
    body: [el("p", {}, words)],
    buttons: [{ label: t("account.sign_in"), kind: "primary", action: "signin", onclick: () => { location.hash = "#/signin"; } }],
    dismissable: true,
  });
  /** @type {HTMLElement | null} */ (document.querySelector("#signed-out button"))?.focus();
}

// A change refused as signed out while this page thinks it is signed in: ask who it is now.
window.addEventListener("cradleunauthorized", () => { if (me.account) loadMe(); });

/**
 * Ask the server who this browser is (after signing in or out; at start, `known` is the
 * answer already asked for, to choose the language by).
 * @param {Me | null} [known]
 */
export async function loadMe(known = null) {
  try {
    signedAs(known || await api.me());
  } catch {
    me.known = true;
    renderHeader();
  }
  await refreshWaiting();
}

/**
 * The language switch's and the account screen's choice: shown at once, remembered in this
 * browser, and a signed-in account's own from now on (its pages everywhere, its mails).
 * @param {string} tag
 */
export async function chooseLanguage(tag) {
  if (me.account) {
    try {
      me.account = (await api.settings({ language: tag })).account;
    } catch (error) {
      toast(messageOf(error));
    }
  }
  await setLanguage(tag);
}

/** The header's count of games waiting for this player's move, and of invitations. */
export async function refreshWaiting() {
  if (!me.account) {
    me.waiting = 0;
    me.invited = 0;
  } else {
    try {
      const [games, invited] = await Promise.all([api.myGames(), api.invitations()]);
      me.waiting = games.your_turn;
      me.invited = invited.invitations.length;
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
    name = t("account.guest_default", { number: String(Math.floor(1000 + Math.random() * 9000)) });
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
    const label = me.waiting ? t("account.your_turn_count", { count: me.waiting })
      : me.invited ? t("account.invited_count", { count: me.invited }) : t("account.my_games");
    put(slot,
      link("#/inbox", label, { id: "inbox-link", class: me.waiting || me.invited ? "btn waiting" : "btn" }),
      " ",
      link("#/friends", t("friends.title"), { id: "friends-link" }),
      " ",
      link("#/account", me.account.name, { id: "account-link" }));
  } else {
    put(slot,
      el("span", { class: "muted guest-name", title: t("account.guest_name_title") }, guestName()),
      " ",
      link(`#/signin${afterwards()}`, t("account.sign_in"), { id: "signin-link" }),
      " ",
      link(`#/signup${afterwards()}`, t("account.sign_up"), { id: "signup-link" }));
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
  root.append(el("div", { class: "card narrow" }, el("h1", {}, t("account.sign_up")),
    el("p", { class: "muted" }, t("account.sign_up_about")),
    form("signup", [
      { name: "name", label: t("account.name"), autocomplete: "username" },
      { name: "password", label: t("account.password"), type: "password", autocomplete: "new-password" },
      { name: "email", label: t("account.email_optional"), type: "email", autocomplete: "email" },
    ], t("account.sign_up"), async ({ name, password, email }) => {
      signedAs(await api.signUp(name, password, email.trim() || null));
      toast(t("account.welcome", { name: me.account?.name || "" }), "info");
      location.hash = me.account?.email ? "#/account" : returnTo(next);
    }),
    el("p", { class: "muted" }, t("account.email_about")),
    el("p", {}, tNodes("account.have_account", { link: link(`#/signin${afterwards()}`, t("account.sign_in")) }))));
  return null;
}

/** @param {HTMLElement} root @param {string[]} [next] the screen to go to afterwards @returns {null} */
export function signInScreen(root, next = []) {
  root.append(el("div", { class: "card narrow" }, el("h1", {}, t("account.sign_in")),
    form("signin", [
      { name: "name", label: t("account.name"), autocomplete: "username" },
      { name: "password", label: t("account.password"), type: "password", autocomplete: "current-password" },
    ], t("account.sign_in"), async ({ name, password }) => {
      signedAs(await api.signIn(name, password));
      await refreshWaiting();
      location.hash = returnTo(next);
    }),
    el("p", {}, link("#/forgot", t("account.forgot"), { id: "forgot-link", class: "" })),
    el("p", {}, tNodes("account.no_account", { link: link(`#/signup${afterwards()}`, t("account.sign_up")) })),
    form("guest", [{ name: "guest", label: t("account.guest_name"), value: guestName() }], t("account.keep_guest_name"),
      async ({ guest }) => {
        const name = guest.trim();
        if (name.length < 3 || name.length > 24) throw new Error(t("account.name_rule"));
        setGuestName(name);
        toast(t("account.you_play_as", { name }), "info");
      })));
  return null;
}

/** @param {HTMLElement} root @returns {null} */
export function accountScreen(root) {
  const account = me.account;
  if (!account) {
    root.append(el("div", { class: "card narrow" }, el("h1", {}, t("account.not_signed_in")),
      link("#/signin", t("account.sign_in")), " ", link("#/signup", t("account.sign_up"))));
    return null;
  }
  const mail = el("input", { id: "turn-mail", type: "checkbox", checked: account.turn_mail });
  const invites = el("input", { id: "invite-mail", type: "checkbox", checked: account.invite_mail });
  const check = el("div", { id: "address-check", "aria-live": "polite" });
  /** @param {Account} shown */
  function drawCheck(shown) {
    if (!shown.email) { put(check); return; }
    if (shown.email_verified) {
      put(check, el("p", { class: "ok" }, t("account.email_verified", { email: shown.email })));
      return;
    }
    put(check, el("p", { class: "warn" }, t("account.email_unverified", { email: shown.email })),
      el("button", { class: "btn", id: "send-check", onclick: async () => {
        try {
          await api.sendCheck();
          toast(t("account.check_sent", { email: shown.email || "" }), "info");
        } catch (error) { toast(messageOf(error)); }
      } }, t("account.send_check")));
  }
  drawCheck(account);
  root.append(el("div", { class: "card narrow" }, el("h1", {}, account.name),
    el("p", { class: "muted" }, t("account.made_on", { date: date(account.created * 1000) })),
    el("h2", {}, t("account.language_title")),
    el("label", { class: "account-language" }, el("span", {}, t("account.language_about")),
      el("select", { id: "account-language", onchange: (/** @type {Event} */ event) => chooseLanguage(fieldValue(event)) },
        languages().map((tag) => el("option", { value: tag, lang: tag, selected: tag === language() }, languageName(tag))))),
    el("h2", {}, t("account.turn_mail_title")),
    el("p", { class: "muted" }, t("account.mail_about")),
    el("label", { class: "check" }, mail, " ", t("account.turn_mail")),
    el("label", { class: "check" }, invites, " ", t("account.invite_mail")),
    form("mail", [{ name: "email", label: t("account.email"), type: "email", autocomplete: "email", value: account.email || "" }],
      t("account.save"), async ({ email }) => {
        const answer = await api.settings({ email: email.trim() || null, turn_mail: mail.checked, invite_mail: invites.checked });
        me.account = answer.account;
        drawCheck(answer.account);
        toast(answer.account.email && !answer.account.email_verified && answer.account.email !== account.email
          ? t("account.check_sent", { email: answer.account.email }) : t("account.saved"), "info");
      }),
    check,
    el("h2", {}, t("account.change_password")),
    form("password", [
      { name: "old", label: t("account.present_password"), type: "password", autocomplete: "current-password" },
      { name: "new", label: t("account.new_password"), type: "password", autocomplete: "new-password" },
    ], t("account.change_password"), async (values) => {
      await api.changePassword(values.old, values.new);
      toast(t("account.password_changed"), "info");
    }),
    el("h2", {}, t("account.sign_out")),
    el("button", { id: "signout", class: "btn", onclick: async () => {
      try {
        signingOut = true;
        try {
          signedAs(await api.signOut());
        } finally {
          signingOut = false;
        }
        location.hash = "#/";
      } catch (error) { toast(messageOf(error)); }
    } }, t("account.sign_out")),
    el("h2", {}, t("account.export_title")),
    el("p", { class: "muted" }, t("account.export_about")),
    el("a", { class: "btn", id: "export", href: "/api/me/export", download: `cradle-${account.name}.json` }, t("account.export")),
    el("h2", {}, t("account.delete_title")),
    el("p", { class: "muted" }, t("account.delete_about")),
    form("delete", [{ name: "password", label: t("account.password"), type: "password", autocomplete: "current-password" }],
      t("account.delete"), async ({ password }) => {
        signedAs(await api.deleteAccount(password));
        toast(t("account.deleted"), "info");
        location.hash = "#/";
      })));
  return null;
}


/** @param {MyGame} game */
function inboxRow(game) {
  const title = GAME_TITLES[game.game] || game.game;
  const players = list(game.players.map((_, seat) => nameAt(game, seat)));
  let state = t(`status.${game.status}`);
  if (game.your_turn) state = t("account.your_turn");
  else if (game.to_move !== null && (game.status === "open" || game.status === "running")) state = t("account.waiting_for", { name: nameAt(game, game.to_move) });
  else if (game.status === "over" && game.result) {
    const first = game.result.find((r) => r.place === 1);
    state = first ? t("account.over_won", { name: nameAt(game, first.seat) }) : t("status.over");
  }
  const live = game.status === "open" || game.status === "running";
  return el("li", { class: `inbox-game${game.your_turn ? " your-turn" : ""}`, dataset: { id: game.id } },
    el("div", {}, el("strong", {}, title), game.rated ? [" ", ratedBadge(game.id)] : null, " · ", players),
    el("div", { class: "muted" }, t("account.inbox_line", { state, moves: t("common.moves", { count: game.moves }), when: date(game.updated * 1000, { dateStyle: "medium", timeStyle: "short" }) })),
    live ? link(`#/play/${game.id}`, game.your_turn ? t("account.play") : t("account.open"), { class: "btn small" })
      : link(`#/replay/${game.id}`, t("common.replay"), { class: "btn small" }));
}

/**
 * A friend's invitation in the inbox: take the seat, or decline.
 * @param {InvitationInfo} invitation
 * @param {() => void} changed
 */
function invitationRow(invitation, changed) {
  const title = GAME_TITLES[invitation.game] || invitation.game;
  return el("li", { class: "inbox-game invitation", dataset: { id: invitation.id, game: invitation.game_id } },
    el("div", {}, el("strong", {}, t("account.invitation", { name: invitation.sender, game: title }))),
    el("div", { class: "muted" }, t(invitation.mode === "turn" ? "account.invitation_turn" : "account.invitation_live",
      { players: invitation.players, when: date(invitation.created * 1000, { dateStyle: "medium", timeStyle: "short" }) })),
    el("div", { class: "buttons" },
      el("button", { class: "btn small primary", "data-action": "accept", onclick: async () => {
        try {
          const joined = await api.acceptInvitation(invitation.id);
          remember(invitation.game_id, { token: joined.token, seat: joined.seat });
          location.hash = `#/play/${encodeURIComponent(invitation.game_id)}`;
        } catch (error) { toast(messageOf(error)); changed(); }
      } }, t("account.take_seat")),
      " ",
      el("button", { class: "btn small", "data-action": "decline", onclick: async () => {
        try {
          await api.declineInvitation(invitation.id);
        } catch (error) { toast(messageOf(error)); }
        changed();
      } }, t("account.decline"))));
}

/** @param {HTMLElement} root @returns {Screen} */
export function inboxScreen(root) {
  const list = el("ul", { class: "inbox", id: "inbox" }, el("li", { class: "muted" }, t("common.loading")));
  const invited = el("ul", { class: "inbox", id: "invitations" });
  const invitedCard = el("section", { id: "invitations-card", hidden: true },
    el("h2", {}, t("account.invitations")), invited);
  root.append(el("div", { class: "card" }, el("h1", {}, t("account.my_games")), invitedCard, list));
  let alive = true;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  async function refresh() {
    clearTimeout(timer);
    if (!me.account) {
      put(list, el("li", {}, tNodes("account.sign_in_to_see", { link: link("#/signin", t("account.sign_in")) })));
      return;
    }
    try {
      const [mine, invitations] = await Promise.all([api.myGames(), api.invitations()]);
      if (!alive) return;
      me.waiting = mine.your_turn;
      me.invited = invitations.invitations.length;
      renderHeader();
      invitedCard.hidden = !invitations.invitations.length;
      put(invited, invitations.invitations.map((i) => invitationRow(i, refresh)));
      put(list, mine.games.length ? mine.games.map(inboxRow)
        : el("li", { class: "muted" }, tNodes("account.no_games", { link: el("a", { href: "#/" }, t("account.lobby_link")) })));
    } catch (error) {
      put(list, el("li", { class: "error" }, messageOf(error)));
    }
    if (alive) timer = setTimeout(refresh, 10000);
  }
  refresh();
  window.addEventListener("cradleinbox", refresh);
  return { destroy() { alive = false; clearTimeout(timer); window.removeEventListener("cradleinbox", refresh); } };
}

/** @param {HTMLElement} root @returns {null} */
export function forgotScreen(root) {
  const done = el("p", { class: "ok", id: "forgot-done", role: "status" });
  const noMail = el("p", { class: "warn", id: "no-mail", hidden: true }, t("account.no_mail"));
  api.meta().then((meta) => { noMail.hidden = meta.mail !== false; }).catch(() => {});
  root.append(el("div", { class: "card narrow" }, el("h1", {}, t("account.forgot_title")),
    noMail,
    el("p", { class: "muted" }, t("account.forgot_about")),
    form("forgot", [{ name: "who", label: t("account.name_or_email"), autocomplete: "username" }],
      t("account.send_link"), async ({ who }) => {
        const given = who.trim();
        if (!given) throw new Error(t("account.name_or_email_needed"));
        await api.askReset(given.includes("@") ? { email: given } : { name: given });
        done.textContent = t("account.reset_sent");
      }),
    done,
    el("p", {}, link("#/signin", t("account.sign_in"), { class: "" }))));
  return null;
}

/**
 * A mailed reset link: a new password, then this device is signed in (every other is not).
 * @param {HTMLElement} root @param {string} code @returns {null}
 */
export function resetScreen(root, code) {
  root.append(el("div", { class: "card narrow" }, el("h1", {}, t("account.reset_title")),
    el("p", { class: "muted" }, t("account.reset_about")),
    form("reset", [{ name: "password", label: t("account.new_password"), type: "password", autocomplete: "new-password" }],
      t("account.reset_submit"), async ({ password }) => {
        signedAs(await api.reset(code, password));
        await refreshWaiting();
        toast(t("account.reset_done"), "info");
        location.replace("#/inbox");
      })));
  return null;
}

/**
 * A mailed address check: its link verifies the address.
 * @param {HTMLElement} root @param {string} code @returns {null}
 */
export function verifyScreen(root, code) {
  const card = el("div", { class: "card narrow", id: "verify" }, el("h1", {}, t("account.verify_title")),
    el("p", { class: "muted" }, t("common.loading")));
  root.append(card);
  api.verify(code).then(async (answer) => {
    if (me.account) signedAs(await api.me());
    put(card, el("h1", {}, t("account.verify_title")),
      el("p", { class: "ok", role: "status" }, t("account.verified", { email: answer.email })),
      me.account ? link("#/account", t("account.to_account")) : link("#/signin", t("account.sign_in")));
  }).catch((error) => {
    put(card, el("h1", {}, t("account.verify_title")), el("p", { class: "error", role: "alert" }, messageOf(error)),
      me.account ? link("#/account", t("account.to_account")) : link("#/", t("common.back_to_lobby")));
  });
  return null;
}

/**
 * A "continue on another device" link: its one-time code is exchanged for the seat.
 * @param {HTMLElement} root
 * @param {string} id
 * @param {string} code
 * @returns {null}
 */
export function continueScreen(root, id, code) {
  root.append(el("div", { class: "card" }, el("p", { class: "muted" }, t("account.moving_seat"))));
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
    put(root, el("div", { class: "card" }, el("h1", {}, t("account.link_no_seat")),
      el("p", {}, messageOf(error)), link(`#/watch/${id}`, t("common.watch")), " ", link("#/", t("common.back_to_lobby"))));
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
    class: "qr", id: "transfer-qr", alt: t("account.qr_alt"),
    src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(answer.qr_svg)}`,
  });
  const field = el("input", { id: "transfer-link", readonly: true, value: answer.link });
  return el("div", { class: "transfer" },
    el("p", {}, t("account.transfer_about")),
    field,
    el("button", { class: "btn", onclick: () => { field.select(); navigator.clipboard?.writeText(answer.link).catch(() => {}); } }, t("common.copy")),
    image);
}
