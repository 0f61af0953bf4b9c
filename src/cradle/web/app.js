// @ts-check
// The web client's entry: the router. Each screen is a module of its own; the address's hash
// names the screen and its arguments (tokens live in this browser's localStorage, never in a URL):
//   #/                      lobby and new table                    lobby.js
//   #/play/ID               this browser's seat at the game        table.js
//   #/invite/ID/CODE        an invite link: the one-time code is exchanged for the seat
//   #/hotseat/ID            one screen for every human at the table
//   #/watch/ID              spectators (public view only)
//   #/replay/ID             step through a finished game           replay.js
//   #/analysis/ID           a finished game's analysis             analysis.js
//   #/ratings[/GAME[/N]]    the leaderboard of a game (N players)  ratings.js
//   #/player/NAME           a player's profile and rating chart    ratings.js
//   #/learn, #/learn/GAME   the guided first games                 tutorial.js
//   #/rules/GAME            a game's rules, with pictures          rules.js
//   #/unsubscribe/CODE      a turn mail's "no more mails" link     table.js
//   #/signup, #/signin      an account; a guest's name                account.js
//   #/signin/play/ID        ... then back to that screen (any screen a sign-in may return to)
//   #/account               the account: e-mail notices, password, sign out, export, delete
//   #/forgot                ask for a password reset link by mail
//   #/reset/CODE            a mailed reset link: a new password
//   #/verify/CODE           a mailed address check
//   #/inbox                 friends' invitations, the signed-in player's games ("your turn" first)
//   #/friends               friends (online, their tables), requests, blocks      friends.js
//   #/continue/ID/CODE      a guest's seat moved here by a one-time link
// (#/play/ID/TOKEN and #/hotseat/ID/TOKEN still open: the token is stored, the URL replaced.)
// A new screen is a module with a function that draws it into the page and returns
// {destroy()} (or null when it holds nothing to stop), and a line in ROUTES.

import {
  accountScreen, chooseLanguage, continueScreen, forgotScreen, inboxScreen, loadMe, refreshWaiting, resetScreen,
  signInScreen, signUpScreen, verifyScreen,
} from "./account.js";
import { api } from "./api.js";
import { friendsScreen } from "./friends.js";
import { analysisScreen } from "./analysis.js";
import { lobbyScreen } from "./lobby.js";
import { playerScreen, ratingsScreen } from "./ratings.js";
import { replayScreen } from "./replay.js";
import { rulesScreen } from "./rules.js";
import { remember, rememberShare } from "./state.js";
import { inviteScreen, seatScreen, tableScreen, unsubscribeScreen } from "./table.js";
import { learnScreen } from "./tutorial.js";
import { language, languageName, languages, startLanguage, t } from "./i18n.js";
import { byId, clear, closeDialog, el, fieldValue, put, setStatus, setTitle } from "./ui.js";

/** @typedef {import("./types").Route} Route */
/** @typedef {import("./types").Screen} Screen */

/**
 * The screens by the hash's first word: how many words they need after it, and how to open.
 * @type {Record<string, Route>}
 */
const ROUTES = {
  signup: { needs: 0, open: (root, next) => signUpScreen(root, next) },
  signin: { needs: 0, open: (root, next) => signInScreen(root, next) },
  account: { needs: 0, open: (root) => accountScreen(root) },
  inbox: { needs: 0, open: (root) => inboxScreen(root) },
  forgot: { needs: 0, open: (root) => forgotScreen(root) },
  reset: { needs: 1, open: (root, [code]) => resetScreen(root, code) },
  verify: { needs: 1, open: (root, [code]) => verifyScreen(root, code) },
  friends: { needs: 0, open: (root) => friendsScreen(root) },
  continue: { needs: 2, open: (root, [id, code]) => continueScreen(root, id, code) },
  invite: { needs: 2, open: (root, [id, code]) => inviteScreen(root, id, code) },
  play: { needs: 1, open: (root, [id]) => seatScreen(root, id, "seat") },
  hotseat: { needs: 1, open: (root, [id]) => seatScreen(root, id, "hotseat") },
  watch: { needs: 1, open: (root, [id]) => tableScreen(root, id, null, "spectator") },
  // A private game's link from one of its players carries its share key after the id.
  replay: { needs: 1, open: (root, [id, key]) => { if (key) rememberShare(id, key); return replayScreen(root, id); } },
  analysis: { needs: 1, open: (root, [id, key]) => { if (key) rememberShare(id, key); return analysisScreen(root, id); } },
  unsubscribe: { needs: 1, open: (root, [code]) => unsubscribeScreen(root, code) },
  ratings: { needs: 0, open: (root, [game, players]) => ratingsScreen(root, game, players) },
  player: { needs: 1, open: (root, [name]) => playerScreen(root, name) },
  learn: { needs: 0, open: (root, [game]) => learnScreen(root, game) },
  rules: { needs: 0, open: (root, [game]) => rulesScreen(root, game) },
};

const app = byId("app");
/** @type {Screen | null} */
let current = null; // the screen being shown

function route() {
  current?.destroy();
  current = null;
  closeDialog();
  setStatus("");
  setTitle("");
  clear(app);
  // A new screen opens at its top: the last one's scroll (the lobby's form, scrolled down to
  // its button) would otherwise leave the new one's first card (an invite's links) above view.
  window.scrollTo(0, 0);
  const [page, ...args] = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  const [id, secret] = args;
  if ((page === "play" || page === "hotseat") && id && secret) {
    // An old-style link: keep the token here and take it out of the address and history.
    remember(id, page === "play" ? { token: secret } : { table_token: secret });
    location.replace(`#/${page}/${encodeURIComponent(id)}`);
    return;
  }
  const found = Object.hasOwn(ROUTES, page) ? ROUTES[page] : null;
  const complete = found !== null && args.length >= found.needs && args.slice(0, found.needs).every(Boolean);
  current = found && complete ? found.open(app, args) : lobbyScreen(app);
}

/** The page's fixed parts in the language, and the language switch. */
function drawChrome() {
  for (const node of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-i18n]"))) {
    node.textContent = t(node.dataset.i18n || "");
  }
  for (const node of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-i18n-label]"))) {
    node.setAttribute("aria-label", t(node.dataset.i18nLabel || ""));
  }
  const select = /** @type {HTMLSelectElement} */ (byId("language"));
  put(select, languages().map((tag) => el("option", { value: tag, lang: tag, selected: tag === language() }, languageName(tag))));
  select.onchange = (event) => { chooseLanguage(fieldValue(event)); };
}

// The first screen opens once the language is known; an address changed before that (a link
// followed while the page starts) is the one it opens: never two screens for one address.
let started = false;
window.addEventListener("hashchange", () => { if (started) { route(); refreshWaiting(); } });
// A new language redraws everything at once: the fixed parts, the header, the screen.
window.addEventListener("cradlelanguage", () => { drawChrome(); if (started) { route(); refreshWaiting(); } });
// Who this browser is first (a signed-in account's language is its own), then the language
// (every word goes through it), then the header and the screen.
api.me().catch(() => null).then(async (known) => {
  await startLanguage(known?.account?.language);
  drawChrome();
  await loadMe(known);
}).finally(() => { started = true; route(); });
