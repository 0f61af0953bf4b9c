"""A table in play: the frames each seat and screen is shown, moves and their undo, and
publishing each stored change to the table's WebSocket clients.

A move is applied to a clone of the state, stored (naming the version it expects), and only
then published by swapping the clone in; a write that meets another process's change reads the
table again and decides anew. What a seat sees of an action always goes through
:func:`cradle.server.redact.public_action`; the games are reached only through the contract.
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
from typing import Any, TypeVar

from cradle.server.bots import decision_cost
from cradle.server.errors import ApiError, bad_request, forbidden, unavailable
from cradle.server.events import Changed, Events
from cradle.server.limits import Limits
from cradle.server.redact import public_action, public_events
from cradle.server.runtime import Runtime
from cradle.server.seats import WRITE_ATTEMPTS
from cradle.server.store import Store
from cradle.server.store.errors import DATABASE_ERRORS, Conflict, CorruptGame
from cradle.server.store.notices import turn_begins
from cradle.server.store.plays import MoveChange, UndoChange
from cradle.server.table import (
    MAX_ACTION_LENGTH,
    Connection,
    Table,
    hints_allowed,
    replay_record,
    snapshot,
    undo_event,
)
from cradle.server.tables import Tables

log = logging.getLogger("cradle.server")

T = TypeVar("T")
# Why a seat's connection closes when its token was replaced (the seat moved to another device).
MOVED_AWAY = "this seat is played on another device now"


class Session:
    """Play at the tables: frames, moves, undo and their publication."""

    def __init__(
        self, store: Store, runtime: Runtime, tables: Tables, events: Events, limits: Limits
    ) -> None:
        self.store = store
        self.runtime = runtime
        self.tables = tables
        self.events = events
        self.limits = limits

    def frame(self, table: Table, seat: int | None, hotseat: bool = False) -> dict[str, Any]:
        """What ``seat`` may see (a spectator: ``None``), with its legal actions if it decides."""
        if hotseat:
            seat = table.hotseat_seat()
        state = table.state
        to_move = table.to_move()
        view = dict(state.view(seat))
        deciding = seat is not None and to_move == seat
        meta = table.summary()
        last = None
        if table.record.actions:
            mover = table.action_seats[-1]
            action = public_action(table.game, table.record.actions[-1], mover, seat)
            last = {"seat": mover, "action": action}
        meta.update(
            {
                "version": table.version,
                "seat": seat,
                "screen": "hotseat" if hotseat else ("seat" if seat is not None else "spectator"),
                "events": public_events(table.game, table.events, seat),
                "last": last,
                "can_undo": seat is not None and self.can_undo(table, seat),
                "hints": hints_allowed(table),
                "spectator_chat": table.spectator_chat,
                "result": table.result() if table.is_over else None,
            }
        )
        view.update(
            {
                "to_move": to_move,
                "legal_actions": list(state.legal_actions()) if deciding else [],
                "table": meta,
            }
        )
        return view

    def publish(self, change: Changed) -> None:
        """Push ``change``'s table to its clients (each sees its own frame)."""
        self.broadcast(change.table)

    def broadcast(self, table: Table) -> None:
        texts: dict[tuple[int | None, bool], str] = {}
        for connection in list(table.connections):
            if connection.lost_seat(table):
                # Closed: it reconnects with its old token and is told it no longer holds it.
                connection.close(MOVED_AWAY)
                table.connections.discard(connection)
                continue
            key = (connection.seat, connection.hotseat)
            if key not in texts:
                frame = self.frame(table, connection.seat, connection.hotseat)
                frame["type"] = "view"
                texts[key] = json.dumps(frame, separators=(",", ":"))
            if not connection.push(texts[key]):
                log.warning("closing a slow client of game %s", table.id)
                table.connections.discard(connection)

    # -- moves --------------------------------------------------------------------------------

    async def act(self, table: Table, token: str | None, action: object) -> int:
        """A move for the seat holding ``token``; returns that seat."""
        seat = await self.tables.mover_of(table, token, "a move")
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
            checked = not self.store.shared
            for _attempt in range(WRITE_ATTEMPTS):
                if bot_version is not None and table.version != bot_version:
                    return False
                before = table.state
                after = before.clone()
                try:
                    if table.ended is not None:
                        raise self.tables.gone(table)
                    if table.is_over:
                        raise forbidden("the game is over")
                    if table.to_move() != seat:
                        raise forbidden(f"it is not seat {seat}'s decision")
                    try:
                        events = after.apply(action)
                    except ValueError as exc:  # IllegalAction is one
                        raise bad_request(str(exc) or "illegal action") from None
                except ApiError:
                    if checked:
                        raise
                    checked = True
                    await self.tables.reload(table)
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
                change = MoveChange(
                    game_id=table.id,
                    ply=table.ply,
                    version=table.version,
                    seat=seat,
                    action=action,
                    status=status,
                    result=result,
                    bot_turn=table.bot_turn(after, standin),
                    bot_cost=decision_cost(
                        playing, after, table.bot_seconds, self.limits.bot_seconds
                    ),
                    analyse=after.is_over and self.analysed(table),
                    person=person,
                    clock=clock,
                    standin=standin,
                    turn_based=table.mode == "turn",
                    begins=begins,
                    away=None if away is None else frozenset(away),
                )
                try:
                    updated = await self.runtime.db(self.store.plays.move, change)
                except Conflict:
                    checked = True
                    await self.tables.reload(table)  # another process moved: decide again
                    continue
                except DATABASE_ERRORS as exc:
                    log.error("game %s: %s", table.id, exc)
                    raise unavailable(exc, "the move could not be stored") from None
                table.follow(before, action)
                table.previous = before
                table.state = after
                table.standin = standin
                if away is not None:
                    table.away = away
                table.record.actions.append(action)
                table.action_seats.append(seat)
                table.clock_moved(updated)
                table.moved_on(list(events or []), updated)
                self.events.publish(Changed(table, "move"))
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
        seat = await self.tables.mover_of(table, token, "an undo")
        async with table.lock:
            checked = not self.store.shared
            for _attempt in range(WRITE_ATTEMPTS):
                if table.ended is not None:
                    raise self.tables.gone(table)
                reason = self._undo_reason(table, seat)
                if reason is not None:
                    if checked:
                        raise forbidden(f"cannot undo: {reason}")
                    checked = True
                    await self.tables.reload(table)  # this copy may be behind another process
                    continue
                before = table.previous
                assert before is not None  # _undo_reason refuses an undo without it
                change = UndoChange(
                    game_id=table.id,
                    ply=table.ply,
                    version=table.version,
                    status="running" if not table.open_seats() else "open",
                    bot_turn=table.bot_turn(before, None),
                    bot_cost=decision_cost(
                        table.seats, before, table.bot_seconds, self.limits.bot_seconds
                    ),
                )
                try:
                    updated = await self.runtime.db(self.store.plays.undo, change)
                except Conflict:
                    checked = True
                    await self.tables.reload(table)
                    continue
                except DATABASE_ERRORS as exc:
                    log.error("game %s: %s", table.id, exc)
                    raise unavailable(exc, "the undo could not be stored") from None
                undone = table.record.actions.pop()
                table.action_seats.pop()
                table.belief = None  # it read the action taken back
                table.state = before
                table.standin = None
                table.clock_moved(updated)
                # The state before that is not kept: a second undo in a row replays the record.
                table.previous = None
                table.moved_on([undo_event(table, seat, undone)], updated)
                self.events.publish(Changed(table, "undo"))
                break
            else:
                raise ApiError(503, "the game keeps changing; try again")
            if table.previous is None and table.record.actions:
                record, _ = snapshot(table)
                with contextlib.suppress(CorruptGame):
                    table.previous = (await self.runtime.engine(replay_record, record)).previous

    def analysed(self, table: Table) -> bool:
        """A finished game is analysed by itself when a person played in it (unless the
        operator turned that off: ``Limits.analyse_finished``)."""
        return self.limits.analyse_finished and any(kind == "human" for kind in table.seats)

    def attach(self, table: Table, connection: Connection) -> None:
        if connection.lost_seat(table):  # moved away since the token was checked
            connection.close(MOVED_AWAY)
            return
        table.connections.add(connection)
        frame = self.frame(table, connection.seat, connection.hotseat)
        frame["type"] = "view"
        connection.push(json.dumps(frame, separators=(",", ":")))

    def detach(self, table: Table, connection: Connection) -> None:
        table.connections.discard(connection)
