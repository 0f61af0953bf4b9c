"""How a search judges a leaf: settle what is in progress with the game's quick policy, a
few policy moves more (``rollout``), a few uniformly random ones (``playout``), then the
game's heuristic, or the exact result of a finished game."""

from __future__ import annotations

import random

from cradle.ai.knowledge.base import Knowledge
from cradle.core.contract import GameState, fast
from cradle.core.results import rank_rewards


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
