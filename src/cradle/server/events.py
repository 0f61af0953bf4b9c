"""What happens after a change of a table is stored: one event (:class:`Changed`), published to
whatever follows from it (:class:`Events`): the frames pushed to the table's sockets, the bots
woken, the turn notices looked for, the lobby's pages rebuilt. The parts that store changes
know none of them; the hub subscribes them.

An event is published after the change's transaction committed (by this process), or once this
process's copy of the table has a change another process stored (heard of it, or read it
again): what follows is the same either way, except what only the storing process does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from cradle.server.table import Table

log = logging.getLogger("cradle.server")

# The kinds of change: a table made, a move, an undo, a seat taken or given a new token, a
# stand-in playing a seat's turn, a person back, a game ended early, a table removed, a game
# ended without a result (expired, reclaimed), and a change another process stored.
KINDS = (
    "created",
    "move",
    "undo",
    "seat",
    "rekey",
    "standin",
    "return",
    "end",
    "removed",
    "expired",
    "reclaimed",
    "heard",
)
# The kinds that change what the lobby lists of the table (its seats, its status).
LISTED = frozenset({"created", "seat", "end", "removed", "expired", "reclaimed"})


@dataclass(frozen=True)
class Changed:
    """One change of ``table`` (already in its copy here), of kind ``kind``; ``here``: this
    process stored it."""

    table: Table
    kind: str
    here: bool = True

    @property
    def listed(self) -> bool:
        """Whether the lobby's rows of the table changed."""
        return self.kind in LISTED or (self.kind in ("move", "heard") and self.table.is_over)


Subscriber = Callable[[Changed], None]


class Events:
    """The subscribers to the tables' changes, called in the order they subscribed."""

    def __init__(self) -> None:
        self.subscribers: list[Subscriber] = []

    def subscribe(self, subscriber: Subscriber) -> None:
        self.subscribers.append(subscriber)

    def publish(self, change: Changed) -> None:
        """Tell every subscriber; one that fails is logged, the others still hear of it."""
        for subscriber in self.subscribers:
            try:
                subscriber(change)
            except Exception:
                log.exception("game %s: a subscriber to its change failed", change.table.id)
