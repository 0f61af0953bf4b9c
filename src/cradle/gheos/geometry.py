"""The triangular grid Gheos is played on: cells, their orientation, edges and neighbours.

Cells are addressed by ``(row, col)``; rows grow southwards and columns eastwards, and each row
is a strip of triangles pointing alternately up and down. The cell ``(row, col)`` points **up**
when ``row + col`` is even (the start tile's cell ``0,0`` points up) and **down** otherwise.
Neighbouring cells in a row share a slanted edge; an up cell shares its horizontal (south) edge
with the down cell below it.

Every cell numbers its three edges clockwise, edge 0 being the horizontal one:

- up cell ``▲``: 0 = ``s`` (south, bottom), 1 = ``nw`` (upper left), 2 = ``ne`` (upper right);
- down cell ``▼``: 0 = ``n`` (north, top), 1 = ``se`` (lower right), 2 = ``sw`` (lower left).

A down cell is an up cell turned half a turn, so this numbering has a useful property: the
edge two neighbours share has the same number on both sides. Rotating a tile (``r0``, ``r1``,
``r2``: 0, 1 or 2 clockwise turns of 120°) moves its edge ``i`` onto the cell's edge
``(i + r) % 3``; a turn keeps the clockwise order of the edges, so a tile never gets mirrored.

Cell names are ``"row,col"`` (e.g. ``"0,0"``, ``"1,-2"``); a region of a placed tile is named
by its cell and one of the edges it touches, e.g. ``"1,-2:ne"``.

Internally a cell is a small integer index into a fixed window around the start tile, large
enough for any map that 52 tiles can make (every map is connected and contains ``0,0``).
"""

from __future__ import annotations

from cradle.core.contract import IllegalAction
from cradle.core.words import N_

# Half-sizes of the window: 52 tiles in a chain from 0,0 reach at most row ±26, column ±51.
ROW_SPAN = 28
COL_SPAN = 56
WIDTH = 2 * COL_SPAN + 1
HEIGHT = 2 * ROW_SPAN + 1
CELL_COUNT = WIDTH * HEIGHT
NO_CELL = -1

EDGE_NAMES_UP = ("s", "nw", "ne")
EDGE_NAMES_DOWN = ("n", "se", "sw")


def cell_index(row: int, col: int) -> int:
    """The index of ``(row, col)``, or NO_CELL outside the window."""
    if -ROW_SPAN <= row <= ROW_SPAN and -COL_SPAN <= col <= COL_SPAN:
        return (row + ROW_SPAN) * WIDTH + (col + COL_SPAN)
    return NO_CELL


def is_up(row: int, col: int) -> bool:
    return (row + col) % 2 == 0


def neighbour(row: int, col: int, edge: int) -> tuple[int, int]:
    """The cell across ``edge`` of ``(row, col)``."""
    if is_up(row, col):
        return ((row + 1, col), (row, col - 1), (row, col + 1))[edge]
    return ((row - 1, col), (row, col + 1), (row, col - 1))[edge]


def _build() -> tuple[list[int], list[int], list[bool], list[tuple[int, int, int]], list[str]]:
    rows: list[int] = []
    cols: list[int] = []
    ups: list[bool] = []
    neighbours: list[tuple[int, int, int]] = []
    names: list[str] = []
    for index in range(CELL_COUNT):
        row, col = index // WIDTH - ROW_SPAN, index % WIDTH - COL_SPAN
        rows.append(row)
        cols.append(col)
        ups.append(is_up(row, col))
        n0, n1, n2 = (cell_index(*neighbour(row, col, edge)) for edge in range(3))
        neighbours.append((n0, n1, n2))
        names.append(f"{row},{col}")
    return rows, cols, ups, neighbours, names


ROW, COL, UP, NEIGHBOURS, CELL_NAME = _build()
ROW_COL = tuple(zip(ROW, COL, strict=True))  # cell index -> (row, col)
CELL_BY_NAME = {name: index for index, name in enumerate(CELL_NAME)}
START_CELL = cell_index(0, 0)


def edge_name(cell: int, edge: int) -> str:
    return (EDGE_NAMES_UP if UP[cell] else EDGE_NAMES_DOWN)[edge]


def parse_cell(text: str) -> int:
    """The cell named ``text`` ("row,col"); IllegalAction (a ValueError) with a reason otherwise."""
    cell = CELL_BY_NAME.get(text.strip().replace(" ", ""))
    if cell is not None:
        return cell
    parts = text.split(",")
    if len(parts) == 2:
        try:
            row, col = int(parts[0]), int(parts[1])
        except ValueError:
            pass
        else:
            cell = cell_index(row, col)
            if cell != NO_CELL:
                return cell
            raise IllegalAction(N_("cell {text} is too far from the start tile"), text=repr(text))
    raise IllegalAction(
        N_("{text} is not a cell name: write row,col such as 0,1 or -2,3"), text=repr(text)
    )


def parse_edge(cell: int, text: str) -> int:
    """The edge of ``cell`` named ``text`` (s/nw/ne on an up cell, n/se/sw on a down cell)."""
    names = EDGE_NAMES_UP if UP[cell] else EDGE_NAMES_DOWN
    word = text.strip().lower()
    if word in names:
        return names.index(word)
    raise IllegalAction(
        N_("{cell} is an up cell: its edges are {edges}, not {text}")
        if UP[cell]
        else N_("{cell} is a down cell: its edges are {edges}, not {text}"),
        cell=CELL_NAME[cell],
        edges=", ".join(names),
        text=repr(text),
    )


def rotated_edge(local_edge: int, rotation: int) -> int:
    """The cell edge on which a tile's own edge ``local_edge`` lies at ``rotation``."""
    return (local_edge + rotation) % 3


def corners(row: int, col: int) -> tuple[tuple[float, float], ...]:
    """The triangle's corners in units of its side (x east, y south), for drawing.

    Corners are listed so that corner ``e`` and corner ``e + 1`` bound edge ``e`` (clockwise).
    """
    height = 3**0.5 / 2
    left, top = col / 2, row * height
    if is_up(row, col):
        # s edge: bottom-right -> bottom-left; nw: bottom-left -> apex; ne: apex -> bottom-right
        return ((left + 1, top + height), (left, top + height), (left + 0.5, top))
    # n edge: top-left -> top-right; se: top-right -> bottom apex; sw: apex -> top-left
    return ((left, top), (left + 1, top), (left + 0.5, top + height))
