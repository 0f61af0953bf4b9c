"""How much a Gheos player's tile choices tell about the tile it keeps in hand.

Tigris' hands are read from the public history (``cradle.ai.knowledge.belief``). A Gheos hand is two
tiles: the one a player kept from its last turn and the one it drew after it. Which of the
two it plays, and how, may tell which one it keeps: a player holding a tile it could have
played well would have played it. This measures how much, from the other seat's view, before
a belief is built into the search (lab/notebook/analyses.md, "Reading a Gheos hand").

The reader is a filter over the kept tile. Before a turn of the player read, it holds
weights ``w`` over the tiles the reader cannot see (equal at the start). The hand is the kept
tile and a fresh draw (equally likely any unseen tile); the player plays tile ``P`` and keeps
``x``, so::

    w'(x) ∝ (w(P) + w(x)) · L(move | hand {P, x})

with ``L`` a model of the player, judged in the position with that hand:

- ``prior``: a softmax at temperature τ over the one-ply priors (the search's own,
  ``GheosKnowledge.priors``) of every tile action the hand allows;
- ``search``: the share of a small search's visits (from the player's view, holding
  ``{P, x}``) that go to the tile it played, mixed with ε of an even chance.

Tiles the reader draws leave the weights. A turn's score is ``log(N · w'(K))``, with ``K`` the
tile the player really kept (read from the replayed record, never by a bot) and ``N`` the
tiles it might have kept: the nats the reading gains over an even guess (0: nothing; log N:
certainty). The command prints, per model and setting, the mean over the turns::

    python -m lab hand_reading results/gheos-hard-stop-20*/ladder.jsonl --player pimc \\
        --games 300 --temperatures 0.1,0.2,0.4,1
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from cradle.ai.knowledge.gheos import GheosKnowledge
from cradle.ai.search.budget import Budget
from cradle.ai.search.ismcts import search
from cradle.ai.search.params import IsmctsParams, knowledge_of
from cradle.gheos import GheosGame, as_gheos
from lab.command import run_command
from lab.records import Line, PlayedGame, deal, kept_gheos_pair, played, read, require_files, wanted
from lab.timing import mean_and_error

EPOCH = "epoch"  # an epoch tile in a position's stack
TILE_VERBS = ("place", "replace")

# A model of the player: (the position with the hand {played, other}, the player's seat,
# the move it made, the tile played, the other tile, a seed) -> the move's log-likelihood
# per setting (a name each).
Model = Callable[[GheosGame, int, str, str, str, int], dict[str, float]]


def log_sum_exp(values: Sequence[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def log_or_never(chance: float) -> float:
    return math.log(chance) if chance > 0 else -math.inf


def tile_priors(world: GheosGame, actions: Sequence[str]) -> list[float]:
    """The search's one-ply priors of ``actions`` for the seat to move (hard's knowledge: the
    native one where the state is native, the same numbers as the reference's)."""

    knowledge = knowledge_of(world, IsmctsParams())
    assert isinstance(knowledge, GheosKnowledge)
    try:
        from cradle import _native
    except ImportError:
        return knowledge.priors(world, actions)
    if not isinstance(world, _native.GheosState):
        return knowledge.priors(world, actions)
    ids = world.legal_action_ids()
    by_text = {world.action_string(i): i for i in ids}
    priors = _native.gheos_ai_priors(
        world, [by_text[a] for a in actions], knowledge.value, knowledge.settle
    )
    return list(priors)


def prior_model(temperatures: Sequence[float]) -> Model:
    """The move as a softmax at each temperature over the priors of the hand's tile actions."""

    def likelihood(
        world: GheosGame, seat: int, move: str, played: str, other: str, seed: int
    ) -> dict[str, float]:
        actions = world.legal_actions()
        if move not in actions:
            raise ValueError(f"{move!r} is not legal with the hand {played}, {other}")
        priors = tile_priors(world, actions)
        at = actions.index(move)
        out = {}
        for tau in temperatures:
            scaled = [p / tau for p in priors]
            out[f"prior τ={tau:g}"] = scaled[at] - log_sum_exp(scaled)
        return out

    return likelihood


def search_model(iterations: int, chances: Sequence[float]) -> Model:
    """The share of a search's visits that go to the tile played, with ε of an even chance."""

    def likelihood(
        world: GheosGame, seat: int, move: str, played: str, other: str, seed: int
    ) -> dict[str, float]:

        result = search(world, seat, Budget(iterations=iterations), IsmctsParams(), seed=seed)
        total = sum(row.visits for row in result.actions)
        visits = sum(row.visits for row in result.actions if row.action.split()[1] == played)
        share = visits / total if total else 0.5
        return {
            f"search {iterations}, ε={e:g}": log_or_never((1 - e) * share + e / 2) for e in chances
        }

    return likelihood


