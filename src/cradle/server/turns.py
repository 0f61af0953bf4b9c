"""Turn-based tables and games that end before their rules end them: a seat concedes, the
others end a game without a seat whose deadline passed (or let its stand-in bot play for it
until its person comes back: the bot plays each of its turns whose deadline passes, until the
person moves or says they are back), a table nobody moved on for three deadlines ends by
itself, a live table's clock runs out (the others then end the game without that seat or let
its stand-in play, as after a deadline), and a creator removes a table before it begins. The deadlines are watched from the
database (:meth:`Turns.stand_in_lapsed`, :meth:`Turns.end_idle`): a process handles them
whether or not it has the table loaded.

Each of these is one change through :mod:`cradle.server.referee` (one compare-and-set on the
game's version): of two processes ending a game, or a move and an ending, exactly one is
stored; the other reads the game again and decides anew on what it finds. A rated game's
ratings move with every ending, the seat that left last.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from cradle.core.words import N_
from cradle.server.errors import ApiError, forbidden
from cradle.server.referee import (
    Referee,
    Ruling,
    rule_lapse,
    rule_remove,
    rule_return,
    rule_stand_in,
)
from cradle.server.runtime import Runtime
from cradle.server.store import Store
from cradle.server.table import ABSENT_SECONDS, Table
from cradle.server.tables import Tables

log = logging.getLogger("cradle.server")


@dataclass(eq=False)
class Turns:
    """Concessions, deadlines passed, idle tables and removed ones."""

    store: Store
    runtime: Runtime
    tables: Tables
    referee: Referee
    clock: Callable[[], float]  # the time deadlines are judged by (tests set another)

    async def seat_of(self, table: Table, token: str | None, what: str) -> int:
        """The seat of ``token`` (a player's own seat: not a spectator, not the hot seat)."""
        seat, hotseat = await self.tables.identify(table, token)
        if hotseat:
            raise forbidden(f"{what} needs a seat's own token, not the hot-seat screen's")
        if seat is None:
            raise forbidden(f"{what} needs the token of a seat of this game")
        return seat

    async def concede(self, table: Table, token: str | None) -> None:
        """``POST /concede``: the seat of ``token`` gives up; the game ends with it last."""
        seat = await self.seat_of(table, token, "conceding")
        await self.referee.end(table, lambda: seat, "conceded")

    def overdue(self, table: Table, seat: int) -> int:
        """The seat whose deadline passed (a live table's: whose clock ran out), which ``seat``
        may act about; 403 saying why not."""
        clocked = table.clock_base_s is not None
        if table.mode != "turn" and not clocked:
            raise forbidden(N_("only turn-based tables and live tables with clocks have deadlines"))
        if table.is_over:
            raise forbidden(N_("the game is over"))
        late = table.to_move()
        if late is None or table.bot_turn():
            raise forbidden(N_("a bot decides now"))
        if late == seat:
            raise forbidden(N_("it is your own turn: play it"))
        if not table.claimed.get(late, True):
            raise forbidden(N_("the seat deciding now has not been taken yet"))
        if clocked:
            stopped = table.deadline is None and table.clock_left[late] <= 0  # the lapse stored
            ran_out = stopped or (table.deadline is not None and self.clock() >= table.deadline)
            gone = table.gone.get(late)
            absent = gone is not None and self.clock() >= gone + ABSENT_SECONDS
            if not ran_out and not absent:
                raise forbidden(
                    N_("{player}'s clock has not run out yet, nor have they been away long"),
                    player=table.record.players[late],
                )
        elif table.deadline is None or self.clock() < table.deadline:
            raise forbidden(
                N_("{player}'s deadline has not passed yet"), player=table.record.players[late]
            )
        return late

    async def timeout(self, table: Table, token: str | None, choice: str) -> None:
        """``POST /timeout``: another player of a seat whose deadline passed lets its stand-in
        bot play for it until its person comes back (``bot``), or ends the game without it
        (``end``)."""
        seat = await self.seat_of(table, token, "acting on a deadline")
        if choice == "end":
            await self.referee.end(table, lambda: self.overdue(table, seat), "timeout")
            return

        def rule() -> Ruling:
            late = self.overdue(table, seat)
            return rule_stand_in(table, late, table.away | {late}, self.referee.settings)

        await self.referee.change(table, rule)

    async def come_back(self, table: Table, token: str | None) -> None:
        """``POST /return``: the seat of ``token`` is back: its stand-in stops playing for it
        (the turn it was playing, if any, is the person's again, with a fresh deadline)."""
        seat = await self.seat_of(table, token, "coming back")
        await self.referee.change(table, lambda: rule_return(table, seat))

    async def _each_due(
        self,
        due: Callable[[float], list[str]],
        now: float,
        act: Callable[[Table], Awaitable[object]],
    ) -> list[str]:
        """``act`` on each game the store finds ``due`` at ``now`` (read from the database: the
        table need not be loaded); the ids of those it acted on. Safe with several processes:
        each act is a compare-and-set, and a game its loser meets moved, ended or set aside
        meanwhile (an ApiError) is passed over."""
        done = []
        for game_id in await self.runtime.db(due, now):
            try:
                await act(await self.tables.fresh(await self.tables.table(game_id)))
            except ApiError:
                continue
            done.append(game_id)
        return done

    async def stand_in_lapsed(self, now: float | None = None) -> list[str]:
        """Let the stand-in play where the deadline of a seat away passed before ``now``; the
        games' ids (see :meth:`_each_due`)."""
        at = self.clock() if now is None else now
        played = await self._each_due(
            self.store.games.lapsed_away,
            at,
            lambda table: self.referee.change(table, lambda: self._lapsed(table, at)),
        )
        if played:
            log.info("stand-ins play for %d seats away whose deadline passed", len(played))
        return played

    async def clocks_lapsed(self, now: float | None = None) -> list[str]:
        """Store each live table's running clock that ran out before ``now``; the games' ids
        (see :meth:`_each_due`)."""
        at = self.clock() if now is None else now
        return await self._each_due(
            self.store.games.lapsed_clocks,
            at,
            lambda table: self.referee.change(
                table, lambda: rule_lapse(table, at, self.referee.settings)
            ),
        )

    def _lapsed(self, table: Table, now: float) -> Ruling:
        """The stand-in of the seat away that decides at ``table`` plays: its deadline passed."""
        seat = table.to_move()
        if table.mode != "turn" or table.is_over or seat is None:
            raise forbidden(N_("no turn to play"))
        if seat not in table.away or table.bot_turn():
            raise forbidden(N_("the seat deciding is not away"))
        if table.deadline is None or table.deadline >= now:
            raise forbidden(N_("moved on meanwhile"))
        return rule_stand_in(table, seat, table.away, self.referee.settings)

    async def remove(self, table: Table, token: str | None) -> None:
        """``DELETE /api/games/{id}``: the creator removes a table nobody has moved at yet."""
        seat, hotseat = await self.tables.identify(table, token)
        creator = hotseat or (seat is not None and seat == table.creator)
        if not creator:
            raise forbidden(N_("only the table's creator may remove it"))
        await self.referee.change(table, lambda: rule_remove(table))

    async def end_idle(self, now: float | None = None) -> list[str]:
        """End the turn-based games nobody moved in for three of their deadlines before
        ``now``, the seat deciding then last (``abandoned``); their ids (see
        :meth:`_each_due`)."""
        at = self.clock() if now is None else now
        ended = await self._each_due(
            self.store.games.idle_turn_games,
            at,
            lambda table: self.referee.end(table, lambda: self._idle(table, at), "abandoned"),
        )
        if ended:
            log.info("%d turn-based games nobody moved in ended", len(ended))
        return ended

    def _idle(self, table: Table, now: float) -> int:
        """The seat deciding at ``table``, which nobody moved at for three deadlines."""
        if table.mode != "turn" or table.deadline_s is None:
            raise forbidden(N_("not a turn-based table"))
        if table.updated + 3 * table.deadline_s >= now:
            raise forbidden(N_("moved on meanwhile"))
        seat = table.to_move()
        return 0 if seat is None else seat
