// @ts-check
// The game screen: a seat's own table, the hot-seat screen (one screen for every person, hands
// covered between turns) and spectators'; the board, hand and controls come from the game's
// module, the log from log.js. Also the seat pages: an invite exchanged for its seat.

import { me, refreshWaiting, seatName, transferPanel } from "./account.js";
import { inviteFriendForm } from "./friends.js";
import { nameAt } from "./names.js";
import { api, Live } from "./api.js";
import { GAMES, GAME_TITLES } from "./games.js";
import { list, t, translateReason } from "./i18n.js";
import { botName, endedBy } from "./lobby.js";
import { toggleAid } from "./aid.js";
import { ChatPanel } from "./chat.js";
import { GameLog, renderLog } from "./log.js";
import { measured, measureName } from "./measure.js";
import { ratingNote } from "./ratings.js";
import { shareDialog } from "./report.js";
import { remember, remembered, tokenAt } from "./state.js";
import {
  bringIntoView, capitalised, chime, clear, closeDialog, copyLink, dialog, dismissToast, el, icon, iconButton, link, put, ratedBadge, rememberFocus,
  setSound, setStatus, setTitle, soundOn, toast, messageOf,
} from "./ui.js";

/** @typedef {import("./types").BoardFrame} BoardFrame */
/** @typedef {import("./types").Frame} Frame */
/** @typedef {import("./types").GameModule} GameModule */
/** @typedef {import("./types").Guide} Guide */
/** @typedef {import("./types").Hint} Hint */
/** @typedef {import("./types").Renderer} Renderer */
/** @typedef {import("./types").Said} Said */
/** @typedef {import("./types").Screen} Screen */
/** @typedef {import("./types").Placing} SeatResult */
/** @typedef {import("./types").FrameTable} TableMeta */
/** @typedef {import("./types").Seat} Seat */
/** @typedef {import("./types").Step} Step */
/** @typedef {import("./types").TableContext} TableContext */

/**
 * This browser's seat at the game (`mode` "seat") or its hot-seat screen ("hotseat").
 * @param {HTMLElement} root
 * @param {string} id
 * @param {"seat" | "hotseat"} mode
 * @returns {Screen | null}
 */
export function seatScreen(root, id, mode) {
  const token = remembered(id)?.[mode === "seat" ? "token" : "table_token"];
  if (mode === "seat" && me.account) {
    // A signed-in player's seat follows them: a token this device lacks (or one another
    // device took over since) is asked for again.
    /** @type {Screen | null} */
    let opened = null;
    let gone = false;
    api.mySeat(id, token).then((seat) => {
      remember(id, { token: seat.token, seat: seat.seat });
      return seat.token;
    }, () => {
      if (!token) throw new Error("no seat");
      return token; // not the account's seat (an invite taken as a guest): this browser's own
    }).then((found) => {
      if (!gone) opened = tableScreen(root, id, found, mode);
    }).catch(() => {
      if (!gone) noSeat(root, id);
    });
    return { destroy() { gone = true; opened?.destroy(); } };
  }
  if (token) return tableScreen(root, id, token, mode);
  noSeat(root, id);
  return null;
}

/** @param {HTMLElement} root @param {string} id */
function noSeat(root, id) {
  root.append(el("div", { class: "card" }, el("h1", {}, t("table.no_seat")),
    el("p", {}, t("table.no_seat_about")),
    link(`#/watch/${id}`, t("common.watch")), " ", link(`#/signin/play/${encodeURIComponent(id)}`, t("account.sign_in"), { id: "no-seat-signin" }), " ",
    link("#/", t("common.back_to_lobby"))));
}

/**
 * An invite link: its one-time code is exchanged for the seat, then the seat's page opens.
 * @param {HTMLElement} root
 * @param {string} id
 * @param {string} code
 * @returns {null}
 */
export function inviteScreen(root, id, code) {
  root.append(el("div", { class: "card" }, el("p", { class: "muted" }, t("table.taking_seat"))));
  api.join(id, code, seatName()).then((joined) => {
    remember(id, { token: joined.token, seat: joined.seat });
    location.replace(`#/play/${encodeURIComponent(id)}`);
  }).catch((error) => {
    const saved = remembered(id);
    put(root, el("div", { class: "card" }, el("h1", {}, t("table.invite_no_seat")),
      el("p", {}, error.message),
      saved?.token ? link(`#/play/${id}`, t("table.go_to_seat")) : link(`#/watch/${id}`, t("common.watch")),
      " ", link("#/", t("common.back_to_lobby"))));
  });
  return null;
}

/**
 * The game as one seat, the hot-seat screen or a spectator sees it, live over a WebSocket.
 * @param {HTMLElement} root
 * @param {string} id
 * @param {string | null} token the seat's, the hot seat's, or none (spectators)
 * @param {"seat" | "hotseat" | "spectator"} mode
 * @param {Guide | null} [guide] a guided game's hold on the moves (tutorial.js)
 * @returns {Screen}
 */
