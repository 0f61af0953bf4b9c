"""The events of each kind of action, in full: they are the game's log (the browser, the
terminal and replays show their text) and say exactly who did what where."""

from __future__ import annotations

from typing import Any

import pytest

from cradle import tigris
from tests.helpers.tigris import (
    WONDER_BOARD,
    kings_at_war,
    kings_revolt,
    leader,
    make_state,
    red_square,
    two_kingdoms,
)

BAG = ["black"] * 20  # enough for every hand to be refilled at the end of a turn


def test_a_revolt_logs_both_commitments_its_result_and_the_winners_point() -> None:
    s = kings_revolt(["red", "red", "black"], ["red", "green"])
    assert s.apply("commit 2") == [
        {"type": "commit", "text": "archer commits 2 red tile(s)", "seat": 0, "count": 2}
        | {"color": "red"}
    ]
    assert s.apply("commit 1") == [
        {"type": "commit", "text": "bull commits 1 red tile(s)", "seat": 1, "count": 1}
        | {"color": "red"},
        {
            "type": "revolt_result",
            "text": "archer wins the revolt 3-2; bull's king on H4 returns",
            "winner": 0,
            "loser": 1,
            "attack": 3,
            "defence": 2,
        },
        {
            "type": "score",
            "text": "archer scores 1 red (revolt won)",
            "seat": 0,
            "color": "red",
            "amount": 1,
        },
    ]


def test_a_defended_revolt_names_the_defender_as_winner() -> None:
    s = kings_revolt(["red"], ["red", "red"])
    s.apply("commit 0")
    events = s.apply("commit 1")
    assert events[1:] == [
        {
            "type": "revolt_result",
            "text": "bull wins the revolt 2-1; archer's king on J5 returns",
            "winner": 1,
            "loser": 0,
            "attack": 1,
            "defence": 2,
        },
        {
            "type": "score",
            "text": "bull scores 1 red (revolt won)",
            "seat": 1,
            "color": "red",
            "amount": 1,
        },
    ]


def test_a_war_logs_the_unification_the_war_its_result_and_the_points() -> None:
    s = kings_at_war(["red", "black"], ["black"])
    assert s.apply("tile red H5") == [
        {
            "type": "tile",
            "text": "archer places a red tile on H5",
            "seat": 0,
            "color": "red",
            "cell": "H5",
        },
        {
            "type": "unification",
            "text": "the tile on H5 joins two kingdoms: war of black",
            "cell": "H5",
            "wars": ["black"],
        },
        {
            "type": "war",
            "text": "black war: archer attacks bull",
            "color": "black",
            "attacker": 0,
            "defender": 1,
        },
    ]
    s.apply("commit 1")
    assert s.apply("commit 1")[1:] == [
        {
            "type": "war_result",
            "text": "archer wins the black war 3-2; bull's king returns and 1 black tile(s) "
            "leave the board",
            "winner": 0,
            "loser": 1,
            "attack": 3,
            "defence": 2,
            "removed": ["I5"],
        },
        {
            "type": "score",
            "text": "archer scores 2 black (black war won)",
            "seat": 0,
            "color": "black",
            "amount": 2,
        },
        {"type": "unification_removed", "text": "the unification tile leaves H5"},
    ]


def test_a_building_is_put_then_moved() -> None:
    s = make_state(
        {"E5": "red", "F5": "red"}, hands={"archer": ["red"]}, options={"buildings": True}
    )
    s.apply("tile red G5")
    assert s.apply("building F5") == [
        {
            "type": "building",
            "text": "archer puts the red building on F5",
            "color": "red",
            "cell": "F5",
        }
    ]
    board = {"E5": "red", "F5": "red", "G5": "red", "H11": "red", "I11": "red", "J11": "red"}
    s = make_state(
        board, hands={"archer": ["red"]}, buildings={"red": "F5"}, options={"buildings": True}
    )
    s.apply("tile red K11")
    assert s.apply("building K11") == [
        {
            "type": "building",
            "text": "archer moves the red building to K11",
            "color": "red",
            "cell": "K11",
        }
    ]


def test_the_wonder_and_the_leader_it_strands() -> None:
    s = make_state(
        WONDER_BOARD, hands={"archer": ["red"]}, actions_left=2, options={"wonder": True}
    )
    s.apply("tile red F6")
    assert s.apply("wonder F6") == [
        {
            "type": "wonder",
            "text": "archer builds the wonder on F6 from five red tiles",
            "cell": "F6",
        },
        {
            "type": "leader_returned",
            "text": "bull's priest on F4 lost its last temple and returns",
            "seat": 1,
            "role": "priest",
            "cell": "F4",
        },
    ]


def test_a_monument_or_declining_it() -> None:
    s = make_state(red_square(), hands={"archer": ["red", "red"]})
    s.apply("tile red H5")
    assert s.clone().apply("monument red-black G4") == [
        {
            "type": "monument",
            "text": "archer builds the red-black monument on G4",
            "monument": "red-black",
            "cell": "G4",
        }
    ]
    assert s.apply("decline") == [{"type": "decline", "text": "archer declines"}]


def test_treasures_taken_at_once_and_by_choice() -> None:
    s = make_state({"B8": "red*", "A9": "red*", "C9": "red*"}, hands={"archer": []})
    assert s.apply("leader trader B9") == [
        {
            "type": "leader",
            "text": "archer places the trader on B9",
            "seat": 0,
            "role": "trader",
            "cell": "B9",
            "moved_from": None,
        },
        {"type": "treasure", "text": "archer takes the treasure on B8", "seat": 0, "cell": "B8"},
    ]
    assert s.apply("treasure C9") == [
        {"type": "treasure", "text": "archer takes the treasure on C9", "seat": 0, "cell": "C9"}
    ]


