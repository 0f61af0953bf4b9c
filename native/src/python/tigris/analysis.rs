//! The analysis API of the native Tigris state as Python values: the reference's own named
//! tuples and decision dataclasses (`cradle.tigris.analysis`, `cradle.tigris.decisions`),
//! made from `analysis.rs`'s plain values, so answers compare equal across engines.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple};
use pyo3::{intern, IntoPyObjectExt};

use crate::tigris::actions::{DYNASTIES, MONUMENTS};
use crate::tigris::analysis::{self, Content, RegionFacts};
use crate::tigris::board::{Bb, CELLS, NONE};
use crate::tigris::state::{PendingKind, State};

/// The reference's classes and the `Content` values shared by every answer.
struct Classes {
    leader: Py<PyAny>,
    monument: Py<PyAny>,
    region: Py<PyAny>,
    dynasty: Py<PyAny>,
    geometries: Py<PyAny>,
    revolt: Py<PyAny>,
    war: Py<PyAny>,
    war_order: Py<PyAny>,
    treasure_choice: Py<PyAny>,
    /// The decisions without fields, one shared instance each.
    monument_choice: Py<PyAny>,
    building_choice: Py<PyAny>,
    wonder_point: Py<PyAny>,
    /// Content values: tiles and face-down tiles per colour and treasure, leaders by index,
    /// the catastrophe, the wonder without and with its treasure.
    tiles: Vec<Py<PyAny>>,
    downs: Vec<Py<PyAny>>,
    leaders: Vec<Py<PyAny>>,
    catastrophe: Py<PyAny>,
    wonders: Vec<Py<PyAny>>,
    /// Small ints as tuples of cells need them (shared objects).
    monument_pairs: Vec<Py<PyTuple>>,
}

static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();

fn classes(py: Python<'_>) -> PyResult<&'static Classes> {
    CLASSES.get_or_try_init(py, || {
        let analysis = py.import("cradle.tigris.analysis")?;
        let decisions = py.import("cradle.tigris.decisions")?;
        let content = analysis.getattr("Content")?;
        let get = |m: &Bound<'_, PyModule>, name: &str| -> PyResult<Py<PyAny>> {
            Ok(m.getattr(name)?.unbind())
        };
        let kind = |name: &str| -> PyResult<Py<PyAny>> { Ok(analysis.getattr(name)?.unbind()) };
        let (tile, down, leader, catastrophe, wonder) = (
            kind("TILE")?,
            kind("DOWN")?,
            kind("LEADER")?,
            kind("CATASTROPHE")?,
            kind("WONDER")?,
        );
        let make = |kind: &Py<PyAny>, colour: i64, seat: i64, treasure: bool| {
            content
                .call1((kind.clone_ref(py), colour, seat, treasure))
                .map(Bound::unbind)
        };
        let mut tiles = Vec::new();
        let mut downs = Vec::new();
        for colour in 0..4 {
            for treasure in [false, true] {
                tiles.push(make(&tile, colour, -1, treasure)?);
                downs.push(make(&down, colour, -1, treasure)?);
            }
        }
        let leaders = (0..16)
            .map(|i| make(&leader, i % 4, i / 4, false))
            .collect::<PyResult<_>>()?;
        Ok(Classes {
            leader: get(&analysis, "Leader")?,
            monument: get(&analysis, "Monument")?,
            region: get(&analysis, "Region")?,
            dynasty: get(&analysis, "Dynasty")?,
            geometries: get(&analysis, "GEOMETRIES")?,
            revolt: get(&decisions, "Revolt")?,
            war: get(&decisions, "War")?,
            war_order: get(&decisions, "WarOrder")?,
            treasure_choice: get(&decisions, "TreasureChoice")?,
            monument_choice: decisions.getattr("MonumentChoice")?.call0()?.unbind(),
            building_choice: decisions.getattr("BuildingChoice")?.call0()?.unbind(),
            wonder_point: decisions.getattr("WonderPoint")?.call0()?.unbind(),
            tiles,
            downs,
            leaders,
            catastrophe: make(&catastrophe, -1, -1, false)?,
            wonders: vec![make(&wonder, -1, -1, false)?, make(&wonder, -1, -1, true)?],
            monument_pairs: MONUMENTS
                .iter()
                .map(|&(a, b)| PyTuple::new(py, [a, b]).map(Bound::unbind))
                .collect::<PyResult<_>>()?,
        })
    })
}

fn cells_tuple<'py>(py: Python<'py>, cells: Bb) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, cells.iter().collect::<Vec<_>>())
}

/// `state.geometry()`: the reference's geometry of the state's board side.
pub fn geometry<'py>(py: Python<'py>, s: &State) -> PyResult<Bound<'py, PyAny>> {
    classes(py)?
        .geometries
        .bind(py)
        .get_item(s.options.side.name())
}

/// `state.contents()`: per cell a shared `Content` or None.
pub fn contents<'py>(py: Python<'py>, s: &State) -> PyResult<Bound<'py, PyTuple>> {
    let k = classes(py)?;
    let found = analysis::contents(s);
    let items = found.iter().map(|c| match c {
        None => py.None().into_bound(py),
        Some(Content::Tile { colour, treasure }) => k.tiles
            [*colour as usize * 2 + usize::from(*treasure)]
        .bind(py)
        .clone(),
        Some(Content::Down { colour, treasure }) => k.downs
            [*colour as usize * 2 + usize::from(*treasure)]
        .bind(py)
        .clone(),
        Some(Content::Leader { index }) => k.leaders[*index as usize].bind(py).clone(),
        Some(Content::Catastrophe) => k.catastrophe.bind(py).clone(),
        Some(Content::Wonder { treasure }) => k.wonders[usize::from(*treasure)].bind(py).clone(),
    });
    PyTuple::new(py, items)
}

