//! Python bindings of the Tigris engine: `cradle._native.TigrisState`, the same surface as the
//! reference `cradle.tigris.TigrisState` (see docs/contract.md and docs/engines.md).
//!
//! Where the reference's behaviour is Python's own (a repr in a reason, a KeyError's text, a
//! list index), the same Python operation is called here, so errors read identically.

use pyo3::exceptions::{PyIndexError, PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString, PyTuple, PyType};
use pyo3::{intern, IntoPyObjectExt};
use std::collections::HashMap;
use std::sync::OnceLock;

use super::actions::{
    action_strings, parse_ascii, Action, Parsed, ACTION_COUNT, COLORS, DYNASTIES, MONUMENTS, ROLES,
};
use super::analysis::BoardKey;
use super::board::{cell_name, parse_cell, Side, CELLS};
use super::events::{Event, NoEvents};
use super::playout::fresh_game;
use super::position::Position;
use super::pyanalysis;
use super::state::{Key, List, Moves, Options, Pending, PendingKind, State};
use crate::pyrandom::PyRandom;
use crate::splitmix::SplitMix64;

static ILLEGAL: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static POSITION_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static OPTIONS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static PARSE_ACTION: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static ACTION_IDS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static KNOWN_ACTION: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static COLOR_BY_NAME: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static STRINGS: PyOnceLock<Strings> = PyOnceLock::new();

/// Python objects made once: action ids and strings, cell names, colours, roles, dynasties.
struct Strings {
    /// The ints 0..ACTION_COUNT: legal lists share them instead of making new ones.
    ids: Vec<Py<PyInt>>,
    actions: Vec<Py<PyString>>,
    cells: Vec<Py<PyString>>,
    colors: Vec<Py<PyString>>,
    roles: Vec<Py<PyString>>,
    dynasties: Vec<Py<PyString>>,
}

