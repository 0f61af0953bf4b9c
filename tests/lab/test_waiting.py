"""The measurement of what players wait for (``python -m lab waiting``)."""

from __future__ import annotations

from lab.waiting import measure


def test_measure_times_decisions_and_turns() -> None:
    report = measure("ismcts@3", "gheos", 2, 1, seed=4)
    decisions, turns = report["decision_s"], report["turn_s"]
    assert decisions["count"] >= turns["count"] > 5
    assert 0.0 <= decisions["median"] <= decisions["p95"] <= decisions["max"]
