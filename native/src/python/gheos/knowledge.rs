//! The Gheos knowledge for Python: the root of a native search (`super::super::search`), and the
//! `gheos_ai_*` hooks that expose the knowledge so the lockstep test can hold it against the
//! Python reference.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::GheosState;
use crate::gheos::knowledge::{self, Reading, Value};
use crate::gheos::search_game::{Judge, World};
use crate::python::search::model_is_set;
use crate::search::tree_worlds;
use crate::splitmix::SplitMix64;

/// The evaluation `value` (1 or 4) Python asks for, or a clear error.
fn value_of(value: u8) -> PyResult<Value> {
    Value::try_from(value).map_err(PyValueError::new_err)
}

/// The evaluation's estimated final score per seat (`Reading.values()`).
#[pyfunction]
#[pyo3(signature = (state, value=1))]
fn gheos_ai_values(state: PyRef<'_, GheosState>, value: u8) -> PyResult<Vec<f64>> {
    let reading = Reading::valued(&state.t.s, value_of(value)?);
    Ok(reading.values()[..reading.players].to_vec())
}

/// The evaluation's temperature (`Reading.temperature()`).
#[pyfunction]
#[pyo3(signature = (state, value=1))]
fn gheos_ai_temperature(state: PyRef<'_, GheosState>, value: u8) -> PyResult<f64> {
    Ok(Reading::valued(&state.t.s, value_of(value)?).temperature())
}

/// The knowledge's reward vector of this state, one entry per seat (`GheosKnowledge.rewards`).
/// With `learned`, by the learned model (`GheosKnowledge(learned=True).rewards`).
#[pyfunction]
#[pyo3(signature = (state, learned=false, value=1))]
fn gheos_ai_rewards(state: PyRef<'_, GheosState>, learned: bool, value: u8) -> PyResult<Vec<f64>> {
    let players = usize::from(state.t.s.players);
    let value = value_of(value)?;
    if learned {
        model_is_set("gheos")?;
        return Ok(knowledge::learned_rewards(&state.t.s)[..players].to_vec());
    }
    Ok(knowledge::rewards(&state.t.s, value)[..players].to_vec())
}

/// The learned features of every seat of this state (`Reading.features`), one row per seat
/// in `cradle.ai.knowledge.learned.FEATURES["gheos"]` order: what the training data records.
#[pyfunction]
fn gheos_ai_features(state: PyRef<'_, GheosState>) -> Vec<Vec<f64>> {
    let reading = Reading::new(&state.t.s);
    (0..reading.players)
        .map(|seat| reading.features(seat).to_vec())
        .collect()
}

/// One-ply priors of `ids` for the seat to move (`GheosKnowledge.priors`): an id the state
/// refuses scores -1e9, as the reference scores an action it cannot apply. `settle`: after
/// the conflict a move starts is played out (`GheosKnowledge(settle=True)`).
#[pyfunction]
#[pyo3(signature = (state, ids, value=1, settle=false))]
fn gheos_ai_priors(
    state: PyRef<'_, GheosState>,
    ids: Vec<i64>,
    value: u8,
    settle: bool,
) -> PyResult<Vec<f64>> {
    let value = value_of(value)?;
    let wanted: Vec<u32> = ids
        .iter()
        .map(|&id| u32::try_from(id).unwrap_or(u32::MAX))
        .collect();
    let mut out = Vec::with_capacity(ids.len());
    knowledge::priors(&state.t.s, value, settle, &wanted, &mut out);
    Ok(out)
}

/// Whether a turn is in progress past its tile (`GheosKnowledge.unsettled`).
#[pyfunction]
fn gheos_ai_unsettled(state: PyRef<'_, GheosState>) -> bool {
    knowledge::unsettled(&state.t.s)
}

/// The token decision a playout does not leave to chance (`GheosKnowledge.playout_rule`):
/// true to play the token, false to keep it, None where the playout moves at random.
#[pyfunction]
#[pyo3(signature = (state, value=1))]
fn gheos_ai_playout_rule(state: PyRef<'_, GheosState>, value: u8) -> PyResult<Option<bool>> {
    let value = value_of(value)?;
    Ok(knowledge::ruled_token(&state.t.s, value))
}

