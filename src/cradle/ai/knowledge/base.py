"""The protocol every game's search knowledge follows, and how estimated final scores become
rewards (each seat's expected share of opponents beaten)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Protocol

from cradle.core.contract import GameState


def counted(n: int, word: str) -> str:
    """``n`` and the word, plural unless one: "1 temple", "2 temples", "0 cups"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def beats(mine: float, theirs: float, temperature: float) -> float:
    """The chance that one estimated final score beats another: a logistic of the gap."""
    x = (mine - theirs) / temperature
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))


def pairwise_chances(values: Sequence[float], temperature: float) -> list[float]:
    """Turn estimated final scores into the expected share of opponents each seat beats."""
    n = len(values)
    if n < 2:
        return [1.0] * n
    out = []
    for i, mine in enumerate(values):
        total = sum(beats(mine, theirs, temperature) for j, theirs in enumerate(values) if i != j)
        out.append(total / (n - 1))
    return out


class Knowledge(Protocol):
    """A game's heuristics for search, computed on worlds (full states), never on the truth."""

    def rewards(self, world: GameState) -> list[float]:
        """Estimated share of opponents each seat will beat, from 0 to 1 (a reward vector)."""
        ...

    def priors(self, world: GameState, actions: Sequence[str]) -> list[float]:
        """A score per action of ``world.to_move``: higher is more promising (for ordering)."""
        ...

    def policy(self, world: GameState, rng: random.Random) -> str:
        """A quick, sensible action for rollouts."""
        ...

    def unsettled(self, world: GameState) -> bool:
        """Whether a decision in progress (a conflict, a choice) should be played out before
        the world is evaluated."""
        ...

    def reason(self, world: GameState, seat: int, action: str) -> str:
        """A short explanation in words of what ``action`` does for ``seat``."""
        ...

    def playout_rule(self, world: GameState) -> str | None:
        """The move a random playout makes here by rule rather than at random (None: at
        random)."""
        ...
