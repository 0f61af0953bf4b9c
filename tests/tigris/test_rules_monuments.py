"""Monuments: built on a completed 2x2 square, then feeding leaders at the end of turns."""

from __future__ import annotations

from cradle.tigris import TigrisState
from tests.helpers.tigris import (
    assert_illegal,
    cells,
    leader,
    make_state,
    pending,
    points,
    pts,
    red_square,
    supply,
)

SQUARE = ("G4", "H4", "G5", "H5")


def _down(cells_: tuple[str, ...], colour: str = "red") -> dict[str, str]:
    return {cell: f"down:{colour}" for cell in cells_}


def test_completing_a_square_offers_the_monuments_of_its_colour() -> None:
    s = make_state(red_square(), hands={"archer": ["red", "red"]})
    s.apply("tile red H5")
    p = pending(s)
    assert p is not None and p["kind"] == "monument"
    assert s.to_move == 0 and s.actions_left == 2  # the action is not over yet
    assert sorted(s.legal_actions()) == [
        "decline",
        "monument red-black G4",
        "monument red-blue G4",
        "monument red-green G4",
    ]
    assert_illegal(s, "monument blue-green G4", "blue-green")
    assert_illegal(s, "monument red-blue H4", "H4")
    assert_illegal(s, "tile red K5", "monument")
    events = s.apply("monument red-black G4")
    assert [e["type"] for e in events] == ["monument"]
    board = cells(s)
    assert [board[c] for c in SQUARE] == ["down:red"] * 4
    position = s.to_position()
    assert position["monuments"] == [{"colors": ["red", "black"], "cell": "G4"}]
    assert ["red", "black"] not in s.view(None)["unused_monuments"]
    assert len(s.view(None)["unused_monuments"]) == 5
    assert pending(s) is None and s.actions_left == 1


def test_no_offer_unless_the_placed_tile_completes_a_square_of_its_colour() -> None:
    s = make_state(
        {"G4": "red", "H4": "red", "G5": "red", "H5": "red", "K4": "red", "L4": "red", "K5": "red"},
        hands={"archer": ["red", "black"]},
    )
    s.apply("tile red I4")  # next to a finished square, completes none
    assert pending(s) is None and s.actions_left == 1
    s.apply("tile black L5")  # completes K4-L5, but with a settlement
    assert pending(s) is None
    assert s.to_move == 1


def test_a_tile_completing_two_squares_offers_both() -> None:
    board = red_square(G6="red", H6="red") | _down(("K4", "L4", "K5", "L5"))
    s = make_state(
        board,
        hands={"archer": ["red"]},
        monuments=[{"colors": ["red", "blue"], "cell": "K4"}],
    )
    s.apply("tile red H5")
    assert sorted(s.legal_actions()) == [
        "decline",
        "monument red-black G4",
        "monument red-black G5",
        "monument red-green G4",
        "monument red-green G5",
    ]
    assert_illegal(s, "monument red-blue G4", "red-blue", "already")
    s.apply("monument red-green G5")
    board_after = cells(s)
    assert [board_after[c] for c in ("G5", "H5", "G6", "H6")] == ["down:red"] * 4
    assert board_after["G4"] == "red" and board_after["H4"] == "red"


def test_no_monument_left_for_the_colour_means_no_offer() -> None:
    board = (
        red_square()
        | _down(("K4", "L4", "K5", "L5"))
        | _down(("J7", "K7", "J8", "K8"))
        | _down(("E10", "F10", "E11", "F11"), "black")
    )
    s = make_state(
        board,
        hands={"archer": ["red", "red"]},
        monuments=[
            {"colors": ["red", "blue"], "cell": "K4"},
            {"colors": ["red", "green"], "cell": "J7"},
            {"colors": ["red", "black"], "cell": "E10"},
        ],
        far_treasures=False,
    )
    s.apply("tile red H5")
    assert pending(s) is None and s.actions_left == 1
    assert cells(s)["H5"] == "red"


def test_declining_loses_the_chance() -> None:
    s = make_state(red_square(), hands={"archer": ["red", "red"]})
    s.apply("tile red H5")
    events = s.apply("decline")
    assert [e["type"] for e in events] == ["decline"]
    assert pending(s) is None and s.actions_left == 1
    assert [cells(s)[c] for c in SQUARE] == ["red"] * 4
    s.apply("tile red I5")  # touches the square but completes no new one
    assert pending(s) is None
    assert s.to_move == 1


def test_flipped_temples_strand_leaders_but_keep_treasures_and_connections() -> None:
    s = make_state(
        red_square(
            G4="red*",
            I4=leader("bull", "farmer"),  # only temple: H4
            F4=leader("archer", "king"),  # temples G4 and F5
            F5="red",
        ),
        hands={"archer": ["red", "green"]},
    )
    s.apply("tile red H5")  # the king scores the temple: no priest in the kingdom
    assert points(s, "archer") == pts(red=1)
    events = s.apply("monument red-black G4")
    board = cells(s)
    assert board["G4"] == "down:red*"  # the treasure stays on its tile
    assert "I4" not in board
    assert supply(s, "bull") == {"king", "priest", "farmer", "trader"}
    assert [e["cell"] for e in events if e["type"] == "leader_returned"] == ["I4"]
    assert board["F4"] == leader("archer", "king")
    # face-down tiles still connect: a market beyond the monument is in the king's kingdom
    s.apply("tile green I5")
    assert points(s, "archer")["green"] == 1


