"""How long a search may think: a budget of iterations or seconds (with a floor of
iterations), the clock that counts against it, and the allowance of a whole turn.

A Tigris turn is two actions plus whatever they start (commitments, war orders, monuments,
treasures), a Gheos turn a tile and the steps after it; a bot that thinks its full budget at
every one of them keeps people waiting many seconds. A :class:`TurnClock` gives each decision
of a turn what is left of the turn's allowance (never more than the decision's own budget).
Decisions a bot takes in another player's turn (defending a revolt, say) keep their own budget
and do not count against its turn. ``python -m lab waiting`` measures what players wait for.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    """How long a search may think: a number of iterations, seconds, or both (first reached).

    ``floor``: the fewest iterations a search runs even when its seconds are up, so that on a
    loaded machine it answers later rather than blind."""

    iterations: int | None = None
    seconds: float | None = None
    floor: int | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise ValueError("a budget needs iterations or seconds")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError("a budget needs at least 1 iteration")
        if self.seconds is not None and not self.seconds > 0:
            raise ValueError("a budget needs more than 0 seconds")
        if self.floor is not None and self.floor < 1:
            raise ValueError("a budget's floor is at least 1 iteration")
        if self.floor is not None and self.iterations is not None and self.floor > self.iterations:
            raise ValueError("a budget's floor cannot exceed its iterations")

    def clock(self) -> Clock:
        return Clock(self)

    def split(self, parts: int) -> Budget:
        """The share of one of ``parts`` parallel searches (same time, fewer iterations)."""
        floor = None if self.floor is None else max(1, self.floor // parts)
        if self.iterations is None:
            return Budget(None, self.seconds, floor)
        return Budget(max(1, self.iterations // parts), self.seconds, floor)

    def within(self, seconds: float) -> Budget:
        """This budget with at most ``seconds`` (its iterations and floor kept)."""
        if self.seconds is not None and self.seconds <= seconds:
            return self
        return Budget(self.iterations, seconds, self.floor)

    def describe(self) -> str:
        pieces = []
        if self.iterations is not None:
            pieces.append(f"{self.iterations} iterations")
        if self.seconds is not None:
            pieces.append(f"{self.seconds:g} s")
        text = " or ".join(pieces)
        if self.floor is not None:
            text += f" (at least {self.floor} iterations)"
        return text


class Clock:
    """Counts iterations against a budget; the time is read only every few iterations."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.start = time.perf_counter()
        self.deadline = None if budget.seconds is None else self.start + budget.seconds
        self.count = 0

    def tick(self) -> bool:
        """Count one iteration; False once the budget is spent."""
        self.count += 1
        limit = self.budget.iterations
        if limit is not None and self.count >= limit:
            return False
        floor = self.budget.floor
        if floor is not None and self.count < floor:
            return True
        return self.deadline is None or time.perf_counter() < self.deadline

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def left(self) -> float | None:
        """The iterations still to come at the pace so far (within the budget's iterations);
        None for a budget without seconds, before ``PACED`` iterations have set a pace, or
        below the floor (always searched in full)."""
        budget = self.budget
        if budget.seconds is None or self.count < PACED:
            return None
        if budget.floor is not None and self.count < budget.floor:
            return None
        elapsed = self.elapsed()
        left = self.count / max(elapsed, 1e-9) * max(0.0, budget.seconds - elapsed)
        if budget.iterations is not None:
            left = min(left, float(max(0, budget.iterations - self.count)))
        return left


# The iterations a search runs before its pace says how many more are to come (Clock.left).
PACED = 16


def settled(visits: Iterable[int], left: float) -> bool:
    """Whether no iteration still to come (``left`` of them) could change the move played,
    the most visited of the root actions' ``visits`` (``IsmctsParams.stop``): the first leads
    the second (an action not tried yet has none) by more than ``left``."""
    first = second = 0
    for n in visits:
        if n > first:
            first, second = n, first
        elif n > second:
            second = n
    return first - second > left


ACTIONS_PER_TURN = 2  # Tigris: a turn begins with both of its actions left


GHEOS_TURN_PHASE = "tile"  # Gheos: a turn begins with the tile


LEAST_SECONDS = 0.01  # a decision late in a spent turn still thinks this long (and its floor)
# The share of a turn held back from its main decisions for the small ones that may follow
# (a treasure, a support: a Tigris turn had up to six after its two actions), each at least
# LEAST_SECONDS and its floor of iterations: they once got 0.05 s each past a spent turn,
# which is what made expert's turns overrun its 5.4 s (lab/notebook/engines.md).
RESERVE_SHARE = 0.02


def turn_begins(view: Mapping[str, object]) -> bool:
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

    def seconds(self, view: Mapping[str, object], seconds: float) -> float:
        """The seconds the decision ``view`` (the deciding seat's view) may take: ``seconds``,
        cut to what is left of the turn when the decision is part of the seat's own turn."""
        self.own = view.get("active") == view.get("seat")
        if not self.own or self.turn_seconds is None:
            return seconds
        if turn_begins(view):
            self.spent = 0.0
        left = self.turn_seconds * (1 - RESERVE_SHARE) - self.spent
        return min(seconds, max(LEAST_SECONDS, left))

    def budget(self, view: Mapping[str, object], budget: Budget) -> Budget:
        """:meth:`seconds` for a search budget (one of iterations only is left as it is)."""
        if budget.seconds is None:
            self.own = view.get("active") == view.get("seat")
            return budget
        return budget.within(self.seconds(view, budget.seconds))

    def spend(self, seconds: float) -> None:
        """Count ``seconds`` of thinking on the decision :meth:`budget` was last asked for."""
        if self.own:
            self.spent += seconds