fn legal_or_refuse(state: &GheosState) -> PyResult<Vec<u32>> {
    let mut legal = Vec::with_capacity(128);
    state.t.s.legal_ids(&mut legal);
    if legal.is_empty() {
        return Err(PyValueError::new_err("no legal action: nothing to choose"));
    }
    Ok(legal)
}

/// How the policy chooses here ("forced", "followers", "token", "tiles", "ply") and its
/// scores of every legal action, in legal order, before its random tie-breaks.
#[pyfunction]
#[pyo3(signature = (state, value=1, settle=false))]
fn gheos_ai_policy_scores(
    state: PyRef<'_, GheosState>,
    value: u8,
    settle: bool,
) -> PyResult<(&'static str, Vec<f64>)> {
    let value = value_of(value)?;
    let legal = legal_or_refuse(&state)?;
    let mut scores = Vec::with_capacity(legal.len());
    let choice = knowledge::policy_scores(&state.t.s, value, settle, &legal, &mut scores);
    Ok((choice.name(), scores))
}

/// The policy's action id, its random draws from a generator seeded by `seed`.
#[pyfunction]
#[pyo3(signature = (state, seed, value=1, settle=false))]
fn gheos_ai_policy(
    state: PyRef<'_, GheosState>,
    seed: u64,
    value: u8,
    settle: bool,
) -> PyResult<u32> {
    let value = value_of(value)?;
    legal_or_refuse(&state)?;
    Ok(knowledge::policy(
        &state.t.s,
        value,
        settle,
        &mut SplitMix64::new(seed),
    ))
}

/// The first `count` worlds a search tree deals for `observer` from `CanonicalRandom(seed)`
/// (`crate::search::tree_worlds`), for the lockstep test against the reference's `next_world`.
#[pyfunction]
fn gheos_ai_worlds(
    py: Python<'_>,
    state: PyRef<'_, GheosState>,
    observer: usize,
    seed: u64,
    count: usize,
) -> PyResult<Vec<GheosState>> {
    // The judge plays no part in dealing.
    let root = World {
        s: state.t.s.clone(),
        judge: Judge::Hand(Value::Followers),
        settle: false,
    };
    Ok(tree_worlds(&root, observer, seed, count)
        .map_err(PyValueError::new_err)?
        .into_iter()
        .map(|world| state.with_game(py, world.s))
        .collect())
}

/// A Gheos knowledge's settings, read off the Python object by name
/// (`cradle.ai.knowledge.gheos.GheosSettings`).
#[derive(FromPyObject)]
pub struct Judging {
    #[pyo3(attribute)]
    value: u8,
    #[pyo3(attribute)]
    learned: bool,
    #[pyo3(attribute)]
    settle: bool,
}

/// The root of a Gheos search: `state`'s game, its leaves judged by the learned model or
/// the hand-set evaluation, its priors settling the conflicts the moves start or not.
pub fn search_root(state: &GheosState, judging: &Judging) -> PyResult<World> {
    let value = value_of(judging.value)?;
    let judge = if judging.learned {
        model_is_set("gheos")?;
        Judge::Learned
    } else {
        Judge::Hand(value)
    };
    Ok(World {
        s: state.t.s.clone(),
        judge,
        settle: judging.settle,
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(gheos_ai_values, m)?)?;
    m.add_function(wrap_pyfunction!(gheos_ai_temperature, m)?)?;
    m.add_function(wrap_pyfunction!(gheos_ai_rewards, m)?)?;
    m.add_function(wrap_pyfunction!(gheos_ai_features, m)?)?;
    m.add_function(wrap_pyfunction!(gheos_ai_priors, m)?)?;
    m.add_function(wrap_pyfunction!(gheos_ai_unsettled, m)?)?;
    m.add_function(wrap_pyfunction!(gheos_ai_policy_scores, m)?)?;
    m.add_function(wrap_pyfunction!(gheos_ai_policy, m)?)?;
    m.add_function(wrap_pyfunction!(gheos_ai_playout_rule, m)?)?;
    m.add_function(wrap_pyfunction!(gheos_ai_worlds, m)?)?;
    Ok(())
}
