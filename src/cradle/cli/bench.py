"""`cradle bench`: random self-play speed of a game engine, through the public contract.

Every step asks for the full ``legal_actions()`` list and picks uniformly from it, so every
kind of action (swaps, leader moves, conflicts, ...) is generated and applied. The time budget
is split evenly between the player counts; only games finished inside it count as games.

``--engine native,python`` measures each engine in one run, three ways, every one generating
the full legal list at every ply (docs/engines.md):

- ``playout``: the engine's own ``random_playout(seed)`` (no Python between plies);
- ``ids``: a Python loop of ``legal_action_ids()`` and ``apply_id(id)`` (the fast paths);
- ``strings``: a Python loop of ``legal_actions()`` and ``apply(text)`` (the contract).

The JSON line then gives each engine's figures and the native engine's speed-up. The engines
take turns in rounds of about a second (every round's last game played to its end), so on a
shared machine both are measured under the same load.

Every rate comes twice: per second of wall time (``..._per_s``) and per second of this
process's CPU time (``..._per_cpu_s``, what the benchmark itself was given on a shared
machine), and every JSON line carries the load average at its start and end (``load``).
"""

from __future__ import annotations

import json
import math
import os
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypedDict

from rich import box
from rich.console import Console
from rich.table import Table

from cradle.cli.common import CliError, fresh_seed, load_game, make_options
from cradle.core import native
from cradle.core.contract import JSON, GameModule, GameState, fast


class Figures(TypedDict):
    """One measurement as the JSON summary gives it (rates per second of wall time and per
    CPU-second of this process; None: no game ended)."""

    games_per_s: float
    actions_per_s: float
    legal_actions_per_s: float
    games_per_cpu_s: float
    actions_per_cpu_s: float
    games: int
    actions: int
    legal_actions_calls: int
    seconds: float
    cpu_seconds: float
    median_game_s: float | None
    mean_actions_per_game: float | None


@dataclass
class Measurement:
    """What one player count achieved in its share of the time."""

    players: int
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    games: int = 0
    actions: int = 0
    legal_actions_calls: int = 0
    game_seconds: list[float] = field(default_factory=list)
    game_actions: list[int] = field(default_factory=list)

    def add(self, other: Measurement) -> None:
        """Count ``other`` (the same player count, another stretch of time) in."""
        self.seconds += other.seconds
        self.cpu_seconds += other.cpu_seconds
        self.games += other.games
        self.actions += other.actions
        self.legal_actions_calls += other.legal_actions_calls
        self.game_seconds += other.game_seconds
        self.game_actions += other.game_actions

    def rate(self, count: int) -> float:
        return round(count / self.seconds, 2) if self.seconds > 0 else 0.0

    def cpu_rate(self, count: int) -> float:
        return round(count / self.cpu_seconds, 2) if self.cpu_seconds > 0 else 0.0

    def summary(self) -> Figures:
        return {
            "games_per_s": self.rate(self.games),
            "actions_per_s": self.rate(self.actions),
            "legal_actions_per_s": self.rate(self.legal_actions_calls),
            "games_per_cpu_s": self.cpu_rate(self.games),
            "actions_per_cpu_s": self.cpu_rate(self.actions),
            "games": self.games,
            "actions": self.actions,
            "legal_actions_calls": self.legal_actions_calls,
            "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
            "median_game_s": (
                round(statistics.median(self.game_seconds), 4) if self.game_seconds else None
            ),
            "mean_actions_per_game": (
                round(statistics.mean(self.game_actions), 1) if self.game_actions else None
            ),
        }