fn strings(py: Python<'_>) -> &'static Strings {
    STRINGS.get_or_init(py, || {
        let make = |items: &mut dyn Iterator<Item = &str>| -> Vec<Py<PyString>> {
            items.map(|s| PyString::intern(py, s).unbind()).collect()
        };
        Strings {
            ids: (0..ACTION_COUNT)
                .map(|id| PyInt::new(py, id).unbind())
                .collect(),
            actions: make(&mut action_strings().iter().map(String::as_str)),
            cells: make(&mut (0..CELLS).map(cell_name)),
            colors: make(&mut COLORS.into_iter()),
            roles: make(&mut ROLES.into_iter()),
            dynasties: make(&mut DYNASTIES.into_iter()),
        }
    })
}

fn canonical_ids() -> &'static HashMap<&'static str, u16> {
    static IDS: OnceLock<HashMap<&'static str, u16>> = OnceLock::new();
    IDS.get_or_init(|| {
        action_strings()
            .iter()
            .enumerate()
            .map(|(id, text)| (text.as_str(), id as u16))
            .collect()
    })
}

fn illegal(py: Python<'_>, reason: String) -> PyErr {
    match ILLEGAL.import(py, "cradle.tigris.rules", "IllegalAction") {
        Ok(ty) => PyErr::from_type(ty.clone(), reason),
        Err(err) => err,
    }
}

fn position_error(py: Python<'_>, reason: String) -> PyErr {
    match POSITION_ERROR.import(py, "cradle.core.positions", "PositionError") {
        Ok(ty) => PyErr::from_type(ty.clone(), reason),
        Err(err) => err,
    }
}

fn py_attr<'py>(
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

fn color_index(name: &str) -> Option<usize> {
    COLORS.iter().position(|c| *c == name)
}

/// A Tigris & Euphrates game state on the native engine.
#[pyclass(module = "cradle._native", name = "TigrisState")]
pub struct PyTigrisState {
    pub(crate) s: State,
    /// The legal ids of `s`, once asked for (cleared by every change).
    legal: Option<Vec<u16>>,
    /// The legal moves the ids came from, kept with them so that `apply_id` of a listed id
    /// applies without checking or computing them again.
    moves: Option<Moves>,
    /// The last legal list's memory, reused for the next one (no allocation per action).
    spare: Vec<u16>,
    /// The board's analysis as made for Python, kept while the board is the same.
    board: BoardCache,
}

/// `contents()`, `regions()` and `region_map()` of one board (the key says which): the worlds
/// a search samples share their board, so copies carry the cache along.
#[derive(Default)]
struct BoardCache {
    key: Option<BoardKey>,
    contents: Option<Py<PyTuple>>,
    regions: Option<(Py<PyTuple>, Py<PyTuple>)>,
}

impl BoardCache {
    fn copy(&self, py: Python<'_>) -> BoardCache {
        BoardCache {
            key: self.key,
            contents: self.contents.as_ref().map(|c| c.clone_ref(py)),
            regions: self
                .regions
                .as_ref()
                .map(|(r, m)| (r.clone_ref(py), m.clone_ref(py))),
        }
    }

    /// Forget what belongs to another board than `s`'s.
    fn follow(&mut self, s: &State) {
        let key = BoardKey::of(s);
        if self.key != Some(key) {
            *self = BoardCache {
                key: Some(key),
                ..BoardCache::default()
            };
        }
    }
}

impl PyTigrisState {
    fn wrap(s: State) -> PyTigrisState {
        PyTigrisState {
            s,
            legal: None,
            moves: None,
            spare: Vec::new(),
            board: BoardCache::default(),
        }
    }

    /// A state of the same board as this one (a determinization): the board cache goes along.
    pub(super) fn sibling(&self, py: Python<'_>, s: State) -> PyTigrisState {
        PyTigrisState {
            s,
            legal: None,
            moves: None,
            spare: Vec::new(),
            board: self.board.copy(py),
        }
    }

    fn regions_now<'py>(
        &mut self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyTuple>, Bound<'py, PyTuple>)> {
        self.board.follow(&self.s);
        if let Some((r, m)) = &self.board.regions {
            return Ok((r.bind(py).clone(), m.bind(py).clone()));
        }
        let (r, m) = pyanalysis::regions(py, &self.s)?;
        self.board.regions = Some((r.clone().unbind(), m.clone().unbind()));
        Ok((r, m))
    }

    /// The state changed: forget its legal actions.
    fn changed(&mut self) {
        if let Some(ids) = self.legal.take() {
            self.spare = ids;
        }
        self.moves = None;
    }

    fn legal(&mut self) -> &[u16] {
        if self.legal.is_none() {
            let moves = self.s.moves();
            let mut ids = std::mem::take(&mut self.spare);
            ids.clear();
            ids.reserve(moves.count());
            moves.ids(&mut ids);
            self.legal = Some(ids);
            self.moves = Some(moves);
        }
        self.legal.as_deref().unwrap_or_default()
    }

    /// Apply `id` when it is one of the legal ids listed for this state, from their moves (no
    /// checks, nothing computed again); false, and nothing changes, otherwise.
    fn apply_listed(&mut self, id: u16) -> bool {
        let (Some(ids), Some(moves)) = (&self.legal, &self.moves) else {
            return false;
        };
        // the list is ascending (the id layout follows the reference's order); were it ever
        // not, a miss only sends the id down the checked path
        if ids.binary_search(&id).is_err() {
            return false;
        }
        self.s.apply_move(moves, id, &mut NoEvents);
        self.changed();
        true
    }

    fn names(&self) -> Vec<&'static str> {
        self.s.players[..self.s.n]
            .iter()
            .map(|d| DYNASTIES[*d as usize])
            .collect()
    }

    /// The action `action` stands for (text or id), with the reference's reasons otherwise.
    fn parse(&self, py: Python<'_>, action: &Bound<'_, PyAny>) -> PyResult<Parsed> {
        if let Ok(text) = action.cast::<PyString>() {
            let Ok(text) = text.to_str() else {
                // not valid UTF-8 (a lone surrogate): the reference parser reads it
                return self.parse_unicode(py, action);
            };
            if let Some(id) = canonical_ids().get(text) {
                return Ok(Parsed::Action(
                    Action::from_id(*id).expect("a canonical id"),
                ));
            }
            if text.is_ascii() {
                return parse_ascii(text).map_err(|reason| illegal(py, reason));
            }
            return self.parse_unicode(py, action);
        }
        if action.is_instance_of::<PyInt>() && !action.is_instance_of::<PyBool>() {
            let id = action.extract::<i64>().ok();
            return match id.filter(|id| (0..ACTION_COUNT as i64).contains(id)) {
                Some(id) => Ok(Parsed::Action(
                    Action::from_id(id as u16).expect("an id in range"),
                )),
                None => Err(illegal(
                    py,
                    format!(
                        "action id {} is outside 0..{}",
                        action.str()?.to_str()?,
                        ACTION_COUNT - 1
                    ),
                )),
            };
        }
        // an `Action` or a tuple equal to one: the reference checks it (same refusals)
        let known = py_attr(py, &KNOWN_ACTION, "cradle.tigris.state", "_known_action")?;
        self.reference_action(py, &known.call1((action,))?)
    }

    /// `action_id` as an id in range: IllegalAction (the reference's reasons) otherwise.
    fn strict_id(py: Python<'_>, action_id: &Bound<'_, PyAny>) -> PyResult<u16> {
        if !action_id.is_instance_of::<PyInt>() || action_id.is_instance_of::<PyBool>() {
            return Err(illegal(
                py,
                format!(
                    "an action id is an integer, not {}",
                    action_id.get_type().name()?.to_str()?
                ),
            ));
        }
        match action_id.extract::<i64>() {
            Ok(id) if (0..ACTION_COUNT as i64).contains(&id) => Ok(id as u16),
            _ => Err(illegal(
                py,
                format!(
                    "action id {} is outside 0..{}",
                    action_id.str()?.to_str()?,
                    ACTION_COUNT - 1
                ),
            )),
        }
    }

    /// Texts beyond ASCII go to the reference parser (Unicode lower-casing, spaces and repr).
    fn parse_unicode(&self, py: Python<'_>, action: &Bound<'_, PyAny>) -> PyResult<Parsed> {
        let parse = py_attr(py, &PARSE_ACTION, "cradle.tigris.rules", "parse_action")?;
        self.reference_action(py, &parse.call1((action,))?)
    }

    /// The reference's `Action` as the native one.
    fn reference_action(&self, py: Python<'_>, parsed: &Bound<'_, PyAny>) -> PyResult<Parsed> {
        let ids = py_attr(py, &ACTION_IDS, "cradle.tigris.rules", "ACTION_IDS")?;
        if let Some(id) = ids.cast::<PyDict>()?.get_item(parsed)? {
            let id: u16 = id.extract()?;
            return Ok(Parsed::Action(Action::from_id(id).expect("a known id")));
        }
        // only a commit of more than six tiles has no id
        let count = parsed.get_item(1)?;
        Ok(match count.extract::<u64>() {
            Ok(count) => Parsed::Action(Action::Commit { count }),
            Err(_) => Parsed::HugeCommit(count.str()?.to_string()),
        })
    }

    fn apply_parsed<'py>(&mut self, py: Python<'py>, parsed: &Parsed) -> PyResult<Vec<Event>> {
        let mut events = Vec::new();
        self.s
            .apply(parsed, &mut events)
            .map_err(|reason| illegal(py, reason))?;
        self.changed();
        Ok(events)
    }

    fn colour_list<'py>(py: Python<'py>, counts: &[u32; 4]) -> PyResult<Bound<'py, PyList>> {
        let names = &strings(py).colors;
        let list = PyList::empty(py);
        for (color, n) in counts.iter().enumerate() {
            for _ in 0..*n {
                list.append(names[color].bind(py))?;
            }
        }
        Ok(list)
    }

    fn per_colour<'py>(py: Python<'py>, values: &[u32; 4]) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (color, v) in values.iter().enumerate() {
            d.set_item(strings(py).colors[color].bind(py), v)?;
        }
        Ok(d)
    }

    fn cell_or_none<'py>(py: Python<'py>, cell: u8) -> Bound<'py, PyAny> {
        if cell == super::board::NONE {
            py.None().into_bound(py)
        } else {
            strings(py).cells[cell as usize].bind(py).clone().into_any()
        }
    }

    fn options_dict<'py>(py: Python<'py>, o: &Options) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item(intern!(py, "board"), o.side.name())?;
        d.set_item(intern!(py, "buildings"), o.buildings)?;
        d.set_item(intern!(py, "english"), o.english)?;
        d.set_item(intern!(py, "wonder"), o.wonder)?;
        d.set_item(intern!(py, "open_scoring"), o.open_scoring)?;
        Ok(d)
    }

    fn board_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let cells = &strings(py).cells;
        for (cell, text) in self.s.board_cells() {
            d.set_item(cells[cell].bind(py), text)?;
        }
        Ok(d)
    }

    fn monuments_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let st = strings(py);
        let list = PyList::empty(py);
        for (m, cell) in self.s.monuments() {
            let (a, b) = MONUMENTS[*m as usize];
            let d = PyDict::new(py);
            d.set_item(
                intern!(py, "colors"),
                PyList::new(py, [st.colors[a].bind(py), st.colors[b].bind(py)])?,
            )?;
            d.set_item(intern!(py, "cell"), st.cells[*cell as usize].bind(py))?;
            list.append(d)?;
        }
        Ok(list)
    }

    fn pending_dict<'py>(&self, py: Python<'py>, public: bool) -> PyResult<Bound<'py, PyAny>> {
        let Some(p) = &self.s.pending else {
            return Ok(py.None().into_bound(py));
        };
        let st = strings(py);
        let colours = |l: &List| -> PyResult<Bound<'py, PyList>> {
            PyList::new(
                py,
                l.as_slice().iter().map(|c| st.colors[*c as usize].bind(py)),
            )
        };
        let d = PyDict::new(py);
        for key in p.keys() {
            let name = PyString::intern(py, key.name());
            match key {
                Key::Kind => d.set_item(name, p.kind.name())?,
                Key::Color => {
                    d.set_item(name, st.colors[p.color.unwrap_or(0) as usize].bind(py))?
                }
                Key::Attacker => d.set_item(name, p.attacker)?,
                Key::Defender => d.set_item(name, p.defender)?,
                Key::Seat => d.set_item(name, p.seat)?,
                Key::AttackerCommit => d.set_item(name, p.attacker_commit.flatten())?,
                Key::Colors => d.set_item(name, colours(&p.colors.unwrap_or_default())?)?,
                Key::Queue => d.set_item(name, colours(&p.queue.unwrap_or_default())?)?,
                Key::Cells => d.set_item(
                    name,
                    PyList::new(
                        py,
                        p.cells
                            .unwrap_or_default()
                            .as_slice()
                            .iter()
                            .map(|c| st.cells[*c as usize].bind(py)),
                    )?,
                )?,
            }
        }
        d.set_item(intern!(py, "placed"), Self::cell_or_none(py, self.s.placed))?;
        d.set_item(
            intern!(py, "unification"),
            Self::cell_or_none(py, self.s.unification),
        )?;
        if public && matches!(p.kind, PendingKind::Revolt | PendingKind::War) {
            let attacker = p.attacker.unwrap_or(0) as usize;
            let defender = p.defender.unwrap_or(0) as usize;
            d.set_item(
                intern!(py, "attacker_strength"),
                self.s.base_strength(p, attacker),
            )?;
            d.set_item(
                intern!(py, "defender_strength"),
                self.s.base_strength(p, defender),
            )?;
        }
        Ok(d.into_any())
    }

    fn result_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        let names = self.names();
        for r in self.s.result() {
            let d = PyDict::new(py);
            d.set_item(intern!(py, "seat"), r.seat)?;
            d.set_item(intern!(py, "dynasty"), names[r.seat])?;
            d.set_item(intern!(py, "points"), Self::per_colour(py, &r.points)?)?;
            d.set_item(intern!(py, "treasures"), r.treasures)?;
            d.set_item(intern!(py, "final"), Self::per_colour(py, &r.final_points)?)?;
            d.set_item(intern!(py, "score"), r.score)?;
            d.set_item(intern!(py, "place"), r.place)?;
            list.append(d)?;
        }
        Ok(list)
    }

    fn event_dict<'py>(py: Python<'py>, e: &Event, names: &[&str]) -> PyResult<Bound<'py, PyDict>> {
        let st = strings(py);
        let cell = |c: &usize| st.cells[*c].bind(py);
        let color = |c: &usize| st.colors[*c].bind(py);
        let role = |c: &usize| st.roles[*c].bind(py);
        let d = PyDict::new(py);
        d.set_item(intern!(py, "type"), PyString::intern(py, e.kind()))?;
        d.set_item(intern!(py, "text"), e.text(names))?;
        match e {
            Event::LeaderReturned {
                seat,
                role: r,
                cell: c,
            }
            | Event::Withdraw {
                seat,
                role: r,
                cell: c,
            } => {
                d.set_item(intern!(py, "seat"), seat)?;
                d.set_item(intern!(py, "role"), role(r))?;
                d.set_item(intern!(py, "cell"), cell(c))?;
            }
            Event::Score {
                seat,
                color: c,
                amount,
                ..
            } => {
                d.set_item(intern!(py, "seat"), seat)?;
                d.set_item(intern!(py, "color"), color(c))?;
                d.set_item(intern!(py, "amount"), amount)?;
            }
            Event::Pass { seat } | Event::Turn { seat } => {
                d.set_item(intern!(py, "seat"), seat)?;
            }
            Event::Swap { seat, count, .. } => {
                d.set_item(intern!(py, "seat"), seat)?;
                d.set_item(intern!(py, "count"), count)?;
            }
            Event::Leader {
                seat,
                role: r,
                cell: c,
                moved_from,
            } => {
                d.set_item(intern!(py, "seat"), seat)?;
                d.set_item(intern!(py, "role"), role(r))?;
                d.set_item(intern!(py, "cell"), cell(c))?;
                d.set_item(intern!(py, "moved_from"), moved_from.as_ref().map(cell))?;
            }
            Event::Revolt {
                attacker,
                defender,
                role: r,
                ..
            } => {
                d.set_item(intern!(py, "attacker"), attacker)?;
                d.set_item(intern!(py, "defender"), defender)?;
                d.set_item(intern!(py, "role"), role(r))?;
            }
            Event::Tile {
                seat,
                color: c,
                cell: at,
            } => {
                d.set_item(intern!(py, "seat"), seat)?;
                d.set_item(intern!(py, "color"), color(c))?;
                d.set_item(intern!(py, "cell"), cell(at))?;
            }
            Event::Unification { cell: at, wars } => {
                d.set_item(intern!(py, "cell"), cell(at))?;
                d.set_item(
                    intern!(py, "wars"),
                    PyList::new(py, wars.iter().map(color))?,
                )?;
            }
            Event::Catastrophe { seat, cell: at, .. } => {
                d.set_item(intern!(py, "seat"), seat)?;
                d.set_item(intern!(py, "cell"), cell(at))?;
            }
            Event::UnificationRemoved { .. } | Event::Decline { .. } | Event::GameOver { .. } => {}
            Event::War {
                color: c,
                attacker,
                defender,
            } => {
                d.set_item(intern!(py, "color"), color(c))?;
                d.set_item(intern!(py, "attacker"), attacker)?;
                d.set_item(intern!(py, "defender"), defender)?;
            }
            Event::Commit {
                seat,
                count,
                color: c,
            } => {
                d.set_item(intern!(py, "seat"), seat)?;
                d.set_item(intern!(py, "count"), count)?;
                d.set_item(intern!(py, "color"), color(c))?;
            }
            Event::RevoltResult {
                winner,
                loser,
                attack,
                defence,
                ..
            } => {
                d.set_item(intern!(py, "winner"), winner)?;
                d.set_item(intern!(py, "loser"), loser)?;
                d.set_item(intern!(py, "attack"), attack)?;
                d.set_item(intern!(py, "defence"), defence)?;
            }
            Event::WarResult {
                winner,
                loser,
                attack,
                defence,
                removed,
                ..
            } => {
                d.set_item(intern!(py, "winner"), winner)?;
                d.set_item(intern!(py, "loser"), loser)?;
                d.set_item(intern!(py, "attack"), attack)?;
                d.set_item(intern!(py, "defence"), defence)?;
                d.set_item(
                    intern!(py, "removed"),
                    PyList::new(py, removed.iter().map(cell))?,
                )?;
            }
            Event::Building {
                color: c, cell: at, ..
            } => {
                d.set_item(intern!(py, "color"), color(c))?;
                d.set_item(intern!(py, "cell"), cell(at))?;
            }
            Event::Wonder { cell: at, .. } => {
                d.set_item(intern!(py, "cell"), cell(at))?;
            }
            Event::Monument {
                monument, cell: at, ..
            } => {
                d.set_item(
                    intern!(py, "monument"),
                    super::actions::MONUMENT_NAMES[*monument],
                )?;
                d.set_item(intern!(py, "cell"), cell(at))?;
            }
            Event::Treasure { seat, cell: at } => {
                d.set_item(intern!(py, "seat"), seat)?;
                d.set_item(intern!(py, "cell"), cell(at))?;
            }
        }
        Ok(d)
    }

    /// A colour index of `name` as `COLOR_BY_NAME[name]` finds it (KeyError, TypeError).
    fn lookup_colour(py: Python<'_>, name: &Bound<'_, PyAny>) -> PyResult<u8> {
        if let Ok(text) = name.cast::<PyString>() {
            if let Some(c) = color_index(text.to_str()?) {
                return Ok(c as u8);
            }
        }
        let table = py_attr(py, &COLOR_BY_NAME, "cradle.tigris.rules", "COLOR_BY_NAME")?;
        table.get_item(name)?.extract()
    }

    /// The seat index `seat` names in a list of `n` (Python's list indexing, errors included).
    fn list_index(py: Python<'_>, seat: &Bound<'_, PyAny>, n: usize) -> PyResult<usize> {
        if seat.is_instance_of::<PyInt>() {
            if let Ok(i) = seat.extract::<i64>() {
                let i = if i < 0 { i + n as i64 } else { i };
                if (0..n as i64).contains(&i) {
                    return Ok(i as usize);
                }
                return Err(PyIndexError::new_err("list index out of range"));
            }
        }
        // whatever else a list index refuses, refused the same way
        PyList::new(py, 0..n)?.as_any().get_item(seat)?.extract()
    }
}

