"""What one seat (or a spectator) may know of a game: its view, as JSON (docs/tigris.md), and
what it learns of another seat's action (``public_action``). The game decides its secrets here;
the server, the environments and the bots ask it."""

from __future__ import annotations

from typing import cast

from cradle.core.contract import View, view_of
from cradle.core.hidden import redacted
from cradle.tigris.board import CELL_NAMES
from cradle.tigris.position import Written, board_cells, colors_of, pending_json
from cradle.tigris.types import (
    COLOURS,
    MONUMENTS,
    ROLES,
    TigrisPending,
    TigrisView,
    options_to_dict,
)

# The kinds of action (first word) every seat sees whole: all but a swap, whose tiles are
# secret (others learn only how many). A kind not listed here stays hidden (default deny).
PUBLIC_KINDS = frozenset(
    {
        "leader",
        "withdraw",
        "tile",
        "catastrophe",
        "pass",
        "commit",
        "war",
        "monument",
        "treasure",
        "building",
        "wonder",
        "wonderpoint",
        "decline",
    }
)
# The view's public counts of the hidden tiles: when one changes, a tile was drawn.
DRAW_COUNTERS = ("bag_size",)


def as_tigris_view(view: View) -> TigrisView:
    """``view`` (a state's ``view(seat)``) typed as a Tigris view, for code that handles
    any game; TypeError for another game's view."""
    return cast(TigrisView, view_of(view, "tigris", "Tigris"))


def public_action(action: str, mover: int | None, viewer: int | None) -> str:
    """What ``viewer`` (None: a spectator) may know of ``action``, made by seat ``mover``:
    others learn how many tiles a swap discards, never which (``swap 2``)."""
    return redacted(action, mover, viewer, PUBLIC_KINDS)


def _public_pending(s: Written) -> TigrisPending | None:
    out = pending_json(s)
    if out is None:
        return None
    strengths = s.conflict_strengths()
    if strengths is not None:
        out["attacker_strength"], out["defender_strength"] = strengths
    return out


def view(s: Written, seat: int | None) -> TigrisView:
    """All that ``seat`` may know (``None``: a spectator, public information only)."""
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < s.n):
        raise ValueError(f"seat must be 0..{s.n - 1} or None")
    names = s.players
    everyone = s.options.open_scoring or s.over
    visible = range(s.n) if everyone else ([seat] if seat is not None else [])
    used = {m for m, _ in s.monuments}
    return {
        "game": "tigris",
        "seat": seat,
        "options": options_to_dict(s.options),
        "players": list(names),
        "active": s.active,
        "to_move": s.to_move,
        "actions_left": s.actions_left,
        "board": board_cells(s),
        "unification": CELL_NAMES[s.unification] if s.unification >= 0 else None,
        "monuments": [
            {"colors": [COLOURS[c] for c in MONUMENTS[m]], "cell": CELL_NAMES[cell]}
            for m, cell in s.monuments
        ],
        "unused_monuments": [
            [COLOURS[c] for c in pair] for m, pair in enumerate(MONUMENTS) if m not in used
        ],
        "hand": colors_of(s.hands[seat]) if seat is not None else None,
        "hand_sizes": {names[i]: sum(s.hands[i]) for i in range(s.n)},
        "bag_size": len(s.bag),
        "points": {names[i]: dict(zip(COLOURS, s.points[i], strict=True)) for i in visible},
        "treasures": {names[i]: s.treasures[i] for i in range(s.n)},
        "catastrophes": {names[i]: s.catastrophes[i] for i in range(s.n)},
        "supply": {
            names[i]: [ROLES[c] for c in (3, 0, 1, 2) if s.leader_cell[4 * i + c] < 0]
            for i in range(s.n)
        },
        "buildings": {
            COLOURS[c]: CELL_NAMES[cell] for c, cell in enumerate(s.buildings) if cell >= 0
        },
        "wonder": CELL_NAMES[s.wonder] if s.wonder >= 0 else None,
        "pending": _public_pending(s),
        "ending": s.ending,
        "is_over": s.over,
        "result": s.result() if s.over else None,
    }
