"""The analysis API of Gheos (docs/contract.md, "Analysis"): the triangular grid and, for a
state, the tiles on the map, the areas (continents, islands) with their symbols and temples,
the civilizations with their followers, and each player's holdings.

Everything is plain ints, strings and named tuples (immutable, compared by value, cheap to
make), so any engine (Python or native) can give the identical values, and a caller can keep
them: they never change.
Cells are ``(row, col)`` pairs (cradle.gheos.geometry explains the grid); colours index
``COLOURS`` (red, green, yellow, blue, black, white). Like ``to_position()`` a state's
analysis is full information (hands included): use it on your own seat's determinizations.
"""

from __future__ import annotations

from typing import Final, NamedTuple, Protocol, cast

from cradle.core.contract import GameState
from cradle.gheos.geometry import EDGE_NAMES_DOWN, EDGE_NAMES_UP, corners, is_up, neighbour
from cradle.gheos.types import GheosEvent, GheosResult, GheosSummary, GheosView, Options

SYMBOLS: Final = ("wheat", "cup", "sword")  # the kinds of temple, in Area.temples order

__all__ = ["corners", "edge_names", "is_up", "neighbour"]


def edge_names(row: int, col: int) -> tuple[str, str, str]:
    """The names of the cell's edges 0, 1, 2 (``s nw ne`` up, ``n se sw`` down)."""
    names = EDGE_NAMES_UP if is_up(row, col) else EDGE_NAMES_DOWN
    return names[0], names[1], names[2]


class PlacedTile(NamedTuple):
    row: int
    col: int
    tile: int  # its number (the notation's t<number>)
    rotation: int  # 0, 1, 2: clockwise turns of 120 degrees
    areas: tuple[int, int, int]  # per cell edge 0, 1, 2: the index in areas() of the land there


class Area(NamedTuple):
    """An area: regions of placed tiles joined across the edges they share."""

    number: int  # its position in areas()
    ref: str  # its name in the notation: its first region, "row,col:edge"
    kind: str  # "continent", "island" or "land" (a lone coast or landmass)
    cells: tuple[tuple[int, int], ...]  # the cells of its tiles, ascending
    wheat: int
    cup: int
    sword: int
    pyramid: int
    temples: tuple[int, int, int]  # temples of wheat, cup, sword on it
    # The colour of the civilization on it, -1 for none. While a war is being resolved two
    # share an area and this is one of them: civilizations() tells where each one is.
    civilization: int


class Civilization(NamedTuple):
    colour: int
    area: int  # the index in areas() of its continent
    supply: int  # its followers not yet taken
    followers: tuple[int, ...]  # followers held per seat


class Player(NamedTuple):
    """What one seat holds (its hand is its secret: full information, like positions)."""

    name: str
    points: int
    tokens: int  # scoring tokens left
    followers: tuple[int, ...]  # per colour
    hand: tuple[int, ...]  # tile numbers, ascending


class GheosGame(GameState, Protocol):
    """A Gheos state: the contract plus the analysis API (any engine)."""

    @property
    def options(self) -> Options: ...

    @property
    def active(self) -> int: ...

    @property
    def phase(self) -> str:
        """The step of the turn: tile, pay, migrate, war, civ, token, or over."""
        ...

    @property
    def epochs(self) -> int:
        """Epoch tiles drawn so far."""
        ...

    @property
    def end_epoch(self) -> int:
        """The epoch tile whose drawing ends the game."""
        ...

    def apply(self, action: str | int) -> list[GheosEvent]: ...

    def result(self) -> list[GheosResult]: ...

    def action_string(self, action_id: int) -> str:
        """The notation of a fixed id now (a hand slot becomes the tile in it); the game's
        IllegalAction for an id out of range or an empty slot."""
        ...

    def view(self, seat: int | None) -> GheosView: ...

    def summary(self) -> GheosSummary:
        """The public numbers of a view (scores, tokens, followers, epochs, the areas that
        matter), without the map: cheap."""
        ...

    def tiles_on_map(self) -> tuple[PlacedTile, ...]:
        """The placed tiles, by cell."""
        ...

    def areas(self) -> tuple[Area, ...]:
        """Every area, ordered by its first region."""
        ...

    def area(self, index: int) -> Area:
        """``areas()[index]`` alone, cheaply."""
        ...

    def civilizations(self) -> tuple[Civilization, ...]:
        """The civilizations on the map, by colour."""
        ...

    def player(self, seat: int) -> Player: ...

    def stack_size(self) -> int: ...

    def conflict_actions(self) -> list[str]:
        """The legal tile actions that start a war or a migration, in the legal order."""
        ...


def as_gheos(state: GameState) -> GheosGame:
    """``state`` as a Gheos state, for code that has learnt the game from ``state.game``;
    TypeError for another game's state."""
    if state.game != "gheos":
        raise TypeError(f"a Gheos state is needed, not a {state.game} state")
    return cast(GheosGame, state)
