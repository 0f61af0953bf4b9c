"""The bot seats of this process: workers that claim the bots' turns from the database's
queue (:mod:`cradle.server.botqueue` on other machines claims them the same way), ask the bot
pool for a move and play it at the table. What the bots of a game remember between turns (the
Tigris bots' public belief over the hands, :mod:`cradle.ai.memory`) is kept here, per table,
and brought up to the table's moves before each decision (:meth:`BotSeats.memory`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import TypeVar

from cradle.ai.memory import Memory, new_memory
from cradle.core.contract import GameState
from cradle.core.record import GameRecord
from cradle.server.botpool import (
    LEASE_SECONDS,
    POLL_SECONDS,
    RENEW_SECONDS,
    RETRY_SECONDS,
    BotAsk,
    BotPool,
    bot_decision,
    turn_deadline,
)
from cradle.server.errors import ApiError
from cradle.server.events import Changed
from cradle.server.limits import LANES, Lane, Limits
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
MAX_MEMORIES = 2000  # tables whose bots' memory is kept (the least recently used go first)


@dataclass(frozen=True)
class Remembered:
    """What a table's bots remember after its first ``len(actions)`` actions, and the state
    after them (the next actions are taken in from there)."""

    actions: tuple[str, ...]
    memory: Memory
    state: GameState


def caught_up(found: Remembered | None, record: GameRecord, actions: tuple[str, ...]) -> Remembered:
    """``found`` brought up to ``actions`` (the game's so far): from its own state when they
    go on from it, else from the start of ``record`` (an undo, a first decision). Runs in an
    engine thread; ``found`` is not changed."""
    if found is not None and actions[: len(found.actions)] == found.actions:
        memory, state, done = found.memory.copy(), found.state.clone(), len(found.actions)
    else:
        fresh = new_memory(record.game)
        assert fresh is not None
        memory, state, done = fresh, record.start(), 0
    for action in actions[done:]:
        memory.observe(state, action)
        state.apply(action)
    return Remembered(actions, memory, state)


@dataclass(frozen=True)
class TurnTimes:
    """When a bot's move went through each step (epoch seconds), and the decision's budget."""

    game_id: str
    ready: float  # due: its move is shown no earlier
    claimed: float  # a worker of this process took the turn
    sent: float  # the table loaded and the bots' memory brought up: sent to a worker process
    until: float | None  # when its decision had to end (botpool.turn_deadline; a person waits)
    seconds: float  # its budget (the table's and the turn clock's)
    decided: float  # its answer back
    stored: float  # ruled on, written, applied: pushed from here


@dataclass(eq=False)
class BotSeats:
    """This process's bot workers and the turns they hold."""

    store: Store
    runtime: Runtime
    tables: Tables
    referee: Referee
    bots: BotPool
    limits: Limits
    # What wakes the workers: every change that may make a bot's turn due.
    wakeup: asyncio.Event = field(default_factory=asyncio.Event)
    # The turns in hand with their lanes, and the bots' moves stored (numbered, with the game:
    # the latest thousand), for the fairness tests.
    jobs: dict[asyncio.Task[None], Lane] = field(default_factory=dict)
    # The turns in hand whose decision is made and whose move waits to be due (the bot
    # thought through the delay): they hold no worker.
    showing: set[asyncio.Task[None]] = field(default_factory=set)
    made: int = 0
    moves: deque[tuple[int, str]] = field(default_factory=lambda: deque(maxlen=1000))
    times: deque[TurnTimes] = field(default_factory=lambda: deque(maxlen=1000))  # each move's
    worker: str = ""  # the workers' name on the turns they claim
    # What each table's bots remember (:meth:`memory`), and how often a game's record was
    # replayed from its start to work it out (the tests read it).
    memories: OrderedDict[str, Remembered] = field(default_factory=OrderedDict)
    replays: int = 0

    def __post_init__(self) -> None:
        self.worker = f"{socket.gethostname()[:40]}:{os.getpid()}:{self.store.origin[:6]}"

    def wake(self, change: Changed) -> None:
        """After a change: a bot may decide at its table now."""
        if change.table.bot_turn() and change.table.ended is None:
            self.wakeup.set()

    async def loop(self) -> None:
        """This process's bot workers: claim the bots' turns that are due from the database's
        queue (:meth:`BotJobStore.claim`: fair across clients, then tables), in each lane (a
        person waits, nobody waits) as many at a time as it has bot processes, and make their
        moves."""
        while not self.runtime.closing:
            self.wakeup.clear()  # before looking: a change meanwhile wakes the wait below
            wait = POLL_SECONDS if self.store.shared else BOT_IDLE
            claimed = False
            try:
                for lane in LANES:
                    if self.held(lane) >= self.bots.lanes[lane].processes:
                        continue  # the end of one of its turns wakes the loop
                    job = await self.runtime.db(
                        self.store.bot_jobs.claim, self.worker, time.time(), LEASE_SECONDS, lane
                    )
                    if job is not None:
                        task = asyncio.ensure_future(self._job(job))
                        self.jobs[task] = job.lane
                        task.add_done_callback(self._job_done)
                        claimed = True
                        continue
                    due = await self.runtime.db(self.store.bot_jobs.next_due, lane)
                    if due is not None:
                        wait = min(wait, max(0.005, due - time.time()))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("taking a bot's turn from the queue failed")
                wait = RETRY_SECONDS
            if claimed:
                continue  # more may be due
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wakeup.wait(), wait)

    def held(self, lane: Lane) -> int:
        """The turns of ``lane`` in hand that hold a worker (deciding, not waiting to show)."""
        return sum(
            1 for task, held in self.jobs.items() if held == lane and task not in self.showing
        )

    def _job_done(self, task: asyncio.Task[None]) -> None:
        self.jobs.pop(task, None)
        self.showing.discard(task)
        self.wakeup.set()  # a worker is free

    async def _job(self, job: BotJob) -> None:
        """Make the bot's move of a claimed turn, keeping the claim alive meanwhile; give the
        turn back when it cannot be made now."""
        renew = asyncio.ensure_future(self._renew(job))
        retry: float | None = None
        try:
            outcome = await self._move(job, time.time())
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

    async def _move(self, job: BotJob, claimed: float) -> str:
        """The move of the bot's turn ``job`` (``claimed`` then): "done" (stored, or made
        elsewhere), "release" (the game moved on meanwhile: the turn is claimed again) or
        "drop" (no bot decides there after all: an ended game, or a turn left by an older
        server)."""
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
            memory = await self.memory(table)
            sent = time.time()
            began = time.perf_counter()
            until = turn_deadline(job.lane, job.ready, decision.seconds)
            ask = BotAsk(state.clone(), seat, name, seed, decision.seconds, memory, until)
            action = await self.bots.decide(table.id, ask, job.lane)
            decision.clock.spend(time.perf_counter() - began)
            decided = time.time()
            await self.show_when_due(job)
            clock = (seat, decision.clock.spent)
            try:
                made = await self.referee.move(table, seat, action, BotTurn(job.version, clock))
            except ApiError as exc:
                if exc.kind is None and exc.status != 400:
                    raise  # not a refusal of the action itself
                # A bot's bug must not stall the table: this turn, the random bot decides.
                shown = public_action(table.game, action, seat, None)
                log.error("bot %s in game %s chose %r: refused", name, table.id, shown)
                action = await self.bots.decide(table.id, ask.of_random(state.clone()))
                made = await self.referee.move(table, seat, action, BotTurn(job.version, clock))
        finally:
            table.bot_busy = False
        if not made:
            return "release"
        times = TurnTimes(
            table.id, job.ready, claimed, sent, until, decision.seconds, decided, time.time()
        )
        self.times.append(times)
        # Where a turn's time went (lab/ops/bot_time.py reads it at log level debug).
        log.debug("bot turn %s %d: claimed %.3f sent %.3f decided %.3f stored %.3f", table.id,
                  job.version, claimed, sent, decided, times.stored)  # fmt: skip
        self.made += 1
        self.moves.append((self.made, table.id))
        return "done"

    async def show_when_due(self, job: BotJob) -> None:
        """Wait, holding no worker, until the turn is due: people see the bots' moves one by
        one, the bot delay apart, however soon the bot decided."""
        wait = job.ready - time.time()
        if wait <= 0:
            return
        task = asyncio.current_task()
        if task is not None:
            self.showing.add(task)  # this turn's task (_job's)
            self.wakeup.set()  # its worker is free for the next turn
        await asyncio.sleep(wait)

    async def memory(self, table: Table) -> Memory | None:
        """A copy of what the table's bots remember, brought up to its moves (None for a game
        whose bots remember nothing)."""
        if new_memory(table.game) is None:
            return None
        found = self.memories.pop(table.id, None)
        actions = tuple(table.record.actions)
        if found is None or actions[: len(found.actions)] != found.actions:
            self.replays += 1
        remembered = await self.runtime.engine(caught_up, found, table.record, actions)
        self.memories[table.id] = remembered
        while len(self.memories) > MAX_MEMORIES:
            self.memories.popitem(last=False)
        return remembered.memory.copy()
