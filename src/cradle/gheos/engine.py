"""Where Gheos states come from: ``new_game`` and ``from_position`` on either engine.

``engine`` is "native" (the Rust core, ``cradle._native.GheosState``, native/src/gheos) or
"python" (the reference, :class:`cradle.gheos.state.GheosState`); None: the ``CRADLE_ENGINE``
variable, else native when it is built (:func:`cradle.core.native.choose`). Both engines play by
the same rules with the same notation, ids, events, positions, views and refusals
(docs/engines.md). The reference stays the one reader of what comes from outside: tile-set
files are read and checked by :mod:`cradle.gheos.tiles` and handed over as ``GheosTiles``;
positions are read and checked here (same ``PositionError`` reasons, same seeded shuffles), and
the native engine reads the checked position (as ``to_position()`` writes it) itself. A new
game with an int seed is dealt natively (CPython's Mersenne Twister, reproduced, and checked
against :mod:`random` once per process); any other seed is dealt by the reference.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from cradle.core import native as engines
from cradle.core.positions import PositionError
from cradle.core.positions import bounded_int as _int
from cradle.core.positions import expect as _expect
from cradle.core.positions import expect_object as _object
from cradle.gheos.areas import compute_areas
from cradle.gheos.geometry import CELL_NAME, NEIGHBOURS, START_CELL, parse_cell, parse_edge
from cradle.gheos.position import to_position
from cradle.gheos.state import GheosState
from cradle.gheos.tiles import START_TILE, SYMBOLS, TILE_COUNT, TileSet, load_tiles
from cradle.gheos.types import (
    COLOURS,
    CONFLICT_PHASES,
    DEFAULT_NAMES,
    END_EPOCH,
    EPOCH,
    EPOCH_TILES,
    FOLLOWERS_PER_COLOUR,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PHASES,
    TOKENS,
    Conflict,
    Options,
    options_from_dict,
)

if TYPE_CHECKING:
    from cradle._native import GheosState as NativeState
    from cradle._native import GheosTiles

POSITION_KEYS = {
    "options",
    "players",
    "active",
    "phase",
    "board",
    "hands",
    "stack",
    "removed",
    "civilizations",
    "followers",
    "points",
    "tokens",
    "epochs",
    "pending",
}


# TileSet id -> (the TileSet, kept alive so the id stays its own; its native copy)
_TILES: dict[int, tuple[TileSet, GheosTiles]] = {}
# Whether the native deal gives what random.Random gives (checked once per process).
_DEAL_AGREES: list[bool] = []


def native_tiles(tileset: TileSet) -> GheosTiles:
    """The native engine's copy of a (checked) tile set, made once per set."""
    found = _TILES.get(id(tileset))
    if found is None or found[0] is not tileset:
        rows = [
            (
                [
                    (
                        list(region.edges),
                        region.wheat,
                        region.cup,
                        region.sword,
                        region.pyramid,
                        -1 if region.temple is None else SYMBOLS.index(region.temple),
                    )
                    for region in tile.regions
                ],
                [list(layout) for layout in tile.edge_region],
                list(tile.rotations),
                tile.text(),
                tile.shape,
            )
            for tile in tileset.tiles
        ]
        found = (tileset, engines.extension().GheosTiles(rows))
        _TILES[id(tileset)] = found
    return found[1]


def new_game(
    players: int = 2,
    seed: int | None = None,
    options: object = None,
    dynasties: Sequence[str] | None = None,
    engine: str | None = None,
) -> GheosState | NativeState:
    """A new game: the start tile on 0,0, two tiles in each hand, a random first player.

    ``options``: Options, a JSON object of them, or None (the defaults); ``dynasties``: the
    players' names (default: north, east, south, west). The same seed deals the same game on
    both engines."""
    names = _names(players, dynasties)
    opts = options_from_dict(options)
    tileset = load_tiles(opts.tiles)
    if engines.choose(engine) == "python":
        return _deal(tileset, opts, names, seed)
    if seed is None:
        seed = int.from_bytes(os.urandom(8), "little")
    if not isinstance(seed, int) or not _deal_agrees():
        return native_copy(_deal(tileset, opts, names, seed))
    state: NativeState = engines.extension().GheosState.deal(
        native_tiles(tileset), tileset, opts, list(names), seed_key(seed)
    )
    return state


