"""Catastrophes (rules spec, "The turn", action 3)."""

from __future__ import annotations

from tests.helpers.tigris import assert_illegal, cells, leader, make_state, points, pts, supply


def test_each_player_has_two_catastrophes() -> None:
    s = make_state({}, hands={"archer": []})
    assert s.to_position()["catastrophes"] == {"archer": 2, "bull": 2}
    s.apply("catastrophe H5")
    assert s.to_position()["catastrophes"] == {"archer": 1, "bull": 2}
    assert s.view(None)["catastrophes"] == {"archer": 1, "bull": 2}
    s.apply("catastrophe H6")
    assert s.to_position()["catastrophes"] == {"archer": 0, "bull": 2}
    # bull's turn now; archer has none left for his next turn
    assert s.to_move == 1
    s.apply("pass")
    assert s.to_move == 0
    assert not [a for a in s.legal_actions() if a.startswith("catastrophe")]
    assert_illegal(s, "catastrophe H7", "catastrophe")


def test_catastrophes_spare_leaders_treasures_monuments_and_catastrophes() -> None:
    s = make_state(
        {
            "H5": "red",
            "H4": leader("bull", "king"),
            "J5": "red*",
            "K5": "red",
            "L5": "catastrophe",
            "E5": "down:black",
            "F5": "down:black",
            "E6": "down:black",
            "F6": "down:black",
        },
        monuments=[{"colors": ["green", "black"], "cell": "E5"}],
        catastrophes={"archer": 2, "bull": 1},
    )
    legal = s.legal_actions()
    for cell in ("H4", "J5", "L5", "E5", "F6"):
        assert f"catastrophe {cell}" not in legal
    assert "catastrophe K5" in legal and "catastrophe H5" in legal
    assert_illegal(s, "catastrophe H4", "H4", "leader")
    assert_illegal(s, "catastrophe J5", "J5", "treasure")
    assert_illegal(s, "catastrophe L5", "L5", "catastrophe")
    assert_illegal(s, "catastrophe F6", "F6", "monument")


def test_a_catastrophe_on_a_tile_removes_it_from_the_game() -> None:
    s = make_state({"K5": "green", "K6": "red"}, hands={"archer": []})
    removed = s.to_position()["removed"]
    s.apply("catastrophe K5")
    board = cells(s)
    assert board["K5"] == "catastrophe"
    assert board["K6"] == "red"
    after = s.to_position()["removed"]
    assert after["green"] == removed["green"] + 1
    assert after["red"] == removed["red"]
    # the cell is blocked for good
    assert not [a for a in s.legal_actions() if a.endswith(" K5")]


def test_a_catastrophe_may_fall_on_the_river() -> None:
    # G8 is an empty river cell, F8 a river cell with a farm
    s = make_state({"F8": "blue"}, hands={"archer": []})
    assert "catastrophe G8" in s.legal_actions()
    s.apply("catastrophe G8")
    s.apply("catastrophe F8")
    board = cells(s)
    assert board["G8"] == "catastrophe" and board["F8"] == "catastrophe"


def test_a_catastrophe_may_split_a_kingdom() -> None:
    # one kingdom G5-K5: archer's king on G5, bull's trader on K5
    s = make_state(
        {
            "G5": leader("archer", "king"),
            "H5": "red",
            "I5": "red",
            "J5": "red",
            "K5": leader("bull", "trader"),
        },
        hands={"archer": ["green"]},
    )
    s.apply("catastrophe I5")
    # a market next to H5 is in the king's half now: no trader there, so the king scores
    s.apply("tile green H6")
    assert points(s, "archer") == pts(green=1)
    assert points(s, "bull") == pts()


def test_leaders_that_lose_their_last_temple_return_at_once() -> None:
    s = make_state(
        {
            "H5": "red",
            "H4": leader("archer", "priest"),
            "H6": leader("bull", "farmer"),
            "G5": leader("bull", "king"),
            "F5": "red",  # the king keeps a temple
        },
        hands={"archer": []},
    )
    events = s.apply("catastrophe H5")
    board = cells(s)
    assert "H4" not in board and "H6" not in board
    assert board["G5"] == leader("bull", "king")
    assert supply(s, "archer") == {"king", "priest", "farmer", "trader"}
    assert supply(s, "bull") == {"priest", "farmer", "trader"}
    returned = {(e["cell"], e["role"]) for e in events if e["type"] == "leader_returned"}
    assert returned == {("H4", "priest"), ("H6", "farmer")}
