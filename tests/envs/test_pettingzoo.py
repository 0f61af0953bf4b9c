"""PettingZoo: both environments pass PettingZoo's own API and seed tests."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, render_test, seed_test

from cradle.envs import gheos_v0, tigris_v0

MODULES = [tigris_v0, gheos_v0]


@pytest.fixture(autouse=True)
def _quiet() -> Any:
    # PettingZoo's checks warn that dict observations are "not a NumPy array"; they are meant to.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.NAME)
@pytest.mark.parametrize("players", [2, 4])
def test_api_test(module: Any, players: int) -> None:
    api_test(module.env(players=players), num_cycles=400)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.NAME)
def test_seed_test(module: Any) -> None:
    seed_test(module.env, num_cycles=200)


def test_tigris_variants_are_options() -> None:
    env = tigris_v0.env(players=3, board="advanced", buildings=True, wonder=True)
    api_test(env, num_cycles=100)
    env.reset(seed=3)
    assert env.unwrapped.game_state().to_position()["options"]["board"] == "advanced"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.NAME)
def test_a_full_game_ends_with_zero_sum_rewards(module: Any) -> None:
    env = module.env(players=3)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        assert env.observation_space(agent).contains(obs)
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        env.step(int(rng.choice(legal)))
    assert sum(totals.values()) == pytest.approx(0.0)
    assert max(totals.values()) > 0


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.NAME)
def test_an_illegal_action_is_refused_and_changes_nothing(module: Any) -> None:
    env = module.raw_env()
    env.reset(seed=4)
    before = env.game_state().to_position()
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        env.step(illegal)
    assert env.game_state().to_position() == before


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.NAME)
def test_ansi_rendering_is_text(module: Any) -> None:
    env = module.env(render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert isinstance(text, str) and len(text) > 20


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.NAME)
def test_render_test(module: Any, capsys: pytest.CaptureFixture[str]) -> None:
    render_test(module.env)
    assert len(capsys.readouterr().out) > 100  # human mode printed the positions


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="players"):
        tigris_v0.env(players=5)
    with pytest.raises(ValueError, match="unknown option"):
        tigris_v0.env(colour="red")
    with pytest.raises(ValueError, match="render_mode"):
        gheos_v0.env(render_mode="rgb_array")


def test_truncation_at_the_move_cap() -> None:
    env = tigris_v0.env(max_moves=5)
    env.reset(seed=0)
    steps = 0
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            assert truncated and not terminated
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert steps == 5


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.NAME)
def test_every_id_outside_the_mask_is_refused(module: Any) -> None:
    # The engine checks ids itself; whatever it refuses must match the mask exactly.
    env = module.raw_env(players=3)
    env.reset(seed=8)
    rng = np.random.default_rng(8)
    size = env.action_space(env.agent_selection).n
    for _ in range(12):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        legal = env.legal_action_ids()
        mask = env.observe(agent)["action_mask"]
        assert sorted(legal) == list(np.flatnonzero(mask))
        before = env.game_state().to_position()
        near = [i + d for i in legal[:20] for d in (-2, -1, 1, 2, 3)]
        for action in {*near, *rng.integers(0, size, 200).tolist(), -1, size}:
            if action in legal:
                continue
            with pytest.raises(ValueError, match="not legal"):
                env.step(action)
            assert env.game_state().to_position() == before
        env.step(int(rng.choice(legal)))
