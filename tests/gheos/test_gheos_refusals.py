"""What a player is told when an action is refused: the step the game waits for, in each phase,
and the reasons of a bad tied-war winner, a bad action id or a bad hidden-tile order."""

from __future__ import annotations

import random

import pytest

from cradle import gheos
from cradle.gheos.actions import ACTION_COUNT
from cradle.gheos.state import GheosState
from tests.helpers.gheos import war_state

VERBS = {
    "place": "place t1 0,1 r0",
    "pay": "pay red",
    "migrate": "migrate red 0,1:n",
    "winner": "winner red",
    "take": "take red",
    "token": "token",
}
WAITING_FOR = {
    "tile": ("north", "place or replace a tile, e.g. 'place t12 0,1 r0'"),
    "civ": ("north", "start a civilization or take a follower, e.g. 'take red'"),
    "token": ("north", "play a scoring token ('token') or not ('pass')"),
    "pay": ("south", "pay a follower for the war or migration, e.g. 'pay red'"),
    "war": ("south", "choose the winner of the tied war, e.g. 'winner red'"),
    "migrate": ("south", "choose where the civilization migrates, e.g. 'migrate red 0,1:n'"),
}
# The verbs each phase answers with a reason of its own.
OWN_VERB = {"tile": "place", "civ": "take", "pay": "pay", "war": "winner", "migrate": "migrate"}


def first_of_each_phase() -> dict[str, GheosState]:
    """The first state of each phase met in random games of seeds 0, 1, 2 (2, 3, 4 players)."""
    found: dict[str, GheosState] = {}
    for seed in range(3):
        state = gheos.new_game(2 + seed, seed, engine="python")
        rng = random.Random(seed)
        while not state.is_over:
            found.setdefault(state.phase, state.clone())
            state.apply(rng.choice(state.legal_actions()))
    return found


def refusal(state: GheosState, action: str | int) -> str:
    before = state.to_position()
    with pytest.raises(gheos.IllegalAction) as refused:
        state.apply(action)
    assert state.to_position() == before
    return str(refused.value)


def test_each_phase_says_what_it_waits_for() -> None:
    phases = first_of_each_phase()
    assert set(phases) == set(WAITING_FOR)
    for phase, state in phases.items():
        who, expected = WAITING_FOR[phase]
        for verb, action in VERBS.items():
            if OWN_VERB.get(phase) != verb and not (phase == "token" and verb == "token"):
                assert (
                    refusal(state, action) == f"{verb!r} is not possible now: {who} must {expected}"
                )
        assert refusal(state, "fly") == (
            "unknown action 'fly': the actions are place, replace, pay, migrate, winner, start, "
            "take, token and pass"
        )


def test_a_tied_war_takes_one_of_the_tied_colours() -> None:
    state = war_state(extra={"-1,1": "t9 r0"}, followers={"north": {"red": 1}})
    state.apply("place t19 -1,0 r0")
    assert state.phase == "war"
    assert refusal(state, "winner green") == "green is not one of the tied leaders (red, blue)"
    assert refusal(state, "winner") == refusal(state, "winner red blue")
    assert refusal(state, "winner") == "write 'winner <colour>'"
    assert state.apply("winner red")[0] == {
        "type": "war",
        "text": "war between red and blue: red wins",
        "civs": ["red", "blue"],
        "winner": "red",
    }


def test_action_ids_outside_the_table_are_refused_with_the_range() -> None:
    state = gheos.new_game(2, 1, engine="python")
    last = ACTION_COUNT - 1
    for bad, reason in [
        (True, "an action id is an integer, not bool"),
        (1.5, "an action id is an integer, not float"),
        (-1, f"action id -1 is outside 0..{last}"),
        (ACTION_COUNT, f"action id {ACTION_COUNT} is outside 0..{last}"),
    ]:
        with pytest.raises(gheos.IllegalAction) as refused:
            state.action_string(bad)  # type: ignore[arg-type]
        assert str(refused.value) == reason
    assert state.action_string(0).startswith("place ")
    assert state.action_string(last) == "pass"
