"""The pieces Gheos moves name (``Presentation.piece``): tiles, by what is drawn on them, so that
a client can say what a move did in the players' words without the board of that moment."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict, cast

from cradle.core.contract import JSON, Event, GameState, Pieces
from cradle.gheos.analysis import as_gheos
from cradle.gheos.tiles import TileRegion
from cradle.gheos.types import CellView, HandTile, RegionView


class PieceRegion(TypedDict):
    """A region of a tile, in words: which land, what is drawn on it (the counts of wheat,
    cups, swords and pyramids; the temple's kind or None)."""

    landmass: bool
    wheat: int
    cup: int
    sword: int
    pyramid: int
    temple: str | None


class GheosPiece(TypedDict):
    """A tile a move names (placed, replaced, in a hand), by what is drawn on it."""

    pyramid: bool
    regions: list[PieceRegion]


def _region(drawn: RegionView | TileRegion) -> PieceRegion:
    return PieceRegion(
        landmass=drawn["landmass"],
        wheat=drawn["wheat"],
        cup=drawn["cup"],
        sword=drawn["sword"],
        pyramid=drawn["pyramid"],
        temple=drawn["temple"],
    )


def _piece(pyramid: bool, regions: Sequence[RegionView] | Sequence[TileRegion]) -> JSON:
    piece = GheosPiece(pyramid=pyramid, regions=[_region(region) for region in regions])
    return cast(JSON, piece)


def _on_map(map_cells: list[CellView], cells: set[str]) -> Pieces:
    return {
        placed["tile"]: _piece(placed["pyramid"], placed["regions"])
        for placed in map_cells
        if placed["cell"] in cells
    }


def step_pieces(before: GameState, after: GameState, events: Sequence[Event]) -> Pieces:
    """The tiles a step put on the map or took off it: all public (they lie on the table)."""
    placed = {str(e.get("cell")) for e in events if e.get("type") in ("place", "replace")}
    if not placed:
        return {}
    pieces = _on_map(as_gheos(after).view(None)["map"], placed)
    if any(e.get("type") == "replace" for e in events):
        pieces.update(_on_map(as_gheos(before).view(None)["map"], placed))
    return pieces


def hand_pieces(state: GameState, seat: int) -> Pieces:
    """The tiles in ``seat``'s hand: for that seat (or once the game is over, for everyone:
    the analysis of a finished game names them)."""
    hand: list[HandTile] = as_gheos(state).view(seat)["hand"] or []
    return {tile["tile"]: _piece(False, tile["regions"]) for tile in hand}
