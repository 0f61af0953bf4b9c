"""The search bots' help for people: hints during a game, and the analysis of a finished one.

Both cost CPU, so both are bounded and kept behind the bots:

- They run in worker processes of their own (``Limits.assist_processes``, one by default),
  niced by :data:`ASSIST_NICE` so that on a busy machine the bots' workers and the server come
  first; the bots' pool (:mod:`cradle.server.botpool`) is never used for them.
- Work waits in one queue, by priority: a hint (a person is waiting for it) before a step of an
  analysis; an analysis is cut into steps of one move each, so a hint waits at most one step.
- A hint thinks ``Limits.hint_seconds``; an analysis ``Limits.analysis_seconds`` per move it
  reviews; at most ``Limits.analysis_queue`` analyses wait in memory (the others wait in the
  database, their rows ``queued``); the app rate-limits hints per client.

An analysis (:class:`Analyst`) is stored with its game (``analyses`` table) as it goes, so a
client sees its progress and a restarted server carries on where it stopped. What it holds:

- ``chances``: per seat, its chance along the game (0 the start, then after each move): the
  search bots' evaluation of the position, every tile known (the game is over), exact at the end;
  with two players the chance to win, with more the expected share of opponents beaten;
- ``reviews``: every decision of the reviewed seats (the people; every seat at a table of bots)
  that had a choice, searched from the mover's own information (ISMCTS, as the ``hard`` bot
  thinks): the move played and the best one with their chances, and why the best one is better;
- ``costly``: the moves that cost most (at most five per seat, each losing at least
  :data:`COSTLY_LOSS`), by the ply they were played at.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from cradle.core.contract import GameState, Pieces
from cradle.core.record import GameRecord
from cradle.core.results import rank_rewards
from cradle.core.words import N_
from cradle.server.botpool import ProcessSlots, watch_parent
from cradle.server.errors import ApiError, bad_request, forbidden
from cradle.server.history import hand_pieces
from cradle.server.limits import Limits
from cradle.server.runtime import Runtime
from cradle.server.store import Store
from cradle.server.store.errors import CorruptGame
from cradle.server.table import Table, hints_allowed
from cradle.server.tables import Tables

if TYPE_CHECKING:
    from cradle.ai.knowledge.base import Knowledge

log = logging.getLogger("cradle.server")

T = TypeVar("T")

ASSIST_NICE = 10  # the assist workers' niceness above the server's (bots stay at the server's)
HINT, ANALYSIS = 0, 1  # priorities: lower is served first
HINT_COUNT = 3
COSTLY_LOSS = 0.03  # a move is costly when the best one was at least this much better
COSTLY_PER_SEAT = 5
SAVE_SECONDS = 3.0  # an analysis in progress is stored at least this often
STALE_SECONDS = 120.0  # a shared database: an analysis untouched this long is taken over
EVALUATIONS = 3  # evaluations averaged per position of the chances chart
FORMAT = 1


def work_seed(*parts: object) -> int:
    """A search's seed from the game's and the move's (hashed: it tells nothing of them)."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def assist_worker(parent: int) -> None:
    """A worker's start: behind the bots on a busy machine, gone with the server."""
    os.nice(ASSIST_NICE)
    watch_parent(parent)


# -- the work, in the workers -------------------------------------------------------------------


class Hint(TypedDict):
    """A move the search bots suggest, its chance to win, its visits and why."""

    action: str
    win_chance: float
    visits: int
    reason: str


def hint_work(state: GameState, seat: int, seconds: float, seed: int) -> list[Hint]:
    from cradle.ai.hints import hints
    from cradle.ai.search.budget import Budget

    found = hints(state, seat, count=HINT_COUNT, budget=Budget(seconds=seconds), seed=seed)
    return [
        Hint(action=h.action, win_chance=h.win_chance, visits=h.visits, reason=h.reason)
        for h in found
    ]


class Plan(TypedDict):
    """An analysis's plan: each seat's chances after every move, and the plies to review."""

    chances: list[list[float]]
    plies: list[int]


class Alternative(TypedDict):
    action: str
    chance: float
    visits: int


