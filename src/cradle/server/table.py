"""A game being served (:class:`Table`), its WebSocket clients (:class:`Connection`) and the
replay of a stored record into a table's state (:func:`replay_record`, :func:`build_table`).

A table's ``state`` is never mutated: a move is applied to a clone, stored, and only then
published by swapping the clone in, so readers need no lock. A table's lock orders its
changes; different tables never wait for each other.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from typing import Any, cast

from cradle.core.contract import Event, GameModule, GameState, SeatResult
from cradle.core.record import GameRecord
from cradle.core.words import N_
from cradle.games import UnknownGame, get_game
from cradle.server.errors import forbidden
from cradle.server.ratings import rates
from cradle.server.redact import UndoEvent
from cradle.server.store.database import Notice
from cradle.server.store.errors import CorruptGame
from cradle.server.store.games import (
    STANDIN_DEFAULT,
    Clocks,
    StoredGame,
    playing_seats,
    shown_options,
)
from cradle.server.store.schema import ENDED
from cradle.server.tokens import hash_token

log = logging.getLogger("cradle.server")

MAX_ACTION_LENGTH = 200
# At a live table with clocks, a person with no page open this long may be stood in for or left,
# as when their clock runs out.
ABSENT_SECONDS = 60.0
SEND_QUEUE_LIMIT = 64  # frames waiting for one slow client before it is closed
# A client's replies to its own frames take at most half the queue (the rest stays for the
# game's news); a frame not taken by the client within SEND_PATIENCE closes it as not reading.
REPLY_ROOM = SEND_QUEUE_LIMIT // 2
SEND_PATIENCE = 10.0


@dataclass(eq=False)
class Connection:
    """One WebSocket client: a seat, a spectator (``seat is None``) or a hot-seat screen."""

    seat: int | None
    hotseat: bool
    send: Callable[[str], Awaitable[None]]
    queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None
    close_reason: str | None = None  # set when the server closes it (the client reconnects)
    patience: float = SEND_PATIENCE  # seconds a frame may wait to be read (the hub sets it)
    sent: asyncio.Event = field(default_factory=asyncio.Event)  # set by every frame sent
    muted: set[str] | None = None  # the chat's speakers this viewer muted (None: not read yet)
    # A spectator's identity, for its chat mutes: the signed-in account (its id), else the
    # guest's client key, hashed.
    account: str | None = None
    client: str | None = None
    key: str | None = None  # the hash of the seat's token it came with (a seat's connection)
    api: int = 1  # the version of the API the client speaks (its first message's "api")

    def lost_seat(self, table: Table) -> bool:
        """The seat's token changed since it connected (moved to another device): its frames
        are no longer this client's to see."""
        if self.seat is None or self.hotseat or self.key is None:
            return False
        return not hmac.compare_digest(table.tokens.get(self.seat, ""), self.key)

    def push(self, text: str) -> bool:
        """Queue a frame; False (and the connection marked to close) if the client lags."""
        if self.close_reason is not None:
            return False
        if self.queue.qsize() >= SEND_QUEUE_LIMIT:
            self.close(f"too slow: {SEND_QUEUE_LIMIT} frames were waiting")
            return False
        self.queue.put_nowait(text)
        return True

    async def reply(self, text: str) -> bool:
        """Queue the answer to the client's own frame, waiting while its replies fill their
        share of the queue: the receiving loop runs without pausing while frames arrive, so a
        burst would otherwise fill the queue before the pump sent anything. False when the
        connection is closing (the pump closes a client that does not read)."""
        while self.close_reason is None and self.queue.qsize() >= REPLY_ROOM:
            self.sent.clear()
            await self.sent.wait()
        return self.push(text)

    def close(self, reason: str) -> None:
        """Close with ``reason`` once the frames queued so far are sent."""
        self.close_reason = reason
        self.queue.put_nowait(None)
        self.sent.set()  # a reply waiting for room learns it will not be sent

    async def pump(self) -> None:
        """Send the queued frames in order until the end of the queue (None) or a frame the
        client does not take within ``patience`` seconds (its connection is then closing)."""
        while True:
            text = await self.queue.get()
            if text is None:
                return
            try:
                await asyncio.wait_for(self.send(text), self.patience)
            except TimeoutError:
                self.close(f"too slow: a frame waited {self.patience:g} s to be read")
                return
            self.sent.set()


