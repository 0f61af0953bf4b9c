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
        ("tigris", 2, {}, 1, 300),
        ("tigris", 3, {"board": "advanced", "buildings": True, "wonder": True}, 2, 250),
        ("tigris", 4, {"english": True, "open_scoring": True}, 3, 225),
        ("tigris", 4, {"wonder": True}, 8, 225),
        (
            "tigris",
            2,
            {"board": "advanced", "buildings": True, "english": True, "wonder": True},
            4,
            300,
        ),
        ("gheos", 2, {}, 5, 150),
        ("gheos", 3, {}, 6, 150),
        ("gheos", 4, {}, 7, 150),
    ],
)
def test_native_observations_equal_the_python_encoders(
    game: str, players: int, options: dict[str, Any], seed: int, steps: int
) -> None:
    play_in_lockstep(game, players, options, seed, steps)


def observe_alike(state: Any, players: int) -> None:
    """Every seat's native observation of ``state`` is the Python encoder's."""
    spec = get_spec("tigris")
    width = spec.observation_size(players)
    batch = native.extension().Batch([state])
    for seat in range(players):
        observed = np.full((1, width), np.nan, np.float32)
        batch.observe(np.array([seat]), observed)
        expected = python_observation(spec, batch.get(0), seat, width)
        assert np.array_equal(observed[0], expected), first_difference(observed[0], expected)


def test_a_wonder_is_observed_alike() -> None:
    """Random play seldom builds a wonder (the random games above are too short to count on
    one): a wonder built on a treasure, from a set position, observed at each step."""
    from cradle import tigris
    from tests.helpers.tigris import leader, make_position

    board = {"F5": "red*", "E6": "red", "G6": "red", "F7": "red", "H5": "red"}
    board |= {"F4": leader("bull", "priest"), "H6": leader("archer", "king")}
    start = make_position(
        board, hands={"archer": ["red"]}, actions_left=1, options={"wonder": True}
    )
    state = tigris.from_position(start, seed=9, engine="native")
    for action in ("tile red F6", "wonder F6"):
        state.apply(action)
        observe_alike(state, 2)
    board = state.to_position()["board"]
    assert board["F5"] == "wonder*" and board["F6"] == "wonder"  # on the treasure, and not


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
