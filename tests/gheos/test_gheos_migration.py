"""Migration: a replacement splitting an occupied continent (and its other outcomes).

Red's continent runs from the start tile's landmass (0,0, one wheat and one cup) through the
down cell 0,-1 (the tile to replace) to the up cell 0,-2 on its sw edge.
"""

from __future__ import annotations

import pytest

from tests.helpers.gheos import GheosState, area_at, build, supply, unchanged_after

# Each test runs on both engines (tests/gheos/conftest.py).
pytestmark = pytest.mark.usefixtures("engine")


def red_state(board: dict[str, str], hand: str, **kwargs: object) -> GheosState:
    settings: dict[str, object] = {
        "civs": {"red": "0,0:s"},
        "followers": {"north": {"red": 1}, "east": {"red": 2}},
        "hands": {"north": [hand, "t30"], "east": []},
    }
    settings.update(kwargs)
    return build(board, **settings)


def test_migration_goes_to_the_part_with_most_wheat_counting_the_new_tile() -> None:
    # t44 at r2: wheat coast towards 0,-2 (sw), cup coast on n, bare coast towards t0 (se).
    state = red_state({"0,-1": "t2 r0", "0,-2": "t1 r0"}, "t44")
    events = state.apply("replace t44 0,-1 r2")
    kinds = [e["type"] for e in events]
    assert kinds[:4] == ["replace", "conflict", "pay", "migration"]
    # Part 0,-2: t1's wheat + the new tile's wheat = 2 against t0's 1 (a tie without it).
    assert state.to_position()["civilizations"] == {"red": "0,-2:s"}
    assert area_at(state, "0,-2:s")[2]["wheat"] == 2
    assert state.to_position()["followers"] == {"north": {}, "east": {"red": 2}}  # one paid
    assert "t2" in state.to_position()["removed"]


def test_migration_tie_between_continents_is_chosen_by_the_active_player() -> None:
    state = red_state({"0,-1": "t2 r0", "0,-2": "t3 r0"}, "t44")
    state.apply("replace t44 0,-1 r2")  # both parts have one wheat
    assert state.phase == "migrate"
    assert state.legal_actions() == ["migrate red 0,-2:s", "migrate red 0,-1:se"]
    pending = state.to_position()["pending"]
    assert pending["migrations"][0] == {
        "civ": "red",
        "options": ["0,-2:s", "0,-1:se"],
        "split": True,
    }
    assert "not on a part" in unchanged_after(state, "migrate red 0,0:ne")
    assert "is the one migrating" in unchanged_after(state, "migrate blue 0,-2:s")
    state.apply("migrate red 0,-1:se")
    assert state.to_position()["civilizations"] == {"red": "0,-1:se"}
    assert area_at(state, "0,0:s")[1] == ["0,-1:se", "0,0:s"]


def test_a_bare_cell_names_the_part_when_unambiguous() -> None:
    state = red_state({"0,-1": "t2 r0", "0,-2": "t3 r0"}, "t44")
    state.apply("replace t44 0,-1 r2")
    assert "more than one possible area" in unchanged_after(state, "migrate red 0,-1")
    state.apply("migrate red 0,-2")
    assert state.to_position()["civilizations"] == {"red": "0,-2:s"}


def test_on_a_tie_a_continent_must_be_chosen_over_an_island() -> None:
    # t26 on 0,-2: a wheat coast on its ne edge, facing 0,-1. Replacing 0,-1 by three bare
    # coasts leaves that coast on an island with 1 wheat, like t0's side.
    state = red_state({"0,-1": "t2 r0", "0,-2": "t26 r0"}, "t42")
    assert area_at(state, "0,0:s")[2]["wheat"] == 2
    events = state.apply("replace t42 0,-1 r1")
    assert area_at(state, "0,-2:ne")[0] == "island"
    assert [e["type"] for e in events][3] == "migration"
    assert state.to_position()["civilizations"] == {"red": "0,-1:se"}