def seed_key(seed: int) -> list[int]:
    """``abs(seed)`` in 32-bit words, least significant first: how CPython seeds its
    Mersenne Twister with an int."""
    n = abs(seed)
    words = [n & 0xFFFFFFFF]
    n >>= 32
    while n:
        words.append(n & 0xFFFFFFFF)
        n >>= 32
    return words


def _deal_agrees() -> bool:
    if not _DEAL_AGREES:
        tileset = load_tiles(None)
        names = ["a", "b", "c"]
        native = engines.extension().GheosState.deal(
            native_tiles(tileset), tileset, Options(), names, seed_key(2**40 + 7)
        )
        python = _deal(tileset, Options(), tuple(names), 2**40 + 7)
        _DEAL_AGREES.append(native.to_position() == python.to_position())
    return _DEAL_AGREES[0]


def from_position(
    data: object, seed: int | None = None, engine: str | None = None
) -> GheosState | NativeState:
    """The state a position describes on ``engine``; PositionError (a ValueError) says what is
    wrong. The reference reads and checks it for both engines."""
    native = engines.choose(engine) == "native"
    state = read_position(data, seed)
    return native_copy(state) if native else state


def native_copy(state: GheosState) -> NativeState:
    """The native state of a reference state: its position, read by the native engine."""
    copy: NativeState = engines.extension().GheosState.from_checked_position(
        native_tiles(state.tileset), state.tileset, state.options, to_position(state)
    )
    return copy


def restore(tileset: TileSet, options: Options, names: list[str], data: bytes) -> NativeState:
    """A native state from its pickle (``GheosState.__reduce__``)."""
    state: NativeState = engines.extension().GheosState.from_bytes(
        native_tiles(tileset), tileset, options, names, data
    )
    return state


def _names(players: int, dynasties: Sequence[str] | None) -> tuple[str, ...]:
    if isinstance(players, bool) or not isinstance(players, int):
        raise ValueError(f"the number of players must be an integer, not {players!r}")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"Gheos is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
    if dynasties is None:
        return DEFAULT_NAMES[:players]
    names = tuple(dynasties)
    if len(names) != players:
        raise ValueError(f"{players} players need {players} names, got {len(names)}")
    _check_names(names)
    return names


def _check_names(names: tuple[object, ...]) -> None:
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"a player's name must be a non-empty string, not {name!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"player names must differ, got {list(names)}")


def _set_board(state: GheosState, board: dict[int, tuple[int, int]]) -> None:
    state.board = board
    state.frontier = {
        other for cell in board for other in NEIGHBOURS[cell] if other >= 0 and other not in board
    }
    state.area_of, state.area_list = compute_areas(board, state.tiles)
    state._occupied = None
    state._legal = state._legal_ids = None


def _deal(tileset: TileSet, opts: Options, names: tuple[str, ...], seed: int | None) -> GheosState:
    """The reference's new game: what ``random.Random(seed)`` deals."""
    players = len(names)
    rng = random.Random(seed)
    state = GheosState(tileset, opts, names)
    landscape = [n for n in range(TILE_COUNT) if n != START_TILE]
    rng.shuffle(landscape)
    # Hands are dealt from the landscape tiles alone, which is what putting back an epoch
    # drawn during set-up and drawing again amounts to; then the epochs join the stack.
    for seat in range(players):
        state.hands[seat] = sorted(landscape[seat * HAND_SIZE : (seat + 1) * HAND_SIZE])
    stack = landscape[players * HAND_SIZE :] + [EPOCH] * EPOCH_TILES
    rng.shuffle(stack)
    state.stack = stack
    state.active = rng.randrange(players)
    _set_board(state, {START_CELL: (START_TILE, 0)})
    return state


_TILE_NUMBERS = {f"t{n}": n for n in range(TILE_COUNT)}


def _tile_number(text: object, what: str) -> int:
    # The message is only built for a bad tile: positions are read often (search, adapters).
    if isinstance(text, str) and text.startswith("t") and text[1:].isdigit():
        number = int(text[1:])
        if number < TILE_COUNT:
            return number
    raise PositionError(f"{what}: {text!r} is not a tile (t0 to t{TILE_COUNT - 1})")


def _colour(text: object, what: str) -> int:
    _expect(text in COLOURS, f"{what}: {text!r} is not a colour ({', '.join(COLOURS)})")
    return COLOURS.index(text)


def _per_player(
    data: dict[str, object], key: str, names: tuple[str, ...]
) -> dict[str, object] | None:
    value = data.get(key)
    if value is None:
        return None
    found = _object(value, f"'{key}' must be an object keyed by player name")
    unknown = sorted(set(found) - set(names))
    _expect(not unknown, f"'{key}' names unknown players: {', '.join(map(str, unknown))}")
    return found


