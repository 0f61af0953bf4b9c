"""A table in play: the frames each seat and screen is shown, moves and their undo, and
publishing each stored change to the table's WebSocket clients.

A move is applied to a clone of the state, stored (naming the version it expects), and only
then published by swapping the clone in; a write that meets another process's change reads the
table again and decides anew. What a seat sees of an action always goes through
:func:`cradle.server.redact.public_action`; the games are reached only through the contract.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from cradle.core.contract import Event, IllegalAction
from cradle.server import frames
from cradle.server.answers import Frame, TableFrame
from cradle.server.assist import Analyst
from cradle.server.bots import decision_cost
from cradle.server.errors import ApiError, bad_request, forbidden, refused_action, unavailable
from cradle.server.limits import Limits
from cradle.server.mail import Notices
from cradle.server.seats import WRITE_ATTEMPTS, Seats
from cradle.server.storage import (
    DATABASE_ERRORS,
    Conflict,
    CorruptGame,
    Storage,
    turn_begins,
)
from cradle.server.tables import (
    MAX_ACTION_LENGTH,
    Connection,
    Table,
    Tables,
    replay_record,
    snapshot,
    undo_event,
)

log = logging.getLogger("cradle.server")

T = TypeVar("T")
# Why a seat's connection closes when its token was replaced (the seat moved to another device).
MOVED_AWAY = "this seat is played on another device now"


def hints_allowed(table: Table) -> bool:
    """Hints help at a hot seat and against bots, never between people at their screens."""
    if table.is_over or table.rated:
        return False
    return table.hotseat or sum(1 for kind in table.seats if kind == "human") == 1


class SessionHost(Protocol):
    """What play needs of the server (the hub is one)."""

    @property
    def storage(self) -> Storage: ...

    @property
    def limits(self) -> Limits: ...

    @property
    def served(self) -> Tables: ...

    @property
    def seats(self) -> Seats: ...

    @property
    def analyst(self) -> Analyst: ...

    @property
    def notices(self) -> Notices: ...

    @property
    def bot_wakeup(self) -> asyncio.Event: ...

    @property
    def lobby_cache(self) -> dict[tuple[Any, ...], tuple[float, dict[str, Any]]]: ...

    async def db(self, function: Callable[..., T], *args: Any) -> T: ...

    async def engine(self, function: Callable[..., T], *args: Any) -> T: ...


class Session:
    """Play at the tables: frames, moves, undo and their publication."""

    def __init__(self, host: SessionHost) -> None:
        self.host = host

    def frame(
        self,
        table: Table,
        seat: int | None,
        hotseat: bool = False,
        api: int = 1,
        message: bool = False,
    ) -> Frame | TableFrame:
        """What ``seat`` may see (a spectator: ``None``), with its legal actions if it decides,
        in the shape of version ``api`` of the API (cradle.server.frames); ``message``: as the
        WebSocket pushes it."""
        if hotseat:
            seat = table.hotseat_seat()
        can_undo = seat is not None and self.can_undo(table, seat)
        return frames.frame(table, seat, hotseat, can_undo, hints_allowed(table), api, message)

    def pushed(self, table: Table, connection: Connection) -> str:
        """The ``view`` message for ``connection``, as JSON text."""
        found = self.frame(table, connection.seat, connection.hotseat, connection.api, True)
        return found.model_dump_json(exclude_unset=True)

    def broadcast(self, table: Table) -> None:
        texts: dict[tuple[int | None, bool, int], str] = {}
        for connection in list(table.connections):
            if connection.lost_seat(table):
                # Closed: it reconnects with its old token and is told it no longer holds it.
                connection.close(MOVED_AWAY)
                table.connections.discard(connection)
                continue
            key = (connection.seat, connection.hotseat, connection.api)
            if key not in texts:
                texts[key] = self.pushed(table, connection)
            if not connection.push(texts[key]):
                log.warning("closing a slow client of game %s", table.id)
                table.connections.discard(connection)
        self.host.notices.poke(table)  # a person's turn may have begun: its mail is owed

    def changed(self, table: Table, events: list[Event] | None, updated: float) -> None:
        """This process stored a change (the database is at ``version + 1`` now): publish it."""
        table.version += 1
        table.updated = updated
        if events is not None:
            table.events = events
        self.broadcast(table)
        if table.bot_turn() and table.ended is None:
            self.host.bot_wakeup.set()

    # -- moves --------------------------------------------------------------------------------

    def mover(self, table: Table, token: str | None, what: str) -> int:
        """The seat ``token`` may act for now (the hot-seat screen: the deciding human)."""
        seat, hotseat = self.host.seats.authorize(table, token)
        if hotseat:
            seat = table.hotseat_seat()
            if seat is None:
                raise forbidden("no human at this table decides now")
        if seat is None:
            raise forbidden(f"{what} needs the token of the seat that decides")
        return seat

    async def identify(self, table: Table, token: str | None) -> tuple[int | None, bool]:
        """:meth:`authorize`, after reading the table again if this copy does not know the
        token (a shared database: the seat may have been joined on another process)."""
        try:
            return self.host.seats.authorize(table, token)
        except ApiError:
            if not self.host.storage.shared:
                raise
        await self.host.served.fresh(table)
        return self.host.seats.authorize(table, token)

    async def mover_of(self, table: Table, token: str | None, what: str) -> int:
        """:meth:`mover`, reading the table again before refusing (see :meth:`identify`)."""
        try:
            return self.mover(table, token, what)
        except ApiError:
            if not self.host.storage.shared:
                raise
        await self.host.served.fresh(table)
        return self.mover(table, token, what)

    async def act(self, table: Table, token: str | None, action: object) -> int:
        """A move for the seat holding ``token``; returns that seat."""
        seat = await self.mover_of(table, token, "a move")
        if not isinstance(action, str) or not action.strip():
            raise bad_request("'action' must be a non-empty string, e.g. \"pass\"")
        await self.play(table, seat, action)
        return seat

    async def play(
        self,
        table: Table,
        seat: int,
        action: str,
        bot_version: int | None = None,
        clock: tuple[int, float] | None = None,
    ) -> bool:
        """Apply, store, then publish ``action`` for ``seat``; False if a bot's turn went by.
        ``clock``: (seat, seconds) a bot seat has spent in its turn with this move."""
        action = " ".join(action.split())
        if len(action) > MAX_ACTION_LENGTH:
            raise bad_request(f"an action has at most {MAX_ACTION_LENGTH} characters")
        async with table.lock:
            # A shared database: before refusing, read the game again (this copy may be behind).
            checked = not self.host.storage.shared
            for _attempt in range(WRITE_ATTEMPTS):
                if bot_version is not None and table.version != bot_version:
                    return False
                before = table.state
                after = before.clone()
                try:
                    if table.ended is not None:
                        raise self.host.served.gone(table)
                    if table.is_over:
                        raise forbidden("the game is over")
                    if table.to_move() != seat:
                        raise forbidden(f"it is not seat {seat}'s decision")
                    try:
                        events = after.apply(action)
                    except IllegalAction as exc:
                        raise refused_action(exc) from None
                except ApiError:
                    if checked:
                        raise
                    checked = True
                    await self.host.served.reload(table)
                    continue
                status = "over" if after.is_over else table.status
                result = after.result() if after.is_over else None
                # A person's own move brings them back (their stand-in stops playing).
                back = bot_version is None
                standin = None if back else table.standin_after(seat, after)
                away = table.away - {seat} if back and seat in table.away else None
                playing = table.playing(standin)
                begins = turn_begins(
                    table.mode,
                    playing,
                    table.claimed,
                    seat,
                    None if after.is_over else int(after.to_move),
                    table.ply + 1,
                )
                # A person's move at a table nobody can still join: the game is being played.
                person = table.seats[seat] == "human" and status != "open"
                try:
                    updated = await self.host.db(
                        self.host.storage.append_action,
                        table.id,
                        table.ply,
                        table.version,
                        seat,
                        action,
                        status,
                        result,
                        table.bot_turn(after, standin),
                        after.is_over and self.analysed(table),
                        person,
                        clock,
                        decision_cost(
                            playing, after, table.bot_seconds, self.host.limits.bot_seconds
                        ),
                        standin,
                        table.mode == "turn",
                        begins,
                        away,
                    )
                except Conflict:
                    checked = True
                    await self.host.served.reload(table)  # another process moved: decide again
                    continue
                except DATABASE_ERRORS as exc:
                    log.error("game %s: %s", table.id, exc)
                    raise unavailable(exc, "the move could not be stored") from None
                table.previous = before
                table.state = after
                table.standin = standin
                if away is not None:
                    table.away = away
                table.record.actions.append(action)
                table.action_seats.append(seat)
                table.clock_moved(updated)
                self.changed(table, list(events or []), updated)
                if after.is_over:
                    self.host.lobby_cache.clear()
                    if self.analysed(table):
                        self.host.analyst.refill()
                break
            else:
                raise ApiError(503, "the game keeps changing; try again")
        return True

    # -- undo ---------------------------------------------------------------------------------

    def can_undo(self, table: Table, seat: int) -> bool:
        version, known = table.undo_cache
        if version != table.version:
            known = {}
            table.undo_cache = (table.version, known)
        if seat not in known:
            known[seat] = self._undo_reason(table, seat) is None
        return known[seat]

    def _undo_reason(self, table: Table, seat: int) -> str | None:
        """Why ``seat`` may not take its last action back now (None: it may).

        The rule: only the seat that decides now, only its own last action, only while no other
        seat has decided since, and only if that action revealed nothing hidden (no tile drawn,
        no hidden stack turned). The last condition is tested in two ways: the public count of
        hidden tiles (the game's ``DRAW_COUNTERS``) must not have changed, and the action is replayed on a
        few states that differ only in what ``seat`` cannot know: if the seat would see the same
        thing after it in every one, the action revealed nothing.
        """
        if table.is_over:
            return "the game is over"
        if table.rated:
            return "a rated game has no undo"
        if table.seats[seat] != "human":
            return "only people take moves back"
        if not table.record.actions or table.action_seats[-1] != seat:
            return "your last move is not the last move of the game"
        if table.to_move() != seat:
            return "another player decides now"
        before = table.previous
        if before is None or before.to_move != seat:
            return "that move cannot be taken back"
        action = table.record.actions[-1]
        seen = table.state.view(seat)
        earlier = before.view(seat)
        if any(earlier.get(key) != seen.get(key) for key in table.module.DRAW_COUNTERS):
            return "that move drew from the hidden tiles"
        for sample in range(2):
            try:
                trial = before.sample_hidden(seat, random.Random(sample))
                trial.apply(action)
                if trial.view(seat) != seen:
                    return "that move revealed hidden information"
            except Exception:
                return "that move cannot be taken back"
        return None

    async def undo(self, table: Table, token: str | None) -> None:
        seat = await self.mover_of(table, token, "an undo")
        async with table.lock:
            checked = not self.host.storage.shared
            for _attempt in range(WRITE_ATTEMPTS):
                if table.ended is not None:
                    raise self.host.served.gone(table)
                reason = self._undo_reason(table, seat)
                if reason is not None:
                    if checked:
                        raise forbidden(f"cannot undo: {reason}")
                    checked = True
                    await self.host.served.reload(table)  # this copy may be behind another process
                    continue
                before = table.previous
                assert before is not None  # _undo_reason refuses an undo without it
                try:
                    updated = await self.host.db(
                        self.host.storage.undo_action,
                        table.id,
                        table.ply,
                        table.version,
                        "running" if not table.open_seats() else "open",
                        table.bot_turn(before, None),
                        decision_cost(
                            table.seats, before, table.bot_seconds, self.host.limits.bot_seconds
                        ),
                    )
                except Conflict:
                    checked = True
                    await self.host.served.reload(table)
                    continue
                except DATABASE_ERRORS as exc:
                    log.error("game %s: %s", table.id, exc)
                    raise unavailable(exc, "the undo could not be stored") from None
                undone = table.record.actions.pop()
                table.action_seats.pop()
                table.state = before
                table.standin = None
                table.clock_moved(updated)
                # The state before that is not kept: a second undo in a row replays the record.
                table.previous = None
                self.changed(table, [undo_event(table, seat, undone)], updated)
                break
            else:
                raise ApiError(503, "the game keeps changing; try again")
            if table.previous is None and table.record.actions:
                record, _ = snapshot(table)
                with contextlib.suppress(CorruptGame):
                    table.previous = (await self.host.engine(replay_record, record)).previous

    def analysed(self, table: Table) -> bool:
        """A finished game is analysed by itself when a person played in it (unless the
        operator turned that off: ``Limits.analyse_finished``)."""
        return self.host.limits.analyse_finished and any(kind == "human" for kind in table.seats)

    def attach(self, table: Table, connection: Connection) -> None:
        if connection.lost_seat(table):  # moved away since the token was checked
            connection.close(MOVED_AWAY)
            return
        table.connections.add(connection)
        connection.push(self.pushed(table, connection))

    def detach(self, table: Table, connection: Connection) -> None:
        table.connections.discard(connection)
