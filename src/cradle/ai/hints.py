"""Hints for a human player: the best few actions for the seat to move, each with its
estimated chance and a short reason in words.

The search is the ``ismcts`` bot's, from the seat's own information only; reasons come from
the game's knowledge (conflict odds from the seat's own hand against what the opponent may
hold, points scored, monuments, followers, ...).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TypedDict

from cradle.ai.search.budget import Budget
from cradle.ai.search.ismcts import search
from cradle.ai.search.params import IsmctsParams, knowledge_of
from cradle.ai.search.worlds import sample_world
from cradle.core.contract import GameState
from cradle.core.words import N_


class HintDict(TypedDict):
    """A hint as JSON (``Hint.to_dict``)."""

    action: str
    win_chance: float
    visits: int
    reason: str


# In English, read back by the layers above to translate (cradle.core.words).
ONLY = N_("the only legal action; {reason}")


@dataclass
class Hint:
    action: str
    win_chance: float  # 2 players: chance to win; more: expected share of opponents beaten
    visits: int
    reason: str

    def to_dict(self) -> HintDict:
        return HintDict(
            action=self.action, win_chance=self.win_chance, visits=self.visits, reason=self.reason
        )


def hints(
    state: GameState,
    seat: int | None = None,
    count: int = 3,
    budget: Budget | None = None,
    seed: int | None = None,
) -> list[Hint]:
    """Up to ``count`` suggestions for ``seat`` (default: the seat to move), best first."""
    if state.is_over:
        raise ValueError("the game is over: there is nothing to suggest")
    if seat is None:
        seat = state.to_move
    if seat != state.to_move:
        raise ValueError(f"hints are for the seat to move: seat {state.to_move}, not seat {seat}")
    if count < 1:
        raise ValueError("ask for at least one hint")
    actions = state.legal_actions()
    # The whole budget, not only until the best move is settled: every hint's chance counts.
    params = IsmctsParams(stop=False)
    knowledge = knowledge_of(state, params)  # the bots' own evaluation, not the first one
    rng = random.Random(seed)
    world = sample_world(state, seat, rng)
    if len(actions) == 1:
        reward = knowledge.rewards(world)[seat]
        reason = ONLY.format(reason=knowledge.reason(world, seat, actions[0]))
        return [Hint(actions[0], round(reward, 3), 0, reason)]
    result = search(
        state,
        seat,
        budget or Budget(seconds=1.0),
        params,
        rng.getrandbits(63),
        knowledge,
    )
    out = []
    for row in result.actions[:count]:
        reason = knowledge.reason(world, seat, row.action)
        out.append(Hint(row.action, round(row.reward, 3), row.visits, reason))
    return out
