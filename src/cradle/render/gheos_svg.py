"""Gheos as an SVG picture of the triangular map, from a view (docs/gheos.md).

Works from the view alone (the web client can do the same). Built with ElementTree, so names
from the view are escaped and the output is always well-formed XML. Each tile is a triangle
of sea with its land drawn on it: a landmass on three edges fills the tile, one on two edges
fills the corner between them, a coast is a strip along its edge. Land is tinted by its area:
a civilization's colour, sand for a free continent, green for an island, grey-beige otherwise.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from cradle import gheos
from cradle.core.contract import View
from cradle.gheos import GheosView, RegionView, as_gheos_view
from cradle.gheos.types import symbol_counts
from cradle.render.gheos_areas import area_looks
from cradle.render.svg import add

SVG_NS = "http://www.w3.org/2000/svg"
SIDE = 72.0
HEIGHT = SIDE * 3**0.5 / 2
MARGIN = 24.0
HEADER_LINE = 18.0
SEA = "#9ccbe8"
GRID = "#4d7a99"
CIV_FILL = {
    "red": "#e07a6e",
    "green": "#7cc48a",
    "yellow": "#f0d264",
    "blue": "#7fa8e8",
    "black": "#8a8a8a",
    "white": "#f4f4f4",
}
CIV_MARK = {
    "red": "#c0392b",
    "green": "#2f9e44",
    "yellow": "#e0b000",
    "blue": "#2e6fd0",
    "black": "#222222",
    "white": "#ffffff",
}
FREE_CONTINENT = "#e3cf8f"
ISLAND = "#b9d98c"
LAND = "#cfc6a8"
SYMBOL = {"wheat": ("#d4a017", "w"), "cup": ("#2e6fd0", "c"), "sword": ("#8b1e1e", "s")}
EDGE_INDEX = {"s": 0, "nw": 1, "ne": 2, "n": 0, "se": 1, "sw": 2}

Point = tuple[float, float]


def corners(row: int, col: int) -> tuple[Point, Point, Point]:
    """Corner e and e + 1 bound edge e (the edges are numbered clockwise, 0 horizontal): the
    engine's grid (gheos.corners, in units of a side) at SIDE points a side."""
    a, b, c = ((x * SIDE, y * SIDE) for x, y in gheos.corners(row, col))
    return a, b, c


def lerp(a: Point, b: Point, t: float) -> Point:
    return a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t


def centroid(points: list[Point] | tuple[Point, ...]) -> Point:
    return sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points)


def points_attr(points: list[Point]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in points)


def region_shape(tri: tuple[Point, Point, Point], edges: list[int]) -> tuple[list[Point], Point]:
    """The polygon of a region touching ``edges``, and where its symbols go."""
    middle = centroid(tri)
    if len(edges) == 3:
        return list(tri), middle
    if len(edges) == 2:
        # Two edges meet at one corner: edge e runs from corner e to corner e + 1.
        a, b = sorted(edges)
        corner = {(0, 1): 1, (1, 2): 2, (0, 2): 0}[(a, b)]
        c = tri[corner]
        others = [tri[i] for i in range(3) if i != corner]
        shape = [c, lerp(c, others[0], 0.68), lerp(c, others[1], 0.68)]
        return shape, lerp(centroid(shape), c, 0.1)
    edge = edges[0]
    p, q = tri[edge], tri[(edge + 1) % 3]
    outer = [lerp(p, q, 0.1), lerp(p, q, 0.9)]
    inner = [lerp(outer[1], middle, 0.38), lerp(outer[0], middle, 0.38)]
    shape = outer + inner
    return shape, centroid(shape)


def area_fill(view: GheosView) -> dict[int, str]:
    return area_looks(view, CIV_FILL, LAND, FREE_CONTINENT, ISLAND, LAND)


def draw_items(svg: ET.Element, region: RegionView, at: Point, small: bool) -> None:
    items: list[tuple[str, str]] = []
    counts = symbol_counts(region)
    for symbol, (colour, letter) in SYMBOL.items():
        items += [(colour, letter)] * counts[symbol]
    if region["pyramid"]:
        items.append(("pyramid", ""))
    if region["temple"]:
        colour, letter = SYMBOL[region["temple"]]
        items.append(("temple:" + colour, letter.upper()))
    size = 7.0 if small else 8.0
    step = size * 2.1
    x0 = at[0] - step * (len(items) - 1) / 2
    for i, (kind, letter) in enumerate(items):
        x, y = x0 + i * step, at[1]
        if kind == "pyramid":
            add(
                svg,
                "polygon",
                points=points_attr(
                    [(x - size, y + size * 0.8), (x + size, y + size * 0.8), (x, y - size)]
                ),
                fill="#b5651d",
                stroke="#5a3210",
                stroke_width=1,
            )
            continue
        if kind.startswith("temple:"):
            add(
                svg,
                "rect",
                x=f"{x - size:.1f}",
                y=f"{y - size:.1f}",
                width=2 * size,
                height=2 * size,
                fill="#ffffff",
                stroke=kind[7:],
                stroke_width=2,
            )
            _letter(svg, letter, x, y, size, kind[7:])
            continue
        add(
            svg,
            "circle",
            cx=f"{x:.1f}",
            cy=f"{y:.1f}",
            r=size,
            fill=kind,
            stroke="#ffffff",
            stroke_width=1,
        )
        _letter(svg, letter, x, y, size, "#ffffff")