def test_a_civilization_migrating_to_an_island_perishes() -> None:
    # t41 at r2 puts its wheat coast on the island's side: 2 wheat there against 1.
    state = red_state({"0,-1": "t2 r0", "0,-2": "t26 r0"}, "t41")
    events = state.apply("replace t41 0,-1 r2")
    removed = [e for e in events if e["type"] == "civ_removed"]
    assert len(removed) == 1 and "island" in removed[0]["text"]
    position = state.to_position()
    assert position["civilizations"] == {}
    assert position["followers"] == {"north": {}, "east": {}}
    assert supply(state)[0] == 5


def test_migrating_into_an_occupied_continent_loses_the_war_with_one_payment() -> None:
    # 0,-1 holds t25 at r1: landmass (sword) on se and sw, coast on n facing -1,-1, where
    # blue's continent (t4, two wheat, plus that coast) lies.
    board = {"0,-1": "t25 r1", "0,-2": "t1 r0", "-1,-1": "t4 r0"}
    state = red_state(
        board,
        "t23",
        civs={"red": "0,0:s", "blue": "-1,-1:s"},
        followers={"north": {"red": 1, "blue": 2}, "east": {"red": 2}},
    )
    assert area_at(state, "-1,-1:s")[0] == "continent"
    # t23 at r2: its landmass (wheat) joins 0,-2 and -1,-1, its bare coast faces t0.
    state.apply("replace t23 0,-1 r2")
    assert state.phase == "pay"
    events = state.apply("pay blue")
    kinds = [e["type"] for e in events]
    assert kinds[:4] == ["pay", "migration", "war", "civ_removed"]
    war = next(e for e in events if e["type"] == "war")
    assert war["winner"] == "blue"
    assert "migrated into an occupied continent" in events[3]["text"]
    position = state.to_position()
    assert position["civilizations"] == {"blue": "-1,-1:s"}
    # One follower paid in all (a blue one); the red ones are lost to the war.
    assert position["followers"] == {"north": {"blue": 1}, "east": {}}


def test_replacement_keeping_a_continent_whole_is_no_migration() -> None:
    state = red_state({"0,-1": "t2 r0", "0,-2": "t3 r0"}, "t5", followers={})
    # Without followers, replacing with a plain landmass (no split) is allowed.
    assert "replace t5 0,-1 r0" in state.legal_actions()
    events = state.apply("replace t5 0,-1 r0")
    assert [e["type"] for e in events][:1] == ["replace"]
    assert not any(e["type"] in ("conflict", "migration") for e in events)
    assert state.to_position()["civilizations"] == {"red": "0,-2:s"}


def test_without_a_follower_a_split_cannot_be_made() -> None:
    state = red_state({"0,-1": "t2 r0", "0,-2": "t3 r0"}, "t44", followers={})
    assert not any(a.startswith("replace t44 0,-1") for a in state.legal_actions())
    reason = unchanged_after(state, "replace t44 0,-1 r2")
    assert "starts a migration" in reason and "no follower" in reason


def test_a_continent_left_as_an_island_loses_its_civilization_without_payment() -> None:
    # Red lives on t0's coast + t2 (0,1). Three coasts instead of t2 leave an island.
    state = red_state(
        {"0,1": "t2 r0"}, "t42", civs={"red": "0,0:ne"}, followers={"east": {"red": 1}}
    )
    assert "replace t42 0,1 r0" in state.legal_actions()  # no follower needed: no split
    events = state.apply("replace t42 0,1 r0")
    assert not any(e["type"] in ("conflict", "pay") for e in events)
    assert any(e["type"] == "civ_removed" for e in events)
    assert state.to_position()["civilizations"] == {}
    assert supply(state)[0] == 5


def test_pyramid_tiles_are_never_replaced() -> None:
    state = red_state({"0,-1": "t12 r0"}, "t44")
    assert not any(" 0,-1 " in a and a.startswith("replace") for a in state.legal_actions())
    assert not any(" 0,0 " in a and a.startswith("replace") for a in state.legal_actions())
    assert "pyramid" in unchanged_after(state, "replace t44 0,-1 r0")
    assert "pyramid" in unchanged_after(state, "replace t44 0,0 r0")
