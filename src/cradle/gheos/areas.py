"""Areas: maximal sets of regions joined across the edges placed tiles share.

A placed tile's region is a small integer ``cell * 3 + k`` (``k`` = the region's index on its
tile). Areas are worked out from scratch with a union-find over the shared edges; a map holds
at most 52 tiles, so this is cheap enough to redo after every placement or replacement, and
redoing it makes merges (war) and splits (migration) fall out of a plain comparison of the
areas before and after. AreaTally objects are never changed once built, so states share them.
"""

from __future__ import annotations

from cradle.gheos.geometry import NEIGHBOURS
from cradle.gheos.tiles import Tile

# cell -> (tile number, rotation)
Board = dict[int, tuple[int, int]]


class AreaTally:
    """One area of land: its regions and the totals of what sits on them."""

    __slots__ = (
        "continent",
        "cup",
        "index",
        "island",
        "landmass",
        "pyramid",
        "regions",
        "sword",
        "wheat",
    )

    def __init__(self, index: int, regions: list[int]) -> None:
        self.index = index
        self.regions = regions  # ascending, so regions[0] is the area's reference region
        self.wheat = self.cup = self.sword = self.pyramid = 0
        self.landmass = False
        self.continent = False
        self.island = False

    @property
    def kind(self) -> str:
        if self.continent:
            return "continent"
        return "island" if self.island else "land"

    def count(self, symbol: str) -> int:
        value: int = getattr(self, symbol)
        return value


def compute_areas(board: Board, tiles: tuple[Tile, ...]) -> tuple[dict[int, int], list[AreaTally]]:
    """Region -> area index, and the areas in order of their first (smallest) region."""
    parent: dict[int, int] = {}
    layouts: dict[int, tuple[int, int, int]] = {}
    for cell, (number, rotation) in board.items():
        layout = tiles[number].edge_region[rotation]
        layouts[cell] = layout
        base = cell * 3
        for k in range(len(tiles[number].regions)):
            parent[base + k] = base + k

    def find(node: int) -> int:
        root = node
        while parent[root] != root:
            root = parent[root]
        while parent[node] != root:
            parent[node], node = root, parent[node]
        return root

    for cell, layout in layouts.items():
        neighbours = NEIGHBOURS[cell]
        for edge in (0, 1, 2):
            other = neighbours[edge]
            # Each shared edge once; the edge has the same number on both sides.
            if other > cell and other in layouts:
                a = find(cell * 3 + layout[edge])
                b = find(other * 3 + layouts[other][edge])
                if a != b:
                    if a < b:
                        parent[b] = a
                    else:
                        parent[a] = b

    groups: dict[int, list[int]] = {}
    for node in sorted(parent):
        groups.setdefault(find(node), []).append(node)
    area_of: dict[int, int] = {}
    areas: list[AreaTally] = []
    for regions in groups.values():
        area = AreaTally(len(areas), regions)
        coasts = 0
        for node in regions:
            area_of[node] = area.index
            region = tiles[board[node // 3][0]].regions[node % 3]
            area.wheat += region.wheat
            area.cup += region.cup
            area.sword += region.sword
            area.pyramid += region.pyramid
            if len(region.edges) >= 2:
                area.landmass = True
            else:
                coasts += 1
        # Regions of one tile never touch each other, so two regions mean two tiles.
        area.continent = area.landmass and len(regions) >= 2
        area.island = coasts == 2 and len(regions) == 2
        areas.append(area)
    return area_of, areas
