"""The game records the laboratory reads: the ladder's ``ladder.jsonl`` (one game a line, as
``cradle.ai.tournament.TableRecord``) and the SPRT's ``--out`` (one pair of games a line).

A ladder line that keeps its moves (``moves``) is a :class:`PlayedGame`: a
:class:`~cradle.core.record.GameRecord` (the one record of a game everywhere: it replays from
its seed and options) and the seats' bots and places. Old files read as they are.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from cradle.core.contract import GameState
from cradle.core.record import GameRecord
from cradle.games import get_game

Line = dict[str, Any]  # one JSON line of a ladder or SPRT record file


@dataclass(frozen=True)
class PlayedGame:
    """A recorded game that keeps its moves: the game itself as a :class:`GameRecord` (its
    seed, options and moves replay it from the deal) and how it went (who sat where, their
    places and scores)."""

    record: GameRecord
    seating: list[str]
    places: list[int]
    scores: list[int]

    @property
    def seed(self) -> int:
        return self.record.seed

    @property
    def moves(self) -> list[str]:
        return self.record.actions

    @property
    def first_score(self) -> float:
        """Seat 0's score in a two-player game: 1 a win, 0.5 a tie, 0 a loss."""
        first, second = self.places[:2]
        return 0.5 if first == second else float(first < second)

    @classmethod
    def from_line(cls, line: Mapping[str, object]) -> PlayedGame | None:
        """The game of a ladder line (as ``cradle.ai.tournament.TableRecord`` writes it),
        or None when the line keeps no moves (an SPRT pair, a game played through OpenSpiel,
        a summary). ValueError for a line that keeps moves but cannot be read."""
        moves, seating = line.get("moves"), line.get("seating")
        if not isinstance(moves, list) or not isinstance(seating, list):
            return None
        game, seed, options = line.get("game"), line.get("seed"), line.get("options") or {}
        if not isinstance(game, str) or not isinstance(seed, int) or not isinstance(options, dict):
            raise ValueError("a ladder line needs its game, seed and options to replay")
        module = get_game(game)
        # The names the ladder's deal gave the seats (it names none itself).
        names = module.new_game(len(seating), seed, module.options_from_dict(options)).players
        places, scores = line.get("places"), line.get("scores")
        return cls(
            record=GameRecord.from_dict(
                {
                    "game": game,
                    "players": list(names),
                    "seed": seed,
                    "options": options,
                    "actions": moves,
                }
            ),
            seating=[str(spec) for spec in seating],
            places=[int(p) for p in places] if isinstance(places, list) else [],
            scores=[int(p) for p in scores] if isinstance(scores, list) else [],
        )


def require_files(paths: Iterable[Path]) -> None:
    """A command's refusal of record files that are not there, all named at once."""
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise typer.BadParameter(f"no such file: {', '.join(missing)}")


def read(paths: Iterable[Path]) -> Iterator[Line]:
    """Every line of ``paths``, one JSON object each (blank lines skipped)."""
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                yield json.loads(line)


def played(lines: Iterable[Mapping[str, object]]) -> Iterator[PlayedGame]:
    """The games of ``lines`` that keep their moves."""
    for line in lines:
        game = PlayedGame.from_line(line)
        if game is not None:
            yield game


def deal(game: PlayedGame) -> GameState:
    """The recorded game's opening position, dealt again from its seed and options."""
    return game.record.start()


def kept_gheos_pair(game: PlayedGame) -> bool:
    """Whether a recorded game is a two-player Gheos game."""
    return game.record.game == "gheos" and len(game.seating) == 2


def wanted(game: PlayedGame, bot: str, lost: bool, followed: bool) -> int | None:
    """The bot's seat in a recorded game that passes the filters, else None: the bot in
    exactly one seat, with ``lost`` a game it did not win outright, with ``followed`` one
    another seat started."""
    seats = [s for s, spec in enumerate(game.seating) if spec.startswith(bot)]
    if len(seats) != 1:
        return None
    seat = seats[0]
    if lost and game.places[seat] == 1 and game.places.count(1) == 1:
        return None
    if followed and deal(game).to_move == seat:
        return None
    return seat
