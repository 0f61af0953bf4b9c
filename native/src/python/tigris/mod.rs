//! Python bindings of the Tigris engine: `cradle._native.TigrisState`, the same surface as the
//! reference `cradle.tigris.TigrisState` (see docs/contract.md and docs/engines.md). The
//! conversions between Python objects and the engine's values are in `convert.rs`.

mod analysis;
mod convert;
pub(crate) mod knowledge;

use pyo3::exceptions::{PyIndexError, PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList, PyString, PyTuple, PyType};
use pyo3::{intern, IntoPyObjectExt};

use self::convert::{
    colour_list, disallowed, dynasty_index, event_dict, list_index, lookup_colour, names,
    options_from_py, options_object, parse, position_dict, position_error, read_position,
    result_list, strict_id, strings, view_dict,
};
use crate::cpython_random::CpythonRandom;
use crate::splitmix::SplitMix64;
use crate::text::{public_action, viewer_seat};
use crate::tigris::actions::Parsed;
use crate::tigris::analysis::BoardKey;
use crate::tigris::events::{Event, NoEvents};
use crate::tigris::playout::fresh_game;
use crate::tigris::state::{Options, State};
use crate::tigris::tracked::Tracked;

/// The kinds of action (first word) every seat sees whole: all but a swap.
const PUBLIC_KINDS: [&str; 13] = [
    "leader",
    "withdraw",
    "tile",
    "catastrophe",
    "pass",
    "commit",
    "war",
    "monument",
    "treasure",
    "building",
    "wonder",
    "wonderpoint",
    "decline",
];

/// A Tigris & Euphrates game state on the native engine.
#[pyclass(module = "cradle._native", name = "TigrisState")]
pub struct TigrisState {
    /// The state and its legal ids and moves, kept until it changes.
    pub(crate) t: Tracked,
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

impl TigrisState {
    fn wrap(s: State) -> TigrisState {
        TigrisState {
            t: Tracked::new(s),
            board: BoardCache::default(),
        }
    }

    /// A state of the same board as this one (a determinization): the board cache goes along.
    pub(super) fn sibling(&self, py: Python<'_>, s: State) -> TigrisState {
        TigrisState {
            t: Tracked::new(s),
            board: self.board.copy(py),
        }
    }

    fn regions_now<'py>(
        &mut self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyTuple>, Bound<'py, PyTuple>)> {
        self.board.follow(&self.t.s);
        if let Some((r, m)) = &self.board.regions {
            return Ok((r.bind(py).clone(), m.bind(py).clone()));
        }
        let (r, m) = analysis::regions(py, &self.t.s)?;
        self.board.regions = Some((r.clone().unbind(), m.clone().unbind()));
        Ok((r, m))
    }

    /// The state changed: forget its legal actions.
    fn changed(&mut self) {
        self.t.changed();
    }

    fn legal(&mut self) -> &[u16] {
        self.t.legal()
    }

    fn apply_listed(&mut self, id: u16) -> bool {
        self.t.apply_listed(id)
    }

    fn apply_parsed<'py>(&mut self, py: Python<'py>, parsed: &Parsed) -> PyResult<Vec<Event>> {
        let mut events = Vec::new();
        self.t
            .s
            .apply(parsed, &mut events)
            .map_err(|reason| disallowed(py, reason))?;
        self.changed();
        Ok(events)
    }
}

#[pymethods]
impl TigrisState {
    /// States compare by value; they are mutable, so not hashable.
    #[classattr]
    const __hash__: Option<Py<PyAny>> = None;

