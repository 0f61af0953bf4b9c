"""The one place where an action becomes what a given seat may know of it.

Everything the server sends or logs that describes an action (a frame's ``table.last`` and
events, a record before the end, a replay, a log line) goes through :func:`public_action`.
The rule is default-deny: for each game, the kinds of action whose words are public are listed;
any other kind shows only its first word and how many words followed (a Tigris swap is
``swap 2`` to everyone but the player who swapped). A new kind of action added to a game stays
hidden until someone lists it here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from cradle.core.contract import Event

# Action kinds (first word) whose every word all players see, per game. Not listed: hidden.
PUBLIC_KINDS: dict[str, frozenset[str]] = {
    "tigris": frozenset(
        {
            "leader",
            "withdraw",
            "tile",
            "catastrophe",
            "pass",
            "commit",
            "war",
            "monument",
            "treasure",
            "building",
            "wonder",
            "wonderpoint",
            "decline",
        }
    ),
    # Gheos hides only hands and the stack; every decision shows on the table.
    "gheos": frozenset(
        {"place", "replace", "pay", "migrate", "winner", "start", "take", "token", "pass"}
    ),
}


def public_action(game: str, action: str, mover: int | None, viewer: int | None) -> str:
    """``action``, made by seat ``mover``, as seat ``viewer`` (None: a spectator) may know it."""
    if viewer is not None and viewer == mover:
        return action
    kind, *rest = action.split()
    if kind in PUBLIC_KINDS.get(game, frozenset()):
        return action
    return f"{kind} {len(rest)}" if rest else kind


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
