"""Every bot plays complete games of both games, 2 to 4 players, every variant, and never
returns an illegal action."""

from __future__ import annotations

from typing import Any

import pytest

from cradle.ai import make_bot
from cradle.ai.levels import make_bot_spec
from cradle.games import get_game
from tests.helpers.ai import play_out

# Tiny budgets: these games check completeness and legality, not strength.
BOTS = ("pimc@6/candidates=3/rollout=1", "ismcts@8", "greedy", "random")

# Each Tigris variant appears at least once, at every player count between them.
TABLES: list[tuple[str, int, dict[str, Any]]] = [
    ("tigris", 2, {}),
    ("tigris", 3, {"board": "advanced", "buildings": True}),
    ("tigris", 4, {"english": True, "wonder": True, "open_scoring": True}),
    ("gheos", 2, {}),
    ("gheos", 3, {}),
    ("gheos", 4, {}),
]


@pytest.mark.parametrize(("game", "players", "options"), TABLES)
def test_search_bots_play_complete_games(game: str, players: int, options: dict[str, Any]) -> None:
    # The search bots take the first seats in turn; the baselines fill the table.
    seating = [BOTS[(i + players) % 2] for i in range(2)] + list(BOTS[2 : 2 + players - 2])
    state = play_out(game, seating[:players], seed=players, options=options)
    result = state.result()
    assert sorted(row["seat"] for row in result) == list(range(players))
    assert min(row["place"] for row in result) == 1


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "expert"])
def test_levels_are_bots_by_name(level: str) -> None:
    bot = make_bot(level, 1)
    assert bot.name == level
    state = get_game("gheos").new_game(2, 3)
    # A level decides within its budget; a position with one legal action needs no search.
    while len(state.legal_actions()) != 1:
        state.apply(state.legal_actions()[0])
    assert bot.choose(state, state.to_move) == state.legal_actions()[0]


def test_level_budgets_follow_the_ladder() -> None:
    from cradle.ai.search.ismcts import IsmctsBot
    from cradle.ai.search.pimc import PimcBot

    medium, hard, expert = (make_bot(name, 0) for name in ("medium", "hard", "expert"))
    assert isinstance(medium, PimcBot)
    assert isinstance(hard, IsmctsBot) and isinstance(expert, IsmctsBot)
    assert hard.budget.seconds is not None and expert.budget.seconds is not None
    assert expert.budget.seconds > hard.budget.seconds
    assert expert.workers >= 1


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("greedy@2s", "takes no budget"),
        ("ismcts@fast", "bad budget"),
        ("ismcts@10/speed=3", "unknown ismcts setting"),
        ("deep-blue", "unknown bot"),
        # a PIMC level: its settings are not ISMCTS'
        ("medium/candidates=3", "takes no budget or settings"),
        ("hard/speed=3", "unknown ismcts setting"),
        # a setting a sequential test rejected is gone, and the error says so and why
        ("ismcts@10/halving=8", r"halving in .*: removed from the search \(halving: "),
        ("hard/reuse=1/keys=1", r"keys, reuse in .*: removed"),
        ("hard/value=6", "Gheos value 6 lost its SPRT"),
        ("ismcts@10/learned=2", "learned is 0 or 1"),
        ("ismcts@10/rollout=1.5", "a whole number"),
    ],
)
def test_bad_bot_specs_are_refused_with_a_reason(spec: str, reason: str) -> None:
    from cradle.ai.bots import UnknownBot

    with pytest.raises(UnknownBot, match=reason):
        make_bot_spec(spec)


def test_an_ismcts_spec_takes_a_turn_allowance() -> None:
    from cradle.ai.bots import UnknownBot
    from cradle.ai.search.ismcts import IsmctsBot

    bot = make_bot_spec("ismcts@0.1s/turn=0.3/rollout=0", seed=1)
    assert isinstance(bot, IsmctsBot)
    assert bot.turn.turn_seconds == 0.3 and bot.params.rollout == 0
    plain = make_bot_spec("ismcts@0.1s", seed=1)
    assert isinstance(plain, IsmctsBot) and plain.turn.turn_seconds is None
    with pytest.raises(UnknownBot, match="more than 0 s"):
        make_bot_spec("ismcts@0.1s/turn=0")
    with pytest.raises(UnknownBot, match="unknown ismcts setting"):
        make_bot_spec("hard/turn=5")  # a level keeps its own turn


def test_an_ismcts_level_with_settings_keeps_its_budget_and_turn() -> None:
    from cradle.ai.levels import level_bot
    from cradle.ai.search.ismcts import IsmctsBot

    plain = level_bot("hard", seed=1)
    tuned = make_bot_spec("hard/value=4/urgent=0/learned=1", seed=1)
    assert isinstance(plain, IsmctsBot) and isinstance(tuned, IsmctsBot)
    assert tuned.name == "hard/value=4/urgent=0/learned=1"
    assert (tuned.params.value, tuned.params.urgent, tuned.params.learned) == (4, False, True)
    assert tuned.budget == plain.budget and tuned.workers == plain.workers
    assert tuned.turn.turn_seconds == plain.turn.turn_seconds == 2.7