fn region<'py>(py: Python<'py>, k: &Classes, r: &RegionFacts) -> PyResult<Bound<'py, PyAny>> {
    let leaders = r
        .leaders
        .iter()
        .map(|&(seat, colour, cell)| k.leader.bind(py).call1((seat, colour, cell)))
        .collect::<PyResult<Vec<_>>>()?;
    let monuments = r
        .monuments
        .iter()
        .map(|&(m, cell)| {
            k.monument
                .bind(py)
                .call1((k.monument_pairs[m as usize].bind(py), cell))
        })
        .collect::<PyResult<Vec<_>>>()?;
    k.region.bind(py).call1((
        cells_tuple(py, r.cells)?,
        PyTuple::new(py, leaders)?,
        PyTuple::new(py, r.supporters)?,
        cells_tuple(py, r.treasures)?,
        PyTuple::new(py, monuments)?,
    ))
}

/// `state.regions()` and `state.region_map()`, made together.
pub fn regions<'py>(
    py: Python<'py>,
    s: &State,
) -> PyResult<(Bound<'py, PyTuple>, Bound<'py, PyTuple>)> {
    let k = classes(py)?;
    let found = analysis::regions(s);
    let mut map = [-1i32; CELLS];
    for (number, r) in found.iter().enumerate() {
        for c in r.cells.iter() {
            map[c] = number as i32;
        }
    }
    let regions = found
        .iter()
        .map(|r| region(py, k, r))
        .collect::<PyResult<Vec<_>>>()?;
    Ok((PyTuple::new(py, regions)?, PyTuple::new(py, map)?))
}

/// `state.dynasty(seat)` for a seat in range.
pub fn dynasty<'py>(py: Python<'py>, s: &State, seat: usize) -> PyResult<Bound<'py, PyAny>> {
    let k = classes(py)?;
    let supply: Vec<usize> = (0..4)
        .filter(|c| s.leader_cell[4 * seat + c] == NONE)
        .collect();
    k.dynasty.bind(py).call1((
        DYNASTIES[s.players[seat] as usize],
        PyTuple::new(py, s.hands[seat].map(u32::from))?,
        PyTuple::new(py, s.points[seat])?,
        s.treasures[seat],
        s.catastrophes[seat],
        PyTuple::new(py, supply)?,
    ))
}

/// `state.decision()`: the pending decision as the reference's dataclass, or None.
pub fn decision<'py>(py: Python<'py>, s: &State) -> PyResult<Bound<'py, PyAny>> {
    let k = classes(py)?;
    let Some(p) = &s.pending else {
        return Ok(py.None().into_bound(py));
    };
    let kwargs = PyDict::new(py);
    let colours = |l: Option<crate::tigris::state::List>| -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, l.unwrap_or_default().as_slice().iter().copied())
    };
    let class = match p.kind {
        PendingKind::Revolt | PendingKind::War => {
            kwargs.set_item(intern!(py, "color"), p.color.unwrap_or(0))?;
            kwargs.set_item(intern!(py, "attacker"), p.attacker.unwrap_or(0))?;
            kwargs.set_item(intern!(py, "defender"), p.defender.unwrap_or(0))?;
            kwargs.set_item(
                intern!(py, "attacker_commit"),
                p.attacker_commit.flatten().into_py_any(py)?,
            )?;
            if p.kind == PendingKind::War {
                kwargs.set_item(intern!(py, "queue"), colours(p.queue)?)?;
                &k.war
            } else {
                &k.revolt
            }
        }
        PendingKind::WarOrder => {
            kwargs.set_item(intern!(py, "colors"), colours(p.colors)?)?;
            &k.war_order
        }
        PendingKind::Treasure => {
            kwargs.set_item(intern!(py, "seat"), p.seat.unwrap_or(0))?;
            kwargs.set_item(intern!(py, "cells"), colours(p.cells)?)?;
            &k.treasure_choice
        }
        PendingKind::Monument => return Ok(k.monument_choice.bind(py).clone()),
        PendingKind::Building => return Ok(k.building_choice.bind(py).clone()),
        PendingKind::WonderPoint => return Ok(k.wonder_point.bind(py).clone()),
    };
    class.bind(py).call((), Some(&kwargs))
}

/// `state.conflict_strengths()`: (attacker, defender) in a revolt or war, else None.
pub fn conflict_strengths<'py>(py: Python<'py>, s: &State) -> PyResult<Bound<'py, PyAny>> {
    match &s.pending {
        Some(p) if matches!(p.kind, PendingKind::Revolt | PendingKind::War) => {
            let attack = s.base_strength(p, p.attacker.unwrap_or(0) as usize);
            let defence = s.base_strength(p, p.defender.unwrap_or(0) as usize);
            Ok(PyTuple::new(py, [attack, defence])?.into_any())
        }
        _ => Ok(py.None().into_bound(py)),
    }
}
