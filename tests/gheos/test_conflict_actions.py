"""``conflict_actions()``: the tile actions that start a war or a migration (what the search
must not leave out of a batch of replies, ``IsmctsParams.urgent``).

In random games, at every tile decision, the list is exactly the legal tile actions whose
``apply`` (on a copy) reports a conflict, in the legal order, on both engines.
"""

from __future__ import annotations

import random

import pytest

from cradle import gheos
from cradle.core import native

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built")


def conflicts_by_applying(state: gheos.GheosGame) -> list[str]:
    """The legal actions whose events include the conflict's payment notice."""
    found = []
    for action in state.legal_actions():
        trial = state.clone()
        if any(event["type"] == "conflict" for event in trial.apply(action)):
            found.append(action)
    return found


@pytest.mark.parametrize("seed", range(6))
def test_conflict_actions_are_the_tile_actions_that_start_a_conflict(seed: int) -> None:
    rng = random.Random(seed)
    players = 2 + seed % 3
    python = gheos.as_gheos(gheos.new_game(players, seed, engine="python"))
    twin = gheos.as_gheos(gheos.new_game(players, seed, engine="native"))
    found = 0
    while not python.is_over:
        expected = conflicts_by_applying(twin) if twin.phase == "tile" else []
        assert twin.conflict_actions() == expected, (seed, python.to_position())
        assert python.conflict_actions() == expected, (seed, python.to_position())
        found += len(expected)
        legal = python.legal_action_ids()
        # Tokens rarely: longer games, more civilizations side by side.
        action = legal[1] if python.phase == "token" and rng.random() < 0.9 else rng.choice(legal)
        python.apply(action)
        twin.apply(action)
    assert found >= 50, f"only {found} conflicting actions in this game"


def test_none_outside_the_tile_phase_nor_for_a_player_without_followers() -> None:
    state = gheos.as_gheos(gheos.new_game(2, 5, engine="python"))
    assert state.phase == "tile"
    assert not any(state.held[state.active])  # type: ignore[attr-defined]
    assert state.conflict_actions() == []