def read_position(data: object, seed: int | None = None) -> GheosState:
    """The reference state a position describes, once every check has passed; PositionError (a
    ValueError) with the reason otherwise."""
    if not isinstance(data, dict):
        raise PositionError("a position must be a JSON object")
    unknown = sorted(set(data) - POSITION_KEYS)
    _expect(not unknown, f"unknown position key(s): {', '.join(map(str, unknown))}")
    try:
        options = options_from_dict(data.get("options"))
        tileset = load_tiles(options.tiles)
    except ValueError as exc:
        raise PositionError(f"options: {exc}") from None
    players = data.get("players")
    _expect(
        isinstance(players, list) and MIN_PLAYERS <= len(players) <= MAX_PLAYERS,
        f"'players' must list {MIN_PLAYERS} to {MAX_PLAYERS} names",
    )
    assert isinstance(players, list)
    names = tuple(players)
    try:
        _check_names(names)
    except ValueError as exc:
        raise PositionError(str(exc)) from None
    count = len(names)
    state = GheosState(tileset, options, names)
    state.active = _int(data.get("active", 0), "'active'", 0, count - 1)
    phase = data.get("phase", "tile")
    _expect(phase in PHASES, f"'phase' must be one of {', '.join(PHASES)}, not {phase!r}")
    state.phase = phase

    where: dict[int, str] = {}  # tile number -> where it is, to catch duplicates

    def claim(number: int, place: str) -> None:
        if number in where:
            raise PositionError(f"t{number} is both {where[number]} and {place}")
        where[number] = place

    board = _read_board(data.get("board"), claim)
    _set_board(state, board)

    hands = _per_player(data, "hands", names)
    if hands is not None:
        for seat, name in enumerate(names):
            hand = hands.get(name, [])
            if not isinstance(hand, list) or len(hand) > HAND_SIZE:
                raise PositionError(
                    f"the hand of {name} must be a list of at most {HAND_SIZE} tiles"
                )
            for text in hand:
                number = _tile_number(text, f"hand of {name}")
                claim(number, f"in the hand of {name}")
                state.hands[seat].append(number)
    removed = data.get("removed", [])
    _expect(isinstance(removed, list), "'removed' must be a list of tiles")
    for text in removed:
        number = _tile_number(text, "removed")
        _expect(number != START_TILE, "the start tile (t0) cannot have been removed")
        claim(number, "removed")
        state.removed.append(number)

    state.epochs = _int(data.get("epochs", 0), "'epochs'", 0, END_EPOCH[count])
    if phase != "over":
        _expect(
            state.epochs < END_EPOCH[count],
            f"epoch tile {state.epochs} ends a {count}-player game: the phase must be 'over'",
        )
    epochs_left = EPOCH_TILES - state.epochs
    stack = data.get("stack")
    if stack is None:
        rng = random.Random(seed)
        rest = [n for n in range(TILE_COUNT) if n not in where]
        rng.shuffle(rest)
        if hands is None:
            for seat in range(count):
                state.hands[seat] = sorted(rest[:HAND_SIZE])
                del rest[:HAND_SIZE]
        pile = rest + [EPOCH] * epochs_left
        rng.shuffle(pile)
        state.stack = pile
    else:
        _expect(isinstance(stack, list), "'stack' must be a list of tiles and 'epoch'")
        pile = []
        known = _TILE_NUMBERS
        for text in stack:
            if text == "epoch":
                pile.append(EPOCH)
                continue
            # The canonical names by table lookup (a stack is most of the tiles); anything
            # else through the checking reader.
            found = known.get(text) if isinstance(text, str) else None
            number = _tile_number(text, "stack") if found is None else found
            if number in where:
                claim(number, "in the stack")  # says where else it is
            where[number] = "in the stack"
            pile.append(number)
        found = pile.count(EPOCH)
        _expect(
            found == epochs_left,
            f"the stack must hold the {epochs_left} epoch tiles not drawn yet, it has {found}",
        )
        missing = [f"t{n}" for n in range(TILE_COUNT) if n not in where]
        _expect(
            not missing,
            f"tiles missing from the position (not on the board, in a hand, in the stack or "
            f"removed): {', '.join(missing[:8])}{' ...' if len(missing) > 8 else ''}",
        )
        pile.reverse()  # the state draws from the end
        state.stack = pile
    for hand in state.hands:
        hand.sort()

    _read_civs(state, data)
    _read_scores(state, data)
    _read_pending(state, data.get("pending"))
    _check_phase(state)
    return state


