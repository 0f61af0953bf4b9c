"""What the research adapters cost on top of the engine (``cradle bench --env ...``).

Random playouts, interleaved game by game so both sides share the machine's state: the engine
through the contract (``legal_actions``, a uniform choice, ``apply``), then the same kind of
game through the adapter (OpenSpiel: ``legal_actions`` ids, ``apply_action``, chance outcomes
sampled with their probabilities; PettingZoo: the action ids of ``agent_selection``, ``step``).
The overhead is the adapter's time per decision over the engine's, minus one. PettingZoo is
also timed with an observation built at every step, which most agents ask for.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from cradle.core.contract import GameModule
from cradle.envs.spec import get_spec

ENVS = ("openspiel", "pettingzoo")


@dataclass
class Side:
    seconds: float = 0.0
    decisions: int = 0
    games: int = 0
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def per_decision_us(self) -> float:
        return 1e6 * self.seconds / self.decisions if self.decisions else 0.0


def _engine_game(module: GameModule, players: int, options: object, seed: int) -> tuple[float, int]:
    rng = random.Random(seed)
    start = time.perf_counter()
    state = module.new_game(players, seed, options)
    decisions = 0
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
        decisions += 1
    return time.perf_counter() - start, decisions


def _openspiel_game(game: Any, seed: int) -> tuple[float, int]:
    rng = random.Random(seed)
    start = time.perf_counter()
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            pick = rng.random()
            chosen = outcomes[-1][0]
            for outcome, probability in outcomes:
                pick -= probability
                if pick <= 0:
                    chosen = outcome
                    break
            state.apply_action(chosen)
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
    return time.perf_counter() - start, decisions


def _pettingzoo_game(env: Any, seed: int, observe: bool) -> tuple[float, int]:
    rng = random.Random(seed)
    start = time.perf_counter()
    env.reset(seed=seed)
    decisions = 0
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        if observe:
            env.observe(env.agent_selection)
        env.step(rng.choice(env.legal_action_ids()))
        decisions += 1
    return time.perf_counter() - start, decisions


def measure(
    game: str, env: str, players: int, options: dict[str, Any], seconds: float, seed: int
) -> dict[str, Any]:
    """Interleaved random playouts for about ``seconds``; a JSON-able summary."""
    if env not in ENVS:
        raise ValueError(f"--env must be one of {', '.join(ENVS)}, not {env!r}")
    spec = get_spec(game)
    module = spec.module
    game_options = spec.options(options)
    engine, adapter, observed = Side(), Side(), Side()
    adapter_game: Any = None
    if env == "openspiel":
        import pyspiel

        import cradle.envs.openspiel as openspiel

        short = next(k for k, v in openspiel.GAMES.items() if v == game)
        adapter_game = pyspiel.load_game(short, {"players": players, **options})
    else:
        from cradle.envs.pettingzoo_env import CradleAECEnv

        adapter_game = CradleAECEnv(game, players=players, **options)
    rng = random.Random(seed)
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or engine.games == 0:
        game_seed = rng.randrange(2**31)
        took, decisions = _engine_game(module, players, game_options, game_seed)
        engine.seconds += took
        engine.decisions += decisions
        engine.games += 1
        if env == "openspiel":
            took, decisions = _openspiel_game(adapter_game, game_seed)
        else:
            took, decisions = _pettingzoo_game(adapter_game, game_seed, observe=False)
            o_took, o_decisions = _pettingzoo_game(adapter_game, game_seed, observe=True)
            observed.seconds += o_took
            observed.decisions += o_decisions
            observed.games += 1
        adapter.seconds += took
        adapter.decisions += decisions
        adapter.games += 1
    overhead = adapter.per_decision_us / engine.per_decision_us - 1
    summary: dict[str, Any] = {
        "game": game,
        "env": env,
        "players": players,
        "games": engine.games,
        "engine_us_per_decision": round(engine.per_decision_us, 1),
        "adapter_us_per_decision": round(adapter.per_decision_us, 1),
        "overhead": round(overhead, 3),
    }
    if env == "pettingzoo":
        summary["observed_us_per_decision"] = round(observed.per_decision_us, 1)
        summary["overhead_with_observations"] = round(
            observed.per_decision_us / engine.per_decision_us - 1, 3
        )
    return summary


def describe(summary: dict[str, Any]) -> str:
    text = (
        f"{summary['game']} via {summary['env']} ({summary['players']} players, "
        f"{summary['games']} games each): engine {summary['engine_us_per_decision']:.0f} us "
        f"per decision, adapter {summary['adapter_us_per_decision']:.0f} us: "
        f"overhead {100 * summary['overhead']:+.1f}%"
    )
    if "observed_us_per_decision" in summary:
        text += (
            f"; with an observation every step {summary['observed_us_per_decision']:.0f} us "
            f"({100 * summary['overhead_with_observations']:+.1f}%)"
        )
    return text
