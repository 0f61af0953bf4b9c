"""Fixed action ids: every Gheos decision as an integer, for fixed-size action spaces.

The notation names a placed tile by its number, which would make millions of ids; an id names
it by its **hand slot** instead: ``#0`` is the lower-numbered tile in the hand of the player to
move, ``#1`` the other. Cells are the ones within ``REACH`` steps of the start tile (every map
52 tiles can make), ordered row by row, then column. The layout (docs/gheos.md, "Action ids"):

- ``place #slot <cell> r<rotation>``: ``PLACE + (slot * CELLS + cell position) * 3 + rotation``;
- ``replace ...``: the same from ``REPLACE``;
- ``start <colour> <cell>:<edge>``: ``START + (colour * CELLS + cell position) * 3 + edge``
  (edge 0, 1, 2 as in cradle.gheos.geometry); ``migrate ...`` the same from ``MIGRATE``;
- ``pay``, ``take``, ``winner`` x colour; ``token``; ``pass``.

An area is named by one region only (the one ``legal_actions`` names), so each decision has
exactly one id.
"""

from __future__ import annotations

from cradle.gheos.geometry import CELL_COUNT, CELL_NAME, COL, NEIGHBOURS, ROW, START_CELL, UP
from cradle.gheos.tiles import TILE_COUNT
from cradle.gheos.types import COLOURS

COLOUR_COUNT = len(COLOURS)
# A tile lies at most this many edge-crossings from the start tile: a chain of all the others.
REACH = TILE_COUNT - 1
HAND_SLOTS = 2


def _reachable() -> tuple[int, ...]:
    seen = {START_CELL}
    frontier = [START_CELL]
    for _ in range(REACH):
        grown = []
        for cell in frontier:
            for other in NEIGHBOURS[cell]:
                if other >= 0 and other not in seen:
                    seen.add(other)
                    grown.append(other)
        frontier = grown
    return tuple(sorted(seen, key=lambda c: (ROW[c], COL[c])))


ACTION_CELLS = _reachable()
CELLS = len(ACTION_CELLS)
# Cell index -> its position in ACTION_CELLS (-1: no tile can ever lie there).
CELL_POSITION = [-1] * CELL_COUNT
for _position, _cell in enumerate(ACTION_CELLS):
    CELL_POSITION[_cell] = _position

PLACE = 0
REPLACE = PLACE + HAND_SLOTS * CELLS * 3
START = REPLACE + HAND_SLOTS * CELLS * 3
MIGRATE = START + COLOUR_COUNT * CELLS * 3
PAY = MIGRATE + COLOUR_COUNT * CELLS * 3
TAKE = PAY + COLOUR_COUNT
WINNER = TAKE + COLOUR_COUNT
TOKEN = WINNER + COLOUR_COUNT
PASS = TOKEN + 1
ACTION_COUNT = PASS + 1

_EDGES = (("n", "se", "sw"), ("s", "nw", "ne"))


def all_action_templates() -> list[str]:
    """The meaning of every id, in id order: the notation with ``#0`` / ``#1`` for hand slots."""
    names = [CELL_NAME[cell] for cell in ACTION_CELLS]
    out: list[str] = []
    for verb in ("place", "replace"):
        for slot in range(HAND_SLOTS):
            out += [f"{verb} #{slot} {name} r{rotation}" for name in names for rotation in range(3)]
    for verb in ("start", "migrate"):
        for colour in COLOURS:
            out += [
                f"{verb} {colour} {name}:{edge}"
                for cell, name in zip(ACTION_CELLS, names, strict=True)
                for edge in _EDGES[UP[cell]]
            ]
    for verb in ("pay", "take", "winner"):
        out += [f"{verb} {colour}" for colour in COLOURS]
    out += ["token", "pass"]
    return out


def split_tile_id(action_id: int) -> tuple[bool, int, int, int]:
    """(replacing, slot, cell, rotation) of a place / replace id."""
    replacing = action_id >= REPLACE
    rest, rotation = divmod(action_id - (REPLACE if replacing else PLACE), 3)
    slot, position = divmod(rest, CELLS)
    return replacing, slot, ACTION_CELLS[position], rotation


def split_region_id(action_id: int) -> tuple[bool, int, int, int]:
    """(migrating, colour, cell, edge) of a start / migrate id."""
    migrating = action_id >= MIGRATE
    rest, edge = divmod(action_id - (MIGRATE if migrating else START), 3)
    colour, position = divmod(rest, CELLS)
    return migrating, colour, ACTION_CELLS[position], edge
