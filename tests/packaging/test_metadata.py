"""What a user who cites or redistributes cradle reads: the licence and the citation file
agree with the package's metadata."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_license_and_citation_agree_with_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    citation = (ROOT / "CITATION.cff").read_text()
    fields = dict(re.findall(r"^([a-z-]+): (.+)$", citation, re.MULTILINE))
    assert fields["cff-version"] == "1.2.0"
    assert fields["license"] == "MIT"
    assert fields["version"] == project["version"]
    assert fields["type"] == "software"
    assert "authors:" in citation and fields["title"].strip('"')


def test_the_wheels_pyproject_is_the_projects() -> None:
    sys.path.insert(0, str(ROOT / "packaging"))
    try:
        import wheel_pyproject
    finally:
        sys.path.remove(str(ROOT / "packaging"))
    root = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wheel = tomllib.loads(wheel_pyproject.render(root))  # valid TOML
    project = wheel["project"]
    for key in ("name", "version", "description", "requires-python", "license", "dependencies"):
        assert project[key] == root["project"][key], key
    assert project["scripts"] == root["project"]["scripts"]
    # every extra a user installs, not the developers' build and dev tools
    extras = root["project"]["optional-dependencies"]
    assert project["optional-dependencies"] == {
        k: v for k, v in extras.items() if k not in ("build", "dev")
    }
    assert wheel["build-system"]["build-backend"] == "maturin"
    assert wheel["tool"]["maturin"]["module-name"] == "cradle._native"
    assert "abi3" in wheel["tool"]["maturin"]["features"]
