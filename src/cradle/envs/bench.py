"""What the research adapters cost on top of the engine (``cradle bench --env ...``).

Random playouts, interleaved game by game so both sides share the machine's state: the engine
through the contract (``legal_actions``, a uniform choice, ``apply``), then the same kind of
game through the adapter (OpenSpiel: ``legal_actions`` ids, ``apply_action``, chance outcomes
sampled with their probabilities; PettingZoo: the action ids of ``agent_selection``, ``step``).
The overhead is the adapter's time per decision over the engine's, minus one. PettingZoo is
also timed with an observation built at every step, which most agents ask for.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, NotRequired, Protocol, TypedDict

from cradle.core.contract import JSON, GameModule
from cradle.envs.spec import get_spec

if TYPE_CHECKING:
    from cradle.envs.pettingzoo_env import CradleAECEnv

ENVS = ("openspiel", "pettingzoo", "vector", "single")
# Games per call of the vectorised environment measured by ``--env vector``.
VECTOR_SIZES = (1, 64, 256)


class _SpielState(Protocol):
    """What a playout asks of a ``pyspiel.State`` (pyspiel ships no types)."""

    def is_terminal(self) -> bool: ...
    def is_chance_node(self) -> bool: ...
    def chance_outcomes(self) -> list[tuple[int, float]]: ...
    def legal_actions(self) -> list[int]: ...
    def apply_action(self, action: int) -> None: ...


class _SpielGame(Protocol):
    def new_initial_state(self) -> _SpielState: ...


class AdapterSummary(TypedDict):
    """``--env openspiel`` / ``--env pettingzoo``: the adapter's cost per decision."""

    game: str
    env: Literal["openspiel", "pettingzoo"]
    players: int
    games: int
    engine_us_per_decision: float
    adapter_us_per_decision: float
    overhead: float
    observed_us_per_decision: NotRequired[float]
    overhead_with_observations: NotRequired[float]


class LoadAverages(TypedDict):
    start: list[float]
    end: list[float]


class VectorSummary(TypedDict):
    """``--env vector``: steps per second by games per call (keys are the sizes as text)."""

    game: str
    env: Literal["vector"]
    players: int
    vector_steps_per_s: dict[str, float]
    vector_steps_per_cpu_s: dict[str, float]
    pettingzoo_steps_per_s: float
    load: LoadAverages


class SingleSummary(TypedDict):
    """``--env single``: learner steps per second by opponents."""

    game: str
    env: Literal["single"]
    players: int
    num_envs: int
    learner_steps_per_s: dict[str, float]
    learner_steps_per_cpu_s: dict[str, float]


Summary = AdapterSummary | VectorSummary | SingleSummary


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


def _openspiel_game(game: _SpielGame, seed: int) -> tuple[float, int]:
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


def _pettingzoo_game(env: CradleAECEnv, seed: int, observe: bool) -> tuple[float, int]:
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


