"""Whether recycling the vector env's arrays pays: steps per CPU-second at N = 64 and 256 with
the arrays recycled (what ``CradleVectorEnv`` does) and with fresh ones every step (what it
did before), interleaved round by round in one process, medians of the rounds::

    python -m lab vector_arrays --rounds 3 --seconds 3

Uniform random legal ids drawn by the batch (``random_actions``), as ``cradle bench --env
vector`` plays; the load average is printed with each round.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

import numpy as np

from cradle.envs.vector import CradleVectorEnv

SIZES = (64, 256)
GAMES = ("tigris", "gheos")


class _Fresh(CradleVectorEnv):
    """New arrays every step: the env before recycling."""

    def _buffers(self) -> Any:
        obs = np.empty((self.num_envs, self._width), np.float32)
        return obs, np.zeros((self.num_envs, self.actions), np.int8), None, False


def rate(game: str, size: int, fresh: bool, seconds: float) -> float:
    """Steps per CPU-second of random play for ``seconds`` of wall time."""
    env = (_Fresh if fresh else CradleVectorEnv)(game, size, 2)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    actions = np.zeros(size, np.int64)
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds or steps == 0:
        env.random_actions(rng.integers(0, 2**63, size, dtype=np.uint64), actions)
        env.step(actions)
        steps += size
    return steps / max(time.process_time() - cpu, 1e-9)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args(argv)
    rates: dict[tuple[str, str, int], list[float]] = {}
    for round_ in range(args.rounds):
        print(f"round {round_ + 1}, load {os.getloadavg()[0]:.1f}", flush=True)
        for game in GAMES:
            for way in ("fresh", "recycled"):
                for size in SIZES:
                    one = rate(game, size, way == "fresh", args.seconds)
                    rates.setdefault((game, way, size), []).append(one)
    for (game, way, size), got in rates.items():
        print(f"{game:6} {way:8} N={size:<3} {statistics.median(got):>9,.0f} steps/CPU-s")
    for game in GAMES:
        for way in ("fresh", "recycled"):
            big, small = (statistics.median(rates[(game, way, n)]) for n in (256, 64))
            print(f"{game:6} {way:8} N=256 / N=64: {big / small:.2f}")


if __name__ == "__main__":
    main()
