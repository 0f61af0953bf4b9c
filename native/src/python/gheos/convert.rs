//! Gheos values as Python objects and back: the PyO3 conversions the bindings (`mod.rs`) call.
//! The reference's exceptions and options, Python's text rules for actions beyond ASCII, tile
//! sets handed over from Python, events, results, positions, views and summaries as the
//! reference's dicts.

use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString, PyType};

use crate::gheos::board::{node, NONE};
use crate::gheos::events::{Event, Standing, COLOURS};
use crate::gheos::geometry::{self, cell_name};
use crate::gheos::notation::{self, ascii_words, Host, Int, Plain, Refusal};
use crate::gheos::parts::{ConflictParts, Parts};
use crate::gheos::state::{Phase, State, EPOCH, EPOCH_TILES, FOLLOWERS};
use crate::gheos::tiles::{Region, Tile, TileSet, NO_TEMPLE, SYMBOLS};
use crate::python::cached;
use crate::text::py_repr;

// -- Python objects the engine borrows from the reference -------------------------------------

static MALFORMED_ACTION: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static DISALLOWED_ACTION: PyOnceLock<Py<PyType>> = PyOnceLock::new();
pub(super) static OPTIONS_TO_DICT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
pub(super) static HIDDEN_NAMES: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
pub(super) static RESTORE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static POSITION_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn raised(py: Python<'_>, class: &'static PyOnceLock<Py<PyType>>, name: &str, text: &str) -> PyErr {
    match class.import(py, "cradle.gheos.types", name) {
        Ok(class) => PyErr::from_type(class.clone(), text.to_string()),
        Err(err) => err,
    }
}

/// The reference's MalformedAction: no action of the notation, whatever the position.
pub(super) fn malformed_action(py: Python<'_>, text: &str) -> PyErr {
    raised(py, &MALFORMED_ACTION, "MalformedAction", text)
}

pub(super) fn refusal(py: Python<'_>, refusal: Refusal) -> PyErr {
    match refusal {
        Refusal::Malformed(text) => malformed_action(py, &text),
        Refusal::Disallowed(text) => raised(py, &DISALLOWED_ACTION, "DisallowedAction", &text),
    }
}

/// Python's text rules, asked of Python itself for text beyond ASCII.
pub(super) struct PyHost<'py>(pub(super) Python<'py>);

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

pub(super) type RegionRow = (Vec<u8>, u8, u8, u8, u8, i64);
pub(super) type TileRow = (Vec<RegionRow>, Vec<Vec<u8>>, Vec<u8>, String, String);

/// A tile set from its rows (`GheosTiles`): per tile, its regions (edges, wheat, cup, sword,
/// pyramid, temple kind or -1), its region per cell edge at each rotation, its distinct
/// rotations, text and shape.
pub(super) fn tile_set(tiles: Vec<TileRow>) -> PyResult<TileSet> {
    if tiles.len() != crate::gheos::tiles::TILE_COUNT {
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
    Ok(TileSet { tiles: out })
}

pub(super) fn t(number: u8) -> String {
    format!("t{number}")
}

pub(super) fn colour_name(c: u8) -> &'static str {
    COLOURS[usize::from(c)]
}

pub(super) fn hidden_number(number: u8) -> i64 {
    if number == EPOCH {
        -1
    } else {
        i64::from(number)
    }
}

pub(super) fn from_hidden(number: i64) -> u8 {
    if number < 0 {
        EPOCH
    } else {
        number as u8
    }
}

/// Small numbers as a list of ints (PyO3 would make bytes of a `&[u8]`).
pub(super) fn ints(items: &[u8]) -> Vec<u32> {
    items.iter().map(|&n| u32::from(n)).collect()
}

pub(super) fn temple_name(kind: u8) -> Option<&'static str> {
    (kind != NO_TEMPLE).then(|| SYMBOLS[usize::from(kind)])
}

pub(super) fn name(game: &State, seat: usize) -> &str {
    &game.names[seat]
}

pub(super) fn events<'py>(
    py: Python<'py>,
    game: &State,
    events: &[Event],
) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for event in events {
        out.append(event_dict(py, game, event)?)?;
    }
    Ok(out)
}

