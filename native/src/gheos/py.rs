//! Python bindings of the Gheos engine: `GheosTiles` (a tile set handed over by
//! `cradle.gheos.native`) and `GheosState`, the contract of docs/contract.md with the
//! reference's positions, views, events and refusals (raised as `cradle.gheos.IllegalAction`).

use std::sync::Arc;

use pyo3::exceptions::{PyIndexError, PyKeyError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyList, PyString, PyTuple, PyType};

use super::board::{node, NONE};
use super::events::{Event, Log, Standing, COLOURS};
use super::game::{Game, Phase, EPOCH, EPOCH_TILES};
use super::geometry::{self, cell_name};
use super::notation::{self, ascii_words, Host, Int, Plain, Refusal};
use super::parts::{ConflictParts, Parts};
use super::pyanalysis;
use super::tiles::{Region, Tile, TileSet, NO_TEMPLE, SYMBOLS};
use crate::text::py_repr;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<GheosTiles>()?;
    m.add_class::<GheosState>()?;
    m.add("GHEOS_ACTION_COUNT", notation::ACTION_COUNT)?;
    Ok(())
}

// -- Python objects the engine borrows from the reference -------------------------------------

static ILLEGAL_ACTION: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static OPTIONS_TO_DICT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static HIDDEN_NAMES: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static RESTORE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn illegal_action(py: Python<'_>, text: &str) -> PyErr {
    match ILLEGAL_ACTION.import(py, "cradle.gheos.state", "IllegalAction") {
        Ok(class) => PyErr::from_type(class.clone(), text.to_string()),
        Err(err) => err,
    }
}

fn refusal(py: Python<'_>, refusal: Refusal) -> PyErr {
    match refusal {
        Refusal::Illegal(text) => illegal_action(py, &text),
        Refusal::Value(text) => PyValueError::new_err(text),
    }
}

fn cached<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    module: &str,
    name: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let found = cell.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import(module)?.getattr(name)?.unbind())
    })?;
    Ok(found.bind(py).clone())
}

/// Python's text rules, asked of Python itself for text beyond ASCII.
struct PyHost<'py>(Python<'py>);

impl Host for PyHost<'_> {
    fn repr(&self, text: &str) -> String {
        if text.is_ascii() {
            return py_repr(text);
        }
        PyString::new(self.0, text)
            .repr()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| py_repr(text))
    }

    fn isdigit(&self, text: &str) -> bool {
        if text.is_ascii() {
            return Plain.isdigit(text);
        }
        PyString::new(self.0, text)
            .call_method0(intern!(self.0, "isdigit"))
            .and_then(|r| r.extract::<bool>())
            .unwrap_or(false)
    }

    fn int(&self, text: &str) -> Result<Int, String> {
        if text.is_ascii() && text.len() <= 30 {
            return Plain.int(text);
        }
        let py = self.0;
        let builtins = py.import("builtins").map_err(|e| e.to_string())?;
        match builtins.getattr("int").and_then(|int| int.call1((text,))) {
            Ok(value) => Ok(Int {
                value: value.extract::<i64>().ok(),
                text: value.str().map(|s| s.to_string()).unwrap_or_default(),
            }),
            Err(err) => Err(err
                .value(py)
                .str()
                .map(|s| s.to_string())
                .unwrap_or_default()),
        }
    }
}

// -- the tile set -------------------------------------------------------------------------------

/// A tile set as the native engine holds it, made from a checked `cradle.gheos.tiles.TileSet`
/// (see `cradle.gheos.native.native_tiles`).
#[pyclass(module = "cradle._native", frozen)]
pub struct GheosTiles {
    set: Arc<TileSet>,
}

type RegionRow = (Vec<u8>, u8, u8, u8, u8, i64);
type TileRow = (Vec<RegionRow>, Vec<Vec<u8>>, Vec<u8>, String, String);

#[pymethods]
impl GheosTiles {
    /// `tiles`: per tile, its regions (edges, wheat, cup, sword, pyramid, temple kind or -1),
    /// its region per cell edge at each rotation, its distinct rotations, text and shape.
    #[new]
    fn new(tiles: Vec<TileRow>) -> PyResult<Self> {
        if tiles.len() != super::tiles::TILE_COUNT {
            return Err(PyValueError::new_err("a Gheos tile set has 52 tiles"));
        }
        let mut out = Vec::with_capacity(tiles.len());
        for (regions, edge_region, rotations, text, shape) in tiles {
            let bad = || PyValueError::new_err("a malformed tile");
            if regions.is_empty() || regions.len() > 3 || edge_region.len() != 3 {
                return Err(bad());
            }
            let mut table = [[0u8; 3]; 3];
            for (r, row) in edge_region.iter().enumerate() {
                if row.len() != 3 || row.iter().any(|&k| usize::from(k) >= regions.len()) {
                    return Err(bad());
                }
                table[r].copy_from_slice(row);
            }
            if rotations.is_empty() || rotations.iter().any(|&r| r > 2) {
                return Err(bad());
            }
            let regions = regions
                .into_iter()
                .map(|(edges, wheat, cup, sword, pyramid, temple)| Region {
                    edges,
                    wheat,
                    cup,
                    sword,
                    pyramid,
                    temple: u8::try_from(temple).unwrap_or(NO_TEMPLE),
                })
                .collect();
            out.push(Tile::new(regions, table, rotations, text, shape));
        }
        Ok(GheosTiles {
            set: Arc::new(TileSet { tiles: out }),
        })
    }
}

// -- the state ---------------------------------------------------------------------------------

/// A Gheos game on the native engine: the contract of docs/contract.md (see docs/gheos.md and
/// docs/engines.md), and fast paths for search and research.
#[pyclass(module = "cradle._native")]
pub struct GheosState {
    pub(super) game: Game,
    /// The legal ids, once asked for, until the state changes.
    legal: Option<Vec<u32>>,
    tiles: Py<GheosTiles>,
    /// The reference's TileSet and Options objects (pickling, positions, views).
    tileset: Py<PyAny>,
    options: Py<PyAny>,
    players: Py<PyTuple>,
    /// `areas()` as made for Python, until the state changes.
    areas: Option<Py<PyTuple>>,
}

fn t(number: u8) -> String {
    format!("t{number}")
}

fn colour_name(c: u8) -> &'static str {
    COLOURS[usize::from(c)]
}

