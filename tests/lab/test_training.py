"""The learned evaluation's training (``python -m lab training``): self-play data, the fit, the
command."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from cradle.ai.knowledge.learned import FEATURES, Model, parse
from lab.training import (
    GameData,
    SelfPlay,
    fit,
    learn,
    main,
    pairs,
    self_play,
)

np = pytest.importorskip("numpy")
pytest.importorskip("cradle._native")


def test_the_fit_recovers_known_weights() -> None:
    rng = random.Random(1)
    truth = np.array([1.5, -0.5, 0.0])
    x = np.array([[rng.gauss(0, 1) for _ in range(3)] for _ in range(4000)])
    p = 1 / (1 + np.exp(-(x @ truth)))
    y = (np.array([rng.random() for _ in range(4000)]) < p).astype(float)
    w = fit(x, y, penalty=1e-4)
    assert np.allclose(w, truth, atol=0.2)


@pytest.mark.parametrize(("game", "players"), [("tigris", 2), ("gheos", 3)])
def test_self_play_records_every_seat_of_every_position(game: str, players: int) -> None:
    data = self_play(SelfPlay(game, 11, players, iterations=4, random_moves=3))
    positions = len(data.features)
    assert positions > 10
    assert data.features.shape == (positions, players, len(FEATURES[game]))
    assert data.remaining.shape == (positions,)
    assert ((data.remaining >= 0) & (data.remaining <= 1)).all()
    assert data.remaining[0] == 1.0
    assert len(data.rewards) == players
    assert sum(data.rewards) == pytest.approx(players / 2)  # shares of opponents beaten


def synthetic(truth: list[float], games: int, seed: int) -> list[GameData]:
    """Two-seat games of one position each, won by seat 0 with chance sigmoid(truth · diff)."""
    rng = np.random.default_rng(seed)
    width = len(FEATURES["gheos"])
    data = []
    for _ in range(games):
        x = rng.normal(size=(1, 2, width)).astype(np.float32)
        x[:, :, len(truth) :] = 0.0
        diff = x[0, 0, : len(truth)].astype(float) - x[0, 1, : len(truth)]
        won = rng.random() < 1 / (1 + np.exp(-(np.array(truth) @ diff)))
        data.append(GameData(x, np.array([0.5]), [1.0, 0.0] if won else [0.0, 1.0]))
    return data


def test_the_fit_recovers_a_known_separating_weight() -> None:
    truth = [1.5, -0.7, 0.0]
    found, report = learn("gheos", synthetic(truth, 2500, 3), penalty=1e-4)
    assert found.weights[:3] == pytest.approx(truth, abs=0.25)
    assert all(w == 0 for w in found.weights[3:])
    assert report["held_out"]["learned"]["accuracy"] > 0.65
    x, y, _ = pairs(synthetic(truth, 10, 4), "gheos")
    assert x.shape == (10, len(FEATURES["gheos"])) and set(y) <= {0.0, 1.0}


def test_the_command_writes_a_model_file(tmp_path: Path) -> None:
    out, data = tmp_path / "tigris.json", tmp_path / "tigris.npz"
    args = ["--game", "tigris", "--games", "3", "--iterations", "3"]
    main([*args, "--out", str(out), "--data", str(data)])
    written = parse(json.loads(out.read_text()))
    assert isinstance(written, Model) and written.meta["games"] == 3
    assert written.meta["positions"] > 0 and data.exists()
    main(["--game", "tigris", "--reuse", "--data", str(data), "--out", str(out)])
    assert parse(json.loads(out.read_text())).weights == written.weights
