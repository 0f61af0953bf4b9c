"""The new-table form's words for the bots come from the levels' own numbers, as this server
runs them (issue 56: "1 s a move … here it thinks up to 0.9 s"; expert "3 s" capped at 2 s)."""

from __future__ import annotations

import re

import pytest

from cradle.ai.levels import LEVELS, describe
from cradle.server.limits import Limits
from cradle.server.routes.common import bot_menu


@pytest.mark.parametrize("cap", [2.0, 0.5, 30.0])
def test_each_level_says_the_seconds_it_is_given_here_and_no_other(cap: float) -> None:
    for bot in bot_menu(Limits(bot_seconds=cap)):
        if not bot.level:
            continue
        numbers = [float(n) for n in re.findall(r"(\d+(?:\.\d+)?) s\b", bot.about)]
        if bot.seconds:
            assert numbers == [bot.seconds], bot
            assert bot.seconds <= cap
        else:
            assert numbers == [] and "at once" in bot.about, bot
        assert "every core" not in bot.about  # the server gives a bot one core


def test_a_level_described_where_it_runs_whole() -> None:
    hard = describe(LEVELS["hard"])
    assert "0.9 s a move" in hard and "2.7 s a turn" in hard
    assert "on every core" in describe(LEVELS["expert"])
