"""The native ISMCTS on Gheos (native/src/gheos/search_game.rs; its binding in
native/src/python/gheos/knowledge.rs) against its Python reference: where it runs, what it
returns, that one iteration computes what the reference computes on the same world, threads,
refusals, and (long) its strength."""

from __future__ import annotations

import json

import pytest

from cradle import gheos
from cradle.ai.knowledge.gheos import GheosKnowledge, GheosSettings
from cradle.ai.knowledge.params import knowledge_for
from cradle.ai.knowledge.tigris import TigrisSettings
from cradle.ai.search.budget import Budget
from cradle.ai.search.ismcts import IsmctsBot, parallel_search, search
from cradle.ai.search.native import NativeSettings, native_search_for
from cradle.ai.search.params import IsmctsParams
from cradle.ai.search.worlds import next_world
from cradle.core.hidden import CanonicalRandom
from tests.helpers.ai import (
    decision_positions,
    one_iteration_is_the_reference,
    search_adds_up_and_repeats,
)

_native = pytest.importorskip("cradle._native")


def test_native_gheos_states_are_searched_natively() -> None:
    params = IsmctsParams()
    native = gheos.new_game(2, 1, engine="native")
    python = gheos.new_game(2, 1, engine="python")
    assert native_search_for(native, knowledge_for("gheos"), params) is not None
    assert native_search_for(python, knowledge_for("gheos"), params) is None
    assert native_search_for(native, knowledge_for("gheos"), IsmctsParams(native=0)) is None

    class Tweaked(GheosKnowledge):
        pass

    assert native_search_for(native, Tweaked(), params) is None  # no native twin


@pytest.mark.parametrize("players", [2, 4])
def test_native_root_statistics_add_up_and_repeat(players: int) -> None:
    state = decision_positions("gheos", players, seed=2, count=2)[-1]
    assert type(state).__module__ == "cradle._native"
    search_adds_up_and_repeats(state, 200)


def test_the_native_world_is_the_reference_sample_and_one_iteration_its_evaluation() -> None:
    # One iteration restricted to one action, with no policy or random moves after it: the
    # search's reward is the reference knowledge's reward of the world drawn from the search's
    # seed (sample_hidden_seeded), after the action. Determinization, apply and the evaluation
    # agree exactly.
    checked = 0
    for players, value, seed in ((2, 1, 11), (3, 4, 13), (4, 1, 13), (2, 4, 12)):
        knowledge = GheosKnowledge(value=value)
        params = IsmctsParams(rollout=0, playout=0, value=value)
        for state in decision_positions("gheos", players, seed=seed, count=9):
            for action in state.legal_actions()[:4]:
                checked += one_iteration_is_the_reference(
                    state,
                    action,
                    params,
                    knowledge,
                    lambda state, seat, seed: state.sample_hidden_seeded(seat, seed),
                )
    assert checked >= 12


def test_a_tree_deals_its_worlds_from_one_generator_natively_as_in_the_reference() -> None:
    # A search deals every world from one CanonicalRandom (search.worlds.next_world): the first is
    # sample_hidden_seeded's, each next one goes on where the last stopped. The native tree's
    # worlds are the reference's, on the native state and on its Python engine twin.
    for players in (2, 3):
        state = decision_positions("gheos", players, seed=4 + players, count=3)[-1]
        twin = gheos.from_position(state.to_position(), engine="python")
        seat = state.to_move
        native = [w.to_position() for w in _native.gheos_ai_worlds(state, seat, 77, 4)]
        assert native[0] == state.sample_hidden_seeded(seat, 77).to_position()
        for source in (state, twin):
            dealer = CanonicalRandom(77)
            assert [next_world(source, seat, dealer).to_position() for _ in range(4)] == native
        assert len({json.dumps(w, sort_keys=True) for w in native}) == 4, "new worlds"
    with pytest.raises(ValueError, match="no seat 9"):
        _native.gheos_ai_worlds(state, 9, 1, 1)


def test_trees_on_threads_add_up_and_stay_seeded() -> None:
    state = decision_positions("gheos", 3, seed=6, count=2)[-1]
    result = parallel_search(state, state.to_move, Budget(iterations=120), IsmctsParams(), [1, 2])
    assert result.iterations == 120
    assert sum(row.visits for row in result.actions) == 120
    again = [
        IsmctsBot(9, Budget(iterations=60), workers=2).choose(state, state.to_move)
        for _ in range(2)
    ]
    assert again[0] == again[1]