@dataclass(eq=False)
class Table:
    """A game being played (or a finished one loaded for reading)."""

    id: str
    module: GameModule
    record: GameRecord
    state: GameState
    seats: list[str]
    tokens: dict[int, str]  # seat -> sha-256 of its token (every human seat)
    claimed: dict[int, bool]  # False only for a seat opened to the lobby and not yet joined
    invites: dict[int, str]  # seat -> sha-256 of its unused one-time invite code
    action_seats: list[int]
    hotseat: bool
    listed: bool
    table_token: str | None
    created: float
    updated: float
    version: int  # counts every change a client sees; the stored one, never decreasing
    bot_seconds: float | None = None  # the table's thinking budget per bot decision
    invite_expires: dict[int, float] = field(default_factory=dict)  # seat -> when it expires
    spectator_chat: bool = False  # spectators read and write the chat (players always do)
    rated: bool = False  # every seat an account's, no undo, no hints; the end rates them
    names: dict[int, str] = field(default_factory=dict)  # seat -> the name shown at it
    accounts: dict[int, str] = field(default_factory=dict)  # seat -> the account holding it
    # Each action's stand-in: the bot level that made it for its seat's person (None: the
    # seat's own player), as the log names the mover.
    action_standins: list[str | None] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    previous: GameState | None = None  # the state before the last action, when known
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: set[Connection] = field(default_factory=set)
    ended: str | None = None  # "expired" or "reclaimed": ended without a result (410)
    bot_busy: bool = False  # a bot of this process decides here now
    refresh_task: asyncio.Task[None] | None = None
    notices: list[Notice | None] = field(default_factory=list)  # None: read the game again
    undo_cache: tuple[int, dict[int, bool]] = (-1, {})
    # Turn-based tables (``mode`` "turn"): the seconds a person has per decision, when the one
    # deciding now runs out, the seat a stand-in bot plays for now, each seat's stand-in level.
    mode: str = "live"
    deadline_s: float | None = None
    deadline: float | None = None
    standin: int | None = None
    standins: dict[int, str] = field(default_factory=dict)
    # The seats whose person is away: their stand-in plays each of their turns whose deadline
    # passes, until they move or say they are back.
    away: set[int] = field(default_factory=set)
    # A game ended before its rules ended it (a concession, a deadline, nobody moving): how,
    # and the result then (the one who left last).
    ended_by: str | None = None
    early_result: list[dict[str, Any]] | None = None
    creator: int | None = None  # the creator's own seat (who may remove an unstarted table)
    # A live table's clocks (``clock_base_s`` None: none): the base time and increment, each
    # seat's seconds left as its clock last stopped; the running one ends at ``deadline``.
    clock_base_s: float | None = None
    clock_increment_s: float = 0.0
    clock_left: list[float] = field(default_factory=list)
    gone: dict[int, float] = field(default_factory=dict)  # seat -> since when no page is open

    @property
    def game(self) -> str:
        return self.record.game

    @property
    def ply(self) -> int:
        return len(self.record.actions)

    @property
    def is_over(self) -> bool:
        return bool(self.state.is_over) or self.ended_by is not None

    @property
    def private(self) -> bool:
        """Invite only: listed nowhere, and once over read by its players and those they
        share it with (:meth:`share_key`)."""
        return not self.listed and not self.hotseat

    def share_key(self) -> str:
        """The key a player gives those they share this table with (``Cradle-Share``): made
        from the game's seed, secret to all but its players until they pass it on."""
        message = f"cradle-share:{self.id}".encode()
        return hmac.new(str(self.record.seed).encode(), message, "sha256").hexdigest()[:32]

    def result(self) -> list[SeatResult]:
        """The final standings: the rules', or the ones of a game ended early."""
        if self.early_result is not None:
            return [cast(SeatResult, dict(place)) for place in self.early_result]
        return list(self.state.result())

    def playing(self, standin: int | bool | None = True) -> list[str]:
        """The seats as they play now (``standin``: the stand-in's seat to count instead of
        the table's own): a seat its stand-in plays for is that bot."""
        seat = self.standin if standin is True else standin
        return playing_seats(self.seats, seat if isinstance(seat, int) else None, self.standins)

    @property
    def status(self) -> str:
        if self.ended is not None:
            return self.ended
        if self.is_over:
            return "over"
        if self.open_seats():
            return "open"
        return "running"

    def open_seats(self) -> list[int]:
        """Human seats the creator opened to the lobby and nobody has joined yet."""
        if self.hotseat:
            return []
        return [seat for seat in sorted(self.tokens) if not self.claimed.get(seat, True)]

    def free_seats(self) -> list[int]:
        """The seats nobody has taken yet: open ones, and those whose invite is unused."""
        return sorted(set(self.open_seats()) | set(self.invites))

    def bot_turn(self, state: Any = None, standin: int | bool | None = True) -> bool:
        """Whether a bot decides in ``state`` (the table's own by default), a stand-in too."""
        if state is None:
            state = self.state
            if self.ended_by is not None:
                return False
        if state.is_over:
            return False
        return self.playing(standin)[int(state.to_move)].startswith("bot:")

    def standin_after(self, seat: int, after: GameState) -> int | None:
        """The stand-in's seat once ``seat`` made a move leading to ``after``: a stand-in
        plays its seat's whole turn, and no more."""
        if self.standin != seat or after.is_over or int(after.to_move) != seat:
            return None
        return seat

    def clock_moved(self, updated: float) -> None:
        """After a change stored at ``updated``: a turn-based table's deciding person has
        ``deadline_s`` from then (the storage's rule, mirrored: see ``_next_deadline``)."""
        if self.deadline_s is None or self.bot_turn() or self.is_over:
            self.deadline = None
        else:
            self.deadline = updated + self.deadline_s

    def clock_seat(
        self, state: GameState, standin: int | None, free: Collection[int]
    ) -> int | None:
        """The seat whose clock runs in ``state`` at a live table with clocks: the person
        deciding, once every seat is taken (``free``: the seats nobody took yet: an invited
        seat's clock waits for its person), and not while a stand-in plays for them."""
        if self.clock_base_s is None or state.is_over or free:
            return None
        seat = int(state.to_move)
        return seat if self.playing(standin)[seat] == "human" else None

    def clocks_after(
        self,
        state: GameState,
        standin: int | None,
        ends: int | None,
        increment: bool = True,
        free: Collection[int] | None = None,
        start: bool = False,
    ) -> Clocks | None:
        """The clocks after a change that leads to ``state`` (``standin``: the stand-in's seat
        then; ``free``: the seats nobody took then, by default as now): ``ends``, the seat
        whose turn it ends (its clock stops, with the increment if ``increment``); when it ends
        none, the clocks go on as they were (``start``: but the deciding person's starts if
        none ran: everyone is seated). None: the table has no clocks."""
        if self.clock_base_s is None:
            return None
        left = tuple(self.clock_left)
        if ends is None and (self.deadline is not None or not start):
            return Clocks(left, keep=True, until=self.deadline)
        running = self.to_move() if self.deadline is not None else None
        return Clocks(
            left,
            stops=ends,
            deadline=self.deadline if ends is not None and ends == running else None,
            increment=self.clock_increment_s if increment else 0.0,
            runs=self.clock_seat(state, standin, self.free_seats() if free is None else free),
        )

    def clocks_stored(self, clocks: Clocks | None, updated: float) -> None:
        """Mirror a change's clocks as stored at ``updated`` (see :meth:`Clocks.at`)."""
        if clocks is not None:
            self.clock_left, self.deadline = clocks.at(updated)

    def clock_summary(self) -> dict[str, Any] | None:
        """A live table's clocks as every frame shows them: each seat's seconds left as its
        clock last stopped, and the seat whose clock runs (until ``deadline``)."""
        if self.clock_base_s is None:
            return None
        running = self.to_move() if self.deadline is not None else None
        return {
            "base_s": self.clock_base_s,
            "increment_s": self.clock_increment_s,
            "left": [round(seconds, 3) for seconds in self.clock_left],
            "running": running,
            # Since when each seat's person has had no page open (null: one is open).
            "gone": [self.gone.get(seat) for seat in range(len(self.seats))],
            "absent_s": ABSENT_SECONDS,
        }

    def turn_start(self) -> int:
        """The move number at which the seat deciding now began its turn (a turn of several
        actions, as in Tigris, is one turn): with the game and seat, it names the turn."""
        seat = self.to_move()
        start = self.ply
        while start > 0 and self.action_seats[start - 1] == seat:
            start -= 1
        return start

    def seat_of(self, token: str | None) -> int | None:
        """The seat whose token is ``token``; None if it matches none."""
        if not token:
            return None
        digest = hash_token(token)
        found = None
        for seat, stored in self.tokens.items():
            if hmac.compare_digest(stored, digest) and self.claimed.get(seat, True):
                found = seat
        return found

    def authorize(self, token: str | None) -> tuple[int | None, bool]:
        """(seat, hot-seat screen?) for ``token``: no token is a spectator, a wrong one is 403.
        Nothing changes: seats are claimed when the game is created or joined, not here."""
        if not token:
            return None, False
        if self.is_table_token(token):
            return None, True
        seat = self.seat_of(token)
        if seat is None:
            raise forbidden(N_("that token belongs to no seat of this game"))
        return seat, False

    def moved_on(self, events: list[Event] | None, updated: float) -> None:
        """This process stored a change of the table (the database is at ``version + 1`` now,
        changed at ``updated``); ``events``: the game's events of it (None: as before)."""
        self.version += 1
        self.updated = updated
        if events is not None:
            self.events = events

    def is_table_token(self, token: str | None) -> bool:
        return bool(
            token
            and self.table_token is not None
            and hmac.compare_digest(self.table_token, hash_token(token))
        )

    def to_move(self) -> int | None:
        return None if self.is_over else int(self.state.to_move)

    def hotseat_seat(self) -> int | None:
        """The seat a hot-seat screen shows: the human who decides now, else nobody."""
        seat = self.to_move()
        if seat is None or self.seats[seat] != "human":
            return None
        return seat

    def invite_expired(self, seat: int, now: float | None = None) -> bool:
        expires = self.invite_expires.get(seat)
        return expires is not None and expires <= (time.time() if now is None else now)

    def unused_invites(self) -> list[int]:
        """The seats whose invite can still be used."""
        now = time.time()
        return [seat for seat in sorted(self.invites) if not self.invite_expired(seat, now)]

    def summary(self) -> dict[str, Any]:
        """Public facts about the table, for the lobby and every frame."""
        return {
            "id": self.id,
            "game": self.game,
            "players": list(self.record.players),
            "seats": list(self.seats),
            "names": self.shown_names(),
            "claimed": [self.claimed.get(s, True) for s in range(len(self.seats))],
            "open": self.open_seats(),
            "invites": self.unused_invites(),
            "hotseat": self.hotseat,
            "status": self.status,
            "moves": self.ply,
            "to_move": self.to_move(),
            "created": self.created,
            "updated": self.updated,
            "options": shown_options(self.record.options),
            "private": self.private,
            "mode": self.mode,
            "deadline_s": self.deadline_s,
            "deadline": self.deadline,
            "standin": self.standin,
            "away": sorted(self.away),
            "standins": [
                self.standins.get(seat, STANDIN_DEFAULT) if kind == "human" else None
                for seat, kind in enumerate(self.seats)
            ],
            "ended_by": self.ended_by,
            "result": self.result() if self.is_over else None,
            "rated": self.rates(),
            "clock": self.clock_summary(),
        }

    def shown_names(self) -> list[str | None]:
        """The people's names at the seats (an account's or a guest's; None: none given, or
        a bot), as every answer that names the seats shows them."""
        return [self.names.get(seat) for seat in range(len(self.seats))]

    def rates(self) -> bool:
        """Whether the game rates its players when it ends, or will once the seats that wait
        for a person (open, or invited) are taken: a rated table seats no guest."""
        holders = [self.accounts.get(seat) for seat in range(len(self.seats))]
        return rates(self.rated, holders, {*self.open_seats(), *self.unused_invites()})


