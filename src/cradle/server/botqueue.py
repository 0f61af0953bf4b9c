"""`cradle bots`: bot workers on any machine, making the bots' moves of one PostgreSQL database.

Each worker process claims the next bot's turn that is due from the database's queue
(:meth:`cradle.server.store.botjobs.BotJobStore.claim`: the client that used the bots least
lately first, then the oldest turn), loads the game, replays its record, decides with the
server's own bot code (:func:`cradle.server.bots.decide`: the table's belief over the hands for
Tigris, the seat's turn clock as stored) and stores the move with the compare-and-set on the
game's version.
The write notifies the serving processes, which push the move to their clients. While it
thinks, the worker renews its claim; a worker killed mid-thought loses the claim when the lease
lapses, and another worker takes the turn over. A turn done twice still makes one move.

The parent process starts ``--workers`` such processes, starts a new one when one dies, and
stops them all on SIGTERM or SIGINT; each exits by itself when the parent is gone.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

from cradle.ai.knowledge.belief import reads, replayed
from cradle.server.bots import (
    LEASE_SECONDS,
    POLL_SECONDS,
    RENEW_SECONDS,
    RETRY_SECONDS,
    bot_decision,
    decide,
    decision_cost,
    watch_parent,
)
from cradle.server.store import Store
from cradle.server.store.botjobs import BotJob
from cradle.server.store.errors import Conflict, CorruptGame, StorageError
from cradle.server.store.games import playing_seats
from cradle.server.store.notices import turn_begins
from cradle.server.store.plays import MoveChange
from cradle.server.store.schema import LIVE
from cradle.server.table import MAX_ACTION_LENGTH, replay_record

log = logging.getLogger("cradle.server.bots")


@dataclass(frozen=True)
class WorkerSettings:
    """What every worker of a `cradle bots` run is told."""

    url: str  # the database (SQLAlchemy URL; PostgreSQL)
    bot_delay: float = 0.6  # seconds a bot's turn waits before it is due (as `cradle serve`)
    bot_seconds: float = 2.0  # the most a bot thinks per decision (a table may ask for less)
    analyse: bool = True  # queue the analysis of a game a person played, when a bot ends it
    verbose: bool = False  # print a line for every move made


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
    is claimed again) or "drop" (no bot decides there: the turn is forgotten)."""
    try:
        stored = store.games.load(job.game_id)
    except CorruptGame as exc:
        log.error("game %s cannot be read: %s", job.game_id, exc.reason)
        return "drop"  # set aside by the servers; a restart writes its turn again
    if stored is None or stored.status not in LIVE:
        return "drop"
    if stored.version != job.version:
        return "release"
    record = stored.record()
    try:
        state = replay_record(record).state
    except CorruptGame as exc:
        log.error("game %s cannot be replayed: %s", job.game_id, exc.reason)
        return "drop"
    playing = stored.playing()  # a stand-in plays its seat's turn as a bot
    if state.is_over or not playing[int(state.to_move)].startswith("bot:"):
        return "drop"
    ply = len(record.actions)
    decision = bot_decision(
        state,
        playing,
        stored.seed,
        ply,
        stored.bot_seconds,
        settings.bot_seconds,
        job.clocks,
    )
    belief = None
    if reads(stored.game):
        belief = replayed(record.start(), record.actions)
    seat = decision.seat
    began = time.perf_counter()
    action = decide(state.clone(), seat, decision.name, decision.seed, decision.seconds, belief)
    decision.clock.spend(time.perf_counter() - began)
    after = state.clone()
    action = " ".join(action.split())
    try:
        if len(action) > MAX_ACTION_LENGTH:
            raise ValueError("too long")
        after.apply(action)
    except ValueError:
        # A bot's bug must not stall the table: this turn, the random bot decides.
        log.error("bot %s in game %s chose an action that was refused", decision.name, stored.id)
        action = decide(state.clone(), seat, "random", decision.seed, 1.0)
        after = state.clone()
        after.apply(action)
    over = bool(after.is_over)
    result: Any = after.result() if over else None
    # A stand-in plays its seat's whole turn, and no more.
    standin = seat if stored.standin == seat and not over and int(after.to_move) == seat else None
    playing_after = playing_seats(stored.seats, standin, stored.standins)
    deciding = None if over else int(after.to_move)
    begins = turn_begins(stored.mode, playing_after, stored.claimed, seat, deciding, ply + 1)
    try:
        change = MoveChange(
            game_id=stored.id,
            ply=ply,
            version=stored.version,
            seat=seat,
            action=action,
            status="over" if over else stored.status,
            result=result,
            bot_turn=not over and playing_after[int(after.to_move)].startswith("bot:"),
            bot_cost=decision_cost(playing_after, after, stored.bot_seconds, settings.bot_seconds),
            analyse=over and settings.analyse and "human" in stored.seats,
            clock=(seat, decision.clock.spent),
            standin=standin,
            turn_based=stored.mode == "turn",
            begins=begins,  # a person's turn begins: its mail is owed (any server process sends it)
        )
        store.plays.move(change)
    except Conflict:
        return "release"  # another worker made it, or the game changed: the version decides
    if settings.verbose:
        print(f"moved {stored.id} {ply} {job.client} {time.time():.6f} {owner}", flush=True)
    return "moved"


def work(settings: WorkerSettings, stop: Any = None) -> None:
    """One worker: claim, decide, store, until ``stop`` (an Event) is set."""
    from cradle.ai.search.ismcts import warm_up

    warm_up()
    store = Store(settings.url)
    store.bot_jobs.delay = settings.bot_delay
    owner = worker_name()
    try:
        while stop is None or not stop.is_set():
            try:
                job = store.bot_jobs.claim(owner, time.time(), LEASE_SECONDS)
                due = store.bot_jobs.next_due() if job is None else None
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


def _child(settings: WorkerSettings, parent: int, stop: Any) -> None:
    watch_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us through ``stop``
    logging.basicConfig(level=logging.WARNING, format="cradle bots %(process)d: %(message)s")
    work(settings, stop)


def run_workers(settings: WorkerSettings, workers: int) -> None:
    """Run ``workers`` worker processes until SIGTERM or SIGINT, replacing any that dies."""
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    stopping = threading.Event()

    def start() -> Any:
        process = context.Process(
            target=_child, args=(settings, os.getpid(), stop), name="cradle-bots", daemon=True
        )
        process.start()
        return process

    def on_signal(_number: int, _frame: Any) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    processes = [start() for _ in range(workers)]
    try:
        while not stopping.wait(0.5):
            for number, process in enumerate(processes):
                if not process.is_alive():
                    log.warning("bot worker %s ended (%s); starting another", process.pid,
                                process.exitcode)  # fmt: skip
                    processes[number] = start()
    finally:
        stop.set()
        for process in processes:
            process.join(timeout=LEASE_SECONDS + 5)
        for process in processes:
            if process.is_alive():
                process.terminate()
                process.join(timeout=5)
