"""The standings shared by the games and the tools that score them (cradle.core.results)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cradle.core.contract import SeatResult
from cradle.core.results import places, rank_rewards, ranking_utilities, wilson_interval


def rows(*ranks: int) -> list[SeatResult]:
    return [{"seat": seat, "score": 0, "place": place} for seat, place in enumerate(ranks)]


def test_places_share_ties_and_skip_the_next_place() -> None:
    assert places([(3, 1), (5, 0), (3, 1), (2, 9)]) == [2, 1, 2, 4]
    # the tie-breaks count: equal first keys, the second decides
    assert places([(4, 2), (4, 3)]) == [2, 1]
    assert places([(1,), (1,)]) == [1, 1]


def test_rank_rewards_count_opponents_beaten_and_ties_half() -> None:
    assert rank_rewards(rows(2, 1, 2)) == [0.25, 1.0, 0.25]
    assert rank_rewards(rows(1, 2)) == [1.0, 0.0]
    # seats are read in seat order whatever the order of the rows
    assert rank_rewards(list(reversed(rows(1, 2)))) == [1.0, 0.0]


def test_ranking_utilities_are_zero_sum() -> None:
    assert ranking_utilities(rows(1, 2)) == [1.0, -1.0]
    assert ranking_utilities(rows(1, 1)) == [0.0, 0.0]
    assert ranking_utilities(rows(2, 1, 2, 4)) == [0.0, 1.0, 0.0, -1.0]


@given(st.lists(st.integers(1, 4), min_size=2, max_size=4))
def test_utilities_are_twice_the_rewards_less_one(ranks: list[int]) -> None:
    rewards = rank_rewards(rows(*ranks))
    utilities = ranking_utilities(rows(*ranks))
    assert sum(utilities) == pytest.approx(0.0)
    assert utilities == pytest.approx([2 * r - 1 for r in rewards])


def test_wilson_interval_contains_the_share() -> None:
    low, high = wilson_interval(90, 100)
    assert 0.82 < low < 0.85 and 0.94 < high < 0.96
    low, high = wilson_interval(18, 20)
    assert low < 0.9 < high
    assert wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    # a tie counts half: 5.5 of 11 is an even share, so the interval is symmetric about 1/2
    low, high = wilson_interval(5.5, 11)
    assert low + high == pytest.approx(1.0) and low < 0.5 < high
