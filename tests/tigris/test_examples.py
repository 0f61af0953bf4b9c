"""The six worked examples at the end of the rules specification, each played through."""

from __future__ import annotations

from collections import Counter

from cradle import tigris
from tests.helpers.tigris import cells, hand, leader, make_state, pending, points, pts, supply


def test_example_1_a_revolt_tie_goes_to_the_defender() -> None:
    # bull's priest on H4 has one temple (H5); pot's priest goes to J5, next to I5 and J6
    s = make_state(
        {"H5": "red", "I5": "red", "J6": "red", "H4": leader("bull", "priest")},
        hands={"pot": ["red", "red", "blue"], "bull": ["red", "red", "red", "green"]},
        players=("bull", "pot"),
        active=1,
    )
    s.apply("leader priest J5")
    p = pending(s)
    assert p is not None and (p["attacker"], p["defender"]) == (1, 0)
    assert (p["attacker_strength"], p["defender_strength"]) == (2, 1)
    s.apply("commit 2")
    s.apply("commit 3")  # 4 against 4
    assert points(s, "bull") == pts(red=1)
    assert points(s, "pot") == pts()
    assert "J5" not in cells(s)
    assert "priest" in supply(s, "pot")
    assert cells(s)["H4"] == leader("bull", "priest")
    assert hand(s, "pot") == Counter(blue=1)
    assert hand(s, "bull") == Counter(green=1)
    assert s.to_position()["removed"]["red"] == 5


def test_example_2_two_wars_the_second_cancelled_by_a_split() -> None:
    # bull (seat 0, not involved) joins lion's kingdom (west) to pot's (east) on H5.
    # West: temple G5, lion's king G4 and trader G6, one market F5.
    # East: markets I5 and J5 (its only link to H5), temple K5, pot's king K4 and trader K6.
    s = make_state(
        {
            "G5": "red",
            "G4": leader("lion", "king"),
            "G6": leader("lion", "trader"),
            "F5": "green",
            "I5": "green",
            "J5": "green",
            "K5": "red",
            "K4": leader("pot", "king"),
            "K6": leader("pot", "trader"),
        },
        hands={
            "bull": ["red"],
            "lion": ["green"] * 4 + ["black"],
            "pot": ["green", "green", "black"],
        },
        players=("bull", "lion", "pot"),
        active=0,
    )
    removed = s.to_position()["removed"]["green"]
    s.apply("tile red H5")
    assert sorted(s.legal_actions()) == ["war black", "war green"]
    assert s.to_move == 0  # the active player orders the wars though not involved
    s.apply("war green")
    p = pending(s)
    assert p is not None and (p["attacker"], p["defender"]) == (1, 2)  # lion: first clockwise
    assert (p["attacker_strength"], p["defender_strength"]) == (1, 2)
    s.apply("commit 4")
    events = s.apply("commit 1")  # 5 against 3
    assert points(s, "lion") == pts(green=3)  # two markets removed and the trader
    assert points(s, "pot") == pts() and points(s, "bull") == pts()
    board = cells(s)
    assert "K6" not in board and "I5" not in board and "J5" not in board
    assert s.to_position()["removed"]["green"] == removed + 2 + 5
    # the kingdom is split: the kings are apart, so their war does not happen
    kinds = [e["type"] for e in events]
    assert kinds.count("war_result") == 1 and "war" not in kinds
    assert board["G4"] == leader("lion", "king") and board["K4"] == leader("pot", "king")
    assert board["H5"] == "red"
    assert s.view(None)["unification"] is None
    assert pending(s) is None and s.to_move == 0 and s.actions_left == 1


def test_example_3_a_monument_strands_a_farmer_and_feeds_king_and_priest() -> None:
    # bull's king F4 (temples G4, F5) and lion's farmer I4 (temple H4 only) and priest I5
    # (temple J5) share a kingdom; bull completes the square G4-H5 with a temple.
    s = make_state(
        {
            "G4": "red",
            "H4": "red",
            "G5": "red",
            "F5": "red",
            "J5": "red",
            "F4": leader("bull", "king"),
            "I4": leader("lion", "farmer"),
            "I5": leader("lion", "priest"),
        },
        hands={"bull": ["red"], "lion": []},
        players=("bull", "lion"),
    )
    s.apply("tile red H5")
    assert points(s, "lion") == pts(red=1)  # the temple's point goes to the priest
    s.apply("monument red-black G4")
    board = cells(s)
    assert "I4" not in board
    assert supply(s, "lion") == {"king", "farmer", "trader"}
    assert board["I5"] == leader("lion", "priest")  # J5 still holds it
    s.apply("pass")  # end of bull's turn: his king and the black monument
    assert points(s, "bull") == pts(black=1)
    assert points(s, "lion") == pts(red=1)
    s.apply("pass")  # end of lion's turn: his priest and the red monument
    assert points(s, "lion") == pts(red=2)
    assert points(s, "bull") == pts(black=1)