@pytest.mark.parametrize("value", [1, 4])
def test_native_and_python_search_value_actions_alike(value: int) -> None:
    # Both searches, restricted to the same two actions of a position, value them within the
    # noise of their sampled worlds (the same algorithm and knowledge in two languages): the
    # mean of two seeds.
    state = decision_positions("gheos", 2, seed=4, count=3)[-1]
    seat = state.to_move
    actions = state.legal_actions()[:2]
    values = {}
    for native in (1, 0):
        params = IsmctsParams(native=native, value=value)
        for action in actions:
            rewards = [
                search(state, seat, Budget(iterations=120), params, seed=seed, only=[action])
                .actions[0]
                .reward
                for seed in (3, 4)
            ]
            values[native, action] = sum(rewards) / len(rewards)
    for action in actions:
        assert values[1, action] == pytest.approx(values[0, action], abs=0.1)


def test_the_native_gheos_search_refuses_bad_input() -> None:
    state = gheos.new_game(2, 1, engine="native")
    seat = state.to_move
    settings = NativeSettings(0.4, 1.5, 0.5, 0.3, 0, 8, 16, False, False)
    knowledge = GheosSettings()
    with pytest.raises(ValueError, match="decision"):
        _native.search(state, 1 - seat, 5, None, settings, knowledge, [1], None)
    with pytest.raises(ValueError, match="seed"):
        _native.search(state, seat, 5, None, settings, knowledge, [], None)
    with pytest.raises(ValueError, match="budget"):
        _native.search(state, seat, None, None, settings, knowledge, [1], None)
    with pytest.raises(ValueError, match="budget"):
        _native.search(state, seat, 0, None, settings, knowledge, [1], None)
    with pytest.raises(ValueError, match="budget"):
        _native.search(state, seat, None, -1.0, settings, knowledge, [1], None)
    with pytest.raises(ValueError, match="value is 1 or 4, not 7"):
        _native.gheos_ai_values(state, 7)
    with pytest.raises(ValueError, match="belief over the hands is a Tigris"):
        _native.search(state, seat, 5, None, settings, knowledge, [1], None, belief=[[1.0] * 4])
    with pytest.raises(AttributeError, match="settle"):  # a Tigris knowledge's settings
        _native.search(state, seat, 5, None, settings, TigrisSettings(), [1], None)  # type: ignore[arg-type]
    state.random_playout(3)
    with pytest.raises(ValueError, match="over"):
        _native.search(state, 0, 5, None, settings, knowledge, [1], None)


def test_the_root_restriction_reaches_the_native_gheos_search() -> None:
    state = decision_positions("gheos", 2, seed=9, count=1)[-1]
    allowed = state.legal_actions()[-2:]
    result = search(state, state.to_move, Budget(iterations=40), seed=2, only=allowed)
    assert {row.action for row in result.actions} <= set(allowed)


def test_a_native_gheos_search_leaves_its_state_free_for_other_threads() -> None:
    # The search runs on its own copy with the GIL released: meanwhile another thread may
    # read and change the state it was given.
    import threading

    state = gheos.new_game(2, 7, engine="native")
    seat = state.to_move
    done: list[object] = []
    shared = threading.Thread(target=lambda: done.append(search(state, seat, Budget(seconds=0.5))))
    shared.start()
    reads = 0
    while shared.is_alive():
        state.legal_actions()  # reads while the search runs
        reads += 1
        shared.join(0.05)
    state.apply(state.legal_actions()[0])  # and changes it afterwards
    assert len(done) == 1 and reads >= 1


def test_the_ai_bench_runs_the_native_gheos_search() -> None:
    from rich.console import Console

    from cradle.cli.bench import run_ai_bench

    summary = run_ai_bench(Console(quiet=True), "gheos", 0.6, [2], {}, 3, ["native", "python"])
    assert summary["ai"]["native"]["2"]["search"] == "native"
    assert summary["ai"]["python"]["2"]["search"] == "python"
    assert summary["native_speedup"]["2"] > 0
