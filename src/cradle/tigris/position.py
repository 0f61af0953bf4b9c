"""Positions (full information, JSON) and views (what one seat may know)."""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, Any

from cradle.core import native
from cradle.core.contract import JSON
from cradle.core.positions import PositionError
from cradle.core.positions import bounded_int as _int
from cradle.core.positions import expect as _expect
from cradle.tigris.board import CELL_NAMES, NEIGHBOURS, cells_of, parse_cell
from cradle.tigris.decisions import (
    KINDS,
    BuildingChoice,
    Decision,
    MonumentChoice,
    Revolt,
    TreasureChoice,
    War,
    WarOrder,
    WonderPoint,
)
from cradle.tigris.rules import (
    CATASTROPHES_PER_PLAYER,
    COLOR_BY_NAME,
    COLORS,
    DYNASTIES,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MONUMENT_BY_COLORS,
    MONUMENTS,
    RED,
    ROLE_BY_NAME,
    ROLES,
    TILE_TOTALS,
    options_from_dict,
    options_to_dict,
)
from cradle.tigris.state import _SQUARE_MASK, TigrisState

if TYPE_CHECKING:
    from cradle._native import TigrisState as NativeTigrisState

_CELL_KEYS = ("placed", "unification")
_SEAT_KEYS = ("attacker", "defender", "seat")
# The fields of each kind of decision, in the order positions list them.
_FIELDS: dict[str, tuple[str, ...]] = {
    "revolt": ("color", "attacker", "defender", "attacker_commit"),
    "war": ("color", "attacker", "defender", "attacker_commit", "queue"),
    "war_order": ("colors",),
    "monument": (),
    "treasure": ("seat", "cells"),
    "building": (),
    "wonderpoint": (),
}


def _colors(counts: list[int]) -> list[str]:
    return [COLORS[c] for c in range(4) for _ in range(counts[c])]


def board_cells(s: TigrisState) -> dict[str, str]:
    out: dict[str, str] = {}
    wonder = s.wonder_mask()
    for cell in cells_of(s.occupied()):
        bit = 1 << cell
        star = "*" if s.treasure & bit else ""
        if s.cata & bit:
            value = "catastrophe"
        elif wonder & bit:
            value = "wonder" + star
        elif s.leaders & bit:
            index = s.leader_cell.index(cell)
            value = f"leader:{s.players[index // 4]}:{ROLES[index % 4]}"
        else:
            value = ""
            for color in range(4):
                if s.up[color] & bit:
                    value = COLORS[color] + star
                elif s.down[color] & bit:
                    value = f"down:{COLORS[color]}{star}"
        out[CELL_NAMES[cell]] = value
    return out


def _pending_json(s: TigrisState) -> JSON | None:
    p = s.pending
    if p is None:
        return None
    out: JSON = {"kind": p.kind}
    if isinstance(p, Revolt | War):
        out["color"] = COLORS[p.color]
        out["attacker"] = p.attacker
        out["defender"] = p.defender
        out["attacker_commit"] = p.attacker_commit
        if isinstance(p, War):
            out["queue"] = [COLORS[c] for c in p.queue]
    elif isinstance(p, WarOrder):
        out["colors"] = [COLORS[c] for c in p.colors]
    elif isinstance(p, TreasureChoice):
        out["seat"] = p.seat
        out["cells"] = [CELL_NAMES[c] for c in p.cells]
    out["placed"] = CELL_NAMES[s.placed] if s.placed >= 0 else None
    out["unification"] = CELL_NAMES[s.unification] if s.unification >= 0 else None
    return out


def to_position(s: TigrisState) -> dict[str, Any]:
    names = s.players
    return {
        "options": options_to_dict(s.options),
        "players": list(names),
        "active": s.active,
        "actions_left": s.actions_left,
        "board": board_cells(s),
        "monuments": [
            {"colors": [COLORS[c] for c in MONUMENTS[m]], "cell": CELL_NAMES[cell]}
            for m, cell in s.monuments
        ],
        "hands": {names[i]: _colors(s.hands[i]) for i in range(s.n)},
        "bag": [COLORS[c] for c in reversed(s.bag)],
        "points": {names[i]: dict(zip(COLORS, s.points[i], strict=True)) for i in range(s.n)},
        "treasures": {names[i]: s.treasures[i] for i in range(s.n)},
        "catastrophes": {names[i]: s.catastrophes[i] for i in range(s.n)},
        "buildings": {
            COLORS[c]: CELL_NAMES[cell] for c, cell in enumerate(s.buildings) if cell >= 0
        },
        "pending": _pending_json(s),
        "discards": {names[i]: _colors(s.discards[i]) for i in range(s.n)},
        "removed": dict(zip(COLORS, s.removed, strict=True)),
        "ending": s.ending,
        "over": s.over,
    }


