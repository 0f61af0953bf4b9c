//! The native search and knowledge for Python (`cradle.ai.ismcts` calls them on native
//! states): `tigris_search` runs ISMCTS with the GIL released, and the `tigris_ai_*` hooks
//! expose the knowledge so the lockstep test can hold it against the Python reference.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::knowledge::{Board, TigrisWorld};
use super::py::PyTigrisState;
use crate::search::py::{model_is_set, search_detached};
use crate::search::{model, Budget, Params, SearchGame};

fn legal_set(world: &mut TigrisWorld) -> Vec<u32> {
    let mut ids = Vec::new();
    world.legal_ids(&mut ids);
    ids
}

/// The knowledge's reward vector of this state (one entry per seat).
#[pyfunction]
#[pyo3(signature = (state, fitted, learned=false))]
fn tigris_ai_rewards(
    state: PyRef<'_, PyTigrisState>,
    fitted: bool,
    learned: bool,
) -> PyResult<Vec<f64>> {
    if learned {
        model_is_set("tigris")?;
    }
    let world = TigrisWorld::new(state.s.clone(), fitted).with_learned(learned);
    Ok(world.rewards()[..state.s.n].to_vec())
}

/// The learned features of every seat of this state (`Board.learned_features`), one row per
/// seat in `cradle.ai.learned.FEATURES["tigris"]` order: what the training data records.
#[pyfunction]
fn tigris_ai_features(state: PyRef<'_, PyTigrisState>) -> Vec<Vec<f64>> {
    let board = Board::read(&state.s);
    (0..state.s.n)
        .map(|seat| board.learned_features(seat).to_vec())
        .collect()
}

/// Give the native search a learned model's weights (`cradle.ai.learned` does, once).
#[pyfunction]
fn ai_set_model(game: &str, weights: Vec<f64>) -> PyResult<()> {
    model::set(game, &weights).map_err(PyValueError::new_err)
}

/// The weights the native search holds for `game` (empty until set).
#[pyfunction]
fn ai_model(game: &str) -> PyResult<Vec<f64>> {
    model::weights(game).map_err(PyValueError::new_err)
}

/// The knowledge's priors of the seat to move for `ids` (each legal now).
#[pyfunction]
fn tigris_ai_priors(state: PyRef<'_, PyTigrisState>, ids: Vec<u32>) -> PyResult<Vec<f64>> {
    let mut world = TigrisWorld::new(state.s.clone(), false);
    let legal = legal_set(&mut world);
    if let Some(bad) = ids.iter().find(|id| !legal.contains(id)) {
        return Err(PyValueError::new_err(format!(
            "action id {bad} is not legal now"
        )));
    }
    let mut out = Vec::new();
    world.priors(&ids, &mut out);
    Ok(out)
}

/// Whether the knowledge would settle a decision in progress before judging.
#[pyfunction]
fn tigris_ai_unsettled(state: PyRef<'_, PyTigrisState>) -> bool {
    TigrisWorld::new(state.s.clone(), false).unsettled()
}

/// The knowledge's commitment for `seat` among `options` (None outside a revolt or war).
#[pyfunction]
fn tigris_ai_best_commit(
    state: PyRef<'_, PyTigrisState>,
    seat: usize,
    options: Vec<u32>,
) -> PyResult<Option<u32>> {
    if seat >= state.s.n || options.is_empty() {
        return Err(PyValueError::new_err(
            "a seat of the game and some options are needed",
        ));
    }
    Ok(Board::read(&state.s).best_commit(seat, &options))
}

/// ISMCTS for `seat` (the seat to move): one tree per seed, on threads when there are several.
/// `params`: exploration, widening, alpha, prior_weight, rollout, playout, batch. Returns the
/// iterations run and (action id, visits, summed reward) per visited root action.
#[pyfunction]
#[pyo3(signature = (state, seat, iterations, seconds, params, seeds, only, fitted, floor=None, learned=false))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn tigris_search(
    py: Python<'_>,
    state: PyRef<'_, PyTigrisState>,
    seat: usize,
    iterations: Option<u64>,
    seconds: Option<f64>,
    params: (f64, f64, f64, f64, usize, usize, usize),
    seeds: Vec<u64>,
    only: Option<Vec<u32>>,
    fitted: bool,
    floor: Option<u64>,
    learned: bool,
) -> PyResult<(u64, Vec<(u32, u64, f64)>)> {
    if learned {
        model_is_set("tigris")?;
    }
    let s = &state.s;
    if s.over {
        return Err(PyValueError::new_err("the game is over: nothing to search"));
    }
    if seat != s.to_move() {
        return Err(PyValueError::new_err(format!(
            "it is seat {}'s decision, not seat {seat}'s",
            s.to_move()
        )));
    }
    let budget =
        Budget::checked(iterations, seconds, floor, &seeds).map_err(PyValueError::new_err)?;
    let params = Params::from_tuple(params);
    let root = TigrisWorld::new(s.clone(), fitted).with_learned(learned);
    // The search reads its own copy: other threads may use the state meanwhile.
    drop(state);
    Ok(search_detached(
        py,
        &root,
        seat,
        budget,
        params,
        &seeds,
        only.as_deref(),
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tigris_ai_rewards, m)?)?;
    m.add_function(wrap_pyfunction!(tigris_ai_features, m)?)?;
    m.add_function(wrap_pyfunction!(ai_set_model, m)?)?;
    m.add_function(wrap_pyfunction!(ai_model, m)?)?;
    m.add_function(wrap_pyfunction!(tigris_ai_priors, m)?)?;
    m.add_function(wrap_pyfunction!(tigris_ai_unsettled, m)?)?;
    m.add_function(wrap_pyfunction!(tigris_ai_best_commit, m)?)?;
    m.add_function(wrap_pyfunction!(tigris_search, m)?)?;
    Ok(())
}