fn hidden_number(number: u8) -> i64 {
    if number == EPOCH {
        -1
    } else {
        i64::from(number)
    }
}

fn from_hidden(number: i64) -> u8 {
    if number < 0 {
        EPOCH
    } else {
        number as u8
    }
}

impl GheosState {
    fn make(
        py: Python<'_>,
        game: Game,
        tiles: Py<GheosTiles>,
        tileset: Py<PyAny>,
        options: Py<PyAny>,
    ) -> PyResult<Self> {
        let players = PyTuple::new(py, game.names.iter())?.unbind();
        Ok(GheosState {
            game,
            legal: None,
            tiles,
            tileset,
            options,
            players,
            areas: None,
        })
    }

    pub(crate) fn with_game(&self, py: Python<'_>, game: Game) -> GheosState {
        GheosState {
            game,
            legal: None,
            tiles: self.tiles.clone_ref(py),
            tileset: self.tileset.clone_ref(py),
            options: self.options.clone_ref(py),
            players: self.players.clone_ref(py),
            areas: None,
        }
    }

    /// The reference's `sample_hidden` with its shuffles done by `shuffle`.
    fn sample_with(
        &self,
        py: Python<'_>,
        seat: Option<i64>,
        shuffle: &mut dyn FnMut(&mut Vec<i64>) -> PyResult<()>,
    ) -> PyResult<GheosState> {
        // A seat that is no player's (negative, too large) sees no hand.
        let observer = seat.and_then(|s| usize::try_from(s).ok());
        let other = self.game.redeal_hidden(observer, shuffle)?;
        Ok(self.with_game(py, other))
    }

    /// The state changed: forget what was worked out for the old one.
    fn changed(&mut self) {
        self.legal = None;
        self.areas = None;
    }

    fn legal_now(&mut self) -> &Vec<u32> {
        if self.legal.is_none() {
            let mut ids = Vec::with_capacity(128);
            self.game.legal_ids(&mut ids);
            self.legal = Some(ids);
        }
        self.legal.as_ref().expect("just made")
    }

    fn name(&self, seat: usize) -> &str {
        &self.game.names[seat]
    }

