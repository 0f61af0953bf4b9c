// @ts-check
// The rules in the browser (#/rules/GAME): each game's rules in the project's own words, with
// pictures drawn by the game's own board drawing from small positions (the guided game's steps,
// GET /api/lessons/{game}/{name}/picture), and the variants a table may be created with.

import { api } from "./api.js";
import { GAMES, GAME_TITLES } from "./games.js";
import { el, link, messageOf, put } from "./ui.js";

/** @typedef {import("./types").BoardFrame} BoardFrame */
/** @typedef {import("./types").Child} Child */
/** @typedef {import("./types").Screen} Screen */

/**
 * A picture: which lesson's position, after how many of its moves, and what it shows.
 * @typedef {{id: string, lesson: string, after: number, caption: string}} Picture
 */

/**
 * A section of the rules: its heading, its paragraphs (a list: bullet points), its pictures.
 * @typedef {{id: string, title: string, text: (string | string[])[], pictures?: Picture[]}} Section
 */

/** @type {Record<string, Section[]>} */
export const RULES = {
  tigris: [
    {
      id: "goal",
      title: "What you are after",
      text: [
        "Two to four dynasties build the first civilizations between two rivers. You collect victory points in four colours: red (temples), blue (farms), green (markets) and black (settlements).",
        "At the end only your weakest colour counts. A heap of red points is worth nothing if you have no green: keep all four growing.",
      ],
    },
    {
      id: "pieces",
      title: "The board and the pieces",
      text: [
        "The board is a grid of 16 columns (A–P) and 11 rows. River squares are blue: only farms go there. Ten temples start on the board (fourteen on the advanced side), each with a treasure.",
        [
          "Six tiles in a hidden hand, drawn from a bag.",
          "Four leaders: the king (black), the priest (red), the farmer (blue) and the trader (green). They belong to you; the colours do not.",
          "Two catastrophe tiles for the whole game.",
          "Six monuments shared by all, one for each pair of colours.",
        ],
      ],
    },
    {
      id: "turn",
      title: "A turn: two actions",
      text: [
        "On your turn you take two actions, the same one twice if you like, or pass:",
        [
          "Place a leader on an empty land square next to a temple, move one already on the board, or take one back. A leader may not join two kingdoms.",
          "Place a tile from your hand: farms on the river, every other tile on land. A tile may not join three kingdoms.",
          "Place a catastrophe on an empty square or on a tile without treasure or monument. That square is ruined for the rest of the game.",
          "Swap any number of tiles from your hand for new ones from the bag.",
        ],
        "At the end of your turn every player draws back up to six tiles.",
      ],
    },
    {
      id: "kingdoms",
      title: "Regions, kingdoms and points",
      text: [
        "Tiles and leaders that touch along an edge are connected. A group of them with at least one leader is a kingdom; without a leader it is just a region.",
        "When you place a tile in a kingdom, the leader of the tile's colour there scores one point of that colour for its owner. With no such leader the king takes it; with no king either, nobody scores. A tile outside every kingdom scores nothing.",
      ],
      pictures: [{ id: "kingdom", lesson: "tiles", after: 1, caption: "A kingdom: the archer's king beside a temple. The market just placed scored 1 green for the king." }],
    },
    {
      id: "revolt",
      title: "Revolt: two leaders of one colour in a kingdom",
      text: [
        "Placing a leader into a kingdom that already holds a leader of the same colour starts a revolt. Each side counts the temples touching its leader, then adds red tiles from hand: the attacker first, then the defender.",
        "The higher total wins; a tie goes to the defender. The loser's leader goes home, the winner scores one red point, and every committed tile leaves the game.",
      ],
      pictures: [{ id: "revolt", lesson: "revolt", after: 1, caption: "A revolt: the archer's priest (two temples) against the bull's (one)." }],
    },
    {
      id: "war",
      title: "War: two kingdoms joined",
      text: [
        "A tile that joins two kingdoms gets the unification marker. If the joined kingdom now holds two leaders of one colour, they go to war (the active player picks the order when several colours are at war).",
        "Each side counts the tiles of its leader's colour on its own side of the join, then adds tiles of that colour from hand. The loser's leader and all its supporting tiles leave the board; the winner scores a point for the leader and one for each tile removed. Ties go to the defender.",
        "In a priests' war a temple stays when it holds a treasure or touches another leader.",
      ],
      pictures: [{ id: "war", lesson: "war", after: 1, caption: "A war between traders: two markets on the archer's side, one on the bull's." }],
    },
    {
      id: "monument",
      title: "Monuments",
      text: [
        "Four tiles of one colour in a 2×2 square may be turned face down to carry a free monument of that colour. Face-down tiles still connect but count for nothing else.",
        "At the end of your turn, each of your leaders in a kingdom with a monument of its colour scores one point of that colour (the king from black monuments).",
      ],
      pictures: [{ id: "monument", lesson: "monument", after: 2, caption: "The red and black monument on four turned temples: it pays the archer's king a black point each turn." }],
    },
    {
      id: "catastrophe",
      title: "Catastrophes",
      text: [
        "A catastrophe destroys the tile under it and blocks the square for good. It can split kingdoms; a leader left without a temple beside him goes home.",
      ],
    },
    {
      id: "treasure",
      title: "Treasures",
      text: [
        "When a kingdom with a trader holds two or more treasures, the trader's owner takes all but one (those on the starred squares first). A treasure counts as a point of any colour at the end.",
      ],
      pictures: [{ id: "treasure", lesson: "scoring", after: 1, caption: "Two treasures in the archer's trader's kingdom: he takes one." }],
    },
    {
      id: "end",
      title: "The end and the final scoring",
      text: [
        "The game ends after the turn in which only two treasures are left on the board, or when the bag cannot refill a hand.",
        "Everyone reveals their points and places each treasure on the colour where it helps most. Your score is your lowest colour; a tie is broken by the next lowest, and so on.",
      ],
    },
    {
      id: "variants",
      title: "Variants",
      text: [
        [
          "Advanced board: the other side, with fourteen temples and a different river.",
          "Civilization buildings: a straight line of three or more face-up tiles of a colour may carry that colour's building; a tile in its kingdom then scores two points.",
          "English commitment rules: the attacker may only commit enough to win, the defender only exactly enough to tie.",
          "The wonder: a plus of five tiles of a colour may become the wonder, which pays a point of your choice each turn your king stands in its kingdom.",
          "Open scoring: everybody's points are visible.",
        ],
      ],
    },
  ],
  gheos: [
    {
      id: "goal",
      title: "What you are after",
      text: [
        "Players are gods shaping the land with triangular tiles. Civilizations rise and fall on the continents; you score for the followers you hold of them. The most points wins.",
      ],
    },
    {
      id: "tiles",
      title: "Tiles, continents and islands",
      text: [
        "Each tile shows land divided into regions: a landmass reaches two or three edges, a coast only one. Tiles laid edge to edge join the land across the edge.",
        "Land that runs across at least two tiles with a landmass is a continent. Two coasts facing each other and nothing else are an island. Symbols on the land: wheat, cups, swords, pyramids and temples.",
      ],
      pictures: [{ id: "continent", lesson: "continent", after: 1, caption: "A continent: the start tile's landmass and the tile laid beside it, two wheat." }],
    },
    {
      id: "turn",
      title: "A turn",
      text: [
        [
          "Place a tile from your hand next to the table, or lay it over a tile already there (which leaves the game). Tiles with a pyramid are never replaced.",
          "Then either start a civilization on a continent nobody holds, taking one follower per wheat there, or take one follower of a civilization on the table.",
          "Then you may play one of your three scoring tokens.",
          "Draw back to two tiles.",
        ],
      ],
    },
    {
      id: "war",
      title: "War",
      text: [
        "A tile that merges continents held by civilizations starts a war, and you pay one follower of your own for it. The civilization with the most swords on its former continent wins (the new tile's swords do not count); ties are yours to decide. The losers leave with all their followers.",
      ],
      pictures: [
        { id: "war-before", lesson: "war", after: 0, caption: "Red's continent (left) and blue's (right), with an empty cell between them." },
        { id: "war", lesson: "war", after: 2, caption: "A tile laid there merged them: blue (two swords) beat red (one), and red left the board." },
      ],
    },
    {
      id: "migration",
      title: "Migration",
      text: [
        "Replacing a tile may split a held continent. The civilization moves to the part with the most wheat (ties: you choose), and you pay one follower. A civilization left on an island or a single tile disappears; one that moves onto a held continent loses a war there.",
      ],
      pictures: [
        { id: "migration-before", lesson: "migration", after: 0, caption: "Red's continent runs through the tile left of the start tile." },
        { id: "migration", lesson: "migration", after: 1, caption: "That tile replaced by three coasts: red moved to the part with more wheat." },
      ],
    },
    {
      id: "temples",
      title: "Temples and scoring tokens",
      text: [
        "A tile with a temple scores you, when it lands on a held continent, one point per symbol of the temple's kind there.",
        "A scoring token pays you alone: for each follower you hold, the cups on its civilization's continent.",
      ],
    },
    {
      id: "epoch",
      title: "Epochs and the end",
      text: [
        "Epoch tiles are shuffled into the stack. When one is drawn, every player scores, for each follower, the pyramids on its continent.",
        "The game ends with the sixth epoch for two players (seventh for three, eighth for four), or when all tokens are played. Then everyone scores as with a token, once more. Most points wins; ties go to the most followers.",
      ],
      pictures: [{ id: "epoch", lesson: "epoch", after: 1, caption: "An epoch: each red follower scores the continent's one pyramid." }],
    },
    {
      id: "variants",
      title: "Options",
      text: ["A table may use another tile set (a file in the same format as the packaged one)."],
    },
  ],
};

