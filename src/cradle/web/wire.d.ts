// The wire: what the play server sends and reads, made by packaging/wire_types.py from the
// server's pydantic models (cradle.server.answers, .account_answers, .messages, .models) and from each game's
// Presentation (its TypedDicts of views, events, result lines and pieces). Do not edit it:
// `make wire-types` writes it again, and `make lint` fails while it is not current.
// The client's own types are in types.d.ts.

/**
 * `PATCH /api/me`: the account as it now is.
 */
export type AccountAnswer = {
  account: AccountInfo | null;
};

/**
 * An account as its owner sees it (`GET /api/me`): no mail goes to `email` before
 * its person opened the link of its check (`email_verified`).
 */
export type AccountInfo = {
  id: string;
  name: string;
  email: string | null;
  email_verified: boolean;
  turn_mail: boolean;
  invite_mail: boolean;
  created: number;
  language: string | null;
};

/**
 * A move the review weighed: its chance and how often the search tried it.
 */
export type Alternative = {
  action: string;
  chance: number;
  visits: number;
};

/**
 * `GET`/`POST /api/games/{id}/analysis`: a finished game's analysis as it stands.
 */
export type Analysis = {
  id: string;
  game: string;
  players: string[];
  seats: string[];
  names?: (string | null)[] | null;
  moves: number;
  status: string;
  done: number;
  total: number;
  analysis: AnalysisData | null;
};

/**
 * What the review found: its seconds of search per decision, each seat's chance after
 * the start and every move, the decisions reviewed and (once done) the costliest ones.
 */
export type AnalysisData = {
  format: number;
  seconds: number;
  reviewed: number[];
  chances: number[][];
  plies: number[];
  reviews: Review[];
  costly?: number[] | null;
};

/**
 * An area of land as views show it (`civ`: the colour of the civilization on it).
 */
export type AreaView = {
  area: number;
  ref: string;
  kind: string;
  tiles: number;
  wheat: number;
  cup: number;
  sword: number;
  pyramid: number;
  civ: string | null;
};

/**
 * `POST /api/password-reset` and `POST /api/me/verify`: the same answer whether or not
 * a mail went.
 */
export type Asked = {
  asked: boolean;
};

/**
 * `GET /api/games/{id}/board`: a seat's view of the board after `ply` moves, with the
 * step that led there.
 */
export type BoardAfter = {
  id: string;
  game: string;
  players: string[];
  seats: string[];
  ply: number;
  seat: number | null;
  step: HistoryStep | null;
  pieces: { [key: string]: Piece };
  view: View;
  to_move: number | null;
};

/**
 * `GET /api/boards/{game}`: a game's fixed board map (its size and special squares; the
 * game documents the rest).
 */
export type BoardMap = {
  name: string;
  [key: string]: unknown;
};

/**
 * A bot a seat may take (the new-table form's menu).
 */
export type BotChoice = {
  name: string;
  level: boolean;
  strength: number | null;
  seconds: number;
  about: string;
};

/**
 * A tile on the map.
 */
export type CellView = {
  cell: string;
  row: number;
  col: number;
  up: boolean;
  tile: string;
  rotation: number;
  pyramid: boolean;
  regions: RegionView[];
};

/**
 * A line of a table's chat: `speaker` names who wrote it (`s:SEAT`, `v:N` the Nth
 * spectator to write, `a:ACCOUNT`), for `/mute`; `at`: Unix time.
 */
export type ChatLine = {
  id: number;
  seat: number | null;
  speaker: string;
  name: string;
  text: string;
  at: number;
};

/**
 * A new line of the table's chat, pushed to those who may read it.
 */
export type ChatMessage = {
  type: "chat";
  line: ChatLine;
};

/**
 * `GET /api/games/{id}/chat`: the latest lines this viewer may see (oldest first), the
 * speakers it muted, whether it may write, whether spectators take part, and the speaker
 * its own lines are under (null: a hot seat, or a guest spectator that has not written).
 */
export type ChatPage = {
  lines: ChatLine[];
  muted: string[];
  can_write: boolean;
  spectators: boolean;
  you?: string | null;
  names?: { [key: string]: string };
};

export type CivilizationView = {
  area: number;
  ref: string;
  supply: number;
};

/**
 * A live table's clocks: each person's base time and the seconds added when their turn
 * ends; each seat's seconds left as its clock last stopped, and the seat whose clock runs
 * (until the table's `deadline`); since when each seat's person has had no page open
 * (null: one is open), and how long that may last before the others may act.
 */
