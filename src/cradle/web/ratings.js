// @ts-check
// People's ratings: a game's leaderboard (#/ratings/GAME[/PLAYERS]) and a player's profile
// (#/player/NAME) with their ratings, a small chart of their rating over time (our own SVG)
// and their finished games. Every name and word from the server is put in as text.

import { api } from "./api.js";
import { GAME_TITLES } from "./games.js";
import { nameAt } from "./names.js";
import { date, number, t } from "./i18n.js";
import { reportDialog } from "./report.js";
import { el, link, messageOf, put, svg } from "./ui.js";

/** @typedef {import("./types").PlayerProfile} PlayerProfile */
/** @typedef {import("./types").RatingChange} RatingChange */
/** @typedef {import("./types").RatingsPage} RatingsPage */

const GAMES = ["tigris", "gheos"];
const GROUPS = [2, 3, 4];
const SERIES = ["#2c5d8a", "#c0392b", "#239b56", "#8e44ad", "#b9770e", "#3b3f46"];

/** @param {string} name */
export function playerLink(name) {
  return link(`#/player/${encodeURIComponent(name)}`, name, { class: "player-link" });
}

/** @param {number} at */
function day(at) {
  return date(at * 1000, { year: "numeric", month: "short", day: "numeric" });
}

/** @param {number} x */
function signed(x) {
  return `${x > 0 ? "+" : x < 0 ? "−" : "±"}${fixed(Math.abs(x))}`;
}

/**
 * A rating with two decimals, as the language writes it.
 * @param {number} x
 */
function fixed(x, digits = 2) {
  return number(x, { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/**
 * What a rated game that just ended did to its players' ratings (the end screen's part),
 * filled in once the profiles are read.
 * @param {string} id the game
 * @param {string} game
 * @param {(string | null)[]} names the names at the seats
 */
export function ratingNote(id, game, names) {
  const node = el("div", { class: "rating-note", id: "rating-note" }, el("p", { class: "muted small" }, t("ratings.reading")));
  Promise.all(names.map((name) => (name ? api.player(name).catch(() => null) : null))).then((found) => {
    const rows = found.map((player) => {
      const change = player?.history.find((c) => c.game_id === id);
      return player && change ? el("li", { "data-player": player.name }, playerLink(player.name),
        " ", fixed(change.rating), " ", el("span", { class: `rating-change${change.rating >= change.before ? " up" : " down"}` }, `(${signed(change.rating - change.before)})`)) : null;
    });
    put(node, el("h3", {}, t("ratings.title")), el("ul", { class: "rating-list" }, rows),
      link(`#/ratings/${game}/${names.length}`, t("ratings.leaderboard"), { class: "small" }));
  });
  return node;
}

/**
 * The leaderboard of a game, for one number of players or all.
 * @param {HTMLElement} root
 * @param {string} [game]
 * @param {string} [players]
 * @returns {null}
 */
export function ratingsScreen(root, game = "tigris", players = "") {
  const chosen = GAMES.includes(game) ? game : "tigris";
  const group = GROUPS.includes(Number(players)) ? Number(players) : null;
  const body = el("div", { id: "leaderboard" }, el("p", { class: "muted" }, t("ratings.loading")));
  // A game's tab is marked whatever the number of players; a group's, when it is the one shown.
  const tab = (/** @type {string} */ g, /** @type {number | null} */ n, all = false) => {
    const shown = g === chosen && (all || n !== null ? n === group : true);
    return link(`#/ratings/${g}${n ? `/${n}` : ""}`, n ? t("ratings.n_players", { count: n }) : all ? t("ratings.any_players") : GAME_TITLES[g] || g,
      { class: `btn small${shown ? " primary" : ""}`, "data-tab": `${g}${n ? `-${n}` : all ? "-all" : ""}`,
        "aria-current": shown ? "page" : null });
  };
  root.append(el("div", { class: "card ratings-screen" },
    el("h1", {}, t("ratings.title")),
    el("p", { class: "muted small" }, t("ratings.about")),
    el("div", { class: "tabs" }, GAMES.map((g) => tab(g, null))),
    el("div", { class: "tabs" }, tab(chosen, null, true), GROUPS.map((n) => tab(chosen, n))),
    body));
  api.ratings(chosen, group).then((page) => {
    if (!page.ratings.length) {
      put(body, el("p", { class: "muted", id: "no-ratings" }, t("ratings.nobody")));
      return;
    }
    put(body, el("table", { class: "leaderboard" },
      el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, t("ratings.player")), group ? null : el("th", {}, t("lobby.players")),
        el("th", { class: "num" }, t("ratings.rating")), el("th", { class: "num" }, t("ratings.games")))),
      el("tbody", {}, page.ratings.map((row) => el("tr", { "data-player": row.name },
        el("td", {}, String(row.rank)), el("td", {}, playerLink(row.name)),
        group ? null : el("td", {}, String(row.players)),
        el("td", { class: "num rating" }, fixed(row.rating)), el("td", { class: "num" }, String(row.games)))))));
  }).catch((error) => put(body, el("p", { class: "error" }, messageOf(error))));
  return null;
}

/**
 * A player's profile.
 * @param {HTMLElement} root
 * @param {string} name
 * @returns {null}
 */
export function playerScreen(root, name) {
  const card = el("div", { class: "card profile", id: "profile" }, el("p", { class: "muted" }, t("common.loading")));
  root.append(card);
  api.player(name).then((found) => drawProfile(card, found))
    .catch((error) => put(card, el("h1", {}, t("ratings.no_player")), el("p", {}, messageOf(error)), link("#/ratings", t("ratings.the_ratings"))));
  return null;
}

