"""Invariants that hold after every action of every game (used by the property tests).

They read only the full position (``to_position()``), so they hold the two engines to the same
account. Two things on one cell cannot show in a position (a cell has one content), but a
hidden tile would be missing from the tile count, which is checked.
"""

from __future__ import annotations

from typing import Any

from cradle.tigris.board import BOARDS, NEIGHBOURS, components, parse_cell
from cradle.tigris.types import COLORS, HAND_SIZE, ROLES, TILE_TOTALS


def _cells(board: dict[str, str], keep: Any) -> int:
    mask = 0
    for name, value in board.items():
        if keep(value):
            mask |= 1 << parse_cell(name)
    return mask


def tile_counts(position: dict[str, Any]) -> list[int]:
    """Tiles of each colour accounted for: board, hands, bag, discards and removed."""
    counts = [0, 0, 0, 0]
    for value in position["board"].values():
        bare = value.rstrip("*").removeprefix("down:")
        if bare in COLORS:
            counts[COLORS.index(bare)] += 1
    for tiles in [*position["hands"].values(), position["bag"], *position["discards"].values()]:
        for colour in tiles:
            counts[COLORS.index(colour)] += 1
    return [counts[c] + position["removed"][COLORS[c]] for c in range(4)]


def check_invariants(position: dict[str, Any]) -> None:
    assert tile_counts(position) == list(TILE_TOTALS), tile_counts(position)
    board: dict[str, str] = position["board"]
    side = BOARDS[position["options"]["board"]]
    farms = _cells(board, lambda v: v.rstrip("*") == "blue")
    leaders = _cells(board, lambda v: v.startswith("leader:"))
    others = _cells(board, lambda v: v.rstrip("*") in ("red", "green", "black"))
    temples = _cells(board, lambda v: v.rstrip("*") == "red")
    assert not farms & side.land, "farms only on the river"
    assert not (others | leaders) & side.river, "only farms on the river"
    for name, value in board.items():
        if value.endswith("*"):
            assert value in ("red*", "down:red*", "wonder*"), f"a treasure on {name}: {value}"
    for cell in range(176):
        if leaders >> cell & 1:
            assert NEIGHBOURS[cell] & temples, "a leader must touch a face-up temple"
    for hand in position["hands"].values():
        assert len(hand) <= HAND_SIZE
    players = position["players"]
    used = sum(2 - position["catastrophes"][p] for p in players)
    assert all(0 <= position["catastrophes"][p] <= 2 for p in players)
    assert sum(1 for v in board.values() if v == "catastrophe") == used
    down = sum(1 for v in board.values() if v.startswith("down:"))
    assert down == 4 * len(position["monuments"])
    if position["pending"] is None:
        connectors = _cells(board, lambda v: v != "catastrophe")
        for kingdom in components(connectors):
            if kingdom & leaders:
                held = [v for n, v in board.items() if kingdom >> parse_cell(n) & 1]
                for role in ROLES:
                    with_role = [v for v in held if v.startswith("leader:") and v.endswith(role)]
                    assert len(with_role) <= 1, f"two {role}s in a kingdom with no conflict"
