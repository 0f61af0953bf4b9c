"""Perfect-information Monte Carlo: sample worlds, try the promising actions in each, average.

For one decision the bot ranks the legal actions by the game's priors and keeps the best few
candidates. Then, world after world (``sample_hidden``: other hands and the bag re-drawn), it
plays each candidate, settles what it started (conflicts, monuments, ...), rolls out a few more
moves with the quick policy and evaluates the result with the heuristic. The candidate with the
best average reward wins.
"""

from __future__ import annotations

import random

from cradle.ai.bots import StallGuard, guarded_choice, seat_index
from cradle.ai.knowledge.base import Knowledge
from cradle.ai.knowledge.params import knowledge_for
from cradle.ai.search.budget import Budget
from cradle.ai.search.leaves import evaluate
from cradle.ai.search.result import SearchResult, make_result
from cradle.ai.search.worlds import sample_world
from cradle.core.contract import GameState


class PimcBot:
    """Determinized one-ply search with truncated rollouts, within a budget per decision.

    One iteration is one candidate played out in one world."""

    def __init__(
        self,
        seed: int | None = None,
        budget: Budget | None = None,
        candidates: int = 12,
        rollout: int = 4,
        name: str = "pimc",
    ) -> None:
        self.name = name
        self.rng = random.Random(seed)
        self.budget = budget or Budget(seconds=0.5)
        self.candidates = candidates
        self.rollout = rollout
        self.guard = StallGuard()

    def analyse(self, state: GameState, seat: int, only: list[str] | None = None) -> SearchResult:
        if state.to_move != seat:
            raise ValueError(f"it is seat {state.to_move}'s decision, not seat {seat}'s")
        knowledge: Knowledge = knowledge_for(state.game)
        rng = self.rng
        clock = self.budget.clock()
        actions = only or state.legal_actions()
        world = sample_world(state, seat, rng)
        priors = knowledge.priors(world, actions)
        ranked = sorted(range(len(actions)), key=lambda i: -priors[i])
        chosen = [actions[i] for i in ranked[: self.candidates]]
        totals = {a: [0, 0.0] for a in chosen}
        running = True
        while running:
            for action in chosen:
                trial = world.clone()
                trial.apply(action)
                reward = evaluate(trial, knowledge, rng, self.rollout)[seat]
                tally = totals[action]
                tally[0] += 1
                tally[1] += reward
                if not clock.tick():
                    running = False
                    break
            world = sample_world(state, seat, rng)
        stats = {a: (int(n), float(w)) for a, (n, w) in totals.items()}
        result = make_result(seat, clock.count, clock.elapsed(), stats)
        # Rank by the mean reward (every candidate had the same number of worlds, give or take
        # the last round), not by visits.
        result.actions.sort(key=lambda r: (-r.reward, r.action))
        return result

    def choose(self, state: GameState, seat: int) -> str:
        return guarded_choice(state, seat_index(seat), self.guard, self.analyse)
