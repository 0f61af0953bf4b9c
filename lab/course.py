"""How a bot's two-player Gheos games went: where the points came from, and when they were lost.

A ladder record that keeps its moves replays from its seed (``lab.starts`` deals it the
same way). This replays every two-player Gheos game of a bot and, from its seat, follows:

- the points of each seat by source: temples, scoring tokens, epoch scorings (pyramids) and
  the final scoring (cups), which add up to the result (a replay that does not is refused);
- the tokens each played, the tiles laid in the game (its length: the sixth epoch tile can
  come early or late), the followers each lost when a civilization was removed;
- after each epoch scoring, the points margin (bot minus the other, the final scoring not
  yet counted) and the followers each held.

The tables group the games by who started and how the bot did; the last two give the bot's
score by the game's length and by its lead in followers after one epoch scoring
(``--epoch``, the third by default)::

    python -m lab course results/gheos-hard-stop-20*/ladder.jsonl --bot hard
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import typer

from cradle.gheos import COLOURS, as_gheos
from lab.command import run_command
from lab.records import Line, PlayedGame, deal, kept_gheos_pair, played, read, require_files
from lab.starts import bot_score, cell

SOURCES = ("temple", "token", "epoch", "final")
EVENT_SOURCE = {
    "temple": "temple",
    "token": "token",
    "epoch_scoring": "epoch",
    "final_scoring": "final",
}
LENGTHS = (20, 24, 28, 32)  # the bounds of the length classes, in tiles laid


@dataclass
class Course:
    """One game from the bot's seat: index 0 of each pair is the bot, 1 the other seat."""

    started: bool
    score: float  # 1 a win, 0.5 a tie, 0 a loss
    tiles: int = 0  # tiles placed or replaced, by both seats
    points: tuple[dict[str, int], dict[str, int]] = field(
        default_factory=lambda: ({s: 0 for s in SOURCES}, {s: 0 for s in SOURCES})
    )
    tokens: list[int] = field(default_factory=lambda: [0, 0])  # tokens played
    lost: list[int] = field(default_factory=lambda: [0, 0])  # followers returned by removals
    margins: list[int] = field(default_factory=list)  # after each epoch scoring
    followers: list[tuple[int, int]] = field(default_factory=list)  # after each epoch scoring

    @property
    def outcome(self) -> str:
        return "won" if self.score == 1.0 else "lost" if self.score == 0.0 else "tied"


def replay(record: PlayedGame, seat: int, score: float) -> Course:
    """The course of a ladder line's two-player game (dealt again from its seed and options,
    played by its ``moves``), from ``seat``; ValueError where the moves do not end the game
    or the points by source do not add up to its result."""

    seed = record.seed
    state = as_gheos(deal(record))
    names = state.players
    mine = {names[seat]: 0, names[1 - seat]: 1}
    course = Course(started=state.to_move == seat, score=score)
    for move in record.moves:
        mover = 0 if state.to_move == seat else 1
        if move.startswith(("place ", "replace ")):
            course.tiles += 1
        # followers per colour, bot and other, as the events go
        held = [list(state.player(who).followers) for who in (seat, 1 - seat)]
        for event in state.apply(move):
            kind = event["type"]
            if kind == "pay":  # the mover's follower, paid (chosen, or the only one) first
                held[mover][COLOURS.index(str(event["colour"]))] -= 1
            gained = event.get("points")
            if kind in ("temple", "token") and isinstance(gained, int):
                course.points[mover][kind] += gained
                if kind == "token":
                    course.tokens[mover] += 1
            elif kind in EVENT_SOURCE and isinstance(gained, dict):
                for name, value in gained.items():
                    course.points[mine[name]][EVENT_SOURCE[kind]] += value
            if kind == "epoch_scoring":
                totals = [sum(course.points[s].values()) for s in (0, 1)]
                course.margins.append(totals[0] - totals[1])
                now = [sum(state.player(s).followers) for s in (seat, 1 - seat)]
                course.followers.append((now[0], now[1]))
            elif kind == "civ_removed":
                colour = COLOURS.index(str(event["civ"]))
                for s in (0, 1):
                    course.lost[s] += held[s][colour]
                    held[s][colour] = 0
    if not state.is_over:
        raise ValueError(f"the moves of seed {seed} do not end the game")
    for s, who in ((0, seat), (1, 1 - seat)):
        if sum(course.points[s].values()) != state.player(who).points:
            raise ValueError(f"the points of seed {seed} do not add up to its result")
    return course


def courses(records: Iterable[Line], bot: str) -> list[Course]:
    """The course of every two-player Gheos game of ``bot`` (a seat whose spec starts with
    it) in ladder lines that keep their moves."""
    found = []
    for game in played(records):
        if not kept_gheos_pair(game):
            continue
        mine = bot_score(game.seating, game.first_score, bot)
        if mine is not None:
            seat, score = mine
            found.append(replay(game, seat, score))
    return found


