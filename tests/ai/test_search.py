"""The shared search machinery: budgets, fair determinizations, rewards."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cradle.ai.knowledge.base import pairwise_chances
from cradle.ai.knowledge.params import knowledge_for
from cradle.ai.search.budget import Budget
from cradle.ai.search.worlds import sample_world
from cradle.core.hidden import CanonicalRandom
from cradle.core.results import rank_rewards
from tests.helpers.ai import random_position


def test_budget_needs_a_limit_and_sane_values() -> None:
    with pytest.raises(ValueError, match="iterations or seconds"):
        Budget()
    with pytest.raises(ValueError, match="at least 1"):
        Budget(iterations=0)
    with pytest.raises(ValueError, match="more than 0"):
        Budget(seconds=0)
    assert Budget(iterations=10).split(4) == Budget(iterations=2)
    assert Budget(seconds=1.0).split(4) == Budget(seconds=1.0)


def test_clock_stops_at_the_iteration_budget() -> None:
    clock = Budget(iterations=5).clock()
    ticks = 1
    while clock.tick():
        ticks += 1
    assert ticks == 5


@given(st.lists(st.integers(0, 9), min_size=2, max_size=40), st.integers(0, 2**32))
def test_canonical_shuffles_ignore_the_order_of_their_input(items: list[int], seed: int) -> None:
    first, second = list(items), list(reversed(items))
    CanonicalRandom(seed).shuffle(first)
    CanonicalRandom(seed).shuffle(second)
    assert first == second
    assert sorted(first) == sorted(items)


@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_a_world_depends_only_on_what_the_seat_knows(game: str) -> None:
    state = random_position(game, 3, seed=5, steps=12)
    seat = state.to_move
    other = state.sample_hidden(seat, random.Random(99))  # a different hidden truth
    assert other.to_position() != state.to_position()
    one = sample_world(state, seat, random.Random(1))
    two = sample_world(other, seat, random.Random(1))
    assert one.to_position() == two.to_position()
    assert one.view(seat) == state.view(seat)


@given(st.lists(st.floats(-50, 50), min_size=2, max_size=4), st.floats(0.5, 20))
def test_pairwise_chances_are_a_fair_share(values: list[float], temperature: float) -> None:
    chances = pairwise_chances(values, temperature)
    assert all(0.0 <= c <= 1.0 for c in chances)
    assert sum(chances) == pytest.approx(len(values) / 2)
    best = max(range(len(values)), key=values.__getitem__)
    assert chances[best] == pytest.approx(max(chances))


def test_unknown_game_has_no_knowledge() -> None:
    with pytest.raises(ValueError, match="no AI knowledge"):
        knowledge_for("chess")


def test_the_stall_guard_keeps_tigris_moving() -> None:
    from cradle import tigris
    from cradle.ai.bots import STALL_LIMIT, StallGuard

    state = tigris.new_game(2, 4)
    seat = state.to_move
    actions = state.legal_actions()
    guard = StallGuard()
    for _ in range(STALL_LIMIT):
        assert guard.allowed(state, seat, actions) == actions  # the bag has not moved yet
    narrowed = guard.allowed(state, seat, actions)
    assert narrowed and all(a.startswith(("tile ", "swap ")) for a in narrowed)
    state.apply(next(a for a in actions if a.startswith("tile ")))
    state.apply("pass")  # the turn ends, the hand is refilled: the bag moves
    other = state.to_move
    assert guard.allowed(state, other, state.legal_actions()) == state.legal_actions()


def test_a_playout_plays_random_moves_before_judging() -> None:
    from cradle import gheos
    from cradle.ai.search.leaves import evaluate

    knowledge = knowledge_for("gheos")
    start = gheos.new_game(2, 5)
    # To the end: the rewards are the final places, exactly.
    world = start.clone()
    rewards = evaluate(world, knowledge, random.Random(1), playout=10_000)
    assert world.is_over
    expected = rank_rewards(world.result())
    assert rewards == expected
    # A few moves: the game moved on, and the heuristic judged it.
    world = start.clone()
    evaluate(world, knowledge, random.Random(1), playout=4)
    assert world.to_position() != start.to_position()
    assert not world.is_over


def test_ismcts_takes_the_games_own_playout_unless_told() -> None:
    from cradle import gheos, tigris
    from cradle.ai.search.ismcts import Ismcts
    from cradle.ai.search.params import IsmctsParams

    for state, default in ((gheos.new_game(2, 1), 8), (tigris.new_game(2, 1), 0)):
        game = "gheos" if default else "tigris"
        knowledge = knowledge_for(game)
        tree = Ismcts(state, 0, knowledge, IsmctsParams(), random.Random(1))
        assert tree.playout == default
        told = Ismcts(state, 0, knowledge, IsmctsParams(playout=3), random.Random(1))
        assert told.playout == 3
