"""`cradle bots`: bot workers on any machine, making the bots' moves of one PostgreSQL database.

Each worker process claims the next bot's turn that is due from the database's queue
(:meth:`cradle.server.store.botjobs.BotJobStore.claim`: the client that used the bots least
lately first, then the oldest turn), loads the game, replays its record, decides with the
server's own bot code (:func:`cradle.server.botpool.decide`: what the game's bots remember between
turns, :mod:`cradle.ai.memory`, and the seat's turn clock as stored; the turn is claimed as it
comes and the bot thinks through the bot delay, ending by its deadline) and stores the move,
once it is due, with the compare-and-set on the game's version.
The write notifies the serving processes, which push the move to their clients. While it
thinks, the worker renews its claim; a worker killed mid-thought loses the claim when the lease
lapses, and another worker takes the turn over. A turn done twice still makes one move.

The parent process starts ``--workers`` such processes for the turns a person waits for and
``--background-workers`` (niced by ``--background-nice``, 10 by default) for the turns
nobody waits for (bots alone, stand-ins), each claiming only its lane's turns, so a person's bot
never waits behind a decision nobody waits for; it starts a new one in the same lane when one
dies, and stops them all on SIGTERM or SIGINT; each exits by itself when the parent is gone.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

from cradle.ai.memory import remembered
from cradle.server.botpool import (
    BACKGROUND_NICE,
    LEASE_SECONDS,
    POLL_SECONDS,
    RENEW_SECONDS,
    RETRY_SECONDS,
    BotAsk,
    bot_decision,
    decide,
    turn_deadline,
    watch_parent,
)
from cradle.server.errors import ApiError
from cradle.server.limits import BACKGROUND, WAITED, Lane
from cradle.server.referee import BotTurn, Settings, rule_move
from cradle.server.store import Store
from cradle.server.store.botjobs import BotJob
from cradle.server.store.errors import Conflict, CorruptGame, StorageError
from cradle.server.store.schema import LIVE
from cradle.server.table import build_table

log = logging.getLogger("cradle.server.bots")


@dataclass(frozen=True)
class WorkerSettings:
    """What every worker of a `cradle bots` run is told."""

    url: str  # the database (SQLAlchemy URL; PostgreSQL)
    bot_delay: float = 0.6  # seconds a bot's turn waits before it is due (as `cradle serve`)
    bot_seconds: float = 2.0  # the most a bot thinks per decision (a table may ask for less)
    analyse: bool = True  # queue the analysis of a game a person played, when a bot ends it
    verbose: bool = False  # print a line for every move made
    background_nice: int = BACKGROUND_NICE  # the niced workers' niceness above the parent's


def worker_name() -> str:
    return f"{socket.gethostname()[:40]}:{os.getpid()}"


class Lease:
    """Keeps a claimed turn's lease alive from a thread while the worker thinks."""

    def __init__(self, store: Store, job: BotJob, owner: str) -> None:
        self.store, self.job, self.owner = store, job, owner
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._renew, name="cradle-lease", daemon=True)

    def __enter__(self) -> Lease:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.done.set()
        self.thread.join()

    def _renew(self) -> None:
        while not self.done.wait(RENEW_SECONDS):
            try:
                until = time.time() + LEASE_SECONDS
                if not self.store.bot_jobs.renew(self.job.game_id, self.owner, until):
                    return  # taken over: the version check keeps it to one move
            except StorageError as exc:
                log.warning("renewing the claim on game %s failed: %s", self.job.game_id, exc)


def make_move(store: Store, job: BotJob, owner: str, settings: WorkerSettings) -> str:
    """The move of the claimed turn ``job``: "moved", "release" (the game moved on: the turn
    is claimed again) or "drop" (no bot decides there: the turn is forgotten). The move is
    ruled on and stored as the server's own bots' are (:func:`cradle.server.referee.rule_move`:
    the same one change, its turn notice owed whichever process sends it)."""
    try:
        stored = store.games.load(job.game_id)
        if stored is None or stored.status not in LIVE:
            return "drop"
        if stored.version != job.version:
            return "release"
        table = build_table(stored)  # a stand-in plays its seat's turn as a bot
    except CorruptGame as exc:
        log.error("game %s cannot be read: %s", job.game_id, exc.reason)
        return "drop"  # set aside by the servers; a restart writes its turn again
    if not table.bot_turn():
        return "drop"
    state, record = table.state, table.record
    decision = bot_decision(
        state,
        table.playing(),
        record.seed,
        table.ply,
        table.bot_seconds,
        settings.bot_seconds,
        job.clocks,
    )
    memory = remembered(record.start(), record.actions)
    seat = decision.seat
    began = time.perf_counter()
    until = turn_deadline(job.lane, job.ready, decision.seconds)
    ask = BotAsk(state.clone(), seat, decision.name, decision.seed, decision.seconds, memory, until)
    action = decide(ask)
    decision.clock.spend(time.perf_counter() - began)
    time.sleep(max(0.0, job.ready - time.time()))  # shown when due: the bot thought meanwhile
    rules = Settings(settings.bot_seconds, settings.analyse)
    turn = BotTurn(job.version, (seat, decision.clock.spent))
    try:
        ruling = rule_move(table, seat, " ".join(action.split()), rules, turn)
    except ApiError:
        # A bot's bug must not stall the table: this turn, the random bot decides.
        log.error("bot %s in game %s chose an action that was refused", decision.name, table.id)
        action = decide(ask.of_random(state.clone()))
        ruling = rule_move(table, seat, action, rules, turn)
    if ruling is None:
        return "release"
    try:
        ruling.commit(store)
    except Conflict:
        return "release"  # another worker made it, or the game changed: the version decides
    if settings.verbose:
        tell_moved(table.id, table.ply, job.client, owner)
    return "moved"


