"""Hints: the best few actions for the seat to move, with chances and reasons."""

from __future__ import annotations

import pytest

from cradle import tigris
from cradle.ai.hints import hints
from cradle.ai.search.budget import Budget
from tests.helpers.ai import decision_positions, revolt_position


@pytest.mark.parametrize(("game", "players"), [("tigris", 2), ("gheos", 3)])
def test_hints_are_legal_ranked_and_explained(game: str, players: int) -> None:
    state = decision_positions(game, players, seed=9, count=3)[-1]
    found = hints(state, count=3, budget=Budget(iterations=80), seed=1)
    assert 1 <= len(found) <= 3
    legal = state.legal_actions()
    for hint in found:
        assert hint.action in legal
        assert 0.0 <= hint.win_chance <= 1.0
        assert hint.reason and "\n" not in hint.reason
    assert len({h.action for h in found}) == len(found)


def test_a_revolt_hint_gives_the_count_and_what_would_beat_it() -> None:
    state = tigris.from_position(revolt_position(4), seed=1)
    found = hints(state, count=50, budget=Budget(iterations=400), seed=3)
    by_action = {h.action: h.reason for h in found}
    # K5 touches 2 temples, and archer holds 4 more: bull would need 4 of its 6 tiles.
    assert by_action["leader priest K5"].startswith(
        "wins the revolt 6–2 unless they hold 4 temples (about 10% likely)"
    )


def test_a_forced_decision_gets_one_hint() -> None:
    state = tigris.from_position(revolt_position(0), seed=1)
    state.apply("leader priest K5")
    (only,) = hints(state, budget=Budget(iterations=50))
    assert only.action == "commit 0"
    assert only.reason.startswith("the only legal action")


def test_hints_only_for_the_seat_to_move_and_a_live_game() -> None:
    state = tigris.new_game(2, 3)
    with pytest.raises(ValueError, match="seat to move"):
        hints(state, seat=1 - state.to_move, budget=Budget(iterations=5))
    with pytest.raises(ValueError, match="at least one"):
        hints(state, count=0, budget=Budget(iterations=5))


@pytest.mark.parametrize(("game", "players"), [("tigris", 2), ("gheos", 2)])
def test_hints_search_with_the_bots_own_evaluation(game: str, players: int) -> None:
    """A hint is what ``hard``'s search would say (IsmctsParams' defaults: Tigris value 2,
    Gheos value 4 with settled priors), not the knowledge's first evaluation."""
    import random

    from cradle.ai.knowledge.params import knowledge_for
    from cradle.ai.search.ismcts import search
    from cradle.ai.search.params import IsmctsParams, knowledge_of
    from cradle.ai.search.worlds import sample_world

    state = decision_positions(game, players, seed=4, count=4)[-1]
    budget = Budget(iterations=120)
    found = hints(state, count=4, budget=budget, seed=6)

    def ranked(first: bool) -> list[tuple[str, int]]:
        params = IsmctsParams()
        rng = random.Random(6)
        sample_world(state, state.to_move, rng)  # the hints' world for the reasons
        knowledge = knowledge_for(game) if first else knowledge_of(state, params)
        result = search(state, state.to_move, budget, params, rng.getrandbits(63), knowledge)
        return [(row.action, row.visits) for row in result.actions[:4]]

    assert [(h.action, h.visits) for h in found] == ranked(first=False)
    assert ranked(first=False) != ranked(first=True)
