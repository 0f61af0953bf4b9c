"""Turn-based tables and games that end before their rules end them: a seat concedes, the
others end a game without a seat whose deadline passed (or let its stand-in bot play for it
until its person comes back: the bot plays each of its turns whose deadline passes, until the
person moves or says they are back), a table nobody moved on for three deadlines ends by
itself, and a creator removes a table before it begins. The deadlines are watched from the
database (:meth:`Turns.stand_in_lapsed`, :meth:`Turns.end_idle`): a process handles them
whether or not it has the table loaded.

Every ending is one compare-and-set on the game's version (:meth:`PlayStore.end_early`): of two
processes ending a game, or a move and an ending, exactly one is stored; the other reads the
game again and decides anew on what it finds.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from cradle.server.bots import decision_cost
from cradle.server.errors import ApiError, forbidden, unavailable
from cradle.server.events import Changed, Events
from cradle.server.limits import Limits
from cradle.server.runtime import Runtime
from cradle.server.seats import WRITE_ATTEMPTS
from cradle.server.store import Store
from cradle.server.store.errors import DATABASE_ERRORS, Conflict
from cradle.server.store.plays import EndChange, ReturnChange, StandInChange
from cradle.server.table import Table
from cradle.server.tables import Tables

log = logging.getLogger("cradle.server")

T = TypeVar("T")


def early_result(standings: list[dict[str, Any]], out: int, ended_by: str) -> list[dict[str, Any]]:
    """The result of a game ended with seat ``out`` leaving (``ended_by``): the others keep
    their order of the standings at that moment (ties share a place), ``out`` is last."""
    others = [line for line in standings if line["seat"] != out]
    result = []
    for line in standings:
        line = dict(line)
        if line["seat"] == out:
            line["place"] = len(others) + 1
            line["out"] = ended_by
        else:
            line["place"] = 1 + sum(1 for other in others if other["place"] < line["place"])
        result.append(line)
    return result


class Turns:
    """Concessions, deadlines passed, idle tables and removed ones."""

    def __init__(
        self,
        store: Store,
        runtime: Runtime,
        tables: Tables,
        events: Events,
        limits: Limits,
        clock: Callable[[], float],
    ) -> None:
        self.store = store
        self.runtime = runtime
        self.tables = tables
        self.events = events
        self.limits = limits
        self.clock = clock  # the time deadlines are judged by (tests set another)

    async def seat_of(self, table: Table, token: str | None, what: str) -> int:
        """The seat of ``token`` (a player's own seat: not a spectator, not the hot seat)."""
        seat, hotseat = await self.tables.identify(table, token)
        if hotseat:
            raise forbidden(f"{what} needs a seat's own token, not the hot-seat screen's")
        if seat is None:
            raise forbidden(f"{what} needs the token of a seat of this game")
        return seat

    async def _write(
        self, table: Table, check: Callable[[], None], store: Callable[[], Awaitable[float]]
    ) -> float:
        """Under the table's lock: ``check`` the rules on the table as it is, then ``store``;
        when another process changed the game first, read it again and check again."""
        for _attempt in range(WRITE_ATTEMPTS):
            if table.ended is not None:
                raise self.tables.gone(table)
            check()
            try:
                return await store()
            except Conflict:
                await self.tables.reload(table)
            except DATABASE_ERRORS as exc:
                log.error("game %s: %s", table.id, exc)
                raise unavailable(exc, "the change could not be stored") from None
        raise ApiError(503, "the game keeps changing; try again")

    async def end_early(
        self, table: Table, out: Callable[[], int], ended_by: str, check: Callable[[], None]
    ) -> None:
        """End ``table`` with the seat ``out()`` last (``ended_by``: how), once ``check``
        passes on the table as stored."""
        async with table.lock:
            result: list[dict[str, Any]] = []

            def checked() -> None:
                if table.is_over:
                    raise forbidden("the game is over")
                check()

            async def store() -> float:
                standings = [dict(line) for line in table.result()]
                result[:] = early_result(standings, out(), ended_by)
                change = EndChange(table.id, table.version, result, ended_by)
                return await self.runtime.db(self.store.plays.end_early, change)

            updated = await self._write(table, checked, store)
            table.ended_by, table.early_result = ended_by, result
            table.standin, table.deadline, table.away = None, None, set()
            table.moved_on([], updated)
            self.events.publish(Changed(table, "end"))

    async def concede(self, table: Table, token: str | None) -> None:
        """``POST /concede``: the seat of ``token`` gives up; the game ends with it last."""
        seat = await self.seat_of(table, token, "conceding")
        await self.end_early(table, lambda: seat, "conceded", lambda: None)

    def overdue(self, table: Table, seat: int) -> int:
        """The seat whose deadline passed, which ``seat`` may act about; 403 saying why not."""
        if table.mode != "turn":
            raise forbidden("only turn-based tables have deadlines")
        if table.is_over:
            raise forbidden("the game is over")
        late = table.to_move()
        if late is None or table.bot_turn():
            raise forbidden("a bot decides now")
        if late == seat:
            raise forbidden("it is your own turn: play it")
        if not table.claimed.get(late, True):
            raise forbidden("the seat deciding now has not been taken yet")
        if table.deadline is None or self.clock() < table.deadline:
            raise forbidden(f"{table.record.players[late]}'s deadline has not passed yet")
        return late

    async def timeout(self, table: Table, token: str | None, choice: str) -> None:
        """``POST /timeout``: another player of a seat whose deadline passed lets its stand-in
        bot play for it until its person comes back (``bot``), or ends the game without it
        (``end``)."""
        seat = await self.seat_of(table, token, "acting on a deadline")
        if choice == "end":
            await self.end_early(table, lambda: self.overdue(table, seat), "timeout", lambda: None)
            return
        async with table.lock:
            late: list[int] = []

            def check() -> None:
                late[:] = [self.overdue(table, seat)]

            async def store() -> float:
                return await self._stand_in(table, late[0], table.away | {late[0]})

            updated = await self._write(table, check, store)
            self._stood_in(table, late[0], table.away | {late[0]}, updated)

    async def _stand_in(self, table: Table, late: int, away: set[int]) -> float:
        cost = decision_cost(
            table.playing(late), table.state, table.bot_seconds, self.limits.bot_seconds
        )
        change = StandInChange(table.id, table.version, late, cost, frozenset(away))
        return await self.runtime.db(self.store.plays.stand_in, change)

    def _stood_in(self, table: Table, late: int, away: set[int], updated: float) -> None:
        table.standin, table.deadline, table.away = late, None, away
        table.moved_on([], updated)
        self.events.publish(Changed(table, "standin"))

    async def come_back(self, table: Table, token: str | None) -> None:
        """``POST /return``: the seat of ``token`` is back: its stand-in stops playing for it
        (the turn it was playing, if any, is the person's again, with a fresh deadline)."""
        seat = await self.seat_of(table, token, "coming back")
        async with table.lock:
            deciding: list[bool] = []

            def check() -> None:
                if table.is_over:
                    raise forbidden("the game is over")
                if seat not in table.away:
                    raise forbidden("no stand-in plays for your seat")
                deciding[:] = [table.standin == seat]

            async def store() -> float:
                change = ReturnChange(
                    table.id, table.version, seat, frozenset(table.away - {seat}), deciding[0]
                )
                return await self.runtime.db(self.store.plays.come_back, change)

            updated = await self._write(table, check, store)
            table.away = table.away - {seat}
            if deciding[0]:
                table.standin = None
                table.clock_moved(updated)
            table.moved_on([], updated)
            self.events.publish(Changed(table, "return"))

    async def stand_in_lapsed(self, now: float | None = None) -> list[str]:
        """Let the stand-in play where the deadline of a seat away passed before ``now``
        (read from the database: the table need not be loaded); the games' ids. Safe with
        several processes: each is a compare-and-set, the loser meets the turn taken."""
        now = self.clock() if now is None else now
        played = []
        for game_id in await self.runtime.db(self.store.games.lapsed_away, now):
            try:
                table = await self.tables.fresh(await self.tables.table(game_id))
                await self._lapsed(table, now)
            except ApiError:
                continue  # moved, back, ended or set aside meanwhile
            played.append(game_id)
        if played:
            log.info("stand-ins play for %d seats away whose deadline passed", len(played))
        return played

    async def _lapsed(self, table: Table, now: float) -> None:
        """The stand-in of the seat away that decides at ``table`` plays: its deadline passed."""
        async with table.lock:
            late: list[int] = []

            def check() -> None:
                seat = table.to_move()
                if table.mode != "turn" or table.is_over or seat is None:
                    raise forbidden("no turn to play")
                if seat not in table.away or table.bot_turn():
                    raise forbidden("the seat deciding is not away")
                if table.deadline is None or table.deadline >= now:
                    raise forbidden("moved on meanwhile")
                late[:] = [seat]

            async def store() -> float:
                return await self._stand_in(table, late[0], table.away)

            updated = await self._write(table, check, store)
            self._stood_in(table, late[0], table.away, updated)

    async def remove(self, table: Table, token: str | None) -> None:
        """``DELETE /api/games/{id}``: the creator removes a table nobody has moved at yet."""
        seat, hotseat = await self.tables.identify(table, token)
        creator = hotseat or (seat is not None and seat == table.creator)
        if not creator:
            raise forbidden("only the table's creator may remove it")
        async with table.lock:

            def check() -> None:
                if table.ply > 0 or table.is_over:
                    raise forbidden("the game has begun: concede instead")

            async def store() -> float:
                return await self.runtime.db(self.store.plays.remove, table.id, table.version)

            await self._write(table, check, store)
        await self.tables.end(table.id, "removed")

    async def end_idle(self, now: float | None = None) -> list[str]:
        """End the turn-based games nobody moved in for three of their deadlines before
        ``now``, the seat deciding then last (``abandoned``); their ids. Safe with several
        processes: each ending is a compare-and-set, the loser meets the game already over."""
        now = self.clock() if now is None else now
        ended = []
        for game_id in await self.runtime.db(self.store.games.idle_turn_games, now):
            try:
                table = await self.tables.fresh(await self.tables.table(game_id))

                def idle(table: Table = table) -> None:
                    if table.mode != "turn" or table.deadline_s is None:
                        raise forbidden("not a turn-based table")
                    if table.updated + 3 * table.deadline_s >= now:
                        raise forbidden("moved on meanwhile")

                def out(table: Table = table) -> int:
                    seat = table.to_move()
                    return 0 if seat is None else seat

                await self.end_early(table, out, "abandoned", idle)
            except ApiError:
                continue  # ended, moved or set aside meanwhile
            ended.append(game_id)
        if ended:
            log.info("%d turn-based games nobody moved in ended", len(ended))
        return ended