def measure(
    module: GameModule,
    players: int,
    seconds: float,
    options: object,
    seed: int,
    engine: str | None = None,
    finish: bool = False,
    loop: str = "strings",
) -> Measurement:
    """New random games with ``players`` seats for ``seconds``, each played by the loop of
    :data:`LOOPS` named ``loop``: ``strings`` (``legal_actions()`` then ``apply(text)``),
    ``ids`` (the fast paths: ``legal_action_ids()`` then ``apply_id``) or ``playout`` (whole
    games inside the engine: ``random_playout(seed)``). With ``finish`` the last game started
    is played to its end (no time spent on a game left unfinished: the games per second of
    short rounds stay unbiased)."""
    play = LOOPS[loop]
    rng = random.Random(seed)
    result = Measurement(players)
    start = time.perf_counter()
    cpu_start = time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        game_seed = rng.randrange(2**31)
        game_start = time.perf_counter()
        state = module.new_game(players, game_seed, options, engine=engine)
        steps = play(state, rng, math.inf if finish else deadline, game_seed)
        result.actions += steps
        result.legal_actions_calls += steps
        if state.is_over:
            result.games += 1
            result.game_seconds.append(time.perf_counter() - game_start)
            result.game_actions.append(steps)
    result.seconds = time.perf_counter() - start
    result.cpu_seconds = time.process_time() - cpu_start
    return result


def _play_strings(state: GameState, rng: random.Random, deadline: float, game_seed: int) -> int:
    """``legal_actions()`` then ``apply(text)``, every refusal an engine bug."""
    steps = 0
    while not state.is_over and time.perf_counter() < deadline:
        actions = state.legal_actions()
        if not actions:
            raise CliError(
                f"engine bug: no legal action in a game not over "
                f"({len(state.players)} players, game seed {game_seed}, after {steps} actions)",
                code=1,
            )
        action = rng.choice(actions)
        try:
            state.apply(action)
        except ValueError as exc:
            raise CliError(
                f"engine bug: legal action {action!r} refused ({len(state.players)} players, "
                f"game seed {game_seed}, action {steps + 1}): {exc}",
                code=1,
            ) from None
        steps += 1
    return steps


def _play_ids(state: GameState, rng: random.Random, deadline: float, game_seed: int) -> int:
    """The fast paths: ``legal_action_ids()`` then ``apply_id``."""
    game = fast(state)
    steps = 0
    while not game.is_over and time.perf_counter() < deadline:
        ids = game.legal_action_ids()
        game.apply_id(ids[rng.randrange(len(ids))])
        steps += 1
    return steps


def _play_out(state: GameState, rng: random.Random, deadline: float, game_seed: int) -> int:
    """The whole game inside the engine: ``random_playout(seed)``."""
    steps: int = fast(state).random_playout(rng.randrange(2**63))
    return steps


# The loops a measurement plays its games with, by name (``--engine`` measures each).
LOOPS: dict[str, Callable[[GameState, random.Random, float, int], int]] = {
    "playout": _play_out,
    "ids": _play_ids,
    "strings": _play_strings,
}
# `--engine a,b` alternates the engines in rounds about this long (see run_engines_bench).
ROUND_SECONDS = 1.0


def parse_engines(text: str) -> list[str]:
    """'native,python' -> the engines to measure; a CliError for an unknown or unbuilt one."""
    engines = list(dict.fromkeys(part.strip().lower() for part in text.split(",")))
    for engine in engines:
        if engine not in ("native", "python"):
            raise CliError(f"--engine: unknown engine {engine!r} (known: native, python)")
    if "native" in engines and not native.available():
        raise CliError("--engine: the native engine is not built here (make native)")
    return engines