export function tableScreen(root, id, token, mode, guide = null) {
  const parts = {
    connection: el("p", { class: "connection-note", id: "connection", hidden: true }),
    banner: el("div", { class: "banner", id: "banner" }),
    past: el("div", { class: "past-bar", id: "past-bar", hidden: true }),
    board: el("div", { class: "board-wrap", id: "board" }),
    decision: el("div", { class: "decision-area", id: "decision-area" }),
    clock: el("div", { id: "turn-clock" }),
    outcome: el("div", { id: "outcome-area" }),
    hand: el("div", { class: "hand-panel", id: "hand" }),
    controls: el("div", { class: "controls", id: "controls" }),
    assist: el("div", { class: "assist", id: "assist" }),
    scores: el("div", { class: "scores", id: "scores" }),
    log: el("ol", { class: "log", id: "log" }),
    extra: el("div", { class: "extra" }),
    transfer: el("div", { id: "transfer" }),
  };
  const chat = new ChatPanel(id, token, mode);
  const screen = el("div", { class: "game-screen" },
    el("section", { class: "board-col" }, parts.connection, parts.banner, parts.past, parts.board),
    // The invite links come first: until the seats are taken they are what the creator needs,
    // in view on a 768-pixel laptop screen (below the log they were far out of it).
    el("aside", { class: "side" },
      parts.extra, parts.clock, parts.decision, parts.outcome, parts.hand, parts.controls, parts.assist, parts.scores, chat.node,
      el("details", { class: "card log-card", open: true }, el("summary", {}, t("table.log")), parts.log),
      parts.transfer));
  if (mode === "seat" && token && !me.account) {
    // A guest's seat moves to another device by a one-time link (an account's follows a sign-in).
    const open = el("button", { id: "transfer-open", class: "btn", onclick: async () => {
      try {
        const card = el("div", { class: "card" }, el("h2", { class: "section" }, t("table.continue_elsewhere")), await transferPanel(id, token));
        put(parts.transfer, card);
        card.scrollIntoView({ block: "nearest" }); // it opens below the button: the code must be in view
        holdInView(card, screen);
      } catch (error) { toast(messageOf(error)); }
    } }, t("table.continue_elsewhere"));
    put(parts.transfer, open);
  }
  root.append(screen);
  // The chat's button sits in the top bar: never over the page (a phone's war result, a
  // lesson's feedback), and its count of new lines is where the other counts are.
  (document.getElementById("header-chat") || root).append(chat.toggle);

  /** @type {Renderer | null} */
  let renderer = null;
  /** @type {GameModule | null} */
  let module = null;
  /** @type {Frame | null} the latest frame */
  let last = null;
  /** @type {Seat | null} */
  let shownSeat = null; // hot seat: the person whose hand is on screen
  /** @type {Seat | null} */
  let coverFor = null;
  let endShown = false;
  /** @type {string | null} the version whose decision panel is open */
  let decisionShown = null;
  let wasMine = false;
  /** @type {{ply: number, frame: BoardFrame} | null} the past board on screen */
  let past = null;
  /** @type {{version: number, list: Hint[]} | "loading" | null} */
  let hints = null;
  let outcomeShown = 0;
  let heard = false; // no sound for the page's first frame: only for a turn that comes
  const log = new GameLog(id, token, mode);
  // A turn-based table's clock is drawn again every half minute (its words count down); a
  // live table's running clock counts down every second.
  let ticks = 0;
  const ticking = setInterval(() => {
    ticks += 1;
    if (!last) return;
    if (ticks % 30 === 0) drawClock(last);
    else tickClocks(last);
  }, 1000);
  /** @type {Map<string, Promise<string | null>>} why each action is not legal, by version */
  const explained = new Map();

  /** @type {TableContext} */
  const ctx = {
    mode,
    act(action) {
      // Without a connection the move is not sent, and the person is told so (never silence).
      if (!live.ready()) { notSent(); return; }
      const held = guide?.act(action);
      if (held) { renderer?.clearSelection?.(); return; }
      if (!live.act(action)) { notSent(); return; }
      renderer?.clearSelection?.();
      clear(parts.outcome);
    },
    undo() { if (!live.undo()) notSent(); },
    explain(action) {
      const key = `${last?.table.version}|${action}`;
      let reason = explained.get(key);
      if (!reason) {
        reason = api.explain(id, action, token).then((answer) => (answer.legal ? null : answer.reason))
          .catch((error) => messageOf(error));
        explained.set(key, reason);
      }
      if (guide) reason.then((why) => { if (why) guide.refused(action, why); });
      return reason;
    },
  };

  /** @type {import("./api.js").LiveState} */
  let connection = "reconnecting";
  const live = new Live(id, token, {
    onView: (frame) => show(frame),
    onError: (message) => { toast(message); if (last) show(last, true); },
    onChat: (line) => chat.add(line),
    onState: (state) => {
      if (state === "refused") {
        // A seat that was open here: its token was replaced, by a "continue on another
        // device" link or by the account's player opening it elsewhere. The card says so in
        // words: the server's terse reason that came before it is not shown too.
        dismissToast();
        const moved = mode === "seat" && last !== null;
        put(root, el("div", { class: "card", id: "seat-refused" },
          el("h1", {}, moved ? t("table.moved") : t("account.link_no_seat")),
          el("p", {}, moved ? t("table.moved_about") : t("table.refused_about")),
          moved && me.account ? el("button", { class: "btn primary", id: "play-here",
            onclick: () => location.reload() }, t("table.play_here")) : null, // asks for the seat again
          " ", link(`#/watch/${id}`, t("common.watch")), " ", link("#/", t("common.back_to_lobby"))));
      }
      if (state === "connected") chat.stale = true; // read the lines that came while away
      connection = state;
      const words = CONNECTION_WORDS[state] ? t(CONNECTION_WORDS[state]) : "";
      setStatus(CONNECTION_STATUS[state] ? t(CONNECTION_STATUS[state]) : "");
      parts.connection.textContent = words;
      parts.connection.hidden = !words;
    },
  });

  /** A move (or undo) that could not be sent: say why, and that it was not made. */
  function notSent() {
    renderer?.clearSelection?.();
    if (last) show(last, true);
    toast(connection === "offline" ? t("table.not_sent_offline") : t("table.not_sent"));
  }

  if (mode === "seat" && token) remember(id, { token });

  /**
   * The bot seat deciding now, if a bot decides.
   * @param {Frame} frame
   */
  function thinkingSeat(frame) {
    const seat = frame.table.to_move;
    if (seat === null || seat === undefined || frame.table.status === "over") return null;
    return (frame.table.seats[seat] || "").startsWith("bot:") ? seat : null;
  }

  /**
   * Draw a frame: the board, the decision, the log, the banner, the title.
   * @param {Frame} frame
   * @param {boolean} [again] the frame on screen drawn again (no new change)
   */
  function show(frame, again = false) {
    const kept = rememberFocus(screen);
    try {
      draw(frame, again);
    } finally {
      kept();
    }
  }

  /**
   * @param {Frame} frame
   * @param {boolean} again
   */
  function draw(frame, again) {
    last = frame;
    const game = frame.table.game;
    module = GAMES[game];
    if (!renderer) renderer = module.createRenderer(parts, ctx);
    const seat = frame.table.seat;
    const over = frame.table.status === "over";
    const mine = seat !== null && frame.table.to_move === seat && !over;
    chat.sync(frame, mode === "seat" ? seat : null);

    // For scripts and tests driving the page: which change is on screen, whose decision it is.
    document.body.dataset.version = String(frame.table.version);
    document.body.dataset.turn = over ? "over" : mine ? "mine" : "wait";

    notify(frame, mine, over);
    if (!again) {
      const loading = log.sync(frame);
      if (loading) loading.then(() => { if (last) show(last, true); }).catch((error) => toast(error.message));
      outcome(frame);
    }
    drawLog();
    drawClock(frame);
    banner(parts.banner, frame, mode, thinkingSeat(frame));
    invites(parts.extra, id, frame, mode);
    if (past && mine && !wasMine) leavePast();
    // The header's count of games waiting for this player follows the turn and the end.
    if (mode === "seat" && me.account && (mine !== wasMine || (over && !endShown))) refreshWaiting();
    wasMine = mine;

    // Hot seat: when another person is to decide, cover the hands until they are ready.
    if (mode === "hotseat" && seat !== null && seat !== shownSeat && !over) {
      if (coverFor !== seat) {
        coverFor = seat;
        renderer.update(frame, { interactive: false, hideHand: true, pieces: log.pieces });
        clear(parts.decision);
        clear(parts.assist);
        decisionShown = null;
        dialog({
          id: "cover",
          title: t("table.pass_screen", { name: nameAt(frame.table, seat) }),
          body: [el("p", {}, t("table.hands_hidden"))],
          buttons: [{ label: t("table.i_am", { name: nameAt(frame.table, seat) }), kind: "primary",
            action: "reveal", onclick: () => { shownSeat = seat; coverFor = null; if (last) show(last, true); } }],
        });
      }
      return;
    }

    if (!past) {
      renderer.update(frame, {
        interactive: mine,
        highlights: [...log.highlights(module, frame.view.players, seat), ...(guide?.highlights(module) || [])],
        thinking: thinkingSeat(frame),
        pieces: log.pieces,
      });
    }
    guide?.shown(frame, module);
    drawAssist(frame, mine);
    if (over) {
      decisionShown = null;
      clear(parts.decision);
      if (!endShown && !guide) { // a guided game says itself what the end means
        endShown = true;
        closeDialog();
        showEnd(module, frame, id);
      }
      return;
    }
    const key = mine ? `${frame.table.version}` : null;
    if (mine && module.needsDecision(frame)) {
      if (decisionShown !== key || !parts.decision.firstChild) {
        decisionShown = key;
        module.openDecision(parts.decision, frame, ctx);
        keepInView(parts.decision);
      }
    } else {
      decisionShown = null;
      const waiting = module.waitingFor(frame);
      if (waiting) put(parts.decision, el("div", { class: "card decision-panel waiting", id: "waiting" }, el("p", {}, waiting)));
      else clear(parts.decision);
    }
  }

  function drawLog() {
    if (last && module) renderLog(parts.log, log, module, last, showPast);
  }

  /**
   * A turn-based table: whose time runs and how much is left; once it ran out, the others'
   * choice (the stand-in bot plays for that seat until its person is back, or the game ends
   * without it); who a stand-in plays for, and for that seat the "I'm back" button; and, for
   * a seat, the concede button.
   * @param {Frame} frame
   */
  function drawClock(frame) {
    const table = frame.table;
    const over = table.status === "over";
    const seat = table.seat;
    const rows = [];
    const deciding = frame.table.to_move;
    const away = table.away || [];
    const clock = table.clock || null;
    if (clock) rows.push(clockList(table, clock));
    if ((table.mode === "turn" || clock) && !over) {
      for (const gone of away) {
        const level = botName((table.standins && table.standins[gone]) || "easy");
        if (gone === seat && mode === "seat" && token) {
          rows.push(el("div", { class: "standin-card", id: "away-note" },
            el("p", {}, t("table.away_note", { level })),
            el("button", { class: "btn primary", id: "come-back", onclick: comeBack }, t("table.im_back"))));
        } else {
          rows.push(el("p", { class: "standin-note", "data-away": gone },
            t("table.standin_for", { level, name: nameAt(table, gone) })));
        }
      }
    }
    if (clock && !over && deciding !== null && deciding !== undefined) {
      const who = nameAt(table, deciding);
      const yours = seat === deciding && mode === "seat";
      if (table.standin === deciding) {
        rows.push(el("p", { id: "standin-note" }, t("table.standin_now", { name: who })));
      } else if (table.seats[deciding] === "human" && clock.running === null && clock.left[deciding] <= 0) {
        // The clock ran out (stored): the others choose, as after a turn-based deadline.
        if (yours) {
          rows.push(el("p", { id: "deadline", class: "urgent" }, t("table.your_clock_out")));
        } else {
          rows.push(el("p", { id: "deadline", class: "urgent" }, t("table.their_clock_out", { name: who })));
          if (mode === "seat" && seat !== null && token) rows.push(timeoutChoice(who));
        }
      } else if (!yours && table.seats[deciding] === "human" && clock.gone && clock.gone[deciding] !== null) {
        // Their pages all closed: after a while the others may choose, as when a clock runs out.
        rows.push(el("p", { id: "connection-lost", class: "urgent" }, t("table.their_connection_lost", { name: who })));
        if (absentLong(clock, deciding) && mode === "seat" && seat !== null && token) rows.push(timeoutChoice(who));
      }
    }
    if (table.mode === "turn" && !over && deciding !== null && deciding !== undefined) {
      const who = nameAt(table, deciding);
      const yours = seat === deciding && mode === "seat";
      if (table.standin === deciding) {
        rows.push(el("p", { id: "standin-note" }, t("table.standin_now", { name: who })));
      } else if (table.deadline) {
        const left = table.deadline - Date.now() / 1000;
        if (left > 0) {
          rows.push(el("p", { id: "deadline", class: left < 3600 ? "urgent" : "" },
            yours ? t("table.you_have", { time: durationWords(left) }) : t("table.they_have", { name: who, time: durationWords(left) })));
        } else if (yours) {
          rows.push(el("p", { id: "deadline", class: "urgent" },
            t("table.your_time_out")));
        } else {
          rows.push(el("p", { id: "deadline", class: "urgent" }, t("table.their_time_out", { name: who })));
          if (mode === "seat" && seat !== null && token) rows.push(timeoutChoice(who));
        }
      }
    }
    if (mode === "seat" && seat !== null && token && !over) {
      rows.push(el("button", { class: "btn quiet small", id: "concede", onclick: confirmConcede }, icon("flag", 16), " ", t("table.concede")));
    }
    if (!rows.length) { clear(parts.clock); return; }
    put(parts.clock, el("div", { class: "card clock-card" }, rows));
  }

  /**
   * The others' choice about a seat whose time ran out.
   * @param {string} who
   */
  function timeoutChoice(who) {
    return el("div", { class: "timeout-choice", id: "timeout-choice" },
      el("button", { class: "btn primary", id: "timeout-bot", onclick: () => timeout("bot") }, t("table.let_bot", { name: who })),
      el("button", { class: "btn", id: "timeout-end", onclick: () => confirmEnd(who) }, t("table.end_without_title", { name: who })));
  }

  /**
   * A live table's clocks: the time control, and every seat's time left (the running one
   * counts down: see tickClocks).
   * @param {Frame["table"]} table @param {import("./types").Clock} clock
   */
  function clockList(table, clock) {
    const base = clock.base_s % 60 === 0 ? t("time.minutes", { minutes: clock.base_s / 60 }) : clockWords(clock.base_s);
    const control = t("table.clock_control", { time: base, seconds: clock.increment_s });
    return el("div", { class: "clocks", id: "clocks" },
      el("p", { class: "muted small", id: "clock-control" }, control),
      el("ul", { class: "clock-list" }, clock.left.map((_left, seat) => {
        const running = clock.running === seat;
        return el("li", { class: running ? "running" : "", "data-clock": seat },
          el("span", { class: "clock-name" }, nameAt(table, seat)),
          el("span", { class: "clock-time", "data-clock-time": seat }, clockWords(secondsLeft(table, seat))));
      })));
  }

  /**
   * The running clock's figures, every second.
   * @param {Frame} frame
   */
  function tickClocks(frame) {
    const table = frame.table;
    if (!table.clock || table.status === "over") return;
    const deciding = frame.table.to_move;
    if (deciding !== null && deciding !== undefined && table.clock.gone && table.clock.gone[deciding] !== null
      && absentLong(table.clock, deciding) && !parts.clock.querySelector("#timeout-choice")) {
      drawClock(frame); // away long enough: the others' choice appears
      return;
    }
    if (table.clock.running === null) return;
    const seat = table.clock.running;
    const shown = parts.clock.querySelector(`[data-clock-time="${seat}"]`);
    if (!shown) return;
    const left = secondsLeft(table, seat);
    shown.textContent = clockWords(left);
    shown.classList.toggle("urgent", left < 10);
  }

  /** @param {"bot" | "end"} choice */
  async function timeout(choice) {
    if (!token) return;
    try {
      const frame = await api.timeout(id, token, choice);
      show(frame, true);
    } catch (error) {
      toast(messageOf(error));
    }
  }

  /** "I'm back": the stand-in stops playing for this seat (a turn it holds is ours again). */
  async function comeBack() {
    if (!token) return;
    try {
      show(await api.comeBack(id, token), true);
      toast(t("table.welcome_back"));
    } catch (error) {
      toast(messageOf(error));
    }
  }

  /** @param {string} who */
  function confirmEnd(who) {
    dialog({
      id: "confirm-end",
      title: t("table.end_without_ask", { name: who }),
      body: [el("p", {}, t("table.end_without_about", { name: who }))],
      buttons: [
        { label: t("table.not_now"), onclick: () => {} },
        { label: t("table.end_without", { name: who }), kind: "danger", action: "end", onclick: () => timeout("end") },
      ],
      dismissable: true,
    });
  }

  function confirmConcede() {
    dialog({
      id: "confirm-concede",
      title: t("table.concede_ask"),
      body: [el("p", {}, t("table.concede_about"))],
      buttons: [
        { label: t("table.keep_playing"), onclick: () => {} },
        { label: t("table.concede"), kind: "danger", action: "concede", onclick: async () => {
          if (!token) return;
          try {
            show(await api.concede(id, token), true);
          } catch (error) {
            toast(messageOf(error));
          }
        } },
      ],
      dismissable: true,
    });
  }


  /**
   * The result of a conflict decided by the last change, in a panel that stays until closed.
   * @param {Frame} frame
   */
  function outcome(frame) {
    if (!module) return;
    const found = module.conflictOutcome(frame.table.events, frame);
    if (!found || frame.table.version === outcomeShown) return;
    outcomeShown = frame.table.version;
    put(parts.outcome, el("div", { class: `card outcome ${found.win === true ? "won" : found.win === false ? "lost" : ""}`, id: "conflict-result", role: "status" },
      el("div", { class: "outcome-head" }, el("strong", {}, found.title),
        iconButton("close", t("common.close"), { class: "btn icon-btn quiet small", onclick: () => clear(parts.outcome) })),
      found.lines.map((line) => el("p", { class: "small" }, line))));
    const shown = parts.outcome.firstElementChild;
    // Once the page is laid out; a guided game says what happened in its own panel.
    if (shown && !guide) requestAnimationFrame(() => bringIntoView(shown));
  }

  /**
   * The tab's title says whose turn it is; a chime when it becomes this seat's.
   * @param {Frame} frame
   * @param {boolean} mine
   * @param {boolean} over
   */
  function notify(frame, mine, over) {
    const who = frame.table.to_move !== null && frame.table.to_move !== undefined ? nameAt(frame.table, frame.table.to_move) : "";
    const seat = frame.table.seat;
    if (over) setTitle(t("table.game_over"));
    else if (mine && seat !== null) setTitle(mode === "hotseat" ? t("table.named_turn", { name: nameAt(frame.table, seat) }) : t("account.your_turn"));
    else if (mode === "hotseat" && frame.table.to_move !== null && frame.table.seats[frame.table.to_move] === "human") setTitle(t("table.named_turn", { name: who }));
    else setTitle(t("account.waiting_for", { name: who }));
    if (mine && !wasMine && heard) chime();
    heard = true;
  }

  /**
   * The board after a move of the log, as this seat saw it then, until "Back to the game".
   * @param {Step} step
   * @param {Said} said
   */
  async function showPast(step, said) {
    try {
      const answer = await api.pastBoard(id, step.ply, token);
      Object.assign(log.pieces, answer.pieces || {});
      if (!last || !module || !renderer) return; // the log shows once a frame has come
      /** @type {BoardFrame} */
      const frame = {
        view: answer.view,
        legal_actions: [],
        table: { ...last.table, seat: answer.seat, to_move: answer.to_move, version: `past-${step.ply}`, can_undo: false, events: answer.step?.events || [] },
      };
      past = { ply: step.ply, frame };
      const colour = module.seatColour(last.view.players, step.seat);
      renderer.update(frame, {
        interactive: false,
        past: true,
        origin: module.originOf(last.view),
        hideHand: mode === "hotseat",
        highlights: [{ seat: step.seat, cells: module.cellsOf(step.action), colour, fresh: true }],
        pieces: log.pieces,
      });
      parts.past.hidden = false;
      put(parts.past, el("span", {}, el("strong", {}, t("table.move_of", { number: step.ply, total: log.moves })), ` · ${said.text}`),
        el("button", { class: "btn primary", id: "back-to-game", onclick: leavePast }, icon("back"), " ", t("table.back_to_game")));
      for (const li of /** @type {NodeListOf<HTMLElement>} */ (parts.log.querySelectorAll(".log-entry"))) li.classList.toggle("shown", Number(li.dataset.ply) === step.ply);
      clear(parts.decision);
      clear(parts.outcome); // a conflict's result belongs to the present, not this board
      bringIntoView(parts.past);
      drawAssist(last, false);
    } catch (error) {
      toast(messageOf(error));
    }
  }

  function leavePast() {
    past = null;
    parts.past.hidden = true;
    clear(parts.past);
    decisionShown = null;
    for (const li of parts.log.querySelectorAll(".log-entry.shown")) li.classList.remove("shown");
    if (last) show(last, true);
  }

  /**
   * The hint button and its answers, and the sound switch.
   * @param {Frame} frame
   * @param {boolean} mine
   */
  function drawAssist(frame, mine) {
    clear(parts.assist);
    const game = module;
    if (!game) return;
    const sound = el("button", {
      class: `btn small icon-btn${soundOn() ? " on" : ""}`, id: "sound", "aria-pressed": soundOn() ? "true" : "false",
      title: t("table.sound_title"),
      onclick: () => { setSound(!soundOn()); if (soundOn()) chime(); if (last) drawAssist(last, mine); },
    }, icon("bell", 16), " ", soundOn() ? t("table.sound_on") : t("table.sound_off"));
    const aid = el("button", { class: "btn small", id: "aid-open", title: t("table.aid_title"), "aria-label": t("aid.title"),
      onclick: () => toggleAid(screen, frame.table.game) }, "?");
    const row = [sound, aid];
    if (frame.table.hints && mine && !past) {
      row.unshift(el("button", { class: "btn", id: "hint", onclick: () => askHint(frame) }, icon("bulb", 16), " ", t("table.hint")));
    }
    const list = [];
    if (hints === "loading") list.push(el("p", { class: "muted", id: "hints-loading" }, el("span", { class: "spinner" }), " ", t("table.hints_loading")));
    else if (hints && hints.version === frame.table.version && mine) {
      const words = game.wordsFor(frame.view.players, frame, log.pieces);
      list.push(el("ol", { class: "hints", id: "hints" }, hints.list.map((h) => el("li", { class: "hint-row", "data-action": h.action },
        el("div", {}, el("strong", {}, capitalised(game.describeAction(h.action, words))), el("span", { class: "chance" }, ` ${measured(frame.view.players.length, h.win_chance)}`)),
        el("p", { class: "small muted" }, capitalised(game.reasonWords(translateReason(h.reason), words))),
        el("div", { class: "hint-buttons" },
          el("button", { class: "btn small", "data-show": h.action, onclick: () => {
            renderer?.preview(h.action);
            const mark = document.querySelector(".board .hinted"); // the board may be scrolled away
            if (mark) bringIntoView(mark);
          } }, t("table.show")),
          el("button", { class: "btn small primary", "data-play": h.action, onclick: () => ctx.act(h.action) }, t("table.play_it")))))));
    }
    parts.assist.append(el("div", { class: "card assist-card" }, el("div", { class: "assist-row" }, row), list));
  }

  /** @param {Frame} frame */
  async function askHint(frame) {
    hints = "loading";
    drawAssist(frame, true);
    try {
      const answer = await api.hint(id, token);
      hints = { version: answer.version, list: answer.hints };
    } catch (error) {
      hints = null;
      toast(messageOf(error));
    }
    if (last) drawAssist(last, last.table.seat !== null && last.table.to_move === last.table.seat && last.table.status !== "over");
  }

  return {
    destroy() { live.close(); clearInterval(ticking); chat.destroy(); renderer?.destroy?.(); },
  };
}

