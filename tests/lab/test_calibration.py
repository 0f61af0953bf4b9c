"""The calibration report of Gheos' hand-set evaluations (python -m lab calibration)."""

from __future__ import annotations

import math

import pytest

from lab.calibration import VERSIONS, Positions, play, report
from lab.training import log_loss

pytest.importorskip("cradle._native")
np = pytest.importorskip("numpy")


def test_a_game_records_every_evaluation_at_every_position() -> None:
    game = play((7, 20))
    n = len(game.remaining)
    assert n > 20
    for v in VERSIONS:
        assert len(game.values[v]) == len(game.temperatures[v]) == n
    # Both evaluations share one temperature; value 4 counts more than value 1 in the end.
    assert game.temperatures[1] == game.temperatures[4]
    for t, left in zip(game.temperatures[4], game.remaining, strict=True):
        assert t == pytest.approx(3.0 + 10.0 * left)


def synthetic(gap: float, first_won: bool, left: float = 0.5) -> Positions:
    values = {v: [(gap, 0.0)] * 4 for v in VERSIONS}
    temperatures = {v: [1.0] * 4 for v in VERSIONS}
    return Positions(values, temperatures, [left] * 4, first_won)


def test_the_report_scores_chances_and_finds_the_temperature_that_fits() -> None:
    assert log_loss(np.array([0.5, 0.5]), np.array([1.0, 0.0])) == pytest.approx(math.log(2))
    # A lead of 10 wins three games in four: the best temperature makes that 0.75.
    games = [synthetic(10.0, True)] * 3 + [synthetic(10.0, False)]
    games.append(synthetic(3.0, None))  # a tie says nothing
    out = report(games)
    assert out["games"] == 5 and out["positions"] == 16
    row = out["value 4"]
    base, slope = row["best temperature"]
    chance = 1 / (1 + math.exp(-10.0 / (base + slope * 0.5)))
    assert chance == pytest.approx(0.75, abs=0.08)
    assert row["best log_loss"] < row["log_loss"]  # temperature 1 is far too sure
    assert row["by fifth of the epochs to come"][2] == row["log_loss"]
    assert row["by fifth of the epochs to come"][0] is None
    assert report([synthetic(1.0, None)])["positions"] == 0