def run_engines_bench(
    console: Console,
    game: str,
    seconds: float,
    counts: list[int],
    options: JSON,
    seed: int | None,
    engines: list[str],
) -> dict[str, object]:
    """Each engine, each player count, each loop of :data:`LOOPS` in one run; the table and
    the JSON summary with the native engine's speed-up over the reference. The engines take
    turns in rounds of about :data:`ROUND_SECONDS` (each round's last game played out), so on a
    shared machine both meet the same load and the speed-up is measured at one time."""
    module, game_options, seed = _checked_setup(game, seconds, counts, options, seed)
    load_start = os.getloadavg()
    share = seconds / (len(engines) * len(counts) * len(LOOPS))
    rounds = max(1, round(share / ROUND_SECONDS))
    table = Table(
        title=f"{module.NAME}: random self-play per engine (seed {seed})", box=box.SIMPLE_HEAD
    )
    for heading in ("engine", "seats", "loop", "games", "games/s", "games/CPU-s", "actions/s"):
        table.add_column(heading, justify="right")
    measured: dict[tuple[str, int, str], Measurement] = {}
    for players in counts:
        for loop in LOOPS:
            for round_ in range(rounds):
                # the same games for every engine; the order alternates round by round
                for engine in engines if round_ % 2 == 0 else engines[::-1]:
                    part = measure(
                        module,
                        players,
                        share / rounds,
                        game_options,
                        seed + players + 7919 * round_,
                        engine,
                        finish=True,
                        loop=loop,
                    )
                    total = measured.setdefault((engine, players, loop), Measurement(players))
                    total.add(part)
    figures: dict[str, dict[str, dict[str, Figures]]] = {}
    for engine in engines:
        per_count = figures.setdefault(engine, {})
        for players in counts:
            per_loop = per_count.setdefault(str(players), {})
            for loop in LOOPS:
                m = measured[engine, players, loop]
                per_loop[loop] = m.summary()
                table.add_row(
                    engine,
                    str(players),
                    loop,
                    str(m.games),
                    f"{m.rate(m.games):.1f}",
                    f"{m.cpu_rate(m.games):.1f}",
                    f"{m.rate(m.actions):.0f}",
                )
    console.print(table)
    summary: dict[str, object] = {
        "game": module.NAME,
        "engines": figures,
        "options": module.options_to_dict(game_options),
        "load": load_figures(load_start),
    }
    if {"native", "python"} <= set(engines):

        def speedups(rate: Callable[[Figures], float]) -> dict[str, dict[str, float | None]]:
            return {
                players: {
                    loop: _ratio(
                        rate(figures["native"][players][loop]),
                        rate(figures["python"][players][loop]),
                    )
                    for loop in LOOPS
                }
                for players in figures["native"]
            }

        summary["native_speedup"] = speedups(lambda f: f["games_per_s"])
        summary["native_speedup_cpu"] = speedups(lambda f: f["games_per_cpu_s"])
    return summary


def load_figures(start: tuple[float, float, float]) -> dict[str, list[float]]:
    """The load averages (1, 5, 15 minutes) at a benchmark's start (``start``) and now: the
    share of the machine the figures were measured with."""
    return {"start": [round(x, 2) for x in start], "end": [round(x, 2) for x in os.getloadavg()]}


def _ratio(fast_rate: float, slow_rate: float) -> float | None:
    return round(fast_rate / slow_rate, 1) if slow_rate > 0 else None


def bench_table(game: str, seed: int, measurements: list[Measurement]) -> Table:
    table = Table(
        title=f"{game}: random self-play (seed {seed})", box=box.SIMPLE_HEAD, show_edge=False
    )
    # legal_actions/s (one call per action: the actions/s) stays in the JSON line
    headings = ("seats", "games", "games/s", "games/CPU-s", "actions/s", "ms/game")
    for heading in (*headings, "actions/game"):
        table.add_column(heading, justify="right")
    for m in measurements:
        s = m.summary()
        median = f"{s['median_game_s'] * 1000:.1f}" if s["median_game_s"] is not None else "-"
        table.add_row(
            str(m.players),
            str(m.games),
            f"{s['games_per_s']:.2f}",
            f"{s['games_per_cpu_s']:.2f}",
            f"{s['actions_per_s']:.0f}",
            median,
            str(s["mean_actions_per_game"] or "-"),
        )
    return table


def _checked_setup(
    game: str, seconds: float, counts: list[int], options: JSON, seed: int | None
) -> tuple[GameModule, object, int]:
    """The game, its options and the seed of a benchmark, after checking its arguments."""
    if not seconds > 0:
        raise CliError("--seconds must be more than 0")
    module = load_game(game)
    for players in counts:
        if not module.MIN_PLAYERS <= players <= module.MAX_PLAYERS:
            raise CliError(
                f"--players: {module.NAME} is for {module.MIN_PLAYERS} to "
                f"{module.MAX_PLAYERS} players, not {players}"
            )
    return module, make_options(module, options), fresh_seed() if seed is None else seed


