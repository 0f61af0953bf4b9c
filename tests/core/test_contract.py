"""The contract as types (cradle.core.contract) holds at run time for every registered game."""

from __future__ import annotations

import pytest

from cradle.core.contract import (
    DisallowedAction,
    GameState,
    IllegalAction,
    MalformedAction,
    fast,
)
from cradle.core.registry import get_game
from cradle.games import game_names


@pytest.mark.parametrize("name", game_names())
def test_each_game_raises_the_shared_illegal_action(name: str) -> None:
    module = get_game(name)
    assert issubclass(module.IllegalAction, IllegalAction)
    assert issubclass(module.IllegalAction, ValueError)
    state = module.new_game(2, 1)
    assert isinstance(state, GameState)
    assert state.game == name == module.NAME
    before = state.to_position()
    with pytest.raises(IllegalAction):
        state.apply("no such action")
    with pytest.raises(IllegalAction):
        state.apply(10**9)
    assert state.to_position() == before


@pytest.mark.parametrize("name", game_names())
def test_each_game_tells_a_malformed_action_from_a_disallowed_one(name: str, engine: str) -> None:
    """As python-chess tells an invalid move from an illegal one: both kinds are the game's
    IllegalAction and the contract's kind, and the engines raise the kinds, never the base."""
    module = get_game(name)
    for kind, shared in (
        (module.MalformedAction, MalformedAction),
        (module.DisallowedAction, DisallowedAction),
    ):
        assert issubclass(kind, module.IllegalAction)
        assert issubclass(kind, shared)
    assert not issubclass(module.MalformedAction, DisallowedAction)
    state = module.new_game(2, 1, engine=engine)
    before = state.to_position()
    for malformed in ("no such action", "", 10**9, -1, None):
        with pytest.raises(module.MalformedAction):
            state.apply(malformed)  # type: ignore[arg-type]
    legal = set(state.legal_action_ids())
    # An action of the notation that is not legal now: the first id whose text reads.
    for action_id in range(10**6):
        if action_id in legal:
            continue
        try:
            text = fast(state).action_string(action_id)
        except DisallowedAction:
            continue
        break
    with pytest.raises(module.DisallowedAction):
        state.apply(text)
    assert state.to_position() == before


@pytest.mark.parametrize("name", game_names())
def test_the_engine_is_chosen_by_name(name: str) -> None:
    module = get_game(name)
    assert (
        module.new_game(2, 1, engine="python").to_position() == module.new_game(2, 1).to_position()
    )
    with pytest.raises(ValueError, match="unknown engine"):
        module.new_game(2, 1, engine="fortran")
    with pytest.raises(ValueError, match="unknown engine"):
        module.from_position(module.new_game(2, 1).to_position(), engine="fortran")
