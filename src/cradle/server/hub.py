"""The server process: the :class:`Hub` composes the parts of :mod:`cradle.server` and runs
their life cycle (start, housekeeping, stop); it answers nothing itself.

The parts: :mod:`cradle.server.tables` keeps the tables (loaded from the database, cached,
brought up to date with other processes' writes), :mod:`cradle.server.seats` creates tables and
seats people, :mod:`cradle.server.session` plays (frames, moves, undo, publishing each change),
:mod:`cradle.server.botseats` makes the bots' moves, :mod:`cradle.server.archive` reads games
(lobby, records, replays, histories, past boards) and :mod:`cradle.server.assist` helps people
(explanations, hints, analyses); each sees the hub only through a small protocol of what it
needs. The hub's methods of play delegate to those parts, so callers keep one object.

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
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from cradle.core.contract import Event
from cradle.server.answers import Frame, TableFrame
from cradle.server.archive import Archive, KnownRecord, record_for
from cradle.server.assist import Adviser, Analyst, AssistPool
from cradle.server.bots import BotPool
from cradle.server.botseats import BotSeats
from cradle.server.chat import Chat
from cradle.server.errors import ApiError
from cradle.server.limits import Limits, RateLimiter
from cradle.server.mail import MailSettings, Notices
from cradle.server.seats import NewTable, Seats
from cradle.server.session import Session, hints_allowed
from cradle.server.storage import DATABASE_ERRORS, Storage
from cradle.server.tables import SEND_PATIENCE, SEND_QUEUE_LIMIT, Connection, Table, Tables
from cradle.server.tokens import hash_token, new_token
from cradle.server.turns import Turns

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

    def __init__(
        self,
        storage: Storage,
        bot_delay: float = 0.5,
        limits: Limits | None = None,
        mail: MailSettings | None = None,
    ):
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
        self.archive = Archive(self)
        self.lobby_cache = self.archive.lobby_cache  # the same pages, emptied on every change
        self.replays = self.archive.replays  # the same replays, by the name callers know
        self.assist = AssistPool(self.limits.assist_processes)
        self.analyst = Analyst(self)
        self.adviser = Adviser(self)
        self.background: set[asyncio.Task[None]] = set()
        self.closing = False
        # What wakes the bot workers: every change that may make a bot's turn due.
        self.bot_wakeup = asyncio.Event()
        self.bot_seats = BotSeats(self)
        self.bot_moves = self.bot_seats.moves  # the same deque, by the name callers know
        self.turns = Turns(self)
        self.notices = Notices(self, mail)
        self.chat = Chat(self)

    def clock(self) -> float:
        """The time deadlines are judged by (tests set another)."""
        return time.time()

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
        if self.notices.settings is not None:
            self.spawn(self.notices.run())
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

    async def db(self, function: Callable[..., T], *args: object) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.db_pool, function, *args)

    async def engine(self, function: Callable[..., T], *args: object) -> T:
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
        """Now and then: end the games nobody played in for too long, let the stand-in of a
        seat away play its lapsed turn, and (a shared database) look for analyses waiting
        (queued elsewhere, or left by a process that stopped)."""
        sweeps = 0
        while not self.closing:
            await asyncio.sleep(SWEEP_SECONDS)
            sweeps += 1
            if self.storage.shared and sweeps % ANALYSIS_SWEEPS == 0:
                self.analyst.refill()
            if sweeps % EXPIRY_SWEEPS == 0:
                try:
                    await self.expire_unplayed()
                    await self.turns.stand_in_lapsed()
                    await self.turns.end_idle()
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

    async def create(self, request: NewTable, client: str) -> Mapping[str, object]:
        """``POST /api/games`` (see :meth:`Seats.create`)."""
        return await self.seats.create(request, client)

    async def join(
        self,
        table: Table,
        invite: str | None,
        account: str | None = None,
        name: str | None = None,
        standin: str | None = None,
    ) -> Mapping[str, object]:
        """Take a seat (see :meth:`Seats.join`)."""
        return await self.seats.join(table, invite, account, name, standin)

    def authorize(self, table: Table, token: str | None) -> tuple[int | None, bool]:
        """(seat, hot-seat screen?) for ``token`` (see :meth:`Seats.authorize`)."""
        return self.seats.authorize(table, token)

    # -- play (cradle.server.session) -----------------------------------------------------------

    def frame(
        self, table: Table, seat: int | None, hotseat: bool = False, api: int = 1
    ) -> Frame | TableFrame:
        """What ``seat`` may see, in version ``api`` of the API (see :meth:`Session.frame`)."""
        return self.session.frame(table, seat, hotseat, api)

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

    async def act(self, table: Table, token: str | None, action: object) -> int:
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

    # -- reading (cradle.server.archive) --------------------------------------------------------

    @staticmethod
    def record_for(table: Table, seat: int | None) -> KnownRecord:
        """The record of a game in progress as ``seat`` may know it (see
        :func:`cradle.server.archive.record_for`)."""
        return record_for(table, seat)
