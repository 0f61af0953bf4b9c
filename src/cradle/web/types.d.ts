// The shapes of what the play server sends (docs/server.md, docs/tigris-view.md, docs/gheos.md)
// and of what the client's modules hand each other. Types only: the browser never loads this
// file; `make lint` checks every module against it (tsc, see tsconfig.json).

// -- the API: tables, the lobby, the new-table form --------------------------------------------

/** A seat's number at its table, from 0. */
export type Seat = number;

/** A table option: the board side, a variant switched on or off. */
export type OptionValue = string | number | boolean | null;
export type Options = Record<string, OptionValue>;

/** `GET /api/meta`: the games this server offers and the bots a seat may take. */
export interface Meta {
  games: GameInfo[];
  bots: string[];
  /** The bots for the new-table form: the levels weakest first, then the others. */
  bot_menu?: BotInfo[];
  max_bot_seconds: number;
  /** Whether the server analyses each finished game a person played by itself. */
  analyse_finished?: boolean;
  /** the server sends mail (address checks, reset links, turn notices, invitations) */
  mail?: boolean;
}

export interface GameInfo {
  name: string;
  min_players: number;
  max_players: number;
  /** Every option with its default value. */
  options: Options;
}

export interface BotInfo {
  name: string;
  /** One of the AI's playing levels (`strength` orders them), or another bot. */
  level: boolean;
  strength: number | null;
  /** The most it thinks per decision on this server (0: at once). */
  seconds: number | null;
  about: string;
}

export type TableStatus = "open" | "running" | "over";

/** Public facts about a table: a row of the lobby. */
export interface TableSummary {
  id: string;
  game: string;
  players: string[];
  /** Each seat's kind: "human", "open" (offered in the lobby) or "bot:NAME". */
  seats: string[];
  /** The people's names at the seats (an account's or a guest's), where known. */
  names?: (string | null)[];
  hotseat: boolean;
  status: TableStatus;
  moves: number;
  to_move: Seat | null;
  created: number;
  updated: number;
  /** The table's options as shown (a long text option, a custom tile set: "custom"). */
  options?: Options;
  /** Invite only: not listed in the lobby. */
  private?: boolean;
  /** "live", or "turn": turn-based, `deadline_s` per decision. */
  mode?: "live" | "turn";
  deadline_s?: number | null;
  /** When the person deciding now runs out of time (Unix seconds); null: none runs. */
  deadline?: number | null;
  /** A live table's clocks (null: none): each seat's seconds left as its clock last stopped;
   * the running one's (the seat deciding) ends at `deadline`. */
  clock?: Clock | null;
  /** The seat a stand-in bot plays for now (its deadline passed and the others chose so). */
  standin?: Seat | null;
  /** The seats whose person is away: their stand-in plays each of their turns whose time
   * runs out, until they move or say they are back. */
  away?: Seat[] | null;
  /** Each human seat's stand-in bot level (null: a bot's seat). */
  standins?: (string | null)[] | null;
  /** How a game ended before its rules ended it. */
  ended_by?: "conceded" | "timeout" | "abandoned" | null;
  result?: SeatResult[] | null;
  /** The game rates its players when it ends (every seat a different account's, no undo, no
   * hints), or will once its open or invited seats are taken. */
  rated?: boolean;
}

/** The lobby's filters (`GET /api/games`'s parameters). */
export interface LobbyFilter {
  status?: TableStatus;
  game?: string;
  players?: number;
  mode?: "live" | "turn";
  /** NAME=VALUE: an option the table sets so. */
  variant?: string;
  /** Comma-separated game ids ("my games"). */
  ids?: string;
}

/** An account, as `GET /api/me` shows it to its owner. */
export interface Account {
  id: string;
  name: string;
  email: string | null;
  /** the person opened the link mailed to `email`: no other mail goes to it before */
  email_verified: boolean;
  turn_mail: boolean;
  /** friends' invitations to seats are mailed too */
  invite_mail: boolean;
  created: number;
}

/**
 * `GET /api/me` (and sign-up, sign-in, sign-out): the account, null for a guest; `ended`
 * (once): why this device's session ended elsewhere ("password": changed on another device,
 * "reset": reset by a mailed link).
 */
export interface Me {
  account: Account | null;
  csrf: string | null;
  ended?: string | null;
}

