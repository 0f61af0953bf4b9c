"""The settings of the ISMCTS search (``IsmctsParams``) and the game knowledge they choose.

What is here is what plays: every default decided by a sequential test at equal time, and the
switches the levels, the hints and the tests need. A setting that lost its test was deleted,
in Python and in Rust; :data:`REMOVED` says why, so that a bot spec naming one gets a clear
error (docs/ai-decisions.md has each verdict).
"""

from __future__ import annotations

from dataclasses import dataclass

from cradle.ai.knowledge.base import Knowledge
from cradle.ai.knowledge.gheos import GheosSettings, gheos_value
from cradle.ai.knowledge.params import KnowledgeSettings, knowledge_for
from cradle.ai.knowledge.tigris import Shares, TigrisKnowledge, TigrisSettings, tigris_value
from cradle.core.contract import GameState


@dataclass(frozen=True)
class IsmctsParams:
    exploration: float = 0.4  # UCB constant (rewards are in [0, 1])
    widening: float = 1.5  # children allowed ~ widening * visits ** alpha
    alpha: float = 0.5
    prior_weight: float = 0.3  # progressive bias, fading as 1 / (visits + 1)
    # Quick-policy moves after settling, before the playout; None: the game's own default
    # (the knowledge's ``rollout``: 4 in Gheos, 0 in Tigris).
    rollout: int | None = None
    # Then uniformly random moves; None: the game's own default (the knowledge's
    # ``playout``: 8 in Gheos, 0 in Tigris).
    playout: int | None = None
    # Actions scored at a time below the root; None: the knowledge's own (``batch``: 16 in
    # Gheos), else 48.
    batch: int | None = None
    # The hand-set evaluation; None: the game's default (DEFAULT_VALUE). Tigris: 2, the
    # final lowest colour; 1, the colours weighted lowest first (PIMC's). Gheos: 4, value 1
    # with the control of the end and the tokens each seat can expect to play; 1, followers
    # × what their continents will score (PIMC's). cradle.ai.knowledge.tigris / .gheos.
    value: int | None = None
    # Without a model: the linear learned evaluation of the game (cradle.ai.knowledge.learned).
    # With one: the model alone, the game's knowledge off (no hand-written priors, settling,
    # rollout or judging: the ablation without domain knowledge).
    learned: bool = False
    # Gheos: the priors judge a move that starts a war or a migration after that conflict is
    # played out by the policy (GheosKnowledge.settle_conflict); None: the game's default
    # (on in Gheos; Tigris' priors have no such setting).
    settle: bool | None = None
    # Tigris: the worlds are dealt and the commitments chosen against the belief over the
    # hands read from the public history (cradle.ai.knowledge.belief); off: uniform.
    belief: bool = False
    # Tigris: an attacker whose commitment can win against every hand the defender could
    # hold commits the fewest tiles that do, without searching (cradle.ai.search.conflicts);
    # off: the search chooses the commitment.
    sure: bool = False
    # Below the root, every batch of priors also holds the knowledge's urgent actions (in
    # Gheos, the tile actions that start a war or a migration), the rest of it drawn at
    # random; off: the whole batch at random. Tigris' knowledge names none.
    urgent: bool = True
    # A search with seconds in its budget stops once the most visited root action leads the
    # next by more visits than the iterations still to come at its pace
    # (cradle.ai.search.budget.settled): no later iteration could change the move. The time
    # saved goes to the turn's next decisions (TurnClock). Only where one tree searches;
    # off: the whole budget (the hints, the review, the bench: they read more than the move).
    stop: bool = True
    native: bool = True  # off: the Python search even where the native one could run
    # A learned network at the leaves (cradle.ai.model: a shipped name or a path; the native
    # search only): its log-prior added to the priors, its values mixed into each leaf's
    # evaluation by ``blend`` (0: priors only; 1: its values alone), or alone with ``learned``.
    model: str | None = None
    blend: float = 0.5
    # The native search deals its worlds with SplitMix64 instead of CPython's Mersenne
    # Twister: faster, the same distribution, but not the Python search's worlds for the same
    # seed (so not the same trees or moves); off keeps them the same. The native search only.
    fast_deal: bool = False

    def __post_init__(self) -> None:
        if not 0.0 <= self.blend <= 1.0:
            raise ValueError(f"blend is 0 to 1, not {self.blend}")
        if self.value not in (None, 1, 2, 4):
            raise ValueError(
                f"value is 1 or 2 (Tigris), 1 or 4 (Gheos), not {self.value}"
                + (f": {REMOVED_VALUES[self.value]}" if self.value in REMOVED_VALUES else "")
            )
        for name in ("learned", "belief", "sure", "urgent", "stop", "native", "fast_deal"):
            if getattr(self, name) not in (False, True):
                raise ValueError(f"{name} is 0 or 1, not {getattr(self, name)}")
            object.__setattr__(self, name, bool(getattr(self, name)))  # 0 and 1 as switches
        if self.settle not in (None, False, True):
            raise ValueError(f"settle is 0 or 1, not {self.settle}")
        if self.settle is not None:
            object.__setattr__(self, "settle", bool(self.settle))
        for name in ("rollout", "playout"):
            moves = getattr(self, name)
            if moves is not None and moves < 0:
                raise ValueError(f"{name} is a number of moves, at least 0, not {moves}")
        if self.batch is not None and self.batch < 1:
            raise ValueError(f"batch is at least 1, not {self.batch}")


