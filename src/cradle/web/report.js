// @ts-check
// Telling the operator about a chat line or a player (the operator reads reports with
// `cradle admin reports`), and passing a private game on to others once it is over.

import { api } from "./api.js";
import { t } from "./i18n.js";
import { closeDialog, copyLink, dialog, el, messageOf, toast } from "./ui.js";

const MAX_CHARS = 500; // a report's reason follows a chat line's rules

/**
 * Ask what is wrong and send it; a refusal (too many reports, a bad character) is said in the
 * dialog, which stays open with the words typed.
 * @param {{title: string, about: string, send: (reason: string) => Promise<unknown>}} report
 */
export function reportDialog({ title, about, send }) {
  const error = el("p", { class: "error small", id: "report-error", role: "status" });
  const reason = el("textarea", { id: "report-reason", rows: 3, "aria-describedby": "report-error",
    oninput: () => { error.textContent = ""; } });
  const field = /** @type {HTMLTextAreaElement} */ (reason);
  async function submit() {
    const text = field.value.trim();
    const length = [...text].length;
    if (!text) { error.textContent = t("report.empty"); field.focus(); return; }
    if (length > MAX_CHARS) {
      error.textContent = t("chat.too_long", { count: length, max: MAX_CHARS, over: length - MAX_CHARS });
      field.focus();
      return;
    }
    try {
      await send(text);
    } catch (refused) {
      error.textContent = messageOf(refused);
      return;
    }
    closeDialog();
    toast(t("report.sent"), "info");
  }
  dialog({
    id: "report",
    title,
    body: [
      el("p", { class: "muted", id: "report-about" }, about),
      el("label", { class: "field" }, t("report.reason"), reason),
      error,
    ],
    buttons: [{ label: t("report.send"), kind: "primary", action: "report", keepOpen: true, onclick: submit }],
    dismissable: true,
  });
  field.focus();
}

/**
 * A finished private game's link for its players to pass on: whoever opens it reads the
 * replay and the analysis (the key goes with it; the server checks it).
 * @param {string} id
 * @param {string | null} token this browser's seat's
 */
export async function shareDialog(id, token) {
  let key;
  try {
    key = (await api.share(id, token)).key;
  } catch (error) {
    toast(messageOf(error));
    return;
  }
  const url = `${location.origin}/#/replay/${encodeURIComponent(id)}/${key}`;
  dialog({
    id: "share",
    title: t("share.title"),
    body: [
      el("p", { class: "muted" }, t("share.about")),
      el("input", { readonly: true, value: url, id: "share-link", "aria-label": t("share.link"),
        onclick: (/** @type {Event} */ e) => /** @type {HTMLInputElement} */ (e.target).select() }),
    ],
    buttons: [{ label: t("common.copy"), kind: "primary", action: "copy", keepOpen: true, onclick: () => copyLink(url) }],
    dismissable: true,
  });
}
