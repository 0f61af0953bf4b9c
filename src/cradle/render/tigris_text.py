"""Tigris & Euphrates in the terminal: the board and the panels around it, from a view.

Works from ``state.view(seat)`` alone (docs/tigris-view.md), so it shows exactly what that seat
may know: its own hand and points, everyone's public information.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text

from cradle import tigris
from cradle.core.contract import View
from cradle.tigris import MonumentSpot, TigrisView, as_tigris_view

# The board's columns (letters) and rows, from the engine's geometry.
_GEOMETRY = tigris.geometry()
COLUMNS = "".join(name[0] for name in _GEOMETRY.cells[: _GEOMETRY.columns])
ROWS = _GEOMETRY.rows

COLOURS = tigris.COLORS
# Each leader has the colour of its tiles: king black, priest red, farmer blue, trader green.
ROLE_COLOUR = {role: tigris.COLORS[colour] for colour, role in enumerate(tigris.ROLES)}
ROLE_LETTER = {"king": "K", "priest": "P", "farmer": "F", "trader": "T"}
# Palette names (not hex) so that 16-colour terminals still get red, blue, green and grey.
TILE_BG = {"red": "red3", "blue": "blue3", "green": "green4", "black": "grey35"}
LAND_STYLE = "grey50 on grey15"
RIVER_STYLE = "sky_blue2 on navy_blue"
CATASTROPHE_STYLE = "bold yellow1 on dark_magenta"
WONDER_BG = "gold3"
WONDER_STYLE = f"bold grey7 on {WONDER_BG}"
TILE_FG = "grey70"
MARK_STYLE = "bold yellow1"
POINT_LETTER = {"red": "r", "blue": "b", "green": "g", "black": "k"}
CELL_WIDTH = 3


def board_layout(name: str) -> dict[str, str]:
    """Cell -> "~" (river), "S" (special square), "T" (starting temple) or "." (land),
    from the engine's geometry of that board side."""
    geometry = tigris.geometry(name)
    layout = dict.fromkeys(geometry.cells, ".")
    for cells_of_kind, letter in (
        (geometry.river, "~"),
        (geometry.temples, "T"),
        (geometry.special, "S"),
    ):
        for cell in cells_of_kind:
            layout[geometry.cells[cell]] = letter
    return layout


def cells() -> list[str]:
    """The cell names, row by row."""
    return list(_GEOMETRY.cells)


def monument_cells(monuments: list[MonumentSpot]) -> dict[str, str]:
    """Cell -> monument colour shown there: the first colour on one diagonal, the second on
    the other, so a monument reads as a two-coloured 2x2 block."""
    shown: dict[str, str] = {}
    for monument in monuments or []:
        top_left = str(monument.get("cell", ""))
        colours = list(monument.get("colors") or ["black", "black"])
        if len(top_left) < 2 or top_left[0] not in COLUMNS or not top_left[1:].isdigit():
            continue
        col, row = COLUMNS.index(top_left[0]), int(top_left[1:])
        for dc in (0, 1):
            for dr in (0, 1):
                if col + dc < len(COLUMNS):
                    colour = colours[0] if dc == dr else colours[-1]
                    shown[f"{COLUMNS[col + dc]}{row + dr}"] = colour
    return shown


def unification_cell(view: TigrisView) -> str | None:
    unification = view.get("unification")
    if isinstance(unification, str):
        return unification
    if isinstance(unification, dict):
        cell = unification.get("cell")
        return cell if isinstance(cell, str) else None
    return None


def leader_parts(code: str) -> tuple[str, str]:
    """("bull", "king") from "leader:bull:king"."""
    _, dynasty, role = [*code.split(":", 2), "", ""][:3]
    return dynasty, role


