"""The vocabulary of Tigris & Euphrates: its constants, its options and the typed shapes of
what an engine returns (events, results, refusals). Every other module of the package builds
on these."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Final, NotRequired, TypedDict

from cradle.core import contract
from cradle.core.contract import JSON
from cradle.tigris.board import BOARDS

NAME = "tigris"
RED, BLUE, GREEN, BLACK = 0, 1, 2, 3
COLORS: Final = ("red", "blue", "green", "black")
COLOR_BY_NAME: Final = {name: i for i, name in enumerate(COLORS)}
# A leader's role is the colour it rules: priest red, farmer blue, trader green, king black.
ROLES: Final = ("priest", "farmer", "trader", "king")
ROLE_BY_NAME: Final = {name: i for i, name in enumerate(ROLES)}
DYNASTIES: Final = ("archer", "bull", "pot", "lion")
TILE_TOTALS: Final = (57, 36, 30, 30)
TOTAL_TILES: Final = sum(TILE_TOTALS)
HAND_SIZE: Final = 6
CATASTROPHES_PER_PLAYER: Final = 2
MONUMENTS: Final = (
    (RED, BLUE),
    (RED, GREEN),
    (RED, BLACK),
    (BLUE, GREEN),
    (BLUE, BLACK),
    (GREEN, BLACK),
)
MONUMENT_NAMES: Final = tuple(f"{COLORS[a]}-{COLORS[b]}" for a, b in MONUMENTS)
MONUMENT_BY_COLORS: Final = {frozenset(pair): i for i, pair in enumerate(MONUMENTS)}
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 4


class IllegalAction(contract.IllegalAction):
    """A refused action (either kind below); the state is left unchanged."""


class MalformedAction(IllegalAction, contract.MalformedAction):
    """Not an action of the notation, whatever the position (contract.MalformedAction)."""


class DisallowedAction(IllegalAction, contract.DisallowedAction):
    """An action of the notation the rules do not allow now (contract.DisallowedAction)."""


class TigrisEvent(contract.Event, total=False):
    """An event of ``apply`` (docs/tigris.md lists the types): ``type`` and ``text``, then
    the fields of its type. Seats are ints, colours, roles and cells their names."""

    role: str
    cell: str
    color: str
    amount: int
    count: int
    moved_from: str | None
    attacker: int
    defender: int
    wars: list[str]
    winner: int
    loser: int
    attack: int
    defence: int
    removed: list[str]
    monument: str


class TigrisResult(contract.SeatResult):
    """A seat's line of ``result()``: victory points per colour, treasures, the points once
    the treasures lift the lowest colours (``final``); ``score`` is the lowest of those."""

    dynasty: str
    points: dict[str, int]
    treasures: int
    final: dict[str, int]


class MonumentSpot(TypedDict):
    """A monument on the board: its two colours and its cell."""

    colors: list[str]
    cell: str


class TigrisPending(TypedDict):
    """The decision in progress (docs/tigris-view.md): its ``kind`` and that kind's fields,
    plus the tile just placed and a unification's cell; in a view, a conflict's strengths."""

    kind: str
    color: NotRequired[str]  # revolt, war: the colour fought over
    attacker: NotRequired[int]
    defender: NotRequired[int]
    attacker_commit: NotRequired[int | None]  # None until the attacker commits
    queue: NotRequired[list[str]]  # war: the wars still to fight, by colour
    colors: NotRequired[list[str]]  # war order: the colours to choose from
    seat: NotRequired[int]  # treasure: who takes
    cells: NotRequired[list[str]]  # treasure: the cells to take from
    placed: str | None
    unification: str | None
    attacker_strength: NotRequired[int]
    defender_strength: NotRequired[int]


class TigrisView(contract.View):
    """All one seat (or a spectator) may know of a Tigris game (docs/tigris-view.md)."""

    options: dict[str, str | bool]  # options_to_dict
    actions_left: int
    board: dict[str, str]  # cell name -> what is on it
    unification: str | None
    monuments: list[MonumentSpot]
    unused_monuments: list[list[str]]
    hand: list[str] | None  # the seat's own tiles (None: a spectator)
    bag_size: int
    points: dict[str, dict[str, int]]  # only the seats whose points this viewer may see
    treasures: dict[str, int]
    catastrophes: dict[str, int]
    supply: dict[str, list[str]]  # the leaders each player has off the board
    buildings: dict[str, str]
    wonder: str | None
    pending: TigrisPending | None
    ending: bool
    result: list[TigrisResult] | None


@dataclass(frozen=True)
class Options:
    """Table options: the board side and the variants of the rulebooks (all combinable)."""

    board: str = "standard"
    buildings: bool = False
    english: bool = False
    wonder: bool = False
    open_scoring: bool = False

    def __post_init__(self) -> None:
        if self.board not in BOARDS:
            raise ValueError(f"unknown board {self.board!r}: use 'standard' or 'advanced'")
        for f in fields(self):
            if f.name != "board" and not isinstance(getattr(self, f.name), bool):
                raise ValueError(f"option {f.name!r} must be true or false")


def options_to_dict(options: object) -> JSON:
    """The options as a JSON object (``options``: Options, such an object, or None)."""
    chosen = options_from_dict(options)
    return {f.name: getattr(chosen, f.name) for f in fields(chosen)}


def options_from_dict(data: object) -> Options:
    """Options from a JSON object (or Options, or None for the defaults); missing fields take
    their defaults, unknown ones are refused."""
    if data is None:
        return Options()
    if isinstance(data, Options):
        return data
    if not isinstance(data, Mapping):
        raise ValueError("options must be an object")
    known = {f.name for f in fields(Options)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(
            f"unknown option(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )
    return Options(**data)
