"""`make play` installs only what playing needs; `make test` installs the test tools; both
take their versions from constraints.txt (tests/helpers/make.py: the dry runs)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.helpers.make import dry_run, extras, pip_installs

ROOT = Path(__file__).resolve().parents[2]
TEST_TOOLS = ("playwright", "pytest", "hypothesis", "ruff", "mypy", "httpx")


def test_make_play_installs_only_what_playing_needs(tmp_path: Path) -> None:
    text = dry_run("play", tmp_path)
    assert extras(text) == {"build", "server"}
    assert all("-c constraints.txt" in line for line in pip_installs(text))
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
    assert all("-c constraints.txt" in line for line in pip_installs(text))
    assert "chromium-headless-shell postgresql" in text  # the Debian packages the tests need
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
