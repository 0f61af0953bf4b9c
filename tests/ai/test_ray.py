"""A small tournament on a local Ray instance (needs the ``ray`` extra)."""

from __future__ import annotations

import pytest

from cradle.ai.tournament import run_local, run_ray, schedule


def test_a_tournament_on_a_local_ray_instance() -> None:
    # asked for here, not while collecting: every pytest worker would import Ray
    ray = pytest.importorskip("ray")
    tasks = schedule("gheos", ["greedy", "random"], 2, rounds=1, seed=6)
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        seen: list[int] = []
        records = run_ray(tasks, "local", 1, lambda r: seen.append(r["index"]))
    finally:
        ray.shutdown()
    assert sorted(seen) == [0, 1]
    local = run_local(tasks, workers=1)
    assert [r["places"] for r in records] == [r["places"] for r in local]
    assert [r["seating"] for r in records] == [["greedy", "random"], ["random", "greedy"]]
