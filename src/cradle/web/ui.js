// @ts-check
// Small DOM helpers shared by every screen.

import { percentage, t } from "./i18n.js";

/** @typedef {import("./types").Attrs} Attrs */
/** @typedef {import("./types").Child} Child */
/** @typedef {import("./types").DialogButton} DialogButton */

const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * An HTML element: el("div", {class: "x", onclick: f}, child, "text", ...).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs} [attrs]
 * @param {Child[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

/**
 * An SVG element, same calling convention as el().
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs} [attrs]
 * @param {Child[]} children
 * @returns {SVGElementTagNameMap[K]}
 */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

/** @param {HTMLElement | SVGElement} node @param {Attrs} attrs */
function setAttrs(node, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    } else if (key === "dataset") {
      Object.assign(node.dataset, value);
    } else {
      node.setAttribute(key, value === true ? "" : String(value));
    }
  }
}

/** @param {Node & ParentNode} node @param {readonly Child[]} children */
function append(node, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (child instanceof Node) node.append(child);
    else if (typeof child === "object") append(node, child);
    else node.append(document.createTextNode(String(child)));
  }
}

/**
 * Replace the children of `node` with `children` (nested lists allowed).
 * @template {Node & ParentNode} N
 * @param {N} node
 * @param {Child[]} children
 * @returns {N}
 */
export function put(node, ...children) {
  clear(node);
  append(node, children);
  return node;
}

/** @template {Node} N @param {N} node @returns {N} */
export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer;

/**
 * The page's element of that id (index.html's fixed parts).
 * @param {string} id
 */
export function byId(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node;
}

/**
 * A short message at the bottom of the screen (errors from the server, copied links...).
 * @param {string} message
 * @param {"error" | "info"} [kind]
 */
export function toast(message, kind = "error") {
  const box = byId("toast");
  box.textContent = message;
  box.className = `toast ${kind}`;
  box.hidden = false;
  clearTimeout(toastTimer);
  // a confirmation is short; an error stays longer
  toastTimer = setTimeout(() => { box.hidden = true; }, kind === "info" ? 2000 : 4000);
}

/** @type {Set<() => boolean>} what Escape closes when no dialog is open (true: it closed) */
const escapes = new Set();

/**
 * Close something on Escape (when no dialog is open): `close` answers whether it closed.
 * @param {() => boolean} close
 * @returns {() => void} stops listening
 */
export function onEscape(close) {
  escapes.add(close);
  return () => { escapes.delete(close); };
}

/** A toast belongs to the screen it was shown on (a tap also dismisses it). */
/**
 * Put a link on the clipboard, and say so (or that it is to be copied by hand).
 * @param {string} text
 */
export async function copyLink(text) {
  try {
    await navigator.clipboard.writeText(text);
    toast(t("table.copied"), "info");
  } catch {
    toast(t("table.copy_by_hand"), "info");
  }
}

export function dismissToast() {
  clearTimeout(toastTimer);
  const box = document.getElementById("toast");
  if (box) box.hidden = true;
}
if (typeof window !== "undefined") { // not in Node, where the pure helpers are tested
  window.addEventListener("hashchange", dismissToast);
  // Escape closes a dialog that may be closed (not one that waits for a choice, like the hot
  // seat's cover), else what registered to close on it (the player aid, the chat sheet).
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.defaultPrevented) return;
    const backdrop = document.getElementById("backdrop");
    if (backdrop) {
      if (backdrop.dataset.dismissable === "yes") { event.preventDefault(); closeDialog(); }
      return;
    }
    for (const close of [...escapes].reverse()) {
      if (close()) { event.preventDefault(); return; }
    }
  });
  document.addEventListener("click", (event) => {
    if (event.target instanceof Element && event.target.id === "toast") dismissToast();
  });
}

/**
 * The connection's state in the top bar ("" when all is well).
 * @param {string} text
 */
export function setStatus(text) {
  byId("status").textContent = text || "";
}