    fn events<'py>(&self, py: Python<'py>, events: &[Event]) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for event in events {
            out.append(self.event(py, event)?)?;
        }
        Ok(out)
    }

    fn event<'py>(&self, py: Python<'py>, event: &Event) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item(intern!(py, "type"), event.kind())?;
        d.set_item(intern!(py, "text"), event.text(&self.game.names))?;
        match event {
            Event::Place {
                cell,
                tile,
                rotation,
                ..
            } => {
                d.set_item(intern!(py, "cell"), cell_name(*cell))?;
                d.set_item(intern!(py, "tile"), t(*tile))?;
                d.set_item(intern!(py, "rotation"), rotation)?;
            }
            Event::Replace {
                cell,
                tile,
                rotation,
                removed,
                ..
            } => {
                d.set_item(intern!(py, "cell"), cell_name(*cell))?;
                d.set_item(intern!(py, "tile"), t(*tile))?;
                d.set_item(intern!(py, "rotation"), rotation)?;
                d.set_item(intern!(py, "removed"), t(*removed))?;
            }
            Event::Pay { colour, .. } => d.set_item(intern!(py, "colour"), colour_name(*colour))?,
            Event::Migration { colour, to } => {
                d.set_item(intern!(py, "civ"), colour_name(*colour))?;
                d.set_item(intern!(py, "to"), to.name())?;
            }
            Event::CivRemoved { colour, .. } | Event::Take { colour, .. } => {
                d.set_item(intern!(py, "civ"), colour_name(*colour))?
            }
            Event::War { fighters, winner } => {
                let civs: Vec<&str> = fighters.iter().map(|&c| colour_name(c)).collect();
                d.set_item(intern!(py, "civs"), civs)?;
                d.set_item(intern!(py, "winner"), colour_name(*winner))?;
            }
            Event::Temple { seat, points, .. } | Event::Token { seat, points, .. } => {
                d.set_item(intern!(py, "player"), self.name(usize::from(*seat)))?;
                d.set_item(intern!(py, "points"), points)?;
            }
            Event::Start {
                colour,
                at,
                followers,
                ..
            } => {
                d.set_item(intern!(py, "civ"), colour_name(*colour))?;
                d.set_item(intern!(py, "at"), at.name())?;
                d.set_item(intern!(py, "followers"), followers)?;
            }
            Event::Epoch { epoch, .. } => d.set_item(intern!(py, "epoch"), epoch)?,
            Event::EpochScoring { gains } | Event::FinalScoring { gains } => {
                let points = PyDict::new(py);
                for (seat, gain) in gains.iter().enumerate() {
                    points.set_item(self.name(seat), gain)?;
                }
                d.set_item(intern!(py, "points"), points)?;
            }
            Event::Result { ranking } => {
                d.set_item(intern!(py, "ranking"), self.standings(py, ranking)?)?;
            }
            Event::Conflict { .. }
            | Event::Skip { .. }
            | Event::EndTokens
            | Event::EndEpoch { .. }
            | Event::Draw { .. } => {}
        }
        Ok(d)
    }

    fn standings<'py>(&self, py: Python<'py>, rows: &[Standing]) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for row in rows {
            let d = PyDict::new(py);
            d.set_item(intern!(py, "seat"), row.seat)?;
            d.set_item(intern!(py, "player"), self.name(usize::from(row.seat)))?;
            d.set_item(intern!(py, "points"), row.points)?;
            d.set_item(intern!(py, "followers"), row.followers)?;
            d.set_item(intern!(py, "score"), row.points)?;
            d.set_item(intern!(py, "place"), row.place)?;
            out.append(d)?;
        }
        Ok(out)
    }

    fn area_ref(&self, root: usize) -> String {
        self.game.region_ref(root).name()
    }

    /// Followers held, points and tokens per player (positions, views and summaries).
    fn scores(&self, py: Python<'_>, d: &Bound<'_, PyDict>) -> PyResult<()> {
        let game = &self.game;
        let (followers, points, tokens) = (PyDict::new(py), PyDict::new(py), PyDict::new(py));
        for seat in 0..usize::from(game.players) {
            let held = PyDict::new(py);
            for c in 0..6u8 {
                let n = game.held[seat][usize::from(c)];
                if n > 0 {
                    held.set_item(colour_name(c), n)?;
                }
            }
            followers.set_item(self.name(seat), held)?;
            points.set_item(self.name(seat), game.points[seat])?;
            tokens.set_item(self.name(seat), game.tokens[seat])?;
        }
        d.set_item(intern!(py, "followers"), followers)?;
        d.set_item(intern!(py, "points"), points)?;
        d.set_item(intern!(py, "tokens"), tokens)?;
        Ok(())
    }

    fn options_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        cached(
            py,
            &OPTIONS_TO_DICT,
            "cradle.gheos.position",
            "options_to_dict",
        )?
        .call1((self.options.bind(py),))
    }

    /// The war / migration being resolved, as public JSON (positions and views).
    fn pending<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let game = &self.game;
        let Some(conflict) = game.conflict.as_ref().filter(|_| game.phase.in_conflict()) else {
            return Ok(py.None().into_bound(py));
        };
        let d = PyDict::new(py);
        d.set_item(intern!(py, "kind"), game.phase.name())?;
        d.set_item(
            intern!(py, "cell"),
            cell_name(game.board.cell[usize::from(conflict.slot)]),
        )?;
        let swords = PyDict::new(py);
        for c in 0..6u8 {
            if conflict.sword_mask & (1 << c) != 0 {
                swords.set_item(colour_name(c), conflict.swords[usize::from(c)])?;
            }
        }
        d.set_item(intern!(py, "swords"), swords)?;
        let moved: Vec<&str> = conflict.moved.iter().map(|&c| colour_name(c)).collect();
        d.set_item(intern!(py, "moved"), moved)?;
        let migrations = PyList::empty(py);
        for m in &conflict.migrations {
            let entry = PyDict::new(py);
            entry.set_item(intern!(py, "civ"), colour_name(m.colour))?;
            let options: Vec<String> = m
                .options
                .iter()
                .map(|&r| self.area_ref(usize::from(r)))
                .collect();
            entry.set_item(intern!(py, "options"), options)?;
            entry.set_item(intern!(py, "split"), m.split)?;
            migrations.append(entry)?;
        }
        d.set_item(intern!(py, "migrations"), migrations)?;
        match &conflict.wars {
            None => d.set_item(intern!(py, "wars"), py.None())?,
            Some(wars) => {
                let out = PyList::empty(py);
                for war in wars {
                    let entry = PyDict::new(py);
                    let civs: Vec<&str> = war.fighters.iter().map(|&c| colour_name(c)).collect();
                    let options: Vec<&str> = war.leaders.iter().map(|&c| colour_name(c)).collect();
                    entry.set_item(intern!(py, "civs"), civs)?;
                    entry.set_item(intern!(py, "options"), options)?;
                    out.append(entry)?;
                }
                d.set_item(intern!(py, "wars"), out)?;
            }
        }
        Ok(d.into_any())
    }

    /// One area as views show it.
    fn area_dict<'py>(
        &self,
        py: Python<'py>,
        root: usize,
        index: u8,
        tiles: usize,
    ) -> PyResult<Bound<'py, PyDict>> {
        let area = self.game.stats(root);
        let d = PyDict::new(py);
        d.set_item(intern!(py, "area"), index)?;
        d.set_item(intern!(py, "ref"), self.area_ref(root))?;
        let kind = if area.continent() {
            "continent"
        } else if area.island() {
            "island"
        } else {
            "land"
        };
        d.set_item(intern!(py, "kind"), kind)?;
        d.set_item(intern!(py, "tiles"), tiles)?;
        d.set_item(intern!(py, "wheat"), area.wheat)?;
        d.set_item(intern!(py, "cup"), area.cup)?;
        d.set_item(intern!(py, "sword"), area.sword)?;
        d.set_item(intern!(py, "pyramid"), area.pyramid)?;
        d.set_item(
            intern!(py, "civ"),
            self.game.occupant(root).map(colour_name),
        )?;
        Ok(d)
    }

    /// Root -> how many tiles its area spans.
    fn tile_counts(&self) -> Vec<usize> {
        let game = &self.game;
        let mut counts = vec![0usize; super::board::MAX_NODES];
        for slot in 0..game.board.slots() {
            let mut seen = [NONE; 3];
            for k in 0..game.regions_at(slot) {
                let root = game.areas.of(node(slot, k));
                if !seen.contains(&(root as u8)) {
                    seen[usize::from(k)] = root as u8;
                    counts[root] += 1;
                }
            }
        }
        counts
    }

    fn tile_dict<'py>(&self, py: Python<'py>, number: u8) -> PyResult<Bound<'py, PyDict>> {
        let tile = &self.game.tiles.tiles[usize::from(number)];
        let d = PyDict::new(py);
        d.set_item(intern!(py, "tile"), t(number))?;
        d.set_item(intern!(py, "shape"), &tile.shape)?;
        d.set_item(intern!(py, "rotations"), ints(&tile.rotations))?;
        d.set_item(intern!(py, "text"), &tile.text)?;
        let regions = PyList::empty(py);
        for region in &tile.regions {
            let r = PyDict::new(py);
            r.set_item(intern!(py, "edges"), ints(&region.edges))?;
            r.set_item(intern!(py, "landmass"), region.landmass())?;
            r.set_item(intern!(py, "wheat"), region.wheat)?;
            r.set_item(intern!(py, "cup"), region.cup)?;
            r.set_item(intern!(py, "sword"), region.sword)?;
            r.set_item(intern!(py, "pyramid"), region.pyramid)?;
            r.set_item(intern!(py, "temple"), temple_name(region.temple))?;
            regions.append(r)?;
        }
        d.set_item(intern!(py, "regions"), regions)?;
        Ok(d)
    }

    fn seat_index(&self, seat: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
        if seat.is_none() {
            return Ok(None);
        }
        let players = usize::from(self.game.players);
        if !seat.is_instance_of::<PyBool>() && seat.is_instance_of::<PyInt>() {
            if let Ok(n) = seat.extract::<i64>() {
                if (0..players as i64).contains(&n) {
                    return Ok(Some(n as usize));
                }
            }
        }
        Err(PyValueError::new_err(format!(
            "no seat {} in a {players}-player game",
            seat.repr()?
        )))
    }

    /// The action's words as `action.strip().lower().split()` makes them.
    fn words(action: &Bound<'_, PyString>) -> PyResult<Vec<String>> {
        let text = action.to_cow()?;
        if text.is_ascii() {
            return Ok(ascii_words(&text));
        }
        let py = action.py();
        action
            .call_method0(intern!(py, "strip"))?
            .call_method0(intern!(py, "lower"))?
            .call_method0(intern!(py, "split"))?
            .extract()
    }
}

