"""Single-observer information-set Monte Carlo tree search (Cowling, Powley & Whitehouse 2012).

One tree for the searching seat. Every iteration samples a world the seat cannot tell from the
truth (``sample_hidden``), walks down the tree taking only the actions legal in that world,
adds one node, evaluates it (settle what is in progress, an optional short rollout, then the
game's heuristic) and backs up a reward vector: each node keeps the reward of the seat that
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

from cradle.ai.bots import StallGuard, guarded_choice
from cradle.ai.knowledge.base import Knowledge
from cradle.ai.knowledge.belief import HandBelief
from cradle.ai.knowledge.tigris import Shares
from cradle.ai.search.budget import Budget, TurnClock, settled
from cradle.ai.search.leaves import evaluate
from cradle.ai.search.native import NativeTrees, _native_run, _native_twin, native_search_for
from cradle.ai.search.parallel import worker_pool
from cradle.ai.search.params import IsmctsParams, batch_of, knowledge_of, playout_of, rollout_of
from cradle.ai.search.result import SearchResult, add_stats, make_result
from cradle.ai.search.worlds import next_world, sample_world
from cradle.core.contract import GameState, fast
from cradle.core.hidden import CanonicalRandom
from cradle.core.results import rank_rewards
from cradle.games import get_game

# What names an action in the tree (IsmctsParams.keys): its id, its text, or ~id (an urgent
# action's, with keys=2).
Key = int | str


# Where log_odds stops: a mean of 0 or 1 counts as this close to it.
ODDS_EDGE = 1e-4


def log_odds(mean: float) -> float:
    """A quarter of the log-odds of ``mean`` (kept ODDS_EDGE away from 0 and 1): about
    ``mean - 1/2`` near one half, spread apart near 0 and 1 (``IsmctsParams.odds``)."""
    p = min(max(mean, ODDS_EDGE), 1.0 - ODDS_EDGE)
    return math.log(p / (1.0 - p)) / 4.0


def action_of(key: Key) -> int | str:
    """The action a tree's key names in a world: the key itself, or the id of ``~id``."""
    return ~key if isinstance(key, int) and key < 0 else key


