"""Gheos in the terminal: the triangular map and the panels around it, from a view.

Works from ``state.view(seat)`` alone (docs/gheos.md), so it shows exactly what that seat may
know. Each triangle is drawn with ``/``, ``\\`` and ``_`` three lines high; every edge is
coloured by the area of the land on it (land on both sides of a shared edge is one area), so
the continents, islands and civilizations read off the colours. Inside a triangle: ``w c s``
wheat, cup, sword; ``W C S`` a temple of that kind; ``▲`` a pyramid; ``●`` a civilization's
marker; ``·`` an empty cell where a tile may go.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from cradle import gheos
from cradle.core.contract import View
from cradle.gheos import CellView, GheosView, RegionView, as_gheos_view
from cradle.gheos.tiles import TileRegion
from cradle.gheos.types import symbol_counts

# Palette names (not hex) so that 16-colour terminals still tell the civilizations apart.
CIV_STYLE = {
    "red": "bold red1",
    "green": "bold green3",
    "yellow": "bold yellow1",
    "blue": "bold dodger_blue1",
    "black": "bold grey58",
    "white": "bold bright_white",
}
FREE_CONTINENT_STYLE = "orange3"
ISLAND_STYLE = "cyan"
LAND_STYLE = "grey50"
FRONTIER_STYLE = "grey35"
SYMBOL_LETTER = {"wheat": "w", "cup": "c", "sword": "s"}
PHASE_TEXT = {
    "tile": "place or replace a tile",
    "pay": "pay a follower for the war or migration",
    "migrate": "choose where the civilization migrates",
    "war": "choose the winner of the tied war",
    "civ": "start a civilization or take a follower",
    "token": "play a scoring token or pass",
    "over": "the game is over",
}

Cell = tuple[int, int]


def _cell(name: str) -> Cell:
    row, col = name.split(",")
    return int(row), int(col)


def area_styles(view: GheosView) -> dict[int, str]:
    styles = {}
    for area in view["areas"]:
        if area["civ"]:
            style = CIV_STYLE.get(area["civ"], "bold")
        elif area["kind"] == "continent":
            style = FREE_CONTINENT_STYLE
        elif area["kind"] == "island":
            style = ISLAND_STYLE
        else:
            style = LAND_STYLE
        styles[area["area"]] = style
    return styles


class Canvas:
    """A grid of (character, style) to draw the map on."""

    def __init__(self, width: int, height: int) -> None:
        self.cells = [[(" ", "")] * width for _ in range(height)]

    def put(self, line: int, x: int, char: str, style: str) -> None:
        if 0 <= line < len(self.cells) and 0 <= x < len(self.cells[line]):
            self.cells[line][x] = (char, style)

    def lines(self) -> list[Text]:
        out = []
        for row in self.cells:
            text = Text(no_wrap=True, overflow="crop")
            for char, style in row:
                text.append(char, style=style or None)
            text.rstrip()
            out.append(text)
        return out


def _edge_points(up: bool, edge: int, top: int, x0: int) -> list[tuple[int, int, str]]:
    """Where edge ``edge`` of a triangle is drawn: (line, x, char)."""
    if up:  # s, nw, ne
        if edge == 0:
            return [(top + 2, x0 + i, "_") for i in range(1, 5)]
        if edge == 1:
            return [(top, x0 + 2, "/"), (top + 1, x0 + 1, "/"), (top + 2, x0, "/")]
        return [(top, x0 + 3, "\\"), (top + 1, x0 + 4, "\\"), (top + 2, x0 + 5, "\\")]
    if edge == 0:  # n, se, sw
        return [(top - 1, x0 + i, "_") for i in range(1, 5)]
    if edge == 1:
        return [(top, x0 + 5, "/"), (top + 1, x0 + 4, "/"), (top + 2, x0 + 3, "/")]
    return [(top, x0, "\\"), (top + 1, x0 + 1, "\\"), (top + 2, x0 + 2, "\\")]


def _inside(up: bool, top: int, x0: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The free character places inside a triangle: (the wide line, the narrow line)."""
    if up:
        return [(top + 2, x0 + i) for i in range(1, 5)], [(top + 1, x0 + 2), (top + 1, x0 + 3)]
    return [(top, x0 + i) for i in range(1, 5)], [(top + 1, x0 + 2), (top + 1, x0 + 3)]


EDGE_INDEX = {"s": 0, "nw": 1, "ne": 2, "n": 0, "se": 1, "sw": 2}


