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
:func:`parallel_search` run the same algorithm in Rust, several trees on threads
(docs/ai.md); everywhere else (the Python engines, another knowledge) they run the trees here.
"""

from __future__ import annotations

import atexit
import math
import multiprocessing
import os
import pickle
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from cradle.ai.belief import HandBelief
from cradle.ai.search import (
    Budget,
    Knowledge,
    StallGuard,
    evaluate,
    game_of,
    guarded_choice,
    knowledge_for,
    next_world,
    sample_world,
    settled,
)
from cradle.ai.tigris_knowledge import Shares
from cradle.ai.waiting import TurnClock, warm_up
from cradle.core.contract import GameState, fast
from cradle.core.hidden import CanonicalRandom
from cradle.core.results import rank_rewards


@dataclass(frozen=True)
class IsmctsParams:
    exploration: float = 0.4  # UCB constant (rewards are in [0, 1])
    widening: float = 1.5  # children allowed ~ widening * visits ** alpha
    alpha: float = 0.5
    prior_weight: float = 0.3  # progressive bias, fading as 1 / (visits + 1)
    # Quick-policy moves after settling, before the playout; None: the game's own default
    # (the knowledge's ``rollout``: 4 in Gheos, 0 in Tigris).
    rollout: int | None = None
    # Then uniformly random moves (a large number: to the end of the game); None: the game's
    # own default (the knowledge's ``playout``: 8 in Gheos, 0 in Tigris).
    playout: int | None = None
    # Actions scored at a time below the root; None: the knowledge's own (``batch``: 16 in
    # Gheos), else 48.
    batch: int | None = None
    # The move played: the best mean reward among the children visited at least this share of
    # the most visited one (1.0: simply the most visited child).
    robust: float = 1.0
    fitted: int = 0  # 1: Tigris' fitted evaluation instead of the hand-set one (comparisons)
    learned: int = 0  # 1: the learned model of the game (cradle.ai.learned) as the evaluation
    # The hand-set evaluation's version; None: the game's default (DEFAULT_VALUE). Tigris: 2
    # estimates the final lowest colour (hand, leader safety, wars by the chance to win them;
    # the default since its SPRT at 0.25 s said H1), 1 weighs the sorted colours. Gheos: 2
    # values kept tokens and followers by the growth to come, with a calibrated temperature
    # (cradle.ai.gheos_knowledge), 1 the first one, 3 value 1 and the control of the game's
    # end (a seat holding every token left chooses when the game ends), 4 value 3 with the
    # tokens each seat can expect to play before the end (Gheos' default since the SPRT of
    # value 4 with ``settle``, docs/ai.md), 5 value 4 at a fitted temperature, 6 value 4 with
    # the control of the end as a second chance to win rather than points.
    value: int | None = None
    native: int = 1  # 0: the Python search even where the native one could run (comparisons)
    # 1: Tigris reads the opponents' hands from the public history (cradle.ai.belief): the
    # worlds are dealt and the commitments chosen against that belief; 0: a uniform belief.
    belief: int = 0
    # Sequential halving at the root (UCB below it): 0, off (UCB at the root too); k >= 2: the
    # k actions with the best priors share the budget in rounds, each round cycling through
    # the ones left and keeping the better half by mean reward, the time (or iterations)
    # split evenly between the ceil(log2 k) rounds. The move is the best mean of the last
    # round (``robust`` at most HALVING_ROBUST). A root choice aimed at the best action
    # (simple regret) rather than at the most rewarding iterations (UCB's cumulative regret).
    halving: int = 0
    # After the ``playout`` random moves, random moves go on to the start of a turn of, 1: the
    # seat of the first random move (every seat played as many random turns); 2: the
    # searching seat (every leaf judged with it to move). 0: exactly ``playout`` moves.
    balance: int = 0
    # 1: below the root, every batch of priors also holds the knowledge's urgent actions
    # (``urgent``: in Gheos, the tile actions that start a war or a migration, the replies
    # that can take a civilization off the table), the rest of it drawn at random (the
    # default since its Gheos SPRT, docs/ai.md; Tigris' knowledge names none); 2: the urgent
    # actions and a whole random batch of the others besides; 0: the whole batch at random.
    urgent: int = 1
    # 1: Gheos priors judge a move that starts a war or a migration after that conflict is
    # played out by the policy (GheosKnowledge.settle_conflict), not at the moment before it;
    # 0: at the moment before it. None: the game's default (DEFAULT_SETTLE: 1 in Gheos, with
    # value 4, since their SPRT together; Tigris' priors have no such setting).
    settle: int | None = None
    # How the tree tells actions apart across worlds: 0, by id (a Gheos tile action's id
    # names a hand slot, so the opponent's moves of different tiles in different worlds share
    # a node: the default since its SPRT, docs/ai.md); 1, by what they are in each world (the
    # action text: in Gheos the tile itself; the native search keys the tile the slot holds);
    # 2, by id, with the knowledge's urgent actions named apart (``~id``: in Gheos an
    # opponent's placement that starts a war in one world is not the harmless placement of
    # the same slot in another). Tigris' ids and texts name the same actions, and its
    # knowledge names nothing urgent: all three give the same tree.
    keys: int = 0
    # 1: in the random playout, every move of a turn in progress past its first action (what
    # the knowledge's ``unsettled`` names: in Gheos the followers, the token and the conflicts
    # after a tile) is the quick policy's, and only a turn's first action is left to chance;
    # 0: every playout move at random.
    steps: int = 0
    # The share of a leaf's reward judged right after settling, before its rollout and
    # playout; the rest is judged after them (0: only after). A steadier look at the leaf
    # itself mixed with its one noisy look ahead.
    mix: float = 0.0
    # 1: selection weighs a child's mean reward as a quarter of its log-odds (``log_odds``:
    # the mean's own slope at one half), so children still part where every reward is near 0
    # or 1, as in a game that looks lost or won; 0: the mean itself.
    odds: int = 0
    # 1: a search with seconds in its budget stops once the most visited root action leads
    # the next by more visits than the iterations still to come at its pace
    # (cradle.ai.search.settled): no later iteration could change the move. The time saved
    # goes to the turn's next decisions (TurnClock). Only where the move played is the most
    # visited one (robust 1, no halving) and one tree searches. 0: the whole budget.
    stop: int = 1
    # 1: the bot keeps its tree from one decision to its next when nothing was learnt in
    # between (its own move, the turn going on: in Gheos the tile, then the conflicts, the
    # civilization and the token), so the next decision starts from what was searched below
    # that move. 0: every decision searches from scratch.
    reuse: int = 0
    # 1: in Gheos (values 3 to 6, which count the control of the end) a token that would hand
    # another seat the control of the end (the mover's last, one other seat holding some) is
    # played in a playout, and by the policy, only when the evaluation says it pays
    # (GheosKnowledge.handing_token); 0: left to chance in a playout and to the policy's own
    # rule (the default: its SPRT said H0, docs/ai.md). Tigris has no such token.
    handing: int = 0

    def __post_init__(self) -> None:
        if self.value not in (None, 1, 2, 3, 4, 5, 6):
            raise ValueError(f"value is 1 to 6 (3 to 6 Gheos only), not {self.value}")
        if self.balance not in (0, 1, 2):
            raise ValueError(f"balance is 0, 1 or 2, not {self.balance}")
        if self.urgent not in (0, 1, 2):
            raise ValueError(f"urgent is 0, 1 or 2, not {self.urgent}")
        if self.settle not in (None, 0, 1):
            raise ValueError(f"settle is 0 or 1, not {self.settle}")
        if self.keys not in (0, 1, 2):
            raise ValueError(f"keys is 0, 1 or 2, not {self.keys}")
        if self.steps not in (0, 1):
            raise ValueError(f"steps is 0 or 1, not {self.steps}")
        if not 0.0 <= self.mix <= 1.0:
            raise ValueError(f"mix is from 0 to 1, not {self.mix}")
        if self.odds not in (0, 1):
            raise ValueError(f"odds is 0 or 1, not {self.odds}")
        if self.stop not in (0, 1):
            raise ValueError(f"stop is 0 or 1, not {self.stop}")
        if self.reuse not in (0, 1):
            raise ValueError(f"reuse is 0 or 1, not {self.reuse}")
        if self.handing not in (0, 1):
            raise ValueError(f"handing is 0 or 1, not {self.handing}")
        for name in ("rollout", "playout"):
            moves = getattr(self, name)
            if moves is not None and moves < 0:
                raise ValueError(f"{name} is a number of moves, at least 0, not {moves}")
        if self.batch is not None and self.batch < 1:
            raise ValueError(f"batch is at least 1, not {self.batch}")
        if self.halving < 0 or self.halving == 1:
            raise ValueError(f"halving is 0 (off) or at least 2, not {self.halving}")

    @property
    def stops(self) -> bool:
        """Whether one tree may stop once its move is settled (``stop``): only where the move
        played is the most visited one."""
        return bool(self.stop) and not self.halving and self.robust >= 1.0

    @property
    def choice_robust(self) -> float:
        """The ``robust`` the move is chosen with: with halving, at most HALVING_ROBUST, so
        that the actions of the last round (which have about twice the visits of any other)
        are compared by their mean reward."""
        return min(self.robust, HALVING_ROBUST) if self.halving else self.robust


HALVING_ROBUST = 0.75


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
# Whether the priors settle conflicts when the settings do not say (IsmctsParams.settle).
DEFAULT_SETTLE = {"gheos": 1}


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


def add_stats(stats: dict[str, tuple[int, float]], action: str, n: int, w: float) -> None:
    """Adds ``n`` visits and ``w`` summed reward to ``action``'s root statistics."""
    old_n, old_w = stats.get(action, (0, 0.0))
    stats[action] = (old_n + n, old_w + w)


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


