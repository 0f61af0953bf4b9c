"""Round-robin tournaments between bots, with seat rotation, shared seeds and ratings.

Schedule: every lineup of bots (each combination of ``players`` different bots; with fewer
bots than seats, the bots take turns around the table) is played in every rotation of its
seating, and all of those games share one seed per round, so each bot meets the same bags and
first players from every seat. Games run in local worker processes or on a Ray cluster.

Results: one record per game (seating, seed, places, scores, thinking time), head-to-head
scores with Wilson intervals, and openskill (Plackett-Luce) ratings with 95% intervals.
"""

from __future__ import annotations

import csv
import itertools
import json
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from cradle.ai.cluster import connect
from cradle.ai.levels import make_bot_spec
from cradle.ai.match import MAX_ACTIONS, IllegalChoice, play
from cradle.ai.search.budget import Budget
from cradle.ai.search.parallel import map_local
from cradle.core.contract import JSON
from cradle.core.results import rank_rewards, wilson_interval
from cradle.games import get_game


class TableRecord(TypedDict):
    """One played game as results.json keeps it (per seat, in seat order)."""

    index: int
    game: str
    seed: int
    seating: list[str]  # bot spec per seat
    places: list[int]
    scores: list[int]
    rewards: list[float]
    actions: int
    truncated: bool  # cut after MAX_ACTIONS and ranked as it stood
    seconds: float
    thinking: list[float]  # seconds per seat
    decisions: list[int]
    # The actions played, in order: the game replays from its seed (lab.review). Not
    # kept for games played through OpenSpiel, whose chance draws are not the seed's.
    moves: NotRequired[list[str]]
    options: NotRequired[JSON]  # the game's options, where the task set any


@dataclass(frozen=True)
class GameTask:
    """One game to play: everything a worker needs, as plain data."""

    index: int
    game: str
    seed: int
    seating: tuple[str, ...]  # bot spec per seat
    options: JSON = field(default_factory=dict)
    seconds: float | None = None  # default budget of plain search-bot names
    iterations: int | None = None


