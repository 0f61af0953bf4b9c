//! Python bindings of the Gheos engine: `GheosTiles` (a tile set handed over by
//! `cradle.gheos.engine`) and `GheosState`, the contract of docs/contract.md with the
//! reference's positions, views, events and refusals (raised as `cradle.gheos.IllegalAction`).

mod analysis;
mod convert;
pub(crate) mod knowledge;

use std::sync::Arc;

use pyo3::exceptions::{PyIndexError, PyKeyError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyList, PyString, PyTuple};

use self::convert::{
    action_id_of, check_names, events, from_hidden, hidden_number, malformed_action, name,
    position_dict, position_error, read_position, refusal, standings, summary_dict, t, tile_set,
    view_dict, words, PyHost, TileRow, HIDDEN_NAMES, RESTORE,
};
use crate::gheos::events::Log;
use crate::gheos::notation;
use crate::gheos::parts::Parts;
use crate::gheos::state::State;
use crate::gheos::tiles::TileSet;
use crate::gheos::tracked::Tracked;
use crate::python::cached;
use crate::text::{public_action, viewer_seat};

/// The kinds of action (first word) every seat sees whole: Gheos hides only hands and the
/// stack, never a decision.
const PUBLIC_KINDS: [&str; 9] = [
    "place", "replace", "pay", "migrate", "winner", "start", "take", "token", "pass",
];

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<GheosTiles>()?;
    m.add_class::<GheosState>()?;
    m.add("GHEOS_ACTION_COUNT", notation::ACTION_COUNT)?;
    Ok(())
}

// -- the tile set -------------------------------------------------------------------------------

/// A tile set as the native engine holds it, made from a checked `cradle.gheos.tiles.TileSet`
/// (see `cradle.gheos.engine.native_tiles`).
#[pyclass(module = "cradle._native", frozen)]
pub struct GheosTiles {
    set: Arc<TileSet>,
}

#[pymethods]
impl GheosTiles {
    /// `tiles`: per tile, its regions (edges, wheat, cup, sword, pyramid, temple kind or -1),
    /// its region per cell edge at each rotation, its distinct rotations, text and shape.
    #[new]
    fn new(tiles: Vec<TileRow>) -> PyResult<Self> {
        Ok(GheosTiles {
            set: Arc::new(tile_set(tiles)?),
        })
    }
}

// -- the state ---------------------------------------------------------------------------------

/// A Gheos game on the native engine: the contract of docs/contract.md (see docs/gheos.md and
/// docs/engines.md), and fast paths for search and research.
#[pyclass(module = "cradle._native")]
pub struct GheosState {
    pub(crate) t: Tracked,
    tiles: Py<GheosTiles>,
    /// The reference's TileSet and Options objects (pickling, positions, views).
    tileset: Py<PyAny>,
    options: Py<PyAny>,
    players: Py<PyTuple>,
    /// `areas()` as made for Python, and the state's change count it was made at.
    areas: Option<(u64, Py<PyTuple>)>,
}

impl GheosState {
    fn make(
        py: Python<'_>,
        game: State,
        tiles: Py<GheosTiles>,
        tileset: Py<PyAny>,
        options: Py<PyAny>,
    ) -> PyResult<Self> {
        let players = PyTuple::new(py, game.names.iter())?.unbind();
        Ok(GheosState {
            t: Tracked::new(game),
            tiles,
            tileset,
            options,
            players,
            areas: None,
        })
    }

