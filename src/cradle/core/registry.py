"""The registry of games: the only place that maps a game's name to its package.

The packages are imported by name when first asked for, so core depends on no game."""

from __future__ import annotations

import importlib

from cradle.core.contract import GameModule

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
