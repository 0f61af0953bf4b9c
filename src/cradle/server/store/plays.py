"""The changes of a game in play, as stored: a move, an undo, a stand-in taking a seat's turn,
a person coming back, an ending before the rules end the game, a table removed before it began.

Each is one transaction that names the version it expects (:func:`~.games.bump`): of two
processes changing a game, or a move and an ending, one is stored and the other meets
:class:`~.errors.Conflict`. Each keeps the bots' queue, the owed turn notices and the other
processes' notices with it, in the same transaction; a move is stored before it is
acknowledged to anyone, so a server killed at any moment restarts with every acknowledged move.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Float,
    Integer,
    Select,
    String,
    bindparam,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Connection

from cradle.server.store.analyses import queue as queue_analysis
from cradle.server.store.botjobs import BotJobStore, drop_jobs, job_after, move_job, set_job
from cradle.server.store.database import NOTIFY_CHANNEL, Database
from cradle.server.store.errors import Conflict
from cradle.server.store.games import (
    Clocks,
    away_bits,
    bump,
    clock_values,
    end_unplayed,
    next_deadline,
    not_ended,
)
from cradle.server.store.notices import TurnBegins, owe_notice
from cradle.server.store.ratings import rate_game
from cradle.server.store.schema import ActionRow, BotClockRow, DueNoticeRow, GameRow, SeatRow


@dataclass(frozen=True)
class MoveChange:
    """Action number ``ply`` of the game at ``version``, and the game after it.

    ``analyse``: the move ends the game, whose analysis is queued with it. ``person``: a person
    moved at a table with no open seat (the game is played: it no longer expires in minutes).
    ``clock``: (seat, seconds) a bot seat has now spent in its turn. ``bot_turn``: a bot
    decides next, its bot's budget per decision ``bot_cost``. ``standin``: the seat whose
    stand-in bot still decides after this move (None: no stand-in plays); a turn-based table's
    next person gets a fresh deadline. ``turn_based``: the game is one (its turn notices are
    kept: ``begins``, the turn of a person this move begins, whose notice is owed now; the
    mover's own are moot). ``away``: the seats away after the move (None: as before).
    ``standin_level``: the stand-in bot level that made the move for the seat's person (None:
    the seat's own player made it). ``clocks``: a live table's clocks after the move.
    """

    game_id: str
    ply: int
    version: int
    seat: int
    action: str
    status: str
    result: Sequence[Mapping[str, object]] | None
    bot_turn: bool
    bot_cost: float = 0.0
    analyse: bool = False
    person: bool = False
    clock: tuple[int, float] | None = None
    standin: int | None = None
    turn_based: bool = False
    begins: TurnBegins | None = None
    away: frozenset[int] | None = None
    standin_level: str | None = None
    clocks: Clocks | None = None


@dataclass(frozen=True)
class UndoChange:
    """The last action (number ``ply - 1``) of the game at ``ply``/``version`` taken back;
    ``status``, ``bot_turn`` and ``bot_cost`` as the game is then; ``clocks``: a live
    table's clocks after it."""

    game_id: str
    ply: int
    version: int
    status: str
    bot_turn: bool
    bot_cost: float = 0.0
    clocks: Clocks | None = None


@dataclass(frozen=True)
class StandInChange:
    """``seat``'s stand-in bot plays its turn (its deadline passed), costing ``cost`` per
    decision; ``away``: the seats away from then on (None: as before); ``clocks``: a live
    table's (the seat's stops)."""

    game_id: str
    version: int
    seat: int
    cost: float
    away: frozenset[int] | None = None
    clocks: Clocks | None = None


@dataclass(frozen=True)
class ReturnChange:
    """``seat``'s person is back: the seats away are ``away`` from now on; ``deciding``: its
    stand-in was playing its turn, which is the person's again, with a fresh deadline (at a
    live table, ``clocks``: the person's clock starts again)."""

    game_id: str
    version: int
    seat: int
    away: frozenset[int]
    deciding: bool
    clocks: Clocks | None = None


@dataclass(frozen=True)
class LapseChange:
    """The clock of the seat deciding at a live table ran out: it stops at nothing left
    (``clocks``); the others may then let its stand-in play or end the game without it."""

    game_id: str
    version: int
    clocks: Clocks


@dataclass(frozen=True)
class PresenceChange:
    """At a live table with clocks, ``seat``'s person has had no page open since ``gone``
    (None: they have one again)."""

    game_id: str
    version: int
    seat: int
    gone: float | None


@dataclass(frozen=True)
class EndChange:
    """The game ends before its rules end it (``ended_by``: one of ``schema.ENDINGS``), with
    ``result``."""

    game_id: str
    version: int
    result: list[dict[str, Any]]
    ended_by: str


@functools.lru_cache(maxsize=64)
def _move_statement(
    columns: tuple[str, ...], deadline_from_now: bool, bot_turn: bool
) -> Select[Any]:
    """The one PostgreSQL statement of :meth:`PlayStore._move_at_once` for a move that sets
    the games row's ``columns`` (parameters ``v_NAME``), made once for each shape: a statement
    made anew each time costs more to build and look up than to run."""
    table = GameRow.__table__.c
    values: dict[str, Any] = {
        name: bindparam(f"v_{name}", type_=table[name].type) for name in columns
    }
    if deadline_from_now:
        values["deadline"] = GameRow.deadline_s + bindparam("deadline_from", type_=Float)
    bumped = (
        update(GameRow)
        .where(
            GameRow.id == bindparam("game_id", type_=String),
            GameRow.version == bindparam("version", type_=Integer),
            *not_ended(),
            GameRow.moves == bindparam("at_moves", type_=Integer),
        )
        .values(version=bindparam("version_after", type_=Integer), **values)
        .returning(GameRow.id, GameRow.client)
        .cte("bumped")
    )
    acted = (
        insert(ActionRow)
        .from_select(
            ["game_id", "ply", "seat", "action", "standin"],
            select(
                bumped.c.id,
                bindparam("ply", type_=Integer),
                bindparam("seat", type_=Integer),
                bindparam("action", type_=String),
                bindparam("standin_level", type_=String),
            ),
        )
        .cte("acted")
    )
    return (
        select(
            func.pg_notify(bindparam("channel", type_=String), bindparam("payload", type_=String))
        )
        .select_from(bumped)
        .add_cte(acted, job_after(bumped, bot_turn))
    )


class PlayStore:
    """The writes of a game in play."""

    def __init__(self, database: Database, bot_jobs: BotJobStore) -> None:
        self.database = database
        self.bot_jobs = bot_jobs

    def _job(
        self, connection: Connection, change: Any, bot_turn: bool, now: float, cost: float
    ) -> None:
        set_job(
            connection,
            change.game_id,
            change.version + 1,
            bot_turn,
            now + self.bot_jobs.delay,
            cost,
        )

    def move(self, change: MoveChange) -> float:
        """Store action number ``change.ply``; Conflict unless the game stands at that ply and
        version. A move can thus never be stored twice, out of order, or on a game that
        another process changed meanwhile (an undo and a move there give the same move count,
        not the same version). The bot's turn this move ends is removed, and the next one
        written if a bot decides next."""
        c = change

        def work(connection: Connection, now: float) -> None:
            played: dict[str, object] = {"played": True} if c.person else {}
            if c.away is not None:
                played["away"] = away_bits(c.away)
            values: dict[str, object] = {
                "moves": c.ply + 1,
                "status": c.status,
                "result": c.result,
                "bot_turn": c.bot_turn,
                "updated": now,
                "standin": c.standin,
                **played,
            }
            # A live table's clocks set the deadline; else a person's turn-based deadline.
            clocks = clock_values(c.clocks, now)
            from_now = not clocks and not (c.bot_turn or c.status == "over")
            if not from_now:
                values["deadline"] = None
            values.update(clocks)
            if self.database.shared:
                self._move_at_once(connection, c, now, values, from_now, notice)
            else:
                if from_now:
                    values["deadline"] = next_deadline(False, now)
                bump(connection, c.game_id, c.version, at_moves=c.ply, **values)
                connection.execute(
                    insert(ActionRow),
                    {
                        "game_id": c.game_id,
                        "ply": c.ply,
                        "seat": c.seat,
                        "action": c.action,
                        "standin": c.standin_level,
                    },
                )
                self._job(connection, c, c.bot_turn, now, c.bot_cost)
            if c.clock is not None:
                seat, spent = c.clock
                connection.execute(
                    delete(BotClockRow).where(
                        BotClockRow.game_id == c.game_id, BotClockRow.seat == seat
                    )
                )
                connection.execute(
                    insert(BotClockRow), {"game_id": c.game_id, "seat": seat, "spent": spent}
                )
            if c.analyse:
                queue_analysis(connection, c.game_id, now)
            if c.status == "over" and c.result is not None:
                rate_game(self.database, connection, c.game_id, c.result, now)
            if c.turn_based:
                owe_notice(connection, c.game_id, now, c.seat, c.status == "over", c.begins)

        notice = f"{c.ply} {c.seat} {c.action}"
        return self.database.write(
            c.game_id, c.version, work, notice, notified=self.database.shared
        )

    def _move_at_once(
        self,
        connection: Connection,
        c: MoveChange,
        now: float,
        values: dict[str, object],
        deadline_from_now: bool,
        notice: str,
    ) -> None:
        """PostgreSQL: the game's row moved on, the action added, the bot's turn rewritten and
        the other processes' notice sent, in one statement (each round trip to the database
        costs the server more CPU than the work itself); Conflict, with nothing done, unless
        the game stands at ``c.version`` and ``c.ply``."""
        params: dict[str, object] = {
            "game_id": c.game_id,
            "version": c.version,
            "version_after": c.version + 1,
            "at_moves": c.ply,
            "ply": c.ply,
            "seat": c.seat,
            "action": c.action,
            "standin_level": c.standin_level,
            "job_version": c.version + 1,
            "job_cost": max(0.0, c.bot_cost),
            "job_ready": now + self.bot_jobs.delay,
            "channel": NOTIFY_CHANNEL,
            "payload": self.database.notice_of(c.game_id, c.version + 1, now, notice),
        }
        if deadline_from_now:  # a person's deadline_s from now
            params["deadline_from"] = now
        columns = tuple(sorted(values))
        params.update({f"v_{name}": values[name] for name in columns})
        statement = _move_statement(columns, deadline_from_now, c.bot_turn)
        told = connection.execute(statement, params).all()
        if len(told) != 1:
            raise Conflict(f"game {c.game_id} is no longer at version {c.version}")

    def undo(self, change: UndoChange) -> float:
        """Forget the last action of the game (see :class:`UndoChange`)."""
        c = change

        def work(connection: Connection, now: float) -> None:
            bump(
                connection,
                c.game_id,
                c.version,
                at_moves=c.ply,
                moves=c.ply - 1,
                status=c.status,
                result=None,
                bot_turn=c.bot_turn,
                updated=now,
                standin=None,
                **{"deadline": next_deadline(c.bot_turn, now), **clock_values(c.clocks, now)},
            )
            connection.execute(
                delete(ActionRow).where(ActionRow.game_id == c.game_id, ActionRow.ply >= c.ply - 1)
            )
            self._job(connection, c, c.bot_turn, now, c.bot_cost)

        return self.database.write(c.game_id, c.version, work)

    def stand_in(self, change: StandInChange) -> float:
        """Let the seat's stand-in bot play its turn: the bot's turn is queued like any bot's."""
        c = change

        def work(connection: Connection, now: float) -> None:
            stays: dict[str, Any] = {} if c.away is None else {"away": away_bits(c.away)}
            stays.update({"deadline": None, **clock_values(c.clocks, now)})
            bump(
                connection,
                c.game_id,
                c.version,
                standin=c.seat,
                bot_turn=True,
                updated=now,
                **stays,
            )
            self._job(connection, c, True, now, c.cost)
            owe_notice(connection, c.game_id, now, c.seat, False, None)  # the bot plays it

        return self.database.write(c.game_id, c.version, work)

    def come_back(self, change: ReturnChange) -> float:
        """The seat's person is back (see :class:`ReturnChange`); the bot's turn it held, if
        any, is dropped."""
        c = change

        def work(connection: Connection, now: float) -> None:
            values: dict[str, Any] = {"away": away_bits(c.away), "updated": now}
            if c.deciding:
                values.update(standin=None, bot_turn=False, deadline=next_deadline(False, now))
            values.update(clock_values(c.clocks, now))
            bump(connection, c.game_id, c.version, **values)
            if c.deciding:
                self._job(connection, c, False, now, 0.0)
            else:  # a bot's turn (another seat's), if any, stays as it is at the new version
                move_job(connection, c.game_id, c.version + 1)

        return self.database.write(c.game_id, c.version, work)

    def lapse(self, change: LapseChange) -> float:
        """Store that a live table's running clock ran out (see :class:`LapseChange`)."""
        c = change

        def work(connection: Connection, now: float) -> None:
            values: dict[str, Any] = {"updated": now, **clock_values(c.clocks, now)}
            bump(connection, c.game_id, c.version, **values)

        return self.database.write(c.game_id, c.version, work)

    def presence(self, change: PresenceChange) -> float:
        """Store whether the seat's person has a page open (see :class:`PresenceChange`)."""
        c = change

        def work(connection: Connection, now: float) -> None:
            bump(connection, c.game_id, c.version, updated=now)
            connection.execute(
                update(SeatRow)
                .where(SeatRow.game_id == c.game_id, SeatRow.seat == c.seat)
                .values(gone=c.gone)
            )

        return self.database.write(c.game_id, c.version, work)

    def end_early(self, change: EndChange) -> float:
        """End the game before its rules do, in one compare-and-set: of two processes ending
        it, or a move and an ending, one wins and the other meets Conflict. A rated game's
        ratings move in the same transaction, by its result."""
        c = change

        def work(connection: Connection, now: float) -> None:
            bump(
                connection,
                c.game_id,
                c.version,
                status="over",
                result=c.result,
                ended_by=c.ended_by,
                bot_turn=False,
                deadline=None,
                standin=None,
                away=0,
                updated=now,
            )
            drop_jobs(connection, c.game_id)
            connection.execute(delete(DueNoticeRow).where(DueNoticeRow.game_id == c.game_id))
            # A rated game's end counts however it ends: the seat that left is last.
            rate_game(self.database, connection, c.game_id, c.result, now)

        return self.database.write(c.game_id, c.version, work)

    def remove(self, game_id: str, version: int) -> float:
        """End an unstarted table its creator removed (``removed``); Conflict when it changed
        meanwhile (a move, a seat taken)."""
        now = time.time()
        with self.database.transaction() as connection:
            if not end_unplayed(self.database, connection, game_id, version, "removed", now, True):
                raise Conflict(f"game {game_id} is no longer at version {version}")
        return now
