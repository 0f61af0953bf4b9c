"""The wire's types have one source: the server's pydantic models and each game's Presentation
(its TypedDicts). packaging/wire_types.py makes the web client's wire.d.ts from their JSON
Schemas; `make lint` runs its check, and tsc checks the client against the file.

Here: the committed file is current and the check fails on a stale one; and what the engines
really return (views, events, result lines, pieces) fits each game's declared TypedDicts, on
both engines, so the types the client reads are the shapes it gets. That the client's code
depends on the generated names (a field renamed in a model breaks tsc) is checked in
test_types.py, in the same run of tsc as the other faults it must find.
"""

from __future__ import annotations

import importlib.util
import random
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import jsonschema
import pytest

from cradle.games import game_names, get_game
from tests.helpers.engines import ENGINES

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "packaging" / "wire_types.py"
WIRE = ROOT / "src" / "cradle" / "web" / "wire.d.ts"


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("wire_types", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check(target: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--check", "--target", str(target)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_committed_wire_types_are_current_and_a_stale_file_fails(tmp_path: Path) -> None:
    assert check(WIRE).returncode == 0, "run `make wire-types` and commit src/cradle/web/wire.d.ts"
    stale = tmp_path / "wire.d.ts"
    stale.write_text(WIRE.read_text().replace("  can_undo: boolean;\n", "", 1))
    found = check(stale)
    assert found.returncode == 1 and "is not current" in found.stderr


def schemas(game: str) -> dict[str, jsonschema.Draft202012Validator]:
    """Each declared shape of ``game`` as a JSON Schema (the generator's own), by role."""
    shown = get_game(game).PRESENTATION
    made = script().TypedDictSchemas()
    roots = {
        role: made.add(typed)
        for role, typed in (
            ("view", shown.view),
            ("event", shown.event),
            ("result", shown.result),
            ("piece", shown.piece),
        )
        if typed is not None
    }
    return {
        role: jsonschema.Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": made.defs})
        for role, name in roots.items()
    }


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("game", game_names())
def test_what_the_engines_return_fits_the_declared_types(game: str, engine: str) -> None:
    from cradle.core import native

    if engine == "native" and not native.available():
        pytest.skip("the native engine is not built")
    module = get_game(game)
    shown = module.PRESENTATION
    declared = schemas(game)
    rng = random.Random(3)
    state = module.new_game(3, 5, engine=engine)
    plies = 0
    while not state.is_over and plies < 400:
        before = state.clone()
        events = state.apply(rng.choice(state.legal_actions()))
        for event in events:
            declared["event"].validate(dict(event))
        if shown.step_pieces is not None:
            for piece in shown.step_pieces(before, state, events).values():
                declared["piece"].validate(piece)
        if plies % 25 == 0 or state.is_over:
            for seat in [None, *range(len(state.players))]:
                declared["view"].validate(dict(state.view(seat)))
            if shown.hand_pieces is not None:
                for piece in shown.hand_pieces(state, 0).values():
                    declared["piece"].validate(piece)
        plies += 1
    if state.is_over:
        for line in state.result():
            declared["result"].validate(dict(line))
