"""A table in play: the frames each seat and screen is shown, the moves and undos asked for
(stored by :mod:`cradle.server.referee`, the one path of every change), and the frames pushed
to the table's WebSocket clients after each change.

What a seat sees of an action always goes through :func:`cradle.server.redact.public_action`;
the games are reached only through the contract.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from cradle.server import frames
from cradle.server.answers import MergedFrame, TableFrame
from cradle.server.errors import ApiError, bad_request
from cradle.server.events import Changed
from cradle.server.referee import Referee, rule_presence, undo_reason
from cradle.server.table import Connection, Table, hints_allowed
from cradle.server.tables import Tables

log = logging.getLogger("cradle.server")

# Why a seat's connection closes when its token was replaced (the seat moved to another device).
MOVED_AWAY = "this seat is played on another device now"


@dataclass(eq=False)
class Play:
    """Play at the tables: frames, moves, undo and their publication."""

    tables: Tables
    referee: Referee
    closing: Callable[[], bool] = lambda: (
        False
    )  # the server is stopping: its pages closing say nothing
    marking: set[asyncio.Task[None]] = field(default_factory=set)

    def frame(
        self,
        table: Table,
        seat: int | None,
        hotseat: bool = False,
        api: int = 1,
        message: bool = False,
    ) -> MergedFrame | TableFrame:
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

    def publish(self, change: Changed) -> None:
        """Push ``change``'s table to its clients (each sees its own frame)."""
        self.broadcast(change.table)

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

    # -- moves --------------------------------------------------------------------------------

    async def act(self, table: Table, token: str | None, action: object) -> int:
        """A move for the seat holding ``token``; returns that seat."""
        seat = await self.tables.mover_of(table, token, "a move")
        if not isinstance(action, str) or not action.strip():
            raise bad_request("'action' must be a non-empty string, e.g. \"pass\"")
        await self.referee.move(table, seat, action)
        return seat

    async def undo(self, table: Table, token: str | None) -> None:
        """The seat holding ``token`` takes its last action back (the undo rule:
        :func:`cradle.server.referee.undo_reason`)."""
        seat = await self.tables.mover_of(table, token, "an undo")
        await self.referee.undo(table, seat)

    def can_undo(self, table: Table, seat: int) -> bool:
        version, known = table.undo_cache
        if version != table.version:
            known = {}
            table.undo_cache = (table.version, known)
        if seat not in known:
            known[seat] = undo_reason(table, seat) is None
        return known[seat]

    def attach(self, table: Table, connection: Connection) -> None:
        if connection.lost_seat(table):  # moved away since the token was checked
            connection.close(MOVED_AWAY)
            return
        table.connections.add(connection)
        connection.push(self.pushed(table, connection))
        if connection.seat is not None and connection.seat in table.gone:
            self._presence(table, connection.seat, None)

    def detach(self, table: Table, connection: Connection) -> None:
        table.connections.discard(connection)
        seat = connection.seat
        if seat is None or connection.hotseat or table.clock_base_s is None or self.closing():
            return
        if not any(c.seat == seat and not c.hotseat for c in table.connections):
            self._presence(table, seat, time.time())

    def _presence(self, table: Table, seat: int, gone: float | None) -> None:
        """Store (through the referee) that ``seat``'s person left at ``gone`` or is back."""

        async def mark() -> None:
            try:
                await self.referee.change(table, lambda: rule_presence(table, seat, gone))
            except ApiError:
                pass  # ended or set aside meanwhile
            except Exception:
                log.exception("game %s: storing whether seat %d is here failed", table.id, seat)

        task = asyncio.ensure_future(mark())
        self.marking.add(task)
        task.add_done_callback(self.marking.discard)
