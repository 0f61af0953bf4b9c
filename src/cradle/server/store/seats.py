"""Seats as stored: a seat taken (from the lobby, or by its one-time invite code), a seat given
a new token (its player on another device), and the one-time codes that move a guest's seat to
another device. Tokens and codes are stored only as their SHA-256."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Delete, Float, case, delete, insert, literal, or_, select, update
from sqlalchemy.engine import Connection

from cradle.core.words import N_
from cradle.server.store.botjobs import move_job
from cradle.server.store.database import Database
from cradle.server.store.errors import Conflict, Refused
from cradle.server.store.games import Clocks, bump, clock_values
from cradle.server.store.notices import TurnBegins, owe_notice
from cradle.server.store.schema import GameRow, InvitationRow, InviteRow, SeatRow, TransferRow


@dataclass(frozen=True)
class SeatChange:
    """``seat`` of the game at ``version`` taken with a new token (its hash): a free seat
    joined from the lobby (``invite`` None), or the seat of a one-time invite code (its hash),
    which is used up. It is then ``account``'s (None: a guest's) and shows ``name``;
    ``standin``: the bot level the seat chose to play for it when its deadline passes.
    ``status``: the game's after it (``running``: everyone is seated, the first person's
    deadline starts); ``begins``: the turn of the person deciding, whose notice is owed now."""

    game_id: str
    seat: int
    token: str
    version: int
    status: str
    invite: str | None
    account: str | None = None
    name: str | None = None
    standin: str | None = None
    begins: TurnBegins | None = None
    # A friend's invitation to this seat (its id, in ``account``'s inbox), used up with it; the
    # seat's invite link stops working too.
    invitation: str | None = None
    # A live table's clocks once the seat is taken (the one deciding starts when everyone is).
    clocks: Clocks | None = None


@dataclass(frozen=True)
class RekeyChange:
    """A taken ``seat`` of the game at ``version`` gets a new token (its hash): the old one
    stops working. With ``transfer`` (a code's hash) the code is used up in the same write."""

    game_id: str
    seat: int
    token: str
    version: int
    transfer: str | None = None


def use_once(connection: Connection, used: Delete, refused: Refused) -> None:
    """Delete the one row of a one-time grant (an invitation, a seat's transfer code) that
    ``used`` names, else raise ``refused``: it was used, withdrawn or lapsed meanwhile."""
    if connection.execute(used).rowcount != 1:
        raise refused


class SeatStore:
    """Taking seats, new tokens for taken ones, and the codes that move a seat."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def claim(self, change: SeatChange) -> float:
        """Take the seat (see :class:`SeatChange`); Conflict when the seat was taken, the code
        used or expired, or the game changed meanwhile."""
        c = change
        holder = {"account_id": c.account, "name": c.name, "standin": c.standin}

        def work(connection: Connection, now: float) -> None:
            if c.invitation is not None:
                use_once(
                    connection,
                    delete(InvitationRow).where(
                        InvitationRow.id == c.invitation,
                        InvitationRow.game_id == c.game_id,
                        InvitationRow.seat == c.seat,
                        InvitationRow.account_id == c.account,
                    ),
                    Refused(
                        f"invitation {c.invitation} was used or withdrawn",
                        N_("this invitation was used or withdrawn"),
                    ),
                )
                # A seat waiting for its invite link, or one open in the lobby: the link dies.
                invited = connection.execute(
                    delete(InviteRow).where(
                        InviteRow.game_id == c.game_id, InviteRow.seat == c.seat
                    )
                ).rowcount
                taking = update(SeatRow).where(SeatRow.game_id == c.game_id, SeatRow.seat == c.seat)
                if invited != 1:
                    taking = taking.where(SeatRow.claimed.is_(False))
                found = connection.execute(
                    taking.values(claimed=True, token=c.token, **holder)
                ).rowcount
            elif c.invite is None:
                found = connection.execute(
                    update(SeatRow)
                    .where(
                        SeatRow.game_id == c.game_id,
                        SeatRow.seat == c.seat,
                        SeatRow.claimed.is_(False),
                    )
                    .values(claimed=True, token=c.token, **holder)
                ).rowcount
            else:
                found = connection.execute(
                    delete(InviteRow).where(
                        InviteRow.game_id == c.game_id,
                        InviteRow.seat == c.seat,
                        InviteRow.code == c.invite,
                        or_(InviteRow.expires.is_(None), InviteRow.expires > now),
                    )
                ).rowcount
                if found == 1:
                    connection.execute(
                        update(SeatRow)
                        .where(SeatRow.game_id == c.game_id, SeatRow.seat == c.seat)
                        .values(claimed=True, token=c.token, **holder)
                    )
            if found != 1:
                raise Conflict(f"seat {c.seat} of game {c.game_id} was taken meanwhile")
            started: dict[str, Any] = {}
            if c.status == "running":  # everyone is seated: a person's clock starts now
                started["deadline"] = case(
                    (GameRow.deadline.is_not(None), GameRow.deadline),
                    (GameRow.bot_turn.is_(True), None),
                    else_=GameRow.deadline_s + literal(now, Float),
                )
            started.update(clock_values(c.clocks, now))  # a live table's: as ruled
            bump(connection, c.game_id, c.version, status=c.status, updated=now, **started)
            # Whose turn it is does not change: a bot's turn stays as it is, at the new version.
            move_job(connection, c.game_id, c.version + 1)
            if c.begins is not None:
                owe_notice(connection, c.game_id, now, None, False, c.begins)

        return self.database.write(c.game_id, c.version, work)

    def rekey(self, change: RekeyChange) -> float:
        """Give the seat its new token (see :class:`RekeyChange`); Conflict when the game
        changed meanwhile, Refused when the code was used or lapsed."""
        c = change

        def work(connection: Connection, now: float) -> None:
            if c.transfer is not None:
                use_once(
                    connection,
                    delete(TransferRow).where(
                        TransferRow.code == c.transfer,
                        TransferRow.game_id == c.game_id,
                        TransferRow.seat == c.seat,
                        TransferRow.expires > now,
                    ),
                    Refused(
                        f"the transfer of seat {c.seat} of {c.game_id} was used",
                        N_("this link is not valid (each link works once, within the hour)"),
                    ),
                )
            connection.execute(
                update(SeatRow)
                .where(SeatRow.game_id == c.game_id, SeatRow.seat == c.seat)
                .values(token=c.token)
            )
            bump(connection, c.game_id, c.version, updated=now)
            move_job(connection, c.game_id, c.version + 1)

        return self.database.write(c.game_id, c.version, work)

    def new_transfer(self, game_id: str, seat: int, code: str, expires: float, now: float) -> None:
        """Store the one-time code (its hash ``code``) that hands ``seat`` to whoever opens its
        link until ``expires``; the seat's earlier code, and every lapsed one, go."""
        with self.database.transaction() as connection:
            connection.execute(delete(TransferRow).where(TransferRow.expires < now))
            connection.execute(
                delete(TransferRow).where(TransferRow.game_id == game_id, TransferRow.seat == seat)
            )
            connection.execute(
                insert(TransferRow).values(code=code, game_id=game_id, seat=seat, expires=expires)
            )

    def transfer_of(self, game_id: str, code: str, now: float) -> int | None:
        """The seat a live transfer code (its hash) of ``game_id`` hands over (not used up
        here); or None."""
        with self.database.engine.connect() as connection:
            found = connection.execute(
                select(TransferRow.seat).where(
                    TransferRow.code == code,
                    TransferRow.game_id == game_id,
                    TransferRow.expires > now,
                )
            ).scalar()
        return None if found is None else int(found)
