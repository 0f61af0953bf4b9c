"""When to play a scoring token: a bot's logged Gheos token decisions, each played on both ways.

A token scores a player's cups now. Kept, it may score more later (cups and followers grow),
or nothing: a token still held when the last epoch comes is lost. A searching bot that knew
where the epoch tiles lie in the stack would play its tokens earlier (lab/notebook/ladder.md, the epochs
oracle); this asks whether a bot that cannot know plays them at the right time.

It takes a bot's token decisions from the two-player Gheos records of the ladder that keep
their moves: those where the token would score, the opponent still holds a token (else the
bot alone chooses when the game ends) and at most ``--epochs-left`` epochs are to come. For
each, it deals worlds the bot cannot tell from the real one (``sample_hidden``: the
opponent's hand and the order of the stack, its epoch tiles included), plays the token in
each world and keeps it in the same world, and plays both on to the end with a small search
for both seats (the same seeds both ways, so the two differ only by the choice). A decision's
*gain* is its mean result (1 win, 0.5 tie, 0 loss) with the token played minus kept. The
table gives, per class (epochs to come, the bot's tokens, the opponent's), how often the bot
played the token and the mean gain, with its standard error::

    python -m lab timing results/gheos-hard-stop-*/ladder.jsonl --bot hard \\
        --decisions 240 --worlds 6 --iterations 400 --workers 2

Where the bot kept its token and the gain is clearly above zero, it waited too long; where
it played and the gain is clearly below, too early.
"""

from __future__ import annotations

import random
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from cradle.ai.knowledge.gheos import Reading  # what a token would score (cup_score)
from cradle.ai.search.budget import Budget
from cradle.ai.search.ismcts import search
from cradle.ai.search.params import IsmctsParams
from cradle.core.contract import GameState
from cradle.core.results import rank_rewards
from cradle.gheos import as_gheos
from lab.command import run_command
from lab.records import Line, PlayedGame, deal, kept_gheos_pair, played, read, require_files, wanted

TOKEN = "token"
KEEP = "pass"


@dataclass(frozen=True)
class Spot:
    """A token decision of the bot in a record: the moves before it, and its class."""

    record: PlayedGame
    move: int  # the number of moves played before it
    seat: int
    started: bool  # the bot's seat took the first turn
    epochs_left: int
    tokens: int
    opponent_tokens: int
    cup_score: int  # what the token would score now
    played: bool  # the bot played the token


@dataclass(frozen=True)
class Judged:
    """A decision played on both ways: the result with the token played minus kept, per world."""

    spot: Spot
    gains: tuple[float, ...]

    @property
    def gain(self) -> float:
        return statistics.fmean(self.gains)

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.spot.epochs_left, self.spot.tokens, self.spot.opponent_tokens)


def spots(record: PlayedGame, bot: str, epochs_left: int) -> list[Spot]:
    """The bot's token decisions in one record that pass the filters (see the module)."""
    seat = wanted(record, bot, lost=False, followed=False)
    if seat is None or not kept_gheos_pair(record):
        return []
    game = as_gheos(deal(record))
    started = game.to_move == seat
    out: list[Spot] = []
    for number, move in enumerate(record.moves):
        if game.to_move == seat and game.phase == "token" and TOKEN in game.legal_actions():
            left = game.end_epoch - game.epochs
            score = Reading(game).cup_score(seat)
            tokens = game.player(seat).tokens
            other = game.player(1 - seat).tokens
            if score > 0 and other > 0 and left <= epochs_left:
                out.append(
                    Spot(record, number, seat, started, left, tokens, other, score, move == TOKEN)
                )
        game.apply(move)  # a record that does not replay raises here
    return out


def play_on(state: GameState, iterations: int, seed: int) -> list[float]:
    """Both seats' results after ``state`` is played to its end by the search, each decision
    with ``iterations`` iterations and its own seed."""

    budget = Budget(iterations=iterations)
    params = IsmctsParams()
    decision = 0
    while not state.is_over:
        actions = state.legal_actions()
        if len(actions) == 1:
            state.apply(actions[0])
            continue
        result = search(state, state.to_move, budget, params, seed=seed * 1000 + decision)
        state.apply(result.best)
        decision += 1
    return rank_rewards(state.result())


@dataclass(frozen=True)
class Task:
    spot: Spot
    worlds: int
    iterations: int
    seed: int


