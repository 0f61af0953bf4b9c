"""The triangular grid, tile rotations and areas on hand-built maps."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cradle.gheos import geometry as g
from cradle.gheos.tiles import Region, make_tile, packaged_tiles
from tests.helpers.gheos import area_at, areas, build

rows = st.integers(-20, 20)
cols = st.integers(-40, 40)


@given(rows, cols, st.integers(0, 2))
def test_neighbours_are_symmetric_across_the_same_edge_number(
    row: int, col: int, edge: int
) -> None:
    cell = g.cell_index(row, col)
    other = g.NEIGHBOURS[cell][edge]
    assert other != g.NO_CELL
    assert g.NEIGHBOURS[other][edge] == cell
    assert g.UP[other] != g.UP[cell]  # an up cell's neighbours all point down


@given(rows, cols, st.integers(0, 2))
def test_shared_edges_are_the_same_segment_on_the_drawing(row: int, col: int, edge: int) -> None:
    """The neighbour table agrees with the geometry: edge e runs from corner e to e + 1."""
    cell = g.cell_index(row, col)
    other = g.NEIGHBOURS[cell][edge]
    mine = g.corners(row, col)
    theirs = g.corners(g.ROW[other], g.COL[other])
    a, b = mine[edge], mine[(edge + 1) % 3]
    c, d = theirs[edge], theirs[(edge + 1) % 3]
    # Walked clockwise on both sides, a shared edge is met in opposite directions.
    assert math.dist(a, d) < 1e-9 and math.dist(b, c) < 1e-9


@given(rows, cols)
def test_edges_are_numbered_clockwise(row: int, col: int) -> None:
    # On screen (y pointing down) a clockwise walk has a positive signed area.
    (x0, y0), (x1, y1), (x2, y2) = g.corners(row, col)
    area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
    assert area > 0
    assert abs(area) == pytest.approx(3**0.5 / 2)


def test_orientation_and_names() -> None:
    assert g.UP[g.START_CELL] and g.CELL_NAME[g.START_CELL] == "0,0"
    assert not g.UP[g.cell_index(0, 1)] and g.UP[g.cell_index(1, 1)]
    assert g.parse_cell("1,-2") == g.cell_index(1, -2)
    assert g.parse_cell(" -3,4 ") == g.cell_index(-3, 4)
    assert g.edge_name(g.START_CELL, 0) == "s" and g.edge_name(g.cell_index(0, 1), 0) == "n"
    assert g.parse_edge(g.cell_index(0, 1), "SE") == 1
    below = g.NEIGHBOURS[g.START_CELL][0]
    assert g.CELL_NAME[below] == "1,0"


@pytest.mark.parametrize("text", ["a1", "1", "1,2,3", "x,y", ""])
def test_bad_cell_names_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a cell name"):
        g.parse_cell(text)


def test_far_cells_and_wrong_edges_are_refused() -> None:
    with pytest.raises(ValueError, match="too far"):
        g.parse_cell("500,0")
    with pytest.raises(ValueError, match="its edges are s, nw, ne"):
        g.parse_edge(g.START_CELL, "n")


def test_rotation_moves_edges_clockwise_and_keeps_chirality() -> None:
    # Three different coasts a, b, c on the tile's edges 0, 1, 2 (clockwise).
    tile = make_tile(99, (Region((0,), wheat=1), Region((1,), cup=1), Region((2,), sword=1)))
    for rotation in range(3):
        layout = tile.edge_region[rotation]
        for local in range(3):
            assert layout[g.rotated_edge(local, rotation)] == local
        # Read clockwise from the region with the wheat, the order is always wheat, cup, sword:
        # a turn never mirrors the tile.
        start = layout.index(0)
        assert [layout[(start + i) % 3] for i in range(3)] == [0, 1, 2]
    assert tile.rotations == (0, 1, 2)


def test_symmetric_tiles_have_fewer_distinct_rotations() -> None:
    tiles = packaged_tiles()
    assert tiles[1].rotations == (0,)  # one landmass everywhere
    assert tiles[23].rotations == (0, 1, 2)  # landmass + coast
    bare = make_tile(98, (Region((0,), wheat=1), Region((1,)), Region((2,))))
    assert bare.rotations == (0, 1, 2)
    same = make_tile(97, (Region((0,)), Region((1,)), Region((2,))))
    assert same.rotations == (0,)


def test_a_lone_start_tile_is_no_continent() -> None:
    state = build({})
    assert [area[0] for area in areas(state)] == ["land", "land"]


def test_two_coasts_make_an_island_and_a_landmass_and_a_coast_a_continent() -> None:
    # t42 (three coasts) on 0,1 faces t0's coast; t5 (landmass) on 1,0 faces t0's landmass.
    state = build({"0,1": "t42 r0", "1,0": "t5 r0"})
    assert area_at(state, "0,0:ne")[0] == "island"
    assert area_at(state, "0,0:ne")[1] == ["0,0:ne", "0,1:sw"]
    assert area_at(state, "0,0:s")[0] == "continent"
    # t42's other two coasts touch nothing: plain land.
    assert area_at(state, "0,1:n")[0] == area_at(state, "0,1:se")[0] == "land"


# The six cells around the lower right corner of 0,0, in order around it.
RING = {"0,1": "t1 r0", "0,2": "t2 r0", "1,2": "t3 r0", "1,0": "t5 r0"}


def test_areas_stay_apart_through_coasts_and_merge_through_a_landmass() -> None:
    # Around the ring, t0's coast leads via t1, t2, t3 to 1,1 and t0's landmass via t5 to
    # 1,1 from the other side. Three coasts on 1,1 keep the two apart.
    state = build({**RING, "1,1": "t42 r0"})
    left = area_at(state, "0,0:s")
    right = area_at(state, "0,0:ne")
    assert left != right
    assert left[1] == ["0,0:s", "1,0:n", "1,1:nw"]
    assert right[1] == ["0,0:ne", "0,1:n", "0,2:s", "1,1:ne", "1,2:n"]
    assert left[2] == {"wheat": 1, "cup": 3, "sword": 0, "pyramid": 0}
    assert right[2] == {"wheat": 1, "cup": 1, "sword": 1, "pyramid": 1}
    # A landmass on 1,1 closes the ring: the start tile's two regions join in one area.
    joined = build({**RING, "1,1": "t6 r0"})
    assert area_at(joined, "0,0:s") == area_at(joined, "0,0:ne")
    assert area_at(joined, "0,0:s")[2] == {"wheat": 2, "cup": 4, "sword": 3, "pyramid": 1}
