//! The analysis API of the native Gheos state (docs/contract.md, "Analysis") as the
//! reference's own named tuples (`cradle.gheos.analysis`), read off the areas the core keeps,
//! so both engines give answers that compare equal.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyTuple;

use crate::gheos::board::{node, NONE};
use crate::gheos::geometry;
use crate::gheos::state::State;
use crate::gheos::tiles::NO_TEMPLE;

struct Classes {
    placed_tile: Py<PyAny>,
    area: Py<PyAny>,
    civilization: Py<PyAny>,
    player: Py<PyAny>,
}

static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();

fn classes(py: Python<'_>) -> PyResult<&'static Classes> {
    CLASSES.get_or_try_init(py, || {
        let m = py.import("cradle.gheos.analysis")?;
        Ok(Classes {
            placed_tile: m.getattr("PlacedTile")?.unbind(),
            area: m.getattr("Area")?.unbind(),
            civilization: m.getattr("Civilization")?.unbind(),
            player: m.getattr("Player")?.unbind(),
        })
    })
}

/// The placed tiles by cell: `PlacedTile(row, col, tile, rotation, areas)`.
pub fn tiles_on_map<'py>(py: Python<'py>, game: &State) -> PyResult<Bound<'py, PyTuple>> {
    let k = classes(py)?;
    let index = game.area_index();
    let mut out = Vec::with_capacity(game.board.slots());
    for &slot in game.board.ordered() {
        let slot = usize::from(slot);
        let cell = game.board.cell[slot];
        let areas = [0, 1, 2].map(|edge| index[game.areas.of(game.node_on(slot, edge))]);
        out.push(k.placed_tile.bind(py).call1((
            geometry::row(cell),
            geometry::col(cell),
            game.board.tile[slot],
            game.board.rot[slot],
            PyTuple::new(py, areas)?,
        ))?);
    }
    PyTuple::new(py, out)
}

/// Every area in the reference's order: `Area(number, ref, kind, cells, wheat, cup, sword,
/// pyramid, temples, civilization)`.
pub fn areas<'py>(py: Python<'py>, game: &State) -> PyResult<Bound<'py, PyTuple>> {
    let k = classes(py)?;
    let roots: Vec<usize> = game.roots().collect();
    let mut index = [NONE; crate::gheos::board::MAX_NODES];
    for (i, &root) in roots.iter().enumerate() {
        index[root] = i as u8;
    }
    // Slots in cell order: each area's cells come ascending; a tile's regions in one area
    // name its cell once.
    let mut cells: Vec<Vec<u16>> = vec![Vec::new(); roots.len()];
    let mut temples = vec![[0u8; 3]; roots.len()];
    for &slot in game.board.ordered() {
        let slot = usize::from(slot);
        let cell = game.board.cell[slot];
        let tile = game.tile_at(slot);
        for (r, region) in tile.regions.iter().enumerate() {
            let i = usize::from(index[game.areas.of(node(slot, r as u8))]);
            if cells[i].last() != Some(&cell) {
                cells[i].push(cell);
            }
            if region.temple != NO_TEMPLE {
                temples[i][usize::from(region.temple)] += 1;
            }
        }
    }
    let mut out = Vec::with_capacity(roots.len());
    for (i, &root) in roots.iter().enumerate() {
        let area = game.stats(root);
        let at: Vec<(i32, i32)> = cells[i]
            .iter()
            .map(|&c| (geometry::row(c), geometry::col(c)))
            .collect();
        let civilization = game.occupant(root).map_or(-1, i32::from);
        out.push(k.area.bind(py).call1((
            i,
            game.region_ref(root).name(),
            area.kind(),
            PyTuple::new(py, at)?,
            area.wheat,
            area.cup,
            area.sword,
            area.pyramid,
            PyTuple::new(py, temples[i])?,
            civilization,
        ))?);
    }
    PyTuple::new(py, out)
}

/// The civilizations on the map by colour: `Civilization(colour, area, supply, followers)`.
pub fn civilizations<'py>(py: Python<'py>, game: &State) -> PyResult<Bound<'py, PyTuple>> {
    let k = classes(py)?;
    let index = game.area_index();
    let players = usize::from(game.players);
    let mut out = Vec::new();
    for colour in 0..6u8 {
        if !game.on_table(colour) {
            continue;
        }
        let c = usize::from(colour);
        let followers: Vec<u8> = (0..players).map(|s| game.held[s][c]).collect();
        out.push(k.civilization.bind(py).call1((
            colour,
            index[game.civ_root(colour)],
            game.supply[c],
            PyTuple::new(py, followers)?,
        ))?);
    }
    PyTuple::new(py, out)
}

/// What `seat` holds: `Player(name, points, tokens, followers, hand)`.
pub fn player<'py>(py: Python<'py>, game: &State, seat: usize) -> PyResult<Bound<'py, PyAny>> {
    let k = classes(py)?;
    k.player.bind(py).call1((
        game.names[seat].as_str(),
        game.points[seat],
        game.tokens[seat],
        PyTuple::new(py, game.held[seat])?,
        PyTuple::new(py, game.sorted_hand(seat).as_slice().iter().copied())?,
    ))
}
