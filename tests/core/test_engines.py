"""Where both games' states come from (``cradle.tigris.engine``, ``cradle.gheos.engine``), alike:
the reference checks every position, and the native engine of each game reads the checked
position itself; a seed that is not an int is dealt by the reference and read the same way.
The native bindings use only public names of the reference packages, and offer none of their
own that are private."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import pytest

from cradle import gheos, tigris
from cradle.core import native
from cradle.core.positions import PositionError
from cradle.gheos.engine import native_tiles
from tests.helpers.gheos import position

NATIVE_SOURCES = Path(__file__).resolve().parents[2] / "native" / "src"
needs_native = pytest.mark.skipif(not native.available(), reason="the native engine is not built")


def test_the_native_engine_looks_up_only_public_names_of_the_reference() -> None:
    text = "\n".join(path.read_text() for path in sorted(NATIVE_SOURCES.rglob("*.rs")))
    looked_up = set(re.findall(r'"(cradle\.[a-z_.]+)",\s*"(\w+)"', text))
    assert ("cradle.tigris.actions", "known_action") in looked_up
    for module, name in sorted(looked_up):
        assert not name.startswith("_"), f"the native engine uses {module}.{name}"
        assert hasattr(importlib.import_module(module), name), f"{module}.{name} is gone"


@needs_native
def test_the_native_classes_have_no_private_constructors() -> None:
    for cls in (native.extension().TigrisState, native.extension().GheosState):
        private = [n for n in vars(cls) if n.startswith("_") and not n.endswith("__")]
        assert private == [], (cls.__name__, private)


@needs_native
@pytest.mark.parametrize("seed", ["text", 2.5, b"bytes"])
def test_seeds_that_are_not_ints_deal_alike_on_both_engines(seed: Any) -> None:
    for module in (tigris, gheos):
        for players in (2, 4):
            python = module.new_game(players, seed, engine="python")
            native_state = module.new_game(players, seed, engine="native")
            assert native_state.to_position() == python.to_position(), (module.NAME, seed)


def reordered(data: dict[str, Any]) -> dict[str, Any]:
    """The same position with its board and civilizations listed backwards."""
    out = dict(data)
    for key in ("board", "civilizations"):
        out[key] = dict(reversed(list(data[key].items())))
    return out


@needs_native
def test_a_gheos_position_in_any_order_with_a_conflict_reads_alike_on_both_engines() -> None:
    # Two occupied continents (tests/gheos/test_gheos_war.py): placing t19 on -1,0 joins them.
    start = position(
        {"0,-1": "t3 r0", "-1,-1": "t1 r0", "0,1": "t2 r0", "-1,1": "t6 r0"},
        civs={"red": "0,0:s", "blue": "0,0:ne"},
        followers={"north": {"red": 2, "blue": 1}, "east": {"red": 1, "blue": 2}},
        hands={"north": ["t19", "t30"], "east": ["t33", "t34"]},
    )
    reference = gheos.from_position(start, engine="python")
    reference.apply("place t19 -1,0 r0")
    assert reference.phase == "pay"
    data = reordered(reference.to_position())
    assert list(data["board"]) != sorted(data["board"])
    python = gheos.from_position(data, engine="python")
    native_state = gheos.from_position(data, engine="native")
    assert native_state.to_position() == python.to_position()
    for seat in (None, 0, 1):
        assert native_state.view(seat) == python.view(seat)
    assert native_state.legal_action_ids() == python.legal_action_ids()
    for answer in python.legal_actions():
        one, two = python.clone(), native_state.clone()
        assert two.apply(answer) == one.apply(answer)
        assert two.to_position() == one.to_position()


@needs_native
def test_the_native_readers_refuse_what_they_cannot_take_with_a_position_error() -> None:
    with pytest.raises(PositionError, match="native position reader"):
        native.extension().TigrisState.from_checked_position({"players": ["archer", "bull"]})
    state = gheos.new_game(2, 1, engine="python")
    tiles = native_tiles(state.tileset)
    broken = {**state.to_position(), "board": {"0,0": "t0 r7"}}
    with pytest.raises(PositionError, match="native position reader"):
        native.extension().GheosState.from_checked_position(
            tiles, state.tileset, state.options, broken
        )


@needs_native
def test_the_native_states_name_each_thing_once() -> None:
    """No aliases: the contract's names (and the documented num_players), not ``n`` too."""
    state = tigris.new_game(2, 1, engine="native")
    assert state.num_players == len(state.players) == 2
    assert not hasattr(state, "n")
