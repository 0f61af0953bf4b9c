"""Rates shared by the processes of one database (PostgreSQL): each client's token bucket of
each kind of request, counted by every process together (a SQLite server counts in memory)."""

from __future__ import annotations

from sqlalchemy import delete, select, update
from sqlalchemy.engine import Connection

from cradle.server.limits import peek, take
from cradle.server.store.database import Database, client_hash
from cradle.server.store.schema import RateRow


class RateStore:
    """The shared token buckets."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def take(self, bucket: str, client: str, rate: float, burst: int, now: float) -> float:
        """Take one request of kind ``bucket`` from ``client``'s bucket, counted for every
        process on the database: 0.0 when it may go on (and it is counted), else the seconds
        until it may. ``burst`` at once, then ``rate`` per second, as the in-memory limiter."""
        key = {"bucket": bucket, "client": client_hash(client)}
        with self.database.transaction() as connection:
            tokens, stamp = _locked(connection, key, burst, now)
            tokens, wait = take(float(tokens), now - float(stamp), rate, float(burst))
            connection.execute(
                update(RateRow)
                .where(RateRow.bucket == bucket, RateRow.client == key["client"])
                .values(tokens=tokens, stamp=max(now, float(stamp)))
            )
        return wait

    def take_many(
        self, bucket: str, client: str, rate: float, burst: int, now: float, want: int
    ) -> tuple[int, float]:
        """Take up to ``want`` requests at once from ``client``'s bucket (a process's lease,
        spent in memory): (how many were taken, 0.0), or (0, the seconds until one may go)."""
        key = {"bucket": bucket, "client": client_hash(client)}
        with self.database.transaction() as connection:
            tokens, stamp = _locked(connection, key, burst, now)
            level = min(float(burst), float(tokens) + max(0.0, now - float(stamp)) * rate)
            taken = min(want, int(level)) if level >= 1.0 else 0
            connection.execute(
                update(RateRow)
                .where(RateRow.bucket == bucket, RateRow.client == key["client"])
                .values(tokens=level - taken, stamp=max(now, float(stamp)))
            )
        return taken, 0.0 if taken else (1.0 - level) / rate

    def peek(self, bucket: str, client: str, rate: float, burst: int, now: float) -> float:
        """:meth:`take` without taking: 0.0, or the seconds until ``client`` could go on."""
        with self.database.engine.connect() as connection:
            found = connection.execute(
                select(RateRow.tokens, RateRow.stamp).where(
                    RateRow.bucket == bucket, RateRow.client == client_hash(client)
                )
            ).first()
        if found is None:
            return 0.0
        return peek(float(found.tokens), now - float(found.stamp), rate, float(burst))

    def forget(self, before: float) -> int:
        """Drop the buckets untouched since ``before`` (full again by then); how many."""
        with self.database.transaction() as connection:
            return int(connection.execute(delete(RateRow).where(RateRow.stamp < before)).rowcount)


def _locked(
    connection: Connection, key: dict[str, str], burst: int, now: float
) -> tuple[float, float]:
    """The bucket ``key`` (made full at ``now`` if new) as stored, its row locked until the
    transaction ends: (tokens, stamp)."""
    from sqlalchemy.dialects.postgresql import insert as pg_insert

    connection.execute(
        pg_insert(RateRow).values(**key, tokens=float(burst), stamp=now).on_conflict_do_nothing()
    )
    tokens, stamp = connection.execute(
        select(RateRow.tokens, RateRow.stamp)
        .where(RateRow.bucket == key["bucket"], RateRow.client == key["client"])
        .with_for_update()
    ).one()
    return float(tokens), float(stamp)
