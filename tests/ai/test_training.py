"""The fitted Tigris evaluation: examples from games, the logistic fit."""

from __future__ import annotations

import random

import pytest

from cradle.ai.tigris_knowledge import FITTED_WEIGHTS, Board
from cradle.ai.training import fit, game_examples
from tests.helpers.ai import random_position

np = pytest.importorskip("numpy")


def test_features_match_the_fitted_weights() -> None:
    board = Board(random_position("tigris", 3, seed=2, steps=40))
    assert len(board.features(0)) == len(FITTED_WEIGHTS)
    assert board.values(fitted=True) != board.values(fitted=False)


def test_one_game_gives_labelled_feature_differences() -> None:
    examples = game_examples(seed=3, players=2)
    assert examples
    assert {label for _, label in examples} <= {0, 1}
    assert all(len(diff) == len(FITTED_WEIGHTS) for diff, _ in examples)


def test_the_fit_recovers_known_weights() -> None:
    rng = random.Random(1)
    truth = np.array([1.5, -0.5, 0.0])
    x = np.array([[rng.gauss(0, 1) for _ in range(3)] for _ in range(4000)])
    p = 1 / (1 + np.exp(-(x @ truth)))
    y = (np.array([rng.random() for _ in range(4000)]) < p).astype(float)
    w = fit(x, y, penalty=1e-4)
    assert np.allclose(w, truth, atol=0.2)
