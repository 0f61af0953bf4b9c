"""Accounts and their sessions as stored (:mod:`cradle.server.accounts` has the rules: names,
passwords, cookies): an account's name and its key, its password's hash, its mail settings, its
language, its sessions by their cookie's hash, and the games it holds seats at."""

from __future__ import annotations

import secrets
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Select, delete, func, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from cradle.core.words import N_
from cradle.server.store.database import Database
from cradle.server.store.errors import StorageError
from cradle.server.store.lobby import LobbyStore
from cradle.server.store.reader import AccountReader, live_until, raw
from cradle.server.store.schema import (
    AccountRow,
    ChatLineRow,
    ChatMuteRow,
    DeviceRow,
    EmailCheckRow,
    NameSkeletonRow,
    PasswordResetRow,
    SeatRow,
    SessionRow,
)

FORMER = "former player"  # the name at the seats of a deleted account (no one may take it)
# Why a session ended, as its device is told: the password was changed on another device, or
# reset by a mailed link.
ENDED_REASONS = ("password", "reset")


class Taken(StorageError):
    def __init__(self, alike: bool = False) -> None:
        reason = N_("that name looks like one taken") if alike else N_("that name is taken")
        super().__init__(reason, reason)


@dataclass(frozen=True)
class Account:
    id: str
    name: str
    email: str | None
    turn_mail: bool
    created: float
    email_verified: bool = False  # the person opened the link mailed to ``email``
    invite_mail: bool = False  # friends' invitations to seats are mailed too
    language: str | None = None  # a catalogue's BCP 47 tag (cradle.i18n.tags); None: not known

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "email": self.email,
            "email_verified": self.email_verified,
            "turn_mail": self.turn_mail,
            "invite_mail": self.invite_mail,
            "created": self.created,
            "language": self.language,
        }

    @property
    def mail_to(self) -> str | None:
        """The address mail may go to: a verified one."""
        return self.email if self.email_verified else None


def end_sessions(
    connection: Connection, account_id: str, reason: str, keep: str | None = None
) -> None:
    """End every session of the account but ``keep`` (a cookie's hash), saying ``reason`` to
    their devices (``ENDED_REASONS``)."""
    ending = update(SessionRow).where(
        SessionRow.account_id == account_id, SessionRow.ended.is_(None)
    )
    if keep is not None:
        ending = ending.where(SessionRow.id != keep)
    connection.execute(ending.values(ended=reason))


ACCOUNT_COLUMNS = (
    raw(AccountRow.id),
    raw(AccountRow.name),
    raw(AccountRow.email),
    raw(AccountRow.turn_mail),
    raw(AccountRow.created),
    raw(AccountRow.email_verified),
    raw(AccountRow.invite_mail),
    raw(AccountRow.language),
)


def read_account(row: Any) -> Account:
    """An account as stored (:data:`ACCOUNT_COLUMNS`), every value checked: a damaged one is
    :class:`CorruptAccount` (a 503 for that account), never an answer built on it."""
    read = AccountReader(row.name)
    email = row.email
    if email is not None:
        email = read.text(email, "e-mail address", 254)
    language = row.language
    if language is not None:
        language = read.text(language, "language", 16)
    return Account(
        read.text(row.id, "id", 16),
        read.text(row.name, "name", 64),
        email,
        read.flag(row.turn_mail, "turn mail setting"),
        read.number(row.created, "creation time"),
        read.flag(row.email_verified, "address check") and email is not None,
        read.flag(row.invite_mail, "invitation mail setting"),
        language,
    )