    pub(crate) fn with_game(&self, py: Python<'_>, game: State) -> GheosState {
        GheosState {
            t: Tracked::new(game),
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
        let other = self.t.s.redeal_hidden(observer, shuffle)?;
        Ok(self.with_game(py, other))
    }

    /// The state changed: forget what was worked out for the old one (`areas` follows the
    /// change count).
    fn changed(&mut self) {
        self.t.changed();
    }

    fn legal_now(&mut self) -> &Vec<u32> {
        self.t.legal()
    }

    /// `areas()` as made for Python, when made since the state last changed.
    fn areas_now(&self) -> Option<&Py<PyTuple>> {
        self.areas
            .as_ref()
            .filter(|(at, _)| *at == self.t.changes())
            .map(|(_, areas)| areas)
    }
}

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
        let game = State::deal(tiles.get().set.clone(), names, &key);
        GheosState::make(py, game, tiles, tileset, options)
    }

    /// The state of a position as `to_position()` writes it, read here (the reference reader,
    /// `cradle.gheos.engine.from_position`, has checked it: no rule checks here).
    #[staticmethod]
    fn from_checked_position(
        py: Python<'_>,
        tiles: Py<GheosTiles>,
        tileset: Py<PyAny>,
        options: Py<PyAny>,
        position: &Bound<'_, PyDict>,
    ) -> PyResult<Self> {
        let (names, parts) = read_position(py, &tiles.get().set, position)?;
        check_names(&names)?;
        let game = State::from_parts(tiles.get().set.clone(), names, &parts)
            .map_err(|reason| position_error(py, format!("native position reader: {reason}")))?;
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
        let game = State::from_parts(tiles.get().set.clone(), names, &parts)
            .map_err(PyValueError::new_err)?;
        GheosState::make(py, game, tiles, tileset, options)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let restore = cached(py, &RESTORE, "cradle.gheos.engine", "restore")?;
        let data = PyBytes::new(py, &self.t.s.to_parts().encode());
        let names: Vec<&str> = self.t.s.names.iter().map(String::as_str).collect();
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
        let game = &self.t.s;
        format!(
            "<native GheosState: {} players, {} to move, phase {}, {} tiles on the map, epoch {}/{}>",
            game.players,
            name(game, usize::from(game.active)),
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
        self.t.s.active
    }

    #[getter]
    fn active(&self) -> u8 {
        self.t.s.active
    }

    #[getter]
    fn is_over(&self) -> bool {
        self.t.s.is_over()
    }

    /// The step awaited: tile, pay, migrate, war, civ, token or over.
    #[getter]
    fn phase(&self) -> &'static str {
        self.t.s.phase.name()
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
        self.t.s.end_epoch()
    }

    fn clone(&self, py: Python<'_>) -> GheosState {
        let mut copy = self.with_game(py, self.t.s.clone());
        copy.areas = self
            .areas_now()
            .map(|a| (copy.t.changes(), a.clone_ref(py)));
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
            self.t.s.write_action(id, &mut text);
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
        self.t.s.epochs
    }

    fn stack_size(&self) -> usize {
        self.t.s.stack.len()
    }

    /// The placed tiles, by cell.
    fn tiles_on_map<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        analysis::tiles_on_map(py, &self.t.s)
    }

    /// Every area, ordered by its first region.
    fn areas<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        if let Some(found) = self.areas_now() {
            return Ok(found.bind(py).clone());
        }
        let found = analysis::areas(py, &self.t.s)?;
        self.areas = Some((self.t.changes(), found.clone().unbind()));
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
        analysis::civilizations(py, &self.t.s)
    }

    /// What one seat holds (Python's list indexing: -1 is the last seat).
    fn player<'py>(&self, py: Python<'py>, seat: i64) -> PyResult<Bound<'py, PyAny>> {
        let players = i64::from(self.t.s.players);
        let index = if seat < 0 { seat + players } else { seat };
        if !(0..players).contains(&index) {
            return Err(PyIndexError::new_err("list index out of range"));
        }
        analysis::player(py, &self.t.s, index as usize)
    }

    /// The notation of the fixed id `action_id` now.
    fn action_string(&self, py: Python<'_>, action_id: &Bound<'_, PyAny>) -> PyResult<String> {
        let id = action_id_of(py, action_id)?;
        self.t.s.action_string(id).map_err(|r| refusal(py, r))
    }

    /// The legal tile actions that start a war or a migration, in the legal order (the
    /// reference's `conflict_actions`).
    fn conflict_actions(&self) -> Vec<String> {
        let mut ids = Vec::new();
        self.t.s.conflict_ids(&mut ids);
        ids.into_iter()
            .map(|id| {
                let mut text = String::with_capacity(32);
                self.t.s.write_action(id, &mut text);
                text
            })
            .collect()
    }

    fn hand(&self, seat: i64) -> PyResult<Vec<String>> {
        let players = i64::from(self.t.s.players);
        let index = if seat < 0 { seat + players } else { seat };
        if !(0..players).contains(&index) {
            return Err(PyIndexError::new_err("list index out of range"));
        }
        let hand = self.t.s.sorted_hand(index as usize);
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
        events(py, &self.t.s, &log.events)
    }

    /// Applies a legal id without making events (fast path); MalformedAction or
    /// DisallowedAction otherwise.
    fn apply_id(&mut self, py: Python<'_>, action_id: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut log = Log::new(false);
        if !action_id.is_instance_of::<PyInt>() || action_id.is_instance_of::<PyBool>() {
            return Err(malformed_action(
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
        let game = &mut self.t.s;
        py.detach(|| game.random_playout(seed))
    }

    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        standings(py, &self.t.s, &self.t.s.result())
    }

    fn to_position<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        position_dict(py, &self.t.s, self.options.bind(py))
    }

    /// What `viewer` (None: a spectator) may know of `action`, made by the seat to move here
    /// (docs/contract.md): every Gheos decision shows on the table.
    #[pyo3(signature = (action, viewer=None))]
    fn public_action(&self, action: &str, viewer: Option<i64>) -> PyResult<String> {
        let players = usize::from(self.t.s.players);
        let viewer = viewer_seat(viewer, players).map_err(PyValueError::new_err)?;
        Ok(public_action(
            action,
            usize::from(self.t.s.active),
            viewer,
            &PUBLIC_KINDS,
        ))
    }

    /// All `seat` may know (None: a spectator, public information only).
    fn view<'py>(&self, py: Python<'py>, seat: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        view_dict(py, &self.t.s, self.options.bind(py), seat)
    }

    /// The view's public numbers without the map: scores, tokens, followers, epochs, and the
    /// areas that matter (with a civilization, or free continents).
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        summary_dict(py, &self.t.s)
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
        let mut rng = crate::cpython_random::CpythonRandom::from_u64(seed);
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
        let game = &self.t.s;
        let players = usize::from(game.players);
        let given = hands.len()?;
        if given != players {
            return Err(PyValueError::new_err(format!(
                "expected {players} hands, got {given}"
            )));
        }
        let names = cached(py, &HIDDEN_NAMES, "cradle.gheos.types", "HIDDEN_NAMES")?;
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
            other.hands[s] = crate::gheos::state::Few::from_slice(&hand);
        }
        let stack: Vec<u8> = stack.into_iter().map(from_hidden).collect();
        other.stack = crate::gheos::state::Few::from_slice(&stack);
        Ok(self.with_game(py, other))
    }

    /// Makes the stack's next draws `front`, in that order (first drawn first); the other
    /// tiles keep their order. ValueError, and nothing changes, when the stack does not hold
    /// those tiles.
    fn order_pile(&mut self, py: Python<'_>, front: &Bound<'_, PyAny>) -> PyResult<()> {
        let names = cached(py, &HIDDEN_NAMES, "cradle.gheos.types", "HIDDEN_NAMES")?;
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
        let stack = self.t.s.stack.as_slice();
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
        self.t.s.stack = crate::gheos::state::Few::from_slice(&rest);
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
            self.t.apply_id(id, &PyHost(py), log)
        } else if let Ok(text) = action.cast::<PyString>() {
            let words = words(text)?;
            self.t.s.apply_words(&words, &PyHost(py), log)
        } else {
            return Err(malformed_action(
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
