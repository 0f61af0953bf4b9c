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


def evaluate(
    world: GameState,
    knowledge: Knowledge,
    rng: random.Random,
    rollout: int = 0,
    playout: int = 0,
) -> list[float]:
    """The reward vector of a world: exact once the game is over, else the heuristic after
    settling what is in progress, ``rollout`` further policy moves and ``playout`` uniformly
    random ones (cheap; enough of them play a short game to its end), settling again."""
    settle(world, knowledge, rng)
    quiet = fast(world)
    for _ in range(rollout):
        if world.is_over:
            break
        quiet.apply_quiet(knowledge.policy(world, rng))
    for _ in range(playout):
        if world.is_over:
            break
        ruled = knowledge.playout_rule(world)
        if ruled is not None:
            quiet.apply_quiet(ruled)
            continue
        # rng.choice(legal) without the list: the same draw (randrange(n) is choice's index)
        quiet.apply_id(quiet.legal_action_at(rng.randrange(quiet.legal_action_count())))
    settle(world, knowledge, rng)
    if world.is_over:
        return rank_rewards(world.result())
    return knowledge.rewards(world)