/** What each option of the new-table form means (lobby.js shows it under the option). */
/** @type {Record<string, string>} */
export const OPTION_HELP = {
  board: "Standard: ten temples. Advanced: the other side of the board, fourteen temples and another river.",
  buildings: "A line of three or more tiles of a colour may carry its building: tiles in its kingdom score double.",
  english: "In conflicts the attacker may commit only enough to win, the defender only exactly enough to tie.",
  wonder: "A plus of five tiles of a colour may become the wonder: a point of your choice each turn your king is in its kingdom.",
  open_scoring: "Everybody's points are shown during the game.",
  tiles: "Another tile set, in the format of the packaged data file (empty: the packaged set).",
};

/**
 * #/rules: both games; #/rules/GAME: that game's rules and pictures.
 * @param {HTMLElement} root
 * @param {string | undefined} game
 * @returns {Screen | null}
 */
export function rulesScreen(root, game) {
  if (!game || !Object.hasOwn(RULES, game)) {
    root.append(el("div", { class: "card rules" }, el("h1", {}, "Rules"),
      el("p", {}, link("#/rules/tigris", "Tigris & Euphrates"), " ", link("#/rules/gheos", "Gheos"))));
    return null;
  }
  const sections = RULES[game];
  const other = game === "tigris" ? "gheos" : "tigris";
  root.append(el("article", { class: "card rules", id: "rules", "data-game": game },
    el("h1", {}, `${GAME_TITLES[game]}: the rules`),
    el("nav", { class: "rules-nav" },
      sections.map((s) => el("a", { href: `#/rules/${game}`, "data-section": s.id, onclick: (e) => { e.preventDefault(); document.getElementById(`rules-${s.id}`)?.scrollIntoView(); } }, s.title)),
      link(`#/learn/${game}`, "Guided first game", { class: "btn primary" }),
      link(`#/rules/${other}`, `${GAME_TITLES[other]} rules`, { class: "btn" })),
    sections.map((s) => el("section", { id: `rules-${s.id}` },
      el("h2", {}, s.title),
      s.text.map((p) => (typeof p === "string" ? el("p", {}, p) : el("ul", {}, p.map((item) => el("li", {}, item))))),
      (s.pictures || []).map((p) => picture(game, p))))));
  return null;
}

