"""The decisions that interrupt an action (the ``pending`` of positions and views), one frozen
dataclass per kind. Colours are indices into ``COLOURS``, seats ints, cells ints (row * 16 +
column); positions spell them out (docs/tigris.md). A decision never changes: the engine
replaces it (``dataclasses.replace``) when it moves on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True, slots=True)
class Revolt:
    """A leader placed in a kingdom holding a leader of its colour: attacker and defender
    commit temples (red tiles), the attacker first."""

    kind: ClassVar[str] = "revolt"
    color: int  # the leaders' colour
    attacker: int
    defender: int
    attacker_commit: int | None = None  # None until the attacker has committed


@dataclass(frozen=True, slots=True)
class War:
    """Two leaders of one colour in a kingdom joined by a tile: they commit tiles of that
    colour; ``queue`` holds the colours still to fight after this one."""

    kind: ClassVar[str] = "war"
    color: int
    attacker: int
    defender: int
    attacker_commit: int | None = None
    queue: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class WarOrder:
    """The active player chooses which of several wars (``colors``) is fought first."""

    kind: ClassVar[str] = "war_order"
    colors: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MonumentChoice:
    """The placed tile completed a 2x2 square (or a wonder's cross): build or decline."""

    kind: ClassVar[str] = "monument"


@dataclass(frozen=True, slots=True)
class TreasureChoice:
    """The trader's owner ``seat`` picks one of the treasures on ``cells``."""

    kind: ClassVar[str] = "treasure"
    seat: int
    cells: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class BuildingChoice:
    """(Buildings variant) put the building of the placed tile's colour on its line, or
    decline."""

    kind: ClassVar[str] = "building"


@dataclass(frozen=True, slots=True)
class WonderPoint:
    """(Wonder variant) the active player's king shares the wonder's kingdom: which colour
    its end-of-turn point goes to."""

    kind: ClassVar[str] = "wonderpoint"


Conflict = Revolt | War
Decision = Revolt | War | WarOrder | MonumentChoice | TreasureChoice | BuildingChoice | WonderPoint
DECISIONS: tuple[type[Decision], ...] = (
    Revolt,
    War,
    WarOrder,
    MonumentChoice,
    TreasureChoice,
    BuildingChoice,
    WonderPoint,
)
KINDS = tuple(decision.kind for decision in DECISIONS)
