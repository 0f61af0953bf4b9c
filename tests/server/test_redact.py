"""The server asks the game what a seat may know of an action (cradle.server.redact): it keeps no
list of its own, and a kind the game does not declare public stays hidden (default deny)."""

from __future__ import annotations

import pytest

from cradle.core.contract import Event
from cradle.games import game_names, get_game
from cradle.server import redact
from cradle.server.redact import UndoEvent, public_action, public_events


@pytest.mark.parametrize("game", game_names())
def test_an_action_kind_the_game_does_not_declare_is_hidden(game: str) -> None:
    # As if a new kind of action were added to the game without declaring it public.
    assert public_action(game, "bribe red A1", 0, 1) == "bribe 2"
    assert public_action(game, "bribe red A1", 0, None) == "bribe 2"
    assert public_action(game, "bribe red A1", 0, 0) == "bribe red A1"
    undo = UndoEvent(type="undo", text="", seat=0, who="north", action="bribe red A1")
    events: list[Event] = [undo]
    shown = public_events(game, events, 1)[0]
    assert shown["text"] == "north took back 'bribe 2'"
    assert public_events(game, events, 0)[0]["text"] == "north took back 'bribe red A1'"


@pytest.mark.parametrize("game", game_names())
def test_the_server_answers_as_the_game_does(game: str) -> None:
    module = get_game(game)
    state = module.new_game(2, 5)
    for action in [*state.legal_actions()[:40], "swap red blue", "pass"]:
        for viewer in (None, 0, 1):
            assert public_action(game, action, 0, viewer) == module.public_action(action, 0, viewer)
    assert public_action("tigris", "swap red blue", 0, 1) == "swap 2"
    assert public_action("gheos", "place t3 0,0 r1", 0, 1) == "place t3 0,0 r1"


def test_the_server_keeps_no_table_of_public_kinds() -> None:
    assert not [name for name in vars(redact) if "KIND" in name.upper()]
