"""The analysis API of Gheos (docs/contract.md, "Analysis"), checked against the views and
positions, which describe the same map in the contract's JSON."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cradle import gheos, tigris
from cradle.gheos import COLOURS, SYMBOLS, GheosState
from tests.helpers.engines import random_states


def states(seed: int, players: int, every: int) -> Iterator[GheosState]:
    return random_states(gheos.new_game(players, seed), seed, every)


@pytest.mark.parametrize(("seed", "players"), [(2, 2), (7, 4)])
def test_map_areas_and_civilizations_agree_with_the_view(seed: int, players: int) -> None:
    for state in states(seed, players, every=7):
        view = state.view(None)
        areas = state.areas()
        assert [area.number for area in areas] == list(range(len(areas)))
        for shown, area in zip(view["areas"], areas, strict=True):
            assert area == state.area(area.number)
            assert (shown["ref"], shown["kind"], shown["tiles"]) == (
                area.ref,
                area.kind,
                len(area.cells),
            )
            symbols = (area.wheat, area.cup, area.sword, area.pyramid)
            assert (shown["wheat"], shown["cup"], shown["sword"], shown["pyramid"]) == symbols
            civ = None if area.civilization < 0 else COLOURS[area.civilization]
            assert shown["civ"] == civ
            assert list(area.cells) == sorted(area.cells)
        temples = {area.number: [0, 0, 0] for area in areas}
        tiles = state.tiles_on_map()
        assert len(tiles) == len(view["map"])
        for placed, cell in zip(tiles, view["map"], strict=True):
            assert (placed.row, placed.col, f"t{placed.tile}", placed.rotation) == (
                cell["row"],
                cell["col"],
                cell["tile"],
                cell["rotation"],
            )
            names = gheos.edge_names(placed.row, placed.col)
            for region in cell["regions"]:
                for edge in region["edges"]:
                    assert placed.areas[names.index(edge)] == region["area"]
                if region["temple"] is not None:
                    temples[region["area"]][SYMBOLS.index(region["temple"])] += 1
                assert (placed.row, placed.col) in areas[region["area"]].cells
        assert {a.number: list(a.temples) for a in areas} == temples

        civs = state.civilizations()
        assert [COLOURS[c.colour] for c in civs] == list(view["civilizations"])
        for civ in civs:
            assert view["civilizations"][COLOURS[civ.colour]]["area"] == civ.area
            assert view["civilizations"][COLOURS[civ.colour]]["supply"] == civ.supply
            # while a war is being resolved two civilizations share an area (as in views)
            sharing = {other.colour for other in civs if other.area == civ.area}
            assert areas[civ.area].civilization in sharing
            assert len(sharing) == 1 or state.phase in ("pay", "migrate", "war")
        position = state.to_position()
        for seat, name in enumerate(state.players):
            player = state.player(seat)
            assert (player.name, player.points, player.tokens) == (
                name,
                position["points"][name],
                position["tokens"][name],
            )
            held = {COLOURS[c]: n for c, n in enumerate(player.followers) if n}
            assert held == position["followers"][name]
            assert [f"t{n}" for n in player.hand] == position["hands"][name]
            for civ in civs:
                assert civ.followers[seat] == player.followers[civ.colour]
        assert state.stack_size() == len(position["stack"])
        assert state.epochs == position["epochs"]


def test_the_grid() -> None:
    assert gheos.is_up(0, 0) and not gheos.is_up(0, 1)
    assert gheos.edge_names(0, 0) == ("s", "nw", "ne")
    assert gheos.edge_names(1, 0) == ("n", "se", "sw")
    for row, col in [(0, 0), (0, 1), (-3, 5), (2, -7)]:
        corners = gheos.corners(row, col)
        for edge in range(3):
            other = gheos.neighbour(row, col, edge)
            # neighbours share the edge with the same number, and its two corners
            assert gheos.neighbour(*other, edge) == (row, col)
            ours = {corners[edge], corners[(edge + 1) % 3]}
            theirs = gheos.corners(*other)
            shared = {theirs[edge], theirs[(edge + 1) % 3]}
            assert {tuple(round(v, 9) for v in p) for p in ours} == {
                tuple(round(v, 9) for v in p) for p in shared
            }


def test_as_gheos_refuses_another_game() -> None:
    assert gheos.as_gheos(gheos.new_game(2, 1)).game == "gheos"
    with pytest.raises(TypeError, match="Gheos"):
        gheos.as_gheos(tigris.new_game(2, 1))
