//! Tigris values as Python objects and back: the PyO3 conversions the bindings (`mod.rs`) call.
//! Python objects made once (ids, action strings, cell and colour names), the reference's
//! exceptions, actions read from text, ids or the reference's `Action`, events, results,
//! positions and views as the reference's dicts, and positions read back.
//!
//! Where the reference's behaviour is Python's own (a repr in a reason, a KeyError's text, a
//! list index), the same Python operation is called here, so errors read identically.

use pyo3::exceptions::{PyIndexError, PyKeyError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString, PyType};
use std::collections::HashMap;
use std::sync::OnceLock;

use crate::python::cached;
use crate::tigris::actions::{
    action_strings, parse_ascii, Action, Parsed, ACTION_COUNT, COLOURS, DYNASTIES, MONUMENTS, ROLES,
};
use crate::tigris::board::{cell_name, parse_cell, Side, CELLS};
use crate::tigris::events::Event;
use crate::tigris::position::Position;
use crate::tigris::state::{Key, List, Options, Pending, PendingKind, State};

static MALFORMED: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static DISALLOWED: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static POSITION_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static OPTIONS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static PARSE_ACTION: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static ACTION_IDS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static KNOWN_ACTION: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static COLOR_BY_NAME: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static STRINGS: PyOnceLock<Strings> = PyOnceLock::new();

/// Python objects made once: action ids and strings, cell names, colours, roles, dynasties.
pub(super) struct Strings {
    /// The ints 0..ACTION_COUNT: legal lists share them instead of making new ones.
    pub(super) ids: Vec<Py<PyInt>>,
    pub(super) actions: Vec<Py<PyString>>,
    pub(super) cells: Vec<Py<PyString>>,
    pub(super) colors: Vec<Py<PyString>>,
    pub(super) roles: Vec<Py<PyString>>,
    pub(super) dynasties: Vec<Py<PyString>>,
}

pub(super) fn strings(py: Python<'_>) -> &'static Strings {
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
            colors: make(&mut COLOURS.into_iter()),
            roles: make(&mut ROLES.into_iter()),
            dynasties: make(&mut DYNASTIES.into_iter()),
        }
    })
}

pub(super) fn canonical_ids() -> &'static HashMap<&'static str, u16> {
    static IDS: OnceLock<HashMap<&'static str, u16>> = OnceLock::new();
    IDS.get_or_init(|| {
        action_strings()
            .iter()
            .enumerate()
            .map(|(id, text)| (text.as_str(), id as u16))
            .collect()
    })
}

fn raised(
    py: Python<'_>,
    class: &'static PyOnceLock<Py<PyType>>,
    name: &str,
    reason: String,
) -> PyErr {
    match class.import(py, "cradle.tigris.types", name) {
        Ok(ty) => PyErr::from_type(ty.clone(), reason),
        Err(err) => err,
    }
}

/// The reference's MalformedAction: no action of the notation.
pub(super) fn malformed(py: Python<'_>, reason: String) -> PyErr {
    raised(py, &MALFORMED, "MalformedAction", reason)
}

/// The reference's DisallowedAction: an action the rules do not allow now.
pub(super) fn disallowed(py: Python<'_>, reason: String) -> PyErr {
    raised(py, &DISALLOWED, "DisallowedAction", reason)
}

pub(super) fn position_error(py: Python<'_>, reason: String) -> PyErr {
    match POSITION_ERROR.import(py, "cradle.core.positions", "PositionError") {
        Ok(ty) => PyErr::from_type(ty.clone(), reason),
        Err(err) => err,
    }
}

pub(super) fn color_index(name: &str) -> Option<usize> {
    COLOURS.iter().position(|c| *c == name)
}

pub(super) fn names(s: &State) -> Vec<&'static str> {
    s.players[..s.n]
        .iter()
        .map(|d| DYNASTIES[*d as usize])
        .collect()
}

