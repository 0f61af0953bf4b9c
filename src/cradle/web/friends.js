// @ts-check
// Friends (#/friends): add one by name (a request the other accepts), the requests one got and
// made, the friends with whether they are online and their tables in progress (join an open
// seat, or watch), and the people one blocks (no invitations, chat lines or requests from them).
// Also the table's "invite a friend by name" form (table.js shows it).

import { me, seatName } from "./account.js";
import { api } from "./api.js";
import { GAME_TITLES } from "./games.js";
import { t } from "./i18n.js";
import { remember } from "./state.js";
import { el, link, messageOf, put, toast } from "./ui.js";

/** @typedef {import("./types").FriendInfo} FriendInfo */
/** @typedef {import("./types").FriendList} FriendList */
/** @typedef {import("./types").Frame} Frame */
/** @typedef {import("./types").Screen} Screen */

/**
 * A small form of one name field and a button; `submit` gets the name and may throw.
 * @param {string} id
 * @param {string} label
 * @param {string} action
 * @param {(name: string) => Promise<void>} submit
 * @param {string} [list] the id of a datalist of names to offer
 */
export function nameForm(id, label, action, submit, list) {
  const input = el("input", { id: `${id}-name`, name: "name", autocomplete: "off", required: true, maxlength: 24, ...(list ? { list } : {}) });
  const error = el("p", { class: "error", role: "alert", id: `${id}-error` });
  const node = el("form", { class: "invite-friend", id },
    el("label", {}, el("span", {}, label), input),
    el("button", { type: "submit", class: "btn primary", id: `${id}-submit` }, action),
    error);
  node.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const name = input.value.trim();
    if (!name) return;
    try {
      await submit(name);
      input.value = "";
    } catch (failure) {
      error.textContent = messageOf(failure);
    }
  });
  return node;
}

/**
 * Take an open seat at a friend's table, then play there.
 * @param {string} id
 */
async function join(id) {
  try {
    const joined = await api.join(id, undefined, seatName());
    remember(id, { token: joined.token, seat: joined.seat });
    location.hash = `#/play/${encodeURIComponent(id)}`;
  } catch (error) {
    toast(messageOf(error));
  }
}

/**
 * One friend, with whether they are online and their tables.
 * @param {FriendInfo} friend
 * @param {(list: FriendList) => void} show
 */
function friendRow(friend, show) {
  const online = Boolean(friend.online);
  return el("li", { class: "friend", dataset: { name: friend.name } },
    el("span", { class: "who" },
      el("span", { class: `presence${online ? " online" : ""}`, role: "img", "aria-label": online ? t("friends.online") : t("friends.offline") }),
      el("strong", {}, friend.name),
      el("span", { class: "muted small" }, online ? t("friends.online") : t("friends.offline"))),
    el("span", { class: "buttons" },
      link(`#/player/${encodeURIComponent(friend.name)}`, t("friends.profile"), { class: "btn small" }),
      el("button", { class: "btn small", "data-action": "unfriend", onclick: async () => {
        try { show(await api.unfriend(friend.name)); } catch (error) { toast(messageOf(error)); }
      } }, t("friends.remove")),
      el("button", { class: "btn small", "data-action": "block", onclick: async () => {
        try { show(await api.block(friend.name)); } catch (error) { toast(messageOf(error)); }
      } }, t("friends.block"))),
    friend.tables?.length ? el("ul", { class: "friend-tables" }, friend.tables.map((table) =>
      el("li", {},
        el("span", {}, t("friends.table", { game: GAME_TITLES[table.game] || table.game, players: table.players })),
        table.status === "open" && table.free > 0
          ? el("button", { class: "btn small primary", "data-action": "join", onclick: () => join(table.id) },
            t("friends.join_table", { count: table.free }))
          : null,
        link(`#/watch/${encodeURIComponent(table.id)}`, t("common.watch"), { class: "btn small" })))) : null);
}