/**
 * A decision panel: the same buttons as a dialog, but in the page (the side column on a laptop,
 * a sheet at the bottom of a phone), so that the board stays in view while deciding.
 * @param {HTMLElement} container
 * @param {{title: string, body?: Child[], buttons?: DialogButton[], id?: string, kind?: string}} panel
 */
export function panel(container, { title, body = [], buttons = [], id = "decision", kind = "" }) {
  const node = el("div", { class: `card decision-panel ${kind}`, id, role: "region", "aria-label": title },
    el("h2", {}, title),
    el("div", { class: "dialog-body" }, body),
    el("div", { class: "dialog-buttons" },
      buttons.map((b) => el("button", {
        class: `btn ${b.kind || ""}`,
        "data-action": b.action,
        onclick: () => b.onclick?.(),
      }, b.label))));
  put(container, node);
  return node;
}

/**
 * A modal dialog. `buttons` is a list of {label, action?, onclick?, kind?}; a click closes the
 * dialog (unless `keepOpen`) and calls `onclick`. Only one dialog is open at a time: opening
 * another closes the first.
 * @param {{title: string, body?: Child[], buttons?: DialogButton[], dismissable?: boolean, id?: string}} dialog
 */
export function dialog({ title, body = [], buttons = [], dismissable = false, id = "dialog" }) {
  const active = document.activeElement;
  const opener = document.getElementById("backdrop") ? returnFocus
    : active instanceof HTMLElement ? { node: active, selector: focusSelector(active) }
      : active instanceof SVGElement ? { node: active, selector: null } : null;
  closeDialog();
  returnFocus = opener;
  const panel = el("div", { class: "dialog", role: "dialog", "aria-modal": "true", "aria-labelledby": `${id}-title`, id },
    el("h2", { id: `${id}-title` }, title),
    el("div", { class: "dialog-body" }, body),
    el("div", { class: "dialog-buttons" },
      buttons.map((b) => el("button", {
        class: `btn ${b.kind || ""}`,
        "data-action": b.action,
        onclick: () => { if (!b.keepOpen) closeDialog(); b.onclick?.(); },
      }, b.label)),
      dismissable ? el("button", { class: "btn quiet", onclick: closeDialog }, t("common.close")) : null),
  );
  const backdrop = el("div", { class: "backdrop", id: "backdrop", "data-dismissable": dismissable ? "yes" : "no" }, panel);
  backdrop.addEventListener("keydown", (event) => trapTab(panel, event));
  document.body.append(backdrop);
  // The keyboard goes to the dialog: its first button (a screen reader reads the title with it).
  const first = /** @type {HTMLElement | null} */ (panel.querySelector(FOCUSABLE));
  first?.focus({ preventScroll: true });
  return panel;
}

/**
 * Keep the keyboard's place across a redraw of `root`: the control that has the focus now is
 * drawn anew (same id, or same data attributes and rank), so the returned function gives the
 * focus to its new drawing (when the old one left the page and nothing else took the focus).
 * @param {Element} root
 * @returns {() => void}
 */
export function rememberFocus(root) {
  const active = document.activeElement;
  if (!(active instanceof HTMLElement) || !root.contains(active)) return () => {};
  const selector = focusSelector(active);
  const rank = [...root.querySelectorAll(selector)].indexOf(active);
  return () => {
    if (active.isConnected) return;
    if (document.activeElement && document.activeElement !== document.body) return;
    const all = /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(selector));
    all[Math.min(rank, all.length - 1)]?.focus({ preventScroll: true });
  };
}

/**
 * What tells a control from the others after a redraw: its id, else its tag, classes and data.
 * @param {HTMLElement} node
 */
function focusSelector(node) {
  if (node.id) return `#${CSS.escape(node.id)}`;
  const classes = [...node.classList].filter((c) => c !== "selected").map((c) => `.${CSS.escape(c)}`).join("");
  const data = Object.entries(node.dataset)
    .map(([key, value]) => `[data-${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}="${CSS.escape(value || "")}"]`).join("");
  return `${node.tagName.toLowerCase()}${classes}${data}`;
}

/** What may take the keyboard's focus in a dialog. */
const FOCUSABLE = "button:not([disabled]), a[href], input:not([disabled]), select:not([disabled]), textarea, [tabindex='0']";

