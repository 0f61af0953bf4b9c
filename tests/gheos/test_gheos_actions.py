"""Fixed action ids: legal_action_ids, apply(id), action_string and hand (docs/gheos.md)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from cradle import gheos
from cradle.gheos import actions as ids
from cradle.gheos.geometry import START_CELL, parse_cell
from tests.helpers.gheos import GheosState, build

# Each test runs on both engines (tests/gheos/conftest.py).
pytestmark = pytest.mark.usefixtures("engine")


def random_states(seed: int, players: int) -> list[GheosState]:
    rng = random.Random(seed)
    state = gheos.new_game(players, seed)
    out = []
    while not state.is_over:
        out.append(state.clone())
        state.apply(rng.choice(state.legal_actions()))
    out.append(state)
    return out


def test_the_id_layout() -> None:
    templates = ids.all_action_templates()
    assert len(templates) == len(set(templates)) == ids.ACTION_COUNT == 191012
    assert ids.CELLS == 3979  # cells within 51 steps of 0,0
    assert templates[0] == "place #0 -25,-26 r0"
    assert templates[ids.REPLACE] == "replace #0 -25,-26 r0"
    assert templates[ids.START] == "start red -25,-26:n"
    assert templates[ids.MIGRATE - 1] == "start white 26,25:sw"
    assert templates[ids.PAY] == "pay red"
    assert templates[ids.WINNER + 5] == "winner white"
    assert templates[-2:] == ["token", "pass"]
    # The rows are listed north to south, each west to east.
    position = ids.ACTION_CELLS.index(START_CELL)
    assert templates[3 * position] == "place #0 0,0 r0"


@pytest.mark.parametrize(("seed", "players"), [(1, 2), (2, 3), (3, 4)])
def test_ids_follow_the_legal_actions_one_to_one(seed: int, players: int) -> None:
    checked = 0
    for state in random_states(seed, players):
        legal = state.legal_actions()
        legal_ids = state.legal_action_ids()
        assert len(legal_ids) == len(set(legal_ids)) == len(legal)
        assert [state.action_string(i) for i in legal_ids] == legal
        checked += len(legal)
    assert checked > 200


def test_applying_an_id_is_applying_its_action() -> None:
    # Ids listed by legal_action_ids() take a direct path; others are spelled and checked
    # (a state read from a position has no list yet). Both must match the notation.
    verbs: set[str] = set()
    for seed, players in [(4, 3), (5, 2), (6, 4), (7, 2), (8, 3), (9, 4)]:
        rng = random.Random(seed)
        by_text = gheos.new_game(players, seed)
        by_id = by_text.clone()
        while not by_text.is_over:
            legal = by_text.legal_actions()
            k = rng.randrange(len(legal))
            verbs.add(legal[k].split()[0])
            if rng.random() < 0.3:
                by_id = gheos.from_position(by_id.to_position())
                action_id = ids_of(legal[k], by_id)
            else:
                action_id = by_id.legal_action_ids()[k]
            events = by_id.apply(action_id)
            assert events == by_text.apply(legal[k])
            assert by_id.to_position() == by_text.to_position()
    assert {"place", "replace", "start", "take", "token", "pass", "pay"} <= verbs


def ids_of(action: str, state: GheosState) -> int:
    """The id of the legal ``action`` in ``state``, without caching its legal ids."""
    fresh = gheos.from_position(state.to_position())
    return fresh.legal_action_ids()[fresh.legal_actions().index(action)]


def _neighbour_ids(state: GheosState, action_id: int) -> list[int]:
    """Ids one step from a legal one: other rotations, slots, edges and colours."""
    if action_id < ids.START:
        replacing, _, cell, _ = ids.split_tile_id(action_id)
        base = ids.REPLACE if replacing else ids.PLACE
        position = ids.CELL_POSITION[cell]
        return [base + (s * ids.CELLS + position) * 3 + r for s in range(2) for r in range(3)]
    if action_id < ids.PAY:
        migrating, _, cell, _ = ids.split_region_id(action_id)
        base = ids.MIGRATE if migrating else ids.START
        position = ids.CELL_POSITION[cell]
        board = {parse_cell(name) for name in state.to_position()["board"]}
        near = [c for c in ids.ACTION_CELLS if c in board][:6]
        return [
            base + (colour * ids.CELLS + ids.CELL_POSITION[c]) * 3 + e
            for colour in range(6)
            for c in {cell, *near}
            for e in range(3)
        ] + [base + position * 3]
    return list(range(ids.PAY, ids.ACTION_COUNT))


@pytest.mark.parametrize(("seed", "players"), [(5, 2), (6, 4)])
def test_ids_outside_the_legal_list_are_refused_and_change_nothing(seed: int, players: int) -> None:
    refused = applied = 0
    for state in random_states(seed, players)[::2]:
        legal = set(state.legal_action_ids())
        candidates = {n for i in legal for n in _neighbour_ids(state, i)}
        for action_id in sorted(candidates):
            trial = state.clone()
            before = trial.to_position()
            if action_id in legal:
                trial.apply(action_id)
                applied += 1
                continue
            with pytest.raises(gheos.IllegalAction):
                trial.apply(action_id)
            assert trial.to_position() == before
            refused += 1
    assert refused > 100 and applied > 50


@pytest.mark.parametrize("bad", [-1, ids.ACTION_COUNT, 10**9])
def test_ids_out_of_range_are_refused(bad: int) -> None:
    state = gheos.new_game(2, 1)
    with pytest.raises(gheos.IllegalAction, match="outside"):
        state.apply(bad)
    with pytest.raises(gheos.IllegalAction, match="outside"):
        state.action_string(bad)


def test_an_empty_hand_slot_is_named_in_the_error() -> None:
    state = build({}, hands={"north": ["t2"], "east": ["t5", "t6"]})
    with pytest.raises(gheos.IllegalAction, match="slot #1, but north holds 1 tile"):
        state.action_string(ids.PLACE + ids.CELLS * 3)


def test_hand_is_what_the_view_shows() -> None:
    for state in random_states(7, 3)[::5]:
        for seat in range(3):
            assert state.hand(seat) == [tile["tile"] for tile in state.view(seat)["hand"]]


def test_the_id_list_is_a_copy_and_follows_the_state() -> None:
    state = gheos.new_game(2, 3)
    first = state.legal_action_ids()
    first.append(-1)
    assert -1 not in state.legal_action_ids()
    copy = state.clone()
    copy.apply(copy.legal_action_ids()[0])
    assert state.legal_action_ids() == first[:-1]
    assert copy.legal_action_ids() != first[:-1]
    state.legal_actions()
    # Re-drawing the hand of the player to move gives it new ids.
    hidden: Any = state.sample_hidden(1 - state.to_move, random.Random(0))
    assert hidden.hand(state.to_move) != state.hand(state.to_move)
    assert [hidden.action_string(i) for i in hidden.legal_action_ids()] == hidden.legal_actions()