def hints_allowed(table: Table) -> bool:
    """Hints help at a hot seat and against bots, never between people at their screens."""
    if table.is_over or table.rated:
        return False
    return table.hotseat or sum(1 for kind in table.seats if kind == "human") == 1


@dataclass
class Rebuilt:
    """A table's state worked out from its record, off the event loop."""

    state: GameState
    previous: GameState | None
    events: list[Event]


def replay_record(record: GameRecord, seats: list[int] | None = None) -> Rebuilt:
    """The state after every action of ``record``, the one before the last and its events;
    ``seats``: the stored seat of each action, which must be the seat deciding there (what a
    seat is shown of an action depends on who made it).

    CorruptGame when the record does not replay: stored data is not trusted, so whatever the
    engine raises on it counts. The reason names the move, never what the engine said about
    it (that could describe a hand); the log has that.
    """
    try:
        get_game(record.game)
    except UnknownGame:
        raise CorruptGame("?", f"unknown game {record.game[:20]!r}") from None
    try:
        state = record.start()
    except Exception as exc:
        log.error("game set-up failed: %s: %s", type(exc).__name__, exc)
        raise CorruptGame("?", "its game cannot be set up from the stored options") from None
    previous = None
    events: list[Event] = []
    last = len(record.actions) - 1
    for number, action in enumerate(record.actions):
        if seats is not None and (state.is_over or seats[number] != int(state.to_move)):
            raise CorruptGame(
                "?", f"its move {number + 1} is stored for a seat that did not decide"
            )
        if number == last:
            previous = state.clone()
        try:
            events = list(state.apply(action) or [])
        except Exception as exc:
            if not isinstance(exc, ValueError):  # an illegal action is a ValueError: expected
                log.error("move %d failed to replay: %s: %s", number + 1, type(exc).__name__, exc)
            raise CorruptGame("?", f"its move {number + 1} does not replay") from None
    return Rebuilt(state, previous, events)


