"""Revolts: internal conflicts started by a leader placed or moved into a kingdom (rules spec)."""

from __future__ import annotations

from collections import Counter

from tests.helpers.tigris import (
    assert_illegal,
    cells,
    hand,
    kings_revolt,
    leader,
    make_state,
    pending,
    points,
    pts,
    supply,
)


def test_a_leader_joining_a_kingdom_with_its_colour_starts_a_revolt() -> None:
    s = kings_revolt(["red", "red"], ["red"])
    p = pending(s)
    assert p is not None
    assert (p["kind"], p["color"], p["attacker"], p["defender"]) == ("revolt", "black", 0, 1)
    assert (p["attacker_strength"], p["defender_strength"]) == (1, 1)
    # the attacker commits first, from his red tiles (temples), whatever the leaders' colour
    assert s.to_move == 0
    assert s.legal_actions() == ["commit 0", "commit 1", "commit 2"]
    s.apply("commit 2")
    assert s.to_move == 1
    assert pending(s)["attacker_commit"] == 2  # type: ignore[index]
    assert s.legal_actions() == ["commit 0", "commit 1"]


def test_a_tie_goes_to_the_defender() -> None:
    s = kings_revolt(["red", "red", "black"], ["red", "red", "green"])
    s.apply("commit 2")
    s.apply("commit 2")  # 1 + 2 against 1 + 2
    board = cells(s)
    assert "J5" not in board  # the attacker's king returns
    assert board["H4"] == leader("bull", "king")
    assert "king" in supply(s, "archer")
    # one red point for the winner, even though kings fought
    assert points(s, "bull") == pts(red=1)
    assert points(s, "archer") == pts()
    # committed tiles leave the game; board tiles stay
    assert hand(s, "archer") == Counter(black=1)
    assert hand(s, "bull") == Counter(green=1)
    assert s.to_position()["removed"]["red"] == 4
    assert board["H5"] == "red" and board["I5"] == "red"
    # the action is over: the active player goes on with his second action
    assert pending(s) is None
    assert s.to_move == 0 and s.actions_left == 1


def test_the_higher_total_wins() -> None:
    s = kings_revolt(["red", "red", "red"], ["red"])
    s.apply("commit 3")
    s.apply("commit 1")  # 4 against 2
    board = cells(s)
    assert board["J5"] == leader("archer", "king")
    assert "H4" not in board
    assert supply(s, "bull") == {"king", "priest", "farmer", "trader"}
    assert points(s, "archer") == pts(red=1)
    assert points(s, "bull") == pts()
    assert s.to_position()["removed"]["red"] == 4


def test_strength_counts_adjacent_face_up_temples_and_a_temple_may_count_twice() -> None:
    # bull's priest on I4 touches H4, J4 and I5; archer's priest on I6 touches I5 and J6
    s = make_state(
        {
            "I5": "red",
            "H4": "red",
            "J4": "red",
            "J6": "red",
            "I4": leader("bull", "priest"),
            "I3": "black",  # other colours do not count
        },
        hands={"archer": ["red", "red"], "bull": []},
    )
    s.apply("leader priest I6")
    p = pending(s)
    assert p is not None
    assert (p["attacker_strength"], p["defender_strength"]) == (2, 3)
    s.apply("commit 2")
    assert s.legal_actions() == ["commit 0"]  # the defender has no temple in hand
    s.apply("commit 0")  # 4 against 3: the attacker wins
    assert cells(s)["I6"] == leader("archer", "priest")
    assert "I4" not in cells(s)
    assert points(s, "archer") == pts(red=1)


def test_moving_a_leader_into_the_kingdom_also_revolts() -> None:
    s = make_state(
        {
            "H5": "red",
            "I5": "red",
            "H4": leader("bull", "king"),
            "L5": "red",
            "L4": leader("archer", "king"),
        },
        hands={"archer": [], "bull": []},
    )
    s.apply("leader king J5")
    assert "L4" not in cells(s)
    p = pending(s)
    assert p is not None and p["kind"] == "revolt" and p["attacker"] == 0
    s.apply("commit 0")
    s.apply("commit 0")  # 1 against 1: the defender keeps his place
    assert "J5" not in cells(s)
    assert "king" in supply(s, "archer")
    assert points(s, "bull") == pts(red=1)


def test_leaders_of_other_colours_do_not_revolt() -> None:
    s = make_state({"H5": "red", "I5": "red", "H4": leader("bull", "king")})
    events = s.apply("leader priest J5")
    assert [e["type"] for e in events] == ["leader"]
    assert pending(s) is None
    assert s.to_move == 0 and s.actions_left == 1


def test_only_the_seat_to_move_may_commit_and_only_what_it_holds() -> None:
    s = kings_revolt(["red"], ["red", "red"])
    assert_illegal(s, "commit 2", "1")
    assert_illegal(s, "tile red K5", "commit")
    assert_illegal(s, "pass", "commit")
    s.apply("commit 1")
    assert_illegal(s, "commit 3", "2")
    s.apply("commit 2")  # 2 against 3
    assert points(s, "bull") == pts(red=1)
