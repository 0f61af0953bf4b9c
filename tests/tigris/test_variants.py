"""The variants of the rulebooks, each rule from a position (issue: every variant as an option)."""

from __future__ import annotations

from typing import Any

import pytest

from cradle import tigris
from tests.helpers.tigris import (
    WONDER_BOARD,
    assert_illegal,
    cells,
    leader,
    make_state,
    points,
    pts,
)

BUILDINGS = {"options": {"buildings": True}}
WONDER = {"options": {"wonder": True}}
ENGLISH = {"options": {"english": True}}


def state_with(opts: dict[str, Any], board: dict[str, str], **kw: Any) -> tigris.TigrisState:
    return make_state(board, **opts, **kw)


# --------------------------------------------------------------------------- advanced board


def test_advanced_board_has_fourteen_temples_and_six_special_squares() -> None:
    state = tigris.new_game(2, seed=1, options=tigris.Options(board="advanced"))
    board = state.to_position()["board"]
    layout = tigris.board_map("advanced")
    assert sorted(c for c, v in board.items() if v == "red*") == sorted(layout["temples"])
    assert len(layout["temples"]) == 14 and len(layout["special"]) == 6
    assert len(layout["river"]) == 39
    assert len(state.to_position()["bag"]) == 153 - 14 - 12


def test_advanced_board_special_square_treasure_is_taken_first() -> None:
    # B3 is special on the advanced side (not on the standard one); C3 is river there.
    state = make_state(
        {"B3": "red*", "B4": "red*", "A4": leader("bull", "trader")},
        hands={"archer": ["red"]},
        options={"board": "advanced"},
    )
    state.apply("tile red A5")
    assert cells(state)["B3"] == "red" and cells(state)["B4"] == "red*"
    assert state.to_position()["treasures"]["bull"] == 1


def test_advanced_board_river_rule_uses_its_own_map() -> None:
    state = make_state({}, hands={"archer": ["blue", "red"]}, options={"board": "advanced"})
    assert "tile blue C1" in state.legal_actions()  # river on the advanced side only
    assert_illegal(state, "tile red C1", "river")


# --------------------------------------------------------------------------- buildings


def test_line_of_three_offers_the_building_on_any_tile_of_the_line() -> None:
    state = state_with(BUILDINGS, {"E5": "red", "F5": "red"}, hands={"archer": ["red"]})
    state.apply("tile red G5")
    assert state.legal_actions() == ["building E5", "building F5", "building G5", "decline"]
    state.apply("building F5")
    assert state.to_position()["buildings"] == {"red": "F5"}
    assert state.view(1)["buildings"] == {"red": "F5"}


def test_line_of_two_offers_nothing_and_variant_off_offers_nothing() -> None:
    state = state_with(BUILDINGS, {"E5": "red"}, hands={"archer": ["red"]})
    state.apply("tile red F5")
    assert state.to_position()["pending"] is None
    off = make_state({"E5": "red", "F5": "red"}, hands={"archer": ["red"]})
    off.apply("tile red G5")
    assert off.to_position()["pending"] is None


def test_building_moves_only_to_a_longer_line() -> None:
    board = {"E5": "red", "F5": "red", "G5": "red", "H11": "red", "I11": "red"}
    state = state_with(BUILDINGS, board, hands={"archer": ["red", "red"]}, buildings={"red": "F5"})
    state.apply("tile red J11")  # a new line of 3 is not longer than 3
    assert state.to_position()["pending"] is None
    state.apply("tile red K11")  # 4 beats 3
    assert "building H11" in state.legal_actions() and "building F5" not in state.legal_actions()
    state.apply("building K11")
    assert state.to_position()["buildings"] == {"red": "K11"}


def test_building_at_a_crossing_needs_a_line_longer_than_both() -> None:
    # The building on F6 stands where a row of 3 (E6-G6) and a column of 4 (F4-F7) cross.
    board = {"E6": "red", "F6": "red", "G6": "red", "F4": "red", "F5": "red", "F7": "red"}
    board |= {"B10": "red", "C10": "red", "D10": "red"}
    state = state_with(BUILDINGS, board, hands={"archer": ["red", "red"]}, buildings={"red": "F6"})
    state.apply("tile red E10")  # 4 is not longer than the column of 4
    assert state.to_position()["pending"] is None
    state.apply("tile red F10")  # 5 beats both
    assert state.to_position()["pending"]["kind"] == "building"


