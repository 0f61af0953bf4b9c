"""`make wheel` (a dry run; tests/packaging/test_wheel.py builds it in the long tier): the
packaging tools only, not the web server's dependencies, at constraints.txt's versions, and
a wheel linked for glibc 2.28 (manylinux_2_28)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.helpers.make import dry_run, extras, pip_installs

ROOT = Path(__file__).resolve().parents[2]


def test_make_wheel_installs_no_server_and_builds_manylinux_2_28(tmp_path: Path) -> None:
    text = dry_run("wheel", tmp_path)
    assert extras(text) == {"build", "wheel"}
    assert all("-c constraints.txt" in line for line in pip_installs(text))
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    installed = " ".join(optional["build"] + optional["wheel"]).lower()
    assert not [package for package in optional["server"] if package.lower() in installed]
    assert "ziglang" in installed
    commands = text.replace("\\\n", " ").splitlines()  # continued lines joined
    (build,) = [line for line in commands if "maturin build" in line]
    assert "--zig" in build and "--compatibility manylinux_2_28" in build
    assert "cradle serve" not in text
