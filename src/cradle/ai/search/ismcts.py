"""Single-observer information-set Monte Carlo tree search (Cowling, Powley & Whitehouse 2012).

One tree for the searching seat. Every iteration samples a world the seat cannot tell from the
truth (``sample_hidden``), walks down the tree taking only the actions legal in that world,
adds one node, evaluates it (settle what is in progress, a few policy moves and random ones,
then the game's heuristic) and backs up a reward vector: each node keeps the reward of the seat that
chose it, so opponents (2 to 4 of them) maximize their own share at their decisions.

The action space is large (several hundred tile and leader placements in Tigris), so nodes
widen progressively: a node visited n times may try about ``widening * n ** alpha`` actions,
taken best-first by the game's priors; a fading prior bonus steers the first visits.
Selection is UCB1 with availability counts (an action's chances count only in the worlds where
it was legal). Root parallelism runs independent trees in worker processes and adds their
root statistics.

This module is also the reference of the native search (``native/src/search``): on a native
state whose game has a native twin of its knowledge, :func:`search` and
:func:`parallel_search` run the same algorithm in Rust (:mod:`cradle.ai.search.native`),
several trees on threads; everywhere else (the Python engines, another knowledge) they run
the trees here.
"""

from __future__ import annotations

import math
import pickle
import random
import time
from collections.abc import Sequence
from dataclasses import replace
from functools import cache

from cradle.ai.bots import StallGuard, guarded_choice, seat_index
from cradle.ai.knowledge.base import Knowledge
from cradle.ai.knowledge.belief import HandBelief
from cradle.ai.knowledge.tigris import Shares
from cradle.ai.search.budget import Budget, TurnClock, settled
from cradle.ai.search.conflicts import sure_commitment
from cradle.ai.search.leaves import evaluate
from cradle.ai.search.native import native_search_for
from cradle.ai.search.parallel import worker_pool
from cradle.ai.search.params import IsmctsParams, batch_of, knowledge_of, playout_of, rollout_of
from cradle.ai.search.result import SearchResult, add_stats, make_result
from cradle.ai.search.worlds import next_world
from cradle.core.contract import GameState, fast
from cradle.core.hidden import CanonicalRandom
from cradle.core.results import rank_rewards
from cradle.games import get_game


class Node:
    """A node of the tree, by the action (its fixed id) that leads to it. An id names the
    same action in every world (in Gheos a hand slot, so an opponent's tiles pool in one node
    per slot, cell and rotation)."""

    __slots__ = ("action", "avail", "bias", "children", "mover", "n", "priors", "w")

    def __init__(self, action: int, mover: int, bias: float) -> None:
        self.action = action
        self.mover = mover
        self.bias = bias
        self.n = 0
        self.w = 0.0
        self.avail = 1
        self.children: dict[int, Node] = {}
        self.priors: dict[int, float] | None = None


