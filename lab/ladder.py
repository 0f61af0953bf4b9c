"""The ladder: ``hard`` against opponents it did not grow up with, rated.

``hard`` (or the search bot standing in for it at a fixed iteration budget) meets
``expert-rules``, ``greedy``, ``pimc`` at the same budget and OpenSpiel's ``ISMCTSBot``
(random rollouts) given 4× its iterations, in 2- and 4-player games of Tigris and Gheos. Two
players: every opponent in both seats; four: ``hard`` with every three of the opponents, in
every rotation. A round's games share one seed.

Each game's record is appended as a line of JSON to ``<out>/ladder.jsonl`` as soon as it is
played, and a run first reads that file back and plays only the games it lacks: a stopped run
goes on where it stopped. The games run in ``cradle.ai.search.parallel.map_local`` workers. The
report goes to ``<out>/ladder.json`` and, as Markdown tables, ``<out>/ladder.md``.

    python -m lab ladder --iterations 500 --rounds 4 --workers 2
    python -m lab ladder --quick --out /tmp/ladder   # a smoke test: a few tiny games
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from cradle.ai.bots import Bot
from cradle.ai.levels import make_bot_spec
from cradle.ai.match import MAX_ACTIONS, drive
from cradle.ai.search.parallel import map_local
from cradle.ai.tournament import (
    GameTask,
    TableRecord,
    fit_ratings,
    head_to_head,
    play_game,
    thinking_times,
)
from cradle.core.results import rank_rewards
from lab.command import run_command

OPENSPIEL = "openspiel-ismcts"  # OpenSpiel's ISMCTSBot: ``openspiel-ismcts@<simulations>``
RESULTS = "ladder.jsonl"


@dataclass(frozen=True)
class LadderGame:
    """One game of the ladder, as plain data for a worker."""

    game: str
    players: int
    seed: int
    seating: tuple[str, ...]  # bot spec per seat

    @property
    def key(self) -> str:
        return f"{self.game}/{self.players}/{self.seed}/{'|'.join(self.seating)}"


@dataclass(frozen=True)
class LadderSettings:
    games: tuple[str, ...] = ("tigris", "gheos")
    players: tuple[int, ...] = (2, 4)
    hard: str = "ismcts@500"
    opponents: tuple[str, ...] = ("expert-rules", "greedy", "pimc@500", f"{OPENSPIEL}@2000")
    rounds: int = 2
    seed: int = 2026

    @classmethod
    def at_iterations(cls, iterations: int, **rest: Any) -> LadderSettings:
        """``hard``'s search at ``iterations``, PIMC at the same and OpenSpiel's at 4×."""
        return cls(
            hard=f"ismcts@{iterations}",
            opponents=(
                "expert-rules",
                "greedy",
                f"pimc@{iterations}",
                f"{OPENSPIEL}@{4 * iterations}",
            ),
            **rest,
        )


QUICK = LadderSettings(
    games=("gheos",),
    players=(2,),
    hard="ismcts@4",
    opponents=("expert-rules", "greedy", "pimc@4", f"{OPENSPIEL}@8"),
    rounds=1,
)


def schedule(settings: LadderSettings) -> list[LadderGame]:
    """Every meeting of ``hard`` in every rotation of its seats, once per round."""
    if not settings.opponents:
        raise ValueError("the ladder needs at least one opponent")
    seeds = random.Random(settings.seed)
    out: list[LadderGame] = []
    for _ in range(settings.rounds):
        seed = seeds.randrange(2**31)
        for game in settings.games:
            for players in settings.players:
                if players - 1 > len(settings.opponents):
                    raise ValueError(f"{players} players need {players - 1} opponents")
                for others in itertools.combinations(settings.opponents, players - 1):
                    lineup = (settings.hard, *others)
                    for shift in range(players):
                        seating = lineup[shift:] + lineup[:shift]
                        out.append(LadderGame(game, players, seed, seating))
    return out


# -- playing ------------------------------------------------------------------------------


def play(task: LadderGame) -> dict[str, Any]:
    """Play one ladder game; its record (a tournament record plus ``key`` and ``players``)."""
    if any(spec.startswith(OPENSPIEL) for spec in task.seating):
        record = _play_with_openspiel(task)
    else:
        record = dict(play_game(GameTask(0, task.game, task.seed, task.seating)))
    record["key"] = task.key
    record["players"] = task.players
    return record


def _openspiel_budget(spec: str) -> int:
    _, _, text = spec.partition("@")
    try:
        simulations = int(text)
    except ValueError:
        raise ValueError(f"{spec!r}: write {OPENSPIEL}@<simulations>") from None
    if simulations < 1:
        raise ValueError(f"{spec!r}: at least 1 simulation")
    return simulations


def _play_with_openspiel(task: LadderGame) -> dict[str, Any]:
    """A game through the OpenSpiel adapter: OpenSpiel's ISMCTSBot searches the pyspiel state
    in its seats, cradle bots decide on the engine state it prints in theirs."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    import cradle.envs.openspiel  # noqa: F401  (registers the games)
    from lab.openspiel_arena import (
        OPENSPIEL_NAMES,
        SpielTable,
        cradle_player,
        spiel_player,
        told,
    )

    spiel_game = pyspiel.load_game(OPENSPIEL_NAMES[task.game], {"players": task.players})
    table = SpielTable(task.game, spiel_game.new_initial_state(), random.Random(task.seed))
    seat_rng = random.Random(task.seed * 7919 + task.players)
    numpy_rng = np.random.RandomState(task.seed % 2**32)
    evaluator = mcts.RandomRolloutEvaluator(1, numpy_rng)
    ours: list[Bot] = []
    seating: list[Callable[[SpielTable, int], str]] = []
    for spec in task.seating:
        seed = seat_rng.randrange(2**31)
        if spec.startswith(OPENSPIEL):
            theirs = ismcts.ISMCTSBot(
                spiel_game,
                evaluator,
                uct_c=2.0,
                max_simulations=_openspiel_budget(spec),
                random_state=numpy_rng,
                allow_inconsistent_action_sets=True,
            )
            seating.append(spiel_player(theirs))
        else:
            bot = make_bot_spec(spec, seed)
            ours.append(bot)
            seating.append(cradle_player(bot))
    # Our bots that read the opponents see every action, theirs too.
    done = drive(table, seating, max_actions=MAX_ACTIONS, told=told(ours))
    final = table.engine()
    result = sorted(final.result(), key=lambda row: row["seat"])
    return {
        "index": 0,
        "game": task.game,
        "seed": task.seed,
        "seating": list(task.seating),
        "places": [row["place"] for row in result],
        "scores": [row["score"] for row in result],
        "rewards": rank_rewards(result),
        "actions": len(done.actions),
        "truncated": not final.is_over,
        "seconds": round(done.seconds, 3),
        "thinking": [round(t, 3) for t in done.thinking],
        "decisions": done.decisions,
    }


