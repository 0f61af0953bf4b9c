"""What the search bots share: budgets, fair determinizations, rewards and game knowledge.

A search bot never looks at the hidden parts of the state it is given. It asks the engine for
*worlds*: full states consistent with what its seat knows (``state.sample_hidden(seat, rng)``),
and it searches, rolls out and evaluates on those worlds only.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from cradle.ai.bots import decision_actions
from cradle.core.contract import GameState, fast
from cradle.core.hidden import CanonicalRandom
from cradle.core.results import rank_rewards

__all__ = ["CanonicalRandom"]  # where the tests and older code import it from


def sample_world(state: GameState, seat: int, rng: random.Random) -> GameState:
    """A full state that ``seat`` cannot tell from ``state``, drawn with ``rng``: the world
    ``sample_hidden(seat, CanonicalRandom(seed))`` gives, made by the engine's fast path."""
    return fast(state).sample_hidden_seeded(seat, rng.getrandbits(64))


def next_world(state: GameState, seat: int, dealer: random.Random) -> GameState:
    """The next world of a search that deals all its worlds from one generator, ``dealer``
    (a :class:`CanonicalRandom` seeded once): ``sample_hidden(seat, dealer)``. Its first world
    is ``sample_hidden_seeded(seat, seed)``; each next one goes on where the last stopped,
    which spares seeding a generator for every world (the native search does the same)."""
    return state.sample_hidden(seat, dealer)