def tell_moved(game_id: str, ply: int, client: str, owner: str) -> None:
    """``--verbose``'s line for a move made: one write of the whole line, since the workers
    share the stream and print() writes a line and its end apart when unbuffered
    (PYTHONUNBUFFERED), which let two workers' lines interleave."""
    sys.stdout.write(f"moved {game_id} {ply} {client} {time.time():.6f} {owner}\n")
    sys.stdout.flush()


def work(settings: WorkerSettings, stop: Any = None, lane: Lane | None = None) -> None:
    """One worker: claim a turn of ``lane`` (None: of either), decide, store, until ``stop``
    (an Event) is set."""
    from cradle.ai.search.ismcts import warm_up

    warm_up()
    if lane == BACKGROUND:
        os.nice(settings.background_nice)  # behind the workers a person waits for
    store = Store(settings.url)
    store.bot_jobs.delay = settings.bot_delay
    owner = worker_name()
    try:
        while stop is None or not stop.is_set():
            try:
                job = store.bot_jobs.claim(owner, time.time(), LEASE_SECONDS, lane)
                due = store.bot_jobs.next_due(lane) if job is None else None
            except Exception as exc:  # the database is down or restarting: wait, then again
                log.warning("claiming a bot's turn failed (%s); again in %g s", exc, RETRY_SECONDS)
                time.sleep(RETRY_SECONDS)
                continue
            if job is None:
                wait = POLL_SECONDS if due is None else min(POLL_SECONDS, due - time.time())
                time.sleep(max(0.005, wait))
                continue
            retry: float | None = None
            try:
                with Lease(store, job, owner):
                    outcome = make_move(store, job, owner, settings)
            except Exception:
                log.exception("a bot's turn failed in game %s", job.game_id)
                outcome, retry = "release", time.time() + RETRY_SECONDS
            try:
                if outcome == "drop":
                    store.bot_jobs.drop(job.game_id, job.version)
                elif outcome == "release":
                    store.bot_jobs.release(job.game_id, owner, retry)
            except Exception as exc:  # its lease lapses: another worker takes it then
                log.warning("giving game %s's turn back failed: %s", job.game_id, exc)
        store.bot_jobs.release_all(owner)
    finally:
        store.close()


def _child(settings: WorkerSettings, parent: int, stop: Any, lane: Lane) -> None:
    watch_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us through ``stop``
    logging.basicConfig(level=logging.WARNING, format="cradle bots %(process)d: %(message)s")
    work(settings, stop, lane)


def run_workers(settings: WorkerSettings, workers: int, background: int | None = None) -> None:
    """Run ``workers`` worker processes for the turns a person waits for and ``background``
    (None: as many) niced ones for the others until SIGTERM or SIGINT, replacing any that
    dies by one of its lane."""
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    stopping = threading.Event()
    lanes = [WAITED] * workers + [BACKGROUND] * (workers if background is None else background)

    def start(lane: Lane) -> Any:
        process = context.Process(
            target=_child, args=(settings, os.getpid(), stop, lane), name="cradle-bots",
            daemon=True,
        )  # fmt: skip
        process.start()
        return process

    def on_signal(_number: int, _frame: Any) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    processes = [start(lane) for lane in lanes]
    try:
        while not stopping.wait(0.5):
            for number, process in enumerate(processes):
                if not process.is_alive():
                    log.warning("bot worker %s ended (%s); starting another", process.pid,
                                process.exitcode)  # fmt: skip
                    processes[number] = start(lanes[number])
    finally:
        stop.set()
        for process in processes:
            process.join(timeout=LEASE_SECONDS + 5)
        for process in processes:
            if process.is_alive():
                process.terminate()
                process.join(timeout=5)
