"""The CLI tests' helpers: run `cradle` in-process on the real engines."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cradle.cli.main import app
from cradle.games import game_names, get_game


def engine_ready(name: str) -> bool:
    try:
        module = get_game(name)
    except ImportError:
        return False
    return hasattr(module, "new_game")


# Every registered game; one whose engine is not written yet is skipped, not dropped.
GAMES = [
    pytest.param(name, marks=pytest.mark.skipif(not engine_ready(name), reason=f"no {name} engine"))
    for name in game_names()
]


@dataclass
class Run:
    code: int
    out: str
    err: str


def cradle(*args: str, input: str | None = None) -> Run:
    result = CliRunner().invoke(app, list(args), input=input)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Run(result.exit_code, result.stdout, result.stderr)


def assert_clean_error(run: Run, *fragments: str) -> None:
    """Exit 2 with exactly one line on stderr, saying the reason."""
    assert run.code == 2, (run.out, run.err)
    lines = run.err.strip().splitlines()
    assert len(lines) == 1, run.err
    assert lines[0].startswith("cradle: error: "), run.err
    assert "Traceback" not in run.err + run.out
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def finished_record(tmp_path: Path, game: str = "tigris", seed: int = 4) -> Path:
    """A record of a complete all-bot game, saved by `cradle play --save`."""
    path = tmp_path / f"{game}-{seed}.json"
    run = cradle("play", "--game", game, "--humans", "0", "--seed", str(seed), "--save", str(path))
    assert run.code == 0, run.err
    assert json.loads(path.read_text())["actions"]
    return path