/** A listed table in progress where a friend holds a seat. */
export interface FriendTable {
  id: string;
  game: string;
  players: number;
  status: string;
  mode: string;
  /** seats nobody took yet */
  free: number;
}

/** Another account in one's friend list. */
export interface FriendInfo {
  name: string;
  online?: boolean;
  tables?: FriendTable[];
}

/** `GET /api/friends`: friends, the requests one made and got, whom one blocks. */
export interface FriendList {
  friends: FriendInfo[];
  asked: FriendInfo[];
  asking: FriendInfo[];
  blocked: FriendInfo[];
}

/** `POST /api/friends`: "friends" or "asked", and the list as it now is. */
export interface FriendAnswer extends FriendList {
  status: string;
}

/** A friend's invitation to a seat, in one's inbox. */
export interface InvitationInfo {
  id: string;
  game_id: string;
  game: string;
  seat: number;
  players: number;
  mode: string;
  sender: string;
  created: number;
}

/** `GET /api/me/invitations`. */
export interface Invitations {
  invitations: InvitationInfo[];
}

/** What `/ws/me` sends a signed-in page. */
export type AccountFrame =
  | { type: "hello"; name: string }
  | { type: "inbox" }
  | { type: "signed_out"; reason: string }
  | { type: "pong" }
  | { type: "error"; error: string; status: number };

/** One game of `GET /api/me/games`. */
export interface MyGame {
  id: string;
  game: string;
  players: string[];
  /** Each seat's kind: "human", "bot:LEVEL". */
  seats: string[];
  names: (string | null)[];
  seats_held: Seat[];
  status: string;
  moves: number;
  result: { seat: Seat; place: number; score?: number }[] | null;
  created: number;
  updated: number;
  to_move: Seat | null;
  your_turn: boolean;
  /** As the lobby's rows say it. */
  rated: boolean;
}

/** `GET /api/me/games`: the games, "your turn" first, and how many wait for you. */
export interface MyGames {
  games: MyGame[];
  your_turn: number;
}

/** `POST /api/games/{id}/transfer`: a one-time link moving a guest's seat to another device. */
export interface Transfer {
  id: string;
  seat: Seat;
  code: string;
  link: string;
  qr_svg: string;
  expires_in: number;
}

/** `GET /api/games`: one page of the lobby, newest activity first. */
export interface LobbyPage {
  games: TableSummary[];
  /** The `before` of the next page; null on the last. */
  next: string | null;
}

/** A live table's time control and clocks. */
export interface Clock {
  base_s: number;
  increment_s: number;
  left: number[];
  running: Seat | null;
  /** Since when each seat's person has had no page open (Unix seconds; null: one is open). */
  gone: (number | null)[];
  /** How long a person may be gone before the others may act as when their clock ran out. */
  absent_s: number;
}

/** `POST /api/games`. */
export interface NewTable {
  game: string;
  players: number;
  seats: string[];
  options: Options;
  hotseat: boolean;
  mode?: "live" | "turn";
  deadline_s?: number;
  /** A live table's clocks: each person's base time and the seconds added per turn. */
  clock?: { base_s: number; increment_s?: number };
  private?: boolean;
  /** A guest's name for their seat (a signed-in creator's seat shows the account's). */
  name?: string;
  /** Every seat a different signed-in person's, no undo, no hints: the end moves ratings. */
  rated?: boolean;
  /** Spectators read and write the table's chat. */
  spectator_chat?: boolean;
}

/** A rating: `rating` is openskill's cautious estimate, `mu - 3 sigma`. */
export interface Rated {
  rating: number;
  mu: number;
  sigma: number;
}

/** `GET /api/ratings?game=&players=`: the best rated players, best first. */
export interface RatingsPage {
  game: string;
  players: number | null;
  ratings: (Rated & { rank: number; name: string; players: number; games: number; updated: number })[];
}

/** What one rated game did to a player's rating. */
export interface RatingChange extends Rated {
  game_id: string;
  game: string;
  players: number;
  place: number;
  before: number;
  at: number;
}

/** `GET /api/players/{name}`. */
export interface PlayerProfile {
  name: string;
  since: number;
  ratings: (Rated & { game: string; players: number; games: number; updated: number })[];
  /** Oldest first. */
  history: RatingChange[];
  games: {
    id: string;
    game: string;
    /** The names at the seats (a person's, else the game's name for the seat). */
    players: string[];
    /** Each seat's kind: "human", "bot:LEVEL" (a bot is named by its level). */
    seats: string[];
    seat: Seat;
    place: number | null;
    score: number | null;
    places: (number | null)[];
    rated: boolean;
    change: number | null;
    ended: number;
  }[];
}

