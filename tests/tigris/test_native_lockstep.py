"""The native engine against the Python reference, in lockstep (see tests/helpers/tigris_lockstep.py).

``CRADLE_LOCKSTEP_GAMES`` random games in ``make test`` (32 by default: every option
combination once, 2, 3 and 4 players in turn, about 15 s of one core), thousands with ``make
test-long`` (``CRADLE_LOCKSTEP_LONG_GAMES``: every option combination with every number of
players, many times). A divergence fails with the report of
:class:`tests.tigris.lockstep.Divergence`.
"""

from __future__ import annotations

import copy
import os
import pickle
import random

import pytest

from cradle import tigris
from cradle.core import native
from cradle.core.positions import PositionError
from cradle.tigris.decisions import KINDS
from tests.helpers.tigris import leader, make_position
from tests.helpers.tigris_lockstep import Divergence, Lockstep, Table, diff, play, tables

# Both engines in every test here: conftest does not parametrise this module.
ENGINES_INSIDE = True

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built")

GAMES = int(os.environ.get("CRADLE_LOCKSTEP_GAMES", "32"))
LONG_GAMES = int(os.environ.get("CRADLE_LOCKSTEP_LONG_GAMES", "3000"))
CHUNKS = 4
LONG_CHUNKS = 32


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_games_agree_step_by_step(chunk: int) -> None:
    for table in tables(GAMES)[chunk::CHUNKS]:
        play(table)


@pytest.mark.long
@pytest.mark.parametrize("chunk", range(LONG_CHUNKS))
def test_thousands_of_random_games_agree(chunk: int) -> None:
    for table in tables(LONG_GAMES, first_seed=1_000_000)[chunk::LONG_CHUNKS]:
        play(table)


@pytest.mark.parametrize("seed", [0, 1, -1, True, 2**32, 2**64 + 3, 2**127 + 5, 2**130, -(2**140)])
def test_new_games_deal_alike_for_any_integer_seed(seed: int) -> None:
    """The native engine reproduces random.Random(seed)'s draws (beyond 2**128 the reference
    deals for it): the same bag, first player and hands."""
    for players in (2, 3, 4):
        for board in ("standard", "advanced"):
            options = tigris.Options(board=board)
            python = tigris.new_game(players, seed, options, engine="python")
            native_ = tigris.new_game(players, seed, options, engine="native")
            assert native_.to_position() == python.to_position()


def test_a_divergence_is_reported_with_its_step_table_position_and_diff() -> None:
    game = Lockstep(Table(players=3, seed=5, options=tigris.Options(wonder=True), chooser=1))
    game.apply(game.python.legal_action_ids()[0])
    game.apply("pass")
    # an engine bug, simulated: the native side suddenly holds another game
    game.native = tigris.new_game(3, 6, tigris.Options(wonder=True), engine="native")
    with pytest.raises(Divergence) as caught:
        game.apply("pass")
    report = str(caught.value)
    first_line = report.splitlines()[0]
    assert first_line.startswith("the engines diverge on ")
    assert first_line.endswith(" at step 3 (apply('pass'))")
    assert "table: 3 players, seed 5, options {'board': 'standard'" in report
    assert f'["{game.actions[0]}", "pass", "pass"]' in report
    assert "position before the step" in report and '"players": ["archer", "bull", "pot"]' in report
    assert "diff (python | native):" in report


def test_diff_names_each_differing_path() -> None:
    python = {"board": {"K1": "red*", "A2": "blue"}, "bag": ["red", "blue"], "over": False}
    native = {"board": {"K1": "red", "A2": "blue"}, "bag": ["red"], "over": 0}
    assert diff(python, native) == [
        "bag: 2 items in python, 1 in native; first difference at [1]: python 'blue' | native (end)",
        "bag: only python has ['blue']",
        "board.K1: python 'red*' | native 'red'",
        "over: python False | native 0",
    ]
    events = [{"type": "tile", "cell": "K2"}, {"type": "score", "amount": 1}]
    assert diff(events, [*events[:1], {"type": "score", "amount": 2}]) == [
        "[1].amount: python 1 | native 2"
    ]
    assert diff({"a": 1, "b": 2}, {"b": 2, "a": 1}) == [
        "(top): key order python ['a', 'b'] | native ['b', 'a']"
    ]
    assert diff(["pass", "tile red K1"], ["tile red K1", "tile blue E1"]) == [
        "(top): 2 items in python, 2 in native; first difference at [0]: "
        "python 'pass' | native 'tile red K1'",
        "(top): only python has ['pass']",
        "(top): only native has ['tile blue E1']",
    ]
    assert diff([1, 2], [1, 2]) == []


def _rebuild_at_each_new_pending(game: Lockstep, kinds: set[str], rng: random.Random) -> None:
    while not game.python.is_over:
        pending = game.position["pending"]
        if pending is not None and pending["kind"] not in kinds:
            kinds.add(pending["kind"])
            game.rebuild()
            game.hidden(rng)
        game.apply(rng.choice(game.python.legal_action_ids()))


