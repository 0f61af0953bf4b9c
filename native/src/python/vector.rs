//! `cradle._native.Batch`: N native states of one game stepped by one call, for the vectorised
//! environment (`cradle.envs.vector`). Observation tensors (the native encoders of
//! `tigris::observation` and `gheos::observation`, equal to the PettingZoo env's), legal-action
//! masks, the seats to move and the games that ended are written into NumPy arrays the caller
//! owns: no Python object is made per game.

use numpy::{PyReadonlyArray1, PyReadwriteArray1, PyReadwriteArray2};
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::False;
use pyo3::PyClass;

use super::gheos::GheosState;
use super::tigris::TigrisState;
use crate::gheos::compact;
use crate::gheos::observation::{grid, GRID_SIZE};
use crate::steppable::Steppable;

/// A Python class holding a game's state that the batch steps: the state itself is the pure
/// core's ([`Steppable`]), the class only holds it.
pub trait Wraps: PyClass<Frozen = False> {
    type Core: Steppable;
    fn core(&self) -> &Self::Core;
    /// The state, to be changed (the class forgets what it worked out from the old one).
    fn core_mut(&mut self) -> &mut Self::Core;
}

/// A class whose field `t` holds the core state.
macro_rules! wraps_t {
    ($class:ty, $core:ty) => {
        impl Wraps for $class {
            type Core = $core;

            fn core(&self) -> &Self::Core {
                &self.t
            }

            fn core_mut(&mut self) -> &mut Self::Core {
                &mut self.t
            }
        }
    };
}

wraps_t!(TigrisState, crate::tigris::Tracked);
wraps_t!(GheosState, crate::gheos::Tracked);

enum Games {
    Tigris(Vec<Py<TigrisState>>),
    Gheos(Vec<Py<GheosState>>),
}

/// N states of one game (all Tigris or all Gheos).
#[pyclass(module = "cradle._native")]
pub struct Batch {
    games: Games,
    /// Where `masks` last wrote its ones, per output buffer (its address; the last few): a
    /// buffer passed again with `reuse` gets only those cleared, not all its columns.
    written: Vec<(usize, Vec<usize>)>,
}

/// How many buffers' ones `Batch::masks` remembers.
const REMEMBERED: usize = 4;

fn legal_of<T: Wraps>(py: Python<'_>, game: &Py<T>, id: i64) -> bool {
    let mut state = game.borrow_mut(py);
    let state = state.core_mut();
    u32::try_from(id).is_ok_and(|id| state.legal_ids_now().iter().any(|&l| l.into() == id))
}

fn step_all<T: Wraps>(
    py: Python<'_>,
    games: &[Py<T>],
    actions: &[i64],
    skip: &[bool],
    over: &mut [bool],
    movers: &mut [i64],
) -> PyResult<()> {
    // every action is checked before any is applied: a bad one changes nothing
    for (i, game) in games.iter().enumerate() {
        if skip[i] {
            continue;
        }
        if game.borrow(py).core().over() {
            return Err(PyValueError::new_err(format!(
                "game {i} is over: reset it before stepping it"
            )));
        }
        if !legal_of(py, game, actions[i]) {
            return Err(PyValueError::new_err(format!(
                "action {} is not legal in game {i} now (use the action mask)",
                actions[i]
            )));
        }
    }
    for (i, game) in games.iter().enumerate() {
        let mut state = game.borrow_mut(py);
        let state = state.core_mut();
        if !skip[i] {
            state
                .step_id(actions[i] as u32)
                .map_err(PyValueError::new_err)?;
        }
        over[i] = state.over();
        movers[i] = state.mover() as i64;
    }
    Ok(())
}

/// Write 1 at each live game's ids (`ids_of` lists them into its scratch vector) in the
/// C-order `masks` of `width` columns, and push the flat positions written to `written`.
fn fill_masks<T: Wraps>(
    py: Python<'_>,
    games: &[Py<T>],
    masks: &mut [i8],
    width: usize,
    ids_of: impl Fn(&mut T::Core, &mut Vec<u32>) -> Result<(), String>,
    written: &mut Vec<usize>,
) -> PyResult<()> {
    let mut ids = Vec::new();
    for (i, game) in games.iter().enumerate() {
        let mut state = game.borrow_mut(py);
        let state = state.core_mut();
        if state.over() {
            continue;
        }
        ids.clear();
        ids_of(state, &mut ids).map_err(PyValueError::new_err)?;
        for &id in &ids {
            let id = id as usize;
            if id >= width {
                return Err(PyValueError::new_err(format!(
                    "the mask has {width} columns, the game's ids go to {id}"
                )));
            }
            masks[i * width + id] = 1;
            written.push(i * width + id);
        }
    }
    Ok(())
}