def _read_board(value: object, claim: Callable[[int, str], None]) -> dict[int, tuple[int, int]]:
    if value is None:
        value = {CELL_NAME[START_CELL]: f"t{START_TILE} r0"}
    if not isinstance(value, dict):
        raise PositionError("'board' must be an object: cell -> 't<n> r<k>'")
    board: dict[int, tuple[int, int]] = {}
    for name, text in value.items():
        try:
            cell = parse_cell(str(name))
        except ValueError as exc:
            raise PositionError(f"board: {exc}") from None
        _expect(cell not in board, f"board: cell {name} is given twice")
        parts = text.split() if isinstance(text, str) else []
        _expect(
            len(parts) == 2 and parts[1] in ("r0", "r1", "r2"),
            f"board: {name} must hold 't<n> r<k>' (e.g. 't12 r0'), not {text!r}",
        )
        number = _tile_number(parts[0], f"board {name}")
        claim(number, f"on {CELL_NAME[cell]}")
        board[cell] = (number, int(parts[1][1]))
    _expect(
        board.get(START_CELL, (None,))[0] == START_TILE,
        "the start tile t0 must be on 0,0 (it cannot be replaced, so it never leaves)",
    )
    # The table grows edge to edge from the start tile, so it is all one piece.
    reached = {START_CELL}
    todo = [START_CELL]
    while todo:
        cell = todo.pop()
        for other in NEIGHBOURS[cell]:
            if other in board and other not in reached:
                reached.add(other)
                todo.append(other)
    apart = sorted(CELL_NAME[c] for c in board if c not in reached)
    _expect(not apart, f"board: tiles not joined to the start tile by edges: {', '.join(apart)}")
    return board


def _region(state: GheosState, text: object, what: str) -> int:
    _expect(isinstance(text, str) and ":" in text, f"{what}: write a region as 'cell:edge'")
    cell_text, _, edge_text = str(text).partition(":")
    try:
        cell = parse_cell(cell_text)
        _expect(cell in state.board, f"{what}: there is no tile on {cell_text}")
        edge = parse_edge(cell, edge_text)
    except PositionError:
        raise
    except ValueError as exc:
        raise PositionError(f"{what}: {exc}") from None
    number, rotation = state.board[cell]
    node: int = cell * 3 + state.tiles[number].edge_region[rotation][edge]
    return node


def _read_civs(state: GheosState, data: dict[str, object]) -> None:
    civs = _object(
        data.get("civilizations", {}), "'civilizations' must be an object: colour -> region"
    )
    taken: dict[int, str] = {}
    for name, text in civs.items():
        colour = _colour(name, "civilizations")
        node = _region(state, text, f"the {name} civilization")
        area = state.area_list[state.area_of[node]]
        state.civs[colour] = node
        if state.phase in CONFLICT_PHASES:
            continue  # while a war or migration is resolved, markers may still share land
        _expect(area.continent, f"the {name} civilization at {text} is not on a continent")
        _expect(
            area.index not in taken,
            f"the {name} and {taken.get(area.index)} civilizations share a continent",
        )
        taken[area.index] = name
    state._occupied = None


def _read_scores(state: GheosState, data: dict[str, object]) -> None:
    names = state.names
    followers = _per_player(data, "followers", names) or {}
    for seat, name in enumerate(names):
        row = _object(
            followers.get(name, {}), f"the followers of {name} must be an object: colour -> n"
        )
        for colour_name, n in row.items():
            colour = _colour(colour_name, f"followers of {name}")
            state.held[seat][colour] = _int(
                n, f"{name}'s {colour_name} followers", 0, FOLLOWERS_PER_COLOUR
            )
    for colour, name in enumerate(COLOURS):
        total = sum(row[colour] for row in state.held)
        _expect(
            total <= FOLLOWERS_PER_COLOUR,
            f"players hold {total} {name} followers; there are {FOLLOWERS_PER_COLOUR}",
        )
        _expect(
            total == 0 or colour in state.civs,
            f"players hold {name} followers but the {name} civilization is not on the table",
        )
        state.supply[colour] = FOLLOWERS_PER_COLOUR - total
    points = _per_player(data, "points", names) or {}
    tokens = _per_player(data, "tokens", names) or {}
    for seat, name in enumerate(names):
        state.points[seat] = _int(points.get(name, 0), f"{name}'s points", 0, 10**6)
        state.tokens[seat] = _int(tokens.get(name, TOKENS), f"{name}'s tokens", 0, TOKENS)
    if state.phase != "over":
        _expect(any(state.tokens), "every scoring token is used: the phase must be 'over'")


