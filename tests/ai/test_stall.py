"""Every bot ends every game: the stall guards (Tigris has no rule that ends a game whose
players stop using tiles)."""

from __future__ import annotations

import itertools

import pytest

from cradle.ai.tournament import GameTask, play_game


def test_easy_against_easy_ends_the_game_that_used_to_stall() -> None:
    # Before greedy had a stall guard both seats passed for the end-of-turn monument point
    # and this game ran past 2,400 actions with 7 tiles left in the bag.
    record = play_game(GameTask(0, "tigris", 77, ("easy", "easy")))
    assert not record["truncated"]
    assert record["actions"] < 600


def test_greedy_stall_guard_forces_tiles_after_passing() -> None:
    from cradle import tigris
    from cradle.ai.bots import STALL_LIMIT
    from cradle.ai.greedy import GreedyBot

    bot = GreedyBot(seed=3)
    state = tigris.new_game(2, 4)
    seat = state.to_move
    actions = state.legal_actions()
    for _ in range(STALL_LIMIT):
        bot.guard.allowed(state, seat, actions)  # ten decisions, the bag never moved
    assert bot.choose(state, seat).startswith(("tile ", "swap "))
    assert bot.guard.fired and bot.guard.relapse == 2


# Every bot (the levels with time budgets are these search bots at an iteration budget, so
# that a test's result does not depend on the machine's speed).
ALL_BOTS = ("random", "greedy", "easy", "expert-rules", "pimc@8", "ismcts@12")
BOUND = 1500  # actions: ordinary games take 40-300


@pytest.mark.long
@pytest.mark.parametrize("game", ["tigris", "gheos"])
@pytest.mark.parametrize(
    "pairing", list(itertools.combinations_with_replacement(ALL_BOTS, 2)), ids=str
)
def test_every_pairing_ends_every_game(game: str, pairing: tuple[str, str]) -> None:
    for seed in (70, 72, 77):
        for seating in (pairing, pairing[::-1]):
            record = play_game(GameTask(0, game, seed, seating))
            assert not record["truncated"]
            assert record["actions"] < BOUND, (seating, seed, record["actions"])
