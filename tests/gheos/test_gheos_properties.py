"""Invariants over many random games (Hypothesis picks the seeds and player counts), on both
engines, read through the contract (positions and views)."""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cradle import gheos
from tests.helpers.engines import engines
from tests.helpers.gheos import GheosState, check_invariants, points_of

seeds = st.integers(0, 2**32 - 1)
player_counts = st.integers(2, 4)
# The longest game: 51 tiles, each turn at most a handful of decisions.
MAX_DECISIONS = 51 * 8
# Random games per engine in make test (docs/testing.md: CRADLE_PROPERTY_GAMES), as the Tigris
# property tests do; make test-long plays CRADLE_PROPERTY_GAMES_LONG more.
GAMES = int(os.environ.get("CRADLE_PROPERTY_GAMES", "150"))
LONG_GAMES = int(os.environ.get("CRADLE_PROPERTY_GAMES_LONG", "3000"))
# Positions and summaries cost more than the steps: the invariants are checked every few.
CHECK_EVERY = 4
ENGINES = engines()


def check_frontier(state: GheosState) -> None:
    """The frontier is exactly the empty cells next to the map."""
    view = state.view(None)
    board = {(tile["row"], tile["col"]) for tile in view["map"]}
    around = set()
    for row, col in board:
        up = (row + col) % 2 == 0
        for other in [(row + 1, col) if up else (row - 1, col), (row, col - 1), (row, col + 1)]:
            if other not in board:
                around.add(f"{other[0]},{other[1]}")
    assert set(view["frontier"]) == around


def choose(state: GheosState, rng: random.Random, token_rate: float) -> str:
    """A random action; scoring tokens played with probability ``token_rate`` (uniform
    play spends them fast and ends most games early, so long games need a low rate)."""
    if state.phase == "token":
        return "token" if rng.random() < token_rate else "pass"
    action: str = rng.choice(state.legal_actions())
    return action


def play_checked(engine: str, seed: int, players: int, token_rate: float) -> None:
    rng = random.Random(seed)
    state = gheos.new_game(players, seed, engine=engine)
    decisions = 0
    points = [0] * players
    while not state.is_over:
        state.apply(choose(state, rng, token_rate))
        decisions += 1
        assert decisions <= MAX_DECISIONS, "the game does not end"
        if decisions % CHECK_EVERY == 0:
            points = points_of(check_invariants(state, points))
    position = check_invariants(state, points)
    check_frontier(state)
    assert state.legal_actions() == []
    ended_by_epoch = position["epochs"] == {2: 6, 3: 7, 4: 8}[players]
    assert ended_by_epoch or not any(position["tokens"].values())
    places = sorted(row["place"] for row in state.result())
    assert places[0] == 1


token_rates = st.sampled_from([0.5, 0.1, 0.0])


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=GAMES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds, players=player_counts, token_rate=token_rates)
def test_random_games_keep_the_invariants_and_end(
    engine: str, seed: int, players: int, token_rate: float
) -> None:
    play_checked(engine, seed, players, token_rate)


@pytest.mark.long
@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=LONG_GAMES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds, players=player_counts, token_rate=token_rates)
def test_many_random_games_keep_the_invariants_and_end(
    engine: str, seed: int, players: int, token_rate: float
) -> None:
    play_checked(engine, seed, players, token_rate)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=60, deadline=None)
@given(seed=seeds, players=player_counts)
def test_replaying_the_same_actions_gives_the_same_game(
    engine: str, seed: int, players: int
) -> None:
    rng = random.Random(seed)
    first = gheos.new_game(players, seed, engine=engine)
    second = gheos.new_game(players, seed, engine=engine)
    while not first.is_over:
        action = rng.choice(first.legal_actions())
        assert first.apply(action) == second.apply(action)
        assert first.to_position() == second.to_position()


def all_tile_actions(state: GheosState) -> set[str]:
    """Every placement and replacement, legal or not, for the player to move."""
    view = state.view(state.to_move)
    out = set()
    for tile in view["hand"]:
        for rotation in tile["rotations"]:
            for cell in view["frontier"]:
                out.add(f"place {tile['tile']} {cell} r{rotation}")
            for placed in view["map"]:
                if not placed["pyramid"]:
                    out.add(f"replace {tile['tile']} {placed['cell']} r{rotation}")
    return out


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=80, deadline=None)
@given(seed=seeds, players=player_counts)
def test_without_followers_exactly_the_paid_tile_actions_are_left_out(
    engine: str, seed: int, players: int
) -> None:
    """The quick legality filter for a player without followers agrees with what apply
    does: an action left out starts a war or migration, one listed does not."""
    rng = random.Random(seed)
    state = gheos.new_game(players, seed, engine=engine)
    checked = 0
    while not state.is_over and checked < 4:
        position = state.to_position()
        mover = position["players"][state.to_move]
        if state.phase == "tile" and not position["followers"][mover] and position["civilizations"]:
            legal = set(state.legal_actions())
            every = all_tile_actions(state)
            assert legal <= every
            for action in rng.sample(sorted(legal), min(6, len(legal))):
                events = state.clone().apply(action)
                assert not any(e["type"] == "conflict" for e in events)
            for action in sorted(every - legal):
                try:
                    state.clone().apply(action)
                except gheos.IllegalAction as exc:
                    assert "no follower" in str(exc)
                else:
                    raise AssertionError(f"{action} was left out but is legal")
            checked += 1
        state.apply(choose(state, rng, 0.1))


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=40, deadline=None)
@given(seed=seeds, players=player_counts, steps=st.integers(0, 120))
def test_any_position_round_trips_and_resamples(
    engine: str, seed: int, players: int, steps: int
) -> None:
    rng = random.Random(seed)
    state = gheos.new_game(players, seed, engine=engine)
    for _ in range(steps):
        if state.is_over:
            break
        state.apply(choose(state, rng, 0.1))
    data = state.to_position()
    again = gheos.from_position(data, engine=engine)
    assert again.to_position() == data
    assert again.legal_actions() == state.legal_actions()
    seat = rng.randrange(players)
    sample = state.sample_hidden(seat, rng)
    assert sample.view(seat) == state.view(seat)