@dataclass
class ActionStats:
    action: str
    visits: int
    reward: float  # mean reward of the searching seat after this action


@dataclass
class SearchResult:
    seat: int
    iterations: int
    seconds: float
    actions: list[ActionStats] = field(default_factory=list)  # most visited first

    @property
    def best(self) -> str:
        return self.actions[0].action


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
        # The knowledge's own worlds where it deals them (a belief over the hands).
        self.sample: Callable[[GameState, int, random.Random], GameState] = getattr(
            knowledge, "sample_world", sample_world
        )
        self.next_world: Callable[[GameState, int, random.Random], GameState] = getattr(
            knowledge, "next_world", next_world
        )
        # Where the worlds come from: seeded by the first iteration, then going on from world
        # to world (search.next_world); a halving pass deals its own (paired) world.
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
            return self.sample(self.state, self.seat, self.rng)
        if self.dealer is None:
            self.dealer = CanonicalRandom(self.rng.getrandbits(64))
        return self.next_world(self.state, self.seat, self.dealer)

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


def make_result(
    seat: int,
    iterations: int,
    seconds: float,
    stats: dict[str, tuple[int, float]],
    robust: float = 1.0,
) -> SearchResult:
    """Rows best first: the children visited at least ``robust`` × the most visits, by mean
    reward, then the others by visits."""
    rows = [ActionStats(a, n, w / n if n else 0.0) for a, (n, w) in stats.items() if n > 0]
    most = max((r.visits for r in rows), default=0)
    rows.sort(
        key=lambda r: (
            r.visits < robust * most,
            -r.reward if r.visits >= robust * most else -r.visits,
            -r.visits,
            r.action,
        )
    )
    return SearchResult(seat, iterations, seconds, rows)


