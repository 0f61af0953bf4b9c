"""Tournaments: schedules, results, ratings, files, and the `cradle tournament` command."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from cradle.ai.tournament import (
    GameTask,
    fit_ratings,
    head_to_head,
    lineups,
    play_game,
    run_local,
    schedule,
    summary,
    write_results,
)
from tests.helpers.cli import assert_clean_error, cradle


def test_schedule_rotates_seats_and_shares_seeds() -> None:
    tasks = schedule("gheos", ["a", "b", "c"], 2, rounds=2, seed=5)
    assert len(tasks) == 2 * 3 * 2  # rounds × pairs × seatings
    first_round = tasks[:6]
    assert len({t.seed for t in first_round}) == 1
    assert tasks[6].seed != tasks[0].seed
    seatings = {t.seating for t in first_round}
    assert ("a", "b") in seatings and ("b", "a") in seatings
    assert [t.index for t in tasks] == list(range(12))


def test_lineups_with_fewer_bots_than_seats_take_turns() -> None:
    assert lineups(["a", "b"], 4) == [("a", "b", "a", "b")]
    assert len(lineups(["a", "b", "c", "d", "e"], 4)) == 5


def synthetic(strong_wins: int, games: int) -> list[dict[str, object]]:
    records = []
    for i in range(games):
        won = i < strong_wins
        seating = ["strong", "weak"] if i % 2 == 0 else ["weak", "strong"]
        strong_seat = seating.index("strong")
        places = [1, 2] if (strong_seat == 0) == won else [2, 1]
        rewards = [1.0 if p == 1 else 0.0 for p in places]
        records.append(
            {
                "index": i,
                "game": "tigris",
                "seed": i // 2,
                "seating": seating,
                "places": places,
                "scores": [0, 0],
                "rewards": rewards,
                "thinking": [0.1, 0.1],
                "decisions": [1, 1],
            }
        )
    return records


def test_ratings_and_head_to_head_follow_the_results() -> None:
    records = synthetic(strong_wins=18, games=20)
    ratings = fit_ratings(records)
    assert list(ratings) == ["strong", "weak"]
    strong, weak = ratings["strong"], ratings["weak"]
    assert strong["mu"] > weak["mu"]
    assert strong["low"] < strong["mu"] < strong["high"]
    assert strong["seats"] == 20 and strong["mean_reward"] == pytest.approx(0.9)
    pair = head_to_head(records)["strong"]["weak"]
    assert pair["score"] == pytest.approx(0.9) and pair["meetings"] == 20
    assert head_to_head(records)["weak"]["strong"]["score"] == pytest.approx(0.1)


def test_play_game_records_a_complete_game() -> None:
    record = play_game(GameTask(0, "gheos", 3, ("greedy", "random")))
    assert record["seating"] == ["greedy", "random"]
    assert sorted(record["places"]) in ([1, 2], [1, 1])
    assert record["actions"] > 0 and sum(record["decisions"]) == record["actions"]


def test_results_files(tmp_path: Path) -> None:
    tasks = schedule("gheos", ["greedy", "random"], 2, rounds=1, seed=2)
    records = run_local(tasks, workers=1)
    report = summary(records, {"game": "gheos", "title": "test"})
    written = write_results(tmp_path, report)
    assert [p.name for p in written] == ["results.json", "results.csv", "ratings.png"]
    data = json.loads((tmp_path / "results.json").read_text())
    assert len(data["games"]) == 2 and set(data["ratings"]) == {"greedy", "random"}
    rows = list(csv.DictReader((tmp_path / "results.csv").open()))
    assert len(rows) == 4 and {r["bot"] for r in rows} == {"greedy", "random"}
    assert (tmp_path / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_local_processes_give_the_same_games_as_one_process() -> None:
    tasks = schedule("gheos", ["greedy", "random"], 2, rounds=1, seed=8)
    one = run_local(tasks, workers=1)
    two = run_local(tasks, workers=2)
    strip = ("seconds", "thinking")
    assert [{k: v for k, v in r.items() if k not in strip} for r in one] == [
        {k: v for k, v in r.items() if k not in strip} for r in two
    ]


def test_the_tournament_command(tmp_path: Path) -> None:
    run = cradle(
        "tournament",
        "--game",
        "gheos",
        "--bots",
        "greedy,random,ismcts@5",
        "--games",
        "1",
        "--workers",
        "1",
        "--seed",
        "4",
        "--out",
        str(tmp_path),
    )
    assert run.code == 0, run.err
    assert "ratings" in run.out and "head to head" in run.out
    data = json.loads((tmp_path / "results.json").read_text())
    assert len(data["games"]) == 3 * 2
    assert data["settings"]["bots"] == ["greedy", "random", "ismcts@5"]
    assert (tmp_path / "ratings.png").exists()


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--bots", "greedy"], "at least two bots"),
        (["--bots", "greedy,zork"], "unknown bot"),
        (["--bots", "greedy,greedy"], "each bot once"),
        (["--bots", "greedy,random", "--players", "5"], "2 to 4 players"),
        (["--bots", "greedy,random", "--games", "0"], "--games"),
        (["--bots", "greedy,random", "--seconds", "0"], "--seconds"),
        (["--bots", "random,greedy", "-o", "board=advanced"], "unknown Gheos option(s)"),
    ],
)
def test_tournament_errors_are_one_clean_line(
    tmp_path: Path, args: list[str], fragment: str
) -> None:
    run = cradle("tournament", "--game", "gheos", "--out", str(tmp_path), *args)
    assert_clean_error(run, fragment)
    assert not (tmp_path / "results.json").exists()


def test_an_endless_game_is_cut_and_ranked_as_it_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    import cradle.ai.tournament as t

    monkeypatch.setattr(t, "MAX_ACTIONS", 12)
    record = t.play_game(GameTask(0, "tigris", 3, ("random", "greedy")))
    assert record["truncated"] is True
    assert record["actions"] == 12
    assert sorted(record["places"])[0] == 1
