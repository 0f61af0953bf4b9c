"""War: merging occupied continents, by placement or replacement, with its payment.

The maps (tile numbers from the packaged tiles.txt; ``0,0`` holds the start tile t0 at r0,
whose landmass touches its s and nw edges and whose coast, with the pyramid, its ne edge):

- red's continent A: t0's landmass, t3 (sword) on 0,-1 and t1 (wheat) on -1,-1;
- blue's continent B: t0's coast, t2 (cup) on 0,1 and t6 (two swords) on -1,1;
- the empty down cell -1,0 touches A across its sw edge and B across its se edge.
"""

from __future__ import annotations

from typing import Any

import pytest

from cradle import gheos
from tests.helpers.gheos import area_at, build, supply, unchanged_after, war_state

# Each test runs on both engines (tests/gheos/conftest.py).
pytestmark = pytest.mark.usefixtures("engine")


def test_the_war_map_has_two_occupied_continents() -> None:
    state = war_state()
    red = area_at(state, "0,0:s")
    blue = area_at(state, "0,0:ne")
    assert red[0] == blue[0] == "continent"
    assert red[2] == {"wheat": 2, "cup": 1, "sword": 1, "pyramid": 0}
    assert blue[2] == {"wheat": 0, "cup": 1, "sword": 2, "pyramid": 1}


def test_war_by_placement_pay_then_most_swords_wins_and_temple_scores() -> None:
    state = war_state()
    # t19: a landmass with two swords and a cup temple, joining A and B.
    events = state.apply("place t19 -1,0 r0")
    assert state.phase == "pay"
    assert [e["type"] for e in events] == ["place", "conflict"]
    assert state.legal_actions() == ["pay red", "pay blue"]
    events = state.apply("pay red")
    kinds = [e["type"] for e in events]
    assert kinds[:4] == ["pay", "war", "civ_removed", "temple"]
    war = next(e for e in events if e["type"] == "war")
    assert war["winner"] == "blue"  # 2 swords against 1; t19's own swords do not count
    position = state.to_position()
    assert position["civilizations"] == {"blue": "-1,-1:s"}
    # Every red follower went back, the one paid included; the blue ones stay.
    assert position["followers"] == {"north": {"blue": 1}, "east": {"blue": 2}}
    assert supply(state)[0] == 5
    # The cup temple on the merged continent: t0's cup and t2's cup.
    assert position["points"] == {"north": 2, "east": 0}
    assert state.phase == "civ"


def test_paying_with_the_only_colour_held_is_automatic() -> None:
    state = war_state(followers={"north": {"blue": 1}, "east": {"red": 1}})
    events = state.apply("place t19 -1,0 r0")
    assert [e["type"] for e in events][:4] == ["place", "conflict", "pay", "war"]
    assert state.to_position()["followers"] == {"north": {}, "east": {}}  # paid; red lost
    assert state.phase == "civ"


def test_tied_war_is_decided_by_the_active_player() -> None:
    # t9 (cup, sword) instead of t6: B has one sword like A.
    state = war_state(extra={"-1,1": "t9 r0"}, followers={"north": {"red": 1}})
    state.apply("place t19 -1,0 r0")
    assert state.phase == "war"
    assert state.to_position()["pending"]["wars"] == [
        {"civs": ["red", "blue"], "options": ["red", "blue"]}
    ]
    assert state.legal_actions() == ["winner red", "winner blue"]
    reason = unchanged_after(state, "winner green")
    assert "not one of the tied leaders" in reason
    events = state.apply("winner red")
    assert any(e["type"] == "war" and e["winner"] == "red" for e in events)
    assert set(state.to_position()["civilizations"]) == {"red"}