def fit(*parts: tuple[str, str], bg: str) -> Text:
    """Styled pieces padded to CELL_WIDTH on the cell's background."""
    text = Text()
    used = sum(len(piece) for piece, _ in parts)
    if used < CELL_WIDTH:
        text.append(" ", style=f"on {bg}")
    for piece, style in parts:
        text.append(piece, style=f"{style} on {bg}")
    text.append(" " * max(0, CELL_WIDTH - len(text)), style=f"on {bg}")
    text.truncate(CELL_WIDTH)
    return text


def cell_text(code: str | None, letter: str, monument_colour: str | None, marks: str) -> Text:
    """One cell, 3 characters wide. Tiles carry their colour's letter (r b g k) so the board
    still reads without colours; ``marks`` are U (unification tile) and B (building)."""
    if code is None:
        return Text(" ~ ", style=RIVER_STYLE) if letter == "~" else Text(" · ", style=LAND_STYLE)
    if code.endswith("*"):
        # Treasures on special squares are the ones a trader must take first.
        marks += "$" if letter == "S" else "*"
        code = code.rstrip("*")
    if code.startswith("leader:"):
        dynasty, role = leader_parts(code)
        bg = TILE_BG.get(ROLE_COLOUR.get(role, ""), "grey0")
        leader = ROLE_LETTER.get(role, "?") + (dynasty[:1] or "?")
        return fit((leader, "bold underline bright_white"), bg=bg)
    if code == "catastrophe":
        return Text(" X ", style=CATASTROPHE_STYLE)
    if code == "wonder":
        return fit(("W", "bold grey7"), (marks, MARK_STYLE), bg=WONDER_BG)
    if code.startswith("down:"):
        colour = monument_colour or code[5:]
        bg = TILE_BG.get(colour, "grey0")
        return fit(("M", "bold bright_white"), (marks, MARK_STYLE), bg=bg)
    if code in TILE_BG:
        return fit((POINT_LETTER[code], TILE_FG), (marks, MARK_STYLE), bg=TILE_BG[code])
    return Text(" ? ", style="bold red")


def board_text(view: TigrisView) -> Text:
    """The 16x11 board with column letters and row numbers."""
    options = view.get("options") or {}
    layout = board_layout(str(options.get("board", "standard")))
    board: dict[str, str] = view.get("board") or {}
    monuments = monument_cells(view.get("monuments") or [])
    buildings = {cell: colour for colour, cell in (view.get("buildings") or {}).items()}
    unified = unification_cell(view)
    text = Text()
    text.append("   " + "".join(c.center(CELL_WIDTH) for c in COLUMNS) + "\n", style="bold")
    for row in range(1, ROWS + 1):
        text.append(f"{row:>2} ", style="bold")
        for column in COLUMNS:
            cell = f"{column}{row}"
            marks = ("U" if cell == unified else "") + ("B" if cell in buildings else "")
            text.append_text(
                cell_text(board.get(cell), layout.get(cell, "."), monuments.get(cell), marks)
            )
        text.append(f" {row:<2}\n", style="bold")
    text.append("   " + "".join(c.center(CELL_WIDTH) for c in COLUMNS), style="bold")
    return text


def legend() -> Text:
    """At most 25 columns wide, so board and legend fit side by side in 80 columns."""
    text = Text()

    def chip(glyph: str, style: str, label: str, end: str = "\n") -> None:
        text.append(glyph, style=style)
        text.append(f" {label}{end}")

    chip(" r ", f"{TILE_FG} on {TILE_BG['red']}", "temple", " ")
    chip(" g ", f"{TILE_FG} on {TILE_BG['green']}", "market")
    chip(" b ", f"{TILE_FG} on {TILE_BG['blue']}", "farm  ", " ")
    chip(" k ", f"{TILE_FG} on {TILE_BG['black']}", "settlement")
    chip(" Kb", f"bold underline bright_white on {TILE_BG['black']}", "leader: role+dynasty")
    text.append("    K king   P priest\n    F farmer T trader\n", style="dim")
    chip(" r*", f"{MARK_STYLE} on {TILE_BG['red']}", "treasure")
    chip(" r$", f"{MARK_STYLE} on {TILE_BG['red']}", "treasure, special sq.")
    chip(" M ", f"bold bright_white on {TILE_BG['blue']}", "monument")
    chip(" X ", CATASTROPHE_STYLE, "catastrophe")
    chip(" gU", f"{MARK_STYLE} on {TILE_BG['green']}", "unification tile")
    chip(" kB", f"{MARK_STYLE} on {TILE_BG['black']}", "building", " ")
    chip(" W ", WONDER_STYLE, "wonder")
    chip(" ~ ", RIVER_STYLE, "river", "")
    return text


