"""Friends and blocks as stored: a request one account makes and the other accepts (one row per
pair), the blocks (one-way: the blocker takes nothing from the blocked), when each account was
last online, and the tables of one's friends in progress."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, delete, insert, or_, select, update
from sqlalchemy.engine import Connection

from cradle.server.store.database import Database, upsert
from cradle.server.store.schema import (
    LIVE,
    AccountRow,
    BlockRow,
    FriendshipRow,
    GameRow,
    InvitationRow,
    SeatRow,
)

FRIENDS_MAX = 200  # friends, requests and blocks an account keeps, each
TABLES_SHOWN = 5  # tables in progress shown per friend


@dataclass(frozen=True)
class Friend:
    """Another account as a friend list shows it."""

    id: str
    name: str
    seen: float | None  # when a page of theirs last held its live connection


@dataclass(frozen=True)
class Friends:
    """An account's friends, the requests it made and got, and whom it blocks."""

    friends: list[Friend]
    asked: list[Friend]  # it asked them; they did not answer yet
    asking: list[Friend]  # they asked it (never someone it blocks)
    blocked: list[Friend]


def _pair(one: str, other: str) -> Any:
    return or_(
        and_(FriendshipRow.asker == one, FriendshipRow.asked == other),
        and_(FriendshipRow.asker == other, FriendshipRow.asked == one),
    )


def _blocks(connection: Connection, blocker: str, blocked: str) -> bool:
    return (
        connection.execute(
            select(BlockRow.blocker).where(BlockRow.blocker == blocker, BlockRow.blocked == blocked)
        ).first()
        is not None
    )