def measure(game: str, env: str, players: int, options: JSON, seconds: float, seed: int) -> Summary:
    """Interleaved random playouts for about ``seconds``; a JSON-able summary."""
    if env not in ENVS:
        raise ValueError(f"--env must be one of {', '.join(ENVS)}, not {env!r}")
    if env == "vector":
        return measure_vector(game, players, options, seconds, seed)
    if env == "single":
        return measure_single(game, players, options, seconds, seed)
    spec = get_spec(game)
    module = spec.module
    game_options = spec.options(options)
    engine, adapter, observed = Side(), Side(), Side()
    spiel_game: _SpielGame | None = None
    aec: CradleAECEnv | None = None
    if env == "openspiel":
        import pyspiel

        import cradle.envs.openspiel as openspiel

        short = next(k for k, v in openspiel.GAMES.items() if v == game)
        spiel_game = pyspiel.load_game(short, {"players": players, **options})
    else:
        from cradle.envs.pettingzoo_env import CradleAECEnv

        aec = CradleAECEnv(game, players=players, **options)
    rng = random.Random(seed)
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or engine.games == 0:
        game_seed = rng.randrange(2**31)
        took, decisions = _engine_game(module, players, game_options, game_seed)
        engine.seconds += took
        engine.decisions += decisions
        engine.games += 1
        if spiel_game is not None:
            took, decisions = _openspiel_game(spiel_game, game_seed)
        else:
            assert aec is not None
            took, decisions = _pettingzoo_game(aec, game_seed, observe=False)
            o_took, o_decisions = _pettingzoo_game(aec, game_seed, observe=True)
            observed.seconds += o_took
            observed.decisions += o_decisions
            observed.games += 1
        adapter.seconds += took
        adapter.decisions += decisions
        adapter.games += 1
    overhead = adapter.per_decision_us / engine.per_decision_us - 1
    summary: AdapterSummary = {
        "game": game,
        "env": "openspiel" if env == "openspiel" else "pettingzoo",
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


def measure_vector(
    game: str, players: int, options: JSON, seconds: float, seed: int
) -> VectorSummary:
    """Random actions through the vectorised environment for each of :data:`VECTOR_SIZES`
    games per call, and through a loop of the PettingZoo env observing every step (what the
    vector env returns): steps (single-game decisions) per second of each."""
    import numpy as np

    from cradle.envs.pettingzoo_env import CradleAECEnv
    from cradle.envs.vector import CradleVectorEnv

    load_start = os.getloadavg()
    share = seconds / (len(VECTOR_SIZES) + 1)
    rates: dict[str, float] = {}
    cpu_rates: dict[str, float] = {}
    rng = np.random.default_rng(seed)
    for size in VECTOR_SIZES:
        vector = CradleVectorEnv(game, size, players, **options)
        vector.reset(seed=seed)
        steps = 0
        actions = np.zeros(size, np.int64)
        start, cpu_start = time.perf_counter(), time.process_time()
        while time.perf_counter() - start < share or steps == 0:
            # a uniform legal id per game drawn by the batch (what the mask allows), so the
            # figure is the environment's, not an agent's sampling over the mask
            vector.random_actions(rng.integers(0, 2**63, size, dtype=np.uint64), actions)
            vector.step(actions)
            steps += size
        rates[str(size)] = round(steps / (time.perf_counter() - start), 1)
        cpu_rates[str(size)] = round(steps / max(time.process_time() - cpu_start, 1e-9), 1)
    aec = CradleAECEnv(game, players=players, **options)
    took, decisions, game_seed = 0.0, 0, seed
    while took < share or decisions == 0:
        game_took, game_decisions = _pettingzoo_game(aec, game_seed, observe=True)
        took += game_took
        decisions += game_decisions
        game_seed += 1
    return {
        "game": game,
        "env": "vector",
        "players": players,
        "vector_steps_per_s": rates,
        "vector_steps_per_cpu_s": cpu_rates,
        "pettingzoo_steps_per_s": round(decisions / took, 1),
        "load": {
            "start": [round(x, 2) for x in load_start],
            "end": [round(x, 2) for x in os.getloadavg()],
        },
    }


# Opponents and batch sizes measured by ``--env single`` (the learner plays uniform random legal
# ids drawn natively, so the figure is the environment's and its opponents').
SINGLE_OPPONENTS = ("random", "greedy", "expert-rules", "ismcts@50")
SINGLE_SIZE = 64


def measure_single(
    game: str, players: int, options: JSON, seconds: float, seed: int
) -> SingleSummary:
    """Learner steps per second of the single-agent vector env at N = 64 against each of
    :data:`SINGLE_OPPONENTS` (a learner step includes every opponent move up to the
    learner's next decision)."""
    import numpy as np

    from cradle.envs.single import CradleSingleVecEnv

    share = seconds / len(SINGLE_OPPONENTS)
    rates: dict[str, float] = {}
    cpu_rates: dict[str, float] = {}
    rng = np.random.default_rng(seed)
    for opponents in SINGLE_OPPONENTS:
        env = CradleSingleVecEnv(game, SINGLE_SIZE, players, opponents, **options)
        env.reset(seed=seed)
        steps = 0
        start, cpu_start = time.perf_counter(), time.process_time()
        while time.perf_counter() - start < share or steps == 0:
            draws = rng.integers(0, 2**63, SINGLE_SIZE, dtype=np.uint64)
            env.step(env.random_actions(draws))
            steps += SINGLE_SIZE
        rates[opponents] = round(steps / (time.perf_counter() - start), 1)
        # per CPU-second of this process: what one idle core would do, on a shared machine
        cpu_rates[opponents] = round(steps / max(time.process_time() - cpu_start, 1e-9), 1)
    return {
        "game": game,
        "env": "single",
        "players": players,
        "num_envs": SINGLE_SIZE,
        "learner_steps_per_s": rates,
        "learner_steps_per_cpu_s": cpu_rates,
    }


def describe(summary: Summary) -> str:
    if summary["env"] == "single":
        rates = ", ".join(
            f"{o}: {r:,.0f} ({summary['learner_steps_per_cpu_s'][o]:,.0f} per CPU-s)"
            for o, r in summary["learner_steps_per_s"].items()
        )
        return (
            f"{summary['game']} single-agent ({summary['players']} players, "
            f"N={summary['num_envs']}), learner steps/s against {rates}"
        )
    if summary["env"] == "vector":
        cpu = summary["vector_steps_per_cpu_s"]
        rates = ", ".join(
            f"N={n}: {r:,.0f} ({cpu[n]:,.0f} per CPU-s)"
            for n, r in summary["vector_steps_per_s"].items()
        )
        return (
            f"{summary['game']} vectorised ({summary['players']} players), steps/s {rates}; "
            f"the PettingZoo env in a loop, observing: {summary['pettingzoo_steps_per_s']:,.0f}"
        )
    text = (
        f"{summary['game']} via {summary['env']} ({summary['players']} players, "
        f"{summary['games']} games each): engine {summary['engine_us_per_decision']:.0f} us "
        f"per decision, adapter {summary['adapter_us_per_decision']:.0f} us: "
        f"overhead {100 * summary['overhead']:+.1f}%"
    )
    observed = summary.get("observed_us_per_decision")
    with_observations = summary.get("overhead_with_observations")
    if observed is not None and with_observations is not None:
        text += (
            f"; with an observation every step {observed:.0f} us ({100 * with_observations:+.1f}%)"
        )
    return text
