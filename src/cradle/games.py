"""The registry of games (cradle.core.registry), where the upper layers look games up."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cradle.core.contract import FastState, GameModule, GameState, IllegalAction
from cradle.core.registry import GAME_MODULES, UnknownGame, game_names, get_game

__all__ = ["GAME_MODULES", "UnknownGame", "game_names", "get_game", "refusal"]

if TYPE_CHECKING:
    # mypy checks here that each game package, and each engine's state, follows the contract.
    from cradle import _native, gheos, tigris

    _TIGRIS: GameModule = tigris
    _GHEOS: GameModule = gheos

    def _states(t: tigris.TigrisState, g: gheos.GheosState) -> tuple[GameState, ...]:
        checked: tuple[tigris.TigrisGame, gheos.GheosGame] = (t, g)
        return checked

    def _native_states(t: _native.TigrisState, g: _native.GheosState) -> tuple[GameState, ...]:
        checked: tuple[tigris.TigrisGame, gheos.GheosGame] = (t, g)
        return checked

    def _fast_states(
        t: tigris.TigrisState, g: gheos.GheosState, nt: _native.TigrisState, ng: _native.GheosState
    ) -> tuple[FastState, ...]:
        return (t, g, nt, ng)


def refusal(module: GameModule, state: GameState, action: str) -> IllegalAction | None:
    """Why ``action`` is refused in ``state`` (None when it is legal), as the Python reference
    engine gives it: a message id with named params, which the translations read. A native
    engine refuses with the same words but only their English text, so its refusal is asked
    of the reference engine again (the two agree at every step: tests/core)."""
    try:
        state.clone().apply(action)
    except IllegalAction as refused:
        if refused.params or type(state).__module__.startswith(("cradle.tigris", "cradle.gheos")):
            return refused
        try:
            module.from_position(state.to_position(), engine="python").apply(action)
        except IllegalAction as reference:
            return reference if str(reference) == str(refused) else refused
        except ValueError:
            return refused
        return refused
    return None
