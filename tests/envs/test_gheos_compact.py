"""The compact Gheos action space: every legal action of random games round-trips, one to
one, and the space stays a few thousand wide."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cradle.core import native
from cradle.envs.gheos_compact import COMPACT_COUNT, CompactActions
from cradle.gheos import new_game


def test_the_space_is_a_few_thousand_wide() -> None:
    assert COMPACT_COUNT == 2588


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.integers(2, 4))
def test_every_legal_action_round_trips(seed: int, players: int) -> None:
    state = new_game(players, seed)
    rng = random.Random(seed)
    while not state.is_over:
        compact = CompactActions(state)
        legal = state.legal_action_ids()
        mapped = [compact.compact(i) for i in legal]
        assert len(set(mapped)) == len(legal)  # one to one
        assert all(0 <= c < COMPACT_COUNT for c in mapped)
        assert [compact.engine(c) for c in mapped] == legal
        assert compact.mask(legal).sum() == len(legal)
        state.apply(rng.choice(legal))


def test_a_compact_id_naming_no_cell_is_refused() -> None:
    compact = CompactActions(new_game(2, 1))
    with pytest.raises(ValueError, match="no cell"):
        compact.engine(3 * 60)  # frontier place 60 of a fresh map
    with pytest.raises(ValueError, match="outside"):
        compact.engine(COMPACT_COUNT)


@pytest.mark.skipif(not native.available(), reason="the native engine is not built")
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.integers(2, 4))
def test_the_vector_envs_compact_masks_map_one_to_one_onto_the_legal_actions(
    seed: int, players: int
) -> None:
    # the native compact ids (Batch.masks/step/random_actions with compact) against the
    # reference CompactActions, every step of random games, stepping by compact ids
    from cradle.envs.vector import CradleVectorEnv

    env = CradleVectorEnv("gheos", 2, players, actions="compact")
    assert env.single_action_space.n == COMPACT_COUNT
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(120):
        masks = obs["action_mask"]
        assert masks.shape == (2, COMPACT_COUNT)
        drawn = env.random_actions(rng.integers(0, 2**63, 2, dtype=np.uint64))
        for i in range(2):
            state = env.game_state(i)
            if state.is_over:
                assert not masks[i].any()
                continue
            table = CompactActions(state)
            legal = state.legal_action_ids()
            assert np.array_equal(masks[i], table.mask(legal))
            assert masks[i].sum() == len(legal)  # one to one
            assert masks[i, drawn[i]] == 1
        obs, *_ = env.step(drawn)
    # after a reset: a game that ended at the last step would ignore its action (autoreset)
    env.reset(seed=seed)
    with pytest.raises(ValueError, match="not legal"):
        env.step(np.array([COMPACT_COUNT - 1, COMPACT_COUNT], np.int64))
