"""The web client's type check (`make lint`): TypeScript's compiler from Debian's node-typescript
reads every module of src/cradle/web/ with its JSDoc types against types.d.ts, strictly.

`make lint` runs the check on the client itself (`make test` leaves it to this module). Here one
run of tsc on a copy of the client with three faults put in finds each of them and nothing else
(so the rest of the client passes):
a misspelt frame field and an untyped parameter (loosening tsconfig.json, no checkJs or no
strict, fails here), and a field renamed in the generated wire.d.ts (as renaming it in the
server's FrameTable would), which the client's code no longer type-checks against: the client
reads the wire through the generated names.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.helpers.web import tsc

ROOT = Path(__file__).resolve().parents[2]
WEB = Path("src/cradle/web")


def blocks(output: str) -> list[str]:
    """tsc's errors, each its first line ("src/cradle/web/table.js(289,60): error TS2551:
    Property ...") and the indented lines that go on with it."""
    found: list[str] = []
    for line in output.splitlines():
        if line.startswith(" ") and found:
            found[-1] += "\n" + line
        elif line.strip():
            found.append(line)
    return found


def message(error: str) -> str:
    """An error's first line without its place."""
    return error.split("\n")[0].split(": ", 1)[1]


def test_every_module_is_type_checked_by_the_lint() -> None:
    # Every module is checked, not only those an editor happens to open.
    for module in sorted((ROOT / WEB).glob("*.js")):
        assert module.read_text().startswith("// @ts-check\n"), module.name
    lint = (ROOT / "Makefile").read_text().split("\nlint:", 1)[1].split("\n\n", 1)[0]
    assert "tsc --project tsconfig.json" in lint


def test_the_type_check_finds_a_misspelt_field_an_untyped_parameter_and_a_renamed_wire_field(
    tmp_path: Path,
) -> None:
    shutil.copy(ROOT / "tsconfig.json", tmp_path / "tsconfig.json")
    shutil.copytree(ROOT / WEB, tmp_path / WEB)
    table = tmp_path / WEB / "table.js"
    text = table.read_text()
    marker = "document.body.dataset.version = String(frame.table.version);"
    assert marker in text
    table.write_text(
        text.replace(marker, "document.body.dataset.version = String(frame.table.verison);")
        + "\nexport function untyped(frame) { return frame; }\n"
    )
    wire = tmp_path / WEB / "wire.d.ts"
    text = wire.read_text()
    start = text.index("export type FrameTable = ")
    end = text.index("};", start)
    assert "  can_undo: boolean;" in text[start:end]
    wire.write_text(
        text[:start] + text[start:end].replace("  can_undo:", "  may_undo:") + text[end:]
    )
    answer = tsc(tmp_path)
    assert answer.returncode != 0
    errors = blocks(answer.stdout)
    assert errors, answer.stdout + answer.stderr
    misspelt = [e for e in errors if "'verison' does not exist" in e]  # the API's TableMeta
    assert [e.split("(")[0] for e in misspelt] == [f"{WEB}/table.js"], answer.stdout
    untyped = [e for e in errors if "error TS7006" in e]  # noImplicitAny: 'frame' is untyped
    assert [e.split("(")[0] for e in untyped] == [f"{WEB}/table.js"], answer.stdout
    renamed = [e for e in errors if e not in misspelt and "can_undo" in e]
    assert renamed, answer.stdout
    # tsc explains a mismatch at its first place only; the same one elsewhere says less.
    same = {message(e) for e in renamed}
    renamed += [e for e in errors if e not in renamed and message(e) in same]
    # Nothing else: the client, these faults aside, passes.
    assert len(misspelt) + len(untyped) + len(renamed) == len(errors), answer.stdout