def test_without_a_follower_a_war_cannot_be_started() -> None:
    state = war_state(followers={"east": {"red": 1}})
    legal = state.legal_actions()
    # A landmass on -1,0 touching both continents is left out, with every rotation.
    assert not any(a.startswith("place t19 -1,0") for a in legal)
    reason = unchanged_after(state, "place t19 -1,0 r0")
    assert "starts a war" in reason and "no follower" in reason
    # t30's coast keeps the continents apart when it faces one of them: allowed.
    assert "place t30 -1,0 r0" in legal
    assert "place t30 -1,0 r1" not in legal  # its landmass on se and sw would join them
    state.apply("place t30 -1,0 r0")  # coast on sw (towards A), landmass on n and se
    assert state.phase in ("civ", "token")


def test_three_civilizations_at_war_only_one_survives() -> None:
    # Green's continent C hangs off t29's coast on -1,-1 and reaches -2,0 above -1,0.
    board = {
        "0,-1": "t3 r0",
        "-1,-1": "t29 r2",  # landmass (wheat) on s and ne, coast (cup) on nw
        "-1,-2": "t5 r0",
        "-2,-2": "t4 r0",
        "-2,-1": "t8 r0",
        "-2,0": "t12 r0",
        "0,1": "t2 r0",
        "-1,1": "t6 r0",
    }
    civs = {"red": "0,0:s", "blue": "0,0:ne", "green": "-2,0:s"}
    state = build(
        board,
        civs=civs,
        followers={"north": {"green": 1}, "east": {"red": 2, "blue": 1}},
        hands={"north": ["t19", "t30"], "east": ["t33", "t34"]},
    )
    assert area_at(state, "-2,0:s")[2]["sword"] == 2  # t8 and t12
    state.apply("place t19 -1,0 r0")
    # Blue and green both have 2 swords, red 1: the active player picks blue or green.
    assert state.phase == "war"
    assert state.legal_actions() == ["winner green", "winner blue"]
    events = state.apply("winner green")
    removed = [e["civ"] for e in events if e["type"] == "civ_removed"]
    assert removed == ["red", "blue"]
    position = state.to_position()
    assert set(position["civilizations"]) == {"green"}
    assert position["followers"] == {"north": {}, "east": {}}  # paid, and red, blue lost
    assert supply(state) == [5, 5, 5, 5, 5, 5]


def test_war_by_replacement_ignores_the_replaced_tiles_swords() -> None:
    # -1,0 holds t43 turned so that its sword coast belongs to A and a bare coast to B:
    # A has 2 swords with it, B 2. Without it, A has 1: blue wins outright.
    state = war_state(extra={"-1,0": "t43 r2"}, hands={"north": ["t7", "t30"], "east": []})
    assert area_at(state, "0,0:s")[2]["sword"] == 2
    state.apply("replace t7 -1,0 r0")
    assert state.phase == "pay"
    events = state.apply("pay blue")
    assert [e["winner"] for e in events if e["type"] == "war"] == ["blue"]
    assert "t43" in state.to_position()["removed"]


@pytest.mark.parametrize("tile", ["t19", "t30"])
def test_placing_next_to_one_continent_is_no_war(tile: str) -> None:
    state = war_state()
    state.apply(f"place {tile} 1,0 r0")  # below the start tile: only A is there
    assert state.phase == "civ"


@pytest.mark.parametrize(
    ("wars", "reason"),
    [
        ([{"civs": ["red", "blue", "red"], "options": ["red", "blue"]}], "twice"),
        ([{"civs": ["red", "blue"], "options": ["red", "blue", "red"]}], "twice"),
        (
            [
                {"civs": ["red", "blue"], "options": ["red", "blue"]},
                {"civs": ["blue", "red"], "options": ["blue"]},
            ],
            "two pending wars",
        ),
    ],
)
def test_a_pending_war_listing_a_civilization_twice_is_refused(
    wars: list[dict[str, Any]], reason: str
) -> None:
    # resolving such a war removed a civilization twice (a KeyError)
    state = war_state(extra={"-1,1": "t9 r0"}, followers={"north": {"red": 1}})
    state.apply("place t19 -1,0 r0")
    data = state.to_position()
    assert gheos.from_position(data).legal_actions() == ["winner red", "winner blue"]
    data["pending"]["wars"] = wars
    with pytest.raises(ValueError, match=reason):
        gheos.from_position(data)
