"""The bots' decisions for the server: what a bot's turn asks for, and a few worker processes.

- Which bots' turn comes next is decided in the database (:meth:`BotJobStore.claim`: the
  client that used the bots least lately first, then the oldest turn), for the serving
  process's own workers (``Hub``) and ``cradle bots`` processes (:mod:`cradle.server.botqueue`).
- Each decision runs on one worker, single-threaded, within the table's thinking budget, itself
  capped by the operator (``Limits.bot_seconds``): a level that would search on every core
  (``expert``) searches on one worker here, for at most that long.
- In a serving process the pool's workers are taken in turn: a table has at most one decision
  waiting or running, and the waiting ones are served first come, first served (in the order
  the queue handed their turns out).
- The pool has two lanes of workers (:data:`cradle.server.limits.Lane`): the turns a
  person waits for go to workers at the server's priority, which take no other; the turns
  nobody waits for (bots alone, stand-ins) to workers of their own, niced by
  :data:`BACKGROUND_NICE`. So a person's bot never waits behind a decision nobody waits for,
  and on a busy machine the kernel gives its decision the cores first.
- Workers are separate processes (the search is pure Python: in threads it would hold the
  server's interpreter). They watch the server's process id and exit when it is gone, also
  after a SIGKILL, when no shutdown code runs.
- The ``random`` bot costs nothing and decides in a thread, with no process to start.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import heapq
import itertools
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from cradle.ai import LEVELS, make_bot
from cradle.ai.levels import SEARCH_DEFAULTS, search_bot
from cradle.ai.search.budget import LEAST_SECONDS, TurnClock
from cradle.server.limits import BACKGROUND, FREE_BOTS, LANES, WAITED, Lane

if TYPE_CHECKING:
    from cradle.ai.bots import Bot
    from cradle.ai.memory import Memory

log = logging.getLogger("cradle.server")
K = TypeVar("K")  # who a worker slot serves
T = TypeVar("T")

CHEAP_BOTS = FREE_BOTS
PARENT_POLL = 0.5  # seconds between a worker's checks that the server still runs
# A worker's claim on a bot's turn (cradle.server.store.botjobs.BotJob) lapses after LEASE_SECONDS
# unless renewed (every RENEW_SECONDS while it thinks): a killed worker's turn is then taken
# over. Idle workers look for turns every POLL_SECONDS on a shared database.
LEASE_SECONDS = 5.0
RENEW_SECONDS = 1.5
POLL_SECONDS = 0.2
RETRY_SECONDS = 5.0  # before a turn whose decision failed is tried again
# Held back from a decision's deadline for ruling on its move, storing and pushing it (a
# loaded machine's; lab/notebook/bot-time.md).
SHOWING_SECONDS = 0.15
BACKGROUND_NICE = 10  # by default, the niceness above the server's of the workers nobody waits for


def bot_seed(game_seed: int, ply: int, seat: int) -> int:
    """The seed of the bot deciding at ``ply``: whichever worker decides, and however often,
    it makes the very same choice.

    Hashed so that the bots' choices, which everybody sees, say nothing about the game's seed.
    """
    digest = hashlib.sha256(f"bot:{game_seed}:{ply}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass
class BotDecision:
    """What a bot's turn asks of its bot: the seat, the bot, its seed and its seconds, and the
    seat's turn clock (to be told the time spent)."""

    seat: int
    name: str
    seed: int
    seconds: float
    clock: TurnClock


def bot_decision(
    state: Any,
    seats: list[str],
    game_seed: int,
    ply: int,
    table_seconds: float | None,
    cap: float,
    clocks: Mapping[int, float],
) -> BotDecision:
    """The decision of the bot to move in ``state`` (``ply`` actions into the game): the
    table's budget capped by the operator's (``cap``), cut to what is left of the seat's turn
    (``clocks``: the seconds each bot seat has spent in its current turn)."""
    seat = int(state.to_move)
    name = seats[seat].removeprefix("bot:")
    seconds = min(table_seconds or cap, cap)
    clock = turn_clock(name)
    clock.spent = clocks.get(seat, 0.0)
    seconds = clock.seconds(state.view(seat), seconds)
    return BotDecision(seat, name, bot_seed(game_seed, ply, seat), seconds, clock)


@dataclass(frozen=True)
class BotAsk:
    """One decision asked of a bot: ``state`` (a copy nobody else touches), the seat, the bot,
    its seed and seconds; ``memory``: what the table's bots remember between turns
    (cradle.ai.memory), for a bot that keeps it; ``until``: when it must end (epoch: the time
    waiting for a worker counts)."""

    state: Any
    seat: int
    name: str
    seed: int
    seconds: float
    memory: Memory | None = None
    until: float | None = None

    def of_random(self, state: Any) -> BotAsk:
        """The same turn asked of the random bot instead (when the bot's choice was refused:
        a bot's bug must not stall the table), on a fresh copy ``state``."""
        return BotAsk(state, self.seat, "random", self.seed, 1.0)


