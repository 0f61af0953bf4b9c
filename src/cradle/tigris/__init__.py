"""Tigris & Euphrates: the rules engine (pure: no web, AI or framework imports).

See docs/contract.md for the public API and docs/tigris.md for the notation and positions.
"""

from cradle.core.positions import PositionError
from cradle.tigris.board import BOARDS, board_map, cell_name, parse_cell
from cradle.tigris.position import from_position, load_position_json
from cradle.tigris.rules import (
    COLORS,
    DYNASTIES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROLES,
    IllegalAction,
    Options,
    all_action_strings,
    options_from_dict,
    options_to_dict,
    parse_action,
)
from cradle.tigris.state import TigrisState, new_game

NAME = "tigris"

__all__ = [
    "BOARDS",
    "COLORS",
    "DYNASTIES",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NAME",
    "ROLES",
    "IllegalAction",
    "Options",
    "PositionError",
    "TigrisState",
    "all_action_strings",
    "board_map",
    "cell_name",
    "from_position",
    "load_position_json",
    "new_game",
    "options_from_dict",
    "options_to_dict",
    "parse_action",
    "parse_cell",
]