    /// A new game dealt as `random.Random(seed)` deals it (`seed` an absolute integer seed),
    /// for dynasties in seat order and options.
    #[staticmethod]
    fn deal(players: Vec<String>, options: &Bound<'_, PyAny>, seed: u128) -> PyResult<TigrisState> {
        let seats: Vec<u8> = players
            .iter()
            .map(|n| dynasty_index(n).ok_or_else(|| PyValueError::new_err(format!("{n:?}"))))
            .collect::<PyResult<_>>()?;
        if !(2..=4).contains(&seats.len()) {
            return Err(PyValueError::new_err("2 to 4 players"));
        }
        let options = options_from_py(options)?;
        Ok(TigrisState::wrap(State::deal(&seats, options, seed)))
    }

    /// The state of a position as `to_position()` writes it, read here (the reference reader,
    /// `cradle.tigris.engine.from_position`, has checked it: no rule checks here).
    #[classmethod]
    fn from_checked_position(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        position: &Bound<'_, PyDict>,
    ) -> PyResult<TigrisState> {
        let p = read_position(py, position)?;
        State::from_position(&p)
            .map(TigrisState::wrap)
            .map_err(|reason| position_error(py, format!("native position reader: {reason}")))
    }

    /// Dynasties in seat order.
    #[getter]
    fn players<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let st = strings(py);
        PyTuple::new(
            py,
            self.t.s.players[..self.t.s.n]
                .iter()
                .map(|d| st.dynasties[*d as usize].bind(py)),
        )
    }

    #[getter]
    fn to_move(&self) -> usize {
        self.t.s.to_move()
    }

    #[getter]
    fn is_over(&self) -> bool {
        self.t.s.over
    }

    #[getter]
    fn num_players(&self) -> usize {
        self.t.s.n
    }

    /// The seat whose turn it is (`to_move` differs while another seat decides).
    #[getter]
    fn active(&self) -> usize {
        self.t.s.active
    }

    #[getter]
    fn actions_left(&self) -> i8 {
        self.t.s.actions_left
    }

    /// The table options (`cradle.tigris.Options`).
    #[getter]
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        options_object(py, &self.t.s.options)
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
            // the list's slots written directly; the stable ABI (`make wheel`) hides them
            #[cfg(not(feature = "abi3"))]
            let slots = (*list.as_ptr().cast::<pyo3::ffi::PyListObject>()).ob_item;
            for (i, &id) in legal.iter().enumerate() {
                let int = ids[usize::from(id)].as_ptr();
                pyo3::ffi::Py_INCREF(int);
                #[cfg(not(feature = "abi3"))]
                {
                    *slots.add(i) = int;
                }
                #[cfg(feature = "abi3")]
                pyo3::ffi::PyList_SetItem(list.as_ptr(), i as pyo3::ffi::Py_ssize_t, int);
            }
            Ok(list.cast_into_unchecked())
        }
    }

    /// How many actions are legal (without listing them).
    fn legal_action_count(&mut self) -> usize {
        self.t.legal_count()
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
        Ok(self.t.legal_at(index as usize))
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
    /// MalformedAction for a non-int or an id out of range.
    fn action_string<'py>(
        &self,
        py: Python<'py>,
        action_id: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyString>> {
        let id = strict_id(py, action_id)?;
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
        strict_id(py, action_id)?;
        self.apply_quiet(py, action_id)
    }

    /// Apply `action` (text or id) for the seat to move; the events. MalformedAction (read
    /// first) or DisallowedAction, and no change, when it is malformed or not legal now.
    fn apply<'py>(
        &mut self,
        py: Python<'py>,
        action: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let parsed = parse(py, action)?;
        if self.t.s.over {
            return Err(disallowed(py, "the game is over".into()));
        }
        let events = self.apply_parsed(py, &parsed)?;
        let names = names(&self.t.s);
        PyList::new(
            py,
            events
                .iter()
                .map(|e| event_dict(py, e, &names))
                .collect::<PyResult<Vec<_>>>()?,
        )
    }

    /// `apply` without building the events (for search and training loops).
    fn apply_quiet(&mut self, py: Python<'_>, action: &Bound<'_, PyAny>) -> PyResult<()> {
        let parsed = parse(py, action)?;
        if self.t.s.over {
            return Err(disallowed(py, "the game is over".into()));
        }
        self.t
            .s
            .apply(&parsed, &mut NoEvents)
            .map_err(|reason| disallowed(py, reason))?;
        self.changed();
        Ok(())
    }

    /// Play uniform random legal actions (a native RNG seeded by `seed`) until the game is
    /// over, in place; the number of actions played. Other Python threads run meanwhile.
    fn random_playout(&mut self, py: Python<'_>, seed: u64) -> u64 {
        self.changed();
        let state = &mut self.t.s;
        py.detach(|| state.random_playout(&mut SplitMix64::new(seed)))
    }

    /// An independent copy.
    fn clone(&self, py: Python<'_>) -> TigrisState {
        TigrisState {
            t: self.t.copy(),
            board: self.board.copy(py),
        }
    }

    fn __copy__(&self, py: Python<'_>) -> TigrisState {
        self.clone(py)
    }

    fn __deepcopy__(&self, py: Python<'_>, _memo: &Bound<'_, PyAny>) -> TigrisState {
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
        self.t.s.ending
    }

    /// The reference's `Geometry` of this board side.
    fn geometry<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        analysis::geometry(py, &self.t.s)
    }

    /// Per cell, what lies on it (None: empty).
    fn contents<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.board.follow(&self.t.s);
        if let Some(found) = &self.board.contents {
            return Ok(found.bind(py).clone());
        }
        let found = analysis::contents(py, &self.t.s)?;
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
        let seat = list_index(py, seat, self.t.s.n)?;
        analysis::dynasty(py, &self.t.s, seat)
    }

    fn bag_size(&self) -> usize {
        self.t.s.bag.len()
    }

    /// The decision in progress as the reference's dataclass, None between actions.
    fn decision<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        analysis::decision(py, &self.t.s)
    }

    /// In a revolt or war: the attacker's and the defender's strength on the board.
    fn conflict_strengths<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        analysis::conflict_strengths(py, &self.t.s)
    }

    /// Pickles as its position (the bag's order included).
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyDict>,))> {
        let restore = slf
            .get_type()
            .getattr(intern!(py, "from_checked_position"))?;
        Ok((restore, (slf.borrow().to_position(py)?,)))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        match other.cast::<TigrisState>() {
            Ok(other) => (self.t.s == other.borrow().t.s).into_py_any(py),
            Err(_) => Ok(py.NotImplemented()),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "<TigrisState native {}p active={} to_move={}>",
            self.t.s.n,
            self.t.s.active,
            self.t.s.to_move()
        )
    }

    /// Per seat: points, treasures, final points, score (lowest colour) and place.
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        result_list(py, &self.t.s)
    }

    /// Points per colour once treasures lift the lowest colours.
    fn final_points(&self, seat: usize) -> PyResult<Vec<u32>> {
        if seat >= self.t.s.n {
            return Err(PyIndexError::new_err("list index out of range"));
        }
        Ok(self.t.s.final_points(seat).to_vec())
    }

    /// The tiles in `seat`'s hand, as `view(seat)["hand"]` spells them.
    fn hand<'py>(&self, py: Python<'py>, seat: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let seat = list_index(py, seat, self.t.s.n)?;
        let counts = self.t.s.hands[seat].map(|c| c as u32);
        colour_list(py, &counts)
    }

    /// The full position (schema in docs/contract.md), as the reference writes it.
    fn to_position<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        position_dict(py, &self.t.s)
    }

    /// What `viewer` (None: a spectator) may know of `action`, made by the seat to move here
    /// (docs/contract.md): others learn how many tiles a swap discards, never which.
    #[pyo3(signature = (action, viewer=None))]
    fn public_action(&self, action: &str, viewer: Option<i64>) -> PyResult<String> {
        let viewer = viewer_seat(viewer, self.t.s.n).map_err(PyValueError::new_err)?;
        Ok(public_action(
            action,
            self.t.s.to_move(),
            viewer,
            &PUBLIC_KINDS,
        ))
    }

    /// All that `seat` may know (None: a spectator, public information only).
    #[pyo3(signature = (seat=None))]
    fn view<'py>(
        &self,
        py: Python<'py>,
        seat: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        view_dict(py, &self.t.s, seat)
    }

    /// A full state consistent with all `seat` knows: other hands, discards and the bag
    /// re-dealt after `rng.shuffle` of the hidden tiles (the reference's draw from `rng`).
    fn sample_hidden(
        &self,
        py: Python<'_>,
        seat: i64,
        rng: &Bound<'_, PyAny>,
    ) -> PyResult<TigrisState> {
        let pool = PyList::new(py, self.t.s.hidden_pool(seat))?;
        rng.call_method1(intern!(py, "shuffle"), (&pool,))?;
        let shuffled: Vec<u8> = pool.extract()?;
        Ok(self.sibling(py, self.t.s.deal_hidden(seat, &shuffled)))
    }

    /// `sample_hidden(seat, rng)` for an `rng` whose shuffles sort first (the AI's
    /// `CanonicalRandom(seed)`), without Python: CPython's generator seeded by `seed`.
    fn sample_hidden_seeded(&self, py: Python<'_>, seat: i64, seed: u64) -> TigrisState {
        let mut pool = self.t.s.hidden_pool(seat);
        pool.sort_unstable();
        CpythonRandom::new(u128::from(seed)).shuffle(&mut pool);
        self.sibling(py, self.t.s.deal_hidden(seat, &pool))
    }

    /// A copy with every hand and the bag (first drawn first) as given: an exact
    /// determinization. ValueError unless only hidden tiles moved.
    fn with_hidden(
        &self,
        py: Python<'_>,
        hands: &Bound<'_, PyAny>,
        bag: &Bound<'_, PyAny>,
    ) -> PyResult<TigrisState> {
        let given = hands.len()?;
        if given != self.t.s.n {
            return Err(PyValueError::new_err(format!(
                "expected {} hands, got {given}",
                self.t.s.n
            )));
        }
        let convert = || -> PyResult<(Vec<[u32; 4]>, Vec<u8>)> {
            let mut counts = Vec::new();
            for hand in hands.try_iter()? {
                let mut row = [0u32; 4];
                for name in hand?.try_iter()? {
                    row[lookup_colour(py, &name?)? as usize] += 1;
                }
                counts.push(row);
            }
            let reversed = py.import("builtins")?.getattr("reversed")?.call1((bag,))?;
            let mut new_bag = Vec::new();
            for name in reversed.try_iter()? {
                new_bag.push(lookup_colour(py, &name?)?);
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
        if counts.len() != self.t.s.n {
            return Err(PyValueError::new_err(format!(
                "expected {} hands, got {}",
                self.t.s.n,
                counts.len()
            )));
        }
        self.t
            .s
            .with_hidden(&counts, &new_bag)
            .map(TigrisState::wrap)
            .map_err(PyValueError::new_err)
    }

    /// Make the bag's next draws `front`, in that order (first drawn first); the other tiles
    /// keep their order. ValueError, and nothing changes, when the bag does not hold them.
    fn order_pile(&mut self, py: Python<'_>, front: &Bound<'_, PyAny>) -> PyResult<()> {
        let convert = || -> PyResult<Vec<u8>> {
            let mut colors = Vec::new();
            for name in front.try_iter()? {
                colors.push(lookup_colour(py, &name?)?);
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
        if !self.t.s.order_pile(&colors) {
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
    m.add_class::<TigrisState>()?;
    m.add_function(wrap_pyfunction!(tigris_action_strings, m)?)?;
    m.add_function(wrap_pyfunction!(tigris_random_game, m)?)?;
    Ok(())
}