def unseen_by_reader(position: dict[str, Any], player: str) -> set[str]:
    """The landscape tiles the other seat (the reader) cannot see: the player's hand and the
    stack."""
    return set(position["hands"][player]) | {t for t in position["stack"] if t != EPOCH}


def with_hand(
    game: GheosGame, position: dict[str, Any], seat: int, played: str, other: str, kept: str
) -> GheosGame:
    """``game`` with the seat's hand ``{played, other}`` instead of ``{played, kept}``: the
    other tile and the kept one swap places (``other`` comes from the stack)."""
    if other == kept:
        return game
    names = list(position["players"])
    hands = [list(position["hands"][name]) for name in names]
    hands[seat] = [played, other]
    pile = [kept if t == other else t for t in position["stack"]]
    return game.with_hidden(hands, pile)


@dataclass(frozen=True)
class Turn:
    """A turn of the player read: how many tiles it might have kept and, per setting, the
    nats the reading gains on the tile it kept."""

    candidates: int
    gains: dict[str, float]


def read_record(
    record: PlayedGame, player: str, model: Model, trusts: Sequence[float] = (1.0,)
) -> list[Turn]:
    """The player's tile turns in one two-player record, each read by ``model`` at each
    ``trust`` (the share of the reading in the weights, the rest an even guess). The model's
    seed for a candidate tile is the move's number × 64 + the tile's place among them."""
    seat = wanted(record, player, lost=False, followed=False)
    if seat is None or not kept_gheos_pair(record):
        return []
    game = as_gheos(deal(record))
    names = list(game.players)
    me = names[seat]
    # Per setting, after the player's last turn (absent: even); tiles the reader has drawn
    # since leave them at the next turn.
    weights: dict[str, dict[str, float]] = {}
    turns: list[Turn] = []
    for number, move in enumerate(record.moves):
        words = move.split()
        hand = game.hand(seat)
        if game.to_move == seat and words[0] in TILE_VERBS and len(hand) == 2:
            played = words[1]
            (kept,) = [t for t in hand if t != played]
            position = game.to_position()
            unseen = unseen_by_reader(position, me)
            candidates = sorted(unseen - {played})
            logs = {
                x: model(
                    with_hand(game, position, seat, played, x, kept),
                    seat,
                    move,
                    played,
                    x,
                    number * 64 + i,
                )
                for i, x in enumerate(candidates)
            }
            gains = {}
            for model_setting in logs[candidates[0]]:
                for trust in trusts:
                    setting = f"{model_setting}, trust {trust:g}"
                    old = weights.get(setting)
                    post = posterior(
                        None if old is None else restricted(old, unseen),
                        played,
                        {x: logs[x][model_setting] for x in candidates},
                        trust,
                    )
                    gains[setting] = math.log(len(candidates) * post[kept])
                    weights[setting] = post
            turns.append(Turn(len(candidates), gains))
        game.apply(move)  # a record that does not replay raises here
    return turns


def posterior(
    weights: dict[str, float] | None,
    played: str,
    log_likelihoods: dict[str, float],
    trust: float = 1.0,
) -> dict[str, float]:
    """The weights of the kept tile after the player played ``played`` (see the module),
    ``trust`` of them the reading and the rest an even guess; ``weights`` None: every unseen
    tile equally likely before."""

    def weight(tile: str) -> float:
        return 1.0 if weights is None else weights.get(tile, 0.0)

    logs = {}
    for x, log_likelihood in log_likelihoods.items():
        prior = weight(played) + weight(x)
        logs[x] = log_or_never(prior) + log_likelihood
    even = 1.0 / len(logs)
    possible = [v for v in logs.values() if v > -math.inf]
    if not possible:  # the model rules out every tile: it knows nothing here
        return dict.fromkeys(logs, even)
    total = log_sum_exp(possible)
    return {x: trust * math.exp(v - total) + (1.0 - trust) * even for x, v in logs.items()}


def restricted(weights: dict[str, float], unseen: set[str]) -> dict[str, float]:
    """The weights of the tiles still unseen, summing to 1 again."""
    kept = {t: w for t, w in weights.items() if t in unseen}
    total = sum(kept.values())
    return {t: w / total for t, w in kept.items()} if total > 0 else {}


