"""The games own their secrets: ``public_action`` (docs/contract.md) on every engine of every game.

What a seat may know of another seat's action is decided by the game, default deny: a kind of
action the game does not declare public shows only its first word and how many words followed.
The native engines decide it in Rust; here both engines answer alike on random games, for every
seat and a spectator, and the module's rule (for code holding a record, not a state) agrees.
"""

from __future__ import annotations

import random

import pytest

from cradle import gheos, tigris
from cradle.core import native
from cradle.core.hidden import redacted
from cradle.games import game_names, get_game

# Kinds no game declares (a new action added to a game would look like these until declared).
UNDECLARED = ("bribe red A1", "peek t3", "reveal", "  spy   north  t7 ")


def _seen_by_all(state: object, action: str, players: int) -> list[str]:
    shown: list[str] = [state.public_action(action)]  # type: ignore[attr-defined]
    shown += [state.public_action(action, seat) for seat in range(players)]  # type: ignore[attr-defined]
    return shown


@pytest.mark.usefixtures("engine")
@pytest.mark.parametrize("name", game_names())
def test_a_kind_the_game_does_not_declare_stays_hidden(name: str) -> None:
    module = get_game(name)
    state = module.new_game(3, 7)
    mover = state.to_move
    other = (mover + 1) % 3
    assert state.public_action("bribe red A1", other) == "bribe 2"
    assert state.public_action("bribe red A1", None) == "bribe 2"
    assert state.public_action("bribe red A1", mover) == "bribe red A1"
    assert state.public_action("reveal", None) == "reveal"
    assert state.public_action("  spy   north  t7 ", other) == "spy 2"
    assert module.public_action("bribe red A1", 1, 2) == "bribe 2"
    assert module.public_action("bribe red A1", 2, 2) == "bribe red A1"
    for seat in (-1, 3, "0"):
        with pytest.raises((ValueError, TypeError)):
            state.public_action("pass", seat)


@pytest.mark.usefixtures("engine")
def test_a_tigris_swap_shows_only_its_size_to_the_others() -> None:
    state = tigris.new_game(2, 3)
    swap = max((a for a in state.legal_actions() if a.startswith("swap")), key=len)
    mover = state.to_move
    size = len(swap.split()) - 1
    assert state.public_action(swap, mover) == swap
    assert state.public_action(swap, 1 - mover) == f"swap {size}"
    assert state.public_action(swap) == f"swap {size}"
    assert tigris.DRAW_COUNTERS == ("bag_size",)
    assert all(key in state.view(None) for key in tigris.DRAW_COUNTERS)


@pytest.mark.usefixtures("engine")
def test_every_gheos_decision_is_public() -> None:
    state = gheos.new_game(2, 3)
    for action in state.legal_actions()[:50]:
        assert state.public_action(action, 1 - state.to_move) == action
    assert all(key in state.view(None) for key in gheos.DRAW_COUNTERS)


@pytest.mark.skipif(not native.available(), reason="the native engine is not built")
@pytest.mark.parametrize(("name", "players"), [("tigris", 2), ("tigris", 4), ("gheos", 3)])
def test_both_engines_and_the_module_agree_on_random_games(name: str, players: int) -> None:
    module = get_game(name)
    for seed in (1, 2):
        python = module.new_game(players, seed, engine="python")
        fast = module.new_game(players, seed, engine="native")
        rng = random.Random(seed)
        plies = 0
        while not python.is_over and plies < 120:
            legal = python.legal_actions()
            assert fast.legal_actions() == legal
            asked = rng.sample(legal, min(4, len(legal))) + list(UNDECLARED)
            if name == "tigris":
                asked += [a for a in legal if a.startswith("swap")][:2]
            for action in asked:
                seen = _seen_by_all(python, action, players)
                assert _seen_by_all(fast, action, players) == seen, (seed, plies, action)
                mover = python.to_move
                assert seen[1:] == [module.public_action(action, mover, v) for v in range(players)]
                assert seen[0] == module.public_action(action, mover, None)
            action = rng.choice(legal)
            python.apply(action)
            fast.apply(action)
            plies += 1


def test_the_rule_denies_by_default() -> None:
    public = frozenset({"tile"})
    assert redacted("tile red A1", 0, 1, public) == "tile red A1"
    assert redacted("swap red red", 0, 1, public) == "swap 2"
    assert redacted("swap red red", 0, 0, public) == "swap red red"
    assert redacted("swap red red", None, None, public) == "swap 2"
    assert redacted("", 0, 1, public) == ""
