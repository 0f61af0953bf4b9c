"""What a user who cites or redistributes cradle reads: the licence and the citation file
agree with the package's metadata."""

from __future__ import annotations

import re
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
