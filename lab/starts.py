"""Who starts: a bot's two-player results split by the first player of each deal.

A deal picks the player who starts (``new_game(2, seed).to_move``), and in two-player Gheos
starting is worth a great deal. A ladder or an SPRT plays each seed in both seatings, so a
bot starts in half of its games; this splits its score between those halves. It reads the
records the ladder (``ladder.jsonl``: one game a line) and the SPRT (one pair of games a
line) write, and deals each seed again to see who started::

    python -m lab starts results/gheos-hard-*/ladder.jsonl --bot hard

With ``--against BASE.jsonl`` it also compares two runs of the same seeds and seatings game
by game (``paired``): the bot's mean score difference with its 95% interval, far narrower
than two separate intervals, since both runs share each deal's luck::

    python -m lab starts results/screen/ladder.jsonl --bot ismcts --against results/base/ladder.jsonl

For Gheos records that keep their moves it also counts the scoring tokens each seat still held
when the game ended (``leftover``): a token unplayed at the end scores nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Annotated, Any

import typer

from cradle.core.results import wilson_interval
from cradle.games import get_game
from cradle.gheos import as_gheos
from lab.command import run_command
from lab.records import deal, kept_gheos_pair, played, read, require_files


@dataclass
class Split:
    """A bot's wins (a tie counts half) and games, when it started and when it did not; and
    the starting player's wins over every two-player game read, whoever played."""

    starter: float = 0.0
    games: int = 0
    started: float = 0.0
    started_games: int = 0
    followed: float = 0.0
    followed_games: int = 0


@cache
def first_player(game: str, seed: int) -> int:
    """The seat that starts the two-player deal of ``seed``, as the ladder deals it."""
    module = get_game(game)
    return module.new_game(2, seed, module.options_from_dict({})).to_move


def games_of(record: dict[str, Any], game: str) -> Iterator[tuple[str, int, list[str], float]]:
    """(game, seed, seating, seat 0's score) of each two-player game in a ladder line or an
    SPRT pair; other lines (an SPRT's summary) give none."""
    name = str(record.get("game") or record.get("settings", {}).get("game") or game)
    for one in record.get("games", [record]):
        seating = one.get("seating")
        if "seed" not in record or not isinstance(seating, list) or len(seating) != 2:
            continue
        places = one["places"]
        first = 0.5 if places[0] == places[1] else float(places[0] < places[1])
        yield name, int(record["seed"]), seating, first


def bot_score(seating: list[str], score0: float, bot: str) -> tuple[int, float] | None:
    """``bot``'s seat (its spec starts with ``bot``) and score in a two-player game where seat
    0 scored ``score0``; None when the bot sits in neither seat, or in both."""
    mine = [s for s, spec in enumerate(seating) if spec.startswith(bot)]
    if len(mine) != 1:
        return None
    seat = mine[0]
    return seat, score0 if seat == 0 else 1.0 - score0


def split(records: Iterable[dict[str, Any]], bot: str, game: str = "gheos") -> Split:
    """``bot``'s two-player score (a seat whose spec starts with ``bot``, in games where the
    other's does not) by who started."""
    result = Split()
    for record in records:
        for name, seed, seating, score0 in games_of(record, game):
            first = first_player(name, seed)
            result.starter += score0 if first == 0 else 1.0 - score0
            result.games += 1
            played = bot_score(seating, score0, bot)
            if played is None:
                continue
            seat, score = played
            if first == seat:
                result.started += score
                result.started_games += 1
            else:
                result.followed += score
                result.followed_games += 1
    return result


def scores_by_game(
    records: Iterable[dict[str, Any]], bot: str, game: str = "gheos"
) -> dict[tuple[str, int, int], float]:
    """``bot``'s score (a tie half) in each two-player game it played against another bot,
    by (game, seed, its seat)."""
    scores: dict[tuple[str, int, int], float] = {}
    for record in records:
        for name, seed, seating, score0 in games_of(record, game):
            played = bot_score(seating, score0, bot)
            if played is not None:
                seat, score = played
                scores[(name, seed, seat)] = score
    return scores


@dataclass
class Paired:
    """Two runs of ``bot`` compared on the games both played (the same deal and seat)."""

    games: int
    base: float
    new: float
    difference: float  # the mean of new minus base, game by game
    margin: float  # its 95% half-width (normal, from the differences' spread)


