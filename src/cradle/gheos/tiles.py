"""Landscape tiles: their regions and what sits on them, and the tile-set file they come from.

The published distribution of Gheos's 52 landscape tiles is not available, so the packaged
``data/tiles.txt`` is this project's own reconstruction (see docs/gheos.md), the set named
``"standard"``. The game option ``tiles`` names a packaged set, or carries a set of one's own as
its text in the format below (at most ``MAX_TILESET_CHARS`` characters); never a file name, so
that options arriving over the network can name no file on the machine. A custom set is checked
against the rules spec's constraints and rejected with the line and the reason when it breaks
one.

File format: one tile per line, ``#`` starts a comment. A line is the tile's number (0-51; 0 is
the start tile) followed by its regions. A region is the tile's own edges it touches (digits
0, 1, 2 in clockwise order, 0 being the edge that lies horizontal at rotation r0), optionally
followed by ``:`` and comma-separated items: ``wheat``, ``cup``, ``sword``, ``pyramid``,
``temple-wheat``, ``temple-cup``, ``temple-sword``. Example: ``7  01:wheat,cup  2:pyramid``.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field
from importlib import resources
from typing import TypedDict

TILE_COUNT = 52
START_TILE = 0
SYMBOLS = ("wheat", "cup", "sword")
ITEMS = (*SYMBOLS, "pyramid", "temple-wheat", "temple-cup", "temple-sword")
SHAPES = ("landmass", "landmass+coast", "three coasts")
# The sets shipped with the package, by the name the ``tiles`` option gives them.
PACKAGED_SETS = {"standard": "tiles.txt"}
MAX_TILESET_CHARS = 8192  # a custom set's text; the packaged one is under 3,000
CUSTOM_CACHE = 32  # custom sets kept parsed (they come with every game that uses them)


class TileSetError(ValueError):
    """A tile set that is unknown, too long, or breaks the spec's constraints."""


class TileRegion(TypedDict):
    """A region of a tile on the tile's own edges 0, 1, 2 (``Region.to_dict``)."""

    edges: list[int]
    landmass: bool
    wheat: int
    cup: int
    sword: int
    pyramid: int
    temple: str | None  # its temple's symbol kind, if it has one


@dataclass(frozen=True)
class Region:
    """A piece of land on a tile: a landmass (2-3 edges) or a coast (1 edge)."""

    edges: tuple[int, ...]
    wheat: int = 0
    cup: int = 0
    sword: int = 0
    pyramid: int = 0
    temple: str | None = None  # the symbol kind of its temple, if it has one

    @property
    def landmass(self) -> bool:
        return len(self.edges) >= 2

    def items(self) -> list[str]:
        out = ["wheat"] * self.wheat + ["cup"] * self.cup + ["sword"] * self.sword
        out += ["pyramid"] * self.pyramid
        if self.temple is not None:
            out.append(f"temple-{self.temple}")
        return out

    def to_dict(self) -> TileRegion:
        return {
            "edges": list(self.edges),
            "landmass": self.landmass,
            "wheat": self.wheat,
            "cup": self.cup,
            "sword": self.sword,
            "pyramid": self.pyramid,
            "temple": self.temple,
        }


@dataclass(frozen=True)
class Tile:
    number: int
    regions: tuple[Region, ...]
    # Per rotation r: region index lying on cell edge 0, 1, 2.
    edge_region: tuple[tuple[int, int, int], ...] = field(compare=False)
    # The rotations that give different tiles on the table (a plain landmass has one).
    rotations: tuple[int, ...] = field(compare=False)
    # Per region: the index in SYMBOLS of its temple's kind, -1 for none.
    temple_kinds: tuple[int, ...] = field(compare=False, default=())

    @property
    def pyramid(self) -> bool:
        return any(region.pyramid for region in self.regions)

    @property
    def shape(self) -> str:
        sizes = sorted(len(region.edges) for region in self.regions)
        return {(3,): SHAPES[0], (1, 2): SHAPES[1], (1, 1, 1): SHAPES[2]}[tuple(sizes)]

    @property
    def name(self) -> str:
        return f"t{self.number}"

    def symbols(self) -> int:
        return sum(r.wheat + r.cup + r.sword for r in self.regions)

    def text(self) -> str:
        """The tile as a line of the tile-set file (without its number)."""
        parts = []
        for region in self.regions:
            edges = "".join(str(e) for e in region.edges)
            items = region.items()
            parts.append(edges + (":" + ",".join(items) if items else ""))
        return "  ".join(parts)

    def to_dict(self) -> dict[str, object]:
        return {"tile": self.name, "regions": [region.to_dict() for region in self.regions]}