/// The action `action` stands for (text or id), with the reference's reasons otherwise.
pub(super) fn parse(py: Python<'_>, action: &Bound<'_, PyAny>) -> PyResult<Parsed> {
    if let Ok(text) = action.cast::<PyString>() {
        let Ok(text) = text.to_str() else {
            // not valid UTF-8 (a lone surrogate): the reference parser reads it
            return parse_unicode(py, action);
        };
        if let Some(id) = canonical_ids().get(text) {
            return Ok(Parsed::Action(
                Action::from_id(*id).expect("a canonical id"),
            ));
        }
        if text.is_ascii() {
            return parse_ascii(text).map_err(|reason| malformed(py, reason));
        }
        return parse_unicode(py, action);
    }
    if action.is_instance_of::<PyInt>() && !action.is_instance_of::<PyBool>() {
        let id = action.extract::<i64>().ok();
        return match id.filter(|id| (0..ACTION_COUNT as i64).contains(id)) {
            Some(id) => Ok(Parsed::Action(
                Action::from_id(id as u16).expect("an id in range"),
            )),
            None => Err(malformed(
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
    let known = cached(py, &KNOWN_ACTION, "cradle.tigris.actions", "known_action")?;
    reference_action(py, &known.call1((action,))?)
}

/// `action_id` as an id in range: MalformedAction (the reference's reasons) otherwise.
pub(super) fn strict_id(py: Python<'_>, action_id: &Bound<'_, PyAny>) -> PyResult<u16> {
    if !action_id.is_instance_of::<PyInt>() || action_id.is_instance_of::<PyBool>() {
        return Err(malformed(
            py,
            format!(
                "an action id is an integer, not {}",
                action_id.get_type().name()?.to_str()?
            ),
        ));
    }
    match action_id.extract::<i64>() {
        Ok(id) if (0..ACTION_COUNT as i64).contains(&id) => Ok(id as u16),
        _ => Err(malformed(
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
pub(super) fn parse_unicode(py: Python<'_>, action: &Bound<'_, PyAny>) -> PyResult<Parsed> {
    let parse = cached(py, &PARSE_ACTION, "cradle.tigris.actions", "parse_action")?;
    reference_action(py, &parse.call1((action,))?)
}

/// The reference's `Action` as the native one.
pub(super) fn reference_action(py: Python<'_>, parsed: &Bound<'_, PyAny>) -> PyResult<Parsed> {
    let ids = cached(py, &ACTION_IDS, "cradle.tigris.actions", "ACTION_IDS")?;
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

pub(super) fn colour_list<'py>(py: Python<'py>, counts: &[u32; 4]) -> PyResult<Bound<'py, PyList>> {
    let names = &strings(py).colors;
    let list = PyList::empty(py);
    for (color, n) in counts.iter().enumerate() {
        for _ in 0..*n {
            list.append(names[color].bind(py))?;
        }
    }
    Ok(list)
}

pub(super) fn per_colour<'py>(py: Python<'py>, values: &[u32; 4]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (color, v) in values.iter().enumerate() {
        d.set_item(strings(py).colors[color].bind(py), v)?;
    }
    Ok(d)
}

pub(super) fn cell_or_none<'py>(py: Python<'py>, cell: u8) -> Bound<'py, PyAny> {
    if cell == crate::tigris::board::NONE {
        py.None().into_bound(py)
    } else {
        strings(py).cells[cell as usize].bind(py).clone().into_any()
    }
}

pub(super) fn options_dict<'py>(py: Python<'py>, o: &Options) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(intern!(py, "board"), o.side.name())?;
    d.set_item(intern!(py, "buildings"), o.buildings)?;
    d.set_item(intern!(py, "english"), o.english)?;
    d.set_item(intern!(py, "wonder"), o.wonder)?;
    d.set_item(intern!(py, "open_scoring"), o.open_scoring)?;
    Ok(d)
}

pub(super) fn board_dict<'py>(py: Python<'py>, s: &State) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let cells = &strings(py).cells;
    for (cell, text) in s.board_cells() {
        d.set_item(cells[cell].bind(py), text)?;
    }
    Ok(d)
}

