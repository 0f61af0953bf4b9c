"""What a user who installs, cites or redistributes cradle reads: the distribution's name, the
version everywhere, the licence and the citation file; the ranges library users get and the
pins the app is locked to (constraints.txt)."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

import cradle

ROOT = Path(__file__).resolve().parents[2]


def _project() -> dict[str, Any]:
    project: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project


def _requirements() -> list[Requirement]:
    project = _project()
    listed = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        listed += extra
    return [Requirement(text) for text in listed]


def _pins(path: Path) -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, _, version = line.partition("==")
        assert version and "[" not in name, f"{path.name}: not name==version: {line!r}"
        assert canonicalize_name(name) not in pins, f"{path.name}: {name} twice"
        pins[canonicalize_name(name)] = Version(version)
    return pins


def test_license_and_citation_agree_with_pyproject() -> None:
    project = _project()
    assert project["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    citation = (ROOT / "CITATION.cff").read_text()
    fields = dict(re.findall(r"^([a-z-]+): (.+)$", citation, re.MULTILINE))
    assert fields["cff-version"] == "1.2.0"
    assert fields["license"] == "MIT"
    assert fields["version"] == project["version"]
    assert fields["type"] == "software"
    assert fields["title"].strip('"')
    # the same authors as the package's metadata and the licence's copyright line
    authors = re.findall(r"^  - name: \"(.+)\"$", citation, re.MULTILINE)
    assert authors == [author["name"] for author in project["authors"]]
    assert all(author.lower() in (ROOT / "LICENSE").read_text().lower() for author in authors)


def test_one_version_and_one_name_everywhere() -> None:
    project = _project()
    assert cradle.__version__ == project["version"]
    native = tomllib.loads((ROOT / "native" / "Cargo.toml").read_text())["package"]
    assert native["version"] == project["version"]
    # installed as cradle-games, imported as cradle (the name cradle on PyPI is another project's)
    assert project["name"] == cradle.DISTRIBUTION == "cradle-games"
    assert project["scripts"]["cradle"].startswith("cradle.")


# `pip install cradle`, `'cradle[ai]'`, `dist/cradle-*.whl`: the old distribution name
OLD_NAME = re.compile(r"pip install (-U )?cradle\b(?!-)|(?<![\w.-])cradle\[|dist/cradle-")


def test_every_install_instruction_names_the_distribution() -> None:
    texts = [ROOT / "README.md", ROOT / "Makefile", *(ROOT / "docs").glob("*.md")]
    texts += [*(ROOT / "src").rglob("*.py"), *(ROOT / "examples").glob("*.py")]
    wrong = [
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for path in texts
        for match in OLD_NAME.finditer(path.read_text())
    ]
    assert not wrong
    assert OLD_NAME.search("pip install 'cradle[ai]'") and OLD_NAME.search("pip install cradle")
    assert not OLD_NAME.search("pip install 'cradle-games[ai]'")


def test_users_get_ranges_and_the_app_gets_pins() -> None:
    pins = _pins(ROOT / "constraints.txt")
    lowest = _pins(ROOT / "packaging" / "lowest.txt")
    named = set()
    for requirement in _requirements():
        name = canonicalize_name(requirement.name)
        named.add(name)
        operators = {spec.operator for spec in requirement.specifier}
        # a lower bound and nothing else: no exact pin, no upper bound to clash with
        assert operators == {">="}, f"{requirement}: a range '>=oldest tested' for library users"
        (bound,) = (Version(spec.version) for spec in requirement.specifier)
        assert name in pins, f"{name} has no pin in constraints.txt"
        assert requirement.specifier.contains(pins[name]), f"{name}: the pin is out of range"
        # the lower bound is a version the tests run on: the pin, or the one the wheel's test
        # installs (packaging/lowest.txt)
        assert bound in (pins[name], lowest.get(name)), f"{requirement}: an untested lower bound"
    assert set(pins) == named, "constraints.txt pins exactly what pyproject.toml names"
    assert set(lowest) <= named
    assert all(lowest[name] < pins[name] for name in lowest)
    # alphabetical, for a reader and a clean merge
    names = [line.split("==")[0] for line in (ROOT / "constraints.txt").read_text().splitlines()]
    names = [name for name in names if name and not name.startswith("#")]
    assert names == sorted(names, key=str.lower)


def test_the_wheels_pyproject_is_the_projects() -> None:
    sys.path.insert(0, str(ROOT / "packaging"))
    try:
        import wheel_pyproject
    finally:
        sys.path.remove(str(ROOT / "packaging"))
    root = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wheel = tomllib.loads(wheel_pyproject.render(root))  # valid TOML
    project = wheel["project"]
    for key in (
        "name",
        "version",
        "description",
        "requires-python",
        "license",
        "authors",
        "keywords",
        "dependencies",
    ):
        assert project[key] == root["project"][key], key
    assert project["scripts"] == root["project"]["scripts"]
    # every extra a user installs, not the developers' build, dev and wheel tools
    extras = root["project"]["optional-dependencies"]
    assert project["optional-dependencies"] == {
        k: v for k, v in extras.items() if k not in ("build", "dev", "wheel")
    }
    assert wheel["build-system"]["build-backend"] == "maturin"
    assert wheel["tool"]["maturin"]["module-name"] == "cradle._native"
    assert "abi3" in wheel["tool"]["maturin"]["features"]


def test_missing_extra_messages_name_real_extras() -> None:
    extras = set(_project()["optional-dependencies"])
    hint = cradle.extra_hint("ai")
    assert "'ai' extra of cradle-games" in hint and "pip install -e '.[ai]'" in hint
    # every extra an error message names (duel.py picks openspiel or pettingzoo)
    named = set()
    for path in (ROOT / "src").rglob("*.py"):
        named |= set(re.findall(r"extra_hint\('(\w+)'\)", path.read_text()))
    duel = (ROOT / "src" / "cradle" / "cli" / "duel.py").read_text()
    named |= set(re.findall(r'extra = "(\w+)" if env == "\w+" else "(\w+)"', duel)[0])
    assert named == {"server", "ray", "ai", "openspiel", "pettingzoo"}
    assert named <= extras