def _public_pending(s: TigrisState) -> dict[str, Any] | None:
    out = _pending_json(s)
    if out is None:
        return None
    strengths = s.conflict_strengths()
    if strengths is not None:
        out["attacker_strength"], out["defender_strength"] = strengths
    return out


def make_view(s: TigrisState, seat: int | None) -> dict[str, Any]:
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
            {"colors": [COLORS[c] for c in MONUMENTS[m]], "cell": CELL_NAMES[cell]}
            for m, cell in s.monuments
        ],
        "unused_monuments": [
            [COLORS[c] for c in pair] for m, pair in enumerate(MONUMENTS) if m not in used
        ],
        "hand": _colors(s.hands[seat]) if seat is not None else None,
        "hand_sizes": {names[i]: sum(s.hands[i]) for i in range(s.n)},
        "bag_size": len(s.bag),
        "points": {names[i]: dict(zip(COLORS, s.points[i], strict=True)) for i in visible},
        "treasures": {names[i]: s.treasures[i] for i in range(s.n)},
        "catastrophes": {names[i]: s.catastrophes[i] for i in range(s.n)},
        "supply": {
            names[i]: [ROLES[c] for c in (3, 0, 1, 2) if s.leader_cell[4 * i + c] < 0]
            for i in range(s.n)
        },
        "buildings": {
            COLORS[c]: CELL_NAMES[cell] for c, cell in enumerate(s.buildings) if cell >= 0
        },
        "wonder": CELL_NAMES[s.wonder] if s.wonder >= 0 else None,
        "pending": _public_pending(s),
        "ending": s.ending,
        "is_over": s.over,
        "result": s.result() if s.over else None,
    }


# ------------------------------------------------------------------------- reading positions


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise PositionError(f"{key!r} appears twice (two things on one cell?)")
        out[key] = value
    return out