def make_tile(number: int, regions: tuple[Region, ...]) -> Tile:
    """A tile with its rotation tables worked out."""
    edge_region: list[tuple[int, int, int]] = []
    for rotation in range(3):
        on_edge = [0, 0, 0]
        for index, region in enumerate(regions):
            for local in region.edges:
                on_edge[(local + rotation) % 3] = index
        edge_region.append((on_edge[0], on_edge[1], on_edge[2]))
    seen: set[tuple[object, ...]] = set()
    rotations: list[int] = []
    for rotation in range(3):
        key = _layout(regions, edge_region[rotation])
        if key not in seen:
            seen.add(key)
            rotations.append(rotation)
    kinds = tuple(-1 if r.temple is None else SYMBOLS.index(r.temple) for r in regions)
    return Tile(number, regions, tuple(edge_region), tuple(rotations), kinds)


def _layout(regions: tuple[Region, ...], on_edge: tuple[int, int, int]) -> tuple[object, ...]:
    """What the table sees on cell edges 0, 1, 2: which edges belong together and the contents."""
    return tuple(
        (
            tuple(e for e in range(3) if on_edge[e] == on_edge[edge]),
            _content(regions[on_edge[edge]]),
        )
        for edge in range(3)
    )


def _content(region: Region) -> tuple[object, ...]:
    return (region.wheat, region.cup, region.sword, region.pyramid, region.temple)


def canonical(tile: Tile) -> tuple[object, ...]:
    """A key equal for two tiles exactly when one is a rotation of the other."""
    layouts = [_layout(tile.regions, tile.edge_region[r]) for r in range(3)]
    return min(layouts, key=repr)


@dataclass(frozen=True)
class TileSet:
    tiles: tuple[Tile, ...]
    source: str  # where the set came from, for messages: "packaged tiles.txt" or "custom tile set"
    digest: str  # sha256 of the file's text, to tell two sets apart

    def __getitem__(self, number: int) -> Tile:
        return self.tiles[number]


def _parse_region(text: str, where: str) -> Region:
    edges_text, _, items_text = text.partition(":")
    if not edges_text or any(ch not in "012" for ch in edges_text):
        raise TileSetError(
            f"{where}: region {text!r} must start with its edges, digits 0, 1 or 2 (e.g. 01:wheat)"
        )
    edges = tuple(sorted(int(ch) for ch in edges_text))
    if len(set(edges)) != len(edges):
        raise TileSetError(f"{where}: region {text!r} names an edge twice")
    counts = dict.fromkeys(("wheat", "cup", "sword", "pyramid"), 0)
    temple: str | None = None
    for item in filter(None, (part.strip().lower() for part in items_text.split(","))):
        if item in counts:
            counts[item] += 1
        elif item.startswith("temple-") and item[7:] in SYMBOLS:
            if temple is not None:
                raise TileSetError(f"{where}: region {text!r} has two temples")
            temple = item[7:]
        else:
            raise TileSetError(
                f"{where}: unknown item {item!r} in region {text!r} (known: {', '.join(ITEMS)})"
            )
    if counts["pyramid"] > 1:
        raise TileSetError(f"{where}: region {text!r} has more than one pyramid")
    return Region(edges, counts["wheat"], counts["cup"], counts["sword"], counts["pyramid"], temple)


def parse_tiles(text: str, source: str = "tile file") -> TileSet:
    """Read and check a tile-set file's text; TileSetError says which line breaks what."""
    found: dict[int, Tile] = {}
    lines: dict[int, int] = {}
    for line_number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{source} line {line_number}"
        number_text, *region_texts = line.split()
        if not number_text.isdigit() or not 0 <= int(number_text) < TILE_COUNT:
            raise TileSetError(
                f"{where}: a line must start with the tile number 0-{TILE_COUNT - 1}, "
                f"not {number_text!r}"
            )
        number = int(number_text)
        if number in found:
            raise TileSetError(f"{where}: tile {number} is already on line {lines[number]}")
        regions = tuple(_parse_region(part, where) for part in region_texts)
        covered = sorted(edge for region in regions for edge in region.edges)
        if covered != [0, 1, 2]:
            raise TileSetError(
                f"{where}: the regions of tile {number} must cover edges 0, 1 and 2 exactly "
                f"once (every edge shows land), got {covered}"
            )
        tile = make_tile(number, regions)
        if not 1 <= tile.symbols() <= 2:
            raise TileSetError(
                f"{where}: tile {number} carries {tile.symbols()} symbols; a tile has 1 or 2"
            )
        found[number] = tile
        lines[number] = line_number
    missing = [n for n in range(TILE_COUNT) if n not in found]
    if missing:
        shown = ", ".join(str(n) for n in missing[:10]) + (" ..." if len(missing) > 10 else "")
        raise TileSetError(
            f"{source}: a tile set has {TILE_COUNT} tiles numbered 0-{TILE_COUNT - 1}; "
            f"missing: {shown}"
        )
    tiles = tuple(found[n] for n in range(TILE_COUNT))
    _check_set(tiles, source, lines)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return TileSet(tiles, source, digest)


