"""What the server answers: the JSON bodies of the HTTP routes as pydantic models, declared as
each route's ``response_model`` so that the published OpenAPI schema shows them.

The routes answer with ``response_model_exclude_unset``: an answer holds exactly the keys the
server put in it (a field left out is left out, never sent as null). An answer holds only the
keys named here (``extra="forbid"``: a key the server adds without naming it fails the tests),
except where a game adds its own: an event's and a result line's details (``extra="allow"``),
and the frames of version 1 of the API, which merge a game's view with the table's keys. A
game's view, its pieces and its options are the game's (``GameView``, ``GamePiece``): the web
client's types for them are made from each game's ``Presentation`` (packaging/wire_types.py).

What the WebSocket pushes is in :mod:`cradle.server.messages`; what the routes of accounts,
friends and invitations answer in :mod:`cradle.server.account_answers`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, WithJsonSchema
from pydantic.json_schema import SkipJsonSchema

# A number as the server computed it: an int stays an int, a float a float.
Number = int | float
# A JSON object whose keys a game documents (a board map).
GameJson = dict[str, object]
# A table's options, by name: the games' options are words, switches and (some day) numbers.
GameOptions = dict[str, str | bool | int | float | None]
# A seat's view of a game (``state.view(seat)``) and a piece a move names (the game's
# ``Presentation.view`` and ``.piece``): the schema names the union of the games' own types
# (``x-wire``), which the web client's types declare.
GameView = Annotated[GameJson, WithJsonSchema({"type": "object", "x-wire": "View"})]
GamePiece = Annotated[GameJson, WithJsonSchema({"type": "object", "x-wire": "Piece"})]


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OpenAnswer(BaseModel):
    """An answer a game adds keys to (documented by the game)."""

    model_config = ConfigDict(extra="allow")


class GameInfo(Answer):
    """A game this server offers: its name, its title as people read it, the game's names of
    its seats (in order; a table of fewer players takes the first), with its default options."""

    name: str
    title: str
    seat_names: list[str]
    min_players: int
    max_players: int
    options: GameOptions


class GameEvent(OpenAnswer):
    """What an action did, with a sentence that says it and the seat that did it (when one
    did); each game adds fields per type."""

    type: str
    text: str
    seat: int | SkipJsonSchema[None] = None  # absent when no one seat did it, never null


class Placing(OpenAnswer):
    """One seat's line of a finished game's result (place 1 wins; ties share a place); each
    game adds its details."""

    seat: int
    score: Number
    place: int
    # A game ended early: how the seat that left did ("conceded", "timeout", ...); else absent.
    out: str | SkipJsonSchema[None] = None


class BotChoice(Answer):
    """A bot a seat may take (the new-table form's menu)."""

    name: str
    level: bool
    strength: int | None
    seconds: Number
    about: str


class Meta(Answer):
    """``GET /api/meta``: the games, the bots, the most a bot may think per decision, and
    whether the server analyses a finished game a person played by itself."""

    games: list[GameInfo]
    bots: list[str]
    bot_menu: list[BotChoice]
    max_bot_seconds: Number
    analyse_finished: bool
    mail: bool = False  # the server sends mail (its operator set an SMTP server)


class Clock(Answer):
    """A live table's clocks: each person's base time and the seconds added when their turn
    ends; each seat's seconds left as its clock last stopped, and the seat whose clock runs
    (until the table's ``deadline``); since when each seat's person has had no page open
    (null: one is open), and how long that may last before the others may act."""

    base_s: Number
    increment_s: Number
    left: list[Number]
    running: int | None
    gone: list[Number | None]
    absent_s: Number


class TableSummary(Answer):
    """Public facts about a table. A table this process has loaded tells its seats' state
    (``claimed``, ``open``, ``invites``) too; a row read for the lobby does not."""

    id: str
    game: str
    players: list[str]
    seats: list[str]
    names: list[str | None] | None = None  # the people at the seats, where known
    claimed: list[bool] | None = None
    open: list[int] | None = None
    invites: list[int] | None = None
    hotseat: bool
    status: str
    moves: int
    to_move: int | None
    created: Number
    updated: Number
    options: GameOptions | None = None
    private: bool | None = None  # invite only (a row read for the lobby is never private)
    # "live" or "turn"; a turn-based table's seconds per decision and when the person
    # deciding now runs out (Unix time); the seat a stand-in bot plays for now; the seats
    # whose person is away (their stand-in plays each of their turns whose deadline passes,
    # until they move or say they are back: ``POST /api/games/{id}/return``); the stand-in
    # bot level of each human seat (null: a bot's seat).
    mode: Literal["live", "turn"] | None = None
    deadline_s: Number | None = None
    deadline: Number | None = None
    standin: int | None = None
    away: list[int] | None = None
    standins: list[str | None] | None = None
    clock: Clock | None = None  # a live table's clocks (null: none)
    # A finished game: its result (winner: place 1), and how it ended if before its rules
    # did ("conceded", "timeout", "abandoned"; null when played to the end).
    ended_by: Literal["conceded", "timeout", "abandoned"] | None = None
    result: list[Placing] | None = None
    # The game rates its players when it ends (every seat a different account's, no undo,
    # no hints), or will once its open seats are taken.
    rated: bool = False


class LobbyPage(Answer):
    """``GET /api/games``: one page of listed games; ``next`` is the ``before`` of the next."""

    games: list[TableSummary]
    next: str | None


class SeatTicket(Answer):
    """A human seat of a new table: its token, and the one-time invite for another person."""

    seat: int
    token: str
    invite: str | None


class Created(Answer):
    """``POST /api/games``: the new table and its creator's tokens (shown only this once)."""

    id: str
    game: str
    players: list[str]
    seats: list[SeatTicket]
    open: list[int]
    bot_seconds: Number | None
    invites_expire: Number | None
    table_token: str | None = None  # a hot-seat table's screen


class Done(Answer):
    """A change with nothing else to say (a table removed): ``{"id", "status"}``."""

    id: str
    status: str


class MailStopped(Answer):
    """``POST /api/mail/stop``: the account gets no more turn notices."""

    stopped: bool


class Joined(Answer):
    """``POST /api/games/{id}/join``: the seat taken and its new token."""

    id: str
    seat: int
    token: str


class LastAction(Answer):
    """The last action: its seat, the action as this viewer may know it, and the stand-in bot
    level that made it for the seat's person (None: the seat's own player)."""

    seat: int
    action: str
    standin: str | None = None


class FrameTable(TableSummary):
    """The table part of a frame: the summary, and what this seat or screen may do."""

    version: int
    seat: int | None
    screen: str
    events: list[GameEvent]
    last: LastAction | None
    can_undo: bool
    hints: bool
    result: list[Placing] | None
    spectator_chat: bool | None = None  # spectators read and write the chat


class ChatLine(Answer):
    """A line of a table's chat: ``speaker`` names who wrote it (``s:SEAT``, ``v:N`` the Nth
    spectator to write, ``a:ACCOUNT``), for ``/mute``; ``at``: Unix time."""

    id: int
    seat: int | None
    speaker: str
    name: str
    text: str
    at: Number


class Rated(Answer):
    """A rating: ``rating`` is ``mu - 3 sigma`` (openskill's conservative estimate)."""

    rating: Number
    mu: Number
    sigma: Number


class LeaderboardRow(Rated):
    rank: int
    name: str
    players: int
    games: int
    updated: Number


class RatingsPage(Answer):
    """``GET /api/ratings?game=&players=``: the best rated players, best first."""

    game: str
    players: int | None
    ratings: list[LeaderboardRow]


class PlayerRating(Rated):
    game: str
    players: int
    games: int
    updated: Number


class RatingChange(Rated):
    """What one rated game did to the player's rating (``before`` → ``rating``); ``game_id``
    is null for a private table's game (a public page never names one)."""

    game_id: str | None
    game: str
    players: int
    place: int
    before: Number
    at: Number


class FinishedGame(Answer):
    """A finished game of the player: the names at its seats (a person's, else the game's
    name for the seat) and their kinds, the player's seat, place and score, every seat's
    place, whether it was rated and what it did to the rating."""

    id: str
    game: str
    players: list[str]
    seats: list[str]  # each seat's kind: "human", "bot:LEVEL"
    seat: int
    place: int | None
    score: Number | None
    places: list[int | None]
    rated: bool
    change: Number | None
    ended: Number


class PlayerProfile(Answer):
    """``GET /api/players/{name}``: ratings, rating changes (oldest first), finished games."""

    name: str
    since: Number
    ratings: list[PlayerRating]
    history: list[RatingChange]
    games: list[FinishedGame]


class ChatPage(Answer):
    """``GET /api/games/{id}/chat``: the latest lines this viewer may see (oldest first), the
    speakers it muted, whether it may write, whether spectators take part, and the speaker
    its own lines are under (null: a hot seat, or a guest spectator that has not written)."""

    lines: list[ChatLine]
    muted: list[str]
    can_write: bool
    spectators: bool
    you: str | None = None
    names: dict[str, str] = {}  # the muted speakers' names (an account's; a line's)


class MergedFrame(OpenAnswer):
    """Version 1 of the API's frame: what a seat (or a spectator, or a hot-seat screen) sees,
    the game's view of the board merged with whose decision it is at the table (``to_move``
    replaces the view's own), the legal actions of the seat deciding, and the table."""

    to_move: int | None
    legal_actions: list[str]
    table: FrameTable


class TableFrame(Answer):
    """Version 2 of the API's frame (cradle.server.frames): the game's view (its own
    ``to_move`` included) and the table's state side by side, with the legal actions of the
    seat deciding (none for the others). ``table.to_move`` says who decides at the table."""

    view: GameView
    legal_actions: list[str]
    table: FrameTable


class Record(Answer):
    """``GET /api/games/{id}/record``: the game record; in a game in progress, as the token's
    seat may know it (no ``seed``, actions in their public form, ``seats``: who made each)."""

    format: int
    game: str
    players: list[str]
    seed: int | None = None
    options: GameOptions
    actions: list[str]
    seats: list[int] | None = None


class ReplayStep(Answer):
    """One step of a replay: the action (None before the first), its events, the view after."""

    ply: int
    seat: int | None
    action: str | None
    events: list[GameEvent]
    view: GameView
    standin: str | None = None  # the stand-in bot level that made it for the seat's person


class Replay(Answer):
    """``GET /api/games/{id}/replay``: every step of a finished game as a seat saw it."""

    id: str
    game: str
    players: list[str]
    seats: list[str]
    options: GameOptions
    result: list[Placing]
    steps: list[ReplayStep]
    names: list[str | None] | None = None  # the people at the seats, where known
    private: bool = False  # invite only: read by its players and those they share it with


class HistoryStep(Answer):
    """One action as a seat may know it: the move it was (``ply``), who made it (its seat;
    ``standin``: the stand-in bot level that made it for the seat's person), its events."""

    ply: int
    seat: int
    action: str
    events: list[GameEvent]
    standin: str | None = None


class History(Answer):
    """``GET /api/games/{id}/history``: every action that counts so far, as ``seat`` knows it,
    and the pieces they name (by tile id)."""

    id: str
    game: str
    players: list[str]
    seats: list[str]
    seat: int | None
    version: int
    moves: int
    steps: list[HistoryStep]
    pieces: dict[str, GamePiece]
    names: list[str | None] | None = None  # the people at the seats, where known


class BoardAfter(Answer):
    """``GET /api/games/{id}/board``: a seat's view of the board after ``ply`` moves, with the
    step that led there."""

    id: str
    game: str
    players: list[str]
    seats: list[str]
    ply: int
    seat: int | None
    step: HistoryStep | None
    pieces: dict[str, GamePiece]
    view: GameView
    to_move: int | None


class BoardMap(OpenAnswer):
    """``GET /api/boards/{game}``: a game's fixed board map (its size and special squares; the
    game documents the rest)."""

    name: str


class Explanation(Answer):
    """``POST /api/games/{id}/explain``: whether an action is legal now, and if not, why."""

    action: str
    legal: bool
    reason: str | None


class Hint(Answer):
    """A move the search suggests: its chance to win, its visits, and why, in words."""

    action: str
    win_chance: Number
    visits: int
    reason: str


class Hints(Answer):
    """``POST /api/games/{id}/hint``: the best few moves for the seat deciding now."""

    ply: int
    seat: int
    version: int
    hints: list[Hint]


class Alternative(Answer):
    """A move the review weighed: its chance and how often the search tried it."""

    action: str
    chance: Number
    visits: int


class Review(Answer):
    """A decision reviewed: the move played and the best one, their chances, the chance lost,
    why each, the alternatives weighed, and the pieces in the mover's hand (games whose moves
    name pieces)."""

    ply: int
    seat: int
    played: str
    played_chance: Number
    best: str
    best_chance: Number
    loss: Number
    why: str
    played_why: str
    alternatives: list[Alternative]
    pieces: dict[str, GamePiece] | None = None


class AnalysisData(Answer):
    """What the review found: its seconds of search per decision, each seat's chance after
    the start and every move, the decisions reviewed and (once done) the costliest ones."""

    format: int  # of the stored analysis (an older one is made again)
    seconds: Number
    reviewed: list[int]  # the seats whose decisions are reviewed
    chances: list[list[Number]]
    plies: list[int]  # the decisions to review, by the move they were
    reviews: list[Review]
    costly: list[int] | None = None


class Reported(Answer):
    """A report made (``POST .../report``): its number, for the operator's ``cradle admin``."""

    id: int


class Share(Answer):
    """``GET /api/games/{id}/share``: the key (sent as ``Cradle-Share``) that opens a private
    table's record, replay and past boards to those a player gives it to."""

    key: str


class Analysis(Answer):
    """``GET``/``POST /api/games/{id}/analysis``: a finished game's analysis as it stands."""

    id: str
    game: str
    players: list[str]
    seats: list[str]
    names: list[str | None] | None = None  # the people at the seats, where known
    moves: int
    status: str
    done: int
    total: int
    analysis: AnalysisData | None


class LessonStep(Answer):
    """One step of a guided first game, as the client shows it (cradle.core.lessons):
    ``tries``, the learner's moves in order (one ending in "*" takes any legal move starting
    so)."""

    name: str
    title: str
    intro: str
    tries: list[str]
    hints: list[str]
    done: str
    cells: list[str]
    wrong: str


class Lessons(Answer):
    """``GET /api/lessons/{game}``: the guided first game's steps, in teaching order."""

    game: str
    lessons: list[LessonStep]


class LessonPicture(Answer):
    """``GET /api/lessons/{game}/{name}/picture``: a step's position as spectators see it."""

    view: GameView
    over: bool
