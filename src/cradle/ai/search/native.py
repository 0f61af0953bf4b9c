"""The native search (``native/src/search``, Rust): the same algorithm as
:mod:`cradle.ai.search.ismcts` on native states whose game knowledge has a native twin,
several trees on threads.

The Python search stays the reference and runs everywhere else: the Python engines, a
knowledge of one's own (a subclass counts as another one), or ``IsmctsParams.native == 0``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from cradle.ai.knowledge.base import Knowledge
from cradle.ai.knowledge.gheos import GheosKnowledge
from cradle.ai.knowledge.learned import model
from cradle.ai.knowledge.tigris import TigrisKnowledge
from cradle.ai.search.budget import Budget
from cradle.ai.search.params import IsmctsParams, batch_of, playout_of, rollout_of
from cradle.ai.search.result import SearchResult, make_result
from cradle.core.contract import GameState, fast

try:
    from cradle import _native

    BUILT = True
except ImportError:  # not built: the Python search serves
    BUILT = False


# The settings as the native search takes them (native/src/search/tree.rs, Settings;
# ``native_settings`` builds them in order): the real ones (exploration, widening, alpha,
# prior_weight, mix), then the counts (rollout, playout, batch, halving, balance, urgent,
# keys, steps, odds, stop).
NativeSettings = tuple[
    tuple[float, float, float, float, float],
    tuple[int, int, int, int, int, int, int, int, int, int],
]


# The native search of a state: (state, seat, iterations, seconds, params, seeds, only,
# floor) -> (iterations run, [(action id, visits, summed reward) per visited root action]).
NativeSearch = Callable[
    [
        GameState,
        int,
        int | None,
        float | None,
        NativeSettings,
        list[int],
        list[int] | None,
        int | None,
    ],
    tuple[int, list[tuple[int, int, float]]],
]


def _native_twin(
    state: GameState, knowledge: Knowledge, params: IsmctsParams
) -> tuple[str, dict[str, Any]] | None:
    """The game whose native search runs ``state`` with ``knowledge`` and the knowledge's
    arguments to it by name, or None where the Python search runs: the Python engines, a
    knowledge with no native twin (a subclass counts as another one), or
    ``params.native == 0``."""
    if not params.native or not BUILT:
        return None
    if type(knowledge) is TigrisKnowledge and isinstance(state, _native.TigrisState):
        if knowledge.learned:
            model("tigris")  # the native search evaluates with the weights it was given
        return "tigris", {
            "fitted": knowledge.fitted,
            "belief": belief_rows(knowledge),
            "value": knowledge.value,
            "learned": knowledge.learned,
        }
    if type(knowledge) is GheosKnowledge and isinstance(state, _native.GheosState):
        if knowledge.learned:
            model("gheos")
        return "gheos", {
            "learned": knowledge.learned,
            "value": knowledge.value,
            "settle": knowledge.settle,
            "handing": knowledge.handing,
        }
    return None


def belief_rows(knowledge: Knowledge) -> list[list[float]] | None:
    """A Tigris knowledge's belief over the hands (``tilts``) as the native search takes it;
    None for none."""
    tilts = getattr(knowledge, "tilts", None)
    return None if tilts is None else [list(row) for row in tilts]


def native_result(
    state: GameState,
    seat: int,
    iterations: int,
    seconds: float,
    rows: list[tuple[int, int, float]],
    params: IsmctsParams,
) -> SearchResult:
    """A native search's root rows (action id, visits, summed reward) as a SearchResult."""
    text = fast(state).action_string
    stats = {text(i): (n, w) for i, n, w in rows}
    return make_result(seat, iterations, seconds, stats, params.choice_robust)


def native_search_for(
    state: GameState, knowledge: Knowledge, params: IsmctsParams
) -> NativeSearch | None:
    """The native search of ``state`` with ``knowledge``, or None where the Python search runs
    (``_native_twin``)."""
    twin = _native_twin(state, knowledge, params)
    if twin is None:
        return None
    _, arguments = twin

    def run(
        state: GameState,
        seat: int,
        iterations: int | None,
        seconds: float | None,
        settings: NativeSettings,
        seeds: list[int],
        only: list[int] | None,
        floor: int | None,
    ) -> tuple[int, list[tuple[int, int, float]]]:
        # The caller's arguments, then the knowledge's by name.
        if isinstance(state, _native.TigrisState):
            return _native.tigris_search(
                state, seat, iterations, seconds, settings, seeds, only, floor=floor, **arguments
            )
        assert isinstance(state, _native.GheosState)
        return _native.gheos_search(
            state, seat, iterations, seconds, settings, seeds, only, floor=floor, **arguments
        )

    return run