export type Clock = {
  base_s: number;
  increment_s: number;
  left: number[];
  running: number | null;
  gone: (number | null)[];
  absent_s: number;
};

/**
 * A live table's time control: each person's `base_s` seconds, and `increment_s` more
 * each time their turn ends.
 */
export type ClockBody = {
  base_s: number;
  increment_s?: number;
};

/**
 * What every game's view holds (`state.view(seat)`): each game's view adds its own
 * fields (`tigris.TigrisView`, `gheos.GheosView`), the same JSON on the wire.
 */
export type CommonView = {
  game: string;
  seat: number | null;
  players: string[];
  active: number;
  to_move: number;
  hand_sizes: { [key: string]: number };
  is_over: boolean;
};

/**
 * `POST /api/games`.
 */
export type CreateBody = {
  game: string;
  players?: number;
  options?: { [key: string]: string | boolean | number | null };
  seats?: string[] | null;
  hotseat?: boolean;
  listed?: boolean;
  bot_seconds?: number | null;
  mode?: "live" | "turn";
  deadline_s?: number | null;
  clock?: ClockBody | null;
  private?: boolean;
  standin?: string | null;
  spectator_chat?: boolean;
  rated?: boolean;
  name?: string | null;
};

/**
 * `POST /api/games`: the new table and its creator's tokens (shown only this once).
 */
export type Created = {
  id: string;
  game: string;
  players: string[];
  seats: SeatTicket[];
  open: number[];
  bot_seconds: number | null;
  invites_expire: number | null;
  table_token?: string | null;
};

/**
 * A change with nothing else to say (a table removed): `{"id", "status"}`.
 */
export type Done = {
  id: string;
  status: string;
};

/**
 * The WebSocket's answer to a frame it refused (the connection stays open): the reason,
 * the HTTP status the same request would get, and the refusal's kind where it has one (an
 * action: "malformed" or "disallowed").
 */
export type ErrorMessage = {
  type: "error";
  error: string;
  status: number;
  kind?: string | null;
  message?: string | null;
  params?: { [key: string]: string | number } | null;
};

/**
 * `POST /api/games/{id}/explain`: whether an action is legal now, and if not, why.
 */
export type Explanation = {
  action: string;
  legal: boolean;
  reason: string | null;
};

/**
 * A finished game of the player: the names at its seats (a person's, else the game's
 * name for the seat) and their kinds, the player's seat, place and score, every seat's
 * place, whether it was rated and what it did to the rating.
 */
export type FinishedGame = {
  id: string;
  game: string;
  players: string[];
  seats: string[];
  seat: number;
  place: number | null;
  score: number | null;
  places: (number | null)[];
  rated: boolean;
  change: number | null;
  ended: number;
};

/**
 * The table part of a frame: the summary, and what this seat or screen may do.
 */
export type FrameTable = Omit<TableSummary, "result"> & {
  result: Placing[] | null;
  version: number;
  seat: number | null;
  screen: string;
  events: GameEvent[];
  last: LastAction | null;
  can_undo: boolean;
  hints: boolean;
  spectator_chat?: boolean | null;
};

/**
 * `POST /api/friends`: `status` `friends` (their request accepted, or friends
 * already) or `asked` (a request waits for them), and the list as it now is.
 */
export type FriendAnswer = FriendList & {
  status: string;
};

/**
 * Another account in one's friend list.
 */
export type FriendInfo = {
  name: string;
  online?: boolean;
  tables?: FriendTable[];
};

/**
 * `GET /api/friends` (and each change of it): friends with whether they are online and
 * their tables, the requests one made (`asked`) and got (`asking`), whom one blocks.
 */
export type FriendList = {
  friends: FriendInfo[];
  asked: FriendInfo[];
  asking: FriendInfo[];
  blocked: FriendInfo[];
};

/**
 * A listed table in progress where a friend holds a seat.
 */
export type FriendTable = {
  id: string;
  game: string;
  players: number;
  status: string;
  mode: string;
  free: number;
};

/**
 * What an action did, with a sentence that says it and the seat that did it (when one
 * did); each game adds fields per type.
 */
export type GameEvent = {
  type: string;
  text: string;
  seat?: number;
  [key: string]: unknown;
};

