"""The vectorised environment (cradle.envs.vector): Gymnasium's vector API over native games,
observations equal to the PettingZoo env's, masks equal to the legal ids, NEXT_STEP autoreset."""

from __future__ import annotations

import random
import weakref
from typing import Any

import numpy as np
import pytest

from cradle.core import native

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built")

from cradle.envs.pettingzoo_env import CradleAECEnv  # noqa: E402
from cradle.envs.vector import CradleVectorEnv  # noqa: E402


def random_actions(obs: dict[str, Any], rng: np.random.Generator) -> np.ndarray[Any, Any]:
    return np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in obs])


def pettingzoo_observation(aec: CradleAECEnv, state: Any) -> dict[str, Any]:
    """What the PettingZoo env shows the seat to move of ``state``."""
    aec.reset(seed=0)
    aec.state_ = state.clone()
    aec._select()
    observed: dict[str, Any] = aec.observe(aec.agent_selection)
    return observed


@pytest.mark.parametrize(("game", "players"), [("tigris", 2), ("tigris", 3), ("gheos", 2)])
def test_observations_are_the_pettingzoo_envs_and_masks_the_legal_ids(
    game: str, players: int
) -> None:
    env = CradleVectorEnv(game, 3, players)
    aec = CradleAECEnv(game, players)
    obs, infos = env.reset(seed=4)
    rng = np.random.default_rng(1)
    for _ in range(25):
        for i in range(env.num_envs):
            state = env.game_state(i)
            assert infos["seat"][i] == state.to_move
            expected = pettingzoo_observation(aec, state)
            assert np.array_equal(obs["observation"][i], expected["observation"])
            assert np.array_equal(obs["action_mask"][i], expected["action_mask"])
            assert np.flatnonzero(obs["action_mask"][i]).tolist() == sorted(
                state.legal_action_ids()
            )
            assert env.single_observation_space["observation"].contains(obs["observation"][i])
        obs, _, _, _, infos = env.step(random_actions(obs["action_mask"], rng))


@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_hidden_information_never_reaches_another_seats_observation(game: str) -> None:
    # the observations are the native encoders' (Batch.observe)
    env = CradleVectorEnv(game, 4, 3)
    obs, infos = env.reset(seed=9)
    rng = np.random.default_rng(2)
    for _ in range(10):
        obs, _, _, _, infos = env.step(random_actions(obs["action_mask"], rng))
    for i in range(env.num_envs):
        state, seat = env.game_state(i), int(infos["seat"][i])
        redealt = state.sample_hidden(seat, random.Random(i))  # other hands and the pile
        assert any(redealt.hand(s) != state.hand(s) for s in range(3) if s != seat)
        env._batch.set(i, redealt)
    again = env._observe()
    assert np.array_equal(again["observation"], obs["observation"])
    assert np.array_equal(again["action_mask"], obs["action_mask"])


def test_a_game_that_ends_is_scored_then_reset_on_the_next_step() -> None:
    env = CradleVectorEnv("gheos", 2, 2)
    obs, infos = env.reset(seed=5)
    rng = np.random.default_rng(3)
    for _ in range(2000):
        acting = infos["seat"].copy()
        obs, rewards, terminated, truncated, infos = env.step(
            random_actions(obs["action_mask"], rng)
        )
        if terminated.any():
            break
    else:
        raise AssertionError("no game ended")
    ended = int(np.flatnonzero(terminated)[0])
    utilities = infos["utilities"][ended]
    assert rewards[ended] == utilities[acting[ended]] and sorted(utilities) == [-1.0, 1.0]
    assert not obs["action_mask"][ended].any()  # a finished game offers nothing
    actions = random_actions(obs["action_mask"], rng)
    actions[ended] = 10**6  # ignored: the game starts again
    obs, rewards, terminated, truncated, infos = env.step(actions)
    fresh = env.game_state(ended)
    assert rewards[ended] == 0.0 and not terminated[ended] and not truncated[ended]
    assert not fresh.is_over and fresh.stack_size() > 0 and obs["action_mask"][ended].any()


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    env = CradleVectorEnv("tigris", 3, 2)
    obs, _ = env.reset(seed=2)
    before = [env.game_state(i).to_position() for i in range(3)]
    actions = random_actions(obs["action_mask"], np.random.default_rng(0))
    actions[2] = int(np.flatnonzero(obs["action_mask"][2] == 0)[0])
    with pytest.raises(ValueError, match="not legal in game 2"):
        env.step(actions)
    assert [env.game_state(i).to_position() for i in range(3)] == before
    with pytest.raises(ValueError, match="3 integer ids"):
        env.step([0, 1])


def test_the_same_seed_plays_the_same_games() -> None:
    def run() -> list[Any]:
        env = CradleVectorEnv("tigris", 2, 2)
        obs, _ = env.reset(seed=11)
        rng = np.random.default_rng(4)
        for _ in range(30):
            obs, *_ = env.step(random_actions(obs["action_mask"], rng))
        return [env.game_state(i).to_position() for i in range(2)]

    assert run() == run()


def test_random_actions_follow_the_masks() -> None:
    env = CradleVectorEnv("gheos", 5, 2)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(5)
    for _ in range(40):
        actions = env.random_actions(rng.integers(0, 2**63, 5, dtype=np.uint64))
        playing = obs["action_mask"].any(axis=1)
        assert obs["action_mask"][playing, actions[playing]].all()
        obs, *_ = env.step(actions)


