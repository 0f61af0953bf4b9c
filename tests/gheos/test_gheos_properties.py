"""Invariants over many random games (Hypothesis picks the seeds and player counts)."""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cradle import gheos
from cradle.gheos.geometry import CELL_NAME
from cradle.gheos.state import COLOURS, FOLLOWERS_PER_COLOUR, GheosState

seeds = st.integers(0, 2**32 - 1)
player_counts = st.integers(2, 4)
# The longest game: 51 tiles, each turn at most a handful of decisions.
MAX_DECISIONS = 51 * 8
# Random games to play (docs/testing.md: CRADLE_PROPERTY_GAMES), as the Tigris property tests
# do; make test-long plays CRADLE_PROPERTY_GAMES_LONG more.
GAMES = int(os.environ.get("CRADLE_PROPERTY_GAMES", "150"))
LONG_GAMES = int(os.environ.get("CRADLE_PROPERTY_GAMES_LONG", "3000"))


def check_invariants(state: GheosState, points_before: list[int]) -> None:
    # Followers are conserved: supply + held = 5 of each colour, 30 in all.
    for colour in range(len(COLOURS)):
        held = sum(row[colour] for row in state.held)
        assert held + state.supply[colour] == FOLLOWERS_PER_COLOUR
        assert held == 0 or colour in state.civs  # nobody holds a colour off the table
    assert sum(state.supply) + sum(map(sum, state.held)) == 30
    # Points never decrease.
    assert all(now >= before for now, before in zip(state.points, points_before, strict=True))
    if state.conflict is None:
        # Every civilization sits on a continent, at most one per continent.
        homes = [state.area_of[anchor] for anchor in state.civs.values()]
        assert all(state.area_list[home].continent for home in homes)
        assert len(set(homes)) == len(homes)
    # The map is every tile's cell; the frontier is exactly the empty cells next to it.
    assert state.board.keys().isdisjoint(state.frontier)
    assert len(state.board) + len(state.removed) + sum(map(len, state.hands)) + sum(
        1 for t in state.stack if t >= 0
    ) == len(state.tiles)
    if not state.is_over:
        assert state.legal_actions()
        assert 1 <= len(state.hands[state.active]) <= 2


def choose(state: GheosState, rng: random.Random, token_rate: float) -> str:
    """A random action; scoring tokens played with probability ``token_rate`` (uniform
    play spends them fast and ends most games early, so long games need a low rate)."""
    if state.phase == "token":
        return "token" if rng.random() < token_rate else "pass"
    return rng.choice(state.legal_actions())


def play_checked(seed: int, players: int, token_rate: float) -> None:
    rng = random.Random(seed)
    state = gheos.new_game(players, seed)
    decisions = 0
    while not state.is_over:
        points = list(state.points)
        state.apply(choose(state, rng, token_rate))
        decisions += 1
        assert decisions <= MAX_DECISIONS, "the game does not end"
        check_invariants(state, points)
    assert state.legal_actions() == []
    ended_by_epoch = state.epochs == {2: 6, 3: 7, 4: 8}[players]
    assert ended_by_epoch or not any(state.tokens)
    places = sorted(row["place"] for row in state.result())
    assert places[0] == 1


token_rates = st.sampled_from([0.5, 0.1, 0.0])


@settings(max_examples=GAMES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds, players=player_counts, token_rate=token_rates)
def test_random_games_keep_the_invariants_and_end(
    seed: int, players: int, token_rate: float
) -> None:
    play_checked(seed, players, token_rate)


@pytest.mark.long
@settings(max_examples=LONG_GAMES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds, players=player_counts, token_rate=token_rates)
def test_many_random_games_keep_the_invariants_and_end(
    seed: int, players: int, token_rate: float
) -> None:
    play_checked(seed, players, token_rate)


@settings(max_examples=60, deadline=None)
@given(seed=seeds, players=player_counts)
def test_replaying_the_same_actions_gives_the_same_game(seed: int, players: int) -> None:
    rng = random.Random(seed)
    first = gheos.new_game(players, seed)
    second = gheos.new_game(players, seed)
    while not first.is_over:
        action = rng.choice(first.legal_actions())
        assert first.apply(action) == second.apply(action)
        assert first.to_position() == second.to_position()


def all_tile_actions(state: GheosState) -> set[str]:
    """Every placement and replacement, legal or not, for the player to move."""
    out = set()
    for number in state.hands[state.active]:
        tile = state.tiles[number]
        for rotation in tile.rotations:
            for cell in state.frontier:
                out.add(f"place t{number} {CELL_NAME[cell]} r{rotation}")
            for cell, (old, _) in state.board.items():
                if not state.tiles[old].pyramid:
                    out.add(f"replace t{number} {CELL_NAME[cell]} r{rotation}")
    return out


@settings(max_examples=80, deadline=None)
@given(seed=seeds, players=player_counts)
def test_without_followers_exactly_the_paid_tile_actions_are_left_out(
    seed: int, players: int
) -> None:
    """The quick legality filter for a player without followers agrees with what apply
    does: an action left out starts a war or migration, one listed does not."""
    rng = random.Random(seed)
    state = gheos.new_game(players, seed)
    checked = 0
    while not state.is_over and checked < 4:
        if state.phase == "tile" and not any(state.held[state.active]) and state.civs:
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


@settings(max_examples=40, deadline=None)
@given(seed=seeds, players=player_counts, steps=st.integers(0, 120))
def test_any_position_round_trips_and_resamples(seed: int, players: int, steps: int) -> None:
    rng = random.Random(seed)
    state = gheos.new_game(players, seed)
    for _ in range(steps):
        if state.is_over:
            break
        state.apply(choose(state, rng, 0.1))
    data = state.to_position()
    again = gheos.from_position(data)
    assert again.to_position() == data
    assert again.legal_actions() == state.legal_actions()
    seat = rng.randrange(players)
    sample = state.sample_hidden(seat, rng)
    assert sample.view(seat) == state.view(seat)
