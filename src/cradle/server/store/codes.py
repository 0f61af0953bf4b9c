"""One-time codes mailed to a person, stored only as their SHA-256: a link that sets a new
password (an hour), and a link that shows the person reads the mail of their account's address
(a day). Using a code is one transaction: it works once, and a reset ends every session of the
account with it."""

from __future__ import annotations

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.orm import InstrumentedAttribute

from cradle.server.store.accounts import end_sessions
from cradle.server.store.database import Database
from cradle.server.store.schema import AccountRow, EmailCheckRow, PasswordResetRow


def use_code(
    connection: Connection,
    table: type[PasswordResetRow] | type[EmailCheckRow],
    code: str,
    now: float,
    *columns: InstrumentedAttribute[str],
) -> tuple[str, ...] | None:
    """Use ``code`` (its hash) of ``table``: the ``columns`` of its row (as text), which this
    transaction deleted; None for a code unknown, lapsed, or used first by another request."""
    found = connection.execute(
        select(*columns).where(table.code == code, table.expires > now)
    ).first()
    if found is None:
        return None
    used = connection.execute(delete(table).where(table.code == code)).rowcount
    return tuple(str(value) for value in found) if used == 1 else None


class CodeStore:
    """Password resets and address checks."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def new_reset(self, code: str, account_id: str, now: float, expires: float) -> None:
        """Store a reset link's code (its hash) for the account until ``expires``; lapsed
        codes of every account go."""
        with self.database.transaction() as connection:
            connection.execute(delete(PasswordResetRow).where(PasswordResetRow.expires < now))
            connection.execute(
                insert(PasswordResetRow).values(
                    code=code, account_id=account_id, created=now, expires=expires
                )
            )

    def reset(self, code: str, password_hash: str, now: float) -> str | None:
        """Use a reset link's code (its hash): the account's new password, every session of it
        ended (their devices told why) and its other reset codes gone, in one transaction. The
        account's id; None for a code unknown, used or lapsed."""
        with self.database.transaction() as connection:
            found = use_code(connection, PasswordResetRow, code, now, PasswordResetRow.account_id)
            if found is None:
                return None
            account = found[0]
            connection.execute(
                update(AccountRow).where(AccountRow.id == account).values(password=password_hash)
            )
            end_sessions(connection, str(account), "reset")
            connection.execute(
                delete(PasswordResetRow).where(PasswordResetRow.account_id == account)
            )
            # The link reached the address: it is the person's.
            connection.execute(
                update(AccountRow)
                .where(AccountRow.id == account, AccountRow.email.is_not(None))
                .values(email_verified=True)
            )
        return str(account)

    def new_check(self, code: str, account_id: str, email: str, now: float, expires: float) -> None:
        """Store an address check's code (its hash) for ``email`` of the account until
        ``expires``; the account's earlier checks, and lapsed ones of every account, go."""
        with self.database.transaction() as connection:
            connection.execute(delete(EmailCheckRow).where(EmailCheckRow.expires < now))
            connection.execute(delete(EmailCheckRow).where(EmailCheckRow.account_id == account_id))
            connection.execute(
                insert(EmailCheckRow).values(
                    code=code, account_id=account_id, email=email, created=now, expires=expires
                )
            )

    def verify(self, code: str, now: float) -> tuple[str, str] | None:
        """Use an address check's code (its hash): the address it was mailed to is verified,
        if it is still the account's. (account id, address); None for a code unknown, used,
        lapsed, or of an address the account no longer has."""
        with self.database.transaction() as connection:
            columns = (EmailCheckRow.account_id, EmailCheckRow.email)
            found = use_code(connection, EmailCheckRow, code, now, *columns)
            if found is None:
                return None
            account, email = str(found[0]), str(found[1])
            changed = connection.execute(
                update(AccountRow)
                .where(AccountRow.id == account, AccountRow.email == email)
                .values(email_verified=True)
            ).rowcount
        return (account, email) if changed == 1 else None
