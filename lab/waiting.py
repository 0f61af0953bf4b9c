"""What players wait for: a level's thinking per decision and per turn against
``expert-rules`` (median, 95th percentile, maximum), one JSON line::

    python -m lab waiting --level hard --game tigris --games 2 --seed 1
"""

from __future__ import annotations

import json
import random
import statistics
from typing import Annotated, Any

import typer

from cradle.ai.bots import make_bot
from cradle.ai.levels import make_bot_spec
from cradle.ai.match import Move, play
from cradle.ai.search.budget import turn_begins
from cradle.core.contract import GameState
from cradle.games import get_game
from lab.command import run_command


class TurnClock:
    """Times the decisions of seat ``ours`` and its turns (from the first decision of a turn
    to the last)."""

    def __init__(self, ours: int, decisions: list[float], turns: list[float]) -> None:
        self.ours = ours
        self.decisions = decisions
        self.turns = turns
        self.turn = 0.0
        self.active = False  # whether the deciding seat ``ours`` is the active player

    def before(self, state: GameState, seat: int) -> None:
        if seat != self.ours:
            return
        view = state.view(seat)
        self.active = view.get("active") == self.ours
        if self.active and turn_begins(view):
            self.close()

    def after(self, move: Move) -> None:
        if move.seat == self.ours:
            self.decisions.append(move.seconds)
            if self.active:
                self.turn += move.seconds

    def close(self) -> None:
        """The turn under way is over."""
        if self.turn:
            self.turns.append(self.turn)
        self.turn = 0.0


def measure(level: str, game: str, players: int, games: int, seed: int) -> dict[str, Any]:
    """Play ``games`` games of ``level`` against ``expert-rules`` and time every decision of
    ``level`` and every one of its turns (seconds from the first decision of its turn to the
    last)."""
    decisions: list[float] = []
    turns: list[float] = []
    for number in range(games):
        rng = random.Random(seed + number)
        ours = number % players  # seats swapped from game to game
        bots = [
            make_bot_spec(level, rng.getrandbits(32))
            if s == ours
            else make_bot("expert-rules", rng.getrandbits(32))
            for s in range(players)
        ]
        state = get_game(game).new_game(players, seed + number)
        clock = TurnClock(ours, decisions, turns)
        play(state, bots, before=clock.before, after=clock.after)
        clock.close()

    def summary(times: list[float]) -> dict[str, float]:
        ordered = sorted(times)
        return {
            "count": len(ordered),
            "median": round(statistics.median(ordered), 3) if ordered else 0.0,
            "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 3) if ordered else 0.0,
            "max": round(ordered[-1], 3) if ordered else 0.0,
        }

    return {
        "level": level,
        "game": game,
        "players": players,
        "games": games,
        "decision_s": summary(decisions),
        "turn_s": summary(turns),
    }


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command()
def waiting(
    level: Annotated[str, typer.Option(help="The bot to time: a level or a spec.")] = "hard",
    game: Annotated[str, typer.Option(help="tigris or gheos")] = "tigris",
    players: Annotated[int, typer.Option(min=2, max=4)] = 2,
    games: Annotated[int, typer.Option(min=1, help="Games against expert-rules.")] = 1,
    seed: Annotated[int, typer.Option()] = 1,
) -> None:
    """Time a level's decisions and turns against expert-rules; one JSON line."""
    print(json.dumps(measure(level, game, players, games, seed)))


def main(argv: list[str] | None = None) -> None:
    """``python -m lab waiting``."""
    run_command(app, "lab.waiting", argv)


if __name__ == "__main__":
    main()
