"""Leader actions: placement, moves and withdrawals (rules spec, "The turn", action 1)."""

from __future__ import annotations

from tests.helpers.tigris import (
    assert_illegal,
    cells,
    leader,
    make_state,
    pending,
    points,
    pts,
    supply,
    two_kingdoms,
)


def test_a_leader_goes_only_next_to_a_face_up_temple() -> None:
    s = make_state({"H5": "red"})
    legal = s.legal_actions()
    for cell in ("H4", "G5", "I5", "H6"):
        assert f"leader king {cell}" in legal
    # diagonal or farther: no temple next to it
    for cell in ("G4", "I6", "J5", "H7"):
        assert f"leader king {cell}" not in legal
    assert_illegal(s, "leader king J5", "J5", "temple")
    s.apply("leader king H6")
    assert cells(s)["H6"] == leader("archer", "king")
    assert supply(s, "archer") == {"priest", "farmer", "trader"}
    assert s.actions_left == 1 and s.to_move == 0


def test_other_colours_and_face_down_temples_do_not_host_leaders() -> None:
    s = make_state(
        {
            "H5": "black",
            "J4": "green",
            # a red monument: four face-down temples
            "E5": "down:red",
            "F5": "down:red",
            "E6": "down:red",
            "F6": "down:red",
        },
        monuments=[{"colors": ["red", "blue"], "cell": "E5"}],
    )
    legal = s.legal_actions()
    assert not [a for a in legal if a.startswith("leader ") and a[-2:] not in ("10", "11")]
    assert_illegal(s, "leader priest H6", "temple")
    assert_illegal(s, "leader priest G5", "temple")


def test_a_leader_never_stands_on_the_river() -> None:
    # H8 is land, G8 (west of it) and H9 (south of it) are river
    s = make_state({"H8": "red"})
    legal = s.legal_actions()
    assert "leader trader H7" in legal and "leader trader I8" in legal
    assert "leader trader G8" not in legal and "leader trader H9" not in legal
    assert_illegal(s, "leader trader G8", "river")


def test_a_leader_needs_an_empty_cell() -> None:
    s = make_state(
        {
            "H5": "red",
            "H4": "black",
            "G5": "catastrophe",
            "I5": leader("bull", "farmer"),
            "H6": "red",
        },
        catastrophes={"archer": 1, "bull": 2},
    )
    legal = s.legal_actions()
    for cell in ("H4", "G5", "I5", "H6", "H5"):
        assert f"leader king {cell}" not in legal
    assert_illegal(s, "leader king H4", "H4", "tile")
    assert_illegal(s, "leader king G5", "G5", "catastrophe")
    assert_illegal(s, "leader king I5", "I5", "leader")


def test_a_leader_may_not_join_two_kingdoms() -> None:
    s = make_state(two_kingdoms())
    legal = s.legal_actions()
    assert "leader farmer H5" not in legal and "leader priest H5" not in legal
    assert_illegal(s, "leader farmer H5", "H5", "two kingdoms")
    # F5 touches only the king's kingdom
    assert "leader farmer F5" in legal


def test_a_leader_may_join_a_kingdom_to_regions() -> None:
    # {G4, G5} is bull's king's kingdom; the lone temple I5 and the lone market H6 are regions
    s = make_state(
        {"G5": "red", "G4": leader("bull", "king"), "I5": "red", "H6": "green"},
        hands={"archer": ["green"]},
    )
    assert "leader trader H5" in s.legal_actions()
    s.apply("leader trader H5")
    assert cells(s)["H5"] == leader("archer", "trader")
    # one kingdom now: a market next to I5 scores for the trader, not for the king
    s.apply("tile green I6")
    assert points(s, "archer") == pts(green=1)
    assert points(s, "bull") == pts()