/// Python's `Options` (or a dict of its fields) as the engine's options.
fn options_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Options> {
    let get = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        match obj.cast::<PyDict>() {
            Ok(d) => d
                .get_item(key)?
                .ok_or_else(|| PyKeyError::new_err(key.to_string())),
            Err(_) => obj.getattr(key),
        }
    };
    let board: String = get("board")?.extract()?;
    Ok(Options {
        side: Side::from_name(&board)
            .ok_or_else(|| PyValueError::new_err(format!("unknown board {board:?}")))?,
        buildings: get("buildings")?.extract()?,
        english: get("english")?.extract()?,
        wonder: get("wonder")?.extract()?,
        open_scoring: get("open_scoring")?.extract()?,
    })
}

fn dynasty_index(name: &str) -> Option<u8> {
    DYNASTIES.iter().position(|d| *d == name).map(|d| d as u8)
}

/// A position dict the reference reader accepted (or `to_position()` wrote) as a
/// [`Position`]; errors say which part the native reader could not take.
fn read_position(py: Python<'_>, d: &Bound<'_, PyDict>) -> PyResult<Position> {
    let bad = |what: &str| position_error(py, format!("native position reader: {what}"));
    let item = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        d.get_item(key)?
            .ok_or_else(|| bad(&format!("{key:?} is missing")))
    };
    let colour = |v: &Bound<'_, PyAny>| -> PyResult<u8> {
        let name: String = v.extract()?;
        color_index(&name)
            .map(|c| c as u8)
            .ok_or_else(|| bad(&format!("{name:?} is not a colour")))
    };
    let cell = |v: &Bound<'_, PyAny>| -> PyResult<usize> {
        let name: String = v.extract()?;
        parse_cell(&name).ok_or_else(|| bad(&format!("{name:?} is not a cell")))
    };
    let cell_opt = |v: &Bound<'_, PyAny>| -> PyResult<Option<usize>> {
        if v.is_none() {
            Ok(None)
        } else {
            cell(v).map(Some)
        }
    };
    let counts = |v: &Bound<'_, PyAny>| -> PyResult<[u32; 4]> {
        let mut out = [0u32; 4];
        for name in v.try_iter()? {
            out[colour(&name?)? as usize] += 1;
        }
        Ok(out)
    };
    let options = options_from_py(&item("options")?)?;
    let names: Vec<String> = item("players")?.extract()?;
    let players: Vec<u8> = names
        .iter()
        .map(|n| dynasty_index(n).ok_or_else(|| bad(&format!("{n:?} is not a dynasty"))))
        .collect::<PyResult<_>>()?;
    let per_seat = |key: &str| -> PyResult<Vec<Bound<'_, PyAny>>> {
        let table = item(key)?;
        names.iter().map(|n| table.get_item(n)).collect()
    };
    let mut board = Vec::new();
    for (name, value) in item("board")?.cast::<PyDict>()?.iter() {
        board.push((cell(&name)?, value.extract::<String>()?));
    }
    board.sort();
    let mut monuments = Vec::new();
    for entry in item("monuments")?.try_iter()? {
        let entry = entry?;
        let pair = entry.get_item("colors")?;
        let (a, b) = (colour(&pair.get_item(0)?)?, colour(&pair.get_item(1)?)?);
        let key = (a.min(b) as usize, a.max(b) as usize);
        let m = MONUMENTS
            .iter()
            .position(|p| *p == key)
            .ok_or_else(|| bad("a monument of one colour"))?;
        monuments.push((m, cell(&entry.get_item("cell")?)?));
    }
    let hands = per_seat("hands")?
        .iter()
        .map(|h| counts(h).map(|c| c.map(|x| x.min(255) as u8)))
        .collect::<PyResult<Vec<_>>>()?;
    let mut bag = Vec::new();
    for name in item("bag")?.try_iter()? {
        bag.push(colour(&name?)?);
    }
    let points = per_seat("points")?
        .iter()
        .map(|p| {
            let mut out = [0u32; 4];
            for (color, name) in COLORS.iter().enumerate() {
                out[color] = p.get_item(*name)?.extract()?;
            }
            Ok(out)
        })
        .collect::<PyResult<Vec<_>>>()?;
    let treasures = per_seat("treasures")?
        .iter()
        .map(|t| t.extract())
        .collect::<PyResult<Vec<u32>>>()?;
    let catastrophes = per_seat("catastrophes")?
        .iter()
        .map(|t| t.extract())
        .collect::<PyResult<Vec<u8>>>()?;
    let mut buildings = [None; 4];
    for (name, at) in item("buildings")?.cast::<PyDict>()?.iter() {
        buildings[colour(&name)? as usize] = Some(cell(&at)?);
    }
    let discards = per_seat("discards")?
        .iter()
        .map(counts)
        .collect::<PyResult<Vec<_>>>()?;
    let mut removed = [0u32; 4];
    let removed_dict = item("removed")?;
    for (color, name) in COLORS.iter().enumerate() {
        removed[color] = removed_dict.get_item(*name)?.extract()?;
    }
    let (mut placed, mut unification) = (None, None);
    let pending_obj = item("pending")?;
    let pending = if pending_obj.is_none() {
        None
    } else {
        let pd = pending_obj.cast::<PyDict>()?;
        let kind_name: String = pd
            .get_item("kind")?
            .ok_or_else(|| bad("a pending decision without its kind"))?
            .extract()?;
        let kind = PendingKind::from_name(&kind_name)
            .ok_or_else(|| bad(&format!("pending kind {kind_name:?}")))?;
        let mut p = Pending::bare(kind);
        let mut keys = Vec::new();
        let seat = |v: &Bound<'_, PyAny>| -> PyResult<u8> { v.extract() };
        let colours = |v: &Bound<'_, PyAny>, key: &str| -> PyResult<List> {
            let mut out = Vec::new();
            for c in v.try_iter()? {
                out.push(colour(&c?)?);
            }
            List::new(&out)
                .ok_or_else(|| bad(&format!("pending {key} lists more than {}", List::CAPACITY)))
        };
        for (key, value) in pd.iter() {
            let key: String = key.extract()?;
            match key.as_str() {
                "placed" => placed = cell_opt(&value)?,
                "unification" => unification = cell_opt(&value)?,
                "attacker_strength" | "defender_strength" => {}
                name => {
                    let k = Key::from_name(name)
                        .ok_or_else(|| bad(&format!("pending field {name:?}")))?;
                    match k {
                        Key::Kind => {}
                        Key::Color => p.color = Some(colour(&value)?),
                        Key::Attacker => p.attacker = Some(seat(&value)?),
                        Key::Defender => p.defender = Some(seat(&value)?),
                        Key::Seat => p.seat = Some(seat(&value)?),
                        Key::AttackerCommit => {
                            p.attacker_commit = Some(if value.is_none() {
                                None
                            } else {
                                Some(value.extract()?)
                            })
                        }
                        Key::Colors => p.colors = Some(colours(&value, "colors")?),
                        Key::Queue => p.queue = Some(colours(&value, "queue")?),
                        Key::Cells => {
                            let mut out = Vec::new();
                            for c in value.try_iter()? {
                                out.push(cell(&c?)? as u8);
                            }
                            p.cells = Some(List::new(&out).ok_or_else(|| {
                                bad(&format!("pending cells lists more than {}", List::CAPACITY))
                            })?);
                        }
                    }
                    keys.push(k);
                }
            }
        }
        // the reference writes a decision's fields in its own order, whatever order was read
        let ordered: Vec<Key> = Key::ALL.into_iter().filter(|k| keys.contains(k)).collect();
        p.set_keys(&ordered);
        Some(p)
    };
    Ok(Position {
        options,
        players,
        active: item("active")?.extract()?,
        actions_left: item("actions_left")?.extract()?,
        board,
        monuments,
        hands,
        bag,
        points,
        treasures,
        catastrophes,
        buildings,
        pending,
        placed,
        unification,
        discards,
        removed,
        ending: item("ending")?.extract()?,
        over: item("over")?.extract()?,
    })
}

