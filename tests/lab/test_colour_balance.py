"""Each bot's final lowest colour on shared Tigris seeds (``python -m lab colour_balance``)."""

from __future__ import annotations

import pytest

from lab.colour_balance import measure


def test_colour_balance_tallies_both_bots_on_shared_seeds() -> None:
    games, new, old = measure("ismcts@4/value=2", "ismcts@4", pairs=1, seed=3)
    assert [g["seed"] for g in games] == [games[0]["seed"]] * 2
    assert [s["bot"] for s in games[0]["seats"]] == ["ismcts@4/value=2", "ismcts@4"]
    assert [s["bot"] for s in games[1]["seats"]] == ["ismcts@4", "ismcts@4/value=2"]
    for tally in (new, old):
        assert len(tally.lowest) == 2
        assert all(gap >= 0 for gap in tally.gap)
    assert [a + b for a, b in zip(new.score, old.score, strict=True)] == [1.0, 1.0]
    with pytest.raises(ValueError, match="same bot"):
        measure("ismcts@4", "ismcts@4", pairs=1, seed=3)
