"""Gheos (René Wiersma, 2006) for 2-4 players: an exact rules engine on a triangular map.

The public surface is the contract of docs/contract.md (with the analysis API); the notation,
the position schema and the tile-set file format are in docs/gheos.md. ``new_game`` and
``from_position`` take ``engine="native"|"python"`` (docs/engines.md): the native core by
default when it is built.
"""

from cradle.core.contract import Presentation
from cradle.core.positions import PositionError
from cradle.gheos.actions import all_action_templates
from cradle.gheos.analysis import (
    SYMBOLS,
    Area,
    Civilization,
    GheosGame,
    PlacedTile,
    Player,
    as_gheos,
    corners,
    edge_names,
    is_up,
    neighbour,
)
from cradle.gheos.engine import from_position, new_game
from cradle.gheos.lessons import LESSONS, lesson_start
from cradle.gheos.pieces import GheosPiece, hand_pieces, step_pieces
from cradle.gheos.state import GheosState
from cradle.gheos.tiles import TileSetError, load_tiles
from cradle.gheos.types import (
    COLOURS,
    DEFAULT_NAMES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NAME,
    PHASES,
    AreaView,
    CellView,
    DisallowedAction,
    GheosEvent,
    GheosPending,
    GheosResult,
    GheosSummary,
    GheosView,
    HandTile,
    IllegalAction,
    MalformedAction,
    Options,
    RegionView,
    options_from_dict,
    options_to_dict,
)
from cradle.gheos.view import DRAW_COUNTERS, as_gheos_view, public_action

PRESENTATION = Presentation(
    title="Gheos",
    seat_names=DEFAULT_NAMES,
    view=GheosView,
    event=GheosEvent,
    result=GheosResult,
    piece=GheosPiece,
    step_pieces=step_pieces,
    hand_pieces=hand_pieces,
)

__all__ = [
    "COLOURS",
    "DRAW_COUNTERS",
    "LESSONS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NAME",
    "PHASES",
    "PRESENTATION",
    "SYMBOLS",
    "Area",
    "AreaView",
    "CellView",
    "Civilization",
    "DisallowedAction",
    "GheosEvent",
    "GheosGame",
    "GheosPending",
    "GheosResult",
    "GheosState",
    "GheosSummary",
    "GheosView",
    "HandTile",
    "IllegalAction",
    "MalformedAction",
    "Options",
    "PlacedTile",
    "Player",
    "PositionError",
    "RegionView",
    "TileSetError",
    "all_action_templates",
    "as_gheos",
    "as_gheos_view",
    "corners",
    "edge_names",
    "from_position",
    "is_up",
    "lesson_start",
    "load_tiles",
    "neighbour",
    "new_game",
    "options_from_dict",
    "options_to_dict",
    "public_action",
]