/**
 * A game this server offers: its name, its title as people read it, the game's names of
 * its seats (in order; a table of fewer players takes the first), with its default options.
 */
export type GameInfo = {
  name: string;
  title: string;
  seat_names: string[];
  min_players: number;
  max_players: number;
  options: { [key: string]: string | boolean | number | null };
};

/**
 * An event of `apply` (docs/gheos.md lists the types): `type` and `text`, then
 * the fields of its type. Colours, cells, tiles and players are their names.
 */
export type GheosEvent = {
  type: string;
  text: string;
  seat?: number;
  cell?: string;
  tile?: string;
  rotation?: number;
  removed?: string;
  colour?: string;
  civ?: string;
  civs?: string[];
  to?: string;
  at?: string;
  winner?: string;
  player?: string;
  points?: number | { [key: string]: number };
  followers?: number;
  epoch?: number;
  ranking?: GheosResult[];
};

/**
 * The war or migration being resolved (positions and views).
 */
export type GheosPending = {
  kind: string;
  cell: string;
  swords: { [key: string]: number };
  moved: string[];
  migrations: MigrationView[];
  wars: WarView[] | null;
};

/**
 * A tile a move names (placed, replaced, in a hand), by what is drawn on it.
 */
export type GheosPiece = {
  pyramid: boolean;
  regions: PieceRegion[];
};

/**
 * A seat's line of `result()`: points, then followers held break ties.
 */
export type GheosResult = SeatResult & {
  player: string;
  points: number;
  followers: number;
};

/**
 * All one seat (or a spectator) may know of a Gheos game (docs/gheos.md).
 */
export type GheosView = CommonView & {
  options: { [key: string]: string | null };
  phase: string;
  map: CellView[];
  frontier: string[];
  areas: AreaView[];
  civilizations: { [key: string]: CivilizationView };
  supply: { [key: string]: number };
  followers: { [key: string]: { [key: string]: number } };
  points: { [key: string]: number };
  tokens: { [key: string]: number };
  hand: HandTile[] | null;
  stack_size: number;
  stack_epochs: number;
  epochs_drawn: number;
  epoch_tiles: number;
  end_epoch: number;
  removed: string[];
  pending: GheosPending | null;
  result: GheosResult[] | null;
};

/**
 * A tile as a hand shows it: regions on its own edges 0, 1, 2 (`Region.to_dict`).
 */
export type HandTile = {
  tile: string;
  shape: string;
  rotations: number[];
  text: string;
  regions: TileRegion[];
};

/**
 * The first WebSocket message: the seat's token, or nothing to watch; and the version of
 * the API the client speaks (docs/server.md, "Versions"; 1 without it).
 */
export type Hello = {
  token?: string | null;
  api?: 1 | 2;
};

/**
 * `/ws/me`'s first message: whose page it is.
 */
export type HelloMessage = {
  type: "hello";
  name: string;
};

/**
 * A move the search suggests: its chance to win, its visits, and why, in words.
 */
export type Hint = {
  action: string;
  win_chance: number;
  visits: number;
  reason: string;
};

/**
 * `POST /api/games/{id}/hint`: the best few moves for the seat deciding now.
 */
export type Hints = {
  ply: number;
  seat: number;
  version: number;
  hints: Hint[];
};

/**
 * `GET /api/games/{id}/history`: every action that counts so far, as `seat` knows it,
 * and the pieces they name (by tile id).
 */
export type History = {
  id: string;
  game: string;
  players: string[];
  seats: string[];
  seat: number | null;
  version: number;
  moves: number;
  steps: HistoryStep[];
  pieces: { [key: string]: Piece };
  names?: (string | null)[] | null;
};

/**
 * One action as a seat may know it: the move it was (`ply`), who made it (its seat;
 * `standin`: the stand-in bot level that made it for the seat's person), its events.
 */
export type HistoryStep = {
  ply: number;
  seat: number;
  action: string;
  events: GameEvent[];
  standin?: string | null;
};

/**
 * `/ws/me`: a friend's request, answer or invitation came (read the inbox again).
 */
export type InboxMessage = {
  type: "inbox";
};

/**
 * A friend's invitation to a seat, in one's inbox.
 */
export type InvitationInfo = {
  id: string;
  game_id: string;
  game: string;
  seat: number;
  players: number;
  mode: string;
  sender: string;
  created: number;
};

/**
 * `GET /api/me/invitations`: the invitations whose seat is still free, newest first.
 */