def test_building_doubles_points_for_a_tile_of_its_colour() -> None:
    board = {"D6": leader("archer", "king"), "E6": "red", "E5": "red", "F5": "red", "G5": "red"}
    state = state_with(
        BUILDINGS, board, hands={"bull": ["red", "black"]}, active=1, buildings={"red": "F5"}
    )
    state.apply("tile red H5")  # no priest: the king's owner scores, twice for the building
    assert points(state, "archer") == pts(red=2)
    assert state.to_position()["pending"] is None, "a line of 4 is not longer than itself"
    state.apply("tile black C6")  # no black building: one point
    assert points(state, "archer") == pts(red=2, black=1)


def test_tile_under_building_counts_in_war_but_stays() -> None:
    board = {
        "B5": "red", "B6": leader("archer", "king"), "C6": "black", "D6": "black",
        "E6": "black", "G6": "black", "H6": leader("bull", "king"), "H5": "red",
    }  # fmt: skip
    state = state_with(
        BUILDINGS,
        board,
        hands={"archer": ["green"], "bull": ["black", "black", "black"]},
        buildings={"black": "D6"},
    )
    state.apply("tile green F6")
    assert state.view(0)["pending"]["attacker_strength"] == 3  # the building's tile counts
    state.apply("commit 0")
    state.apply("commit 3")  # 1 + 3 beats 3
    board_after = cells(state)
    assert "C6" not in board_after and "E6" not in board_after
    assert board_after["D6"] == "black"
    assert state.to_position()["buildings"] == {"black": "D6"}
    assert points(state, "bull") == pts(black=3)


def test_catastrophe_is_refused_on_a_building() -> None:
    board = {"E5": "red", "F5": "red", "G5": "red"}
    state = state_with(BUILDINGS, board, buildings={"red": "F5"})
    assert "catastrophe F5" not in state.legal_actions()
    assert "catastrophe E5" in state.legal_actions()
    assert_illegal(state, "catastrophe F5", "building")


def test_building_returns_when_its_tile_becomes_part_of_a_monument() -> None:
    board = {"E5": "red", "F5": "red", "G5": "red", "E6": "red"}
    state = state_with(BUILDINGS, board, hands={"archer": ["red"]}, buildings={"red": "F5"})
    state.apply("tile red F6")
    state.apply("monument red-blue E5")
    assert state.to_position()["buildings"] == {}
    assert cells(state)["F5"] == "down:red"


def test_building_is_decided_after_conflicts_and_before_the_monument() -> None:
    board = {"E5": "red", "F5": "red", "D6": "red", "E6": "red"}
    state = state_with(BUILDINGS, board, hands={"archer": ["red"]})
    state.apply("tile red F6")
    assert state.to_position()["pending"]["kind"] == "building"
    assert_illegal(state, "monument red-blue E5")
    state.apply("building D6")
    assert state.to_position()["pending"]["kind"] == "monument"
    state.apply("decline")
    assert state.to_position()["pending"] is None


# --------------------------------------------------------------------------- English variant


REVOLT_BOARD = {"B5": "red", "C5": leader("bull", "priest"), "D5": "red", "E5": "red"}


def test_english_revolt_commitments() -> None:
    hands = {"archer": ["red", "red", "red"], "bull": ["red", "red", "red"]}
    state = state_with(ENGLISH, REVOLT_BOARD, hands=hands)
    state.apply("leader priest E6")  # 1 temple against 2
    assert state.legal_actions() == ["commit 0", "commit 2", "commit 3"]
    assert_illegal(state, "commit 1", "commit 0, 2, 3")
    state.apply("commit 2")
    assert state.legal_actions() == ["commit 0", "commit 1"]  # exactly the tie
    state.apply("commit 1")
    assert points(state, "bull") == pts(red=1)


def test_english_defender_cannot_tie_beyond_his_hand() -> None:
    hands = {"archer": ["red", "red", "red"], "bull": ["red"]}
    state = state_with(ENGLISH, REVOLT_BOARD, hands=hands)
    state.apply("leader priest E6")
    state.apply("commit 3")
    assert state.legal_actions() == ["commit 0"]


