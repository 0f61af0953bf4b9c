"""The registry of games: the only place that maps a game's name to its package."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from cradle.core.contract import GameModule, GameState

if TYPE_CHECKING:
    # mypy checks here that each game package, and each engine's state, follows the contract.
    from cradle import gheos, tigris

    _PACKAGES: tuple[GameModule, ...] = (tigris, gheos)

    def _states(t: tigris.TigrisState, g: gheos.GheosState) -> tuple[GameState, ...]:
        checked: tuple[tigris.TigrisGame, gheos.GheosGame] = (t, g)
        return checked


GAME_MODULES = {"tigris": "cradle.tigris", "gheos": "cradle.gheos"}


class UnknownGame(ValueError):
    pass


def game_names() -> list[str]:
    return list(GAME_MODULES)


def get_game(name: str) -> GameModule:
    """The game package for ``name``: a module that follows the contract's GameModule."""
    try:
        module_name = GAME_MODULES[name]
    except KeyError:
        known = ", ".join(GAME_MODULES)
        raise UnknownGame(f"unknown game {name!r} (known: {known})") from None
    module: GameModule = importlib.import_module(module_name)
    return module