export type Invitations = {
  invitations: InvitationInfo[];
};

/**
 * `POST /api/games/{id}/invite`: the seat the person is invited to.
 */
export type Invited = {
  id: string;
  seat: number;
  name: string;
};

/**
 * `POST /api/games/{id}/join`: the seat taken and its new token.
 */
export type Joined = {
  id: string;
  seat: number;
  token: string;
};

/**
 * The last action: its seat, the action as this viewer may know it, and the stand-in bot
 * level that made it for the seat's person (None: the seat's own player).
 */
export type LastAction = {
  seat: number;
  action: string;
  standin?: string | null;
};

export type LeaderboardRow = Rated & {
  rank: number;
  name: string;
  players: number;
  games: number;
  updated: number;
};

/**
 * `GET /api/lessons/{game}/{name}/picture`: a step's position as spectators see it.
 */
export type LessonPicture = {
  view: View;
  over: boolean;
};

/**
 * One step of a guided first game, as the client shows it (cradle.core.lessons):
 * `tries`, the learner's moves in order (one ending in "*" takes any legal move starting
 * so).
 */
export type LessonStep = {
  name: string;
  title: string;
  intro: string;
  tries: string[];
  hints: string[];
  done: string;
  cells: string[];
  wrong: string;
};

/**
 * `GET /api/lessons/{game}`: the guided first game's steps, in teaching order.
 */
export type Lessons = {
  game: string;
  lessons: LessonStep[];
};

/**
 * `GET /api/games`: one page of listed games; `next` is the `before` of the next.
 */
export type LobbyPage = {
  games: TableSummary[];
  next: string | null;
};

/**
 * `POST /api/mail/stop`: the account gets no more turn notices.
 */
export type MailStopped = {
  stopped: boolean;
};

/**
 * Version 1 of the API's frame: what a seat (or a spectator, or a hot-seat screen) sees,
 * the game's view of the board merged with whose decision it is at the table (`to_move`
 * replaces the view's own), the legal actions of the seat deciding, and the table.
 */
export type MergedFrame = {
  to_move: number | null;
  legal_actions: string[];
  table: FrameTable;
  [key: string]: unknown;
};

/**
 * The WebSocket's frame after every change (version 1: merged as :class:`MergedFrame`).
 */
export type MergedViewMessage = MergedFrame & {
  type: "view";
};

/**
 * `GET /api/meta`: the games, the bots, the most a bot may think per decision, and
 * whether the server analyses a finished game a person played by itself.
 */
export type Meta = {
  games: GameInfo[];
  bots: string[];
  bot_menu: BotChoice[];
  max_bot_seconds: number;
  analyse_finished: boolean;
  mail?: boolean;
};

export type MigrationView = {
  civ: string;
  options: string[];
  split: boolean;
};

/**
 * A monument on the board: its two colours and its cell.
 */
export type MonumentSpot = {
  colors: string[];
  cell: string;
};

/**
 * A game of `GET /api/me/games`.
 */
export type MyGame = {
  id: string;
  game: string;
  players: string[];
  seats: string[];
  names: (string | null)[];
  seats_held: number[];
  status: string;
  moves: number;
  result: Placing[] | null;
  created: number;
  updated: number;
  to_move: number | null;
  your_turn: boolean;
  rated: boolean;
};

/**
 * `GET /api/me/games`: "your turn" first, and how many wait for the player.
 */
export type MyGames = {
  games: MyGame[];
  your_turn: number;
};

/**
 * `POST /api/me/password`.
 */
export type PasswordChanged = {
  changed: boolean;
};

/**
 * A region of a tile, in words: which land, what is drawn on it (the counts of wheat,
 * cups, swords and pyramids; the temple's kind or None).
 */
export type PieceRegion = {
  landmass: boolean;
  wheat: number;
  cup: number;
  sword: number;
  pyramid: number;
  temple: string | null;
};

/**
 * One seat's line of a finished game's result (place 1 wins; ties share a place); each
 * game adds its details.
 */
export type Placing = {
  seat: number;
  score: number;
  place: number;
  out?: string;
  [key: string]: unknown;
};

/**
 * `GET /api/players/{name}`: ratings, rating changes (oldest first), finished games.
 */
export type PlayerProfile = {
  name: string;
  since: number;
  ratings: PlayerRating[];
  history: RatingChange[];
  games: FinishedGame[];
};