class FriendStore:
    """Friend requests, friendships, blocks, and who is online."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def ask(self, asker: str, asked: str, now: float) -> str:
        """``asker`` asks ``asked`` to be friends: ``friends`` when ``asked`` had asked first
        (accepted now) or they already were; ``asked`` when the request waits; ``blocking``
        when ``asker`` blocks ``asked``; ``full`` when either has too many. A request from
        someone ``asked`` blocks is kept like any other, but never shown to ``asked``."""
        with self.database.transaction() as connection:
            if _blocks(connection, asker, asked):
                return "blocking"
            row = connection.execute(
                select(FriendshipRow.asker, FriendshipRow.accepted).where(_pair(asker, asked))
            ).first()
            if row is not None:
                if row.accepted:
                    return "friends"
                if row.asker == asker:
                    return "asked"
                connection.execute(
                    update(FriendshipRow)
                    .where(FriendshipRow.asker == asked, FriendshipRow.asked == asker)
                    .values(accepted=True)
                )
                return "friends"
            for account in (asker, asked):
                count = connection.execute(
                    select(FriendshipRow.asker)
                    .where(or_(FriendshipRow.asker == account, FriendshipRow.asked == account))
                    .limit(FRIENDS_MAX)
                ).all()
                if len(count) >= FRIENDS_MAX:
                    return "full"
            connection.execute(
                insert(FriendshipRow).values(asker=asker, asked=asked, accepted=False, created=now)
            )
            return "asked"

    def remove(self, one: str, other: str) -> bool:
        """The friendship of the two, or a request either made, goes; whether one did."""
        with self.database.transaction() as connection:
            return bool(connection.execute(delete(FriendshipRow).where(_pair(one, other))).rowcount)

    def are_friends(self, one: str, other: str) -> bool:
        with self.database.engine.connect() as connection:
            found = connection.execute(
                select(FriendshipRow.accepted).where(_pair(one, other))
            ).scalar()
        return bool(found)

    def block(self, blocker: str, blocked: str, now: float) -> bool:
        """``blocker`` blocks ``blocked``: their friendship (or requests) and ``blocked``'s
        invitations to ``blocker`` go. False when ``blocker`` blocks too many already."""
        with self.database.transaction() as connection:
            if not _blocks(connection, blocker, blocked):
                count = connection.execute(
                    select(BlockRow.blocked).where(BlockRow.blocker == blocker).limit(FRIENDS_MAX)
                ).all()
                if len(count) >= FRIENDS_MAX:
                    return False
            connection.execute(
                upsert(connection)(BlockRow)
                .values(blocker=blocker, blocked=blocked, created=now)
                .on_conflict_do_nothing()
            )
            connection.execute(delete(FriendshipRow).where(_pair(blocker, blocked)))
            connection.execute(
                delete(InvitationRow).where(
                    InvitationRow.account_id == blocker, InvitationRow.sender == blocked
                )
            )
        return True

    def unblock(self, blocker: str, blocked: str) -> bool:
        """The block goes, and the requests ``blocked`` made meanwhile with it (they were
        never shown); whether there was one."""
        with self.database.transaction() as connection:
            found = connection.execute(
                delete(BlockRow).where(BlockRow.blocker == blocker, BlockRow.blocked == blocked)
            ).rowcount
            connection.execute(
                delete(FriendshipRow).where(
                    FriendshipRow.asker == blocked,
                    FriendshipRow.asked == blocker,
                    FriendshipRow.accepted.is_(False),
                )
            )
        return bool(found)

    def blocks(self, blocker: str, blocked: str) -> bool:
        with self.database.engine.connect() as connection:
            return _blocks(connection, blocker, blocked)

    def blocked_by(self, blocker: str) -> set[str]:
        """The accounts ``blocker`` blocks."""
        with self.database.engine.connect() as connection:
            rows = connection.execute(
                select(BlockRow.blocked).where(BlockRow.blocker == blocker)
            ).all()
        return {str(row[0]) for row in rows}

    def blockers_of(self, blocked: str, among: list[str]) -> set[str]:
        """Which of the accounts ``among`` block ``blocked``."""
        if not among:
            return set()
        with self.database.engine.connect() as connection:
            rows = connection.execute(
                select(BlockRow.blocker).where(
                    BlockRow.blocked == blocked, BlockRow.blocker.in_(among)
                )
            ).all()
        return {str(row[0]) for row in rows}

    def of(self, account: str) -> Friends:
        """The account's friends, requests and blocks, by name."""
        with self.database.engine.connect() as connection:
            rows = connection.execute(
                select(FriendshipRow.asker, FriendshipRow.asked, FriendshipRow.accepted)
                .where(or_(FriendshipRow.asker == account, FriendshipRow.asked == account))
                .order_by(FriendshipRow.created)
            ).all()
            blocked = [
                str(row[0])
                for row in connection.execute(
                    select(BlockRow.blocked)
                    .where(BlockRow.blocker == account)
                    .order_by(BlockRow.created)
                ).all()
            ]
            others = {str(r.asked if r.asker == account else r.asker) for r in rows} | set(blocked)
            known: dict[str, Friend] = {}
            if others:
                for found in connection.execute(
                    select(AccountRow.id, AccountRow.name, AccountRow.seen).where(
                        AccountRow.id.in_(sorted(others))
                    )
                ):
                    seen = None if found.seen is None else float(found.seen)
                    known[str(found.id)] = Friend(str(found.id), str(found.name), seen)
        friends, asked, asking = [], [], []
        for row in rows:
            other = str(row.asked if row.asker == account else row.asker)
            if other not in known:
                continue
            if row.accepted:
                friends.append(known[other])
            elif row.asker == account:
                asked.append(known[other])
            elif other not in blocked:
                asking.append(known[other])
        friends.sort(key=lambda f: f.name.casefold())
        return Friends(friends, asked, asking, [known[b] for b in blocked if b in known])

    def seen(self, accounts: list[str], now: float) -> None:
        """These accounts' pages hold their live connections now."""
        if not accounts:
            return
        with self.database.transaction() as connection:
            connection.execute(
                update(AccountRow).where(AccountRow.id.in_(sorted(accounts))).values(seen=now)
            )

    def tables_of(self, accounts: list[str]) -> dict[str, list[dict[str, Any]]]:
        """The listed tables in progress where each of ``accounts`` holds a seat (the latest
        changed first, at most TABLES_SHOWN each): id, game, players, status, mode, the
        number of seats still free."""
        if not accounts:
            return {}
        with self.database.engine.connect() as connection:
            rows = connection.execute(
                select(
                    SeatRow.account_id,
                    GameRow.id,
                    GameRow.game,
                    GameRow.players,
                    GameRow.status,
                    GameRow.mode,
                    GameRow.updated,
                )
                .join(GameRow, GameRow.id == SeatRow.game_id)
                .where(
                    SeatRow.account_id.in_(sorted(accounts)),
                    GameRow.status.in_(LIVE),
                    GameRow.listed.is_(True),
                    GameRow.hotseat.is_(False),
                )
                .order_by(GameRow.updated.desc())
                .limit(TABLES_SHOWN * len(accounts) * 2)
            ).all()
            ids = sorted({str(row.id) for row in rows})
            free: dict[str, int] = {}
            if ids:
                for game_id, claimed in connection.execute(
                    select(SeatRow.game_id, SeatRow.claimed).where(SeatRow.game_id.in_(ids))
                ):
                    if not claimed:
                        free[str(game_id)] = free.get(str(game_id), 0) + 1
        found: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            tables = found.setdefault(str(row.account_id), [])
            if len(tables) >= TABLES_SHOWN or any(t["id"] == row.id for t in tables):
                continue
            players = row.players if isinstance(row.players, list) else []
            tables.append(
                {
                    "id": str(row.id),
                    "game": str(row.game),
                    "players": len(players),
                    "status": str(row.status),
                    "mode": str(row.mode),
                    "free": free.get(str(row.id), 0),
                }
            )
        return found