/// Small numbers as a list of ints (PyO3 would make bytes of a `&[u8]`).
fn ints(items: &[u8]) -> Vec<u32> {
    items.iter().map(|&n| u32::from(n)).collect()
}

fn temple_name(kind: u8) -> Option<&'static str> {
    (kind != NO_TEMPLE).then(|| SYMBOLS[usize::from(kind)])
}

type ConflictTuple = (
    u16,
    Vec<(u8, u16)>,
    Vec<u8>,
    Vec<(u8, Vec<u16>, bool)>,
    Option<Vec<(Vec<u8>, Vec<u8>)>>,
);

#[pymethods]
impl GheosState {
    /// A new game dealt as the reference deals it with `random.Random(seed)` for an int
    /// seed; `key` is `abs(seed)` in 32-bit words, least significant first.
    #[staticmethod]
    fn deal(
        py: Python<'_>,
        tiles: Py<GheosTiles>,
        tileset: Py<PyAny>,
        options: Py<PyAny>,
        names: Vec<String>,
        key: Vec<u32>,
    ) -> PyResult<Self> {
        check_names(&names)?;
        let game = Game::deal(tiles.get().set.clone(), names, &key);
        GheosState::make(py, game, tiles, tileset, options)
    }

    /// A state from the parts of a state the reference made (`cradle.gheos.native`): board
    /// (cell, tile, rotation), hands as lists, the stack (next drawn last, -1 for an epoch
    /// tile), removed tiles, civilizations (colour, region as `cell * 3 + k`) in dict order,
    /// followers, supply, points, tokens, epochs drawn, and the pending conflict.
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    fn from_parts(
        py: Python<'_>,
        tiles: Py<GheosTiles>,
        tileset: Py<PyAny>,
        options: Py<PyAny>,
        names: Vec<String>,
        active: u8,
        phase: &str,
        board: Vec<(u16, u8, u8)>,
        hands: Vec<Vec<u8>>,
        stack: Vec<i64>,
        removed: Vec<u8>,
        civs: Vec<(u8, u16)>,
        held: Vec<[u8; 6]>,
        supply: [u8; 6],
        points: Vec<i64>,
        tokens: Vec<u8>,
        epochs: u8,
        conflict: Option<ConflictTuple>,
    ) -> PyResult<Self> {
        check_names(&names)?;
        let phase = Phase::from_name(phase)
            .ok_or_else(|| PyValueError::new_err(format!("no phase {phase:?}")))?;
        let parts = Parts {
            active,
            phase,
            board,
            hands,
            stack: stack.into_iter().map(from_hidden).collect(),
            removed,
            civs,
            held,
            supply,
            points,
            tokens,
            epochs,
            conflict: conflict.map(|(cell, swords, moved, migrations, wars)| ConflictParts {
                cell,
                swords,
                moved,
                migrations,
                wars,
            }),
        };
        let game = Game::from_parts(tiles.get().set.clone(), names, &parts)
            .map_err(PyValueError::new_err)?;
        GheosState::make(py, game, tiles, tileset, options)
    }

    /// A state pickled by `__reduce__`.
    #[staticmethod]
    fn from_bytes(
        py: Python<'_>,
        tiles: Py<GheosTiles>,
        tileset: Py<PyAny>,
        options: Py<PyAny>,
        names: Vec<String>,
        data: &[u8],
    ) -> PyResult<Self> {
        check_names(&names)?;
        let parts = Parts::decode(data).map_err(PyValueError::new_err)?;
        let game = Game::from_parts(tiles.get().set.clone(), names, &parts)
            .map_err(PyValueError::new_err)?;
        GheosState::make(py, game, tiles, tileset, options)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let restore = cached(py, &RESTORE, "cradle.gheos.native", "restore")?;
        let data = PyBytes::new(py, &self.game.to_parts().encode());
        let names: Vec<&str> = self.game.names.iter().map(String::as_str).collect();
        let args = PyTuple::new(
            py,
            [
                self.tileset.bind(py).clone(),
                self.options.bind(py).clone(),
                PyList::new(py, names)?.into_any(),
                data.into_any(),
            ],
        )?;
        PyTuple::new(py, [restore, args.into_any()])
    }

    fn __repr__(&self) -> String {
        let game = &self.game;
        format!(
            "<native GheosState: {} players, {} to move, phase {}, {} tiles on the map, epoch {}/{}>",
            game.players,
            self.name(usize::from(game.active)),
            game.phase.name(),
            game.board.slots(),
            game.epochs,
            game.end_epoch()
        )
    }

    // -- the contract ---------------------------------------------------------------------------

    #[getter]
    fn players(&self, py: Python<'_>) -> Py<PyTuple> {
        self.players.clone_ref(py)
    }

    #[getter]
    fn to_move(&self) -> u8 {
        self.game.active
    }

    #[getter]
    fn active(&self) -> u8 {
        self.game.active
    }

    #[getter]
    fn is_over(&self) -> bool {
        self.game.is_over()
    }

