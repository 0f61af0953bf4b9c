"""Gheos in the terminal: the triangular map and the panels around it, from a view.

Works from ``state.view(seat)`` alone (docs/gheos.md), so it shows exactly what that seat may
know. Each triangle is drawn with ``/``, ``\\`` and ``_`` three lines high; every edge is
coloured by the area of the land on it (land on both sides of a shared edge is one area), so
the continents, islands and civilizations read off the colours. Inside a triangle: ``w c s``
wheat, cup, sword; ``W C S`` a temple of that kind; ``▲`` a pyramid; ``●`` a civilization's
marker; ``·`` an empty cell where a tile may go.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from cradle import gheos
from cradle.core.contract import View
from cradle.core.words import N_
from cradle.gheos import CellView, GheosView, RegionView, as_gheos_view
from cradle.gheos.tiles import TileRegion
from cradle.gheos.types import symbol_counts
from cradle.i18n import _, ngettext, word
from cradle.render.gheos_areas import area_looks

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
# Whose step it is and what it asks for.
PHASE_TEXT = {
    "tile": N_("{player} to place or replace a tile"),
    "pay": N_("{player} to pay a follower for the war or migration"),
    "migrate": N_("{player} to choose where the civilization migrates"),
    "war": N_("{player} to choose the winner of the tied war"),
    "civ": N_("{player} to start a civilization or take a follower"),
    "token": N_("{player} to play a scoring token or pass"),
}
SYMBOLS = {
    "wheat": N_("wheat"),
    "cup": N_("cup"),
    "sword": N_("sword"),
    "pyramid": N_("pyramid"),
}
TEMPLES = {"wheat": N_("wheat temple"), "cup": N_("cup temple"), "sword": N_("sword temple")}

Cell = tuple[int, int]


def _cell(name: str) -> Cell:
    row, col = name.split(",")
    return int(row), int(col)


def area_styles(view: GheosView) -> dict[int, str]:
    return area_looks(view, CIV_STYLE, "bold", FREE_CONTINENT_STYLE, ISLAND_STYLE, LAND_STYLE)


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
        items += [_(SYMBOLS.get(symbol, symbol))] * count
    if region["pyramid"]:
        items.append(_("pyramid"))
    if region["temple"]:
        items.append(_(TEMPLES.get(region["temple"], region["temple"])))
    return ", ".join(items) or _("nothing")


def hand_panel(view: GheosView) -> RenderableType:
    table = Table(title=_("Your hand"), title_justify="left", header_style="bold", box=None)
    table.add_column(_("tile"), style="bold")
    table.add_column(_("regions (the tile's own edges 0, 1, 2 at r0)"))
    for tile in view["hand"] or []:
        parts = []
        for region in tile["regions"]:
            edges = "".join(str(e) for e in region["edges"])
            held = region_text(region)
            parts.append(
                _("landmass {edges}: {held}").format(edges=edges, held=held)
                if region["landmass"]
                else _("coast {edges}: {held}").format(edges=edges, held=held)
            )
        table.add_row(tile["tile"], " | ".join(parts))
    note = Text(
        _(
            "r0 puts edges 0 1 2 on s nw ne of an up cell ▲, on n se sw of a down cell ▼;\n"
            "r1 and r2 turn the tile 120° and 240° clockwise."
        ),
        style="dim",
    )
    return Group(table, note)


def players_panel(view: GheosView) -> Table:
    table = Table(header_style="bold", box=None, padding=(0, 1))
    for heading in ("", _("player"), _("points"), _("tokens"), _("followers"), _("tiles")):
        table.add_column(heading)
    for seat, name in enumerate(view["players"]):
        follower_text = Text()
        for civ, count in view["followers"].get(name, {}).items():
            follower_text.append("■" * count, style=CIV_STYLE.get(civ, "bold"))
            follower_text.append(" ")
        table.add_row(
            "▶" if seat == view["active"] and not view["is_over"] else "",
            Text(word("player", name), style="bold" if seat == view.get("seat") else ""),
            str(view["points"][name]),
            str(view["tokens"][name]),
            follower_text if follower_text.plain else Text("-", style="dim"),
            str(view["hand_sizes"][name]),
        )
    return table


def areas_panel(view: GheosView) -> Table:
    table = Table(header_style="bold", box=None, padding=(0, 1))
    headings = ("continent", "at", "tiles", "wheat", "cup", "sword", "pyramid", "supply")
    for heading in (_(h) for h in headings):
        table.add_column(heading)
    rows = [a for a in view["areas"] if a["kind"] == "continent"]
    rows.sort(key=lambda a: (a["civ"] is None, a["civ"] or "", a["area"]))
    for area in rows:
        civ = area["civ"]
        label = (
            Text(word("colour", civ), style=CIV_STYLE.get(civ, "bold"))
            if civ
            else Text(_("free"), FREE_CONTINENT_STYLE)
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
    text = Text(_("Resolving the tile on {cell}: ").format(cell=pending["cell"]), style="bold")
    if pending["kind"] == "pay":
        text.append(_("the active player pays one follower for the war or migration."))
    elif pending["kind"] == "migrate":
        migration = pending["migrations"][0]
        text.append(
            _("the {colour} civilization migrates; tied parts: {parts}").format(
                colour=word("colour", migration["civ"]), parts=", ".join(migration["options"])
            )
        )
    elif pending["kind"] == "war" and pending["wars"]:
        war = pending["wars"][0]
        swords = pending.get("swords", {})
        fighters = ", ".join(
            ngettext(
                "{colour} ({count} sword)", "{colour} ({count} swords)", swords.get(c, 0)
            ).format(colour=word("colour", c), count=swords.get(c, 0))
            for c in war["civs"]
        )
        tied = ", ".join(word("colour", c) for c in war["options"])
        text.append(_("war between {fighters}; tied: {tied}").format(fighters=fighters, tied=tied))
    return text


def render_view(shown: View) -> RenderableType:
    """The whole screen for one seat (or a spectator): map, players, continents, hand."""
    view = as_gheos_view(shown)
    active = view["players"][view["active"]]
    header = Text.assemble(
        ("Gheos", "bold"),
        "  "
        + ngettext(
            "epoch tiles drawn {drawn} (the game ends with epoch {end}), {count} tile in the stack",
            "epoch tiles drawn {drawn} (the game ends with epoch {end}), {count} tiles in the stack",
            view["stack_size"],
        ).format(drawn=view["epochs_drawn"], end=view["end_epoch"], count=view["stack_size"]),
    )
    phase = PHASE_TEXT.get(view["phase"])
    status = Text(
        _(phase).format(player=word("player", active)) if phase else word("player", active),
        style="bold",
    )
    if view["is_over"]:
        status = Text(_("The game is over."), style="bold")
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
    text = Text(_("w c s wheat cup sword, W C S temples, ▲ pyramid, ● marker; "), style="dim")
    text.append(_("free continent"), style=FREE_CONTINENT_STYLE)
    text.append(", ", style="dim")
    text.append(_("island"), style=ISLAND_STYLE)
    text.append(", ", style="dim")
    text.append(_("land"), style=LAND_STYLE)
    return text


# -- the events in words -------------------------------------------------------------------


def event_text(event: Mapping[str, object], players: list[str]) -> str:
    """An engine event in the language, from its fields. Where the event lacks a field its
    English sentence holds (who did it, a temple's kind, the scores), that part is read from
    the sentence; an event of a kind not known here keeps the engine's words."""
    text = str(event.get("text", ""))
    first = word("player", text.split(" ")[0]) if text else ""

    def number(key: str) -> int:
        value = event.get(key)
        return value if isinstance(value, int) else 0

    def scores() -> str:
        points = event.get("points")
        if not isinstance(points, dict):
            return ""
        return ", ".join(f"{word('player', name)} {gained}" for name, gained in points.items())

    kind = event.get("type")
    colour = word("colour", event.get("civ") or event.get("colour") or "")
    said = {"player": first, "cell": event.get("cell", ""), "tile": event.get("tile", "")}
    if kind == "place":
        return _("{player} places {tile} on {cell}").format(**said)
    if kind == "replace":
        return _(
            "{player} replaces {removed} on {cell} with {tile}; {removed} leaves the game"
        ).format(removed=event.get("removed", ""), **said)
    if kind == "conflict":
        player = word("player", text.split("; ")[-1].split(" ")[0])
        if "migration" in text:
            return _("this starts a migration; {player} pays one follower").format(player=player)
        return _("this starts a war; {player} pays one follower").format(player=player)
    if kind == "pay":
        return _("{player} returns a {colour} follower to the supply").format(
            player=first, colour=colour
        )
    if kind == "migration":
        return _("the {colour} civilization migrates to the continent at {area}").format(
            colour=colour, area=event.get("to", "")
        )
    if kind == "war":
        civs = event.get("civs")
        fighters = ", ".join(word("colour", c) for c in civs) if isinstance(civs, list) else ""
        return _("war between {colours}: {colour} wins").format(
            colours=fighters, colour=word("colour", event.get("winner", ""))
        )
    if kind == "civ_removed":
        if "migrated into" in text:
            return _(
                "the {colour} civilization migrated into an occupied continent: its marker and "
                "all its followers return to the supply"
            ).format(colour=colour)
        if " lost" in text:
            return _(
                "the {colour} civilization lost: its marker and all its followers return to the "
                "supply"
            ).format(colour=colour)
        return text
    if kind == "temple":
        return ngettext(
            "{player} scores {count} for a temple",
            "{player} scores {count} for a temple",
            number("points"),
        ).format(player=word("player", event.get("player", "")), count=number("points"))
    if kind == "start":
        return ngettext(
            "{player} starts the {colour} civilization on the continent at {area} and takes "
            "{count} follower",
            "{player} starts the {colour} civilization on the continent at {area} and takes "
            "{count} followers",
            number("followers"),
        ).format(player=first, colour=colour, area=event.get("at", ""), count=number("followers"))
    if kind == "take":
        return _("{player} takes a {colour} follower").format(player=first, colour=colour)
    if kind == "token":
        return ngettext(
            "{player} plays a scoring token and scores {count}",
            "{player} plays a scoring token and scores {count}",
            number("points"),
        ).format(player=word("player", event.get("player", "")), count=number("points"))
    if kind == "end":
        if text.startswith("epoch"):
            return _("the last epoch tile is drawn: the game ends")
        return _("every scoring token has been played: the game ends")
    if kind == "skip":
        return _("{player} can neither start a civilization nor take a follower").format(
            player=first
        )
    if kind == "draw":
        return _("{player} draws a tile").format(player=first)
    if kind == "epoch":
        return _("{player} draws epoch tile {number}: epoch scoring").format(
            player=first, number=number("epoch")
        )
    if kind == "epoch_scoring":
        return _("pyramids score: {scores}").format(scores=scores())
    if kind == "final_scoring":
        return _("final scoring (cups): {scores}").format(scores=scores())
    if kind == "result":
        ranking = event.get("ranking")
        rows = ranking if isinstance(ranking, list) else []
        standings = ", ".join(
            ngettext(
                "{place}. {player} {count} point", "{place}. {player} {count} points", row["points"]
            ).format(place=row["place"], player=word("player", row["player"]), count=row["points"])
            for row in rows
            if isinstance(row, dict)
        )
        return _("result: {standings}").format(standings=standings)
    return text
