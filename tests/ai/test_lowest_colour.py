"""The Tigris evaluation ``value=2`` (IsmctsParams.value): play for the final lowest colour.

Each test is a position where the old evaluation (``value=1``) judges otherwise: the lowest
colour against raw points, tiles that cannot score, a leader's safety against the opponent's
catastrophes, a war that the believed hand makes a bad bet, a defence that cannot hold.
"""

from __future__ import annotations

from typing import Any

import pytest

from cradle import tigris
from cradle.ai.knowledge.tigris import Reading, TigrisKnowledge
from cradle.ai.levels import make_bot_spec
from cradle.ai.search.params import IsmctsParams, knowledge_of
from tests.helpers.ai import START, revolt_position

OLD, NEW = TigrisKnowledge(), TigrisKnowledge(value=2)


def opening(**board: str) -> dict[str, Any]:
    """The starting temples and ``board``; archer to move holding 3 temples and 3 farms."""
    cells = dict(START)
    cells["I7"] = "red*"
    cells.update(board)
    return {
        "players": ["archer", "bull"],
        "active": 0,
        "board": cells,
        "hands": {
            "archer": ["red"] * 3 + ["blue"] * 3,
            "bull": ["red", "blue", "blue", "green", "black", "black"],
        },
    }


def test_a_lower_minimum_is_worth_less_than_fewer_raw_points() -> None:
    position = revolt_position()
    position["points"] = {
        "archer": {"red": 20, "blue": 1, "green": 20, "black": 20},
        "bull": {"red": 9, "blue": 9, "green": 9, "black": 9},
    }
    state = tigris.from_position(position, seed=1)
    assert OLD.rewards(state)[0] > 0.5  # 61 raw points against 36
    assert NEW.rewards(state)[0] < 0.5  # blue will stay archer's score


def test_tiles_that_cannot_score_are_worth_swapping() -> None:
    # Archer's priest stands next to two temples; its farmer is not on the board, so its farms
    # score less surely than its temples.
    state = tigris.from_position(opening(C3="red", B3="leader:archer:priest"), seed=1)
    swaps = ["swap blue blue blue", "swap red red red"]
    old, new = OLD.priors(state, swaps), NEW.priors(state, swaps)
    assert old[0] == old[1]  # the old priors counted tiles only
    assert new[0] > new[1]
    assert new[0] > old[0]
    reach = Reading(state, value=2).reach(0)
    assert reach[0] > reach[1]  # red (the placed priest) over blue


def test_a_leader_on_one_temple_is_worth_less_while_the_opponent_keeps_catastrophes() -> None:
    values = {}
    for kept in (2, 0):
        position = opening(B3="leader:archer:priest")  # next to B2 only
        if kept == 0:
            position["board"].update({"D6": "catastrophe", "E6": "catastrophe"})
            position["catastrophes"] = {"bull": 0}
        state = tigris.from_position(position, seed=1)
        values[kept] = (Reading(state).seat_value(0), Reading(state, value=2).seat_value(0))
    assert values[2][0] == values[0][0]  # the old value ignored the opponent's catastrophes
    assert values[2][1] < values[0][1]


def test_a_war_the_believed_hand_can_win_is_not_sought() -> None:
    # Archer's trader has 3 markets (C6, E6, F6), bull's 1 (H4); a tile on G6 joins the two
    # kingdoms. Archer holds no green: bull wins if it holds 2 of its 6 tiles green (about
    # 37%), and the loser loses a leader and its markets. The old prior took the expected
    # hand (1.3 greens) and saw a win.
    position = opening(
        D5="red",
        D6="leader:archer:trader",
        C6="green",
        E6="green",
        F6="green",
        H5="red",
        H6="leader:bull:trader",
        H4="green",
    )
    position["hands"]["archer"] = ["black", "black", "red", "red", "blue", "blue"]
    state = tigris.from_position(position, seed=1)
    assert OLD.priors(state, ["tile black G6"])[0] > 1.0
    assert NEW.priors(state, ["tile black G6"])[0] < 0.0


def test_no_tiles_go_into_a_defence_that_cannot_hold() -> None:
    # Archer's priest revolts from K5 next to 3 temples (K4, K6, L5) against bull's 2 and
    # commits 1: 4 against 2. Bull holds one temple and cannot tie; the old commitment ignored
    # the temples on the board and committed it.
    position = revolt_position()
    position["board"]["K4"] = "red"
    state = tigris.from_position(position, seed=1)
    state.apply("leader priest K5")
    state.apply("commit 1")
    assert state.conflict_strengths() == (3, 2)
    assert Reading(state).best_commit(1, [0, 1]) == 1
    assert Reading(state, value=2).best_commit(1, [0, 1]) == 0
    assert NEW.priors(state, ["commit 0", "commit 1"]) == [1.0, pytest.approx(0.7)]


def test_value_is_a_search_setting_with_a_clear_error() -> None:
    state = tigris.new_game(2, 1)
    assert knowledge_of(state, IsmctsParams(value=1)).value == 1  # type: ignore[attr-defined]
    assert knowledge_of(state, IsmctsParams()).value == 2  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="not 7"):
        make_bot_spec("ismcts@10/value=7")
    with pytest.raises(ValueError, match="the Tigris evaluation is value=1 or value=2, not 4"):
        knowledge_of(state, IsmctsParams(value=4))
    with pytest.raises(ValueError, match="value=1 or value=2"):
        TigrisKnowledge(value=0)