/**
 * A picture: the game's own board drawing of a lesson's position.
 * @param {string} game
 * @param {Picture} p
 */
function picture(game, p) {
  const board = el("div", { class: "board-wrap rules-board" }, el("p", { class: "muted" }, "Drawing…"));
  const figure = el("figure", { class: "rules-picture", id: `picture-${p.id}`, "data-picture": p.id },
    board, el("figcaption", {}, p.caption));
  const module = GAMES[game];
  api.picture(game, p.lesson, p.after).then((answer) => {
    /** @type {BoardFrame} */
    const frame = {
      view: answer.view,
      legal_actions: [],
      table: {
        game, players: answer.view.players, seats: answer.view.players.map(() => "human"), seat: null,
        status: answer.over ? "over" : "running", moves: p.after, to_move: answer.over ? null : answer.view.to_move,
        events: [], can_undo: false, version: `picture-${p.id}`,
      },
    };
    const parts = { board, hand: el("div"), controls: el("div"), scores: el("div"), decision: el("div") };
    const renderer = module.createRenderer(parts, { mode: "replay", act() {}, undo() {} });
    renderer.update(frame, { interactive: false });
    figure.dataset.drawn = "1";
  }).catch((error) => put(board, el("p", { class: "error" }, messageOf(error))));
  return figure;
}

