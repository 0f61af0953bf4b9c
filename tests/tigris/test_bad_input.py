"""Bad input: illegal actions in every phase, malformed notation and malformed positions.

An illegal action raises tigris.DisallowedAction, malformed notation tigris.MalformedAction
(both a tigris.IllegalAction, a ValueError) with a reason naming the problem, and leaves the
state unchanged; a malformed position raises ValueError with a reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from cradle import tigris
from cradle.tigris import TigrisState
from tests.helpers.tigris import assert_illegal, leader, make_position, make_state, pending


def test_illegal_action_is_a_value_error() -> None:
    assert issubclass(tigris.IllegalAction, ValueError)
    for kind in (tigris.MalformedAction, tigris.DisallowedAction):
        assert issubclass(kind, tigris.IllegalAction)


def test_a_malformed_action_is_that_even_when_the_game_is_over() -> None:
    """The input is read before the rules are asked (python-chess's invalid move against
    its illegal one): garbage is malformed in any position, a good action disallowed."""
    s = tigris.new_game(2, 1)
    s.random_playout(1)
    assert s.is_over
    assert_illegal(s, "fly K2", "unknown action", kind=tigris.MalformedAction)
    assert_illegal(s, "pass", "the game is over")


# ----------------------------------------------------------------- the turn


def _turn() -> TigrisState:
    return make_state(
        {"H5": "red", "G4": leader("bull", "king"), "G5": "red", "J5": "red*"},
        hands={"archer": ["red", "blue", "green"], "bull": []},
        catastrophes={"archer": 2, "bull": 2},
    )


def test_no_catastrophe_left() -> None:
    s = make_state(
        {"H5": "catastrophe", "H6": "catastrophe"},
        hands={"archer": []},
        catastrophes={"archer": 0, "bull": 2},
    )
    assert_illegal(s, "catastrophe K5", "catastrophe", "left")


# ----------------------------------------------------------------- conflicts and choices


def _revolt() -> TigrisState:
    s = make_state(
        {"H5": "red", "I5": "red", "H4": leader("bull", "king")},
        hands={"archer": ["red", "black"], "bull": ["red", "red"]},
    )
    s.apply("leader king J5")
    return s


def test_the_defender_may_commit_only_what_he_holds() -> None:
    s = _revolt()
    s.apply("commit 1")
    assert s.to_move == 1
    assert_illegal(s, "commit 3", "only 2")
    assert_illegal(s, "pass", "bull", "commit")


def _war() -> TigrisState:
    s = make_state(
        {
            "F5": "red",
            "F4": leader("archer", "king"),
            "G5": "black",
            "I5": "black",
            "J5": "red",
            "J4": leader("bull", "king"),
        },
        hands={"archer": ["red", "black"], "bull": ["black"]},
    )
    s.apply("tile red H5")
    return s


def _war_order() -> TigrisState:
    s = make_state(
        {
            "G5": "red",
            "G4": leader("archer", "king"),
            "G6": leader("archer", "trader"),
            "I5": "red",
            "I4": leader("bull", "king"),
            "I6": leader("bull", "trader"),
        },
        hands={"archer": ["red"]},
    )
    s.apply("tile red H5")
    return s


def _monument_offer() -> TigrisState:
    s = make_state(
        {
            "G4": "red",
            "H4": "red",
            "G5": "red",
            "K4": "down:red",
            "L4": "down:red",
            "K5": "down:red",
            "L5": "down:red",
        },
        hands={"archer": ["red", "red"]},
        monuments=[{"colors": ["red", "blue"], "cell": "K4"}],
    )
    s.apply("tile red H5")
    return s


def _treasure_choice() -> TigrisState:
    s = make_state(
        {"H5": "red*", "J5": "red*", "K5": "red"},
        hands={"archer": []},
    )
    s.apply("leader trader I5")
    return s


# Each phase of a turn (the turn itself, or the decision pending), the position that reaches
# it, and the actions refused there with the words each refusal says.
REFUSED: dict[str, tuple[Callable[[], TigrisState], list[tuple[str, list[str]]]]] = {
    "turn": (
        _turn,
        [
            ("commit 1", ["commit 1", "not possible now"]),
            ("war red", ["war red", "not possible now"]),
            ("monument red-blue G4", ["monument", "not possible now"]),
            ("treasure J5", ["treasure", "not possible now"]),
            ("decline", ["decline", "not possible now"]),
            ("leader king G8", ["G8", "river"]),
            ("leader king K8", ["K8", "temple"]),
            ("leader king G5", ["G5", "tile"]),
            ("leader king G4", ["G4", "leader"]),
            ("withdraw trader", ["trader", "not on the board"]),
            ("tile black H6", ["black", "hand"]),
            ("tile blue H6", ["H6", "river"]),
            ("tile red G8", ["G8", "river"]),
            ("tile red H5", ["H5", "tile"]),
            ("catastrophe G4", ["G4", "leader"]),
            ("catastrophe J5", ["J5", "treasure"]),
            ("swap black", ["black"]),
            ("swap red red", ["red"]),
        ],
    ),
    "revolt": (
        _revolt,
        [
            ("commit 2", ["only 1", "red"]),
            ("commit 9", ["only 1"]),
            ("pass", ["archer", "commit"]),
            ("tile black K5", ["archer", "commit"]),
            ("leader priest H6", ["commit"]),
            ("war black", ["commit"]),
            ("decline", ["commit"]),
            ("treasure H5", ["commit"]),
            ("monument red-blue G4", ["commit"]),
        ],
    ),
    "war": (
        _war,
        [
            ("commit 2", ["only 1", "black"]),
            ("pass", ["commit", "black"]),
            ("war black", ["commit"]),
            ("tile black K5", ["commit"]),
            ("catastrophe K5", ["commit"]),
        ],
    ),
    "war_order": (
        _war_order,
        [
            ("war red", ["no red war"]),
            ("war blue", ["no blue war"]),
            ("commit 0", ["war"]),
            ("pass", ["war"]),
            ("decline", ["war"]),
        ],
    ),
    "monument": (
        _monument_offer,
        [
            ("monument red-blue G4", ["red-blue", "already"]),
            ("monument blue-green G4", ["blue-green", "G4"]),
            ("monument red-green H4", ["red-green", "H4"]),
            ("monument red-green A1", ["red-green", "A1"]),
            ("pass", ["monument", "decline"]),
            ("tile red K7", ["monument", "decline"]),
            ("commit 0", ["monument", "decline"]),
            ("treasure A11", ["monument", "decline"]),
        ],
    ),
    "treasure": (
        _treasure_choice,
        [
            ("treasure A11", ["H5", "J5"]),
            ("treasure K5", ["H5", "J5"]),
            ("pass", ["treasure"]),
            ("decline", ["treasure"]),
            ("commit 0", ["treasure"]),
            ("withdraw trader", ["treasure"]),
        ],
    ),
}


@pytest.mark.parametrize(
    ("phase", "action", "words"),
    [
        (phase, action, words)
        for phase, (_, refused) in REFUSED.items()
        for action, words in refused
    ],
)
def test_illegal_actions_in_each_phase(phase: str, action: str, words: list[str]) -> None:
    s = REFUSED[phase][0]()
    p = pending(s)
    assert (p["kind"] if p is not None else "turn") == phase
    assert_illegal(s, action, *words)


def test_no_action_once_the_game_is_over() -> None:
    s = make_state({}, hands={"archer": []}, over=True, far_treasures=False)
    assert s.legal_actions() == []
    for action in ("pass", "tile red H5", "commit 0"):
        assert_illegal(s, action, "over")


# ----------------------------------------------------------------- notation


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ("tile purple K2", ["purple", "colour"]),
        ("tile red Z9", ["z9", "cell"]),
        ("tile red K12", ["k12", "cell"]),
        ("tile red", ["tile <colour> <cell>"]),
        ("leader queen A1", ["queen", "leader"]),
        ("leader king", ["leader <"]),
        ("withdraw queen", ["queen"]),
        ("commit x", ["'x'", "number"]),
        ("commit -1", ["-1", "number"]),
        ("commit", ["commit <number>"]),
        ("", ["empty"]),
        ("   ", ["empty"]),
        ("swap", ["1 to 6"]),
        ("swap red red red red red red red", ["1 to 6"]),
        ("swap red pink", ["pink", "colour"]),
        ("war purple", ["purple"]),
        ("monument red G4", ["red", "monument"]),
        ("monument red-red G4", ["two different colours"]),
        ("monument red-pink G4", ["pink"]),
        ("treasure", ["treasure <cell>"]),
        ("catastrophe", ["catastrophe <cell>"]),
        ("wonderpoint", ["wonderpoint <colour>"]),
        ("wonderpoint pink", ["pink", "colour"]),
        ("pass now", ["'pass'"]),
        ("decline now", ["'decline'"]),
        ("fly K2", ["unknown action", "fly"]),
    ],
)
def test_malformed_notation(action: str, words: list[str]) -> None:
    assert_illegal(_turn(), action, *words, kind=tigris.MalformedAction)


@pytest.mark.parametrize("action", [None, 2.5, ["pass"], b"pass"])
def test_an_action_that_is_not_a_string(action: Any) -> None:
    s = _turn()
    before = s.to_position()
    with pytest.raises(tigris.MalformedAction, match="string"):
        s.apply(action)
    assert s.to_position() == before


@pytest.mark.parametrize("action", [-1, 3398, 10**9])
def test_an_action_id_out_of_range(action: int) -> None:
    s = _turn()
    before = s.to_position()
    with pytest.raises(tigris.MalformedAction, match=r"outside 0\.\.3397"):
        s.apply(action)
    assert s.to_position() == before


def test_notation_is_case_insensitive_with_single_or_repeated_spaces() -> None:
    s = _turn()
    s.apply("TILE RED h6")
    s.apply("  tile   green   K5 ")
    board = s.to_position()["board"]
    assert board["H6"] == "red" and board["K5"] == "green"


# ----------------------------------------------------------------- positions


def _reject(position: Any, *words: str) -> None:
    with pytest.raises(ValueError) as caught:
        tigris.from_position(position)
    reason = str(caught.value)
    for word in words:
        assert word.lower() in reason.lower(), f"{word!r} not in {reason!r}"


BAD_POSITIONS: list[tuple[str, dict[str, Any], list[str]]] = [
    ("unknown cell", make_position({"Z9": "red"}), ["Z9", "cell"]),
    ("unknown content", make_position({"H5": "purple"}), ["H5", "purple"]),
    (
        "leader on two cells",
        make_position(
            {"H5": "red", "H4": leader("archer", "king"), "H6": leader("archer", "king")}
        ),
        ["king", "two cells"],
    ),
    ("blue tile off the river", make_position({"H5": "blue"}), ["H5", "river"]),
    ("red tile on the river", make_position({"G8": "red"}), ["G8", "river"]),
    (
        "leader on the river",
        make_position({"H8": "red", "G8": leader("archer", "king")}),
        ["G8", "river"],
    ),
    (
        "too many tiles of a colour",
        make_position(
            {}, hands={"archer": ["green"] * 6, "bull": ["green"] * 6}, bag=["green"] * 20
        ),
        ["too many green", "30"],
    ),
    (
        "leader not next to a temple",
        make_position({"H5": "black", "H4": leader("archer", "king")}),
        ["H4", "temple"],
    ),
    (
        "leader of a dynasty not in play",
        make_position({"H5": "red", "H4": leader("lion", "king")}),
        ["H4", "lion"],
    ),
    ("treasure off a temple", make_position({"H5": "black*"}), ["treasure"]),
    ("catastrophes do not add up", make_position({"H5": "catastrophe"}), ["catastrophe"]),
    (
        "two kings in one kingdom without a conflict",
        make_position({"H5": "red", "H4": leader("archer", "king"), "H6": leader("bull", "king")}),
        ["two kings"],
    ),
    (
        "monument without its tiles",
        make_position({}, monuments=[{"colors": ["red", "blue"], "cell": "G4"}]),
        ["G4", "face-down"],
    ),
    ("face-down tile without a monument", make_position({"G4": "down:red"}), ["face-down"]),
    ("hand of seven", make_position({}, hands={"archer": ["red"] * 7}), ["archer", "6"]),
    ("unknown key", make_position({}, colour="red"), ["unknown key", "colour"]),
    ("unknown pending", make_position({}, pending={"kind": "dance"}), ["pending"]),
    ("unknown board side", make_position({}, options={"board": "moon"}), ["moon"]),
]


@pytest.mark.parametrize(
    ("position", "words"),
    [(p, w) for _, p, w in BAD_POSITIONS],
    ids=[name for name, _, _ in BAD_POSITIONS],
)
def test_malformed_positions(position: dict[str, Any], words: list[str]) -> None:
    _reject(position, *words)


BASE = make_position({"H5": "red"})


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"board": []}, ["board"]),
        ({"board": None}, ["board"]),
        ({"board": {"H5": 3}}, ["H5", "3"]),
        ({"players": "archer"}, ["players"]),
        ({"players": ["archer"]}, ["players"]),
        ({"players": ["archer", "archer"]}, ["players"]),
        ({"players": ["archer", "cat"]}, ["players"]),
        ({"active": "0"}, ["active"]),
        ({"active": 2}, ["active"]),
        ({"active": True}, ["active"]),
        ({"actions_left": 3}, ["actions_left"]),
        ({"hands": {"archer": []}}, ["hands"]),
        ({"hands": {"archer": "red", "bull": []}}, ["archer"]),
        ({"hands": {"archer": ["pink"], "bull": []}}, ["pink"]),
        ({"points": {"archer": [1, 2]}}, ["points", "archer"]),
        ({"points": {"archer": {"red": -1}}}, ["points", "archer"]),
        ({"points": {"archer": {"gold": 1}}}, ["gold"]),
        ({"treasures": {"archer": "x"}}, ["treasures", "archer"]),
        ({"catastrophes": {"archer": 3}}, ["catastrophes", "archer"]),
        ({"bag": "red"}, ["bag"]),
        ({"bag": ["purple"]}, ["bag", "purple"]),
        ({"monuments": "red-blue"}, ["monuments"]),
        ({"over": "yes"}, ["over"]),
        ({"ending": 1}, ["ending"]),
    ],
)
def test_positions_with_bad_types(change: dict[str, Any], words: list[str]) -> None:
    _reject(BASE | change, *words)


def test_a_position_must_be_an_object() -> None:
    _reject([], "object")
    _reject("board", "object")


def test_a_cell_given_twice_in_json_is_refused() -> None:
    text = json.dumps(make_position({"H5": "red", "H4": leader("archer", "king")}))
    repeated = text.replace('"H5": "red"', '"H5": "red", "H5": "black"')
    assert repeated != text
    with pytest.raises(ValueError, match="H5"):
        tigris.load_position_json(repeated)
    # the same text without the repeat loads and plays
    state = tigris.from_position(tigris.load_position_json(text))
    assert state.to_position()["board"]["H5"] == "red"


def test_invalid_json_is_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="JSON"):
        tigris.load_position_json('{"players": ')
    with pytest.raises(ValueError, match="object"):
        tigris.load_position_json("[1, 2]")


@pytest.mark.parametrize(
    ("pending_", "words"),
    [
        (
            {
                "kind": "revolt",
                "color": "black",
                "attacker": 0,
                "defender": 1,
                "attacker_commit": None,
            },
            ["revolt", "kings"],
        ),
        (
            {
                "kind": "revolt",
                "color": "red",
                "attacker": 0,
                "defender": 0,
                "attacker_commit": None,
            },
            ["revolt", "priests"],
        ),
        ({"kind": "treasure", "seat": 0, "cells": ["H5"]}, ["treasure", "no treasure"]),
    ],
)
def test_a_pending_decision_that_the_board_cannot_hold_is_refused(
    pending_: dict[str, Any], words: list[str]
) -> None:
    # only archer's king is on the board: there is no revolt to fight, and H5 has no treasure
    position = make_position({"H5": "red", "H4": leader("archer", "king")}, pending=pending_)
    _reject(position, *words)


def test_a_pending_conflict_round_trips() -> None:
    s = _revolt()
    s.apply("commit 1")
    again = tigris.from_position(s.to_position())
    assert again.to_position() == s.to_position()
    assert again.to_move == 1 and again.legal_actions() == s.legal_actions()
    w = _war()
    again = tigris.from_position(w.to_position())
    assert again.to_position() == w.to_position()


def test_a_treasure_decision_listing_a_cell_twice_is_refused() -> None:
    # the legal list would offer F5 twice, and the second choice would be refused
    board = {"F5": "red*", "G5": "red*", "F6": leader("archer", "trader")}
    position = make_position(board, pending={"kind": "treasure", "seat": 0, "cells": ["F5", "F5"]})
    _reject(position, "treasure", "twice")
    fine = make_position(board, pending={"kind": "treasure", "seat": 0, "cells": ["F5", "G5"]})
    assert tigris.from_position(fine).legal_actions() == ["treasure F5", "treasure G5"]


@pytest.mark.parametrize(
    ("colors", "words"),
    [
        (["green", "red"], ["war_order", "no war"]),  # no priest is on the board
        (["green"], ["war_order", "two or more"]),
        (["green", "black", "green"], ["war_order", "two or more different"]),
    ],
)
def test_a_war_order_naming_wars_that_do_not_exist_is_refused(
    colors: list[str], words: list[str]
) -> None:
    position = _war_order().to_position()
    assert position["pending"]["colors"] == ["green", "black"]
    assert tigris.from_position(position).legal_actions() == ["war green", "war black"]
    position["pending"]["colors"] = colors
    _reject(position, *words)
