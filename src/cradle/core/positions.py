"""Checks shared by the games' position readers (``from_position``)."""

from __future__ import annotations


class PositionError(ValueError):
    """A position that is malformed or impossible: the message says which part is wrong."""


def expect(condition: bool, message: str) -> None:
    """Refuse the position with ``message`` unless ``condition`` holds."""
    if not condition:
        raise PositionError(message)


def expect_object(value: object, message: str) -> dict[str, object]:
    """``value`` when it is a JSON object (a dict); PositionError with ``message`` otherwise."""
    if not isinstance(value, dict):
        raise PositionError(message)
    return value


def bounded_int(value: object, what: str, low: int, high: int) -> int:
    """``value`` as an int in ``low..high`` (bools refused); PositionError otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise PositionError(f"{what} must be an integer from {low} to {high}, not {value!r}")
    return value
