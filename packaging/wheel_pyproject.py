"""Writes the pyproject.toml `make wheel` builds from: the root's [project] (its metadata,
dependencies, scripts and the extras users install; not the developers' build, dev and wheel
tools), built by maturin with the native engines as ``cradle._native`` (CPython's stable ABI).

    python packaging/wheel_pyproject.py pyproject.toml build/wheel/pyproject.toml
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from typing import Any

DEVELOPERS_ONLY = ("build", "dev", "wheel")

MATURIN = {
    "manifest-path": "native/Cargo.toml",
    "python-source": "src",
    "module-name": "cradle._native",
    "features": ["extension-module", "abi3"],
}


def wheel_project(root: dict[str, Any]) -> dict[str, Any]:
    project = dict(root["project"])
    extras = project.get("optional-dependencies", {})
    project["optional-dependencies"] = {k: v for k, v in extras.items() if k not in DEVELOPERS_ONLY}
    return project


def _value(value: Any) -> str:
    # TOML's basic strings and numbers are written as JSON writes them; tables in an array
    # (the authors) inline
    if isinstance(value, (str, int, float)):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no TOML for {value!r}")


def _table(name: str, table: dict[str, Any]) -> list[str]:
    lines = [f"[{name}]"]
    nested = []
    for key, value in table.items():
        if isinstance(value, dict):
            nested.append((key, value))
        else:
            lines.append(f"{json.dumps(key)} = {_value(value)}")
    for key, value in nested:
        lines += ["", *_table(f"{name}.{json.dumps(key)}", value)]
    return lines


def render(root: dict[str, Any]) -> str:
    lines = [
        "# Written by packaging/wheel_pyproject.py from the root pyproject.toml: do not edit.",
        *_table("build-system", {"requires": ["maturin>=1.16,<2"], "build-backend": "maturin"}),
        "",
        *_table("project", wheel_project(root)),
        "",
        *_table("tool.maturin", MATURIN),
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    source, target = Path(sys.argv[1]), Path(sys.argv[2])
    target.write_text(render(tomllib.loads(source.read_text())))


if __name__ == "__main__":
    main()
