"""``expert-rules``: a rule-based bot for each game after published strategy.

No search: each decision reads one world sampled for the bot's seat and looks at most one ply
ahead, so it answers in milliseconds. Deterministic for a seed (worlds come from a
``CanonicalRandom``, ties are broken by the seeded generator over sorted actions), it picks
only legal actions, and a stall guard keeps Tigris games moving. The rules of each game are
in its module and in docs/ai.md.
"""

from __future__ import annotations

import random

from cradle.ai.bots import StallGuard, decision_actions, seat_index
from cradle.ai.expert_rules.gheos import GheosRules
from cradle.ai.expert_rules.tigris import TigrisRules
from cradle.core.contract import GameState


class ExpertRulesBot:
    """Dispatches to the rules of the state's game."""

    name = "expert-rules"

    def __init__(self, seed: int | None = None, tigris: type[TigrisRules] = TigrisRules) -> None:
        self.rng = random.Random(seed)
        self.tigris = tigris
        self.guard = StallGuard(relapse=2)

    def choose(self, state: GameState, seat: int) -> str:
        seat = seat_index(seat)
        actions = self.guard.allowed(state, seat, decision_actions(state, seat))
        if len(actions) == 1:
            return actions[0]
        if state.game == "tigris":
            return self.tigris(self.rng).choose(state, seat, actions)
        if state.game == "gheos":
            return GheosRules(self.rng).choose(state, seat, actions)
        return self.rng.choice(actions)


def make_expert_rules(seed: int | None = None) -> ExpertRulesBot:
    return ExpertRulesBot(seed)
