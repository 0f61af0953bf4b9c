"""Tigris & Euphrates as an SVG picture, from a view (docs/tigris-view.md).

Built with ElementTree, so names and numbers from the view are escaped and the output is
always well-formed XML.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from cradle.core.contract import View
from cradle.render.svg import add
from cradle.render.tigris_text import (
    COLUMNS,
    ROLE_COLOUR,
    ROLE_LETTER,
    ROWS,
    board_layout,
    leader_parts,
    monument_cells,
    unification_cell,
)
from cradle.tigris import COLOURS, TigrisView, as_tigris_view

SVG_NS = "http://www.w3.org/2000/svg"
CELL = 40
MARGIN = 30
LINE = 20
FILL = {"red": "#c0392b", "blue": "#2e6fd0", "green": "#2f9e44", "black": "#3d3d3d"}
LAND = "#e9dfb8"
RIVER = "#a9cdea"
SPECIAL_EDGE = "#b8860b"
CATASTROPHE = "#6b2d5c"
WONDER = "#d4a017"
TREASURE = "#ffd43b"


def cell_origin(cell: str) -> tuple[int, int]:
    column, row = COLUMNS.index(cell[0]), int(cell[1:])
    return MARGIN + column * CELL, MARGIN + (row - 1) * CELL


def draw_cell(
    svg: ET.Element, cell: str, code: str | None, letter: str, monument: str | None
) -> None:
    x, y = cell_origin(cell)
    add(
        svg,
        "rect",
        x=x,
        y=y,
        width=CELL,
        height=CELL,
        fill=RIVER if letter == "~" else LAND,
        stroke="#8a7f5a",
        stroke_width=0.5,
    )
    if letter == "S":
        add(
            svg,
            "rect",
            x=x + 2,
            y=y + 2,
            width=CELL - 4,
            height=CELL - 4,
            fill="none",
            stroke=SPECIAL_EDGE,
            stroke_width=2,
            stroke_dasharray="4 2",
        )
    if code is None:
        return
    treasure = code.endswith("*")
    code = code.rstrip("*")
    middle_x, middle_y = x + CELL / 2, y + CELL / 2
    if code.startswith("leader:"):
        dynasty, role = leader_parts(code)
        token = add(
            svg,
            "circle",
            cx=middle_x,
            cy=middle_y,
            r=CELL * 0.42,
            fill=FILL.get(ROLE_COLOUR.get(role, ""), "#777"),
            stroke="#fff",
            stroke_width=2,
        )
        add(token, "title", f"{role} of {dynasty}")
        label = ROLE_LETTER.get(role, "?") + dynasty[:1]
        add(
            svg,
            "text",
            label,
            x=middle_x,
            y=middle_y + 5,
            text_anchor="middle",
            font_size=15,
            font_weight="bold",
            fill="#fff",
            font_family="sans-serif",
        )
        return
    if code == "catastrophe":
        add(svg, "rect", x=x + 3, y=y + 3, width=CELL - 6, height=CELL - 6, fill=CATASTROPHE)
        add(
            svg,
            "path",
            d=f"M{x + 10},{y + 10} L{x + CELL - 10},{y + CELL - 10} "
            f"M{x + CELL - 10},{y + 10} L{x + 10},{y + CELL - 10}",
            stroke="#fff",
            stroke_width=3,
        )
        return
    if code == "wonder":
        fill = WONDER
    elif code.startswith("down:"):
        fill = FILL.get(monument or code[5:], "#777")
    else:
        fill = FILL.get(code, "#777")
    add(
        svg,
        "rect",
        x=x + 3,
        y=y + 3,
        width=CELL - 6,
        height=CELL - 6,
        rx=4,
        fill=fill,
        stroke="#222",
        stroke_width=1,
        opacity=0.75 if code.startswith("down:") else 1,
    )
    # a monument's face-down temples are marked M (white), the wonder W (dark)
    mark = "M" if code.startswith("down:") else "W" if code == "wonder" else None
    if mark is not None:
        add(
            svg,
            "text",
            mark,
            x=middle_x,
            y=middle_y + 5,
            text_anchor="middle",
            font_size=14,
            font_weight="bold",
            fill="#fff" if mark == "M" else "#222",
            font_family="sans-serif",
        )
    if treasure:
        add(svg, "circle", cx=x + CELL - 11, cy=y + 11, r=6, fill=TREASURE, stroke="#7a5c00")


def to_svg(shown: View) -> str:
    """The board, its labels and a table of the players, as an SVG document."""
    view = as_tigris_view(shown)
    options = view.get("options") or {}
    layout = board_layout(str(options.get("board", "standard")))
    board: dict[str, str] = view.get("board") or {}
    players: list[str] = list(view.get("players") or [])
    lines = info_lines(view)
    width = MARGIN * 2 + CELL * len(COLUMNS)
    height = MARGIN * 2 + CELL * ROWS + LINE * (len(lines) + 1)
    ET.register_namespace("", SVG_NS)
    svg = ET.Element(
        f"{{{SVG_NS}}}svg",
        {"width": str(width), "height": str(height), "viewBox": f"0 0 {width} {height}"},
    )
    add(svg, "title", "Tigris & Euphrates: " + ", ".join(players))
    add(svg, "rect", x=0, y=0, width=width, height=height, fill="#fbf8ef")
    for index, column in enumerate(COLUMNS):
        x = MARGIN + index * CELL + CELL / 2
        add(
            svg,
            "text",
            column,
            x=x,
            y=MARGIN - 10,
            text_anchor="middle",
            font_size=13,
            font_family="sans-serif",
        )
    for row in range(1, ROWS + 1):
        y = MARGIN + (row - 1) * CELL + CELL / 2 + 5
        add(
            svg,
            "text",
            str(row),
            x=MARGIN - 8,
            y=y,
            text_anchor="end",
            font_size=13,
            font_family="sans-serif",
        )
    monuments = monument_cells(view.get("monuments") or [])
    for row in range(1, ROWS + 1):
        for column in COLUMNS:
            cell = f"{column}{row}"
            draw_cell(svg, cell, board.get(cell), layout.get(cell, "."), monuments.get(cell))
    marks = {cell: "B" for cell in (view.get("buildings") or {}).values()}
    unified = unification_cell(view)
    if unified:
        marks[unified] = "U"
    for cell, mark in marks.items():
        if len(cell) >= 2 and cell[0] in COLUMNS and cell[1:].isdigit():
            x, y = cell_origin(cell)
            add(
                svg,
                "text",
                mark,
                x=x + 8,
                y=y + CELL - 7,
                font_size=12,
                font_weight="bold",
                fill="#fff",
                font_family="sans-serif",
            )
    top = MARGIN * 2 + CELL * ROWS
    for index, line in enumerate(lines):
        add(
            svg,
            "text",
            line,
            x=MARGIN,
            y=top + index * LINE,
            font_size=14,
            font_family="sans-serif",
        )
    return ET.tostring(svg, encoding="unicode", xml_declaration=True) + "\n"


def info_lines(view: TigrisView) -> list[str]:
    """The public facts beside the board: scores, treasures, supply, monuments."""
    players: list[str] = list(view.get("players") or [])
    points: dict[str, dict[str, int]] = view.get("points") or {}
    treasures = view.get("treasures") or {}
    supply = view.get("supply") or {}
    lines = []
    for seat, name in enumerate(players):
        mark = "▶ " if seat == view.get("to_move") else "   "
        known = points.get(name)
        score = (
            " ".join(f"{colour} {known.get(colour, 0)}" for colour in COLOURS)
            if known
            else "points hidden"
        )
        leaders = " ".join(supply.get(name, [])) or "none"
        lines.append(
            f"{mark}{name}: {score}; treasures {treasures.get(name, 0)}; in supply: {leaders}"
        )
    built = ", ".join(
        "-".join(m.get("colors", [])) + f" at {m.get('cell')}" for m in view.get("monuments") or []
    )
    lines.append(f"Monuments: {built or 'none'}; bag: {view.get('bag_size', '?')} tiles")
    return lines
