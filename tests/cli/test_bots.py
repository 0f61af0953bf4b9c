from __future__ import annotations

import pytest

from cradle import tigris
from cradle.ai import RandomBot, UnknownBot, bot_names, make_bot, register_bot
from cradle.ai import bots as bots_module
from cradle.core.contract import GameState
from tests.helpers.ai import play_legally


def test_random_bot_plays_a_whole_game_with_legal_actions_only() -> None:
    state = tigris.new_game(3, seed=11)
    play_legally(state, [make_bot("random", seed) for seed in range(3)], 5000)
    assert state.is_over


def test_random_bot_is_reproducible_from_its_seed() -> None:
    def choices(seed: int) -> list[str]:
        state, bot, chosen = tigris.new_game(2, seed=5), RandomBot(seed), []
        for _ in range(30):
            chosen.append(bot.choose(state, state.to_move))
            state.apply(chosen[-1])
        return chosen

    assert choices(1) == choices(1)
    assert choices(1) != choices(2)


def test_random_bot_refuses_to_move_for_another_seat() -> None:
    state = tigris.new_game(2, seed=1)
    with pytest.raises(ValueError, match="decision"):
        RandomBot(0).choose(state, 1 - state.to_move)


def test_make_bot_knows_random_case_insensitively_and_names_the_known_bots() -> None:
    assert "random" in bot_names()
    assert make_bot(" Random ", 3).name == "random"
    with pytest.raises(UnknownBot, match="random"):
        make_bot("no-such-bot")


class FirstBot:
    name = "first"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def choose(self, state: GameState, seat: int) -> str:
        return state.legal_actions()[0]


def test_a_registered_bot_is_made_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bots_module, "_BOTS", dict(bots_module._BOTS))
    register_bot("first", FirstBot)
    assert "first" in bot_names()
    bot = make_bot("first", 9)
    state = tigris.new_game(2, seed=3)
    assert bot.choose(state, state.to_move) == state.legal_actions()[0]


def test_a_lazy_bot_is_imported_on_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bots_module, "_BOTS", dict(bots_module._BOTS))
    monkeypatch.setitem(bots_module._LAZY_BOTS, "lazy", "cradle.ai.bots:RandomBot")
    assert "lazy" in bot_names()
    assert isinstance(make_bot("lazy", 1), RandomBot)


@pytest.mark.parametrize("name", ["", "Upper", "a,b", " padded"])
def test_register_bot_rejects_names_the_cli_could_not_type(name: str) -> None:
    with pytest.raises(ValueError, match="bad bot name"):
        register_bot(name, RandomBot)


def test_random_bot_choice_is_uniform_enough() -> None:
    state = tigris.new_game(2, seed=2)
    actions = state.legal_actions()
    bot = RandomBot(7)
    seen = {bot.choose(state, state.to_move) for _ in range(2000)}
    # Hundreds of actions: uniform picks cover most of them, a biased bot would not.
    assert len(seen) > 0.9 * len(actions)
