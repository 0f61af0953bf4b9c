"""`make wheel`: one manylinux_2_28 wheel with the Python package and the native engines,
installed into a fresh virtual environment whose PATH has no Rust toolchain, at the oldest
versions its ranges allow (packaging/lowest.txt): it plays a game on the native engine, runs
the CLI, and passes tests/envs and tests/cli. Builds the wheel (minutes): the long tier."""

from __future__ import annotations

import os
import re
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
import numpy
assert n.__file__.endswith(".abi3.so"), n.__file__
state = new_game(2, 1, engine="native")
assert type(state).__module__ == "cradle._native"
assert state.random_playout(1) > 0 and state.is_over
env = CradleVectorEnv("tigris", 2)
obs, _ = env.reset(seed=1)
print("ok", obs["observation"].shape, numpy.__version__)
"""

# the newest glibc the wheel's tag allows
GLIBC = (2, 28)


def _glibc_needed(library: bytes) -> tuple[int, int]:
    """The newest GLIBC_x.y symbol version a shared object names (what auditwheel checks)."""
    found = {tuple(map(int, m)) for m in re.findall(rb"GLIBC_(\d+)\.(\d+)", library)}
    assert found, "no glibc symbol versions: not a glibc shared object?"
    return max(found)  # type: ignore[return-value]


def test_the_wheel_installs_and_runs_without_rust(tmp_path: Path) -> None:
    if shutil.which("cargo") is None:
        pytest.skip("building the wheel needs cargo")
    subprocess.run(["make", "wheel"], cwd=ROOT, check=True, timeout=1800)
    (wheel,) = (ROOT / "dist").glob("cradle_games-*.whl")
    assert wheel.name.startswith("cradle_games-0.1.0-cp311-abi3-manylinux_2_28_"), wheel.name
    archive = zipfile.ZipFile(wheel)
    names = archive.namelist()
    assert "cradle/tigris/state.py" in names
    # one native module, the stable ABI's (not the development build's cpython-3xx one)
    assert [n for n in names if n.endswith(".so")] == ["cradle/_native.abi3.so"]
    assert "cradle/_native.pyi" in names and "cradle/py.typed" in names
    # the tag's promise: no glibc symbol newer than 2.28
    assert _glibc_needed(archive.read("cradle/_native.abi3.so")) <= GLIBC
    (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
    text = archive.read(metadata).decode()
    assert "Name: cradle-games\n" in text and "Author: The cradle developers" in text
    assert "\nRequires-Dist: numpy>=1.26.4 " in text  # a range, not a pin

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # a PATH without ~/.cargo/bin: nothing can compile Rust during the install
    path = os.pathsep.join([str(venv / "bin"), "/usr/bin", "/bin"])
    assert shutil.which("cargo", path=path) is None and shutil.which("rustc", path=path) is None
    env = {"PATH": path, "HOME": str(tmp_path), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    python = str(venv / "bin" / "python")
    pip = [python, "-m", "pip", "install", "--quiet"]
    lowest = ROOT / "packaging" / "lowest.txt"
    subprocess.run(
        [*pip, "-c", str(lowest), f"{wheel}[pettingzoo,openspiel]"],
        check=True,
        env=env,
        timeout=900,
    )
    # the test tools at the app's versions (none of them needs numpy)
    tools = ["pytest", "pytest-xdist", "hypothesis"]
    subprocess.run(
        [*pip, "-c", str(ROOT / "constraints.txt"), *tools], check=True, env=env, timeout=900
    )
    out = subprocess.run(
        [python, "-c", SMOKE], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok (2, 7503) 1.26.4"), out.stdout
    cli = subprocess.run(
        [str(venv / "bin" / "cradle"), "--help"], env=env, capture_output=True, text=True
    )
    assert cli.returncode == 0 and "play" in cli.stdout
    # the repository's own tests of the environments and the CLI, on the installed wheel
    # (src/ is not on the path: `cradle` is the wheel's)
    where = subprocess.run(
        [python, "-c", "import cradle; print(cradle.__file__)"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.startswith(str(venv)), where.stdout
    run_tests = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2"]
    tests = subprocess.run(
        [*run_tests, "tests/envs", "tests/cli"],
        cwd=ROOT,
        env={**env, "CRADLE_REQUIRE_NATIVE": "1"},
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert tests.returncode == 0, tests.stdout[-4000:] + tests.stderr[-2000:]
    assert " passed" in tests.stdout and "failed" not in tests.stdout
