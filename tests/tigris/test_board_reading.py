"""What the analysis API reads off a crowded board (a monument with its treasure, the wonder, a
catastrophe, a leader in the corner A1): contents, regions, the region map and the dynasties."""

from __future__ import annotations

from cradle.tigris import (
    Content,
    Dynasty,
    Leader,
    Monument,
    TigrisState,
    from_position,
    parse_cell,
)
from tests.helpers.tigris import leader, make_state

RED, BLUE, GREEN, BLACK = range(4)


def crowded() -> TigrisState:
    board = {
        "A1": leader("bull", "priest"),
        "B1": "red",
        "G4": "down:red*",
        "H4": "down:red",
        "G5": "down:red",
        "H5": "down:red",
        "I5": "black",
        "F5": "wonder*",
        "E6": "wonder",
        "F6": "wonder",
        "G6": "wonder",
        "F7": "wonder",
        "J4": leader("archer", "king"),
        "J5": "red",
        "C3": "catastrophe",
    }
    return make_state(
        board,
        hands={"archer": ["red", "blue"]},
        options={"wonder": True},
        monuments=[{"colors": ["red", "black"], "cell": "G4"}],
        catastrophes={"archer": 1, "bull": 2},
    )


def cells(*names: str) -> tuple[int, ...]:
    return tuple(parse_cell(n) for n in names)


def test_contents_of_every_kind_of_cell() -> None:
    contents = crowded().contents()
    expected = {
        "A1": Content("leader", RED, 1),
        "B1": Content("tile", RED),
        "G4": Content("down", RED, treasure=True),
        "H4": Content("down", RED),
        "F5": Content("wonder", treasure=True),
        "E6": Content("wonder"),
        "C3": Content("catastrophe"),
        "J4": Content("leader", BLACK, 0),
        "A11": Content("tile", RED, treasure=True),
        "A2": None,
    }
    for name, content in expected.items():
        assert contents[parse_cell(name)] == content, name
    assert sum(1 for c in contents if c is not None) == 18  # 15 cells and three far treasures


def test_regions_hold_their_leaders_supporters_treasures_and_monuments() -> None:
    s = crowded()
    corner, middle, *far = s.regions()
    assert corner.cells == cells("A1", "B1")
    assert corner.leaders == (Leader(1, RED, 0),)
    assert (corner.supporters, corner.treasures, corner.monuments) == ((1, 0, 0, 0), (), ())
    assert middle.cells == cells(
        "G4", "H4", "J4", "F5", "G5", "H5", "I5", "J5", "E6", "F6", "G6", "F7"
    )
    assert middle.leaders == (Leader(0, BLACK, parse_cell("J4")),)
    # face-down tiles and the wonder support nobody; their treasures stay
    assert middle.supporters == (1, 0, 0, 1)
    assert middle.treasures == cells("G4", "F5")
    assert middle.monuments == (Monument((RED, BLACK), parse_cell("G4")),)
    assert [r.cells for r in far] == [cells("A11"), cells("C11"), cells("E11")]
    assert all(r.monuments == () and not r.is_kingdom for r in far)
    region_map = s.region_map()
    assert [region_map[c] for c in cells("A1", "B1", "G4", "F7", "A11", "A2", "C3")] == [
        0,
        0,
        1,
        1,
        2,
        -1,
        -1,
    ]


def test_dynasties_and_leaders_by_cell() -> None:
    s = crowded()
    assert s.dynasty(0) == Dynasty("archer", (1, 1, 0, 0), (0, 0, 0, 0), 0, 1, (RED, BLUE, GREEN))
    assert s.dynasty(1) == Dynasty("bull", (0, 0, 0, 0), (0, 0, 0, 0), 0, 2, (BLUE, GREEN, BLACK))
    # leader_at is the reference engine's own helper, not the contract: asked of the reference.
    reference = from_position(s.to_position(), engine="python")
    assert isinstance(reference, TigrisState)
    assert reference.leader_at(parse_cell("A1")) == 4 * 1 + RED
    assert reference.leader_at(parse_cell("J4")) == 4 * 0 + BLACK
    assert reference.leader_at(parse_cell("B1")) == -1


def test_the_region_map_can_be_asked_first() -> None:
    s = crowded()
    region_map = s.region_map()  # before regions(): it works them out itself
    assert region_map[parse_cell("A1")] == 0 and region_map[parse_cell("J5")] == 1
    assert s.regions()[1].cells[0] == parse_cell("G4")
