"""Shared helpers for the AI tests: positions reached by seeded random play."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from cradle.ai.bots import Bot, RandomBot
from cradle.ai.knowledge.base import Knowledge
from cradle.ai.levels import make_bot_spec
from cradle.ai.search.budget import Budget
from cradle.ai.search.ismcts import search
from cradle.ai.search.params import IsmctsParams
from cradle.core.contract import GameState
from cradle.games import get_game

MASK = (1 << 64) - 1


def splitmix(state: int) -> tuple[int, int]:
    """SearchRng's next draw (SplitMix64): the new state and the value."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def one_iteration_is_the_reference(
    state: GameState,
    action: str,
    params: IsmctsParams,
    knowledge: Knowledge,
    deal: Callable[[GameState, int, int], GameState],
) -> bool:
    """Search one iteration restricted to ``action`` (seed 5) and check that its reward is
    ``knowledge``'s reward of the world the search drew (``deal(state, seat, world seed)``)
    after the action; False where the settling policy would draw from the search's
    generator, so nothing can be compared."""
    seat = state.to_move
    result = search(state, seat, Budget(iterations=1), params, 5, knowledge, only=[action])
    assert [row.action for row in result.actions] == [action]
    _, world_seed = splitmix(random.Random(5).getrandbits(64))
    world = deal(state, seat, world_seed)
    world.apply(action)
    if world.is_over or knowledge.unsettled(world):
        return False
    expected = knowledge.rewards(world)[seat]
    assert result.actions[0].reward == pytest.approx(expected, abs=1e-9)
    return True


def random_position(game: str, players: int, seed: int, steps: int, **options: Any) -> GameState:
    """The state after ``steps`` random actions (fewer if the game ends first)."""
    module = get_game(game)
    state: GameState = module.new_game(players, seed, module.options_from_dict(options))
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_over:
            break
        before = state.clone()
        state.apply(rng.choice(state.legal_actions()))
        if state.is_over:
            return before
    return state


def decision_positions(game: str, players: int, seed: int, count: int) -> list[GameState]:
    """Positions of one random game where the seat to move has a real choice."""
    module = get_game(game)
    state: GameState = module.new_game(players, seed, module.options_from_dict({}))
    rng = random.Random(seed)
    out: list[GameState] = []
    step = 0
    while not state.is_over and len(out) < count:
        actions = state.legal_actions()
        if len(actions) > 1 and step % 7 == 3:
            out.append(state.clone())
        state.apply(rng.choice(actions))
        step += 1
    return out


START = {c: "red*" for c in ("K1", "B2", "P2", "F3", "N5", "B8", "O9", "F10", "K11")}


def revolt_position(attacker_reds: int = 2) -> dict[str, Any]:
    """Bull's priest on I6 has 2 temples (I7, J6); archer can place his priest on K5, next
    to 2 temples (K6, L5) of the same kingdom."""
    board = dict(START)
    board.update({"I7": "red*", "I6": "leader:bull:priest", "J6": "red", "K6": "red", "L5": "red"})
    hand = ["red"] * attacker_reds + ["blue"] * (6 - attacker_reds)
    return {
        "players": ["archer", "bull"],
        "active": 0,
        "board": board,
        "hands": {"archer": hand, "bull": ["red", "blue", "blue", "green", "black", "black"]},
    }


BotMaker = Callable[[int], Bot]


def decisions_differ(make: BotMaker, state: GameState, resamples: int = 2) -> list[str]:
    """The bot's choice on the true state and on states whose hidden parts were re-drawn;
    a fair bot gives one answer."""
    seat = state.to_move
    answers = [make(7).choose(state, seat)]
    for k in range(resamples):
        other = state.sample_hidden(seat, random.Random(1000 + k))
        assert other.view(seat) == state.view(seat)  # the seat cannot tell them apart
        answers.append(make(7).choose(other, seat))
    return answers


class Listener(RandomBot):
    """A random bot that writes down what it is told: (the seat deciding then, the action)."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.told: list[tuple[int, str]] = []

    def observe(self, state: GameState, action: str) -> None:
        self.told.append((int(state.to_move), action))


def search_adds_up_and_repeats(state: GameState, iterations: int) -> None:
    """A search of ``state`` for its seat to move, ``iterations`` long: the root's visits add up
    to them, its actions are legal and their rewards between 0 and 1, and a fixed seed with an
    iteration budget gives the same search again."""
    result = search(state, state.to_move, Budget(iterations=iterations), seed=1)
    assert result.iterations == iterations
    assert sum(row.visits for row in result.actions) == iterations
    assert {row.action for row in result.actions} <= set(state.legal_actions())
    assert all(0.0 <= row.reward <= 1.0 for row in result.actions)
    again = search(state, state.to_move, Budget(iterations=iterations), seed=1)
    assert again.actions == result.actions


def play_legally(state: GameState, bots: list[Bot], decisions: int) -> None:
    """The seats' ``bots`` decide up to ``decisions`` times or to the end; each choice must be
    one of the legal actions."""
    for _ in range(decisions):
        if state.is_over:
            break
        seat = state.to_move
        action = bots[seat].choose(state, seat)
        assert action in state.legal_actions()
        state.apply(action)


def play_out(game: str, seating: list[str], seed: int, options: dict[str, Any]) -> Any:
    module = get_game(game)
    state = module.new_game(len(seating), seed, module.options_from_dict(options))
    bots = [make_bot_spec(spec, seed + seat) for seat, spec in enumerate(seating)]
    moves = 0
    while not state.is_over:
        seat = state.to_move
        legal = state.legal_actions()
        action = bots[seat].choose(state, seat)
        assert action in legal, (seating[seat], action)
        state.apply(action)
        moves += 1
        assert moves < 5000
    return state


def conflict_positions(
    count: int, defending: bool, seeds: int = 200, keep: Callable[[GameState], bool] | None = None
) -> list[GameState]:
    """States of random 2-player Tigris games in which a revolt or war waits for the
    attacker's (``defending`` False) or the defender's commitment, and ``keep`` accepts."""
    from cradle import tigris
    from cradle.tigris import Revolt, War, as_tigris

    found: list[GameState] = []
    for seed in range(seeds):
        state = tigris.new_game(2, seed)
        rng = random.Random(seed)
        while not state.is_over and len(found) < count:
            decision = as_tigris(state).decision()
            if (
                isinstance(decision, Revolt | War)
                and (decision.attacker_commit is not None) == defending
                and (keep is None or keep(state))
            ):
                found.append(state.clone())
            state.apply(rng.choice(state.legal_actions()))
        if len(found) >= count:
            break
    return found


def bot_reasons(game: str, seed: int, steps: int = 40) -> list[str]:
    """The bots' reasons (cradle.ai.knowledge) for a few legal actions at each step of a random
    game on the Python engine: what hints and analyses say."""
    from cradle.ai.knowledge.gheos import GheosKnowledge
    from cradle.ai.knowledge.tigris import TigrisKnowledge
    from cradle.games import get_game

    knowledge = TigrisKnowledge() if game == "tigris" else GheosKnowledge()
    state = get_game(game).new_game(2, seed=seed, engine="python")
    rng = random.Random(seed)
    out = []
    for _step in range(steps):
        if state.is_over:
            break
        legal = state.legal_actions()
        for action in rng.sample(legal, min(4, len(legal))):
            out.append(knowledge.reason(state, state.to_move, action))
        state.apply(rng.choice(legal))
    return out
