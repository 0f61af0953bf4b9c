"""What only the native engine has or must do itself: choosing it, pickling and copying it,
its fast paths for search and research, and Python's own text rules in its refusals."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import pytest

from cradle import gheos
from cradle.core import native
from cradle.gheos.state import GheosState
from tests.helpers.gheos import build

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built")


def played(seed: int, players: int, steps: int, engine: str = "native") -> Any:
    rng = random.Random(seed)
    state = gheos.new_game(players, seed, engine=engine)
    for _ in range(steps):
        if state.is_over:
            break
        state.apply(rng.choice(state.legal_action_ids()))
    return state


def test_the_engine_is_chosen_by_argument_then_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CRADLE_ENGINE", raising=False)
    assert type(gheos.new_game(2, 1)).__module__ == "cradle._native"  # native when built
    assert isinstance(gheos.new_game(2, 1, engine="python"), GheosState)
    monkeypatch.setenv("CRADLE_ENGINE", "python")
    assert isinstance(gheos.new_game(2, 1), GheosState)
    assert isinstance(gheos.from_position({"players": ["a", "b"]}), GheosState)
    assert type(gheos.from_position({"players": ["a", "b"]}, engine="native")).__module__ == (
        "cradle._native"
    )
    with pytest.raises(ValueError, match="unknown engine 'fast'"):
        gheos.new_game(2, 1, engine="fast")


def test_pickles_keep_everything_hidden_in_its_order() -> None:
    for seed, players, steps in [(1, 2, 0), (2, 3, 17), (3, 4, 41), (4, 2, 400)]:
        state = played(seed, players, steps)
        again = pickle.loads(pickle.dumps(state))
        assert again.to_position() == state.to_position()
        assert again.legal_action_ids() == state.legal_action_ids()
        # The same draws from the same generator: the hands keep their list order too.
        one, two = (
            state.sample_hidden(0, random.Random(5)),
            again.sample_hidden(0, random.Random(5)),
        )
        assert one.to_position() == two.to_position()
        while not state.is_over:
            action = state.legal_action_ids()[-1]
            assert again.apply(action) == state.apply(action)
        assert again.is_over and again.result() == state.result()


def test_a_pending_war_pickles_and_copies() -> None:
    from tests.helpers.gheos import war_state

    state = war_state(extra={"-1,1": "t9 r0"}, followers={"north": {"red": 1, "blue": 1}})
    state = gheos.from_position(state.to_position(), engine="native")
    state.apply("place t19 -1,0 r0")
    assert state.phase == "pay"
    for other in (pickle.loads(pickle.dumps(state)), copy.copy(state), copy.deepcopy(state)):
        assert other.to_position() == state.to_position()
        other.apply("pay red")
        assert other.phase == "war" and state.phase == "pay"  # independent


def test_copies_are_independent_and_the_repr_says_what_it_is() -> None:
    state = played(6, 3, 20)
    before = state.to_position()
    twin = copy.deepcopy(state)
    twin.random_playout(1)
    assert twin.is_over and state.to_position() == before
    text = repr(state)
    assert "native GheosState" in text and "3 players" in text and f"phase {state.phase}" in text


def test_a_random_playout_ends_the_game_in_place_the_same_way_for_a_seed() -> None:
    state = gheos.new_game(4, 11, engine="native")
    one, two = state.clone(), state.clone()
    actions = one.random_playout(7)
    assert one.is_over and actions > 10
    assert two.random_playout(7) == actions
    assert one.to_position() == two.to_position()
    assert not state.is_over
    assert one.random_playout(7) == 0  # nothing left to play


def test_count_based_choice_and_apply_without_events() -> None:
    state = gheos.new_game(2, 3, engine="native")
    reference = gheos.new_game(2, 3, engine="python")
    rng = random.Random(0)
    while not state.is_over:
        count = state.legal_action_count()
        ids = state.legal_action_ids()
        assert count == len(ids)
        k = rng.randrange(count)
        assert state.legal_action_at(k) == ids[k]
        assert state.legal_action_at(-1) == ids[-1]
        assert state.apply_id(ids[k]) is None
        reference.apply(ids[k])
        assert state.to_position() == reference.to_position()
    with pytest.raises(IndexError):
        state.legal_action_at(0)


def test_apply_id_refuses_what_apply_refuses() -> None:
    state = gheos.new_game(2, 3, engine="native")
    before = state.to_position()
    not_legal = next(i for i in range(10**5) if i not in set(state.legal_action_ids()))
    with pytest.raises(gheos.IllegalAction) as caught:
        state.apply_id(not_legal)
    with pytest.raises(gheos.IllegalAction) as also:
        state.apply(not_legal)
    assert str(caught.value) == str(also.value)
    with pytest.raises(gheos.IllegalAction, match="an action id is an integer, not str"):
        state.apply_id("pass")  # type: ignore[arg-type]
    with pytest.raises(gheos.IllegalAction, match="outside"):
        state.apply(10**40)
    assert state.to_position() == before


@pytest.mark.parametrize("engine", ["python", "native"])
def test_pythons_own_text_rules(engine: str) -> None:
    """Text beyond ASCII reads as Python reads it: Arabic-Indic digits are a number, a
    superscript two a digit that Python's int refuses (no tile, then), a no-break space
    separates words, and refusals quote what was written as repr() does."""
    state = build({}, hands={"north": ["t3", "t30"], "east": ["t5", "t6"]})
    state = gheos.from_position(state.to_position(), engine=engine)
    with pytest.raises(gheos.MalformedAction, match="'t²' is not a tile"):
        state.apply("place t² 1,0 r0")
    # repr() keeps a printable letter and escapes an invisible one.
    with pytest.raises(gheos.IllegalAction) as caught:
        state.apply("place t3 1,0 rٹ")
    assert str(caught.value) == "'rٹ' is not a rotation: write r0, r1 or r2"
    with pytest.raises(gheos.IllegalAction) as caught:
        state.apply("place t3 1,0 r\u200b")
    assert str(caught.value) == "'r\\u200b' is not a rotation: write r0, r1 or r2"
    events = state.apply("PLACE\u00a0t٣ +1,0 r0")
    assert events[0]["text"] == "north places t3 on 1,0 (r0)"


def test_bad_pickles_are_refused() -> None:
    from cradle.gheos.engine import restore

    state = gheos.new_game(2, 1, engine="native")
    _, (tileset, options, names, data) = state.__reduce__()
    with pytest.raises(ValueError, match=r"truncated|trailing|another version"):
        restore(tileset, options, names, data[:-3])