def test_example_4_a_farm_scores_and_the_trader_takes_the_special_treasure() -> None:
    # B8 is a special-border square; B7 a river cell between B8 and B6
    s = make_state(
        {
            "B8": "red*",
            "C8": leader("bull", "farmer"),
            "B9": leader("lion", "trader"),
            "B6": "red*",
        },
        hands={"lion": ["blue"], "bull": []},
        players=("bull", "lion"),
        active=1,
    )
    events = s.apply("tile blue B7")
    kinds = [e["type"] for e in events]
    assert kinds.index("score") < kinds.index("treasure")
    assert points(s, "bull") == pts(blue=1)
    assert points(s, "lion") == pts()
    assert s.to_position()["treasures"] == {"bull": 0, "lion": 1}
    board = cells(s)
    assert board["B8"] == "red" and board["B6"] == "red*"
    assert pending(s) is None and s.to_move == 1 and s.actions_left == 1


def test_example_5_final_scoring() -> None:
    s = make_state(
        {},
        players=("archer", "bull", "pot", "lion"),
        far_treasures=False,
        points={
            "pot": {"red": 12, "blue": 10, "green": 13, "black": 9},
            "lion": {"red": 10, "blue": 7, "green": 18, "black": 12},
            "bull": {"red": 10, "blue": 11, "green": 17, "black": 10},
            "archer": {"red": 6, "blue": 14, "green": 12, "black": 22},
        },
        treasures={"pot": 3, "lion": 3, "bull": 0, "archer": 3},
        over=True,
    )
    rows = {row["dynasty"]: row for row in s.result()}
    # pot: treasures lift black 9 -> 11 and blue 10 -> 11: lowest 11
    # lion: all three on blue: 10 10 12 18; bull: 10 10 11 17, so lion is ahead on the third
    # archer: red 6 + 3 = 9, and his 22 black do not help
    assert {name: row["score"] for name, row in rows.items()} == {
        "pot": 11,
        "lion": 10,
        "bull": 10,
        "archer": 9,
    }
    assert {name: row["place"] for name, row in rows.items()} == {
        "pot": 1,
        "lion": 2,
        "bull": 3,
        "archer": 4,
    }


def test_example_6_the_first_turn() -> None:
    # the standard start (ten temples with treasures) with hands chosen for the walkthrough
    start = tigris.new_game(4, seed=3).to_position()["board"]
    s = make_state(
        start,
        hands={
            "archer": ["red", "red", "blue", "green", "green", "black"],
            "bull": ["blue", "blue", "green", "green", "black", "black"],
            "pot": ["red", "blue", "green", "black", "black", "black"],
            "lion": ["red", "red", "red", "red", "green", "black"],
        },
        players=("archer", "bull", "pot", "lion"),
        active=0,
        far_treasures=False,
        seed=3,
    )
    # A: king and priest, two kingdoms (next to the temples I7 and F3)
    s.apply("leader king H7")
    s.apply("leader priest G3")
    assert s.to_move == 1
    assert hand(s, "archer") == Counter(red=2, blue=1, green=2, black=1)
    # B: a farmer next to A's king, then a farm on the river next to it
    s.apply("leader farmer I8")
    s.apply("tile blue I9")
    assert points(s, "bull") == pts(blue=1)
    assert sum(hand(s, "bull").values()) == 6  # refilled
    # C: a king next to N5, then a temple next to it: no priest there, the king scores
    s.apply("leader king M5")
    s.apply("tile red M6")
    assert points(s, "pot") == pts(red=1)
    # D: a priest into A's priest's kingdom: one temple each
    s.apply("leader priest F2")
    p = pending(s)
    assert p is not None and p["kind"] == "revolt"
    assert (p["attacker"], p["defender"]) == (3, 0)
    assert (p["attacker_strength"], p["defender_strength"]) == (1, 1)
    s.apply("commit 3")
    assert s.legal_actions() == ["commit 0", "commit 1", "commit 2"]
    s.apply("commit 0")  # 4 against 1
    assert points(s, "lion") == pts(red=1)
    assert "G3" not in cells(s)
    assert "priest" in supply(s, "archer")
    # D's fourth temple in his priest's kingdom
    bag_before = s.view(3)["bag_size"]
    s.apply("tile red G2")
    assert points(s, "lion") == pts(red=2)
    assert sum(hand(s, "lion").values()) == 6
    assert s.view(3)["bag_size"] == bag_before - 4  # D drew four tiles
    assert s.to_move == 0 and s.actions_left == 2
    assert points(s, "archer") == pts()