def check(settings: LadderSettings) -> None:
    """Every spec names a bot (ValueError otherwise), before any game is played."""
    for spec in (settings.hard, *settings.opponents):
        if spec.startswith(OPENSPIEL):
            _openspiel_budget(spec)
        else:
            make_bot_spec(spec, 0)


def load(path: Path) -> dict[str, dict[str, Any]]:
    """The records already played, by key (a torn last line, from a killed run, is skipped)."""
    done: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return done
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and "key" in record:
            done[str(record["key"])] = record
    return done


def run(
    settings: LadderSettings, out: Path, workers: int, echo: Any = None
) -> list[dict[str, Any]]:
    """Play what ``out``'s results lack, appending each record as it comes; every record of
    this schedule, in schedule order."""

    check(settings)
    out.mkdir(parents=True, exist_ok=True)
    path = out / RESULTS
    done = load(path)
    tasks = schedule(settings)
    todo = [task for task in tasks if task.key not in done]
    if echo:
        echo(f"ladder: {len(tasks)} games, {len(tasks) - len(todo)} already played")
    with path.open("a", encoding="utf-8") as handle:

        def keep(record: dict[str, Any]) -> None:
            handle.write(json.dumps(record) + "\n")
            handle.flush()
            done[str(record["key"])] = record
            if echo:
                echo(f"  {record['key']}: places {record['places']}")

        map_local(play, todo, workers, keep)
    return [done[task.key] for task in tasks]


# -- the report ---------------------------------------------------------------------------


