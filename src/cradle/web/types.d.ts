// The client's own types: what its modules hand each other (screens, renderers, words) and the
// shapes it builds itself (a board of the past, the lobby's filters, what a browser keeps).
// The wire, what the server sends and reads, is made from the server's models and each game's
// Presentation into wire.d.ts (packaging/wire_types.py): re-exported here, never written by
// hand. Types only: the browser never loads these files; `make lint` checks every module
// against them (tsc, see tsconfig.json).

export * from "./wire";
import type {
  Analysis,
  AnalysisData,
  AreaView,
  ChatMessage,
  ErrorMessage,
  HelloMessage,
  InboxMessage,
  FrameTable,
  GameEvent,
  HistoryStep,
  LastAction,
  Piece,
  Placing,
  PongMessage,
  SignedOutMessage,
  TableFrame,
  TigrisPending,
  View,
  ViewMessage,
} from "./wire";

/** A seat's number at its table, from 0. */
export type Seat = number;

/** A table option: the board side, a variant switched on or off. */
export type OptionValue = string | number | boolean | null;
export type Options = Record<string, OptionValue>;

export type TableStatus = "open" | "running" | "over";

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

/** Every error answer's body (HTTP): the reason, the field of a body that is wrong, and an
 * action's refusal's kind ("malformed": no action of the notation; "disallowed": not allowed
 * now, 409 in version 2 of the API). */
export interface ErrorBody {
  error: string;
  field?: string;
  kind?: "malformed" | "disallowed";
}

/** What the pieces a history or a board names are, by name. */
export type Pieces = Record<string, Piece>;

/** The facts about the table the game screens draw with: a frame's `table`, or the ones the
 * replay and the analysis make for boards of the past. */
export interface BoardTable {
  game: string;
  players: string[];
  seats: string[];
  /** The people's names at the seats, where known (a past board has none). */
  names?: (string | null)[] | null;
  /** Whose view this is; null for spectators. */
  seat: Seat | null;
  status: string;
  moves: number;
  /** Who decides at the table now; null once the game is over (however it ended). */
  to_move: Seat | null;
  events: GameEvent[];
  can_undo: boolean;
  /** Counts every change of the table; a past board's is `past-N`, so leaving it redraws. */
  version: number | string;
  result?: Placing[] | null;
  last?: LastAction | null;
}

/** A board as the game modules draw it: a game's view (its own), the viewer's legal actions
 * (none unless it decides) and facts about the table, side by side (a frame of version 2 of
 * the API, or a board of the past). */
export interface BoardFrame<V extends View = View> {
  view: V;
  legal_actions: string[];
  table: BoardTable;
}

/** `GET /api/games/{id}` and every `view` message of the WebSocket (version 2). */
export type Frame<V extends View = View> = TableFrame & { view: V; table: FrameTable };

/** A message the WebSocket pushes. */
export type ServerFrame = ViewMessage | ErrorMessage | ChatMessage | PongMessage;

/** A step of the log: a move of the history (a replay's steps after its start too). */
export type Step = HistoryStep;

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
  /** A private game's share key, from the link a player passed on. */
  share?: string;
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
export interface Named<V extends View = View> {
  view: V;
  table?: { seats?: string[]; names?: (string | null)[] | null };
}

export interface GheosWords extends Words {
  origin: Origin;
  label(ref: string | undefined): string;
  tile(name: string | null | undefined): string;
  area(ref: string): AreaView | null;
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
  resultTable(result: Placing[], seating: Seating): HTMLElement;
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

// -- refinements the game modules narrow the wire's types to -----------------------------------

export type TigrisColor = "red" | "blue" | "green" | "black";
export type TigrisRole = "king" | "priest" | "farmer" | "trader";

/** A revolt or war decided (a `TigrisEvent` of these types): who won, and each side's
 * strength. */
export interface TigrisConflictResult extends GameEvent {
  type: "revolt_result" | "war_result";
  winner: Seat;
  loser: Seat;
  attack: number;
  defence: number;
}

/** `GET /api/boards/tigris?board=NAME` (a `BoardMap`): the squares that never change. */
export interface TigrisMap {
  river: string[];
  temples: string[];
  special: string[];
}

/** A revolt or war in progress (a `TigrisPending` of those kinds), with its sides and their
 * strengths, which a conflict's view always holds. */
export type TigrisConflict = TigrisPending & {
  kind: "revolt" | "war";
  color: TigrisColor;
  attacker: Seat;
  defender: Seat;
  attacker_strength: number;
  defender_strength: number;
};

/** An analysis that has begun: what it found so far. */
export type AnalysisFound = Analysis & { analysis: AnalysisData };

/** What a signed-in page's live connection (`/ws/me`) gets. */
export type AccountFrame = HelloMessage | InboxMessage | SignedOutMessage | PongMessage | ErrorMessage;