/**
 * What had the focus before the dialog opened, and how to find its new drawing (the screen
 * may have been drawn anew meanwhile).
 * @type {{node: HTMLElement | SVGElement, selector: string | null} | null}
 */
let returnFocus = null;

/**
 * Tab and Shift+Tab go round the dialog's controls: the page under a modal dialog is out of reach.
 * @param {HTMLElement} panel
 * @param {KeyboardEvent} event
 */
function trapTab(panel, event) {
  if (event.key !== "Tab") return;
  const all = /** @type {HTMLElement[]} */ ([...panel.querySelectorAll(FOCUSABLE)]);
  if (!all.length) return;
  const first = all[0];
  const last = all[all.length - 1];
  if (event.shiftKey && document.activeElement === first) { event.preventDefault(); last.focus(); }
  else if (!event.shiftKey && document.activeElement === last) { event.preventDefault(); first.focus(); }
}

export function closeDialog() {
  const backdrop = document.getElementById("backdrop");
  if (!backdrop) return;
  const hadFocus = backdrop.contains(document.activeElement);
  backdrop.remove();
  // The focus goes back where it was when the dialog opened, while that is still on the page.
  const back = returnFocus;
  returnFocus = null;
  if (!hadFocus || !back) return;
  const found = back.node.isConnected ? back.node
    : back.selector ? /** @type {HTMLElement | null} */ (document.querySelector(back.selector)) : null;
  found?.focus({ preventScroll: true });
}

export function dialogOpen() {
  return Boolean(document.getElementById("backdrop"));
}

/**
 * A word with its first letter a capital ("archer": "Archer").
 * @param {string} word
 */
export function titleCase(word) {
  return word ? word[0].toUpperCase() + word.slice(1) : word;
}

/**
 * The badge of a rated game (the lobby's rows, the inbox): its end moves the players' ratings.
 * @param {string} id the game's
 */
export function ratedBadge(id) {
  const about = t("common.rated_about");
  return el("span", { class: "badge rated", "data-rated": id, title: about, "aria-label": about, role: "img" }, t("common.rated_badge"));
}

/**
 * The message of something thrown (an ApiError says the server's reason).
 * @param {unknown} error
 */
export function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The value of the form field (input, select) an event comes from.
 * @param {Event} event
 */
export function fieldValue(event) {
  return /** @type {HTMLInputElement | HTMLSelectElement} */ (event.target).value;
}

/**
 * Whether the checkbox an event comes from is ticked.
 * @param {Event} event
 */
export function fieldChecked(event) {
  return /** @type {HTMLInputElement} */ (event.target).checked;
}

/**
 * A sentence with its first letter a capital.
 * @param {string} text
 */
