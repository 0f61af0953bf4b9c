"""The one place where the server turns an action into what a given seat may know of it.

Everything the server sends or logs that describes an action (a frame's ``table.last`` and
events, a record before the end, a replay, a log line) goes through :func:`public_action`, which
asks the game (its ``public_action``, docs/contract.md): the game owns its secrets, and the
rule is default-deny there (a kind of action the game does not declare public shows only its
first word and how many words followed: a Tigris swap is ``swap 2`` to everyone but the player
who swapped). The server keeps no list of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from cradle.core.contract import Event
from cradle.games import get_game


def public_action(game: str, action: str, mover: int | None, viewer: int | None) -> str:
    """``action``, made by seat ``mover``, as seat ``viewer`` (None: a spectator) may know it."""
    return get_game(game).public_action(action, mover, viewer)


class UndoEvent(Event):
    """The server's own event for a move taken back (not an engine's)."""

    who: str
    action: str


def public_events(game: str, events: Sequence[Event], viewer: int | None) -> list[Event]:
    """A change's events for ``viewer``: the engines' events are public by contract (the leak
    test holds them to it); the server's own undo event names the action taken back, which
    goes through :func:`public_action` like every other."""
    shown: list[Event] = []
    for found in events:
        if found.get("type") == "undo":
            undo = cast(UndoEvent, found)
            action = public_action(game, undo["action"], undo.get("seat"), viewer)
            shown.append(
                UndoEvent(
                    type="undo",
                    text=f"{undo['who']} took back {action!r}",
                    seat=undo["seat"],
                    who=undo["who"],
                    action=action,
                )
            )
        else:
            shown.append(found)
    return shown
