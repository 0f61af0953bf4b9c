"""What reads a game without changing it: the lobby's pages, a game's record, the replay of a
finished game, the history as a seat knows it and the board after any move.

Nothing here writes. What a viewer gets of an action goes through
:func:`cradle.server.redact.public_action` (and :mod:`cradle.server.history`), like every frame.
Replays, histories and past boards are engine work: they are built in the server's engine
threads and kept (``Limits.replay_cache`` of each, the least recently read forgotten first),
keyed by the table's version where the game may still change.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict, TypeVar

from cradle.core.contract import JSON, Event, Pieces, SeatResult, View
from cradle.core.words import N_
from cradle.server.errors import bad_request, forbidden
from cradle.server.history import (
    PastBoard,
    ShownStep,
    Step,
    board_at,
    history_for,
    replay_steps,
)
from cradle.server.limits import Limits
from cradle.server.redact import public_action
from cradle.server.runtime import Runtime
from cradle.server.store import Store
from cradle.server.store.lobby import LobbyFilter
from cradle.server.table import Table, snapshot
from cradle.server.tables import Tables

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")

LOBBY_SECONDS = 1.0  # many clients poll the same lobby page: it is built once this often
LOBBY_PAGES = 256  # lobby pages kept at most (the cache is emptied when full)


class LobbyPage(TypedDict):
    """One page of listed games (each as :meth:`Table.summary` or a stored row tells it);
    ``next`` is the ``before`` of the following page."""

    games: list[Mapping[str, object]]
    next: str | None


# The lobby pages built in the last LOBBY_SECONDS, by (status, before, limit, filter).
LobbyCache = dict[tuple[str | None, str | None, int, LobbyFilter | None], tuple[float, LobbyPage]]


class KnownRecord(TypedDict):
    """A game record (``GameRecord.to_dict``); in a game in progress, as one seat may know it:
    no seed, every action in its public form, and ``seats``, the mover of each action."""

    format: int
    game: str
    players: list[str]
    seed: NotRequired[int]
    options: JSON
    actions: list[str]
    seats: NotRequired[list[int]]


class ReplayStep(TypedDict):
    """One step of a replay: the action (None before the first), its events, the view after;
    ``standin``: the stand-in bot level that made the action for its seat's person."""

    ply: int
    seat: int | None
    action: str | None
    events: list[Event]
    view: View
    standin: str | None


class Replay(TypedDict):
    """Every step of a finished game as one seat (None: spectators) saw it."""

    id: str
    game: str
    players: list[str]
    seats: list[str]
    options: JSON
    result: list[SeatResult]
    steps: list[ReplayStep]
    names: NotRequired[list[str | None]]  # added as it is answered (a name can change)
    private: NotRequired[bool]  # its players may share it (GET /share)


class History(TypedDict):
    """Every action that counts so far, as ``seat`` may know it, and the pieces they name."""

    id: str
    game: str
    players: list[str]
    seats: list[str]
    seat: int | None
    version: int
    moves: int
    steps: list[ShownStep]
    pieces: Pieces
    names: list[str | None]


class BoardAfter(PastBoard):
    """A seat's view of the board after ``ply`` moves, with the table's public facts."""

    id: str
    game: str
    players: list[str]
    seats: list[str]


def record_for(table: Table, seat: int | None) -> KnownRecord:
    """The record of a game in progress as ``seat`` may know it: no seed, and every action
    in its public form for that seat."""
    whole = table.record
    return KnownRecord(
        format=whole.to_dict()["format"],
        game=whole.game,
        players=list(whole.players),
        options=dict(whole.options),
        actions=[
            public_action(table.game, action, mover, seat)
            for action, mover in zip(whole.actions, table.action_seats, strict=True)
        ],
        seats=list(table.action_seats),
    )


def whole_record(table: Table) -> KnownRecord:
    """The full record (a finished game's: the seed fixed the bag, now public)."""
    whole = table.record
    return KnownRecord(
        format=whole.to_dict()["format"],
        game=whole.game,
        players=list(whole.players),
        seed=whole.seed,
        options=dict(whole.options),
        actions=list(whole.actions),
    )


def replay_of(table: Table, seat: int | None) -> Replay:
    """Every step of the finished game at ``table`` as ``seat`` saw it (engine work)."""
    record = table.record
    state = record.start()
    steps = [
        ReplayStep(ply=0, seat=None, action=None, events=[], view=state.view(seat), standin=None)
    ]
    standins = table.action_standins
    for step in record.steps_from(state):
        steps.append(
            ReplayStep(
                ply=step.ply,
                seat=step.seat,
                action=public_action(record.game, step.action, step.seat, seat),
                events=list(step.events),
                view=state.view(seat),
                standin=standins[step.ply - 1] if step.ply - 1 < len(standins) else None,
            )
        )
    return Replay(
        id=table.id,
        game=record.game,
        players=list(record.players),
        seats=list(table.seats),
        options=dict(record.options),
        result=table.result(),  # a game ended early: its own result
        steps=steps,
    )


