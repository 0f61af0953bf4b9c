"""The server process: the :class:`Hub` is the composition root. It makes the parts of
:mod:`cradle.server`, hands each what it uses (never itself), subscribes what follows a change
to the tables' events, and runs the life cycle (start, housekeeping, stop); it answers nothing
itself.

The parts: :mod:`cradle.server.tables` keeps the tables (loaded from the database, cached,
brought up to date with other processes' writes; which seat a token holds),
:mod:`cradle.server.referee` stores every change to a game (the one write path),
:mod:`cradle.server.seats` creates tables and seats people, :mod:`cradle.server.play` plays
(frames, moves, undo), :mod:`cradle.server.turns` the turn-based rules and early endings,
:mod:`cradle.server.botseats` makes the bots' moves, :mod:`cradle.server.archive` reads games
(lobby, records, replays, histories, past boards), :mod:`cradle.server.assist` helps people
(explanations, hints, analyses), :mod:`cradle.server.chat` the tables' chat and
:mod:`cradle.server.mail` the turn notices. Each stored change is published once
(:mod:`cradle.server.events`); the frames to the sockets, the bots' wake-up, the mail loop's
wake-up, the lobby's cache and the analyses subscribe to it.

The database is the truth and the tables are copies of it. Every write names the version it
expects (:mod:`cradle.server.store`); when another process changed the game first, the table
is reloaded and the request decided again on the fresh state. Bots' turns wait in the database
(``bot_jobs``); new games are counted against the caps in the database too, and a game nobody
played in expires after ``Limits.unplayed_minutes`` (answering 410 from then on).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping

from cradle.server.answers import MergedFrame, TableFrame
from cradle.server.archive import Archive
from cradle.server.assist import Adviser, Analyst, AssistPool
from cradle.server.botpool import BotPool
from cradle.server.botseats import BotSeats
from cradle.server.chat import Chat
from cradle.server.events import Changed, Events
from cradle.server.limits import Limits, RateLimiter
from cradle.server.mail import MailSettings, Notices, Outbox
from cradle.server.people import People
from cradle.server.play import Play
from cradle.server.referee import Referee, Settings
from cradle.server.runtime import Runtime
from cradle.server.seats import NewTable, Seats
from cradle.server.store import Store
from cradle.server.store.errors import DATABASE_ERRORS
from cradle.server.table import SEND_PATIENCE, Connection, Table
from cradle.server.tables import Tables
from cradle.server.turns import Turns

log = logging.getLogger("cradle.server")

SWEEP_SECONDS = 2.0  # how often a process looks after the games' housekeeping
ANALYSIS_SWEEPS = 10  # a shared database: sweeps between two looks for analyses waiting
CLOCK_SECONDS = 0.5  # how often a process looks for live clocks that ran out
EXPIRY_SWEEPS = 5  # sweeps between two looks for games nobody played in for too long
RATES_KEPT = 3600.0  # seconds a client's shared rate bucket is kept after its last request


class Hub:
    """All tables of one server process, their store and their bots."""

    def __init__(
        self,
        store: Store,
        bot_delay: float = 0.5,
        limits: Limits | None = None,
        mail: MailSettings | None = None,
    ):
        self.store = store
        self.limits = limits = limits or Limits()
        store.bot_jobs.delay = bot_delay  # a bot's turn is due that long after it comes
        self.runtime = runtime = Runtime(1 if store.database.is_sqlite else 4)
        self.events = events = Events()
        self.bots = BotPool(
            limits.processes, limits.background_processes, limits.background_bot_nice
        )
        self.assist = AssistPool(limits.assist_processes)
        self.served = Tables(store, runtime, events, limits.unplayed_minutes)
        self.tables = self.served.loaded  # the same tables, by the name callers know
        settings = Settings(limits.bot_seconds, limits.analyse_finished)
        self.referee = Referee(store, runtime, self.served, events, settings)
        self.seats = Seats(store, runtime, self.served, events, self.referee, limits)
        self.play = Play(self.served, self.referee, lambda: self.runtime.closing)
        # The clock read at each use: tests set another.
        self.turns = Turns(store, runtime, self.served, self.referee, lambda: self.clock())
        self.archive = Archive(store, runtime, self.served, limits)
        self.analyst = Analyst(store, runtime, self.assist, limits)
        self.adviser = Adviser(store, runtime, self.served, self.assist, self.analyst, limits)
        self.bot_seats = BotSeats(store, runtime, self.served, self.referee, self.bots, limits)
        self.notices = Notices(store, runtime, mail)
        self.outbox = Outbox(runtime, mail)
        self.people = People(store, runtime)
        self.chat = Chat(store, runtime, self.served)
        # What follows a change, in this order: its frames (then, for a table ended without a
        # result, its connections closed), the bots, the mails, the lobby and the analyses.
        events.subscribe(self.play.publish)
        events.subscribe(self.served.close_ended)
        events.subscribe(self.bot_seats.wake)
        events.subscribe(self.notices.poke)
        events.subscribe(self._lobby_and_analyses)

    def clock(self) -> float:
        """The time deadlines are judged by (tests set another)."""
        return time.time()

    def _lobby_and_analyses(self, change: Changed) -> None:
        if change.listed:
            self.archive.lobby_cache.clear()
        table = change.table
        if change.here and change.kind == "move" and table.is_over:
            if self.referee.settings.analysed(table):
                self.analyst.refill()

    # -- life cycle ---------------------------------------------------------------------------

    @property
    def closing(self) -> bool:
        return self.runtime.closing

    async def start(self) -> None:
        """Set aside the games whose rows are unreadable and start the bot workers (they take
        the bots' turns from the database); games load when first asked for."""
        db = self.runtime.db
        await db(self.store.database.claim)
        for game_id, reason in (await db(self.store.games.check_unfinished)).items():
            self.served.set_aside(game_id, reason)
        if self.store.read_only:  # nothing changes: no bots, no analyses, no other writers
            log.warning("serving read-only: the database cannot be written")
            return
        if not self.store.shared:  # the only process: turns claimed before a crash are free
            await db(self.store.bot_jobs.release_all, None)
        if self.limits.prestart_bots and self.limits.run_bots:
            self.bots.start()
        if self.store.shared:
            self.runtime.spawn(self.served.listen(self._heard))
        self.runtime.spawn(self._sweep())
        self.runtime.spawn(self._clocks())
        if self.notices.settings is not None:
            self.runtime.spawn(self.notices.run())
        self.runtime.spawn(self.people.run())
        if self.limits.run_bots:
            self.runtime.spawn(self.bot_seats.loop())
        self.analyst.start()
        log.info("serving; %d games set aside", len(self.served.broken))

    def _heard(self, payload: str) -> None:
        """Another process's notice of a chat line, a mute, or an account told something."""
        if payload.startswith("account "):
            self.people.heard(payload)
        else:
            self.chat.heard(payload)

    async def stop(self) -> None:
        self.runtime.closing = True
        for task in list(self.bot_seats.jobs):
            task.cancel()
        await self.runtime.stop()
        for task in list(self.bot_seats.jobs):
            with contextlib.suppress(BaseException):  # stopping: each turn is given back below
                await task
        try:  # other processes' workers take them at once
            await self.runtime.db(self.store.bot_jobs.release_all, self.bot_seats.worker)
        except Exception as exc:
            log.warning("the bots' turns were not given back: %s", exc)
        await self.analyst.stop()
        for table in list(self.tables.values()):
            for connection in list(table.connections):
                connection.close("the server is stopping")
        for sockets in list(self.people.sockets.values()):
            for socket in list(sockets):
                socket.connection.close("the server is stopping")
        self.bots.close()
        self.assist.close()
        self.runtime.shutdown()
        self.store.close()

    async def _sweep(self) -> None:
        """Now and then: end the games nobody played in for too long, let the stand-in of a
        seat away play its lapsed turn, and (a shared database) look for analyses waiting
        (queued elsewhere, or left by a process that stopped)."""
        sweeps = 0
        while not self.runtime.closing:
            await asyncio.sleep(SWEEP_SECONDS)
            sweeps += 1
            if self.store.shared and sweeps % ANALYSIS_SWEEPS == 0:
                self.analyst.refill()
            if sweeps % EXPIRY_SWEEPS == 0:
                try:
                    await self.expire_unplayed()
                    await self.turns.stand_in_lapsed()
                    await self.turns.end_idle()
                    if self.store.shared:  # buckets idle an hour are full: drop them
                        await self.runtime.db(self.store.rates.forget, time.time() - RATES_KEPT)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("ending the games nobody played in failed")

    async def _clocks(self) -> None:
        """Every CLOCK_SECONDS: store the live tables' clocks that ran out (one change each)."""
        while not self.runtime.closing:
            await asyncio.sleep(CLOCK_SECONDS)
            try:
                await self.turns.clocks_lapsed()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("stopping the clocks that ran out failed")

    async def take_token(self, bucket: RateLimiter, client: str) -> float:
        """``bucket``'s rate for ``client`` counted in the shared database (every process
        together); when the database cannot count, this process's own count stands."""
        return await self._shared_rate(self.store.rates.take, bucket, client)

    async def take_tokens(self, bucket: RateLimiter, client: str, want: int) -> tuple[int, float]:
        """Up to ``want`` of ``bucket``'s requests for ``client`` taken at once from the shared
        database (RateStore.take_many); when the database cannot count, (1, 0.0): this
        process's own count stands."""
        try:
            return await self.runtime.db(
                self.store.rates.take_many, bucket.name, client, bucket.rate, int(bucket.burst),
                time.time(), want,
            )  # fmt: skip
        except DATABASE_ERRORS as exc:
            log.warning("rates counted in this process only: %s", exc)
            return 1, 0.0

    async def peek_token(self, bucket: RateLimiter, client: str) -> float:
        """:meth:`take_token` without taking (0.0 when the database cannot tell)."""
        return await self._shared_rate(self.store.rates.peek, bucket, client)

    async def _shared_rate(
        self, count: Callable[[str, str, float, int, float], float], bucket: RateLimiter, key: str
    ) -> float:
        try:
            return await self.runtime.db(
                count, bucket.name, key, bucket.rate, int(bucket.burst), time.time()
            )
        except DATABASE_ERRORS as exc:
            log.warning("rates counted in this process only: %s", exc)
            return 0.0

    async def expire_unplayed(self, now: float | None = None) -> list[str]:
        """End (``expired``) the games nobody played in that nobody changed for
        ``Limits.unplayed_minutes`` before ``now``; their ids. The clients whose use of the
        bots has all but decayed are forgotten too."""
        now = time.time() if now is None else now
        seconds = self.limits.unplayed_minutes * 60.0
        ended = await self.runtime.db(self.store.games.expire_unplayed, now, seconds)
        for game_id in ended:
            await self.served.end(game_id, "expired")
        if ended:
            log.info("%d games nobody played in expired", len(ended))
        await self.runtime.db(self.store.bot_jobs.forget_idle_clients, now)
        return ended

    # -- what the routes ask (each part's own) --------------------------------------------------

    async def table(self, game_id: str) -> Table:
        """The table ``game_id``, loaded from the database if it is not in memory."""
        return await self.served.table(game_id)

    async def fresh(self, table: Table) -> Table:
        """``table`` brought up to the stored version (see :meth:`Tables.fresh`)."""
        return await self.served.fresh(table)

    async def create(self, request: NewTable, client: str) -> Mapping[str, object]:
        """``POST /api/games`` (see :meth:`Seats.create`)."""
        return await self.seats.create(request, client)

    def frame(
        self, table: Table, seat: int | None, hotseat: bool = False, api: int = 1
    ) -> MergedFrame | TableFrame:
        """What ``seat`` may see, in version ``api`` of the API (see :meth:`Play.frame`)."""
        return self.play.frame(table, seat, hotseat, api)

    def attach(self, table: Table, connection: Connection) -> None:
        # This server's patience with a client that does not read (read here, when it joins).
        connection.patience = SEND_PATIENCE
        self.play.attach(table, connection)

    @property
    def bots_made(self) -> int:
        """How many bot moves this process stored."""
        return self.bot_seats.made