def server_bot(name: str, seed: int, seconds: float) -> Bot:
    """The bot ``name`` as the server runs it: one process, at most ``seconds`` a decision."""
    level = LEVELS.get(name)
    if level is not None and level.budget is not None:
        budget = level.budget.within(seconds)
        return search_bot(level.bot, seed, budget, workers=1, name=name)
    if name in SEARCH_DEFAULTS:
        return search_bot(name, seed, SEARCH_DEFAULTS[name].within(seconds))
    return make_bot(name, seed)


@functools.lru_cache(maxsize=256)
def _budget_seconds(name: str, seconds: float) -> float:
    budget = getattr(server_bot(name, 0, seconds), "budget", None)
    return float(getattr(budget, "seconds", None) or 0.0)


def decision_cost(seats: list[str], state: Any, table_seconds: float | None, cap: float) -> float:
    """What the next decision in ``state`` costs the bots' time, for the queue's fair order:
    the deciding bot's budget per decision on this server (0 for a bot that answers at once,
    and when no bot decides)."""
    if state.is_over:
        return 0.0
    kind = seats[int(state.to_move)]
    if not kind.startswith("bot:"):
        return 0.0
    return _budget_seconds(kind[4:], min(table_seconds or cap, cap))


def turn_clock(name: str) -> TurnClock:
    """The clock of the turns of a seat that bot ``name`` plays: its level's allowance per
    turn (``hard``: 3 s), none for other bots."""
    level = LEVELS.get(name)
    return TurnClock(level.turn_seconds if level is not None else None)


def deadline(due: float, seconds: float) -> float:
    """When a decision of ``seconds`` on a turn due at ``due`` (epoch) must end: its move is
    then shown by ``due + seconds`` (the bot delay and its budget after the turn came, however
    late a worker took it), :data:`SHOWING_SECONDS` held back for storing and pushing it."""
    return due + seconds - SHOWING_SECONDS


def turn_deadline(lane: Lane, due: float, seconds: float) -> float | None:
    """The :func:`deadline` of a decision on a turn of ``lane`` due at ``due``: a person waits
    for a turn of :data:`WAITED`, shown by its deadline. Nobody waits for the others: a late
    one keeps its whole budget (cut, a crowd of bots alone would play their floor, and the
    server would store their moves as fast as it could)."""
    return deadline(due, seconds) if lane == WAITED else None


def thinking_seconds(seconds: float, until: float | None, now: float) -> float:
    """What a decision of ``seconds`` thinks when it starts at ``now`` (epoch) and must end by
    ``until``: its own budget while it fits, else what is left (at least
    :data:`cradle.ai.search.budget.LEAST_SECONDS`; the level's floor of iterations still runs)."""
    if until is None:
        return seconds
    return max(LEAST_SECONDS, min(seconds, until - now))


def decide(ask: BotAsk) -> str:
    """One decision (in a worker process, or a thread for the cheap bots)."""
    from cradle.ai.memory import hand_over  # with the search, as the first decision needs

    seconds = thinking_seconds(ask.seconds, ask.until, time.time())
    bot = server_bot(ask.name, ask.seed, seconds)
    hand_over(bot, ask.memory)
    return bot.choose(ask.state, ask.seat)


def watch_parent(parent: int, gone: Callable[[], None] | None = None) -> None:
    """In a worker: as soon as the process ``parent`` is gone (however it ended, SIGKILL
    included, when it can stop nothing itself), call ``gone``; by default, exit at once."""

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL)
            if os.getppid() != parent:
                if gone is not None:
                    gone()
                os._exit(0)

    threading.Thread(target=watch, name="cradle-parent-watch", daemon=True).start()


def bot_worker(parent: int) -> None:
    """A bot worker's start: watch the server, and import what the bots' first decision
    would otherwise wait for."""
    from cradle.ai.search.ismcts import warm_up

    watch_parent(parent)
    warm_up()


def background_worker(parent: int, nice: int = BACKGROUND_NICE) -> None:
    """A worker for the turns nobody waits for: started at the server's priority (its imports
    wait for no core), then ``nice`` behind the server and a person's bot for its decisions (a
    niced process cannot take its priority back: these workers stay in their lane)."""
    bot_worker(parent)
    os.nice(nice)


def _ready() -> int:
    return os.getpid()


def spawn_pool(processes: int, initializer: Callable[[int], None]) -> ProcessPoolExecutor:
    """Worker processes started by spawn (safe next to the server's threads), each running
    ``initializer(server pid)`` first, so that it watches the server."""
    import multiprocessing

    return ProcessPoolExecutor(
        max_workers=processes,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=initializer,
        initargs=(os.getpid(),),
    )