pub(super) fn monuments_list<'py>(py: Python<'py>, s: &State) -> PyResult<Bound<'py, PyList>> {
    let st = strings(py);
    let list = PyList::empty(py);
    for (m, cell) in s.monuments() {
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

pub(super) fn pending_dict<'py>(
    py: Python<'py>,
    s: &State,
    public: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let Some(p) = &s.pending else {
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
            Key::Color => d.set_item(name, st.colors[p.color.unwrap_or(0) as usize].bind(py))?,
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
    d.set_item(intern!(py, "placed"), cell_or_none(py, s.placed))?;
    d.set_item(intern!(py, "unification"), cell_or_none(py, s.unification))?;
    if public && matches!(p.kind, PendingKind::Revolt | PendingKind::War) {
        let attacker = p.attacker.unwrap_or(0) as usize;
        let defender = p.defender.unwrap_or(0) as usize;
        d.set_item(
            intern!(py, "attacker_strength"),
            s.base_strength(p, attacker),
        )?;
        d.set_item(
            intern!(py, "defender_strength"),
            s.base_strength(p, defender),
        )?;
    }
    Ok(d.into_any())
}

pub(super) fn result_list<'py>(py: Python<'py>, s: &State) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    let names = names(s);
    for r in s.result() {
        let d = PyDict::new(py);
        d.set_item(intern!(py, "seat"), r.seat)?;
        d.set_item(intern!(py, "dynasty"), names[r.seat])?;
        d.set_item(intern!(py, "points"), per_colour(py, &r.points)?)?;
        d.set_item(intern!(py, "treasures"), r.treasures)?;
        d.set_item(intern!(py, "final"), per_colour(py, &r.final_points)?)?;
        d.set_item(intern!(py, "score"), r.score)?;
        d.set_item(intern!(py, "place"), r.place)?;
        list.append(d)?;
    }
    Ok(list)
}

pub(super) fn event_dict<'py>(
    py: Python<'py>,
    e: &Event,
    names: &[&str],
) -> PyResult<Bound<'py, PyDict>> {
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
                crate::tigris::actions::MONUMENT_NAMES[*monument],
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
pub(super) fn lookup_colour(py: Python<'_>, name: &Bound<'_, PyAny>) -> PyResult<u8> {
    if let Ok(text) = name.cast::<PyString>() {
        if let Some(c) = color_index(text.to_str()?) {
            return Ok(c as u8);
        }
    }
    let table = cached(py, &COLOR_BY_NAME, "cradle.tigris.types", "COLOR_BY_NAME")?;
    table.get_item(name)?.extract()
}

/// The seat index `seat` names in a list of `n` (Python's list indexing, errors included).
pub(super) fn list_index(py: Python<'_>, seat: &Bound<'_, PyAny>, n: usize) -> PyResult<usize> {
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

/// The engine's options as the reference's `Options`.
pub(super) fn options_object<'py>(py: Python<'py>, o: &Options) -> PyResult<Bound<'py, PyAny>> {
    let cls = OPTIONS.import(py, "cradle.tigris.types", "Options")?;
    cls.call((), Some(&options_dict(py, o)?))
}