class Ismcts:
    """One search tree; :meth:`run` grows it within a budget."""

    def __init__(
        self,
        state: GameState,
        seat: int,
        knowledge: Knowledge,
        params: IsmctsParams,
        rng: random.Random,
        only: Sequence[str] | None = None,
    ) -> None:
        self.state = state
        self.seat = seat
        self.knowledge = knowledge
        self.params = params
        self.rng = rng
        self.root = Node(-1, seat, 0.0)
        self.iterations = 0
        # The root's actions, when restricted.
        self.only: frozenset[str] | None = frozenset(only) if only is not None else None
        self.rollout: int = rollout_of(params, knowledge)
        self.playout: int = playout_of(params, knowledge)
        self.batch: int = batch_of(params, knowledge)
        # A belief over the Tigris hands the worlds are dealt by (the knowledge's).
        self.tilts: Shares | None = getattr(knowledge, "tilts", None)
        # Where the worlds come from: seeded by the first iteration, then going on from world
        # to world (search.worlds.next_world).
        self.dealer: random.Random | None = None

    def run(self, budget: Budget) -> SearchResult:
        """Grow the tree within ``budget`` (with ``stop``, until the move is settled)."""
        clock = budget.clock()
        self.iterations = 0
        stop = self.params.stop and budget.seconds is not None
        while True:
            self.walk()
            if not clock.tick():
                break
            if stop:
                left = clock.left()
                if left is not None and settled((c.n for c in self.root.children.values()), left):
                    break
        return self.result(clock.elapsed())

    def world(self) -> GameState:
        if self.dealer is None:
            self.dealer = CanonicalRandom(self.rng.getrandbits(64))
        return next_world(self.state, self.seat, self.dealer, self.tilts)

    def walk(self) -> None:
        """One iteration: a world, a walk down, one new node, its evaluation, the backup."""
        world = self.world()
        node = self.root
        path: list[Node] = []
        rewards: list[float] | None = None
        while rewards is None:
            if world.is_over:
                rewards = rank_rewards(world.result())
                break
            actions = world.legal_actions()
            ids = world.legal_action_ids()
            if node is self.root and self.only is not None:
                kept = [i for i, a in enumerate(actions) if a in self.only]
                if kept:  # unless none of them is legal in this world
                    actions = [actions[i] for i in kept]
                    ids = [ids[i] for i in kept]
            child = self.select(node, world, actions, ids)
            path.append(child)
            fast(world).apply_quiet(child.action)
            if child.n == 0:
                rewards = evaluate(world, self.knowledge, self.rng, self.rollout, self.playout)
            node = child
        self.root.n += 1
        for child in path:
            child.n += 1
            child.w += rewards[child.mover]
        self.iterations += 1

    def select(self, node: Node, world: GameState, actions: list[str], ids: list[int]) -> Node:
        """The child to follow: a new one while the node may still widen, else the best by
        UCB among those legal in this world (``ids``: the ids of ``actions``)."""
        children = node.children
        available: list[Node] = []
        if len(children) * 4 < len(ids):
            legal = set(ids)
            for key, child in children.items():
                if key in legal:
                    child.avail += 1
                    available.append(child)
        else:
            for key in ids:
                found = children.get(key)
                if found is not None:
                    found.avail += 1
                    available.append(found)
        params = self.params
        allowed = params.widening * (node.n + 1) ** params.alpha
        if len(available) < len(actions) and (len(available) < allowed or not available):
            return self.expand(node, world, actions, ids)
        c = params.exploration
        weight = params.prior_weight
        best = available[0]
        best_score = -math.inf
        for child in available:
            n = child.n
            score = (
                child.w / n
                + c * math.sqrt(math.log(child.avail) / n)
                + weight * child.bias / (n + 1)
            )
            if score > best_score:
                best, best_score = child, score
        return best

    def expand(self, node: Node, world: GameState, actions: list[str], ids: list[int]) -> Node:
        if node.priors is None:
            node.priors = {}
        priors = node.priors
        children = node.children
        fresh = [k for k in ids if k not in children and k in priors]
        if not fresh:
            # Score the actions not scored yet: all of them at the root, a random batch
            # deeper down (a node rarely lives long enough to need more than its best few).
            missing = [a for a, k in zip(actions, ids, strict=True) if k not in priors]
            if node is not self.root and len(missing) > self.batch:
                missing = self.draw_batch(world, missing, self.batch)
            scores = self.knowledge.priors(world, missing)
            id_of = dict(zip(actions, ids, strict=True))
            rng = self.rng
            fresh = [id_of[a] for a in missing]
            for key, score in zip(fresh, scores, strict=True):
                priors[key] = score + 1e-6 * rng.random()  # random order among equals
        key = max(fresh, key=priors.__getitem__)
        child = Node(key, world.to_move, math.tanh(priors[key]))
        children[key] = child
        return child

    def draw_batch(self, world: GameState, missing: list[str], batch: int) -> list[str]:
        """The urgent actions among ``missing`` first (``params.urgent``), the rest of the
        batch drawn at random from the others."""
        urgent_of = getattr(self.knowledge, "urgent", None)
        urgent = urgent_of(world) if self.params.urgent and urgent_of is not None else ()
        first = [a for a in missing if a in urgent]
        rest = [a for a in missing if a not in urgent]
        room = batch - len(first)
        return first + self.rng.sample(rest, max(0, min(room, len(rest))))

    def stats(self) -> dict[str, tuple[int, float]]:
        """The root's children by action text (the root's actions are the same in every
        world: the searching seat's own)."""
        text = fast(self.state).action_string
        return {text(key): (child.n, child.w) for key, child in self.root.children.items()}

    def result(self, seconds: float) -> SearchResult:
        return make_result(self.seat, self.iterations, seconds, self.stats())


def search(
    state: GameState,
    seat: int,
    budget: Budget,
    params: IsmctsParams | None = None,
    seed: int | None = None,
    knowledge: Knowledge | None = None,
    only: list[str] | None = None,
) -> SearchResult:
    """Search ``state`` for ``seat`` (the seat to move) in one process; ``only``: the
    actions the root may choose from (default: all legal ones); ``knowledge``: the game's
    own by default (:func:`knowledge_of`)."""
    params = params or IsmctsParams()
    knowledge = knowledge or knowledge_of(state, params)
    native = native_search_for(state, knowledge, params)
    if native is not None:
        return native(state, seat, budget, params, [seed], only)
    needs_native(params)
    return Ismcts(state, seat, knowledge, params, random.Random(seed), only).run(budget)