fn engine_ids<T: Steppable>(state: &mut T, out: &mut Vec<u32>) -> Result<(), String> {
    out.extend(state.legal_ids_now().iter().map(|&id| id.into()));
    Ok(())
}

fn compact_ids(state: &mut crate::gheos::Tracked, out: &mut Vec<u32>) -> Result<(), String> {
    out.extend_from_slice(state.legal_ids_now());
    for id in out.iter_mut() {
        *id = compact::compact(&state.s, *id)
            .ok_or_else(|| format!("legal id {id} has no compact id"))?;
    }
    Ok(())
}

fn observe_all<T: Wraps>(
    py: Python<'_>,
    games: &[Py<T>],
    seats: &[i64],
    out: &mut [f32],
    width: usize,
) -> PyResult<()> {
    // checked first: bad input writes nothing
    for (i, game) in games.iter().enumerate() {
        let state = game.borrow(py);
        let state = state.core();
        if state.observation_size() != width {
            return Err(PyValueError::new_err(format!(
                "the observations need {} columns for game {i}, not {width}",
                state.observation_size()
            )));
        }
        if !usize::try_from(seats[i]).is_ok_and(|seat| seat < state.players()) {
            return Err(PyValueError::new_err(format!(
                "seat {} is not a seat of game {i} (0..{})",
                seats[i],
                state.players() - 1
            )));
        }
    }
    for ((game, &seat), row) in games.iter().zip(seats).zip(out.chunks_exact_mut(width)) {
        game.borrow(py).core().observe(seat as usize, row);
    }
    Ok(())
}

fn random_all<T: Wraps>(py: Python<'_>, games: &[Py<T>], draws: &[u64], out: &mut [i64]) {
    for ((game, &r), id) in games.iter().zip(draws).zip(out) {
        let mut state = game.borrow_mut(py);
        let legal = state.core_mut().legal_ids_now();
        *id = if legal.is_empty() {
            0
        } else {
            i64::from(legal[(r % legal.len() as u64) as usize].into())
        };
    }
}

/// The engine ids of compact `actions` (games in `skip` get 0); ValueError for an id that
/// names no action of its game's table (nothing has changed yet).
fn engine_actions(
    py: Python<'_>,
    games: &[Py<GheosState>],
    actions: &[i64],
    skip: &[bool],
) -> PyResult<Vec<i64>> {
    let mut engine = vec![0; games.len()];
    for (i, game) in games.iter().enumerate() {
        if skip[i] {
            continue;
        }
        let id = u32::try_from(actions[i])
            .ok()
            .and_then(|id| compact::engine(&game.borrow(py).t.s, id))
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "action {} is not legal in game {i} now (use the action mask)",
                    actions[i]
                ))
            })?;
        engine[i] = i64::from(id);
    }
    Ok(engine)
}

impl Batch {
    /// The Tigris games (None for a Gheos batch): for the opponents of `super::env`.
    pub(crate) fn tigris_games(&self) -> Option<&[Py<TigrisState>]> {
        match &self.games {
            Games::Tigris(g) => Some(g),
            Games::Gheos(_) => None,
        }
    }

    /// The Gheos games (None for a Tigris batch).
    pub(crate) fn gheos_games(&self) -> Option<&[Py<GheosState>]> {
        match &self.games {
            Games::Gheos(g) => Some(g),
            Games::Tigris(_) => None,
        }
    }

    fn len(&self) -> usize {
        match &self.games {
            Games::Tigris(g) => g.len(),
            Games::Gheos(g) => g.len(),
        }
    }

    fn index(&self, i: i64) -> PyResult<usize> {
        usize::try_from(i)
            .ok()
            .filter(|&i| i < self.len())
            .ok_or_else(|| PyIndexError::new_err(format!("game {i} is outside 0..{}", self.len())))
    }
}