    /// The step awaited: tile, pay, migrate, war, civ, token or over.
    #[getter]
    fn phase(&self) -> &'static str {
        self.game.phase.name()
    }

    #[getter]
    fn options(&self, py: Python<'_>) -> Py<PyAny> {
        self.options.clone_ref(py)
    }

    /// The reference's `TileSet` this game is played with.
    #[getter]
    fn tileset(&self, py: Python<'_>) -> Py<PyAny> {
        self.tileset.clone_ref(py)
    }

    #[getter]
    fn end_epoch(&self) -> u8 {
        self.game.end_epoch()
    }

    fn clone(&self, py: Python<'_>) -> GheosState {
        let mut copy = self.with_game(py, self.game.clone());
        copy.areas = self.areas.as_ref().map(|a| a.clone_ref(py));
        copy
    }

    fn __copy__(&self, py: Python<'_>) -> GheosState {
        self.clone(py)
    }

    fn __deepcopy__(&self, py: Python<'_>, _memo: &Bound<'_, PyAny>) -> GheosState {
        self.clone(py)
    }

    fn legal_actions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let legal = self.legal_now().clone();
        let mut text = String::with_capacity(32);
        let out = PyList::empty(py);
        for id in legal {
            text.clear();
            self.game.write_action(id, &mut text);
            out.append(PyString::new(py, &text))?;
        }
        Ok(out)
    }

    /// The legal actions as fixed ids, in the order of `legal_actions()`.
    fn legal_action_ids<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        // straight from the kept ids, without copying them first
        PyList::new(py, self.legal_now())
    }

    /// How many legal actions there are (ids-first loops draw an index below it).
    fn legal_action_count(&mut self) -> usize {
        self.legal_now().len()
    }

    /// The `index`-th legal id (IndexError outside the list).
    fn legal_action_at(&mut self, index: isize) -> PyResult<u32> {
        let legal = self.legal_now();
        let at = if index < 0 {
            index + legal.len() as isize
        } else {
            index
        };
        usize::try_from(at)
            .ok()
            .and_then(|i| legal.get(i).copied())
            .ok_or_else(|| PyIndexError::new_err("legal action index out of range"))
    }

    // -- analysis (docs/contract.md) --------------------------------------------------------

    /// The game's registry name.
    #[getter]
    fn game(&self) -> &'static str {
        "gheos"
    }

    /// Epoch tiles drawn so far.
    #[getter]
    fn epochs(&self) -> u8 {
        self.game.epochs
    }

    fn stack_size(&self) -> usize {
        self.game.stack.len()
    }

    /// The placed tiles, by cell.
    fn tiles_on_map<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        pyanalysis::tiles_on_map(py, &self.game)
    }

    /// Every area, ordered by its first region.
    fn areas<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        if let Some(found) = &self.areas {
            return Ok(found.bind(py).clone());
        }
        let found = pyanalysis::areas(py, &self.game)?;
        self.areas = Some(found.clone().unbind());
        Ok(found)
    }

    /// `areas()[index]` (Python's tuple indexing, errors included).
    fn area<'py>(
        &mut self,
        py: Python<'py>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.areas(py)?.as_any().get_item(index)
    }

    /// The civilizations on the map, by colour.
    fn civilizations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        pyanalysis::civilizations(py, &self.game)
    }

    /// What one seat holds (Python's list indexing: -1 is the last seat).
    fn player<'py>(&self, py: Python<'py>, seat: i64) -> PyResult<Bound<'py, PyAny>> {
        let players = i64::from(self.game.players);
        let index = if seat < 0 { seat + players } else { seat };
        if !(0..players).contains(&index) {
            return Err(PyIndexError::new_err("list index out of range"));
        }
        pyanalysis::player(py, &self.game, index as usize)
    }

    /// The notation of the fixed id `action_id` now.
    fn action_string(&self, py: Python<'_>, action_id: &Bound<'_, PyAny>) -> PyResult<String> {
        let id = action_id_of(py, action_id)?;
        self.game.action_string(id).map_err(|r| refusal(py, r))
    }

    /// The legal tile actions that start a war or a migration, in the legal order (the
    /// reference's `conflict_actions`).
    fn conflict_actions(&self) -> Vec<String> {
        let mut ids = Vec::new();
        self.game.conflict_ids(&mut ids);
        ids.into_iter()
            .map(|id| {
                let mut text = String::with_capacity(32);
                self.game.write_action(id, &mut text);
                text
            })
            .collect()
    }

    fn hand(&self, seat: i64) -> PyResult<Vec<String>> {
        let players = i64::from(self.game.players);
        let index = if seat < 0 { seat + players } else { seat };
        if !(0..players).contains(&index) {
            return Err(PyIndexError::new_err("list index out of range"));
        }
        let hand = self.game.sorted_hand(index as usize);
        Ok(hand.as_slice().iter().map(|&n| t(n)).collect())
    }

    /// Applies an action (a string in the notation, or an action id); returns its events.
    /// IllegalAction, and nothing changes, when it is not allowed now.
    fn apply<'py>(
        &mut self,
        py: Python<'py>,
        action: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut log = Log::new(true);
        self.apply_any(py, action, &mut log)?;
        self.events(py, &log.events)
    }

    /// Applies a legal id without making events (fast path); IllegalAction otherwise.
    fn apply_id(&mut self, py: Python<'_>, action_id: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut log = Log::new(false);
        if !action_id.is_instance_of::<PyInt>() || action_id.is_instance_of::<PyBool>() {
            return Err(illegal_action(
                py,
                &format!(
                    "an action id is an integer, not {}",
                    action_id.get_type().name()?
                ),
            ));
        }
        self.apply_any(py, action_id, &mut log)
    }

    /// `apply` (text or id, the same refusals) without building the events.
    fn apply_quiet(&mut self, py: Python<'_>, action: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut log = Log::new(false);
        self.apply_any(py, action, &mut log)
    }

    /// The legal id at `r` modulo the number of legal actions: with `r` 64 random bits, a
    /// uniform random legal action. IndexError when none is legal.
    fn random_action_id(&mut self, r: u64) -> PyResult<u32> {
        let legal = self.legal_now();
        if legal.is_empty() {
            return Err(PyIndexError::new_err("no legal action: the game is over"));
        }
        Ok(legal[(r % legal.len() as u64) as usize])
    }

    /// Plays uniformly random legal actions (a fast native generator seeded by `seed`) to the
    /// end, in place; returns how many.
    fn random_playout(&mut self, py: Python<'_>, seed: u64) -> u64 {
        self.changed();
        let game = &mut self.game;
        py.detach(|| game.random_playout(seed))
    }

    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.standings(py, &self.game.result())
    }

    fn to_position<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let game = &self.game;
        let d = PyDict::new(py);
        d.set_item(intern!(py, "options"), self.options_dict(py)?)?;
        d.set_item(intern!(py, "players"), PyList::new(py, game.names.iter())?)?;
        d.set_item(intern!(py, "active"), game.active)?;
        d.set_item(intern!(py, "phase"), game.phase.name())?;
        let board = PyDict::new(py);
        for &slot in game.board.ordered() {
            let slot = usize::from(slot);
            board.set_item(
                cell_name(game.board.cell[slot]),
                format!("t{} r{}", game.board.tile[slot], game.board.rot[slot]),
            )?;
        }
        d.set_item(intern!(py, "board"), board)?;
        let hands = PyDict::new(py);
        for seat in 0..usize::from(game.players) {
            hands.set_item(self.name(seat), self.hand(seat as i64)?)?;
        }
        d.set_item(intern!(py, "hands"), hands)?;
        let stack: Vec<String> = game
            .stack
            .as_slice()
            .iter()
            .rev()
            .map(|&n| {
                if n == EPOCH {
                    "epoch".to_string()
                } else {
                    t(n)
                }
            })
            .collect();
        d.set_item(intern!(py, "stack"), stack)?;
        let removed: Vec<String> = game.removed.as_slice().iter().map(|&n| t(n)).collect();
        d.set_item(intern!(py, "removed"), removed)?;
        let civs = PyDict::new(py);
        for c in 0..6u8 {
            if game.on_table(c) {
                let anchor = usize::from(game.civs[usize::from(c)]);
                civs.set_item(colour_name(c), game.region_ref(anchor).name())?;
            }
        }
        d.set_item(intern!(py, "civilizations"), civs)?;
        self.scores(py, &d)?;
        d.set_item(intern!(py, "epochs"), game.epochs)?;
        d.set_item(intern!(py, "pending"), self.pending(py)?)?;
        Ok(d)
    }

    /// All `seat` may know (None: a spectator, public information only).
    fn view<'py>(&self, py: Python<'py>, seat: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let seat = self.seat_index(seat)?;
        let game = &self.game;
        let index = game.area_index();
        let counts = self.tile_counts();
        let d = PyDict::new(py);
        d.set_item(intern!(py, "game"), "gheos")?;
        d.set_item(intern!(py, "seat"), seat)?;
        d.set_item(intern!(py, "options"), self.options_dict(py)?)?;
        d.set_item(intern!(py, "players"), PyList::new(py, game.names.iter())?)?;
        d.set_item(intern!(py, "active"), game.active)?;
        d.set_item(intern!(py, "to_move"), game.active)?;
        d.set_item(intern!(py, "phase"), game.phase.name())?;
        let map = PyList::empty(py);
        for &slot in game.board.ordered() {
            let slot = usize::from(slot);
            let cell = game.board.cell[slot];
            let rot = usize::from(game.board.rot[slot]);
            let tile = game.tile_at(slot);
            let regions = PyList::empty(py);
            for (k, region) in tile.regions.iter().enumerate() {
                let edges: Vec<&str> = (0..3)
                    .filter(|&e| usize::from(tile.edge_region[rot][e]) == k)
                    .map(|e| geometry::edge_name(cell, e))
                    .collect();
                let root = game.areas.of(node(slot, k as u8));
                let r = PyDict::new(py);
                r.set_item(
                    intern!(py, "ref"),
                    game.region_ref(node(slot, k as u8)).name(),
                )?;
                r.set_item(intern!(py, "edges"), edges)?;
                r.set_item(intern!(py, "landmass"), region.landmass())?;
                r.set_item(intern!(py, "wheat"), region.wheat)?;
                r.set_item(intern!(py, "cup"), region.cup)?;
                r.set_item(intern!(py, "sword"), region.sword)?;
                r.set_item(intern!(py, "pyramid"), region.pyramid)?;
                r.set_item(intern!(py, "temple"), temple_name(region.temple))?;
                r.set_item(intern!(py, "area"), index[root])?;
                r.set_item(intern!(py, "civ"), game.occupant(root).map(colour_name))?;
                regions.append(r)?;
            }
            let entry = PyDict::new(py);
            entry.set_item(intern!(py, "cell"), cell_name(cell))?;
            entry.set_item(intern!(py, "row"), geometry::row(cell))?;
            entry.set_item(intern!(py, "col"), geometry::col(cell))?;
            entry.set_item(intern!(py, "up"), geometry::is_up(cell))?;
            entry.set_item(intern!(py, "tile"), t(game.board.tile[slot]))?;
            entry.set_item(intern!(py, "rotation"), rot)?;
            entry.set_item(intern!(py, "pyramid"), tile.pyramid)?;
            entry.set_item(intern!(py, "regions"), regions)?;
            map.append(entry)?;
        }
        d.set_item(intern!(py, "map"), map)?;
        let frontier: Vec<&str> = game
            .frontier
            .as_slice()
            .iter()
            .map(|&c| cell_name(c))
            .collect();
        d.set_item(intern!(py, "frontier"), frontier)?;
        let areas = PyList::empty(py);
        for (i, root) in game.roots().enumerate() {
            areas.append(self.area_dict(py, root, i as u8, counts[root])?)?;
        }
        d.set_item(intern!(py, "areas"), areas)?;
        let civs = PyDict::new(py);
        for c in 0..6u8 {
            if game.on_table(c) {
                let root = game.civ_root(c);
                let entry = PyDict::new(py);
                entry.set_item(intern!(py, "area"), index[root])?;
                entry.set_item(intern!(py, "ref"), self.area_ref(root))?;
                entry.set_item(intern!(py, "supply"), game.supply[usize::from(c)])?;
                civs.set_item(colour_name(c), entry)?;
            }
        }
        d.set_item(intern!(py, "civilizations"), civs)?;
        let supply = PyDict::new(py);
        for c in 0..6u8 {
            supply.set_item(colour_name(c), game.supply[usize::from(c)])?;
        }
        d.set_item(intern!(py, "supply"), supply)?;
        self.scores(py, &d)?;
        match seat {
            None => d.set_item(intern!(py, "hand"), py.None())?,
            Some(seat) => {
                let hand = PyList::empty(py);
                for &n in game.sorted_hand(seat).as_slice() {
                    hand.append(self.tile_dict(py, n)?)?;
                }
                d.set_item(intern!(py, "hand"), hand)?;
            }
        }
        let sizes = PyDict::new(py);
        for s in 0..usize::from(game.players) {
            sizes.set_item(self.name(s), game.hands[s].len())?;
        }
        d.set_item(intern!(py, "hand_sizes"), sizes)?;
        d.set_item(intern!(py, "stack_size"), game.stack.len())?;
        let epochs_left = game
            .stack
            .as_slice()
            .iter()
            .filter(|&&n| n == EPOCH)
            .count();
        d.set_item(intern!(py, "stack_epochs"), epochs_left)?;
        d.set_item(intern!(py, "epochs_drawn"), game.epochs)?;
        d.set_item(intern!(py, "epoch_tiles"), EPOCH_TILES)?;
        d.set_item(intern!(py, "end_epoch"), game.end_epoch())?;
        let removed: Vec<String> = game.removed.as_slice().iter().map(|&n| t(n)).collect();
        d.set_item(intern!(py, "removed"), removed)?;
        d.set_item(intern!(py, "pending"), self.pending(py)?)?;
        d.set_item(intern!(py, "is_over"), game.is_over())?;
        if game.is_over() {
            d.set_item(intern!(py, "result"), self.result(py)?)?;
        } else {
            d.set_item(intern!(py, "result"), py.None())?;
        }
        Ok(d)
    }

    /// The view's public numbers without the map: scores, tokens, followers, epochs, and the
    /// areas that matter (with a civilization, or free continents).
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let game = &self.game;
        let roots: Vec<usize> = game.roots().collect();
        let mut index = [NONE; super::board::MAX_NODES];
        for (i, &root) in roots.iter().enumerate() {
            index[root] = i as u8;
        }
        let mut counts: Option<Vec<usize>> = None;
        let d = PyDict::new(py);
        d.set_item(intern!(py, "game"), "gheos")?;
        d.set_item(intern!(py, "players"), PyList::new(py, game.names.iter())?)?;
        d.set_item(intern!(py, "active"), game.active)?;
        d.set_item(intern!(py, "to_move"), game.active)?;
        d.set_item(intern!(py, "phase"), game.phase.name())?;
        let areas = PyList::empty(py);
        for (i, &root) in roots.iter().enumerate() {
            if game.occupant(root).is_some() || game.stats(root).continent() {
                let counts = counts.get_or_insert_with(|| self.tile_counts());
                areas.append(self.area_dict(py, root, i as u8, counts[root])?)?;
            }
        }
        d.set_item(intern!(py, "areas"), areas)?;
        let civs = PyDict::new(py);
        for c in 0..6u8 {
            if game.on_table(c) {
                let entry = PyDict::new(py);
                entry.set_item(intern!(py, "area"), index[game.civ_root(c)])?;
                entry.set_item(intern!(py, "supply"), game.supply[usize::from(c)])?;
                civs.set_item(colour_name(c), entry)?;
            }
        }
        d.set_item(intern!(py, "civilizations"), civs)?;
        self.scores(py, &d)?;
        d.set_item(intern!(py, "epochs_drawn"), game.epochs)?;
        d.set_item(intern!(py, "end_epoch"), game.end_epoch())?;
        d.set_item(intern!(py, "is_over"), game.is_over())?;
        Ok(d)
    }

    /// A copy in which what `seat` cannot see (other hands, the stack order) is redrawn,
    /// drawing from `rng` (a `random.Random`) exactly as the reference does.
    fn sample_hidden(
        &self,
        py: Python<'_>,
        seat: Option<i64>,
        rng: &Bound<'_, PyAny>,
    ) -> PyResult<GheosState> {
        self.sample_with(py, seat, &mut |items| {
            let list = PyList::new(py, items.iter())?;
            rng.call_method1(intern!(py, "shuffle"), (&list,))?;
            *items = list.extract()?;
            Ok(())
        })
    }

    /// `sample_hidden(seat, rng)` for an `rng` whose shuffles sort first (the AI's
    /// `CanonicalRandom(seed)`), without Python: CPython's generator seeded by `seed`.
    fn sample_hidden_seeded(&self, py: Python<'_>, seat: i64, seed: u64) -> PyResult<GheosState> {
        let mut rng = crate::pyrandom::PyRandom::from_u64(seed);
        self.sample_with(py, Some(seat), &mut |items| {
            items.sort_unstable();
            rng.shuffle(items);
            Ok(())
        })
    }

    /// A copy with every hand and the stack order set as given (hands as `hand(seat)` spells
    /// them, `pile` first drawn first): an exact determinization. ValueError unless only
    /// hidden tiles moved (this state is never changed).
    fn with_hidden(
        &self,
        py: Python<'_>,
        hands: &Bound<'_, PyAny>,
        pile: &Bound<'_, PyAny>,
    ) -> PyResult<GheosState> {
        let game = &self.game;
        let players = usize::from(game.players);
        let given = hands.len()?;
        if given != players {
            return Err(PyValueError::new_err(format!(
                "expected {players} hands, got {given}"
            )));
        }
        let names = cached(py, &HIDDEN_NAMES, "cradle.gheos.state", "_HIDDEN_NAMES")?;
        let read = || -> PyResult<(Vec<Vec<i64>>, Vec<i64>)> {
            let mut new_hands = Vec::new();
            for hand in hands.try_iter()? {
                let mut numbers = Vec::new();
                for tile in hand?.try_iter()? {
                    numbers.push(names.get_item(tile?)?.extract::<i64>()?);
                }
                numbers.sort_unstable();
                new_hands.push(numbers);
            }
            let reversed = py.import("builtins")?.getattr("reversed")?.call1((pile,))?;
            let mut stack = Vec::new();
            for tile in reversed.try_iter()? {
                stack.push(names.get_item(tile?)?.extract::<i64>()?);
            }
            Ok((new_hands, stack))
        };
        let (new_hands, stack) = match read() {
            Ok(found) => found,
            Err(err)
                if err.is_instance_of::<PyKeyError>(py)
                    || err.is_instance_of::<PyTypeError>(py) =>
            {
                return Err(PyValueError::new_err(format!(
                    "not a tile of the hands or the stack: {}",
                    err.value(py).str()?
                )));
            }
            Err(err) => return Err(err),
        };
        for (s, hand) in new_hands.iter().enumerate() {
            if hand.first() == Some(&-1) {
                return Err(PyValueError::new_err(format!(
                    "an epoch tile cannot be in seat {s}'s hand"
                )));
            }
            let holds = game.hands.get(s).map_or(0, |h| h.len());
            if hand.len() != holds {
                return Err(PyValueError::new_err(format!(
                    "seat {s} holds {holds} tiles, not {}",
                    hand.len()
                )));
            }
        }
        let mut now: Vec<i64> = (0..players)
            .flat_map(|s| game.hands[s].as_slice().iter().map(|&n| i64::from(n)))
            .chain(game.stack.as_slice().iter().map(|&n| hidden_number(n)))
            .collect();
        let mut wanted: Vec<i64> = new_hands
            .iter()
            .flatten()
            .copied()
            .chain(stack.iter().copied())
            .collect();
        now.sort_unstable();
        wanted.sort_unstable();
        if now != wanted {
            return Err(PyValueError::new_err(
                "the hands and the pile must hold exactly the hidden tiles",
            ));
        }
        let mut other = game.clone();
        for (s, hand) in new_hands.iter().enumerate() {
            let hand: Vec<u8> = hand.iter().map(|&n| n as u8).collect();
            other.hands[s] = super::game::Few::from_slice(&hand);
        }
        let stack: Vec<u8> = stack.into_iter().map(from_hidden).collect();
        other.stack = super::game::Few::from_slice(&stack);
        Ok(self.with_game(py, other))
    }

    /// Makes the stack's next draws `front`, in that order (first drawn first); the other
    /// tiles keep their order. ValueError, and nothing changes, when the stack does not hold
    /// those tiles.
    fn order_pile(&mut self, py: Python<'_>, front: &Bound<'_, PyAny>) -> PyResult<()> {
        let names = cached(py, &HIDDEN_NAMES, "cradle.gheos.state", "_HIDDEN_NAMES")?;
        let read = || -> PyResult<Vec<u8>> {
            let mut wanted = Vec::new();
            for name in front.try_iter()? {
                wanted.push(from_hidden(names.get_item(name?)?.extract::<i64>()?));
            }
            Ok(wanted)
        };
        let wanted = match read() {
            Ok(wanted) => wanted,
            Err(err)
                if err.is_instance_of::<PyKeyError>(py)
                    || err.is_instance_of::<PyTypeError>(py) =>
            {
                let listed = py.import("builtins")?.getattr("list")?.call1((front,))?;
                return Err(PyValueError::new_err(format!(
                    "not a tile of the stack in {}",
                    listed.repr()?
                )));
            }
            Err(err) => return Err(err),
        };
        let stack = self.game.stack.as_slice();
        let end = stack.len();
        // Tiles already in place (the stack is drawn from its end) stay where they are.
        let mut placed = 0;
        while placed < wanted.len() && placed < end && stack[end - 1 - placed] == wanted[placed] {
            placed += 1;
        }
        let mut rest: Vec<u8> = stack[..end - placed].to_vec();
        for &number in &wanted[placed..] {
            match rest.iter().position(|&n| n == number) {
                Some(at) => {
                    rest.remove(at);
                }
                None => {
                    let joined =
                        PyString::new(py, ", ").call_method1(intern!(py, "join"), (front,))?;
                    return Err(PyValueError::new_err(format!(
                        "the stack does not hold {joined}"
                    )));
                }
            }
        }
        rest.extend(wanted.iter().rev());
        self.game.stack = super::game::Few::from_slice(&rest);
        Ok(())
    }
}