def snapshot(table: Table) -> tuple[GameRecord, list[int]]:
    """The record and movers as they are now (engine threads read these copies)."""
    record = GameRecord(
        game=table.game,
        players=list(table.record.players),
        seed=table.record.seed,
        options=dict(table.record.options),
        actions=list(table.record.actions),
    )
    return record, list(table.action_seats)


def undo_event(table: Table, seat: int, action: str) -> UndoEvent:
    """The event that says ``seat`` took back ``action``."""
    # The action is shown per seat by public_events, like every description of an action.
    who = table.record.players[seat]
    return UndoEvent(type="undo", seat=seat, who=who, action=action, text="")


def build_table(stored: StoredGame) -> Table:
    """The table of a stored game, its record replayed (engine work); CorruptGame when it
    cannot be."""
    try:
        module = get_game(stored.game)
    except UnknownGame:
        raise CorruptGame(stored.id, f"unknown game {stored.game[:20]!r}") from None
    record = stored.record()
    try:
        rebuilt = replay_record(record, stored.action_seats)
    except CorruptGame as exc:
        raise CorruptGame(stored.id, exc.reason) from None
    return Table(
        id=stored.id,
        module=module,
        record=record,
        state=rebuilt.state,
        seats=list(stored.seats),
        tokens=dict(stored.tokens),
        claimed=dict(stored.claimed),
        invites=dict(stored.invites),
        invite_expires=dict(stored.invite_expires),
        names=dict(stored.names),
        accounts=dict(stored.accounts),
        action_seats=list(stored.action_seats),
        action_standins=list(stored.action_standins),
        hotseat=stored.hotseat,
        listed=stored.listed,
        table_token=stored.table_token,
        created=stored.created,
        updated=stored.updated,
        version=stored.version,
        bot_seconds=stored.bot_seconds,
        spectator_chat=stored.spectator_chat,
        rated=stored.rated,
        events=rebuilt.events,
        previous=rebuilt.previous,
        ended=stored.status if stored.status in ENDED else None,
        mode=stored.mode,
        deadline_s=stored.deadline_s,
        deadline=stored.deadline,
        standin=stored.standin,
        standins=dict(stored.standins),
        away=set(stored.away),
        ended_by=stored.ended_by,
        early_result=stored.result if stored.ended_by is not None else None,
        creator=stored.creator,
        clock_base_s=stored.clock_base_s,
        clock_increment_s=stored.clock_increment_s or 0.0,
        clock_left=list(stored.clock_left),
        gone=dict(stored.gone),
    )