def test_mid_conflict_positions_rebuild_on_both_engines() -> None:
    """Positions taken in every kind of pending decision rebuild identically on both engines
    and play on in lockstep to the end of the game."""
    kinds: set[str] = set()
    options = tigris.Options(buildings=True, english=True, wonder=True)
    for seed in range(20):
        if len(kinds) >= 6:
            break
        table = Table(players=3 + seed % 2, seed=seed, options=options, chooser=seed)
        _rebuild_at_each_new_pending(Lockstep(table), kinds, random.Random(seed))
    # a wonder is rare in random play: its end-of-turn point from a set position
    board = {"F5": "red*", "E6": "red", "G6": "red", "F7": "red", "H5": "red"}
    board |= {"F4": leader("bull", "priest"), "H6": leader("archer", "king")}
    start = make_position(
        board, hands={"archer": ["red"]}, actions_left=1, options={"wonder": True}
    )
    game = Lockstep(Table(2, 9, tigris.Options(wonder=True), 9), start=start)
    game.apply("tile red F6")
    game.apply("wonder F6")
    _rebuild_at_each_new_pending(game, kinds, random.Random(9))
    assert kinds == set(KINDS)  # every kind of decision


# --- the native state as a Python object


def _native_mid_game(seed: int = 3) -> tigris.TigrisState:
    state = tigris.new_game(2, seed, tigris.Options(buildings=True), engine="native")
    rng = random.Random(seed)
    for _ in range(40):
        state.apply(rng.choice(state.legal_action_ids()))
    return state  # type: ignore[return-value]


def test_native_states_pickle_copy_and_compare_by_value() -> None:
    state = _native_mid_game()
    for again in (
        pickle.loads(pickle.dumps(state)),
        copy.copy(state),
        copy.deepcopy(state),
        state.clone(),
    ):
        assert type(again) is type(state)
        assert again == state and again is not state
        assert again.to_position() == state.to_position()  # the bag's order included
        assert again.legal_action_ids() == state.legal_action_ids()
    twin = state.clone()
    twin.apply(twin.legal_action_ids()[-1])
    assert twin != state and state == state.clone()
    with pytest.raises(TypeError):
        hash(state)
    assert repr(state).startswith("<TigrisState native 2p active=")


def test_fast_paths_agree_with_the_full_surface() -> None:
    state = _native_mid_game(4)
    ids = state.legal_action_ids()
    assert state.legal_action_count() == len(ids)
    assert [state.legal_action_at(i) for i in range(len(ids))] == ids
    assert state.random_action_id(len(ids) + 2) == ids[2]
    with pytest.raises(IndexError):
        state.legal_action_at(len(ids))
    quiet, loud = state.clone(), state.clone()
    rng = random.Random(1)
    while not loud.is_over:
        action = rng.choice(loud.legal_action_ids())
        assert quiet.apply_quiet(action) is None
        loud.apply(action)
        assert quiet.to_position() == loud.to_position()
    with pytest.raises(tigris.IllegalAction, match="the game is over"):
        quiet.apply_quiet("pass")
    played = state.clone()
    actions = played.random_playout(7)
    assert played.is_over and actions > 0 and played.legal_action_ids() == []
    again = state.clone()
    assert again.random_playout(7) == actions and again == played  # the seed decides


def test_native_refusals_leave_the_state_and_its_legal_list_unchanged() -> None:
    state = _native_mid_game(5)
    position, legal = state.to_position(), state.legal_action_ids()
    for bad in ("tile pink K1", "commit 3", 3397 if 3397 not in legal else 0, "leader king A1"):
        with pytest.raises(tigris.IllegalAction):
            state.apply(bad)
        with pytest.raises(tigris.IllegalAction):
            state.apply_quiet(bad)
    assert state.to_position() == position and state.legal_action_ids() == legal


def test_the_native_action_table_is_the_reference_table() -> None:
    from cradle import _native

    assert _native.tigris_action_strings() == tigris.all_action_strings()


def test_pending_fields_in_any_order_are_written_in_the_references_order() -> None:
    """A position may list a pending decision's fields in any order (and the public strengths,
    which are ignored); both engines write them in the reference's order and play on alike."""
    board = {"F5": "red*", "G5": "red*", "H5": "green", "F6": leader("archer", "trader")}
    pending = {
        "cells": ["F5", "G5"],
        "attacker_strength": 3,
        "kind": "treasure",
        "seat": 0,
    }
    start = make_position(board, hands={"archer": ["red"]}, pending=pending)
    game = Lockstep(Table(2, 1, tigris.Options(), 1), start=start)
    assert list(game.position["pending"]) == ["kind", "seat", "cells", "placed", "unification"]
    game.offer("treasure H5")
    game.apply("treasure G5")
    assert game.position["pending"] is None


def test_pending_fields_of_another_kind_are_refused_by_both_engines() -> None:
    board = {"F5": "red*", "G5": "red*", "H5": "green", "F6": leader("archer", "trader")}
    pending = {"kind": "treasure", "seat": 0, "cells": ["F5", "G5"], "queue": ["red", "blue"]}
    start = make_position(board, hands={"archer": ["red"]}, pending=pending)
    for engine in ("python", "native"):
        with pytest.raises(PositionError, match="queue belong"):
            tigris.from_position(start, seed=1, engine=engine)