/** `POST /api/games`'s answer: the creator's seats (a hot seat: none, and a table token). */
export interface Created {
  id: string;
  game: string;
  players: string[];
  seats: { seat: Seat; token: string; invite: string | null }[];
  open: Seat[];
  bot_seconds: number | null;
  table_token?: string;
}

/** `POST /api/games/{id}/join`: the seat taken and its fresh token. */
export interface Joined {
  id: string;
  seat: Seat;
  token: string;
}

/** Every error answer's body (HTTP). */
export interface ErrorBody {
  error: string;
  field?: string;
}

// -- views and frames ----------------------------------------------------------------------------

/** What a move did (the contract's Event): its type, a sentence, the seat that did it, and
 * each type's own details (`GheosEvent`, `TigrisConflictResult`). */
export interface GameEvent {
  type: string;
  text: string;
  seat?: Seat;
  [detail: string]: unknown;
}

/** A seat's line of the result (each game adds its own details). */
export interface SeatResult {
  seat: Seat;
  score: number;
  /** 1 wins; ties share a place. */
  place: number;
  /** The seat that left a game ended early: "conceded", "timeout" or "abandoned". */
  out?: string;
}

/** The facts about the table the game screens draw with. The replay and the analysis make
 * their own for boards of the past. */
export interface BoardTable {
  game: string;
  players: string[];
  seats: string[];
  /** The people's names at the seats, where known (a past board has none). */
  names?: (string | null)[];
  /** Whose view this is; null for spectators. */
  seat: Seat | null;
  status: TableStatus;
  moves: number;
  events: GameEvent[];
  can_undo: boolean;
  /** Counts every change of the table; a past board's is `past-N`, so leaving it redraws. */
  version: number | string;
  result?: SeatResult[] | null;
  last?: LastAction | null;
}

/** A view's `table`: public facts about the table, as this viewer gets them. */
export interface TableMeta extends TableSummary, BoardTable {
  version: number;
  claimed: boolean[];
  /** Seats still offered in the lobby. */
  open: Seat[];
  /** Seats whose invite is unused. */
  invites: Seat[];
  screen: "seat" | "hotseat" | "spectator";
  /** Whether `/hint` answers at this table. */
  hints: boolean;
  /** Whether spectators read and write the chat. */
  spectator_chat?: boolean;
  /** A rated game: its end moves the players' ratings. */
  rated?: boolean;
  /** The names shown at the seats (an account's, a guest's; null: none given). */
  names?: (string | null)[];
  result: SeatResult[] | null;
  last: LastAction | null;
}

/** The last action of the game: its seat, the action as this viewer may know it, and the
 * stand-in bot level that made it for the seat's person (null: the seat's own player). */
export interface LastAction {
  seat: Seat;
  action: string;
  standin?: string | null;
}

/** A board as the game modules draw it: a view with whose turn it is, the viewer's legal
 * actions, and facts about the table. */
export type BoardFrame<V extends View = View> = V & {
  to_move: Seat | null;
  /** The viewer's actions when it decides, else none. */
  legal_actions: string[];
  table: BoardTable;
};

/** `GET /api/games/{id}` and every `view` frame of the WebSocket: `view(seat)` and the table. */
export type Frame<V extends View = View> = BoardFrame<V> & { table: TableMeta };

/** A frame the WebSocket pushes. */
export type ServerFrame =
  | (Frame & { type: "view" })
  | { type: "error"; error: string; status: number }
  | { type: "chat"; line: ChatLine }
  | { type: "pong" };

/** A line of a table's chat (`POST /chat`'s answer, `GET /chat`'s lines, a `chat` frame). */
export interface ChatLine {
  id: number;
  /** The writer's seat; null for a spectator. */
  seat: Seat | null;
  /** Who wrote it, for `/mute`: `s:SEAT`, `v:N` (the Nth spectator to write), `a:ACCOUNT`. */
  speaker: string;
  name: string;
  /** Plain text: drawn as text, never as markup. */
  text: string;
  /** Unix time. */
  at: number;
}