def _read_pending(state: GheosState, value: object) -> None:
    phase = state.phase
    if phase not in CONFLICT_PHASES:
        _expect(value is None, f"'pending' must be null in the {phase} phase")
        return
    if not isinstance(value, dict):
        raise PositionError(f"the {phase} phase needs its 'pending' conflict")
    _expect(value.get("kind") == phase, f"the pending kind must be {phase!r} like the phase")
    try:
        cell = parse_cell(str(value.get("cell")))
    except ValueError as exc:
        raise PositionError(f"pending cell: {exc}") from None
    _expect(cell in state.board, "pending: the cell must hold the tile just played")
    swords = value.get("swords", {})
    _expect(isinstance(swords, dict), "pending 'swords' must be an object: colour -> n")
    conflict = Conflict(
        cell, {_colour(k, "pending swords"): _int(n, "swords", 0, 999) for k, n in swords.items()}
    )
    conflict.moved = [_colour(c, "pending moved") for c in value.get("moved", [])]
    for entry in value.get("migrations", []):
        _expect(isinstance(entry, dict), "each pending migration is an object")
        colour = _colour(entry.get("civ"), "pending migration")
        _expect(
            colour in state.civs,
            f"the migrating {COLOURS[colour]} civilization is not on the table",
        )
        options = entry.get("options")
        _expect(isinstance(options, list) and bool(options), "a pending migration needs options")
        areas = [state.area_of[_region(state, ref, "migration option")] for ref in options]
        split = entry.get("split", True)
        _expect(isinstance(split, bool), "a migration's 'split' is true or false")
        conflict.migrations.append((colour, areas, split))
    wars = value.get("wars")
    if wars is not None:
        _expect(isinstance(wars, list), "pending 'wars' must be a list or null")
        conflict.wars = []
        for entry in wars:
            _expect(isinstance(entry, dict), "each pending war is an object")
            fighters = [_colour(c, "war civs") for c in entry.get("civs", [])]
            leaders = [_colour(c, "war options") for c in entry.get("options", [])]
            _expect(
                len(fighters) >= 2 and all(c in state.civs for c in fighters),
                "a pending war needs two or more civilizations on the table",
            )
            _expect(
                bool(leaders) and set(leaders) <= set(fighters),
                "a war's options must be some of its civilizations",
            )
            # resolving a war removes its losers: each civilization fights once, in one area
            _expect(
                len(set(fighters)) == len(fighters) and len(set(leaders)) == len(leaders),
                "a pending war lists a civilization twice",
            )
            _expect(
                not any(set(fighters) & set(other) for other, _ in conflict.wars),
                "a civilization is in two pending wars",
            )
            _expect(
                len({state.area_of[state.civs[c]] for c in fighters}) == 1,
                "a pending war's civilizations must share an area",
            )
            conflict.wars.append((fighters, leaders))
    if phase == "pay":
        _expect(any(state.held[state.active]), "the paying player must hold a follower")
        _expect(conflict.wars is None, "wars are found after the payment and migrations")
    elif phase == "migrate":
        _expect(
            bool(conflict.migrations) and len(conflict.migrations[0][1]) >= 2,
            "the migrate phase needs a migration with at least two options first",
        )
        _expect(conflict.wars is None, "wars are found after the migrations")
    else:
        _expect(
            not conflict.migrations
            and conflict.wars is not None
            and bool(conflict.wars)
            and len(conflict.wars[0][1]) >= 2,
            "the war phase needs a tied war first, with no migration left",
        )
    state.conflict = conflict


def _check_phase(state: GheosState) -> None:
    hand = state.hands[state.active]
    if state.phase == "tile":
        _expect(bool(hand), f"{state.names[state.active]} must hold a tile to play")
    # The engine skips a step with nothing to decide, so a position never stops at one.
    if state.phase == "civ":
        _expect(
            bool(state._civ_actions()),
            f"{state.names[state.active]} can neither start a civilization nor take a follower: "
            "not the civ phase",
        )
    if state.phase == "token":
        _expect(
            state.tokens[state.active] > 0,
            f"{state.names[state.active]} has no scoring token: not the token phase",
        )
