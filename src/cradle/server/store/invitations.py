"""Friends' invitations to seats, as stored: an entry in the invited account's inbox naming a
game's seat, shown while the seat is free and the game in progress; taking the seat uses it up
(:class:`cradle.server.store.seats.SeatChange` with ``invitation``)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from sqlalchemy import delete, insert, or_, select
from sqlalchemy.orm import aliased

from cradle.server.store.database import Database
from cradle.server.store.schema import (
    LIVE,
    AccountRow,
    GameRow,
    InvitationRow,
    InviteRow,
    SeatRow,
)

INBOX_MAX = 50  # invitations an account's inbox holds (the oldest give way)


@dataclass(frozen=True)
class Invitation:
    """An invitation in an inbox: its id, the game and seat, who sent it, when."""

    id: str
    game_id: str
    game: str
    seat: int
    players: int
    mode: str
    sender: str  # the sender's name
    created: float


class InvitationStore:
    """The invitations in the accounts' inboxes."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def add(self, game_id: str, seat: int, account: str, sender: str, now: float) -> str:
        """Put an invitation to ``seat`` in ``account``'s inbox (an earlier one to the same seat
        gives way); its id."""
        invitation = secrets.token_hex(8)
        with self.database.transaction() as connection:
            connection.execute(
                delete(InvitationRow).where(
                    InvitationRow.account_id == account,
                    InvitationRow.game_id == game_id,
                    InvitationRow.seat == seat,
                )
            )
            kept = connection.execute(
                select(InvitationRow.id)
                .where(InvitationRow.account_id == account)
                .order_by(InvitationRow.created.desc())
                .offset(INBOX_MAX - 1)
            ).all()
            if kept:
                connection.execute(
                    delete(InvitationRow).where(InvitationRow.id.in_([row[0] for row in kept]))
                )
            connection.execute(
                insert(InvitationRow).values(
                    id=invitation,
                    game_id=game_id,
                    seat=seat,
                    account_id=account,
                    sender=sender,
                    created=now,
                )
            )
        return invitation

    def of(self, account: str) -> list[Invitation]:
        """The invitations in ``account``'s inbox whose seat is still free (open, or waiting
        for its invite link) at a game in progress, newest first."""
        sender = aliased(AccountRow)
        with self.database.engine.connect() as connection:
            rows = connection.execute(
                select(
                    InvitationRow.id,
                    InvitationRow.game_id,
                    InvitationRow.seat,
                    InvitationRow.created,
                    GameRow.game,
                    GameRow.players,
                    GameRow.mode,
                    sender.name,
                )
                .join(GameRow, GameRow.id == InvitationRow.game_id)
                .join(
                    SeatRow,
                    (SeatRow.game_id == InvitationRow.game_id)
                    & (SeatRow.seat == InvitationRow.seat),
                )
                .join(sender, sender.id == InvitationRow.sender)
                .outerjoin(
                    InviteRow,
                    (InviteRow.game_id == InvitationRow.game_id)
                    & (InviteRow.seat == InvitationRow.seat),
                )
                .where(
                    InvitationRow.account_id == account,
                    GameRow.status.in_(LIVE),
                    or_(SeatRow.claimed.is_(False), InviteRow.seat.is_not(None)),
                )
                .order_by(InvitationRow.created.desc())
                .limit(INBOX_MAX)
            ).all()
        return [
            Invitation(
                id=str(row.id),
                game_id=str(row.game_id),
                game=str(row.game),
                seat=int(row.seat),
                players=len(row.players) if isinstance(row.players, list) else 0,
                mode=str(row.mode),
                sender=str(row.name),
                created=float(row.created),
            )
            for row in rows
        ]

    def get(self, invitation: str, account: str) -> tuple[str, int] | None:
        """(game, seat) of ``account``'s invitation ``invitation``, or None."""
        with self.database.engine.connect() as connection:
            row = connection.execute(
                select(InvitationRow.game_id, InvitationRow.seat).where(
                    InvitationRow.id == invitation, InvitationRow.account_id == account
                )
            ).first()
        return None if row is None else (str(row[0]), int(row[1]))

    def decline(self, invitation: str, account: str) -> bool:
        with self.database.transaction() as connection:
            return bool(
                connection.execute(
                    delete(InvitationRow).where(
                        InvitationRow.id == invitation, InvitationRow.account_id == account
                    )
                ).rowcount
            )
