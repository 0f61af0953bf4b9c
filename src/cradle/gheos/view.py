"""What one seat (or a spectator) may know of a Gheos game: its view, as JSON (docs/gheos.md),
and what it learns of another seat's action (``public_action``). The game decides its secrets
here; the server, the environments and the bots ask it."""

from __future__ import annotations

from typing import cast

from cradle.core.contract import View, view_of
from cradle.core.hidden import redacted
from cradle.gheos.areas import AreaTally
from cradle.gheos.geometry import CELL_NAME, COL, ROW, UP, edge_name
from cradle.gheos.position import Written, pending_dict, scores
from cradle.gheos.tiles import Tile
from cradle.gheos.types import (
    COLOURS,
    EPOCH,
    EPOCH_TILES,
    AreaView,
    CellView,
    CivilizationView,
    GheosSummary,
    GheosView,
    HandTile,
    RegionView,
    options_to_dict,
)

# The kinds of action (first word) every seat sees whole: Gheos hides only the hands and the
# stack, never a decision. A kind not listed here stays hidden (default deny).
PUBLIC_KINDS = frozenset(
    {"place", "replace", "pay", "migrate", "winner", "start", "take", "token", "pass"}
)
# The view's public counts of the hidden stack: when one changes, a tile was drawn.
DRAW_COUNTERS = ("stack_size", "stack_epochs", "epochs_drawn")


def as_gheos_view(view: View) -> GheosView:
    """``view`` (a state's ``view(seat)``) typed as a Gheos view, for code that handles
    any game; TypeError for another game's view."""
    return cast(GheosView, view_of(view, "gheos", "Gheos"))


def public_action(action: str, mover: int | None, viewer: int | None) -> str:
    """What ``viewer`` (None: a spectator) may know of ``action``, made by seat ``mover``."""
    return redacted(action, mover, viewer, PUBLIC_KINDS)


def tile_dict(tile: Tile) -> HandTile:
    """A tile as it is in the hand: regions on its own edges 0, 1, 2."""
    return {
        "tile": tile.name,
        "shape": tile.shape,
        "rotations": list(tile.rotations),
        "text": tile.text(),
        "regions": [region.to_dict() for region in tile.regions],
    }


def _area_dict(state: Written, area: AreaTally, civ: int | None) -> AreaView:
    """One area as views show it (``civ``: the colour of the civilization on it, if any)."""
    return {
        "area": area.index,
        "ref": state.region_ref(area.regions[0]),
        "kind": area.kind,
        "tiles": len({node // 3 for node in area.regions}),
        "wheat": area.wheat,
        "cup": area.cup,
        "sword": area.sword,
        "pyramid": area.pyramid,
        "civ": None if civ is None else COLOURS[civ],
    }


def view(state: Written, seat: int | None) -> GheosView:
    if seat is not None and (
        isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(state.names)
    ):
        raise ValueError(f"no seat {seat!r} in a {len(state.names)}-player game")
    names = state.names
    occupied = state.occupied()
    cells: list[CellView] = []
    for cell, (number, rotation) in sorted(state.board.items()):
        tile = state.tiles[number]
        layout = tile.edge_region[rotation]
        regions: list[RegionView] = []
        for k, region in enumerate(tile.regions):
            edges = [e for e in (0, 1, 2) if layout[e] == k]
            area = state.area_of[cell * 3 + k]
            regions.append(
                {
                    "ref": f"{CELL_NAME[cell]}:{edge_name(cell, edges[0])}",
                    "edges": [edge_name(cell, e) for e in edges],
                    "landmass": region.landmass,
                    "wheat": region.wheat,
                    "cup": region.cup,
                    "sword": region.sword,
                    "pyramid": region.pyramid,
                    "temple": region.temple,
                    "area": area,
                    "civ": COLOURS[occupied[area]] if area in occupied else None,
                }
            )
        cells.append(
            {
                "cell": CELL_NAME[cell],
                "row": ROW[cell],
                "col": COL[cell],
                "up": UP[cell],
                "tile": tile.name,
                "rotation": rotation,
                "pyramid": tile.pyramid,
                "regions": regions,
            }
        )
    areas = [_area_dict(state, area, occupied.get(area.index)) for area in state.area_list]
    civilizations: dict[str, CivilizationView] = {
        COLOURS[c]: {
            "area": state.area_of[anchor],
            "ref": state.area_ref(state.area_of[anchor]),
            "supply": state.supply[c],
        }
        for c, anchor in sorted(state.civs.items())
    }
    over = state.is_over
    return {
        "game": "gheos",
        "seat": seat,
        "options": options_to_dict(state.options),
        "players": list(names),
        "active": state.active,
        "to_move": state.to_move,
        "phase": state.phase,
        "map": cells,
        "frontier": [CELL_NAME[c] for c in sorted(state.frontier)],
        "areas": areas,
        "civilizations": civilizations,
        "supply": {name: state.supply[c] for c, name in enumerate(COLOURS)},
        **scores(state),
        "hand": None
        if seat is None
        else [tile_dict(state.tiles[n]) for n in sorted(state.hands[seat])],
        "hand_sizes": {names[s]: len(hand) for s, hand in enumerate(state.hands)},
        "stack_size": len(state.stack),
        "stack_epochs": sum(1 for t in state.stack if t == EPOCH),
        "epochs_drawn": state.epochs,
        "epoch_tiles": EPOCH_TILES,
        "end_epoch": state.end_epoch,
        "removed": [f"t{n}" for n in state.removed],
        "pending": pending_dict(state),
        "is_over": over,
        "result": state.result() if over else None,
    }


def summary(state: Written) -> GheosSummary:
    """The public numbers of the game in the view's own keys, without the map: scores,
    tokens, followers, epochs, and the areas that matter (those with a civilization and the
    free continents). What evaluations read, at a fraction of a view's cost."""
    names = state.names
    occupied = state.occupied()
    areas: list[AreaView] = []
    for area in state.area_list:
        civ = occupied.get(area.index)
        if civ is not None or area.continent:
            areas.append(_area_dict(state, area, civ))
    return {
        "game": "gheos",
        "players": list(names),
        "active": state.active,
        "to_move": state.to_move,
        "phase": state.phase,
        "areas": areas,
        "civilizations": {
            COLOURS[c]: {"area": state.area_of[anchor], "supply": state.supply[c]}
            for c, anchor in sorted(state.civs.items())
        },
        **scores(state),
        "epochs_drawn": state.epochs,
        "end_epoch": state.end_epoch,
        "is_over": state.is_over,
    }
