"""Standings shared by every game and everything that scores games: places from the games'
tie-break keys, rewards and utilities from places, and the interval of a measured share."""

from __future__ import annotations

import math
from collections.abc import Sequence

from cradle.core.contract import SeatResult

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


def places(keys: Sequence[tuple[int, ...]]) -> list[int]:
    """Each seat's place from its key (greater is better, compared element by element: the
    game's score first, then its tie-breaks): 1 + the number of seats with a greater key, so
    seats with equal keys share a place and the next place is skipped."""
    return [1 + sum(1 for other in keys if other > key) for key in keys]


def _ahead_and_behind(result: Sequence[SeatResult]) -> list[tuple[int, int]]:
    """Per seat, in seat order: how many seats it finished ahead of, and how many ahead of it."""
    ranks = [row["place"] for row in sorted(result, key=lambda row: row["seat"])]
    return [
        (sum(1 for other in ranks if other > mine), sum(1 for other in ranks if other < mine))
        for mine in ranks
    ]


def rank_rewards(result: Sequence[SeatResult]) -> list[float]:
    """Per seat, the share of the other players it finished ahead of (a tie counts half).

    In two-player games that is 1 for a win, 0 for a loss, 0.5 for a tie; with more players
    it rewards every place, so that each seat's search also cares about second place.
    """
    counts = _ahead_and_behind(result)
    n = len(counts)
    if n < 2:
        return [1.0] * n
    # the seats tied with this one are those neither ahead nor behind
    return [(ahead + 0.5 * (n - 1 - ahead - behind)) / (n - 1) for ahead, behind in counts]


def ranking_utilities(result: Sequence[SeatResult]) -> list[float]:
    """Zero-sum utilities from places: (seats beaten - seats beating this one) / (n - 1), i.e.
    ``2 * reward - 1`` of :func:`rank_rewards`. Two players: +1 win, -1 loss, 0 tie; any
    number: they sum to 0 and each lies in [-1, 1]."""
    counts = _ahead_and_behind(result)
    n = len(counts)
    if n < 2:
        return [0.0] * n
    return [(ahead - behind) / (n - 1) for ahead, behind in counts]


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval (95% by default) of a share of ``trials``; ``successes`` may be
    fractional (a tie counts half). No trials: the whole of [0, 1]."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    # An all-or-nothing share reaches its end exactly (rounding would stop just short).
    low = 0.0 if p <= 0 else max(0.0, centre - half)
    high = 1.0 if p >= 1 else min(1.0, centre + half)
    return (low, high)
