"""The rest of a turn: starting civilizations, followers, scoring tokens, temples, drawing
with epoch scorings, both ends of the game and the final ranking."""

from __future__ import annotations

import pytest

from cradle.gheos.types import COLOURS
from tests.helpers.gheos import area_at, build, points, supply, unchanged_after

# Each test runs on both engines (tests/gheos/conftest.py).
pytestmark = pytest.mark.usefixtures("engine")

# t0's landmass (wheat, cup) with t4 (two wheat) below it on 1,0, t1 (wheat) and t7 (wheat,
# cup) on either side of t4, and t8 (wheat, sword) on 0,-1: six wheat in one continent.
WHEAT_MAP = {"1,0": "t4 r0", "1,-1": "t1 r0", "1,1": "t7 r0", "0,-1": "t8 r0"}


def test_start_a_civilization_takes_a_follower_per_wheat() -> None:
    state = build({}, hands={"north": ["t2", "t30"], "east": ["t5", "t6"]})
    assert state.phase == "tile"
    events = state.apply("place t2 1,0 r0")  # a continent: t0's landmass and t2
    assert [e["type"] for e in events] == ["place"]
    assert state.phase == "civ"
    assert state.legal_actions() == [f"start {c} 0,0:s" for c in COLOURS]
    state.apply("start yellow 0,0:s")
    position = state.to_position()
    assert position["civilizations"] == {"yellow": "0,0:s"}
    assert position["followers"]["north"] == {"yellow": 1}
    assert state.phase == "token"  # one civilization per turn: the civ step is over


def test_followers_taken_are_limited_by_the_supply() -> None:
    state = build(WHEAT_MAP, phase="civ")
    assert area_at(state, "0,0:s")[2]["wheat"] == 6
    state.apply("start red 1,0")
    assert state.to_position()["followers"]["north"] == {"red": 5}
    assert supply(state)[0] == 0


def test_no_civilization_on_an_island_or_an_occupied_continent() -> None:
    # Red holds t0's landmass + t5 (1,0). t0's coast + t2 (0,1) is a continent without wheat;
    # t42's bare coast (0,-1) and t27's cup coast (0,-2) face each other: an island.
    board = {"0,1": "t2 r0", "1,0": "t5 r0", "0,-1": "t42 r1", "0,-2": "t27 r0"}
    state = build(board, phase="civ", civs={"red": "1,0:n"}, followers={"north": {"red": 1}})
    kinds = {area[0] for area in [area_at(state, "0,1:n"), area_at(state, "0,-2:ne")]}
    assert kinds == {"continent", "island"}
    assert "unoccupied continent" in unchanged_after(state, "start blue 0,-2:ne")
    assert "unoccupied continent" in unchanged_after(state, "start blue 1,0:n")
    assert "already on the table" in unchanged_after(state, "start red 0,1:n")


def test_a_continent_without_wheat_takes_a_civilization_with_no_followers() -> None:
    # The rulebook forbids nothing here: the civilization starts empty-handed and its
    # followers can be taken on later turns.
    board = {"0,1": "t2 r0", "1,0": "t5 r0", "0,-1": "t42 r1", "0,-2": "t27 r0"}
    state = build(board, phase="civ", civs={"red": "1,0:n"}, followers={"north": {"red": 1}})
    assert area_at(state, "0,1:n")[2]["wheat"] == 0
    legal = state.legal_actions()
    assert "take red" in legal
    # t0's coast (0,0:ne) and t2 make the wheat-less continent; it is named by its first region.
    assert [a for a in legal if a.startswith("start blue")] == ["start blue 0,0:ne"]
    events = state.apply("start blue 0,1:n")
    assert events[0]["type"] == "start" and events[0]["followers"] == 0
    position = state.to_position()
    assert position["civilizations"]["blue"] == "0,0:ne"
    assert position["followers"]["north"] == {"red": 1}
    assert supply(state)[3] == 5


def test_take_a_follower_only_of_a_civilization_on_the_table_with_supply_left() -> None:
    state = build(
        {"1,0": "t2 r0", "0,1": "t1 r0"},  # t0's coast and t1 make a free continent
        phase="civ",
        civs={"red": "0,0:s"},
        followers={"north": {"red": 3}, "east": {"red": 2}},
    )
    assert supply(state)[0] == 0
    assert "take red" not in state.legal_actions()
    assert "start blue 0,0:ne" in state.legal_actions()
    assert "left in the supply" in unchanged_after(state, "take red")
    assert "not on the table" in unchanged_after(state, "take blue")


def test_the_civ_step_is_skipped_when_there_is_nothing_to_do() -> None:
    state = build({}, hands={"north": ["t42", "t30"], "east": ["t5", "t6"]})
    events = state.apply("place t42 0,1 r0")  # a coast facing t0's coast: an island
    assert [e["type"] for e in events] == ["place", "skip"]
    assert state.phase == "token"


def test_scoring_token_counts_cups_on_each_followers_continent() -> None:
    # Red: t0's landmass (cup) + t5 (two cups) on 1,0 = 3 cups. Blue: t0's coast + t2 = 1 cup.
    board = {"1,0": "t5 r0", "0,1": "t2 r0"}
    state = build(
        board,
        phase="token",
        civs={"red": "0,0:s", "blue": "0,0:ne"},
        followers={"north": {"red": 2, "blue": 1}, "east": {"red": 1}},
        tokens={"north": 2},
    )
    assert state.legal_actions() == ["token", "pass"]
    events = state.apply("token")
    assert events[0]["points"] == 7
    position = state.to_position()
    assert position["points"] == {"north": 7, "east": 0}  # only the active player scores
    assert position["tokens"] == {"north": 1, "east": 3}
    assert state.to_move == 1 and state.phase == "tile"


