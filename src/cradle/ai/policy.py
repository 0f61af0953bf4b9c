"""The pure policy of a learned network (``policy/model=NAME``): at each decision, the legal
action the network's policy rates highest from the seat's own observation, without search.
The network sees what the seat's view shows (the environments' flat observation), nothing
more.
"""

from __future__ import annotations

import numpy as np

from cradle.ai.bots import StallGuard, decision_actions, seat_index
from cradle.ai.model import load
from cradle.core.contract import GameState
from cradle.envs.spec import get_spec


class PolicyBot:
    """Plays the arg-max of the network's policy over the legal actions (kept from stalling a
    Tigris game by the search bots' guard: the network may like moving leaders about)."""

    def __init__(self, model: str, seed: int | None = None, name: str | None = None) -> None:
        self.model = load(model)
        self.name = name or f"policy/model={model}"
        self.guard = StallGuard()

    def logits(self, state: GameState, seat: int, actions: list[str]) -> list[float]:
        """The network's logit of each of ``actions`` (legal for ``seat``, the seat to move)."""
        spec = get_spec(state.game)
        ids = spec.encode_legal(state, actions)
        players = len(state.players)
        if self.model.game != state.game or self.model.players != players:
            raise ValueError(
                f"the model plays {self.model.game} with {self.model.players} players, "
                f"not {state.game} with {players}"
            )
        from cradle import _native

        if isinstance(state, _native.TigrisState | _native.GheosState):
            logits, _ = self.model.judge(state, ids)
            return [float(x) for x in logits]
        observation = np.zeros((1, spec.observation_size(players)), np.float32)
        spec.fill_observation(state.view(seat), seat, observation[0])
        all_logits, _ = self.model.forward(observation)
        return [float(all_logits[0, i]) for i in ids]

    def choose(self, state: GameState, seat: int) -> str:
        seat = seat_index(seat)
        actions = decision_actions(state, seat)
        if len(actions) == 1:
            return actions[0]
        allowed = self.guard.allowed(state, seat, actions)
        if len(allowed) == 1:
            return allowed[0]
        logits = self.logits(state, seat, allowed)
        return allowed[max(range(len(allowed)), key=lambda i: (logits[i], -i))]
