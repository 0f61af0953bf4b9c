"""The server process: the :class:`Hub` composes the parts of :mod:`cradle.server` and runs
their life cycle, and answers what reads a game (lobby, record, replays, history, boards,
explanations, hints and analyses).

The parts: :mod:`cradle.server.tables` keeps the tables (loaded from the database, cached,
brought up to date with other processes' writes), :mod:`cradle.server.seats` creates tables and
seats people, :mod:`cradle.server.session` plays (frames, moves, undo, publishing each change)
and :mod:`cradle.server.botseats` makes the bots' moves; each sees the hub only through a small
protocol of what it needs. The hub's own methods of those parts delegate to them, so callers
keep one object.

The database is the truth and the tables are copies of it. Every write names the version it
expects (:mod:`cradle.server.storage`); when another process changed the game first, the table
is reloaded and the request decided again on the fresh state. Bots' turns wait in the database
(``bot_jobs``); new games are counted against the caps in the database too, and a game nobody
played in expires after ``Limits.unplayed_minutes`` (answering 410 from then on).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from cradle.ai.knowledge.belief import HandBelief
from cradle.core.contract import Event
from cradle.server.assist import HINT, Analyst, AssistPool, hint_work, work_seed
from cradle.server.bots import (
    BotPool,
)
from cradle.server.botseats import BotSeats
from cradle.server.chat import Chat
from cradle.server.errors import ApiError, bad_request, forbidden
from cradle.server.history import Step, board_at, history_for, replay_steps
from cradle.server.limits import Limits, RateLimiter
from cradle.server.redact import public_action
from cradle.server.seats import NewTable, Seats
from cradle.server.session import Session, hints_allowed
from cradle.server.storage import (
    DATABASE_ERRORS,
    CorruptGame,
    Storage,
)
from cradle.server.tables import (
    SEND_PATIENCE,
    SEND_QUEUE_LIMIT,
    Connection,
    Table,
    Tables,
    snapshot,
)
from cradle.server.tokens import hash_token, new_token

# The names callers knew here before the split (tests and tools import them from the hub).
__all__ = [
    "SEND_PATIENCE",
    "SEND_QUEUE_LIMIT",
    "ApiError",
    "Connection",
    "Hub",
    "NewTable",
    "Table",
    "hash_token",
    "new_token",
]

log = logging.getLogger("cradle.server")

T = TypeVar("T")

SWEEP_SECONDS = 2.0  # how often a process looks after the games' housekeeping
ANALYSIS_SWEEPS = 10  # a shared database: sweeps between two looks for analyses waiting
EXPIRY_SWEEPS = 5  # sweeps between two looks for games nobody played in for too long
RATES_KEPT = 3600.0  # seconds a client's shared rate bucket is kept after its last request


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
        self.served = Tables(self)
        self.tables = self.served.loaded  # the same tables, by the name callers know
        self.broken = self.served.broken
        self.seats = Seats(self)
        self.session = Session(self)
        self.replays: OrderedDict[tuple[str, int | None], dict[str, Any]] = OrderedDict()
        self.histories: OrderedDict[tuple[str, int], list[Step]] = OrderedDict()
        self.boards: OrderedDict[tuple[str, int, int, int | None], dict[str, Any]] = OrderedDict()
        self.assist = AssistPool(self.limits.assist_processes)
        self.analyst = Analyst(self)
        self.hints: dict[tuple[str, int, int], asyncio.Future[list[dict[str, Any]]]] = {}
        self.lobby_cache: dict[tuple[Any, ...], tuple[float, dict[str, Any]]] = {}
        self.background: set[asyncio.Task[None]] = set()
        self.closing = False
        # What wakes the bot workers: every change that may make a bot's turn due.
        self.bot_wakeup = asyncio.Event()
        self.bot_seats = BotSeats(self)
        self.bot_moves = self.bot_seats.moves  # the same deque, by the name callers know
        self.chat = Chat(self)

    # -- life cycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Set aside the games whose rows are unreadable and start the bot workers (they take
        the bots' turns from the database); games load when first asked for."""
        await self.db(self.storage.claim)
        for game_id, reason in (await self.db(self.storage.check_unfinished)).items():
            self.served.set_aside(game_id, reason)
        if self.storage.read_only:  # nothing changes: no bots, no analyses, no other writers
            log.warning("serving read-only: the database cannot be written")
            return
        if not self.storage.shared:  # the only process: turns claimed before a crash are free
            await self.db(self.storage.release_bot_jobs, None)
        if self.limits.prestart_bots and self.limits.run_bots:
            self.bots.start()
        if self.storage.shared:
            self.spawn(self.served.listen())
        self.spawn(self._sweep())
        if self.limits.run_bots:
            self.spawn(self.bot_seats.loop())
        self.analyst.start()
        log.info("serving; %d games set aside", len(self.broken))

    async def stop(self) -> None:
        self.closing = True
        tasks = [*self.background, *self.bot_seats.jobs]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        with contextlib.suppress(Exception):  # other processes' workers take them at once
            await self.db(self.storage.release_bot_jobs, self.bot_seats.worker)
        await self.analyst.stop()
        for table in list(self.tables.values()):
            for connection in list(table.connections):
                connection.close("the server is stopping")
        self.bots.close()
        self.assist.close()
        self.engine_pool.shutdown(wait=False, cancel_futures=True)
        self.db_pool.shutdown(wait=True)
        self.storage.close()

    def spawn(self, work: Awaitable[None]) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def db(self, function: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.db_pool, function, *args)

    async def engine(self, function: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.engine_pool, function, *args)

    # -- the tables (cradle.server.tables) ----------------------------------------------------

    async def table(self, game_id: str) -> Table:
        """The table ``game_id``, loaded from the database if it is not in memory."""
        return await self.served.table(game_id)

    def heard(self, payload: str) -> None:
        """Another process's chat line or mute (see :meth:`Chat.heard`)."""
        self.chat.heard(payload)

    def gone(self, table: Table) -> ApiError:
        """The answer for a game that ended without a result: 410 with the reason."""
        return self.served.gone(table)

    async def fresh(self, table: Table) -> Table:
        """``table`` brought up to the stored version (see :meth:`Tables.fresh`)."""
        return await self.served.fresh(table)

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
                        await self.db(self.storage.forget_rates, time.time() - RATES_KEPT)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("ending the games nobody played in failed")

    async def take_token(self, bucket: RateLimiter, client: str) -> float:
        """``bucket``'s rate for ``client`` counted in the shared database (every process
        together); when the database cannot count, this process's own count stands."""
        try:
            return await self.db(
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
        ended = await self.db(self.storage.expire_unplayed, now, seconds)
        for game_id in ended:
            await self.served.end(game_id, "expired")
        if ended:
            self.lobby_cache.clear()
            log.info("%d games nobody played in expired", len(ended))
        return ended

    # -- creating and joining (cradle.server.seats) ---------------------------------------------

    async def create(self, request: NewTable, client: str) -> dict[str, Any]:
        """``POST /api/games`` (see :meth:`Seats.create`)."""
        return await self.seats.create(request, client)

    async def join(
        self, table: Table, invite: str | None, account: str | None = None, name: str | None = None
    ) -> dict[str, Any]:
        """Take a seat (see :meth:`Seats.join`)."""
        return await self.seats.join(table, invite, account, name)

    def authorize(self, table: Table, token: str | None) -> tuple[int | None, bool]:
        """(seat, hot-seat screen?) for ``token`` (see :meth:`Seats.authorize`)."""
        return self.seats.authorize(table, token)

    # -- play (cradle.server.session) -----------------------------------------------------------

    def frame(self, table: Table, seat: int | None, hotseat: bool = False) -> dict[str, Any]:
        """What ``seat`` may see (see :meth:`Session.frame`)."""
        return self.session.frame(table, seat, hotseat)

    def broadcast(self, table: Table) -> None:
        self.session.broadcast(table)

    def changed(self, table: Table, events: list[Event] | None, updated: float) -> None:
        self.session.changed(table, events, updated)

    def mover(self, table: Table, token: str | None, what: str) -> int:
        return self.session.mover(table, token, what)

    async def identify(self, table: Table, token: str | None) -> tuple[int | None, bool]:
        return await self.session.identify(table, token)

    async def mover_of(self, table: Table, token: str | None, what: str) -> int:
        return await self.session.mover_of(table, token, what)

    async def act(self, table: Table, token: str | None, action: Any) -> int:
        return await self.session.act(table, token, action)

    async def play(
        self,
        table: Table,
        seat: int,
        action: str,
        bot_version: int | None = None,
        clock: tuple[int, float] | None = None,
    ) -> bool:
        return await self.session.play(table, seat, action, bot_version, clock)

    def can_undo(self, table: Table, seat: int) -> bool:
        return self.session.can_undo(table, seat)

    async def undo(self, table: Table, token: str | None) -> None:
        await self.session.undo(table, token)

    def attach(self, table: Table, connection: Connection) -> None:
        # This server's patience with a client that does not read (read here, when it joins).
        connection.patience = SEND_PATIENCE
        self.session.attach(table, connection)

    def detach(self, table: Table, connection: Connection) -> None:
        self.session.detach(table, connection)

    @staticmethod
    def hints_allowed(table: Table) -> bool:
        return hints_allowed(table)

    def analysed(self, table: Table) -> bool:
        return self.session.analysed(table)

    # -- bots (cradle.server.botseats) ----------------------------------------------------------

    @property
    def bots_made(self) -> int:
        """How many bot moves this process stored."""
        return self.bot_seats.made

    async def belief(self, table: Table) -> HandBelief | None:
        return await self.bot_seats.belief(table)

    # -- WebSockets ---------------------------------------------------------------------------

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
        rows = await self.db(self.storage.list_games, limit, before, status)
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
            found = await self.engine(self._replay, table, seat)
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

    async def history(self, table: Table, viewer: int | None) -> dict[str, Any]:
        """Every action that counts so far, as ``viewer`` may know it (see
        :mod:`cradle.server.history`); built once per version and kept like replays."""
        key = (table.id, table.version)
        steps = self.histories.get(key)
        if steps is None:
            record, seats = snapshot(table)
            steps = await self.engine(replay_steps, record, seats)
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
            record, seats = snapshot(table)
            found = await self.engine(board_at, record, seats, ply, viewer)
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
            stored = await self.db(self.storage.load_analysis, table.id)
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
        await self.db(self.storage.queue_analysis, table.id)
        self.analyst.refill()
        return await self.analysis(table)