export type PlayerRating = Rated & {
  game: string;
  players: number;
  games: number;
  updated: number;
};

/**
 * The answer to `{"type": "ping"}`.
 */
export type PongMessage = {
  type: "pong";
};

/**
 * A rating: `rating` is `mu - 3 sigma` (openskill's conservative estimate).
 */
export type Rated = {
  rating: number;
  mu: number;
  sigma: number;
};

/**
 * What one rated game did to the player's rating (`before` → `rating`); `game_id`
 * is null for a private table's game (a public page never names one).
 */
export type RatingChange = Rated & {
  game_id: string | null;
  game: string;
  players: number;
  place: number;
  before: number;
  at: number;
};

/**
 * `GET /api/ratings?game=&players=`: the best rated players, best first.
 */
export type RatingsPage = {
  game: string;
  players: number | null;
  ratings: LeaderboardRow[];
};

/**
 * `GET /api/games/{id}/record`: the game record; in a game in progress, as the token's
 * seat may know it (no `seed`, actions in their public form, `seats`: who made each).
 */
export type Record = {
  format: number;
  game: string;
  players: string[];
  seed?: number | null;
  options: { [key: string]: string | boolean | number | null };
  actions: string[];
  seats?: number[] | null;
};

/**
 * A region of a tile on the map.
 */
export type RegionView = {
  ref: string;
  edges: string[];
  landmass: boolean;
  wheat: number;
  cup: number;
  sword: number;
  pyramid: number;
  temple: string | null;
  area: number;
  civ: string | null;
};

/**
 * `GET /api/games/{id}/replay`: every step of a finished game as a seat saw it.
 */
export type Replay = {
  id: string;
  game: string;
  players: string[];
  seats: string[];
  options: { [key: string]: string | boolean | number | null };
  result: Placing[];
  steps: ReplayStep[];
  names?: (string | null)[] | null;
  private?: boolean;
};

/**
 * One step of a replay: the action (None before the first), its events, the view after.
 */
export type ReplayStep = {
  ply: number;
  seat: number | null;
  action: string | null;
  events: GameEvent[];
  view: View;
  standin?: string | null;
};

/**
 * A report made (`POST .../report`): its number, for the operator's `cradle admin`.
 */
export type Reported = {
  id: number;
};

/**
 * A decision reviewed: the move played and the best one, their chances, the chance lost,
 * why each, the alternatives weighed, and the pieces in the mover's hand (games whose moves
 * name pieces).
 */
export type Review = {
  ply: number;
  seat: number;
  played: string;
  played_chance: number;
  best: string;
  best_chance: number;
  loss: number;
  why: string;
  played_why: string;
  alternatives: Alternative[];
  pieces?: { [key: string]: Piece } | null;
};

/**
 * One seat's line of `state.result()`: place 1 wins, tied seats share a place.
 *
 * Each game adds its own details (`tigris.TigrisResult`, `gheos.GheosResult`).
 */
export type SeatResult = {
  seat: number;
  score: number;
  place: number;
};

/**
 * A human seat of a new table: its token, and the one-time invite for another person.
 */
export type SeatTicket = {
  seat: number;
  token: string;
  invite: string | null;
};

/**
 * `GET /api/games/{id}/share`: the key (sent as `Cradle-Share`) that opens a private
 * table's record, replay and past boards to those a player gives it to.
 */
export type Share = {
  key: string;
};

/**
 * Sign-up, sign-in, sign-out, `GET /api/me` and deletion: the signed-in account and the
 * session's CSRF token (both null for a guest). `ended` (`GET /api/me` only, once): why
 * this device's session ended, when it ended elsewhere (`password`: the password was
 * changed on another device; `reset`: it was reset by a mailed link).
 */
export type SignedIn = {
  account: AccountInfo | null;
  csrf: string | null;
  ended?: string | null;
};

/**
 * `/ws/me`: the page's session ended (a password changed or reset, the account
 * deleted); the connection then closes.
 */
export type SignedOutMessage = {
  type: "signed_out";
  reason: string;
};

/**
 * Version 2 of the API's frame (cradle.server.frames): the game's view (its own
 * `to_move` included) and the table's state side by side, with the legal actions of the
 * seat deciding (none for the others). `table.to_move` says who decides at the table.
 */
export type TableFrame = {
  view: View;
  legal_actions: string[];
  table: FrameTable;
};