def test_the_token_step_is_skipped_without_tokens() -> None:
    state = build(
        {"1,0": "t2 r0"},
        phase="civ",
        civs={"red": "0,0:s"},
        tokens={"north": 0},
        hands={"north": ["t30"], "east": ["t33", "t34"]},
    )
    events = state.apply("take red")
    assert [e["type"] for e in events] == ["take", "draw"]
    assert state.to_move == 1


def test_temple_scores_its_symbols_on_an_occupied_continent() -> None:
    state = build(
        {"1,0": "t5 r0"},
        civs={"red": "0,0:s"},
        hands={"north": ["t16", "t30"], "east": []},
    )
    # t16 (cup, cup temple) next to t5: t0's cup + t5's two + t16's own cup.
    events = state.apply("place t16 1,1 r0")
    temple = [e for e in events if e["type"] == "temple"]
    assert temple and temple[0]["points"] == 4
    assert points(state) == [4, 0]


def test_temple_on_an_unoccupied_continent_scores_nothing() -> None:
    state = build({"1,0": "t5 r0"}, hands={"north": ["t16", "t30"], "east": []})
    events = state.apply("place t16 1,1 r0")
    assert not any(e["type"] == "temple" for e in events)
    assert points(state) == [0, 0]


def test_drawing_epochs_scores_pyramids_and_draws_again() -> None:
    # Red: t0's landmass + t12 (sword, pyramid) on 1,0 + t11 (cup, pyramid) on 1,1.
    state = build(
        {"1,0": "t12 r0", "1,1": "t11 r0"},
        phase="token",
        civs={"red": "0,0:s"},
        followers={"north": {"red": 1}, "east": {"red": 2}},
        hands={"north": ["t30"], "east": ["t33", "t34"]},
        stack_top=("epoch", "epoch", "t20"),
    )
    events = state.apply("pass")
    assert [e["type"] for e in events] == [
        "epoch",
        "epoch_scoring",
        "epoch",
        "epoch_scoring",
        "draw",
    ]
    assert points(state) == [4, 8]  # two pyramids a follower, twice
    assert state.to_position()["epochs"] == 2
    assert state.to_position()["hands"]["north"] == ["t20", "t30"]
    assert state.to_move == 1


@pytest.mark.parametrize(("players", "ending"), [(2, 6), (3, 7), (4, 8)])
def test_the_game_ends_with_the_epoch_tile_for_its_player_count(players: int, ending: int) -> None:
    names = ("north", "east", "south", "west")[:players]
    board = {"1,0": "t12 r0"}
    kwargs: dict[str, object] = {
        "players": names,
        "phase": "token",
        "civs": {"red": "0,0:s"},
        "followers": {"north": {"red": 1}},
        "hands": {"north": ["t30"]},
    }
    early = build(board, epochs=ending - 2, stack_top=("epoch", "t20"), **kwargs)
    early.apply("pass")
    assert not early.is_over and early.to_position()["epochs"] == ending - 1
    last = build(board, epochs=ending - 1, stack_top=("epoch", "t20"), **kwargs)
    events = last.apply("pass")
    kinds = [e["type"] for e in events]
    assert kinds == ["epoch", "epoch_scoring", "end", "final_scoring", "result"]
    assert last.is_over and last.legal_actions() == []
    # One pyramid for the epoch, then a cup (t0's) for the final scoring.
    assert points(last)[0] == 2
    assert "game is over" in unchanged_after(last, "pass")


def test_the_game_ends_when_every_scoring_token_is_played() -> None:
    state = build(
        {"1,0": "t5 r0"},
        phase="token",
        civs={"red": "0,0:s"},
        followers={"north": {"red": 1}, "east": {"red": 2}},
        tokens={"north": 1, "east": 0},
    )
    events = state.apply("token")
    kinds = [e["type"] for e in events]
    assert kinds == ["token", "end", "final_scoring", "result"]
    # The token (3 cups) and then the final scoring for everyone (3 cups a follower).
    assert points(state) == [6, 6]
    assert state.is_over


def test_final_ranking_most_points_then_most_followers_then_shared() -> None:
    state = build(
        {"1,0": "t2 r0"},  # red's continent: 2 cups
        phase="token",
        players=("north", "east", "south", "west"),
        civs={"red": "0,0:s"},
        followers={
            "north": {"red": 1},
            "east": {"red": 2},
            "south": {"red": 1},
            "west": {"red": 1},
        },
        points={"north": 10, "east": 8, "south": 10, "west": 10},
        tokens={"north": 1, "east": 0, "south": 0, "west": 0},
    )
    state.apply("token")  # north 10 + 2 (token) + 2 (final) = 14
    result = {row["player"]: row for row in state.result()}
    assert {name: row["points"] for name, row in result.items()} == {
        "north": 14,
        "east": 12,
        "south": 12,
        "west": 12,
    }
    assert result["north"]["place"] == 1
    assert result["east"]["place"] == 2  # 12 points, 2 followers
    # 12 points and one follower each: a draw between them, sharing third place.
    assert result["south"]["place"] == result["west"]["place"] == 3
