"""The compact Gheos action space: every legal action of random games round-trips, one to
one, and the space stays a few thousand wide."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
