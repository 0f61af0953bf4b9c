"""The analysis API of Tigris & Euphrates (docs/contract.md, "Analysis"): the board's geometry
and, for a state, what lies on each cell, the regions and kingdoms with their leaders,
supporters, monuments and treasures, each dynasty's holdings and the decision in progress.

Everything is plain ints, strings and named tuples (immutable, compared by value, cheap to
make), so any engine (Python or native) can give the identical values, and a caller can keep
them: they never change. Cells are
ints, ``row * 16 + column`` ("A1" is 0, "P1" 15, "A2" 16); colours index ``COLOURS`` (red,
blue, green, black); a leader is known by its colour (``ROLES[colour]`` names its role).
Like ``to_position()`` a state's analysis is full information: use it on your own seat's
determinizations (``sample_hidden``), not on the truth, when other seats' secrets matter.
"""

from __future__ import annotations

from typing import Final, NamedTuple, Protocol, cast

from cradle.core.contract import GameState
from cradle.tigris.board import BOARDS, CELL_NAMES, COLUMNS, NEIGHBOURS, ROWS, cells_of, parse_cell
from cradle.tigris.decisions import Decision
from cradle.tigris.types import Options, TigrisEvent, TigrisResult, TigrisView

# What a cell holds (Content.kind).
TILE: Final = "tile"  # a face-up tile
DOWN: Final = "down"  # a face-down tile under a monument
LEADER: Final = "leader"
CATASTROPHE: Final = "catastrophe"
WONDER: Final = "wonder"


class Geometry(NamedTuple):
    """One side of the board."""

    name: str  # "standard" or "advanced"
    columns: int  # 16
    rows: int  # 11
    cells: tuple[str, ...]  # cell -> its name ("A1", ...), for every cell of the board
    neighbours: tuple[tuple[int, ...], ...]  # cell -> the orthogonal neighbours, ascending
    river: tuple[int, ...]  # the river cells (blue tiles only), ascending
    temples: tuple[int, ...]  # cells of the starting temples, each with a treasure
    special: tuple[int, ...]  # the temples whose treasures a trader must take first

    def cell(self, name: str) -> int:
        """The cell called ``name`` ("K1", any case); ValueError otherwise."""
        return parse_cell(name)


class Content(NamedTuple):
    """What lies on a cell. ``colour`` is the tile's or the leader's (-1 for a catastrophe or
    the wonder), ``seat`` the leader's owner (-1 for anything else); ``treasure`` says that a
    treasure lies on it (a temple, face up or down, or the wonder)."""

    kind: str  # TILE, DOWN, LEADER, CATASTROPHE or WONDER
    colour: int = -1
    seat: int = -1
    treasure: bool = False


class Leader(NamedTuple):
    seat: int
    colour: int  # its role is ROLES[colour]: priest red, farmer blue, trader green, king black
    cell: int


class Monument(NamedTuple):
    colours: tuple[int, int]  # ascending, as in MONUMENTS
    cell: int  # the top-left cell of its 2x2 square


class Region(NamedTuple):
    """A connected group of cells that connect (tiles face up or down, leaders, the wonder's
    cells); with a leader in it, it is a kingdom."""

    cells: tuple[int, ...]  # ascending
    leaders: tuple[Leader, ...]  # by cell
    supporters: tuple[int, int, int, int]  # face-up tiles per colour
    treasures: tuple[int, ...]  # cells carrying a treasure, ascending
    monuments: tuple[Monument, ...]  # monuments standing in it, by cell

    @property
    def is_kingdom(self) -> bool:
        return bool(self.leaders)


class Dynasty(NamedTuple):
    """What one seat holds (``hand`` and ``points`` are secrets of that seat unless the game
    uses open scoring: full information, like positions)."""

    name: str  # archer, bull, pot, lion
    hand: tuple[int, int, int, int]  # tiles in hand per colour
    points: tuple[int, int, int, int]  # victory points per colour
    treasures: int
    catastrophes: int  # catastrophe tiles left
    supply: tuple[int, ...]  # colours of its leaders beside the board, ascending


def _geometry(name: str) -> Geometry:
    board = BOARDS[name]
    return Geometry(
        name=name,
        columns=COLUMNS,
        rows=ROWS,
        cells=CELL_NAMES,
        neighbours=tuple(tuple(cells_of(mask)) for mask in NEIGHBOURS),
        river=tuple(cells_of(board.river)),
        temples=tuple(cells_of(board.temples)),
        special=tuple(cells_of(board.special)),
    )


GEOMETRIES: Final = {name: _geometry(name) for name in BOARDS}


def geometry(board: str = "standard") -> Geometry:
    """The geometry of a board side; ValueError for an unknown side."""
    found = GEOMETRIES.get(board)
    if found is None:
        raise ValueError(f"unknown board {board!r}: use 'standard' or 'advanced'")
    return found


class TigrisGame(GameState, Protocol):
    """A Tigris & Euphrates state: the contract plus the analysis API (any engine)."""

    @property
    def options(self) -> Options: ...

    @property
    def active(self) -> int:
        """The seat whose turn it is (``to_move`` may be a defender or a trader's owner)."""
        ...

    @property
    def actions_left(self) -> int: ...

    @property
    def ending(self) -> bool:
        """The bag ran short: the game ends with this turn."""
        ...

    def apply(self, action: str | int) -> list[TigrisEvent]: ...

    def result(self) -> list[TigrisResult]: ...

    def view(self, seat: int | None) -> TigrisView: ...

    def geometry(self) -> Geometry: ...

    def contents(self) -> tuple[Content | None, ...]:
        """Per cell, what lies on it (None: empty)."""
        ...

    def regions(self) -> tuple[Region, ...]:
        """Every region and kingdom, ordered by their lowest cell."""
        ...

    def region_map(self) -> tuple[int, ...]:
        """Per cell, the index in ``regions()`` of the region holding it (-1: none)."""
        ...

    def dynasty(self, seat: int) -> Dynasty: ...

    def bag_size(self) -> int: ...

    def decision(self) -> Decision | None:
        """The decision in progress (a revolt, a war, ...), None between actions."""
        ...

    def conflict_strengths(self) -> tuple[int, int] | None:
        """In a revolt or war: the attacker's and the defender's strength on the board (before
        commitments); None otherwise."""
        ...


def as_tigris(state: GameState) -> TigrisGame:
    """``state`` as a Tigris state, for code that has learnt the game from ``state.game``;
    TypeError for another game's state."""
    if state.game != "tigris":
        raise TypeError(f"a Tigris & Euphrates state is needed, not a {state.game} state")
    return cast(TigrisGame, state)
