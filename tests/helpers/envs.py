"""Shared helpers for the research-interface tests: seeded random games through the contract."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from cradle.games import get_game

# (game, players, options): a spread of table set-ups, kept small so the tests stay quick.
SETUPS: list[tuple[str, int, dict[str, Any]]] = [
    ("tigris", 2, {}),
    ("tigris", 3, {"board": "advanced", "buildings": True, "wonder": True}),
    ("tigris", 4, {"english": True, "open_scoring": True}),
    ("gheos", 2, {}),
    ("gheos", 3, {}),
    ("gheos", 4, {}),
]


def random_states(game: str, players: int, options: dict[str, Any], seed: int) -> Iterator[Any]:
    """Every state of one random game, from the first decision to the end (the same object,
    advanced in place: clone what you keep)."""
    module = get_game(game)
    rng = random.Random(seed)
    state = module.new_game(players, seed, module.options_from_dict(options))
    while True:
        yield state
        if state.is_over:
            return
        state.apply(rng.choice(state.legal_actions()))
