"""The tables one process serves (:class:`Tables`): loaded from the database on first use,
cached, brought up to the stored version (another process's write, heard by ``LISTEN`` on
PostgreSQL), the games whose rows cannot be read back set aside; and which seat a request's
token holds (:meth:`Tables.identify`), asked again of the database when this copy may be behind.

A table's ``state`` is never mutated: a move is applied to a clone, stored, and only then
published by swapping the clone in, so readers need no lock. A table's lock orders its
changes; different tables never wait for each other.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from cradle.core.lessons import LESSON_OPTION
from cradle.core.words import N_
from cradle.server.errors import ApiError, forbidden
from cradle.server.events import Changed, Events
from cradle.server.runtime import Runtime
from cradle.server.store import Store
from cradle.server.store.database import NOTIFY_CHANNEL, Notice
from cradle.server.store.errors import DATABASE_ERRORS, CorruptGame
from cradle.server.store.schema import ENDED
from cradle.server.table import Rebuilt, Table, build_table, replay_record, undo_event

log = logging.getLogger("cradle.server")

MAX_LOADED = 2000  # tables kept in memory (idle ones are dropped first; the database keeps all)


@dataclass(eq=False)
class Tables:
    """The tables this process serves: loaded from the database on first use and kept (the
    least recently used idle ones dropped beyond MAX_LOADED), brought up to the stored version
    (another process's write, heard by ``LISTEN`` on PostgreSQL), and the games whose rows
    cannot be read back set aside."""

    store: Store
    runtime: Runtime
    events: Events
    unplayed_minutes: float  # a game nobody played in expires after it
    loaded: OrderedDict[str, Table] = field(default_factory=OrderedDict)
    loading: dict[str, asyncio.Future[Table]] = field(default_factory=dict)
    broken: dict[str, str] = field(default_factory=dict)  # game id -> why it is set aside

    def set_aside(self, game_id: str, reason: str) -> ApiError:
        """Serve the game no more (its stored rows cannot be read back); the answer its URLs
        give from now on."""
        if game_id not in self.broken:
            log.error("game %s is set aside, it cannot be restored: %s", game_id, reason)
        self.broken[game_id] = reason
        self.loaded.pop(game_id, None)
        return ApiError(503, f"game {game_id} cannot be restored: {reason}")

    # -- loading tables -----------------------------------------------------------------------

    async def table(self, game_id: str) -> Table:
        """The table ``game_id``, loaded from the database if it is not in memory."""
        found = self.loaded.get(game_id)
        if found is not None:
            self.loaded.move_to_end(game_id)
            if found.ended is not None:
                raise self.gone(found)
            return found
        if game_id in self.broken:
            raise ApiError(503, f"game {game_id} cannot be restored: {self.broken[game_id]}")
        if len(game_id) > 40:
            raise ApiError(404, N_("no such game"))
        pending = self.loading.get(game_id)
        if pending is None:
            pending = asyncio.get_running_loop().create_future()
            self.loading[game_id] = pending
            try:
                loaded = await self._load(game_id)
            except asyncio.CancelledError:
                pending.cancel()
                raise
            except Exception as exc:
                pending.set_exception(exc)
                pending.exception()  # retrieved: nobody else may be waiting
            else:
                pending.set_result(loaded)
            finally:
                del self.loading[game_id]
        table = await asyncio.shield(pending)
        if table.ended is not None:
            raise self.gone(table)
        return table

    def gone(self, table: Table) -> ApiError:
        """The answer for a game that ended without a result: 410 with the reason."""
        if table.ended == "reclaimed" and LESSON_OPTION in table.record.options:
            return ApiError(
                410, f"lesson table {table.id} has ended: the same browser started newer lessons"
            )
        if table.ended == "reclaimed":
            return ApiError(
                410,
                f"game {table.id} has ended: this server was full, and its creator held the most "
                "games in progress there",
            )
        if table.ended == "removed":
            return ApiError(410, f"game {table.id} was removed by its creator before it began")
        minutes = self.unplayed_minutes
        return ApiError(
            410, f"game {table.id} has expired: nobody played in it for {minutes:g} minutes"
        )

    async def end(self, game_id: str, status: str) -> None:
        """This process ended the game ``game_id`` in the database (its version moved on by
        one): a copy in memory says so to its clients and closes their connections."""
        table = self.loaded.get(game_id)
        if table is None:
            return
        async with table.lock:
            if table.ended is None:
                table.ended = status
                table.moved_on(None, table.updated)
                self.events.publish(Changed(table, status))

    def close_ended(self, change: Changed) -> None:
        """After a change that ended the table without a result: close its connections (the
        frames that say so are sent first)."""
        if change.table.ended is not None:
            self.close_all(change.table)

    def close_all(self, table: Table) -> None:
        """Close every connection to an ended table, after the view that says so (a client
        that comes back is told why: 410)."""
        reason = self.gone(table).reason
        for connection in list(table.connections):
            connection.close_reason = reason
            connection.queue.put_nowait(None)
        table.connections.clear()

    async def _load(self, game_id: str) -> Table:
        try:
            stored = await self.runtime.db(self.store.games.load, game_id)
            if stored is None:
                raise ApiError(404, f"no game {game_id!r}")
            table = await self.runtime.engine(build_table, stored)
        except CorruptGame as exc:
            raise self.set_aside(game_id, exc.reason) from None
        if table.is_over and stored.status not in ("over", *ENDED) and not self.store.read_only:
            # Stored before its last status update could be written.
            await self.runtime.db(self.store.games.set_status, game_id, "over")
        self.loaded[game_id] = table
        self.evict()
        return table

    def evict(self) -> None:
        """Forget the least recently used idle tables beyond MAX_LOADED (they reload on use)."""
        for game_id in list(self.loaded)[: max(0, len(self.loaded) - MAX_LOADED)]:
            table = self.loaded[game_id]
            if not table.connections and not table.bot_busy and not table.lock.locked():
                del self.loaded[game_id]

    async def fresh(self, table: Table) -> Table:
        """``table`` brought up to the stored version (a shared database: another process may
        have changed it a moment ago and its notice may still be on the way)."""
        if self.store.shared:
            try:
                stored = await self.runtime.db(self.store.games.version_of, table.id)
                if stored is not None and stored > table.version:
                    async with table.lock:
                        await self.reload(table)
            except CorruptGame as exc:
                raise self.set_aside(table.id, exc.reason) from None
            except DATABASE_ERRORS as exc:
                # The database cannot be asked: this copy is the latest this process can know,
                # and a view of it is better than none (writes answer 503 meanwhile).
                log.warning("game %s served from memory: %s", table.id, exc)
        if table.ended is not None:
            raise self.gone(table)
        return table

    async def reload(self, table: Table) -> None:
        """Read the table back from the database (under its lock) and publish what changed;
        ApiError (503) when the stored game has become unreadable: it is set aside."""
        try:
            stored = await self.runtime.db(self.store.games.load, table.id)
        except CorruptGame as exc:
            raise self.set_aside(table.id, exc.reason) from None
        if stored is None or stored.version <= table.version:
            return
        known = table.record.actions
        if stored.actions[: len(known)] == known and len(stored.actions) > len(known):
            state = table.state.clone()  # only moves were added: apply them
            previous, events = table.state, table.events
            added = zip(
                stored.actions[len(known) :], stored.action_seats[len(known) :], strict=True
            )
            try:
                for action, seat in added:
                    if state.is_over or int(state.to_move) != seat:
                        raise ValueError("stored for a seat that did not decide")
                    previous = state.clone()
                    events = list(state.apply(action) or [])
            except Exception:
                raise self.set_aside(
                    table.id, f"its move {len(known) + 1} or a later one does not replay"
                ) from None
            rebuilt = Rebuilt(state, previous, events)
        elif stored.actions == known:
            rebuilt = Rebuilt(table.state, table.previous, table.events)
        else:  # an undo elsewhere: replay from the start
            record = stored.record()
            try:
                rebuilt = await self.runtime.engine(
                    replay_record, record, list(stored.action_seats)
                )
            except CorruptGame as exc:
                raise self.set_aside(table.id, exc.reason) from None
            if len(stored.actions) < len(known):
                undone = known[len(stored.actions)]
                seat = table.action_seats[len(stored.actions)]
                rebuilt.events = [undo_event(table, seat, undone)]
        table.record.actions = list(stored.actions)
        table.action_seats = list(stored.action_seats)
        table.action_standins = list(stored.action_standins)
        table.state, table.previous = rebuilt.state, rebuilt.previous
        table.tokens, table.claimed = dict(stored.tokens), dict(stored.claimed)
        table.names, table.accounts = dict(stored.names), dict(stored.accounts)
        table.invites = dict(stored.invites)
        table.invite_expires = dict(stored.invite_expires)
        table.version, table.updated = stored.version, stored.updated
        table.deadline, table.standin = stored.deadline, stored.standin
        table.standins = dict(stored.standins)
        table.away = set(stored.away)
        table.ended_by = stored.ended_by
        table.early_result = stored.result if stored.ended_by is not None else None
        table.events = rebuilt.events
        if stored.status in ENDED:
            table.ended = stored.status
        self.events.publish(Changed(table, "heard", here=False))

    def _refresh_soon(self, table: Table, notice: Notice | None = None) -> None:
        """Bring ``table`` up to date in the background, notices in the order they came: a
        move the table can take as it is is applied from the notice itself, anything else
        (an undo, a seat taken, a notice missed) reads the game again."""
        table.notices.append(notice)
        if table.refresh_task is not None and not table.refresh_task.done():
            return

        async def refresh() -> None:
            try:
                while table.notices:
                    found = table.notices.pop(0)
                    async with table.lock:
                        if found is None or not self._take_move(table, found):
                            await self.reload(table)
            except ApiError:
                pass  # set aside (and logged) as it was read
            except DATABASE_ERRORS as exc:
                log.warning("game %s: reloading failed: %s", table.id, exc)
            except Exception:
                log.exception("game %s: reloading failed", table.id)

        table.refresh_task = asyncio.ensure_future(refresh())

    def _take_move(self, table: Table, notice: Notice) -> bool:
        """Apply the move another process stored, as its notice describes it; False when the
        notice is not the very next change of this copy (then the game is read again)."""
        if notice.version <= table.version:
            return True  # this copy has it already
        move = notice.added_move()
        if move is None or notice.version != table.version + 1 or move[0] != table.ply:
            return False
        _ply, seat, action = move
        if seat != table.state.to_move or table.ended_by is not None or seat in table.away:
            return False  # (a seat away: its person or its stand-in moved? read it again)
        if table.standin == seat:
            return False  # its stand-in moved: the log says so, as stored
        if table.clock_base_s is not None:
            return False  # a live table's clocks: read as stored
        after = table.state.clone()
        try:
            events = list(after.apply(action) or [])
        except ValueError:
            return False
        table.standin = table.standin_after(seat, after)
        table.previous, table.state = table.state, after
        table.record.actions.append(action)
        table.action_seats.append(seat)
        table.action_standins.append(None)
        table.clock_moved(notice.updated)
        table.moved_on(events, notice.updated)
        self.events.publish(Changed(table, "move", here=False))
        return True

    # -- who a token is -----------------------------------------------------------------------

    def mover(self, table: Table, token: str | None, what: str) -> int:
        """The seat ``token`` may act for now (the hot-seat screen: the deciding human)."""
        seat, hotseat = table.authorize(token)
        if hotseat:
            seat = table.hotseat_seat()
            if seat is None:
                raise forbidden(N_("no human at this table decides now"))
        if seat is None:
            raise forbidden(f"{what} needs the token of the seat that decides")
        return seat

    async def identify(self, table: Table, token: str | None) -> tuple[int | None, bool]:
        """:meth:`Table.authorize`, after reading the table again if this copy does not know
        the token (a shared database: the seat may have been joined on another process)."""
        try:
            return table.authorize(token)
        except ApiError:
            if not self.store.shared:
                raise
        await self.fresh(table)
        return table.authorize(token)

    async def mover_of(self, table: Table, token: str | None, what: str) -> int:
        """:meth:`mover`, reading the table again before refusing (see :meth:`identify`)."""
        try:
            return self.mover(table, token, what)
        except ApiError:
            if not self.store.shared:
                raise
        await self.fresh(table)
        return self.mover(table, token, what)

    # -- other processes (PostgreSQL) ---------------------------------------------------------

    async def listen(self, hear: Callable[[str], None]) -> None:
        """Hear every process's writes and bring the tables this process serves up to date;
        ``hear``: what a chat line's, a mute's or an account's notice goes to."""
        import psycopg

        conninfo = self.store.database.listen_conninfo()
        while not self.runtime.closing:
            try:
                connection = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
                async with connection:
                    await connection.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    for loaded in list(self.loaded.values()):  # what was missed meanwhile
                        self._refresh_soon(loaded)
                    async for note in connection.notifies():
                        if note.payload.startswith(("chat ", "mute ", "account ")):
                            hear(note.payload)  # a chat line, a mute, an account told elsewhere
                            continue
                        notice = Notice.parse(note.payload)
                        if notice is None or notice.origin == self.store.origin:
                            continue  # this process's own write: its table has it already
                        table = self.loaded.get(notice.game_id)
                        if table is not None and notice.version > table.version:
                            self._refresh_soon(table, notice)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("listening for other servers' changes failed (%s); again in 1 s", exc)
                await asyncio.sleep(1.0)
