from __future__ import annotations

import io
import json
import random
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from cradle import tigris
from cradle.render.tigris_svg import to_svg
from cradle.render.tigris_text import board_layout, monument_cells, render_view
from tests.helpers.cli import GAMES, assert_clean_error, cradle, finished_record

SVG = "{http://www.w3.org/2000/svg}"


def plain(view: dict[str, Any], width: int = 100) -> str:
    out = io.StringIO()
    Console(file=out, width=width, color_system=None).print(render_view(view))
    return out.getvalue()


def cell_at(text: str, cell: str) -> str:
    """The 3 characters drawn for ``cell`` in the rendered board."""
    column, row = "ABCDEFGHIJKLMNOP".index(cell[0]), int(cell[1:])
    line = next(line for line in text.splitlines() if line.startswith(f"{row:>2} "))
    return line[3 + 3 * column : 6 + 3 * column]


def crafted_view() -> dict[str, Any]:
    view = tigris.new_game(2, seed=1).view(0)
    view["board"].update(
        {
            "E5": "leader:bull:king",
            "F5": "catastrophe",
            "G5": "down:red",
            "H5": "down:red",
            "G6": "down:red",
            "H6": "down:red*",
            "J5": "green",
            "K5": "black",
        }
    )
    view["monuments"] = [{"colors": ["red", "blue"], "cell": "G5"}]
    view["unification"] = "J5"
    view["buildings"] = {"black": "K5"}
    return view


def test_the_board_shows_every_kind_of_cell() -> None:
    text = plain(crafted_view())
    assert cell_at(text, "E5") == " Kb"  # king of bull
    assert cell_at(text, "F5") == " X "
    assert cell_at(text, "G5") == " M "
    assert cell_at(text, "H6") == " M*"  # treasure under a monument
    assert cell_at(text, "J5") == " gU"  # unification tile on a market
    assert cell_at(text, "K5") == " kB"  # building on a settlement
    assert cell_at(text, "B2") == " r$"  # starting temple with a treasure on a special square
    assert cell_at(text, "K1") == " r*"
    assert cell_at(text, "E1") == " ~ "  # empty river
    assert cell_at(text, "A1") == " · "
    assert "    A  B  C" in text
    assert "Unification tile on J5" in text
    assert "Monuments: red-blue at G5" in text


def test_the_legend_sits_beside_the_board_only_when_it_fits() -> None:
    def row_1(text: str) -> str:
        return next(line for line in text.splitlines() if line.startswith(" 1 "))

    wide, narrow = plain(crafted_view(), 80), plain(crafted_view(), 60)
    assert "farm" in row_1(wide)
    assert "farm" not in row_1(narrow)
    assert "farm" in narrow


def test_a_seat_sees_its_hand_and_points_a_spectator_neither() -> None:
    state = tigris.new_game(3, seed=4)
    mine = plain(state.view(1))
    assert "Hand:" in mine and f"{state.players[1]}'s points:" in mine
    spectator = plain(state.view(None))
    assert "Hand:" not in spectator
    assert "hidden" in spectator


def test_monument_cells_alternate_its_two_colours() -> None:
    shown = monument_cells([{"colors": ["red", "blue"], "cell": "O10"}])
    assert shown == {"O10": "red", "P11": "red", "P10": "blue", "O11": "blue"}


def test_board_layout_matches_the_engines_boards() -> None:
    for name, river, special in (("standard", 41, 4), ("advanced", 39, 6)):
        layout = board_layout(name)
        assert len(layout) == 176
        assert sum(letter == "~" for letter in layout.values()) == river
        assert sum(letter == "S" for letter in layout.values()) == special


@pytest.mark.parametrize("players", [2, 3, 4])
def test_render_and_svg_follow_a_random_game_with_every_variant(players: int) -> None:
    options = tigris.options_from_dict({"buildings": True, "wonder": True, "board": "advanced"})
    state, rng = tigris.new_game(players, seed=players, options=options), random.Random(players)
    step = 0
    while not state.is_over:
        if step % 3 == 0:
            view = state.view(state.to_move)
            text = plain(view)
            for cell, code in view["board"].items():
                if code.startswith("leader:"):
                    _, dynasty, role = code.split(":")
                    assert cell_at(text, cell) == f" {role[0].upper()}{dynasty[0]}"
            root = ET.fromstring(to_svg(view))
            leaders = [t for t in root.iter(f"{SVG}title") if " of " in (t.text or "")]
            assert len(leaders) == sum(v.startswith("leader:") for v in view["board"].values())
        state.apply(rng.choice(state.legal_actions()))
        step += 1


def test_render_writes_a_valid_svg_of_a_new_game(tmp_path: Path) -> None:
    out = tmp_path / "new.svg"
    run = cradle("render", "--seed", "3", "--out", str(out))
    assert run.code == 0, run.err
    root = ET.parse(out).getroot()
    assert root.tag == f"{SVG}svg"
    assert len(root.findall(f"{SVG}rect")) >= 176
    assert "archer" in out.read_text()


def test_render_of_a_record_shows_its_final_position(tmp_path: Path) -> None:
    record, out = finished_record(tmp_path), tmp_path / "end.svg"
    run = cradle("render", "--record", str(record), "--out", str(out))
    assert run.code == 0, run.err
    root = ET.parse(out).getroot()
    leaders = [t for t in root.iter(f"{SVG}title") if " of " in (t.text or "")]
    position = json.loads(cradle("replay", str(record), "--json").out)
    on_board = [v for v in position["board"].values() if v.startswith("leader:")]
    assert len(leaders) == len(on_board)


@pytest.mark.parametrize("game", GAMES)
def test_render_each_game(game: str, tmp_path: Path) -> None:
    out = tmp_path / f"{game}.svg"
    run = cradle("render", "--game", game, "--seed", "1", "--out", str(out))
    assert run.code == 0, run.err
    assert ET.parse(out).getroot().tag == f"{SVG}svg"


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--record", "missing.json"], "cannot read"),
        (["--game", "chess"], "unknown game"),
        (["--out", "/no/such/dir/x.svg"], "cannot write"),
    ],
)
def test_bad_render_arguments_are_clean_errors(args: list[str], reason: str) -> None:
    assert_clean_error(cradle("render", *args), reason)


def test_render_refuses_a_record_of_another_game_or_with_variants(tmp_path: Path) -> None:
    record = finished_record(tmp_path)
    assert_clean_error(cradle("render", "--record", str(record), "--game", "gheos"), "tigris game")
    refused = cradle("render", "--record", str(record), "-o", "wonder=true")
    assert_clean_error(refused, "own options")


def test_a_conflict_in_progress_is_told_in_words() -> None:
    view = crafted_view()
    view["pending"] = {
        "kind": "war",
        "color": "green",
        "attacker": 1,
        "defender": 0,
        "attacker_commit": 4,
        "attacker_strength": 1,
        "defender_strength": 2,
        "queue": ["black"],
    }
    text = " ".join(plain(view, 200).split())
    assert "War: bull attacks with 1 + 4 committed, archer defends with 2" in text
    assert "wars still to come: [black]" in text
    view["pending"] = {"kind": "treasure", "seat": 1, "cells": ["B2", "K1"]}
    assert "Treasure: bull takes treasures from [B2, K1]" in plain(view, 200)
