"""Gheos' grid tensor (cradle.envs.gheos_grid): every triangle of the map in exactly one
cell, neighbours in neighbouring cells, any map fits, and the native encoder writes what the
reference writes, in every interface that offers the board tensor."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

from cradle.core import native
from cradle.envs import gheos_grid as grid
from cradle.envs.tensors import board_shape
from cradle.gheos import new_game
from cradle.gheos.geometry import is_up, neighbour

needs_native = pytest.mark.skipif(not native.available(), reason="the native engine is not built")


def played(seed: int, players: int, moves: int) -> Any:
    state = new_game(players, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if state.is_over:
            break
        state.apply(rng.choice(state.legal_actions()))
    return state


def filled(view: Any) -> np.ndarray[Any, Any]:
    out = np.zeros(grid.SHAPE, np.float32)
    grid.fill_grid(view, out)
    return out


# the grid step across each cell edge (docs/gheos.md's numbering): up s, nw, ne; down n, se, sw
STEP = {True: ((1, 0), (0, -1), (0, 1)), False: ((-1, 0), (0, 1), (0, -1))}


@pytest.mark.parametrize(("seed", "players"), [(1, 2), (2, 3), (3, 4)])
def test_each_triangle_lies_in_one_cell_and_neighbours_in_neighbouring_cells(
    seed: int, players: int
) -> None:
    for moves in (0, 40, 120, 400):
        view = played(seed, players, moves).view(None)
        out = filled(view)
        cells = [(e["row"], e["col"]) for e in view["map"]]
        frontier = [tuple(int(x) for x in name.split(",")) for name in view["frontier"]]
        top, left = grid.window(cells + frontier)
        at = {cell: (cell[0] - top, cell[1] - left) for cell in cells + frontier}
        assert len(set(at.values())) == len(at)  # one cell each
        assert all(0 <= i < grid.ROWS and 0 <= j < grid.COLS for i, j in at.values())
        assert out[grid.TILE].sum() == len(cells) and out[grid.FRONTIER].sum() == len(frontier)
        assert all(out[grid.TILE][at[c]] == 1 for c in cells)
        assert all(out[grid.FRONTIER][at[c]] == 1 for c in frontier)
        assert out[grid.START][at[(0, 0)]] == 1 and out[grid.START].sum() == 1
        for (row, col), (i, j) in at.items():
            assert out[grid.UP, i, j] == is_up(row, col) == ((i + j) % 2 == 0)
        for row, col in cells:
            i, j = at[(row, col)]
            for edge in range(3):
                di, dj = STEP[is_up(row, col)][edge]
                other = neighbour(row, col, edge)
                if other in at:
                    assert at[other] == (i + di, j + dj)
                if other in cells:
                    # a shared edge joins the regions on its two sides: one area, seen alike
                    base = grid.EDGES + edge * grid.EDGE
                    here = out[base + grid.CIV : base + grid.EDGE, i, j]
                    there = out[base + grid.CIV : base + grid.EDGE, i + di, j + dj]
                    assert np.array_equal(here, there)


def test_the_longest_maps_fit() -> None:
    # 52 tiles in a row; zigzags down and up (two triangles a row); the frontier around them
    row = [(0, c) for c in range(-51, 1)]
    down = [(0, 0)] + [(r, c) for r in range(1, 26) for c in (r - 1, r)] + [(26, 25)]
    up = [(0, 0), (0, 1)] + [(-r, c) for r in range(1, 26) for c in (r, r + 1)]
    for cells in (row, down, up, [(-r, -c) for r, c in down]):
        assert len(cells) == 52 and len(set(cells)) == 52
        around = {neighbour(r, c, e) for r, c in cells for e in range(3)} - set(cells)
        top, left = grid.window(cells + sorted(around))
        assert (top + left) % 2 == 0
        for r, c in cells + sorted(around):
            assert 0 <= r - top < grid.ROWS and 0 <= c - left < grid.COLS


def test_what_a_tile_and_its_edges_show() -> None:
    view = new_game(2, 5).view(None)  # the start tile alone: t0 (docs/gheos.md)
    out = filled(view)
    top, left = grid.window(
        [(0, 0)] + [tuple(int(x) for x in n.split(",")) for n in view["frontier"]]
    )
    cell = out[:, -top, -left]
    regions = view["map"][0]["regions"]
    assert cell[grid.WHEAT] == sum(r["wheat"] for r in regions)
    assert cell[grid.PYRAMID] == sum(r["pyramid"] for r in regions) == 1
    lands = [cell[grid.EDGES + e * grid.EDGE + grid.LAND] for e in range(3)]
    assert sorted(lands) == [0.0, 1.0, 1.0]  # a landmass on two edges, a coast on one


@needs_native
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_native_grid_is_the_references(players: int) -> None:
    from cradle.envs.vector import CradleVectorEnv

    env = CradleVectorEnv("gheos", 3, players, observation="board")
    assert env.single_observation_space["board"].shape == grid.SHAPE == board_shape("gheos")
    obs, _ = env.reset(seed=players)
    rng = np.random.default_rng(players)
    for _ in range(150):
        for i in range(3):
            view = env.game_state(i).view(None)
            assert np.array_equal(obs["board"][i], filled(view))
            assert env.single_observation_space["board"].contains(obs["board"][i])
        obs, *_ = env.step(env.random_actions(rng.integers(0, 2**63, 3, dtype=np.uint64)))


@needs_native
def test_the_vector_envs_tigris_board_is_its_observation_folded() -> None:
    from cradle.envs.vector import CradleVectorEnv

    env = CradleVectorEnv("tigris", 2, 2, observation="board", normalize=True)
    obs, _ = env.reset(seed=1)
    assert obs["board"].shape == (2, 42, 11, 16)
    assert np.array_equal(obs["board"].reshape(2, -1), obs["observation"][:, : 42 * 11 * 16])
    assert env.observation_space.contains(obs)


def test_pettingzoo_and_openspiel_offer_the_grid() -> None:
    pytest.importorskip("pettingzoo")
    from cradle.envs.pettingzoo_env import CradleAECEnv

    aec = CradleAECEnv("gheos", 3, observation="board")
    aec.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(30):
        agent = aec.agent_selection
        if aec.terminations[agent]:
            break
        observed = aec.observe(agent)
        assert np.array_equal(observed["board"], filled(aec.game_state().view(None)))
        assert aec.observation_space(agent).contains(observed)
        aec.step(int(rng.choice(np.flatnonzero(observed["action_mask"]))))
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.observation import make_observation

    import cradle.envs.openspiel  # noqa: F401

    game = pyspiel.load_game("python_gheos")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    observation = make_observation(game, params={"board": True})
    observation.set_from(state, 0)
    assert observation.dict["board"].shape == grid.SHAPE
    assert observation.dict["board"][grid.TILE].sum() == 1
    assert len(observation.tensor) == game.observation_tensor_size()  # the tensor unchanged
    with pytest.raises(ValueError, match="board"):
        make_observation(game, params={"grid": 1})


def test_pettingzoos_api_test_passes_with_the_board() -> None:
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from cradle.envs import gheos_v0

    # PettingZoo warns that dict observations are "not a NumPy array"; they are meant to
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        api_test(gheos_v0.env(observation="board"), num_cycles=20)