/** @param {HTMLElement} card @param {PlayerProfile} found */
function drawProfile(card, found) {
  const groups = [...new Set(found.history.map((c) => `${c.game}/${c.players}`))];
  put(card,
    el("h1", { id: "profile-name" }, found.name),
    el("p", { class: "muted small" }, t("ratings.since", { date: day(found.since) })),
    found.ratings.length
      ? el("table", { class: "leaderboard", id: "profile-ratings" },
        el("thead", {}, el("tr", {}, el("th", {}, t("lobby.game")), el("th", {}, t("lobby.players")), el("th", { class: "num" }, t("ratings.rating")), el("th", { class: "num" }, t("ratings.games")))),
        el("tbody", {}, found.ratings.map((r) => el("tr", { "data-group": `${r.game}/${r.players}` },
          el("td", {}, link(`#/ratings/${r.game}/${r.players}`, GAME_TITLES[r.game] || r.game)), el("td", {}, String(r.players)),
          el("td", { class: "num rating" }, fixed(r.rating)), el("td", { class: "num" }, String(r.games))))))
      : el("p", { class: "muted", id: "profile-unrated" }, t("ratings.unrated")),
    found.history.length ? el("div", { class: "chart-box" }, el("h2", { class: "section" }, t("ratings.over_time")), ratingChart(found.history, groups)) : null,
    el("h2", { class: "section" }, t("ratings.finished")),
    found.games.length
      ? el("ol", { class: "finished-games", id: "profile-games" }, found.games.map((g) => el("li", { "data-game": g.id },
        el("strong", {}, GAME_TITLES[g.game] || g.game), " · ",
        g.place === null ? t("ratings.no_result") : g.place === 1 ? t("ratings.won") : t("ratings.place", { place: g.place }),
        g.score === null ? "" : ` (${number(g.score)})`, " · ",
        g.players.map((_, seat) => [seat ? ", " : "", seat === g.seat ? el("strong", {}, nameAt(g, seat)) : nameAt(g, seat), g.places[seat] ? ` ${g.places[seat]}.` : ""]),
        g.rated ? el("span", { class: `rating-change${(g.change || 0) >= 0 ? " up" : " down"}` }, " ", t("ratings.rated_change", { change: g.change === null ? "" : signed(g.change) })) : null,
        " · ", el("span", { class: "muted" }, day(g.ended)), " ",
        link(`#/replay/${g.id}`, t("common.replay"), { class: "small" }))))
      : el("p", { class: "muted" }, t("ratings.no_finished")),
    el("p", {}, link("#/ratings", t("ratings.all"))),
    el("button", { class: "btn small quiet", type: "button", id: "report-player",
      onclick: () => reportDialog({
        title: t("report.player_title", { name: found.name }),
        about: t("report.player_about"),
        send: (reason) => api.reportPlayer(found.name, reason),
      }) }, t("report.player")));
}

/**
 * The rating after each rated game, one line per game and number of players.
 * @param {RatingChange[]} history oldest first
 * @param {string[]} groups
 */
function ratingChart(history, groups) {
  const width = 360, height = 150, left = 36, right = 8, top = 10, bottom = 22;
  const values = history.flatMap((c) => [c.before, c.rating]);
  let low = Math.min(...values), high = Math.max(...values);
  if (high - low < 1) { low -= 0.5; high += 0.5; }
  const x = (/** @type {number} */ i) => left + (history.length < 2 ? (width - left - right) / 2 : (i * (width - left - right)) / (history.length - 1));
  const y = (/** @type {number} */ v) => top + ((high - v) * (height - top - bottom)) / (high - low);
  /** @type {SVGElement[]} */
  const parts = [
    svg("line", { class: "grid", x1: left, x2: width - right, y1: y(high), y2: y(high) }),
    svg("line", { class: "grid", x1: left, x2: width - right, y1: y(low), y2: y(low) }),
    svg("text", { class: "axis", x: left - 4, y: y(high) + 4, "text-anchor": "end" }, fixed(high, 1)),
    svg("text", { class: "axis", x: left - 4, y: y(low) + 4, "text-anchor": "end" }, fixed(low, 1)),
    svg("text", { class: "axis", x: left, y: height - 6 }, day(history[0].at)),
    svg("text", { class: "axis", x: width - right, y: height - 6, "text-anchor": "end" }, day(history[history.length - 1].at)),
  ];
  /** @type {HTMLElement[]} */
  const legend = [];
  groups.forEach((group, index) => {
    const colour = SERIES[index % SERIES.length];
    const points = history.map((c, i) => ({ c, i })).filter(({ c }) => `${c.game}/${c.players}` === group);
    const first = points[0];
    const line = [[x(first.i) - (history.length < 2 ? 20 : 0), y(first.c.before)], ...points.map(({ c, i }) => [x(i), y(c.rating)])];
    parts.push(svg("polyline", { class: "rating-line", points: line.map((p) => p.join(",")).join(" "), stroke: colour }));
    for (const { c, i } of points) {
      parts.push(svg("circle", { class: "rating-dot", cx: x(i), cy: y(c.rating), r: 3.5, fill: colour, "data-game": c.game_id },
        svg("title", {}, t("ratings.dot", { game: GAME_TITLES[c.game] || c.game, count: c.players, rating: fixed(c.rating), change: signed(c.rating - c.before), place: c.place, date: day(c.at) }))));
    }
    const [game, players] = group.split("/");
    legend.push(el("span", { class: "legend-item" }, el("span", { class: "swatch", style: `background:${colour}` }), " ", t("ratings.group", { game: GAME_TITLES[game] || game, count: Number(players) })));
  });
  return [el("div", { class: "legend" }, legend),
    svg("svg", { class: "rating-chart", id: "rating-chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": t("ratings.over_time") }, parts)];
}
