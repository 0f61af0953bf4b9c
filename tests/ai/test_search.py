"""The shared search machinery: budgets, fair determinizations, rewards."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cradle.ai.search import (
    Budget,
    CanonicalRandom,
    knowledge_for,
    pairwise_chances,
    sample_world,
)
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
    from cradle.ai.search import STALL_LIMIT, StallGuard

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
    from cradle.ai.search import evaluate

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


def test_mix_judges_that_share_of_a_leaf_before_its_playout() -> None:
    from cradle import gheos
    from cradle.ai.search import evaluate, settle

    knowledge = knowledge_for("gheos")
    start = gheos.new_game(2, 5)
    for _ in range(12):  # into the game, where the judgement moves with the playout
        evaluate(start, knowledge, random.Random(3), playout=1)

    def judged(mix: float) -> list[float]:
        return evaluate(start.clone(), knowledge, random.Random(1), playout=8, mix=mix)

    after, before, half = judged(0.0), judged(1.0), judged(0.5)
    settled = start.clone()
    settle(settled, knowledge, random.Random(1))
    assert before == pytest.approx(knowledge.rewards(settled))
    assert after != pytest.approx(before)
    assert half == pytest.approx([(b + a) / 2 for b, a in zip(before, after, strict=True)])


@pytest.mark.parametrize("players", [2, 3])
def test_a_balanced_playout_ends_where_every_seat_played_as_many_random_turns(
    players: int,
) -> None:
    from cradle import gheos
    from cradle.ai.search import evaluate, settle

    knowledge = knowledge_for("gheos")
    unbalanced = 0
    for seed in range(6):
        start = gheos.new_game(players, seed)
        searcher = (start.to_move + 1) % players
        for balance in (1, 2, 0):
            world = start.clone()
            rng = random.Random(seed)
            settle(world, knowledge, rng)
            # 1: back to the seat of the first random move; 2: to the searching seat's turn.
            target = searcher if balance == 2 else world.to_move  # 0: as 1 would have it
            evaluate(world, knowledge, rng, playout=3, balance=balance, seat=searcher)
            back = world.to_move == target and not knowledge.unsettled(world)
            if balance:
                assert world.is_over or back, (seed, balance)
            else:
                unbalanced += not back
    assert unbalanced  # three random moves alone end in someone else's turn


def test_a_playout_with_steps_leaves_only_a_turns_first_move_to_chance() -> None:
    from cradle import gheos
    from cradle.ai.gheos_knowledge import GheosKnowledge
    from cradle.ai.search import evaluate
    from cradle.core.contract import GameState

    class Keeper(GheosKnowledge):
        """The policy never plays a token (no token here ends the game: every seat holds
        some), so any token spent was spent at random."""

        def policy(self, world: GameState, rng: random.Random) -> str:
            actions = world.legal_actions()
            return "pass" if "pass" in actions else super().policy(world, rng)

    def spent(world: GameState) -> int:
        return sum(3 - world.player(s).tokens for s in range(2))  # type: ignore[attr-defined]

    keeper = Keeper()
    by_chance = 0
    for seed in range(8):
        start = gheos.new_game(2, seed)
        stepped = start.clone()
        evaluate(stepped, keeper, random.Random(seed), playout=30, steps=1)
        assert spent(stepped) == 0, seed  # every token decision was the policy's
        random_world = start.clone()
        evaluate(random_world, keeper, random.Random(seed), playout=30)
        by_chance += spent(random_world)
    assert by_chance > 0  # at random, some tokens are played


@pytest.mark.parametrize("game", ["gheos", "tigris"])
def test_the_native_search_honours_a_balanced_playout(game: str) -> None:
    from cradle.ai.ismcts import IsmctsParams, search
    from tests.helpers.ai import decision_positions

    state = decision_positions(game, 2, seed=4, count=3)[-1]
    budget = Budget(iterations=150)
    plain = search(state, state.to_move, budget, IsmctsParams(playout=3), seed=2)
    for balance in (1, 2):
        params = IsmctsParams(playout=3, balance=balance)
        balanced = search(state, state.to_move, budget, params, seed=2)
        assert sum(row.visits for row in balanced.actions) == 150
        assert balanced.actions != plain.actions  # more random moves: other rewards
        params = IsmctsParams(playout=3, balance=balance, native=0)
        python = search(state, state.to_move, budget, params)
        assert sum(row.visits for row in python.actions) == 150
    with pytest.raises(ValueError, match="balance"):
        IsmctsParams(balance=3)
    with pytest.raises(ValueError, match="steps"):
        IsmctsParams(steps=2)


def test_ismcts_takes_the_games_own_playout_unless_told() -> None:
    from cradle import gheos, tigris
    from cradle.ai.ismcts import Ismcts, IsmctsParams

    for state, default in ((gheos.new_game(2, 1), 8), (tigris.new_game(2, 1), 0)):
        game = "gheos" if default else "tigris"
        knowledge = knowledge_for(game)
        tree = Ismcts(state, 0, knowledge, IsmctsParams(), random.Random(1))
        assert tree.playout == default
        told = Ismcts(state, 0, knowledge, IsmctsParams(playout=3), random.Random(1))
        assert told.playout == 3
