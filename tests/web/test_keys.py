"""The board's arrow keys (src/cradle/web/keys.js, nextCell), read by Node: on a full grid each
arrow goes to the neighbour; on a sparse map (Gheos's places) to the nearest place that way,
one off the line counting twice its distance; at an edge nowhere."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.web import node_json

WEB = Path(__file__).resolve().parents[2] / "src/cradle/web"

SCRIPT = """
const { nextCell } = await import(process.argv[1]);
const cells = JSON.parse(process.argv[2]).map(([col, row]) => ({ cell: `${col},${row}`, col, row }));
const from = (col, row) => cells.find((c) => c.col === col && c.row === row);
const go = (start, dc, dr) => nextCell(cells, from(...start), dc, dr)?.cell ?? null;
const out = JSON.parse(process.argv[3]).map(([start, dc, dr]) => go(start, dc, dr));
console.log(JSON.stringify(out));
"""


def moves(cells: list[tuple[int, int]], asked: list[tuple[tuple[int, int], int, int]]) -> list[str]:
    found: list[str] = node_json(
        SCRIPT, (WEB / "keys.js").as_uri(), json.dumps(cells), json.dumps(asked)
    )
    return found


def test_the_arrows_go_to_the_neighbour_on_a_grid_and_stop_at_its_edge() -> None:
    grid = [(col, row) for col in range(16) for row in range(11)]
    asked = [((3, 4), 1, 0), ((3, 4), -1, 0), ((3, 4), 0, 1), ((3, 4), 0, -1), ((15, 0), 1, 0)]
    assert moves(grid, asked) == ["4,4", "2,4", "3,5", "3,3", None]


def test_on_a_sparse_map_the_nearest_place_that_way_and_the_line_first() -> None:
    places = [(0, 0), (1, 0), (4, 0), (2, 1), (1, 3), (0, 2)]
    asked = [((1, 0), 1, 0), ((0, 0), 0, 1), ((1, 0), 0, 1), ((4, 0), 1, 0)]
    # Right of 1,0: 2,1 is one along and one off (3), 4,0 three along (3): the first found of
    # equals is the earlier in the list; down from 0,0 the line (0,2) beats 2,1 (1 + 4 = 5).
    assert moves(places, asked) == ["4,0", "0,2", "2,1", None]