class Review(TypedDict):
    """One reviewed decision, as the analysis stores it."""

    ply: int
    seat: int
    played: str
    played_chance: float
    best: str
    best_chance: float
    loss: float
    why: str
    played_why: str
    alternatives: list[Alternative]
    pieces: Pieces


def _chances(state: GameState, knowledge: Knowledge) -> list[float]:
    from cradle.ai.search.leaves import evaluate

    if state.is_over:
        return [round(x, 3) for x in rank_rewards(state.result())]
    total = [0.0] * len(state.players)
    for number in range(EVALUATIONS):
        values = evaluate(state.clone(), knowledge, random.Random(number))
        total = [a + b for a, b in zip(total, values, strict=True)]
    return [round(x / EVALUATIONS, 3) for x in total]


def plan_work(record: GameRecord, reviewed: Sequence[int]) -> Plan:
    """The chances along the game, and the moves to review (a reviewed seat had a choice)."""
    from cradle.ai.knowledge.params import knowledge_for

    state = record.start()
    knowledge = knowledge_for(state.game)
    chances = [_chances(state, knowledge)]
    plies = []
    for ply, action in enumerate(record.actions, start=1):
        if int(state.to_move) in reviewed and len(state.legal_actions()) > 1:
            plies.append(ply)
        state.apply(action)
        chances.append(_chances(state, knowledge))
    return {"chances": chances, "plies": plies}


def review_work(record: GameRecord, ply: int, seconds: float, seed: int) -> Review:
    """The decision of move ``ply``: searched from the mover's information, the best move and
    the one played, with their chances, and why (read on the real position: the game is over)."""
    from cradle.ai.knowledge.params import knowledge_for
    from cradle.ai.search.budget import Budget
    from cradle.ai.search.ismcts import search
    from cradle.ai.search.params import IsmctsParams

    state = record.start()
    for action in record.actions[: ply - 1]:
        state.apply(action)
    seat = int(state.to_move)
    legal = {a.lower(): a for a in state.legal_actions()}
    played = legal.get(record.actions[ply - 1].lower(), record.actions[ply - 1])
    knowledge = knowledge_for(state.game)
    full = IsmctsParams(stop=False)  # the played move's chance counts too: the whole budget
    result = search(state, seat, Budget(seconds=seconds), full, seed=seed, knowledge=knowledge)
    rows = {row.action: row for row in result.actions}
    best = result.actions[0]
    if played in rows and rows[played].visits >= 3:
        played_chance = rows[played].reward
    else:
        alone = search(state, seat, Budget(seconds=seconds / 3), seed=seed + 1, only=[played])
        played_chance = alone.actions[0].reward
    if best.action == played:
        played_chance = best.reward
    loss = max(0.0, best.reward - played_chance)
    pieces = hand_pieces(state, seat)
    return {
        "ply": ply,
        "seat": seat,
        "played": played,
        "played_chance": round(played_chance, 3),
        "best": best.action,
        "best_chance": round(best.reward, 3),
        "loss": round(loss, 3),
        "why": knowledge.reason(state, seat, best.action),
        "played_why": knowledge.reason(state, seat, played),
        "alternatives": [
            {"action": row.action, "chance": round(row.reward, 3), "visits": row.visits}
            for row in result.actions[:3]
        ],
        "pieces": pieces,
    }


def costly(reviews: Sequence[Review]) -> list[int]:
    """The plies of the moves that cost most: per seat the worst few, each over COSTLY_LOSS."""
    chosen: list[int] = []
    for seat in sorted({r["seat"] for r in reviews}):
        mine = [r for r in reviews if r["seat"] == seat and r["loss"] >= COSTLY_LOSS]
        mine.sort(key=lambda r: (-r["loss"], r["ply"]))
        chosen += [r["ply"] for r in mine[:COSTLY_PER_SEAT]]
    return sorted(chosen)


# -- the pool -----------------------------------------------------------------------------------


class AssistPool(ProcessSlots[int]):
    """Worker slots for hints and analyses, by priority then first come, first served
    (``served``: the priorities served, in order)."""

    def __init__(self, processes: int) -> None:
        super().__init__(processes, assist_worker, "assist pool")

    async def run(self, priority: int, work: Callable[..., T], *args: Any) -> T:
        return await self.run_as(priority, priority, work, *args)


