"""A second opinion: a longer search looks again at a bot's decisions in recorded games.

The ladder and the tournament keep every game's moves (``moves`` in each record), so a game
replays from its seed. This walks a bot's first decisions of each game again and asks a
judge (an ISMCTS spec, usually with many times the bot's time) what it would have played
there and how it rates the move that was played::

    python -m lab review results/screen/ladder.jsonl --bot ismcts --judge ismcts@3s \\
        --decisions 20 --lost --followed --workers 2

``--lost`` keeps the games the bot lost, ``--followed`` those another seat started. A move
the judge agrees with costs nothing; one it does not costs the judge's mean reward of its own
choice minus that of the move played (its *regret*), when the judge visited the move played
at least a hundredth as often as its own (fewer visits say too little: it is counted
apart). If the judge agrees almost everywhere, more time would not have changed those games.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from cradle.ai.bots import UnknownBot, tell
from cradle.ai.levels import make_bot_spec
from cradle.ai.search.ismcts import IsmctsBot
from lab.command import run_command
from lab.records import Line, PlayedGame, deal, played, read, require_files, wanted

# The judge's visits to the move played, as a share of its own choice's, below which its
# mean reward for that move is too uncertain to be called a regret.
RARE = 0.01


@dataclass(frozen=True)
class Decision:
    """One of the bot's decisions, looked at again."""

    seed: int
    seat: int
    number: int  # the bot's decisions with a choice in this game, this one counted
    played: str
    judged: str  # the judge's choice
    played_visits: int
    played_reward: float | None  # the judge's mean reward of the move played (None: unvisited)
    judged_visits: int
    judged_reward: float

    @property
    def agrees(self) -> bool:
        return self.played == self.judged

    @property
    def rare(self) -> bool:
        """The judge hardly visited the move played: its reward says little."""
        return not self.agrees and self.played_visits < RARE * self.judged_visits

    @property
    def regret(self) -> float:
        """What the judge thinks the move played cost (0 where it agrees, or where the move
        played was too rarely visited to say)."""
        if self.agrees or self.rare or self.played_reward is None:
            return 0.0
        return max(0.0, self.judged_reward - self.played_reward)


@dataclass(frozen=True)
class Task:
    record: PlayedGame
    bot: str
    judge: str
    decisions: int


def review_game(task: Task) -> list[Decision]:
    """The bot's first ``task.decisions`` decisions with a choice in one recorded game, each
    with the judge's opinion (the judge sees every move, as a driver shows it)."""

    record = task.record
    seat = wanted(record, task.bot, False, False)
    if seat is None:
        raise ValueError(f"the bot {task.bot!r} is not in exactly one seat of this record")
    judge = make_bot_spec(task.judge, record.seed)
    if not isinstance(judge, IsmctsBot):
        raise ValueError(f"the judge must be an ISMCTS spec, not {task.judge!r}")
    state = deal(record)
    out: list[Decision] = []
    for move in record.moves:
        if len(out) >= task.decisions:
            break
        if state.to_move == seat and len(state.legal_actions()) > 1:
            result = judge.analyse(state, seat)
            stats = {row.action: row for row in result.actions}
            best = result.actions[0]
            mine = stats.get(move)
            out.append(
                Decision(
                    record.seed,
                    seat,
                    len(out) + 1,
                    move,
                    best.action,
                    mine.visits if mine else 0,
                    mine.reward if mine and mine.visits else None,
                    best.visits,
                    best.reward,
                )
            )
        tell([judge], state, move)
        state.apply(move)  # a record that does not replay raises here
    return out


def review(
    records: Iterable[Line],
    bot: str,
    judge: str,
    decisions: int,
    lost: bool = False,
    followed: bool = False,
    workers: int = 1,
) -> list[list[Decision]]:
    """Every wanted game's decisions, looked at again (a game per worker process)."""
    tasks = [
        Task(game, bot, judge, decisions)
        for game in played(records)
        if wanted(game, bot, lost, followed) is not None
    ]
    if workers <= 1:
        return [review_game(task) for task in tasks]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(review_game, tasks))


@dataclass(frozen=True)
class Summary:
    games: int
    decisions: int
    agreed: int
    rare: int  # the judge disagreed and hardly visited the move played
    mean_regret: float
    over: dict[float, int]  # regret threshold -> decisions over it
    first_rating: float | None  # the judge's mean reward of its choice at each first decision


def summarise(games: Sequence[Sequence[Decision]]) -> Summary:
    flat = [d for game in games for d in game]
    firsts = [game[0].judged_reward for game in games if game]
    return Summary(
        len(games),
        len(flat),
        sum(d.agrees for d in flat),
        sum(d.rare for d in flat),
        statistics.fmean(d.regret for d in flat) if flat else 0.0,
        {t: sum(d.regret > t for d in flat) for t in (0.05, 0.1)},
        statistics.fmean(firsts) if firsts else None,
    )


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command(help=(__doc__ or "").split("\n\n", 1)[0])
def main_command(
    paths: Annotated[list[Path], typer.Argument(help="ladder.jsonl files (records with moves).")],
    bot: Annotated[str, typer.Option(help="The bot looked at: the start of its spec.")] = "hard",
    judge: Annotated[str, typer.Option(help="The judge: an ISMCTS spec.")] = "ismcts@3s",
    decisions: Annotated[int, typer.Option(help="The bot's first decisions per game.")] = 20,
    lost: Annotated[bool, typer.Option(help="Only games the bot did not win.")] = False,
    followed: Annotated[bool, typer.Option(help="Only games another seat started.")] = False,
    workers: Annotated[int, typer.Option(help="Games looked at in parallel.")] = 1,
    out: Annotated[Path | None, typer.Option(help="Write every decision here (JSON lines).")] = (
        None
    ),
) -> None:
    require_files(paths)
    if decisions < 1:
        raise typer.BadParameter("--decisions: at least 1")

    try:
        if not isinstance(make_bot_spec(judge, 0), IsmctsBot):
            raise typer.BadParameter(f"--judge: an ISMCTS spec, not {judge!r}")
    except UnknownBot as exc:
        raise typer.BadParameter(f"--judge: {exc}") from None
    games = review(read(paths), bot, judge, decisions, lost, followed, workers)
    if out is not None:
        with out.open("w", encoding="utf-8") as handle:
            for game in games:
                for d in game:
                    handle.write(json.dumps(d.__dict__) + "\n")
    s = summarise(games)
    print(f"{s.games} games, {s.decisions} decisions of `{bot}` judged by `{judge}`:")
    print(f"- the judge chose the move played in {s.agreed} ({s.agreed / max(1, s.decisions):.0%})")
    print(f"- it hardly visited the move played in {s.rare} more")
    print(f"- regret, by the judge's own rewards: {s.mean_regret:.4f} a decision on average;")
    print(f"  over 0.05 in {s.over[0.05]}, over 0.1 in {s.over[0.1]}")
    if s.first_rating is not None:
        print(
            f"- its rating of the bot's seat at its first decision: {s.first_rating:.3f} on average"
        )


def main(argv: list[str] | None = None) -> None:
    """Run the command; with ``argv`` (a list of arguments) it returns instead of exiting."""
    run_command(app, "lab.review", argv)


if __name__ == "__main__":
    main()
