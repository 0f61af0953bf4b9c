"""What a research caller hands a bot: numpy seats, budget specs through ``make_bot``."""

from __future__ import annotations

import numpy as np
import pytest

from cradle.ai.bots import UnknownBot, make_bot, seat_index
from cradle.gheos import new_game as new_gheos
from cradle.tigris import new_game as new_tigris

BOTS = ["random", "greedy", "expert-rules", "ismcts@5", "pimc@0.02s"]


@pytest.mark.parametrize("name", BOTS)
@pytest.mark.parametrize("new_game", [new_tigris, new_gheos], ids=["tigris", "gheos"])
def test_a_numpy_seat_is_a_seat(name: str, new_game: object) -> None:
    state = new_game(2, 3)  # type: ignore[operator]
    for seat in (np.int64(state.to_move), np.int32(state.to_move), np.uint8(state.to_move)):
        assert make_bot(name, 1).choose(state, seat) in state.legal_actions()  # type: ignore[arg-type]
    # the same decision as with a plain int (the seed fixes it)
    plain = make_bot(name, 7).choose(state, int(state.to_move))
    if not name.startswith("pimc"):  # pimc's budget is in seconds
        assert make_bot(name, 7).choose(state, np.int64(state.to_move)) == plain  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [1.0, True, "0", None])
def test_a_seat_that_is_no_integer_is_refused(bad: object) -> None:
    with pytest.raises(TypeError, match="integer"):
        seat_index(bad)


def test_make_bot_takes_budget_specs() -> None:
    bot = make_bot("ismcts@50", 1)
    assert bot.name == "ismcts@50"
    assert make_bot("PIMC@0.1s").name == "pimc@0.1s"
    assert make_bot("ismcts").name == "ismcts"
    with pytest.raises(UnknownBot, match="takes no budget"):
        make_bot("greedy@5")
    with pytest.raises(UnknownBot, match="bad budget"):
        make_bot("ismcts@lots")
    with pytest.raises(UnknownBot, match="known"):
        make_bot("nobody")
