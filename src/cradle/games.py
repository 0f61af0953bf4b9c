"""The registry of games: the only place that maps a game's name to its package."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

GAME_MODULES = {"tigris": "cradle.tigris", "gheos": "cradle.gheos"}


class UnknownGame(ValueError):
    pass


def game_names() -> list[str]:
    return list(GAME_MODULES)


def get_game(name: str) -> Any:
    """The game package for ``name`` (it follows :class:`cradle.core.contract.GameModule`)."""
    try:
        module_name = GAME_MODULES[name]
    except KeyError:
        known = ", ".join(GAME_MODULES)
        raise UnknownGame(f"unknown game {name!r} (known: {known})") from None
    module: ModuleType = importlib.import_module(module_name)
    return module
