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

use crate::gheos::py::GheosState;
use crate::tigris::py::PyTigrisState;

/// What the batch needs of a game's native state.
pub trait Steppable {
    type Id: Copy + Into<u32>;
    /// The legal ids now (cached by the state until it changes).
    fn legal_ids_now(&mut self) -> &[Self::Id];
    /// Apply a legal id without events; the reason when it is refused (nothing changed).
    fn step_id(&mut self, py: Python<'_>, id: u32) -> Result<(), String>;
    fn over(&self) -> bool;
    fn mover(&self) -> usize;
    fn players(&self) -> usize;
    /// Elements of one observation tensor.
    fn observation_size(&self) -> usize;
    /// Write the observation of `seat` (a seat of the game) into `out` (every element).
    fn observe(&self, seat: usize, out: &mut [f32]);
}

enum Games {
    Tigris(Vec<Py<PyTigrisState>>),
    Gheos(Vec<Py<GheosState>>),
}

/// N states of one game (all Tigris or all Gheos).
#[pyclass(module = "cradle._native")]
pub struct Batch {
    games: Games,
}

fn legal_of<T: PyClass<Frozen = False> + Steppable>(py: Python<'_>, game: &Py<T>, id: i64) -> bool {
    let mut state = game.borrow_mut(py);
    u32::try_from(id).is_ok_and(|id| state.legal_ids_now().iter().any(|&l| l.into() == id))
}

fn step_all<T: PyClass<Frozen = False> + Steppable>(
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
        if game.borrow(py).over() {
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
        if !skip[i] {
            state
                .step_id(py, actions[i] as u32)
                .map_err(PyValueError::new_err)?;
        }
        over[i] = state.over();
        movers[i] = state.mover() as i64;
    }
    Ok(())
}

fn fill_masks<T: PyClass<Frozen = False> + Steppable>(
    py: Python<'_>,
    games: &[Py<T>],
    masks: &mut numpy::ndarray::ArrayViewMut2<'_, i8>,
) -> PyResult<()> {
    let width = masks.ncols();
    for (i, game) in games.iter().enumerate() {
        let mut state = game.borrow_mut(py);
        if state.over() {
            continue;
        }
        let mut row = masks.row_mut(i);
        for &id in state.legal_ids_now() {
            let id = id.into() as usize;
            if id >= width {
                return Err(PyValueError::new_err(format!(
                    "the mask has {width} columns, the game's ids go to {id}"
                )));
            }
            row[id] = 1;
        }
    }
    Ok(())
}

fn observe_all<T: PyClass<Frozen = False> + Steppable>(
    py: Python<'_>,
    games: &[Py<T>],
    seats: &[i64],
    out: &mut [f32],
    width: usize,
) -> PyResult<()> {
    // checked first: bad input writes nothing
    for (i, game) in games.iter().enumerate() {
        let state = game.borrow(py);
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
        game.borrow(py).observe(seat as usize, row);
    }
    Ok(())
}

fn random_all<T: PyClass<Frozen = False> + Steppable>(
    py: Python<'_>,
    games: &[Py<T>],
    draws: &[u64],
    out: &mut [i64],
) {
    for ((game, &r), id) in games.iter().zip(draws).zip(out) {
        let mut state = game.borrow_mut(py);
        let legal = state.legal_ids_now();
        *id = if legal.is_empty() {
            0
        } else {
            i64::from(legal[(r % legal.len() as u64) as usize].into())
        };
    }
}

impl Batch {
    /// The Tigris games (None for a Gheos batch): for the opponents of `crate::env`.
    pub(crate) fn tigris_games(&self) -> Option<&[Py<PyTigrisState>]> {
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
        let games = if first.is_instance_of::<PyTigrisState>() {
            Games::Tigris(
                states
                    .iter()
                    .map(|s| Ok(s.cast::<PyTigrisState>()?.clone().unbind()))
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
        Ok(Batch { games })
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
            Games::Tigris(g) => g[i] = state.cast::<PyTigrisState>()?.clone().unbind(),
            Games::Gheos(g) => g[i] = state.cast::<GheosState>()?.clone().unbind(),
        }
        Ok(())
    }

    /// Apply `actions[i]` to every game `i` not in `skip`; then `over[i]` tells whether game
    /// `i` has ended and `movers[i]` its seat to move. ValueError, and nothing changes, when
    /// an action is not legal (or a game stepped is already over).
    fn step(
        &mut self,
        py: Python<'_>,
        actions: PyReadonlyArray1<'_, i64>,
        skip: PyReadonlyArray1<'_, bool>,
        mut over: PyReadwriteArray1<'_, bool>,
        mut movers: PyReadwriteArray1<'_, i64>,
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
            Games::Tigris(g) => step_all(py, g, actions, skip, over, movers),
            Games::Gheos(g) => step_all(py, g, actions, skip, over, movers),
        }
    }

    /// Write 1 at each game's legal ids in `masks` (N rows of zeros, one column per id: a
    /// fresh `np.zeros` costs nothing for the columns never written); a finished game's row
    /// stays 0.
    fn masks(&self, py: Python<'_>, mut masks: PyReadwriteArray2<'_, i8>) -> PyResult<()> {
        let mut view = masks.as_array_mut();
        if view.nrows() != self.len() {
            return Err(PyValueError::new_err(format!(
                "the masks need {} rows",
                self.len()
            )));
        }
        match &self.games {
            Games::Tigris(g) => fill_masks(py, g, &mut view),
            Games::Gheos(g) => fill_masks(py, g, &mut view),
        }
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

    /// A uniform random legal id of each game into `out`: the legal id at `draws[i]` modulo
    /// game `i`'s count (`random_action_id`), 0 for a game that is over.
    fn random_actions(
        &self,
        py: Python<'_>,
        draws: PyReadonlyArray1<'_, u64>,
        mut out: PyReadwriteArray1<'_, i64>,
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
            Games::Tigris(g) => random_all(py, g, draws, out),
            Games::Gheos(g) => random_all(py, g, draws, out),
        }
        Ok(())
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Batch>()
}