def test_a_leader_may_join_regions_to_each_other() -> None:
    s = make_state({"G5": "red", "I5": "red"}, hands={"archer": ["green"]})
    s.apply("leader trader H5")
    # both temples are now in the trader's kingdom: a market next to I5 scores green
    s.apply("tile green J5")
    assert points(s, "archer") == pts(green=1)


def test_moving_a_leader_lifts_it_first() -> None:
    # Placing a new leader on H5 would join two kingdoms, but the king on G4 may move there:
    # once lifted, its old kingdom {G5} is a mere region.
    s = make_state(two_kingdoms())
    legal = s.legal_actions()
    assert "leader king H5" in legal
    assert "leader priest H5" not in legal
    events = s.apply("leader king H5")
    board = cells(s)
    assert "G4" not in board
    assert board["H5"] == leader("archer", "king")
    assert supply(s, "archer") == {"priest", "farmer", "trader"}
    assert pending(s) is None  # a king and a priest: no revolt
    assert [e["type"] for e in events] == ["leader"]
    assert events[0]["moved_from"] == "G4"


def test_a_moved_leader_obeys_the_placement_rules() -> None:
    s = make_state(two_kingdoms() | {"K5": "red", "K4": leader("archer", "trader")})
    legal = s.legal_actions()
    # the trader on K4 may not move to H5: lifting it changes nothing about G and I kingdoms
    assert "leader trader H5" not in legal
    assert_illegal(s, "leader trader H5", "two kingdoms")
    # nor onto its own cell, nor onto the river, nor away from temples
    assert "leader trader K4" not in legal
    assert_illegal(s, "leader trader K4", "already")
    assert "leader trader M5" not in legal
    assert "leader trader L5" in legal


def test_withdraw_takes_the_leader_back_to_supply() -> None:
    s = make_state({"H5": "red", "H4": leader("archer", "farmer")})
    legal = s.legal_actions()
    assert "withdraw farmer" in legal
    assert "withdraw king" not in legal
    assert_illegal(s, "withdraw king", "king", "not on the board")
    s.apply("withdraw farmer")
    assert "H4" not in cells(s)
    assert supply(s, "archer") == {"king", "priest", "farmer", "trader"}
    assert s.actions_left == 1
    # the same kind of action twice in a turn is allowed
    s.apply("leader farmer H6")
    assert cells(s)["H6"] == leader("archer", "farmer")


def test_a_leader_that_loses_its_last_temple_returns() -> None:
    # the farmer on H4 has one temple (H5); the king on G6 has two (G5, H6 is not red: G7)
    s = make_state(
        {
            "H5": "red",
            "H4": leader("bull", "farmer"),
            "G5": "red",
            "G6": leader("archer", "king"),
            "G7": "red",
        }
    )
    s.apply("catastrophe H5")
    board = cells(s)
    assert board["H5"] == "catastrophe"
    assert "H4" not in board
    assert supply(s, "bull") == {"king", "priest", "farmer", "trader"}
    assert board["G6"] == leader("archer", "king")
    s.apply("catastrophe G5")
    board = cells(s)
    assert board["G6"] == leader("archer", "king")  # G7 still holds it


def test_lifting_a_leader_can_split_its_kingdom_and_forbid_a_move() -> None:
    # archer's king on H5 holds {G4 priest, G5} and {I4 trader, I5} together; once lifted they
    # are two kingdoms, and H4 (next to the lone temple H3) touches both
    s = make_state(
        {
            "H3": "red",
            "G5": "red",
            "I5": "red",
            "H5": leader("archer", "king"),
            "G4": leader("bull", "priest"),
            "I4": leader("bull", "trader"),
        }
    )
    legal = s.legal_actions()
    assert "leader king H4" not in legal
    assert_illegal(s, "leader king H4", "H4", "two kingdoms")
    # within one half the move is fine
    assert "leader king F5" in legal
    s.apply("leader king F5")
    board = cells(s)
    assert "H5" not in board and board["F5"] == leader("archer", "king")
