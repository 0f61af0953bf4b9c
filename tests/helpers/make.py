"""What a make target would run, without running it.

`make -n -B` prints every command a target would run (nothing runs but the recursive make,
itself dry), into a virtual environment that does not exist, so the whole install shows.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def dry_run(target: str, tmp_path: Path) -> str:
    if shutil.which("make") is None:
        pytest.skip("no make")
    answer = subprocess.run(
        ["make", "-n", "-B", target, f"VENV={tmp_path / 'venv'}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return answer.stdout


def pip_installs(text: str) -> list[str]:
    """The project's installs (`pip install ... -e '.[...]'`) in a dry run."""
    return [line for line in text.splitlines() if "pip install" in line and "-e '.[" in line]


def extras(text: str) -> set[str]:
    """The extras of every `pip install -e '.[...]'` in a dry run."""
    found: set[str] = set()
    for line in pip_installs(text):
        found |= set(line.split("-e '.[", 1)[1].split("]", 1)[0].split(","))
    return found
