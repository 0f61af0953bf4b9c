"""The engines a test can run on: both where the native one is built (make test requires it)."""

from __future__ import annotations

import random

from cradle.core import native
from cradle.core.contract import IllegalAction
from cradle.games import get_game

ENGINES = ("python", "native")


def engines() -> list[str]:
    """The engines a parametrized test runs on: both, native only where it is built."""
    return [e for e in ENGINES if e == "python" or native.available()]


def refusals(game: str, seed: int) -> list[IllegalAction]:
    """Refusals of the Python engine along a random game: at each step, actions that were legal
    earlier but are not now, and a few malformed ones."""
    module = get_game(game)
    state = module.new_game(2, seed=seed, engine="python")
    rng = random.Random(seed)
    seen: list[str] = []
    found: list[IllegalAction] = []
    for _step in range(60):
        if state.is_over:
            break
        legal = set(state.legal_actions())
        seen += rng.sample(sorted(legal), min(5, len(legal)))
        tries = [a for a in rng.sample(seen, min(12, len(seen))) if a not in legal][:6]
        tries += ["", "fly", "tile pink A1", "leader king Z9", "place t99 0,1 r0"]
        for action in tries:
            try:
                state.clone().apply(action)
            except IllegalAction as refused:
                found.append(refused)
        state.apply(rng.choice(sorted(legal)))
    return found
