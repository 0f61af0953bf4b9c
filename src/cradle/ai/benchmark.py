"""`cradle bench --ai`: how many ISMCTS iterations per second the search runs.

It searches a few positions of each player count (reached by random play from a seed: an
opening, a middle game and a late position), one tree, and reports iterations per second per
player count. On the native engine the native search runs where the game's knowledge has a
native twin (cradle.ai.search.native.native_search_for); ``engine`` picks the engine, so one run can
hold both (``cradle bench --ai --engine native,python``).
"""

from __future__ import annotations

import random
import time
from dataclasses import replace

from cradle.ai.search.budget import Budget
from cradle.ai.search.ismcts import search
from cradle.ai.search.native import native_search_for
from cradle.ai.search.params import IsmctsParams, knowledge_of
from cradle.core.contract import JSON, GameModule, GameState

STAGES = (0.0, 0.3, 0.6)  # share of a random game played before the measured position


def positions(
    module: GameModule, players: int, options: object, seed: int, engine: str | None = None
) -> list[GameState]:
    """An opening, a middle-game and a late position of one random game."""
    rng = random.Random(seed)
    probe = module.new_game(players, seed, options, engine=engine)
    length = 0
    while not probe.is_over:
        probe.apply(rng.choice(probe.legal_actions()))
        length += 1
    out = []
    for stage in STAGES:
        rng = random.Random(seed)
        state = module.new_game(players, seed, options, engine=engine)
        for _ in range(int(length * stage)):
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_over:
            out.append(state)
    return out


def measure(
    module: GameModule,
    players: int,
    options: object,
    seconds: float,
    seed: int,
    engine: str | None = None,
    params: IsmctsParams | None = None,
) -> JSON:
    """Iterations a second of one tree over the positions (``params``: the search's
    settings, a learned model among them; the whole budget, never stopping early)."""
    states = positions(module, players, options, seed, engine)
    share = seconds / max(1, len(states))
    iterations = 0
    spent = 0.0
    cpu = 0.0
    params = replace(params or IsmctsParams(), stop=False)  # the whole budget
    native = bool(states) and native_search_for(states[0], knowledge_of(states[0], params), params)
    for number, state in enumerate(states):
        cpu_start = time.process_time()
        result = search(state, state.to_move, Budget(seconds=share), params, seed + number)
        cpu += time.process_time() - cpu_start
        iterations += result.iterations
        spent += result.seconds
    return {
        "ismcts_iterations_per_s": round(iterations / spent, 1) if spent else 0.0,
        "ismcts_iterations_per_cpu_s": round(iterations / cpu, 1) if cpu else 0.0,
        "iterations": iterations,
        "positions": len(states),
        "seconds": round(spent, 3),
        "cpu_seconds": round(cpu, 3),
        "search": "native" if native else "python",
    }