def keep(cache: OrderedDict[K, V], key: K, value: V, most: int) -> V:
    """``value`` kept in ``cache`` as the most recently read, forgetting the least recently
    read entries beyond ``most``."""
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > most:
        cache.popitem(last=False)
    return value


@dataclass(eq=False)
class Archive:
    """The server's reading of games: lobby pages, records, replays, histories, past boards."""

    store: Store
    runtime: Runtime
    tables: Tables
    limits: Limits
    lobby_cache: LobbyCache = field(default_factory=dict)
    replays: OrderedDict[tuple[str, int | None], Replay] = field(default_factory=OrderedDict)
    histories: OrderedDict[tuple[str, int], list[Step]] = field(default_factory=OrderedDict)
    boards: OrderedDict[tuple[str, int, int, int | None], PastBoard] = field(
        default_factory=OrderedDict
    )

    async def lobby(
        self,
        status: str | None,
        cursor: str | None,
        limit: int,
        where: LobbyFilter | None = None,
    ) -> LobbyPage:
        """One page of listed games, most recently active first, those ``where`` keeps;
        ``next`` pages on."""
        before: tuple[float, str] | None = None
        if cursor:
            updated, _, last_id = cursor.partition("~")
            try:
                before = (float(updated), last_id)
            except ValueError:
                raise bad_request("'before' must be the 'next' of a lobby page") from None
        key = (status, cursor, limit, where)
        cached = self.lobby_cache.get(key)
        now = time.monotonic()
        if cached is not None and now - cached[0] < LOBBY_SECONDS:
            return cached[1]
        rows = await self.runtime.db(self.store.lobby.list_games, limit, before, status, where)
        games: list[Mapping[str, object]] = []
        for row in rows:
            table = self.tables.loaded.get(row["id"])
            games.append(table.summary() if table is not None else {**row, "to_move": None})
        last = rows[-1] if len(rows) == limit else None
        page = LobbyPage(
            games=games,
            next=f"{last['updated']!r}~{last['id']}" if last is not None else None,
        )
        if len(self.lobby_cache) > LOBBY_PAGES:
            self.lobby_cache.clear()
        self.lobby_cache[key] = (now, page)
        return page

    def record(self, table: Table, token: str | None) -> KnownRecord:
        """The full record once the game is over; before that, the record a seat may know."""
        if table.is_over:
            return whole_record(table)
        seat, hotseat = table.authorize(token)
        if seat is None and not hotseat:
            raise forbidden(N_("the record is public once the game is over"))
        # The hot-seat screen (seat None here) is everyone's: it gets the spectators' record.
        return record_for(table, seat)

    async def replay(self, table: Table, seat: int | None) -> Replay:
        """Every step of a finished game: the action, its events and the view after it."""
        if not table.is_over:
            raise forbidden(N_("the replay opens once the game is over"))
        if seat is not None and not 0 <= seat < len(table.seats):
            raise bad_request(f"no seat {seat}")
        key = (table.id, seat)
        found = self.replays.get(key)
        if found is None:
            built: Replay = await self.runtime.engine(replay_of, table, seat)
            found = built
        kept = keep(self.replays, key, found, self.limits.replay_cache)
        return {**kept, "names": table.shown_names(), "private": table.private}

    async def history(self, table: Table, viewer: int | None) -> History:
        """Every action that counts so far, as ``viewer`` may know it (see
        :mod:`cradle.server.history`); built once per version and kept like replays."""
        key = (table.id, table.version)
        steps = self.histories.get(key)
        if steps is None:
            record, seats = snapshot(table)
            steps = await self.runtime.engine(
                replay_steps, record, seats, list(table.action_standins)
            )
        keep(self.histories, key, steps, self.limits.replay_cache)
        shown = history_for(table.game, steps, viewer)
        return History(
            id=table.id,
            game=table.game,
            players=list(table.record.players),
            seats=list(table.seats),
            seat=viewer,
            version=table.version,
            moves=len(steps),
            steps=shown["steps"],
            pieces=shown["pieces"],
            names=table.shown_names(),
        )

    async def board(self, table: Table, ply: int, viewer: int | None) -> BoardAfter:
        """``viewer``'s view of the board after ``ply`` actions (0: the start)."""
        if not 0 <= ply <= table.ply:
            raise bad_request(f"'ply' must be between 0 and {table.ply}, the moves made")
        key = (table.id, table.version, ply, viewer)
        found = self.boards.get(key)
        if found is None:
            record, seats = snapshot(table)
            built: PastBoard = await self.runtime.engine(
                board_at, record, seats, ply, viewer, list(table.action_standins)
            )
            found = built
        keep(self.boards, key, found, self.limits.replay_cache)
        return BoardAfter(
            id=table.id,
            game=table.game,
            players=list(table.record.players),
            seats=list(table.seats),
            ply=found["ply"],
            seat=found["seat"],
            step=found["step"],
            pieces=found["pieces"],
            view=found["view"],
            to_move=found["to_move"],
        )
