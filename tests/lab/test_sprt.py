"""The sequential probability ratio test that decides whether a change becomes a default."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import typer

import lab.sprt as sprt
from lab.sprt import SprtSettings


def settings(**changes: object) -> SprtSettings:
    base: dict[str, object] = {
        "game": "gheos",
        "players": 2,
        "new": "greedy",
        "old": "random",
        "elo0": 0.0,
        "elo1": 40.0,
        "alpha": 0.05,
        "beta": 0.05,
        "max_pairs": 400,
        "seed": 1,
    }
    base.update(changes)
    return SprtSettings(**base)  # type: ignore[arg-type]


def test_expected_score_and_elo_are_inverse() -> None:
    assert sprt.expected_score(0) == 0.5
    assert sprt.expected_score(400) == pytest.approx(10 / 11)
    for elo in (-300.0, -40.0, 0.0, 25.0, 200.0):
        assert sprt.elo_of(sprt.expected_score(elo)) == pytest.approx(elo)


def test_the_bounds_are_walds() -> None:
    lower, upper = sprt.bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.944, abs=1e-3)
    assert upper == pytest.approx(2.944, abs=1e-3)


def simulate(true_elo: float, test: SprtSettings, seed: int) -> tuple[str, int]:
    """Pairs of games drawn at a true strength until the test decides."""
    rng = random.Random(seed)
    p = sprt.expected_score(true_elo)
    scores: list[float] = []
    while len(scores) < test.max_pairs:
        scores.append((float(rng.random() < p) + float(rng.random() < p)) / 2)
        verdict = sprt.decide(scores, test)
        if verdict != "undecided":
            return verdict, len(scores)
    return "undecided", len(scores)


def test_it_finds_a_real_gain_and_rejects_none() -> None:
    test = settings()
    stronger = [simulate(120.0, test, seed)[0] for seed in range(20)]
    equal = [simulate(0.0, test, seed)[0] for seed in range(20)]
    weaker = [simulate(-60.0, test, seed)[0] for seed in range(20)]
    assert stronger.count("H1") >= 19
    assert equal.count("H1") <= 2  # alpha 0.05: a false gain is rare
    assert weaker.count("H0") >= 19


def test_no_decision_before_a_few_pairs() -> None:
    assert sprt.decide([1.0, 1.0, 1.0], settings()) == "undecided"
    assert sprt.decide([1.0] * 4, settings()) == "H1"
    assert sprt.decide([0.0] * 4, settings()) == "H0"


def test_seats_alternate_and_swap() -> None:
    assert sprt.seatings(2, "a", "b") == (("a", "b"), ("b", "a"))
    assert sprt.seatings(4, "a", "b") == (("a", "b", "a", "b"), ("b", "a", "b", "a"))
    assert sprt.new_score([1, 2], [0]) == 1.0
    assert sprt.new_score([2, 1, 3, 4], [0, 2]) == 0.5  # 2nd beats 4th, 3rd beats 4th, of 4
    assert sprt.new_score([1, 1], [1]) == 0.5


def test_a_run_decides_writes_pairs_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "pairs.jsonl"
    test = settings(elo1=100.0, max_pairs=8)
    first = sprt.run(test, out, workers=1)
    assert first["decision"] == "H1"  # greedy wins every Gheos game against random here
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == first["pairs"] >= sprt.MIN_PAIRS
    row = json.loads(lines[0])
    assert [game["seating"] for game in row["games"]] == [
        ["greedy", "random"],
        ["random", "greedy"],
    ]
    again = sprt.run(test, out, workers=1)  # decided already: nothing more is played
    assert again == first
    assert len(out.read_text(encoding="utf-8").splitlines()) == len(lines)


def test_bad_input_is_refused_before_play(tmp_path: Path) -> None:
    out = tmp_path / "pairs.jsonl"
    for argv in (
        ["--new", "nobody", "--old", "random"],
        ["--new", "greedy", "--old", "random", "--game", "chess"],
        ["--new", "greedy", "--old", "random", "--elo0", "10", "--elo1", "5"],
        ["--new", "greedy", "--old", "random", "--players", "5"],
    ):
        with pytest.raises(typer.BadParameter):
            sprt.main([*argv, "--out", str(out)])
    assert not out.exists()