/**
 * The one-screen player aid: the turn and the scoring in a few lines.
 * @param {string} game
 * @returns {Child[]}
 */
export function aidOf(game) {
  if (game === "gheos") {
    return [
      el("h3", {}, "Your turn"),
      el("ol", {},
        el("li", {}, "Place a tile next to the table, or replace one (never one with a pyramid)."),
        el("li", {}, "Start a civilization on a free continent (followers = its wheat), or take one follower."),
        el("li", {}, "You may play a scoring token: cups × your followers, for you alone."),
        el("li", {}, "Draw to two tiles; an epoch pays everybody pyramids × followers.")),
      el("h3", {}, "Conflicts"),
      el("ul", {},
        el("li", {}, "War (continents merge): most swords on the old continent wins; losers leave with all followers. Costs you a follower."),
        el("li", {}, "Migration (a held continent splits): to the part with most wheat. Costs you a follower.")),
      el("h3", {}, "End"),
      el("p", {}, "6th epoch (2 players), 7th (3), 8th (4), or all tokens played; then a last token scoring for everyone. Most points wins."),
    ];
  }
  return [
    el("h3", {}, "Your turn: two actions"),
    el("ul", {},
      el("li", {}, "Leader: next to a temple, never joining two kingdoms."),
      el("li", {}, "Tile: farms on the river, others on land; scores for the leader of its colour (or the king)."),
      el("li", {}, "Catastrophe (two a game), or swap tiles.")),
    el("h3", {}, "Conflicts"),
    el("ul", {},
      el("li", {}, "Revolt (leader placed): adjacent temples + red from hand. Winner: 1 red."),
      el("li", {}, "War (kingdoms joined): tiles of the colour on your side + from hand. Winner: 1 per leader and tile removed."),
      el("li", {}, "Ties go to the defender.")),
    el("h3", {}, "Each turn's end"),
    el("p", {}, "Monuments pay your leaders of their colours; everyone refills to six."),
    el("h3", {}, "End"),
    el("p", {}, "Two treasures left, or the bag runs dry. Your score is your weakest colour (treasures fill any colour)."),
  ];
}
