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


@pytest.mark.parametrize("engine", ["python", "native"])
def test_settled_priors_judge_a_conflict_by_its_end(engine: str) -> None:
    from cradle.ai.knowledge.gheos import CONFLICT_PHASES, GheosKnowledge

    settled, plain = GheosKnowledge(value=4, settle=True), GheosKnowledge(value=4)
    rng = random.Random(8)
    state = gheos.as_gheos(gheos.new_game(2, 8, engine=engine))
    differs = 0
    while not state.is_over and differs < 3:
        conflicts = state.conflict_actions()
        if conflicts:
            for action in conflicts:
                after = state.clone()
                after.apply(action)
                settled.settle_conflict(after)
                assert after.phase not in CONFLICT_PHASES
            before = plain.priors(state, conflicts)
            after_war = settled.priors(state, conflicts)
            differs += sum(a != b for a, b in zip(before, after_war, strict=True))
            # Actions that start nothing are judged alike.
            calm = [a for a in state.legal_actions() if a not in conflicts][:5]
            assert settled.priors(state, calm) == plain.priors(state, calm)
        legal = state.legal_action_ids()
        state.apply(legal[1] if state.phase == "token" else rng.choice(legal))
    assert differs >= 3
