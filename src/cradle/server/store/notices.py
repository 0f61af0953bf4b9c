"""Turn notices by e-mail, as the database owes them: a person's turn that begins with a change
owes its notice (:func:`owe_notice`, in that change's transaction); a process claims an owed
notice to send it (:meth:`NoticeStore.claim_due`), once per turn whichever process claims it;
a notice's one-time "no more mails" code stops its account's mails (:meth:`NoticeStore.stop`).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, insert, select, tuple_, update
from sqlalchemy.engine import Connection

from cradle.server.store.database import Database, upsert
from cradle.server.store.games import away_seats
from cradle.server.store.schema import (
    AccountRow,
    ActionRow,
    DueNoticeRow,
    GameRow,
    MailStopRow,
    SeatRow,
    TurnNoticeRow,
)


@dataclass(frozen=True)
class TurnBegins:
    """A person's turn at a turn-based table begins with a change: its e-mail notice is owed
    (written with the change). ``turn``: the move number the turn begins at."""

    seat: int
    turn: int


@dataclass(frozen=True)
class DueMail:
    """A turn notice a process claimed to send: where to, and what the mail says."""

    game_id: str
    game: str
    seat: int
    turn: int
    player: str  # the seat's name in the game (Archer, Bull, ...)
    deadline_s: float | None
    address: str
    away: bool = False  # the seat's stand-in plays its turns whose deadline passes
    language: str | None = None  # the account's (a catalogue's BCP 47 tag); None: not known
    tries: int = 0  # the earlier tries the SMTP server did not take


def turn_begins(
    mode: str,
    playing: list[str],
    claimed: dict[int, bool],
    mover: int | None,
    deciding: int | None,
    turn: int,
) -> TurnBegins | None:
    """The person's turn a change begins, whose e-mail notice is owed: at a turn-based table
    (``mode``), the seat ``deciding`` after it is a taken human seat no bot plays for
    (``playing``: the seats as they play then) and not the one that moved (``mover``; None:
    nobody moved, the last seat was taken). ``turn``: the move number the turn begins at."""
    if mode != "turn" or deciding is None or deciding == mover:
        return None
    if playing[deciding] != "human" or not claimed.get(deciding, True):
        return None
    return TurnBegins(deciding, turn)


def owe_notice(
    connection: Connection,
    game_id: str,
    now: float,
    acted: int | None,
    over: bool,
    begins: TurnBegins | None,
) -> None:
    """Keep a turn-based game's owed notices with a change: the seat that ``acted`` (moved,
    or its stand-in took over) is owed none, a game ``over`` none at all, and the person
    whose turn ``begins`` one, if their account wants these mails and it was not sent."""
    if over:
        connection.execute(delete(DueNoticeRow).where(DueNoticeRow.game_id == game_id))
        return
    if acted is not None:
        connection.execute(
            delete(DueNoticeRow).where(DueNoticeRow.game_id == game_id, DueNoticeRow.seat == acted)
        )
    if begins is None or mail_address(connection, game_id, begins.seat) is None:
        return
    sent = connection.execute(
        select(TurnNoticeRow.turn).where(
            TurnNoticeRow.game_id == game_id,
            TurnNoticeRow.seat == begins.seat,
            TurnNoticeRow.turn == begins.turn,
        )
    ).first()
    if sent is None:
        connection.execute(
            upsert(connection)(DueNoticeRow)
            .values(game_id=game_id, seat=begins.seat, turn=begins.turn, due=now)
            .on_conflict_do_nothing()
        )


def mail_address(
    connection: Connection, game_id: str, seat: int
) -> tuple[str, str, str | None] | None:
    """(account id, e-mail address, language) of the account holding ``seat`` if it wants
    turn notices by e-mail at an address it verified."""
    row = connection.execute(
        select(AccountRow.id, AccountRow.email, AccountRow.language)
        .join(SeatRow, SeatRow.account_id == AccountRow.id)
        .where(
            SeatRow.game_id == game_id,
            SeatRow.seat == seat,
            AccountRow.turn_mail.is_(True),
            AccountRow.email.is_not(None),
            AccountRow.email_verified.is_(True),  # no mail before the address is checked
        )
    ).first()  # a guest's seat has no account, and a guest no mail
    if row is None or not isinstance(row[1], str) or "@" not in row[1]:
        return None
    return str(row[0]), row[1], None if row[2] is None else str(row[2])


class NoticeStore:
    """The owed turn notices, their claims, and the "no more mails" codes."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def due(self) -> list[tuple[str, int, int]]:
        """The turn notices owed now: (game, seat, turn), oldest first."""
        with self.database.engine.connect() as connection:
            rows = connection.execute(
                select(DueNoticeRow.game_id, DueNoticeRow.seat, DueNoticeRow.turn).order_by(
                    DueNoticeRow.due
                )
            ).all()
            return [(str(game), int(seat), int(turn)) for game, seat, turn in rows]

    def claim_due(self, code: str, now: float) -> DueMail | None:
        """Claim the oldest turn notice owed whose person still wants it: what to send, with
        ``code`` (a hash) stored as its one-time "no more mails" code; None when none is owed.
        The claim removes the owed row and writes the sent one (``turn_notices``, whose key
        allows one per turn) in one transaction: of two processes, one claims each notice
        (PostgreSQL: the others skip the rows it holds), and no turn is ever mailed twice."""
        owed = DueNoticeRow.due <= now  # a notice to retry is owed again from its ``due``
        with (
            self.database.engine.connect() as connection
        ):  # a look first: most of the time none is owed
            if (
                connection.execute(select(DueNoticeRow.game_id).where(owed).limit(1)).first()
                is None
            ):
                return None
        with self.database.transaction() as connection:
            while True:
                # The oldest owed row, taken in one statement (on SQLite, a write first: the
                # transaction holds the write lock from its start, never upgrades a read).
                oldest = select(DueNoticeRow.game_id, DueNoticeRow.seat, DueNoticeRow.turn)
                oldest = oldest.where(owed).order_by(DueNoticeRow.due).limit(1)
                if not self.database.is_sqlite:
                    oldest = oldest.with_for_update(skip_locked=True)
                taken = connection.execute(
                    delete(DueNoticeRow)
                    .where(
                        tuple_(DueNoticeRow.game_id, DueNoticeRow.seat, DueNoticeRow.turn).in_(
                            oldest
                        )
                    )
                    .returning(
                        DueNoticeRow.game_id,
                        DueNoticeRow.seat,
                        DueNoticeRow.turn,
                        DueNoticeRow.tries,
                    )
                ).first()
                if taken is None:
                    return None
                game_id, seat, turn = str(taken[0]), int(taken[1]), int(taken[2])
                tries = taken[3] if type(taken[3]) is int and taken[3] >= 0 else 0
                mail = self._claim_notice(connection, game_id, seat, turn, code, now, tries)
                if mail is not None:
                    return mail

    def retry(self, mail: DueMail, code: str, due: float) -> bool:
        """The SMTP server did not take ``mail`` (it was down, or refused it for now): undo
        its claim (the sent row, its "no more mails" code ``code``, a hash) and owe it again
        from ``due``, one try more, if it is still owed: its game in play and its seat not
        acted since the turn began (nor its stand-in). False when it is owed no more."""
        with self.database.transaction() as connection:
            connection.execute(delete(MailStopRow).where(MailStopRow.code == code))
            connection.execute(
                delete(TurnNoticeRow).where(
                    TurnNoticeRow.game_id == mail.game_id,
                    TurnNoticeRow.seat == mail.seat,
                    TurnNoticeRow.turn == mail.turn,
                )
            )
            running = connection.execute(
                select(GameRow.id).where(GameRow.id == mail.game_id, GameRow.status == "running")
            ).first()
            acted = connection.execute(
                select(ActionRow.ply).where(
                    ActionRow.game_id == mail.game_id,
                    ActionRow.seat == mail.seat,
                    ActionRow.ply >= mail.turn,  # the turn began at move ``turn``
                )
            ).first()
            if running is None or acted is not None:
                return False
            connection.execute(
                upsert(connection)(DueNoticeRow)
                .values(
                    game_id=mail.game_id,
                    seat=mail.seat,
                    turn=mail.turn,
                    due=due,
                    tries=mail.tries + 1,
                )
                .on_conflict_do_nothing()
            )
            return True

    def _claim_notice(
        self,
        connection: Connection,
        game_id: str,
        seat: int,
        turn: int,
        code: str,
        now: float,
        tries: int = 0,
    ) -> DueMail | None:
        game = connection.execute(
            select(GameRow.game, GameRow.players, GameRow.deadline_s, GameRow.away).where(
                GameRow.id == game_id, GameRow.status == "running"
            )
        ).first()
        if game is None:
            return None  # ended meanwhile
        found = mail_address(connection, game_id, seat)
        if found is None:
            return None  # no account that wants these mails holds the seat (any more)
        players = game[1]
        if not isinstance(players, list) or not 0 <= seat < len(players):
            return None
        account, address, language = found
        # The row comes back only when this insert made it (psycopg counts no rows here).
        claimed = connection.execute(
            upsert(connection)(TurnNoticeRow)
            .values(game_id=game_id, seat=seat, turn=turn, sent=now)
            .on_conflict_do_nothing()
            .returning(TurnNoticeRow.turn)
        ).first()
        if claimed is None:
            return None
        connection.execute(
            insert(MailStopRow), {"code": code, "account_id": account, "created": now}
        )
        deadline_s = game[2]
        return DueMail(
            game_id=game_id,
            game=str(game[0]),
            seat=seat,
            turn=turn,
            player=str(players[seat]),
            deadline_s=None if deadline_s is None else float(deadline_s),
            address=address,
            away=isinstance(game[3], int) and seat in away_seats(game[3]),
            language=language,
            tries=tries,
        )

    def stop(self, code: str) -> bool:
        """Use the one-time code ``code`` (a hash) of a mail's "no more mails" link: its
        account gets no more turn notices. False for a code unknown or used."""
        with self.database.transaction() as connection:
            account = connection.execute(
                select(MailStopRow.account_id).where(MailStopRow.code == code)
            ).scalar()
            if account is None:
                return False
            used = connection.execute(delete(MailStopRow).where(MailStopRow.code == code))
            if used.rowcount != 1:  # another request used it first
                return False
            connection.execute(
                update(AccountRow).where(AccountRow.id == account).values(turn_mail=False)
            )
            return True