def colour_chip(colour: str, label: str | None = None) -> Text:
    return Text(
        f" {label or colour} ", style=f"bold bright_white on {TILE_BG.get(colour, 'grey0')}"
    )


def hand_text(hand: list[str]) -> Text:
    text = Text()
    text.append("Hand: ", style="bold")
    if not hand:
        text.append("(empty)", style="dim")
    for tile in sorted(hand, key=lambda c: COLOURS.index(c) if c in COLOURS else 9):
        text.append_text(colour_chip(tile))
        text.append(" ")
    return text


def points_text(points: dict[str, int] | None) -> str:
    if not points:
        return "hidden"
    return " ".join(f"{POINT_LETTER[c]}{points.get(c, 0)}" for c in COLOURS)


def scores_table(view: TigrisView) -> Table:
    players: list[str] = list(view.get("players") or [])
    active, to_move = view.get("active"), view.get("to_move")
    points: dict[str, dict[str, int]] = view.get("points") or {}
    table = Table(title=None, box=None, padding=(0, 1), header_style="bold")
    for heading in (
        "",
        "seat",
        "dynasty",
        "points r b g k",
        "treasures",
        "hand",
        "catast.",
        "supply",
    ):
        table.add_column(heading)
    hand_sizes = view.get("hand_sizes") or {}
    treasures = view.get("treasures") or {}
    catastrophes = view.get("catastrophes") or {}
    supply = view.get("supply") or {}
    for seat, dynasty in enumerate(players):
        marker = ">" if seat == to_move else ("*" if seat == active else "")
        leaders = " ".join(ROLE_LETTER.get(role, role) for role in supply.get(dynasty, []))
        table.add_row(
            marker,
            str(seat),
            Text(dynasty, style="bold" if seat == view.get("seat") else ""),
            points_text(points.get(dynasty)),
            str(treasures.get(dynasty, 0)),
            str(hand_sizes.get(dynasty, "")),
            str(catastrophes.get(dynasty, "")),
            leaders or "-",
        )
    return table


def describe(value: object) -> str:
    """A compact one-line rendering of a JSON value, for panels the engine shapes."""
    if isinstance(value, dict):
        return ", ".join(f"{key} {describe(item)}" for key, item in value.items())
    if isinstance(value, list):
        return "[" + ", ".join(describe(item) for item in value) + "]"
    return str(value)


SEAT_KEYS = ("attacker", "defender", "seat", "owner", "active")


def pending_text(view: TigrisView) -> Text:
    """The conflict or choice in progress, in words, with seats named by their dynasty."""
    pending: Mapping[str, object] = view["pending"] or {}
    players: list[str] = list(view.get("players") or [])

    def name(seat: object) -> str:
        return players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else str(seat)

    kind = str(pending.get("kind", "decision"))
    text = Text()
    text.append(f"{kind.replace('_', ' ').capitalize()}: ", style="bold orange1")
    if kind in ("revolt", "war"):
        committed = pending.get("attacker_commit")
        text.append(
            f"{name(pending.get('attacker'))} attacks with "
            f"{pending.get('attacker_strength', '?')}"
            + (f" + {committed} committed" if committed is not None else "")
            + f", {name(pending.get('defender'))} defends with "
            f"{pending.get('defender_strength', '?')} (ties go to the defender); "
            f"{pending.get('color', '?')} leaders"
        )
        if pending.get("queue"):
            text.append(f"; wars still to come: {describe(pending['queue'])}")
    elif kind == "war_order":
        text.append(
            f"the active player chooses the next war among {describe(pending.get('colors'))}"
        )
    elif kind == "treasure":
        text.append(
            f"{name(pending.get('seat'))} takes treasures from {describe(pending.get('cells'))}"
        )
    else:
        details = [
            f"{key.replace('_', ' ')} {name(value) if key in SEAT_KEYS else describe(value)}"
            for key, value in pending.items()
            if key != "kind" and value is not None
        ]
        text.append("; ".join(details))
    return text


