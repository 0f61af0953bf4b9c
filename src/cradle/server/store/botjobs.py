"""The bots' turns: a queue in the database (``bot_jobs``).

A bot's turn is a row, written by the write that makes it the bot's turn (:func:`set_job`, in
that write's transaction) and removed by the one that makes its move; workers on any machine
claim the next one, fairly across clients by their recent use of the bots
(:meth:`BotJobStore.claim`), under a lease that lapses if they die.

The turns are of two kinds (:data:`cradle.server.limits.Lane`), each claimed by workers of its
own: those a person waits for (``WAITED``: at a table where a person holds a seat and no
stand-in plays) and the others (``BACKGROUND``: bots playing bots alone, a stand-in for someone
away). So no decision nobody waits for ever stands between a person and its bot's worker.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypedDict, cast

from sqlalchemy import (
    Float,
    Integer,
    bindparam,
    case,
    delete,
    exists,
    func,
    insert,
    literal,
    select,
    true,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.selectable import CTE

from cradle.server.limits import BACKGROUND, WAITED, Lane
from cradle.server.store.database import Database
from cradle.server.store.reader import stored_number
from cradle.server.store.schema import (
    LIVE,
    BotClientRow,
    BotClockRow,
    BotJobRow,
    GameRow,
    SeatRow,
)

CLAIM_KEY = 0x626F7473  # held while a bot's turn is claimed ("bots"): one fair order for all
# A client's use of the bots: the seconds its turns were given, decaying with this time
# constant (so a client idle for a few minutes is new again); each turn counts its bot's
# budget per decision, at least LEAST_COST (the work around any move).
USAGE_SECONDS = 120.0
LEAST_COST = 0.02
DAMAGED_SKIPPED = 8  # damaged turns one claim forgets at most before it gives up
# The most a bot's turn is claimed before it is due (the bot thinks through the bot delay, up
# to this): the longest decision the server gives by default (Limits.bot_seconds). A longer
# delay (tests that keep the bots still) leaves the turn alone until then.
AHEAD_SECONDS = 2.0


@dataclass(frozen=True)
class BotJob:
    """A bot's turn a worker claimed: the game, the version it is at, the creator's client key,
    the seconds each bot seat has spent in its current turn, whether a person waits for it
    (its lane), and when it is due (its move is shown no earlier; the bot thinks before)."""

    game_id: str
    version: int
    client: str
    clocks: dict[int, float]
    lane: Lane = WAITED
    ready: float = 0.0


class QueuedTurn(TypedDict):
    """A bot's turn in the queue (``bot_jobs``): due at ``ready``, claimed by ``owner`` until
    ``lease``."""

    game_id: str
    version: int
    client: str | None
    ready: float
    owner: str | None
    lease: float


def set_job(
    connection: Connection,
    game_id: str,
    version: int,
    bot_turn: bool,
    ready: float,
    cost: float,
) -> None:
    """The game is now at ``version``: its bot's turn (costing ``cost`` seconds a decision)
    waits from ``ready`` if a bot decides, and any earlier one is gone."""
    connection.execute(delete(BotJobRow).where(BotJobRow.game_id == game_id))
    if not bot_turn:
        return
    connection.execute(
        insert(BotJobRow).from_select(
            ["game_id", "version", "client", "cost", "ready", "lease"],
            select(
                GameRow.id,
                literal(version, Integer),
                func.coalesce(GameRow.client, ""),
                literal(max(0.0, cost), Float),
                literal(ready, Float),
                literal(0.0, Float),
            ).where(GameRow.id == game_id),
        )
    )


def job_after(bumped: CTE, bot_turn: bool) -> CTE:
    """:func:`set_job` as a part of one PostgreSQL statement, for the game the ``UPDATE``
    ``bumped`` (returning its ``id`` and ``client``) moved on: nothing when it moved none.
    Its parameters: ``job_version``, ``job_cost`` and ``job_ready``."""
    if not bot_turn:
        return delete(BotJobRow).where(BotJobRow.game_id.in_(select(bumped.c.id))).cte("turn")
    from sqlalchemy.dialects.postgresql import insert as pg_insert

    fresh = pg_insert(BotJobRow).from_select(
        ["game_id", "version", "client", "cost", "ready", "lease"],
        select(
            bumped.c.id,
            bindparam("job_version", type_=Integer),
            func.coalesce(bumped.c.client, ""),
            bindparam("job_cost", type_=Float),
            bindparam("job_ready", type_=Float),
            literal(0.0, Float),
        ),
    )
    # The game's earlier turn, if any, is replaced whole (as set_job's delete and insert do).
    replaced = fresh.on_conflict_do_update(
        index_elements=[BotJobRow.game_id],
        set_={
            "version": fresh.excluded.version,
            "client": fresh.excluded.client,
            "cost": fresh.excluded.cost,
            "ready": fresh.excluded.ready,
            "owner": None,
            "lease": fresh.excluded.lease,
        },
    )
    return replaced.cte("turn")


def move_job(connection: Connection, game_id: str, version: int) -> None:
    """The game moved to ``version`` and whose turn it is did not change: a bot's turn stays
    as it is, at the new version."""
    connection.execute(
        update(BotJobRow).where(BotJobRow.game_id == game_id).values(version=version)
    )


def nobody_waits() -> ColumnElement[int]:
    """0 for a turn a person waits for (a person holds a seat of its table, which no stand-in
    plays), else 1; over ``bot_jobs`` joined to ``games``."""
    person_seated = exists().where(
        SeatRow.game_id == BotJobRow.game_id,
        SeatRow.claimed == true(),
        SeatRow.gone.is_(None),
    )
    return case((person_seated & GameRow.standin.is_(None), 0), else_=1)


def in_lane(lane: Lane | None) -> ColumnElement[bool]:
    """The turns of ``lane`` (None: every turn)."""
    if lane is None:
        return true()
    return nobody_waits() == (0 if lane == WAITED else 1)


def drop_jobs(connection: Connection, game_id: str) -> None:
    """No bot decides in the game any more (it ended)."""
    connection.execute(delete(BotJobRow).where(BotJobRow.game_id == game_id))


class BotJobStore:
    """The queue of bots' turns, claimed by the workers of every process and machine."""

    def __init__(self, database: Database) -> None:
        self.database = database
        # Seconds between a bot's turn coming and its move shown (it is due then): the bot
        # thinks meanwhile, so a worker may claim a turn that long (at most AHEAD_SECONDS)
        # before it is due.
        self.delay = 0.0

    @property
    def ahead(self) -> float:
        """How long before it is due a bot's turn may be claimed."""
        return min(self.delay, AHEAD_SECONDS)

    def queue_lost(self) -> None:
        """Queue the bots' turns of games stored before there was a queue (or whose job went
        missing)."""
        if self.database.read_only:
            return
        with self.database.transaction() as connection:
            connection.execute(
                insert(BotJobRow).from_select(
                    ["game_id", "version", "client", "ready", "lease"],
                    select(
                        GameRow.id,
                        GameRow.version,
                        func.coalesce(GameRow.client, ""),
                        literal(0.0, Float),
                        literal(0.0, Float),
                    ).where(
                        GameRow.bot_turn.is_(True),
                        GameRow.status.in_(LIVE),
                        GameRow.version.is_not(None),  # a damaged row: its game is set aside
                        ~exists().where(BotJobRow.game_id == GameRow.id),
                    ),
                )
            )

    def claim(
        self, owner: str, now: float, lease: float, lane: Lane | None = None
    ) -> BotJob | None:
        """Take the next bot's turn of ``lane`` (None: of either, a person's first) that is due
        within :attr:`ahead` (the bot thinks through the delay; its move waits for the turn to
        be due) and that no live worker holds, for ``lease`` seconds (renew it while thinking),
        and count its cost against its client.

        The fair order: first the turns a person waits for (at a table where a person holds a
        seat, its bots' own; a stand-in playing for someone away, and bots playing bots alone,
        come after), then the turn whose client would have used the bots least, counting this
        turn (recent use decays: :data:`USAGE_SECONDS`), then the oldest. So a client whose
        forty tables keep the bots busy waits while a client with one table gets its move, new
        clients and cheap bots go first, and clients that all want more than there is share
        the bots' time equally. None when no turn is due.

        PostgreSQL: claims take turns under an advisory lock (so the order is the same for
        every worker on every machine), and a row another transaction holds is skipped
        (``FOR UPDATE SKIP LOCKED``). SQLite has one process, whose writes are serialised.
        """
        due = (BotJobRow.ready <= now + self.ahead) & (
            BotJobRow.owner.is_(None) | (BotJobRow.lease < now)
        )
        scaled = now / USAGE_SECONDS
        exponent = BotClientRow.load - scaled
        use = case(  # bounded: machines whose clocks disagree must not overflow exp()
            (BotClientRow.load.is_(None) | (exponent < -700.0), 0.0),
            (exponent > 700.0, 1e300),
            else_=func.exp(exponent),
        )
        cost = case((BotJobRow.cost < LEAST_COST, LEAST_COST), else_=BotJobRow.cost)
        waits = nobody_waits()
        query = (
            select(
                BotJobRow.game_id,
                BotJobRow.version,
                BotJobRow.client,
                BotJobRow.cost,
                BotJobRow.ready,
                BotClientRow.load,
                waits.label("nobody_waits"),
            )
            .outerjoin(BotClientRow, BotClientRow.client == BotJobRow.client)
            .outerjoin(GameRow, GameRow.id == BotJobRow.game_id)
            .where(due, in_lane(lane))
            .order_by(waits, use + cost, BotJobRow.ready, BotJobRow.game_id)
            .limit(1)
            .with_for_update(skip_locked=True, of=BotJobRow)
        )
        with self.database.transaction() as connection:
            self.database.lock(connection, CLAIM_KEY)
            for _damaged in range(DAMAGED_SKIPPED):
                row = connection.execute(query).first()
                if row is None:
                    return None
                game_id, client = str(row.game_id), str(row.client)
                version = stored_number(row.version)
                if version is not None and version == int(version):
                    break
                # A damaged turn (the queue is derived data): forgotten, so that it stops no
                # other; the game's own row still says whether a bot decides (start-up).
                connection.execute(delete(BotJobRow).where(BotJobRow.game_id == game_id))
            else:
                return None
            connection.execute(
                update(BotJobRow)
                .where(BotJobRow.game_id == game_id)
                .values(owner=owner, lease=now + lease)
            )
            known = stored_number(row.load)
            used = 0.0 if known is None else math.exp(min(700.0, max(-700.0, known - scaled)))
            load = math.log(used + max(LEAST_COST, stored_number(row.cost) or 0.0)) + scaled
            changed = connection.execute(
                update(BotClientRow).where(BotClientRow.client == client).values(load=load)
            ).rowcount
            if not changed:
                connection.execute(insert(BotClientRow), {"client": client, "load": load})
            clocks: dict[int, float] = {}
            for seat, spent in connection.execute(
                select(BotClockRow.seat, BotClockRow.spent).where(BotClockRow.game_id == game_id)
            ):
                number, seconds = stored_number(seat), stored_number(spent)
                if number is not None and seconds is not None and seconds >= 0:
                    clocks[int(number)] = seconds  # a damaged clock: the turn's full allowance
        found = WAITED if row.nobody_waits == 0 else BACKGROUND
        ready = stored_number(row.ready)
        return BotJob(game_id, int(version), client, clocks, found, now if ready is None else ready)

    def use(self, client: str, now: float) -> float:
        """The recent use of the bots of the client with key ``client`` (hashed), in seconds."""
        with self.database.engine.connect() as connection:
            load = stored_number(
                connection.execute(
                    select(BotClientRow.load).where(BotClientRow.client == client)
                ).scalar()
            )
        return (
            0.0 if load is None else math.exp(min(700.0, max(-700.0, load - now / USAGE_SECONDS)))
        )

    def renew(self, game_id: str, owner: str, until: float) -> bool:
        """Keep the claim on a bot's turn until ``until``; False when it is no longer ours."""
        with self.database.transaction() as connection:
            return bool(
                connection.execute(
                    update(BotJobRow)
                    .where(BotJobRow.game_id == game_id, BotJobRow.owner == owner)
                    .values(lease=until)
                ).rowcount
            )

    def release(self, game_id: str, owner: str, ready: float | None = None) -> None:
        """Give a claimed turn back (due again at ``ready``, or as it was)."""
        values: dict[str, object] = {"owner": None, "lease": 0.0}
        if ready is not None:
            values["ready"] = ready
        with self.database.transaction() as connection:
            connection.execute(
                update(BotJobRow)
                .where(BotJobRow.game_id == game_id, BotJobRow.owner == owner)
                .values(**values)
            )

    def release_all(self, owner: str | None = None) -> None:
        """Give back every turn ``owner`` holds (None: every worker's; SQLite's start-up, when
        no other process can hold one)."""
        query = update(BotJobRow).values(owner=None, lease=0.0)
        if owner is not None:
            query = query.where(BotJobRow.owner == owner)
        with self.database.transaction() as connection:
            connection.execute(query)

    def drop(self, game_id: str, version: int) -> None:
        """Forget the turn of a game at ``version`` where no bot decides after all."""
        with self.database.transaction() as connection:
            connection.execute(
                delete(BotJobRow).where(BotJobRow.game_id == game_id, BotJobRow.version == version)
            )

    def next_due(self, lane: Lane | None = None) -> float | None:
        """When the next bot's turn of ``lane`` (None: of either) can be claimed (:attr:`ahead`
        of it being due; a claimed one: when its lease lapses); None when there is none."""
        ahead = BotJobRow.ready - self.ahead
        due = case(
            (BotJobRow.owner.is_(None), ahead),
            (BotJobRow.lease > ahead, BotJobRow.lease),
            else_=ahead,
        )
        query = select(func.min(due)).select_from(BotJobRow)
        if lane is not None:
            query = query.outerjoin(GameRow, GameRow.id == BotJobRow.game_id).where(in_lane(lane))
        with self.database.engine.connect() as connection:
            found = connection.execute(query).scalar()
        return stored_number(found)

    def queue(self, now: float) -> tuple[int, int, float | None]:
        """The bots' turns for the metrics: (waiting for a worker, held by a worker, when the
        oldest waiting one became due: None while none is due)."""
        free = BotJobRow.owner.is_(None) | (BotJobRow.lease < now)
        with self.database.engine.connect() as connection:
            waiting = connection.execute(
                select(func.count()).select_from(BotJobRow).where(free)
            ).scalar()
            oldest = connection.execute(
                select(func.min(BotJobRow.ready)).where(BotJobRow.ready <= now, free)
            ).scalar()
            thinking = connection.execute(
                select(func.count()).select_from(BotJobRow).where(~free)
            ).scalar()
        return int(waiting or 0), int(thinking or 0), None if oldest is None else float(oldest)

    def jobs(self) -> list[QueuedTurn]:
        """Every bot's turn waiting or claimed (for tests and operators)."""
        with self.database.engine.connect() as connection:
            rows = connection.execute(
                select(
                    BotJobRow.game_id,
                    BotJobRow.version,
                    BotJobRow.client,
                    BotJobRow.ready,
                    BotJobRow.owner,
                    BotJobRow.lease,
                ).order_by(BotJobRow.ready, BotJobRow.game_id)
            ).all()
        return [cast(QueuedTurn, dict(row._mapping)) for row in rows]  # its keys, selected

    def clocks(self, game_id: str) -> dict[int, float]:
        with self.database.engine.connect() as connection:
            return {
                int(seat): float(spent)
                for seat, spent in connection.execute(
                    select(BotClockRow.seat, BotClockRow.spent).where(
                        BotClockRow.game_id == game_id
                    )
                )
            }

    def forget_idle_clients(self, now: float) -> None:
        """Forget the clients with no bot's turn waiting whose use has all but decayed."""
        with self.database.transaction() as connection:
            self.database.lock(connection, CLAIM_KEY)
            faded = math.log(LEAST_COST / 100) + now / USAGE_SECONDS
            connection.execute(
                delete(BotClientRow).where(
                    BotClientRow.load < faded,
                    ~exists().where(BotJobRow.client == BotClientRow.client),
                )
            )
