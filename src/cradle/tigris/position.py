"""Positions: the whole state as JSON (full information; the schema is in docs/tigris.md), as
the reference writes them. Reading them is :mod:`cradle.tigris.engine`'s."""

from __future__ import annotations

from typing import Any, Protocol, cast

from cradle.tigris.board import CELL_NAMES, cells_of
from cradle.tigris.decisions import Decision, Revolt, TreasureChoice, War, WarOrder
from cradle.tigris.types import (
    COLOURS,
    MONUMENTS,
    ROLES,
    Options,
    TigrisPending,
    TigrisResult,
    options_to_dict,
)


class Written(Protocol):
    """What positions and views are written from: the fields of the reference state
    (:class:`cradle.tigris.state.TigrisState`, which satisfies this)."""

    options: Options
    players: tuple[str, ...]
    n: int
    up: list[int]
    down: list[int]
    treasure: int
    cata: int
    leader_cell: list[int]
    leaders: int
    monuments: list[tuple[int, int]]
    unification: int
    hands: list[list[int]]
    bag: list[int]
    points: list[list[int]]
    treasures: list[int]
    catastrophes: list[int]
    discards: list[list[int]]
    removed: list[int]
    active: int
    actions_left: int
    pending: Decision | None
    placed: int
    ending: bool
    over: bool
    buildings: list[int]
    wonder: int

    @property
    def to_move(self) -> int: ...

    def occupied(self) -> int: ...

    def wonder_mask(self) -> int: ...

    def conflict_strengths(self) -> tuple[int, int] | None: ...

    def result(self) -> list[TigrisResult]: ...


def colors_of(counts: list[int]) -> list[str]:
    """Tiles counted per colour, as a list of colour names."""
    return [COLOURS[c] for c in range(4) for _ in range(counts[c])]


def board_cells(s: Written) -> dict[str, str]:
    out: dict[str, str] = {}
    wonder = s.wonder_mask()
    for cell in cells_of(s.occupied()):
        bit = 1 << cell
        star = "*" if s.treasure & bit else ""
        if s.cata & bit:
            value = "catastrophe"
        elif wonder & bit:
            value = "wonder" + star
        elif s.leaders & bit:
            index = s.leader_cell.index(cell)
            value = f"leader:{s.players[index // 4]}:{ROLES[index % 4]}"
        else:
            value = ""
            for color in range(4):
                if s.up[color] & bit:
                    value = COLOURS[color] + star
                elif s.down[color] & bit:
                    value = f"down:{COLOURS[color]}{star}"
        out[CELL_NAMES[cell]] = value
    return out


def pending_json(s: Written) -> TigrisPending | None:
    p = s.pending
    if p is None:
        return None
    out: dict[str, object] = {"kind": p.kind}  # the kind's fields, then placed: wire order
    if isinstance(p, Revolt | War):
        out["color"] = COLOURS[p.color]
        out["attacker"] = p.attacker
        out["defender"] = p.defender
        out["attacker_commit"] = p.attacker_commit
        if isinstance(p, War):
            out["queue"] = [COLOURS[c] for c in p.queue]
    elif isinstance(p, WarOrder):
        out["colors"] = [COLOURS[c] for c in p.colors]
    elif isinstance(p, TreasureChoice):
        out["seat"] = p.seat
        out["cells"] = [CELL_NAMES[c] for c in p.cells]
    out["placed"] = CELL_NAMES[s.placed] if s.placed >= 0 else None
    out["unification"] = CELL_NAMES[s.unification] if s.unification >= 0 else None
    return cast(TigrisPending, out)


def to_position(s: Written) -> dict[str, Any]:
    names = s.players
    return {
        "options": options_to_dict(s.options),
        "players": list(names),
        "active": s.active,
        "actions_left": s.actions_left,
        "board": board_cells(s),
        "monuments": [
            {"colors": [COLOURS[c] for c in MONUMENTS[m]], "cell": CELL_NAMES[cell]}
            for m, cell in s.monuments
        ],
        "hands": {names[i]: colors_of(s.hands[i]) for i in range(s.n)},
        "bag": [COLOURS[c] for c in reversed(s.bag)],
        "points": {names[i]: dict(zip(COLOURS, s.points[i], strict=True)) for i in range(s.n)},
        "treasures": {names[i]: s.treasures[i] for i in range(s.n)},
        "catastrophes": {names[i]: s.catastrophes[i] for i in range(s.n)},
        "buildings": {
            COLOURS[c]: CELL_NAMES[cell] for c, cell in enumerate(s.buildings) if cell >= 0
        },
        "pending": pending_json(s),
        "discards": {names[i]: colors_of(s.discards[i]) for i in range(s.n)},
        "removed": dict(zip(COLOURS, s.removed, strict=True)),
        "ending": s.ending,
        "over": s.over,
    }
