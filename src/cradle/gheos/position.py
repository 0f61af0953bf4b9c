"""Positions: the whole state as JSON (full information; the schema is in docs/gheos.md), as
the reference writes them. Reading them is :mod:`cradle.gheos.engine`'s."""

from __future__ import annotations

from typing import Any, Protocol

from cradle.gheos.areas import AreaTally
from cradle.gheos.geometry import CELL_NAME
from cradle.gheos.tiles import Tile
from cradle.gheos.types import (
    COLOURS,
    CONFLICT_PHASES,
    EPOCH,
    Conflict,
    GheosPending,
    GheosResult,
    Options,
    Scores,
    options_to_dict,
)


class Written(Protocol):
    """What positions, views and summaries are written from: the fields of the reference state
    (:class:`cradle.gheos.state.GheosState`, which satisfies this)."""

    options: Options
    names: tuple[str, ...]
    tiles: tuple[Tile, ...]
    active: int
    phase: str
    board: dict[int, tuple[int, int]]
    frontier: set[int]
    hands: list[list[int]]
    stack: list[int]
    removed: list[int]
    civs: dict[int, int]
    held: list[list[int]]
    supply: list[int]
    points: list[int]
    tokens: list[int]
    epochs: int
    conflict: Conflict | None
    area_of: dict[int, int]
    area_list: list[AreaTally]

    @property
    def to_move(self) -> int: ...

    @property
    def is_over(self) -> bool: ...

    @property
    def end_epoch(self) -> int: ...

    def occupied(self) -> dict[int, int]: ...

    def region_ref(self, node: int) -> str: ...

    def area_ref(self, index: int) -> str: ...

    def result(self) -> list[GheosResult]: ...


def to_position(state: Written) -> dict[str, Any]:
    names = state.names
    return {
        "options": options_to_dict(state.options),
        "players": list(names),
        "active": state.active,
        "phase": state.phase,
        "board": {
            CELL_NAME[cell]: f"t{number} r{rotation}"
            for cell, (number, rotation) in sorted(state.board.items())
        },
        "hands": {names[s]: [f"t{n}" for n in sorted(hand)] for s, hand in enumerate(state.hands)},
        "stack": [_stack_name(n) for n in reversed(state.stack)],
        "removed": [f"t{n}" for n in state.removed],
        "civilizations": {
            COLOURS[c]: state.region_ref(anchor) for c, anchor in sorted(state.civs.items())
        },
        **scores(state),
        "epochs": state.epochs,
        "pending": pending_dict(state),
    }


def scores(state: Written) -> Scores:
    """Followers held, points and tokens per player (positions, views and summaries)."""
    names = state.names
    return {
        "followers": {
            names[s]: {COLOURS[c]: n for c, n in enumerate(row) if n}
            for s, row in enumerate(state.held)
        },
        "points": {names[s]: p for s, p in enumerate(state.points)},
        "tokens": {names[s]: t for s, t in enumerate(state.tokens)},
    }


def _stack_name(number: int) -> str:
    return "epoch" if number == EPOCH else f"t{number}"


def pending_dict(state: Written) -> GheosPending | None:
    """The war / migration being resolved, as public JSON (positions and views)."""
    conflict = state.conflict
    if conflict is None or state.phase not in CONFLICT_PHASES:
        return None
    return {
        "kind": state.phase,
        "cell": CELL_NAME[conflict.cell],
        "swords": {COLOURS[c]: n for c, n in sorted(conflict.swords.items())},
        "moved": [COLOURS[c] for c in conflict.moved],
        "migrations": [
            {
                "civ": COLOURS[colour],
                "options": [state.area_ref(a) for a in options],
                "split": split,
            }
            for colour, options, split in conflict.migrations
        ],
        "wars": None
        if conflict.wars is None
        else [
            {"civs": [COLOURS[c] for c in fighters], "options": [COLOURS[c] for c in leaders]}
            for fighters, leaders in conflict.wars
        ],
    }
