"""Short ways to build Tigris positions for the rules tests (through the public contract only).

Cells used by the tests are on the standard board:

       ABCDEFGHIJKLMNOP
     1 ....~~~~~.T.~...
     2 .S..~.......~..S
     3 ...~~T......~~..
     4 ~~~~.........~~~
     5 .............T~~
     6 ..............~.
     7 ~~~~....T...~~~.
     8 .S.~~~~.....~...
     9 ......~~~~~~~.S.
    10 .....T..........
    11 ..........T.....

(~ river, S special-border square). A position built here holds only the cells it lists: the
starting temples are not added, so tests stay small and exact.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from cradle import tigris
from cradle.tigris import TigrisState
from cradle.tigris.board import BOARDS, NEIGHBOURS, cells_of, components, parse_cell
from cradle.tigris.types import COLOURS, HAND_SIZE, ROLES, TILE_TOTALS

# Every combination of the rules' options.
ALL_OPTIONS = [
    tigris.Options(board=board, buildings=b, english=e, wonder=w, open_scoring=o)
    for board in ("standard", "advanced")
    for b in (False, True)
    for e in (False, True)
    for w in (False, True)
    for o in (False, True)
]

# Three lone temples with treasures in the bottom-left corner, far from every test's cells: the
# game ends at the end of a turn with two or fewer treasures on the board, so positions that
# play a turn to its end keep these to stay in the game.
FAR_TREASURES: dict[str, str] = {"A11": "red*", "C11": "red*", "E11": "red*"}


def leader(dynasty: str, role: str) -> str:
    """The cell content of ``dynasty``'s ``role`` (king, priest, farmer, trader)."""
    return f"leader:{dynasty}:{role}"


def make_position(
    board: dict[str, str],
    hands: dict[str, list[str]] | None = None,
    active: int = 0,
    players: tuple[str, ...] = ("archer", "bull"),
    *,
    far_treasures: bool = True,
    **extra: Any,
) -> dict[str, Any]:
    """A position dict: ``board`` plus (unless ``far_treasures`` is False) FAR_TREASURES.

    Hands not given are empty. ``extra`` sets any other key of the position schema
    (``bag``, ``points``, ``catastrophes``, ``monuments``, ``actions_left``, ``pending``, ...).
    """
    cells = dict(FAR_TREASURES) if far_treasures else {}
    overlap = set(cells) & set(board)
    assert not overlap, f"the test board uses the far treasure cells {overlap}"
    cells.update(board)
    given = hands or {}
    position: dict[str, Any] = {
        "players": list(players),
        "active": active,
        "board": cells,
        "hands": {name: list(given.get(name, [])) for name in players},
    }
    position.update(extra)
    return position


def make_state(
    board: dict[str, str],
    hands: dict[str, list[str]] | None = None,
    active: int = 0,
    players: tuple[str, ...] = ("archer", "bull"),
    *,
    far_treasures: bool = True,
    seed: int = 0,
    **extra: Any,
) -> TigrisState:
    """``tigris.from_position(make_position(...))`` with a fixed seed for the bag."""
    position = make_position(board, hands, active, players, far_treasures=far_treasures, **extra)
    return tigris.from_position(position, seed=seed)


def points(state: TigrisState, dynasty: str) -> dict[str, int]:
    """``dynasty``'s victory points per colour (full information)."""
    found: dict[str, int] = state.to_position()["points"][dynasty]
    return found


def no_points() -> dict[str, int]:
    return dict.fromkeys(COLOURS, 0)


def pts(**by_colour: int) -> dict[str, int]:
    """Points per colour, zero for the colours not named: ``pts(red=1)``."""
    out = no_points()
    out.update(by_colour)
    return out


def hand(state: TigrisState, dynasty: str) -> Counter[str]:
    """``dynasty``'s hand as a multiset of colours."""
    return Counter(state.to_position()["hands"][dynasty])


def cells(state: TigrisState) -> dict[str, str]:
    """The board: cell -> content, only occupied cells."""
    found: dict[str, str] = state.to_position()["board"]
    return found


def supply(state: TigrisState, dynasty: str) -> set[str]:
    """The roles of ``dynasty``'s leaders beside the board."""
    return set(state.view(None)["supply"][dynasty])


def pending(state: TigrisState) -> dict[str, Any] | None:
    """The public part of the decision in progress (see docs/tigris-view.md)."""
    found: dict[str, Any] | None = state.view(None)["pending"]
    return found


