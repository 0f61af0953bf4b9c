"""Building hand-made Gheos positions for the tests (tile numbers refer to data/tiles.txt)."""

from __future__ import annotations

import random
from typing import Any

from cradle import gheos
from cradle.gheos.tiles import TILE_COUNT, packaged_tiles
from cradle.gheos.types import COLOURS, EPOCH_TILES, FOLLOWERS_PER_COLOUR

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


def unchanged_after(
    state: GheosState, action: str, kind: type[gheos.IllegalAction] = gheos.IllegalAction
) -> str:
    """Apply an illegal ``action``: return the engine's reason, checking nothing changed (and,
    given ``kind``, that the refusal is of that kind: MalformedAction or DisallowedAction)."""
    before = state.to_position()
    legal = state.legal_actions()
    try:
        state.apply(action)
    except gheos.IllegalAction as exc:
        assert isinstance(exc, kind), f"{action!r} raised {type(exc).__name__}"
        assert state.to_position() == before
        assert state.legal_actions() == legal
        return str(exc)
    raise AssertionError(f"{action!r} was accepted")


WAR_MAP = {"0,-1": "t3 r0", "-1,-1": "t1 r0", "0,1": "t2 r0", "-1,1": "t6 r0"}


CIVS = {"red": "0,0:s", "blue": "0,0:ne"}


def war_state(**kwargs: object) -> GheosState:
    settings: dict[str, object] = {
        "civs": CIVS,
        "followers": {"north": {"red": 2, "blue": 1}, "east": {"red": 1, "blue": 2}},
        "hands": {"north": ["t19", "t30"], "east": ["t33", "t34"]},
    }
    settings.update(kwargs)
    board = dict(WAR_MAP)
    board.update(settings.pop("extra", {}))  # type: ignore[call-overload]
    return build(board, **settings)


def points_of(position: dict[str, Any]) -> list[int]:
    return [position["points"][name] for name in position["players"]]


def check_invariants(state: GheosState, points_before: list[int]) -> dict[str, Any]:
    """The position after a step, once its invariants are checked."""
    position = state.to_position()
    summary = state.summary()
    held = position["followers"]
    # Followers are conserved: supply + held = 5 of each colour, 30 in all.
    for colour in COLOURS:
        taken = sum(row.get(colour, 0) for row in held.values())
        civ = summary["civilizations"].get(colour)
        left = FOLLOWERS_PER_COLOUR if civ is None else civ["supply"]
        assert taken + left == FOLLOWERS_PER_COLOUR
        assert taken == 0 or colour in position["civilizations"]  # none held off the table
    # Points never decrease.
    now = points_of(position)
    assert all(a >= b for a, b in zip(now, points_before, strict=True))
    if position["pending"] is None:
        # Every civilization sits on a continent, at most one per continent.
        kinds = {area["area"]: area["kind"] for area in summary["areas"]}
        homes = [civ["area"] for civ in summary["civilizations"].values()]
        assert all(kinds[home] == "continent" for home in homes)
        assert len(set(homes)) == len(homes)
    # Every tile is somewhere, once.
    places = list(position["board"].values()) + position["removed"] + position["stack"]
    places += [t for hand in position["hands"].values() for t in hand]
    tiles = [p.split()[0] for p in places if p != "epoch"]
    assert sorted(tiles) == sorted(f"t{n}" for n in range(TILE_COUNT))
    if not state.is_over:
        assert state.legal_actions()
        assert 1 <= len(state.hand(state.to_move)) <= 2
    return position


def other_tile_set(seed: int) -> str:
    """A valid tile set unlike the packaged one (its text): its tiles renumbered and turned."""
    rng = random.Random(seed)
    tiles = packaged_tiles().tiles
    numbers = [0, *rng.sample(range(1, 52), 51)]
    lines = []
    for new, tile in zip(numbers, tiles, strict=True):
        turn = rng.randrange(3)
        regions = []
        for region in tile.regions:
            edges = "".join(str((e + turn) % 3) for e in sorted(region.edges))
            items = region.items()
            regions.append(edges + (":" + ",".join(items) if items else ""))
        lines.append(f"{new} " + "  ".join(regions))
    return "\n".join(lines) + "\n"
