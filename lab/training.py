"""Learn the evaluation from self-play (``cradle.ai.knowledge.learned``'s model files).

**Self-play on the native core** (``self_play``): the native search (``ismcts@<iterations>``)
plays every seat, after a few uniformly random moves for varied openings; at every settled
position in Tigris (nothing in progress: no conflict, war or monument to finish; the search
judges its leaves settled) and at every position in Gheos (whose leaves come after random
playout moves, in any phase) the native hook
(``tigris_ai_features`` / ``gheos_ai_features``) gives every seat's learned features, without
``to_position()``. When the game ends each seat's result (``rank_rewards``: the share of
opponents beaten) labels its positions.

**Training** (``pairs`` and ``fit``): every pair of seats that finished apart gives one
example per position, the difference of their features labelled by who finished ahead; a
logistic regression without intercept (Bradley-Terry) by Newton steps gives weights such that
``sigmoid(value_i - value_j)`` is the chance that seat i beats seat j, which is how the search
turns values into rewards (so the model plugs into the search with temperature 1). A linear
model rather than a small network: the Python reference and the Rust twin must compute the
same number at every leaf, a dot product is cheap there (the search evaluates ~30,000 leaves
a second), and its weights say what it learned. A fifth of the games are held out: their
log-loss and accuracy, against the hand-set value's on the same pairs, go into the model file.

    python -m lab training --game tigris --games 2000 --workers 2

writes ``src/cradle/ai/knowledge/models/tigris-v1.json`` (``--out`` elsewhere; ``--data`` keeps the
positions as a NumPy ``.npz`` for another fit with ``--reuse``). Needs numpy (the
``openspiel`` extra has it).
"""

from __future__ import annotations

import json
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from cradle.ai.knowledge.gheos import TEMPERATURE as GHEOS_TEMPERATURE
from cradle.ai.knowledge.gheos import read
from cradle.ai.knowledge.learned import FEATURES, Model, path_of
from cradle.ai.knowledge.tigris import Reading
from cradle.ai.levels import make_bot_spec
from cradle.ai.match import play, random_start
from cradle.ai.search.parallel import map_local
from cradle.core.contract import GameState
from cradle.core.results import rank_rewards
from cradle.games import get_game
from lab.command import run_command


def fit(x: Any, y: Any, penalty: float = 1e-3, steps: int = 60) -> Any:
    """Logistic regression without intercept (the pairs are symmetric), by Newton steps."""
    import numpy as np

    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (p - y) / len(y) + penalty * w
        hessian = (x.T * (p * (1 - p))) @ x / len(y) + penalty * np.eye(x.shape[1])
        w -= np.linalg.solve(hessian, gradient)
    return w


@dataclass(frozen=True)
class SelfPlay:
    """One self-play game to record: its game, seed, seats, search budget and openings."""

    game: str
    seed: int
    players: int
    iterations: int
    random_moves: int


@dataclass
class GameData:
    """A recorded game: per settled position every seat's features and the share of the
    game left; per seat its result (share of opponents beaten)."""

    features: Any  # float32 array (positions, players, features)
    remaining: Any  # float64 array (positions,)
    rewards: list[float]


def _native_hooks(game: str) -> tuple[Any, Any]:
    from cradle import _native

    if game == "tigris":
        return _native.tigris_ai_features, _native.tigris_ai_unsettled
    if game == "gheos":
        return _native.gheos_ai_features, _native.gheos_ai_unsettled
    raise ValueError(f"no learned evaluation for the game {game!r}: tigris or gheos")


def self_play(job: SelfPlay) -> GameData:
    """Play one game with the native search in every seat; record its settled positions."""
    import numpy as np

    features_of, unsettled = _native_hooks(job.game)
    state = get_game(job.game).new_game(job.players, job.seed, engine="native")
    rng = random.Random(job.seed)
    bots = [
        make_bot_spec(f"ismcts@{job.iterations}", rng.randrange(2**31)) for _ in range(job.players)
    ]
    rows: list[list[list[float]]] = []
    left: list[float] = []

    def settled(state: GameState, _seat: int) -> None:
        # Tigris leaves are judged settled; Gheos ones after random playout moves, anywhere.
        if job.game == "gheos" or not unsettled(state):
            rows.append(features_of(state))
            left.append(_remaining(job.game, state))

    players = random_start(bots, job.random_moves, rng)
    play(state, players, max_actions=3000, observers=bots, before=settled)
    result = sorted(state.result(), key=lambda row: row["seat"])
    width = len(FEATURES[job.game])
    return GameData(
        np.array(rows, dtype=np.float32).reshape(len(rows), job.players, width),
        np.array(left, dtype=np.float64),
        rank_rewards(result),
    )


def _remaining(game: str, state: Any) -> float:
    if game == "tigris":
        return Reading(state).remaining

    return read(state).remaining


def pairs(data: list[GameData], game: str) -> tuple[Any, Any, Any]:
    """(feature differences, labels, the hand-set value's chances) of every pair of seats
    that finished apart, at every recorded position of ``data``."""
    import numpy as np

    half = len(FEATURES[game]) // 2
    diffs, labels, hand_set = [], [], []
    for one in data:
        x = one.features.astype(np.float64)
        if not len(x):
            continue
        players = x.shape[1]
        # The hand-set value (the last base feature: Tigris value 2, Gheos value 4) and its
        # temperature, as the knowledge turns them into rewards.
        values = x[:, :, half - 1] + x[:, :, -1]
        base, slope = (1.0, 4.0) if game == "tigris" else GHEOS_TEMPERATURE
        temperature = base + slope * one.remaining
        for i in range(players):
            for j in range(i + 1, players):
                if one.rewards[i] == one.rewards[j]:
                    continue
                diffs.append(x[:, i, :] - x[:, j, :])
                labels.append(np.full(len(x), 1.0 if one.rewards[i] > one.rewards[j] else 0.0))
                chance = 1.0 / (1.0 + np.exp(-(values[:, i] - values[:, j]) / temperature))
                hand_set.append(chance)
    width = len(FEATURES[game])
    if not diffs:
        return np.zeros((0, width)), np.zeros(0), np.zeros(0)
    return np.concatenate(diffs), np.concatenate(labels), np.concatenate(hand_set)