export function capitalised(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/**
 * A link that looks like a button.
 * @param {string} href
 * @param {string} label
 * @param {Attrs} [attrs]
 */
export function link(href, label, attrs = {}) {
  return el("a", { class: "btn", href, ...attrs }, label);
}

// -- icons -------------------------------------------------------------------------------------
// Drawn, not typed: a glyph like ⏮ is missing from many fonts and shows as an empty box.

/** @type {Record<string, string>} */
const ICONS = {
  first: "M5,4 h2.5 v16 h-2.5 z M20,4 v16 l-11,-8 z",
  prev: "M17,4 v16 l-11,-8 z",
  play: "M7,4 v16 l12,-8 z",
  pause: "M6,4 h4 v16 h-4 z M14,4 h4 v16 h-4 z",
  next: "M7,4 v16 l11,-8 z",
  last: "M16.5,4 h2.5 v16 h-2.5 z M4,4 v16 l11,-8 z",
  turn: "M12,5 a7,7 0 1,0 7,7 h-2.5 a4.5,4.5 0 1,1 -4.5,-4.5 v2.5 l5,-3.75 l-5,-3.75 z",
  bell: "M12,3 a5.5,5.5 0 0,1 5.5,5.5 v4.5 l2,3.5 h-15 l2,-3.5 v-4.5 a5.5,5.5 0 0,1 5.5,-5.5 z M9.5,18 h5 a2.5,2.5 0 0,1 -5,0 z",
  bulb: "M12,2.5 a6.5,6.5 0 0,1 3.8,11.8 v2.7 h-7.6 v-2.7 a6.5,6.5 0 0,1 3.8,-11.8 z M8.5,18.5 h7 v1.5 h-7 z M9.5,21 h5 v1 h-5 z",
  chart: "M3,20 h18 v1.5 h-18 z M4,17 l5,-6 l4,3 l6,-9 l1.5,1 l-7,10.5 l-4,-3 l-4,4.8 z",
  back: "M10,5 v4 h10 v6 h-10 v4 l-7,-7 z",
  fit: "M3,3 h7 v2 h-5 v5 h-2 z M21,3 v7 h-2 v-5 h-5 v-2 z M3,21 v-7 h2 v5 h5 v2 z M21,21 h-7 v-2 h5 v-5 h2 z",
  flag: "M5,3 h2 v18 h-2 z M8,4 h11 l-3,4.5 l3,4.5 h-11 z",
  close: "M5,6.5 l1.5,-1.5 l5.5,5.5 l5.5,-5.5 l1.5,1.5 l-5.5,5.5 l5.5,5.5 l-1.5,1.5 l-5.5,-5.5 l-5.5,5.5 l-1.5,-1.5 l5.5,-5.5 z",
};

/**
 * A small inline icon (24x24 box), coloured like the text around it.
 * @param {string} name
 */
export function icon(name, size = 18) {
  return svg("svg", { viewBox: "0 0 24 24", width: size, height: size, class: `icon icon-${name}`, "aria-hidden": "true" },
    svg("path", { d: ICONS[name], fill: "currentColor" }));
}

/**
 * A button with an icon and an accessible name (and the name as text when `label` is set).
 * @param {string} name
 * @param {string} title
 * @param {Attrs} [attrs]
 * @param {string | null} [label]
 */
export function iconButton(name, title, attrs = {}, label = null) {
  return el("button", { class: "btn icon-btn", title, "aria-label": title, ...attrs }, icon(name), label);
}

// -- the tab's title and a sound when it becomes your turn ----------------------------------------

/**
 * The tab's title ("" for the plain one).
 * @param {string} text
 */
export function setTitle(text) {
  document.title = text ? t("common.tab_title", { text }) : t("common.site_title");
}

const SOUND_KEY = "cradle.sound";

export function soundOn() {
  return localStorage.getItem(SOUND_KEY) === "on";
}

/** @param {boolean} on */
export function setSound(on) {
  localStorage.setItem(SOUND_KEY, on ? "on" : "off");
}

/** @type {AudioContext | null} */
let audio = null;

/** Two soft notes (WebAudio: no sound file to fetch). Browsers allow it after a first click. */
export function chime() {
  if (!soundOn()) return;
  try {
    audio ||= new AudioContext();
    const now = audio.currentTime;
    for (const [i, pitch] of [660, 880].entries()) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = pitch;
      gain.gain.setValueAtTime(0.0001, now + i * 0.16);
      gain.gain.exponentialRampToValueAtTime(0.12, now + i * 0.16 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.16 + 0.3);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + i * 0.16);
      osc.stop(now + i * 0.16 + 0.32);
    }
  } catch {
    // no audio device: the title still says it
  }
}

/**
 * A share as a whole percentage ("42%").
 * @param {number} x
 */
export function percent(x) {
  return percentage(x);
}

/**
 * Scroll the page (and any scrolled box around it) the least that shows `node` whole, when it
 * is not already in the viewport: feedback must never land off-screen (a phone's board pushes
 * the panels far below).
 * @param {Element} node
 */
export function bringIntoView(node) {
  const box = node.getBoundingClientRect();
  const inside = box.top >= 0 && box.left >= 0 && box.bottom <= window.innerHeight && box.right <= window.innerWidth;
  if (!inside) node.scrollIntoView({ block: box.height > window.innerHeight ? "start" : "nearest", inline: "nearest" });
}
