"""Running the web client's modules in node (no browser): a script that imports them and prints
its findings as JSON."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest


def tsc(root: Path) -> subprocess.CompletedProcess[str]:
    """``tsc`` on the project of ``root``/tsconfig.json (its verdict, whatever it is); the test
    is skipped where there is no tsc."""
    found = shutil.which("tsc")
    if found is None:
        pytest.skip("no tsc (make test installs Debian's node-typescript)")
    return subprocess.run(
        [found, "--project", str(root / "tsconfig.json")],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def node_json(script: str, *args: str, stdin: str | None = None) -> Any:
    """What ``script`` (an ES module, run by node with ``args`` and ``stdin``) prints, read as
    JSON; the test is skipped where there is no node."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node (make test installs Debian's nodejs with node-typescript)")
    answer = subprocess.run(
        [node, "--input-type=module", "-e", script, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(answer.stdout)