def _check_set(tiles: tuple[Tile, ...], source: str, lines: dict[int, int]) -> None:
    """The constraints the rules spec puts on the whole set."""
    seen: dict[tuple[object, ...], int] = {}
    for tile in tiles:
        key = canonical(tile)
        if key in seen:
            raise TileSetError(
                f"{source} line {lines[tile.number]}: tile {tile.number} is the same tile as "
                f"tile {seen[key]} (every tile must be different)"
            )
        seen[key] = tile.number
    shapes = {shape: sum(1 for t in tiles if t.shape == shape) for shape in SHAPES}
    if min(shapes.values()) == 0:
        raise TileSetError(f"{source}: all three tile shapes must occur, counts are {shapes}")
    if shapes["landmass"] <= max(shapes["landmass+coast"], shapes["three coasts"]):
        raise TileSetError(
            f"{source}: plain landmass tiles must be the most common shape, counts are {shapes}"
        )
    temples = {kind: 0 for kind in SYMBOLS}
    totals = dict.fromkeys(SYMBOLS, 0)
    for tile in tiles:
        for region in tile.regions:
            if region.temple is not None:
                temples[region.temple] += 1
            totals["wheat"] += region.wheat
            totals["cup"] += region.cup
            totals["sword"] += region.sword
    if min(temples.values()) == 0:
        raise TileSetError(f"{source}: temples of all three kinds must occur, counts are {temples}")
    if not any(tile.pyramid for tile in tiles[1:]):
        raise TileSetError(f"{source}: some tiles besides the start tile must carry a pyramid")
    if not totals["wheat"] < min(totals["cup"], totals["sword"]):
        raise TileSetError(
            f"{source}: wheat must be scarcer than cups and swords overall, totals are {totals}"
        )
    start = tiles[START_TILE]
    wheat = [i for i, region in enumerate(start.regions) if region.wheat]
    pyramid = [i for i, region in enumerate(start.regions) if region.pyramid]
    if len(start.regions) < 2 or not any(w != p for w in wheat for p in pyramid):
        raise TileSetError(
            f"{source} line {lines[START_TILE]}: the start tile (0) needs at least two regions, "
            "one with a wheat and another with a pyramid"
        )


_CUSTOM: OrderedDict[str, TileSet] = OrderedDict()
_PACKAGED: dict[str, TileSet] = {}


def packaged_tiles(name: str = "standard") -> TileSet:
    """A tile set shipped with the package (``standard``: the project's reconstruction)."""
    if name not in _PACKAGED:
        # Read once per process: the package's own file does not change under it, and every
        # new game and position asks for it.
        file = PACKAGED_SETS[name]
        data = resources.files("cradle.gheos").joinpath("data").joinpath(file)
        _PACKAGED[name] = parse_tiles(data.read_text("utf-8"), f"packaged {file}")
    return _PACKAGED[name]


def is_tileset_text(tiles: str) -> bool:
    """Whether a ``tiles`` option carries a set's text (a set spans lines; a name never does)."""
    return "\n" in tiles


def load_tiles(tiles: str | None) -> TileSet:
    """The tile set the ``tiles`` option gives: None or a packaged set's name, or a set's text.

    TileSetError says why it is unusable; it never reads a file, whatever the option holds.
    """
    if tiles is None:
        return packaged_tiles()
    if not is_tileset_text(tiles):
        name = tiles.strip().lower()
        if name in PACKAGED_SETS:
            return packaged_tiles(name)
        shown = tiles if len(tiles) <= 40 else tiles[:37] + "..."
        raise TileSetError(
            f"unknown tile set {shown!r}: the packaged sets are {', '.join(PACKAGED_SETS)}; "
            "a set of your own is given as its text (the tile-set format), not as a file name"
        )
    if len(tiles) > MAX_TILESET_CHARS:
        raise TileSetError(
            f"a custom tile set has at most {MAX_TILESET_CHARS} characters, this one {len(tiles)}"
        )
    found = _CUSTOM.get(tiles)
    if found is None:
        found = parse_tiles(tiles, "custom tile set")
        _CUSTOM[tiles] = found
        while len(_CUSTOM) > CUSTOM_CACHE:
            _CUSTOM.popitem(last=False)
    _CUSTOM.move_to_end(tiles)
    return found
