"""The packaged tile set (the project's reconstruction) and tile-set files of one's own."""

from __future__ import annotations

from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from cradle import gheos
from cradle.gheos.tiles import TileSetError, canonical, load_tiles, packaged_tiles, parse_tiles

PACKAGED = resources.files("cradle.gheos").joinpath("data").joinpath("tiles.txt").read_text("utf-8")


def edited(old_line: str, new_line: str) -> str:
    lines = PACKAGED.splitlines()
    index = next(i for i, line in enumerate(lines) if line.split("#")[0].split()[:1] == [old_line])
    if new_line:
        lines[index] = new_line
    else:
        del lines[index]
    return "\n".join(lines) + "\n"


def test_the_packaged_set_meets_the_spec() -> None:
    tiles = packaged_tiles().tiles
    assert len(tiles) == 52
    assert len({canonical(tile) for tile in tiles}) == 52  # all different, even turned
    shapes = Counter(tile.shape for tile in tiles)
    assert set(shapes) == {"landmass", "landmass+coast", "three coasts"}
    assert shapes.most_common(1)[0][0] == "landmass"
    assert all(1 <= tile.symbols() <= 2 for tile in tiles)
    temples = Counter(r.temple for t in tiles for r in t.regions if r.temple)
    assert set(temples) == {"wheat", "cup", "sword"}
    assert 1 < sum(tile.pyramid for tile in tiles) < 52
    totals = {
        s: sum(getattr(r, s) for t in tiles for r in t.regions) for s in ("wheat", "cup", "sword")
    }
    assert totals["wheat"] < totals["cup"] and totals["wheat"] < totals["sword"]
    start = tiles[0]
    assert len(start.regions) >= 2
    assert any(r.wheat for r in start.regions) and any(r.pyramid for r in start.regions)
    assert "reconstruction" in PACKAGED and "not the publisher" in PACKAGED


def test_tile_text_round_trips_through_the_file_format() -> None:
    tiles = packaged_tiles().tiles
    text = "\n".join(f"{tile.number} {tile.text()}" for tile in tiles)
    again = parse_tiles(text).tiles
    assert [t.regions for t in again] == [t.regions for t in tiles]


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        ("7", "x7 012:wheat", "must start with the tile number"),
        ("7", "77 012:wheat", "must start with the tile number"),
        ("7", "", "missing: 7"),
        ("7", "8 012:wheat,cup", "already on line"),
        ("7", "7 01:wheat", "cover edges 0, 1 and 2"),
        ("7", "7 012:wheat 2", "cover edges 0, 1 and 2"),
        ("7", "7 013:wheat", "digits 0, 1 or 2"),
        ("7", "7 011:wheat 2", "names an edge twice"),
        ("7", "7 012:whaet", "unknown item 'whaet'"),
        ("7", "7 012:pyramid", "carries 0 symbols"),
        ("7", "7 012:wheat,cup,sword", "carries 3 symbols"),
        ("7", "7 012:wheat,temple-cup,temple-sword", "two temples"),
        ("7", "7 012:wheat,pyramid,pyramid", "more than one pyramid"),
        ("7", "7 012:cup,sword", "tile 9 is the same tile as tile 7"),
        ("0", "0 012:cup,cup,pyramid", "the start tile (0) needs at least two regions"),
        ("0", "0 01:wheat,pyramid 2:cup", "one with a wheat and another with a pyramid"),
    ],
)
def test_malformed_or_inconsistent_files_are_refused(old: str, new: str, reason: str) -> None:
    with pytest.raises(TileSetError) as caught:
        parse_tiles(edited(old, new), "mine.txt")
    assert reason in str(caught.value)
    assert str(caught.value).startswith("mine.txt")


def test_duplicates_are_seen_through_rotation() -> None:
    # Tile 29 is a landmass with a wheat on edges 0-1 and a cup coast on 2; the same tile
    # turned has the landmass on 1-2 and the coast on 0.
    with pytest.raises(TileSetError, match="tile 29 is the same tile as tile 7"):
        parse_tiles(edited("7", "7 0:cup 12:wheat"))