/**
 * Public facts about a table. A table this process has loaded tells its seats' state
 * (`claimed`, `open`, `invites`) too; a row read for the lobby does not.
 */
export type TableSummary = {
  id: string;
  game: string;
  players: string[];
  seats: string[];
  names?: (string | null)[] | null;
  claimed?: boolean[] | null;
  open?: number[] | null;
  invites?: number[] | null;
  hotseat: boolean;
  status: string;
  moves: number;
  to_move: number | null;
  created: number;
  updated: number;
  options?: { [key: string]: string | boolean | number | null } | null;
  private?: boolean | null;
  mode?: "live" | "turn" | null;
  deadline_s?: number | null;
  deadline?: number | null;
  standin?: number | null;
  away?: number[] | null;
  standins?: (string | null)[] | null;
  clock?: Clock | null;
  ended_by?: "conceded" | "timeout" | "abandoned" | null;
  result?: Placing[] | null;
  rated?: boolean;
};

/**
 * An event of `apply` (docs/tigris.md lists the types): `type` and `text`, then
 * the fields of its type. Seats are ints, colours, roles and cells their names.
 */
export type TigrisEvent = {
  type: string;
  text: string;
  seat?: number;
  role?: string;
  cell?: string;
  color?: string;
  amount?: number;
  count?: number;
  moved_from?: string | null;
  attacker?: number;
  defender?: number;
  wars?: string[];
  winner?: number;
  loser?: number;
  attack?: number;
  defence?: number;
  removed?: string[];
  monument?: string;
};

/**
 * The decision in progress (docs/tigris-view.md): its `kind` and that kind's fields,
 * plus the tile just placed and a unification's cell; in a view, a conflict's strengths.
 */
export type TigrisPending = {
  kind: string;
  color?: string;
  attacker?: number;
  defender?: number;
  attacker_commit?: number | null;
  queue?: string[];
  colors?: string[];
  seat?: number;
  cells?: string[];
  placed: string | null;
  unification: string | null;
  attacker_strength?: number;
  defender_strength?: number;
};

/**
 * A seat's line of `result()`: victory points per colour, treasures, the points once
 * the treasures lift the lowest colours (`final`); `score` is the lowest of those.
 */
export type TigrisResult = SeatResult & {
  dynasty: string;
  points: { [key: string]: number };
  treasures: number;
  final: { [key: string]: number };
};

/**
 * All one seat (or a spectator) may know of a Tigris game (docs/tigris-view.md).
 */
export type TigrisView = CommonView & {
  options: { [key: string]: string | boolean };
  actions_left: number;
  board: { [key: string]: string };
  unification: string | null;
  monuments: MonumentSpot[];
  unused_monuments: string[][];
  hand: string[] | null;
  bag_size: number;
  points: { [key: string]: { [key: string]: number } };
  treasures: { [key: string]: number };
  catastrophes: { [key: string]: number };
  supply: { [key: string]: string[] };
  buildings: { [key: string]: string };
  wonder: string | null;
  pending: TigrisPending | null;
  ending: boolean;
  result: TigrisResult[] | null;
};

/**
 * A region of a tile on the tile's own edges 0, 1, 2 (`Region.to_dict`).
 */
export type TileRegion = {
  edges: number[];
  landmass: boolean;
  wheat: number;
  cup: number;
  sword: number;
  pyramid: number;
  temple: string | null;
};

/**
 * `POST /api/games/{id}/transfer`: a one-time link that moves a guest's seat.
 */
export type Transfer = {
  id: string;
  seat: number;
  code: string;
  link: string;
  qr_svg: string;
  expires_in: number;
};

/**
 * `POST /api/email-verification/{code}`: the address now verified.
 */
export type Verified = {
  email: string;
};

/**
 * The WebSocket's frame after every change (version 2).
 */
export type ViewMessage = TableFrame & {
  type: "view";
};

export type WarView = {
  civs: string[];
  options: string[];
};

/**
 * A seat's view of any game (its `Presentation.view`): each game's own.
 */
export type View = TigrisView | GheosView;

/**
 * A piece a move names (a game's `Presentation.piece`), by what is drawn on it.
 */
export type Piece = GheosPiece;

/**
 * An event of any game (its `Presentation.event`).
 */
export type AnyEvent = TigrisEvent | GheosEvent;

/**
 * A line of any game's result (its `Presentation.result`).
 */
export type AnyResult = TigrisResult | GheosResult;