#[pymethods]
impl PyTigrisState {
    /// States compare by value; they are mutable, so not hashable.
    #[classattr]
    const __hash__: Option<Py<PyAny>> = None;

    /// A new game from the reference's set-up: dynasties in seat order, options, the shuffled
    /// bag as the reference's list (drawn from its end) and the seat that starts.
    #[staticmethod]
    fn _new_game(
        players: Vec<String>,
        options: &Bound<'_, PyAny>,
        bag: Vec<u8>,
        active: usize,
    ) -> PyResult<PyTigrisState> {
        let seats: Vec<u8> = players
            .iter()
            .map(|n| dynasty_index(n).ok_or_else(|| PyValueError::new_err(format!("{n:?}"))))
            .collect::<PyResult<_>>()?;
        if !(2..=4).contains(&seats.len()) || active >= seats.len() {
            return Err(PyValueError::new_err("2 to 4 players, active among them"));
        }
        if bag.len() > super::state::Bag::CAPACITY || bag.iter().any(|c| *c >= 4) {
            return Err(PyValueError::new_err("a bag of colours 0..3"));
        }
        let options = options_from_py(options)?;
        let need = seats.len() * super::actions::HAND_SIZE;
        if bag.len() < need {
            return Err(PyValueError::new_err("too few tiles to deal"));
        }
        Ok(PyTigrisState::wrap(State::new_game(
            &seats, options, &bag, active,
        )))
    }