def test_english_war_commitments() -> None:
    board = {
        "B5": "red", "B6": leader("archer", "king"), "C6": "black",
        "G6": "black", "H6": "black", "I6": leader("bull", "king"), "I5": "red",
    }  # fmt: skip
    hands = {"archer": ["green", "black", "black"], "bull": ["black", "black"]}
    state = state_with(ENGLISH, board, hands=hands)
    state.apply("tile green D6")  # joins nothing yet
    state.apply("tile black E6")
    assert state.to_position()["pending"] is None
    board2 = dict(board) | {"D6": "green", "E6": "black"}
    state = state_with(ENGLISH, board2, hands=hands)
    state.apply("tile black F6")  # archer 3 supporters (C6, E6... D6 is green) vs bull 2
    pending = state.view(0)["pending"]
    assert (pending["attacker_strength"], pending["defender_strength"]) == (2, 2)
    assert state.legal_actions() == ["commit 0", "commit 1"]
    state.apply("commit 1")
    assert state.legal_actions() == ["commit 0", "commit 1"]


# --------------------------------------------------------------------------- wonder


def test_plus_cross_offers_the_wonder_built_on_a_temple_with_treasure() -> None:
    state = state_with(WONDER, WONDER_BOARD, hands={"archer": ["red"]}, actions_left=2)
    state.apply("tile red F6")
    assert "wonder F6" in state.legal_actions() and "decline" in state.legal_actions()
    removed_before = state.to_position()["removed"]["red"]
    state.apply("wonder F6")
    board = cells(state)
    assert board["F5"] == "wonder*"
    assert all(board[c] == "wonder" for c in ("E6", "F6", "G6", "F7"))
    assert state.to_position()["removed"]["red"] == removed_before + 5
    assert "F4" not in board, "the priest lost its last temple"
    assert "priest" in state.view(None)["supply"]["bull"]
    assert state.view(None)["wonder"] == "F6"


def test_wonder_is_never_hit_and_connects() -> None:
    board = {c: "wonder" for c in ("F5", "E6", "F6", "G6", "F7")}
    board |= {"D6": "red", "C6": leader("archer", "king"), "H6": "red"}
    state = state_with(WONDER, board, hands={"archer": ["black"]})
    assert not any(a in ("catastrophe F5", "catastrophe F6") for a in state.legal_actions())
    assert_illegal(state, "catastrophe F6", "wonder")
    state.apply("tile black I6")  # reaches the king's kingdom only through the wonder
    assert points(state, "archer") == pts(black=1)
    with pytest.raises(ValueError, match="wonder"):
        tigris.from_position(state.to_position() | {"options": {}})


def test_wonder_point_for_the_active_king_in_its_kingdom() -> None:
    state = state_with(WONDER, WONDER_BOARD, hands={"archer": ["red"]}, actions_left=1)
    state.apply("tile red F6")
    state.apply("wonder F6")
    assert state.to_position()["pending"]["kind"] == "wonderpoint"
    assert state.legal_actions() == [f"wonderpoint {c}" for c in tigris.COLOURS]
    state.apply("wonderpoint green")
    assert points(state, "archer") == pts(green=1)
    assert state.to_move == 1


def test_wonder_declined_is_gone() -> None:
    state = state_with(WONDER, WONDER_BOARD, hands={"archer": ["red"]})
    state.apply("tile red F6")
    state.apply("decline")
    assert cells(state)["F6"] == "red"
    assert state.to_position()["pending"] is None


# --------------------------------------------------------------------------- open scoring


def test_open_scoring_points_in_every_view_and_spectators() -> None:
    state = make_state({}, options={"open_scoring": True}, points={"bull": {"red": 3}})
    for seat in (0, 1, None):
        assert state.view(seat)["points"]["bull"]["red"] == 3
    closed = make_state({}, points={"bull": {"red": 3}})
    assert "bull" not in closed.view(0)["points"]


def test_positions_with_impossible_pending_choices_are_refused() -> None:
    from tests.helpers.tigris import make_position

    square = {"E5": "red", "F5": "red", "E6": "red"}
    with pytest.raises(ValueError, match="pending monument"):
        tigris.from_position(make_position(square, pending={"kind": "monument", "placed": "E5"}))
    with pytest.raises(ValueError, match="pending building"):
        tigris.from_position(
            make_position(square, pending={"kind": "building", "placed": "E5"}, **BUILDINGS)
        )
    with pytest.raises(ValueError, match="pending wonderpoint"):
        tigris.from_position(make_position({}, pending={"kind": "wonderpoint"}, **WONDER))
    full = square | {"F6": "red"}
    state = tigris.from_position(make_position(full, pending={"kind": "monument", "placed": "F6"}))
    assert "monument red-blue E5" in state.legal_actions()
