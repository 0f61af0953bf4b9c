//! The native search and knowledge of Gheos for Python (`cradle.ai.ismcts` calls them on
//! native states): `gheos_search` runs ISMCTS with the GIL released, and the `gheos_ai_*`
//! hooks expose the knowledge so the lockstep test can hold it against the Python reference.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::knowledge::{self, Reading, VALUES as GHEOS_VALUES};
use super::py::GheosState;
use super::search_game::{Judge, Judged};
use crate::search::py::{
    checked_forest, checked_value, model_is_set, run_detached, search_detached, tree_worlds,
    PyParams, PySearchResult,
};
use crate::search::Forest;
use crate::splitmix::SplitMix64;

/// The evaluation's estimated final score per seat (`Reading.values()`).
#[pyfunction]
#[pyo3(signature = (state, value=1))]
fn gheos_ai_values(state: PyRef<'_, GheosState>, value: u8) -> PyResult<Vec<f64>> {
    let reading = Reading::valued(&state.game, checked_value(value, GHEOS_VALUES)?);
    Ok(reading.values()[..reading.players].to_vec())
}

/// The evaluation's temperature (`Reading.temperature()`).
#[pyfunction]
#[pyo3(signature = (state, value=1))]
fn gheos_ai_temperature(state: PyRef<'_, GheosState>, value: u8) -> PyResult<f64> {
    Ok(Reading::valued(&state.game, checked_value(value, GHEOS_VALUES)?).temperature())
}

/// The knowledge's reward vector of this state, one entry per seat (`GheosKnowledge.rewards`).
/// With `learned`, by the learned model (`GheosKnowledge(learned=True).rewards`).
#[pyfunction]
#[pyo3(signature = (state, learned=false, value=1))]
fn gheos_ai_rewards(state: PyRef<'_, GheosState>, learned: bool, value: u8) -> PyResult<Vec<f64>> {
    let players = usize::from(state.game.players);
    let value = checked_value(value, GHEOS_VALUES)?;
    if learned {
        model_is_set("gheos")?;
        return Ok(knowledge::learned_rewards(&state.game)[..players].to_vec());
    }
    Ok(knowledge::rewards(&state.game, value)[..players].to_vec())
}

/// The learned features of every seat of this state (`Reading.features`), one row per seat
/// in `cradle.ai.learned.FEATURES["gheos"]` order: what the training data records.
#[pyfunction]
fn gheos_ai_features(state: PyRef<'_, GheosState>) -> Vec<Vec<f64>> {
    let reading = Reading::new(&state.game);
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
    let value = checked_value(value, GHEOS_VALUES)?;
    let wanted: Vec<u32> = ids
        .iter()
        .map(|&id| u32::try_from(id).unwrap_or(u32::MAX))
        .collect();
    let mut out = Vec::with_capacity(ids.len());
    knowledge::priors(&state.game, value, settle, &wanted, &mut out);
    Ok(out)
}

/// Whether a turn is in progress past its tile (`GheosKnowledge.unsettled`).
#[pyfunction]
fn gheos_ai_unsettled(state: PyRef<'_, GheosState>) -> bool {
    knowledge::unsettled(&state.game)
}

/// The token decision a playout does not leave to chance (`GheosKnowledge.playout_rule`):
/// true to play the token, false to keep it, None where the playout moves at random.
#[pyfunction]
#[pyo3(signature = (state, value=1, handing=false))]
fn gheos_ai_playout_rule(
    state: PyRef<'_, GheosState>,
    value: u8,
    handing: bool,
) -> PyResult<Option<bool>> {
    let value = checked_value(value, GHEOS_VALUES)?;
    Ok(knowledge::ruled_token(&state.game, value, handing))
}

fn legal_or_refuse(state: &GheosState) -> PyResult<Vec<u32>> {
    let mut legal = Vec::with_capacity(128);
    state.game.legal_ids(&mut legal);
    if legal.is_empty() {
        return Err(PyValueError::new_err("no legal action: nothing to choose"));
    }
    Ok(legal)
}

/// How the policy chooses here ("forced", "followers", "token", "tiles", "ply") and its
/// scores of every legal action, in legal order, before its random tie-breaks.
#[pyfunction]
#[pyo3(signature = (state, value=1, settle=false, handing=false))]
fn gheos_ai_policy_scores(
    state: PyRef<'_, GheosState>,
    value: u8,
    settle: bool,
    handing: bool,
) -> PyResult<(&'static str, Vec<f64>)> {
    let value = checked_value(value, GHEOS_VALUES)?;
    let legal = legal_or_refuse(&state)?;
    let mut scores = Vec::with_capacity(legal.len());
    let choice = knowledge::policy_scores(&state.game, value, settle, handing, &legal, &mut scores);
    Ok((choice.name(), scores))
}

/// The policy's action id, its random draws from a generator seeded by `seed`.
#[pyfunction]
#[pyo3(signature = (state, seed, value=1, settle=false, handing=false))]
fn gheos_ai_policy(
    state: PyRef<'_, GheosState>,
    seed: u64,
    value: u8,
    settle: bool,
    handing: bool,
) -> PyResult<u32> {
    let value = checked_value(value, GHEOS_VALUES)?;
    legal_or_refuse(&state)?;
    Ok(knowledge::policy(
        &state.game,
        value,
        settle,
        handing,
        &mut SplitMix64::new(seed),
    ))
}

