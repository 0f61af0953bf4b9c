"""Building hand-made Gheos positions for the tests (tile numbers refer to data/tiles.txt)."""

from __future__ import annotations

from typing import Any

from cradle import gheos
from cradle.gheos.tiles import TILE_COUNT
from cradle.gheos.types import COLOURS, EPOCH_TILES

# A state of either engine (the tests go through the contract only).
GheosState = Any

PLAYERS = ("north", "east")


def position(
    board: dict[str, str],
    *,
    players: tuple[str, ...] = PLAYERS,
    active: int = 0,
    phase: str = "tile",
    hands: dict[str, list[str]] | None = None,
    civs: dict[str, str] | None = None,
    followers: dict[str, dict[str, int]] | None = None,
    points: dict[str, int] | None = None,
    tokens: dict[str, int] | None = None,
    epochs: int = 0,
    stack_top: tuple[str, ...] = (),
    removed: tuple[str, ...] = (),
) -> dict[str, Any]:
    """A complete position: tiles not named anywhere fill the hands (lowest numbers first,
    two each when ``hands`` is not given), then the stack after ``stack_top``; the epoch tiles
    not drawn and not in ``stack_top`` go to the bottom of the stack."""
    board = {"0,0": "t0 r0", **board}
    used = {text.split()[0] for text in board.values()} | set(removed)
    used |= {t for t in stack_top if t != "epoch"}
    if hands is not None:
        used |= {t for hand in hands.values() for t in hand}
    free = [f"t{n}" for n in range(TILE_COUNT) if f"t{n}" not in used]
    if hands is None:
        hands = {}
        for name in players:
            hands[name], free = free[:2], free[2:]
    epochs_left = EPOCH_TILES - epochs - stack_top.count("epoch")
    return {
        "players": list(players),
        "active": active,
        "phase": phase,
        "board": board,
        "hands": hands,
        "stack": [*stack_top, *free, *(["epoch"] * epochs_left)],
        "removed": list(removed),
        "civilizations": civs or {},
        "followers": followers or {},
        "points": points or {},
        "tokens": tokens or {},
        "epochs": epochs,
        "pending": None,
    }


def build(board: dict[str, str], **kwargs: Any) -> GheosState:
    state: GheosState = gheos.from_position(position(board, **kwargs))
    return state


def areas(state: GheosState) -> list[tuple[str, list[str], dict[str, int]]]:
    """Each area as (kind, its region names sorted, its totals) for readable assertions."""
    view = state.view(None)
    refs: dict[int, list[str]] = {}
    for tile in view["map"]:
        for region in tile["regions"]:
            refs.setdefault(region["area"], []).append(region["ref"])
    return [
        (
            area["kind"],
            sorted(refs[area["area"]]),
            {symbol: area[symbol] for symbol in ("wheat", "cup", "sword", "pyramid")},
        )
        for area in view["areas"]
    ]


def area_at(state: GheosState, ref: str) -> tuple[str, list[str], dict[str, int]]:
    """The area holding the region named ``ref`` ("cell:edge", any edge of the region)."""
    cell, _, edge = ref.partition(":")
    for tile in state.view(None)["map"]:
        if tile["cell"] == cell:
            for region in tile["regions"]:
                if edge in region["edges"]:
                    return areas(state)[region["area"]]
    raise AssertionError(f"no region {ref}")


def supply(state: GheosState) -> list[int]:
    """Followers left in the supply, per colour (red, green, yellow, blue, black, white)."""
    left: dict[str, int] = state.view(None)["supply"]
    return [left[colour] for colour in COLOURS]


def points(state: GheosState) -> list[int]:
    """Points per seat."""
    position = state.to_position()
    return [position["points"][name] for name in position["players"]]


def unchanged_after(state: GheosState, action: str) -> str:
    """Apply an illegal ``action``: return the engine's reason, checking nothing changed."""
    before = state.to_position()
    legal = state.legal_actions()
    try:
        state.apply(action)
    except gheos.IllegalAction as exc:
        assert state.to_position() == before
        assert state.legal_actions() == legal
        return str(exc)
    raise AssertionError(f"{action!r} was accepted")
