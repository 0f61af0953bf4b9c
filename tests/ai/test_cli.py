"""`cradle hint` and `cradle bench --ai`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.cli import assert_clean_error, cradle, finished_record


def test_hint_on_a_new_game_as_json() -> None:
    run = cradle("hint", "--game", "gheos", "--seed", "3", "--iterations", "40", "--json")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert 1 <= len(data["hints"]) <= 3
    for hint in data["hints"]:
        assert set(hint) == {"action", "win_chance", "visits", "reason"}


def test_hint_table_for_a_saved_game(tmp_path: Path) -> None:
    from cradle.core.record import GameRecord

    path = finished_record(tmp_path, "tigris", seed=4)
    record = GameRecord.load(path)
    record.actions = record.actions[:15]  # stop mid-game
    record.save(path)
    run = cradle("hint", "--record", str(path), "--iterations", "60", "--count", "2")
    assert run.code == 0, run.err
    assert "hints for" in run.out and "why" in run.out


def test_hint_errors_are_clean(tmp_path: Path) -> None:
    finished = finished_record(tmp_path, "gheos", seed=2)
    assert_clean_error(cradle("hint", "--record", str(finished)), "the game is over")
    assert_clean_error(cradle("hint", "--seed", "1", "--count", "0"), "--count")
    state_seat = json.loads(cradle("hint", "--seed", "1", "--iterations", "5", "--json").out)[
        "seat"
    ]
    assert_clean_error(cradle("hint", "--seed", "1", "--seat", str(1 - state_seat)), "seat to move")
    missing = tmp_path / "nope.json"
    assert_clean_error(cradle("hint", "--record", str(missing)), "bad game record")


def test_bench_ai_reports_iterations_per_second() -> None:
    run = cradle(
        "bench", "--ai", "--game", "gheos", "--seconds", "1", "--players", "2", "--seed", "1"
    )
    assert run.code == 0, run.err
    summary = json.loads(run.out.strip().splitlines()[-1])
    figures = summary["ai"]["2"]
    assert figures["ismcts_iterations_per_s"] > 0
    assert figures["ismcts_iterations_per_cpu_s"] > 0
    assert 0 < figures["cpu_seconds"] <= figures["seconds"] * 1.1 + 0.05  # one thread
    assert len(summary["load"]["start"]) == len(summary["load"]["end"]) == 3
    assert figures["positions"] >= 1
