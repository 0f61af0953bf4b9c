"""How much of the plain search's speed a learned network at the leaves keeps: native ISMCTS
iterations per CPU-second on ``cradle bench --ai``'s positions (an opening, a middle game and
a late position of one random game), the plain search, the search with the network mixed in
and the network alone (``learned``), interleaved round by round; the medians of the rounds and
each one's share of the plain search's, with the load average before and after.

    nice -n 10 python -m lab model_speed --model tigris-2p --rounds 3 --seconds 6
"""

from __future__ import annotations

import os
import statistics
from typing import Annotated

import typer

from cradle.ai.benchmark import measure
from cradle.ai.search.params import IsmctsParams
from cradle.core.registry import get_game
from lab.command import run_command

app = typer.Typer(add_completion=False)


@app.command()
def speed(
    model: Annotated[str, typer.Option(help="a shipped network's name or a path")],
    game: Annotated[str, typer.Option()] = "tigris",
    players: Annotated[int, typer.Option()] = 2,
    rounds: Annotated[int, typer.Option(help="interleaved rounds of the three searches")] = 3,
    seconds: Annotated[float, typer.Option(help="seconds each search of a round")] = 6.0,
    seed: Annotated[int, typer.Option()] = 11,
) -> None:
    module = get_game(game)
    kinds = {
        "plain": IsmctsParams(),
        "model": IsmctsParams(model=model),
        "learned": IsmctsParams(model=model, learned=True),
    }
    rates: dict[str, list[float]] = {k: [] for k in kinds}
    before = os.getloadavg()
    for r in range(rounds):
        for kind, params in kinds.items():
            m = measure(module, players, None, seconds, seed, "native", params)
            rate = float(m["ismcts_iterations_per_cpu_s"])
            rates[kind].append(rate)
            print(f"round {r + 1} {kind}: {rate:,.0f} iterations per CPU-second", flush=True)
    after = os.getloadavg()
    plain = statistics.median(rates["plain"])
    for kind, values in rates.items():
        median = statistics.median(values)
        print(
            f"{kind:8} median {median:,.0f} per CPU-second "
            f"({', '.join(f'{v:,.0f}' for v in values)}); {median / plain:.0%} of the plain search's"
        )
    print(f"load average before {before[0]:.1f}, after {after[0]:.1f}")


def main(argv: list[str] | None = None) -> None:
    run_command(app, __name__, argv)


if __name__ == "__main__":
    main()