def lineups(bots: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The groups of bots that meet: every combination, or one table of turns when fewer
    bots than seats."""
    if len(bots) >= players:
        return list(itertools.combinations(bots, players))
    return [tuple(bots[i % len(bots)] for i in range(players))]


def schedule(
    game: str,
    bots: Sequence[str],
    players: int,
    rounds: int,
    seed: int,
    options: JSON | None = None,
    seconds: float | None = None,
    iterations: int | None = None,
) -> list[GameTask]:
    """Every lineup in every rotation of its seats, once per round; a round's games share a
    seed."""
    tasks: list[GameTask] = []
    seeds = random.Random(seed)
    for _ in range(rounds):
        game_seed = seeds.randrange(2**31)
        for lineup in lineups(bots, players):
            for shift in range(players):
                seating = lineup[shift:] + lineup[:shift]
                tasks.append(
                    GameTask(
                        len(tasks),
                        game,
                        game_seed,
                        seating,
                        dict(options or {}),
                        seconds,
                        iterations,
                    )
                )
    return tasks


def play_game(task: GameTask) -> TableRecord:
    """Play one game to its end; a JSON-able record of it."""
    module = get_game(task.game)
    options = module.options_from_dict(task.options)
    state = module.new_game(len(task.seating), task.seed, options)
    default = None
    if task.seconds is not None or task.iterations is not None:
        default = Budget(task.iterations, task.seconds)
    seat_rng = random.Random(task.seed * 7919 + task.index)
    bots = [make_bot_spec(spec, seat_rng.randrange(2**31), default) for spec in task.seating]
    try:
        played = play(state, bots, max_actions=MAX_ACTIONS)
    except IllegalChoice as exc:
        raise RuntimeError(
            f"bot {task.seating[exc.seat]} chose the illegal action {exc.action!r} "
            f"(game {task.index}, seed {task.seed}): {exc.reason}"
        ) from None
    result = sorted(state.result(), key=lambda row: row["seat"])
    rewards = rank_rewards(result)
    record: TableRecord = {
        "index": task.index,
        "game": task.game,
        "seed": task.seed,
        "seating": list(task.seating),
        "places": [row["place"] for row in result],
        "scores": [row["score"] for row in result],
        "rewards": rewards,
        "actions": len(played.actions),
        "truncated": played.truncated,
        "seconds": round(played.seconds, 3),
        "thinking": [round(t, 3) for t in played.thinking],
        "decisions": played.decisions,
        "moves": played.actions,
    }
    if task.options:
        record["options"] = task.options
    return record


# -- running ------------------------------------------------------------------------------


Progress = Callable[[TableRecord], None]


def run_local(
    tasks: Sequence[GameTask], workers: int, progress: Progress | None = None
) -> list[TableRecord]:
    """Play the games in ``workers`` local processes (in this one when ``workers`` is 1)."""

    return map_local(play_game, tasks, workers, progress)


def run_ray(
    tasks: Sequence[GameTask],
    address: str,
    workers: int,
    progress: Progress | None = None,
) -> list[TableRecord]:
    """Play the games as Ray tasks: on the cluster at ``address``, or on a Ray instance
    started here for the run when ``address`` is ``local``."""
    import ray

    started = connect(address, workers)
    try:
        remote = ray.remote(play_game)
        pending = [remote.remote(task) for task in tasks]
        records: list[TableRecord] = []
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                record = ray.get(ref)
                records.append(record)
                if progress:
                    progress(record)
    finally:
        if started:
            ray.shutdown()
    records.sort(key=lambda r: int(r["index"]))
    return records


# -- analysis -----------------------------------------------------------------------------


class Meeting(TypedDict):
    """How one bot fared against another: the share of their meetings it finished ahead
    (ties half), with its Wilson interval."""

    score: float
    meetings: int
    low: float
    high: float


class Rating(TypedDict):
    """A bot's openskill rating (mu ± 1.96 sigma), its seats and mean reward."""

    mu: float
    sigma: float
    low: float
    high: float
    ordinal: float
    seats: int
    mean_reward: float | None


class Report(TypedDict):
    """A tournament's results.json."""

    settings: JSON
    ratings: dict[str, Rating]
    head_to_head: dict[str, dict[str, Meeting]]
    seconds_per_decision: dict[str, float]
    games: list[TableRecord]


def head_to_head(records: Iterable[TableRecord]) -> dict[str, dict[str, Meeting]]:
    """For each pair of different bots at a table: the share of their meetings the first
    finished ahead of the second (ties half), with its interval."""
    tally: dict[tuple[str, str], list[float]] = {}
    for record in records:
        seating, places = record["seating"], record["places"]
        for i, a in enumerate(seating):
            for j, b in enumerate(seating):
                if i == j or a == b:
                    continue
                won = 1.0 if places[i] < places[j] else 0.5 if places[i] == places[j] else 0.0
                pair = tally.setdefault((a, b), [0.0, 0.0])
                pair[0] += won
                pair[1] += 1
    out: dict[str, dict[str, Meeting]] = {}
    for (a, b), (won, n) in sorted(tally.items()):
        share = won / n
        low, high = wilson_interval(won, int(n))
        out.setdefault(a, {})[b] = {
            "score": round(share, 4),
            "meetings": int(n),
            "low": round(low, 4),
            "high": round(high, 4),
        }
    return out


def fit_ratings(records: Sequence[TableRecord], passes: int = 3) -> dict[str, Rating]:
    """openskill Plackett-Luce ratings from the places of every game.

    Each seat is a team of one; a bot seated twice at one table gets the mean of its two
    updates. Several passes over the games (in order) let early games count against later
    knowledge; the interval is mu ± 1.96 sigma."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    labels = sorted({label for r in records for label in r["seating"]})
    for label in labels:
        ratings[label] = model.rating(name=label)
    for _ in range(max(1, passes)):
        for record in records:
            seating = record["seating"]
            teams = [[model.rating(mu=ratings[b].mu, sigma=ratings[b].sigma)] for b in seating]
            updated = model.rate(teams, ranks=[float(p) for p in record["places"]])
            merged: dict[str, list[tuple[float, float]]] = {}
            for label, team in zip(seating, updated, strict=True):
                merged.setdefault(label, []).append((team[0].mu, team[0].sigma))
            for label, pairs in merged.items():
                mu = sum(p[0] for p in pairs) / len(pairs)
                sigma = sum(p[1] for p in pairs) / len(pairs)
                ratings[label] = model.rating(mu=mu, sigma=sigma, name=label)
    games: dict[str, int] = {label: 0 for label in labels}
    reward: dict[str, float] = {label: 0.0 for label in labels}
    for record in records:
        for label, r in zip(record["seating"], record["rewards"], strict=True):
            games[label] += 1
            reward[label] += float(r)
    out: dict[str, Rating] = {}
    for label in labels:
        rating = ratings[label]
        out[label] = {
            "mu": round(rating.mu, 3),
            "sigma": round(rating.sigma, 3),
            "low": round(rating.mu - 1.96 * rating.sigma, 3),
            "high": round(rating.mu + 1.96 * rating.sigma, 3),
            "ordinal": round(rating.mu - 3 * rating.sigma, 3),
            "seats": games[label],
            "mean_reward": round(reward[label] / games[label], 4) if games[label] else None,
        }
    return dict(sorted(out.items(), key=lambda kv: -kv[1]["mu"]))


def thinking_times(records: Iterable[TableRecord]) -> dict[str, float]:
    """Mean seconds per decision of each bot."""
    total: dict[str, list[float]] = {}
    for record in records:
        for label, t, n in zip(
            record["seating"], record["thinking"], record["decisions"], strict=True
        ):
            pair = total.setdefault(label, [0.0, 0.0])
            pair[0] += t
            pair[1] += n
    return {label: round(t / n, 4) if n else 0.0 for label, (t, n) in sorted(total.items())}


def summary(records: Sequence[TableRecord], settings: JSON) -> Report:
    return {
        "settings": settings,
        "ratings": fit_ratings(records),
        "head_to_head": head_to_head(records),
        "seconds_per_decision": thinking_times(records),
        "games": list(records),
    }


def write_results(out: Path, report: Report) -> list[Path]:
    """results.json (everything), results.csv (a row per seat of every game), ratings.png."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    path = out / "results.json"
    path.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    written.append(path)
    path = out / "results.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["game_index", "game", "seed", "seat", "bot", "place", "score", "reward", "thinking_s"]
        )
        for record in report["games"]:
            for seat, bot in enumerate(record["seating"]):
                writer.writerow(
                    [
                        record["index"],
                        record["game"],
                        record["seed"],
                        seat,
                        bot,
                        record["places"][seat],
                        record["scores"][seat],
                        record["rewards"][seat],
                        record["thinking"][seat],
                    ]
                )
    written.append(path)
    path = out / "ratings.png"
    plot_ratings(report["ratings"], path, str(report["settings"].get("title", "")))
    written.append(path)
    return written


def plot_ratings(ratings: dict[str, Rating], path: Path, title: str) -> None:
    """A row per bot: rating mu with its 95% interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(ratings)[::-1]
    mus = [float(ratings[b]["mu"]) for b in labels]
    errors = [1.96 * float(ratings[b]["sigma"]) for b in labels]
    figure, axes = plt.subplots(figsize=(7, 1.2 + 0.5 * len(labels)))
    # A rating has no meaningful zero: a point and its interval, not a bar.
    axes.errorbar(mus, labels, xerr=errors, fmt="o", color="#4c78a8", ecolor="#333333", capsize=4)
    axes.set_xlabel("openskill rating (mu, 95% interval)")
    if title:
        axes.set_title(title)
    axes.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def settings_dict(**values: Any) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def task_dicts(tasks: Sequence[GameTask]) -> list[JSON]:
    return [asdict(t) for t in tasks]
