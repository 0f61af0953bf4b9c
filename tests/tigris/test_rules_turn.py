"""Swaps, the two actions of a turn, the end of the turn and the end of the game (rules spec)."""

from __future__ import annotations

import json
from collections import Counter

from tests.helpers.tigris import COLOURS, assert_illegal, cells, hand, leader, make_state, pending

BAG = ["green", "green", "black", "blue", "blue", "blue", "red", "red", "black", "green"]


def test_a_swap_discards_the_named_tiles_and_draws_as_many_from_the_bag() -> None:
    s = make_state(
        {},
        hands={"archer": ["red", "red", "blue", "black", "black", "black"], "bull": []},
        bag=BAG,
    )
    legal = s.legal_actions()
    assert "swap red red blue" in legal
    assert "swap red red red" not in legal
    assert "swap red red blue black black black" in legal
    assert_illegal(s, "swap red red red", "red", "2")
    assert_illegal(s, "swap green", "green")
    s.apply("swap red red blue")
    assert hand(s, "archer") == Counter(black=4, green=2)
    position = s.to_position()
    assert Counter(position["discards"]["archer"]) == Counter(red=2, blue=1)
    assert position["bag"] == BAG[3:]
    assert s.view(0)["bag_size"] == len(BAG) - 3
    assert s.actions_left == 1 and s.to_move == 0


def test_tiles_drawn_by_a_swap_can_be_used_in_the_second_action() -> None:
    s = make_state({}, hands={"archer": ["red"]}, bag=BAG)
    assert "tile green H5" not in s.legal_actions()
    s.apply("swap red")
    assert "tile green H5" in s.legal_actions()
    s.apply("tile green H5")
    assert cells(s)["H5"] == "green"


def test_discarded_tiles_stay_hidden() -> None:
    s = make_state(
        {}, hands={"archer": ["red", "red", "blue", "black"], "bull": ["green"]}, bag=BAG
    )
    events = s.apply("swap red red blue")
    assert [e["type"] for e in events] == ["swap"]
    text = json.dumps(events)
    assert not [c for c in COLOURS if c in text]
    assert events[0]["count"] == 3
    for seat in (None, 1):
        view = s.view(seat)
        assert "discards" not in view
        assert view["hand_sizes"]["archer"] == 4
        assert not [c for c in COLOURS if c in json.dumps(view["hand_sizes"])]
    assert s.view(1)["hand"] == ["green"]


def test_a_short_bag_ends_the_game_after_the_turn() -> None:
    s = make_state(
        {"H5": "red"}, hands={"archer": ["red", "red", "black"], "bull": ["red"]}, bag=["green"]
    )
    s.apply("swap red red")
    assert hand(s, "archer") == Counter(green=1, black=1)  # only one tile was left
    assert not s.is_over  # the turn is played to its end
    assert s.view(0)["ending"] is True
    assert "tile green H6" in s.legal_actions()
    s.apply("tile green H6")
    assert s.is_over
    assert s.legal_actions() == []
    assert s.view(None)["result"] is not None


def test_a_short_bag_at_the_refill_ends_the_game() -> None:
    s = make_state({}, hands={"archer": ["red"] * 6, "bull": ["red"] * 2}, bag=["green"] * 3)
    s.apply("tile red H5")
    s.apply("tile red H6")  # archer draws 2, bull would need 4 with 1 left
    assert s.is_over
    assert hand(s, "archer") == Counter(red=4, green=2)
    assert hand(s, "bull") == Counter(red=2, green=1)


def test_an_exact_bag_does_not_end_the_game() -> None:
    s = make_state({}, hands={"archer": ["red"] * 6, "bull": ["red"] * 4}, bag=["green"] * 4)
    s.apply("tile red H5")
    s.apply("tile red H6")
    assert not s.is_over
    assert s.to_move == 1
    assert s.to_position()["bag"] == []


def test_every_player_refills_in_seat_order_starting_with_the_active_one() -> None:
    s = make_state(
        {},
        hands={
            "archer": ["red", "red", "red"],
            "bull": ["black", "black", "black", "black"],
            "pot": ["green"] * 5,
        },
        active=1,
        players=("archer", "bull", "pot"),
        bag=BAG,
    )
    s.apply("pass")
    assert hand(s, "bull") == Counter(black=4, green=2)  # first two tiles
    assert hand(s, "pot") == Counter(green=5, black=1)  # the third
    assert hand(s, "archer") == Counter(red=3, blue=3)  # the next three
    assert s.to_move == 2 and s.actions_left == 2
    assert s.to_position()["bag"] == BAG[6:]


def test_a_turn_is_two_actions_then_the_next_player_clockwise() -> None:
    s = make_state(
        {"H5": "red"},
        hands={"archer": ["red", "red"], "bull": [], "pot": []},
        players=("archer", "bull", "pot"),
        active=2,
        bag=BAG * 2,
    )
    assert s.to_move == 2 and s.actions_left == 2
    s.apply("leader king H6")
    assert s.to_move == 2 and s.actions_left == 1
    s.apply("withdraw king")
    assert s.to_move == 0 and s.actions_left == 2  # pot -> archer: clockwise wraps round
    s.apply("tile red I5")
    s.apply("tile red J5")  # the same action twice
    assert s.to_move == 1


def test_the_game_ends_when_two_treasures_or_fewer_remain_after_a_turn() -> None:
    # H5 and J5 carry treasures; archer's trader on I5 joins them and collects one
    s = make_state(
        {"H5": "red*", "J5": "red*", "A11": "red*"},
        hands={"archer": ["red"], "bull": []},
        far_treasures=False,
    )
    s.apply("leader trader I5")
    p = pending(s)
    assert p is not None and p["kind"] == "treasure"
    s.apply("treasure H5")
    assert s.to_position()["treasures"] == {"archer": 1, "bull": 0}
    assert not s.is_over  # the check comes at the end of the turn
    s.apply("pass")
    assert s.is_over
    assert s.view(None)["is_over"] is True


def test_three_treasures_left_the_game_goes_on() -> None:
    s = make_state(
        {"H5": "red*", "J5": "red*", "A11": "red*", "C11": "red*"},
        hands={"archer": ["red"], "bull": []},
        far_treasures=False,
    )
    s.apply("leader trader I5")
    s.apply("treasure J5")
    s.apply("pass")
    assert not s.is_over
    assert s.to_move == 1
    assert cells(s)["I5"] == leader("archer", "trader")


def test_a_defender_who_committed_tiles_refills_at_the_end_of_the_turn() -> None:
    s = make_state(
        {"H5": "red", "I5": "red", "H4": leader("bull", "king")},
        hands={"archer": ["red"] * 6, "bull": ["red", "red", "green", "green", "black", "black"]},
        bag=BAG,
    )
    s.apply("leader king J5")
    s.apply("commit 0")
    s.apply("commit 2")  # bull defends with two temples: 4 tiles left
    assert hand(s, "bull") == Counter(green=2, black=2)
    s.apply("pass")
    # archer (active, 6 tiles) draws nothing; bull draws the first two tiles of the bag
    assert hand(s, "archer") == Counter(red=6)
    assert hand(s, "bull") == Counter(green=4, black=2)
    assert s.to_position()["bag"] == BAG[2:]
    assert s.to_move == 1
