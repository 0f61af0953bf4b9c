"""``python -m lab``: the list of the experiment commands, and each one run by its name."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from lab.__main__ import COMMANDS, main

ROOT = Path(__file__).resolve().parents[2]


def test_every_listed_command_is_a_module_with_a_main() -> None:
    found = sorted(p.stem for p in (ROOT / "lab").glob("*.py") if not p.stem.startswith("_"))
    assert sorted(COMMANDS) == sorted(set(found) - {"command", "proc", "records"})
    for name in COMMANDS:
        assert callable(importlib.import_module(f"lab.{name}").main)


def test_the_list_names_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    listed = capsys.readouterr().out
    assert all(f"  {name} " in listed for name in COMMANDS)
    assert main(["no-such-command"]) == 2
    assert "unknown command 'no-such-command'" in capsys.readouterr().err


def test_a_command_runs_by_its_name_outside_the_package() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "lab", "sprt", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "python -m lab sprt" in run.stdout and "--elo0" in run.stdout