class AccountStore:
    """Accounts, sessions and the games an account holds seats at."""

    def __init__(self, database: Database, lobby: LobbyStore) -> None:
        self.database = database
        self.lobby = lobby

    def create(
        self,
        name: str,
        key: str,
        skeletons: Collection[str],
        password_hash: str,
        now: float,
        language: str | None = None,
    ) -> Account:
        """A new account named ``name`` (``key``: the name's key, ``accounts.name_key``;
        ``skeletons``: its looks, ``text.name_skeletons``) that speaks ``language``;
        :class:`Taken` when the name (in any case) is someone's, or looks like someone's."""
        account_id = secrets.token_hex(8)
        try:
            with self.database.transaction() as connection:
                taken = connection.execute(
                    select(AccountRow.id).where(AccountRow.name_key == key)
                ).first()
                alike = connection.execute(
                    select(NameSkeletonRow.account_id).where(
                        NameSkeletonRow.skeleton.in_(sorted(skeletons))
                    )
                ).first()
                if taken is not None or alike is not None:
                    raise Taken(alike=taken is None)
                connection.execute(
                    insert(AccountRow).values(
                        id=account_id,
                        name=name,
                        name_key=key,
                        password=password_hash,
                        created=now,
                        turn_mail=False,
                        language=language,
                    )
                )
                for skeleton in sorted(skeletons):
                    connection.execute(
                        insert(NameSkeletonRow).values(skeleton=skeleton, account_id=account_id)
                    )
        except StorageError as exc:
            if isinstance(exc.__cause__, IntegrityError):
                raise Taken() from None  # another process took it meanwhile
            raise
        return Account(account_id, name, None, False, now, language=language)

    def by_id(self, account_id: str) -> Account | None:
        return self._one(AccountRow.id == account_id)

    def by_key(self, key: str) -> Account | None:
        """The account whose name's key is ``key`` (``accounts.name_key``), or None."""
        return self._one(AccountRow.name_key == key)

    def _one(self, where: ColumnElement[bool]) -> Account | None:
        """The account ``where`` picks (a unique column's value), or None."""
        with self.database.engine.connect() as connection:
            row = connection.execute(select(*ACCOUNT_COLUMNS).where(where)).first()
        return None if row is None else read_account(row)

    def by_address(self, email: str, limit: int) -> list[Account]:
        """The accounts (at most ``limit``) whose verified address is ``email`` (in any case)."""
        with self.database.engine.connect() as connection:
            rows = connection.execute(
                select(*ACCOUNT_COLUMNS)
                .where(
                    func.lower(AccountRow.email) == email.lower(),
                    AccountRow.email_verified.is_(True),
                )
                .order_by(AccountRow.created)
                .limit(limit)
            ).all()
        return [read_account(row) for row in rows]

    def password_of(self, key: str) -> tuple[str, str] | None:
        """(account id, password hash) of the account whose name's key is ``key``, or None."""
        with self.database.engine.connect() as connection:
            row = connection.execute(
                select(AccountRow.id, AccountRow.password).where(AccountRow.name_key == key)
            ).first()
        return None if row is None else (str(row.id), str(row.password))

    def password_by_id(self, account_id: str) -> str | None:
        return self._text(select(AccountRow.password).where(AccountRow.id == account_id))

    def _text(self, query: Select[str] | Select[str | None]) -> str | None:
        """The one value ``query`` reads (the first row's first column) as text, or None."""
        with self.database.engine.connect() as connection:
            found = connection.execute(query).scalar()
        return None if found is None else str(found)

    def alike(self, skeletons: Collection[str]) -> bool:
        """Whether an account's name has one of these looks (``text.name_skeletons``)."""
        with self.database.engine.connect() as connection:
            found = connection.execute(
                select(NameSkeletonRow.account_id).where(
                    NameSkeletonRow.skeleton.in_(sorted(skeletons))
                )
            ).first()
        return found is not None

    def device_account(self, device: str) -> str | None:
        """The account of the device (or home address) whose hash is ``device``, or None."""
        return self._text(select(DeviceRow.account_id).where(DeviceRow.id == device))

    def remember_devices(
        self, account_id: str, devices: Collection[str], now: float, forget: float, keep: int
    ) -> None:
        """The devices (and home addresses) whose hashes are ``devices`` are the account's, used
        ``now``; those unused since ``forget`` go, and the account keeps its ``keep`` most
        recently used."""
        with self.database.transaction() as connection:
            connection.execute(delete(DeviceRow).where(DeviceRow.used < forget))
            for device in devices:
                updated = connection.execute(
                    update(DeviceRow)
                    .where(DeviceRow.id == device, DeviceRow.account_id == account_id)
                    .values(used=now)
                ).rowcount
                if not updated:
                    connection.execute(delete(DeviceRow).where(DeviceRow.id == device))
                    connection.execute(
                        insert(DeviceRow).values(
                            id=device, account_id=account_id, created=now, used=now
                        )
                    )
            surplus = (
                select(DeviceRow.id)
                .where(DeviceRow.account_id == account_id)
                .order_by(DeviceRow.used.desc(), DeviceRow.id)
                .offset(keep)
            )
            old = [row.id for row in connection.execute(surplus)]
            if old:
                connection.execute(delete(DeviceRow).where(DeviceRow.id.in_(old)))

    def add_session(self, session: str, account_id: str, now: float, expires: float) -> None:
        """A new session (``session``: its cookie's hash) of the account until ``expires``; the
        lapsed sessions of every account go."""
        with self.database.transaction() as connection:
            connection.execute(delete(SessionRow).where(SessionRow.expires < now))
            connection.execute(
                insert(SessionRow).values(
                    id=session, account_id=account_id, created=now, expires=expires
                )
            )

    def account_of_session(self, session: str, now: float) -> Account | None:
        """The account of the session whose cookie's hash is ``session``; None when it is no
        live session."""
        with self.database.engine.connect() as connection:
            row = connection.execute(
                select(*ACCOUNT_COLUMNS, raw(SessionRow.expires))
                .join(SessionRow, SessionRow.account_id == AccountRow.id)
                .where(
                    SessionRow.id == session,
                    SessionRow.ended.is_(None),
                    AccountRow.suspended.is_not(True),
                )
            ).first()
        if row is None:
            return None
        if not live_until(row.expires, now):
            # Lapsed, or an expiry that cannot be read (which must never mean "for ever").
            if not self.database.read_only:
                self.end_session(session)
            return None
        return read_account(row)

    def ended(self, session: str, now: float) -> str | None:
        """Why the session whose cookie's hash is ``session`` ended (``ENDED_REASONS``), if it
        ended so and its device was not told yet; telling it is this call (the row goes)."""
        with self.database.transaction() as connection:
            reason = connection.execute(
                select(SessionRow.ended).where(
                    SessionRow.id == session,
                    SessionRow.expires > now,
                    SessionRow.ended.is_not(None),
                )
            ).scalar()
            if reason is None:
                return None
            connection.execute(delete(SessionRow).where(SessionRow.id == session))
        return str(reason) if reason in ENDED_REASONS else None

    def ended_reason(self, session: str) -> str | None:
        """Why the session ended (``ENDED_REASONS``), without telling its device yet."""
        found = self._text(select(SessionRow.ended).where(SessionRow.id == session))
        return found if found in ENDED_REASONS else None

    def end_session(self, session: str) -> None:
        with self.database.transaction() as connection:
            connection.execute(delete(SessionRow).where(SessionRow.id == session))

    def set_password(self, account_id: str, password_hash: str, keep: str) -> None:
        """A new password; every other session of the account ends (``keep``: this one's
        cookie's hash), its device told why when it next asks."""
        with self.database.transaction() as connection:
            connection.execute(
                update(AccountRow).where(AccountRow.id == account_id).values(password=password_hash)
            )
            end_sessions(connection, account_id, "password", keep)
            # A reset link mailed before the change would undo it: it goes.
            connection.execute(
                delete(PasswordResetRow).where(PasswordResetRow.account_id == account_id)
            )

    def set_mail(
        self, account_id: str, email: str | None, turn_mail: bool, invite_mail: bool
    ) -> bool:
        """The account's address and what it wants mailed; a new address is unverified (its
        earlier checks go). Whether the address changed."""
        with self.database.transaction() as connection:
            before = connection.execute(
                select(AccountRow.email).where(AccountRow.id == account_id)
            ).scalar()
            changed = before != email
            values: dict[str, Any] = {
                "email": email,
                "turn_mail": turn_mail and email is not None,
                "invite_mail": invite_mail and email is not None,
            }
            if changed:
                values["email_verified"] = False
                connection.execute(
                    delete(EmailCheckRow).where(EmailCheckRow.account_id == account_id)
                )
            connection.execute(
                update(AccountRow).where(AccountRow.id == account_id).values(**values)
            )
        return changed

    def set_language(self, account_id: str, language: str | None) -> None:
        """The account's language (a catalogue's tag; None: not known)."""
        with self.database.transaction() as connection:
            connection.execute(
                update(AccountRow).where(AccountRow.id == account_id).values(language=language)
            )

    def delete(self, account_id: str) -> None:
        """The account and its sessions go; its games stay, its seats named ``former player``."""
        with self.database.transaction() as connection:
            self.delete_in(connection, account_id)

    def delete_in(self, connection: Connection, account_id: str) -> None:
        """:meth:`delete` in the caller's transaction (an operator's, with its log row)."""
        connection.execute(
            update(SeatRow)
            .where(SeatRow.account_id == account_id)
            .values(account_id=None, name=FORMER)
        )
        # Its chat lines stay with their games, under the same name as its seats; its mutes go
        # (its ratings go with the account: their rows cascade).
        connection.execute(
            update(ChatLineRow).where(ChatLineRow.speaker == f"a:{account_id}").values(name=FORMER)
        )
        connection.execute(delete(ChatMuteRow).where(ChatMuteRow.viewer == f"a:{account_id}"))
        connection.execute(delete(SessionRow).where(SessionRow.account_id == account_id))
        connection.execute(delete(AccountRow).where(AccountRow.id == account_id))

    def count(self) -> int:
        with self.database.engine.connect() as connection:
            return int(
                connection.execute(select(func.count()).select_from(AccountRow)).scalar() or 0
            )