class NativeTrees:
    """The native trees of a search kept from a decision to the seat's next one
    (``IsmctsParams.reuse``): ``_native.GheosTrees`` or ``TigrisTrees``."""

    def __init__(
        self,
        state: GameState,
        seat: int,
        knowledge: Knowledge,
        params: IsmctsParams,
        seeds: Sequence[int | None],
    ) -> None:
        twin = _native_twin(state, knowledge, params)
        if twin is None:
            raise ValueError("no native search for this state and knowledge")
        _, arguments = twin
        self.params = params
        settings = native_settings(params, knowledge, trees=len(seeds))
        native_seeds = [native_seed(s) for s in seeds]
        self.handle: _native.TigrisTrees | _native.GheosTrees
        if isinstance(state, _native.TigrisState):
            self.handle = _native.tigris_trees(state, seat, settings, native_seeds, **arguments)
        else:
            assert isinstance(state, _native.GheosState)
            self.handle = _native.gheos_trees(state, seat, settings, native_seeds, **arguments)
        self.state = state
        self.seat = seat

    def run(self, budget: Budget) -> SearchResult:
        start = time.perf_counter()
        iterations, rows = self.handle.run(budget.iterations, budget.seconds, budget.floor)
        seconds = time.perf_counter() - start
        return native_result(self.state, self.seat, iterations, seconds, rows, self.params)

    def advance(self, state: GameState, action: int, knowledge: Knowledge) -> bool:
        """Go on to ``state`` after the seat's own ``action`` (an id) at the root
        (``Tree::advance``); ``knowledge``: the seat's knowledge now (a Tigris belief)."""
        handle = self.handle
        if isinstance(handle, _native.TigrisTrees) and isinstance(state, _native.TigrisState):
            moved = handle.advance(state, action, belief_rows(knowledge))
        elif isinstance(handle, _native.GheosTrees) and isinstance(state, _native.GheosState):
            moved = handle.advance(state, action)
        else:
            return False
        if moved:
            self.state = state
        return moved


def native_settings(params: IsmctsParams, knowledge: Knowledge, trees: int) -> NativeSettings:
    """``params`` as the native search takes them (the game's rollout, playout and batch resolved;
    ``stop`` only for a single tree: several trees' added visits are not one tree's)."""
    return (
        (
            float(params.exploration),
            float(params.widening),
            float(params.alpha),
            float(params.prior_weight),
            float(params.mix),
        ),
        (
            rollout_of(params, knowledge),
            playout_of(params, knowledge),
            batch_of(params, knowledge),
            int(params.halving),
            int(params.balance),
            int(params.urgent),
            int(params.keys),
            int(params.steps),
            int(params.odds),
            int(params.stops and trees == 1),
        ),
    )


def native_seed(seed: int | None) -> int:
    """A seed of any size as the native search takes it, as random.Random takes it: the
    generator's first 64 bits."""
    return random.Random(seed).getrandbits(64)


def _native_run(
    run: NativeSearch,
    state: GameState,
    seat: int,
    budget: Budget,
    params: IsmctsParams,
    knowledge: Knowledge,
    seeds: Sequence[int | None],
    only: Sequence[str] | None,
) -> SearchResult:
    """One native search (several trees on threads with several seeds), as a SearchResult."""

    start = time.perf_counter()
    if state.to_move != seat:
        raise ValueError(f"it is seat {state.to_move}'s decision, not seat {seat}'s")
    quick = fast(state)
    only_ids: list[int] | None = None
    if only is not None:
        wanted = set(only)
        only_ids = [i for i in state.legal_action_ids() if quick.action_string(i) in wanted]
    settings = native_settings(params, knowledge, trees=len(seeds))
    native_seeds = [native_seed(seed) for seed in seeds]
    iterations, rows = run(
        state,
        seat,
        budget.iterations,
        budget.seconds,
        settings,
        native_seeds,
        only_ids,
        budget.floor,
    )
    seconds = time.perf_counter() - start
    return native_result(state, seat, iterations, seconds, rows, params)
