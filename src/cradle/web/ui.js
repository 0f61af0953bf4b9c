// Small DOM helpers shared by every screen.

const SVG_NS = "http://www.w3.org/2000/svg";

/** An HTML element: el("div", {class: "x", onclick: f}, child, "text", ...). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

/** An SVG element, same calling convention as el(). */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

function setAttrs(node, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else if (key === "dataset") {
      Object.assign(node.dataset, value);
    } else {
      node.setAttribute(key, value === true ? "" : String(value));
    }
  }
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace the children of `node` with `children` (nested lists allowed). */
export function put(node, ...children) {
  clear(node);
  append(node, children);
  return node;
}

export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
}

let toastTimer = null;

/** A short message at the bottom of the screen (errors from the server, copied links...). */
export function toast(message, kind = "error") {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.className = `toast ${kind}`;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 4000);
}

export function setStatus(text) {
  document.getElementById("status").textContent = text || "";
}

/**
 * A decision panel: the same buttons as a dialog, but in the page (the side column on a laptop,
 * a sheet at the bottom of a phone), so that the board stays in view while deciding.
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
 * A modal dialog. `buttons` is a list of {label, action?, onclick?, kind?}; it resolves with
 * the chosen button. Only one dialog is open at a time: opening another closes the first.
 */
export function dialog({ title, body = [], buttons = [], dismissable = false, id = "dialog" }) {
  closeDialog();
  const panel = el("div", { class: "dialog", role: "dialog", "aria-modal": "true", id },
    el("h2", {}, title),
    el("div", { class: "dialog-body" }, body),
    el("div", { class: "dialog-buttons" },
      buttons.map((b) => el("button", {
        class: `btn ${b.kind || ""}`,
        "data-action": b.action,
        onclick: () => { if (!b.keepOpen) closeDialog(); b.onclick?.(); },
      }, b.label)),
      dismissable ? el("button", { class: "btn quiet", onclick: closeDialog }, "Close") : null),
  );
  const backdrop = el("div", { class: "backdrop", id: "backdrop" }, panel);
  document.body.append(backdrop);
  return panel;
}

export function closeDialog() {
  document.getElementById("backdrop")?.remove();
}

export function dialogOpen() {
  return Boolean(document.getElementById("backdrop"));
}

export function titleCase(word) {
  return word ? word[0].toUpperCase() + word.slice(1) : word;
}

/** A sentence with its first letter a capital. */
export function capitalised(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/** A link that looks like a button. */
export function link(href, label, attrs = {}) {
  return el("a", { class: "btn", href, ...attrs }, label);
}

// -- icons -------------------------------------------------------------------------------------
// Drawn, not typed: a glyph like ⏮ is missing from many fonts and shows as an empty box.

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
  close: "M5,6.5 l1.5,-1.5 l5.5,5.5 l5.5,-5.5 l1.5,1.5 l-5.5,5.5 l5.5,5.5 l-1.5,1.5 l-5.5,-5.5 l-5.5,5.5 l-1.5,-1.5 l5.5,-5.5 z",
};

/** A small inline icon (24x24 box), coloured like the text around it. */
export function icon(name, size = 18) {
  return svg("svg", { viewBox: "0 0 24 24", width: size, height: size, class: `icon icon-${name}`, "aria-hidden": "true" },
    svg("path", { d: ICONS[name], fill: "currentColor" }));
}

/** A button with an icon and an accessible name (and the name as text when `label` is set). */
export function iconButton(name, title, attrs = {}, label = null) {
  return el("button", { class: "btn icon-btn", title, "aria-label": title, ...attrs }, icon(name), label);
}

// -- the tab's title and a sound when it becomes your turn ----------------------------------------

const BASE_TITLE = "cradle: Tigris & Euphrates and Gheos";

export function setTitle(text) {
  document.title = text ? `${text} · cradle` : BASE_TITLE;
}

const SOUND_KEY = "cradle.sound";

export function soundOn() {
  return localStorage.getItem(SOUND_KEY) === "on";
}

export function setSound(on) {
  localStorage.setItem(SOUND_KEY, on ? "on" : "off");
}

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

export function percent(x) {
  return `${Math.round(100 * x)}%`;
}