def judge(task: Task) -> Judged:
    """One decision, played on both ways in ``task.worlds`` worlds of the bot's view."""
    spot = task.spot
    state = deal(spot.record)
    for move in spot.record.moves[: spot.move]:
        state.apply(move)
    dealer = random.Random(task.seed)
    gains: list[float] = []
    for world_number in range(task.worlds):
        world = state.sample_hidden(spot.seat, dealer)
        seed = task.seed * 100 + world_number
        results = {}
        for choice in (TOKEN, KEEP):
            trial = world.clone()
            trial.apply(choice)
            results[choice] = play_on(trial, task.iterations, seed)[spot.seat]
        gains.append(results[TOKEN] - results[KEEP])
    return Judged(spot, tuple(gains))


def timing(
    records: Iterable[Line],
    bot: str,
    decisions: int,
    worlds: int,
    iterations: int,
    epochs_left: int = 4,
    seed: int = 1,
    workers: int = 1,
) -> list[Judged]:
    """``decisions`` of the bot's token decisions, drawn at random (``seed``) from all those
    the records hold, each played on both ways (a decision per worker process)."""
    found = [spot for game in played(records) for spot in spots(game, bot, epochs_left)]
    chosen = random.Random(seed).sample(found, min(decisions, len(found)))
    tasks = [Task(spot, worlds, iterations, seed * 100_000 + i) for i, spot in enumerate(chosen)]
    if workers <= 1:
        return [judge(task) for task in tasks]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(judge, tasks))


def mean_and_error(values: Sequence[float]) -> tuple[float, float | None]:
    """The mean and its standard error (None for a single value)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, None
    return mean, statistics.stdev(values) / len(values) ** 0.5


def cell(values: Sequence[float]) -> str:
    mean, error = mean_and_error(values)
    return f"{mean:+.3f}" if error is None else f"{mean:+.3f} ± {error:.3f}"


def markdown(judged: Sequence[Judged]) -> str:
    """The table: every decision, those the bot kept and played, those with as many epochs
    to come, then each class."""
    if not judged:
        return "No token decision of the bot passes the filters."
    lines = [
        "| decisions | epochs to come | tokens (bot, opponent) | n | played | gain of playing |",
        "|---|---|---|---|---|---|",
    ]

    def add(label: str, epochs: str, tokens: str, group: Sequence[Judged]) -> None:
        if group:
            played = sum(j.spot.played for j in group) / len(group)
            gains = cell([j.gain for j in group])
            lines.append(
                f"| {label} | {epochs} | {tokens} | {len(group)} | {played:.2f} | {gains} |"
            )

    add("all", "any", "any", judged)
    add("kept", "any", "any", [j for j in judged if not j.spot.played])
    add("played", "any", "any", [j for j in judged if j.spot.played])
    for left in sorted({j.spot.epochs_left for j in judged}, reverse=True):
        add("by epochs", str(left), "any", [j for j in judged if j.spot.epochs_left == left])
    classes: dict[tuple[int, int, int], list[Judged]] = defaultdict(list)
    for j in judged:
        classes[j.key].append(j)
    for (left, mine, other), group in sorted(classes.items()):
        add("class", str(left), f"{mine}, {other}", group)
    return "\n".join(lines)


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command(help=(__doc__ or "").split("\n\n", 1)[0])
def main_command(
    paths: Annotated[list[Path], typer.Argument(help="ladder.jsonl files (records with moves).")],
    bot: Annotated[str, typer.Option(help="The bot looked at: the start of its spec.")] = "hard",
    decisions: Annotated[int, typer.Option(help="Token decisions drawn from the records.")] = 240,
    worlds: Annotated[int, typer.Option(help="Worlds each decision is played on in.")] = 6,
    iterations: Annotated[
        int, typer.Option(help="Search iterations a decision when playing on.")
    ] = 400,
    epochs_left: Annotated[int, typer.Option(help="The most epochs to come.")] = 4,
    seed: Annotated[int, typer.Option(help="Draws the decisions and deals the worlds.")] = 1,
    workers: Annotated[int, typer.Option(help="Decisions played on in parallel.")] = 1,
) -> None:
    require_files(paths)
    for name, value in (("decisions", decisions), ("worlds", worlds), ("iterations", iterations)):
        if value < 1:
            raise typer.BadParameter(f"--{name}: at least 1")
    if epochs_left < 1:
        raise typer.BadParameter("--epochs-left: at least 1")
    try:
        judged = timing(read(paths), bot, decisions, worlds, iterations, epochs_left, seed, workers)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    print(markdown(judged))


def main(argv: list[str] | None = None) -> None:
    """Run the command; with ``argv`` (a list of arguments) it returns instead of exiting."""
    run_command(app, "lab.timing", argv)


if __name__ == "__main__":
    main()
