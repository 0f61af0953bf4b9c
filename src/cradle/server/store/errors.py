"""What the store raises: every failure of the database is a :class:`StorageError` (or
SQLAlchemy's own error) whose ``reason`` the server answers with, as a 503; a stored game that
cannot be read back is a :class:`CorruptGame`, set aside alone, and a person's row one
:class:`CorruptAccount`."""

from __future__ import annotations

from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from cradle.core.words import N_


class StorageError(RuntimeError):
    """The database refused a write, or cannot be used. ``reason``: what a client may be told
    (never the driver's text, which can quote the statement and its parameters), a message of
    the translation catalogues (marked ``N_``) where a player may read it."""

    def __init__(self, message: str, reason: str = N_("the database failed")) -> None:
        super().__init__(message)
        self.reason = reason


class Conflict(StorageError):
    """Another process changed the game first: reload it and decide again."""

    def __init__(self, message: str) -> None:
        super().__init__(message, N_("the game keeps changing"))


class Refused(StorageError):
    """A write whose condition a client got wrong (a used or lapsed code): ``reason`` says
    which; nothing changed."""


class ReadOnly(StorageError):
    """A write to a database this server may only read (:attr:`Database.read_only`)."""


class CapReached(StorageError):
    """A new game does not fit the caps; ``reason`` says which, for the client: a message of
    the catalogues with its named ``params``."""

    def __init__(self, reason: str, /, **params: int | float) -> None:
        super().__init__(reason.format(**params))
        self.reason = reason
        self.params = params


class Corrupt(StorageError):
    """A stored row that cannot be read back; ``reason`` says why (it names no secret), and
    ``said`` (a message of the catalogues, with its ``params``) what a client is told."""

    def __init__(self, message: str, reason: str, said: str, params: dict[str, str]) -> None:
        super().__init__(message, reason)
        self.said = said
        self.params = params


class CorruptGame(Corrupt):
    """A stored game that cannot be read back."""

    def __init__(self, game_id: str, reason: str) -> None:
        said = N_("game {game} cannot be restored: {reason}")
        params = {"game": game_id, "reason": reason}
        super().__init__(f"game {game_id}: {reason}", reason, said, params)
        self.game_id = game_id


class CorruptAccount(Corrupt):
    """A person's stored row (an account, a rating) that cannot be read back. What asks for
    that account answers 503; lists leave it out."""

    def __init__(self, account: str, reason: str) -> None:
        said = N_("the account {account} cannot be read: {reason}")
        params = {"account": account, "reason": reason}
        super().__init__(f"account {account}: {reason}", reason, said, params)
        self.account = account


# What a failing database raises, wrapped or not: the server answers all of them with a 503.
DATABASE_ERRORS: tuple[type[Exception], ...] = (StorageError, DBAPIError, PoolTimeout)


def trouble(exc: BaseException) -> str:
    """What went wrong with the database, in words a client may read (no statement, no URL):
    a message of the translation catalogues, which the client says in its language."""
    if isinstance(exc, StorageError):
        return exc.reason
    said = str(getattr(exc, "orig", None) or exc).lower()
    if isinstance(exc, PoolTimeout) or "database is locked" in said:
        return N_("the database is busy")
    if "disk is full" in said or "no space left" in said or "disk full" in said:
        return N_("the database's disk is full")
    if "readonly database" in said or "read-only" in said or "read only" in said:
        return N_("the database cannot be written")
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return N_("the connection to the database was lost")
    if "unable to open database file" in said or "disk i/o error" in said:
        return N_("the database file cannot be used")
    if isinstance(exc, DBAPIError) and isinstance(exc.orig, Exception):
        kind = type(exc.orig).__name__
        if kind in ("OperationalError", "InterfaceError"):
            return N_("the database cannot be reached")
    return N_("the database failed")
