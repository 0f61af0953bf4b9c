"""The terminal rendering and the SVG export, both working from views alone."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from cradle import gheos
from cradle.cli.main import app
from cradle.render.gheos_svg import to_svg
from cradle.render.gheos_text import render_map, render_view
from tests.helpers.gheos import GheosState, build

SVG = "{http://www.w3.org/2000/svg}"


def played(seed: int, players: int, steps: int) -> GheosState:
    rng = random.Random(seed)
    state = gheos.new_game(players, seed)
    for _ in range(steps):
        if state.is_over:
            break
        state.apply("pass" if state.phase == "token" else rng.choice(state.legal_actions()))
    return state


def text_of(view: dict[str, object]) -> str:
    console = Console(width=120, record=True, color_system=None)
    console.print(render_view(view))
    return console.export_text()


def test_the_map_draws_each_tile_as_a_triangle() -> None:
    # t5 (two cups) below the start tile: an up and a down triangle sharing the s edge.
    state = build({"1,0": "t5 r0"})
    lines = [line.plain for line in render_map(state.view(None))]
    drawing = "\n".join(lines)
    assert "/\\" in drawing and "\\/" in drawing
    assert "wc▲" in drawing  # the start tile's wheat, cup and pyramid
    assert "cc" in drawing  # t5's cups
    assert "·" in drawing  # empty cells next to the map


def test_render_shows_the_seats_hand_and_not_the_others() -> None:
    state = played(3, 3, 40)
    seat = state.to_move
    mine = text_of(state.view(seat))
    for tile in state.view(seat)["hand"]:
        assert tile["tile"] in mine
    others = {tile for s in range(len(state.players)) if s != seat for tile in state.hand(s)}
    hand_part = mine.split("Your hand", 1)[1]
    assert not any(f"{tile} " in hand_part for tile in others)
    spectator = text_of(state.view(None))
    assert "Your hand" not in spectator
    for name in state.players:
        assert name in spectator


def test_render_shows_a_pending_war_and_the_end() -> None:
    from tests.helpers.gheos import war_state

    state = war_state(extra={"-1,1": "t9 r0"}, followers={"north": {"red": 1}})
    state.apply("place t19 -1,0 r0")
    text = text_of(state.view(0))
    assert "war between red (1 sword), blue (1 sword)" in text
    over = played(1, 2, 2000)
    assert over.is_over
    assert "The game is over." in text_of(over.view(None))


@pytest.mark.parametrize("seed", [1, 2])
def test_svg_is_well_formed_with_a_shape_per_region(seed: int) -> None:
    state = played(seed, 4, 120)
    view = state.view(None)
    root = ET.fromstring(to_svg(view))
    assert root.tag == f"{SVG}svg"
    tiles = root.findall(f".//{SVG}g[@class='tile']")
    assert len(tiles) == len(view["map"])
    regions = root.findall(f".//{SVG}polygon[@data-region]")
    assert len(regions) == sum(len(cell["regions"]) for cell in view["map"])
    markers = root.findall(f".//{SVG}circle[@data-civ]")
    assert sorted(str(m.get("data-civ")) for m in markers) == sorted(view["civilizations"])


def test_svg_escapes_player_names() -> None:
    state = gheos.new_game(2, 1, dynasties=["<ann & co>", 'bob"'])
    svg = to_svg(state.view(None))
    assert "<ann" not in svg
    root = ET.fromstring(svg)
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert any("<ann & co>" in t for t in texts)


def test_cli_render_play_and_bench_with_a_tile_file(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "map.svg"
    result = runner.invoke(app, ["render", "--game", "gheos", "--seed", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    ET.fromstring(out.read_text(encoding="utf-8"))
    tiles = tmp_path / "tiles.txt"
    packaged = Path(gheos.__file__).parent / "data" / "tiles.txt"
    tiles.write_text(
        packaged.read_text(encoding="utf-8").replace("7   012:wheat,cup", "7 012:bread")
    )
    result = runner.invoke(
        app, ["render", "--game", "gheos", "--tiles", str(tiles), "--out", str(out)]
    )
    assert result.exit_code == 2
    result = runner.invoke(
        app, ["play", "--game", "gheos", "--humans", "0", "--bots", "random", "--seed", "5"]
    )
    assert result.exit_code == 0, result.output
    assert "Final ranking" in result.output
