"""A game being served (:class:`Table`), its WebSocket clients (:class:`Connection`) and the
replay of a stored record into a table's state (:func:`replay_record`); and :class:`Tables`,
the tables one process serves: loaded on first use, cached, brought up to the stored version.

A table's ``state`` is never mutated: a move is applied to a clone, stored, and only then
published by swapping the clone in, so readers need no lock. A table's lock orders its
changes; different tables never wait for each other.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, cast

from cradle.core.contract import Event, GameModule, GameState, SeatResult
from cradle.core.lessons import LESSON_OPTION
from cradle.core.record import GameRecord
from cradle.games import UnknownGame, get_game
from cradle.server.errors import ApiError
from cradle.server.limits import Limits
from cradle.server.ratings import rates
from cradle.server.redact import UndoEvent
from cradle.server.storage import (
    DATABASE_ERRORS,
    ENDED,
    NOTIFY_CHANNEL,
    STANDIN_DEFAULT,
    CorruptGame,
    Notice,
    Storage,
    StoredGame,
    playing_seats,
    shown_options,
)
from cradle.server.tokens import hash_token

log = logging.getLogger("cradle.server")

T = TypeVar("T")

MAX_LOADED = 2000  # tables kept in memory (idle ones are dropped first; the database keeps all)

MAX_ACTION_LENGTH = 200
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

    @property
    def game(self) -> str:
        return self.record.game

    @property
    def ply(self) -> int:
        return len(self.record.actions)

    @property
    def is_over(self) -> bool:
        return bool(self.state.is_over) or self.ended_by is not None

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
            "private": not self.listed and not self.hotseat,
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


class TablesHost(Protocol):
    """What the tables need of the server (the hub is one): storage and limits, ways to run
    work in storage and in the engines, and the session that publishes a change."""

    @property
    def storage(self) -> Storage: ...

    @property
    def limits(self) -> Limits: ...

    @property
    def closing(self) -> bool: ...

    @property
    def bot_wakeup(self) -> asyncio.Event: ...

    async def db(self, function: Callable[..., T], *args: Any) -> T: ...

    async def engine(self, function: Callable[..., T], *args: Any) -> T: ...

    def changed(self, table: Table, events: list[Event] | None, updated: float) -> None: ...

    def broadcast(self, table: Table) -> None: ...

    def heard(self, payload: str) -> None: ...


class Tables:
    """The tables this process serves: loaded from the database on first use and kept (the
    least recently used idle ones dropped beyond MAX_LOADED), brought up to the stored version
    (another process's write, heard by ``LISTEN`` on PostgreSQL), and the games whose rows
    cannot be read back set aside."""

    def __init__(self, host: TablesHost) -> None:
        self.host = host
        self.storage = host.storage
        self.loaded: OrderedDict[str, Table] = OrderedDict()
        self.loading: dict[str, asyncio.Future[Table]] = {}
        self.broken: dict[str, str] = {}  # game id -> why it cannot be restored (public)

    def set_aside(self, game_id: str, reason: str) -> ApiError:
        """Serve the game no more (its stored rows cannot be read back); the answer its URLs
        give from now on."""
        if game_id not in self.broken:
            log.error("game %s is set aside, it cannot be restored: %s", game_id, reason)
        self.broken[game_id] = reason
        self.loaded.pop(game_id, None)
        return ApiError(503, f"game {game_id} cannot be restored: {reason}")

    # -- loading tables -----------------------------------------------------------------------

    async def table(self, game_id: str) -> Table:
        """The table ``game_id``, loaded from the database if it is not in memory."""
        found = self.loaded.get(game_id)
        if found is not None:
            self.loaded.move_to_end(game_id)
            if found.ended is not None:
                raise self.gone(found)
            return found
        if game_id in self.broken:
            raise ApiError(503, f"game {game_id} cannot be restored: {self.broken[game_id]}")
        if len(game_id) > 40:
            raise ApiError(404, "no such game")
        pending = self.loading.get(game_id)
        if pending is None:
            pending = asyncio.get_running_loop().create_future()
            self.loading[game_id] = pending
            try:
                loaded = await self._load(game_id)
            except asyncio.CancelledError:
                pending.cancel()
                raise
            except Exception as exc:
                pending.set_exception(exc)
                pending.exception()  # retrieved: nobody else may be waiting
            else:
                pending.set_result(loaded)
            finally:
                del self.loading[game_id]
        table = await asyncio.shield(pending)
        if table.ended is not None:
            raise self.gone(table)
        return table

    def gone(self, table: Table) -> ApiError:
        """The answer for a game that ended without a result: 410 with the reason."""
        if table.ended == "reclaimed" and LESSON_OPTION in table.record.options:
            return ApiError(
                410, f"lesson table {table.id} has ended: the same browser started newer lessons"
            )
        if table.ended == "reclaimed":
            return ApiError(
                410,
                f"game {table.id} has ended: this server was full, and its creator held the most "
                "games in progress there",
            )
        if table.ended == "removed":
            return ApiError(410, f"game {table.id} was removed by its creator before it began")
        minutes = self.host.limits.unplayed_minutes
        return ApiError(
            410, f"game {table.id} has expired: nobody played in it for {minutes:g} minutes"
        )

    async def end(self, game_id: str, status: str) -> None:
        """This process ended the game ``game_id`` in the database (its version moved on by
        one): a copy in memory says so to its clients and closes their connections."""
        table = self.loaded.get(game_id)
        if table is None:
            return
        async with table.lock:
            if table.ended is None:
                table.ended = status
                self.host.changed(table, None, table.updated)
                self.close_all(table)

    def close_all(self, table: Table) -> None:
        """Close every connection to an ended table, after the view that says so (a client
        that comes back is told why: 410)."""
        reason = self.gone(table).reason
        for connection in list(table.connections):
            connection.close_reason = reason
            connection.queue.put_nowait(None)
        table.connections.clear()

    async def _load(self, game_id: str) -> Table:
        try:
            stored = await self.host.db(self.storage.load, game_id)
            if stored is None:
                raise ApiError(404, f"no game {game_id!r}")
            table = await self.host.engine(self._build, stored)
        except CorruptGame as exc:
            raise self.set_aside(game_id, exc.reason) from None
        if table.is_over and stored.status not in ("over", *ENDED) and not self.storage.read_only:
            # Stored before its last status update could be written.
            await self.host.db(self.storage.set_status, game_id, "over")
        self.loaded[game_id] = table
        self.evict()
        return table

    def _build(self, stored: StoredGame) -> Table:
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
        )

    def evict(self) -> None:
        """Forget the least recently used idle tables beyond MAX_LOADED (they reload on use)."""
        for game_id in list(self.loaded)[: max(0, len(self.loaded) - MAX_LOADED)]:
            table = self.loaded[game_id]
            if not table.connections and not table.bot_busy and not table.lock.locked():
                del self.loaded[game_id]

    async def fresh(self, table: Table) -> Table:
        """``table`` brought up to the stored version (a shared database: another process may
        have changed it a moment ago and its notice may still be on the way)."""
        if self.storage.shared:
            try:
                stored = await self.host.db(self.storage.version_of, table.id)
                if stored is not None and stored > table.version:
                    async with table.lock:
                        await self.reload(table)
            except CorruptGame as exc:
                raise self.set_aside(table.id, exc.reason) from None
            except DATABASE_ERRORS as exc:
                # The database cannot be asked: this copy is the latest this process can know,
                # and a view of it is better than none (writes answer 503 meanwhile).
                log.warning("game %s served from memory: %s", table.id, exc)
        if table.ended is not None:
            raise self.gone(table)
        return table

    async def reload(self, table: Table) -> None:
        """Read the table back from the database (under its lock) and publish what changed;
        ApiError (503) when the stored game has become unreadable: it is set aside."""
        try:
            stored = await self.host.db(self.storage.load, table.id)
        except CorruptGame as exc:
            raise self.set_aside(table.id, exc.reason) from None
        if stored is None or stored.version <= table.version:
            return
        known = table.record.actions
        if stored.actions[: len(known)] == known and len(stored.actions) > len(known):
            state = table.state.clone()  # only moves were added: apply them
            previous, events = table.state, table.events
            added = zip(
                stored.actions[len(known) :], stored.action_seats[len(known) :], strict=True
            )
            try:
                for action, seat in added:
                    if state.is_over or int(state.to_move) != seat:
                        raise ValueError("stored for a seat that did not decide")
                    previous = state.clone()
                    events = list(state.apply(action) or [])
            except Exception:
                raise self.set_aside(
                    table.id, f"its move {len(known) + 1} or a later one does not replay"
                ) from None
            rebuilt = Rebuilt(state, previous, events)
        elif stored.actions == known:
            rebuilt = Rebuilt(table.state, table.previous, table.events)
        else:  # an undo elsewhere: replay from the start
            record = stored.record()
            try:
                rebuilt = await self.host.engine(replay_record, record, list(stored.action_seats))
            except CorruptGame as exc:
                raise self.set_aside(table.id, exc.reason) from None
            if len(stored.actions) < len(known):
                undone = known[len(stored.actions)]
                seat = table.action_seats[len(stored.actions)]
                rebuilt.events = [undo_event(table, seat, undone)]
        table.record.actions = list(stored.actions)
        table.action_seats = list(stored.action_seats)
        table.state, table.previous = rebuilt.state, rebuilt.previous
        table.tokens, table.claimed = dict(stored.tokens), dict(stored.claimed)
        table.names, table.accounts = dict(stored.names), dict(stored.accounts)
        table.invites = dict(stored.invites)
        table.invite_expires = dict(stored.invite_expires)
        table.version, table.updated = stored.version, stored.updated
        table.deadline, table.standin = stored.deadline, stored.standin
        table.standins = dict(stored.standins)
        table.away = set(stored.away)
        table.ended_by = stored.ended_by
        table.early_result = stored.result if stored.ended_by is not None else None
        table.events = rebuilt.events
        if stored.status in ENDED:
            table.ended = stored.status
        self.host.broadcast(table)
        if table.ended is not None:
            self.close_all(table)
        self.host.bot_wakeup.set()

    def _refresh_soon(self, table: Table, notice: Notice | None = None) -> None:
        """Bring ``table`` up to date in the background, notices in the order they came: a
        move the table can take as it is is applied from the notice itself, anything else
        (an undo, a seat taken, a notice missed) reads the game again."""
        table.notices.append(notice)
        if table.refresh_task is not None and not table.refresh_task.done():
            return

        async def refresh() -> None:
            try:
                while table.notices:
                    found = table.notices.pop(0)
                    async with table.lock:
                        if found is None or not self._take_move(table, found):
                            await self.reload(table)
            except ApiError:
                pass  # set aside (and logged) as it was read
            except DATABASE_ERRORS as exc:
                log.warning("game %s: reloading failed: %s", table.id, exc)
            except Exception:
                log.exception("game %s: reloading failed", table.id)

        table.refresh_task = asyncio.ensure_future(refresh())

    def _take_move(self, table: Table, notice: Notice) -> bool:
        """Apply the move another process stored, as its notice describes it; False when the
        notice is not the very next change of this copy (then the game is read again)."""
        if notice.version <= table.version:
            return True  # this copy has it already
        move = notice.added_move()
        if move is None or notice.version != table.version + 1 or move[0] != table.ply:
            return False
        _ply, seat, action = move
        if seat != table.state.to_move or table.ended_by is not None or seat in table.away:
            return False  # (a seat away: its person or its stand-in moved? read it again)
        after = table.state.clone()
        try:
            events = list(after.apply(action) or [])
        except ValueError:
            return False
        table.standin = table.standin_after(seat, after)
        table.previous, table.state = table.state, after
        table.record.actions.append(action)
        table.action_seats.append(seat)
        table.clock_moved(notice.updated)
        self.host.changed(table, events, notice.updated)
        return True

    # -- other processes (PostgreSQL) ---------------------------------------------------------

    async def listen(self) -> None:
        """Hear every process's writes and bring the tables this process serves up to date."""
        import psycopg

        conninfo = self.storage.listen_conninfo()
        while not self.host.closing:
            try:
                connection = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
                async with connection:
                    await connection.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    for loaded in list(self.loaded.values()):  # what was missed meanwhile
                        self._refresh_soon(loaded)
                    async for note in connection.notifies():
                        if note.payload.startswith(("chat ", "mute ")):
                            self.host.heard(note.payload)  # a chat line or mute elsewhere
                            continue
                        notice = Notice.parse(note.payload)
                        if notice is None or notice.origin == self.storage.origin:
                            continue  # this process's own write: its table has it already
                        table = self.loaded.get(notice.game_id)
                        if table is not None and notice.version > table.version:
                            self._refresh_soon(table, notice)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("listening for other servers' changes failed (%s); again in 1 s", exc)
                await asyncio.sleep(1.0)