/// `state`'s game for the search, its leaves judged by `judge`; `settle`: priors after the
/// conflicts the moves start; `handing`: a token that would hand over the control of the end
/// judged, not left to chance.
fn judged(state: &GheosState, judge: Judge, settle: bool, handing: bool) -> Judged {
    Judged {
        game: state.game.clone(),
        judge,
        settle,
        handing,
    }
}

/// The first `count` worlds a search tree deals for `observer` from `CanonicalRandom(seed)`
/// (`search::py::tree_worlds`), for the lockstep test against the reference's `next_world`.
#[pyfunction]
fn gheos_ai_worlds(
    py: Python<'_>,
    state: PyRef<'_, GheosState>,
    observer: usize,
    seed: u64,
    count: usize,
) -> PyResult<Vec<GheosState>> {
    // The judge plays no part in dealing.
    let root = judged(&state, Judge::Hand(1), false, false);
    Ok(tree_worlds(&root, observer, seed, count)?
        .into_iter()
        .map(|world| state.with_game(py, world.game))
        .collect())
}

/// How a search judges Gheos worlds: the learned model or the hand-set evaluation `value`.
fn judge_of(learned: bool, value: u8) -> PyResult<Judge> {
    let value = checked_value(value, GHEOS_VALUES)?;
    if learned {
        model_is_set("gheos")?;
        return Ok(Judge::Learned);
    }
    Ok(Judge::Hand(value))
}

/// ISMCTS for `seat` (the seat to move): one tree per seed, on threads when there are several.
/// `params`: exploration, widening, alpha, prior_weight, rollout, playout, batch, halving,
/// balance, urgent, keys, steps; `learned`: judge the leaves by the learned model, else by
/// the hand-set evaluation `value`; `settle`: priors after the conflicts the moves start;
/// `handing`: a token that would hand over the control of the end judged in the playouts.
/// Returns the iterations run and (action id, visits, summed reward) per visited root action.
#[pyfunction]
#[pyo3(signature = (state, seat, iterations, seconds, params, seeds, only, floor=None, learned=false, value=1, settle=false, handing=false))]
#[allow(clippy::too_many_arguments)]
fn gheos_search(
    py: Python<'_>,
    state: PyRef<'_, GheosState>,
    seat: usize,
    iterations: Option<u64>,
    seconds: Option<f64>,
    params: PyParams,
    seeds: Vec<u64>,
    only: Option<Vec<u32>>,
    floor: Option<u64>,
    learned: bool,
    value: u8,
    settle: bool,
    handing: bool,
) -> PyResult<PySearchResult> {
    let judge = judge_of(learned, value)?;
    // The search reads its own copy: other threads may use the state meanwhile.
    let root = judged(&state, judge, settle, handing);
    drop(state);
    search_detached(
        py,
        &root,
        seat,
        iterations,
        seconds,
        floor,
        params,
        &seeds,
        only.as_deref(),
    )
}

/// The trees of a Gheos search kept from one decision of a seat to its next
/// (`cradle.ai.ismcts.IsmctsBot`): `gheos_trees` plants them, `run` grows them, `advance`
/// carries them past the seat's own action.
#[pyclass(module = "cradle._native")]
pub struct GheosTrees {
    forest: Forest<Judged>,
    judge: Judge,
    settle: bool,
    handing: bool,
}

#[pymethods]
impl GheosTrees {
    /// Grow the trees within a budget: the iterations run and (action id, visits, summed
    /// reward) per visited root action, with what the trees learnt before.
    #[pyo3(signature = (iterations, seconds, floor=None))]
    fn run(
        &mut self,
        py: Python<'_>,
        iterations: Option<u64>,
        seconds: Option<f64>,
        floor: Option<u64>,
    ) -> PyResult<PySearchResult> {
        run_detached(py, &mut self.forest, iterations, seconds, floor)
    }

    /// Go on to `state`, the position after the searching seat's own action `id` at the
    /// root, learnt nothing new in between (the caller's to know): False, and nothing
    /// changed, where the trees cannot follow (`search::Tree::advance`).
    fn advance(&mut self, state: PyRef<'_, GheosState>, id: u32) -> bool {
        let next = judged(&state, self.judge, self.settle, self.handing);
        self.forest.advance(id, &next)
    }

    /// The root's visits, the trees' added up.
    fn visits(&self) -> u64 {
        self.forest.visits()
    }
}

/// Plant the trees of a search for `seat` (one per seed; the arguments of `gheos_search`
/// without its budget): `GheosTrees.run` grows them.
#[pyfunction]
#[pyo3(signature = (state, seat, params, seeds, only=None, learned=false, value=1, settle=false, handing=false))]
#[allow(clippy::too_many_arguments)]
fn gheos_trees(
    state: PyRef<'_, GheosState>,
    seat: usize,
    params: PyParams,
    seeds: Vec<u64>,
    only: Option<Vec<u32>>,
    learned: bool,
    value: u8,
    settle: bool,
    handing: bool,
) -> PyResult<GheosTrees> {
    let judge = judge_of(learned, value)?;
    let root = judged(&state, judge, settle, handing);
    Ok(GheosTrees {
        forest: checked_forest(&root, seat, params, &seeds, only.as_deref())?,
        judge,
        settle,
        handing,
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
    m.add_function(wrap_pyfunction!(gheos_search, m)?)?;
    m.add_function(wrap_pyfunction!(gheos_trees, m)?)?;
    m.add_class::<GheosTrees>()?;
    Ok(())
}