def log_loss(chances: Any, labels: Any) -> float:
    """The mean log-loss of predicted chances of the labelled outcomes (1 or 0)."""
    import numpy as np

    p = np.clip(chances, 1e-9, 1 - 1e-9)
    return float(-np.mean(labels * np.log(p) + (1 - labels) * np.log(1 - p)))


def scores(chances: Any, labels: Any) -> dict[str, float]:
    """Log-loss and accuracy of predicted chances of the labelled outcomes."""
    import numpy as np

    right = np.mean((np.asarray(chances) > 0.5) == (labels > 0.5))
    return {"log_loss": round(log_loss(chances, labels), 4), "accuracy": round(float(right), 4)}


def jobs_for(
    game: str, games: int, seed: int, iterations: int, random_moves: int
) -> list[SelfPlay]:
    """Two-player games, every third one with three or four players."""
    return [
        SelfPlay(
            game, seed * 100_000 + i, 2 if i % 3 else 3 + (i // 3) % 2, iterations, random_moves
        )
        for i in range(games)
    ]


def learn(game: str, data: list[GameData], penalty: float = 1e-3) -> tuple[Model, dict[str, Any]]:
    """Fit the model on four fifths of the games; scores on the rest."""
    import numpy as np

    cut = max(1, len(data) // 5)
    held, kept = data[:cut], data[cut:]
    x, y, _ = pairs(kept, game)
    xt, yt, hand = pairs(held, game)
    w = fit(x, y, penalty=penalty)
    learned = 1.0 / (1.0 + np.exp(-(xt @ w)))
    report = {
        "games": len(data),
        "positions": int(sum(len(d.features) for d in data)),
        "training_pairs": len(y),
        "held_out_pairs": len(yt),
        "held_out": {"learned": scores(learned, yt), "hand_set": scores(hand, yt)},
    }
    return Model(game, FEATURES[game], tuple(round(float(v), 6) for v in w), report), report


def save_data(path: Path, data: list[GameData]) -> None:
    import numpy as np

    arrays: dict[str, Any] = {}
    for k, one in enumerate(data):
        arrays[f"f{k}"] = one.features
        arrays[f"r{k}"] = one.remaining
        arrays[f"w{k}"] = np.array(one.rewards)
    np.savez_compressed(path, **arrays)


def load_data(path: Path) -> list[GameData]:
    import numpy as np

    with np.load(path) as z:
        count = sum(1 for k in z.files if k.startswith("f"))
        return [
            GameData(z[f"f{k}"], z[f"r{k}"], [float(v) for v in z[f"w{k}"]]) for k in range(count)
        ]


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command(help="Learn a game's evaluation from native self-play (a model file).")
def train(
    game: Annotated[str, typer.Option(help="tigris or gheos.")] = "tigris",
    games: Annotated[int, typer.Option(help="Self-play games to learn from.")] = 2000,
    iterations: Annotated[int, typer.Option(help="Search iterations a decision.")] = 50,
    random_moves: Annotated[int, typer.Option(help="Random moves opening each game.")] = 4,
    seed: Annotated[int, typer.Option(help="Seed of the games.")] = 7,
    workers: Annotated[int, typer.Option(help="Local processes.")] = 1,
    penalty: Annotated[float, typer.Option(help="L2 penalty of the fit.")] = 1e-3,
    out: Annotated[
        Path | None, typer.Option(help="Model file (default: the repository's).")
    ] = None,
    data: Annotated[Path | None, typer.Option(help="Keep the positions here (.npz).")] = None,
    reuse: Annotated[bool, typer.Option(help="Fit the positions kept in --data again.")] = False,
) -> None:
    if game not in FEATURES:
        raise typer.BadParameter(f"no learned evaluation for {game!r}: tigris or gheos")
    start = time.perf_counter()
    if reuse:
        if data is None:
            raise typer.BadParameter("--reuse needs --data")
        recorded = load_data(data)
    else:
        done = [0]

        def progress(_: GameData) -> None:
            done[0] += 1
            if done[0] % 50 == 0:
                print(f"# {done[0]}/{games} games", file=sys.stderr, flush=True)

        recorded = map_local(
            self_play, jobs_for(game, games, seed, iterations, random_moves), workers, progress
        )
        if data is not None:
            save_data(data, recorded)
    played = time.perf_counter() - start
    model, report = learn(game, recorded, penalty)
    command = (
        f"python -m lab training --game {game} --games {games} --iterations {iterations}"
        f" --random-moves {random_moves} --seed {seed} --penalty {penalty}"
    )
    meta = {
        "command": command,
        "self_play": f"native ismcts@{iterations}, {random_moves} random opening moves,"
        " 2 players (every third game 3 or 4)",
        **report,
        "seconds": {
            "self_play": round(played, 1),
            "fit": round(time.perf_counter() - start - played, 1),
        },
    }
    model = Model(model.game, model.features, model.weights, meta)
    target = out or path_of(game)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(model.to_json(), indent=1) + "\n")
    print(json.dumps({"model": str(target), **meta}))


def main(argv: list[str] | None = None) -> None:
    """Run the command; with ``argv`` (a list of arguments) it returns instead of exiting."""
    run_command(app, "lab.training", argv)


if __name__ == "__main__":
    main()