def render_map(view: GheosView) -> list[Text]:
    """The map as lines of text, with column numbers above and row numbers on the left."""
    tiles = {(c["row"], c["col"]): c for c in view["map"]}
    frontier = [_cell(name) for name in view.get("frontier", [])]
    every = list(tiles) + frontier
    if not every:
        return [Text("(no tile on the table)", style="dim")]
    min_row = min(r for r, _ in every)
    max_row = max(r for r, _ in every)
    min_col = min(c for _, c in every)
    max_col = max(c for _, c in every)
    margin = 5
    width = margin + 3 * (max_col - min_col) + 6
    height = 1 + 3 * (max_row - min_row + 1)
    canvas = Canvas(width, height)
    styles = area_styles(view)
    markers = {civ: info["ref"] for civ, info in view["civilizations"].items()}

    def origin(row: int, col: int) -> tuple[int, int]:
        return 1 + 3 * (row - min_row), margin + 3 * (col - min_col)

    for row, col in frontier:
        top, x0 = origin(row, col)
        _, narrow = _inside(gheos.is_up(row, col), top, x0)
        canvas.put(*narrow[0], "·", FRONTIER_STYLE)
    # Edges first, then what sits inside: neighbours share the lines their edges are on.
    for cell in tiles.values():
        top, x0 = origin(cell["row"], cell["col"])
        for region in cell["regions"]:
            style = styles.get(region["area"], LAND_STYLE)
            for name in region["edges"]:
                for line, x, char in _edge_points(cell["up"], EDGE_INDEX[name], top, x0):
                    canvas.put(line, x, char, style)
    for cell in tiles.values():
        up = cell["up"]
        top, x0 = origin(cell["row"], cell["col"])
        wide, narrow = _inside(up, top, x0)
        items: list[tuple[str, str]] = []
        marks: list[tuple[str, str]] = []
        for region in cell["regions"]:
            style = styles.get(region["area"], LAND_STYLE)
            counts = symbol_counts(region)
            for symbol, letter in SYMBOL_LETTER.items():
                items += [(letter, style)] * counts[symbol]
            if region["temple"]:
                items.append((SYMBOL_LETTER[region["temple"]].upper(), style))
            if region["pyramid"]:
                items.append(("▲", style))
            for civ, ref in markers.items():
                if ref in _refs(cell, region):
                    marks.append(("●", CIV_STYLE.get(civ, "bold")))
        # Symbols on the wide line, the marker (and any overflow) on the narrow one.
        placed = list(zip(wide, items[:4], strict=False))
        placed += list(zip(narrow, marks + items[4:], strict=False))
        for (line, x), (char, style) in placed:
            # An up cell's wide line is its bottom edge: keep it visible as an underline.
            if up and line == top + 2:
                style = f"{style} underline"
            canvas.put(line, x, char, style)
    # Row numbers on the left, column numbers above (alternating on two lines).
    for row in range(min_row, max_row + 1):
        top, _ = origin(row, min_col)
        for i, ch in enumerate(f"{row:>3}"):
            canvas.put(top + 1, i, ch, "dim")
    header = [Canvas(width, 1), Canvas(width, 1)]
    for col in range(min_col, max_col + 1):
        _, x0 = origin(min_row, col)
        label = str(col)
        start = x0 + 3 - len(label) // 2 - (1 if len(label) % 2 == 0 else 0)
        for i, ch in enumerate(label):
            header[col % 2].put(0, start + i, ch, "dim")
    return header[0].lines() + header[1].lines() + canvas.lines()


def _refs(cell: CellView, region: RegionView) -> set[str]:
    return {f"{cell['cell']}:{edge}" for edge in region["edges"]}


def _edge_style(cell: CellView, edge: int, styles: dict[int, str]) -> str:
    for region in cell["regions"]:
        if any(EDGE_INDEX[name] == edge for name in region["edges"]):
            return styles.get(region["area"], LAND_STYLE)
    return LAND_STYLE


def region_text(region: RegionView | TileRegion) -> str:
    items = []
    for symbol, count in symbol_counts(region).items():
        items += [symbol] * count
    if region["pyramid"]:
        items.append("pyramid")
    if region["temple"]:
        items.append(f"{region['temple']} temple")
    return ", ".join(items) or "nothing"


