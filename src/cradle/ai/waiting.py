"""What players wait for: a bot's thinking per turn as well as per decision.

A Tigris turn is two actions plus whatever they start (commitments, war orders, monuments,
treasures), a Gheos turn a tile and the steps after it; a bot that thinks its full budget at
every one of them keeps people waiting many seconds. A :class:`TurnClock` gives each decision
of a turn what is left of the turn's allowance (never more than the decision's own budget).
Decisions a bot takes in another player's turn (defending a revolt, say) keep their own budget
and do not count against its turn.

``python -m lab waiting`` measures it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cradle.ai.search import Budget

ACTIONS_PER_TURN = 2  # Tigris: a turn begins with both of its actions left
GHEOS_TURN_PHASE = "tile"  # Gheos: a turn begins with the tile
LEAST_SECONDS = 0.05  # a decision late in a spent turn still thinks this long (and its floor)


def warm_up() -> None:
    """Import what a search bot's first decision would otherwise import (the knowledge of
    both games and with it the Python engines: about 0.3 s), so no player waits for it."""
    import cradle.ai.gheos_knowledge
    import cradle.ai.pimc
    import cradle.ai.tigris_knowledge  # noqa: F401


def turn_begins(view: Mapping[str, Any]) -> bool:
    """Whether the decision ``view`` (the view of the seat to move) is the first of its
    player's turn."""
    if view.get("active") != view.get("to_move") or view.get("pending") is not None:
        return False
    if "actions_left" in view:
        return bool(view["actions_left"] == ACTIONS_PER_TURN)
    if "phase" in view:
        return bool(view["phase"] == GHEOS_TURN_PHASE)
    return True  # a game without turns of several decisions


class TurnClock:
    """The seconds one seat's bot has thought in its current turn."""

    def __init__(self, turn_seconds: float | None) -> None:
        if turn_seconds is not None and not turn_seconds > 0:
            raise ValueError("a turn needs more than 0 seconds")
        self.turn_seconds = turn_seconds
        self.spent = 0.0
        self.own = False  # whether the decision in hand belongs to the seat's own turn

    def seconds(self, view: Mapping[str, Any], seconds: float) -> float:
        """The seconds the decision ``view`` (the deciding seat's view) may take: ``seconds``,
        cut to what is left of the turn when the decision is part of the seat's own turn."""
        self.own = view.get("active") == view.get("seat")
        if not self.own or self.turn_seconds is None:
            return seconds
        if turn_begins(view):
            self.spent = 0.0
        return min(seconds, max(LEAST_SECONDS, self.turn_seconds - self.spent))

    def budget(self, view: Mapping[str, Any], budget: Budget) -> Budget:
        """:meth:`seconds` for a search budget (one of iterations only is left as it is)."""
        if budget.seconds is None:
            self.own = view.get("active") == view.get("seat")
            return budget
        return budget.within(self.seconds(view, budget.seconds))

    def spend(self, seconds: float) -> None:
        """Count ``seconds`` of thinking on the decision :meth:`budget` was last asked for."""
        if self.own:
            self.spent += seconds
