"""Every step of Gheos's guided first game, played from its position on the engine: what the
step's text claims is what the engine does (cradle/gheos/lessons.py)."""

from __future__ import annotations

from typing import Any

import pytest

from cradle import gheos
from cradle.core.lessons import matches
from cradle.gheos.lessons import LESSONS, lesson_start
from tests.helpers.gheos import area_at
from tests.helpers.lessons import every_lesson_starts_once, refuses_the_wrong_moves

# Each test runs on both engines (tests/gheos/conftest.py).
pytestmark = pytest.mark.usefixtures("engine")


def played(name: str) -> Any:
    """The lesson's state after its tries (the first legal move matching each)."""
    lesson = next(lesson for lesson in LESSONS if lesson.name == name)
    state = lesson_start(name)
    for pattern in lesson.tries:
        assert state.to_move == 0, f"{name}: the learner is not to move before {pattern!r}"
        found = [a for a in state.legal_actions() if matches(pattern, a)]
        assert found, f"{name}: {pattern!r} is not legal here"
        state.apply(found[0])
    return state


def test_every_lesson_is_named_once_and_starts_with_the_learner_to_move() -> None:
    every_lesson_starts_once(LESSONS, lesson_start, "tiles")  # a Tigris lesson's name


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.name)
def test_the_moves_a_lesson_shows_as_wrong_are_refused(lesson: Any) -> None:
    refuses_the_wrong_moves(lesson, lesson_start(lesson.name))


def test_continent_two_landmasses_make_one_and_a_civilization_takes_its_wheat() -> None:
    start = lesson_start("continent")
    assert area_at(start, "0,0:s")[0] != "continent"  # one tile alone is no continent
    state = played("continent")
    kind, _, totals = area_at(state, "0,0:s")
    assert kind == "continent" and totals["wheat"] == 2
    position = state.to_position()
    (colour,) = position["civilizations"]
    assert position["followers"]["north"] == {colour: 2}
    # One civilization a turn, on a continent nobody holds.
    again = lesson_start("continent")
    again.apply("place t1 0,-1 r0")
    again.apply(next(a for a in again.legal_actions() if a.startswith("start ")))
    assert not any(a.startswith("start ") for a in again.legal_actions())


def test_followers_a_token_pays_cups_per_follower_to_the_player_alone() -> None:
    state = played("followers")
    position = state.to_position()
    assert position["followers"]["north"] == {"red": 2}
    assert area_at(state, "0,0:s")[2]["cup"] == 2
    assert position["points"] == {"north": 4, "east": 0}
    assert position["tokens"]["north"] == 2
    # Three tokens each; the game ends once every player has played all of theirs.
    assert lesson_start("followers").to_position()["tokens"] == {"north": 3, "east": 3}
    spent = dict(lesson_start("followers").to_position(), tokens={"north": 1, "east": 0})
    last = gheos.from_position(spent)
    for pattern in ("place t42 0,1 *", "take red", "token"):
        last.apply(next(a for a in last.legal_actions() if matches(pattern, a)))
    assert last.is_over
    one_left = gheos.from_position(dict(spent, tokens={"north": 1, "east": 1}))
    for pattern in ("place t42 0,1 *", "take red", "token"):
        one_left.apply(next(a for a in one_left.legal_actions() if matches(pattern, a)))
    assert not one_left.is_over  # east still holds one


def test_replace_the_old_tile_leaves_the_game() -> None:
    state = played("replace")
    position = state.to_position()
    assert position["board"]["0,-1"].split()[0] == "t5"
    assert "t2" in position["removed"]


def test_war_most_swords_on_the_former_continent_wins_and_the_loser_leaves() -> None:
    state = played("war")
    position = state.to_position()
    assert list(position["civilizations"]) == ["blue"]
    assert "red" not in position["followers"]["north"]
    assert "red" not in position["followers"]["east"]
    assert set(position["followers"]["north"]) <= {"blue"}
    assert position["points"]["north"] == 2  # the cup temple: two cups on the continent


def test_migration_goes_to_the_part_with_more_wheat_and_costs_a_follower() -> None:
    state = played("migration")
    position = state.to_position()
    assert position["civilizations"] == {"red": "0,-2:s"}
    assert "t2" in position["removed"]
    assert position["followers"]["north"] == {}


def test_epoch_pays_every_player_the_pyramids_for_each_follower() -> None:
    assert area_at(lesson_start("epoch"), "0,0:s")[2]["pyramid"] == 1
    state = played("epoch")
    position = state.to_position()
    assert position["epochs"] == 1
    assert position["points"] == {"north": 2, "east": 1}
    assert state.view(None)["end_epoch"] == 6  # two players: the sixth epoch ends the game
