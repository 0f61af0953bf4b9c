"""The vocabulary of Gheos: its constants, its options, the conflict being resolved and the
typed shapes of what an engine returns (events, results, refusals). Every other module of the
package builds on these."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypedDict

from cradle.core import contract
from cradle.core.contract import JSON
from cradle.gheos.tiles import TILE_COUNT, TileRegion, is_tileset_text, load_tiles

NAME = "gheos"
MIN_PLAYERS = 2
MAX_PLAYERS = 4
COLOURS = ("red", "green", "yellow", "blue", "black", "white")
FOLLOWERS_PER_COLOUR = 5
TOKENS = 3
EPOCH = -1  # an epoch tile in the stack
EPOCH_TILES = 8
# A hidden tile's name (hands, stack) -> the number the state keeps.
HIDDEN_NAMES = {"epoch": EPOCH, **{f"t{n}": n for n in range(TILE_COUNT)}}
END_EPOCH = {2: 6, 3: 7, 4: 8}  # the epoch tile whose drawing ends the game
HAND_SIZE = 2
DEFAULT_NAMES = ("north", "east", "south", "west")
PHASES = ("tile", "pay", "migrate", "war", "civ", "token", "over")
CONFLICT_PHASES = ("pay", "migrate", "war")


class IllegalAction(contract.IllegalAction):
    """A refused action (either kind below); the state is left unchanged."""


class MalformedAction(IllegalAction, contract.MalformedAction):
    """Not an action of the notation, whatever the position (contract.MalformedAction)."""


class DisallowedAction(IllegalAction, contract.DisallowedAction):
    """An action of the notation the rules do not allow now (contract.DisallowedAction)."""


class GheosResult(contract.SeatResult):
    """A seat's line of ``result()``: points, then followers held break ties."""

    player: str
    points: int
    followers: int


class GheosEvent(contract.Event, total=False):
    """An event of ``apply`` (docs/gheos.md lists the types): ``type`` and ``text``, then
    the fields of its type. Colours, cells, tiles and players are their names."""

    cell: str
    tile: str
    rotation: int
    removed: str
    colour: str
    civ: str
    civs: list[str]
    to: str
    at: str
    winner: str
    player: str
    points: int | dict[str, int]  # a player's points, or every player's (epoch, final)
    followers: int
    epoch: int
    ranking: list[GheosResult]


class HandTile(TypedDict):
    """A tile as a hand shows it: regions on its own edges 0, 1, 2 (``Region.to_dict``)."""

    tile: str
    shape: str
    rotations: list[int]
    text: str
    regions: list[TileRegion]


class RegionView(TypedDict):
    """A region of a tile on the map."""

    ref: str  # "<cell>:<edge>"
    edges: list[str]
    landmass: bool
    wheat: int
    cup: int
    sword: int
    pyramid: int
    temple: str | None  # its temple's symbol kind, if it has one
    area: int
    civ: str | None


def symbol_counts(region: RegionView | TileRegion) -> dict[str, int]:
    """How many of each symbol (wheat, cup, sword) a region shows."""
    return {"wheat": region["wheat"], "cup": region["cup"], "sword": region["sword"]}


class CellView(TypedDict):
    """A tile on the map."""

    cell: str
    row: int
    col: int
    up: bool
    tile: str
    rotation: int
    pyramid: bool
    regions: list[RegionView]


class AreaView(TypedDict):
    """An area of land as views show it (``civ``: the colour of the civilization on it)."""

    area: int
    ref: str
    kind: str
    tiles: int
    wheat: int
    cup: int
    sword: int
    pyramid: int
    civ: str | None


class CivilizationView(TypedDict):
    area: int
    ref: str
    supply: int


class MigrationView(TypedDict):
    civ: str
    options: list[str]
    split: bool


class WarView(TypedDict):
    civs: list[str]
    options: list[str]


class GheosPending(TypedDict):
    """The war or migration being resolved (positions and views)."""

    kind: str
    cell: str
    swords: dict[str, int]
    moved: list[str]
    migrations: list[MigrationView]
    wars: list[WarView] | None