def monuments_text(view: TigrisView) -> Text:
    text = Text()
    text.append("Monuments: ", style="bold")
    built = view.get("monuments") or []
    for monument in built:
        colours = monument.get("colors") or []
        text.append("-".join(colours) + f" at {monument.get('cell')}  ")
    if not built:
        text.append("none built  ")
    unused = view.get("unused_monuments")
    if unused:
        text.append("unused: ", style="dim")
        text.append(" ".join("-".join(pair) for pair in unused), style="dim")
    return text


def header_text(view: TigrisView) -> Text:
    options = view.get("options") or {}
    players: list[str] = list(view.get("players") or [])
    variants = [
        name.replace("_", " ") for name in ("buildings", "english", "wonder", "open_scoring")
    ]
    variants = [v for v in variants if options.get(v.replace(" ", "_"))]
    text = Text()
    text.append("Tigris & Euphrates", style="bold")
    text.append(f"  {options.get('board', 'standard')} board")
    if variants:
        text.append("  +" + " +".join(variants))
    text.append(f"  bag {view.get('bag_size', '?')}")
    active = view.get("active")
    if isinstance(active, int) and 0 <= active < len(players):
        text.append(f"  turn: {players[active]}")
        if view.get("actions_left") is not None:
            text.append(f" ({view['actions_left']} action(s) left)")
    if view.get("ending") and not view.get("is_over"):
        text.append("  the game ends after this turn", style="bold indian_red1")
    if view.get("is_over"):
        text.append("  game over", style="bold indian_red1")
    return text


def text_width(text: Text) -> int:
    return max(cell_len(line) for line in text.plain.splitlines() or [""])


class SideBySide:
    """The board with the legend to its right when the terminal is wide enough, else below."""

    def __init__(self, left: Text, right: Text) -> None:
        self.left, self.right = left, right

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width >= text_width(self.left) + 1 + text_width(self.right):
            grid = Table.grid(padding=(0, 1))
            grid.add_column(no_wrap=True)
            grid.add_column(no_wrap=True)
            grid.add_row(self.left, self.right)
            yield grid
        else:
            yield self.left
            yield self.right


def render_view(shown: View) -> RenderableType:
    """Everything a seat may see, ready for ``Console.print``."""
    view = as_tigris_view(shown)
    board = SideBySide(board_text(view), legend())
    parts: list[RenderableType] = [header_text(view), board, scores_table(view)]
    parts.append(monuments_text(view))
    unified = unification_cell(view)
    if unified:
        parts.append(Text(f"Unification tile on {unified}", style="bold"))
    buildings = view.get("buildings") or {}
    if buildings:
        parts.append(
            Text("Buildings: " + ", ".join(f"{c} on {cell}" for c, cell in buildings.items()))
        )
    if view.get("wonder"):
        parts.append(Text(f"Wonder: {describe(view['wonder'])}"))
    if view.get("pending"):
        parts.append(pending_text(view))
    seat = view.get("seat")
    if isinstance(seat, int) and view.get("hand") is not None:
        players = list(view.get("players") or [])
        name = players[seat] if 0 <= seat < len(players) else str(seat)
        mine = (view.get("points") or {}).get(name)
        line = hand_text(list(view["hand"] or []))
        line.append(f"   {name}'s points: ", style="bold")
        line.append(" · ".join(f"{c} {mine.get(c, 0)}" for c in COLOURS) if mine else "hidden")
        parts.append(line)
    return Group(*parts)
