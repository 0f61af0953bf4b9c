"""Wars: external conflicts started by a tile that joins two kingdoms (rules spec)."""

from __future__ import annotations

from collections import Counter

from cradle.tigris import TigrisState
from tests.helpers.tigris import (
    assert_illegal,
    cells,
    hand,
    kings_at_war,
    leader,
    make_state,
    pending,
    points,
    pts,
    supply,
)


def test_a_unification_starts_a_war_between_leaders_of_one_colour() -> None:
    s = kings_at_war(["red", "black"], ["black", "black"])
    events = s.apply("tile red H5")
    assert [e["type"] for e in events] == ["tile", "unification", "war"]
    p = pending(s)
    assert p is not None
    assert (p["kind"], p["color"], p["attacker"], p["defender"]) == ("war", "black", 0, 1)
    # supporters: black tiles on each leader's side, adjacent to the leader or not
    assert (p["attacker_strength"], p["defender_strength"]) == (2, 1)
    assert s.view(None)["unification"] == "H5"
    # the attacker commits first, tiles of the war's colour
    assert s.to_move == 0
    assert s.legal_actions() == ["commit 0", "commit 1"]
    s.apply("commit 1")
    assert s.to_move == 1
    assert s.legal_actions() == ["commit 0", "commit 1", "commit 2"]


def test_a_tie_goes_to_the_defender_who_removes_the_losers_supporters() -> None:
    s = kings_at_war(["red", "black"], ["black", "black"])
    s.apply("tile red H5")
    s.apply("commit 1")
    events = s.apply("commit 2")  # 2 + 1 against 1 + 2
    board = cells(s)
    assert "F4" not in board
    assert "king" in supply(s, "archer")
    assert "E5" not in board and "G5" not in board  # the loser's supporters leave the game
    assert board["F5"] == "red"  # other colours stay
    assert board["I5"] == "black" and board["J4"] == leader("bull", "king")
    # 1 for the king + 1 per removed supporter; committed tiles score nothing
    assert points(s, "bull") == pts(black=3)
    assert points(s, "archer") == pts()
    assert hand(s, "archer") == Counter() and hand(s, "bull") == Counter()
    assert s.to_position()["removed"]["black"] == 2 + 3
    # the unification tile comes off; the tile under it stays, and no point for it
    assert board["H5"] == "red"
    assert s.view(None)["unification"] is None
    assert "unification_removed" in [e["type"] for e in events]
    assert pending(s) is None and s.to_move == 0 and s.actions_left == 1


def test_the_attacker_wins_with_more() -> None:
    s = kings_at_war(["red", "black"], ["black", "black"])
    s.apply("tile red H5")
    s.apply("commit 1")
    s.apply("commit 1")  # 3 against 2
    board = cells(s)
    assert "J4" not in board and "I5" not in board
    assert board["F4"] == leader("archer", "king")
    assert board["E5"] == "black" and board["G5"] == "black"
    assert points(s, "archer") == pts(black=2)
    assert points(s, "bull") == pts()
    assert hand(s, "bull") == Counter(black=1)


def test_the_joining_tile_supports_nobody_and_stays() -> None:
    s = kings_at_war(["black", "black"], [])
    s.apply("tile black H5")
    p = pending(s)
    assert p is not None and (p["attacker_strength"], p["defender_strength"]) == (2, 1)
    s.apply("commit 0")
    s.apply("commit 0")  # 2 against 1
    board = cells(s)
    assert board["H5"] == "black"
    assert "I5" not in board
    assert points(s, "archer") == pts(black=2)


def test_a_non_involved_active_player_lets_the_next_involved_player_clockwise_attack() -> None:
    # four players; bull (seat 1) joins the kingdoms of archer (seat 0) and lion (seat 3)
    s = make_state(
        {
            "G5": "red",
            "G4": leader("archer", "king"),
            "I5": "red",
            "I4": leader("lion", "king"),
        },
        hands={"bull": ["red"]},
        players=("archer", "bull", "pot", "lion"),
        active=1,
    )
    s.apply("tile red H5")
    p = pending(s)
    assert p is not None and (p["attacker"], p["defender"]) == (3, 0)
    assert s.to_move == 3
    s.apply("commit 0")
    assert s.to_move == 0
    s.apply("commit 0")  # 0 against 0: archer defends successfully
    assert "I4" not in cells(s)
    assert points(s, "archer") == pts(black=1)
    assert s.to_move == 1 and s.actions_left == 1


def _two_wars() -> TigrisState:
    """Pot (seat 2) will join archer's king and trader (west) to bull's (east) on H5.

    West: G5 temple, G4 king, G6 trader, F5 market, F6 settlement.
    East: I5 temple, I4 king, I6 trader, J5 market, J6 settlement (J6 hangs on I6 and J5).
    """
    return make_state(
        {
            "G5": "red",
            "G4": leader("archer", "king"),
            "G6": leader("archer", "trader"),
            "F5": "green",
            "F6": "black",
            "I5": "red",
            "I4": leader("bull", "king"),
            "I6": leader("bull", "trader"),
            "J5": "green",
            "J6": "black",
        },
        hands={"archer": ["green"], "pot": ["red"]},
        players=("archer", "bull", "pot"),
        active=2,
    )