#[pymethods]
impl Batch {
    /// A batch of the given native states (at least one; all of one game).
    #[new]
    fn new(states: Vec<Bound<'_, PyAny>>) -> PyResult<Batch> {
        let Some(first) = states.first() else {
            return Err(PyValueError::new_err("a batch needs at least one state"));
        };
        let games = if first.is_instance_of::<TigrisState>() {
            Games::Tigris(
                states
                    .iter()
                    .map(|s| Ok(s.cast::<TigrisState>()?.clone().unbind()))
                    .collect::<PyResult<_>>()?,
            )
        } else if first.is_instance_of::<GheosState>() {
            Games::Gheos(
                states
                    .iter()
                    .map(|s| Ok(s.cast::<GheosState>()?.clone().unbind()))
                    .collect::<PyResult<_>>()?,
            )
        } else {
            return Err(PyTypeError::new_err(
                "a batch holds native TigrisState or GheosState objects",
            ));
        };
        Ok(Batch {
            games,
            written: Vec::new(),
        })
    }

    fn __len__(&self) -> usize {
        self.len()
    }

    /// The state of game `i` (the object itself: changing it changes the batch).
    fn get(&self, py: Python<'_>, i: i64) -> PyResult<Py<PyAny>> {
        let i = self.index(i)?;
        Ok(match &self.games {
            Games::Tigris(g) => g[i].clone_ref(py).into_any(),
            Games::Gheos(g) => g[i].clone_ref(py).into_any(),
        })
    }

    /// Put `state` (of the batch's game) in place of game `i`.
    fn set(&mut self, i: i64, state: &Bound<'_, PyAny>) -> PyResult<()> {
        let i = self.index(i)?;
        match &mut self.games {
            Games::Tigris(g) => g[i] = state.cast::<TigrisState>()?.clone().unbind(),
            Games::Gheos(g) => g[i] = state.cast::<GheosState>()?.clone().unbind(),
        }
        Ok(())
    }

    /// Apply `actions[i]` to every game `i` not in `skip`; then `over[i]` tells whether game
    /// `i` has ended and `movers[i]` its seat to move. ValueError, and nothing changes, when
    /// an action is not legal (or a game stepped is already over). `compact` (Gheos): the
    /// actions are compact ids (`cradle.envs.gheos_compact`) of each game's table now.
    #[pyo3(signature = (actions, skip, over, movers, compact = false))]
    fn step(
        &mut self,
        py: Python<'_>,
        actions: PyReadonlyArray1<'_, i64>,
        skip: PyReadonlyArray1<'_, bool>,
        mut over: PyReadwriteArray1<'_, bool>,
        mut movers: PyReadwriteArray1<'_, i64>,
        compact: bool,
    ) -> PyResult<()> {
        let n = self.len();
        let actions = actions.as_slice()?;
        let skip = skip.as_slice()?;
        let over = over.as_slice_mut()?;
        let movers = movers.as_slice_mut()?;
        if [actions.len(), skip.len(), over.len(), movers.len()] != [n; 4] {
            return Err(PyValueError::new_err(format!(
                "actions, skip, over and movers need {n} entries each"
            )));
        }
        match &self.games {
            Games::Tigris(g) if !compact => step_all(py, g, actions, skip, over, movers),
            Games::Gheos(g) if !compact => step_all(py, g, actions, skip, over, movers),
            Games::Gheos(g) => {
                let engine = engine_actions(py, g, actions, skip)?;
                step_all(py, g, &engine, skip, over, movers)
            }
            Games::Tigris(_) => Err(PyValueError::new_err(
                "compact action ids are Gheos': Tigris has only the engine's",
            )),
        }
    }

    /// The engine ids of the compact ids `actions` (Gheos, `cradle.envs.gheos_compact`) of
    /// each game's table now into `out`; 0 for the games in `skip`. ValueError for an id
    /// that names no action of its table (nothing is written then).
    fn engine_ids(
        &self,
        py: Python<'_>,
        actions: PyReadonlyArray1<'_, i64>,
        skip: PyReadonlyArray1<'_, bool>,
        mut out: PyReadwriteArray1<'_, i64>,
    ) -> PyResult<()> {
        let Games::Gheos(games) = &self.games else {
            return Err(PyValueError::new_err(
                "compact action ids are Gheos': Tigris has only the engine's",
            ));
        };
        let n = games.len();
        let (actions, skip, out) = (actions.as_slice()?, skip.as_slice()?, out.as_slice_mut()?);
        if [actions.len(), skip.len(), out.len()] != [n; 3] {
            return Err(PyValueError::new_err(format!(
                "actions, skip and out need {n} entries each"
            )));
        }
        out.copy_from_slice(&engine_actions(py, games, actions, skip)?);
        Ok(())
    }

