"""The vocabularies legal moves are assembled from (one of notation strings, one of action ids):
every entry is its action's notation or id, for every cell, colour and count.

The engine builds them once, at import; a test that builds them anew is what checks how they are
made (mutation testing cannot reach code that ran before the test did).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cradle.tigris.actions import (
    ACTION_IDS,
    BUILDING,
    CATASTROPHE,
    COMMIT,
    DECLINE,
    LEADER,
    PASS,
    SWAP,
    SWAP_COUNTS,
    TILE,
    TREASURE,
    WAR,
    WITHDRAW,
    WONDER,
    WONDERPOINT,
    Action,
    format_action,
)
from cradle.tigris.state import _Vocabulary
from cradle.tigris.types import HAND_SIZE

CELLS = range(176)


@pytest.mark.parametrize(
    "item", [format_action, ACTION_IDS.__getitem__], ids=["notation", "action ids"]
)
def test_every_word_is_its_actions_notation_or_id(item: Callable[[Action], Any]) -> None:
    words = _Vocabulary(item)
    assert words.item is item
    for colour in range(4):
        assert words.leader[colour].items == tuple(item(Action(LEADER, colour, c)) for c in CELLS)
        assert words.tile[colour].items == tuple(item(Action(TILE, colour, c)) for c in CELLS)
    assert len(words.leader) == len(words.tile) == 4
    for table, kind in [
        (words.catastrophe, CATASTROPHE),
        (words.treasure, TREASURE),
        (words.building, BUILDING),
        (words.wonder, WONDER),
    ]:
        assert table.items == tuple(item(Action(kind, 0, c)) for c in CELLS)
    assert words.withdraw == tuple(item(Action(WITHDRAW, r, -1)) for r in range(4))
    assert words.commit == tuple(item(Action(COMMIT, n, -1)) for n in range(HAND_SIZE + 1))
    assert words.war == tuple(item(Action(WAR, k, -1)) for k in range(4))
    assert words.wonderpoint == tuple(item(Action(WONDERPOINT, k, -1)) for k in range(4))
    assert words.pass_ == item(Action(PASS, 0, -1))
    assert words.decline == item(Action(DECLINE, 0, -1))
    # The swaps a hand allows: exactly those whose tiles it holds, made once per hand.
    hand = [2, 0, 1, 3]
    swaps = words.swaps(hand)
    assert swaps == [
        item(Action(SWAP, index, -1))
        for index, counts in enumerate(SWAP_COUNTS)
        if all(counts[c] <= hand[c] for c in range(4))
    ]
    assert words.swaps(list(hand)) is swaps
    assert words.swaps([0, 0, 0, 0]) == []
