"""Tile placement and its points (rules spec, "The turn", action 2)."""

from __future__ import annotations

from tests.helpers.tigris import assert_illegal, cells, leader, make_state, pending, points, pts


def test_blue_tiles_go_on_the_river_and_only_blue_tiles_do() -> None:
    # G8 is river, H8 land
    s = make_state({}, hands={"archer": ["blue", "red", "green", "black"]})
    legal = s.legal_actions()
    assert "tile blue G8" in legal and "tile blue H8" not in legal
    for colour in ("red", "green", "black"):
        assert f"tile {colour} H8" in legal and f"tile {colour} G8" not in legal
    assert_illegal(s, "tile blue H8", "H8", "river")
    assert_illegal(s, "tile red G8", "G8", "river")
    s.apply("tile blue G8")
    s.apply("tile green H8")
    board = cells(s)
    assert board["G8"] == "blue" and board["H8"] == "green"


def test_a_tile_needs_an_empty_cell_and_a_tile_of_that_colour_in_hand() -> None:
    s = make_state(
        {"H5": "red", "H4": leader("bull", "king"), "I5": "catastrophe"},
        hands={"archer": ["red", "black"]},
        catastrophes={"archer": 2, "bull": 1},
    )
    legal = s.legal_actions()
    assert "tile green J5" not in legal
    assert_illegal(s, "tile green J5", "green", "hand")
    assert_illegal(s, "tile red H5", "H5")
    assert_illegal(s, "tile red H4", "H4", "leader")
    assert_illegal(s, "tile red I5", "I5", "catastrophe")


def _three_kingdoms() -> dict[str, str]:
    # kingdoms around H5: {F5, G5}, {J5, I5} and {H3, H4}
    return {
        "G5": "red",
        "F5": leader("archer", "king"),
        "I5": "red",
        "J5": leader("bull", "priest"),
        "H4": "red",
        "H3": leader("bull", "trader"),
    }


def test_a_tile_may_not_join_three_kingdoms() -> None:
    s = make_state(_three_kingdoms(), hands={"archer": ["black", "red"]})
    legal = s.legal_actions()
    assert "tile black H5" not in legal and "tile red H5" not in legal
    assert_illegal(s, "tile black H5", "H5", "kingdoms", "two")


def test_a_tile_may_join_two_kingdoms_and_scores_nothing_even_without_war() -> None:
    board = _three_kingdoms()
    del board["H3"], board["H4"]
    s = make_state(board, hands={"archer": ["red", "red"]})
    assert "tile red H5" in s.legal_actions()
    events = s.apply("tile red H5")
    kinds = [e["type"] for e in events]
    assert "unification" in kinds and "unification_removed" in kinds
    assert "score" not in kinds
    assert points(s, "archer") == pts() and points(s, "bull") == pts()
    # no war (a king and a priest): the joining tile stays, the unification tile is gone
    assert cells(s)["H5"] == "red"
    assert s.view(0)["unification"] is None
    assert pending(s) is None and s.actions_left == 1
    # one kingdom now: a temple next to it scores for bull's priest
    s.apply("tile red K5")
    assert points(s, "bull") == pts(red=1)
    assert points(s, "archer") == pts()


def _kingdom(*leaders: tuple[str, str, str]) -> dict[str, str]:
    # temples H5, I5 with leaders on cells next to them
    board = {"H5": "red", "I5": "red"}
    for cell, dynasty, role in leaders:
        board[cell] = leader(dynasty, role)
    return board


def test_the_point_goes_to_the_leader_of_the_tile_colour() -> None:
    s = make_state(
        _kingdom(("H4", "archer", "king"), ("I4", "bull", "trader")),
        hands={"archer": ["green", "black"]},
    )
    events = s.apply("tile green J5")
    assert [e["seat"] for e in events if e["type"] == "score"] == [1]
    assert points(s, "bull") == pts(green=1)  # not the active player's point
    assert points(s, "archer") == pts()
    s.apply("tile black G5")
    assert points(s, "archer") == pts(black=1)
    assert points(s, "bull") == pts(green=1)


def test_without_a_leader_of_the_colour_the_king_takes_the_point() -> None:
    s = make_state(
        _kingdom(("H4", "bull", "king"), ("I4", "archer", "trader")),
        hands={"archer": ["red", "blue"]},
    )
    s.apply("tile red J5")
    assert points(s, "bull") == pts(red=1)
    assert points(s, "archer") == pts()


def test_without_a_leader_of_the_colour_nor_a_king_nobody_scores() -> None:
    s = make_state(
        _kingdom(("H4", "bull", "trader"), ("I4", "archer", "farmer")),
        hands={"archer": ["red", "black"]},
    )
    events = s.apply("tile red J5")
    assert "score" not in [e["type"] for e in events]
    s.apply("tile black G5")
    assert points(s, "archer") == pts() and points(s, "bull") == pts()
    assert cells(s)["J5"] == "red" and cells(s)["G5"] == "black"


def test_a_tile_in_a_region_scores_nothing() -> None:
    s = make_state(
        {"H5": "red", "I5": "red", "L5": "red", "L4": leader("archer", "king")},
        hands={"archer": ["red", "black"]},
    )
    s.apply("tile red J5")  # next to I5: a region, two cells from the kingdom
    s.apply("tile black H6")
    assert points(s, "archer") == pts() and points(s, "bull") == pts()


def test_a_farm_on_the_river_scores_for_the_farmer() -> None:
    # H8 land next to G8 (river): bull's farmer on H7 is next to the temple H8
    s = make_state(
        {"H8": "red", "H7": leader("bull", "farmer"), "I8": leader("archer", "king")},
        hands={"archer": ["blue"]},
    )
    s.apply("tile blue G8")
    assert points(s, "bull") == pts(blue=1)
    assert points(s, "archer") == pts()