class Scores(TypedDict):
    """Followers held (per colour), points and tokens per player's name."""

    followers: dict[str, dict[str, int]]
    points: dict[str, int]
    tokens: dict[str, int]


class GheosView(contract.View):
    """All one seat (or a spectator) may know of a Gheos game (docs/gheos.md)."""

    options: dict[str, str | None]  # options_to_dict
    phase: str
    map: list[CellView]
    frontier: list[str]
    areas: list[AreaView]
    civilizations: dict[str, CivilizationView]
    supply: dict[str, int]  # followers left per colour
    followers: dict[str, dict[str, int]]
    points: dict[str, int]
    tokens: dict[str, int]
    hand: list[HandTile] | None  # the seat's own tiles (None: a spectator)
    stack_size: int
    stack_epochs: int
    epochs_drawn: int
    epoch_tiles: int
    end_epoch: int
    removed: list[str]
    pending: GheosPending | None
    result: list[GheosResult] | None


class SummaryCivilization(TypedDict):
    area: int
    supply: int


class GheosSummary(TypedDict):
    """The public numbers of a view without the map (``state.summary()``): what evaluations
    read, at a fraction of a view's cost."""

    game: str
    players: list[str]
    active: int
    to_move: int
    phase: str
    areas: list[AreaView]
    civilizations: dict[str, SummaryCivilization]
    followers: dict[str, dict[str, int]]
    points: dict[str, int]
    tokens: dict[str, int]
    epochs_drawn: int
    end_epoch: int
    is_over: bool


@dataclass(frozen=True)
class Options:
    tiles: str | None = None  # a packaged set's name or a set's text; None: "standard"


class Conflict:
    """A war and/or migration being resolved (the ``pending`` of positions and views).

    Areas are indices into the state's current areas, which stay put until the next tile.
    """

    __slots__ = ("cell", "migrations", "moved", "swords", "wars")

    def __init__(self, cell: int, swords: dict[int, int]) -> None:
        self.cell = cell  # where the tile went: its temple scores once all is resolved
        self.swords = (
            swords  # colour -> swords on its former continent (new/replaced tile not counted)
        )
        self.moved: list[int] = []  # colours that migrated: they lose any war automatically
        # (colour, areas it may go to, whether its continent split); first one is next
        self.migrations: list[tuple[int, list[int], bool]] = []
        # (colours still fighting, the tied leaders the active player chooses from); None
        # until the migrations are settled, since where migrants go decides who meets whom
        self.wars: list[tuple[list[int], list[int]]] | None = None

    def copy(self) -> Conflict:
        other = Conflict(self.cell, dict(self.swords))
        other.moved = list(self.moved)
        other.migrations = [(c, list(o), s) for c, o, s in self.migrations]
        if self.wars is not None:
            other.wars = [(list(c), list(o)) for c, o in self.wars]
        return other


def options_from_dict(data: object) -> Options:
    """Options from JSON (or Options, or None for the defaults); unknown keys and wrong
    types are refused with a reason."""
    if data is None:
        return Options()
    if isinstance(data, Options):
        return data
    if not isinstance(data, Mapping):
        raise ValueError('Gheos options must be an object such as {"tiles": null}')
    unknown = sorted(set(data) - {"tiles"})
    if unknown:
        raise ValueError(f"unknown Gheos option(s): {', '.join(unknown)} (known: tiles)")
    tiles = data.get("tiles")
    if tiles is not None and (not isinstance(tiles, str) or not tiles.strip()):
        raise ValueError(
            "the 'tiles' option is a packaged tile set's name (standard), "
            "a tile set's text, or null"
        )
    if tiles is not None:
        load_tiles(tiles)  # an unknown name or a broken set is refused here, with its reason
        if not is_tileset_text(tiles) and tiles.strip().lower() == "standard":
            tiles = None  # the packaged set: records keep saying null, as they always have
    return Options(tiles=tiles)


def options_to_dict(options: object) -> JSON:
    """The options as a JSON object (``options``: Options, such an object, or None)."""
    return {"tiles": options_from_dict(options).tiles}
