"""GameRecord.start() and states(): the one way from a record to its states."""

from __future__ import annotations

import random

import pytest

from cradle.core.record import GameRecord, RecordError
from cradle.games import get_game


@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_states_step_through_the_record_as_the_game_was_played(game: str) -> None:
    module = get_game(game)
    state = module.new_game(2, 7, module.options_from_dict({}))
    rng = random.Random(3)
    played: list[tuple[int, str, str]] = []
    for _ in range(40):
        if state.is_over:
            break
        action = rng.choice(list(state.legal_actions()))
        seat = int(state.to_move)
        state.apply(action)
        played.append((seat, action, str(state.to_position())))
    record = GameRecord(game, list(state.players), 7, {}, [a for _, a, _ in played])

    start = record.start()
    assert start.to_position() == module.new_game(2, 7, module.options_from_dict({})).to_position()
    steps = list(record.states())
    assert [s.ply for s in steps] == list(range(1, len(played) + 1))
    assert [(s.seat, s.action) for s in steps] == [(seat, a) for seat, a, _ in played]
    assert str(steps[-1].state.to_position()) == played[-1][2]
    assert record.replay().to_position() == state.to_position()


def test_a_bad_action_names_its_number_after_the_good_ones() -> None:
    module = get_game("tigris")
    start = module.new_game(2, 1, module.options_from_dict({}))
    first = next(iter(start.legal_actions()))
    record = GameRecord("tigris", list(start.players), 1, {}, [first, "nonsense"])
    seen = []
    with pytest.raises(RecordError, match="action 2"):
        for step in record.states():
            seen.append(step.ply)
    assert seen == [1]


def test_a_record_of_no_game_or_bad_options_is_a_record_error() -> None:
    with pytest.raises(RecordError):
        GameRecord("chess", ["a", "b"], 1).start()
    with pytest.raises(RecordError, match="cannot set up"):
        GameRecord("tigris", ["a", "b"], 1, {"board": "moon"}).start()
