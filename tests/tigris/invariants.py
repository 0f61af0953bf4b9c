"""Invariants that hold after every action of every game (used by the property tests)."""

from __future__ import annotations

from cradle.tigris.board import NEIGHBOURS
from cradle.tigris.rules import RED, TILE_TOTALS
from cradle.tigris.state import TigrisState


def tile_counts(s: TigrisState) -> list[int]:
    """Tiles of each colour accounted for: board, hands, bag, discards and removed."""
    return [
        (s.up[c] | s.down[c]).bit_count()
        + sum(h[c] for h in s.hands)
        + s.bag.count(c)
        + sum(d[c] for d in s.discards)
        + s.removed[c]
        for c in range(4)
    ]


def check_invariants(s: TigrisState) -> None:
    assert tile_counts(s) == list(TILE_TOTALS), tile_counts(s)
    assert sum(tile_counts(s)) == 153
    up_all = s.up[0] | s.up[1] | s.up[2] | s.up[3]
    down_all = s.down[0] | s.down[1] | s.down[2] | s.down[3]
    layers = [*s.up, *s.down, s.cata, s.leaders, s.wonder_mask()]
    total = 0
    for layer in layers:
        assert not total & layer, "two things on one cell"
        total |= layer
    assert not (up_all | s.leaders) & ~s.board.land & ~s.up[1], "only farms on the river"
    assert not s.up[1] & s.board.land, "farms only on the river"
    assert s.treasure & ~(s.up[RED] | s.down[RED] | s.wonder_mask()) == 0
    assert s.leaders.bit_count() == sum(1 for c in s.leader_cell if c >= 0)
    for cell in s.leader_cell:
        if cell >= 0:
            assert NEIGHBOURS[cell] & s.up[RED], "a leader must touch a face-up temple"
    for h in s.hands:
        assert sum(h) <= 6 and min(h) >= 0
    if s.pending is None:
        assert s.unification < 0, "no unification tile between actions"
        for kingdom in s.kingdoms():
            for color in range(4):
                assert s._war_pair(color, kingdom) is None, "two leaders of a colour in a kingdom"
    assert 0 <= s.catastrophes[0] <= 2
    assert s.cata.bit_count() == sum(2 - c for c in s.catastrophes)
    assert down_all.bit_count() == 4 * len(s.monuments)