    /// A new game dealt as `random.Random(seed)` deals it (`seed` an absolute integer seed),
    /// for dynasties in seat order and options.
    #[staticmethod]
    fn _new_seeded(
        players: Vec<String>,
        options: &Bound<'_, PyAny>,
        seed: u128,
    ) -> PyResult<PyTigrisState> {
        let seats: Vec<u8> = players
            .iter()
            .map(|n| dynasty_index(n).ok_or_else(|| PyValueError::new_err(format!("{n:?}"))))
            .collect::<PyResult<_>>()?;
        if !(2..=4).contains(&seats.len()) {
            return Err(PyValueError::new_err("2 to 4 players"));
        }
        let options = options_from_py(options)?;
        Ok(PyTigrisState::wrap(State::deal(&seats, options, seed)))
    }

    /// The state of a position dict written by `to_position()` (or accepted by the reference
    /// reader, which `cradle.tigris.from_position` runs first): no rule checks here.
    #[classmethod]
    fn _from_position(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        position: &Bound<'_, PyDict>,
    ) -> PyResult<PyTigrisState> {
        let p = read_position(py, position)?;
        State::from_position(&p)
            .map(PyTigrisState::wrap)
            .map_err(|reason| position_error(py, format!("native position reader: {reason}")))
    }

    /// Dynasties in seat order.
    #[getter]
    fn players<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let st = strings(py);
        PyTuple::new(
            py,
            self.s.players[..self.s.n]
                .iter()
                .map(|d| st.dynasties[*d as usize].bind(py)),
        )
    }

    #[getter]
    fn to_move(&self) -> usize {
        self.s.to_move()
    }

    #[getter]
    fn is_over(&self) -> bool {
        self.s.over
    }

    #[getter]
    fn num_players(&self) -> usize {
        self.s.n
    }

    #[getter]
    fn n(&self) -> usize {
        self.s.n
    }

    /// The seat whose turn it is (`to_move` differs while another seat decides).
    #[getter]
    fn active(&self) -> usize {
        self.s.active
    }

    #[getter]
    fn actions_left(&self) -> i8 {
        self.s.actions_left
    }

    /// The table options (`cradle.tigris.Options`).
    #[getter]
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let cls = OPTIONS.import(py, "cradle.tigris.rules", "Options")?;
        cls.call((), Some(&Self::options_dict(py, &self.s.options)?))
    }

    /// Every legal action of the seat to move, in the notation.
    fn legal_actions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let st = strings(py);
        PyList::new(
            py,
            self.legal()
                .iter()
                .map(|id| st.actions[*id as usize].bind(py)),
        )
    }

    /// The legal actions as ids (positions in `all_action_strings()`), in the same order.
    fn legal_action_ids<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let ids = &strings(py).ids;
        let legal = self.legal();
        // SAFETY: a new list of `legal.len()` empty slots (checked not null) gets exactly that
        // many items, each a new reference to a live int of the table; the GIL is held.
        unsafe {
            let list = Bound::from_owned_ptr_or_err(
                py,
                pyo3::ffi::PyList_New(legal.len() as pyo3::ffi::Py_ssize_t),
            )?;
            let slots = (*list.as_ptr().cast::<pyo3::ffi::PyListObject>()).ob_item;
            for (i, &id) in legal.iter().enumerate() {
                let int = ids[usize::from(id)].as_ptr();
                pyo3::ffi::Py_INCREF(int);
                *slots.add(i) = int;
            }
            Ok(list.cast_into_unchecked())
        }
    }

    /// How many actions are legal (without listing them).
    fn legal_action_count(&mut self) -> usize {
        match &self.legal {
            Some(ids) => ids.len(),
            None => self.s.moves().count(),
        }
    }

    /// The `index`-th legal id (IndexError outside `0..legal_action_count()`).
    fn legal_action_at(&mut self, index: i64) -> PyResult<u16> {
        let count = self.legal_action_count() as i64;
        if !(0..count).contains(&index) {
            return Err(PyIndexError::new_err(format!(
                "legal action index {index} is outside 0..{}",
                count - 1
            )));
        }
        Ok(match &self.legal {
            Some(ids) => ids[index as usize],
            None => self.s.moves().nth(index as usize),
        })
    }

    /// The legal id at `r` modulo the number of legal actions: with `r` 64 random bits, a
    /// uniform random legal action. IndexError when none is legal.
    fn random_action_id(&mut self, r: u64) -> PyResult<u16> {
        let count = self.legal_action_count() as u64;
        if count == 0 {
            return Err(PyIndexError::new_err("no legal action: the game is over"));
        }
        self.legal_action_at((r % count) as i64)
    }

    /// The notation of the fixed id `action_id` (the cached table of `all_action_strings()`);
    /// IllegalAction for a non-int or an id out of range.
    fn action_string<'py>(
        &self,
        py: Python<'py>,
        action_id: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyString>> {
        let id = Self::strict_id(py, action_id)?;
        Ok(strings(py).actions[usize::from(id)].bind(py).clone())
    }

    /// Apply the id `action_id` without building the events (the fast path of search and
    /// training loops); IllegalAction, and no change, for a non-int or an id not legal now.
    fn apply_id(&mut self, py: Python<'_>, action_id: &Bound<'_, PyAny>) -> PyResult<()> {
        // the loops' case first: an int from the legal list just asked for
        if action_id.is_exact_instance_of::<PyInt>() {
            if let Ok(id) = action_id.extract::<u16>() {
                if self.apply_listed(id) {
                    return Ok(());
                }
            }
        }
        Self::strict_id(py, action_id)?;
        self.apply_quiet(py, action_id)
    }

    /// Apply `action` (text or id) for the seat to move; the events. IllegalAction, and no
    /// change, when it is malformed or not legal now.
    fn apply<'py>(
        &mut self,
        py: Python<'py>,
        action: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        if self.s.over {
            return Err(illegal(py, "the game is over".into()));
        }
        let parsed = self.parse(py, action)?;
        let events = self.apply_parsed(py, &parsed)?;
        let names = self.names();
        PyList::new(
            py,
            events
                .iter()
                .map(|e| Self::event_dict(py, e, &names))
                .collect::<PyResult<Vec<_>>>()?,
        )
    }

    /// `apply` without building the events (for search and training loops).
    fn apply_quiet(&mut self, py: Python<'_>, action: &Bound<'_, PyAny>) -> PyResult<()> {
        if self.s.over {
            return Err(illegal(py, "the game is over".into()));
        }
        let parsed = self.parse(py, action)?;
        self.s
            .apply(&parsed, &mut NoEvents)
            .map_err(|reason| illegal(py, reason))?;
        self.changed();
        Ok(())
    }

    /// Play uniform random legal actions (a native RNG seeded by `seed`) until the game is
    /// over, in place; the number of actions played. Other Python threads run meanwhile.
    fn random_playout(&mut self, py: Python<'_>, seed: u64) -> u64 {
        self.changed();
        let state = &mut self.s;
        py.detach(|| state.random_playout(&mut SplitMix64::new(seed)))
    }

    /// An independent copy.
    fn clone(&self, py: Python<'_>) -> PyTigrisState {
        PyTigrisState {
            s: self.s.clone(),
            legal: self.legal.clone(),
            moves: None,
            spare: Vec::new(),
            board: self.board.copy(py),
        }
    }

    fn __copy__(&self, py: Python<'_>) -> PyTigrisState {
        self.clone(py)
    }

    fn __deepcopy__(&self, py: Python<'_>, _memo: &Bound<'_, PyAny>) -> PyTigrisState {
        self.clone(py)
    }

    // -------------------------------------------------- analysis (docs/contract.md)

    /// The game's registry name.
    #[getter]
    fn game(&self) -> &'static str {
        "tigris"
    }

    /// The bag ran short: the game ends with this turn.
    #[getter]
    fn ending(&self) -> bool {
        self.s.ending
    }

    /// The reference's `Geometry` of this board side.
    fn geometry<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pyanalysis::geometry(py, &self.s)
    }

    /// Per cell, what lies on it (None: empty).
    fn contents<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.board.follow(&self.s);
        if let Some(found) = &self.board.contents {
            return Ok(found.bind(py).clone());
        }
        let found = pyanalysis::contents(py, &self.s)?;
        self.board.contents = Some(found.clone().unbind());
        Ok(found)
    }

    /// Every region and kingdom, by their lowest cell.
    fn regions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        Ok(self.regions_now(py)?.0)
    }

    /// Per cell, the index in `regions()` of its region (-1: none).
    fn region_map<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        Ok(self.regions_now(py)?.1)
    }

    /// What one seat holds (Python's list indexing: -1 is the last seat).
    fn dynasty<'py>(
        &self,
        py: Python<'py>,
        seat: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let seat = Self::list_index(py, seat, self.s.n)?;
        pyanalysis::dynasty(py, &self.s, seat)
    }

    fn bag_size(&self) -> usize {
        self.s.bag.len()
    }

    /// The decision in progress as the reference's dataclass, None between actions.
    fn decision<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pyanalysis::decision(py, &self.s)
    }

    /// In a revolt or war: the attacker's and the defender's strength on the board.
    fn conflict_strengths<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pyanalysis::conflict_strengths(py, &self.s)
    }

    /// Pickles as its position (the bag's order included).
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyDict>,))> {
        let restore = slf.get_type().getattr(intern!(py, "_from_position"))?;
        Ok((restore, (slf.borrow().to_position(py)?,)))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        match other.cast::<PyTigrisState>() {
            Ok(other) => (self.s == other.borrow().s).into_py_any(py),
            Err(_) => Ok(py.NotImplemented()),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "<TigrisState native {}p active={} to_move={}>",
            self.s.n,
            self.s.active,
            self.s.to_move()
        )
    }

    /// Per seat: points, treasures, final points, score (lowest colour) and place.
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.result_list(py)
    }

    /// Points per colour once treasures lift the lowest colours.
    fn final_points(&self, seat: usize) -> PyResult<Vec<u32>> {
        if seat >= self.s.n {
            return Err(PyIndexError::new_err("list index out of range"));
        }
        Ok(self.s.final_points(seat).to_vec())
    }

    /// The tiles in `seat`'s hand, as `view(seat)["hand"]` spells them.
    fn hand<'py>(&self, py: Python<'py>, seat: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let seat = Self::list_index(py, seat, self.s.n)?;
        let counts = self.s.hands[seat].map(|c| c as u32);
        Self::colour_list(py, &counts)
    }

    /// The full position (schema in docs/contract.md), as the reference writes it.
    fn to_position<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let p = self.s.to_position();
        let names = self.names();
        let d = PyDict::new(py);
        d.set_item(intern!(py, "options"), Self::options_dict(py, &p.options)?)?;
        d.set_item(intern!(py, "players"), PyList::new(py, &names)?)?;
        d.set_item(intern!(py, "active"), p.active)?;
        d.set_item(intern!(py, "actions_left"), p.actions_left)?;
        d.set_item(intern!(py, "board"), self.board_dict(py)?)?;
        d.set_item(intern!(py, "monuments"), self.monuments_list(py)?)?;
        let hands = PyDict::new(py);
        for (seat, name) in names.iter().enumerate() {
            hands.set_item(
                name,
                Self::colour_list(py, &p.hands[seat].map(|c| c as u32))?,
            )?;
        }
        d.set_item(intern!(py, "hands"), hands)?;
        let colors = &strings(py).colors;
        d.set_item(
            intern!(py, "bag"),
            PyList::new(py, p.bag.iter().map(|c| colors[*c as usize].bind(py)))?,
        )?;
        let points = PyDict::new(py);
        let treasures = PyDict::new(py);
        let catastrophes = PyDict::new(py);
        let discards = PyDict::new(py);
        for (seat, name) in names.iter().enumerate() {
            points.set_item(name, Self::per_colour(py, &p.points[seat])?)?;
            treasures.set_item(name, p.treasures[seat])?;
            catastrophes.set_item(name, p.catastrophes[seat])?;
            discards.set_item(name, Self::colour_list(py, &p.discards[seat])?)?;
        }
        d.set_item(intern!(py, "points"), points)?;
        d.set_item(intern!(py, "treasures"), treasures)?;
        d.set_item(intern!(py, "catastrophes"), catastrophes)?;
        let buildings = PyDict::new(py);
        for (color, at) in p.buildings.iter().enumerate() {
            if let Some(at) = at {
                buildings.set_item(colors[color].bind(py), strings(py).cells[*at].bind(py))?;
            }
        }
        d.set_item(intern!(py, "buildings"), buildings)?;
        d.set_item(intern!(py, "pending"), self.pending_dict(py, false)?)?;
        d.set_item(intern!(py, "discards"), discards)?;
        d.set_item(intern!(py, "removed"), Self::per_colour(py, &p.removed)?)?;
        d.set_item(intern!(py, "ending"), p.ending)?;
        d.set_item(intern!(py, "over"), p.over)?;
        Ok(d)
    }

    /// All that `seat` may know (None: a spectator, public information only).
    #[pyo3(signature = (seat=None))]
    fn view<'py>(
        &self,
        py: Python<'py>,
        seat: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let s = &self.s;
        let n = s.n;
        let seat_obj = seat.filter(|x| !x.is_none());
        let index = match seat_obj {
            None => None,
            Some(x) => {
                let ok = x.is_instance_of::<PyInt>()
                    && x.extract::<i64>().is_ok_and(|i| (0..n as i64).contains(&i));
                if !ok {
                    return Err(PyValueError::new_err(format!(
                        "seat must be 0..{} or None",
                        n - 1
                    )));
                }
                Some(x.extract::<i64>()? as usize)
            }
        };
        let names = self.names();
        let st = strings(py);
        let everyone = s.options.open_scoring || s.over;
        let d = PyDict::new(py);
        d.set_item(intern!(py, "game"), intern!(py, "tigris"))?;
        d.set_item(intern!(py, "seat"), seat_obj)?;
        d.set_item(intern!(py, "options"), Self::options_dict(py, &s.options)?)?;
        d.set_item(intern!(py, "players"), PyList::new(py, &names)?)?;
        d.set_item(intern!(py, "active"), s.active)?;
        d.set_item(intern!(py, "to_move"), s.to_move())?;
        d.set_item(intern!(py, "actions_left"), s.actions_left)?;
        d.set_item(intern!(py, "board"), self.board_dict(py)?)?;
        d.set_item(
            intern!(py, "unification"),
            Self::cell_or_none(py, s.unification),
        )?;
        d.set_item(intern!(py, "monuments"), self.monuments_list(py)?)?;
        let unused = PyList::empty(py);
        for (m, (a, b)) in MONUMENTS.iter().enumerate() {
            if !s.monuments().iter().any(|(built, _)| *built as usize == m) {
                unused.append(PyList::new(
                    py,
                    [st.colors[*a].bind(py), st.colors[*b].bind(py)],
                )?)?;
            }
        }
        d.set_item(intern!(py, "unused_monuments"), unused)?;
        match index {
            Some(i) => d.set_item(
                intern!(py, "hand"),
                Self::colour_list(py, &s.hands[i].map(|c| c as u32))?,
            )?,
            None => d.set_item(intern!(py, "hand"), py.None())?,
        }
        let sizes = PyDict::new(py);
        for (seat, name) in names.iter().enumerate() {
            sizes.set_item(name, s.hands[seat].iter().map(|c| *c as u32).sum::<u32>())?;
        }
        d.set_item(intern!(py, "hand_sizes"), sizes)?;
        d.set_item(intern!(py, "bag_size"), s.bag.len())?;
        let points = PyDict::new(py);
        for (seat, name) in names.iter().enumerate() {
            if everyone || index == Some(seat) {
                points.set_item(name, Self::per_colour(py, &s.points[seat])?)?;
            }
        }
        d.set_item(intern!(py, "points"), points)?;
        let treasures = PyDict::new(py);
        let catastrophes = PyDict::new(py);
        let supply = PyDict::new(py);
        for (seat, name) in names.iter().enumerate() {
            treasures.set_item(name, s.treasures[seat])?;
            catastrophes.set_item(name, s.catastrophes[seat])?;
            let roles = PyList::empty(py);
            for role in [3, 0, 1, 2] {
                if s.leader_cell[4 * seat + role] == super::board::NONE {
                    roles.append(st.roles[role].bind(py))?;
                }
            }
            supply.set_item(name, roles)?;
        }
        d.set_item(intern!(py, "treasures"), treasures)?;
        d.set_item(intern!(py, "catastrophes"), catastrophes)?;
        d.set_item(intern!(py, "supply"), supply)?;
        let buildings = PyDict::new(py);
        for (color, at) in s.buildings.iter().enumerate() {
            if *at != super::board::NONE {
                buildings.set_item(st.colors[color].bind(py), st.cells[*at as usize].bind(py))?;
            }
        }
        d.set_item(intern!(py, "buildings"), buildings)?;
        d.set_item(intern!(py, "wonder"), Self::cell_or_none(py, s.wonder))?;
        d.set_item(intern!(py, "pending"), self.pending_dict(py, true)?)?;
        d.set_item(intern!(py, "ending"), s.ending)?;
        d.set_item(intern!(py, "is_over"), s.over)?;
        if s.over {
            d.set_item(intern!(py, "result"), self.result_list(py)?)?;
        } else {
            d.set_item(intern!(py, "result"), py.None())?;
        }
        Ok(d)
    }

    /// A full state consistent with all `seat` knows: other hands, discards and the bag
    /// re-dealt after `rng.shuffle` of the hidden tiles (the reference's draw from `rng`).
    fn sample_hidden(
        &self,
        py: Python<'_>,
        seat: i64,
        rng: &Bound<'_, PyAny>,
    ) -> PyResult<PyTigrisState> {
        let pool = PyList::new(py, self.s.hidden_pool(seat))?;
        rng.call_method1(intern!(py, "shuffle"), (&pool,))?;
        let shuffled: Vec<u8> = pool.extract()?;
        Ok(self.sibling(py, self.s.deal_hidden(seat, &shuffled)))
    }

    /// `sample_hidden(seat, rng)` for an `rng` whose shuffles sort first (the AI's
    /// `CanonicalRandom(seed)`), without Python: CPython's generator seeded by `seed`.
    fn sample_hidden_seeded(&self, py: Python<'_>, seat: i64, seed: u64) -> PyTigrisState {
        let mut pool = self.s.hidden_pool(seat);
        pool.sort_unstable();
        PyRandom::new(u128::from(seed)).shuffle(&mut pool);
        self.sibling(py, self.s.deal_hidden(seat, &pool))
    }

    /// A copy with every hand and the bag (first drawn first) as given: an exact
    /// determinization. ValueError unless only hidden tiles moved.
    fn with_hidden(
        &self,
        py: Python<'_>,
        hands: &Bound<'_, PyAny>,
        bag: &Bound<'_, PyAny>,
    ) -> PyResult<PyTigrisState> {
        let given = hands.len()?;
        if given != self.s.n {
            return Err(PyValueError::new_err(format!(
                "expected {} hands, got {given}",
                self.s.n
            )));
        }
        let convert = || -> PyResult<(Vec<[u32; 4]>, Vec<u8>)> {
            let mut counts = Vec::new();
            for hand in hands.try_iter()? {
                let mut row = [0u32; 4];
                for name in hand?.try_iter()? {
                    row[Self::lookup_colour(py, &name?)? as usize] += 1;
                }
                counts.push(row);
            }
            let reversed = py.import("builtins")?.getattr("reversed")?.call1((bag,))?;
            let mut new_bag = Vec::new();
            for name in reversed.try_iter()? {
                new_bag.push(Self::lookup_colour(py, &name?)?);
            }
            Ok((counts, new_bag))
        };
        let (counts, new_bag) = convert().map_err(|err| {
            if err.is_instance_of::<PyKeyError>(py) || err.is_instance_of::<PyTypeError>(py) {
                let text = err
                    .value(py)
                    .str()
                    .map(|s| s.to_string())
                    .unwrap_or_default();
                PyValueError::new_err(format!("not a tile colour: {text}"))
            } else {
                err
            }
        })?;
        if counts.len() != self.s.n {
            return Err(PyValueError::new_err(format!(
                "expected {} hands, got {}",
                self.s.n,
                counts.len()
            )));
        }
        self.s
            .with_hidden(&counts, &new_bag)
            .map(PyTigrisState::wrap)
            .map_err(PyValueError::new_err)
    }

    /// Make the bag's next draws `front`, in that order (first drawn first); the other tiles
    /// keep their order. ValueError, and nothing changes, when the bag does not hold them.
    fn order_pile(&mut self, py: Python<'_>, front: &Bound<'_, PyAny>) -> PyResult<()> {
        let convert = || -> PyResult<Vec<u8>> {
            let mut colors = Vec::new();
            for name in front.try_iter()? {
                colors.push(Self::lookup_colour(py, &name?)?);
            }
            Ok(colors)
        };
        let refuse = || -> PyErr {
            let listed = py
                .import("builtins")
                .and_then(|b| b.getattr("map")?.call1((b.getattr("str")?, front)))
                .and_then(|m| PyString::new(py, ", ").call_method1("join", (m,)))
                .and_then(|s| s.extract::<String>());
            match listed {
                Ok(listed) => PyValueError::new_err(format!("the bag does not hold {listed}")),
                Err(err) => err,
            }
        };
        let colors = match convert() {
            Ok(colors) => colors,
            Err(err)
                if err.is_instance_of::<PyKeyError>(py)
                    || err.is_instance_of::<PyTypeError>(py)
                    || err.is_instance_of::<PyValueError>(py) =>
            {
                return Err(refuse())
            }
            Err(err) => return Err(err),
        };
        if !self.s.order_pile(&colors) {
            return Err(refuse());
        }
        self.changed();
        Ok(())
    }
}

