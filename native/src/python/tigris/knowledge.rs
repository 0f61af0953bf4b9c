//! The Tigris knowledge for Python: the root of a native search (`super::super::search`), and the
//! `tigris_ai_*` hooks that expose the knowledge so the lockstep test can hold it against
//! the Python reference.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::TigrisState;
use crate::python::search::model_is_set;
use crate::search::model;
use crate::search::tree_worlds;
use crate::search::SearchGame;
use crate::tigris::knowledge::{Reading, Shares, Value, World, UNIFORM};

/// The evaluation `value` (1 or 2) Python asks for, or a clear error.
fn value_of(value: u8) -> PyResult<Value> {
    Value::try_from(value).map_err(PyValueError::new_err)
}

/// A belief from Python (per seat, the odds of the 4 colours against a uniform draw),
/// checked.
fn shares_of(belief: Option<Vec<Vec<f64>>>, players: usize) -> PyResult<Option<Shares>> {
    let Some(rows) = belief else {
        return Ok(None);
    };
    if rows.len() != players {
        return Err(PyValueError::new_err(format!(
            "a belief of {} seats for {players} players",
            rows.len()
        )));
    }
    let mut shares = UNIFORM;
    for (seat, row) in rows.iter().enumerate() {
        if row.len() != 4 || row.iter().any(|x| !x.is_finite() || *x <= 0.0) {
            return Err(PyValueError::new_err(
                "a belief gives each seat 4 positive colour odds",
            ));
        }
        shares[seat].copy_from_slice(row);
    }
    Ok(Some(shares))
}

fn legal_set(world: &mut World) -> Vec<u32> {
    let mut ids = Vec::new();
    world.legal_ids(&mut ids);
    ids
}

/// The knowledge's reward vector of this state (one entry per seat).
#[pyfunction]
#[pyo3(signature = (state, belief=None, value=1, learned=false))]
fn tigris_ai_rewards(
    state: PyRef<'_, TigrisState>,
    belief: Option<Vec<Vec<f64>>>,
    value: u8,
    learned: bool,
) -> PyResult<Vec<f64>> {
    if learned {
        model_is_set("tigris")?;
    }
    let shares = shares_of(belief, state.t.s.n)?;
    let world = World::valued(state.t.s.clone(), value_of(value)?)
        .believing(shares)
        .with_learned(learned);
    Ok(world.rewards()[..state.t.s.n].to_vec())
}

/// The learned features of every seat of this state (`Reading.learned_features`, read with
/// the lowest colour as the learned model always is), one row per seat in
/// `cradle.ai.knowledge.learned.FEATURES["tigris"]` order: what the training data records.
#[pyfunction]
fn tigris_ai_features(state: PyRef<'_, TigrisState>) -> Vec<Vec<f64>> {
    let board = Reading::read_valued(&state.t.s, Value::LowestColour);
    (0..state.t.s.n)
        .map(|seat| board.learned_features(seat).to_vec())
        .collect()
}

/// Give the native search a learned model's weights (`cradle.ai.knowledge.learned` does, once).
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
#[pyo3(signature = (state, ids, belief=None, value=1))]
fn tigris_ai_priors(
    state: PyRef<'_, TigrisState>,
    ids: Vec<u32>,
    belief: Option<Vec<Vec<f64>>>,
    value: u8,
) -> PyResult<Vec<f64>> {
    let shares = shares_of(belief, state.t.s.n)?;
    let mut world = World::valued(state.t.s.clone(), value_of(value)?).believing(shares);
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
fn tigris_ai_unsettled(state: PyRef<'_, TigrisState>) -> bool {
    World::new(state.t.s.clone()).unsettled()
}

/// The knowledge's commitment for `seat` among `options` (None outside a revolt or war).
#[pyfunction]
#[pyo3(signature = (state, seat, options, belief=None, value=1))]
fn tigris_ai_best_commit(
    state: PyRef<'_, TigrisState>,
    seat: usize,
    options: Vec<u32>,
    belief: Option<Vec<Vec<f64>>>,
    value: u8,
) -> PyResult<Option<u32>> {
    let value = value_of(value)?;
    if seat >= state.t.s.n || options.is_empty() {
        return Err(PyValueError::new_err(
            "a seat of the game and some options are needed",
        ));
    }
    let shares = shares_of(belief, state.t.s.n)?;
    Ok(Reading::read_full(&state.t.s, shares, value).best_commit(seat, &options))
}

/// The search's world for `observer` drawn with `seed` (`World::determinize`, dealt by
/// the belief when one is given), for the lockstep test against the reference's worlds.
#[pyfunction]
#[pyo3(signature = (state, observer, seed, belief=None))]
fn tigris_ai_world(
    py: Python<'_>,
    state: PyRef<'_, TigrisState>,
    observer: usize,
    seed: u64,
    belief: Option<Vec<Vec<f64>>>,
) -> PyResult<TigrisState> {
    if observer >= state.t.s.n {
        return Err(PyValueError::new_err(format!("no seat {observer}")));
    }
    let shares = shares_of(belief, state.t.s.n)?;
    let world = World::new(state.t.s.clone()).believing(shares);
    Ok(state.sibling(py, world.determinize(observer, seed).s))
}

/// The first `count` worlds a search tree deals for `observer` from `CanonicalRandom(seed)`
/// (`crate::search::tree_worlds`; by the belief when one is given), for the lockstep test
/// against the reference's `next_world`.
#[pyfunction]
#[pyo3(signature = (state, observer, seed, count, belief=None))]
fn tigris_ai_worlds(
    py: Python<'_>,
    state: PyRef<'_, TigrisState>,
    observer: usize,
    seed: u64,
    count: usize,
    belief: Option<Vec<Vec<f64>>>,
) -> PyResult<Vec<TigrisState>> {
    let shares = shares_of(belief, state.t.s.n)?;
    let root = World::new(state.t.s.clone()).believing(shares);
    Ok(tree_worlds(&root, observer, seed, count)
        .map_err(PyValueError::new_err)?
        .into_iter()
        .map(|world| state.sibling(py, world.s))
        .collect())
}

/// A Tigris knowledge's settings, read off the Python object by name
/// (`cradle.ai.knowledge.tigris.TigrisSettings`).
#[derive(FromPyObject)]
pub struct Judging {
    #[pyo3(attribute)]
    value: u8,
    #[pyo3(attribute)]
    learned: bool,
}

/// The root of a Tigris search: the state, judged as `judging` says, dealt by the belief.
pub fn search_root(
    state: &TigrisState,
    judging: &Judging,
    belief: Option<Vec<Vec<f64>>>,
) -> PyResult<World> {
    if judging.learned {
        model_is_set("tigris")?;
    }
    let value = value_of(judging.value)?;
    let shares = shares_of(belief, state.t.s.n)?;
    Ok(World::valued(state.t.s.clone(), value)
        .believing(shares)
        .with_learned(judging.learned))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tigris_ai_rewards, m)?)?;
    m.add_function(wrap_pyfunction!(tigris_ai_features, m)?)?;
    m.add_function(wrap_pyfunction!(ai_set_model, m)?)?;
    m.add_function(wrap_pyfunction!(ai_model, m)?)?;
    m.add_function(wrap_pyfunction!(tigris_ai_priors, m)?)?;
    m.add_function(wrap_pyfunction!(tigris_ai_unsettled, m)?)?;
    m.add_function(wrap_pyfunction!(tigris_ai_best_commit, m)?)?;
    m.add_function(wrap_pyfunction!(tigris_ai_world, m)?)?;
    m.add_function(wrap_pyfunction!(tigris_ai_worlds, m)?)?;
    Ok(())
}
