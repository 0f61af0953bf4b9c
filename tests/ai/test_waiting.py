"""What players wait for: turn allowances, the floor of iterations, and their measurement."""

from __future__ import annotations

import random

import pytest

from cradle import gheos, tigris
from cradle.ai import LEVELS
from cradle.ai.search.budget import LEAST_SECONDS, RESERVE_SHARE, Budget, TurnClock, turn_begins
from cradle.ai.search.ismcts import IsmctsBot, search
from cradle.server.bots import server_bot, turn_clock


@pytest.mark.parametrize(("module", "players"), [(tigris, 2), (tigris, 3), (gheos, 2), (gheos, 4)])
def test_a_turn_begins_exactly_where_the_active_player_changes(
    module: object, players: int
) -> None:
    for seed in range(3):
        state = module.new_game(players, seed)  # type: ignore[attr-defined]
        rng = random.Random(seed)
        active = None
        turns = 0
        while not state.is_over:
            view = state.view(state.to_move)
            changed = view["active"] != active
            active = view["active"]
            assert turn_begins(view) == changed, (seed, view["to_move"], view.get("pending"))
            turns += changed
            state.apply(rng.choice(state.legal_actions()))
        assert turns > 10


def _view(active: int, seat: int, begins: bool) -> dict[str, object]:
    return {"seat": seat, "to_move": seat, "active": active, "pending": None,
            "actions_left": 2 if begins else 1}  # fmt: skip


def test_a_turn_clock_shares_the_turn_among_its_decisions() -> None:
    clock = TurnClock(3.0)
    assert clock.seconds(_view(0, 0, True), 1.0) == 1.0
    clock.spend(1.0)
    assert clock.seconds(_view(0, 0, False), 1.0) == 1.0
    clock.spend(1.5)
    # what is left of the turn but its reserve for the small decisions that may follow
    assert clock.seconds(_view(0, 0, False), 1.0) == pytest.approx(0.5 - 3.0 * RESERVE_SHARE)
    clock.spend(0.5 - 3.0 * RESERVE_SHARE)
    # A spent turn still thinks a little (and searches its floor of iterations).
    assert clock.seconds(_view(0, 0, False), 1.0) == LEAST_SECONDS
    clock.spend(LEAST_SECONDS)
    assert clock.seconds(_view(0, 0, False), 1.0) == LEAST_SECONDS
    clock.spend(3.0 * RESERVE_SHARE - LEAST_SECONDS)
    clock.spend(0.2)
    # Defending in another player's turn: the decision's own budget, not counted.
    assert clock.seconds(_view(1, 0, False), 1.0) == 1.0
    clock.spend(5.0)
    assert clock.spent == pytest.approx(3.2)
    # A new turn starts afresh.
    assert clock.seconds(_view(0, 0, True), 1.0) == 1.0
    assert clock.spent == 0.0
    assert TurnClock(None).seconds(_view(0, 0, False), 1.0) == 1.0
    with pytest.raises(ValueError, match="more than 0"):
        TurnClock(0.0)


def test_a_turn_clock_cuts_search_budgets_but_keeps_iterations_and_floor() -> None:
    clock = TurnClock(1.5)
    budget = Budget(seconds=1.0, floor=50)
    assert clock.budget(_view(0, 0, True), budget) == budget
    clock.spend(1.2)
    cut = clock.budget(_view(0, 0, False), budget)
    assert (cut.iterations, cut.floor) == (None, 50)
    assert cut.seconds == pytest.approx(0.3 - 1.5 * RESERVE_SHARE)
    only_iterations = Budget(iterations=300)
    assert clock.budget(_view(0, 0, False), only_iterations) == only_iterations


@pytest.mark.parametrize("engine", ["native", "python"])
@pytest.mark.parametrize("module", [tigris, gheos])
def test_a_budget_floor_is_searched_even_when_the_time_is_up(module: object, engine: str) -> None:
    state = module.new_game(2, 3, engine=engine)  # type: ignore[attr-defined]
    result = search(state, state.to_move, Budget(seconds=1e-9, floor=40), seed=1)
    assert result.iterations == 40
    capped = search(state, state.to_move, Budget(iterations=30, seconds=1e-9, floor=30), seed=1)
    assert capped.iterations == 30


def test_budget_floors_are_checked_split_and_kept_under_a_cap() -> None:
    with pytest.raises(ValueError, match="floor"):
        Budget(seconds=1.0, floor=0)
    with pytest.raises(ValueError, match="floor"):
        Budget(iterations=10, floor=11)
    assert Budget(seconds=2.0, floor=400).split(4) == Budget(seconds=2.0, floor=100)
    assert Budget(iterations=100, floor=10).split(4) == Budget(25, None, 2)
    assert Budget(seconds=3.0, floor=400).within(0.5) == Budget(seconds=0.5, floor=400)
    assert Budget(seconds=0.2, floor=5).within(0.5) == Budget(seconds=0.2, floor=5)
    assert "at least 400 iterations" in Budget(seconds=3.0, floor=400).describe()


def test_the_levels_promise_what_players_wait_for() -> None:
    hard, expert = LEVELS["hard"], LEVELS["expert"]
    assert hard.budget is not None and expert.budget is not None
    assert hard.budget.seconds is not None and hard.budget.seconds <= 0.9
    assert hard.turn_seconds is not None and hard.turn_seconds <= 2.7
    assert expert.budget.seconds is not None and expert.budget.seconds <= 2.7
    assert hard.budget.floor and expert.budget.floor
    # The server keeps the floor when it caps a decision, and gives hard seats a turn clock.
    bot = server_bot("hard", 0, 0.5)
    assert isinstance(bot, IsmctsBot)
    assert bot.budget == Budget(seconds=0.5, floor=hard.budget.floor)
    assert turn_clock("hard").turn_seconds == hard.turn_seconds
    assert turn_clock("random").turn_seconds is None


def test_a_search_bot_counts_only_its_own_turns() -> None:
    state = tigris.new_game(2, 5)
    seat = state.to_move
    bot = IsmctsBot(1, Budget(iterations=5), turn_seconds=3.0)
    state.apply(bot.choose(state, seat))
    assert bot.turn.own and bot.turn.spent > 0.0
    assert bot.decision_budget == bot.budget