def load_position_json(text: str) -> dict[str, Any]:
    """Parse a position's JSON text, refusing repeated keys such as a cell given twice."""
    try:
        data = json.loads(text, object_pairs_hook=_reject_duplicates)
    except json.JSONDecodeError as exc:
        raise PositionError(f"not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict):
        raise PositionError("a position must be a JSON object")
    return data


def _color(name: Any, what: str) -> int:
    _expect(isinstance(name, str) and name in COLOR_BY_NAME, f"{what}: {name!r} is not a colour")
    return COLOR_BY_NAME[name]


def _cell(name: Any, what: str) -> int:
    _expect(isinstance(name, str), f"{what}: a cell name is expected, not {name!r}")
    try:
        return parse_cell(name)
    except ValueError as exc:
        raise PositionError(f"{what}: {exc}") from None


def _per_player(d: dict[str, Any], key: str, names: tuple[str, ...]) -> dict[str, Any] | None:
    value = d.get(key)
    if value is None:
        return None
    _expect(isinstance(value, dict), f"{key!r} must be an object keyed by dynasty")
    unknown = set(value) - set(names)
    _expect(not unknown, f"{key!r} names unknown dynasties: {', '.join(sorted(unknown))}")
    return dict(value)


def _tile_list(value: Any, what: str) -> list[int]:
    _expect(isinstance(value, list), f"{what} must be a list of colours")
    counts = [0, 0, 0, 0]
    for name in value:
        counts[_color(name, what)] += 1
    return counts


def from_position(
    d: object, seed: int | None = None, engine: str | None = None
) -> TigrisState | NativeTigrisState:
    """The state described by ``d`` (see to_position); PositionError (a ValueError) if impossible.

    ``engine`` is "native" or "python" (None: see :func:`cradle.core.native.choose`). This
    reader checks the position for both engines, so both refuse it with the same reason; the
    native state is then built from the checked position.
    """
    chosen = native.choose(engine)
    s = _read(d, seed)
    if chosen == "native":
        state: NativeTigrisState = native.extension().TigrisState._from_position(to_position(s))
        return state
    return s


def _read(d: object, seed: int | None) -> TigrisState:
    if not isinstance(d, dict):
        raise PositionError("a position must be a JSON object")
    known = {
        "options", "players", "active", "actions_left", "board", "monuments", "hands", "bag",
        "points", "treasures", "catastrophes", "buildings", "pending", "discards", "removed",
        "ending", "over",
    }  # fmt: skip
    unknown = set(d) - known
    _expect(not unknown, f"unknown key(s) in position: {', '.join(sorted(unknown))}")
    try:
        options = options_from_dict(d.get("options"))
    except (TypeError, ValueError) as exc:
        raise PositionError(f"options: {exc}") from None
    players = d.get("players")
    _expect(
        isinstance(players, list)
        and MIN_PLAYERS <= len(players) <= MAX_PLAYERS
        and all(isinstance(p, str) and p in DYNASTIES for p in players)
        and len(set(players)) == len(players),
        f"'players' must list 2 to 4 different dynasties among {', '.join(DYNASTIES)}",
    )
    assert isinstance(players, list)
    names = tuple(str(p) for p in players)
    s = TigrisState.blank(names, options)
    n = s.n
    s.active = _int(d.get("active", 0), "'active'", 0, n - 1)
    s.actions_left = _int(d.get("actions_left", 2), "'actions_left'", 0, 2)
    board = d.get("board")
    _expect(isinstance(board, dict), "'board' must be an object of cell: content")
    assert isinstance(board, dict)
    land = s.board.land
    wonder_cells: list[int] = []
    for name, value in board.items():
        cell = _cell(name, "board")
        bit = 1 << cell
        _expect(isinstance(value, str), f"board {name}: {value!r} is not a cell content")
        content = value.lower()
        star = content.endswith("*")
        if star:
            content = content[:-1]
            s.treasure |= bit
        if content == "catastrophe" and not star:
            s.cata |= bit
        elif content == "wonder":
            wonder_cells.append(cell)
        elif content.startswith("leader:") and not star:
            parts = content.split(":")
            _expect(
                len(parts) == 3 and parts[1] in names and parts[2] in ROLE_BY_NAME,
                f"board {name}: {value!r} is not a leader of a dynasty in play",
            )
            index = 4 * names.index(parts[1]) + ROLE_BY_NAME[parts[2]]
            _expect(
                s.leader_cell[index] < 0, f"board {name}: {parts[1]}'s {parts[2]} is on two cells"
            )
            _expect(bool(land & bit), f"board {name}: leaders may not stand on the river")
            s.leader_cell[index] = cell
            s.leaders |= bit
        elif content.startswith("down:"):
            color = _color(content[5:], f"board {name}")
            s.down[color] |= bit
        elif content in COLOR_BY_NAME:
            color = COLOR_BY_NAME[content]
            river = not land & bit
            _expect(
                not (color == 1 and not river),
                f"board {name}: a blue tile (farm) must be on a river cell",
            )
            _expect(not (color != 1 and river), f"board {name}: only blue tiles go on the river")
            s.up[color] |= bit
        else:
            raise PositionError(f"board {name}: {value!r} is not a cell content")
    if wonder_cells:
        _expect(options.wonder, "the board has a wonder but the wonder variant is off")
        plus = sum(1 << w for w in wonder_cells)
        centres = [c for c in wonder_cells if NEIGHBOURS[c] | 1 << c == plus]
        _expect(
            len(wonder_cells) == 5 and len(centres) == 1, "the wonder must cover a plus of 5 cells"
        )
        s.wonder = centres[0]
    treasure_ok = s.up[RED] | s.down[RED] | s.wonder_mask()
    _expect(
        not s.treasure & ~treasure_ok, "treasures lie only on temples (red tiles) or the wonder"
    )
    for cell in cells_of(s.leaders):
        _expect(
            bool(NEIGHBOURS[cell] & s.up[RED]),
            f"board {CELL_NAMES[cell]}: a leader must touch a face-up temple",
        )
    # monuments
    monuments = d.get("monuments") or []
    _expect(isinstance(monuments, list), "'monuments' must be a list")
    down_all = s.tiles_down()
    covered = 0
    for entry in monuments:
        _expect(
            isinstance(entry, dict) and "colors" in entry and "cell" in entry, "bad monument entry"
        )
        pair = entry["colors"]
        _expect(isinstance(pair, list) and len(pair) == 2, "a monument has two colours")
        key = frozenset(_color(c, "monument") for c in pair)
        _expect(key in MONUMENT_BY_COLORS, "a monument has two different colours")
        m = MONUMENT_BY_COLORS[key]
        _expect(
            all(m != other for other, _ in s.monuments), f"monument {'-'.join(pair)} listed twice"
        )
        top_left = _cell(entry["cell"], "monument")
        square = _SQUARE_MASK[top_left]
        _expect(bool(square), f"monument on {entry['cell']}: its square leaves the board")
        _expect(
            any(s.down[c] & square == square for c in MONUMENTS[m]),
            f"monument on {entry['cell']}: needs four face-down tiles of one of its colours",
        )
        _expect(not covered & square, f"monument on {entry['cell']}: overlaps another")
        covered |= square
        s.monuments.append((m, top_left))
    _expect(covered == down_all, "face-down tiles must lie exactly under the monuments")
    # hands, bag and the rest
    hands = _per_player(d, "hands", names)
    _expect(
        hands is not None and set(hands) == set(names), "'hands' must give every dynasty's hand"
    )
    assert hands is not None
    for i, dyn in enumerate(names):
        s.hands[i] = _tile_list(hands[dyn], f"hand of {dyn}")
        _expect(sum(s.hands[i]) <= HAND_SIZE, f"hand of {dyn}: more than {HAND_SIZE} tiles")
    discards = _per_player(d, "discards", names) or {}
    for i, dyn in enumerate(names):
        if dyn in discards:
            s.discards[i] = _tile_list(discards[dyn], f"discards of {dyn}")
    points = _per_player(d, "points", names) or {}
    for i, dyn in enumerate(names):
        if dyn in points:
            entry = points[dyn]
            _expect(isinstance(entry, dict), f"points of {dyn} must be an object")
            for color_name, value in entry.items():
                s.points[i][_color(color_name, f"points of {dyn}")] = _int(
                    value, f"points of {dyn}", 0, 10_000
                )
    treasures = _per_player(d, "treasures", names) or {}
    for i, dyn in enumerate(names):
        if dyn in treasures:
            s.treasures[i] = _int(treasures[dyn], f"treasures of {dyn}", 0, 14)
    catastrophes = _per_player(d, "catastrophes", names) or {}
    for i, dyn in enumerate(names):
        if dyn in catastrophes:
            s.catastrophes[i] = _int(
                catastrophes[dyn], f"catastrophes of {dyn}", 0, CATASTROPHES_PER_PLAYER
            )
    _expect(
        s.cata.bit_count() == sum(CATASTROPHES_PER_PLAYER - c for c in s.catastrophes),
        "the catastrophes on the board do not match those the players have used",
    )
    buildings = d.get("buildings") or {}
    _expect(isinstance(buildings, dict), "'buildings' must be an object colour: cell")
    _expect(not buildings or options.buildings, "buildings are on the board but the variant is off")
    for color_name, name in buildings.items():
        color = _color(color_name, "buildings")
        cell = _cell(name, "buildings")
        _expect(
            bool(s.up[color] >> cell & 1),
            f"the {color_name} building must stand on a face-up {color_name} tile",
        )
        s.buildings[color] = cell
    on_board = [
        (s.up[c] | s.down[c]).bit_count()
        + sum(h[c] for h in s.hands)
        + sum(x[c] for x in s.discards)
        for c in range(4)
    ]
    if "bag" in d and d["bag"] is not None:
        bag_counts = _tile_list(d["bag"], "bag")
        s.bag = [COLOR_BY_NAME[c] for c in reversed(d["bag"])]
    else:
        bag_counts = None
    removed = d.get("removed")
    if removed is not None:
        _expect(isinstance(removed, dict), "'removed' must be an object colour: count")
        for color_name, value in removed.items():
            s.removed[_color(color_name, "removed")] = _int(value, "removed", 0, 57)
    for c in range(4):
        used = on_board[c] + (bag_counts[c] if bag_counts else 0) + s.removed[c]
        _expect(
            used <= TILE_TOTALS[c],
            f"too many {COLORS[c]} tiles: {used} in play, the game has {TILE_TOTALS[c]}",
        )
        if bag_counts is None:
            s.bag += [c] * (TILE_TOTALS[c] - used)
        elif removed is None:
            s.removed[c] = TILE_TOTALS[c] - used
        else:
            _expect(used == TILE_TOTALS[c], f"{COLORS[c]} tiles do not add up to {TILE_TOTALS[c]}")
    if bag_counts is None:
        random.Random(seed).shuffle(s.bag)
    for flag in ("ending", "over"):
        _expect(isinstance(d.get(flag, False), bool), f"{flag!r} must be true or false")
    s.ending = bool(d.get("ending", False))
    s.over = bool(d.get("over", False))
    _read_pending(s, d.get("pending"))
    if s.pending is None and not s.over:
        for kingdom in s.kingdoms():
            for color in range(4):
                _expect(
                    s._war_pair(color, kingdom) is None,
                    f"a kingdom holds two {ROLES[color]}s with no conflict pending",
                )
    if s.pending is not None:
        p = s.pending
        if isinstance(p, MonumentChoice):
            _expect(
                bool(s._monument_options() or s._wonder_options()),
                "pending monument: the placed tile completes no square (or cross) to build on",
            )
        elif isinstance(p, BuildingChoice):
            _expect(bool(s._building_options()), "pending building: no line can take the building")
        elif isinstance(p, WonderPoint):
            king = s.leader_cell[4 * s.active + 3]
            _expect(
                s.wonder >= 0 and king >= 0 and bool(s.component_of(king) >> s.wonder & 1),
                "pending wonderpoint: the active player's king is not in the wonder's kingdom",
            )
    return s


def _read_pending(s: TigrisState, p: Any) -> None:
    if p is None:
        return
    _expect(isinstance(p, dict) and p.get("kind") in KINDS, f"'pending': unknown {p!r}")
    out: dict[str, Any] = {}
    for key, value in p.items():
        if key in _CELL_KEYS:
            cell = -1 if value is None else _cell(value, f"pending {key}")
            if key == "placed":
                s.placed = cell
            else:
                s.unification = cell
        elif key in _SEAT_KEYS:
            out[key] = _int(value, f"pending {key}", 0, s.n - 1)
        elif key == "color":
            out[key] = _color(value, "pending colour")
        elif key in ("colors", "queue"):
            _expect(isinstance(value, list), f"pending {key} must be a list of colours")
            out[key] = tuple(_color(c, f"pending {key}") for c in value)
        elif key == "cells":
            _expect(isinstance(value, list), "pending cells must be a list")
            out[key] = tuple(_cell(c, "pending cells") for c in value)
        elif key == "attacker_commit":
            out[key] = None if value is None else _int(value, "pending attacker_commit", 0, 6)
        elif key in ("kind", "attacker_strength", "defender_strength"):
            if key == "kind":
                out[key] = value
        else:
            raise PositionError(f"pending: unknown field {key!r}")
    kind: str = out.pop("kind")
    fields = _FIELDS[kind]
    missing = [key for key in fields if key not in out]
    _expect(not missing, f"pending {kind}: missing {', '.join(missing)}")
    extra = [key for key in out if key not in fields]
    _expect(not extra, f"pending {kind}: {', '.join(extra)} belong(s) to another decision")
    if kind in ("war", "war_order"):
        _expect(s.unification >= 0, f"pending {kind} needs the unification tile's cell")
    if kind in ("monument", "building"):
        _expect(s.placed >= 0, f"pending {kind} needs the placed tile's cell")
    if kind in ("revolt", "war"):
        # a conflict needs both leaders on the board, in one kingdom
        color, pair = out["color"], (out["attacker"], out["defender"])
        where = [s.leader_cell[4 * seat + color] for seat in pair]
        _expect(
            pair[0] != pair[1]
            and min(where) >= 0
            and bool(s.component_of(where[0]) >> where[1] & 1),
            f"pending {kind}: attacker and defender need {ROLES[color]}s in one kingdom",
        )
    if kind == "treasure":
        _expect(
            all(s.treasure >> cell & 1 for cell in out["cells"]),
            "pending treasure: a listed cell holds no treasure",
        )
        _expect(
            len(set(out["cells"])) == len(out["cells"]),
            "pending treasure: a cell is listed twice",
        )
    if kind == "war_order":
        # the wars to order are those the unification started and none has been fought yet
        colors = out["colors"]
        kingdom = s.component_of(s.unification)
        _expect(
            len(colors) >= 2 and len(set(colors)) == len(colors),
            "pending war_order: needs two or more different colours",
        )
        _expect(
            all(s._war_pair(color, kingdom) is not None for color in colors),
            "pending war_order: a listed colour has no war in the unified kingdom",
        )
    s.pending = _decision(kind, out)


def _decision(kind: str, fields: dict[str, Any]) -> Decision:
    if kind == "revolt":
        return Revolt(**fields)
    if kind == "war":
        return War(**fields)
    if kind == "war_order":
        return WarOrder(**fields)
    if kind == "treasure":
        return TreasureChoice(**fields)
    if kind == "monument":
        return MonumentChoice()
    if kind == "building":
        return BuildingChoice()
    return WonderPoint()
