"""Does a change make a bot stronger? A sequential probability ratio test between two bots.

The question a new evaluation, belief or setting must answer before it becomes a default:
``new`` plays ``old`` in *pairs* of games, both games of a pair on one seed (the same bag and
first player) with the seats swapped, so the luck of the deal cancels within a pair. A game's
score for ``new`` is the share of ``old``'s seats its seats finished ahead of (ties half; in
four-player games ``new`` and ``old`` alternate around the table). After each batch of pairs,
the generalized SPRT on the pair scores (normal approximation, as chess engine testing does)
weighs H0, "``new`` is ``elo0`` stronger", against H1, "``new`` is ``elo1`` stronger", on the
logistic Elo scale:

    LLR = N (s1 - s0) (2 m - s0 - s1) / (2 v)

with ``s0``, ``s1`` the expected scores at ``elo0`` and ``elo1``, ``m`` and ``v`` the mean and
variance of the ``N`` pair scores. The test stops at ``log(beta / (1 - alpha))`` (accept H0)
or ``log((1 - beta) / alpha)`` (accept H1), or undecided after ``max_pairs``.

    python -m lab sprt --game tigris --players 2 --new "ismcts@0.25s/value=2" \\
        --old "ismcts@0.25s/value=1" --elo0 0 --elo1 40 --max-pairs 200 --workers 1 \\
        --out results/sprt-value.jsonl

Every pair is appended to ``--out`` as it ends (one JSON line); a run with the same settings
reads it back and goes on where it stopped.
"""

from __future__ import annotations

import json
import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from cradle.ai.bots import UnknownBot
from cradle.ai.levels import make_bot_spec
from cradle.ai.search.parallel import map_local
from cradle.ai.tournament import GameTask, play_game
from cradle.core.registry import UnknownGame, get_game
from cradle.core.results import Z95
from lab.command import run_command

MIN_PAIRS = 4  # below this a variance says little; no decision is taken
MIN_VARIANCE = 0.01  # of a pair score: keeps an all-wins start from dividing by zero


@dataclass(frozen=True)
class SprtSettings:
    game: str
    players: int
    new: str
    old: str
    elo0: float
    elo1: float
    alpha: float
    beta: float
    max_pairs: int
    seed: int

    def key(self) -> dict[str, Any]:
        """What a resumed run must share with the one that wrote the file."""
        return {k: v for k, v in asdict(self).items() if k != "max_pairs"}


def expected_score(elo: float) -> float:
    """The logistic Elo model's expected score of a player ``elo`` points stronger."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_of(score: float) -> float:
    """The Elo difference whose expected score is ``score`` (clamped off 0 and 1)."""
    score = min(max(score, 1e-3), 1 - 1e-3)
    return -400.0 * math.log10(1.0 / score - 1.0)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """(lower, upper): accept H0 at or below the lower one, H1 at or above the upper one."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def llr(pair_scores: Sequence[float], elo0: float, elo1: float) -> float:
    """The generalized log-likelihood ratio of H1 against H0 given the pair scores."""
    n = len(pair_scores)
    if n < 2:
        return 0.0
    mean = statistics.fmean(pair_scores)
    variance = max(statistics.pvariance(pair_scores), MIN_VARIANCE)
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)


def decide(pair_scores: Sequence[float], settings: SprtSettings) -> str:
    """ "H1" (``new`` is stronger by ``elo1``), "H0" or "undecided"."""
    if len(pair_scores) < MIN_PAIRS:
        return "undecided"
    ratio = llr(pair_scores, settings.elo0, settings.elo1)
    lower, upper = bounds(settings.alpha, settings.beta)
    if ratio >= upper:
        return "H1"
    if ratio <= lower:
        return "H0"
    return "undecided"


