"""`cradle replay` and `cradle render`: rebuild a position from a game record or a seed."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

from rich.console import Console

from cradle.cli.common import (
    CliError,
    fresh_seed,
    load_game,
    make_options,
    new_state,
    seat_view,
)
from cradle.cli.play import LogEntry, event_texts, find_renderer, print_entry, ranking_table
from cradle.core.contract import JSON, GameState
from cradle.core.record import GameRecord, RecordError


def load_record(path: Path) -> GameRecord:
    try:
        record = GameRecord.load(path)
    except RecordError as exc:
        raise CliError(f"bad game record: {exc}") from None
    load_game(record.game)
    return record


def replay_record(console: Console | None, record: GameRecord) -> GameState:
    """The state after the record's actions; with a console, print each action's events."""
    try:
        state = record.start()
        for step in record.steps_from(state):
            if console is not None:
                player = state.players[step.seat]
                entry = LogEntry(step.ply, player, step.action, event_texts(step.events))
                print_entry(console, entry)
    except RecordError as exc:
        raise CliError(f"bad game record: {exc}") from None
    return state


def run_replay(console: Console, path: Path, show: bool, as_json: bool) -> None:
    record = load_record(path)
    state = replay_record(console if show and not as_json else None, record)
    if as_json:
        print(json.dumps(state.to_position(), sort_keys=True))
        return
    if show:
        console.print(find_renderer(record.game)(seat_view(state, None)))
    console.print(
        f"Replayed {len(record.actions)} action(s) of {record.game} "
        f"(seed {record.seed}, players {', '.join(state.players)})."
    )
    if state.is_over:
        console.print(ranking_table(state.result()))
    else:
        decider = state.players[state.to_move]
        console.print(
            f"The game is not over: {decider} (seat {state.to_move}) to decide.", markup=False
        )


def run_render(
    console: Console,
    game: str | None,
    seed: int | None,
    record_path: Path | None,
    out: Path | None,
    players: int,
    options: JSON,
) -> Path:
    """Write an SVG of a new game's position, or of the position a record ends in."""
    if record_path is not None:
        if options:
            raise CliError("-o options are for new games; a record carries its own options")
        record = load_record(record_path)
        if game is not None and game.strip().lower() != record.game:
            raise CliError(f"--game {game} but the record is a {record.game} game")
        name = record.game
        state = replay_record(None, record)
    else:
        module = load_game(game or "tigris")
        name = module.NAME
        chosen = fresh_seed() if seed is None else seed
        state = new_state(module, players, chosen, make_options(module, options))
    try:
        svg_module = importlib.import_module(f"cradle.render.{name}_svg")
    except ImportError:
        raise CliError(f"there is no SVG export for {name} yet") from None
    svg: str = svg_module.to_svg(seat_view(state, None))
    target = out if out is not None else Path(f"{name}.svg")
    try:
        target.write_text(svg, encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot write {target}: {exc.strerror}") from None
    console.print(f"Wrote {target}", markup=False)
    return target
