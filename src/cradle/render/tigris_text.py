"""Tigris & Euphrates in the terminal: the board and the panels around it, from a view.

Works from ``state.view(seat)`` alone (docs/tigris-view.md), so it shows exactly what that seat
may know: its own hand and points, everyone's public information.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text

from cradle import tigris
from cradle.core.contract import View
from cradle.core.words import N_
from cradle.i18n import _, ngettext, word
from cradle.tigris import MonumentSpot, TigrisView, as_tigris_view

# The board's columns (letters) and rows, from the engine's geometry.
_GEOMETRY = tigris.geometry()
COLUMNS = "".join(name[0] for name in _GEOMETRY.cells[: _GEOMETRY.columns])
ROWS = _GEOMETRY.rows

# Each leader has the colour of its tiles: king black, priest red, farmer blue, trader green.
ROLE_COLOUR = {role: tigris.COLOURS[colour] for colour, role in enumerate(tigris.ROLES)}
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

    # Two short labels share a line: each is padded to the width of the longer of the pair.
    pair = max(len(_("temple")), len(_("farm")))
    chip(" r ", f"{TILE_FG} on {TILE_BG['red']}", _("temple").ljust(pair), " ")
    chip(" g ", f"{TILE_FG} on {TILE_BG['green']}", _("market"))
    chip(" b ", f"{TILE_FG} on {TILE_BG['blue']}", _("farm").ljust(pair), " ")
    chip(" k ", f"{TILE_FG} on {TILE_BG['black']}", _("settlement"))
    chip(" Kb", f"bold underline bright_white on {TILE_BG['black']}", _("leader: role+dynasty"))
    text.append(_("    K king   P priest\n    F farmer T trader\n"), style="dim")
    chip(" r*", f"{MARK_STYLE} on {TILE_BG['red']}", _("treasure"))
    chip(" r$", f"{MARK_STYLE} on {TILE_BG['red']}", _("treasure, special sq."))
    chip(" M ", f"bold bright_white on {TILE_BG['blue']}", _("monument"))
    chip(" X ", CATASTROPHE_STYLE, _("catastrophe"))
    chip(" gU", f"{MARK_STYLE} on {TILE_BG['green']}", _("unification tile"))
    chip(" kB", f"{MARK_STYLE} on {TILE_BG['black']}", _("building"), " ")
    chip(" W ", WONDER_STYLE, _("wonder"))
    chip(" ~ ", RIVER_STYLE, _("river"), "")
    return text


def colour_chip(colour: str, label: str | None = None) -> Text:
    return Text(
        f" {label or colour} ", style=f"bold bright_white on {TILE_BG.get(colour, 'grey0')}"
    )


def hand_text(hand: list[str]) -> Text:
    text = Text()
    text.append(_("Hand: "), style="bold")
    if not hand:
        text.append(_("(empty)"), style="dim")
    for tile in sorted(hand, key=lambda c: tigris.COLOURS.index(c) if c in tigris.COLOURS else 9):
        text.append_text(colour_chip(tile, word("colour", tile)))
        text.append(" ")
    return text


def points_text(points: dict[str, int] | None) -> str:
    if not points:
        return _("hidden")
    return " ".join(f"{POINT_LETTER[c]}{points.get(c, 0)}" for c in tigris.COLOURS)


def scores_table(view: TigrisView) -> Table:
    players: list[str] = list(view.get("players") or [])
    active, to_move = view.get("active"), view.get("to_move")
    points: dict[str, dict[str, int]] = view.get("points") or {}
    table = Table(title=None, box=None, padding=(0, 1), header_style="bold")
    for heading in (
        "",
        _("seat"),
        _("dynasty"),
        _("points r b g k"),
        _("treasures"),
        _("hand"),
        _("catast."),
        _("supply"),
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
            Text(word("player", dynasty), style="bold" if seat == view.get("seat") else ""),
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
        if isinstance(seat, int) and 0 <= seat < len(players):
            return word("player", players[seat])
        return str(seat)

    def colours(value: object) -> str:
        return ", ".join(word("colour", c) for c in value) if isinstance(value, list) else "?"

    kind = str(pending.get("kind", "decision"))
    text = Text()
    titles = {
        "revolt": _("Revolt"),
        "war": _("War"),
        "war_order": _("War order"),
        "treasure": _("Treasure"),
        "monument": _("Monument"),
        "building": _("Building"),
        "wonderpoint": _("Wonder's point"),
    }
    text.append(
        _("{title}: ").format(title=titles.get(kind, kind.replace("_", " ").capitalize())),
        style="bold orange1",
    )
    if kind in ("revolt", "war"):
        committed = pending.get("attacker_commit")
        said = {
            "attacker": name(pending.get("attacker")),
            "attack": pending.get("attacker_strength", "?"),
            "committed": committed,
            "defender": name(pending.get("defender")),
            "defence": pending.get("defender_strength", "?"),
            "colour": word("colour", pending.get("color", "?")),
        }
        text.append(
            _(
                "{attacker} attacks with {attack} + {committed} committed, {defender} defends "
                "with {defence} (ties go to the defender); {colour} leaders"
            ).format(**said)
            if committed is not None
            else _(
                "{attacker} attacks with {attack}, {defender} defends with {defence} (ties go "
                "to the defender); {colour} leaders"
            ).format(**said)
        )
        if pending.get("queue"):
            wars = "[" + colours(pending["queue"]) + "]"
            text.append(_("; wars still to come: {wars}").format(wars=wars))
    elif kind == "war_order":
        text.append(
            _("the active player chooses the next war among {wars}").format(
                wars=colours(pending.get("colors"))
            )
        )
    elif kind == "treasure":
        text.append(
            _("{player} takes treasures from {cells}").format(
                player=name(pending.get("seat")), cells=describe(pending.get("cells"))
            )
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
    text.append(_("Monuments: "), style="bold")
    built = view.get("monuments") or []
    for monument in built:
        colours = "-".join(word("colour", c) for c in monument.get("colors") or [])
        text.append(_("{colours} at {cell}").format(colours=colours, cell=monument.get("cell")))
        text.append("  ")
    if not built:
        text.append(_("none built") + "  ")
    unused = view.get("unused_monuments")
    if unused:
        text.append(_("unused: "), style="dim")
        pairs = ("-".join(word("colour", c) for c in pair) for pair in unused)
        text.append(" ".join(pairs), style="dim")
    return text


def header_text(view: TigrisView) -> Text:
    options = view.get("options") or {}
    players: list[str] = list(view.get("players") or [])
    names = {
        "buildings": _("buildings"),
        "english": _("english"),
        "wonder": _("wonder"),
        "open_scoring": _("open scoring"),
    }
    variants = [names[key] for key in names if options.get(key)]
    text = Text()
    text.append("Tigris & Euphrates", style="bold")
    board = str(options.get("board", "standard"))
    boards = {"standard": _("standard board"), "advanced": _("advanced board")}
    text.append("  " + boards.get(board, board))
    if variants:
        text.append("  +" + " +".join(variants))
    text.append("  " + _("bag {count}").format(count=view.get("bag_size", "?")))
    active = view.get("active")
    if isinstance(active, int) and 0 <= active < len(players):
        text.append("  " + _("turn: {player}").format(player=word("player", players[active])))
        left = view.get("actions_left")
        if isinstance(left, int):
            text.append(
                " "
                + ngettext("({count} action left)", "({count} actions left)", left).format(
                    count=left
                )
            )
    if view.get("ending") and not view.get("is_over"):
        text.append("  " + _("the game ends after this turn"), style="bold indian_red1")
    if view.get("is_over"):
        text.append("  " + _("game over"), style="bold indian_red1")
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
        parts.append(Text(_("Unification tile on {cell}").format(cell=unified), style="bold"))
    buildings = view.get("buildings") or {}
    if buildings:
        placed = ", ".join(
            _("{colour} on {cell}").format(colour=word("colour", c), cell=cell)
            for c, cell in buildings.items()
        )
        parts.append(Text(_("Buildings: {placed}").format(placed=placed)))
    if view.get("wonder"):
        parts.append(Text(_("Wonder: {where}").format(where=describe(view["wonder"]))))
    if view.get("pending"):
        parts.append(pending_text(view))
    seat = view.get("seat")
    if isinstance(seat, int) and view.get("hand") is not None:
        players = list(view.get("players") or [])
        name = players[seat] if 0 <= seat < len(players) else str(seat)
        mine = (view.get("points") or {}).get(name)
        line = hand_text(list(view["hand"] or []))
        line.append(
            "   " + _("{player}'s points: ").format(player=word("player", name)), style="bold"
        )
        own = (
            " · ".join(f"{word('colour', c)} {mine.get(c, 0)}" for c in tigris.COLOURS)
            if mine
            else _("hidden")
        )
        line.append(own)
        parts.append(line)
    return Group(*parts)


# -- the events in words -------------------------------------------------------------------

TILE_OF = {
    "red": N_("a temple (red)"),
    "blue": N_("a farm (blue)"),
    "green": N_("a market (green)"),
    "black": N_("a settlement (black)"),
}
WAR_OF = {
    "red": N_("the red war (priests)"),
    "blue": N_("the blue war (farmers)"),
    "green": N_("the green war (traders)"),
    "black": N_("the black war (kings)"),
}


def _why(why: str) -> str:
    """A score's reason (the engine's words in parentheses) in the language."""
    tile = re.fullmatch(r"(\w+) tile on (\w+)(, by the king)?", why)
    if tile:
        said = {"tile": _(TILE_OF.get(tile[1], tile[1])), "cell": tile[2]}
        if tile[3]:
            return _("{tile} on {cell}, by the king").format(**said)
        return _("{tile} on {cell}").format(**said)
    war = re.fullmatch(r"(\w+) war won", why)
    if war:
        return _("{war} won").format(war=_(WAR_OF.get(war[1], war[1])))
    monument = re.fullmatch(r"monument, (\w+)", why)
    if monument:
        return _("monument, {leader}").format(leader=word("leader", monument[1]))
    return {"revolt won": _("revolt won"), "the wonder": _("the wonder")}.get(why, why)


def event_text(event: Mapping[str, object], players: list[str]) -> str:
    """An engine event in the language, from its fields. Where the event lacks a field its
    English sentence holds (a score's reason, the tile a catastrophe destroyed), that part is
    read from the sentence; an event of a kind not known here keeps the engine's words."""
    text = str(event.get("text", ""))

    def who(key: str) -> str:
        seat = event.get(key)
        if isinstance(seat, int) and 0 <= seat < len(players):
            return word("player", players[seat])
        return str(seat)

    def count(key: str) -> int:
        value = event.get(key)
        return value if isinstance(value, int) else 0

    kind = event.get("type")
    colour = str(event.get("color", ""))
    cell = str(event.get("cell", ""))
    if kind == "score":
        why = re.search(r"\(([^()]*)\)$", text)
        return _("{player} scores {count} {colour} ({why})").format(
            player=who("seat"),
            count=count("amount"),
            colour=word("colour", colour),
            why=_why(why[1] if why else ""),
        )
    if kind == "leader_returned":
        return _("{player}'s {leader} on {cell} lost its last temple and returns").format(
            player=who("seat"), leader=word("leader", event.get("role")), cell=cell
        )
    if kind == "revolt":
        return _("revolt: {attacker}'s {leader} against {defender}'s").format(
            attacker=who("attacker"),
            defender=who("defender"),
            leader=word("leader", event.get("role")),
        )
    if kind == "unification":
        wars = event.get("wars")
        if isinstance(wars, list) and wars:
            return _("the tile on {cell} joins two kingdoms: war of {colours}").format(
                cell=cell, colours=", ".join(word("colour", w) for w in wars)
            )
        return _("the tile on {cell} joins two kingdoms").format(cell=cell)
    if kind == "catastrophe":
        hit = re.search(r"destroying a (\w+) tile", text)
        if hit:
            return _("{player} places a catastrophe on {cell}, destroying {tile}").format(
                player=who("seat"), cell=cell, tile=_(TILE_OF.get(hit[1], hit[1]))
            )
        return _("{player} places a catastrophe on {cell}").format(player=who("seat"), cell=cell)
    if kind == "unification_removed":
        return _("the unification tile leaves the board")
    if kind == "war":
        return _("{war}: {attacker} attacks {defender}").format(
            war=_(WAR_OF.get(colour, colour)), attacker=who("attacker"), defender=who("defender")
        )
    if kind == "commit":
        return ngettext(
            "{player} commits {count} {colour} tile",
            "{player} commits {count} {colour} tiles",
            count("count"),
        ).format(player=who("seat"), count=count("count"), colour=word("colour", colour))
    if kind == "revolt_result" or kind == "war_result":
        high, low = max(count("attack"), count("defence")), min(count("attack"), count("defence"))
        if kind == "revolt_result":
            return _("{winner} wins the revolt {high}-{low}; {loser}'s leader returns").format(
                winner=who("winner"), loser=who("loser"), high=high, low=low
            )
        war = re.search(r"wins the (\w+) war", text)
        name = war[1] if war else ""
        removed = event.get("removed")
        return ngettext(
            "{winner} wins {war} {high}-{low}; {loser}'s leader returns and {count} tile leaves the board",
            "{winner} wins {war} {high}-{low}; {loser}'s leader returns and {count} tiles leave the board",
            len(removed) if isinstance(removed, list) else 0,
        ).format(
            winner=who("winner"),
            loser=who("loser"),
            war=_(WAR_OF.get(name, name)),
            high=high,
            low=low,
            count=len(removed) if isinstance(removed, list) else 0,
        )
    if kind == "treasure":
        return _("{player} takes the treasure on {cell}").format(player=who("seat"), cell=cell)
    if kind == "game_over":
        if "bag" in text:
            return _("the game ends: the bag is empty")
        return _("the game ends: two or fewer treasures remain")
    if kind == "turn":
        return _("{player}'s turn").format(player=who("seat"))
    if kind == "pass":
        return _("{player} passes").format(player=who("seat"))
    if kind == "tile":
        return _("{player} places {tile} on {cell}").format(
            player=who("seat"), tile=_(TILE_OF.get(colour, colour)), cell=cell
        )
    if kind == "leader":
        said = {"player": who("seat"), "leader": word("leader", event.get("role")), "cell": cell}
        if event.get("moved_from"):
            return _("{player} moves the {leader} to {cell}").format(**said)
        return _("{player} places the {leader} on {cell}").format(**said)
    if kind == "withdraw":
        return _("{player} withdraws the {leader} from {cell}").format(
            player=who("seat"), leader=word("leader", event.get("role")), cell=cell
        )
    if kind == "swap":
        return ngettext(
            "{player} discards {count} tile and draws",
            "{player} discards {count} tiles and draws",
            count("count"),
        ).format(player=who("seat"), count=count("count"))
    if kind == "monument":
        return _("the {monument} monument is built on {cell}").format(
            monument=word("monument", event.get("monument")), cell=cell
        )
    if kind == "building":
        return _("the {colour} building goes on {cell}").format(
            colour=word("colour", colour), cell=cell
        )
    if kind == "wonder":
        return _("the wonder is built on {cell}").format(cell=cell)
    if kind == "decline":
        return _("declined")
    return text
