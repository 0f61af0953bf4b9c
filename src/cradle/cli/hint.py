"""`cradle hint`: the best few actions for the seat to move, with chances and reasons."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.table import Table

from cradle.cli.common import CliError, check_budget, fresh_seed, load_game, make_options, new_state
from cradle.core.contract import JSON, GameState
from cradle.core.record import GameRecord, RecordError

if TYPE_CHECKING:
    from cradle.ai.hints import HintDict


def position_from(
    game: str,
    record_path: Path | None,
    players: int,
    seed: int | None,
    options: JSON,
) -> GameState:
    """The position to advise on: where a saved record ends, or a new game."""
    if record_path is not None:
        try:
            record = GameRecord.load(record_path)
            load_game(record.game)
            return record.replay()
        except RecordError as exc:
            raise CliError(f"bad game record: {exc}") from None
    module = load_game(game)
    return new_state(
        module, players, fresh_seed() if seed is None else seed, make_options(module, options)
    )


def run_hint(
    console: Console,
    state: GameState,
    seat: int | None,
    count: int,
    seconds: float | None,
    iterations: int | None,
    seed: int | None,
    as_json: bool,
) -> list[HintDict]:
    from cradle.ai.hints import hints
    from cradle.ai.search.budget import Budget

    if state.is_over:
        raise CliError("the game is over: there is nothing to suggest")
    if seat is not None and seat != state.to_move:
        raise CliError(
            f"--seat {seat}: hints are for the seat to move, which is seat {state.to_move}"
        )
    if count < 1:
        raise CliError("--count must be at least 1")
    check_budget(seconds, iterations)
    budget = Budget(iterations, seconds if seconds or iterations else 1.0)
    found = [h.to_dict() for h in hints(state, seat, count, budget, seed)]
    if as_json:
        print(json.dumps({"seat": state.to_move, "hints": found}))
        return found
    player = state.players[state.to_move]
    table = Table(
        title=f"hints for {player} (seat {state.to_move})", box=box.SIMPLE_HEAD, show_lines=False
    )
    table.add_column("#", justify="right")
    table.add_column("action")
    table.add_column("chance" if len(state.players) == 2 else "share beaten", justify="right")
    table.add_column("why")
    for number, hint in enumerate(found, start=1):
        table.add_row(str(number), hint["action"], f"{hint['win_chance']:.0%}", hint["reason"])
    console.print(table)
    return found