def test_the_active_player_orders_the_wars_even_when_not_involved() -> None:
    s = _two_wars()
    events = s.apply("tile red H5")
    assert next(e for e in events if e["type"] == "unification")["wars"] == ["green", "black"]
    p = pending(s)
    assert p is not None and p["kind"] == "war_order"
    assert s.to_move == 2
    assert sorted(s.legal_actions()) == ["war black", "war green"]
    assert_illegal(s, "war red", "red")
    assert_illegal(s, "commit 0", "war")
    s.apply("war green")
    p = pending(s)
    assert p is not None and (p["kind"], p["color"]) == ("war", "green")
    assert (p["attacker"], p["defender"]) == (0, 1)  # first involved after pot, clockwise
    assert s.to_move == 0


def test_later_wars_are_recomputed_after_each_war() -> None:
    s = _two_wars()
    s.apply("tile red H5")
    s.apply("war green")
    s.apply("commit 1")
    s.apply("commit 0")  # 2 against 1: bull's trader returns, J5 leaves the game
    board = cells(s)
    assert "I6" not in board and "J5" not in board
    assert points(s, "archer") == pts(green=2)
    # the black war follows at once: J6 no longer touches bull's king's side
    p = pending(s)
    assert p is not None and (p["kind"], p["color"]) == ("war", "black")
    assert (p["attacker_strength"], p["defender_strength"]) == (1, 0)
    s.apply("commit 0")
    s.apply("commit 0")
    board = cells(s)
    assert "I4" not in board
    assert board["J6"] == "black"  # not a supporter any more, so not removed
    assert points(s, "archer") == pts(green=2, black=1)
    assert points(s, "bull") == pts() and points(s, "pot") == pts()
    assert s.view(None)["unification"] is None
    assert s.to_move == 2 and s.actions_left == 1


def test_a_war_whose_leaders_were_separated_does_not_happen() -> None:
    # the market I5, bull's only green supporter, is also the east side's link to H5
    s = make_state(
        {
            "G5": "red",
            "G4": leader("archer", "king"),
            "G6": leader("archer", "trader"),
            "I5": "green",
            "J5": "red",
            "J4": leader("bull", "king"),
            "J6": leader("bull", "trader"),
        },
        hands={"pot": ["red"], "archer": ["green", "green"]},
        players=("archer", "bull", "pot"),
        active=2,
    )
    s.apply("tile red H5")
    s.apply("war green")
    s.apply("commit 2")
    events = s.apply("commit 0")  # 2 against 1: I5 leaves, cutting the kingdom in two
    kinds = [e["type"] for e in events]
    assert kinds.count("war_result") == 1
    assert "war" not in kinds
    assert "unification_removed" in kinds
    board = cells(s)
    assert board["J4"] == leader("bull", "king") and board["G4"] == leader("archer", "king")
    assert "I5" not in board
    assert points(s, "archer") == pts(green=2)
    assert pending(s) is None and s.to_move == 2


def test_the_priest_keeps_temples_with_a_treasure_or_next_to_another_leader() -> None:
    # West: archer's priest F4; temples E5 (treasure), F5, G5, E6 (next to bull's farmer E7).
    # East: bull's priest J4; temples I5, J5.
    s = make_state(
        {
            "E5": "red*",
            "F5": "red",
            "G5": "red",
            "E6": "red",
            "F4": leader("archer", "priest"),
            "E7": leader("bull", "farmer"),
            "I5": "red",
            "J5": "red",
            "J4": leader("bull", "priest"),
        },
        hands={"archer": ["black"], "bull": ["red", "red", "red"]},
    )
    s.apply("tile black H5")
    p = pending(s)
    assert p is not None and p["color"] == "red"
    assert (p["attacker_strength"], p["defender_strength"]) == (4, 2)
    s.apply("commit 0")
    s.apply("commit 3")  # 4 against 5
    board = cells(s)
    assert "F4" not in board
    assert "F5" not in board and "G5" not in board
    assert board["E5"] == "red*" and board["E6"] == "red"  # kept, and no point for them
    assert board["E7"] == leader("bull", "farmer")
    assert points(s, "bull") == pts(red=3)
    assert s.to_position()["removed"]["red"] == 2 + 3


def test_a_temple_next_to_the_losers_other_leader_keeps_that_leader_in_play() -> None:
    # archer's king on F6 has only the temple F5, a supporter of archer's losing priest;
    # the market G5 links the west side to H5
    s = make_state(
        {
            "E5": "red",
            "F5": "red",
            "G5": "green",
            "F4": leader("archer", "priest"),
            "F6": leader("archer", "king"),
            "I5": "red",
            "J5": "red",
            "J4": leader("bull", "priest"),
            "J6": leader("bull", "king"),
        },
        hands={"archer": ["black"], "bull": ["red"]},
    )
    s.apply("tile black H5")
    s.apply("war red")
    s.apply("commit 0")
    s.apply("commit 1")  # 2 against 3
    board = cells(s)
    assert "F4" not in board
    assert board["F5"] == "red" and "E5" not in board
    assert board["F6"] == leader("archer", "king")
    assert points(s, "bull") == pts(red=2)
    # the king kept its temple, so the kings' war still happens
    p = pending(s)
    assert p is not None and (p["kind"], p["color"]) == ("war", "black")
    assert (p["attacker"], p["defender"]) == (0, 1)