def _letter(svg: ET.Element, letter: str, x: float, y: float, size: float, fill: str) -> None:
    """A piece's letter, centred on its mark at (``x``, ``y``)."""
    add(
        svg,
        "text",
        letter,
        x=f"{x:.1f}",
        y=f"{y + size * 0.45:.1f}",
        font_size=size * 1.3,
        text_anchor="middle",
        font_family="sans-serif",
        font_weight="bold",
        fill=fill,
    )


def header_lines(view: GheosView) -> list[str]:
    lines = []
    state = (
        "game over"
        if view["is_over"]
        else f"{view['players'][view['active']]} to play ({view['phase']})"
    )
    lines.append(
        f"Gheos · {state} · epoch tiles drawn {view['epochs_drawn']} of {view['end_epoch']} "
        f"· {view['stack_size']} tiles in the stack"
    )
    for name in view["players"]:
        followers = ", ".join(f"{n} {c}" for c, n in view["followers"].get(name, {}).items())
        lines.append(
            f"{name}: {view['points'][name]} points, {view['tokens'][name]} tokens"
            + (f", followers {followers}" if followers else "")
        )
    return lines


def to_svg(shown: View) -> str:
    """The map (and a few lines of scores above it) as a standalone SVG document."""
    view = as_gheos_view(shown)
    cells = view["map"]
    frontier = [tuple(int(v) for v in name.split(",")) for name in view.get("frontier", [])]
    shapes = [corners(c["row"], c["col"]) for c in cells] + [corners(r, c) for r, c in frontier]
    xs = [p[0] for tri in shapes for p in tri] or [0.0]
    ys = [p[1] for tri in shapes for p in tri] or [0.0]
    lines = header_lines(view)
    top = MARGIN + HEADER_LINE * len(lines)
    shift_x, shift_y = MARGIN - min(xs), top + 8 - min(ys)
    # Wide enough for the map and for the header (about 8 px a character at 13-15 px).
    width = max(max(xs) - min(xs) + 2 * MARGIN, 8.0 * max(map(len, lines)) + 2 * MARGIN)
    height = max(ys) - min(ys) + top + 8 + MARGIN

    ET.register_namespace("", SVG_NS)
    svg = ET.Element(
        "svg",
        {
            "xmlns": SVG_NS,
            "width": f"{width:.0f}",
            "height": f"{height:.0f}",
            "viewBox": f"0 0 {width:.0f} {height:.0f}",
        },
    )
    add(svg, "title", "Gheos map")
    add(svg, "rect", x=0, y=0, width=f"{width:.0f}", height=f"{height:.0f}", fill="#fbfaf6")
    for i, line in enumerate(lines):
        add(
            svg,
            "text",
            line,
            x=MARGIN,
            y=f"{MARGIN + i * HEADER_LINE:.0f}",
            font_size=13 if i else 15,
            font_family="sans-serif",
            font_weight="bold" if i == 0 else "normal",
            fill="#222222",
        )

    def moved(points: tuple[Point, ...] | list[Point]) -> list[Point]:
        return [(x + shift_x, y + shift_y) for x, y in points]

    fills = area_fill(view)
    markers = {civ: info["ref"] for civ, info in view["civilizations"].items()}
    for row, col in frontier:
        tri = moved(corners(row, col))
        add(
            svg,
            "polygon",
            points=points_attr(tri),
            fill="none",
            stroke="#9aa7b0",
            stroke_width=1,
            stroke_dasharray="4 3",
        )
        cx, cy = centroid(tri)
        add(
            svg,
            "text",
            f"{row},{col}",
            x=f"{cx:.1f}",
            y=f"{cy + 3:.1f}",
            font_size=8,
            text_anchor="middle",
            font_family="sans-serif",
            fill="#8a96a0",
        )
    for cell in cells:
        tri = moved(corners(cell["row"], cell["col"]))
        group = add(svg, "g", class_="tile", data_cell=cell["cell"], data_tile=cell["tile"])
        add(group, "polygon", points=points_attr(tri), fill=SEA, stroke=GRID, stroke_width=1)
        labels = []
        for region in cell["regions"]:
            edges = [EDGE_INDEX[name] for name in region["edges"]]
            shape, at = region_shape((tri[0], tri[1], tri[2]), edges)
            add(
                group,
                "polygon",
                points=points_attr(shape),
                fill=fills.get(region["area"], LAND),
                stroke="#6b5b3a",
                stroke_width=0.8,
                data_region=region["ref"],
            )
            labels.append((region, at, len(edges) == 1))
        for region, at, small in labels:
            draw_items(group, region, at, small)
            for civ, ref in markers.items():
                if ref in {f"{cell['cell']}:{edge}" for edge in region["edges"]}:
                    add(
                        group,
                        "circle",
                        cx=f"{at[0]:.1f}",
                        cy=f"{at[1] - 15:.1f}",
                        r=7,
                        fill=CIV_MARK.get(civ, "#000000"),
                        stroke="#000000",
                        stroke_width=1.5,
                        data_civ=civ,
                    )
        # The cell's name along its horizontal edge, for the notation.
        base = lerp(tri[0], tri[1], 0.5)
        inward = lerp(base, tri[2], 0.12)
        add(
            group,
            "text",
            cell["cell"],
            x=f"{inward[0]:.1f}",
            y=f"{inward[1] + 3:.1f}",
            font_size=7,
            text_anchor="middle",
            font_family="sans-serif",
            fill="#2b3a44",
        )
    return ET.tostring(svg, encoding="unicode")