def knowledge_of(state: GameState, params: IsmctsParams, tilts: Shares | None = None) -> Knowledge:
    """The game's knowledge for these settings; ``tilts``: a belief over the Tigris hands
    (with ``params.belief``; None or another game: the shared knowledge, uniform)."""
    game = game_of(state)
    version = params.value or DEFAULT_VALUE.get(game, 1)
    if version in (3, 4, 5, 6) and game != "gheos":
        raise ValueError(f"value {version} is a Gheos evaluation; {game} has values 1 and 2")
    value = f":value{version}" if version != 1 else ""
    learned = ":learned" if params.learned else ""
    if params.settle and game != "gheos":
        raise ValueError(f"settle is a setting of the Gheos priors, not of {game}'s")
    settle = DEFAULT_SETTLE.get(game, 0) if params.settle is None else params.settle
    if params.handing and game != "gheos":
        raise ValueError(f"handing is a setting of the Gheos tokens, not of {game}'s")
    if game != "tigris":
        settled = ":settled" if settle else ""
        handing = ":handing" if params.handing else ""
        return knowledge_for(f"{game}{value}{learned}{settled}{handing}")
    if tilts is not None and params.belief:
        from cradle.ai.tigris_knowledge import TigrisKnowledge

        return TigrisKnowledge(
            fitted=bool(params.fitted),
            tilts=tilts,
            value=version,
            learned=bool(params.learned),
        )
    fitted = ":fitted" if params.fitted else ""
    return knowledge_for(f"{game}{fitted}{value}{learned}")


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
    if not params.native:
        return None
    try:
        from cradle import _native
    except ImportError:
        return None
    from cradle.ai.gheos_knowledge import GheosKnowledge
    from cradle.ai.tigris_knowledge import TigrisKnowledge

    if type(knowledge) is TigrisKnowledge and isinstance(state, _native.TigrisState):
        if knowledge.learned:
            from cradle.ai.learned import model

            model("tigris")  # the native search evaluates with the weights it was given
        return "tigris", {
            "fitted": knowledge.fitted,
            "belief": belief_rows(knowledge),
            "value": knowledge.value,
            "learned": knowledge.learned,
        }
    if type(knowledge) is GheosKnowledge and isinstance(state, _native.GheosState):
        if knowledge.learned:
            from cradle.ai.learned import model

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
    from cradle import _native

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
        from cradle import _native

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
        from cradle import _native

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

_POOLS: dict[int, ProcessPoolExecutor] = {}


def _pool(workers: int) -> ProcessPoolExecutor:
    pool = _POOLS.get(workers)
    if pool is None:
        # spawn: safe next to threads (the server, Ray) and the same on every platform.
        context = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
        _POOLS[workers] = pool
    return pool


@atexit.register
def _close_pools() -> None:
    for pool in _POOLS.values():
        pool.shutdown(wait=False, cancel_futures=True)
    _POOLS.clear()


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
    import time

    knowledge = knowledge_of(state, params, tilts)
    native = native_search_for(state, knowledge, params)
    if native is not None:
        return _native_run(native, state, seat, budget, params, knowledge, seeds, only)

    start = time.perf_counter()
    blob = pickle.dumps(state)
    share = budget.split(len(seeds))
    pool = _pool(len(seeds))
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


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)


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
