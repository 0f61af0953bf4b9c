"""A compact, factored Gheos action space (docs/research.md, "The compact Gheos actions").

The engine's ids (cradle.gheos.actions) name a cell by its place among every cell a map could
ever reach: 191,012 ids, nearly all of them never legal. Here a cell is named by its place in
what the table shows now, so the space is 2,588 wide and each decision still has exactly one
id:

- ``place``: hand slot (2) x place in the **frontier** (the view's ``frontier``: the free cells
  a tile may go to, in (row, column) order, at most 64) x rotation (3): ``PLACE + (slot * 64 +
  k) * 3 + r``;
- ``replace``: hand slot (2) x place among the **map's cells** (the cells with a tile, in
  (row, column) order, at most 52) x rotation (3), from ``REPLACE``;
- ``start`` / ``migrate``: colour (6) x place among the map's cells x the cell's edge (3), from
  ``START`` / ``MIGRATE``;
- ``pay``, ``take``, ``winner`` x colour, ``token``, ``pass``: in the engine's order, from ``REST``.

:class:`CompactActions` is made for one state (what it reads is public: the map and the
frontier) and maps its legal engine ids to compact ids and back, one to one
(``tests/envs/test_gheos_compact.py`` round-trips every legal action of random games).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from cradle.gheos import actions as ids
from cradle.gheos.geometry import CELL_BY_NAME, cell_index

FRONTIER = 64  # the engine keeps at most this many frontier cells
MAP_CELLS = 52  # tiles on a map, the start tile included
HAND = ids.HAND_SLOTS
COLOUR_COUNT = ids.COLOUR_COUNT

PLACE = 0
REPLACE = PLACE + HAND * FRONTIER * 3
START = REPLACE + HAND * MAP_CELLS * 3
MIGRATE = START + COLOUR_COUNT * MAP_CELLS * 3
REST = MIGRATE + COLOUR_COUNT * MAP_CELLS * 3
COMPACT_COUNT = REST + (ids.ACTION_COUNT - ids.PAY)


class CompactActions:
    """The compact ids of one Gheos state (native or Python engine)."""

    def __init__(self, state: Any) -> None:
        view = state.view(None)
        self.frontier = [CELL_BY_NAME[name] for name in view["frontier"]]
        self.cells = sorted(cell_index(t.row, t.col) for t in state.tiles_on_map())
        self._frontier_at = {cell: k for k, cell in enumerate(self.frontier)}
        self._cell_at = {cell: k for k, cell in enumerate(self.cells)}

    def compact(self, engine_id: int) -> int:
        """The compact id of a legal engine id."""
        if engine_id < ids.START:
            replacing, slot, cell, rotation = ids.split_tile_id(engine_id)
            if replacing:
                return REPLACE + (slot * MAP_CELLS + self._cell_at[cell]) * 3 + rotation
            return PLACE + (slot * FRONTIER + self._frontier_at[cell]) * 3 + rotation
        if engine_id < ids.PAY:
            migrating, colour, cell, edge = ids.split_region_id(engine_id)
            base = MIGRATE if migrating else START
            return base + (colour * MAP_CELLS + self._cell_at[cell]) * 3 + edge
        return REST + engine_id - ids.PAY

    def engine(self, compact_id: int) -> int:
        """The engine id of a compact id (ValueError when it names no cell of this table)."""
        if not 0 <= compact_id < COMPACT_COUNT:
            raise ValueError(f"compact id {compact_id} is outside 0..{COMPACT_COUNT - 1}")
        if compact_id >= REST:
            return ids.PAY + compact_id - REST
        if compact_id >= START:
            migrating = compact_id >= MIGRATE
            rest, edge = divmod(compact_id - (MIGRATE if migrating else START), 3)
            colour, k = divmod(rest, MAP_CELLS)
            cell = self._nth(self.cells, k, compact_id)
            base = ids.MIGRATE if migrating else ids.START
            return base + (colour * ids.CELLS + ids.CELL_POSITION[cell]) * 3 + edge
        replacing = compact_id >= REPLACE
        rest, rotation = divmod(compact_id - (REPLACE if replacing else PLACE), 3)
        slot, k = divmod(rest, MAP_CELLS if replacing else FRONTIER)
        cell = self._nth(self.cells if replacing else self.frontier, k, compact_id)
        base = ids.REPLACE if replacing else ids.PLACE
        return base + (slot * ids.CELLS + ids.CELL_POSITION[cell]) * 3 + rotation

    @staticmethod
    def _nth(cells: list[int], k: int, compact_id: int) -> int:
        if k >= len(cells):
            raise ValueError(f"compact id {compact_id} names no cell of this table")
        return cells[k]

    def mask(self, legal_ids: list[int]) -> npt.NDArray[np.int8]:
        """1 at the compact id of each legal engine id."""
        out = np.zeros(COMPACT_COUNT, np.int8)
        out[[self.compact(i) for i in legal_ids]] = 1
        return out