# The settings a sequential test or its screens rejected, deleted from both searches: why,
# for the error a bot spec that names one gets (docs/ai-decisions.md).
REMOVED = {
    "robust": "the most visited move beat the best mean among the well visited",
    "fitted": "the fitted Tigris evaluation searched worse than the hand-set one",
    "halving": "sequential halving at the root was behind UCB against PIMC",
    "balance": "random moves on to a seat's turn lost their SPRTs (H0)",
    "keys": "pooling an action's tiles by hand slot beat keying by tile (H0)",
    "steps": "the policy's steps in the playout lost their SPRT (H0)",
    "mix": "judging half a leaf before its playout was behind (and -0.2 at depth one)",
    "odds": "selection by log-odds lost its SPRT (H0)",
    "reuse": "keeping the trees from a decision to the next lost its SPRT (H0)",
    "handing": "judging a token that hands over the end lost its SPRT (H0)",
}
REMOVED_VALUES = {
    3: "Gheos value 3 lost to value 4 with settle (H1 for value 4)",
    5: "Gheos value 5, a calibrated temperature, played no better (undecided, screens level)",
    6: "Gheos value 6 lost its SPRT (H0)",
}


def batch_of(params: IsmctsParams, knowledge: Knowledge) -> int:
    """How many actions an expansion below the root scores at a time: the settings', else
    the knowledge's, else 48."""
    if params.batch is not None:
        return params.batch
    return int(getattr(knowledge, "batch", 48))


def rollout_of(params: IsmctsParams, knowledge: Knowledge) -> int:
    """The quick-policy moves before a leaf's playout: the settings', else the knowledge's."""
    if params.rollout is not None:
        return int(params.rollout)
    return int(getattr(knowledge, "rollout", 0))


def playout_of(params: IsmctsParams, knowledge: Knowledge) -> int:
    """The random moves of a leaf's playout: the settings', else the knowledge's."""
    if params.playout is not None:
        return int(params.playout)
    return int(getattr(knowledge, "playout", 0))


# The evaluation each game's search uses when the settings name none (IsmctsParams.value).
DEFAULT_VALUE = {"tigris": 2, "gheos": 4}


def knowledge_settings(game: str, params: IsmctsParams) -> KnowledgeSettings:
    """The settings of ``game``'s knowledge that ``params`` choose (a clear error for one the
    game does not have)."""
    if game == "tigris":
        if params.settle:
            raise ValueError("settle is a setting of the Gheos priors, not of Tigris'")
        linear = params.learned and params.model is None
        return TigrisSettings(tigris_value(params.value or DEFAULT_VALUE[game]), linear)
    if game == "gheos":
        if params.value == 2:
            raise ValueError(
                "Gheos value 2 was removed: it called the winner better and played worse; "
                "Gheos has values 1 and 4"
            )
        if params.belief:
            raise ValueError("belief reads the Tigris hands; Gheos has none to read")
        settle = True if params.settle is None else params.settle
        linear = params.learned and params.model is None
        return GheosSettings(gheos_value(params.value or DEFAULT_VALUE[game]), linear, settle)
    raise ValueError(f"no AI knowledge for the game {game!r}")


def knowledge_of(state: GameState, params: IsmctsParams, tilts: Shares | None = None) -> Knowledge:
    """The game's knowledge for these settings; ``tilts``: a belief over the Tigris hands
    (with ``params.belief``; None or another game: the shared knowledge, uniform)."""
    settings = knowledge_settings(state.game, params)
    if isinstance(settings, TigrisSettings) and tilts is not None and params.belief:
        return TigrisKnowledge(settings.value, settings.learned, tilts)
    return knowledge_for(settings)
