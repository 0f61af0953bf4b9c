"""``expert-rules``: a rule-based bot for each game after published strategy.

No search: each decision reads one world sampled for the bot's seat and looks at most one ply
ahead, so it answers in milliseconds. Deterministic for a seed (worlds come from a
``CanonicalRandom``, ties are broken by the seeded generator over sorted actions), it picks
only legal actions, and a stall guard keeps Tigris games moving. The rules of each game are
in its module and in docs/ai.md.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, cast

from cradle.ai.bots import StallGuard, decision_actions, seat_index
from cradle.ai.expert_rules.gheos import GheosRules
from cradle.ai.expert_rules.tigris import TigrisRules
from cradle.core import native
from cradle.core.contract import GameState
from cradle.games import get_game

if TYPE_CHECKING:
    from cradle._native import GheosState, NativeBot, TigrisState

# the rules classes the Rust twin knows, by bot name (styles.py adds its three)
_STYLE_NAMES: dict[type[TigrisRules], str] = {TigrisRules: "expert-rules"}


class ExpertRulesBot:
    """Dispatches to the rules of the state's game.

    With ``native`` (the default), a seeded bot whose first state is a native engine's plays
    through its Rust twin (``cradle._native.NativeBot``: the same decisions for the same seed,
    tests/envs/test_native_bots.py), and keeps to it: a later Python-engine state is read as
    a native one. A bot whose first state is a Python engine's, an unseeded bot, or rules
    that are not one of the named styles, play the Python rules here (the reference)."""

    name = "expert-rules"

    def __init__(
        self,
        seed: int | None = None,
        tigris: type[TigrisRules] = TigrisRules,
        native: bool = True,
    ) -> None:
        self.rng = random.Random(seed)
        self.tigris = tigris
        self.guard = StallGuard(relapse=2)
        self.seed = seed
        # the twin seeds as random.Random does from any int below 2**127 in size
        self.native = native and isinstance(seed, int) and abs(seed) < 2**127 and _native_ready()
        self.twin: NativeBot | None = None  # the Rust twin, once it has played
        self.python_played = False

    def choose(self, state: GameState, seat: int) -> str:
        seat = seat_index(seat)
        twin = self._twin(state)
        if twin is not None:
            return self._native_choice(twin, state, seat)
        self.python_played = True
        actions = self.guard.allowed(state, seat, decision_actions(state, seat))
        if len(actions) == 1:
            return actions[0]
        if state.game == "tigris":
            return self.tigris(self.rng).choose(state, seat, actions)
        if state.game == "gheos":
            return GheosRules(self.rng).choose(state, seat, actions)
        return self.rng.choice(actions)

    def _twin(self, state: GameState) -> NativeBot | None:
        """The Rust twin when it plays this decision (made at the first native state)."""
        if self.twin is not None or not self.native or self.python_played:
            return self.twin
        if type(state).__module__ != "cradle._native":
            return None
        kind = _STYLE_NAMES.get(self.tigris)
        if kind is None:
            return None
        self.twin = native.extension().NativeBot(kind, int(self.seed or 0))
        return self.twin

    def _native_choice(self, twin: NativeBot, state: GameState, seat: int) -> str:
        # the twin refuses another seat's decision with the reference's ValueError
        if type(state).__module__ != "cradle._native":
            state = get_game(state.game).from_position(state.to_position(), engine="native")
        played = cast("GheosState | TigrisState", state)  # a native state from here on
        return played.action_string(twin.choose_id(played, seat))


def _native_ready() -> bool:
    return native.available() and hasattr(native.extension(), "NativeBot")


def make_expert_rules(seed: int | None = None) -> ExpertRulesBot:
    return ExpertRulesBot(seed)