def report(settings: LadderSettings, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per game and player count: openskill ratings, ``hard``'s head-to-head scores with
    Wilson intervals, and seconds per decision."""

    tables: list[dict[str, Any]] = []
    for game in settings.games:
        for players in settings.players:
            chosen: list[TableRecord] = [
                r  # type: ignore[misc]
                for r in records
                if r["game"] == game and r["players"] == players
            ]
            if not chosen:
                continue
            versus = head_to_head(chosen).get(settings.hard, {})
            tables.append(
                {
                    "game": game,
                    "players": players,
                    "games": len(chosen),
                    "truncated": sum(1 for r in chosen if r["truncated"]),
                    "ratings": fit_ratings(chosen),
                    "versus": versus,
                    "seconds_per_decision": thinking_times(chosen),
                }
            )
    return {"settings": asdict(settings), "tables": tables}


def markdown(summary: dict[str, Any], command: str) -> str:
    """The report as Markdown tables (``<out>/ladder.md``), with the command that plays it."""
    settings = summary["settings"]
    hard = settings["hard"]
    lines = [
        f"`{hard}` stands for `hard`; {settings['rounds']} round(s), seed {settings['seed']}. "
        "Ratings: openskill mu with its 95% interval, then the mean reward (share of opponents "
        "beaten) and seconds per decision. Head-to-head: the share of meetings "
        f"`{hard}` finished ahead (ties half) with Wilson's 95% interval.",
        "",
        "```sh",
        command,
        "```",
    ]
    for table in summary["tables"]:
        lines += [
            "",
            f"**{table['game'].capitalize()}, {table['players']} players** "
            f"({table['games']} games, {table['truncated']} cut at {MAX_ACTIONS} actions)",
            "",
            "| bot | rating (95%) | mean reward | s/decision |",
            "|---|---|---|---|",
        ]
        for bot, rating in table["ratings"].items():
            lines.append(
                f"| `{bot}` | {rating['mu']:.1f} ({rating['low']:.1f} to {rating['high']:.1f}) "
                f"| {rating['mean_reward']:.2f} | {table['seconds_per_decision'].get(bot, 0):.3f} |"
            )
        lines += ["", f"| `{hard}` against | meetings | score | Wilson 95% |", "|---|---|---|---|"]
        for bot, h2h in table["versus"].items():
            lines.append(
                f"| `{bot}` | {h2h['meetings']} | {h2h['score']:.2f} "
                f"| {h2h['low']:.2f}-{h2h['high']:.2f} |"
            )
    return "\n".join(lines) + "\n"


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


def _split(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


@app.command(help=(__doc__ or "").split("\n\n", 1)[0])
def ladder(
    iterations: Annotated[
        int, typer.Option(help="hard's and pimc's iterations; OpenSpiel's bot gets 4x.")
    ] = 500,
    games: Annotated[str, typer.Option(help="Games, comma-separated.")] = "tigris,gheos",
    players: Annotated[str, typer.Option(help="Player counts, comma-separated.")] = "2,4",
    hard: Annotated[str | None, typer.Option(help="The bot on trial (default ismcts@N).")] = None,
    opponents: Annotated[
        str | None, typer.Option(help="Opponent specs, comma-separated (default: the ladder's).")
    ] = None,
    rounds: Annotated[int, typer.Option(help="Seeds; each in every seating.")] = 2,
    seed: Annotated[int, typer.Option(help="Seed of the rounds' seeds.")] = 2026,
    workers: Annotated[int, typer.Option(help="Local processes (0: every core).")] = 0,
    out: Annotated[Path, typer.Option(help="Results folder (re-read: runs resume).")] = Path(
        "results/ladder"
    ),
    quick: Annotated[bool, typer.Option(help="A smoke test: a few tiny Gheos games.")] = False,
) -> None:
    import os

    if quick:
        settings = QUICK
    else:
        try:
            player_counts = tuple(int(p) for p in _split(players))
        except ValueError:
            raise typer.BadParameter(f"players: numbers like 2,4, not {players!r}") from None
        base = LadderSettings.at_iterations(
            iterations, games=_split(games), players=player_counts, rounds=rounds, seed=seed
        )
        settings = LadderSettings(
            base.games,
            base.players,
            hard or base.hard,
            _split(opponents) if opponents else base.opponents,
            rounds,
            seed,
        )
    count = workers or os.cpu_count() or 1
    records = run(settings, out, count, echo=print)
    summary = report(settings, records)
    (out / "ladder.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    command = "python -m lab ladder --quick" if quick else command_for(settings)
    tables = markdown(summary, command)
    (out / "ladder.md").write_text(tables, encoding="utf-8")
    print(tables, end="")


def command_for(settings: LadderSettings) -> str:
    """The command that plays (or resumes) exactly this ladder."""
    return (
        "python -m lab ladder"
        f" --games {','.join(settings.games)}"
        f" --players {','.join(str(p) for p in settings.players)}"
        f" --hard {settings.hard} --opponents {','.join(settings.opponents)}"
        f" --rounds {settings.rounds} --seed {settings.seed}"
    )


def main(argv: list[str] | None = None) -> None:
    """Run the command; with ``argv`` (a list of arguments) it returns instead of exiting."""
    run_command(app, "lab.ladder", argv)


if __name__ == "__main__":
    main()
