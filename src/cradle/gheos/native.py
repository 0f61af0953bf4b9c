"""The engine behind ``gheos.new_game`` and ``gheos.from_position``: the native core
(``cradle._native.GheosState``, native/src/gheos) when it is built, else the Python reference.

Both engines play by the same rules with the same notation, ids, events, positions, views and
refusals (docs/engines.md). The reference stays the one reader of what comes from outside:
tile-set files are read and checked by :mod:`cradle.gheos.tiles` and handed over as
``GheosTiles``; positions are read by the reference's reader (same checks, same
``PositionError`` reasons, same seeded shuffles) and the state it makes is copied over. A new
game with an int seed is dealt natively (CPython's Mersenne Twister, reproduced, and checked
against :mod:`random` once per process); any other seed is dealt by the reference.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cradle.core import native as engines
from cradle.gheos import position as reference
from cradle.gheos.state import GheosState, Options
from cradle.gheos.tiles import SYMBOLS, TileSet, load_tiles

if TYPE_CHECKING:
    from cradle._native import GheosState as NativeState
    from cradle._native import GheosTiles

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
    """A new game (see :func:`cradle.gheos.position.new_game`) on ``engine`` ("native",
    "python"; None: the ``CRADLE_ENGINE`` variable, else native when built). The same seed
    deals the same game on both engines."""
    if engines.choose(engine) == "python":
        return reference.new_game(players, seed, options, dynasties)
    names = reference._names(players, dynasties)
    opts = reference.options_from_dict(options)
    tileset = load_tiles(opts.tiles)
    if seed is None:
        seed = int.from_bytes(os.urandom(8), "little")
    if not isinstance(seed, int) or not _deal_agrees():
        return from_reference(reference.new_game(players, seed, opts, names))
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
        python = reference.new_game(3, 2**40 + 7, Options(), names)
        _DEAL_AGREES.append(native.to_position() == python.to_position())
    return _DEAL_AGREES[0]


def from_position(
    data: Any, seed: int | None = None, engine: str | None = None
) -> GheosState | NativeState:
    """The state a position describes (see :func:`cradle.gheos.position.from_position`) on
    ``engine``; the reference reads and checks it either way."""
    native = engines.choose(engine) == "native"
    state = reference.from_position(data, seed)
    return from_reference(state) if native else state


def from_reference(state: GheosState) -> NativeState:
    """The native copy of a reference state (hands and stack in the same order)."""
    conflict = state.conflict
    pending = None
    if conflict is not None:
        pending = (
            conflict.cell,
            sorted(conflict.swords.items()),
            list(conflict.moved),
            [
                (colour, [state.area_list[a].regions[0] for a in options], split)
                for colour, options, split in conflict.migrations
            ],
            None
            if conflict.wars is None
            else [(list(fighters), list(leaders)) for fighters, leaders in conflict.wars],
        )
    copy: NativeState = engines.extension().GheosState.from_parts(
        native_tiles(state.tileset),
        state.tileset,
        state.options,
        list(state.names),
        state.active,
        state.phase,
        [(cell, number, rotation) for cell, (number, rotation) in state.board.items()],
        [list(hand) for hand in state.hands],
        list(state.stack),
        list(state.removed),
        list(state.civs.items()),
        [list(row) for row in state.held],
        list(state.supply),
        list(state.points),
        list(state.tokens),
        state.epochs,
        pending,
    )
    return copy


def restore(tileset: TileSet, options: Options, names: list[str], data: bytes) -> NativeState:
    """A native state from its pickle (``GheosState.__reduce__``)."""
    state: NativeState = engines.extension().GheosState.from_bytes(
        native_tiles(tileset), tileset, options, names, data
    )
    return state