    /// Write 1 at each game's legal ids in `masks` (N rows of zeros, C order, one column per
    /// id: a fresh `np.zeros` costs nothing for the columns never written); a finished game's
    /// row stays 0. `compact` (Gheos): the compact ids of `cradle.envs.gheos_compact` instead
    /// of the engine's. `reuse`: `masks` is a buffer this batch wrote before (and nobody
    /// changed since): only the ones it wrote then are cleared first, so a large buffer is
    /// recycled without zeroing all its columns.
    #[pyo3(signature = (masks, compact = false, reuse = false))]
    fn masks(
        &mut self,
        py: Python<'_>,
        mut masks: PyReadwriteArray2<'_, i8>,
        compact: bool,
        reuse: bool,
    ) -> PyResult<()> {
        let (rows, width) = masks.as_array().dim();
        if rows != self.len() {
            return Err(PyValueError::new_err(format!(
                "the masks need {} rows",
                self.len()
            )));
        }
        let out = masks
            .as_slice_mut()
            .map_err(|_| PyValueError::new_err("the masks must be a C-contiguous array"))?;
        let address = out.as_ptr() as usize;
        let known = self.written.iter().position(|(a, _)| *a == address);
        let mut written = match known {
            Some(k) => self.written.remove(k).1,
            None => Vec::new(),
        };
        if reuse && known.is_none() {
            out.fill(0); // not one of the buffers remembered: cleared whole
        } else if reuse {
            for &at in &written {
                if let Some(cell) = out.get_mut(at) {
                    *cell = 0;
                }
            }
        }
        written.clear();
        let filled = match &self.games {
            Games::Tigris(g) if !compact => fill_masks(py, g, out, width, engine_ids, &mut written),
            Games::Gheos(g) if !compact => fill_masks(py, g, out, width, engine_ids, &mut written),
            Games::Gheos(g) => fill_masks(py, g, out, width, compact_ids, &mut written),
            Games::Tigris(_) => Err(PyValueError::new_err(
                "compact action ids are Gheos': Tigris has only the engine's",
            )),
        };
        if self.written.len() >= REMEMBERED {
            self.written.remove(0);
        }
        self.written.push((address, written));
        filled
    }

    /// Write into row `i` of `out` (N rows, C order, one column per element of the game's
    /// tensor) the observation of seat `seats[i]` of game `i`: the PettingZoo env's tensor for
    /// that seat. ValueError, and nothing is written, for a seat outside a game or a wrong
    /// shape.
    fn observe(
        &self,
        py: Python<'_>,
        seats: PyReadonlyArray1<'_, i64>,
        mut out: PyReadwriteArray2<'_, f32>,
    ) -> PyResult<()> {
        let n = self.len();
        let seats = seats.as_slice()?;
        let (rows, width) = out.as_array().dim();
        if seats.len() != n || rows != n {
            return Err(PyValueError::new_err(format!(
                "seats and the observations need {n} entries and rows"
            )));
        }
        let out = out
            .as_slice_mut()
            .map_err(|_| PyValueError::new_err("the observations must be a C-contiguous array"))?;
        match &self.games {
            Games::Tigris(g) => observe_all(py, g, seats, out, width),
            Games::Gheos(g) => observe_all(py, g, seats, out, width),
        }
    }

