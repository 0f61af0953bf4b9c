"""Property tests: random games of 2-4 players on each engine, invariants checked after every
action (the engines' agreement itself is tests/tigris/test_native_lockstep.py)."""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cradle import tigris
from cradle.core.record import GameRecord
from tests.helpers.engines import engines
from tests.helpers.tigris import ALL_OPTIONS, check_invariants

# The engines are parametrised here, not by conftest.
ENGINES_INSIDE = True
# Random games per engine in make test; make test-long plays CRADLE_PROPERTY_GAMES_LONG more
# (the state machines of test_state_machine.py drive games action by action, with shrinking).
GAMES = int(os.environ.get("CRADLE_PROPERTY_GAMES", "10"))
LONG_GAMES = int(os.environ.get("CRADLE_PROPERTY_GAMES_LONG", "1200"))
MAX_ACTIONS = 3000


def play_checked(
    seed: int, players: int, chooser: int, options: tigris.Options, engine: str
) -> None:
    state = tigris.new_game(players, seed, options, engine=engine)
    rng = random.Random(chooser)
    actions: list[str] = []
    previous = state.to_position()["points"]
    while not state.is_over:
        assert len(actions) < MAX_ACTIONS, "the game must end"
        legal = state.legal_actions()
        assert legal, "a game that is not over always has a legal action"
        assert len(set(legal)) == len(legal), "no duplicate legal actions"
        action = rng.choice(legal)
        state.apply(action)
        actions.append(action)
        position = state.to_position()
        check_invariants(position)
        for name, now in position["points"].items():
            assert all(now[c] >= previous[name][c] for c in now), "points never decrease"
        previous = position["points"]
        again = tigris.from_position(position, engine=engine)
        assert again.to_position() == position
        assert again.legal_actions() == state.legal_actions()
        assert again.to_move == state.to_move
    record = GameRecord(
        "tigris", list(state.players), seed, tigris.options_to_dict(options), actions
    )
    replayed = GameRecord.from_dict(record.to_dict()).replay()
    assert replayed.to_position() == state.to_position()
    result = state.result()
    assert sorted(r["place"] for r in result)[0] == 1


@pytest.mark.parametrize("engine", engines())
@settings(max_examples=GAMES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31),
    players=st.integers(2, 4),
    chooser=st.integers(0, 2**31),
)
def test_random_games_keep_every_invariant(
    engine: str, seed: int, players: int, chooser: int
) -> None:
    play_checked(seed, players, chooser, tigris.Options(), engine)


# One game per combination of options and engine in make test (the long test mixes them all).
PER_COMBINATION = int(os.environ.get("CRADLE_PROPERTY_GAMES_PER_OPTIONS", "1"))


@pytest.mark.parametrize("engine", engines())
@pytest.mark.parametrize(
    "options",
    ALL_OPTIONS,
    ids=lambda o: "-".join(
        [o.board] + [k for k, v in tigris.options_to_dict(o).items() if v is True]
    ),
)
@settings(max_examples=PER_COMBINATION, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), players=st.integers(2, 4), chooser=st.integers(0, 2**31))
def test_random_games_with_every_combination_of_options(
    engine: str, options: tigris.Options, seed: int, players: int, chooser: int
) -> None:
    play_checked(seed, players, chooser, options, engine)


@pytest.mark.long
@pytest.mark.parametrize("engine", engines())
def test_many_random_games_with_any_options_keep_every_invariant(engine: str) -> None:
    @settings(max_examples=LONG_GAMES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        seed=st.integers(0, 2**31),
        players=st.integers(2, 4),
        chooser=st.integers(0, 2**31),
        options=st.sampled_from(ALL_OPTIONS),
    )
    def game(seed: int, players: int, chooser: int, options: tigris.Options) -> None:
        play_checked(seed, players, chooser, options, engine)

    game()