def assert_illegal(
    state: TigrisState,
    action: str,
    *words: str,
    kind: type[tigris.IllegalAction] = tigris.DisallowedAction,
) -> str:
    """``action`` raises ``kind`` (DisallowedAction: read, not allowed now; MalformedAction:
    no action of the notation) naming ``words`` and changes nothing; returns the reason."""
    before = state.to_position()
    legal_before = state.legal_actions()
    assert action not in legal_before
    try:
        state.apply(action)
    except tigris.IllegalAction as exc:
        assert type(exc) is kind, f"{action!r} raised {type(exc).__name__}, not {kind.__name__}"
        reason = str(exc)
    else:
        raise AssertionError(f"{action!r} was accepted")
    for word in words:
        assert word.lower() in reason.lower(), f"{word!r} not in the reason {reason!r}"
    assert state.to_position() == before
    assert state.legal_actions() == legal_before
    return reason


def tile_counts(position: dict[str, Any]) -> list[int]:
    """Tiles of each colour accounted for: board, hands, bag, discards and removed."""
    counts = [0, 0, 0, 0]
    for value in position["board"].values():
        bare = value.rstrip("*").removeprefix("down:")
        if bare in COLOURS:
            counts[COLOURS.index(bare)] += 1
    for tiles in [*position["hands"].values(), position["bag"], *position["discards"].values()]:
        for colour in tiles:
            counts[COLOURS.index(colour)] += 1
    return [counts[c] + position["removed"][COLOURS[c]] for c in range(4)]


def check_invariants(position: dict[str, Any]) -> None:
    assert tile_counts(position) == list(TILE_TOTALS), tile_counts(position)
    board: dict[str, str] = position["board"]
    side = BOARDS[position["options"]["board"]]
    # One pass over the board (each name parsed once: the property tests and state machines
    # check every position they reach): the cells of each kind.
    farms = others = temples = leaders = connectors = 0
    leader_cells: list[tuple[int, str]] = []
    for name, value in board.items():
        cell = parse_cell(name)
        bit = 1 << cell
        bare = value.rstrip("*")
        if bare == "blue":
            farms |= bit
        elif bare in ("red", "green", "black"):
            others |= bit
            if bare == "red":
                temples |= bit
        elif value.startswith("leader:"):
            leaders |= bit
            leader_cells.append((cell, value))
        if value != "catastrophe":
            connectors |= bit
        if value.endswith("*"):
            assert value in ("red*", "down:red*", "wonder*"), f"a treasure on {name}: {value}"
    assert not farms & side.land, "farms only on the river"
    assert not (others | leaders) & side.river, "only farms on the river"
    for cell in cells_of(leaders):
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
        for kingdom in components(connectors):
            if kingdom & leaders:
                held = [v for cell, v in leader_cells if kingdom >> cell & 1]
                for role in ROLES:
                    with_role = [v for v in held if v.endswith(role)]
                    assert len(with_role) <= 1, f"two {role}s in a kingdom with no conflict"


WONDER_BOARD = {
    "F5": "red*", "E6": "red", "G6": "red", "F7": "red",
    "F4": leader("bull", "priest"), "H5": "red", "H6": leader("archer", "king"),
}  # fmt: skip


def two_kingdoms() -> dict[str, str]:
    # kingdom of archer's king {G4, G5} and kingdom of bull's priest {I4, I5}; H5 touches both
    return {
        "G5": "red",
        "G4": leader("archer", "king"),
        "I5": "red",
        "I4": leader("bull", "priest"),
    }


def red_square(**extra: Any) -> dict[str, str]:
    """Three temples of the square G4-H5; a red tile on H5 completes it."""
    board = {"G4": "red", "H4": "red", "G5": "red"}
    board.update(extra)
    return board


def kings_revolt(archer_hand: list[str], bull_hand: list[str]) -> TigrisState:
    """Bull's king on H4 rules {H4, H5, I5}; archer places his king on J5 (next to I5).

    Each king has one adjacent temple (H5 for bull's, I5 for archer's).
    """
    s = make_state(
        {"H5": "red", "I5": "red", "H4": leader("bull", "king")},
        hands={"archer": archer_hand, "bull": bull_hand},
    )
    events = s.apply("leader king J5")
    assert [e["type"] for e in events] == ["leader", "revolt"]
    return s


def kings_at_war(archer_hand: list[str], bull_hand: list[str]) -> TigrisState:
    """Archer's king (F4) rules E5 G5 (black) and F5; bull's king (J4) rules I5 (black) and J5.

    H5 touches G5 and I5, so a tile there joins the two kingdoms.
    """
    return make_state(
        {
            "F5": "red",
            "F4": leader("archer", "king"),
            "E5": "black",
            "G5": "black",
            "I5": "black",
            "J5": "red",
            "J4": leader("bull", "king"),
        },
        hands={"archer": archer_hand, "bull": bull_hand},
    )