class Node:
    __slots__ = ("action", "avail", "bias", "children", "mover", "n", "priors", "w")

    def __init__(self, action: Key, mover: int, bias: float) -> None:
        self.action = action
        self.mover = mover
        self.bias = bias
        self.n = 0
        self.w = 0.0
        self.avail = 1
        self.children: dict[Key, Node] = {}
        self.priors: dict[Key, float] | None = None


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
        self.root = Node("", seat, 0.0)
        self.iterations = 0
        # Sequential halving (``params.halving``): the root's actions left, the next one's
        # place in the pass, the round and how many rounds.
        self.survivors: list[Node] = []
        self.turn = 0
        self.round = 0
        self.rounds = 1
        # The seed of a halving pass: its world and random draws, the same for every action
        # tried in the pass (the comparison is paired, as PIMC's worlds are).
        self.pass_seed = 0
        # The root's actions, when restricted.
        self.only: frozenset[str] | None = frozenset(only) if only is not None else None
        self.rollout: int = rollout_of(params, knowledge)
        self.playout: int = playout_of(params, knowledge)
        # A belief over the Tigris hands the worlds are dealt by (the knowledge's).
        self.tilts: Shares | None = getattr(knowledge, "tilts", None)
        # Where the worlds come from: seeded by the first iteration, then going on from world
        # to world (search.worlds.next_world); a halving pass deals its own (paired) world.
        self.dealer: random.Random | None = None

    def run(self, budget: Budget) -> SearchResult:
        """Grow the tree within ``budget`` (with ``stop``, until the move is settled)."""
        clock = budget.clock()
        self.iterations = 0
        stop = self.params.stops and budget.seconds is not None
        while True:
            self.iterate()
            more = clock.tick()
            if self.survivors:
                self.halve(budget, clock.count, clock.elapsed())
            if not more:
                break
            if stop:
                left = clock.left()
                if left is not None and settled((c.n for c in self.root.children.values()), left):
                    break
        return self.result(clock.elapsed())

    def advance(self, state: GameState, key: Key) -> bool:
        """Carry the tree over to the searching seat's next decision: ``state``, the position
        after its own action ``key`` here, with nothing learnt in between (no other seat
        moved, nothing hidden was revealed: the caller's to know). The child of ``key``
        becomes the root, with its visits and everything below it; the worlds go on from the
        same dealer, now dealt from ``state``. False (and nothing changed) where the tree
        cannot follow: ``key`` never tried, another seat to move, sequential halving or keys
        other than ids. The native ``Tree::advance`` is the same."""
        if self.params.halving or self.params.keys or state.is_over or state.to_move != self.seat:
            return False
        child = self.root.children.get(key)
        if child is None:
            return False
        self.root = child
        self.state = state
        self.only = None
        return True

    def halve(self, budget: Budget, count: int, elapsed: float) -> None:
        """Sequential halving: after a whole pass over the root's actions left, once the
        budget spent reaches the end of this round's share, keep the better half."""
        if self.turn != 0 or self.round >= self.rounds - 1:
            return
        spent = 0.0 if budget.iterations is None else count / budget.iterations
        if budget.seconds is not None:
            by_time = elapsed / budget.seconds
            if budget.floor is not None:
                by_time = min(by_time, count / budget.floor)  # the floor is run first
            spent = max(spent, by_time)
        if spent * self.rounds < self.round + 1:
            return
        ranked = sorted(self.survivors, key=lambda c: -(c.w / c.n if c.n else 0.0))  # stable
        self.survivors = ranked[: (len(ranked) + 1) // 2]
        self.round += 1

    def start_halving(self, world: GameState, actions: list[str], keys: list[Key]) -> None:
        """The root's children for sequential halving: every action's prior (as ``expand``
        scores the root), then the best ``halving`` of them, best first."""
        root = self.root
        priors: dict[Key, float] = {}
        scores = self.knowledge.priors(world, actions)
        for key, score in zip(keys, scores, strict=True):
            priors[key] = score + 1e-6 * self.rng.random()  # random order among equals
        root.priors = priors
        best = sorted(keys, key=lambda a: -priors[a])[: self.params.halving]
        for action in best:
            child = Node(action, world.to_move, math.tanh(priors[action]))
            root.children[action] = child
            self.survivors.append(child)
        self.rounds = max(1, math.ceil(math.log2(len(best))))

    def iterate(self) -> None:
        if not self.params.halving:
            self.walk()
            return
        if self.turn == 0:
            self.pass_seed = self.rng.getrandbits(64)
        main, self.rng = self.rng, random.Random(self.pass_seed)
        try:
            self.walk()
        finally:
            self.rng = main

    def world(self) -> GameState:
        if self.params.halving:  # the pass's world: self.rng is the pass's generator
            return sample_world(self.state, self.seat, self.rng, self.tilts)
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
            keys = self.keys_of(world, actions)
            if node is self.root and self.only is not None:
                kept = [i for i, a in enumerate(actions) if a in self.only]
                if kept:  # unless none of them is legal in this world
                    actions = [actions[i] for i in kept]
                    keys = [keys[i] for i in kept]
            if node is self.root and self.params.halving and len(actions) > 1:
                if not self.survivors:
                    self.start_halving(world, actions, keys)
                child = self.survivors[self.turn]
                self.turn = (self.turn + 1) % len(self.survivors)
                if child.action not in keys:  # not in this world: UCB chooses
                    child = self.select(node, world, actions, keys)
            else:
                child = self.select(node, world, actions, keys)
            path.append(child)
            fast(world).apply_quiet(action_of(child.action))
            if child.n == 0:
                rewards = evaluate(
                    world,
                    self.knowledge,
                    self.rng,
                    self.rollout,
                    self.playout,
                    self.params.balance,
                    self.seat,
                    self.params.steps,
                    self.params.mix,
                )
            node = child
        self.root.n += 1
        for child in path:
            child.n += 1
            child.w += rewards[child.mover]
        self.iterations += 1

    def keys_of(self, world: GameState, actions: list[str]) -> list[Key]:
        """What the tree names this world's ``actions`` by (``IsmctsParams.keys``): their
        ids, their texts, or their ids with the urgent ones (the knowledge's ``urgent``)
        named apart as ``~id``."""
        if self.params.keys == 1:
            return [*actions]
        ids = world.legal_action_ids()
        if self.params.keys == 0:
            return [*ids]
        urgent_of = getattr(self.knowledge, "urgent", None)
        urgent = urgent_of(world) if urgent_of is not None else frozenset()
        if not urgent:
            return [*ids]
        return [~i if a in urgent else i for i, a in zip(ids, actions, strict=True)]

    def select(self, node: Node, world: GameState, actions: list[str], keys: list[Key]) -> Node:
        """The child to follow: a new one while the node may still widen, else the best by
        UCB among those legal in this world (``keys``: ``actions`` as the tree names them)."""
        children = node.children
        available: list[Node] = []
        if len(children) * 4 < len(keys):
            legal = set(keys)
            for key, child in children.items():
                if key in legal:
                    child.avail += 1
                    available.append(child)
        else:
            for key in keys:
                found = children.get(key)
                if found is not None:
                    found.avail += 1
                    available.append(found)
        params = self.params
        allowed = params.widening * (node.n + 1) ** params.alpha
        if len(available) < len(actions) and (len(available) < allowed or not available):
            return self.expand(node, world, actions, keys)
        c = params.exploration
        weight = params.prior_weight
        gain = log_odds if params.odds else float
        best = available[0]
        best_score = -math.inf
        for child in available:
            n = child.n
            score = (
                gain(child.w / n)
                + c * math.sqrt(math.log(child.avail) / n)
                + weight * child.bias / (n + 1)
            )
            if score > best_score:
                best, best_score = child, score
        return best

    def expand(self, node: Node, world: GameState, actions: list[str], keys: list[Key]) -> Node:
        if node.priors is None:
            node.priors = {}
        priors = node.priors
        children = node.children
        fresh = [k for k in keys if k not in children and k in priors]
        if not fresh:
            # Score the actions not scored yet: all of them at the root, a random batch
            # deeper down (a node rarely lives long enough to need more than its best few).
            missing = [a for a, k in zip(actions, keys, strict=True) if k not in priors]
            batch = batch_of(self.params, self.knowledge)
            if node is not self.root and len(missing) > batch:
                missing = self.draw_batch(world, missing, batch)
            scores = self.knowledge.priors(world, missing)
            key_of = dict(zip(actions, keys, strict=True))
            rng = self.rng
            fresh = [key_of[a] for a in missing]
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
        room = batch if self.params.urgent == 2 else batch - len(first)
        return first + self.rng.sample(rest, max(0, min(room, len(rest))))

    def stats(self) -> dict[str, tuple[int, float]]:
        """The root's children by action text (the root's actions are the same in every
        world: the searching seat's own)."""
        children = self.root.children.items()
        if self.params.keys == 1:
            return {str(a): (c.n, c.w) for a, c in children}
        text = fast(self.state).action_string
        stats: dict[str, tuple[int, float]] = {}
        for key, child in children:  # with keys=2, an action may have a child per name
            add_stats(stats, text(int(action_of(key))), child.n, child.w)
        return stats

    def result(self, seconds: float) -> SearchResult:
        return make_result(
            self.seat, self.iterations, seconds, self.stats(), self.params.choice_robust
        )


class PythonTrees:
    """The reference's tree of a search kept from a decision to the seat's next one."""

    def __init__(
        self,
        state: GameState,
        seat: int,
        knowledge: Knowledge,
        params: IsmctsParams,
        seed: int | None,
    ) -> None:
        self.tree = Ismcts(state, seat, knowledge, params, random.Random(seed))
        self.seat = seat

    def run(self, budget: Budget) -> SearchResult:
        return self.tree.run(budget)

    def advance(self, state: GameState, action: int, knowledge: Knowledge) -> bool:
        return self.tree.advance(state, action)


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
        return _native_run(native, state, seat, budget, params, knowledge, [seed], only)
    return Ismcts(state, seat, knowledge, params, random.Random(seed), only).run(budget)


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
        return _native_run(native, state, seat, budget, params, knowledge, seeds, only)

    start = time.perf_counter()
    blob = pickle.dumps(state)
    share = budget.split(len(seeds))
    pool = worker_pool(len(seeds))
    # Several trees' added visits are not one tree's: none of them stops early.
    each = replace(params, stop=0) if len(seeds) > 1 else params
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
    return make_result(seat, iterations, time.perf_counter() - start, merged, params.choice_robust)


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
        # params.reuse: the trees of the last search, and the position and the bot's own
        # action there, so that its next decision can go on from them (``_follow``).
        self.trees: NativeTrees | PythonTrees | None = None
        self.played: tuple[GameState, int, str] | None = None

    def observe(self, state: GameState, action: str) -> None:
        """``action`` is about to be played in ``state`` (by any seat): read the opponents."""
        if self.params.belief:
            self.belief.observe(state, action)

    def analyse(self, state: GameState, seat: int, only: list[str] | None = None) -> SearchResult:
        if state.to_move != seat:
            raise ValueError(f"it is seat {state.to_move}'s decision, not seat {seat}'s")
        budget = self.decision_budget
        tilts = self.belief.tilts(state) if self.params.belief else None
        knowledge = knowledge_of(state, self.params, tilts)
        native = _native_twin(state, knowledge, self.params) is not None
        trees, self.trees = self.trees, None
        if self.params.reuse and only is None and (native or self.workers == 1):
            if trees is None or trees.seat != seat:
                seeds = [self.rng.getrandbits(63) for _ in range(self.workers)]
                if native:
                    trees = NativeTrees(state, seat, knowledge, self.params, seeds)
                else:
                    trees = PythonTrees(state, seat, knowledge, self.params, seeds[0])
            result = trees.run(budget)
            self.trees = trees
            return result
        seeds = [self.rng.getrandbits(63) for _ in range(self.workers)]
        if self.workers == 1:
            return search(state, seat, budget, self.params, seeds[0], knowledge, only)
        return parallel_search(state, seat, budget, self.params, seeds, only, tilts)

    def choose(self, state: GameState, seat: int) -> str:
        self.decision_budget = self.turn.budget(state.view(seat), self.budget)
        began = time.perf_counter()
        try:
            self._follow(state, seat)
            action = guarded_choice(state, seat, self.guard, self.analyse)
            self.played = (state.clone(), seat, action) if self.trees is not None else None
            return action
        finally:
            self.turn.spend(time.perf_counter() - began)
            self.decision_budget = self.budget

    def _follow(self, state: GameState, seat: int) -> None:
        """Keep the last search's trees for this decision when it follows the bot's own last
        action with nothing learnt in between: ``state`` looks to the seat exactly as that
        action left the position it was played in (the same view, so the same information;
        no other seat moved, nothing was drawn). Else they are dropped."""
        trees, played = self.trees, self.played
        self.trees = self.played = None
        if trees is None or played is None or state.is_over or state.to_move != seat:
            return
        before, who, action = played
        if who != seat:
            return
        after = before.clone()
        try:
            after.apply(action)
        except ValueError:
            return
        if after.view(seat) != state.view(seat):
            return
        quick = fast(before)
        ids = [i for i in before.legal_action_ids() if quick.action_string(i) == action]
        tilts = self.belief.tilts(state) if self.params.belief else None
        if ids and trees.advance(state, ids[0], knowledge_of(state, self.params, tilts)):
            self.trees = trees


@cache
def warm_up() -> None:
    """Search one iteration in a fresh game of each game, once a process: the first
    decision of a player's bot then waits for nothing the search builds on first use (the
    knowledge's tables, the native search's, a learned model's weights)."""
    for game in ("tigris", "gheos"):
        state = get_game(game).new_game(2, 0)
        search(state, state.to_move, Budget(iterations=1), seed=0)
