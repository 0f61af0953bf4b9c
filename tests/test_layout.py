"""The test suite's own layout: a test module (and a conftest.py) imports what it shares with
others from ``tests.helpers`` only, never from another test module or a conftest.py, so that a
test module can be read, moved or deleted on its own."""

from __future__ import annotations

import ast
import re
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


# Issue 54 item 9: views, positions, events and records are typed, not dict[str, Any].
ANY_LIMIT = 150
SOURCE = TESTS.parent / "src" / "cradle"
ANY_WORD = re.compile(r"\bAny\b")


def any_uses(text: str) -> int:
    """Lines that name ``typing.Any`` outside an import, as the issue counts them
    (``grep -rn "\\bAny\\b" src/cradle --include=*.py | grep -v import``)."""
    return sum(1 for line in text.splitlines() if ANY_WORD.search(line) and "import" not in line)


def test_src_cradle_names_any_at_most_150_times() -> None:
    counts = {
        path.relative_to(SOURCE).as_posix(): any_uses(path.read_text(encoding="utf-8"))
        for path in sorted(SOURCE.rglob("*.py"))
    }
    total = sum(counts.values())
    worst = sorted(counts.items(), key=lambda kv: -kv[1])[:8]
    assert total <= ANY_LIMIT, f"{total} uses of Any in src/cradle (at most {ANY_LIMIT}): {worst}"


def test_the_any_count_reads_lines_as_the_issue_does() -> None:
    text = "from typing import Any\nx: dict[str, Any] = {}\nAnyway = 1\ny: Any = f(Any)\n"
    assert any_uses(text) == 2


# Issue 64: no server module over ~600 lines and no class over ~400 (split by concept instead).
SERVER = SOURCE / "server"
MODULE_LINES = 600
CLASS_LINES = 400


def oversized(text: str) -> list[str]:
    """What in the module ``text`` is too long: the module itself (over MODULE_LINES lines)
    and each class, nested ones too, over CLASS_LINES (from its first decorator to its end)."""
    found = []
    lines = len(text.splitlines())
    if lines > MODULE_LINES:
        found.append(f"the module: {lines} lines")
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            size = (node.end_lineno or node.lineno) - first + 1
            if size > CLASS_LINES:
                found.append(f"class {node.name}: {size} lines")
    return found


def test_no_server_module_over_600_lines_nor_class_over_400() -> None:
    too_long = {
        path.relative_to(SERVER).as_posix(): oversized(path.read_text(encoding="utf-8"))
        for path in sorted(SERVER.rglob("*.py"))
    }
    assert len(too_long) > 40  # the whole server was read
    assert {path: found for path, found in too_long.items() if found} == {}


def test_the_size_check_sees_long_modules_and_classes() -> None:
    def members(count: int, indent: str = "    ") -> str:
        return "".join(f"{indent}x{i} = {i}\n" for i in range(count))

    assert oversized("@dataclass\nclass Short:\n" + members(CLASS_LINES - 2)) == []
    assert oversized("@dataclass\nclass Long:\n" + members(CLASS_LINES - 1)) == [
        f"class Long: {CLASS_LINES + 1} lines"
    ]
    nested = "class Outer:\n    class Inner:\n" + members(CLASS_LINES, "        ")
    assert oversized(nested) == [
        f"class Outer: {CLASS_LINES + 2} lines",
        f"class Inner: {CLASS_LINES + 1} lines",
    ]
    assert oversized("x = 1\n" * MODULE_LINES) == []
    assert oversized("x = 1\n" * (MODULE_LINES + 1)) == [f"the module: {MODULE_LINES + 1} lines"]