def seatings(players: int, new: str, old: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The two tables of a pair: ``new`` and ``old`` alternating, then every seat swapped."""
    first = tuple(new if seat % 2 == 0 else old for seat in range(players))
    second = tuple(old if seat % 2 == 0 else new for seat in range(players))
    return first, second


def new_score(places: Sequence[int], new_seats: Sequence[int]) -> float:
    """The share of ``old``'s seats that ``new``'s seats finished ahead of (ties half)."""
    old_seats = [seat for seat in range(len(places)) if seat not in new_seats]
    total = 0.0
    for mine in new_seats:
        for theirs in old_seats:
            if places[mine] < places[theirs]:
                total += 1.0
            elif places[mine] == places[theirs]:
                total += 0.5
    return total / (len(new_seats) * len(old_seats))


@dataclass(frozen=True)
class PairTask:
    index: int
    game: str
    players: int
    new: str
    old: str
    seed: int


def play_pair(task: PairTask) -> dict[str, Any]:
    """Both games of one pair; a JSON-able record with ``new``'s pair score."""
    games: list[dict[str, Any]] = []
    scores: list[float] = []
    for half, seating in enumerate(seatings(task.players, task.new, task.old)):
        # The tournament's seat order is the first seating; its new seats are even ones.
        new_seats = [seat for seat in range(task.players) if (seat % 2 == 0) == (half == 0)]
        record = play_game(GameTask(2 * task.index + half, task.game, task.seed, seating))
        scores.append(new_score(record["places"], new_seats))
        games.append(
            {
                "seating": list(seating),
                "places": record["places"],
                "scores": record["scores"],
                "actions": record["actions"],
                "truncated": record["truncated"],
                "thinking": record["thinking"],
                "decisions": record["decisions"],
                "new_score": scores[-1],
            }
        )
    score = statistics.fmean(scores)
    return {"pair": task.index, "seed": task.seed, "score": score, "games": games}


def pair_seeds(seed: int, count: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randrange(2**31) for _ in range(count)]


def load(path: Path, settings: SprtSettings) -> list[dict[str, Any]]:
    """The pairs a run with these settings already played (a torn last line is skipped)."""
    if not path.exists():
        return []
    pairs: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "pair" in row and row.get("settings") == settings.key():
            pairs.append(row)
    pairs.sort(key=lambda row: int(row["pair"]))
    return pairs


def summary(settings: SprtSettings, pairs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    scores = [float(row["score"]) for row in pairs]
    lower, upper = bounds(settings.alpha, settings.beta)
    out: dict[str, Any] = {
        "decision": decide(scores, settings),
        "llr": round(llr(scores, settings.elo0, settings.elo1), 3),
        "bounds": [round(lower, 3), round(upper, 3)],
        "pairs": len(scores),
        "games": 2 * len(scores),
        "new": settings.new,
        "old": settings.old,
        "game": settings.game,
        "players": settings.players,
        "elo0": settings.elo0,
        "elo1": settings.elo1,
    }
    if scores:
        mean = statistics.fmean(scores)
        half = Z95 * math.sqrt(max(statistics.pvariance(scores), MIN_VARIANCE) / len(scores))
        out["score"] = round(mean, 4)
        out["elo"] = round(elo_of(mean), 1)
        out["elo_interval"] = [round(elo_of(mean - half), 1), round(elo_of(mean + half), 1)]
        wins = sum(1 for row in pairs for game in row["games"] if game["new_score"] == 1.0)
        losses = sum(1 for row in pairs for game in row["games"] if game["new_score"] == 0.0)
        out["new_won_games"] = wins
        out["new_lost_games"] = losses
    return out


def run(settings: SprtSettings, out: Path, workers: int) -> dict[str, Any]:
    """Play pairs until the test decides or ``max_pairs`` are played; the summary."""
    for spec in (settings.new, settings.old):
        make_bot_spec(spec, 0)  # a bad spec fails before anything is played
    out.parent.mkdir(parents=True, exist_ok=True)
    pairs = load(out, settings)
    seeds = pair_seeds(settings.seed, settings.max_pairs)
    batch = max(1, workers)
    while len(pairs) < settings.max_pairs:
        scores = [float(row["score"]) for row in pairs]
        if decide(scores, settings) != "undecided":
            break
        start = len(pairs)
        tasks = [
            PairTask(i, settings.game, settings.players, settings.new, settings.old, seeds[i])
            for i in range(start, min(start + batch, settings.max_pairs))
        ]
        for row in map_local(play_pair, tasks, workers):
            row["settings"] = settings.key()
            with out.open("a", encoding="utf-8") as file:
                file.write(json.dumps(row) + "\n")
            pairs.append(row)
            line = summary(settings, pairs)
            print(
                json.dumps(
                    {"pair": row["pair"], "score": row["score"]}
                    | {k: line[k] for k in ("llr", "elo", "decision")}
                ),
                flush=True,
            )
    return summary(settings, pairs)


app = typer.Typer(add_completion=False, help=__doc__.split("\n\n")[0] if __doc__ else None)


@app.command()
def sprt(
    new: Annotated[str, typer.Option(help="The bot spec on trial (e.g. ismcts@0.25s/value=2).")],
    old: Annotated[str, typer.Option(help="The bot spec it must beat.")],
    game: Annotated[str, typer.Option(help="tigris or gheos.")] = "tigris",
    players: Annotated[int, typer.Option(help="Seats (new and old alternate).")] = 2,
    elo0: Annotated[float, typer.Option(help="H0: new is this much stronger.")] = 0.0,
    elo1: Annotated[float, typer.Option(help="H1: new is this much stronger.")] = 40.0,
    alpha: Annotated[float, typer.Option(help="False H1 rate.")] = 0.05,
    beta: Annotated[float, typer.Option(help="False H0 rate.")] = 0.05,
    max_pairs: Annotated[int, typer.Option(help="Stop undecided after this many pairs.")] = 200,
    seed: Annotated[int, typer.Option(help="Seed of the pairs' seeds.")] = 2026,
    workers: Annotated[int, typer.Option(help="Local processes (pairs at a time).")] = 1,
    out: Annotated[Path, typer.Option(help="Pairs file (JSON lines; re-read to resume).")] = Path(
        "results/sprt.jsonl"
    ),
) -> None:

    if players < 2 or players > 4:
        raise typer.BadParameter(f"players: 2 to 4, not {players}")
    if not (0 < alpha < 0.5 and 0 < beta < 0.5):
        raise typer.BadParameter("alpha and beta lie between 0 and 0.5")
    if elo1 <= elo0:
        raise typer.BadParameter("elo1 must be greater than elo0")
    try:
        get_game(game)
    except UnknownGame as exc:
        raise typer.BadParameter(str(exc)) from None
    settings = SprtSettings(game, players, new, old, elo0, elo1, alpha, beta, max_pairs, seed)
    try:
        result = run(settings, out, max(1, workers))
    except UnknownBot as exc:
        raise typer.BadParameter(str(exc)) from None
    print(json.dumps(result))


def main(argv: list[str] | None = None) -> None:
    """Run the command; with ``argv`` (a list of arguments) it returns instead of exiting."""
    run_command(app, "lab.sprt", argv)


if __name__ == "__main__":
    main()
