"""The live tables: games in memory, their seats and tokens, moves, undo, bots and WebSockets.

Every game being served lives here as a :class:`Table` whose ``state`` is never mutated: a move
is applied to a clone, stored, and only then published by swapping the clone in. So readers
(views, bots thinking in a worker) need no lock, and a move that fails to store changes nothing.
A table's lock orders its changes; different tables never wait for each other.

The database is the truth and the tables are copies of it. Every write names the version it
expects (:mod:`cradle.server.storage`); when another process changed the game first, the table
is reloaded and the request decided again on the fresh state. With PostgreSQL, each process
hears the others' writes (``LISTEN``) and pushes them to its own WebSocket clients.

Bots' turns wait in the database (``bot_jobs``, written with the change that makes a bot
decide); this process's bot workers claim them in the queue's fair order, as do ``cradle bots``
processes on any machine (:mod:`cradle.server.botqueue`). New games are counted against the
caps per client and for the server in the database too, and a game nobody played in expires
after ``Limits.unplayed_minutes`` (answering 410 from then on).

What a seat sees of an action always goes through :func:`cradle.server.redact.public_action`.
The hub talks to the games only through the contract (:mod:`cradle.games`) and to bots through
:mod:`cradle.server.bots`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import os
import random
import secrets
import socket
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from cradle.ai import bot_names
from cradle.ai.knowledge.belief import HandBelief, replayed
from cradle.core.contract import Event, GameModule, GameState
from cradle.core.record import GameRecord
from cradle.games import UnknownGame, get_game
from cradle.server.assist import HINT, Analyst, AssistPool, hint_work, work_seed
from cradle.server.bots import (
    LEASE_SECONDS,
    POLL_SECONDS,
    RENEW_SECONDS,
    RETRY_SECONDS,
    BotPool,
    bot_decision,
    decision_cost,
)
from cradle.server.history import Step, board_at, history_for, replay_steps
from cradle.server.limits import Limits, RateLimiter
from cradle.server.redact import UndoEvent, public_action, public_events
from cradle.server.storage import (
    DATABASE_ERRORS,
    ENDED,
    NOTIFY_CHANNEL,
    BotJob,
    CapReached,
    Caps,
    Conflict,
    CorruptGame,
    Notice,
    ReadOnly,
    Storage,
    StoredGame,
    client_hash,
    trouble,
)

log = logging.getLogger("cradle.server")

T = TypeVar("T")

MAX_ACTION_LENGTH = 200
MAX_LOADED = 2000  # tables kept in memory (idle ones are dropped first; the database keeps all)
SEND_QUEUE_LIMIT = 64  # frames waiting for one slow client before it is closed
# A client's replies to its own frames take at most half the queue (the rest stays for the
# game's news); a frame not taken by the client within SEND_PATIENCE closes it as not reading.
REPLY_ROOM = SEND_QUEUE_LIMIT // 2
SEND_PATIENCE = 10.0
WRITE_ATTEMPTS = 4  # a write that keeps meeting other processes' changes gives up (503)
SWEEP_SECONDS = 2.0  # how often a process looks after the games' housekeeping
ANALYSIS_SWEEPS = 10  # a shared database: sweeps between two looks for analyses waiting
EXPIRY_SWEEPS = 5  # sweeps between two looks for games nobody played in for too long
BOT_IDLE = 5.0  # SQLite: the longest an idle bot worker waits (every change wakes it anyway)
RATES_KEPT = 3600.0  # seconds a client's shared rate bucket is kept after its last request
DB_RETRY_AFTER = 5.0  # seconds a client waits before trying again when the database fails
# Public counters of the hidden stock in the games' views: when one moves, a tile was drawn.
DRAW_COUNTERS = ("bag_size", "stack_size", "stack_epochs", "epochs_drawn")


class ApiError(Exception):
    """A request the hub refuses: ``status`` is the HTTP status, ``reason`` the message."""

    def __init__(self, status: int, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.retry_after = retry_after


def forbidden(reason: str) -> ApiError:
    return ApiError(403, reason)


def bad_request(reason: str) -> ApiError:
    return ApiError(400, reason)


def unavailable(exc: BaseException, doing: str | None = None) -> ApiError:
    """The answer to a storage failure (:data:`DATABASE_ERRORS`), the one place they become
    answers: a 503 with the reason, and ``Retry-After`` when trying again may help (not for a
    game set aside, nor a write to a read-only server)."""
    if isinstance(exc, CorruptGame):
        return ApiError(503, f"game {exc.game_id} cannot be restored: {exc.reason}")
    reason = trouble(exc)
    if doing is not None:
        reason = f"{doing}: {reason}"
    if isinstance(exc, ReadOnly):
        return ApiError(503, reason)
    return ApiError(503, f"{reason}; try again soon", retry_after=DB_RETRY_AFTER)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


@dataclass(frozen=True)
class NewTable:
    """A validated ``POST /api/games`` body (see :mod:`cradle.server.models`)."""

    game: str
    players: int
    options: dict[str, Any]
    seats: list[str]  # "human" (the creator's), "open" (for the lobby) or "bot:NAME"
    hotseat: bool = False
    listed: bool = True
    bot_seconds: float | None = None


@dataclass(eq=False)
class Connection:
    """One WebSocket client: a seat, a spectator (``seat is None``) or a hot-seat screen."""

    seat: int | None
    hotseat: bool
    send: Callable[[str], Awaitable[None]]
    queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None
    close_reason: str | None = None  # set when the server closes it (the client reconnects)
    sent: asyncio.Event = field(default_factory=asyncio.Event)  # set by every frame sent

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
        client does not take within SEND_PATIENCE seconds (its connection is then closing)."""
        while True:
            text = await self.queue.get()
            if text is None:
                return
            try:
                await asyncio.wait_for(self.send(text), SEND_PATIENCE)
            except TimeoutError:
                self.close(f"too slow: a frame waited {SEND_PATIENCE:g} s to be read")
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
    events: list[Event] = field(default_factory=list)
    previous: GameState | None = None  # the state before the last action, when known
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: set[Connection] = field(default_factory=set)
    ended: str | None = None  # "expired" or "reclaimed": ended without a result (410)
    bot_busy: bool = False  # a bot of this process decides here now
    # The public belief over the hands (cradle.ai.belief) after the first ``belief_ply``
    # actions: followed move by move, worked out again from the record when behind.
    belief: HandBelief | None = None
    belief_ply: int = -1
    refresh_task: asyncio.Task[None] | None = None
    notices: list[Notice | None] = field(default_factory=list)  # None: read the game again
    undo_cache: tuple[int, dict[int, bool]] = (-1, {})

    @property
    def game(self) -> str:
        return self.record.game

    @property
    def ply(self) -> int:
        return len(self.record.actions)

    @property
    def is_over(self) -> bool:
        return bool(self.state.is_over)

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

    def follow(self, before: GameState, action: str) -> None:
        """Keep the belief over the hands up with ``action``, about to be played in ``before``
        (it reads only what everybody at the table sees)."""
        if self.belief is not None and self.belief_ply == self.ply:
            self.belief.observe(before, action)
            self.belief_ply += 1

    def bot_turn(self, state: Any = None) -> bool:
        state = self.state if state is None else state
        return not state.is_over and self.seats[int(state.to_move)].startswith("bot:")

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
            "claimed": [self.claimed.get(s, True) for s in range(len(self.seats))],
            "open": self.open_seats(),
            "invites": self.unused_invites(),
            "hotseat": self.hotseat,
            "status": self.status,
            "moves": self.ply,
            "to_move": self.to_move(),
            "created": self.created,
            "updated": self.updated,
        }


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