impl GheosState {
    fn apply_any(
        &mut self,
        py: Python<'_>,
        action: &Bound<'_, PyAny>,
        log: &mut Log,
    ) -> PyResult<()> {
        let done = if action.is_instance_of::<PyInt>() && !action.is_instance_of::<PyBool>() {
            let id = action_id_of(py, action)?;
            let legal = match self.legal.take() {
                Some(legal) => legal,
                None => {
                    let mut ids = Vec::with_capacity(128);
                    self.game.legal_ids(&mut ids);
                    ids
                }
            };
            let done = self.game.apply_id(id, &legal, &PyHost(py), log);
            if done.is_err() {
                self.legal = Some(legal); // refused: nothing changed
            }
            done
        } else if let Ok(text) = action.cast::<PyString>() {
            let words = GheosState::words(text)?;
            self.game.apply_words(&words, &PyHost(py), log)
        } else {
            return Err(illegal_action(
                py,
                &format!(
                    "an action is a string (or an action id), not {}",
                    action.get_type().name()?
                ),
            ));
        };
        match done {
            Ok(()) => {
                self.changed();
                Ok(())
            }
            Err(why) => Err(refusal(py, why)),
        }
    }
}

/// An int action id as i64; ids beyond i64 are refused as the reference refuses them.
fn action_id_of(py: Python<'_>, action_id: &Bound<'_, PyAny>) -> PyResult<i64> {
    if action_id.is_instance_of::<PyBool>() || !action_id.is_instance_of::<PyInt>() {
        return Err(illegal_action(
            py,
            &format!(
                "an action id is an integer, not {}",
                action_id.get_type().name()?
            ),
        ));
    }
    match action_id.extract::<i64>() {
        Ok(id) => Ok(id),
        Err(_) => Err(illegal_action(
            py,
            &format!(
                "action id {} is outside 0..{}",
                action_id.str()?,
                notation::ACTION_COUNT - 1
            ),
        )),
    }
}

fn check_names(names: &[String]) -> PyResult<()> {
    if !(2..=4).contains(&names.len()) {
        return Err(PyValueError::new_err("Gheos is for 2 to 4 players"));
    }
    Ok(())
}

impl crate::vector::Steppable for GheosState {
    type Id = u32;

    fn legal_ids_now(&mut self) -> &[u32] {
        self.legal_now()
    }

    fn step_id(&mut self, py: Python<'_>, id: u32) -> Result<(), String> {
        let legal = self.legal_now().clone();
        let mut log = Log::new(false);
        match self
            .game
            .apply_id(i64::from(id), &legal, &PyHost(py), &mut log)
        {
            Ok(()) => {
                self.changed();
                Ok(())
            }
            Err(_) => Err(format!("action id {id} is not legal now")),
        }
    }

    fn over(&self) -> bool {
        self.game.is_over()
    }

    fn mover(&self) -> usize {
        usize::from(self.game.active)
    }

    fn players(&self) -> usize {
        usize::from(self.game.players)
    }

    fn observation_size(&self) -> usize {
        super::observation::size(self.game.tiles.tiles.len())
    }

    fn observe(&self, seat: usize, out: &mut [f32]) {
        super::observation::observe(&self.game, seat, out);
    }
}
