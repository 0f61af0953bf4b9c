"""Where the play server keeps its games: one row per game, one row per action (SQLAlchemy 2).

A game is stored as its record (game, options, seed, players, actions) plus the table's seats
and the hashes of the seat tokens. An action row is written, in the same transaction as the
game's move count and status, before the move is acknowledged to anyone, so a server killed at
any moment restarts with every acknowledged move. SQLite is the default; any URL SQLAlchemy
understands works, PostgreSQL through psycopg 3 (``postgresql+psycopg://...``).

Everything here is synchronous; the server calls it from one worker thread per database.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Integer,
    String,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker


class StorageError(RuntimeError):
    """The database refused a write (for instance a move stored twice)."""


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    game: Mapped[str] = mapped_column(String(20))
    players: Mapped[list[str]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(BigInteger)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seats: Mapped[list[str]] = mapped_column(JSON)
    hotseat: Mapped[bool] = mapped_column(Boolean, default=False)
    listed: Mapped[bool] = mapped_column(Boolean, default=True)
    table_token: Mapped[str | None] = mapped_column(String(64), nullable=True)
    status: Mapped[str] = mapped_column(String(10), index=True)
    moves: Mapped[int] = mapped_column(Integer, default=0)
    result: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON, nullable=True)
    created: Mapped[float] = mapped_column(Float)
    updated: Mapped[float] = mapped_column(Float, index=True)


class SeatRow(Base):
    __tablename__ = "seats"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    token: Mapped[str] = mapped_column(String(64))  # sha-256 of the secret token
    claimed: Mapped[bool] = mapped_column(Boolean, default=False)


class ActionRow(Base):
    __tablename__ = "actions"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)  # 0 for the first action
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(200))


@dataclass
class StoredGame:
    """A game as read back from the database."""

    id: str
    game: str
    players: list[str]
    seed: int
    options: dict[str, Any]
    seats: list[str]
    hotseat: bool
    listed: bool
    table_token: str | None
    status: str
    created: float
    updated: float
    tokens: dict[int, str] = field(default_factory=dict)
    claimed: dict[int, bool] = field(default_factory=dict)
    actions: list[str] = field(default_factory=list)
    action_seats: list[int] = field(default_factory=list)


def database_url(db_file: str | Path | None, database: str | None) -> str:
    """The SQLAlchemy URL for ``--database URL`` or ``--db FILE`` (SQLite)."""
    if database:
        if database.startswith("postgresql://") or database.startswith("postgres://"):
            # psycopg 3 is the driver we ship; SQLAlchemy's bare scheme means psycopg2.
            return "postgresql+psycopg://" + database.split("://", 1)[1]
        return database
    if db_file is None:
        raise ValueError("give a database file or URL")
    return f"sqlite:///{Path(db_file)}"


class Storage:
    """The games table and its writes; one instance per server."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        kwargs: dict[str, Any] = {}
        if self.is_sqlite:
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
            path = url.removeprefix("sqlite:///")
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
        else:
            kwargs["pool_pre_ping"] = True
        self.engine: Engine = create_engine(url, **kwargs)
        if self.is_sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
        Base.metadata.create_all(self.engine)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    def close(self) -> None:
        self.engine.dispose()

    # -- writes -------------------------------------------------------------------------------

    def create_game(self, game: StoredGame) -> None:
        with self.sessions.begin() as session:
            session.add(
                GameRow(
                    id=game.id,
                    game=game.game,
                    players=list(game.players),
                    seed=game.seed,
                    options=dict(game.options),
                    seats=list(game.seats),
                    hotseat=game.hotseat,
                    listed=game.listed,
                    table_token=game.table_token,
                    status=game.status,
                    moves=0,
                    result=None,
                    created=game.created,
                    updated=game.updated,
                )
            )
            session.flush()  # the seats refer to the game row
            for seat, token in sorted(game.tokens.items()):
                session.add(
                    SeatRow(
                        game_id=game.id,
                        seat=seat,
                        token=token,
                        claimed=game.claimed.get(seat, False),
                    )
                )

    def append_action(
        self,
        game_id: str,
        ply: int,
        seat: int,
        action: str,
        status: str,
        result: list[dict[str, Any]] | None,
    ) -> None:
        """Store action number ``ply``; fails if that ply is already stored.

        Two statements in one transaction, no ORM objects: this runs for every move. The update
        only matches while the game has exactly ``ply`` moves, so a move can never be stored
        twice or out of order, even by two servers on one database.
        """
        try:
            with self.engine.begin() as connection:
                changed = connection.execute(
                    update(GameRow)
                    .where(GameRow.id == game_id, GameRow.moves == ply)
                    .values(moves=ply + 1, status=status, result=result, updated=time.time())
                ).rowcount
                if changed != 1:
                    raise StorageError(f"game {game_id} does not stand at move {ply}")
                connection.execute(
                    insert(ActionRow),
                    {"game_id": game_id, "ply": ply, "seat": seat, "action": action},
                )
        except StorageError:
            raise
        except Exception as exc:  # the driver's own error types differ per database
            raise StorageError(f"cannot store the move: {exc}") from exc

    def truncate_actions(self, game_id: str, keep: int, status: str) -> None:
        """Forget every action from ply ``keep`` on (the undo of a move)."""
        with self.sessions.begin() as session:
            session.execute(
                delete(ActionRow).where(ActionRow.game_id == game_id, ActionRow.ply >= keep)
            )
            session.execute(
                update(GameRow)
                .where(GameRow.id == game_id)
                .values(moves=keep, status=status, result=None, updated=time.time())
            )

    def set_status(self, game_id: str, status: str) -> None:
        with self.sessions.begin() as session:
            session.execute(update(GameRow).where(GameRow.id == game_id).values(status=status))

    def claim_seat(self, game_id: str, seat: int, token: str | None = None) -> None:
        """Mark ``seat`` as taken; with ``token``, replace its token (a seat joined from the lobby)."""
        values: dict[str, Any] = {"claimed": True}
        if token is not None:
            values["token"] = token
        with self.sessions.begin() as session:
            session.execute(
                update(SeatRow)
                .where(SeatRow.game_id == game_id, SeatRow.seat == seat)
                .values(**values)
            )

    # -- reads --------------------------------------------------------------------------------

    def load(self, game_id: str) -> StoredGame | None:
        with self.sessions() as session:
            row = session.get(GameRow, game_id)
            if row is None:
                return None
            return self._stored(session, row)

    def load_unfinished(self) -> list[StoredGame]:
        with self.sessions() as session:
            rows = session.scalars(select(GameRow).where(GameRow.status != "over")).all()
            return [self._stored(session, row) for row in rows]

    def list_games(self, limit: int = 200) -> list[dict[str, Any]]:
        """Public facts about the most recently active listed games (never seeds or tokens)."""
        with self.sessions() as session:
            rows = session.execute(
                select(
                    GameRow.id,
                    GameRow.game,
                    GameRow.players,
                    GameRow.seats,
                    GameRow.hotseat,
                    GameRow.status,
                    GameRow.moves,
                    GameRow.created,
                    GameRow.updated,
                )
                .where(GameRow.listed.is_(True))
                .order_by(GameRow.updated.desc())
                .limit(limit)
            ).all()
            return [dict(row._mapping) for row in rows]

    def count_games(self) -> int:
        with self.sessions() as session:
            return int(session.scalar(select(func.count()).select_from(GameRow)) or 0)

    def _stored(self, session: Session, row: GameRow) -> StoredGame:
        seats = session.scalars(select(SeatRow).where(SeatRow.game_id == row.id)).all()
        actions = session.execute(
            select(ActionRow.ply, ActionRow.seat, ActionRow.action)
            .where(ActionRow.game_id == row.id)
            .order_by(ActionRow.ply)
        ).all()
        return StoredGame(
            id=row.id,
            game=row.game,
            players=list(row.players),
            seed=row.seed,
            options=dict(row.options),
            seats=list(row.seats),
            hotseat=row.hotseat,
            listed=row.listed,
            table_token=row.table_token,
            status=row.status,
            created=row.created,
            updated=row.updated,
            tokens={s.seat: s.token for s in seats},
            claimed={s.seat: s.claimed for s in seats},
            actions=[a.action for a in actions],
            action_seats=[a.seat for a in actions],
        )


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    # WAL keeps readers off the writer's back; NORMAL sync is durable against a killed
    # process (the OS holds the written pages), which is the crash the server must survive.
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
