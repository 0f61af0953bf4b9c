"""The greedy baseline: legal choices, honest information use, and it beats random."""

from __future__ import annotations

import random

import pytest

from cradle.ai.bots import bot_names, make_bot
from cradle.ai.greedy import GreedyBot
from cradle.cli.duel import run_duel
from cradle.games import get_game
from tests.helpers.ai import play_legally


def test_greedy_is_registered() -> None:
    assert "greedy" in bot_names()
    assert isinstance(make_bot("greedy", 1), GreedyBot)


@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_greedy_always_chooses_a_legal_action(game: str) -> None:
    module = get_game(game)
    state = module.new_game(3, 5)
    play_legally(state, [make_bot("greedy", seat) for seat in range(3)], 60)


def test_greedy_refuses_to_play_another_seat() -> None:
    state = get_game("tigris").new_game(2, 1)
    with pytest.raises(ValueError, match="decision"):
        GreedyBot(0).choose(state, 1 - state.to_move)


def test_greedy_does_not_change_the_state_it_is_shown() -> None:
    state = get_game("tigris").new_game(2, 3)
    before = state.to_position()
    GreedyBot(0).choose(state, state.to_move)
    assert state.to_position() == before


def _own_key(state: object, seat: int) -> tuple[int, ...]:
    own = state.result()[seat]  # type: ignore[attr-defined]
    points = list(own["points"].values())
    for _ in range(own["treasures"]):
        points[points.index(min(points))] += 1
    return tuple(sorted(points))


def test_greedy_takes_the_best_immediate_gain() -> None:
    module = get_game("tigris")
    rng = random.Random(4)
    state = module.new_game(2, 4)
    checked = 0
    while not state.is_over and checked < 25:
        seat = state.to_move
        legal = state.legal_actions()
        candidates = [a for a in legal if not a.startswith(("swap", "catastrophe"))]
        gains = {}
        for action in candidates:
            after = state.clone()
            after.apply(action)
            gains[action] = _own_key(after, seat)
        best = max(gains.values())
        if best != _own_key(state, seat):  # some action scores now
            choice = GreedyBot(checked).choose(state, seat)
            assert gains[choice] == best, (choice, gains[choice], best)
            checked += 1
        state.apply(rng.choice(legal))
    assert checked > 3


@pytest.mark.long  # statistical: make test-long
@pytest.mark.parametrize(("game", "games"), [("tigris", 12), ("gheos", 40)])
def test_greedy_beats_random_with_a_margin_the_interval_shows(game: str, games: int) -> None:
    result = run_duel(game, "greedy", "random", games, 2, {}, seed=7)
    low, _ = result.interval()
    assert result.games == games
    assert low > 0.5, result.summary()


def test_greedy_wins_a_fixed_seeded_duel_from_both_seats() -> None:
    # The quick check of make test (the statistical one above is in make test-long).
    result = run_duel("gheos", "greedy", "random", 2, 2, {}, seed=7)
    assert (result.games, result.wins) == (2, 2)


def test_duel_swaps_seats(monkeypatch: pytest.MonkeyPatch) -> None:
    import cradle.cli.duel as duel

    seats_of_a: list[int] = []

    def recording(name: str, seed: int | None = None) -> object:
        bot = make_bot(name, seed)
        if name == "greedy":
            original = bot.choose

            def choose(state: object, seat: int) -> str:
                seats_of_a.append(seat)
                return original(state, seat)  # type: ignore[arg-type]

            bot.choose = choose  # type: ignore[method-assign]
        return bot

    monkeypatch.setattr(duel, "make_bot", recording)
    result = duel.run_duel("gheos", "greedy", "random", 4, 2, {}, seed=1)
    assert result.wins + result.draws + result.losses == 4
    assert set(seats_of_a) == {0, 1}