@pytest.mark.parametrize(
    ("game", "width", "actions"), [("tigris", 7503, 3398), ("gheos", 4314, 191012)]
)
def test_the_shapes_docs_vector_md_gives(game: str, width: int, actions: int) -> None:
    for players in (2, 4):
        env = CradleVectorEnv(game, 3, players)
        obs, _ = env.reset(seed=players)
        assert obs["observation"].shape == (3, width)
        assert obs["action_mask"].shape == (3, actions)


def test_normalized_observations_lie_in_minus_one_to_one() -> None:
    raw = CradleVectorEnv("gheos", 2, 3)
    env = CradleVectorEnv("gheos", 2, 3, normalize=True)
    a, _ = raw.reset(seed=2)
    b, _ = env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(40):
        assert env.observation_space.contains(b)
        assert np.abs(b["observation"]).max() <= 1
        np.testing.assert_allclose(b["observation"] * env._scales, a["observation"], rtol=1e-6)
        actions = random_actions(a["action_mask"], rng)
        a, *_ = raw.step(actions)
        b, *_ = env.step(actions)


@pytest.mark.parametrize(
    ("game", "memory", "players"), [("tigris", 12, 2), ("tigris", 12, 4), ("gheos", 52, 3)]
)
def test_the_information_state_tensor(game: str, memory: int, players: int) -> None:
    # written natively (Batch.observe_memory): compared with the reference spec.fill_memory
    plain = CradleVectorEnv(game, 2, players)
    env = CradleVectorEnv(game, 2, players, information_state=True)
    a, _ = plain.reset(seed=6)
    b, infos = env.reset(seed=6)
    rng = np.random.default_rng(6)
    for _ in range(80):
        width = a["observation"].shape[1]
        assert b["observation"].shape[1] == width + memory
        np.testing.assert_array_equal(b["observation"][:, :width], a["observation"])
        assert env.observation_space.contains(b)
        for i in range(2):
            expected = np.zeros(memory, np.float32)
            spec = env.game_spec
            spec.fill_memory(env.game_state(i).to_position(), int(infos["seat"][i]), expected)
            np.testing.assert_array_equal(b["observation"][i, width:], expected)
        assert b["observation"][:, width:].any()  # some tile is unseen
        actions = random_actions(a["action_mask"], rng)
        a, *_ = plain.step(actions)
        b, _, _, _, infos = env.step(actions)


def test_vector_bench_reports_steps_per_cpu_second_and_the_load() -> None:
    from cradle.envs.bench import VECTOR_SIZES, describe, measure_vector

    summary = measure_vector("gheos", 2, {}, 0.5, seed=1)
    sizes = {str(n) for n in VECTOR_SIZES}
    assert set(summary["vector_steps_per_s"]) == set(summary["vector_steps_per_cpu_s"]) == sizes
    assert all(rate > 0 for rate in summary["vector_steps_per_cpu_s"].values())
    assert set(summary["load"]) == {"start", "end"}
    assert "per CPU-s" in describe(summary)


def test_arrays_the_caller_keeps_never_change_and_dropped_ones_are_recycled() -> None:
    env = CradleVectorEnv("gheos", 3, 2)
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(3)
    kept = []
    for step in range(40):
        if step % 7 == 0:  # a view of one, a reference to the other
            kept.append((obs["observation"][1:], obs["action_mask"]))
            kept.append((obs["observation"][1:].copy(), obs["action_mask"].copy()))
        obs, *_ = env.step(random_actions(obs["action_mask"], rng))
    for (view, mask), (view_then, mask_then) in zip(kept[::2], kept[1::2], strict=True):
        assert np.array_equal(view, view_then) and np.array_equal(mask, mask_then)
    # a loop that lets each step's arrays go gets the same arrays back, cleared of the last
    # step's ones (checked against the legal ids)
    del obs, kept, view, mask
    last = None
    for step in range(30):
        obs, *_ = env.step(env.random_actions(rng.integers(0, 2**63, 3, dtype=np.uint64)))
        if step > 0:
            assert last is not None and obs["action_mask"] is last()
        last = weakref.ref(obs["action_mask"])
        for i in range(3):
            state = env.game_state(i)
            legal = [] if state.is_over else sorted(state.legal_action_ids())
            assert np.flatnonzero(obs["action_mask"][i]).tolist() == legal
        del obs


# A fresh process: the peak resident memory a Gheos vector env adds to its imports at N = 256
# with the default (engine) ids, after steps. Mostly the step's own masks (47 MiB each).
_MEMORY = """
import resource
import numpy as np
from cradle.envs.vector import CradleVectorEnv
def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
start = peak()
env = CradleVectorEnv("gheos", 256, 2)
env.reset(seed=1)
rng = np.random.default_rng(0)
for _ in range(20):
    obs, *_ = env.step(env.random_actions(rng.integers(0, 2**63, 256, dtype=np.uint64)))
print(peak() - start)
"""


def test_a_gheos_vector_env_of_256_games_takes_under_120_mib_above_its_imports() -> None:
    import subprocess
    import sys

    from gymnasium import spaces

    env = CradleVectorEnv("gheos", 4, 2)
    assert isinstance(env.observation_space["action_mask"], spaces.MultiBinary)
    assert env.observation_space["action_mask"].shape == (4, env.actions)
    obs, _ = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    done = subprocess.run([sys.executable, "-c", _MEMORY], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) <= 120, done.stdout