/// Python's `Options` (or a dict of its fields) as the engine's options.
pub(super) fn options_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Options> {
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

pub(super) fn dynasty_index(name: &str) -> Option<u8> {
    DYNASTIES.iter().position(|d| *d == name).map(|d| d as u8)
}

/// A position dict the reference reader accepted (or `to_position()` wrote) as a
/// [`Position`]; errors say which part the native reader could not take.
pub(super) fn read_position(py: Python<'_>, d: &Bound<'_, PyDict>) -> PyResult<Position> {
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
            for (color, name) in COLOURS.iter().enumerate() {
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
    for (color, name) in COLOURS.iter().enumerate() {
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

/// The full position (schema in docs/contract.md), as the reference writes it.
pub(super) fn position_dict<'py>(py: Python<'py>, s: &State) -> PyResult<Bound<'py, PyDict>> {
    let p = s.to_position();
    let names = names(s);
    let d = PyDict::new(py);
    d.set_item(intern!(py, "options"), options_dict(py, &p.options)?)?;
    d.set_item(intern!(py, "players"), PyList::new(py, &names)?)?;
    d.set_item(intern!(py, "active"), p.active)?;
    d.set_item(intern!(py, "actions_left"), p.actions_left)?;
    d.set_item(intern!(py, "board"), board_dict(py, s)?)?;
    d.set_item(intern!(py, "monuments"), monuments_list(py, s)?)?;
    let hands = PyDict::new(py);
    for (seat, name) in names.iter().enumerate() {
        hands.set_item(name, colour_list(py, &p.hands[seat].map(|c| c as u32))?)?;
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
        points.set_item(name, per_colour(py, &p.points[seat])?)?;
        treasures.set_item(name, p.treasures[seat])?;
        catastrophes.set_item(name, p.catastrophes[seat])?;
        discards.set_item(name, colour_list(py, &p.discards[seat])?)?;
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
    d.set_item(intern!(py, "pending"), pending_dict(py, s, false)?)?;
    d.set_item(intern!(py, "discards"), discards)?;
    d.set_item(intern!(py, "removed"), per_colour(py, &p.removed)?)?;
    d.set_item(intern!(py, "ending"), p.ending)?;
    d.set_item(intern!(py, "over"), p.over)?;
    Ok(d)
}

/// All that `seat` may know (None: a spectator, public information only).
pub(super) fn view_dict<'py>(
    py: Python<'py>,
    s: &State,
    seat: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
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
    let names = names(s);
    let st = strings(py);
    let everyone = s.options.open_scoring || s.over;
    let d = PyDict::new(py);
    d.set_item(intern!(py, "game"), intern!(py, "tigris"))?;
    d.set_item(intern!(py, "seat"), seat_obj)?;
    d.set_item(intern!(py, "options"), options_dict(py, &s.options)?)?;
    d.set_item(intern!(py, "players"), PyList::new(py, &names)?)?;
    d.set_item(intern!(py, "active"), s.active)?;
    d.set_item(intern!(py, "to_move"), s.to_move())?;
    d.set_item(intern!(py, "actions_left"), s.actions_left)?;
    d.set_item(intern!(py, "board"), board_dict(py, s)?)?;
    d.set_item(intern!(py, "unification"), cell_or_none(py, s.unification))?;
    d.set_item(intern!(py, "monuments"), monuments_list(py, s)?)?;
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
            colour_list(py, &s.hands[i].map(|c| c as u32))?,
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
            points.set_item(name, per_colour(py, &s.points[seat])?)?;
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
            if s.leader_cell[4 * seat + role] == crate::tigris::board::NONE {
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
        if *at != crate::tigris::board::NONE {
            buildings.set_item(st.colors[color].bind(py), st.cells[*at as usize].bind(py))?;
        }
    }
    d.set_item(intern!(py, "buildings"), buildings)?;
    d.set_item(intern!(py, "wonder"), cell_or_none(py, s.wonder))?;
    d.set_item(intern!(py, "pending"), pending_dict(py, s, true)?)?;
    d.set_item(intern!(py, "ending"), s.ending)?;
    d.set_item(intern!(py, "is_over"), s.over)?;
    if s.over {
        d.set_item(intern!(py, "result"), result_list(py, s)?)?;
    } else {
        d.set_item(intern!(py, "result"), py.None())?;
    }
    Ok(d)
}
