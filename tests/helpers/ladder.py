"""Ladder records for the tests of the commands that read them."""

from __future__ import annotations

import json
from pathlib import Path

from cradle.games import get_game
from cradle.gheos import as_gheos
from lab.records import PlayedGame


def ladder_line(seed: int, seating: list[str], places: list[int]) -> dict[str, object]:
    return {"game": "gheos", "seed": seed, "seating": seating, "places": places, "players": 2}


def played_out(seed: int) -> list[str]:
    """A two-player deal played to its end by the first legal move, except that a seat plays
    a scoring token only when it holds more tokens than epochs are to come."""
    module = get_game("gheos")
    state = as_gheos(module.new_game(2, seed, module.options_from_dict({})))
    moves: list[str] = []
    while not state.is_over:
        legal = state.legal_actions()
        move = legal[0]
        if "token" in legal:
            tokens = state.player(state.to_move).tokens
            move = "token" if tokens > state.end_epoch - state.epochs else "pass"
        state.apply(move)
        moves.append(move)
    return moves


def record(seed: int, moves: list[str]) -> dict[str, object]:
    return {**ladder_line(seed, ["pimc", "hard"], [1, 2]), "moves": moves}


def game_of(line: dict[str, object]) -> PlayedGame:
    """The recorded game of a ladder line that keeps its moves."""
    game = PlayedGame.from_line(line)
    assert game is not None
    return game


def played_game(seed: int, moves: list[str]) -> PlayedGame:
    return game_of(record(seed, moves))


SEED = 5


def record_file(tmp_path: Path, moves: list[str]) -> Path:
    """A ladder file holding the one record of ``SEED`` played as ``moves``."""
    path = tmp_path / "ladder.jsonl"
    path.write_text(json.dumps(record(SEED, moves)) + "\n", encoding="utf-8")
    return path
