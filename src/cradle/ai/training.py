"""Fit the Tigris evaluation to game results (a pairwise logistic model).

Games are played by the knowledge's quick policy with some random moves mixed in (for
variety); every few moves, at a settled position, each seat's features are recorded
(``Board.features``). When the game ends, every pair of seats gives one example: the
difference of their features, labelled by who finished ahead. A logistic regression with a
small L2 penalty on those differences (Bradley-Terry) gives weights such that
``sigmoid(value_i - value_j)`` estimates the chance that seat i beats seat j, which is how the
search turns values into rewards.

    python -m cradle.ai.training --games 1500 --workers 2

prints the weights to paste into ``FITTED_WEIGHTS`` (cradle/ai/tigris_knowledge.py), with the
accuracy on held-out games. Needs numpy (the ``openspiel`` extra has it).
"""

from __future__ import annotations

import random
from typing import Annotated, Any

import typer


def game_examples(seed: int, players: int, noise: float = 0.15) -> list[tuple[list[float], int]]:
    """(feature difference, 1 if the first seat finished ahead) for one policy game."""
    from cradle import tigris
    from cradle.ai.tigris_knowledge import Board, TigrisKnowledge

    knowledge = TigrisKnowledge()
    rng = random.Random(seed)
    state = tigris.new_game(players, seed)
    snapshots: list[list[list[float]]] = []
    step = 0
    while not state.is_over:
        actions = state.legal_actions()
        settled = actions[0].split(" ", 1)[0] in ("tile", "leader", "catastrophe", "swap")
        if settled and step % 6 == 0:
            board = Board(state)
            snapshots.append([board.features(s) for s in range(players)])
        if rng.random() < noise:
            action = rng.choice(actions)
        else:
            action = knowledge.policy(state, rng)
        state.apply(action)
        step += 1
    places = {int(r["seat"]): int(r["place"]) for r in state.result()}
    examples = []
    for features in snapshots:
        for i in range(players):
            for j in range(players):
                if i < j and places[i] != places[j]:
                    diff = [a - b for a, b in zip(features[i], features[j], strict=True)]
                    examples.append((diff, 1 if places[i] < places[j] else 0))
    return examples


def _job(args: tuple[int, int]) -> tuple[int, list[tuple[list[float], int]]]:
    seed, players = args
    return seed, game_examples(seed, players)


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


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command(help="Fit the Tigris evaluation to game results.")
def train(
    games: Annotated[int, typer.Option(help="Policy games to learn from.")] = 1500,
    seed: Annotated[int, typer.Option(help="Seed of the games.")] = 7,
    workers: Annotated[int, typer.Option(help="Local processes.")] = 1,
) -> None:
    import numpy as np

    jobs = [(seed * 100_000 + i, 2 if i % 3 else 4) for i in range(games)]
    from cradle.ai.parallel import map_local

    results = map_local(_job, jobs, workers)
    held_out = {seed for seed, _ in results[: len(results) // 5]}
    train = [e for seed, ex in results if seed not in held_out for e in ex]
    test = [e for seed, ex in results if seed in held_out for e in ex]
    x = np.array([d for d, _ in train])
    y = np.array([label for _, label in train], dtype=float)
    w = fit(x, y)
    xt = np.array([d for d, _ in test])
    yt = np.array([label for _, label in test], dtype=float)
    accuracy = float(np.mean(((xt @ w) > 0) == (yt > 0.5)))
    print(f"# {len(train)} training pairs, {len(test)} held out: accuracy {accuracy:.3f}")
    print("FITTED_WEIGHTS = (")
    for value in w:
        print(f"    {value:.4f},")
    print(")")


def main(argv: list[str] | None = None) -> None:
    """Run the command; with ``argv`` (a list of arguments) it returns instead of exiting."""
    if argv is None:
        app(prog_name="python -m cradle.ai.training")
    else:
        app(args=argv, standalone_mode=False)


if __name__ == "__main__":
    main()
