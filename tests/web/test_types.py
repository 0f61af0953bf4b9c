"""The web client's type check (`make lint`): TypeScript's compiler from Debian's node-typescript
reads every module of src/cradle/web/ with its JSDoc types against types.d.ts, strictly.

The client passes, and a client with a misspelt frame field and an untyped parameter does not:
the check has teeth, so loosening tsconfig.json (no checkJs, no strict) fails here.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.helpers.web import tsc

ROOT = Path(__file__).resolve().parents[2]
WEB = Path("src/cradle/web")


def test_the_web_client_type_checks() -> None:
    answer = tsc(ROOT)
    assert answer.returncode == 0, answer.stdout + answer.stderr
    # Every module is checked, not only those an editor happens to open.
    for module in sorted((ROOT / WEB).glob("*.js")):
        assert module.read_text().startswith("// @ts-check\n"), module.name


def test_the_type_check_finds_a_misspelt_field_and_an_untyped_parameter(tmp_path: Path) -> None:
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
    answer = tsc(tmp_path)
    assert answer.returncode != 0
    assert "table.js" in answer.stdout
    assert "'verison' does not exist" in answer.stdout  # the API's types: TableMeta
    assert "TS7006" in answer.stdout  # noImplicitAny: parameter 'frame' is untyped