/** `GET /api/games/{id}/chat` and `POST /mute`. */
export interface ChatPage {
  lines: ChatLine[];
  /** The speakers this viewer muted. */
  muted: string[];
  can_write: boolean;
  /** Whether spectators read and write this chat. */
  spectators: boolean;
  /** The speaker this viewer's own lines are under (null: none yet, or a hot seat). */
  you?: string | null;
  /** The muted speakers' names (their lines, which would say it, are not shown). */
  names?: Record<string, string>;
}

/** A game's view of one seat (or a spectator's: `seat` null). */
export type View = TigrisView | GheosView;

// -- history, past boards, replays ---------------------------------------------------------------

/** One move of the game's history, as this viewer may know it (another seat's swap: `swap N`). */
export interface Step {
  /** The move it was, from 1. */
  ply: number;
  seat: Seat;
  action: string;
  events: GameEvent[];
  /** The stand-in bot level that made the move for the seat's person (null: its own player). */
  standin?: string | null;
}

/** What is drawn on a tile (Gheos), by tile name: the log and the analysis name tiles by it. */
export type Pieces = Record<string, Piece>;

export interface Piece {
  pyramid?: boolean;
  regions: PieceRegion[];
}

export interface PieceRegion {
  landmass: boolean;
  wheat: number;
  cup: number;
  sword: number;
  pyramid: number;
  temple: string | null;
}

/** `GET /api/games/{id}/history`. */
export interface History {
  id: string;
  game: string;
  players: string[];
  seats: string[];
  seat: Seat | null;
  version: number;
  moves: number;
  steps: Step[];
  pieces: Pieces;
  /** The people's names at the seats (null: none given, or a bot). */
  names?: (string | null)[];
}

/** `GET /api/games/{id}/board?ply=N`: the board after N moves, as the viewer saw it. */
export interface PastBoard {
  id: string;
  game: string;
  players: string[];
  seats: string[];
  ply: number;
  seat: Seat | null;
  step: Step | null;
  pieces: Pieces;
  view: View;
  to_move: Seat | null;
}

/** `GET /api/games/{id}/replay`: every step of a finished game and the view after it. */
export interface Replay {
  id: string;
  game: string;
  players: string[];
  seats: string[];
  options: Options;
  result: SeatResult[];
  steps: ReplayStep[];
  /** The people's names at the seats (null: none given, or a bot). */
  names?: (string | null)[];
}

/** A step of a replay: the start (ply 0, no action) or a move, with the view after it. */
export type ReplayStep = (Step | { ply: 0; seat: null; action: null; events: GameEvent[]; standin?: null }) & { view: View };

// -- help: explanations, hints, analyses ---------------------------------------------------------

/** `POST /api/games/{id}/explain`: why an action is not legal now. */
export interface Explanation {
  action: string;
  legal: boolean;
  reason: string | null;
}

/** `POST /api/games/{id}/hint`. */
export interface HintAnswer {
  ply: number;
  seat: Seat;
  version: number;
  hints: Hint[];
}

export interface Hint {
  action: string;
  win_chance: number;
  visits: number;
  reason: string;
}

/** `GET /api/games/{id}/analysis`: what the review found so far, once it runs. */
export type Analysis = AnalysisPending | AnalysisFound;

interface AnalysisBase {
  id: string;
  game: string;
  players: string[];
  seats: string[];
  /** The people's names at the seats (null: none given, or a bot). */
  names?: (string | null)[];
  moves: number;
  /** Decisions reviewed, of `total`. */
  done: number;
  total: number;
}

export interface AnalysisPending extends AnalysisBase {
  status: "none" | "queued" | "failed";
  analysis: null;
}

export interface AnalysisFound extends AnalysisBase {
  status: "running" | "done";
  analysis: AnalysisData;
}

export interface AnalysisData {
  /** Seconds of search per decision reviewed. */
  seconds: number;
  /** After the start and after every move, each seat's chance. */
  chances: number[][];
  reviews: Review[];
  /** The plies of the moves that cost most (once the review is done). */
  costly?: number[];
}

/** A decision reviewed: the move played and the best one, with their chances. */
export interface Review {
  ply: number;
  seat: Seat;
  played: string;
  played_chance: number;
  best: string;
  best_chance: number;
  loss: number;
  why: string;
  played_why: string;
  alternatives: { action: string; chance: number; visits: number }[];
  /** The tiles in the mover's hand (Gheos), by what is drawn on them. */
  pieces?: Pieces;
}

