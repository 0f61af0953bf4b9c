"""The native search (``native/src/search``, Rust): the same algorithm as
:mod:`cradle.ai.search.ismcts` on native states whose game knowledge has a native twin,
several trees on threads.

The Python search stays the reference and runs everywhere else: the Python engines, a
knowledge of one's own (a subclass counts as another one), or ``IsmctsParams.native`` off.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cradle.ai.knowledge.base import Knowledge
from cradle.ai.knowledge.gheos import GheosKnowledge
from cradle.ai.knowledge.learned import model
from cradle.ai.knowledge.params import KnowledgeSettings
from cradle.ai.knowledge.tigris import TigrisKnowledge
from cradle.ai.model import load
from cradle.ai.search.budget import Budget
from cradle.ai.search.params import IsmctsParams, batch_of, playout_of, rollout_of
from cradle.ai.search.result import SearchResult, make_result
from cradle.core.contract import GameState, fast

try:
    from cradle import _native

    BUILT = True
except ImportError:  # not built: the Python search serves
    BUILT = False


@dataclass(frozen=True)
class NativeSettings:
    """The settings as the native search reads them, by name (native/src/python/search.rs,
    ``Settings``): ``IsmctsParams`` with the game's rollout, playout and batch resolved."""

    exploration: float
    widening: float
    alpha: float
    prior_weight: float
    rollout: int
    playout: int
    batch: int
    urgent: bool
    stop: bool
    fast_deal: bool = False


def native_settings(params: IsmctsParams, knowledge: Knowledge, trees: int) -> NativeSettings:
    """``params`` as the native search takes them (``stop`` only for a single tree: several
    trees' added visits are not one tree's)."""
    return NativeSettings(
        exploration=float(params.exploration),
        widening=float(params.widening),
        alpha=float(params.alpha),
        prior_weight=float(params.prior_weight),
        rollout=rollout_of(params, knowledge),
        playout=playout_of(params, knowledge),
        batch=batch_of(params, knowledge),
        urgent=bool(params.urgent),
        stop=bool(params.stop) and trees == 1,
        fast_deal=bool(params.fast_deal),
    )


def native_seed(seed: int | None) -> int:
    """A seed of any size as the native search takes it, as random.Random takes it: the
    generator's first 64 bits."""
    return random.Random(seed).getrandbits(64)


def belief_rows(knowledge: Knowledge) -> list[list[float]] | None:
    """A Tigris knowledge's belief over the hands (``tilts``) as the native search takes it;
    None for none."""
    tilts = getattr(knowledge, "tilts", None)
    return None if tilts is None else [list(row) for row in tilts]


def native_knowledge(
    state: GameState, knowledge: Knowledge, params: IsmctsParams
) -> KnowledgeSettings | None:
    """The settings of ``knowledge`` as the native search of ``state`` reads them, or None
    where the Python search runs: the Python engines, a knowledge with no native twin (a
    subclass counts as another one), or ``params.native`` off. A learned model is handed to
    the native side first (it evaluates with the weights it was given)."""
    if not params.native or not BUILT:
        return None
    if type(knowledge) is TigrisKnowledge and isinstance(state, _native.TigrisState):
        if knowledge.learned:
            model("tigris")
        return knowledge.settings
    if type(knowledge) is GheosKnowledge and isinstance(state, _native.GheosState):
        if knowledge.learned:
            model("gheos")
        return knowledge.settings
    return None


# The native search of a state with its knowledge: (state, seat, budget, params, seeds,
# only) -> the result, several trees (one per seed) on threads.
NativeSearch = Callable[
    [GameState, int, Budget, IsmctsParams, Sequence[int | None], Sequence[str] | None],
    SearchResult,
]


def native_search_for(
    state: GameState, knowledge: Knowledge, params: IsmctsParams
) -> NativeSearch | None:
    """The native search of ``state`` with ``knowledge``, or None where the Python search
    runs (:func:`native_knowledge`)."""
    judging = native_knowledge(state, knowledge, params)
    if judging is None:
        return None
    belief = belief_rows(knowledge)
    network = None if params.model is None else load(params.model)

    def run(
        state: GameState,
        seat: int,
        budget: Budget,
        params: IsmctsParams,
        seeds: Sequence[int | None],
        only: Sequence[str] | None,
    ) -> SearchResult:
        start = time.perf_counter()
        assert isinstance(state, _native.TigrisState | _native.GheosState)
        if state.to_move != seat:
            raise ValueError(f"it is seat {state.to_move}'s decision, not seat {seat}'s")
        quick = fast(state)
        only_ids: list[int] | None = None
        if only is not None:
            wanted = set(only)
            only_ids = [i for i in state.legal_action_ids() if quick.action_string(i) in wanted]
        iterations, rows = _native.search(
            state,
            seat,
            budget.iterations,
            budget.seconds,
            native_settings(params, knowledge, trees=len(seeds)),
            judging,
            [native_seed(seed) for seed in seeds],
            only_ids,
            floor=budget.floor,
            belief=belief,
            model=network,
            pure=params.learned and network is not None,
            blend=params.blend,
        )
        seconds = time.perf_counter() - start
        stats = {quick.action_string(i): (n, w) for i, n, w in rows}
        return make_result(seat, iterations, seconds, stats)

    return run
