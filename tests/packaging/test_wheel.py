"""`make wheel`: one wheel with the Python package and the native engines, installed into a
fresh virtual environment whose PATH has no Rust toolchain, plays a game on the native engine
and runs the CLI. Builds the wheel (minutes): the long tier."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.long

SMOKE = """
import cradle._native as n
from cradle.tigris import new_game
from cradle.envs.vector import CradleVectorEnv
assert n.__file__.endswith(".abi3.so"), n.__file__
state = new_game(2, 1, engine="native")
assert type(state).__module__ == "cradle._native"
env = CradleVectorEnv("tigris", 2)
obs, _ = env.reset(seed=1)
print("ok", obs["observation"].shape)
"""


def test_the_wheel_installs_and_runs_without_rust(tmp_path: Path) -> None:
    if shutil.which("cargo") is None:
        pytest.skip("building the wheel needs cargo")
    subprocess.run(["make", "wheel"], cwd=ROOT, check=True, timeout=1800)
    (wheel,) = (ROOT / "dist").glob("cradle-*.whl")
    assert "-cp311-abi3-" in wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    assert "cradle/tigris/state.py" in names
    # one native module, the stable ABI's (not the development build's cpython-3xx one)
    assert [n for n in names if n.endswith(".so")] == ["cradle/_native.abi3.so"]
    assert "cradle/_native.pyi" in names and "cradle/py.typed" in names
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # a PATH without ~/.cargo/bin: nothing can compile Rust during the install
    path = os.pathsep.join([str(venv / "bin"), "/usr/bin", "/bin"])
    assert shutil.which("cargo", path=path) is None and shutil.which("rustc", path=path) is None
    env = {"PATH": path, "HOME": str(tmp_path), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, f"{wheel}[pettingzoo]"], check=True, env=env, timeout=900)
    python = str(venv / "bin" / "python")
    out = subprocess.run(
        [python, "-c", SMOKE], check=True, env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert out.stdout.startswith("ok (2, 7503)")
    cli = subprocess.run(
        [str(venv / "bin" / "cradle"), "--help"], env=env, capture_output=True, text=True
    )
    assert cli.returncode == 0 and "play" in cli.stdout
