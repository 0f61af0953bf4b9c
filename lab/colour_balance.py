"""How evenly a Tigris bot scores its colours: the final lowest colour (the score) and the gap
from the best colour to the worst, of two bots playing pairs of games.

Both games of a pair share a seed (bag and first player) with the seats swapped, as in
``lab.sprt``. A colour's final points include the treasures, placed as the rules place
them (``result()["final"]``)::

    python -m lab colour_balance --new "ismcts@300/value=2" --old "ismcts@300" \\
        --pairs 20 --seed 1

prints one JSON line per game and a summary per bot: mean lowest colour, mean best-to-worst
gap, mean raw points (all colours, before treasures) and the share of games won (ties half).
"""

from __future__ import annotations

import json
import random
import statistics
from dataclasses import dataclass, field
from typing import Annotated, Any

import typer

from cradle import tigris
from cradle.ai.levels import make_bot_spec
from cradle.ai.match import play as play_match
from lab.command import run_command


@dataclass
class Tally:
    """What one bot's seats finished with, game by game."""

    lowest: list[int] = field(default_factory=list)
    gap: list[int] = field(default_factory=list)
    raw: list[int] = field(default_factory=list)
    score: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, float]:
        def mean(xs: list[int] | list[float]) -> float:
            return round(statistics.fmean(xs), 2) if xs else 0.0

        return {
            "games": len(self.lowest),
            "lowest": mean(self.lowest),
            "gap": mean(self.gap),
            "raw": mean(self.raw),
            "score": mean(self.score),
        }


def play(seating: tuple[str, str], seed: int, bot_seed: int) -> dict[str, Any]:
    """One two-player Tigris game to its end: per seat its bot, final colours and place."""
    state = tigris.new_game(2, seed)
    bots = [make_bot_spec(spec, bot_seed + seat) for seat, spec in enumerate(seating)]
    actions = len(play_match(state, bots).actions)
    rows = sorted(state.result(), key=lambda row: row["seat"])
    seats = []
    for row, spec in zip(rows, seating, strict=True):
        final = list(row["final"].values())
        seats.append(
            {
                "bot": spec,
                "final": row["final"],
                "lowest": min(final),
                "gap": max(final) - min(final),
                "raw": sum(row["points"].values()),
                "place": row["place"],
            }
        )
    return {"seed": seed, "actions": actions, "seats": seats}


def measure(new: str, old: str, pairs: int, seed: int) -> tuple[list[dict[str, Any]], Tally, Tally]:
    """Play ``pairs`` pairs; every game's record and the tallies of ``new`` and ``old``."""
    if pairs < 1:
        raise ValueError("at least one pair of games is needed")
    if new == old:
        raise ValueError("new and old are the same bot: nothing to compare")
    seeds = random.Random(seed)
    tallies = {new: Tally(), old: Tally()}
    games = []
    for _ in range(pairs):
        game_seed = seeds.randrange(2**31)
        bot_seed = seeds.randrange(2**31)
        for seating in ((new, old), (old, new)):
            game = play(seating, game_seed, bot_seed)
            games.append(game)
            first, second = game["seats"]
            for me, other in ((first, second), (second, first)):
                tally = tallies[me["bot"]]
                tally.lowest.append(me["lowest"])
                tally.gap.append(me["gap"])
                tally.raw.append(me["raw"])
                won = me["place"] < other["place"]
                tally.score.append(1.0 if won else 0.5 if me["place"] == other["place"] else 0.0)
    return games, tallies[new], tallies[old]


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command()
def colour_balance(
    new: Annotated[str, typer.Option(help="A bot spec (e.g. ismcts@300/value=2).")],
    old: Annotated[str, typer.Option(help="The bot spec to compare it with.")],
    pairs: Annotated[int, typer.Option(help="Pairs of games, seats swapped.")] = 10,
    seed: Annotated[int, typer.Option(help="Seed of the pairs' seeds.")] = 1,
) -> None:
    """Play NEW against OLD in two-player Tigris and compare their colours."""
    try:
        games, ours, theirs = measure(new, old, pairs, seed)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    for game in games:
        print(json.dumps(game))
    summary = {"new": {"bot": new, **ours.summary()}, "old": {"bot": old, **theirs.summary()}}
    print(json.dumps(summary))


def main(argv: list[str] | None = None) -> None:
    """``python -m lab colour_balance``."""
    run_command(app, "lab.colour_balance", argv)


if __name__ == "__main__":
    main()