def synthetic(
    landmass: int = 25,
    landmass_coast: int = 17,
    coasts: int = 9,
    extras: tuple[str, ...] = ("pyramid", "temple-wheat", "temple-cup", "temple-sword"),
    symbols: tuple[str, str] = ("cup", "sword"),
) -> str:
    """A made-up set of all-different tiles; the counts and pools break one rule at a time."""
    a, b = symbols
    pools: list[list[str]] = [[]] + [[extra] for extra in extras]

    def items(*parts: list[str]) -> str:
        return ",".join(item for part in parts for item in part)

    plain = [[a], [b], [a, b], [a, a], [b, b]]
    ones = [f"012:{items(x, extra)}" for extra in pools for x in plain][:landmass]
    pairs = [([a], []), ([b], []), ([], [a]), ([], [b]), ([a], [b]), ([b], [a]), ([a], [a])]
    twos = [f"01:{items(x, extra)} 2:{items(y)}" for extra in pools for x, y in pairs]
    threes: list[tuple[list[str], list[str], list[str]]] = [
        ([a], [], []),
        ([b], [], []),
        ([a], [b], []),
        ([b], [a], []),
        ([a], [a], []),
    ]
    coast_lines = [
        f"0:{items(x, extra)} 1:{items(y)} 2:{items(z)}" for extra in pools for x, y, z in threes
    ]
    lines = ["01:wheat,cup 2:pyramid", *ones, *twos[:landmass_coast], *coast_lines[:coasts]]
    return "\n".join(f"{number} {line}" for number, line in enumerate(lines)) + "\n"


def test_the_synthetic_set_is_valid() -> None:
    assert len(parse_tiles(synthetic()).tiles) == 52


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        (
            {
                "extras": ("temple-wheat", "temple-cup", "temple-sword"),
                "landmass": 20,
                "coasts": 14,
            },
            "besides the start tile",
        ),
        (
            {"extras": ("pyramid", "temple-wheat", "temple-cup"), "landmass": 20, "coasts": 14},
            "temples of all three kinds",
        ),
        ({"symbols": ("wheat", "sword")}, "wheat must be scarcer"),
        ({"landmass": 17, "landmass_coast": 25}, "plain landmass tiles must be the most common"),
        ({"landmass": 25, "landmass_coast": 26, "coasts": 0}, "all three tile shapes"),
    ],
)
def test_set_wide_constraints(kwargs: dict[str, object], reason: str) -> None:
    with pytest.raises(TileSetError, match=reason):
        parse_tiles(synthetic(**kwargs))  # type: ignore[arg-type]


def test_a_users_tile_set_is_given_as_text_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    mine = edited("7", "7 012:wheat,wheat,temple-cup")
    state = gheos.new_game(2, seed=1, options=gheos.Options(tiles=mine))
    assert state.tileset.tiles[7].text() == "012:wheat,wheat,temple-cup"
    assert state.to_position()["options"] == {"tiles": mine}
    again = gheos.from_position(state.to_position())
    assert again.tileset.tiles[7].text() == "012:wheat,wheat,temple-cup"
    with pytest.raises(ValueError, match="unknown item 'bread'"):
        gheos.new_game(2, seed=1, options=gheos.Options(tiles=edited("7", "7 012:bread")))
    with pytest.raises(TileSetError, match="at most 8192 characters"):
        load_tiles(mine + "#" * 8192 + "\n")


@pytest.mark.parametrize("name", ["/etc/passwd", "/proc/self/environ", "/dev/zero", "tiles.txt"])
def test_a_tile_set_is_never_read_from_a_file(tmp_path: Path, name: str) -> None:
    # Even a readable file holding a valid set: the option names packaged sets only.
    readable = tmp_path / "tiles.txt"
    readable.write_text(PACKAGED, encoding="utf-8")
    for given in (name, str(readable)):
        with pytest.raises(ValueError, match="unknown tile set") as refused:
            gheos.options_from_dict({"tiles": given})
        assert "root:" not in str(refused.value) and "PATH=" not in str(refused.value)
        with pytest.raises(TileSetError, match="not as a file name"):
            gheos.new_game(2, seed=1, options=gheos.Options(tiles=given))


def test_packaged_sets_by_name() -> None:
    assert gheos.options_from_dict({"tiles": "standard"}) == gheos.Options()
    assert gheos.options_from_dict({"tiles": " Standard "}) == gheos.Options()
    assert load_tiles("standard") is packaged_tiles() is load_tiles(None)
    state = gheos.new_game(2, seed=4, options=gheos.Options(tiles="standard"))
    assert state.to_position() == gheos.new_game(2, seed=4).to_position() | {
        "options": {"tiles": "standard"}
    }


def test_options() -> None:
    assert gheos.options_from_dict(None) == gheos.Options()
    assert gheos.options_from_dict({}) == gheos.Options()
    text = PACKAGED
    assert gheos.options_to_dict(gheos.options_from_dict({"tiles": text})) == {"tiles": text}
    assert gheos.options_to_dict(gheos.options_from_dict({"tiles": "standard"})) == {"tiles": None}
    with pytest.raises(ValueError, match=r"unknown tile set 'x\.txt'"):
        gheos.options_from_dict({"tiles": "x.txt"})
    with pytest.raises(ValueError, match="unknown Gheos option"):
        gheos.options_from_dict({"board": "advanced"})
    with pytest.raises(ValueError, match="packaged tile set's name"):
        gheos.options_from_dict({"tiles": 3})
    with pytest.raises(ValueError, match="must be an object"):
        gheos.options_from_dict([])  # type: ignore[arg-type]
