"""The analysis API of Tigris (docs/contract.md, "Analysis"), checked against the position
and the views, which describe the same things in the contract's JSON."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cradle import gheos, tigris
from cradle.tigris import Revolt, TigrisState
from cradle.tigris.analysis import CATASTROPHE, DOWN, LEADER, TILE, WONDER
from tests.helpers.engines import random_states
from tests.helpers.tigris import leader, make_position, make_state


def states(seed: int, players: int, options: tigris.Options, every: int) -> Iterator[TigrisState]:
    """Every ``every``-th state of a random game, and its last one."""
    return random_states(tigris.new_game(players, seed, options), seed, every)


GAMES = [
    (3, 2, tigris.Options()),
    (5, 4, tigris.Options(board="advanced", wonder=True, buildings=True)),
]


def test_geometry_of_both_sides() -> None:
    standard, advanced = tigris.geometry("standard"), tigris.geometry()
    assert standard == advanced  # the standard side is the default
    advanced = tigris.geometry("advanced")
    for side in (standard, advanced):
        assert (side.columns, side.rows, len(side.cells)) == (16, 11, 176)
        assert side.cells[0] == "A1" and side.cells[15] == "P1" and side.cells[16] == "A2"
        assert side.cell("k1") == 10
        for cell, around in enumerate(side.neighbours):
            assert list(around) == sorted(around)
            assert 2 <= len(around) <= 4
            for other in around:
                assert cell in side.neighbours[other]
                row, column = divmod(cell, 16)
                assert abs(other // 16 - row) + abs(other % 16 - column) == 1
        assert set(side.special) <= set(side.temples)
        assert not set(side.temples) & set(side.river)
    assert (len(standard.temples), len(advanced.temples)) == (10, 14)
    assert len(advanced.special) == 6
    assert tigris.board_map("advanced")["river"] == [advanced.cells[c] for c in advanced.river]
    with pytest.raises(ValueError, match="moon"):
        tigris.geometry("moon")


def _content_text(content: tigris.Content, players: tuple[str, ...]) -> str:
    star = "*" if content.treasure else ""
    if content.kind == TILE:
        return tigris.COLOURS[content.colour] + star
    if content.kind == DOWN:
        return f"down:{tigris.COLOURS[content.colour]}{star}"
    if content.kind == LEADER:
        return f"leader:{players[content.seat]}:{tigris.ROLES[content.colour]}"
    assert content.kind in (CATASTROPHE, WONDER)
    return content.kind + star


@pytest.mark.parametrize(("seed", "players", "options"), GAMES)
def test_contents_regions_and_dynasties_agree_with_the_position(
    seed: int, players: int, options: tigris.Options
) -> None:
    for state in states(seed, players, options, every=9):
        position = state.to_position()
        names = state.players
        geometry = state.geometry()
        assert geometry is tigris.geometry(options.board)
        contents = state.contents()
        shown = {
            geometry.cells[cell]: _content_text(content, names)
            for cell, content in enumerate(contents)
            if content is not None
        }
        assert shown == position["board"]

        regions = state.regions()
        region_map = state.region_map()
        assert [r.cells[0] for r in regions] == sorted(r.cells[0] for r in regions)
        seen: set[int] = set()
        for index, region in enumerate(regions):
            assert not seen & set(region.cells)
            seen |= set(region.cells)
            assert all(region_map[cell] == index for cell in region.cells)
            kinds = [contents[cell] for cell in region.cells]
            assert all(c is not None and c.kind != CATASTROPHE for c in kinds)
            for colour in range(4):
                supporters = sum(1 for c in kinds if c and c.kind == TILE and c.colour == colour)
                assert region.supporters[colour] == supporters
            assert region.treasures == tuple(c for c in region.cells if contents[c].treasure)  # type: ignore[union-attr]
            assert region.is_kingdom == bool(region.leaders)
            for lead in region.leaders:
                assert contents[lead.cell] == tigris.Content(LEADER, lead.colour, lead.seat)
            for monument in region.monuments:
                assert monument.cell in region.cells
        # every cell that connects is in exactly one region, and nothing else is
        connecting = {
            c for c, content in enumerate(contents) if content and content.kind != CATASTROPHE
        }
        assert seen == connecting
        assert all(region_map[c] == -1 for c in range(176) if c not in seen)
        built = sorted(
            (tigris.COLOURS[a], tigris.COLOURS[b], geometry.cells[m.cell])
            for r in regions
            for m in r.monuments
            for a, b in [m.colours]
        )
        assert built == sorted((*m["colors"], m["cell"]) for m in position["monuments"])

        view = state.view(None)
        for seat, name in enumerate(names):
            dynasty = state.dynasty(seat)
            assert dynasty.name == name
            assert [tigris.COLOURS[c] for c in range(4) for _ in range(dynasty.hand[c])] == sorted(
                position["hands"][name], key=tigris.COLOURS.index
            )
            assert (
                dict(zip(tigris.COLOURS, dynasty.points, strict=True)) == position["points"][name]
            )
            assert dynasty.treasures == position["treasures"][name]
            assert dynasty.catastrophes == position["catastrophes"][name]
            assert sorted(tigris.ROLES[c] for c in dynasty.supply) == sorted(view["supply"][name])
        assert state.bag_size() == len(position["bag"])
        decision, pending = state.decision(), view["pending"]
        assert (decision is None) == (pending is None)
        if decision is not None:
            assert decision.kind == pending["kind"]
            strengths = state.conflict_strengths()
            if pending["kind"] in ("revolt", "war"):
                assert strengths == (pending["attacker_strength"], pending["defender_strength"])
            else:
                assert strengths is None


def test_decision_and_strengths_follow_a_revolt() -> None:
    state = make_state(
        {"H5": "red", "G5": "red", "H6": leader("bull", "king"), "I6": "red"},
        hands={"archer": ["red", "red"], "bull": ["red"]},
    )
    assert state.decision() is None and state.conflict_strengths() is None
    state.apply("leader king G4")
    decision = state.decision()
    assert decision == Revolt(color=3, attacker=0, defender=1)
    pending = state.view(None)["pending"]
    assert state.conflict_strengths() == (
        pending["attacker_strength"],
        pending["defender_strength"],
    )
    state.apply("commit 2")
    assert state.decision() == Revolt(3, 0, 1, attacker_commit=2)
    with pytest.raises(AttributeError):
        decision.attacker = 1  # type: ignore[misc]  # decisions are frozen


def test_as_tigris_refuses_another_game() -> None:
    assert tigris.as_tigris(tigris.new_game(2, 1)).game == "tigris"
    with pytest.raises(TypeError, match="Tigris"):
        tigris.as_tigris(gheos.new_game(2, 1))


def test_a_pending_decision_with_another_kinds_fields_is_refused() -> None:
    position = make_position(
        {"H5": "red", "G5": "red*", "H6": "red*", "H4": leader("archer", "trader")},
        pending={"kind": "treasure", "seat": 0, "cells": ["G5", "H6"], "color": "red"},
    )
    with pytest.raises(ValueError, match="color"):
        tigris.from_position(position)
    del position["pending"]["color"]
    assert tigris.from_position(position).decision() == tigris.TreasureChoice(0, (70, 87))


def test_actions_are_a_named_type_that_apply_takes() -> None:
    action = tigris.parse_action("swap red blue")
    assert isinstance(action, tigris.Action)
    assert (action.kind, action.cell) == (4, -1)
    assert tigris.all_action_strings()[action_id(action)] == "swap red blue"
    state = tigris.new_game(2, 1)
    hand = state.hand(state.to_move)
    wanted = tigris.parse_action("swap " + hand[0])
    after = state.clone()
    after.apply(wanted)
    again = state.clone()
    again.apply("swap " + hand[0])
    assert after.to_position() == again.to_position()
    with pytest.raises(tigris.IllegalAction, match="not an action"):
        state.apply((4, (1, 0, 0, 0), -1))  # type: ignore[arg-type]  # an old-style swap


def action_id(action: tigris.Action) -> int:
    from cradle.tigris.actions import ACTION_IDS

    return ACTION_IDS[action]