/**
 * A seat's time left on a live table's clock, now.
 * @param {Frame["table"]} table @param {Seat} seat
 */
function secondsLeft(table, seat) {
  const clock = table.clock;
  if (!clock) return 0;
  if (clock.running === seat && table.deadline) return Math.max(0, table.deadline - Date.now() / 1000);
  return clock.left[seat];
}

/**
 * Whether the person at ``seat`` has had no page open long enough for the others to act.
 * @param {import("./types").Clock} clock
 * @param {Seat} seat
 */
function absentLong(clock, seat) {
  const gone = clock.gone ? clock.gone[seat] : null;
  return gone !== null && gone !== undefined && Date.now() / 1000 >= gone + clock.absent_s;
}

/**
 * A clock's figures: 4:05, or 1:02:03 past an hour.
 * @param {number} seconds
 */
export function clockWords(seconds) {
  const whole = Math.ceil(Math.max(0, seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

/**
 * The messages the line above the board says of a game's connection (nothing while it works,
 * nor once refused: the page then says what happened to the seat).
 * @type {Record<import("./api.js").LiveState, string>}
 */
const CONNECTION_WORDS = { connected: "", reconnecting: "live.lost", offline: "live.offline_note", refused: "" };

/** The same, in the few words the top bar has room for. @type {Record<import("./api.js").LiveState, string>} */
const CONNECTION_STATUS = { connected: "", reconnecting: "live.reconnecting", offline: "live.offline", refused: "" };

/**
 * Time left in words: "5 h 12 min", "3 days 4 h", "12 min".
 * @param {number} seconds
 */
export function durationWords(seconds) {
  const minutes = Math.max(1, Math.floor(seconds / 60));
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  if (days) return hours ? t("time.days_hours", { days: t("common.days", { count: days }), hours }) : t("common.days", { count: days });
  if (hours) return rest ? t("time.hours_minutes", { hours, minutes: rest }) : t("time.hours", { hours });
  return t("time.minutes", { minutes: rest });
}

/**
 * A turn notice's "no more mails" link: its one-time code is used, no sign-in needed.
 * @param {HTMLElement} root
 * @param {string} code
 * @returns {null}
 */
export function unsubscribeScreen(root, code) {
  const card = el("div", { class: "card", id: "unsubscribe" }, el("p", { class: "muted" }, t("table.stopping_mails")));
  root.append(card);
  api.stopMail(code).then(() => {
    put(card, el("h1", {}, t("table.no_more_mails")),
      el("p", {}, t("table.no_more_mails_about")),
      link("#/", t("table.to_lobby")));
  }).catch((error) => {
    put(card, el("h1", {}, t("table.link_broken")), el("p", {}, messageOf(error)), link("#/", t("table.to_lobby")));
  });
  return null;
}

/**
 * On a phone the decision is a sheet over the bottom of the screen: scroll the page so that
 * the conflict on the board (its leaders) sits above it.
 * @param {HTMLElement} sheet
 */
function keepInView(sheet) {
  const leaders = [...document.querySelectorAll(".board .conflict-leader")];
  if (!leaders.length || getComputedStyle(sheet).position !== "fixed") return;
  const top = sheet.getBoundingClientRect().top;
  const lowest = Math.max(...leaders.map((l) => l.getBoundingClientRect().bottom));
  const highest = Math.min(...leaders.map((l) => l.getBoundingClientRect().top));
  if (lowest > top - 8) window.scrollBy(0, Math.min(lowest - top + 24, highest - 60));
}

/**
 * The line above the board: the game, whose decision it is (or a bot thinking), who this is.
 * @param {HTMLElement} node
 * @param {Frame} frame
 * @param {string} mode
 * @param {Seat | null} thinking
 */
function banner(node, frame, mode, thinking) {
  const table = frame.table;
  let text;
  if (table.status === "over") text = t("table.is_over");
  else if (frame.table.to_move === null || frame.table.to_move === undefined) text = "";
  else if (table.seat !== null && frame.table.to_move === table.seat) {
    text = mode === "hotseat" ? t("table.named_decision", { name: nameAt(table, table.seat) }) : t("table.your_decision");
  } else if (thinking !== null) {
    text = null;
  } else {
    text = t("account.waiting_for", { name: nameAt(table, frame.table.to_move) });
  }
  const who = table.seat === null ? t("table.watching") : t("table.you_are", { name: nameAt(table, table.seat) });
  put(node,
    el("h1", { class: "banner-title" }, el("span", { class: `badge ${table.game}` }, GAME_TITLES[table.game] || table.game)),
    table.rated ? [" ", ratedBadge(table.id)] : null,
    text !== null ? el("strong", { class: frame.table.to_move === table.seat && table.status !== "over" ? "your-turn" : "" }, text) : null,
    thinking !== null ? el("strong", { class: "thinking-note", id: "thinking" }, el("span", { class: "spinner" }),
      " ", t("table.thinking", { name: nameAt(table, thinking) })) : null,
    el("span", { class: "muted detail" }, el("span", { class: "sep" }, "· "), t("table.banner_detail", { who, number: table.moves })));
}

/**
 * The invite links this browser made whose seats are still free.
 * @param {HTMLElement} node
 * @param {string} id
 * @param {Frame} frame
 * @param {string} mode
 */
function invites(node, id, frame, mode) {
  if (mode !== "seat") { clear(node); return; }
  const saved = remembered(id);
  const unused = frame.table.invites || [];
  const pending = (saved?.invites || []).filter((s) => s.invite && unused.includes(s.seat));
  // A signed-in player may invite a friend by name to any seat nobody took yet.
  const free = unused.length + (frame.table.open || []).length;
  const byName = Boolean(me.account) && free > 0 && frame.table.status !== "over";
  if (!pending.length && !byName) { clear(node); return; }
  if (node.querySelector("#invite-friend") && byName && node.dataset.pending === String(pending.length)) return; // keep what is typed
  node.dataset.pending = String(pending.length);
  put(node, el("div", { class: "card invites" },
    el("h2", { class: "section" }, t("table.invite")),
    pending.length ? el("p", { class: "muted" }, t("table.invite_about")) : null,
    byName ? inviteFriendForm(id, frame) : null,
    pending.map((s) => {
      const url = `${location.origin}/#/invite/${id}/${s.invite}`;
      return el("div", { class: "invite" },
        el("span", {}, nameAt(frame.table, s.seat)),
        el("input", { readonly: true, value: url, "data-invite-seat": s.seat,
          onclick: (e) => /** @type {HTMLInputElement} */ (e.target).select() }),
        el("button", { class: "btn", onclick: () => copyLink(url) }, t("common.copy")));
    })));
}

/**
 * What the end screen says of the analysis: the server's own, where it makes one (a game a
 * person played, on a server that analyses them), or the page that asks the bots for one.
 * @param {Frame} frame
 */
function analysisNote(frame) {
  const node = el("p", { class: "muted small", id: "analysis-note" });
  const people = frame.table.seats.some((kind) => kind === "human");
  api.meta().then((meta) => {
    put(node, people && meta.analyse_finished !== false
      ? t("table.analysing", { measure: measureName(frame.view.players.length) })
      : t("table.no_auto_analysis"));
  }).catch(() => {});
  return node;
}

/**
 * The end screen's title: the winner, or the players who share first place (a tie).
 * @param {SeatResult[]} result the places, best first
 * @param {TableMeta} table
 * @returns {string}
 */
function outcome(result, table) {
  const first = result.filter((line) => line.place === 1).map((line) => nameAt(table, line.seat));
  if (first.length > 1) return t("table.tie", { names: list(first) });
  return first.length ? t("table.wins", { name: first[0] }) : t("table.game_over_title");
}

/**
 * The end screen: the ranking, the analysis and the replay.
 * @param {GameModule} module
 * @param {Frame} frame
 * @param {string} id
 */
function showEnd(module, frame, id) {
  const result = [...(frame.table.result || [])].sort((a, b) => a.place - b.place);
  const out = result.find((line) => line.out);
  const ending = frame.table.ended_by && out ? frame.table.ended_by : null;
  dialog({
    id: "end-screen",
    title: outcome(result, frame.table),
    body: [
      ending && out ? el("p", { id: "ended-by" }, t("table.ended_by", { how: capitalised(endedBy(ending, nameAt(frame.table, out.seat))) })) : null,
      module.resultTable(result, frame.table),
      frame.table.rated ? ratingNote(id, frame.table.game, frame.table.names || []) : null,
      analysisNote(frame)],
    buttons: [
      { label: t("common.analysis"), action: "analysis", onclick: () => { location.hash = `#/analysis/${id}`; } },
      { label: t("table.replay_this"), onclick: () => { location.hash = `#/replay/${id}`; } },
      // A private table's players pass the finished game on to whom they choose.
      ...(frame.table.private && tokenAt(id) ? [{ label: t("share.button"), action: "share", onclick: () => shareDialog(id, tokenAt(id)) }] : []),
      { label: t("common.back_to_lobby"), kind: "primary", onclick: () => { location.hash = "#/"; } },
    ],
    dismissable: true,
  });
}

/**
 * Keep `node` in view while what is above it on `screen` still loads and grows (the log, the
 * chat: on a slow device they come after the click), until the person scrolls or types.
 * @param {HTMLElement} node
 * @param {HTMLElement} screen
 */
function holdInView(node, screen) {
  const keep = new ResizeObserver(() => { if (node.isConnected) bringIntoView(node); });
  const moves = ["wheel", "touchmove", "keydown", "pointerdown"];
  const stop = () => {
    keep.disconnect();
    for (const kind of moves) window.removeEventListener(kind, stop);
  };
  for (const kind of moves) window.addEventListener(kind, stop, { passive: true });
  keep.observe(screen);
}