@dataclass(frozen=True)
class _Job:
    record: PlayedGame
    player: str
    temperatures: tuple[float, ...]
    iterations: int
    chances: tuple[float, ...]
    trusts: tuple[float, ...]


def _read(job: _Job) -> list[Turn]:
    model = (
        search_model(job.iterations, job.chances)
        if job.iterations
        else prior_model(job.temperatures)
    )
    return read_record(job.record, job.player, model, job.trusts)


def reading(
    records: Iterable[Line],
    player: str,
    games: int,
    temperatures: Sequence[float] = (0.2, 0.4, 1.0),
    iterations: int = 0,
    chances: Sequence[float] = (0.05, 0.2, 0.5),
    trusts: Sequence[float] = (1.0, 0.5),
    workers: int = 1,
) -> list[Turn]:
    """The player's turns in the first ``games`` records it plays in, read by the prior model
    at each temperature, or (``iterations`` > 0) by the search model at each ε."""
    chosen = [
        r
        for r in played(records)
        if kept_gheos_pair(r) and wanted(r, player, False, False) is not None
    ]
    jobs = [
        _Job(r, player, tuple(temperatures), iterations, tuple(chances), tuple(trusts))
        for r in chosen[:games]
    ]
    if workers <= 1:
        return [turn for job in jobs for turn in _read(job)]
    with ProcessPoolExecutor(workers) as pool:
        return [turn for turns in pool.map(_read, jobs) for turn in turns]


def markdown(turns: Sequence[Turn]) -> str:
    """Per setting: the turns read, the mean nats gained on the kept tile (± its standard
    error), the most there was to gain (mean log N) and the mean chance given to the kept
    tile against an even guess (N · w)."""
    if not turns:
        return "No tile turn of the player with two tiles in hand in these records."
    lines = [
        "| model | turns | nats gained | of (mean log N) | chance of the kept tile × N |",
        "|---|---|---|---|---|",
    ]
    most = statistics.fmean(math.log(t.candidates) for t in turns)
    for setting in turns[0].gains:
        gains = [t.gains[setting] for t in turns]
        mean, error = mean_and_error(gains)
        ratio = statistics.fmean(math.exp(g) for g in gains)
        lines.append(
            f"| {setting} | {len(gains)} | {mean:+.3f} ± {error or 0.0:.3f} | {most:.2f} | {ratio:.2f} |"
        )
    return "\n".join(lines)


def numbers(text: str, name: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise typer.BadParameter(f"--{name}: numbers separated by commas") from None
    if not values or any(v <= 0 for v in values):
        raise typer.BadParameter(f"--{name}: positive numbers separated by commas")
    return values


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command(help=(__doc__ or "").split("\n\n", 1)[0])
def main_command(
    paths: Annotated[list[Path], typer.Argument(help="ladder.jsonl files (records with moves).")],
    player: Annotated[str, typer.Option(help="The seat read: the start of its spec.")] = "pimc",
    games: Annotated[int, typer.Option(help="Records read, the first ones it plays in.")] = 300,
    temperatures: Annotated[
        str, typer.Option(help="The prior model's temperatures, comma-separated.")
    ] = "0.2,0.4,1",
    iterations: Annotated[
        int, typer.Option(help="The search model's iterations (0: the prior model).")
    ] = 0,
    chances: Annotated[
        str, typer.Option(help="The search model's even-chance shares ε, comma-separated.")
    ] = "0.05,0.2,0.5",
    trusts: Annotated[
        str, typer.Option(help="Shares of the reading in the weights (the rest even).")
    ] = "1,0.5",
    workers: Annotated[int, typer.Option(help="Records read in parallel.")] = 1,
) -> None:
    require_files(paths)
    if games < 1:
        raise typer.BadParameter("--games: at least 1")
    if iterations < 0:
        raise typer.BadParameter("--iterations: 0 or more")
    taus = numbers(temperatures, "temperatures")
    shares = numbers(chances, "chances")
    trust = numbers(trusts, "trusts")
    if any(e > 1 for e in [*shares, *trust]):
        raise typer.BadParameter("--chances and --trusts: shares from 0 to 1")
    turns = reading(read(paths), player, games, taus, iterations, shares, trust, workers)
    print(markdown(turns))


def main(argv: list[str] | None = None) -> None:
    """Run the command; with ``argv`` (a list of arguments) it returns instead of exiting."""
    run_command(app, "lab.hand_reading", argv)


if __name__ == "__main__":
    main()
