"""How well the public belief reads the Tigris hands (``python -m lab belief``)."""

from __future__ import annotations

import pytest

from lab.belief import calibration


def test_the_calibration_measures_both_beliefs_on_every_hand() -> None:
    found = calibration(["random", "random"], games=1, seed=3)
    assert found["hands"] > 50
    assert all(x > 0 for x in found["belief"] + found["uniform"])
    with pytest.raises(ValueError, match="two bot specs"):
        calibration(["random"], games=1, seed=3)
