"""Rates shared by the processes of one database (PostgreSQL): each client's token bucket of
each kind of request, counted by every process together (a SQLite server counts in memory)."""

from __future__ import annotations

from sqlalchemy import delete, select, update

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
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        key = {"bucket": bucket, "client": client_hash(client)}
        with self.database.transaction() as connection:
            connection.execute(
                pg_insert(RateRow)
                .values(**key, tokens=float(burst), stamp=now)
                .on_conflict_do_nothing()
            )
            tokens, stamp = connection.execute(
                select(RateRow.tokens, RateRow.stamp)
                .where(RateRow.bucket == bucket, RateRow.client == key["client"])
                .with_for_update()
            ).one()
            tokens, wait = take(float(tokens), now - float(stamp), rate, float(burst))
            connection.execute(
                update(RateRow)
                .where(RateRow.bucket == bucket, RateRow.client == key["client"])
                .values(tokens=tokens, stamp=max(now, float(stamp)))
            )
        return wait

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
