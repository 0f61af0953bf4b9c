"""The bot seats of this process: workers that claim the bots' turns from the database's
queue (:mod:`cradle.server.botqueue` on other machines claims them the same way), ask the bot
pool for a move and play it at the table; each table keeps its own public belief over the
hands for its bots (:meth:`BotSeats.belief`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from collections import deque
from typing import TypeVar

from cradle.ai.knowledge.belief import HandBelief, reads, replayed
from cradle.server.bots import (
    LEASE_SECONDS,
    POLL_SECONDS,
    RENEW_SECONDS,
    RETRY_SECONDS,
    BotPool,
    bot_decision,
)
from cradle.server.errors import ApiError
from cradle.server.events import Changed
from cradle.server.limits import Limits
from cradle.server.redact import public_action
from cradle.server.referee import BotTurn, Referee
from cradle.server.runtime import Runtime
from cradle.server.store import Store
from cradle.server.store.botjobs import BotJob
from cradle.server.table import Table
from cradle.server.tables import Tables

log = logging.getLogger("cradle.server")

T = TypeVar("T")

BOT_IDLE = 5.0  # SQLite: the longest an idle bot worker waits (every change wakes it anyway)


class BotSeats:
    """This process's bot workers and the turns they hold."""

    def __init__(
        self,
        store: Store,
        runtime: Runtime,
        tables: Tables,
        referee: Referee,
        bots: BotPool,
        limits: Limits,
    ) -> None:
        self.store = store
        self.runtime = runtime
        self.tables = tables
        self.referee = referee
        self.bots = bots
        self.limits = limits
        # What wakes the workers: every change that may make a bot's turn due.
        self.wakeup = asyncio.Event()
        # Their name on the turns they claim, the turns in hand, and the bots' moves they
        # stored (numbered, with the game: the latest thousand), for the fairness tests.
        self.worker = f"{socket.gethostname()[:40]}:{os.getpid()}:{store.origin[:6]}"
        self.jobs: set[asyncio.Task[None]] = set()
        self.made = 0
        self.moves: deque[tuple[int, str]] = deque(maxlen=1000)

    def wake(self, change: Changed) -> None:
        """After a change: a bot may decide at its table now."""
        if change.table.bot_turn() and change.table.ended is None:
            self.wakeup.set()

    async def loop(self) -> None:
        """This process's bot workers: claim the bots' turns that are due from the database's
        queue (:meth:`BotJobStore.claim`: fair across clients, then tables), as many at a
        time as there are bot processes, and make their moves."""
        slots = self.bots.processes
        while not self.runtime.closing:
            self.wakeup.clear()  # before looking: a change meanwhile wakes the wait below
            wait = POLL_SECONDS if self.store.shared else BOT_IDLE
            try:
                if len(self.jobs) < slots:
                    job = await self.runtime.db(
                        self.store.bot_jobs.claim, self.worker, time.time(), LEASE_SECONDS
                    )
                    if job is not None:
                        task = asyncio.ensure_future(self._job(job))
                        self.jobs.add(task)
                        task.add_done_callback(self._job_done)
                        continue
                    due = await self.runtime.db(self.store.bot_jobs.next_due)
                    if due is not None:
                        wait = min(wait, max(0.005, due - time.time()))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("taking a bot's turn from the queue failed")
                wait = RETRY_SECONDS
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wakeup.wait(), wait)

    def _job_done(self, task: asyncio.Task[None]) -> None:
        self.jobs.discard(task)
        self.wakeup.set()  # a worker is free

    async def _job(self, job: BotJob) -> None:
        """Make the bot's move of a claimed turn, keeping the claim alive meanwhile; give the
        turn back when it cannot be made now."""
        renew = asyncio.ensure_future(self._renew(job))
        retry: float | None = None
        try:
            outcome = await self._move(job)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("a bot's turn failed in game %s", job.game_id)
            outcome, retry = "release", time.time() + RETRY_SECONDS
        finally:
            renew.cancel()
        try:
            if outcome == "drop":
                await self.runtime.db(self.store.bot_jobs.drop, job.game_id, job.version)
            elif outcome == "release":
                await self.runtime.db(self.store.bot_jobs.release, job.game_id, self.worker, retry)
        except Exception as exc:  # the lease lapses: the turn is taken again then
            log.warning("giving game %s's bot turn back failed: %s", job.game_id, exc)

    async def _renew(self, job: BotJob) -> None:
        while True:
            await asyncio.sleep(RENEW_SECONDS)
            until = time.time() + LEASE_SECONDS
            try:
                if not await self.runtime.db(
                    self.store.bot_jobs.renew, job.game_id, self.worker, until
                ):
                    return  # taken over (this process stalled): the version keeps one move
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("renewing game %s's bot turn failed: %s", job.game_id, exc)

    async def _move(self, job: BotJob) -> str:
        """The move of the bot's turn ``job``: "done" (stored, or made elsewhere), "release"
        (the game moved on meanwhile: the turn is claimed again) or "drop" (no bot decides
        there after all: an ended game, or a turn left by an older server)."""
        try:
            table = await self.tables.fresh(await self.tables.table(job.game_id))
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
                table.playing(),
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
                made = await self.referee.move(table, seat, action, BotTurn(job.version, clock))
            except ApiError as exc:
                if exc.status != 400:
                    raise
                # A bot's bug must not stall the table: this turn, the random bot decides.
                shown = public_action(table.game, action, seat, None)
                log.error("bot %s in game %s chose %r: refused", name, table.id, shown)
                action = await self.bots.decide(table.id, state.clone(), seat, "random", seed, 1.0)
                made = await self.referee.move(table, seat, action, BotTurn(job.version, clock))
        finally:
            table.bot_busy = False
        if not made:
            return "release"
        self.made += 1
        self.moves.append((self.made, table.id))
        return "done"

    async def belief(self, table: Table) -> HandBelief | None:
        """A copy of the table's public belief over the hands for a bot's decision (None for
        games without one); worked out from the record when moves came another way (a
        reload, an undo)."""
        if not reads(table.game):
            return None
        if table.belief is None or table.belief_ply != table.ply:
            ply = table.ply
            record = table.record
            actions = list(record.actions)

            def rebuild() -> HandBelief:
                return replayed(record.start(), actions)

            table.belief = await self.runtime.engine(rebuild)
            table.belief_ply = ply
        return table.belief.copy()
