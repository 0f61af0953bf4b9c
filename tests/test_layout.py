"""The test suite's own layout: a test module (and a conftest.py) imports what it shares with
others from ``tests.helpers`` only, never from another test module or a conftest.py, so that a
test module can be read, moved or deleted on its own."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def imported_test_modules(text: str, package: str) -> list[str]:
    """The modules of the test suite that ``text``, a module of ``package``, imports (relative
    imports resolved)."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            names = [module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found += [name for name in names if name == "tests" or name.startswith("tests.")]
    return found


def test_test_modules_import_shared_code_only_from_tests_helpers() -> None:
    checked = 0
    for path in sorted(TESTS.rglob("*.py")):
        if path.parent.name == "helpers":
            continue
        checked += 1
        package = ".".join(path.relative_to(TESTS.parent).parts[:-1])
        for module in imported_test_modules(path.read_text(), package):
            assert module == "tests.helpers" or module.startswith("tests.helpers."), (
                f"{path.relative_to(TESTS.parent)} imports {module}: move what it needs to "
                "tests/helpers"
            )
    assert checked > 50


def test_the_check_sees_relative_and_absolute_imports() -> None:
    text = (
        "from .helpers import x\n"
        "from . import conftest\n"
        "from tests.server.conftest import GAMES\n"
        "def f():\n"
        "    from tests.helpers.server import PlayServer\n"
        "import tests.helpers\n"
    )
    assert sorted(imported_test_modules(text, "tests.tigris")) == [
        "tests.helpers",
        "tests.helpers.server",
        "tests.server.conftest",
        "tests.tigris",
        "tests.tigris.helpers",
    ]