pub(super) fn event_dict<'py>(
    py: Python<'py>,
    game: &State,
    event: &Event,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(intern!(py, "type"), event.kind())?;
    d.set_item(intern!(py, "text"), event.text(&game.names))?;
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
            d.set_item(intern!(py, "player"), name(game, usize::from(*seat)))?;
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
                points.set_item(name(game, seat), gain)?;
            }
            d.set_item(intern!(py, "points"), points)?;
        }
        Event::Result { ranking } => {
            d.set_item(intern!(py, "ranking"), standings(py, game, ranking)?)?;
        }
        Event::Conflict { .. }
        | Event::Skip { .. }
        | Event::EndTokens
        | Event::EndEpoch { .. }
        | Event::Draw { .. } => {}
    }
    Ok(d)
}

pub(super) fn standings<'py>(
    py: Python<'py>,
    game: &State,
    rows: &[Standing],
) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for row in rows {
        let d = PyDict::new(py);
        d.set_item(intern!(py, "seat"), row.seat)?;
        d.set_item(intern!(py, "player"), name(game, usize::from(row.seat)))?;
        d.set_item(intern!(py, "points"), row.points)?;
        d.set_item(intern!(py, "followers"), row.followers)?;
        d.set_item(intern!(py, "score"), row.points)?;
        d.set_item(intern!(py, "place"), row.place)?;
        out.append(d)?;
    }
    Ok(out)
}

pub(super) fn area_ref(game: &State, root: usize) -> String {
    game.region_ref(root).name()
}

/// Followers held, points and tokens per player (positions, views and summaries).
pub(super) fn scores(py: Python<'_>, game: &State, d: &Bound<'_, PyDict>) -> PyResult<()> {
    let (followers, points, tokens) = (PyDict::new(py), PyDict::new(py), PyDict::new(py));
    for seat in 0..usize::from(game.players) {
        let held = PyDict::new(py);
        for c in 0..6u8 {
            let n = game.held[seat][usize::from(c)];
            if n > 0 {
                held.set_item(colour_name(c), n)?;
            }
        }
        followers.set_item(name(game, seat), held)?;
        points.set_item(name(game, seat), game.points[seat])?;
        tokens.set_item(name(game, seat), game.tokens[seat])?;
    }
    d.set_item(intern!(py, "followers"), followers)?;
    d.set_item(intern!(py, "points"), points)?;
    d.set_item(intern!(py, "tokens"), tokens)?;
    Ok(())
}

pub(super) fn options_dict<'py>(
    py: Python<'py>,
    options: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    cached(
        py,
        &OPTIONS_TO_DICT,
        "cradle.gheos.types",
        "options_to_dict",
    )?
    .call1((options,))
}

/// The war / migration being resolved, as public JSON (positions and views).
pub(super) fn pending<'py>(py: Python<'py>, game: &State) -> PyResult<Bound<'py, PyAny>> {
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
            .map(|&r| area_ref(game, usize::from(r)))
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
pub(super) fn area_dict<'py>(
    py: Python<'py>,
    game: &State,
    root: usize,
    index: u8,
    tiles: u16,
) -> PyResult<Bound<'py, PyDict>> {
    let area = game.stats(root);
    let d = PyDict::new(py);
    d.set_item(intern!(py, "area"), index)?;
    d.set_item(intern!(py, "ref"), area_ref(game, root))?;
    d.set_item(intern!(py, "kind"), area.kind())?;
    d.set_item(intern!(py, "tiles"), tiles)?;
    d.set_item(intern!(py, "wheat"), area.wheat)?;
    d.set_item(intern!(py, "cup"), area.cup)?;
    d.set_item(intern!(py, "sword"), area.sword)?;
    d.set_item(intern!(py, "pyramid"), area.pyramid)?;
    d.set_item(intern!(py, "civ"), game.occupant(root).map(colour_name))?;
    Ok(d)
}

pub(super) fn tile_dict<'py>(
    py: Python<'py>,
    game: &State,
    number: u8,
) -> PyResult<Bound<'py, PyDict>> {
    let tile = &game.tiles.tiles[usize::from(number)];
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

