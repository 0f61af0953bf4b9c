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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from cradle.ai.bots import Bot, tell
from cradle.ai.levels import make_bot_spec
from cradle.ai.match import drive
from cradle.ai.search.budget import Budget
from cradle.ai.search.parallel import map_local
from cradle.core.contract import Event, GameState
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


class SpielTable:
    """A pyspiel state of the adapter as a table :func:`cradle.ai.match.drive` plays: its
    chance nodes are drawn as soon as they come (from ``chance``), so every decision is a
    seat's, and its actions are the game's notation."""

    def __init__(self, game: str, spiel: Any, chance: random.Random) -> None:
        self.game = game
        self.spiel = spiel
        self.chance = chance
        self.draw()

    def draw(self) -> None:
        while self.spiel.is_chance_node():
            outcomes, probs = zip(*self.spiel.chance_outcomes(), strict=True)
            self.spiel.apply_action(self.chance.choices(outcomes, probs)[0])

    @property
    def is_over(self) -> bool:
        return bool(self.spiel.is_terminal())

    @property
    def to_move(self) -> int:
        return int(self.spiel.current_player())

    def action_id(self, action: str) -> int:
        """The pyspiel id of ``action`` (the seat to move's notation); ValueError if illegal."""
        seat = self.to_move
        for found in self.spiel.legal_actions():
            if self.spiel.action_to_string(seat, found) == action:
                return int(found)
        raise ValueError(f"{action!r} is not legal here")

    def apply(self, action: str) -> list[Event]:
        self.spiel.apply_action(self.action_id(action))
        self.draw()
        return []

    def engine(self) -> GameState:
        """The cradle state the pyspiel state prints (what cradle's bots decide on)."""
        return engine_state(self.game, self.spiel)


def cradle_player(bot: Bot) -> Callable[[SpielTable, int], str]:
    """A cradle bot's decisions at a :class:`SpielTable`: on the engine state it prints."""
    return lambda table, seat: bot.choose(table.engine(), seat)


def spiel_player(bot: Any) -> Callable[[SpielTable, int], str]:
    """An OpenSpiel bot's decisions at a :class:`SpielTable`: ``bot.step`` on its pyspiel
    state, in the game's notation."""
    return lambda table, seat: str(table.spiel.action_to_string(seat, bot.step(table.spiel)))


def told(bots: Sequence[Bot]) -> Callable[[SpielTable, str], None]:
    """Every cradle bot that reads the opponents sees every action, OpenSpiel's too."""
    listening = [bot for bot in bots if hasattr(bot, "observe")]

    def tell_them(table: SpielTable, action: str) -> None:
        if listening:  # only then is the engine state worth printing
            tell(listening, table.engine(), action)

    return tell_them


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
    table = SpielTable(game, spiel_game.new_initial_state(), random.Random(seed))
    ours = make_bot_spec(bot_spec, seed, Budget(seconds=seconds))
    numpy_rng = np.random.RandomState(seed % 2**32)
    evaluator = mcts.RandomRolloutEvaluator(1, numpy_rng)
    rate = 20.0  # their simulations per second, learnt as the game goes
    their_time = 0.0
    their_decisions = 0
    their_simulations = 0

    def theirs(table: SpielTable, seat: int) -> str:
        nonlocal rate, their_time, their_decisions, their_simulations
        state = table.spiel
        simulations = max(2, int(rate * seconds))
        bot = ismcts.ISMCTSBot(
            spiel_game,
            evaluator,
            uct_c=2.0,
            max_simulations=simulations,
            random_state=numpy_rng,
            allow_inconsistent_action_sets=True,
        )
        began = time.perf_counter()
        action = bot.step(state)
        spent = time.perf_counter() - began
        if len(state.legal_actions()) > 1:
            # Forced moves skip the search and say nothing of the speed.
            rate = 0.7 * rate + 0.3 * simulations / max(spent, 1e-3)
            their_time += spent
            their_decisions += 1
            their_simulations += simulations
        return str(state.action_to_string(seat, action))

    seating = [cradle_player(ours) if s == our_seat else theirs for s in range(players)]
    done = drive(table, seating, max_actions=None, told=told([ours]))
    our_time = done.thinking[our_seat]
    our_decisions = done.decisions[our_seat]
    state = table.spiel
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
