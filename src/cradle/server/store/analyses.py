"""The analyses of finished games as stored (:mod:`cradle.server.assist` works on them): queued
when the game ends (in its transaction: :func:`queue`), then worked on by one process
(``owner``), stored as it goes."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TypedDict

from sqlalchemy import Text, cast, insert, select, update
from sqlalchemy.engine import Connection

from cradle.server.store.database import Database
from cradle.server.store.errors import ReadOnly, StorageError
from cradle.server.store.reader import Reader, game_ids, raw
from cradle.server.store.schema import ANALYSIS_STATUSES, AnalysisRow


class StoredAnalysis(TypedDict):
    """A game's analysis as stored: its status, progress and the work so far (``data``)."""

    status: str
    done: int
    total: int
    data: dict[str, object] | None
    updated: float


def queue(connection: Connection, game_id: str, now: float) -> bool:
    """Queue the game's analysis in this transaction; False when it has one already (a failed
    one is queued again)."""
    found = connection.execute(
        select(AnalysisRow.status).where(AnalysisRow.game_id == game_id)
    ).first()
    if found is not None:
        if found.status != "failed":
            return False
        connection.execute(  # a failed analysis may be asked for again
            update(AnalysisRow)
            .where(AnalysisRow.game_id == game_id)
            .values(status="queued", done=0, total=0, data=None, owner=None, updated=now)
        )
        return True
    connection.execute(
        insert(AnalysisRow),
        {"game_id": game_id, "status": "queued", "done": 0, "total": 0, "updated": now},
    )
    return True


class AnalysisStore:
    """Analyses: queued, claimed by one process, saved as they go, read back."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def queue(self, game_id: str) -> bool:
        """Queue the analysis of a game that has none (or whose analysis failed); False when it
        has one already."""
        try:
            with self.database.transaction() as connection:
                return queue(connection, game_id, time.time())
        except ReadOnly:
            raise
        except StorageError:  # two requests at once: the second finds the first's row
            if self.load(game_id) is not None:
                return False
            raise

    def pending(self, limit: int, stale_before: float) -> list[str]:
        """Analyses to work on, oldest first: queued ones, and running ones nobody touched since
        ``stale_before`` (their process stopped; with SQLite, any: there is one process)."""
        waiting = AnalysisRow.status.in_(("queued", "running"))
        query = select(AnalysisRow.game_id).where(waiting)
        if self.database.shared:
            query = query.where(
                (AnalysisRow.status == "queued") | (AnalysisRow.updated < stale_before)
            )
        query = query.order_by(AnalysisRow.updated, AnalysisRow.game_id).limit(limit)
        with self.database.engine.connect() as connection:
            return game_ids(connection.execute(query).scalars())

    def claim(self, game_id: str, origin: str, stale_before: float) -> StoredAnalysis | None:
        """Make ``origin`` the analysis's worker; its row (with the work stored so far), or None
        when it is done or another process works on it."""
        condition = [AnalysisRow.game_id == game_id, AnalysisRow.status.in_(("queued", "running"))]
        if self.database.shared:
            condition.append(
                AnalysisRow.owner.is_(None)
                | (AnalysisRow.owner == origin)
                | (AnalysisRow.updated < stale_before)
            )
        with self.database.transaction() as connection:
            changed = connection.execute(
                update(AnalysisRow).where(*condition).values(owner=origin, updated=time.time())
            ).rowcount
        if changed != 1:
            return None
        return self.load(game_id)

    def save(
        self,
        game_id: str,
        origin: str,
        status: str,
        done: int,
        total: int,
        data: Mapping[str, object] | None,
    ) -> bool:
        """Store the analysis's progress; False when another process has taken it over."""
        with self.database.transaction() as connection:
            changed = connection.execute(
                update(AnalysisRow)
                .where(AnalysisRow.game_id == game_id, AnalysisRow.owner == origin)
                .values(status=status, done=done, total=total, data=data, updated=time.time())
            ).rowcount
        return changed == 1

    def load(self, game_id: str) -> StoredAnalysis | None:
        """The game's analysis as stored (None: it has none); CorruptGame if it cannot be read."""
        with self.database.engine.connect() as connection:
            row = connection.execute(
                select(
                    raw(AnalysisRow.status),
                    raw(AnalysisRow.done),
                    raw(AnalysisRow.total),
                    cast(AnalysisRow.data, Text).label("data"),
                    raw(AnalysisRow.updated),
                ).where(AnalysisRow.game_id == game_id)
            ).first()
        if row is None:
            return None
        read = Reader(game_id)
        total = read.integer(row.total, "analysis's move count")
        done = read.integer(row.done, "analysis's progress", 0, total)
        data = None if row.data is None else read.json(row.data, "analysis data")
        if data is not None and not isinstance(data, dict):
            read.fail("its analysis data is not an object")
        return {
            "status": read.text(row.status, "analysis's status", 10, ANALYSIS_STATUSES),
            "done": done,
            "total": total,
            "data": data,
            "updated": read.number(row.updated, "analysis's time"),
        }
