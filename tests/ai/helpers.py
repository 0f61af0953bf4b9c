"""Shared helpers for the AI tests: positions reached by seeded random play."""

from __future__ import annotations

import random
from typing import Any

from cradle.core.contract import GameState
from cradle.games import get_game


def random_position(game: str, players: int, seed: int, steps: int, **options: Any) -> GameState:
    """The state after ``steps`` random actions (fewer if the game ends first)."""
    module = get_game(game)
    state: GameState = module.new_game(players, seed, module.options_from_dict(options))
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_over:
            break
        before = state.clone()
        state.apply(rng.choice(state.legal_actions()))
        if state.is_over:
            return before
    return state


def decision_positions(game: str, players: int, seed: int, count: int) -> list[GameState]:
    """Positions of one random game where the seat to move has a real choice."""
    module = get_game(game)
    state: GameState = module.new_game(players, seed, module.options_from_dict({}))
    rng = random.Random(seed)
    out: list[GameState] = []
    step = 0
    while not state.is_over and len(out) < count:
        actions = state.legal_actions()
        if len(actions) > 1 and step % 7 == 3:
            out.append(state.clone())
        state.apply(rng.choice(actions))
        step += 1
    return out
