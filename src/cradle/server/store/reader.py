"""How every stored value is read back: checked, never trusted (:class:`Reader`).

SQLite keeps any value in any column, and even PostgreSQL's typed columns hold values no server
wrote; a value that is not what it must be is a :class:`CorruptGame` naming the column, never
the value (which could be a secret's hash).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import NoReturn, SupportsFloat, TypeVar

from sqlalchemy import type_coerce
from sqlalchemy.orm import InstrumentedAttribute
from sqlalchemy.sql.elements import Label
from sqlalchemy.types import NullType

from cradle.server.store.errors import CorruptAccount, CorruptGame

Column = TypeVar("Column")


def raw(column: InstrumentedAttribute[Column]) -> Label[None]:
    """A column read as the database holds it, for :class:`Reader` to check: SQLAlchemy's own
    conversions would pass some bad values on (SQLite's text 'x' in a boolean reads as True)."""
    return type_coerce(column, NullType()).label(column.key)


class Reader:
    """How every stored value of one game is read back: checked, or CorruptGame saying what
    is wrong.

    SQLite keeps any value in any column (a text where a number belongs), and even
    PostgreSQL's typed columns hold values no server wrote (a seat out of range, a JSON of the
    wrong shape): nothing read is trusted. A reason names the column, never its value (which
    could be a secret's hash).
    """

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id

    def fail(self, reason: str) -> NoReturn:
        raise CorruptGame(self.game_id, reason)

    def _present(self, raw: object, what: str) -> object:
        if raw is None:
            self.fail(f"its {what} {_is(what)} missing")
        return raw

    def integer(self, raw: object, what: str, low: int = 0, high: int = 2**63 - 1) -> int:
        value = self._present(raw, what)
        if type(value) is not int:  # not a bool, a float or a text
            self.fail(f"its {what} {_is(what)} not a whole number")
        if not low <= value <= high:
            self.fail(f"its {what} {_is(what)} out of range")
        return value

    def number(self, raw: object, what: str) -> float:
        value = self._present(raw, what)
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail(f"its {what} {_is(what)} not a number")
        if not math.isfinite(value) or value < 0:
            self.fail(f"its {what} {_is(what)} out of range")
        return float(value)

    def flag(self, raw: object, what: str) -> bool:
        value = self._present(raw, what)
        if isinstance(value, bool):
            return value
        if type(value) is int and value in (0, 1):  # SQLite keeps booleans as 0 and 1
            return bool(value)
        self.fail(f"its {what} {_is(what)} neither true nor false")

    def text(self, raw: object, what: str, longest: int, choices: tuple[str, ...] = ()) -> str:
        value = self._present(raw, what)
        if not isinstance(value, str) or not value or len(value) > longest:
            self.fail(f"its {what} {_is(what)} not a text of 1 to {longest} characters")
        if choices and value not in choices:
            self.fail(f"its {what} {_is(what)} none of {', '.join(choices)}")
        return value

    def digest(self, raw: object, what: str) -> str:
        value = self._present(raw, what)
        if not isinstance(value, str) or len(value) != 64 or value.strip(_HEX):
            self.fail(f"its {what} {_is(what)} not a SHA-256 hash")
        return value

    def json(self, raw: object, what: str) -> object:
        value = self._present(raw, what)
        if not isinstance(value, str):
            return value  # a driver that decodes JSON itself
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            self.fail(f"its stored {what} {_is(what)} not valid JSON")

    def names(self, raw: object, what: str) -> list[str]:
        value = self.json(raw, what)
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            self.fail(f"its stored {what} {_is(what)} not a list of names")
        return value


class AccountReader(Reader):
    """How a person's stored values are read back (an account, its ratings): checked, or
    :class:`CorruptAccount` naming the account (its name, readable or not) and the column."""

    def __init__(self, account: object) -> None:
        super().__init__("?")
        self.account = account if isinstance(account, str) and 0 < len(account) <= 64 else "?"

    def fail(self, reason: str) -> NoReturn:
        raise CorruptAccount(self.account, reason)


def live_until(raw: object, now: float) -> bool:
    """Whether a stored expiry (a session's) is a time after ``now``; a value that is no
    finite number is an expiry that passed (SQLite would compare a text as after any number:
    never expiring)."""
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        return False
    return raw > now


_HEX = "0123456789abcdef"


def _is(what: str) -> str:
    return "are" if what in ("players", "seats", "options") else "is"


def checked_id(raw: object) -> str:
    if not isinstance(raw, str) or not 0 < len(raw) <= 40:
        raise CorruptGame("?", "its id is not a text of 1 to 40 characters")
    return raw


def game_ids(found: Iterable[object]) -> list[str]:
    """Game ids from a query; an unreadable one names no game anybody can ask for: left out."""
    return [value for value in found if isinstance(value, str) and 0 < len(value) <= 40]


def stored_number(value: object) -> float | None:
    """A stored number read leniently (the bots' queue: derived data), or None when it is not
    one (a damaged row)."""
    if value is None or isinstance(value, bool) or not isinstance(value, str | SupportsFloat):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None
