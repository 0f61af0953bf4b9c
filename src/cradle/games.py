"""The registry of games (cradle.core.registry), where the upper layers look games up."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cradle.core.contract import FastState, GameModule, GameState
from cradle.core.registry import GAME_MODULES, UnknownGame, game_names, get_game

__all__ = ["GAME_MODULES", "UnknownGame", "game_names", "get_game"]

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