def mean(values: Sequence[float]) -> str:
    return f"{sum(values) / len(values):.1f}" if values else "-"


def groups(found: Sequence[Course]) -> list[tuple[str, list[Course]]]:
    """The games by who started and the bot's result, the classes that hold any."""
    rows = []
    for started in (True, False):
        for outcome in ("won", "lost", "tied"):
            chosen = [c for c in found if c.started == started and c.outcome == outcome]
            if chosen:
                rows.append((f"{'it' if started else 'the other'} started, {outcome}", chosen))
    return rows


def length_class(tiles: int) -> str:
    low = 0
    for bound in LENGTHS:
        if tiles < bound:
            return f"{low}-{bound - 1}" if low else f"under {bound}"
        low = bound
    return f"{low} or more"


def report(found: Sequence[Course], bot: str, epoch: int = 3) -> str:
    """The tables of the command, as Markdown; the last one after the ``epoch``-th scoring."""
    out = [
        f"Points by source, `{bot}` / the other, and the means of each game "
        f"({len(found)} games):\n",
        "| games | n | tiles | temple | token | epoch | final | tokens played | followers lost |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, chosen in groups(found):
        pair = [
            " / ".join(mean([c.points[s][source] for c in chosen]) for s in (0, 1))
            for source in SOURCES
        ]
        tokens = " / ".join(mean([c.tokens[s] for c in chosen]) for s in (0, 1))
        lost = " / ".join(mean([c.lost[s] for c in chosen]) for s in (0, 1))
        out.append(
            f"| {name} | {len(chosen)} | {mean([c.tiles for c in chosen])} | "
            f"{' | '.join(pair)} | {tokens} | {lost} |"
        )
    epochs = range(1, 6)
    out += [
        f"\nAfter each epoch scoring: the points margin of `{bot}` (the final scoring not "
        "counted), and the followers held, bot / the other (games that reached it):\n",
        "| games | " + " | ".join(f"epoch {e}" for e in epochs) + " |",
        "|---|" + "---|" * len(epochs),
    ]
    for name, chosen in groups(found):
        cells = []
        for e in epochs:
            reached = [c for c in chosen if len(c.margins) >= e]
            if not reached:
                cells.append("-")
                continue
            margin = mean([c.margins[e - 1] for c in reached])
            held = " / ".join(mean([c.followers[e - 1][s] for c in reached]) for s in (0, 1))
            cells.append(f"{margin:>5} ({held})")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    out += [
        f"\n`{bot}`'s score by the game's length (tiles laid by both seats):\n",
        "| tiles | it started | the other started |",
        "|---|---|---|",
    ]
    by_length: dict[tuple[str, bool], list[float]] = defaultdict(list)
    for c in found:
        by_length[(length_class(c.tiles), c.started)].append(c.score)
    labels = [length_class(bound - 1) for bound in LENGTHS] + [length_class(LENGTHS[-1])]
    for label in labels:
        cells = [
            cell(sum(by_length[(label, s)]), len(by_length[(label, s)])) for s in (True, False)
        ]
        out.append(f"| {label} | {cells[0]} | {cells[1]} |")
    out += [
        f"\n`{bot}`'s score by its followers minus the other's after epoch scoring {epoch} "
        "(games that reached it):\n",
        "| followers ahead | it started | the other started |",
        "|---|---|---|",
    ]
    by_lead: dict[tuple[int, bool], list[float]] = defaultdict(list)
    for c in found:
        if len(c.followers) >= epoch:
            mine, theirs = c.followers[epoch - 1]
            by_lead[(max(-3, min(3, mine - theirs)), c.started)].append(c.score)
    for lead in range(-3, 4):
        label = f"{lead:+d}" if abs(lead) < 3 else f"{lead:+d} or {'more' if lead > 0 else 'less'}"
        label = label if lead else "0"
        cells = [cell(sum(by_lead[(lead, s)]), len(by_lead[(lead, s)])) for s in (True, False)]
        out.append(f"| {label} | {cells[0]} | {cells[1]} |")
    return "\n".join(out)


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command(help=(__doc__ or "").split("\n\n", 1)[0])
def course(
    paths: Annotated[list[Path], typer.Argument(help="ladder.jsonl files that keep moves.")],
    bot: Annotated[str, typer.Option(help="The bot: the start of its spec.")] = "hard",
    epoch: Annotated[
        int, typer.Option(min=1, max=6, help="The epoch scoring the followers are read after.")
    ] = 3,
) -> None:
    require_files(paths)
    try:
        found = courses(read(paths), bot)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    if not found:
        raise typer.BadParameter(f"no two-player Gheos game of {bot!r} keeps its moves")
    print(report(found, bot, epoch))


def main(argv: list[str] | None = None) -> None:
    """Run the command; with ``argv`` (a list of arguments) it returns instead of exiting."""
    run_command(app, "lab.course", argv)


if __name__ == "__main__":
    main()
