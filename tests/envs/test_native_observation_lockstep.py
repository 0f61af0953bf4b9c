"""The native observation encoders (``Batch.observe``) against the Python encoders
(``spec.fill_observation`` of ``state.view(seat)``, the reference): batches of random games of
both games, 2-4 players, Tigris options, compared element for element for every seat after
every step, the final observations included."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cradle.core import native

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built")

from cradle.envs.spec import EnvSpec, get_spec  # noqa: E402

GAMES = 6  # games per batch


def python_observation(spec: EnvSpec, state: Any, seat: int, width: int) -> np.ndarray[Any, Any]:
    expected = np.zeros(width, np.float32)
    spec.fill_observation(state.view(seat), seat, expected)
    return expected


def first_difference(native_row: np.ndarray[Any, Any], python_row: np.ndarray[Any, Any]) -> str:
    where = np.flatnonzero(native_row != python_row)[:8]
    return ", ".join(f"[{i}] native {native_row[i]} | python {python_row[i]}" for i in where)


def play_in_lockstep(
    game: str, players: int, options: dict[str, Any], seed: int, steps: int
) -> int:
    spec = get_spec(game)
    module = spec.module
    table = spec.options(options)
    seeds = iter(range(seed * 1000, seed * 1000 + 10_000))
    states = [module.new_game(players, next(seeds), table, engine="native") for _ in range(GAMES)]
    batch = native.extension().Batch(states)
    width = spec.observation_bounds(players)[0].shape[0]
    rng = np.random.default_rng(seed)
    over = np.zeros(GAMES, bool)
    movers = np.zeros(GAMES, np.int64)
    actions = np.zeros(GAMES, np.int64)
    finished = 0
    for step in range(steps):
        for seat in range(players):
            observed = np.full((GAMES, width), np.nan, np.float32)  # every element is written
            batch.observe(np.full(GAMES, seat, np.int64), observed)
            for i in range(GAMES):
                expected = python_observation(spec, batch.get(i), seat, width)
                if not np.array_equal(observed[i], expected):
                    raise AssertionError(
                        f"{game} {players}p {options} game {i} (seed {seed}) step {step}, "
                        f"seat {seat}: {first_difference(observed[i], expected)}\n"
                        f"position: {batch.get(i).to_position()}"
                    )
        # a game that ended was compared once more (its final view): start a new one there
        for i in np.flatnonzero(over):
            batch.set(int(i), module.new_game(players, next(seeds), table, engine="native"))
            finished += 1
        batch.random_actions(rng.integers(0, 2**63, GAMES, dtype=np.uint64), actions)
        batch.step(actions, np.zeros(GAMES, bool), over, movers)
    return finished


@pytest.mark.parametrize(
    ("game", "players", "options", "seed", "steps"),
    [
        ("tigris", 2, {}, 1, 600),
        ("tigris", 3, {"board": "advanced", "buildings": True, "wonder": True}, 2, 500),
        ("tigris", 4, {"english": True, "open_scoring": True}, 3, 450),
        ("tigris", 4, {"wonder": True}, 8, 450),
        (
            "tigris",
            2,
            {"board": "advanced", "buildings": True, "english": True, "wonder": True},
            4,
            600,
        ),
        ("gheos", 2, {}, 5, 300),
        ("gheos", 3, {}, 6, 300),
        ("gheos", 4, {}, 7, 300),
    ],
)
def test_native_observations_equal_the_python_encoders(
    game: str, players: int, options: dict[str, Any], seed: int, steps: int
) -> None:
    play_in_lockstep(game, players, options, seed, steps)


def test_random_actions_are_legal_and_observe_refuses_bad_input() -> None:
    spec = get_spec("tigris")
    states = [spec.module.new_game(3, seed, engine="native") for seed in range(4)]
    batch = native.extension().Batch(states)
    draws = np.arange(4, dtype=np.uint64) * np.uint64(2**61 + 7)
    actions = np.zeros(4, np.int64)
    batch.random_actions(draws, actions)
    for state, r, action in zip(states, draws, actions, strict=True):
        assert action == state.random_action_id(int(r))
    width = spec.observation_size(3)
    out = np.full((4, width), 7.0, np.float32)
    with pytest.raises(ValueError, match="seat 3 is not a seat of game 1"):
        batch.observe(np.array([0, 3, 0, 0]), out)
    with pytest.raises(ValueError, match=f"need {width} columns for game 0, not {width - 1}"):
        batch.observe(np.zeros(4, np.int64), np.zeros((4, width - 1), np.float32))
    with pytest.raises(ValueError, match="4 entries"):
        batch.observe(np.zeros(3, np.int64), out)
    assert (out == 7.0).all()  # refused: nothing written
