//! The native search for Python (`cradle.ai.search.native` calls it on native states): one
//! binding, `search`, over a state of either game, its ISMCTS run with the GIL released.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::gheos::py::GheosState;
use crate::gheos::search_game::Judged;
use crate::gheos::{self};
use crate::pymodel::PyModel;
use crate::search::py::{search_detached, PySearchResult, Settings};
use crate::search::{Params, SearchGame};
use crate::tigris::knowledge::TigrisWorld;
use crate::tigris::py::PyTigrisState;
use crate::tigris::{self};

/// The root of a search: a state of one of the games, judged by its knowledge (boxed: one
/// root a search, and the games' states differ in size).
enum Root {
    Tigris(Box<TigrisWorld>),
    Gheos(Box<Judged>),
}

impl Root {
    /// The root of `state` with `knowledge` (the knowledge's settings, read by name) and,
    /// for Tigris, a belief over the hands (per seat, the odds of the 4 colours against a
    /// uniform draw; None: uniform). A copy: other threads may use the state meanwhile.
    fn of(
        state: &Bound<'_, PyAny>,
        knowledge: &Bound<'_, PyAny>,
        belief: Option<Vec<Vec<f64>>>,
    ) -> PyResult<Root> {
        if let Ok(state) = state.cast::<PyTigrisState>() {
            let judging: tigris::pysearch::Judging = knowledge.extract()?;
            let root = tigris::pysearch::search_root(&state.borrow(), &judging, belief)?;
            return Ok(Root::Tigris(Box::new(root)));
        }
        if let Ok(state) = state.cast::<GheosState>() {
            if belief.is_some() {
                return Err(PyValueError::new_err(
                    "a belief over the hands is a Tigris knowledge's",
                ));
            }
            let judging: gheos::pysearch::Judging = knowledge.extract()?;
            let root = gheos::pysearch::search_root(&state.borrow(), &judging)?;
            return Ok(Root::Gheos(Box::new(root)));
        }
        Err(PyTypeError::new_err(
            "the native search runs on a TigrisState or a GheosState",
        ))
    }

    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        py: Python<'_>,
        seat: usize,
        iterations: Option<u64>,
        seconds: Option<f64>,
        floor: Option<u64>,
        params: Params,
        seeds: &[u64],
        only: Option<&[u32]>,
        model: Option<(&PyModel, bool, f64)>,
    ) -> PyResult<PySearchResult> {
        match self {
            Root::Tigris(root) => {
                let learned = model
                    .map(|(m, pure, blend)| m.tigris(root.players(), pure, blend))
                    .transpose()?;
                search_detached(
                    py,
                    &**root,
                    seat,
                    iterations,
                    seconds,
                    floor,
                    params,
                    seeds,
                    only,
                    learned.as_ref(),
                )
            }
            Root::Gheos(root) => {
                let learned = model
                    .map(|(m, pure, blend)| m.gheos(root, pure, blend))
                    .transpose()?;
                search_detached(
                    py,
                    &**root,
                    seat,
                    iterations,
                    seconds,
                    floor,
                    params,
                    seeds,
                    only,
                    learned.as_ref(),
                )
            }
        }
    }
}

/// ISMCTS for `seat` (the seat to move) in `state`, a Tigris or Gheos state: one tree per
/// seed, on threads when there are several. `settings`: the search's
/// (`cradle.ai.search.native.NativeSettings`); `knowledge`: the game knowledge's settings
/// (`TigrisSettings` or `GheosSettings`); `belief`: a Tigris belief over the hands; `model`:
/// a learned network at the leaves (`cradle._native.Model`), alone (`pure`) or mixed into
/// the knowledge's evaluation by `blend` (`crate::search::Learned`). Returns the iterations
/// run and (action id, visits, summed reward) per visited root action.
#[pyfunction]
#[pyo3(signature = (state, seat, iterations, seconds, settings, knowledge, seeds, only=None, floor=None, belief=None, model=None, pure=false, blend=0.5))]
#[allow(clippy::too_many_arguments)]
fn search(
    py: Python<'_>,
    state: &Bound<'_, PyAny>,
    seat: usize,
    iterations: Option<u64>,
    seconds: Option<f64>,
    settings: Settings,
    knowledge: &Bound<'_, PyAny>,
    seeds: Vec<u64>,
    only: Option<Vec<u32>>,
    floor: Option<u64>,
    belief: Option<Vec<Vec<f64>>>,
    model: Option<PyRef<'_, PyModel>>,
    pure: bool,
    blend: f64,
) -> PyResult<PySearchResult> {
    let params = settings.params()?;
    if pure && model.is_none() {
        return Err(PyValueError::new_err(
            "pure (the knowledge off) needs a model to judge the leaves",
        ));
    }
    let root = Root::of(state, knowledge, belief)?;
    root.search(
        py,
        seat,
        iterations,
        seconds,
        floor,
        params,
        &seeds,
        only.as_deref(),
        model.as_deref().map(|m| (m, pure, blend)),
    )
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(search, m)?)?;
    Ok(())
}
