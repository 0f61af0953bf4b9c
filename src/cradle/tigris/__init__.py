"""Tigris & Euphrates: the rules engine (pure: no web, AI or framework imports).

See docs/contract.md for the public API (the contract and the analysis API) and
docs/tigris.md for the notation and positions.
"""

from cradle.core.contract import Presentation
from cradle.core.positions import PositionError
from cradle.tigris.actions import Action, all_action_strings, parse_action
from cradle.tigris.analysis import (
    Content,
    Dynasty,
    Geometry,
    Leader,
    Monument,
    Region,
    TigrisGame,
    as_tigris,
    geometry,
)
from cradle.tigris.board import BOARDS, board_map, cell_name, parse_cell
from cradle.tigris.decisions import (
    BuildingChoice,
    Decision,
    MonumentChoice,
    Revolt,
    TreasureChoice,
    War,
    WarOrder,
    WonderPoint,
)
from cradle.tigris.engine import from_position, load_position_json, new_game
from cradle.tigris.lessons import LESSONS, lesson_start
from cradle.tigris.state import TigrisState
from cradle.tigris.types import (
    COLORS,
    DYNASTIES,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MONUMENTS,
    ROLES,
    DisallowedAction,
    IllegalAction,
    MalformedAction,
    MonumentSpot,
    Options,
    TigrisEvent,
    TigrisPending,
    TigrisResult,
    TigrisView,
    options_from_dict,
    options_to_dict,
)
from cradle.tigris.view import DRAW_COUNTERS, as_tigris_view, public_action

NAME = "tigris"
PRESENTATION = Presentation(
    title="Tigris & Euphrates",
    seat_names=DYNASTIES,
    view=TigrisView,
    event=TigrisEvent,
    result=TigrisResult,
)

__all__ = [
    "BOARDS",
    "COLORS",
    "DRAW_COUNTERS",
    "DYNASTIES",
    "HAND_SIZE",
    "LESSONS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "MONUMENTS",
    "NAME",
    "PRESENTATION",
    "ROLES",
    "Action",
    "BuildingChoice",
    "Content",
    "Decision",
    "DisallowedAction",
    "Dynasty",
    "Geometry",
    "IllegalAction",
    "Leader",
    "MalformedAction",
    "Monument",
    "MonumentChoice",
    "MonumentSpot",
    "Options",
    "PositionError",
    "Region",
    "Revolt",
    "TigrisEvent",
    "TigrisGame",
    "TigrisPending",
    "TigrisResult",
    "TigrisState",
    "TigrisView",
    "TreasureChoice",
    "War",
    "WarOrder",
    "WonderPoint",
    "all_action_strings",
    "as_tigris",
    "as_tigris_view",
    "board_map",
    "cell_name",
    "from_position",
    "geometry",
    "lesson_start",
    "load_position_json",
    "new_game",
    "options_from_dict",
    "options_to_dict",
    "parse_action",
    "parse_cell",
    "public_action",
]
