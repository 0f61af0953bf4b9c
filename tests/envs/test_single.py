"""The single-agent environments (cradle.envs.single): Gymnasium's checker, the learner's
rewards, native and Python opponents, pools and policies, seeds, bad input."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from cradle.core import native

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built")

import gymnasium  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

import cradle.envs  # noqa: E402, F401  (registers the ids)
from cradle.envs.single import CradleSingleEnv, CradleSingleVecEnv  # noqa: E402


def play(env: CradleSingleVecEnv, steps: int, seed: int) -> list[tuple[Any, ...]]:
    """Random legal learner moves; checks every step's invariants; returns the trajectory."""
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    seen: list[tuple[Any, ...]] = []
    for _ in range(steps):
        masks = env.action_masks()
        for i in range(env.num_envs):
            state = env.game_state(i)
            if masks[i].any():
                # the learner is to move, and its mask is the state's legal ids
                assert state.to_move == infos["seat"][i]
                assert sorted(np.flatnonzero(masks[i])) == sorted(state.legal_action_ids())
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        obs, rewards, terminated, _truncated, infos = env.step(actions)
        assert env.observation_space.contains(obs)
        for i in np.flatnonzero(terminated):
            assert rewards[i] == infos["utilities"][i, infos["seat"][i]]
            assert abs(infos["utilities"][i].sum()) < 1e-9
        assert not rewards[~terminated].any()
        seen.append((actions.tolist(), rewards.tolist(), terminated.tolist()))
    return seen


@pytest.mark.parametrize(
    ("game", "opponents"), [("tigris", "greedy"), ("gheos", "random"), ("tigris", "expert-rules")]
)
def test_gymnasium_check_env(game: str, opponents: str) -> None:
    env_id = {"tigris": "cradle/Tigris-v1", "gheos": "cradle/Gheos-v1"}[game]
    env = gymnasium.make(env_id, players=2, opponents=opponents)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # bounds far from [-1, 1] are warned of
        check_env(env.unwrapped, skip_render_check=True)
    assert isinstance(env.unwrapped, CradleSingleEnv)


def test_make_vec_against_greedy_gives_the_learner_its_rewards() -> None:
    env = gymnasium.make_vec("cradle/Tigris-v1", num_envs=6, opponents="greedy")
    assert isinstance(env, CradleSingleVecEnv)
    trajectory = play(env, 150, seed=3)
    assert any(any(t) for _, _, t in trajectory), "some game ended in 150 steps"
    # the same seed plays the same games
    assert play(env, 40, seed=3) == trajectory[:40]


@pytest.mark.parametrize("players", [3, 4])
def test_a_pool_of_native_and_python_opponents(players: int) -> None:
    env = CradleSingleVecEnv(
        "gheos",
        3,
        players=players,
        opponents=["random", "greedy", "expert-rules", "ismcts@2/exploration=0.5"],
        seat=1,
    )
    play(env, 25, seed=players)
    assert (env.learners == 1).all()
    kinds = {type(b).__name__ for row in env._py_bots for b in row if b is not None}
    natives = {s[0] for row in env._native_seats for s in row if s is not None}
    assert kinds | natives


def test_a_policy_plays_the_opponent_seats() -> None:
    calls: list[int] = []

    def first_legal(observations: np.ndarray[Any, Any], masks: np.ndarray[Any, Any]) -> Any:
        assert observations.shape[0] == masks.shape[0] and masks.any(axis=1).all()
        calls.append(len(masks))
        return masks.argmax(axis=1)

    env = CradleSingleVecEnv("tigris", 4, opponents=first_legal, seat=0)
    play(env, 20, seed=1)
    assert sum(calls) >= 20


def test_an_illegal_learner_action_loses_the_game() -> None:
    env = CradleSingleVecEnv("gheos", 2, players=3, opponents="random")
    env.reset(seed=0)
    bad = np.array([int(np.flatnonzero(env.action_masks()[0] == 0)[0]), 0])
    bad[1] = int(np.flatnonzero(env.action_masks()[1])[0])
    _, rewards, terminated, _, infos = env.step(bad)
    assert terminated.tolist() == [True, False] and infos["illegal"].tolist() == [True, False]
    assert rewards[0] == -1.0 and infos["utilities"][0].sum() == pytest.approx(0.0)
    env.step(np.array([0, int(np.flatnonzero(env.action_masks()[1])[0])]))  # row 0 resets
    assert env.action_masks()[0].any()


def test_an_illegal_learner_action_is_refused_when_asked() -> None:
    env = CradleSingleVecEnv("tigris", 2, opponents="random", illegal="raise")
    env.reset(seed=0)
    before = [env.game_state(i).to_position() for i in range(2)]
    bad = np.array([int(np.flatnonzero(env.action_masks()[0] == 0)[0]), 0])
    with pytest.raises(ValueError, match="not legal"):
        env.step(bad)
    assert [env.game_state(i).to_position() for i in range(2)] == before


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        CradleSingleVecEnv("tigris", 1, opponents="grandmaster")
    with pytest.raises(ValueError, match="seat"):
        CradleSingleVecEnv("tigris", 1, seat=2)
    with pytest.raises(ValueError, match="opponents"):
        CradleSingleVecEnv("tigris", 1, opponents=[])


