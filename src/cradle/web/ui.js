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
