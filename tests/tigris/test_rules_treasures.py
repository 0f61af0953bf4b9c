"""Treasures: a trader collects all but one treasure of its kingdom (rules spec, "Treasures")."""

from __future__ import annotations

from tests.helpers.tigris import assert_illegal, cells, leader, make_state, pending


def _treasures(s_board: dict[str, str]) -> set[str]:
    return {cell for cell, value in s_board.items() if value.endswith("*")}


def test_the_traders_owner_takes_all_but_one_even_when_not_active() -> None:
    # bull's trader rules H5 (treasure) and I5; K5 and L5 (treasures) are a region
    s = make_state(
        {
            "H4": leader("bull", "trader"),
            "H5": "red*",
            "I5": "red",
            "K5": "red*",
            "L5": "red*",
        },
        hands={"archer": ["red"]},
    )
    s.apply("tile red J5")  # three treasures in bull's kingdom now
    p = pending(s)
    assert p is not None and p["kind"] == "treasure" and p["seat"] == 1
    assert s.to_move == 1
    assert sorted(s.legal_actions()) == ["treasure H5", "treasure K5", "treasure L5"]
    assert_illegal(s, "treasure A11", "H5")
    assert_illegal(s, "pass", "treasure")
    events = s.apply("treasure K5")
    assert [e["type"] for e in events] == ["treasure"]
    assert s.to_move == 1
    assert sorted(s.legal_actions()) == ["treasure H5", "treasure L5"]
    s.apply("treasure H5")
    board = cells(s)
    assert _treasures(board) == {"L5", "A11", "C11", "E11"}
    assert board["H5"] == "red" and board["K5"] == "red"
    assert s.to_position()["treasures"] == {"archer": 0, "bull": 2}
    assert s.view(0)["treasures"] == {"archer": 0, "bull": 2}  # public
    assert pending(s) is None and s.to_move == 0 and s.actions_left == 1


def test_treasures_on_special_squares_are_taken_first() -> None:
    # B8 is a special-border square; the trader on B9 joins B8 and C9
    s = make_state({"B8": "red*", "C9": "red*"}, hands={"archer": []})
    events = s.apply("leader trader B9")
    assert [e["cell"] for e in events if e["type"] == "treasure"] == ["B8"]
    assert pending(s) is None
    board = cells(s)
    assert board["B8"] == "red" and board["C9"] == "red*"
    assert s.to_position()["treasures"] == {"archer": 1, "bull": 0}


def test_after_the_special_squares_the_owner_chooses() -> None:
    s = make_state({"B8": "red*", "A9": "red*", "C9": "red*"}, hands={"archer": []})
    events = s.apply("leader trader B9")
    assert [e["cell"] for e in events if e["type"] == "treasure"] == ["B8"]
    p = pending(s)
    assert p is not None and p["kind"] == "treasure"
    assert sorted(s.legal_actions()) == ["treasure A9", "treasure C9"]
    assert_illegal(s, "treasure B8", "A9", "C9")
    s.apply("treasure C9")
    assert s.to_position()["treasures"] == {"archer": 2, "bull": 0}
    assert cells(s)["A9"] == "red*"


def test_without_a_trader_nothing_is_collected_until_one_arrives() -> None:
    s = make_state(
        {"H4": leader("archer", "king"), "H5": "red*", "I5": "red", "J5": "red*"},
        hands={"archer": ["red"], "bull": []},
    )
    s.apply("tile red K5")
    assert pending(s) is None
    assert s.to_position()["treasures"] == {"archer": 0, "bull": 0}
    s.apply("leader trader J4")
    p = pending(s)
    assert p is not None and p["kind"] == "treasure" and p["seat"] == 0
    assert sorted(s.legal_actions()) == ["treasure H5", "treasure J5"]
    s.apply("treasure J5")
    assert s.to_position()["treasures"] == {"archer": 1, "bull": 0}
    assert cells(s)["H5"] == "red*"
    assert s.to_move == 1  # the turn ended after the collection