@pytest.mark.parametrize(("game", "board"), [("tigris", (42, 11, 16)), ("gheos", (41, 29, 55))])
def test_normalized_board_observations(game: str, board: tuple[int, ...]) -> None:
    flat = CradleSingleVecEnv(game, 3, opponents="random")
    shaped = CradleSingleVecEnv(game, 3, opponents="random", normalize=True, observation="board")
    raw, _ = flat.reset(seed=9)
    obs, _ = shaped.reset(seed=9)
    assert obs["board"].shape == (3, *board)
    assert shaped.observation_space.contains(obs)
    # the flat observation's parts (Gheos: its tile table, the grid written apart)
    first = obs["tiles"] if game == "gheos" else obs["board"]
    both = np.concatenate([first.reshape(3, -1), obs["features"]], axis=1)
    np.testing.assert_allclose(both * shaped._scales, raw, rtol=1e-6)
    if game == "gheos":
        from cradle.envs.gheos_grid import fill_grid

        grid = np.zeros(board, np.float32)
        fill_grid(shaped.game_state(0).view(None), grid)
        np.testing.assert_allclose(obs["board"][0] * shaped._board_scales, grid, rtol=1e-6)
    for _ in range(30):
        obs, *_ = shaped.step(shaped.random_actions(np.arange(3, dtype=np.uint64) * 7919))
        assert all(np.abs(part).max() <= 1 for part in obs.values())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check_env(
            CradleSingleEnv(game, normalize=True, observation="board"), skip_render_check=True
        )


def test_the_compact_gheos_actions() -> None:
    from cradle.envs.gheos_compact import COMPACT_COUNT, CompactActions

    def by_policy(observations: np.ndarray[Any, Any], masks: np.ndarray[Any, Any]) -> Any:
        assert masks.shape[1] == COMPACT_COUNT
        return masks.argmax(axis=1)

    env = CradleSingleVecEnv("gheos", 3, players=3, opponents=by_policy, actions="compact")
    assert env.single_action_space.n == COMPACT_COUNT
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(60):
        masks = env.action_masks()
        for i in np.flatnonzero(masks.any(axis=1)):
            state = env.game_state(int(i))
            table = CompactActions(state)
            assert sorted(table.engine(int(c)) for c in np.flatnonzero(masks[i])) == sorted(
                state.legal_action_ids()
            )
        actions = env.random_actions(rng.integers(0, 2**63, 3, dtype=np.uint64))
        assert all(masks[i, a] for i, a in enumerate(actions) if masks[i].any())
        *_, infos = env.step(actions)
        assert not infos["illegal"].any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check_env(CradleSingleEnv("gheos", actions="compact"), skip_render_check=True)
    with pytest.raises(ValueError, match="compact"):
        CradleSingleVecEnv("tigris", 1, actions="compact")


def test_the_single_agent_bench(monkeypatch: pytest.MonkeyPatch) -> None:
    from cradle.envs import bench

    monkeypatch.setattr(bench, "SINGLE_OPPONENTS", ("random", "greedy"))
    monkeypatch.setattr(bench, "SINGLE_SIZE", 4)
    summary = bench.measure("tigris", "single", 2, {}, 0.4, 1)
    assert set(summary["learner_steps_per_s"]) == {"random", "greedy"}
    assert all(r > 0 for r in summary["learner_steps_per_cpu_s"].values())
    assert "learner steps/s against random" in bench.describe(summary)


@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_expert_rules_and_its_styles_are_native_opponents(game: str) -> None:
    experts = {"expert-rules", "red-keeper", "turtle", "warmonger"}
    env = CradleSingleVecEnv(game, 4, players=3, opponents=sorted(experts))
    trajectory = play(env, 30, seed=5)
    assert all(b is None for row in env._py_bots for b in row)
    assert {s[0] for row in env._native_seats for s in row if s} <= experts
    assert play(env, 30, seed=5) == trajectory  # the same seed plays the same games


def test_ismcts_opponents_are_native() -> None:
    env = CradleSingleVecEnv("tigris", 3, opponents="ismcts@4")
    play(env, 12, seed=2)
    assert all(b is None for row in env._py_bots for b in row)
    assert {s[0] for row in env._native_seats for s in row if s} == {"ismcts@4"}
    # with settings it is the Python bot
    env = CradleSingleVecEnv("tigris", 2, opponents="ismcts@4/exploration=0.5")
    env.reset(seed=1)
    assert any(b is not None for row in env._py_bots for b in row)