def hand_panel(view: GheosView) -> RenderableType:
    table = Table(title="Your hand", title_justify="left", header_style="bold", box=None)
    table.add_column("tile", style="bold")
    table.add_column("regions (the tile's own edges 0, 1, 2 at r0)")
    for tile in view["hand"] or []:
        parts = []
        for region in tile["regions"]:
            kind = "landmass" if region["landmass"] else "coast"
            edges = "".join(str(e) for e in region["edges"])
            parts.append(f"{kind} {edges}: {region_text(region)}")
        table.add_row(tile["tile"], " | ".join(parts))
    note = Text(
        "r0 puts edges 0 1 2 on s nw ne of an up cell ▲, on n se sw of a down cell ▼;\n"
        "r1 and r2 turn the tile 120° and 240° clockwise.",
        style="dim",
    )
    return Group(table, note)


def players_panel(view: GheosView) -> Table:
    table = Table(header_style="bold", box=None, padding=(0, 1))
    for heading in ("", "player", "points", "tokens", "followers", "tiles"):
        table.add_column(heading)
    for seat, name in enumerate(view["players"]):
        follower_text = Text()
        for civ, count in view["followers"].get(name, {}).items():
            follower_text.append("■" * count, style=CIV_STYLE.get(civ, "bold"))
            follower_text.append(" ")
        table.add_row(
            "▶" if seat == view["active"] and not view["is_over"] else "",
            Text(name, style="bold" if seat == view.get("seat") else ""),
            str(view["points"][name]),
            str(view["tokens"][name]),
            follower_text if follower_text.plain else Text("-", style="dim"),
            str(view["hand_sizes"][name]),
        )
    return table


def areas_panel(view: GheosView) -> Table:
    table = Table(header_style="bold", box=None, padding=(0, 1))
    for heading in ("continent", "at", "tiles", "wheat", "cup", "sword", "pyramid", "supply"):
        table.add_column(heading)
    rows = [a for a in view["areas"] if a["kind"] == "continent"]
    rows.sort(key=lambda a: (a["civ"] is None, a["civ"] or "", a["area"]))
    for area in rows:
        civ = area["civ"]
        label = (
            Text(civ, style=CIV_STYLE.get(civ, "bold"))
            if civ
            else Text("free", FREE_CONTINENT_STYLE)
        )
        supply = str(view["civilizations"][civ]["supply"]) if civ else ""
        table.add_row(
            label,
            area["ref"],
            str(area["tiles"]),
            str(area["wheat"]),
            str(area["cup"]),
            str(area["sword"]),
            str(area["pyramid"]),
            supply,
        )
    return table


def pending_text(view: GheosView) -> Text | None:
    pending = view.get("pending")
    if not pending:
        return None
    text = Text(f"Resolving the tile on {pending['cell']}: ", style="bold")
    if pending["kind"] == "pay":
        text.append("the active player pays one follower for the war or migration.")
    elif pending["kind"] == "migrate":
        migration = pending["migrations"][0]
        text.append(
            f"the {migration['civ']} civilization migrates; tied parts: "
            + ", ".join(migration["options"])
        )
    elif pending["kind"] == "war" and pending["wars"]:
        war = pending["wars"][0]
        swords = pending.get("swords", {})
        fighters = ", ".join(
            f"{c} ({swords.get(c, 0)} sword{'' if swords.get(c, 0) == 1 else 's'})"
            for c in war["civs"]
        )
        text.append(f"war between {fighters}; tied: {', '.join(war['options'])}")
    return text


def render_view(shown: View) -> RenderableType:
    """The whole screen for one seat (or a spectator): map, players, continents, hand."""
    view = as_gheos_view(shown)
    active = view["players"][view["active"]]
    header = Text.assemble(
        ("Gheos", "bold"),
        f"  epoch tiles drawn {view['epochs_drawn']} (the game ends with the "
        f"{view['end_epoch']}th), {view['stack_size']} tiles in the stack",
    )
    status = Text.assemble(
        (f"{active}", "bold"),
        f" to {PHASE_TEXT.get(view['phase'], view['phase'])}" if not view["is_over"] else "",
    )
    if view["is_over"]:
        status = Text("The game is over.", style="bold")
    parts: list[RenderableType] = [header, *render_map(view), legend(), players_panel(view)]
    if any(a["kind"] == "continent" for a in view["areas"]):
        parts.append(areas_panel(view))
    pending = pending_text(view)
    if pending is not None:
        parts.append(pending)
    if view.get("hand") is not None:
        parts.append(hand_panel(view))
    parts.append(status)
    return Group(*parts)


def legend() -> Text:
    text = Text("w c s wheat cup sword, W C S temples, ▲ pyramid, ● marker; ", style="dim")
    text.append("free continent", style=FREE_CONTINENT_STYLE)
    text.append(", ", style="dim")
    text.append("island", style=ISLAND_STYLE)
    text.append(", ", style="dim")
    text.append("land", style=LAND_STYLE)
    return text
