"""The first player across the interfaces: drawn by default, fixed by ``first_player`` in the
PettingZoo env, the vector env and the single-agent envs (OpenSpiel's seat 0 with 0)."""

from __future__ import annotations

import pytest

from cradle.core import native

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built")

from cradle.envs import gheos_v0, tigris_v0  # noqa: E402
from cradle.envs.single import CradleSingleVecEnv  # noqa: E402
from cradle.envs.vector import CradleVectorEnv  # noqa: E402


@pytest.mark.parametrize("module", [tigris_v0, gheos_v0], ids=lambda m: m.NAME)
def test_pettingzoo(module: object) -> None:
    drawn = set()
    for seed in range(12):
        env = module.raw_env(players=3)  # type: ignore[attr-defined]
        env.reset(seed=seed)
        drawn.add(env.agent_selection)
        fixed = module.raw_env(players=3, first_player=2)  # type: ignore[attr-defined]
        fixed.reset(seed=seed)
        assert fixed.agent_selection == "player_2"
        again = module.raw_env(players=3, first_player=2)  # type: ignore[attr-defined]
        again.reset(seed=seed)
        assert again.game_state().to_position() == fixed.game_state().to_position()
    assert len(drawn) > 1


@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_vector_and_single_agent_envs(game: str) -> None:
    vector = CradleVectorEnv(game, 8, 3, first_player=0)
    _, infos = vector.reset(seed=1)
    assert (infos["seat"] == 0).all()
    single = CradleSingleVecEnv(game, 8, 3, first_player=1, seat=1)
    single.reset(seed=1)
    for i in range(8):
        state = single.game_state(i)
        assert state.to_move == 1  # the learner starts: no opponent moved yet
    drawn = CradleVectorEnv(game, 8, 3)
    _, infos = drawn.reset(seed=1)
    assert len(set(infos["seat"].tolist())) > 1
    with pytest.raises(ValueError, match="first_player"):
        CradleVectorEnv(game, 1, 2, first_player=2)