# -- analyses -----------------------------------------------------------------------------------


@dataclass(eq=False)
class Analyst:
    """Analyses of finished games: queued in the database when a game ends, worked through
    in the assist pool, stored as they go."""

    store: Store
    runtime: Runtime
    assist: AssistPool
    limits: Limits
    queue: list[str] = field(default_factory=list)  # game ids, first come first served
    active: set[str] = field(default_factory=set)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    wake: asyncio.Event = field(default_factory=asyncio.Event)

    def start(self) -> None:
        for _ in range(self.assist.processes):
            task = asyncio.ensure_future(self._worker())
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        self.refill()

    async def stop(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        for task in list(self.tasks):
            # Stopping: whatever it was doing is stored so far and redone on start.
            with contextlib.suppress(BaseException):
                await task

    def refill(self) -> None:
        """Take queued analyses from the database (soon, in the background)."""
        self.runtime.spawn(self._refill())

    async def _refill(self) -> None:
        room = self.limits.analysis_queue - len(self.queue)
        if room <= 0 or self.runtime.closing:
            return
        stale = time.time() - STALE_SECONDS
        for game_id in await self.runtime.db(self.store.analyses.pending, room, stale):
            if game_id not in self.queue and game_id not in self.active:
                self.queue.append(game_id)
        if self.queue:
            self.wake.set()

    async def _worker(self) -> None:
        while not self.runtime.closing:
            if not self.queue:
                self.wake.clear()
                await self.wake.wait()
                continue
            game_id = self.queue.pop(0)
            if game_id in self.active:
                continue
            self.active.add(game_id)
            try:
                await self._analyse(game_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the analysis of game %s failed", game_id)
                await self.runtime.db(
                    self.store.analyses.save, game_id, self.store.origin, "failed", 0, 0, None
                )
            finally:
                self.active.discard(game_id)
            if len(self.queue) < self.limits.analysis_queue // 2:
                await self._refill()

    async def _analyse(self, game_id: str) -> None:
        db, analyses, origin = self.runtime.db, self.store.analyses, self.store.origin
        claimed = await db(analyses.claim, game_id, origin, time.time() - STALE_SECONDS)
        if claimed is None:
            return  # done, or another process works on it
        stored = await db(self.store.games.load, game_id)
        if stored is None or stored.status != "over":
            await db(analyses.save, game_id, origin, "failed", 0, 0, None)
            return
        record = stored.record()
        humans = [s for s, kind in enumerate(stored.seats) if kind == "human"]
        reviewed = humans or list(range(len(stored.seats)))
        data: dict[str, Any] = claimed.get("data") or {}
        if data.get("format") != FORMAT or "plies" not in data:
            plan = await self.assist.run(ANALYSIS, plan_work, record, reviewed)
            data = {
                "format": FORMAT,
                "seconds": self.limits.analysis_seconds,
                "reviewed": reviewed,
                "chances": plan["chances"],
                "plies": plan["plies"],
                "reviews": [],
            }
        total = len(data["plies"])
        done = {r["ply"] for r in data["reviews"]}
        saved = time.monotonic()
        await db(analyses.save, game_id, origin, "running", len(done), total, data)
        for ply in data["plies"]:
            if ply in done:
                continue
            seed = work_seed("review", stored.seed, ply)
            review = await self.assist.run(
                ANALYSIS, review_work, record, ply, self.limits.analysis_seconds, seed
            )
            data["reviews"].append(review)
            done.add(ply)
            if time.monotonic() - saved >= SAVE_SECONDS:
                saved = time.monotonic()
                kept = await db(analyses.save, game_id, origin, "running", len(done), total, data)
                if not kept:
                    return  # another process took it over
        data["costly"] = costly(data["reviews"])
        await db(analyses.save, game_id, origin, "done", total, total, data)


# -- what people ask: explanations, hints and analyses ------------------------------------------


class Explanation(TypedDict):
    """Whether an action is legal now, and if not, the engine's reason."""

    action: str
    legal: bool
    reason: str | None


class Hints(TypedDict):
    """The best few moves for ``seat``, deciding after ``ply`` moves (at ``version``)."""

    ply: int
    seat: int
    version: int
    hints: list[Hint]


class AnalysisAnswer(TypedDict):
    """A finished game's analysis as it stands (``analysis``: None until it runs)."""

    id: str
    game: str
    players: list[str]
    seats: list[str]
    names: list[str | None]  # the people's names at the seats (None: none given, or a bot)
    moves: int
    status: str
    done: int
    total: int
    analysis: dict[str, object] | None


@dataclass(eq=False)
class Adviser:
    """Answers people's questions about a game: is this action legal, what are the best moves
    now (hints, from the asking seat's own information), how did a finished game go (its
    analysis, computed by the :class:`Analyst`)."""

    store: Store
    runtime: Runtime
    tables: Tables
    assist: AssistPool
    analyst: Analyst
    limits: Limits
    hints: dict[tuple[str, int, int], asyncio.Future[list[Hint]]] = field(default_factory=dict)

    async def explain(self, table: Table, token: str | None, action: str) -> Explanation:
        """Whether ``action`` is legal now for the seat of ``token``, and if not, why (the
        engine's own reason). Nothing changes."""
        seat = await self.tables.mover_of(table, token, "an explanation")
        action = " ".join(action.split())
        if not action:
            raise bad_request("'action' must be a non-empty string, e.g. \"tile red K2\"")
        if table.to_move() != seat:
            raise forbidden(f"it is not seat {seat}'s decision")
        trial = table.state.clone()
        try:
            trial.apply(action)
        except ValueError as exc:  # IllegalAction is one: its text says what is wrong
            return Explanation(action=action, legal=False, reason=str(exc) or "illegal action")
        return Explanation(action=action, legal=True, reason=None)

    async def hint(self, table: Table, token: str | None) -> Hints:
        """The best few moves for the seat deciding now, from its own information only; one
        search per seat and version, however many ask."""
        seat = await self.tables.mover_of(table, token, "a hint")
        if not hints_allowed(table):
            raise forbidden(N_("hints are off in games between people at their own screens"))
        if table.to_move() != seat:
            raise forbidden(f"it is not seat {seat}'s decision")
        key = (table.id, table.version, seat)
        pending = self.hints.get(key)
        if pending is None:
            assist = self.assist
            if assist.queued(HINT) >= 4 * assist.processes + 4:
                raise ApiError(429, N_("the hint helpers are busy: try again soon"), retry_after=5)
            pending = asyncio.ensure_future(
                assist.run(
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
        return Hints(ply=table.ply, seat=seat, version=key[1], hints=found)

    async def analysis(self, table: Table) -> AnalysisAnswer:
        """A finished game's analysis as stored: its status, progress and what it found."""
        if not table.is_over:
            raise forbidden(N_("the analysis opens once the game is over"))
        try:
            stored = await self.runtime.db(self.store.analyses.load, table.id)
        except CorruptGame as exc:  # the game itself serves on: only its analysis is damaged
            log.error("game %s: its analysis cannot be read: %s", table.id, exc.reason)
            raise ApiError(
                503,
                N_("the analysis of game {game} cannot be read: {reason}"),
                params={"game": table.id, "reason": exc.reason},
            ) from None
        answer = AnalysisAnswer(
            id=table.id,
            game=table.game,
            players=list(table.record.players),
            seats=list(table.seats),
            names=table.shown_names(),
            moves=table.ply,
            status="none",
            done=0,
            total=0,
            analysis=None,
        )
        if stored is not None:
            answer["status"] = stored["status"]
            answer["done"] = stored["done"]
            answer["total"] = stored["total"]
            if stored["status"] in ("running", "done"):
                answer["analysis"] = stored["data"]
        return answer

    async def request_analysis(self, table: Table) -> AnalysisAnswer:
        """Queue the analysis of a finished game that has none (games finished before there
        were analyses, or among bots only)."""
        if not table.is_over:
            raise forbidden(N_("the analysis opens once the game is over"))
        await self.runtime.db(self.store.analyses.queue, table.id)
        self.analyst.refill()
        return await self.analysis(table)
