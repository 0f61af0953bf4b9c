"""The native bots (native/src/bots: random, greedy, expert-rules and its styles) in lockstep
with their Python references: for the same seed, the same decision at every turn of whole
games, both games. A few seeds here; many in the long tier."""

from __future__ import annotations

import random
from typing import Any

import pytest

from cradle.core import native

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built")

from cradle.ai.bots import make_bot  # noqa: E402
from cradle.ai.expert_rules import ExpertRulesBot  # noqa: E402
from cradle.games import get_game  # noqa: E402


def lockstep(game: str, players: int, kind: str, seed: int, max_decisions: int) -> int:
    """Play a native game where every seat is the Python bot ``kind``; before each decision,
    the native twin of the same seat (same seed) must choose the same id. Returns how many
    decisions were compared."""
    state: Any = get_game(game).new_game(players, seed, engine="native")
    python = [make_bot(kind, seed * 10 + seat) for seat in range(players)]
    for bot in python:
        if isinstance(bot, ExpertRulesBot):
            bot.native = False  # the reference: the Python rules, not their twin
    twins = [native.extension().NativeBot(kind, seed * 10 + seat) for seat in range(players)]
    compared = 0
    while not state.is_over and compared < max_decisions:
        seat = state.to_move
        twin_id = twins[seat].choose_id(state, seat)
        action = python[seat].choose(state, seat)
        assert state.legal_actions()[state.legal_action_ids().index(twin_id)] == action, (
            f"{game} seed {seed}, decision {compared} (seat {seat}): the native {kind} chose "
            f"id {twin_id}, the reference {action!r}"
        )
        state.apply(action)
        compared += 1
    return compared


@pytest.mark.parametrize("kind", ["random", "greedy"])
@pytest.mark.parametrize(("game", "players"), [("tigris", 2), ("gheos", 2), ("gheos", 3)])
def test_native_bots_decide_as_their_references(kind: str, game: str, players: int) -> None:
    decisions = 120 if kind == "greedy" else 400
    assert lockstep(game, players, kind, 1, decisions) > 30


@pytest.mark.long
@pytest.mark.parametrize("kind", ["random", "greedy"])
@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_native_bots_decide_as_their_references_on_many_seeds(kind: str, game: str) -> None:
    rng = random.Random(57)
    for _ in range(12):
        lockstep(game, rng.choice([2, 3, 4]), kind, rng.randrange(10**6), 10_000)


EXPERTS = ("expert-rules", "red-keeper", "turtle", "warmonger")


@pytest.mark.parametrize(
    ("game", "players", "decisions"),
    [
        ("tigris", 2, 30),
        ("tigris", 3, 22),
        ("tigris", 4, 22),
        ("gheos", 2, 200),
        ("gheos", 3, 200),
        ("gheos", 4, 200),
    ],
)
def test_native_expert_rules_decides_as_its_reference(
    game: str, players: int, decisions: int
) -> None:
    # whole Gheos games (a few dozen decisions), the first dozens of Tigris ones
    assert sum(lockstep(game, players, "expert-rules", seed, decisions) for seed in (2, 3)) > 40


@pytest.mark.parametrize("kind", EXPERTS[1:])
def test_the_native_styles_decide_as_their_references(kind: str) -> None:
    # the styles differ from expert-rules in Tigris only (in Gheos they play it)
    assert lockstep("tigris", 2, kind, 3, 40) == 40


@pytest.mark.long
@pytest.mark.parametrize("kind", EXPERTS)
@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_native_experts_decide_as_their_references_on_many_seeds(kind: str, game: str) -> None:
    rng = random.Random(571)
    # the styles are expert-rules with other numbers: fewer games each
    for _ in range(12 if kind == "expert-rules" else 6):
        lockstep(game, rng.choice([2, 3, 4]), kind, rng.randrange(10**6), 10_000)


def test_a_seeded_expert_plays_through_its_twin_on_native_states() -> None:
    """make_bot's expert-rules (and styles) play through the Rust twin on a native state,
    the reference's rules on a Python one, and decide the same."""
    from cradle.ai.expert_rules.styles import make_style

    for kind in EXPERTS:
        native_state: Any = get_game("tigris").new_game(2, 8, engine="native")
        python_state: Any = get_game("tigris").new_game(2, 8, engine="python")
        bot = make_bot(kind, 4) if kind == "expert-rules" else make_style(kind, 4)
        reference = make_bot(kind, 4)
        for _ in range(8):
            seat = native_state.to_move
            mine = bot.choose(native_state, seat)
            theirs = reference.choose(python_state, seat)
            assert mine == theirs
            native_state.apply(mine)
            python_state.apply(theirs)
        assert isinstance(bot, ExpertRulesBot) and bot.twin is not None
        assert isinstance(reference, ExpertRulesBot) and reference.twin is None
        # once the twin plays, a Python-engine state is read as a native one
        assert bot.choose(python_state, python_state.to_move) in python_state.legal_actions()
        with pytest.raises(ValueError, match="decision"):
            bot.choose(native_state, 1 - native_state.to_move)


def test_a_native_bot_refuses_a_decision_that_is_not_its_seats() -> None:
    state: Any = get_game("tigris").new_game(2, 5, engine="native")
    bot = native.extension().NativeBot("greedy", 1)
    with pytest.raises(ValueError, match="decision"):
        bot.choose_id(state, 1 - state.to_move)
    with pytest.raises(ValueError, match="no native bot"):
        native.extension().NativeBot("ismcts", 1)


@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_the_native_search_opponent_plays_legal_ids(game: str) -> None:
    state: Any = get_game(game).new_game(2, 3, engine="native")
    bots = [native.extension().NativeBot("ismcts@6", seat) for seat in range(2)]
    for _ in range(40):
        if state.is_over:
            break
        chosen = bots[state.to_move].choose_id(state, state.to_move)
        assert chosen in state.legal_action_ids()
        state.apply(int(chosen))
    for bad in ("ismcts@0", "ismcts@x", "ismcts@2000000"):
        with pytest.raises(ValueError, match="iterations"):
            native.extension().NativeBot(bad, 1)