/// Every action string in id order (the native table of `all_action_strings()`).
#[pyfunction]
fn tigris_action_strings(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let st = strings(py);
    PyList::new(py, st.actions.iter().map(|s| s.bind(py)))
}

/// A random 2-4 player game played natively to the end from a fresh set-up (for benchmarks):
/// the number of actions. The set-up shuffles with the same native RNG, not the reference's.
#[pyfunction]
#[pyo3(signature = (players, seed, options=None))]
fn tigris_random_game(
    py: Python<'_>,
    players: usize,
    seed: u64,
    options: Option<&Bound<'_, PyAny>>,
) -> PyResult<u64> {
    if !(2..=4).contains(&players) {
        return Err(PyValueError::new_err("players must be 2 to 4"));
    }
    let options = match options {
        Some(o) => options_from_py(o)?,
        None => Options::default(),
    };
    Ok(py.detach(|| {
        let mut rng = SplitMix64::new(seed);
        fresh_game(players, options, &mut rng).random_playout(&mut rng)
    }))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTigrisState>()?;
    m.add_function(wrap_pyfunction!(tigris_action_strings, m)?)?;
    m.add_function(wrap_pyfunction!(tigris_random_game, m)?)?;
    Ok(())
}

impl crate::vector::Steppable for PyTigrisState {
    type Id = u16;

    fn legal_ids_now(&mut self) -> &[u16] {
        self.legal()
    }

    fn step_id(&mut self, _py: Python<'_>, id: u32) -> Result<(), String> {
        if u16::try_from(id).is_ok_and(|id| self.apply_listed(id)) {
            return Ok(());
        }
        let action = u16::try_from(id)
            .ok()
            .and_then(Action::from_id)
            .ok_or_else(|| format!("action id {id} is out of range"))?;
        self.s.apply(&Parsed::Action(action), &mut NoEvents)?;
        self.changed();
        Ok(())
    }

    fn over(&self) -> bool {
        self.s.over
    }

    fn mover(&self) -> usize {
        self.s.to_move()
    }

    fn players(&self) -> usize {
        self.s.n
    }

    fn observation_size(&self) -> usize {
        super::observation::SIZE
    }

    fn observe(&self, seat: usize, out: &mut [f32]) {
        super::observation::observe(&self.s, seat, out);
    }
}