def pool_pids(pool: ProcessPoolExecutor | None) -> list[int]:
    """The process ids of a pool's workers (none before its first task)."""
    processes = getattr(pool, "_processes", None) or {}
    return [int(pid) for pid in processes]


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """End a pool's workers now, abandoning their tasks."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=5)


class ProcessSlots(Generic[K]):
    """``processes`` worker processes (spawned at their first task, afresh after one died),
    each running ``worker`` first, and as many slots: a task waits for a free slot, those
    waiting served by ``priority`` (lowest first), then first come, first served. ``served``
    says who got each slot, in order (the last 1000: tests read it)."""

    def __init__(self, processes: int, worker: Callable[[int], None], name: str) -> None:
        if processes < 1:
            raise ValueError(f"the {name} needs at least one worker")
        self.processes = processes
        self.worker = worker
        self.name = name
        self.free = processes
        self.waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self.order = itertools.count()
        self.served: list[K] = []
        self.pool: ProcessPoolExecutor | None = None
        self.closed = False

    def queued(self, priority: int) -> int:
        return sum(1 for p, _, ready in self.waiting if p == priority and not ready.done())

    async def run_as(self, who: K, priority: int, work: Callable[..., T], *args: object) -> T:
        await self.slot(priority)
        try:
            self.served.append(who)
            del self.served[:-1000]
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self.executor(), work, *args)
        except BrokenProcessPool:
            self.pool = None  # a worker died (killed from outside): start afresh next time
            raise
        finally:
            self.release()

    async def slot(self, priority: int) -> None:
        if self.free > 0 and not self.waiting:
            self.free -= 1
            return
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (priority, next(self.order), ready)
        heapq.heappush(self.waiting, entry)
        try:
            await ready
        except asyncio.CancelledError:
            if ready.done() and not ready.cancelled():
                self.release()  # the slot was handed to us as we were cancelled: pass it on
            elif entry in self.waiting:
                self.waiting.remove(entry)
                heapq.heapify(self.waiting)
            raise

    def release(self) -> None:
        while self.waiting:
            _priority, _order, ready = heapq.heappop(self.waiting)
            if not ready.done():
                ready.set_result(None)  # the slot goes straight to the next in line
                return
        self.free += 1

    def executor(self) -> Executor:
        if self.closed:
            raise RuntimeError(f"the {self.name} is closed")
        if self.pool is None:
            self.pool = spawn_pool(self.processes, self.worker)
        return self.pool

    def worker_pids(self) -> list[int]:
        return pool_pids(self.pool)

    def close(self) -> None:
        """Stop the workers now: a task in progress is abandoned."""
        self.closed = True
        if self.pool is not None:
            stop_pool(self.pool)
            self.pool = None


class BotPool:
    """Worker slots in two lanes (a person waits; nobody waits, ``nice`` behind the server),
    each handed out first come, first served; one decision per table at a time."""

    def __init__(
        self, processes: int, background: int | None = None, nice: int = BACKGROUND_NICE
    ) -> None:
        niced = functools.partial(background_worker, nice=nice)
        background = processes if background is None else background
        self.lanes: dict[Lane, ProcessSlots[tuple[Lane, str]]] = {
            WAITED: ProcessSlots(processes, bot_worker, "bot pool"),
            BACKGROUND: ProcessSlots(background, niced, "bot pool's background lane"),
        }
        self.processes = processes  # the lane of the turns a person waits for
        self.busy: set[str] = set()  # tables with a decision waiting or running
        # Each table with its lane, in the order they got a worker, both lanes in one list
        # (the tests read it).
        self.served_lanes: list[tuple[Lane, str]] = []
        for slots in self.lanes.values():
            slots.served = self.served_lanes
        self.cheap: Executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cradle-bot")

    @property
    def served(self) -> list[str]:
        """The tables in the order they got a worker, either lane."""
        return [table_id for _lane, table_id in self.served_lanes]

    @property
    def pool(self) -> ProcessPoolExecutor | None:
        """The workers of the turns a person waits for (None before their first decision)."""
        return self.lanes[WAITED].pool

    async def decide(self, table_id: str, ask: BotAsk, lane: Lane = WAITED) -> str:
        """The action ``ask`` asks for at the table ``table_id``, on a worker of ``lane`` (a
        cheap bot in a thread, with neither memory nor deadline)."""
        loop = asyncio.get_running_loop()
        if ask.name in CHEAP_BOTS:
            return await loop.run_in_executor(
                self.cheap, decide, replace(ask, memory=None, until=None)
            )
        if table_id in self.busy:
            raise RuntimeError(f"table {table_id} already has a bot decision in the pool")
        self.busy.add(table_id)
        try:
            return await self.lanes[lane].run_as((lane, table_id), 0, decide, ask)
        finally:
            self.busy.discard(table_id)

    def start(self) -> list[Future[int]]:
        """Start every worker of both lanes now (a server's first bot decision then waits for
        none); the futures give their process ids once they are ready."""
        return [
            self.lanes[lane].executor().submit(_ready)
            for lane in LANES
            for _ in range(self.lanes[lane].processes)
        ]

    def worker_pids(self, lane: Lane | None = None) -> list[int]:
        """The process ids of the workers of ``lane`` (None: of both)."""
        lanes = LANES if lane is None else (lane,)
        return [pid for each in lanes for pid in self.lanes[each].worker_pids()]

    def close(self) -> None:
        """Stop the workers now: a decision in progress is abandoned (it is redone on start)."""
        self.cheap.shutdown(wait=False, cancel_futures=True)
        for slots in self.lanes.values():
            slots.close()
