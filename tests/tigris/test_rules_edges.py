"""Rules at the edges: a leader in the corner cell A1, a wonder built over a building, the
wonder point of a later seat."""

from __future__ import annotations

from tests.helpers.tigris import WONDER_BOARD, leader, make_state, points, pts

BAG = ["black"] * 20
THREE = ("archer", "bull", "pot")


def test_a_leader_in_the_corner_is_fed_by_its_kingdoms_monument() -> None:
    square = {c: "down:red" for c in ("B2", "C2", "B3", "C3")}
    s = make_state(
        {"A1": leader("archer", "priest"), "B1": "red", **square},
        hands={"archer": ["black"]},
        actions_left=1,
        bag=BAG,
        monuments=[{"colors": ["red", "blue"], "cell": "B2"}],
    )
    s.apply("pass")
    assert points(s, "archer") == pts(red=1)


def test_a_wonder_built_over_a_building_takes_its_place() -> None:
    s = make_state(
        WONDER_BOARD,
        hands={"archer": ["red"]},
        actions_left=2,
        options={"wonder": True, "buildings": True},
        buildings={"red": "E6"},
        bag=BAG,
    )
    s.apply("tile red F6")
    s.apply("wonder F6")
    assert s.to_position()["buildings"] == {}
    assert s.to_position()["board"]["E6"] == "wonder"


def test_the_wonder_point_goes_to_the_active_king_in_the_wonders_kingdom_only() -> None:
    board = {c: "wonder" for c in ("E6", "F6", "G6", "F7")} | {"F5": "wonder*", "H6": "red"}
    board |= {"I6": leader("bull", "king"), "K5": "red", "K4": leader("archer", "king")}
    options = {"wonder": True}
    s = make_state(
        board, hands={"bull": ["black"]}, active=1, actions_left=1, options=options, bag=BAG,
        players=THREE,
    )  # fmt: skip
    s.apply("pass")
    assert s.to_move == 1 and s.to_position()["pending"]["kind"] == "wonderpoint"
    s = make_state(
        board, hands={"archer": ["black"]}, actions_left=1, options=options, bag=BAG,
        players=THREE,
    )  # fmt: skip
    s.apply("pass")
    assert s.to_move == 1 and s.to_position()["pending"] is None
