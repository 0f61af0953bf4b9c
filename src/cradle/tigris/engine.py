"""Where Tigris states come from: ``new_game`` and ``from_position`` on either engine.

``engine`` is "native" (the Rust core, ``cradle._native.TigrisState``, native/src/tigris) or
"python" (the reference, :class:`cradle.tigris.state.TigrisState`); None: the ``CRADLE_ENGINE``
variable, else native when it is built (:func:`cradle.core.native.choose`). Both engines give
the identical game for the same arguments (docs/engines.md). The arguments are checked, and
positions read and checked, here for both engines (same ``PositionError`` reasons, same seeded
shuffles); the native engine reads the checked position (as ``to_position()`` writes it)
itself. A new game with an int seed is dealt natively (CPython's Mersenne Twister,
reproduced); any other seed is dealt by the reference.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cradle.core import native
from cradle.core.positions import PositionError
from cradle.core.positions import bounded_int as _int
from cradle.core.positions import expect as _expect
from cradle.core.positions import expect_object as _object
from cradle.tigris.board import BOARDS, CELL_NAMES, NEIGHBOURS, SQUARE_MASK, cells_of, parse_cell
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
from cradle.tigris.position import to_position
from cradle.tigris.state import TigrisState
from cradle.tigris.types import (
    CATASTROPHES_PER_PLAYER,
    COLOR_BY_NAME,
    COLOURS,
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
    Options,
    options_from_dict,
)

if TYPE_CHECKING:
    from cradle._native import TigrisState as NativeTigrisState


def new_game(
    players: int = 2,
    seed: int | None = None,
    options: object = None,
    dynasties: Sequence[str] | None = None,
    engine: str | None = None,
) -> TigrisState | NativeTigrisState:
    """A new game: starting temples with treasures, a shuffled bag, six tiles per hand. The
    same seed deals the same game on both engines."""
    names, opts = _table(players, options, dynasties)
    if native.choose(engine) == "python":
        return _deal(names, opts, seed)
    if isinstance(seed, int) and abs(seed) < 2**128:
        # the native engine draws as random.Random(seed) does for integer seeds
        state: NativeTigrisState = native.extension().TigrisState.deal(list(names), opts, abs(seed))
        return state
    return native_copy(_deal(names, opts, seed))


def _table(
    players: int, options: object, dynasties: Sequence[str] | None
) -> tuple[tuple[str, ...], Options]:
    """The checked dynasties (seat order) and options of a new game.

    ``options``: Options, a JSON object of them, or None (the defaults)."""
    opts = options_from_dict(options)
    if isinstance(players, bool) or not isinstance(players, int):
        raise ValueError("players must be a number from 2 to 4")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"Tigris & Euphrates is for 2 to 4 players, not {players}")
    names = tuple(dynasties) if dynasties is not None else DYNASTIES[:players]
    if len(names) != players or len(set(names)) != players or not set(names) <= set(DYNASTIES):
        raise ValueError(
            f"dynasties must be {players} different names among {', '.join(DYNASTIES)}"
        )
    return names, opts


def _deal(names: tuple[str, ...], opts: Options, seed: int | None) -> TigrisState:
    """The reference's new game: the bag shuffled and the seat that starts drawn by
    ``random.Random(seed)``, then the hands drawn from the bag's end."""
    rng = random.Random(seed)
    start = BOARDS[opts.board].temples.bit_count()
    bag = [
        color
        for color in range(4)
        for _ in range(TILE_TOTALS[color] - (start if color == RED else 0))
    ]
    rng.shuffle(bag)
    s = TigrisState.blank(names, opts)
    s.up[RED] = s.treasure = s.board.temples
    s.bag = bag
    s.active = rng.randrange(len(names))
    for offset in range(len(names)):
        s._draw((s.active + offset) % len(names), HAND_SIZE)
    return s


def from_position(
    d: object, seed: int | None = None, engine: str | None = None
) -> TigrisState | NativeTigrisState:
    """The state described by ``d`` (see to_position); PositionError (a ValueError) if impossible.

    The reference reader checks the position for both engines; the native state is then built
    from the checked position.
    """
    chosen = native.choose(engine)
    s = read_position(d, seed)
    return native_copy(s) if chosen == "native" else s


def native_copy(s: TigrisState) -> NativeTigrisState:
    """The native state of a reference state: its position, read by the native engine."""
    state: NativeTigrisState = native.extension().TigrisState.from_checked_position(to_position(s))
    return state


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


def _reject_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise PositionError(f"{key!r} appears twice (two things on one cell?)")
        out[key] = value
    return out


def load_position_json(text: str) -> dict[str, object]:
    """Parse a position's JSON text, refusing repeated keys such as a cell given twice."""
    try:
        data = json.loads(text, object_pairs_hook=_reject_duplicates)
    except json.JSONDecodeError as exc:
        raise PositionError(f"not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict):
        raise PositionError("a position must be a JSON object")
    return data


def _color(name: object, what: str) -> int:
    if not isinstance(name, str) or name not in COLOR_BY_NAME:
        raise PositionError(f"{what}: {name!r} is not a colour")
    return COLOR_BY_NAME[name]


def _cell(name: object, what: str) -> int:
    if not isinstance(name, str):
        raise PositionError(f"{what}: a cell name is expected, not {name!r}")
    try:
        return parse_cell(name)
    except ValueError as exc:
        raise PositionError(f"{what}: {exc}") from None


def _per_player(d: dict[str, object], key: str, names: tuple[str, ...]) -> dict[str, object] | None:
    value = d.get(key)
    if value is None:
        return None
    found = _object(value, f"{key!r} must be an object keyed by dynasty")
    unknown = set(found) - set(names)
    _expect(not unknown, f"{key!r} names unknown dynasties: {', '.join(sorted(unknown))}")
    return dict(found)


def _tile_list(value: object, what: str) -> list[int]:
    if not isinstance(value, list):
        raise PositionError(f"{what} must be a list of colours")
    counts = [0, 0, 0, 0]
    for name in value:
        counts[_color(name, what)] += 1
    return counts


def read_position(d: object, seed: int | None = None) -> TigrisState:
    """The reference state ``d`` describes, once every check has passed; PositionError (a
    ValueError) with the reason otherwise."""
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
        square = SQUARE_MASK[top_left]
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
            entry = _object(points[dyn], f"points of {dyn} must be an object")
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
            f"too many {COLOURS[c]} tiles: {used} in play, the game has {TILE_TOTALS[c]}",
        )
        if bag_counts is None:
            s.bag += [c] * (TILE_TOTALS[c] - used)
        elif removed is None:
            s.removed[c] = TILE_TOTALS[c] - used
        else:
            _expect(used == TILE_TOTALS[c], f"{COLOURS[c]} tiles do not add up to {TILE_TOTALS[c]}")
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


def _read_pending(s: TigrisState, p: object) -> None:
    if p is None:
        return
    if not isinstance(p, dict) or p.get("kind") not in KINDS:
        raise PositionError(f"'pending': unknown {p!r}")
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