// -- Tigris & Euphrates (docs/tigris-view.md) ----------------------------------------------------

export type TigrisColor = "red" | "blue" | "green" | "black";
export type TigrisRole = "king" | "priest" | "farmer" | "trader";

export interface TigrisView {
  game: "tigris";
  seat: Seat | null;
  options: { board: string; buildings: boolean; english: boolean; wonder: boolean; open_scoring: boolean };
  players: string[];
  active: Seat;
  actions_left: number;
  /** What lies on each square: "red", "red*" (a treasure on it), "leader:bull:king",
   * "catastrophe", "down:red" (under a monument), "wonder". */
  board: Record<string, string>;
  unification: string | null;
  monuments: { colors: TigrisColor[]; cell: string }[];
  unused_monuments: TigrisColor[][];
  /** The viewer's own hand; null for spectators. */
  hand: TigrisColor[] | null;
  hand_sizes: Record<string, number>;
  bag_size: number;
  /** By dynasty: the viewer's own points only, unless open scoring or the game is over. */
  points: Record<string, Record<TigrisColor, number>>;
  treasures: Record<string, number>;
  catastrophes: Record<string, number>;
  /** The leaders beside the board, by dynasty. */
  supply: Record<string, TigrisRole[]>;
  buildings: Partial<Record<TigrisColor, string>>;
  wonder: string | null;
  pending: TigrisPending | null;
  /** The bag ran short: this is the last turn. */
  ending: boolean;
  is_over: boolean;
  result: TigrisResult[] | null;
}

/** The public part of a conflict or choice in progress. */
export type TigrisPending = TigrisConflict | TigrisWarOrder | TigrisTreasureChoice | TigrisChoice;

interface TigrisPendingBase {
  placed: string | null;
  unification: string | null;
}

export interface TigrisConflict extends TigrisPendingBase {
  kind: "revolt" | "war";
  color: TigrisColor;
  attacker: Seat;
  defender: Seat;
  /** What the attacker committed, once it has. */
  attacker_commit: number | null;
  attacker_strength: number;
  defender_strength: number;
  /** Wars still to fight. */
  queue?: TigrisColor[];
}

export interface TigrisWarOrder extends TigrisPendingBase {
  kind: "war_order";
  colors: TigrisColor[];
}

export interface TigrisTreasureChoice extends TigrisPendingBase {
  kind: "treasure";
  seat: Seat;
  cells: string[];
}

export interface TigrisChoice extends TigrisPendingBase {
  kind: "monument" | "building" | "wonder" | "wonderpoint";
}

export interface TigrisResult extends SeatResult {
  dynasty: string;
  points: Record<TigrisColor, number>;
  treasures: number;
  /** The points once the treasures lift the lowest colours. */
  final: Record<TigrisColor, number>;
}

/** A revolt or war decided: who won, and each side's strength. */
export interface TigrisConflictResult extends GameEvent {
  type: "revolt_result" | "war_result";
  winner: Seat;
  loser: Seat;
  attack: number;
  defence: number;
}

/** `GET /api/boards/tigris?board=NAME`: the squares that never change. */
export interface TigrisMap {
  river: string[];
  temples: string[];
  special: string[];
}

// -- Gheos (docs/gheos.md) -----------------------------------------------------------------------

export interface GheosView {
  game: "gheos";
  seat: Seat | null;
  options: Options;
  players: string[];
  active: Seat;
  /** The step of the turn: "tile", "civ", "token", "pay", "migrate", "war", "over". */
  phase: string;
  map: GheosCell[];
  /** The empty places next to the map. */
  frontier: string[];
  areas: GheosArea[];
  civilizations: Record<string, GheosCivilization>;
  /** Followers left to take, by civilization. */
  supply: Record<string, number>;
  /** Followers held, by player and civilization. */
  followers: Record<string, Record<string, number>>;
  points: Record<string, number>;
  tokens: Record<string, number>;
  /** The viewer's own tiles; null for spectators. */
  hand: GheosHandTile[] | null;
  hand_sizes: Record<string, number>;
  stack_size: number;
  stack_epochs: number;
  epochs_drawn: number;
  epoch_tiles: number;
  end_epoch: number;
  removed: string[];
  pending: GheosPending | null;
  is_over: boolean;
  result: GheosResult[] | null;
}