class Hub:
    """All tables of one server process, their storage and their bots."""

    def __init__(self, storage: Storage, bot_delay: float = 0.5, limits: Limits | None = None):
        self.storage = storage
        self.bot_delay = bot_delay
        storage.bot_delay = bot_delay  # a bot's turn is due that long after it comes
        self.limits = limits or Limits()
        # SQLite wants one writer; a server database takes a few connections in parallel.
        self.db_pool = ThreadPoolExecutor(
            max_workers=1 if storage.is_sqlite else 4, thread_name_prefix="cradle-db"
        )
        # Setting games up and replaying records: engine work, kept off the event loop.
        self.engine_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="cradle-engine")
        self.bots = BotPool(self.limits.processes)
        self.tables: OrderedDict[str, Table] = OrderedDict()
        self.loading: dict[str, asyncio.Future[Table]] = {}
        self.broken: dict[str, str] = {}  # game id -> why it cannot be restored (public)
        self.replays: OrderedDict[tuple[str, int | None], dict[str, Any]] = OrderedDict()
        self.histories: OrderedDict[tuple[str, int], list[Step]] = OrderedDict()
        self.boards: OrderedDict[tuple[str, int, int, int | None], dict[str, Any]] = OrderedDict()
        self.assist = AssistPool(self.limits.assist_processes)
        self.analyst = Analyst(self)
        self.hints: dict[tuple[str, int, int], asyncio.Future[list[dict[str, Any]]]] = {}
        self.lobby_cache: dict[tuple[Any, ...], tuple[float, dict[str, Any]]] = {}
        self.background: set[asyncio.Task[None]] = set()
        self.closing = False
        # This process's bot workers: their name on the turns they claim, what wakes them,
        # the turns in hand; the bots' moves they stored (numbered, with the game: the latest
        # thousand), for the fairness tests.
        self.worker = f"{socket.gethostname()[:40]}:{os.getpid()}:{storage.origin[:6]}"
        self.bot_wakeup = asyncio.Event()
        self.bot_jobs: set[asyncio.Task[None]] = set()
        self.bots_made = 0
        self.bot_moves: deque[tuple[int, str]] = deque(maxlen=1000)

    # -- life cycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Set aside the games whose rows are unreadable and start the bot workers (they take
        the bots' turns from the database); games load when first asked for."""
        await self._db(self.storage.claim)
        for game_id, reason in (await self._db(self.storage.check_unfinished)).items():
            self._set_aside(game_id, reason)
        if self.storage.read_only:  # nothing changes: no bots, no analyses, no other writers
            log.warning("serving read-only: the database cannot be written")
            return
        if not self.storage.shared:  # the only process: turns claimed before a crash are free
            await self._db(self.storage.release_bot_jobs, None)
        if self.limits.prestart_bots and self.limits.run_bots:
            self.bots.start()
        if self.storage.shared:
            self._spawn(self._listen())
        self._spawn(self._sweep())
        if self.limits.run_bots:
            self._spawn(self._bot_loop())
        self.analyst.start()
        log.info("serving; %d games set aside", len(self.broken))

    async def stop(self) -> None:
        self.closing = True
        tasks = [*self.background, *self.bot_jobs]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        with contextlib.suppress(Exception):  # other processes' workers take them at once
            await self._db(self.storage.release_bot_jobs, self.worker)
        await self.analyst.stop()
        for table in list(self.tables.values()):
            for connection in list(table.connections):
                connection.close("the server is stopping")
        self.bots.close()
        self.assist.close()
        self.engine_pool.shutdown(wait=False, cancel_futures=True)
        self.db_pool.shutdown(wait=True)
        self.storage.close()

    def _spawn(self, work: Awaitable[None]) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def _db(self, function: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.db_pool, function, *args)

    async def _engine(self, function: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.engine_pool, function, *args)

    def _set_aside(self, game_id: str, reason: str) -> ApiError:
        """Serve the game no more (its stored rows cannot be read back); the answer its URLs
        give from now on."""
        if game_id not in self.broken:
            log.error("game %s is set aside, it cannot be restored: %s", game_id, reason)
        self.broken[game_id] = reason
        self.tables.pop(game_id, None)
        return ApiError(503, f"game {game_id} cannot be restored: {reason}")

    # -- loading tables -----------------------------------------------------------------------

    async def table(self, game_id: str) -> Table:
        """The table ``game_id``, loaded from the database if it is not in memory."""
        found = self.tables.get(game_id)
        if found is not None:
            self.tables.move_to_end(game_id)
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
        if table.ended == "reclaimed":
            return ApiError(
                410,
                f"game {table.id} has ended: this server was full, and its creator held the most "
                "games in progress there",
            )
        minutes = self.limits.unplayed_minutes
        return ApiError(
            410, f"game {table.id} has expired: nobody played in it for {minutes:g} minutes"
        )

    async def _end(self, game_id: str, status: str) -> None:
        """This process ended the game ``game_id`` in the database (its version moved on by
        one): a copy in memory says so to its clients and closes their connections."""
        table = self.tables.get(game_id)
        if table is None:
            return
        async with table.lock:
            if table.ended is None:
                table.ended = status
                self._changed(table, None, table.updated)
                self._close_all(table)

    def _close_all(self, table: Table) -> None:
        """Close every connection to an ended table, after the view that says so (a client
        that comes back is told why: 410)."""
        reason = self.gone(table).reason
        for connection in list(table.connections):
            connection.close_reason = reason
            connection.queue.put_nowait(None)
        table.connections.clear()

    async def _load(self, game_id: str) -> Table:
        try:
            stored = await self._db(self.storage.load, game_id)
            if stored is None:
                raise ApiError(404, f"no game {game_id!r}")
            table = await self._engine(self._build, stored)
        except CorruptGame as exc:
            raise self._set_aside(game_id, exc.reason) from None
        if table.is_over and stored.status not in ("over", *ENDED) and not self.storage.read_only:
            # Stored before its last status update could be written.
            await self._db(self.storage.set_status, game_id, "over")
        self.tables[game_id] = table
        self._evict()
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
            action_seats=list(stored.action_seats),
            hotseat=stored.hotseat,
            listed=stored.listed,
            table_token=stored.table_token,
            created=stored.created,
            updated=stored.updated,
            version=stored.version,
            bot_seconds=stored.bot_seconds,
            events=rebuilt.events,
            previous=rebuilt.previous,
            ended=stored.status if stored.status in ENDED else None,
        )

    def _evict(self) -> None:
        """Forget the least recently used idle tables beyond MAX_LOADED (they reload on use)."""
        for game_id in list(self.tables)[: max(0, len(self.tables) - MAX_LOADED)]:
            table = self.tables[game_id]
            if not table.connections and not table.bot_busy and not table.lock.locked():
                del self.tables[game_id]

    async def fresh(self, table: Table) -> Table:
        """``table`` brought up to the stored version (a shared database: another process may
        have changed it a moment ago and its notice may still be on the way)."""
        if self.storage.shared:
            try:
                stored = await self._db(self.storage.version_of, table.id)
                if stored is not None and stored > table.version:
                    async with table.lock:
                        await self._reload(table)
            except CorruptGame as exc:
                raise self._set_aside(table.id, exc.reason) from None
            except DATABASE_ERRORS as exc:
                # The database cannot be asked: this copy is the latest this process can know,
                # and a view of it is better than none (writes answer 503 meanwhile).
                log.warning("game %s served from memory: %s", table.id, exc)
        if table.ended is not None:
            raise self.gone(table)
        return table

    async def _reload(self, table: Table) -> None:
        """Read the table back from the database (under its lock) and publish what changed;
        ApiError (503) when the stored game has become unreadable: it is set aside."""
        try:
            stored = await self._db(self.storage.load, table.id)
        except CorruptGame as exc:
            raise self._set_aside(table.id, exc.reason) from None
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
                raise self._set_aside(
                    table.id, f"its move {len(known) + 1} or a later one does not replay"
                ) from None
            rebuilt = Rebuilt(state, previous, events)
        elif stored.actions == known:
            rebuilt = Rebuilt(table.state, table.previous, table.events)
        else:  # an undo elsewhere: replay from the start
            record = stored.record()
            try:
                rebuilt = await self._engine(replay_record, record, list(stored.action_seats))
            except CorruptGame as exc:
                raise self._set_aside(table.id, exc.reason) from None
            if len(stored.actions) < len(known):
                undone = known[len(stored.actions)]
                seat = table.action_seats[len(stored.actions)]
                rebuilt.events = [self._undo_event(table, seat, undone)]
        table.record.actions = list(stored.actions)
        table.action_seats = list(stored.action_seats)
        table.belief = None  # worked out again when a bot needs it
        table.state, table.previous = rebuilt.state, rebuilt.previous
        table.tokens, table.claimed = dict(stored.tokens), dict(stored.claimed)
        table.invites = dict(stored.invites)
        table.invite_expires = dict(stored.invite_expires)
        table.version, table.updated = stored.version, stored.updated
        table.events = rebuilt.events
        if stored.status in ENDED:
            table.ended = stored.status
        self._broadcast(table)
        if table.ended is not None:
            self._close_all(table)
        self.bot_wakeup.set()

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
                            await self._reload(table)
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
        if seat != table.state.to_move:
            return False
        after = table.state.clone()
        try:
            events = list(after.apply(action) or [])
        except ValueError:
            return False
        table.follow(table.state, action)
        table.previous, table.state = table.state, after
        table.record.actions.append(action)
        table.action_seats.append(seat)
        self._changed(table, events, notice.updated)
        return True

    # -- other processes (PostgreSQL) ---------------------------------------------------------

    async def _listen(self) -> None:
        """Hear every process's writes and bring the tables this process serves up to date."""
        import psycopg

        conninfo = self.storage.listen_conninfo()
        while not self.closing:
            try:
                connection = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
                async with connection:
                    await connection.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    for loaded in list(self.tables.values()):  # what was missed meanwhile
                        self._refresh_soon(loaded)
                    async for note in connection.notifies():
                        notice = Notice.parse(note.payload)
                        if notice is None or notice.origin == self.storage.origin:
                            continue  # this process's own write: its table has it already
                        table = self.tables.get(notice.game_id)
                        if table is not None and notice.version > table.version:
                            self._refresh_soon(table, notice)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("listening for other servers' changes failed (%s); again in 1 s", exc)
                await asyncio.sleep(1.0)

    async def _sweep(self) -> None:
        """Now and then: end the games nobody played in for too long, and (a shared database)
        look for analyses waiting (queued elsewhere, or left by a process that stopped)."""
        sweeps = 0
        while not self.closing:
            await asyncio.sleep(SWEEP_SECONDS)
            sweeps += 1
            if self.storage.shared and sweeps % ANALYSIS_SWEEPS == 0:
                self.analyst.refill()
            if sweeps % EXPIRY_SWEEPS == 0:
                try:
                    await self.expire_unplayed()
                    if self.storage.shared:  # buckets idle an hour are full: drop them
                        await self._db(self.storage.forget_rates, time.time() - RATES_KEPT)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("ending the games nobody played in failed")

    async def take_token(self, bucket: RateLimiter, client: str) -> float:
        """``bucket``'s rate for ``client`` counted in the shared database (every process
        together); when the database cannot count, this process's own count stands."""
        try:
            return await self._db(
                self.storage.take_token, bucket.name, client, bucket.rate, int(bucket.burst),
                time.time(),
            )  # fmt: skip
        except DATABASE_ERRORS as exc:
            log.warning("rates counted in this process only: %s", exc)
            return 0.0

    async def expire_unplayed(self, now: float | None = None) -> list[str]:
        """End (``expired``) the games nobody played in that nobody changed for
        ``Limits.unplayed_minutes`` before ``now``; their ids."""
        now = time.time() if now is None else now
        seconds = self.limits.unplayed_minutes * 60.0
        ended = await self._db(self.storage.expire_unplayed, now, seconds)
        for game_id in ended:
            await self._end(game_id, "expired")
        if ended:
            self.lobby_cache.clear()
            log.info("%d games nobody played in expired", len(ended))
        return ended

    # -- creating and joining -----------------------------------------------------------------

    async def create(self, request: NewTable, client: str) -> dict[str, Any]:
        """``POST /api/games`` from ``client`` (its key: an address, or a group of them): set up
        a table, if it fits the caps; returns its id and the creator's tokens."""
        try:
            module = get_game(request.game)
        except UnknownGame as exc:
            raise bad_request(str(exc)) from None
        players = request.players
        if not module.MIN_PLAYERS <= players <= module.MAX_PLAYERS:
            raise bad_request(
                f"{request.game} takes {module.MIN_PLAYERS} to {module.MAX_PLAYERS} players, "
                f"not {players}"
            )
        if len(request.seats) != players:
            raise bad_request(f'\'seats\' must list {players} seats, e.g. ["human", "bot:random"]')
        seats = [self._seat_kind(kind) for kind in request.seats]
        if request.hotseat and "open" in seats:
            raise bad_request("a hot-seat table has no open seats: every person is at the screen")
        if not request.listed and "open" in seats:
            raise bad_request("an unlisted table has no open seats (send invites instead)")
        bot_seconds = None
        if request.bot_seconds is not None:
            bot_seconds = min(request.bot_seconds, self.limits.bot_seconds)
        try:
            options = module.options_from_dict(request.options)
            options_dict = dict(module.options_to_dict(options))
        except (ValueError, TypeError) as exc:
            raise bad_request(f"bad options: {exc}") from None
        seed = secrets.randbits(63)

        def set_up() -> tuple[GameRecord, Rebuilt]:
            first = module.new_game(players, seed, options)
            record = GameRecord(
                game=request.game, players=list(first.players), seed=seed, options=options_dict
            )
            # The same path a restart takes, so the stored record is known to replay.
            return record, replay_record(record)

        try:
            record, rebuilt = await self._engine(set_up)
        except (ValueError, CorruptGame) as exc:
            reason = exc.reason if isinstance(exc, CorruptGame) else str(exc)
            raise bad_request(f"cannot set up the game: {reason}") from None

        humans = [seat for seat, kind in enumerate(seats) if kind in ("human", "open")]
        tokens = {seat: new_token() for seat in humans if seats[seat] == "human"}
        # An open seat's token is made when someone joins; until then nobody can hold it.
        hashes = {seat: hash_token(tokens.get(seat) or new_token()) for seat in humans}
        # An invite for each human seat but the creator's own (the first: its token is theirs).
        invited = list(tokens)[1:] if not request.hotseat else []
        invites = {seat: new_token() for seat in invited}
        table_token = new_token() if request.hotseat else None
        stored_seats = ["human" if kind == "open" else kind for kind in seats]
        now = time.time()
        expires = now + self.limits.invite_days * 86400.0
        game_id = secrets.token_urlsafe(9)
        table = Table(
            id=game_id,
            module=module,
            record=record,
            state=rebuilt.state,
            seats=stored_seats,
            tokens=hashes,
            claimed={seat: seats[seat] == "human" for seat in humans},
            invites={seat: hash_token(code) for seat, code in invites.items()},
            invite_expires=dict.fromkeys(invites, expires),
            action_seats=[],
            hotseat=request.hotseat,
            listed=request.listed,
            table_token=hash_token(table_token) if table_token else None,
            created=now,
            updated=now,
            version=0,
            bot_seconds=bot_seconds,
        )
        stored = StoredGame(
            id=game_id,
            game=request.game,
            players=list(record.players),
            seed=seed,
            options=options_dict,
            seats=stored_seats,
            hotseat=request.hotseat,
            listed=request.listed,
            table_token=table.table_token,
            status=table.status,
            created=now,
            updated=now,
            version=0,
            bot_seconds=bot_seconds,
            bot_turn=table.bot_turn(),
            bot_cost=self._bot_cost(table, table.state),
            tokens=dict(table.tokens),
            claimed=dict(table.claimed),
            invites=dict(table.invites),
            invite_expires=dict(table.invite_expires),
            client=client_hash(client),
        )
        limits = self.limits
        caps = Caps(
            games=limits.max_live_games,
            games_per_client=limits.live_games_per_client,
            bot_seats=limits.max_bot_seats,
            bot_seats_per_client=limits.bot_seats_per_client,
            unplayed_seconds=limits.unplayed_minutes * 60.0,
        )
        try:
            reclaimed = await self._db(self.storage.create_game, stored, caps)
        except CapReached as exc:
            raise ApiError(429, exc.reason, retry_after=60) from None
        except DATABASE_ERRORS as exc:
            log.error("cannot store a new game: %s", exc)
            raise unavailable(exc, "the game could not be stored") from None
        for ended in reclaimed:
            log.info("game %s reclaimed for a new one", ended)
            await self._end(ended, "reclaimed")
        self.tables[game_id] = table
        self._evict()
        self.lobby_cache.clear()
        if table.bot_turn():
            self.bot_wakeup.set()
        answer: dict[str, Any] = {
            "id": game_id,
            "game": request.game,
            "players": list(record.players),
            "seats": [
                {"seat": seat, "token": token, "invite": invites.get(seat)}
                for seat, token in tokens.items()
            ],
            "open": table.open_seats(),
            "bot_seconds": bot_seconds,
            "invites_expire": expires if invites else None,
        }
        if table_token:
            answer["table_token"] = table_token
        return answer

    @staticmethod
    def _seat_kind(given: str) -> str:
        kind = given.strip().lower()
        if kind in ("human", "open"):
            return kind
        if kind.startswith("bot:"):
            name = kind[4:]
            if name in bot_names():
                return kind
            raise bad_request(f"unknown bot {name[:30]!r} (known: {', '.join(bot_names())})")
        raise bad_request(f'unknown seat {kind[:30]!r}: use "human", "open" or "bot:NAME"')

    async def join(self, table: Table, invite: str | None) -> dict[str, Any]:
        """Take a seat: the one an invite code was made for, or else the first open seat of a
        listed table. The seat gets a fresh token (the code, or any old token, stops working)."""
        async with table.lock:
            for _attempt in range(WRITE_ATTEMPTS):
                if table.ended is not None:
                    raise self.gone(table)
                if table.is_over:
                    raise forbidden("the game is over")
                if invite is not None:
                    digest = hash_token(invite)
                    matches = [
                        s for s, c in table.invites.items() if hmac.compare_digest(c, digest)
                    ]
                    if not matches:
                        raise forbidden("this invite is not valid (each invite works once)")
                    seat = matches[0]
                    if table.invite_expired(seat):
                        raise forbidden("this invite expired")
                else:
                    free = table.open_seats()
                    if not table.listed or not free:
                        raise forbidden("this game has no open seat")
                    seat = free[0]
                token = new_token()
                claimed = {**table.claimed, seat: True}
                status = "open" if any(not c for c in claimed.values()) else "running"
                try:
                    updated = await self._db(
                        self.storage.claim_seat,
                        table.id,
                        seat,
                        hash_token(token),
                        table.version,
                        status,
                        None if invite is None else hash_token(invite),
                    )
                except Conflict:
                    await self._reload(table)
                    continue
                except DATABASE_ERRORS as exc:
                    log.error("game %s: %s", table.id, exc)
                    raise unavailable(exc, "the seat could not be stored") from None
                table.tokens[seat] = hash_token(token)
                table.claimed[seat] = True
                table.invites.pop(seat, None)
                table.invite_expires.pop(seat, None)
                self.lobby_cache.clear()
                self._changed(table, None, updated)
                return {"id": table.id, "seat": seat, "token": token}
        raise ApiError(503, "the game keeps changing; try again")

    def authorize(self, table: Table, token: str | None) -> tuple[int | None, bool]:
        """(seat, hot-seat screen?) for ``token``: no token is a spectator, a wrong one is 403.
        Nothing changes: seats are claimed when the game is created or joined, not here."""
        if not token:
            return None, False
        if table.is_table_token(token):
            return None, True
        seat = table.seat_of(token)
        if seat is None:
            raise forbidden("that token belongs to no seat of this game")
        return seat, False

    # -- views --------------------------------------------------------------------------------

    def frame(self, table: Table, seat: int | None, hotseat: bool = False) -> dict[str, Any]:
        """What ``seat`` may see (a spectator: ``None``), with its legal actions if it decides."""
        if hotseat:
            seat = table.hotseat_seat()
        state = table.state
        to_move = table.to_move()
        view = dict(state.view(seat))
        deciding = seat is not None and to_move == seat
        meta = table.summary()
        last = None
        if table.record.actions:
            mover = table.action_seats[-1]
            action = public_action(table.game, table.record.actions[-1], mover, seat)
            last = {"seat": mover, "action": action}
        meta.update(
            {
                "version": table.version,
                "seat": seat,
                "screen": "hotseat" if hotseat else ("seat" if seat is not None else "spectator"),
                "events": public_events(table.game, table.events, seat),
                "last": last,
                "can_undo": seat is not None and self.can_undo(table, seat),
                "hints": self.hints_allowed(table),
                "result": state.result() if table.is_over else None,
            }
        )
        view.update(
            {
                "to_move": to_move,
                "legal_actions": list(state.legal_actions()) if deciding else [],
                "table": meta,
            }
        )
        return view

    def _broadcast(self, table: Table) -> None:
        texts: dict[tuple[int | None, bool], str] = {}
        for connection in list(table.connections):
            key = (connection.seat, connection.hotseat)
            if key not in texts:
                frame = self.frame(table, connection.seat, connection.hotseat)
                frame["type"] = "view"
                texts[key] = json.dumps(frame, separators=(",", ":"))
            if not connection.push(texts[key]):
                log.warning("closing a slow client of game %s", table.id)
                table.connections.discard(connection)

    def _changed(self, table: Table, events: list[Event] | None, updated: float) -> None:
        """This process stored a change (the database is at ``version + 1`` now): publish it."""
        table.version += 1
        table.updated = updated
        if events is not None:
            table.events = events
        self._broadcast(table)
        if table.bot_turn() and table.ended is None:
            self.bot_wakeup.set()

    # -- moves --------------------------------------------------------------------------------

    def mover(self, table: Table, token: str | None, what: str) -> int:
        """The seat ``token`` may act for now (the hot-seat screen: the deciding human)."""
        seat, hotseat = self.authorize(table, token)
        if hotseat:
            seat = table.hotseat_seat()
            if seat is None:
                raise forbidden("no human at this table decides now")
        if seat is None:
            raise forbidden(f"{what} needs the token of the seat that decides")
        return seat

    async def identify(self, table: Table, token: str | None) -> tuple[int | None, bool]:
        """:meth:`authorize`, after reading the table again if this copy does not know the
        token (a shared database: the seat may have been joined on another process)."""
        try:
            return self.authorize(table, token)
        except ApiError:
            if not self.storage.shared:
                raise
        await self.fresh(table)
        return self.authorize(table, token)

    async def mover_of(self, table: Table, token: str | None, what: str) -> int:
        """:meth:`mover`, reading the table again before refusing (see :meth:`identify`)."""
        try:
            return self.mover(table, token, what)
        except ApiError:
            if not self.storage.shared:
                raise
        await self.fresh(table)
        return self.mover(table, token, what)

    async def act(self, table: Table, token: str | None, action: Any) -> int:
        """A move for the seat holding ``token``; returns that seat."""
        seat = await self.mover_of(table, token, "a move")
        if not isinstance(action, str) or not action.strip():
            raise bad_request("'action' must be a non-empty string, e.g. \"pass\"")
        await self.play(table, seat, action)
        return seat

    async def play(
        self,
        table: Table,
        seat: int,
        action: str,
        bot_version: int | None = None,
        clock: tuple[int, float] | None = None,
    ) -> bool:
        """Apply, store, then publish ``action`` for ``seat``; False if a bot's turn went by.
        ``clock``: (seat, seconds) a bot seat has spent in its turn with this move."""
        action = " ".join(action.split())
        if len(action) > MAX_ACTION_LENGTH:
            raise bad_request(f"an action has at most {MAX_ACTION_LENGTH} characters")
        async with table.lock:
            # A shared database: before refusing, read the game again (this copy may be behind).
            checked = not self.storage.shared
            for _attempt in range(WRITE_ATTEMPTS):
                if bot_version is not None and table.version != bot_version:
                    return False
                before = table.state
                after = before.clone()
                try:
                    if table.ended is not None:
                        raise self.gone(table)
                    if table.is_over:
                        raise forbidden("the game is over")
                    if table.to_move() != seat:
                        raise forbidden(f"it is not seat {seat}'s decision")
                    try:
                        events = after.apply(action)
                    except ValueError as exc:  # IllegalAction is one
                        raise bad_request(str(exc) or "illegal action") from None
                except ApiError:
                    if checked:
                        raise
                    checked = True
                    await self._reload(table)
                    continue
                status = "over" if after.is_over else table.status
                result = after.result() if after.is_over else None
                # A person's move at a table nobody can still join: the game is being played.
                person = table.seats[seat] == "human" and status != "open"
                try:
                    updated = await self._db(
                        self.storage.append_action,
                        table.id,
                        table.ply,
                        table.version,
                        seat,
                        action,
                        status,
                        result,
                        table.bot_turn(after),
                        after.is_over and self.analysed(table),
                        person,
                        clock,
                        self._bot_cost(table, after),
                    )
                except Conflict:
                    checked = True
                    await self._reload(table)  # another process moved: decide again
                    continue
                except DATABASE_ERRORS as exc:
                    log.error("game %s: %s", table.id, exc)
                    raise unavailable(exc, "the move could not be stored") from None
                table.follow(before, action)
                table.previous = before
                table.state = after
                table.record.actions.append(action)
                table.action_seats.append(seat)
                self._changed(table, list(events or []), updated)
                if after.is_over:
                    self.lobby_cache.clear()
                    if self.analysed(table):
                        self.analyst.refill()
                break
            else:
                raise ApiError(503, "the game keeps changing; try again")
        return True

    # -- undo ---------------------------------------------------------------------------------

    def can_undo(self, table: Table, seat: int) -> bool:
        version, known = table.undo_cache
        if version != table.version:
            known = {}
            table.undo_cache = (table.version, known)
        if seat not in known:
            known[seat] = self._undo_reason(table, seat) is None
        return known[seat]

    def _undo_reason(self, table: Table, seat: int) -> str | None:
        """Why ``seat`` may not take its last action back now (None: it may).

        The rule: only the seat that decides now, only its own last action, only while no other
        seat has decided since, and only if that action revealed nothing hidden (no tile drawn,
        no hidden stack turned). The last condition is tested in two ways: the public count of
        hidden tiles (bag or stack size) must not have changed, and the action is replayed on a
        few states that differ only in what ``seat`` cannot know: if the seat would see the same
        thing after it in every one, the action revealed nothing.
        """
        if table.is_over:
            return "the game is over"
        if table.seats[seat] != "human":
            return "only people take moves back"
        if not table.record.actions or table.action_seats[-1] != seat:
            return "your last move is not the last move of the game"
        if table.to_move() != seat:
            return "another player decides now"
        before = table.previous
        if before is None or before.to_move != seat:
            return "that move cannot be taken back"
        action = table.record.actions[-1]
        seen = table.state.view(seat)
        earlier = before.view(seat)
        if any(earlier.get(key) != seen.get(key) for key in DRAW_COUNTERS):
            return "that move drew from the hidden tiles"
        for sample in range(2):
            try:
                trial = before.sample_hidden(seat, random.Random(sample))
                trial.apply(action)
                if trial.view(seat) != seen:
                    return "that move revealed hidden information"
            except Exception:
                return "that move cannot be taken back"
        return None

    @staticmethod
    def _undo_event(table: Table, seat: int, action: str) -> UndoEvent:
        # The action is shown per seat by public_events, like every description of an action.
        who = table.record.players[seat]
        return UndoEvent(type="undo", seat=seat, who=who, action=action, text="")

    async def undo(self, table: Table, token: str | None) -> None:
        seat = await self.mover_of(table, token, "an undo")
        async with table.lock:
            checked = not self.storage.shared
            for _attempt in range(WRITE_ATTEMPTS):
                if table.ended is not None:
                    raise self.gone(table)
                reason = self._undo_reason(table, seat)
                if reason is not None:
                    if checked:
                        raise forbidden(f"cannot undo: {reason}")
                    checked = True
                    await self._reload(table)  # this copy may be behind another process
                    continue
                before = table.previous
                assert before is not None  # _undo_reason refuses an undo without it
                try:
                    updated = await self._db(
                        self.storage.undo_action,
                        table.id,
                        table.ply,
                        table.version,
                        "running" if not table.open_seats() else "open",
                        table.bot_turn(before),
                        self._bot_cost(table, before),
                    )
                except Conflict:
                    checked = True
                    await self._reload(table)
                    continue
                except DATABASE_ERRORS as exc:
                    log.error("game %s: %s", table.id, exc)
                    raise unavailable(exc, "the undo could not be stored") from None
                undone = table.record.actions.pop()
                table.action_seats.pop()
                table.belief = None  # it read the action taken back
                table.state = before
                # The state before that is not kept: a second undo in a row replays the record.
                table.previous = None
                self._changed(table, [self._undo_event(table, seat, undone)], updated)
                break
            else:
                raise ApiError(503, "the game keeps changing; try again")
            if table.previous is None and table.record.actions:
                record, _ = self._snapshot(table)
                with contextlib.suppress(CorruptGame):
                    table.previous = (await self._engine(replay_record, record)).previous

    # -- bots ---------------------------------------------------------------------------------

    def _bot_cost(self, table: Table, state: GameState) -> float:
        """The seconds the next bot decision in ``state`` may take (the queue's fair order)."""
        return decision_cost(table.seats, state, table.bot_seconds, self.limits.bot_seconds)

    async def _bot_loop(self) -> None:
        """This process's bot workers: claim the bots' turns that are due from the database's
        queue (:meth:`Storage.claim_bot_job`: fair across clients, then tables), as many at a
        time as there are bot processes, and make their moves."""
        slots = self.bots.processes
        while not self.closing:
            self.bot_wakeup.clear()  # before looking: a change meanwhile wakes the wait below
            wait = POLL_SECONDS if self.storage.shared else BOT_IDLE
            try:
                if len(self.bot_jobs) < slots:
                    job = await self._db(
                        self.storage.claim_bot_job, self.worker, time.time(), LEASE_SECONDS
                    )
                    if job is not None:
                        task = asyncio.ensure_future(self._bot_job(job))
                        self.bot_jobs.add(task)
                        task.add_done_callback(self._bot_job_done)
                        continue
                    due = await self._db(self.storage.next_bot_due)
                    if due is not None:
                        wait = min(wait, max(0.005, due - time.time()))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("taking a bot's turn from the queue failed")
                wait = RETRY_SECONDS
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.bot_wakeup.wait(), wait)

    def _bot_job_done(self, task: asyncio.Task[None]) -> None:
        self.bot_jobs.discard(task)
        self.bot_wakeup.set()  # a worker is free

    async def _bot_job(self, job: BotJob) -> None:
        """Make the bot's move of a claimed turn, keeping the claim alive meanwhile; give the
        turn back when it cannot be made now."""
        renew = asyncio.ensure_future(self._renew(job))
        retry: float | None = None
        try:
            outcome = await self._bot_move(job)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("a bot's turn failed in game %s", job.game_id)
            outcome, retry = "release", time.time() + RETRY_SECONDS
        finally:
            renew.cancel()
        try:
            if outcome == "drop":
                await self._db(self.storage.drop_bot_job, job.game_id, job.version)
            elif outcome == "release":
                await self._db(self.storage.release_bot_job, job.game_id, self.worker, retry)
        except Exception as exc:  # the lease lapses: the turn is taken again then
            log.warning("giving game %s's bot turn back failed: %s", job.game_id, exc)

    async def _renew(self, job: BotJob) -> None:
        while True:
            await asyncio.sleep(RENEW_SECONDS)
            until = time.time() + LEASE_SECONDS
            try:
                if not await self._db(self.storage.renew_bot_job, job.game_id, self.worker, until):
                    return  # taken over (this process stalled): the version keeps one move
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("renewing game %s's bot turn failed: %s", job.game_id, exc)

    async def _bot_move(self, job: BotJob) -> str:
        """The move of the bot's turn ``job``: "done" (stored, or made elsewhere), "release"
        (the game moved on meanwhile: the turn is claimed again) or "drop" (no bot decides
        there after all: an ended game, or a turn left by an older server)."""
        try:
            table = await self.fresh(await self.table(job.game_id))
        except ApiError:
            return "drop"  # no such game, ended, or set aside (a restart writes it again)
        if table.version != job.version:
            return "release"
        if not table.bot_turn():
            return "drop"
        table.bot_busy = True
        try:
            state = table.state
            decision = bot_decision(
                state,
                table.seats,
                table.record.seed,
                table.ply,
                table.bot_seconds,
                self.limits.bot_seconds,
                job.clocks,
            )
            seat, name, seed = decision.seat, decision.name, decision.seed
            belief = await self.belief(table)
            began = time.perf_counter()
            action = await self.bots.decide(
                table.id, state.clone(), seat, name, seed, decision.seconds, belief
            )
            decision.clock.spend(time.perf_counter() - began)
            clock = (seat, decision.clock.spent)
            try:
                made = await self.play(table, seat, action, bot_version=job.version, clock=clock)
            except ApiError as exc:
                if exc.status != 400:
                    raise
                # A bot's bug must not stall the table: this turn, the random bot decides.
                shown = public_action(table.game, action, seat, None)
                log.error("bot %s in game %s chose %r: refused", name, table.id, shown)
                action = await self.bots.decide(table.id, state.clone(), seat, "random", seed, 1.0)
                made = await self.play(table, seat, action, bot_version=job.version, clock=clock)
        finally:
            table.bot_busy = False
        if not made:
            return "release"
        self.bots_made += 1
        self.bot_moves.append((self.bots_made, table.id))
        return "done"

    async def belief(self, table: Table) -> HandBelief | None:
        """A copy of the table's public belief over the hands for a bot's decision (None for
        games without one); worked out from the record when moves came another way (a
        reload, an undo)."""
        if table.game != "tigris":
            return None
        if table.belief is None or table.belief_ply != table.ply:
            ply = table.ply
            record = table.record
            actions = list(record.actions)

            def rebuild() -> HandBelief:
                options = table.module.options_from_dict(record.options)
                start = table.module.new_game(
                    len(record.players), record.seed, options, dynasties=record.players
                )
                return replayed(start, actions)

            table.belief = await self._engine(rebuild)
            table.belief_ply = ply
        return table.belief.copy()

    # -- WebSockets ---------------------------------------------------------------------------

    def attach(self, table: Table, connection: Connection) -> None:
        table.connections.add(connection)
        frame = self.frame(table, connection.seat, connection.hotseat)
        frame["type"] = "view"
        connection.push(json.dumps(frame, separators=(",", ":")))

    def detach(self, table: Table, connection: Connection) -> None:
        table.connections.discard(connection)

    # -- lobby, records and replays -----------------------------------------------------------

    async def lobby(self, status: str | None, cursor: str | None, limit: int) -> dict[str, Any]:
        """One page of listed games, most recently active first; ``next`` pages on."""
        before: tuple[float, str] | None = None
        if cursor:
            updated, _, last_id = cursor.partition("~")
            try:
                before = (float(updated), last_id)
            except ValueError:
                raise bad_request("'before' must be the 'next' of a lobby page") from None
        key = (status, cursor, limit)
        cached = self.lobby_cache.get(key)
        now = time.monotonic()
        if cached is not None and now - cached[0] < 1.0:  # many clients poll the same page
            return cached[1]
        rows = await self._db(self.storage.list_games, limit, before, status)
        games = []
        for row in rows:
            table = self.tables.get(row["id"])
            if table is not None:
                games.append(table.summary())
            else:
                games.append({**row, "to_move": None})
        last = rows[-1] if len(rows) == limit else None
        page = {
            "games": games,
            "next": f"{last['updated']!r}~{last['id']}" if last is not None else None,
        }
        if len(self.lobby_cache) > 256:
            self.lobby_cache.clear()
        self.lobby_cache[key] = (now, page)
        return page

    def record(self, table: Table, token: str | None) -> dict[str, Any]:
        """The full record once the game is over; before that, the record a seat may know."""
        if table.is_over:
            return table.record.to_dict()
        seat, hotseat = self.authorize(table, token)
        if seat is None and not hotseat:
            raise forbidden("the record is public once the game is over")
        # The hot-seat screen (seat None here) is everyone's: it gets the spectators' record.
        return self.record_for(table, seat)

    @staticmethod
    def record_for(table: Table, seat: int | None) -> dict[str, Any]:
        """The record of a game in progress as ``seat`` may know it: no seed, and every action
        in its public form for that seat."""
        data = table.record.to_dict()
        del data["seed"]  # it fixes the bag: hidden until the end
        data["actions"] = [
            public_action(table.game, action, mover, seat)
            for action, mover in zip(table.record.actions, table.action_seats, strict=True)
        ]
        data["seats"] = list(table.action_seats)
        return data

    async def replay(self, table: Table, seat: int | None) -> dict[str, Any]:
        """Every step of a finished game: the action, its events and the view after it."""
        if not table.is_over:
            raise forbidden("the replay opens once the game is over")
        if seat is not None and not 0 <= seat < len(table.seats):
            raise bad_request(f"no seat {seat}")
        key = (table.id, seat)
        found = self.replays.get(key)
        if found is None:
            found = await self._engine(self._replay, table, seat)
            self.replays[key] = found
            while len(self.replays) > self.limits.replay_cache:
                self.replays.popitem(last=False)
        self.replays.move_to_end(key)
        return found

    @staticmethod
    def _replay(table: Table, seat: int | None) -> dict[str, Any]:
        record = table.record
        state = record.start()
        steps: list[dict[str, Any]] = [
            {"ply": 0, "seat": None, "action": None, "events": [], "view": state.view(seat)}
        ]
        for step in record.steps_from(state):
            steps.append(
                {
                    "ply": step.ply,
                    "seat": step.seat,
                    "action": public_action(record.game, step.action, step.seat, seat),
                    "events": step.events,
                    "view": state.view(seat),
                }
            )
        return {
            "id": table.id,
            "game": record.game,
            "players": list(record.players),
            "seats": list(table.seats),
            "options": dict(record.options),
            "result": state.result(),
            "steps": steps,
        }

    # -- history, past boards, explanations ---------------------------------------------------

    def _snapshot(self, table: Table) -> tuple[GameRecord, list[int]]:
        """The record and movers as they are now (engine threads read these copies)."""
        record = GameRecord(
            game=table.game,
            players=list(table.record.players),
            seed=table.record.seed,
            options=dict(table.record.options),
            actions=list(table.record.actions),
        )
        return record, list(table.action_seats)

    async def history(self, table: Table, viewer: int | None) -> dict[str, Any]:
        """Every action that counts so far, as ``viewer`` may know it (see
        :mod:`cradle.server.history`); built once per version and kept like replays."""
        key = (table.id, table.version)
        steps = self.histories.get(key)
        if steps is None:
            record, seats = self._snapshot(table)
            steps = await self._engine(replay_steps, record, seats)
            self.histories[key] = steps
            while len(self.histories) > self.limits.replay_cache:
                self.histories.popitem(last=False)
        self.histories.move_to_end(key)
        shown = history_for(table.game, steps, viewer)
        return {
            "id": table.id,
            "game": table.game,
            "players": list(table.record.players),
            "seats": list(table.seats),
            "seat": viewer,
            "version": table.version,
            "moves": len(steps),
            **shown,
        }

    async def board(self, table: Table, ply: int, viewer: int | None) -> dict[str, Any]:
        """``viewer``'s view of the board after ``ply`` actions (0: the start)."""
        if not 0 <= ply <= table.ply:
            raise bad_request(f"'ply' must be between 0 and {table.ply}, the moves made")
        key = (table.id, table.version, ply, viewer)
        found = self.boards.get(key)
        if found is None:
            record, seats = self._snapshot(table)
            found = await self._engine(board_at, record, seats, ply, viewer)
            self.boards[key] = found
            while len(self.boards) > self.limits.replay_cache:
                self.boards.popitem(last=False)
        self.boards.move_to_end(key)
        return {"id": table.id, "game": table.game, "players": list(table.record.players),
                "seats": list(table.seats), **found}  # fmt: skip

    async def explain(self, table: Table, token: str | None, action: str) -> dict[str, Any]:
        """Whether ``action`` is legal now for the seat of ``token``, and if not, why (the
        engine's own reason). Nothing changes."""
        seat = await self.mover_of(table, token, "an explanation")
        action = " ".join(action.split())
        if not action:
            raise bad_request("'action' must be a non-empty string, e.g. \"tile red K2\"")
        if table.to_move() != seat:
            raise forbidden(f"it is not seat {seat}'s decision")
        trial = table.state.clone()
        try:
            trial.apply(action)
        except ValueError as exc:  # IllegalAction is one: its text says what is wrong
            return {"action": action, "legal": False, "reason": str(exc) or "illegal action"}
        return {"action": action, "legal": True, "reason": None}

    # -- hints and analyses (cradle.server.assist) --------------------------------------------

    @staticmethod
    def hints_allowed(table: Table) -> bool:
        """Hints help at a hot seat and against bots, never between people at their screens."""
        if table.is_over:
            return False
        return table.hotseat or sum(1 for kind in table.seats if kind == "human") == 1

    def analysed(self, table: Table) -> bool:
        """A finished game is analysed by itself when a person played in it (unless the
        operator turned that off: ``Limits.analyse_finished``)."""
        return self.limits.analyse_finished and any(kind == "human" for kind in table.seats)

    async def hint(self, table: Table, token: str | None) -> dict[str, Any]:
        """The best few moves for the seat deciding now, from its own information only."""
        seat = await self.mover_of(table, token, "a hint")
        if not self.hints_allowed(table):
            raise forbidden("hints are off in games between people at their own screens")
        if table.to_move() != seat:
            raise forbidden(f"it is not seat {seat}'s decision")
        key = (table.id, table.version, seat)
        pending = self.hints.get(key)
        if pending is None:
            queued = self.assist.queued(HINT)
            if queued >= 4 * self.assist.processes + 4:
                raise ApiError(429, "the hint helpers are busy: try again soon", retry_after=5)
            pending = asyncio.ensure_future(
                self.assist.run(
                    HINT,
                    hint_work,
                    table.state.clone(),
                    seat,
                    self.limits.hint_seconds,
                    work_seed("hint", table.record.seed, table.ply, seat),
                )
            )
            self.hints[key] = pending
            pending.add_done_callback(lambda _done: self.hints.pop(key, None))
        found = await asyncio.shield(pending)
        return {"ply": table.ply, "seat": seat, "version": key[1], "hints": found}

    async def analysis(self, table: Table) -> dict[str, Any]:
        """A finished game's analysis as stored: its status, progress and what it found."""
        if not table.is_over:
            raise forbidden("the analysis opens once the game is over")
        try:
            stored = await self._db(self.storage.load_analysis, table.id)
        except CorruptGame as exc:  # the game itself serves on: only its analysis is damaged
            log.error("game %s: its analysis cannot be read: %s", table.id, exc.reason)
            raise ApiError(
                503, f"the analysis of game {table.id} cannot be read: {exc.reason}"
            ) from None
        answer: dict[str, Any] = {
            "id": table.id,
            "game": table.game,
            "players": list(table.record.players),
            "seats": list(table.seats),
            "moves": table.ply,
        }
        if stored is None:
            return {**answer, "status": "none", "done": 0, "total": 0, "analysis": None}
        data = stored["data"] if stored["status"] in ("running", "done") else None
        return {
            **answer,
            "status": stored["status"],
            "done": stored["done"],
            "total": stored["total"],
            "analysis": data,
        }

    async def request_analysis(self, table: Table) -> dict[str, Any]:
        """Queue the analysis of a finished game that has none (games finished before there
        were analyses, or among bots only)."""
        if not table.is_over:
            raise forbidden("the analysis opens once the game is over")
        await self._db(self.storage.queue_analysis, table.id)
        self.analyst.refill()
        return await self.analysis(table)
