// @ts-check
// The chat of a table: its lines (each drawn as text, never as markup), a line to send, muting
// a speaker, and a count of the lines that came while the chat was out of sight. On a laptop
// it is a card beside the board; on a phone a sheet over the bottom of the screen, opened by a
// button that stays in a corner with the count (the board stays where it is).

import { api } from "./api.js";
import { nameAt, seatWord } from "./names.js";
import { date, t, tNodes } from "./i18n.js";
import { reportDialog } from "./report.js";
import { clear, el, messageOf, onEscape, put } from "./ui.js";

/** @typedef {import("./types").ChatLine} ChatLine */
/** @typedef {import("./types").ChatPage} ChatPage */

const MAX_CHARS = 500;
const KEPT = 300; // lines kept on screen (the oldest go first)

export class ChatPanel {
  /**
   * @param {string} id the game
   * @param {string | null} token the seat's, the hot seat's, or none (spectators)
   * @param {"seat" | "hotseat" | "spectator"} mode a seat or a spectator mutes for itself; a
   *   hot-seat screen is everybody's, so it mutes nobody
   */
  constructor(id, token, mode) {
    this.id = id;
    this.token = token;
    this.lastId = 0;
    /** @type {Set<number>} the lines on screen */
    this.seen = new Set();
    this.unread = 0;
    this.canMute = mode !== "hotseat";
    /** @type {number | null} this browser's seat */
    this.seat = null;
    /** @type {string | null} the speaker this browser's own lines are under (the server says) */
    this.you = null;
    /** @type {import("./types").Seating} the table's seats, to name a muted one */
    this.seating = { players: [] };
    this.stale = true; // the lines are to be read (at the start, after a reconnection)
    /** @type {Set<string>} */
    this.muted = new Set();
    /** @type {Map<string, string>} each speaker's name, for the muted list */
    this.names = new Map();
    this.visible = false;
    /** @type {(() => void) | null} stops closing the sheet on Escape */
    this.stopEscape = null;
    this.list = el("ol", { class: "chat-lines", id: "chat-lines", "aria-live": "polite" });
    // No maxlength: a longer paste would be cut without a word. The whole text stays in the
    // field, and a line over the limit says so and is not sent.
    this.input = el("input", {
      id: "chat-input", type: "text", autocomplete: "off",
      placeholder: t("chat.placeholder"), "aria-label": t("chat.input_label"),
      "aria-describedby": "chat-error", oninput: () => this.checkLength(),
    });
    this.error = el("p", { class: "chat-error error small", id: "chat-error", role: "status" });
    this.mutedNode = el("div", { class: "chat-muted small muted", id: "chat-muted" });
    this.form = el("form", { class: "chat-form", id: "chat-form", onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); this.send(); } },
      this.input, el("button", { class: "btn primary", type: "submit", id: "chat-send" }, t("chat.send")));
    this.count = el("span", { class: "chat-count", id: "chat-unread", hidden: true });
    this.node = el("section", { class: "card chat-card", id: "chat", hidden: true, "aria-label": t("chat.title") },
      el("div", { class: "chat-head" }, el("h2", { class: "section" }, t("chat.title")),
        el("button", { class: "btn small quiet chat-close", type: "button", id: "chat-close", onclick: () => this.open(false) }, t("common.close"))),
      this.list, this.error, this.form, this.mutedNode);
    this.toggle = el("button", { class: "btn chat-toggle", type: "button", id: "chat-toggle", hidden: true,
      "aria-controls": "chat", onclick: () => this.open(!this.node.classList.contains("open")) }, t("chat.title"), " ", this.count);
    // A line counts as seen while the chat is on screen.
    this.watcher = new IntersectionObserver((entries) => {
      this.visible = entries.some((entry) => entry.isIntersecting);
      if (this.visible) this.markRead();
    });
    this.watcher.observe(this.list);
    this.node.addEventListener("focusin", () => this.markRead());
  }

  /** Read the lines (again, after a reconnection: those that came meanwhile). */
  async load() {
    /** @type {ChatPage} */
    let page;
    try {
      page = await api.chat(this.id, this.token, this.lastId);
    } catch (error) {
      if (/** @type {{status?: number}} */ (error).status === 403) { this.hide(); return; }
      this.showError(messageOf(error));
      return;
    }
    this.node.hidden = false;
    this.toggle.hidden = false;
    this.form.hidden = !page.can_write;
    this.muted = new Set(page.muted);
    this.you = page.you ?? this.you;
    for (const [speaker, name] of Object.entries(page.names || {})) this.names.set(speaker, name);
    for (const line of page.lines) this.add(line, false);
    this.drawMuted();
  }

  hide() {
    this.node.hidden = true;
    this.toggle.hidden = true;
  }

  /**
   * A line pushed by the server (the WebSocket) or answered to this browser's own.
   * @param {ChatLine} line
   * @param {boolean} [fresh] it came now: counts as unread unless the chat is in sight
   */
  add(line, fresh = true) {
    if (this.seen.has(line.id)) return; // already shown (its answer and its push both come)
    this.seen.add(line.id);
    this.lastId = Math.max(this.lastId, line.id);
    this.names.set(line.speaker, line.name);
    const mine = (this.seat !== null && line.seat === this.seat) || line.speaker === this.you;
    const time = new Date(line.at * 1000);
    const row = el("li", { class: `chat-line${mine ? " mine" : ""}`, "data-speaker": line.speaker, "data-line": line.id },
      el("span", { class: "chat-time muted" }, date(time, { hour: "2-digit", minute: "2-digit" })),
      el("strong", { class: "chat-name" }, seatWord(line.name)),
      el("span", { class: "chat-text" }, line.text),
      mine ? null : el("span", { class: "chat-actions" },
        this.canMute ? el("button", {
          class: "btn small quiet chat-mute", type: "button", title: t("chat.mute_who", { name: seatWord(line.name) }),
          onclick: () => this.mute(line.speaker, true),
        }, t("chat.mute")) : null,
        el("button", {
          class: "btn small quiet chat-report", type: "button", title: t("report.line_who", { name: seatWord(line.name) }),
          onclick: () => this.report(line),
        }, t("report.report"))));
    const atBottom = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
    // In the order of the lines' ids, whatever order they arrived in.
    const later = [...this.list.children].find((li) => Number(/** @type {HTMLElement} */ (li).dataset.line) > line.id);
    if (later) later.before(row);
    else this.list.append(row);
    while (this.list.children.length > KEPT) this.list.firstElementChild?.remove();
    if (atBottom || mine) this.list.scrollTop = this.list.scrollHeight;
    if (fresh && !mine && !this.inSight()) {
      this.unread += 1;
      this.drawCount();
    }
  }

  /**
   * A frame of the table: who this browser is, the players' names, and whether it may read
   * the chat at all (a spectator only where the table lets spectators chat).
   * @param {import("./types").Frame} frame
   * @param {number | null} seat
   */
  sync(frame, seat) {
    this.seat = seat;
    this.seating = frame.table;
    if (!this.stale) return;
    this.stale = false;
    if (frame.table.screen === "spectator" && !frame.table.spectator_chat) this.hide();
    else this.load();
  }

  /** @param {string} speaker @returns {string} */
  nameOf(speaker) {
    const known = this.names.get(speaker);
    if (known) return known;
    if (speaker.startsWith("s:")) {
      const seat = Number(speaker.slice(2));
      if (seat >= 0 && seat < this.seating.players.length) return nameAt(this.seating, seat);
    }
    return speaker.startsWith("v:") ? t("chat.spectator", { number: speaker.slice(2) }) : speaker;
  }

  inSight() {
    if (this.node.hidden || document.hidden) return false;
    if (getComputedStyle(this.node).position === "fixed") return this.node.classList.contains("open");
    return this.visible;
  }

  markRead() {
    if (!this.unread) return;
    this.unread = 0;
    this.drawCount();
  }

  drawCount() {
    this.count.hidden = this.unread === 0;
    this.count.textContent = String(this.unread);
    this.toggle.setAttribute("aria-label", this.unread ? t("chat.unread", { count: this.unread }) : t("chat.title"));
  }

  /** @param {boolean} open */
  open(open) {
    this.node.classList.toggle("open", open);
    this.toggle.setAttribute("aria-expanded", String(open));
    this.stopEscape?.();
    this.stopEscape = null;
    if (!open) {
      if (this.node.contains(document.activeElement) && !this.toggle.hidden) this.toggle.focus({ preventScroll: true });
      return;
    }
    // The sheet over a phone's screen closes on Escape, like the player aid.
    if (getComputedStyle(this.node).position === "fixed") this.stopEscape = onEscape(() => { this.open(false); return true; });
    this.markRead();
    if (getComputedStyle(this.node).position !== "fixed") this.node.scrollIntoView({ block: "nearest" });
    this.list.scrollTop = this.list.scrollHeight;
    this.input.focus({ preventScroll: true });
  }

  /** Over the limit: say so while typing (or at once after a paste); false when too long. */
  checkLength() {
    const length = [...this.input.value.trim()].length;
    const over = length > MAX_CHARS;
    this.input.setAttribute("aria-invalid", over ? "true" : "false");
    if (over) this.showError(t("chat.too_long", { count: length, max: MAX_CHARS, over: length - MAX_CHARS }));
    else if (this.error.dataset.length) this.showError("");
    this.error.dataset.length = over ? "over" : "";
    return !over;
  }

  async send() {
    const text = this.input.value.trim();
    if (!text) return;
    if (!this.checkLength()) {
      this.input.focus();
      // The page may have moved since the field took the focus (a bot's move, the board's
      // map): the reason and the field it is about come back into sight together.
      this.input.scrollIntoView({ block: "nearest" });
      this.error.scrollIntoView({ block: "nearest" });
      return;
    }
    try {
      const line = await api.say(this.id, text, this.token);
      if (this.you !== line.speaker) { // a guest spectator is numbered when it first writes
        this.you = line.speaker;
        for (const row of this.list.querySelectorAll(`li[data-speaker="${CSS.escape(line.speaker)}"]`)) {
          row.classList.add("mine");
          row.querySelector(".chat-actions")?.remove();
        }
      }
      this.input.value = "";
      this.showError("");
      this.add(line, false);
    } catch (error) {
      this.showError(messageOf(error));
    }
  }

  /** @param {string} speaker @param {boolean} muted */
  async mute(speaker, muted) {
    try {
      const page = await api.mute(this.id, speaker, muted, this.token);
      this.muted = new Set(page.muted);
      this.you = page.you ?? this.you;
    for (const [speaker, name] of Object.entries(page.names || {})) this.names.set(speaker, name);
      clear(this.list);
      this.lastId = 0;
      this.seen.clear();
      for (const line of page.lines) this.add(line, false);
      this.drawMuted();
      this.showError("");
    } catch (error) {
      this.showError(messageOf(error));
    }
  }

  /**
   * Tell the operator about a line: what it said and why it is reported.
   * @param {ChatLine} line
   */
  report(line) {
    reportDialog({
      title: t("report.line_title"),
      about: t("report.line_about", { name: seatWord(line.name), text: line.text }),
      send: (reason) => api.reportLine(this.id, line.id, reason, this.token),
    });
  }

  drawMuted() {
    if (!this.muted.size) { clear(this.mutedNode); return; }
    const names = [...this.muted].map((speaker) => el("span", { class: "chat-muted-one" },
      seatWord(this.nameOf(speaker)), " ",
      el("button", { class: "btn small quiet", type: "button", "data-unmute": speaker, onclick: () => this.mute(speaker, false) }, t("chat.unmute"))));
    put(this.mutedNode, tNodes("chat.muted", { names }));
  }

  /** @param {string} message */
  showError(message) {
    this.error.textContent = message;
  }

  destroy() {
    this.stopEscape?.();
    this.watcher.disconnect();
    this.toggle.remove();
  }
}