def test_face_down_temples_give_no_strength() -> None:
    board = _down(SQUARE) | {
        "I4": leader("bull", "priest"),  # next to H4 (face down) and I3
        "I3": "red",
        "F6": "red",
    }
    s = make_state(
        board,
        hands={"archer": []},
        monuments=[{"colors": ["red", "green"], "cell": "G4"}],
    )
    s.apply("leader priest F5")  # next to G5 (face down) and F6
    p = pending(s)
    assert p is not None and p["kind"] == "revolt"
    assert (p["attacker_strength"], p["defender_strength"]) == (1, 1)


def _monument_kingdom(colours: tuple[str, str]) -> TigrisState:
    """A monument on G4-H5 in one kingdom with archer's priest, king and trader, bull's farmer."""
    board = _down(SQUARE) | {
        "F4": leader("archer", "priest"),
        "F3": "red",
        "I4": leader("archer", "king"),
        "I3": "red",
        "F5": leader("archer", "trader"),
        "F6": "red",
        "I5": leader("bull", "farmer"),
        "J5": "red",
    }
    return make_state(
        board,
        hands={"archer": [], "bull": []},
        monuments=[{"colors": list(colours), "cell": "G4"}],
    )


def test_one_monument_feeds_two_leaders_of_the_active_player_at_the_end_of_his_turn() -> None:
    s = _monument_kingdom(("red", "black"))
    events = s.apply("pass")
    assert points(s, "archer") == pts(red=1, black=1)
    assert points(s, "bull") == pts()
    score_events = [e for e in events if e["type"] == "score"]
    assert len(score_events) == 2
    # the monument points come before the refills and the next turn
    kinds = [e["type"] for e in events]
    assert kinds.index("score") < kinds.index("turn")


def test_only_the_active_player_scores_and_the_king_only_from_black() -> None:
    s = _monument_kingdom(("red", "blue"))
    s.apply("pass")
    assert points(s, "archer") == pts(red=1)  # the priest; the king earns only from black
    assert points(s, "bull") == pts()  # not bull's turn
    s.apply("pass")
    assert points(s, "bull") == pts(blue=1)
    assert points(s, "archer") == pts(red=1)


def test_a_leader_scores_once_however_many_monuments_of_its_colour() -> None:
    board = (
        _down(SQUARE)
        | _down(("I4", "J4", "I5", "J5"))
        | {"F4": leader("archer", "priest"), "F3": "red"}
    )
    s = make_state(
        board,
        hands={"archer": []},
        monuments=[
            {"colors": ["red", "black"], "cell": "G4"},
            {"colors": ["red", "blue"], "cell": "I4"},
        ],
    )
    s.apply("pass")
    assert points(s, "archer") == pts(red=1)


def test_a_monument_in_another_kingdom_feeds_nobody() -> None:
    board = _down(SQUARE) | {"L4": leader("archer", "priest"), "L3": "red"}
    s = make_state(
        board,
        hands={"archer": []},
        monuments=[{"colors": ["red", "black"], "cell": "G4"}],
    )
    s.apply("pass")
    assert points(s, "archer") == pts()


def _war_over_a_square() -> TigrisState:
    """Archer's king (E4) rules F4 (temple) and the settlements G4 H4 G5; bull's king (J4)
    rules J5 (temple) and I5 (settlement). A settlement on H5 joins them and completes G4-H5."""
    return make_state(
        {
            "E4": leader("archer", "king"),
            "F4": "red",
            "G4": "black",
            "H4": "black",
            "G5": "black",
            "I5": "black",
            "J5": "red",
            "J4": leader("bull", "king"),
        },
        hands={"archer": ["black"], "bull": ["black", "black", "black"]},
    )


def test_the_square_must_still_stand_after_the_conflicts() -> None:
    s = _war_over_a_square()
    s.apply("tile black H5")
    p = pending(s)
    assert p is not None and (p["attacker_strength"], p["defender_strength"]) == (3, 1)
    s.apply("commit 0")
    s.apply("commit 3")  # 3 against 4: G4, H4 and G5 leave the game
    board = cells(s)
    assert not {"G4", "H4", "G5"} & set(board)
    assert points(s, "bull") == pts(black=4)
    assert pending(s) is None and s.actions_left == 1


def test_a_square_that_survives_the_war_is_offered_after_it() -> None:
    s = _war_over_a_square()
    s.apply("tile black H5")
    s.apply("commit 0")
    s.apply("commit 0")  # 3 against 1
    assert points(s, "archer") == pts(black=2)
    p = pending(s)
    assert p is not None and p["kind"] == "monument"
    assert s.view(None)["unification"] is None
    assert sorted(s.legal_actions()) == [
        "decline",
        "monument blue-black G4",
        "monument green-black G4",
        "monument red-black G4",
    ]
