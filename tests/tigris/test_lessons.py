"""Every step of the guided first game, played from its position on the engine: what the
step's text claims is what the engine does (cradle/tigris/lessons.py)."""

from __future__ import annotations

from typing import Any

import pytest

from cradle.core.lessons import matches
from cradle.tigris.lessons import LESSONS, lesson_start
from tests.helpers.lessons import every_lesson_starts_once, refuses_the_wrong_moves


def played(name: str) -> tuple[Any, list[str]]:
    """The lesson's state after its tries (the first legal move matching each), the bull's
    forced replies in between; and every event's text."""
    lesson = next(lesson for lesson in LESSONS if lesson.name == name)
    state = lesson_start(name)
    texts: list[str] = []
    for pattern in lesson.tries:
        assert state.to_move == 0, f"{name}: the learner is not to move before {pattern!r}"
        found = [a for a in state.legal_actions() if matches(pattern, a)]
        assert found, f"{name}: {pattern!r} is not legal here"
        texts += [e["text"] for e in state.apply(found[0])]
        while not state.is_over and state.to_move == 1 and _commitment(state):
            (reply,) = state.legal_actions()  # the bull holds no tile: commit 0
            texts += [e["text"] for e in state.apply(reply)]
    return state, texts


def _commitment(state: Any) -> bool:
    return all(action.startswith("commit") for action in state.legal_actions())


def points(state: Any, dynasty: str) -> dict[str, int]:
    found: dict[str, int] = state.to_position()["points"][dynasty]
    return found


def test_every_lesson_is_named_once_and_starts_with_the_learner_to_move() -> None:
    every_lesson_starts_once(LESSONS, lesson_start, "../etc")


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.name)
def test_the_moves_a_lesson_shows_as_wrong_are_refused(lesson: Any) -> None:
    refuses_the_wrong_moves(lesson, lesson_start(lesson.name))


def test_tiles_a_market_scores_green_for_the_king() -> None:
    state, _ = played("tiles")
    assert points(state, "archer")["green"] == 1
    assert state.to_position()["board"]["H5"] == "green"


def test_leaders_a_priest_by_a_temple_then_a_temple_scores_red() -> None:
    state, _ = played("leaders")
    assert state.to_position()["board"]["F6"] == "leader:archer:priest"
    assert points(state, "archer") == {"red": 1, "blue": 0, "green": 0, "black": 0}


def test_revolt_two_temples_beat_one_the_winner_scores_red_the_loser_goes_home() -> None:
    state, _ = played("revolt")
    board = state.to_position()["board"]
    assert board["G6"] == "leader:archer:priest"
    assert "H6" not in board
    assert "priest" in state.view(None)["supply"]["bull"]
    assert points(state, "archer")["red"] == 1


def test_war_the_loser_trader_and_his_markets_go_the_winner_scores_each() -> None:
    state, _ = played("war")
    board = state.to_position()["board"]
    assert "J6" not in board and "I6" not in board
    assert "trader" in state.view(None)["supply"]["bull"]
    assert points(state, "archer") == {"red": 0, "blue": 0, "green": 2, "black": 0}
    assert board["H6"] == "black"  # the joining tile stays and scored nothing


def test_monument_flips_the_square_and_pays_the_king_black_at_the_end_of_the_turn() -> None:
    state, _ = played("monument")
    position = state.to_position()
    assert position["monuments"] == [{"colors": ["red", "black"], "cell": "F5"}]
    for cell in ("F5", "G5", "F6", "G6"):
        assert position["board"][cell] == "down:red"
    assert points(state, "archer") == {"red": 1, "blue": 0, "green": 0, "black": 1}
    assert state.to_move == 1  # the turn ended


def test_catastrophe_ruins_the_temple_and_sends_the_king_home() -> None:
    state, _ = played("catastrophe")
    position = state.to_position()
    assert position["board"]["J5"] == "catastrophe"
    assert "J6" not in position["board"]
    assert "king" in state.view(None)["supply"]["bull"]
    assert position["catastrophes"]["archer"] == 1


def test_swap_discards_and_draws_as_many() -> None:
    before = lesson_start("swap").to_position()
    state, _ = played("swap")
    after = state.to_position()
    assert len(after["hands"]["archer"]) == 6
    assert len(after["bag"]) == len(before["bag"]) - len(after["discards"]["archer"])
    assert after["discards"]["archer"]


def test_scoring_the_game_ends_and_the_weakest_colour_decides() -> None:
    start = lesson_start("scoring")
    bull_total = sum(points(start, "bull").values())
    archer_total = sum(points(start, "archer").values())
    assert bull_total > archer_total
    state, _ = played("scoring")
    assert state.is_over
    result = {r["dynasty"]: r for r in state.result()}
    assert result["archer"]["place"] == 1 and result["bull"]["place"] == 2
    assert result["archer"]["score"] == 3 and result["bull"]["score"] == 2


def test_tiles_points_are_kept_behind_the_screen() -> None:
    state, _ = played("tiles")
    assert state.view(None)["points"] == {}  # spectators see nobody's points
    assert "archer" not in state.view(1)["points"]  # nor does the bull see the archer's


def test_revolt_committed_tiles_leave_the_game_and_a_tie_goes_to_the_defender() -> None:
    from cradle import tigris

    lesson = next(lesson for lesson in LESSONS if lesson.name == "revolt")
    state = lesson_start("revolt")
    removed = state.to_position()["removed"]["red"]
    state.apply("leader priest G6")
    state.apply("commit 1")
    state.apply("commit 0")
    position = state.to_position()
    assert position["removed"]["red"] == removed + 1  # the committed temple is out of the game
    assert position["hands"]["archer"].count("red") == 1
    # Without F6's temple the archer's priest touches one temple, as the bull's does: a tie.
    board = {k: v for k, v in lesson.position["board"].items() if k != "F6"}
    tie = tigris.from_position(dict(lesson.position, board=board), seed=1)
    tie.apply("leader priest G6")
    tie.apply("commit 0")
    tie.apply("commit 0")
    after = tie.to_position()["board"]
    assert after["H6"] == "leader:bull:priest" and "G6" not in after
