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

COLOURS = ("red", "blue", "green", "black")

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


def assert_illegal(state: TigrisState, action: str, *words: str) -> str:
    """``action`` raises IllegalAction naming ``words`` and changes nothing; returns the reason."""
    before = state.to_position()
    legal_before = state.legal_actions()
    assert action not in legal_before
    try:
        state.apply(action)
    except tigris.IllegalAction as exc:
        reason = str(exc)
    else:
        raise AssertionError(f"{action!r} was accepted")
    for word in words:
        assert word.lower() in reason.lower(), f"{word!r} not in the reason {reason!r}"
    assert state.to_position() == before
    assert state.legal_actions() == legal_before
    return reason