/** A tile on the map; cells are "row,col" and point up when row + col is even. */
export interface GheosCell {
  cell: string;
  row: number;
  col: number;
  up: boolean;
  tile: string;
  rotation: number;
  pyramid: boolean;
  regions: GheosRegion[];
}

/** A region of a tile on the map: `ref` "row,col:edge", its edges by name ("s", "nw", ...). */
export interface GheosRegion extends PieceRegion {
  ref: string;
  edges: string[];
  area: number;
  civ: string | null;
}

/** A tile in the hand: its regions on the tile's own edges 0, 1, 2. */
export interface GheosHandTile {
  tile: string;
  shape: string;
  rotations: number[];
  text: string;
  regions: (PieceRegion & { edges: number[] })[];
}

/** A continent, an island or a lone piece of land, with what is drawn on it. */
export interface GheosArea {
  area: number;
  ref: string;
  kind: string;
  tiles: number;
  wheat: number;
  cup: number;
  sword: number;
  pyramid: number;
  civ: string | null;
}

export interface GheosCivilization {
  area: number;
  ref: string;
  /** Followers left to take. */
  supply: number;
}

/** The war or migration being resolved. */
export interface GheosPending {
  kind: string;
  cell: string;
  swords: Record<string, number>;
  moved: string[];
  migrations: { civ: string; options: string[]; split: boolean }[];
  wars: { civs: string[]; options: string[] }[] | null;
}

export interface GheosResult extends SeatResult {
  player: string;
  points: number;
  followers: number;
}

/** What a Gheos event may carry besides its type and text (each type has some of these). */
export interface GheosEvent extends GameEvent {
  player?: string;
  tile?: string;
  removed?: string;
  cell?: string;
  civ?: string;
  civs?: string[];
  winner?: string;
  to?: string;
  at?: string;
  followers?: number;
}

// -- the client's own parts ----------------------------------------------------------------------

/** What a screen returns: how to stop it (timers, sockets) when another screen opens. */
export interface Screen {
  destroy(): void;
}

/** A screen by the words of the address after its name (`#/replay/ID`: ["ID"]). */
export interface Route {
  /** How many words it needs. */
  needs: number;
  open(root: HTMLElement, args: string[]): Screen | null;
}

/** What this browser keeps of a game (state.js). */
export interface SavedTable {
  token?: string;
  table_token?: string;
  seat?: Seat;
  game?: string;
  /** The invites this browser made, to show until they are used. */
  invites?: { seat: Seat; invite: string | null }[];
  /** This browser made the table (its creator may remove it before it begins). */
  creator?: boolean;
  saved?: number;
}

/** Attributes of el() and svg(): strings, numbers, true (present), and false, null or
 * undefined (left out); `on...` an event listener; `dataset` the element's data. */
export type AttrValue = string | number | boolean | null | undefined | ((event: never) => void) | Record<string, string>;
type EventAttrs = { [K in keyof GlobalEventHandlersEventMap as `on${K}`]?: ((event: GlobalEventHandlersEventMap[K]) => void) | null };
export interface Attrs extends EventAttrs {
  [attribute: string]: AttrValue;
}

/** What el() and svg() take as children: nodes, text, and lists of them (null and false are
 * left out). */
export type Child = Node | string | number | boolean | null | undefined | readonly Child[];

/** A button of a dialog or a decision panel. */
export interface DialogButton {
  label: string;
  action?: string;
  kind?: string;
  onclick?: () => void;
  keepOpen?: boolean;
}

/** The parts of a game screen a board renderer draws into. */
export interface BoardParts {
  board: HTMLElement;
  hand: HTMLElement;
  controls: HTMLElement;
  scores: HTMLElement;
}

/** What a renderer may do at its table: move, undo, ask why an action is not legal. */
export interface TableContext {
  /** "seat", "hotseat", "spectator", "replay" or "analysis". */
  mode: string;
  act(action: string): void;
  undo(): void;
  /** Why the action is not legal now; null when it is. */
  explain?(action: string): Promise<string | null>;
}

/** Squares outlined in a seat's colour (its last moves; `fresh`: new on screen). */
export interface Highlight {
  seat: Seat;
  cells: string[];
  colour: string;
  fresh: boolean;
}