/** @param {HTMLElement} root @returns {Screen | null} */
export function friendsScreen(root) {
  if (!me.account) {
    root.append(el("div", { class: "card narrow" }, el("h1", {}, t("friends.title")),
      el("p", {}, t("friends.sign_in")), link("#/signin", t("account.sign_in"))));
    return null;
  }
  const asking = el("ul", { class: "friends", id: "friend-requests" });
  const friends = el("ul", { class: "friends", id: "friend-list" }, el("li", { class: "muted" }, t("common.loading")));
  const asked = el("ul", { class: "friends", id: "friends-asked" });
  const blocked = el("ul", { class: "friends", id: "blocked-list" });
  const requests = el("section", { id: "requests", hidden: true }, el("h2", {}, t("friends.requests")), asking);
  const waiting = el("section", { id: "asked", hidden: true }, el("h2", {}, t("friends.asked")), asked);
  const blocks = el("section", { id: "blocks", hidden: true }, el("h2", {}, t("friends.blocked")), blocked);

  /** @param {FriendList} list */
  function show(list) {
    requests.hidden = !list.asking.length;
    put(asking, list.asking.map((friend) => el("li", { dataset: { name: friend.name } },
      el("span", { class: "who" }, el("strong", {}, friend.name), el("span", { class: "muted small" }, t("friends.wants"))),
      el("span", { class: "buttons" },
        el("button", { class: "btn small primary", "data-action": "accept", onclick: async () => {
          try { show(await api.askFriend(friend.name)); } catch (error) { toast(messageOf(error)); }
        } }, t("friends.accept")),
        el("button", { class: "btn small", "data-action": "decline", onclick: async () => {
          try { show(await api.unfriend(friend.name)); } catch (error) { toast(messageOf(error)); }
        } }, t("account.decline")),
        el("button", { class: "btn small", "data-action": "block", onclick: async () => {
          try { show(await api.block(friend.name)); } catch (error) { toast(messageOf(error)); }
        } }, t("friends.block"))))));
    put(friends, list.friends.length ? list.friends.map((friend) => friendRow(friend, show))
      : el("li", { class: "muted" }, t("friends.none")));
    waiting.hidden = !list.asked.length;
    put(asked, list.asked.map((friend) => el("li", { dataset: { name: friend.name } },
      el("span", { class: "who" }, el("strong", {}, friend.name), el("span", { class: "muted small" }, t("friends.waiting"))),
      el("button", { class: "btn small", "data-action": "withdraw", onclick: async () => {
        try { show(await api.unfriend(friend.name)); } catch (error) { toast(messageOf(error)); }
      } }, t("friends.withdraw")))));
    blocks.hidden = !list.blocked.length;
    put(blocked, list.blocked.map((friend) => el("li", { dataset: { name: friend.name } },
      el("span", { class: "who" }, el("strong", {}, friend.name)),
      el("button", { class: "btn small", "data-action": "unblock", onclick: async () => {
        try { show(await api.unblock(friend.name)); } catch (error) { toast(messageOf(error)); }
      } }, t("friends.unblock")))));
  }

  root.append(el("div", { class: "card friends-card" }, el("h1", {}, t("friends.title")),
    el("p", { class: "muted" }, t("friends.about")),
    nameForm("add-friend", t("friends.add_label"), t("friends.add"), async (name) => {
      const answer = await api.askFriend(name);
      show(answer);
      toast(answer.status === "friends" ? t("friends.now_friends", { name }) : t("friends.request_sent", { name }), "info");
    }),
    requests,
    el("h2", {}, t("friends.list")),
    friends,
    waiting,
    blocks,
    el("h2", {}, t("friends.block_title")),
    el("p", { class: "muted" }, t("friends.block_about")),
    nameForm("block-someone", t("friends.block_label"), t("friends.block"), async (name) => {
      show(await api.block(name));
      toast(t("friends.blocked_now", { name }), "info");
    })));

  let alive = true;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  async function refresh() {
    clearTimeout(timer);
    try {
      const list = await api.friends();
      if (alive) show(list);
    } catch (error) {
      if (alive) put(friends, el("li", { class: "error" }, messageOf(error)));
    }
    if (alive) timer = setTimeout(refresh, 20000); // who is online changes by itself
  }
  refresh();
  window.addEventListener("cradleinbox", refresh);
  return { destroy() { alive = false; clearTimeout(timer); window.removeEventListener("cradleinbox", refresh); } };
}

/**
 * The table's "invite a friend by name" form: for a signed-in player at a table with a seat
 * nobody took yet. Its field offers the player's friends' names.
 * @param {string} id the game
 * @param {Frame} frame
 */
export function inviteFriendForm(id, frame) {
  const listId = "friend-names";
  const names = el("datalist", { id: listId });
  api.friends().then((list) => put(names, list.friends.map((f) => el("option", { value: f.name })))).catch(() => {});
  return el("div", { class: "friend-invite" },
    nameForm("invite-friend", t("friends.invite_label"), t("friends.invite"), async (name) => {
      const invited = await api.inviteFriend(id, name);
      toast(t("friends.invited", { name: invited.name }), "info");
    }, listId),
    names,
    frame.table.rated ? el("p", { class: "muted small" }, t("friends.invite_rated")) : null);
}