@dataclass(frozen=True)
class Budget:
    """How long a search may think: a number of iterations, seconds, or both (first reached).

    ``floor``: the fewest iterations a search runs even when its seconds are up, so that on a
    loaded machine it answers later rather than blind."""

    iterations: int | None = None
    seconds: float | None = None
    floor: int | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise ValueError("a budget needs iterations or seconds")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError("a budget needs at least 1 iteration")
        if self.seconds is not None and not self.seconds > 0:
            raise ValueError("a budget needs more than 0 seconds")
        if self.floor is not None and self.floor < 1:
            raise ValueError("a budget's floor is at least 1 iteration")
        if self.floor is not None and self.iterations is not None and self.floor > self.iterations:
            raise ValueError("a budget's floor cannot exceed its iterations")

    def clock(self) -> Clock:
        return Clock(self)

    def split(self, parts: int) -> Budget:
        """The share of one of ``parts`` parallel searches (same time, fewer iterations)."""
        floor = None if self.floor is None else max(1, self.floor // parts)
        if self.iterations is None:
            return Budget(None, self.seconds, floor)
        return Budget(max(1, self.iterations // parts), self.seconds, floor)

    def within(self, seconds: float) -> Budget:
        """This budget with at most ``seconds`` (its iterations and floor kept)."""
        if self.seconds is not None and self.seconds <= seconds:
            return self
        return Budget(self.iterations, seconds, self.floor)

    def describe(self) -> str:
        pieces = []
        if self.iterations is not None:
            pieces.append(f"{self.iterations} iterations")
        if self.seconds is not None:
            pieces.append(f"{self.seconds:g} s")
        text = " or ".join(pieces)
        if self.floor is not None:
            text += f" (at least {self.floor} iterations)"
        return text


class Clock:
    """Counts iterations against a budget; the time is read only every few iterations."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.start = time.perf_counter()
        self.deadline = None if budget.seconds is None else self.start + budget.seconds
        self.count = 0

    def tick(self) -> bool:
        """Count one iteration; False once the budget is spent."""
        self.count += 1
        limit = self.budget.iterations
        if limit is not None and self.count >= limit:
            return False
        floor = self.budget.floor
        if floor is not None and self.count < floor:
            return True
        return self.deadline is None or time.perf_counter() < self.deadline

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def left(self) -> float | None:
        """The iterations still to come at the pace so far (within the budget's iterations);
        None for a budget without seconds, before ``PACED`` iterations have set a pace, or
        below the floor (always searched in full)."""
        budget = self.budget
        if budget.seconds is None or self.count < PACED:
            return None
        if budget.floor is not None and self.count < budget.floor:
            return None
        elapsed = self.elapsed()
        left = self.count / max(elapsed, 1e-9) * max(0.0, budget.seconds - elapsed)
        if budget.iterations is not None:
            left = min(left, float(max(0, budget.iterations - self.count)))
        return left


# The iterations a search runs before its pace says how many more are to come (Clock.left).
PACED = 16


def settled(visits: Iterable[int], left: float) -> bool:
    """Whether no iteration still to come (``left`` of them) could change the move played,
    the most visited of the root actions' ``visits`` (``IsmctsParams.stop``): the first leads
    the second (an action not tried yet has none) by more than ``left``."""
    first = second = 0
    for n in visits:
        if n > first:
            first, second = n, first
        elif n > second:
            second = n
    return first - second > left


STALL_LIMIT = 10  # own decisions in a row while the bag does not move: the game stalls
PROGRESS_VERBS = ("tile", "swap")  # Tigris actions that use up tiles, so the bag empties


class StallGuard:
    """Keeps a bot from stalling a game forever.

    Tigris ends only when the bag or the treasures run out; a side that is ahead may find
    that moving leaders back and forth is as good as anything, and a game against a bot that
    passes would never end. The guard watches the public bag size at the bot's decisions;
    after ``limit`` of them without a change it allows only actions that use up tiles
    (when there are any), so the game moves on. Once it has fired, ``relapse`` decisions
    without a change are enough (a bot that stalled once, like greedy collecting monument
    points by passing, would otherwise spend ``limit`` decisions on every tile of the bag).
    It reads the view only: it is fair."""

    def __init__(self, limit: int = STALL_LIMIT, relapse: int | None = None) -> None:
        self.limit = limit
        self.relapse = limit if relapse is None else relapse
        self.bag: int | None = None
        self.still = 0
        self.fired = False

    def allowed(self, state: GameState, seat: int, actions: list[str]) -> list[str]:
        bag = state.view(seat).get("bag_size")
        if not isinstance(bag, int):
            return actions
        if self.bag is not None and bag > self.bag:
            self.fired = False  # the bag grew: a new game
        self.still = self.still + 1 if bag == self.bag else 0
        self.bag = bag
        if self.still < (self.relapse if self.fired else self.limit):
            return actions
        moving = [a for a in actions if a.split(" ", 1)[0] in PROGRESS_VERBS]
        if moving:
            self.fired = True
        return moving or actions


class Analysis(Protocol):
    """What a search returns: at least its best action."""

    @property
    def best(self) -> str: ...


def guarded_choice(
    state: GameState,
    seat: int,
    guard: StallGuard,
    analyse: Callable[[GameState, int, list[str] | None], Analysis],
) -> str:
    """A search bot's choice: forced moves at once, else the search's best among the actions
    the stall guard allows (``None``: all of them)."""
    actions = decision_actions(state, seat)
    if len(actions) == 1:
        return actions[0]
    allowed = guard.allowed(state, seat, actions)
    if len(allowed) == 1:
        return allowed[0]
    best: str = analyse(state, seat, allowed if len(allowed) < len(actions) else None).best
    return best


def beats(mine: float, theirs: float, temperature: float) -> float:
    """The chance that one estimated final score beats another: a logistic of the gap."""
    x = (mine - theirs) / temperature
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))


def pairwise_chances(values: Sequence[float], temperature: float) -> list[float]:
    """Turn estimated final scores into the expected share of opponents each seat beats."""
    n = len(values)
    if n < 2:
        return [1.0] * n
    out = []
    for i, mine in enumerate(values):
        total = sum(beats(mine, theirs, temperature) for j, theirs in enumerate(values) if i != j)
        out.append(total / (n - 1))
    return out


class Knowledge(Protocol):
    """A game's heuristics for search, computed on worlds (full states), never on the truth."""

    def rewards(self, world: GameState) -> list[float]:
        """Estimated share of opponents each seat will beat, from 0 to 1 (a reward vector)."""
        ...

    def priors(self, world: GameState, actions: Sequence[str]) -> list[float]:
        """A score per action of ``world.to_move``: higher is more promising (for ordering)."""
        ...

    def policy(self, world: GameState, rng: random.Random) -> str:
        """A quick, sensible action for rollouts."""
        ...

    def unsettled(self, world: GameState) -> bool:
        """Whether a decision in progress (a conflict, a choice) should be played out before
        the world is evaluated."""
        ...

    def reason(self, world: GameState, seat: int, action: str) -> str:
        """A short explanation in words of what ``action`` does for ``seat``."""
        ...

    def playout_rule(self, world: GameState) -> str | None:
        """The move a random playout makes here by rule rather than at random (None: at
        random)."""
        ...


_KNOWLEDGE: dict[str, Knowledge] = {}


def game_of(state: GameState) -> str:
    """The game's registry name."""
    return state.game


def knowledge_for(game: str) -> Knowledge:
    """The heuristics of ``game`` (tigris or gheos; ``tigris:fitted`` evaluates with the
    weights fitted to game results instead of the hand-set ones, ``tigris:value2`` with the
    final lowest colour, ``gheos:value2`` to ``gheos:value5`` with Gheos' other evaluations,
    for comparisons, ``gheos:...:settled`` with priors after the conflicts the moves start,
    ``gheos:...:handing`` with a token that would hand over the control of the end judged
    rather than left to chance in the playouts; ``tigris:learned`` and
    ``gheos:learned`` with the learned model, cradle.ai.learned)."""
    if game not in _KNOWLEDGE:
        name, *settings = game.split(":")
        if name == "tigris" and set(settings) <= {"fitted", "value2", "learned"}:
            from cradle.ai.tigris_knowledge import TigrisKnowledge

            _KNOWLEDGE[game] = TigrisKnowledge(
                fitted="fitted" in settings,
                value=2 if "value2" in settings else 1,
                learned="learned" in settings,
            )
        elif name == "gheos" and set(settings) <= {
            "value2",
            "value3",
            "value4",
            "value5",
            "value6",
            "learned",
            "settled",
            "handing",
        }:
            from cradle.ai.gheos_knowledge import GheosKnowledge

            versions = [int(s[5:]) for s in settings if s.startswith("value")]
            version = max(versions, default=1)
            _KNOWLEDGE[game] = GheosKnowledge(
                learned="learned" in settings,
                value=version,
                settle="settled" in settings,
                handing="handing" in settings,
            )
        else:
            raise ValueError(f"no AI knowledge for the game {game!r}")
    return _KNOWLEDGE[game]


def settle(world: GameState, knowledge: Knowledge, rng: random.Random, limit: int = 8) -> None:
    """Play out a decision in progress (commitments, wars, monuments, ...) with the policy."""
    steps = 0
    quiet = fast(world)
    while steps < limit and not world.is_over and knowledge.unsettled(world):
        quiet.apply_quiet(knowledge.policy(world, rng))
        steps += 1


BALANCE_LIMIT = 64  # the most random moves a balanced playout adds


def evaluate(
    world: GameState,
    knowledge: Knowledge,
    rng: random.Random,
    rollout: int = 0,
    playout: int = 0,
    balance: int = 0,
    seat: int | None = None,
    steps: int = 0,
    mix: float = 0.0,
) -> list[float]:
    """The reward vector of a world: exact once the game is over, else the heuristic after
    settling what is in progress, ``rollout`` further policy moves and ``playout`` uniformly
    random ones (cheap; enough of them play a short game to its end). ``balance``: after
    those, random moves go on to the start of a turn of, 1: the seat that made the first
    random move (every seat played as many random turns); 2: ``seat`` (the searching seat:
    every leaf is judged with the same seat to move, whatever its depth). ``steps``: 1, the
    random moves of a turn in progress past its first action (``knowledge.unsettled``) are
    the policy's instead. ``mix``: that share of the reward is the heuristic right after
    settling, before the rollout and the playout."""
    settle(world, knowledge, rng)
    before = knowledge.rewards(world) if mix > 0 and not world.is_over else None
    after = look_ahead(world, knowledge, rng, rollout, playout, balance, seat, steps)
    if before is None:
        return after
    return [mix * b + (1 - mix) * a for b, a in zip(before, after, strict=True)]


def look_ahead(
    world: GameState,
    knowledge: Knowledge,
    rng: random.Random,
    rollout: int,
    playout: int,
    balance: int,
    seat: int | None,
    steps: int,
) -> list[float]:
    """The rollout, the playout and the judgement after them (:func:`evaluate`)."""
    quiet = fast(world)
    for _ in range(rollout):
        if world.is_over:
            break
        quiet.apply_quiet(knowledge.policy(world, rng))
    first = world.to_move if balance == 1 else seat

    def random_move() -> None:
        ruled = knowledge.playout_rule(world)
        if ruled is not None:
            quiet.apply_quiet(ruled)
            return
        if steps and knowledge.unsettled(world):
            quiet.apply_quiet(knowledge.policy(world, rng))
            return
        # rng.choice(legal) without the list: the same draw (randrange(n) is choice's index)
        quiet.apply_id(quiet.legal_action_at(rng.randrange(quiet.legal_action_count())))

    for _ in range(playout):
        if world.is_over:
            break
        random_move()
    if balance and playout and first is not None:
        for _ in range(BALANCE_LIMIT):
            if world.is_over or (world.to_move == first and not knowledge.unsettled(world)):
                break
            random_move()
    settle(world, knowledge, rng)
    if world.is_over:
        return rank_rewards(world.result())
    return knowledge.rewards(world)