/** Where a Gheos map's grid labels start (row, col). */
export type Origin = [number, number];

export interface RenderOptions {
  /** The viewer decides: its legal actions are offered. */
  interactive?: boolean;
  highlights?: Highlight[];
  /** The bot seat thinking now. */
  thinking?: Seat | null;
  pieces?: Pieces;
  origin?: Origin | null;
  /** Hands covered (the hot seat, between people). */
  hideHand?: boolean;
  /** A board of the past (from the log). */
  past?: boolean;
}

export interface Renderer {
  update(frame: BoardFrame, options?: RenderOptions): void;
  /** Show a hinted action on the board. */
  preview(action: string): void;
  clearSelection(): void;
  destroy(): void;
}

/** How a game puts itself in words: players, places, tiles. */
export interface Words {
  players: string[];
  /** The name at a seat (names.js: the person's, a bot's level, else the dynasty). */
  who(seat: Seat): string;
  /** An engine sentence with the seats' names put in (names.js namedText). */
  named(text: string): string;
  label(ref: string): string;
}

/** What names a game's seats: the game's names for them (dynasties), their kinds ("human",
 * "bot:LEVEL") and the people's names where known (names.js). */
export interface Seating {
  players: string[];
  seats?: string[];
  names?: (string | null)[] | null;
}

/** A board that may come with its table, whose seats' kinds and names name the seats. */
export type Named = View & { table?: { seats?: string[]; names?: (string | null)[] | null } };

export interface GheosWords extends Words {
  origin: Origin;
  label(ref: string | undefined): string;
  tile(name: string | null | undefined): string;
  area(ref: string): GheosArea | null;
}

/** A step of the log in words: its icon's kind, the sentence and what followed. */
export interface Said {
  kind: string;
  text: string;
  details: string[];
  turn?: string | null;
}

/** A conflict decided by the last change, for the panel that shows its result. */
export interface Outcome {
  title: string;
  lines: string[];
  /** Whether the viewer won; null when it did not fight. */
  win: boolean | null;
}

/** What every game's module (tigris.js, gheos.js) offers the screens. Each gets frames of its
 * own game only: games.js picks the module by the frame's `game`. */
export interface GameModule {
  name: string;
  seatColour(players: string[], seat: Seat): string;
  wordsFor(players: string[], frame?: Named | null, pieces?: Pieces, origin?: Origin | null): Words;
  /** Where the grid labels of a view's map start, for other boards of the same game. */
  originOf(view: View): Origin | null;
  describeAction(action: string, words: Words): string;
  describeStep(step: Step, words: Words): Said;
  /** The squares an action names. */
  cellsOf(action: string): string[];
  reasonWords(text: string, words: Words): string;
  conflictOutcome(events: GameEvent[], frame: BoardFrame): Outcome | null;
  createRenderer(parts: BoardParts, ctx: TableContext): Renderer;
  needsDecision(frame: BoardFrame): boolean;
  openDecision(container: HTMLElement, frame: BoardFrame, ctx: TableContext): void;
  /** What another seat is deciding now, in words (a conflict in progress). */
  waitingFor(frame: BoardFrame): string | null;
  resultTable(result: SeatResult[], seating: Seating): HTMLElement;
}

/** One step of a guided first game (`GET /api/lessons/{game}`, cradle/core/lessons.py). */
export interface Lesson {
  name: string;
  title: string;
  intro: string;
  /** The learner's moves in order; one ending in "*" takes any legal move starting so. */
  tries: string[];
  hints: string[];
  done: string;
  cells: string[];
  wrong: string;
}

export interface LessonList {
  game: string;
  lessons: Lesson[];
}

/** A guided game's hold on a table screen (tutorial.js): it sees moves before they go. */
export interface Guide {
  /** A move the learner made: a message keeps it back (off the step's script), null sends it. */
  act(action: string): string | null;
  /** A move the engine refuses, with its reason. */
  refused(action: string, reason: string): void;
  /** Each frame drawn (after the board). */
  shown(frame: Frame, module: GameModule): void;
  /** Squares to outline now (what the step asks for). */
  highlights(module: GameModule): Highlight[];
}

/** `GET /api/lessons/{game}/{name}/picture`: a lesson's position as everybody sees it. */
export interface Picture {
  view: View & { to_move: Seat | null };
  over: boolean;
}
