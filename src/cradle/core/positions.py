"""Checks shared by the games' position readers (``from_position``)."""

from __future__ import annotations

from typing import Any


class PositionError(ValueError):
    """A position that is malformed or impossible: the message says which part is wrong."""


def expect(condition: bool, message: str) -> None:
    """Refuse the position with ``message`` unless ``condition`` holds."""
    if not condition:
        raise PositionError(message)


def bounded_int(value: Any, what: str, low: int, high: int) -> int:
    """``value`` as an int in ``low..high`` (bools refused); PositionError otherwise."""
    expect(
        isinstance(value, int) and not isinstance(value, bool) and low <= value <= high,
        f"{what} must be an integer from {low} to {high}, not {value!r}",
    )
    return int(value)
