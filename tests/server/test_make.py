"""`make play` installs only what playing needs; `make test` installs the test tools.

`make -n -B` prints every command a target would run (nothing runs but the recursive make,
itself dry), into a virtual environment that does not exist, so the whole install shows.
"""

from __future__ import annotations

import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEST_TOOLS = ("playwright", "pytest", "hypothesis", "ruff", "mypy", "httpx")


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


def extras(text: str) -> set[str]:
    """The extras of every `pip install -e '.[...]'` in a dry run."""
    found: set[str] = set()
    for line in text.splitlines():
        if "pip install" in line and "-e '.[" in line:
            found |= set(line.split("-e '.[", 1)[1].split("]", 1)[0].split(","))
    return found


def test_make_play_installs_only_what_playing_needs(tmp_path: Path) -> None:
    text = dry_run("play", tmp_path)
    assert extras(text) == {"build", "server"}
    # Only what pip builds PyICU with (the names' Unicode rules) may come from Debian.
    assert "chromium" not in text and "postgresql" not in text and "nginx" not in text
    assert "libicu-dev pkg-config g++" in text
    assert "cradle serve" in text
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    played = " ".join(optional["server"] + optional["build"]).lower()
    assert not [tool for tool in TEST_TOOLS if tool in played]


def test_make_test_installs_the_test_tools(tmp_path: Path) -> None:
    text = dry_run("test", tmp_path)
    assert {"build", "dev", "server"} <= extras(text)
    assert "chromium postgresql" in text  # the Debian packages the tests need
    assert "nginx" in text  # the reverse proxy of tests/server/test_proxy.py
    assert "node-typescript" in text  # tsc, for the web client's type check
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    dev = " ".join(optional["dev"]).lower()
    assert all(tool in dev for tool in TEST_TOOLS)


def test_make_lint_type_checks_the_web_client(tmp_path: Path) -> None:
    text = dry_run("lint", tmp_path)
    assert "tsc --project tsconfig.json" in text
    assert "node-typescript" in text  # installed first when missing