pub(super) fn seat_index(game: &State, seat: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
    if seat.is_none() {
        return Ok(None);
    }
    let players = usize::from(game.players);
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
pub(super) fn words(action: &Bound<'_, PyString>) -> PyResult<Vec<String>> {
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

/// An int action id as i64; ids beyond i64 are refused as the reference refuses them.
pub(super) fn action_id_of(py: Python<'_>, action_id: &Bound<'_, PyAny>) -> PyResult<i64> {
    if action_id.is_instance_of::<PyBool>() || !action_id.is_instance_of::<PyInt>() {
        return Err(malformed_action(
            py,
            &format!(
                "an action id is an integer, not {}",
                action_id.get_type().name()?
            ),
        ));
    }
    match action_id.extract::<i64>() {
        Ok(id) => Ok(id),
        Err(_) => Err(malformed_action(
            py,
            &format!(
                "action id {} is outside 0..{}",
                action_id.str()?,
                notation::ACTION_COUNT - 1
            ),
        )),
    }
}

pub(super) fn check_names(names: &[String]) -> PyResult<()> {
    if !(2..=4).contains(&names.len()) {
        return Err(PyValueError::new_err("Gheos is for 2 to 4 players"));
    }
    Ok(())
}

/// The full position (schema in docs/gheos.md), as the reference writes it.
pub(super) fn position_dict<'py>(
    py: Python<'py>,
    game: &State,
    options: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(intern!(py, "options"), options_dict(py, options)?)?;
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
        hands.set_item(
            name(game, seat),
            game.sorted_hand(seat)
                .as_slice()
                .iter()
                .map(|&n| t(n))
                .collect::<Vec<_>>(),
        )?;
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
    scores(py, game, &d)?;
    d.set_item(intern!(py, "epochs"), game.epochs)?;
    d.set_item(intern!(py, "pending"), pending(py, game)?)?;
    Ok(d)
}

/// All `seat` may know (None: a spectator, public information only).
pub(super) fn view_dict<'py>(
    py: Python<'py>,
    game: &State,
    options: &Bound<'py, PyAny>,
    seat: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let seat = seat_index(game, seat)?;
    let index = game.area_index();
    let counts = game.area_spans();
    let d = PyDict::new(py);
    d.set_item(intern!(py, "game"), "gheos")?;
    d.set_item(intern!(py, "seat"), seat)?;
    d.set_item(intern!(py, "options"), options_dict(py, options)?)?;
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
        areas.append(area_dict(py, game, root, i as u8, counts[root])?)?;
    }
    d.set_item(intern!(py, "areas"), areas)?;
    let civs = PyDict::new(py);
    for c in 0..6u8 {
        if game.on_table(c) {
            let root = game.civ_root(c);
            let entry = PyDict::new(py);
            entry.set_item(intern!(py, "area"), index[root])?;
            entry.set_item(intern!(py, "ref"), area_ref(game, root))?;
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
    scores(py, game, &d)?;
    match seat {
        None => d.set_item(intern!(py, "hand"), py.None())?,
        Some(seat) => {
            let hand = PyList::empty(py);
            for &n in game.sorted_hand(seat).as_slice() {
                hand.append(tile_dict(py, game, n)?)?;
            }
            d.set_item(intern!(py, "hand"), hand)?;
        }
    }
    let sizes = PyDict::new(py);
    for s in 0..usize::from(game.players) {
        sizes.set_item(name(game, s), game.hands[s].len())?;
    }
    d.set_item(intern!(py, "hand_sizes"), sizes)?;
    d.set_item(intern!(py, "stack_size"), game.stack.len())?;
    let epochs_left = game.epochs_in_stack();
    d.set_item(intern!(py, "stack_epochs"), epochs_left)?;
    d.set_item(intern!(py, "epochs_drawn"), game.epochs)?;
    d.set_item(intern!(py, "epoch_tiles"), EPOCH_TILES)?;
    d.set_item(intern!(py, "end_epoch"), game.end_epoch())?;
    let removed: Vec<String> = game.removed.as_slice().iter().map(|&n| t(n)).collect();
    d.set_item(intern!(py, "removed"), removed)?;
    d.set_item(intern!(py, "pending"), pending(py, game)?)?;
    d.set_item(intern!(py, "is_over"), game.is_over())?;
    if game.is_over() {
        d.set_item(intern!(py, "result"), standings(py, game, &game.result())?)?;
    } else {
        d.set_item(intern!(py, "result"), py.None())?;
    }
    Ok(d)
}

/// The view's public numbers without the map: scores, tokens, followers, epochs, and the
/// areas that matter (with a civilization, or free continents).
pub(super) fn summary_dict<'py>(py: Python<'py>, game: &State) -> PyResult<Bound<'py, PyDict>> {
    let roots: Vec<usize> = game.roots().collect();
    let mut index = [NONE; crate::gheos::board::MAX_NODES];
    for (i, &root) in roots.iter().enumerate() {
        index[root] = i as u8;
    }
    let mut counts: Option<[u16; crate::gheos::board::MAX_NODES]> = None;
    let d = PyDict::new(py);
    d.set_item(intern!(py, "game"), "gheos")?;
    d.set_item(intern!(py, "players"), PyList::new(py, game.names.iter())?)?;
    d.set_item(intern!(py, "active"), game.active)?;
    d.set_item(intern!(py, "to_move"), game.active)?;
    d.set_item(intern!(py, "phase"), game.phase.name())?;
    let areas = PyList::empty(py);
    for (i, &root) in roots.iter().enumerate() {
        if game.occupant(root).is_some() || game.stats(root).continent() {
            let counts = counts.get_or_insert_with(|| game.area_spans());
            areas.append(area_dict(py, game, root, i as u8, counts[root])?)?;
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
    scores(py, game, &d)?;
    d.set_item(intern!(py, "epochs_drawn"), game.epochs)?;
    d.set_item(intern!(py, "end_epoch"), game.end_epoch())?;
    d.set_item(intern!(py, "is_over"), game.is_over())?;
    Ok(d)
}

/// A `PositionError` (`cradle.core.positions`) with `reason`.
pub(super) fn position_error(py: Python<'_>, reason: String) -> PyErr {
    match POSITION_ERROR.import(py, "cradle.core.positions", "PositionError") {
        Ok(class) => PyErr::from_type(class.clone(), reason),
        Err(err) => err,
    }
}

/// A position dict as `to_position()` writes it (the reference reader has checked it:
/// `cradle.gheos.engine.from_position`) as the players' names and the engine's parts; errors
/// say which part the native reader could not take.
pub(super) fn read_position(
    py: Python<'_>,
    tiles: &TileSet,
    d: &Bound<'_, PyDict>,
) -> PyResult<(Vec<String>, Parts)> {
    let bad = |what: String| position_error(py, format!("native position reader: {what}"));
    let item = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        d.get_item(key)?
            .ok_or_else(|| bad(format!("{key:?} is missing")))
    };
    let text = |value: &Bound<'_, PyAny>| -> PyResult<String> { value.extract() };
    let cell = |name: &str| -> PyResult<u16> {
        notation::parse_cell(name, &Plain).map_err(|r| bad(r.text().to_string()))
    };
    let tile = |name: &str| -> PyResult<u8> {
        name.strip_prefix('t')
            .and_then(|n| n.parse::<u8>().ok())
            .filter(|&n| usize::from(n) < tiles.tiles.len())
            .ok_or_else(|| bad(format!("{name:?} is not a tile")))
    };
    let colour = |value: &Bound<'_, PyAny>| -> PyResult<u8> {
        let name = text(value)?;
        COLOURS
            .iter()
            .position(|c| *c == name)
            .map(|c| c as u8)
            .ok_or_else(|| bad(format!("{name:?} is not a colour")))
    };
    let colours = |value: &Bound<'_, PyAny>| -> PyResult<Vec<u8>> {
        value.try_iter()?.map(|c| colour(&c?)).collect()
    };
    let names: Vec<String> = item("players")?.extract()?;
    let per_player = |key: &str| -> PyResult<Vec<Bound<'_, PyAny>>> {
        let table = item(key)?;
        names.iter().map(|name| table.get_item(name)).collect()
    };
    let mut board = Vec::new();
    for (name, value) in item("board")?.cast::<PyDict>()?.iter() {
        let at = cell(&text(&name)?)?;
        let value = text(&value)?;
        let (number, rotation) = value
            .split_once(' ')
            .ok_or_else(|| bad(format!("{value:?} is not a tile and its rotation")))?;
        let rotation = rotation
            .strip_prefix('r')
            .and_then(|r| r.parse::<u8>().ok())
            .filter(|&r| r < 3)
            .ok_or_else(|| bad(format!("{value:?} is not a tile and its rotation")))?;
        board.push((at, tile(number)?, rotation));
    }
    // A region or an area is named by the cell and an edge of its first region: the
    // reference numbers that region `cell * 3 + k`.
    let region = |name: &str| -> PyResult<u16> {
        let (at, edge) = name
            .split_once(':')
            .ok_or_else(|| bad(format!("{name:?} is not a region")))?;
        let at = cell(at)?;
        let edge = notation::parse_edge(at, edge, &Plain).map_err(|r| bad(r.text().to_string()))?;
        let &(_, number, rotation) = board
            .iter()
            .find(|(c, _, _)| *c == at)
            .ok_or_else(|| bad(format!("no tile holds {name:?}")))?;
        let k =
            tiles.tiles[usize::from(number)].edge_region[usize::from(rotation)][usize::from(edge)];
        Ok(at * 3 + u16::from(k))
    };
    let hands = per_player("hands")?
        .iter()
        .map(|hand| {
            hand.try_iter()?
                .map(|name| tile(&text(&name?)?))
                .collect::<PyResult<Vec<u8>>>()
        })
        .collect::<PyResult<Vec<_>>>()?;
    let mut stack = Vec::new();
    for name in item("stack")?.try_iter()? {
        let name = text(&name?)?;
        stack.push(if name == "epoch" { EPOCH } else { tile(&name)? });
    }
    stack.reverse(); // the engine draws from the end
    let removed = item("removed")?
        .try_iter()?
        .map(|name| tile(&text(&name?)?))
        .collect::<PyResult<Vec<u8>>>()?;
    let mut civs = Vec::new();
    for (name, at) in item("civilizations")?.cast::<PyDict>()?.iter() {
        civs.push((colour(&name)?, region(&text(&at)?)?));
    }
    let mut held = Vec::new();
    for row in per_player("followers")? {
        let mut counts = [0u8; 6];
        for (name, n) in row.cast::<PyDict>()?.iter() {
            counts[usize::from(colour(&name)?)] = n.extract()?;
        }
        held.push(counts);
    }
    let mut supply = [FOLLOWERS; 6];
    for counts in &held {
        for (left, n) in supply.iter_mut().zip(counts) {
            *left = left.saturating_sub(*n);
        }
    }
    let pending = item("pending")?;
    let conflict = if pending.is_none() {
        None
    } else {
        let mut swords = Vec::new();
        for (name, n) in pending.get_item("swords")?.cast::<PyDict>()?.iter() {
            swords.push((colour(&name)?, n.extract()?));
        }
        let mut migrations = Vec::new();
        for entry in pending.get_item("migrations")?.try_iter()? {
            let entry = entry?;
            let options = entry
                .get_item("options")?
                .try_iter()?
                .map(|name| region(&text(&name?)?))
                .collect::<PyResult<Vec<u16>>>()?;
            migrations.push((
                colour(&entry.get_item("civ")?)?,
                options,
                entry.get_item("split")?.extract()?,
            ));
        }
        let wars = pending.get_item("wars")?;
        let wars = if wars.is_none() {
            None
        } else {
            Some(
                wars.try_iter()?
                    .map(|war| {
                        let war = war?;
                        Ok((
                            colours(&war.get_item("civs")?)?,
                            colours(&war.get_item("options")?)?,
                        ))
                    })
                    .collect::<PyResult<Vec<_>>>()?,
            )
        };
        Some(ConflictParts {
            cell: cell(&text(&pending.get_item("cell")?)?)?,
            swords,
            moved: colours(&pending.get_item("moved")?)?,
            migrations,
            wars,
        })
    };
    let phase = text(&item("phase")?)?;
    let parts = Parts {
        active: item("active")?.extract()?,
        phase: Phase::from_name(&phase).ok_or_else(|| bad(format!("no phase {phase:?}")))?,
        board,
        hands,
        stack,
        removed,
        civs,
        held,
        supply,
        points: per_player("points")?
            .iter()
            .map(|p| p.extract())
            .collect::<PyResult<Vec<i64>>>()?,
        tokens: per_player("tokens")?
            .iter()
            .map(|t| t.extract())
            .collect::<PyResult<Vec<u8>>>()?,
        epochs: item("epochs")?.extract()?,
        conflict,
    };
    Ok((names, parts))
}