def paired(
    base: Iterable[dict[str, Any]], new: Iterable[dict[str, Any]], bot: str, game: str = "gheos"
) -> Paired:
    """``bot``'s score in ``new`` against ``base``, game by game."""
    before = scores_by_game(base, bot, game)
    after = scores_by_game(new, bot, game)
    shared = sorted(set(before) & set(after))
    if not shared:
        raise ValueError(f"the two runs share no game of {bot!r}")
    steps = [after[k] - before[k] for k in shared]
    n = len(steps)
    mean = sum(steps) / n
    spread = math.sqrt(sum((d - mean) ** 2 for d in steps) / (n - 1)) if n > 1 else 0.0
    return Paired(
        n,
        sum(before[k] for k in shared),
        sum(after[k] for k in shared),
        mean,
        1.96 * spread / math.sqrt(n),
    )


@dataclass
class Leftover:
    """Scoring tokens unplayed at the end of the Gheos games that keep their moves: ``bot``'s
    and the other seat's, over every such game and over those ``bot`` did not win."""

    games: int = 0
    mine: int = 0
    theirs: int = 0
    not_won: int = 0
    mine_not_won: int = 0
    theirs_not_won: int = 0


def leftover(records: Iterable[dict[str, Any]], bot: str) -> Leftover:
    """Replays each two-player Gheos game of a ladder line that keeps its moves (``moves``)
    from its seed and options, as the ladder deals it, and counts the tokens left at the end."""

    result = Leftover()
    for game in played(records):
        if not kept_gheos_pair(game):
            continue
        mine = bot_score(game.seating, game.first_score, bot)
        if mine is None:
            continue
        seat, score = mine
        state = as_gheos(deal(game))
        for move in game.moves:
            state.apply(move)
        if not state.is_over:
            raise ValueError(f"the moves of seed {game.seed} do not end the game")
        held, theirs = state.player(seat).tokens, state.player(1 - seat).tokens
        result.games += 1
        result.mine += held
        result.theirs += theirs
        if score < 1.0:
            result.not_won += 1
            result.mine_not_won += held
            result.theirs_not_won += theirs
    return result


def cell(score: float, games: int) -> str:
    if not games:
        return "-"
    low, high = wilson_interval(score, games)
    return f"{score:g} of {games} ({score / games:.2f}, Wilson {low:.2f}-{high:.2f})"


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command(help=(__doc__ or "").split("\n\n", 1)[0])
def starts(
    paths: Annotated[list[Path], typer.Argument(help="ladder.jsonl or SPRT .jsonl files.")],
    bot: Annotated[str, typer.Option(help="The bot: the start of its spec.")] = "hard",
    game: Annotated[str, typer.Option(help="The game of records that do not name it.")] = ("gheos"),
    against: Annotated[
        list[Path] | None,
        typer.Option(help="A run of the same seeds to compare with, game by game (repeatable)."),
    ] = None,
) -> None:
    require_files([*paths, *(against or [])])
    records = list(read(paths))  # read once: the split, the comparison and the tokens
    result = split(records, bot, game)
    print(f"| `{bot}` | it starts | the other starts |")
    print("|---|---|---|")
    print(
        f"| won | {cell(result.started, result.started_games)} | "
        f"{cell(result.followed, result.followed_games)} |"
    )
    print(f"\nThe player who started, in every game read: {cell(result.starter, result.games)}.")
    if against:
        try:
            compared = paired(read(against), records, bot, game)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
        print(
            f"\nAgainst {', '.join(str(p) for p in against)}, game by game: "
            f"{compared.new:g} of {compared.games} against {compared.base:g}, "
            f"{compared.difference:+.3f} ± {compared.margin:.3f} (95%)."
        )
    try:
        left = leftover(records, bot)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    if left.games:
        print(
            f"\nScoring tokens unplayed at the end, in the {left.games} Gheos games that keep "
            f"their moves: `{bot}` {left.mine}, the other {left.theirs}; in the {left.not_won} "
            f"`{bot}` did not win: {left.mine_not_won} and {left.theirs_not_won}."
        )


def main(argv: list[str] | None = None) -> None:
    """Run the command; with ``argv`` (a list of arguments) it returns instead of exiting."""
    run_command(app, "lab.starts", argv)


if __name__ == "__main__":
    main()
