"""Matches against OpenSpiel's own ``ISMCTSBot`` (random rollouts) on cradle's games.

The games are played through the OpenSpiel adapter (``cradle.envs.openspiel``): chance deals
the pile, OpenSpiel's bot searches the pyspiel state (its worlds come from the adapter's
``resample_from_infostate``), and a cradle bot decides on the engine state the pyspiel state
prints (the first line of ``str(state)`` is the full position as JSON). Equal time: the
OpenSpiel bot counts simulations, not seconds, so before each of its decisions its budget is
set from the simulations per second it reached so far.

    python -m lab openspiel_arena --game tigris --bot ismcts --seconds 1 --games 10

Needs the ``openspiel`` extra.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from cradle.ai.levels import make_bot_spec
from cradle.ai.search.budget import Budget
from cradle.ai.search.parallel import map_local
from cradle.core.contract import GameState
from cradle.core.results import wilson_interval
from cradle.games import get_game
from lab.command import run_command

OPENSPIEL_NAMES = {"tigris": "python_tigris_euphrates", "gheos": "python_gheos"}


def engine_state(game: str, state: Any) -> GameState:
    """The cradle state behind a pyspiel state of the adapter."""
    position = json.loads(str(state).split("\n", 1)[0])
    module = get_game(game)
    engine: GameState = module.from_position(position)
    return engine


def play_match(
    game: str, players: int, bot_spec: str, our_seat: int, seconds: float, seed: int
) -> dict[str, Any]:
    """One game: the cradle bot ``bot_spec`` in ``our_seat``, OpenSpiel's ISMCTSBot with a
    random-rollout evaluator in every other seat, both with ``seconds`` per decision."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    import cradle.envs.openspiel  # noqa: F401  (registers the games)

    spiel_game = pyspiel.load_game(OPENSPIEL_NAMES[game], {"players": players})
    state = spiel_game.new_initial_state()
    chance = random.Random(seed)
    ours = make_bot_spec(bot_spec, seed, Budget(seconds=seconds))
    numpy_rng = np.random.RandomState(seed % 2**32)
    evaluator = mcts.RandomRolloutEvaluator(1, numpy_rng)
    rate = 20.0  # their simulations per second, learnt as the game goes
    their_time = 0.0
    their_decisions = 0
    their_simulations = 0
    our_time = 0.0
    our_decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(chance.choices(outcomes, probs)[0])
            continue
        seat = state.current_player()
        legal = state.legal_actions()
        began = time.perf_counter()
        if seat == our_seat:
            engine = engine_state(game, state)
            choice = ours.choose(engine, seat)
            by_text = {state.action_to_string(seat, a): a for a in legal}
            action = by_text[choice]
            our_time += time.perf_counter() - began
            our_decisions += 1
        else:
            simulations = max(2, int(rate * seconds))
            bot = ismcts.ISMCTSBot(
                spiel_game,
                evaluator,
                uct_c=2.0,
                max_simulations=simulations,
                random_state=numpy_rng,
                allow_inconsistent_action_sets=True,
            )
            action = bot.step(state)
            spent = time.perf_counter() - began
            if len(legal) > 1:
                # Forced moves skip the search and say nothing of the speed.
                rate = 0.7 * rate + 0.3 * simulations / max(spent, 1e-3)
                their_time += spent
                their_decisions += 1
                their_simulations += simulations
        state.apply_action(action)
    returns = list(state.returns())
    return {
        "game": game,
        "players": players,
        "seed": seed,
        "bot": bot_spec,
        "seat": our_seat,
        "returns": returns,
        "won": returns[our_seat] > max(r for s, r in enumerate(returns) if s != our_seat),
        "tied": returns[our_seat] == max(returns) and returns.count(max(returns)) > 1,
        "our_seconds_per_decision": round(our_time / max(1, our_decisions), 3),
        "their_seconds_per_decision": round(their_time / max(1, their_decisions), 3),
        "their_simulations_per_decision": round(their_simulations / max(1, their_decisions), 1),
    }


def _play(args: tuple[str, int, str, int, float, int]) -> dict[str, Any]:
    return play_match(*args)


def run(
    game: str, players: int, bot_spec: str, seconds: float, games: int, seed: int, workers: int
) -> dict[str, Any]:
    """``games`` seeds, each played with our bot in every seat."""
    jobs = [
        (game, players, bot_spec, seat, seconds, seed + number)
        for number in range(games)
        for seat in range(players)
    ]

    records = map_local(_play, jobs, workers)

    points = sum(1.0 if r["won"] else 0.5 if r["tied"] else 0.0 for r in records)
    score = points / len(records)
    low, high = wilson_interval(points, len(records))
    return {
        "game": game,
        "players": players,
        "bot": bot_spec,
        "seconds": seconds,
        "games": len(records),
        "score": round(score, 4),
        "low": round(low, 4),
        "high": round(high, 4),
        "records": records,
    }


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command(help=(__doc__ or "").split("\n\n", 1)[0])
def match(
    game: Annotated[str, typer.Option(help="tigris or gheos.")] = "tigris",
    players: Annotated[int, typer.Option(help="Seats per game.")] = 2,
    bot: Annotated[str, typer.Option(help="The cradle bot, e.g. ismcts or ismcts@500.")] = "ismcts",
    seconds: Annotated[float, typer.Option(help="Time per decision, both sides.")] = 1.0,
    games: Annotated[int, typer.Option(help="Seeds; each is played in every seating.")] = 10,
    seed: Annotated[int, typer.Option(help="The first seed.")] = 2026,
    workers: Annotated[int, typer.Option(help="Local processes.")] = 1,
    out: Annotated[Path | None, typer.Option(help="Write the JSON report here.")] = None,
) -> None:
    if game not in OPENSPIEL_NAMES:
        raise typer.BadParameter(f"{game!r}: choose {' or '.join(sorted(OPENSPIEL_NAMES))}")
    report = run(game, players, bot, seconds, games, seed, workers)
    if out is not None:
        out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    summary = {k: v for k, v in report.items() if k != "records"}
    print(json.dumps(summary))


def main(argv: list[str] | None = None) -> None:
    """Run the command; with ``argv`` (a list of arguments) it returns instead of exiting."""
    run_command(app, "lab.openspiel_arena", argv)


if __name__ == "__main__":
    main()
