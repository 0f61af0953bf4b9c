"""The checks of with_hidden (cradle.core.hidden), with two kinds of tile a and b."""

from __future__ import annotations

import pytest

from cradle.core.hidden import read_hidden

NAMES = {"a": 0, "b": 1, "x": 9}


def read(hands: list[list[str]], pile: list[str], check: bool = False) -> object:
    def no_x(seat: int, hand: list[int]) -> None:
        if 9 in hand:
            raise ValueError(f"x in seat {seat}'s hand")

    # now: seat 0 holds 2 tiles, seat 1 holds 1; hidden are a, a, b, b, x
    return read_hidden(
        hands,
        pile,
        [2, 1],
        [0, 0, 1, 1, 9],
        NAMES,
        unknown="not a tile",
        pile_word="bag",
        check_hand=no_x if check else None,
    )


def test_a_rearrangement_of_the_hidden_tiles_is_read() -> None:
    hands, pile = read([["b", "a"], ["x"]], ["a", "b"])  # type: ignore[misc]
    assert hands == [[1, 0], [9]]
    assert pile == [1, 0]  # last drawn first, as the engines keep it


@pytest.mark.parametrize(
    ("hands", "pile", "message"),
    [
        ([["a", "a"]], ["b", "b", "x"], "expected 2 hands, got 1"),
        ([["a", "c"], ["b"]], ["a", "b", "x"], "not a tile: 'c'"),
        ([["a", "a"], ["b"]], ["b", "x", "q"], "not a tile: 'q'"),
        ([["a"], ["a", "b"]], ["b", "x"], "seat 0 holds 2 tiles, not 1"),
        ([["a", "a"], ["b"]], ["b", "b"], "the hands and the bag must hold exactly the hidden"),
    ],
)
def test_anything_but_the_hidden_tiles_is_refused(
    hands: list[list[str]], pile: list[str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        read(hands, pile)


def test_a_game_may_refuse_a_hand_before_its_size() -> None:
    with pytest.raises(ValueError, match="x in seat 1's hand"):
        read([["a", "a"], ["x"]], ["a", "b", "b"], check=True)
    with pytest.raises(ValueError, match="seat 0 holds 2 tiles"):
        read([["a"], ["x"]], ["a", "b", "b", "a"], check=True)
