"""How sure Gheos' hand-set evaluations are of a lead, against how games end.

The search turns two seats' estimated final scores into the chance that one beats the other,
``sigmoid((value_i - value_j) / temperature)``, the temperature being ``base + slope ×
remaining`` (the share of the epochs still to come). This plays two-player self-play games on
the native core (``ismcts@<iterations>`` in both seats, two random moves first for varied
openings), reads every hand-set evaluation at every position through the native hooks
(``gheos_ai_values``, ``gheos_ai_temperature``), and reports, per evaluation, the log-loss of
those chances against the games' winners (by fifth of the epochs to come) and the
temperature ``(base, slope)`` that fits the results best (a grid)::

    python -m lab calibration --games 300 --iterations 1500 --workers 2

A lower log-loss is a better-calibrated reward; a coin scores ln 2 = 0.693. Needs numpy.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from cradle.ai.knowledge.gheos import read
from cradle.ai.levels import make_bot_spec
from cradle.ai.match import play as play_match
from cradle.ai.match import random_start
from cradle.ai.search.parallel import map_local
from cradle.core.contract import GameState
from cradle.games import get_game
from lab.command import run_command
from lab.training import log_loss

VERSIONS = (1, 4)
BASES = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0)
SLOPES = (0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0, 40.0, 50.0, 60.0, 80.0)


@dataclass(frozen=True)
class Positions:
    """One game's positions: per evaluation and position the two seats' values, the
    temperature and the share of the epochs to come; and whether seat 0 won (None: a tie)."""

    values: dict[int, list[tuple[float, float]]]
    temperatures: dict[int, list[float]]
    remaining: list[float]
    first_won: bool | None


def play(job: tuple[int, int]) -> Positions:
    """One self-play game of seed ``job[0]``, ``job[1]`` iterations a decision."""
    from cradle import _native

    seed, iterations = job
    state = get_game("gheos").new_game(2, seed, engine="native")
    rng = random.Random(seed)
    bots = [make_bot_spec(f"ismcts@{iterations}", rng.randrange(2**31)) for _ in range(2)]
    values: dict[int, list[tuple[float, float]]] = {v: [] for v in VERSIONS}
    temperatures: dict[int, list[float]] = {v: [] for v in VERSIONS}
    remaining: list[float] = []

    def measure(state: GameState, _seat: int) -> None:
        assert isinstance(state, _native.GheosState)
        for v in VERSIONS:
            pair = _native.gheos_ai_values(state, v)
            values[v].append((pair[0], pair[1]))
            temperatures[v].append(_native.gheos_ai_temperature(state, v))
        remaining.append(read(state).remaining)

    play_match(state, random_start(bots, 2, rng), observers=bots, before=measure)
    points = {int(r["seat"]): int(r["place"]) for r in state.result()}
    first_won = None if points[0] == points[1] else points[0] < points[1]
    return Positions(values, temperatures, remaining, first_won)


def report(games: list[Positions]) -> dict[str, Any]:
    """Per evaluation: its log-loss at its own temperature (all positions and by fifth of
    the epochs to come) and the best temperature of the grid with its log-loss."""
    import numpy as np

    def chance(gap: Any, temperature: Any) -> Any:
        return 1 / (1 + np.exp(-np.clip(gap / temperature, -30, 30)))

    decided = [g for g in games if g.first_won is not None and g.remaining]
    if not decided:
        return {"games": len(games), "positions": 0}
    won = np.concatenate([np.full(len(g.remaining), float(bool(g.first_won))) for g in decided])
    left = np.concatenate([np.array(g.remaining) for g in decided])
    fifth = np.minimum(4, (left * 5).astype(int))
    out: dict[str, Any] = {"games": len(games), "positions": len(won)}
    for v in VERSIONS:
        gap = np.concatenate([np.array([a - b for a, b in g.values[v]]) for g in decided])
        own = np.concatenate([np.array(g.temperatures[v]) for g in decided])
        chances = chance(gap, own)
        grid = [(log_loss(chance(gap, a + b * left), won), a, b) for a in BASES for b in SLOPES]
        loss, base, slope = min(grid)
        out[f"value {v}"] = {
            "log_loss": round(log_loss(chances, won), 4),
            "by fifth of the epochs to come": [
                round(log_loss(chances[fifth == k], won[fifth == k]), 4)
                if (fifth == k).any()
                else None
                for k in range(5)
            ],
            "best temperature": [base, slope],
            "best log_loss": round(loss, 4),
        }
    return out


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command()
def calibration(
    games: Annotated[int, typer.Option(help="Self-play games.")] = 300,
    iterations: Annotated[int, typer.Option(help="Search iterations a decision.")] = 1500,
    seed: Annotated[int, typer.Option(help="The first game's seed.")] = 100_000,
    workers: Annotated[int, typer.Option(help="Local processes.")] = 1,
) -> None:
    """Self-play, then the calibration report as JSON."""
    jobs = [(seed + i, iterations) for i in range(games)]
    print(json.dumps(report(map_local(play, jobs, workers)), indent=1))


def main(argv: list[str] | None = None) -> None:
    """``python -m lab calibration``."""
    run_command(app, "lab.calibration", argv)


if __name__ == "__main__":
    main()