def needs_native(params: IsmctsParams) -> None:
    """A model and the fast dealer are the native search's only: a clear error where the
    Python one would run."""
    if params.model is not None:
        raise ValueError(
            f"model={params.model} needs the native search: a native state (engine='native') "
            "and native=1"
        )
    if params.fast_deal:
        raise ValueError(
            "fast_deal=1 needs the native search: a native state (engine='native') and native=1"
        )


# -- root parallelism ------------------------------------------------------------------------


def _search_in_worker(
    blob: bytes,
    seat: int,
    budget: Budget,
    params: IsmctsParams,
    seed: int,
    only: list[str] | None = None,
    tilts: Shares | None = None,
) -> tuple[int, dict[str, tuple[int, float]]]:
    state = pickle.loads(blob)
    knowledge = knowledge_of(state, params, tilts)
    tree = Ismcts(state, seat, knowledge, params, random.Random(seed), only)
    tree.run(budget)
    return tree.iterations, tree.stats()


def parallel_search(
    state: GameState,
    seat: int,
    budget: Budget,
    params: IsmctsParams,
    seeds: Sequence[int],
    only: list[str] | None = None,
    tilts: Shares | None = None,
) -> SearchResult:
    """Independent trees (one per seed) in worker processes (natively: on threads); their
    root statistics added. ``tilts``: a belief over the Tigris hands (``params.belief``)."""
    knowledge = knowledge_of(state, params, tilts)
    native = native_search_for(state, knowledge, params)
    if native is not None:
        return native(state, seat, budget, params, seeds, only)
    needs_native(params)
    start = time.perf_counter()
    blob = pickle.dumps(state)
    share = budget.split(len(seeds))
    pool = worker_pool(len(seeds))
    # Several trees' added visits are not one tree's: none of them stops early.
    each = replace(params, stop=False) if len(seeds) > 1 else params
    futures = [
        pool.submit(_search_in_worker, blob, seat, share, each, s, only, tilts) for s in seeds
    ]
    merged: dict[str, tuple[int, float]] = {}
    iterations = 0
    for future in futures:
        count, stats = future.result()
        iterations += count
        for action, (n, w) in stats.items():
            add_stats(merged, action, n, w)
    return make_result(seat, iterations, time.perf_counter() - start, merged)


class IsmctsBot:
    """Information-set MCTS within a budget of iterations or seconds per decision."""

    def __init__(
        self,
        seed: int | None = None,
        budget: Budget | None = None,
        params: IsmctsParams | None = None,
        workers: int = 1,
        name: str = "ismcts",
        turn_seconds: float | None = None,
    ) -> None:
        self.name = name
        self.rng = random.Random(seed)
        self.budget = budget or Budget(seconds=1.0)
        self.params = params or IsmctsParams()
        self.workers = max(1, workers)
        self.guard = StallGuard()
        self.turn = TurnClock(turn_seconds)
        warm_up()  # here, not in the first decision
        self.decision_budget = self.budget  # this decision's share of its turn
        # What the public history says about the hands (params.belief; the drivers call
        # observe, the server hands over the belief it keeps for the table).
        self.belief = HandBelief()

    def observe(self, state: GameState, action: str) -> None:
        """``action`` is about to be played in ``state`` (by any seat): read the opponents."""
        if self.params.belief:
            self.belief.observe(state, action)

    def analyse(self, state: GameState, seat: int, only: list[str] | None = None) -> SearchResult:
        if state.to_move != seat:
            raise ValueError(f"it is seat {state.to_move}'s decision, not seat {seat}'s")
        budget = self.decision_budget
        tilts = self.belief.tilts(state) if self.params.belief else None
        seeds = [self.rng.getrandbits(63) for _ in range(self.workers)]
        if self.workers == 1:
            knowledge = knowledge_of(state, self.params, tilts)
            return search(state, seat, budget, self.params, seeds[0], knowledge, only)
        return parallel_search(state, seat, budget, self.params, seeds, only, tilts)

    def choose(self, state: GameState, seat: int) -> str:
        seat = seat_index(seat)
        self.decision_budget = self.turn.budget(state.view(seat), self.budget)
        began = time.perf_counter()
        try:
            if self.params.sure:
                sure = sure_commitment(state, seat)
                if sure is not None:
                    return sure
            return guarded_choice(state, seat, self.guard, self.analyse)
        finally:
            self.turn.spend(time.perf_counter() - began)
            self.decision_budget = self.budget


@cache
def warm_up() -> None:
    """Search one iteration in a fresh game of each game, once a process: the first
    decision of a player's bot then waits for nothing the search builds on first use (the
    knowledge's tables, the native search's)."""
    for game in ("tigris", "gheos"):
        state = get_game(game).new_game(2, 0)
        search(state, state.to_move, Budget(iterations=1), seed=0)