def run_bench(
    console: Console,
    game: str,
    seconds: float,
    counts: list[int],
    options: JSON,
    seed: int | None,
) -> dict[str, object]:
    """Measure each player count, print the table, and return the JSON summary."""
    module, game_options, seed = _checked_setup(game, seconds, counts, options, seed)
    load_start = os.getloadavg()
    share = seconds / len(counts)
    measurements = []
    for players in counts:
        measurement = measure(module, players, share, game_options, seed + players)
        measurements.append(measurement)
        if measurement.games == 0:
            console.print(
                f"[yellow]no {players}-player game finished in {share:.1f} s: "
                "raise --seconds for a games/s figure[/]"
            )
    console.print(bench_table(module.NAME, seed, measurements))
    return {
        "game": module.NAME,
        "players": {str(m.players): m.summary() for m in measurements},
        "options": module.options_to_dict(game_options),
        "load": load_figures(load_start),
    }


def json_line(summary: dict[str, object]) -> str:
    return json.dumps(summary, separators=(", ", ": "))


def run_ai_bench(
    console: Console,
    game: str,
    seconds: float,
    counts: list[int],
    options: JSON,
    seed: int | None,
    engines: list[str] | None = None,
    model: str | None = None,
    learned: bool = False,
) -> dict[str, object]:
    """`cradle bench --ai`: ISMCTS iterations per second (see cradle.ai.benchmark); with
    ``engines`` each engine in turn (the time split between them) and the native speed-up;
    with ``model``, the search with that learned network (``learned``: alone)."""
    from cradle.ai.benchmark import measure
    from cradle.ai.search.params import IsmctsParams

    if learned and model is None:
        raise CliError("--learned needs --model")
    params = IsmctsParams(stop=False, model=model, learned=learned)
    if model is not None:
        from cradle.ai.model import load

        try:
            load(model)
        except ValueError as exc:
            raise CliError(f"--model: {exc}") from None

    module, game_options, seed = _checked_setup(game, seconds, counts, options, seed)
    load_start = os.getloadavg()
    table = Table(title=f"{module.NAME}: ISMCTS search speed (seed {seed})", box=box.SIMPLE_HEAD)
    headings = ("seats", "positions", "iterations", "iterations/s", "iterations/CPU-s")
    for heading in ("engine", "search", *headings) if engines else headings:
        table.add_column(heading, justify="right")
    runs: list[str | None] = list(engines) if engines else [None]
    share = seconds / len(counts) / len(runs)
    by_engine: dict[str, dict[str, Any]] = {}
    for engine in runs:
        results = {}
        for players in counts:
            m = measure(module, players, game_options, share, seed + players, engine, params)
            results[str(players)] = m
            row = [str(players), str(m["positions"]), str(m["iterations"])]
            row.append(f"{m['ismcts_iterations_per_s']:.0f}")
            row.append(f"{m['ismcts_iterations_per_cpu_s']:.0f}")
            table.add_row(*([engine, str(m["search"]), *row] if engine else row))
        by_engine[engine or "default"] = results
    console.print(table)
    summary: dict[str, object] = {
        "game": module.NAME,
        "options": module.options_to_dict(game_options),
        "load": load_figures(load_start),
    }
    if model is not None:
        summary["model"] = model
        summary["learned"] = learned
    if not engines:
        summary["ai"] = by_engine["default"]
        return summary
    summary["ai"] = by_engine
    if "native" in by_engine and "python" in by_engine:
        summary["native_speedup"] = {
            count: round(
                by_engine["native"][count]["ismcts_iterations_per_s"]
                / max(by_engine["python"][count]["ismcts_iterations_per_s"], 1e-9),
                1,
            )
            for count in by_engine["native"]
        }
    return summary
