"""The English variant's commitments (only what can win, and the defender exactly what ties),
and what a state is equal to."""

from __future__ import annotations

from cradle import tigris
from cradle.tigris import Action, TigrisState
from cradle.tigris.actions import COMMIT
from tests.helpers.tigris import leader, make_state


def revolt(board: dict[str, str]) -> TigrisState:
    """Archer's king joins bull's kingdom on J5: a revolt, each with two temples in hand."""
    s = make_state(
        {"H5": "red", "I5": "red", "H4": leader("bull", "king"), **board},
        hands={"archer": ["red", "red"], "bull": ["red", "red"]},
        options={"english": True},
    )
    s.apply("leader king J5")
    return s


def test_the_defender_may_commit_exactly_what_it_takes_even_its_whole_hand() -> None:
    s = revolt({"K5": "red"})  # archer's king touches two temples: 2 against 1
    assert s.legal_actions() == ["commit 0", "commit 1", "commit 2"]
    s.apply("commit 1")  # 3 against 1: bull needs both temples
    assert s.legal_actions() == ["commit 0", "commit 2"]


def test_states_are_equal_when_their_positions_are() -> None:
    s = revolt({})
    assert s == s.clone() and s == tigris.from_position(s.to_position())
    other = s.clone()
    other.apply("commit 1")
    assert s != other
    assert s != "a position" and s.__eq__(1) is NotImplemented


def test_actions_in_the_engines_own_form_are_accepted_or_refused() -> None:
    s = revolt({})
    assert (
        s.clone().apply(Action(COMMIT, 1, -1))
        == s.clone().apply((COMMIT, 1, -1))
        == s.apply("commit 1")
    )
    for bad, reason in [
        ((6, 9, -1), "(6, 9, -1) is not an action of the notation"),
        (([6], 1, -1), "([6], 1, -1) is not an action of the notation"),
        (1.5, "an action must be a string, not float"),
    ]:
        try:
            s.apply(bad)  # type: ignore[arg-type]
        except tigris.IllegalAction as refused:
            assert str(refused) == reason
        else:
            raise AssertionError(f"{bad!r} was accepted")
