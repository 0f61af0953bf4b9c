"""The contract as types (cradle.core.contract) holds at run time for every registered game."""

from __future__ import annotations

import pytest

from cradle.core.contract import GameState, IllegalAction
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
def test_the_engine_is_chosen_by_name(name: str) -> None:
    module = get_game(name)
    assert (
        module.new_game(2, 1, engine="python").to_position() == module.new_game(2, 1).to_position()
    )
    with pytest.raises(ValueError, match="unknown engine"):
        module.new_game(2, 1, engine="fortran")
    with pytest.raises(ValueError, match="unknown engine"):
        module.from_position(module.new_game(2, 1).to_position(), engine="fortran")
