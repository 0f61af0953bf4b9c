"""The two sides of the Tigris & Euphrates board as bitboards.

A cell is an int 0..175: ``row * 16 + column``; "A1" is 0, "P1" is 15, "A2" is 16.
Sets of cells are Python ints used as 176-bit bitboards, which keeps the hot path (flood fill,
neighbour masks, set algebra) to a handful of integer operations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

T = TypeVar("T")

COLUMNS: Final = 16
ROWS: Final = 11
CELLS: Final = COLUMNS * ROWS
FULL: Final = (1 << CELLS) - 1
COLUMN_LETTERS: Final = "ABCDEFGHIJKLMNOP"

_COLUMN_A = sum(1 << (r * COLUMNS) for r in range(ROWS))
_COLUMN_P = _COLUMN_A << (COLUMNS - 1)
NOT_COLUMN_A: Final = FULL & ~_COLUMN_A
NOT_COLUMN_P: Final = FULL & ~_COLUMN_P

CELL_NAMES: Final = tuple(f"{COLUMN_LETTERS[c % COLUMNS]}{c // COLUMNS + 1}" for c in range(CELLS))
CELL_BY_NAME: Final = {name: cell for cell, name in enumerate(CELL_NAMES)}


# Per cell, the 2x2 square whose top-left cell it is (0 where the square would leave the board):
# where a monument stands.
SQUARE_MASK: Final = tuple(
    (0b11 | 0b11 << COLUMNS) << c if c % COLUMNS < COLUMNS - 1 and c // COLUMNS < ROWS - 1 else 0
    for c in range(CELLS)
)


def cell_name(cell: int) -> str:
    return CELL_NAMES[cell]


def parse_cell(text: str) -> int:
    """The cell named ``text`` ("K1", case-insensitive); ValueError with a reason otherwise."""
    cell = CELL_BY_NAME.get(text.strip().upper())
    if cell is None:
        raise ValueError(f"{text!r} is not a cell: columns are A-P, rows 1-11 (e.g. K1)")
    return cell


def dilate(mask: int) -> int:
    """The cells orthogonally adjacent to ``mask`` (``mask`` itself included)."""
    return (
        mask
        | ((mask << 1) & NOT_COLUMN_A)
        | ((mask >> 1) & NOT_COLUMN_P)
        | ((mask << COLUMNS) & FULL)
        | (mask >> COLUMNS)
    )


def flood(seed: int, within: int) -> int:
    """The connected part of ``within`` that contains ``seed`` (orthogonal steps)."""
    current = seed & within
    while True:
        grown = (
            current
            | ((current << 1) & NOT_COLUMN_A)
            | ((current >> 1) & NOT_COLUMN_P)
            | (current << COLUMNS)
            | (current >> COLUMNS)
        ) & within
        if grown == current:
            return current
        current = grown


def components(mask: int) -> list[int]:
    """The connected components of ``mask``, ordered by their lowest cell."""
    parts = []
    while mask:
        part = flood(mask & -mask, mask)
        parts.append(part)
        mask ^= part
    return parts


NEIGHBOURS: Final = tuple(dilate(1 << c) & ~(1 << c) for c in range(CELLS))

# Each byte of a bitboard maps to the cells it holds: turns a mask into sorted cells quickly.
_BYTE_CELLS: Final = tuple(
    tuple(tuple(8 * chunk + i for i in range(8) if byte >> i & 1) for byte in range(256))
    for chunk in range((CELLS + 7) // 8)
)


def cells_of(mask: int) -> list[int]:
    """The cells of ``mask`` in increasing order."""
    out: list[int] = []
    chunk = 0
    while mask:
        byte = mask & 0xFF
        if byte:
            out += _BYTE_CELLS[chunk][byte]
        mask >>= 8
        chunk += 1
    return out


class CellTable(Generic[T]):
    """One item per cell (an action string or id), grouped by byte of the bitboard, so that a
    mask becomes its items, in cell order, in a few steps. The groups are made at the first
    use: a process that imports the engine and never lists its actions (a server on the
    native engine) does not make them."""

    __slots__ = ("_chunks", "items")

    def __init__(self, items: Sequence[T]) -> None:
        self.items = tuple(items)
        self._chunks: tuple[tuple[tuple[T, ...], ...], ...] = ()

    def _grouped(self) -> tuple[tuple[tuple[T, ...], ...], ...]:
        self._chunks = tuple(
            tuple(tuple(self.items[c] for c in cells) for cells in chunk) for chunk in _BYTE_CELLS
        )
        return self._chunks

    def extend(self, mask: int, out: list[T]) -> None:
        chunks = self._chunks or self._grouped()
        chunk = 0
        while mask:
            byte = mask & 0xFF
            if byte:
                out += chunks[chunk][byte]
            mask >>= 8
            chunk += 1


_STANDARD = """\
....~~~~~.T.~...
.S..~.......~..S
...~~T......~~..
~~~~.........~~~
.............T~~
..............~.
~~~~....T...~~~.
.S.~~~~.....~...
......~~~~~~~.S.
.....T..........
..........T.....
"""

_ADVANCED = """\
..~~T....T.....~
..~~..........T~
.S~~...........~
..~...T....T~~~~
..~.........~...
..~T........~..S
..~~........~~..
S..~~~.T....T~..
.....~~~.....~..
....S.~~~~~~~~..
......~..S....S.
"""


@dataclass(frozen=True)
class BoardMap:
    """One side of the board: river cells, starting temples and special squares."""

    name: str
    rows: tuple[str, ...]
    river: int
    land: int
    temples: int
    special: int


def _parse_map(name: str, text: str) -> BoardMap:
    rows = tuple(text.splitlines())
    if len(rows) != ROWS or any(len(r) != COLUMNS for r in rows):
        raise ValueError(f"board {name!r} must be {COLUMNS}x{ROWS}")
    river = temples = special = 0
    for r, line in enumerate(rows):
        for c, mark in enumerate(line):
            bit = 1 << (r * COLUMNS + c)
            if mark == "~":
                river |= bit
            elif mark in "TS":
                temples |= bit
                if mark == "S":
                    special |= bit
            elif mark != ".":
                raise ValueError(f"board {name!r}: unknown mark {mark!r}")
    return BoardMap(name, rows, river, FULL & ~river, temples, special)


BOARDS: Final = {
    "standard": _parse_map("standard", _STANDARD),
    "advanced": _parse_map("advanced", _ADVANCED),
}


def board_map(name: str = "standard") -> dict[str, object]:
    """A JSON-able description of a board side, for renderers and clients."""
    board = BOARDS[name]
    return {
        "name": board.name,
        "columns": COLUMNS,
        "rows": ROWS,
        "river": [CELL_NAMES[c] for c in cells_of(board.river)],
        "temples": [CELL_NAMES[c] for c in cells_of(board.temples)],
        "special": [CELL_NAMES[c] for c in cells_of(board.special)],
    }