    /// Write into row `i` of `out` (N rows, C order) what seat `seats[i]` of game `i` can
    /// count from memory: the information-state tensor's last part (docs/openspiel.md;
    /// Tigris 12 counts, Gheos a flag per tile). ValueError, and nothing is written, for a
    /// seat outside a game or a wrong shape.
    fn observe_memory(
        &self,
        py: Python<'_>,
        seats: PyReadonlyArray1<'_, i64>,
        mut out: PyReadwriteArray2<'_, f32>,
    ) -> PyResult<()> {
        let n = self.len();
        let seats = seats.as_slice()?;
        let (rows, width) = out.as_array().dim();
        let players = |i: usize| match &self.games {
            Games::Tigris(g) => g[i].borrow(py).t.s.n,
            Games::Gheos(g) => usize::from(g[i].borrow(py).t.s.players),
        };
        let wanted = match &self.games {
            Games::Tigris(_) => crate::tigris::observation::MEMORY,
            Games::Gheos(g) => g.first().map_or(0, |s| s.borrow(py).t.s.tiles.tiles.len()),
        };
        if seats.len() != n || rows != n || width != wanted {
            return Err(PyValueError::new_err(format!(
                "seats and the memories need {n} entries and rows of {wanted}"
            )));
        }
        for (i, &seat) in seats.iter().enumerate() {
            if !usize::try_from(seat).is_ok_and(|seat| seat < players(i)) {
                return Err(PyValueError::new_err(format!(
                    "seat {seat} is not a seat of game {i}"
                )));
            }
        }
        let out = out
            .as_slice_mut()
            .map_err(|_| PyValueError::new_err("the memories must be a C-contiguous array"))?;
        for (i, row) in out.chunks_exact_mut(width.max(1)).enumerate() {
            let seat = seats[i] as usize;
            match &self.games {
                Games::Tigris(g) => {
                    crate::tigris::observation::memory(&g[i].borrow(py).t.s, seat, row)
                }
                Games::Gheos(g) => {
                    crate::gheos::observation::memory(&g[i].borrow(py).t.s, seat, row)
                }
            }
        }
        Ok(())
    }

    /// Write into row `i` of `out` (N rows, C order, `GRID_SIZE` columns: channels x rows x
    /// columns) the grid tensor of game `i`'s map (Gheos; `cradle.envs.gheos_grid`, the same
    /// for every seat). Tigris' board is the first part of its observation already.
    fn observe_grid(&self, py: Python<'_>, mut out: PyReadwriteArray2<'_, f32>) -> PyResult<()> {
        let Games::Gheos(games) = &self.games else {
            return Err(PyValueError::new_err(
                "the grid tensor is Gheos': Tigris' board is its observation's first part",
            ));
        };
        let (rows, width) = out.as_array().dim();
        if rows != games.len() || width != GRID_SIZE {
            return Err(PyValueError::new_err(format!(
                "the grids need {} rows of {GRID_SIZE}",
                games.len()
            )));
        }
        let out = out
            .as_slice_mut()
            .map_err(|_| PyValueError::new_err("the grids must be a C-contiguous array"))?;
        for (game, row) in games.iter().zip(out.chunks_exact_mut(GRID_SIZE)) {
            grid(&game.borrow(py).t.s, row);
        }
        Ok(())
    }

    /// A uniform random legal id of each game into `out`: the legal id at `draws[i]` modulo
    /// game `i`'s count (`random_action_id`), 0 for a game that is over; `compact` (Gheos):
    /// its compact id.
    #[pyo3(signature = (draws, out, compact = false))]
    fn random_actions(
        &self,
        py: Python<'_>,
        draws: PyReadonlyArray1<'_, u64>,
        mut out: PyReadwriteArray1<'_, i64>,
        compact: bool,
    ) -> PyResult<()> {
        let n = self.len();
        let draws = draws.as_slice()?;
        let out = out.as_slice_mut()?;
        if draws.len() != n || out.len() != n {
            return Err(PyValueError::new_err(format!(
                "draws and out need {n} entries each"
            )));
        }
        match &self.games {
            Games::Tigris(g) if !compact => random_all(py, g, draws, out),
            Games::Gheos(g) => {
                random_all(py, g, draws, out);
                if compact {
                    for (game, id) in g.iter().zip(out.iter_mut()) {
                        let state = game.borrow(py);
                        if !state.t.over() {
                            *id = i64::from(
                                compact::compact(&state.t.s, *id as u32).unwrap_or_default(),
                            );
                        }
                    }
                }
            }
            Games::Tigris(_) => {
                return Err(PyValueError::new_err(
                    "compact action ids are Gheos': Tigris has only the engine's",
                ))
            }
        }
        Ok(())
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Batch>()
}
