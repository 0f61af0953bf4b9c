"""The match loop every driver shares: each seat's bot decides, every bot is told every action
before it is played, each decision is timed, and the game is cut at the cap."""

from __future__ import annotations

import random

import pytest

from cradle.ai.bots import RandomBot
from cradle.ai.match import IllegalChoice, Move, Player, play, random_start
from cradle.core.contract import GameState
from cradle.games import get_game
from tests.helpers.ai import Listener


def new_gheos(seed: int = 3) -> GameState:
    return get_game("gheos").new_game(2, seed)


def test_every_bot_is_told_every_action_before_it_is_played() -> None:
    bots = [Listener(1), Listener(2)]
    match = play(new_gheos(), bots)
    assert match.state.is_over and not match.truncated
    expected = list(zip(match.seats, match.actions, strict=True))
    assert bots[0].told == expected
    assert bots[1].told == expected  # the seat that did not decide is told too
    assert match.decisions == [match.seats.count(0), match.seats.count(1)]
    assert all(t >= 0 for t in match.thinking) and match.seconds >= sum(match.thinking)


def test_a_bot_playing_two_seats_is_told_once() -> None:
    bot = Listener(1)
    match = play(new_gheos(), [bot, bot])
    assert len(bot.told) == len(match.actions)


def test_the_same_seeds_play_the_same_game() -> None:
    first = play(new_gheos(), [RandomBot(1), RandomBot(2)])
    again = play(new_gheos(), [RandomBot(1), RandomBot(2)])
    assert first.actions == again.actions and first.actions


def test_the_cap_cuts_the_game() -> None:
    steps: list[Move] = []
    match = play(new_gheos(), [RandomBot(1), RandomBot(2)], max_actions=5, after=steps.append)
    assert len(match.actions) == 5 and match.truncated
    assert [s.ply for s in steps] == [1, 2, 3, 4, 5]
    assert [s.action for s in steps] == match.actions
    assert [s.seat for s in steps] == match.seats


def test_an_illegal_choice_names_the_seat_and_changes_nothing() -> None:
    class Stubborn:
        name = "stubborn"

        def choose(self, state: GameState, seat: int) -> str:
            return "no such action"

    state = new_gheos()
    before = state.view(None)
    seat = int(state.to_move)
    players: list[Player] = [RandomBot(1), RandomBot(2)]
    players[seat] = Stubborn()
    with pytest.raises(IllegalChoice) as raised:
        play(state, players)
    assert raised.value.seat == seat and raised.value.player == "bot stubborn"
    assert raised.value.action == "no such action"
    assert state.view(None) == before


def test_a_person_decides_through_a_callback_and_bots_hear_it() -> None:
    asked: list[int] = []

    def person(state: GameState, seat: int) -> str:
        asked.append(seat)
        return state.legal_actions()[0]

    bot = Listener(5)
    match = play(new_gheos(), [person, bot], max_actions=40)
    assert asked and set(asked) == {0}
    assert bot.told == list(zip(match.seats, match.actions, strict=True))


def test_before_runs_before_each_decision_with_the_seat_deciding() -> None:
    seen: list[int] = []
    match = play(
        new_gheos(),
        [RandomBot(1), RandomBot(2)],
        max_actions=30,
        before=lambda state, seat: seen.append(seat),
    )
    assert seen == match.seats


def test_random_start_plays_its_moves_at_random_then_the_bots() -> None:
    bots = [Listener(1), Listener(2)]
    rng = random.Random(9)
    match = play(new_gheos(), random_start(bots, 4, rng), observers=bots, max_actions=20)
    state = new_gheos()
    replay = random.Random(9)
    for action in match.actions[:4]:
        assert action == replay.choice(state.legal_actions())
        state.apply(action)
    for bot in bots:  # observers hear the random moves too
        assert bot.told == list(zip(match.seats, match.actions, strict=True))
