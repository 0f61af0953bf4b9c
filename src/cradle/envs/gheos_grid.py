"""Gheos' triangular map as a tensor: channels x rows x columns (docs/research.md, "The
Gheos grid tensor").

Each triangle of the board is one cell of a ``ROWS x COLS`` grid: board cell ``(row, col)``
lies at grid cell ``(row - top, col - left)``. So the two triangles beside each other in a
row sit beside each other in the grid, and an up triangle's southern neighbour (the down
triangle below it) sits right below it: every shared edge is a grid neighbour, and a
triangle's three neighbours are three of its grid cell's four (an up cell has no northern
one, a down cell no southern one). ``(top, left)`` centres the bounding box of the map's
tiles and the frontier, with ``top + left`` even, so grid cell ``(i, j)`` points up exactly
when ``i + j`` is even (the ``UP`` channel says so everywhere). 52 tiles span at most 27 rows
(two triangles a row) and 52 columns, the frontier one more on each side, and the parity one
more column: 29 x 55 holds any map.

Per cell (channels):

- ``UP``: the triangle points up; ``TILE``: a tile lies here (the mask of the map's real
  cells; everything else is empty); ``FRONTIER``: empty, and a tile may be placed here;
  ``START``: the start tile's cell ``0,0``;
- ``WHEAT``, ``CUP``, ``SWORD``, ``PYRAMID``: the symbols on the tile; ``TEMPLE`` (3): its
  temple of wheat, cup or sword;
- for each of the cell's own edges ``e`` (0, 1, 2: docs/gheos.md's numbering, the tile's
  rotation applied, so two neighbours see their shared edge under the same number), from
  ``EDGES + e * EDGE``: the region on that edge: ``LAND`` (a landmass, else a coast),
  ``CIV`` (6: the civilization on its area), ``CONTINENT``, ``ISLAND`` (its area's kind) and
  ``AREA_TILES`` (the tiles its area spans).

Only what every seat sees (the map); the flat observation keeps the rest (hands, points, the
per-tile table). :func:`fill_grid` is the reference, from a view; the native encoder
(native/src/gheos/observation.rs, ``grid``) writes the same, element for element.
"""

from __future__ import annotations

import numpy as np

from cradle.core.contract import View
from cradle.envs.spec import FloatArray
from cradle.gheos import COLOURS, as_gheos_view
from cradle.gheos.geometry import CELL_BY_NAME, COL, EDGE_NAMES_DOWN, EDGE_NAMES_UP, ROW

ROWS = 29
COLS = 55

UP = 0
TILE = 1
FRONTIER = 2
START = 3
WHEAT = 4
CUP = 5
SWORD = 6
PYRAMID = 7
TEMPLE = 8  # 3: wheat, cup, sword
EDGES = 11  # 3 x EDGE: the region on each of the cell's edges
LAND = 0
CIV = 1  # 6
CONTINENT = 7
ISLAND = 8
AREA_TILES = 9
EDGE = 10
CHANNELS = EDGES + 3 * EDGE
SHAPE = (CHANNELS, ROWS, COLS)
TEMPLE_KINDS = ("wheat", "cup", "sword")
# The largest symbol count a tile shows, as the per-tile table bounds it.
SYMBOLS_HIGH = 10.0


def window(cells: list[tuple[int, int]]) -> tuple[int, int]:
    """``(top, left)``: the board cell at grid cell (0, 0) for a map and frontier of
    ``cells`` (row, col): their bounding box centred, ``top + left`` even."""
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    top = min(rows) - (ROWS - (max(rows) - min(rows) + 1)) // 2
    left = min(cols) - (COLS - (max(cols) - min(cols) + 1)) // 2
    return top, left - (top + left) % 2


def bounds() -> tuple[FloatArray, FloatArray]:
    """The grid's low and high (``SHAPE``): 0 to 1, symbol counts to 10, area sizes to 52."""
    low = np.zeros(SHAPE, np.float32)
    high = np.ones(SHAPE, np.float32)
    high[WHEAT : PYRAMID + 1] = SYMBOLS_HIGH
    for edge in range(3):
        high[EDGES + edge * EDGE + AREA_TILES] = 52.0
    return low, high


def fill_grid(shown: View, out: FloatArray) -> None:
    """Write the grid of the map ``shown`` (any seat's view, or a spectator's) into ``out``
    (``SHAPE``, zeros)."""
    view = as_gheos_view(shown)
    placed = view.get("map") or []
    frontier = [CELL_BY_NAME[name] for name in view.get("frontier") or []]
    cells = [(int(e["row"]), int(e["col"])) for e in placed]
    cells += [(ROW[c], COL[c]) for c in frontier]
    if not cells:
        return
    top, left = window(cells)
    rows = np.arange(ROWS)[:, None]
    cols = np.arange(COLS)[None, :]
    out[UP] = (rows + cols) % 2 == 0
    colour = {c: i for i, c in enumerate(COLOURS)}
    areas = {area["area"]: area for area in view.get("areas") or []}
    for cell in frontier:
        i, j = ROW[cell] - top, COL[cell] - left
        if 0 <= i < ROWS and 0 <= j < COLS:
            out[FRONTIER, i, j] = 1.0
    for entry in placed:
        i, j = int(entry["row"]) - top, int(entry["col"]) - left
        if not (0 <= i < ROWS and 0 <= j < COLS):
            continue
        at = out[:, i, j]
        at[TILE] = 1.0
        if entry["row"] == 0 and entry["col"] == 0:
            at[START] = 1.0
        names = EDGE_NAMES_UP if entry["up"] else EDGE_NAMES_DOWN
        for region in entry["regions"]:
            at[WHEAT] += region["wheat"]
            at[CUP] += region["cup"]
            at[SWORD] += region["sword"]
            at[PYRAMID] += region["pyramid"]
            if region["temple"] in TEMPLE_KINDS:
                at[TEMPLE + TEMPLE_KINDS.index(region["temple"])] = 1.0
            area = areas.get(region.get("area"))
            for name in region["edges"]:
                base = EDGES + names.index(name) * EDGE
                at[base + LAND] = 1.0 if region["landmass"] else 0.0
                civ = region["civ"]
                if civ is not None:
                    at[base + CIV + colour[civ]] = 1.0
                if area is not None:
                    if area.get("kind") == "continent":
                        at[base + CONTINENT] = 1.0
                    elif area.get("kind") == "island":
                        at[base + ISLAND] = 1.0
                    at[base + AREA_TILES] = area.get("tiles", 0)
