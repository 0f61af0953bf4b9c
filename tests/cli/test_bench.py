from __future__ import annotations

import json
from typing import Any

import pytest

from cradle import tigris
from cradle.cli.bench import measure
from tests.helpers.cli import GAMES, assert_clean_error, cradle


@pytest.mark.parametrize("game", GAMES)
def test_bench_ends_with_the_json_line_of_the_issue(game: str) -> None:
    run = cradle("bench", "--game", game, "--seconds", "2", "--seed", "1")
    assert run.code == 0, run.err
    summary = json.loads(run.out.strip().splitlines()[-1])
    assert summary["game"] == game
    assert set(summary["players"]) == {"2", "4"}
    for figures in summary["players"].values():
        for key in ("games_per_s", "actions_per_s", "legal_actions_per_s", "games_per_cpu_s"):
            assert isinstance(figures[key], float | int)
            assert figures[key] > 0, key
        assert figures["actions"] >= figures["games"]
        # one thread: the CPU time given is at most the wall time, so per CPU-second is faster
        assert 0 < figures["cpu_seconds"] <= figures["seconds"] + 0.05
        assert figures["games_per_cpu_s"] >= figures["games_per_s"] * 0.95
    assert_load(summary["load"])
    assert "games/s" in run.out  # the human table comes first
    assert "games/CPU-s" in run.out


def assert_load(load: dict[str, list[float]]) -> None:
    """The load averages (1, 5, 15 minutes) at a benchmark's start and end."""
    assert set(load) == {"start", "end"}
    for figures in load.values():
        assert len(figures) == 3
        assert all(isinstance(x, float | int) and x >= 0 for x in figures)


def test_bench_measures_only_finished_games_and_counts_every_call() -> None:
    result = measure(tigris, 2, 0.5, tigris.Options(), seed=3)
    assert result.games == len(result.game_seconds) == len(result.game_actions)
    assert result.games > 0
    # One legal_actions call per action; a game cut off by the clock adds actions, not a game.
    assert result.legal_actions_calls == result.actions >= sum(result.game_actions)
    assert 0.5 <= result.seconds < 1.5


def test_bench_game_options_reach_the_engine() -> None:
    run = cradle(
        "bench",
        "--seconds",
        "1",
        "--players",
        "3",
        "-o",
        "board=advanced",
        "-o",
        "buildings=true",
        "--option",
        "wonder=true",
        "-o",
        "english=true",
        "-o",
        "open-scoring=TRUE",
    )
    assert run.code == 0, run.err
    summary = json.loads(run.out.strip().splitlines()[-1])
    assert list(summary["players"]) == ["3"]
    assert summary["options"]["board"] == "advanced"
    assert summary["options"]["wonder"] is True
    assert summary["options"]["open_scoring"] is True


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--players", "1"], "2 to 4 players"),
        (["--players", "2,x"], "numbers separated by commas"),
        (["--seconds", "0"], "more than 0"),
        (["--game", "gheos", "-o", "buildings=true"], "unknown Gheos option(s): buildings"),
        (["-o", "colour=red"], "unknown option(s): colour (known: board, buildings"),
        (["-o", "wonder=maybe"], "'wonder' must be true or false"),
        (["-o", "board=moon"], "unknown board 'moon'"),
        (["-o", "wonder"], "write KEY=VALUE"),
        (["-o", "wonder=true", "-o", "wonder=false"], "wonder: given twice"),
        (["--game", "go"], "unknown game"),
    ],
)
def test_bad_bench_flags_are_clean_errors(args: list[str], reason: str) -> None:
    assert_clean_error(cradle("bench", *args), reason)


def test_bench_compares_both_engines_in_one_run() -> None:
    run = cradle("bench", "--game", "gheos", "--engine", "native,python", "--seconds", "1.5")
    assert run.code == 0, run.err
    summary = json.loads(run.out.strip().splitlines()[-1])
    assert list(summary["engines"]) == ["native", "python"]
    for engine in ("native", "python"):
        loops = summary["engines"][engine]["2"]
        assert list(loops) == ["playout", "ids", "strings"]
        # every loop plays whole games with the full legal list at every ply
        assert loops["playout"]["games"] >= 1
        assert loops["playout"]["actions"] == loops["playout"]["legal_actions_calls"]
    assert set(summary["native_speedup"]["4"]) == {"playout", "ids", "strings"}
    # the speed-up per CPU-second too: the figure that holds when the machine is shared
    assert set(summary["native_speedup_cpu"]["4"]) == {"playout", "ids", "strings"}
    assert summary["native_speedup_cpu"]["2"]["playout"] > 1
    assert_load(summary["load"])


def test_bench_refuses_an_unknown_engine() -> None:
    assert_clean_error(cradle("bench", "--engine", "native,rust"), "unknown engine 'rust'")


def test_engines_take_turns_in_rounds_on_the_same_games(monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.console import Console

    from cradle.cli import bench
    from cradle.core import native

    if not native.available():
        pytest.skip("the native engine is not built")
    calls: list[tuple[str, str, int, bool]] = []

    measure = bench.measure

    def recording(*args: Any, **kwargs: Any) -> bench.Measurement:
        calls.append((kwargs["loop"], args[5], args[4], kwargs["finish"]))
        return measure(*args, **kwargs)

    monkeypatch.setattr(bench, "ROUND_SECONDS", 0.05)
    monkeypatch.setattr(bench, "measure", recording)
    summary = bench.run_engines_bench(
        Console(quiet=True), "gheos", 0.6, [2], {}, 3, ["native", "python"]
    )
    for loop in ("playout", "ids", "strings"):
        mine = [(engine, seed, finish) for name, engine, seed, finish in calls if name == loop]
        assert [engine for engine, _, _ in mine] == ["native", "python", "python", "native"]
        assert mine[0][1] == mine[1][1] != mine[2][1] == mine[3][1]  # the same games per round
        assert all(finish for _, _, finish in mine)  # no half-played game is timed
        for engine in ("native", "python"):
            assert summary["engines"][engine]["2"][loop]["games"] >= 2
