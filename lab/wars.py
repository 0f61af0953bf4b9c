"""Which Gheos civilizations die in wars: logged games read again, position by position.

The evaluation cuts a civilization's future by a war risk (``WAR_RISK`` in
``cradle.ai.knowledge.gheos``: a share of it while any stronger civilization is on the
table). This measures what the logged games say instead. It deals every two-player game of
the ladder records that keep their moves (``ladder.jsonl``) again from its seed, and at the
start of every turn classes each civilization on the table by what threatens it:

- ``touches a stronger``: a civilization with more swords could be joined to it by one tile,
  placed on a free cell both continents reach or replacing a tile without a pyramid that
  lies on both (``joinable``);
- ``touches another``: only civilizations with no more swords could;
- ``far``: none could.

Then it follows the game on and reports, per class and per sixth of the epochs still to
come, the share of those civilizations a later war took off the table (a migration into an
occupied continent counts as a war lost), the share it took within three turns, and the
share of the epochs to come they lost that way (a war in the last epoch costs less than one
now)::

    python -m lab wars results/gheos-hard-stop-*/ladder.jsonl
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import typer

from cradle.gheos import COLOURS, GheosGame, as_gheos, load_tiles, neighbour
from lab.command import run_command
from lab.records import Line, PlayedGame, deal, kept_gheos_pair, played, read, require_files

CLASSES = ("touches a stronger", "touches another", "far")
SIXTHS = 6
SOON = 3  # turns: the one a civilization was seen in and the two after it


def joinable(game: GheosGame) -> dict[int, set[int]]:
    """Colour -> the colours of the civilizations one tile could join to it: a placement on
    a free cell whose edges meet both continents, or a replacement of a tile without a
    pyramid whose edges lie on both (every edge shows land, so the tile across an edge lies
    on the same area as the region on it)."""
    civ_of = {civ.area: civ.colour for civ in game.civilizations()}
    out: dict[int, set[int]] = {colour: set() for colour in civ_of.values()}
    if len(civ_of) < 2:
        return out
    pyramids = {tile.number for tile in load_tiles(game.options.tiles).tiles if tile.pyramid}
    placed = game.tiles_on_map()
    taken = {(tile.row, tile.col) for tile in placed}
    borders: dict[tuple[int, int], set[int]] = {}

    def join(colours: set[int]) -> None:
        for colour in colours:
            out[colour] |= colours - {colour}

    for tile in placed:
        colours = {civ_of[area] for area in tile.areas if area in civ_of}
        for edge, area in enumerate(tile.areas):
            across = neighbour(tile.row, tile.col, edge)
            if area in civ_of and across not in taken:
                borders.setdefault(across, set()).add(civ_of[area])
        if tile.tile not in pyramids:
            join(colours)
    for colours in borders.values():
        join(colours)
    return out


@dataclass
class Cell:
    """Civilizations seen in one class and sixth: how many, how many a war removed later
    (and how many of those within three turns), and the share of their epochs to come lost
    that way (summed)."""

    seen: int = 0
    died: int = 0
    soon: int = 0  # of those, removed in the turn seen or the two after it
    lost: float = 0.0


@dataclass
class Table:
    games: int = 0
    cells: dict[tuple[str, int], Cell] = field(default_factory=dict)

    def cell(self, kind: str, sixth: int) -> Cell:
        return self.cells.setdefault((kind, sixth), Cell())


def threats(game: GheosGame) -> dict[int, str]:
    """Colour -> the class of its civilization (the module docstring)."""
    joined = joinable(game)
    swords = {civ.colour: game.area(civ.area).sword for civ in game.civilizations()}
    out = {}
    for colour, near in joined.items():
        if any(swords[other] > swords[colour] for other in near):
            out[colour] = CLASSES[0]
        else:
            out[colour] = CLASSES[1] if near else CLASSES[2]
    return out


def remaining(game: GheosGame) -> float:
    return max(0, game.end_epoch - game.epochs) / game.end_epoch


def read_game(record: PlayedGame, table: Table) -> None:
    """Adds one recorded game to ``table``."""
    game = as_gheos(deal(record))
    # civilizations still waiting to learn their fate: (colour, class, sixth, remaining
    # then, the turn then)
    open_: list[tuple[int, str, int, float, int]] = []
    turn = 0
    for move in record.moves:
        if game.phase == "tile":
            turn += 1
            now = remaining(game)
            if now > 0:
                sixth = round(now * SIXTHS)
                for colour, kind in threats(game).items():
                    table.cell(kind, sixth).seen += 1
                    open_.append((colour, kind, sixth, now, turn))
        events = game.apply(move)
        losers = {
            COLOURS.index(name)
            for event in events
            if event.get("type") == "war"
            for name in event.get("civs", [])
            if name != event.get("winner")
        }
        if losers:
            left = remaining(game)
            for colour, kind, sixth, then, seen in open_:
                if colour in losers:
                    cell = table.cell(kind, sixth)
                    cell.died += 1
                    cell.soon += turn - seen < SOON
                    cell.lost += left / then
            open_ = [entry for entry in open_ if entry[0] not in losers]
        # A civilization that leaves the table otherwise (a migration onto no continent)
        # died in no war: it stays counted as seen, and its colour may start again.
        on_table = {civ.colour for civ in game.civilizations()}
        open_ = [entry for entry in open_ if entry[0] in on_table]
    if not game.is_over:
        raise ValueError(f"the moves of seed {record.seed} do not end the game")
    table.games += 1


def tally(records: Iterable[Line]) -> Table:
    """The table of every two-player Gheos game among ``records`` that keeps its moves."""
    table = Table()
    for game in played(records):
        if kept_gheos_pair(game):
            read_game(game, table)
    return table


def markdown(table: Table) -> str:
    lines = [
        f"{table.games} games. Per class and share of the epochs still to come: the "
        "civilizations seen at the start of a turn, the share a later war removed (and "
        "within three turns), and the share of their epochs to come lost that way.",
        "",
        "| threat | epochs to come | seen | removed by a war | within three turns | epochs lost |",
        "|---|---|---|---|---|---|",
    ]
    for kind in CLASSES:
        for sixth in range(SIXTHS, 0, -1):
            cell = table.cells.get((kind, sixth))
            if cell is None or not cell.seen:
                continue
            lines.append(
                f"| {kind} | {sixth}/{SIXTHS} | {cell.seen} | {cell.died / cell.seen:.3f} | "
                f"{cell.soon / cell.seen:.3f} | {cell.lost / cell.seen:.3f} |"
            )
    return "\n".join(lines)


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command(help=(__doc__ or "").split("\n\n", 1)[0])
def wars(
    paths: Annotated[list[Path], typer.Argument(help="ladder.jsonl files.")],
) -> None:
    require_files(paths)
    try:
        table = tally(read(paths))
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    print(markdown(table))


def main(argv: list[str] | None = None) -> None:
    """Run the command; with ``argv`` (a list of arguments) it returns instead of exiting."""
    run_command(app, "lab.wars", argv)


if __name__ == "__main__":
    main()
