"""The game records the laboratory reads: the ladder's ``ladder.jsonl`` (one game a line, as
``cradle.ai.tournament.TableRecord``), the SPRT's ``--out`` (one pair of games a line), and
the recorded games dealt again from their seed and options.

A record that keeps its moves (``moves``) replays from its seed: :func:`deal` gives its
opening position, and its moves lead from there to its end.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import typer

from cradle.core.contract import GameState
from cradle.games import get_game

Record = dict[str, Any]  # one JSON line of a ladder or SPRT record


def require_files(paths: Iterable[Path]) -> None:
    """A command's refusal of record files that are not there, all named at once."""
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise typer.BadParameter(f"no such file: {', '.join(missing)}")


def read(paths: Iterable[Path]) -> Iterator[Record]:
    """Every record of ``paths``, one JSON line each (blank lines skipped)."""
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                yield json.loads(line)


def deal(record: Record) -> GameState:
    """The recorded game's opening position, dealt again from its seed and options."""
    module = get_game(record["game"])
    options = module.options_from_dict(record.get("options", {}))
    return module.new_game(len(record["seating"]), record["seed"], options)


def kept_gheos_pair(record: Record) -> bool:
    """Whether a ladder line is a two-player Gheos game that keeps its moves (``moves``), so
    that it replays from its seed."""
    seating = record.get("seating")
    return (
        record.get("game") == "gheos"
        and isinstance(record.get("moves"), list)
        and isinstance(seating, list)
        and len(seating) == 2
    )


def wanted(record: Record, bot: str, lost: bool, followed: bool) -> int | None:
    """The bot's seat in a recorded game that passes the filters, else None: the bot in
    exactly one seat, the moves kept, with ``lost`` a game it did not win outright, with
    ``followed`` one another seat started."""
    seating = record.get("seating")
    if not isinstance(seating, list) or "moves" not in record:
        return None
    seats = [s for s, spec in enumerate(seating) if str(spec).startswith(bot)]
    if len(seats) != 1:
        return None
    seat = seats[0]
    if lost and record["places"][seat] == 1 and list(record["places"]).count(1) == 1:
        return None
    if followed and deal(record).to_move == seat:
        return None
    return seat