def test_a_catastrophe_and_the_leader_it_strands() -> None:
    s = make_state(
        {"H5": "red", "H4": leader("archer", "king"), "I5": "black"}, hands={"archer": ["red"]}
    )
    assert s.apply("catastrophe H5") == [
        {
            "type": "catastrophe",
            "text": "archer places a catastrophe on H5, destroying a red tile",
            "seat": 0,
            "cell": "H5",
        },
        {
            "type": "leader_returned",
            "text": "archer's king on H4 lost its last temple and returns",
            "seat": 0,
            "role": "king",
            "cell": "H4",
        },
    ]
    assert s.apply("catastrophe K8") == [
        {"type": "catastrophe", "text": "archer places a catastrophe on K8", "seat": 0}
        | {"cell": "K8"},
        {"type": "turn", "text": "bull's turn", "seat": 1},
    ]


def test_a_withdrawal_a_swap_a_pass_and_a_scoring_tile_end_the_turn() -> None:
    def turn(last: str, hand: list[str]) -> list[dict[str, object]]:
        s = make_state(
            {"H5": "red", "H4": leader("archer", "king")},
            hands={"archer": hand},
            actions_left=1,
            bag=BAG,
        )
        return s.apply(last)  # type: ignore[return-value]

    bulls_turn = {"type": "turn", "text": "bull's turn", "seat": 1}
    assert turn("withdraw king", ["red"]) == [
        {
            "type": "withdraw",
            "text": "archer withdraws the king from H4",
            "seat": 0,
            "role": "king",
            "cell": "H4",
        },
        bulls_turn,
    ]
    assert turn("swap red blue", ["red", "blue", "green"]) == [
        {"type": "swap", "text": "archer discards 2 tile(s) and draws 2", "seat": 0, "count": 2},
        bulls_turn,
    ]
    assert turn("pass", ["red"]) == [
        {"type": "pass", "text": "archer passes", "seat": 0},
        bulls_turn,
    ]
    assert turn("tile black H6", ["black"]) == [
        {
            "type": "tile",
            "text": "archer places a black tile on H6",
            "seat": 0,
            "color": "black",
            "cell": "H6",
        },
        {
            "type": "score",
            "text": "archer scores 1 black (black tile on H6)",
            "seat": 0,
            "color": "black",
            "amount": 1,
        },
        bulls_turn,
    ]


def test_the_game_over_event_says_why() -> None:
    board = {"H5": "red*", "J5": "red*", "H4": leader("archer", "king")}
    for bag, reason in [(BAG, "two or fewer treasures remain"), (["black"], "the bag is empty")]:
        s = make_state(
            board, hands={"archer": ["black"]}, actions_left=1, bag=bag, far_treasures=False
        )
        assert s.apply("tile black H6")[-1] == {
            "type": "game_over",
            "text": f"the game ends: {reason}",
        }
        assert s.is_over


def test_a_leader_moved_names_where_it_came_from() -> None:
    s = make_state(two_kingdoms())
    assert s.apply("leader king H5") == [
        {
            "type": "leader",
            "text": "archer moves the king to H5",
            "seat": 0,
            "role": "king",
            "cell": "H5",
            "moved_from": "G4",
        }
    ]


def test_the_wonder_point_is_scored_in_the_chosen_colour() -> None:
    s = make_state(
        WONDER_BOARD, hands={"archer": ["red"]}, actions_left=1, options={"wonder": True}, bag=BAG
    )
    s.apply("tile red F6")
    s.apply("wonder F6")
    assert s.apply("wonderpoint green") == [
        {
            "type": "score",
            "text": "archer scores 1 green (the wonder)",
            "seat": 0,
            "color": "green",
            "amount": 1,
        },
        {"type": "turn", "text": "bull's turn", "seat": 1},
    ]


def test_new_games_refuse_bad_tables_with_their_reason() -> None:
    def reason(*args: Any, **kwargs: Any) -> str:
        with pytest.raises(ValueError) as refused:
            tigris.new_game(*args, **kwargs)
        return str(refused.value)

    assert reason(5, 1) == "Tigris & Euphrates is for 2 to 4 players, not 5"
    assert reason(True, 1) == reason("2", 1) == "players must be a number from 2 to 4"
    for dynasties in (["archer", "archer"], ["archer"], ["archer", "wolf"]):
        assert reason(2, 1, dynasties=dynasties) == (
            "dynasties must be 2 different names among archer, bull, pot, lion"
        )
    assert tigris.new_game(2, 1, dynasties=["lion", "pot"]).players == ("lion", "pot")
    assert tigris.new_game(seed=3).players == ("archer", "bull")


def test_the_first_hands_are_dealt_from_the_first_player_clockwise() -> None:
    # Seeded games are reproducible: the same seed deals the same hands (the native engine
    # deals the same way).
    s = tigris.new_game(3, 7, engine="python")
    position = s.to_position()
    assert position["active"] == 2
    assert position["hands"] == {
        "archer": ["red", "red", "red", "blue", "green", "black"],
        "bull": ["red", "red", "red", "red", "green", "green"],
        "pot": ["red", "red", "red", "blue", "green", "black"],
    }
