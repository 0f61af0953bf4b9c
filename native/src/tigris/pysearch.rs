//! The native search and knowledge for Python (`cradle.ai.search.ismcts` calls them on native
//! states): `tigris_search` runs ISMCTS with the GIL released, and the `tigris_ai_*` hooks
//! expose the knowledge so the lockstep test can hold it against the Python reference.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::knowledge::{Board, Shares, TigrisWorld, UNIFORM};
use super::py::PyTigrisState;
use crate::search::model;
use crate::search::py::{
    checked_forest, checked_value, model_is_set, run_detached, search_detached, tree_worlds,
    PyParams, PySearchResult,
};
use crate::search::{Forest, SearchGame};

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

fn legal_set(world: &mut TigrisWorld) -> Vec<u32> {
    let mut ids = Vec::new();
    world.legal_ids(&mut ids);
    ids
}

/// The knowledge's reward vector of this state (one entry per seat).
#[pyfunction]
#[pyo3(signature = (state, fitted, belief=None, value=1, learned=false))]
fn tigris_ai_rewards(
    state: PyRef<'_, PyTigrisState>,
    fitted: bool,
    belief: Option<Vec<Vec<f64>>>,
    value: u8,
    learned: bool,
) -> PyResult<Vec<f64>> {
    if learned {
        model_is_set("tigris")?;
    }
    let shares = shares_of(belief, state.s.n)?;
    let world = TigrisWorld::valued(state.s.clone(), fitted, checked_value(value, 2)?)
        .believing(shares)
        .with_learned(learned);
    Ok(world.rewards()[..state.s.n].to_vec())
}

/// The learned features of every seat of this state (`Board.learned_features`, read with
/// value=2 as the learned model always is), one row per seat in
/// `cradle.ai.knowledge.learned.FEATURES["tigris"]` order: what the training data records.
#[pyfunction]
fn tigris_ai_features(state: PyRef<'_, PyTigrisState>) -> Vec<Vec<f64>> {
    let board = Board::read_valued(&state.s, 2);
    (0..state.s.n)
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
    state: PyRef<'_, PyTigrisState>,
    ids: Vec<u32>,
    belief: Option<Vec<Vec<f64>>>,
    value: u8,
) -> PyResult<Vec<f64>> {
    let shares = shares_of(belief, state.s.n)?;
    let mut world =
        TigrisWorld::valued(state.s.clone(), false, checked_value(value, 2)?).believing(shares);
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
#[pyo3(signature = (state, seat, options, belief=None, value=1))]
fn tigris_ai_best_commit(
    state: PyRef<'_, PyTigrisState>,
    seat: usize,
    options: Vec<u32>,
    belief: Option<Vec<Vec<f64>>>,
    value: u8,
) -> PyResult<Option<u32>> {
    let value = checked_value(value, 2)?;
    if seat >= state.s.n || options.is_empty() {
        return Err(PyValueError::new_err(
            "a seat of the game and some options are needed",
        ));
    }
    let shares = shares_of(belief, state.s.n)?;
    Ok(Board::read_full(&state.s, shares, value).best_commit(seat, &options))
}

/// The search's world for `observer` drawn with `seed` (`TigrisWorld::determinize`, dealt by
/// the belief when one is given), for the lockstep test against the reference's worlds.
#[pyfunction]
#[pyo3(signature = (state, observer, seed, belief=None))]
fn tigris_ai_world(
    py: Python<'_>,
    state: PyRef<'_, PyTigrisState>,
    observer: usize,
    seed: u64,
    belief: Option<Vec<Vec<f64>>>,
) -> PyResult<PyTigrisState> {
    if observer >= state.s.n {
        return Err(PyValueError::new_err(format!("no seat {observer}")));
    }
    let shares = shares_of(belief, state.s.n)?;
    let world = TigrisWorld::new(state.s.clone(), false).believing(shares);
    Ok(state.sibling(py, world.determinize(observer, seed).s))
}

/// The first `count` worlds a search tree deals for `observer` from `CanonicalRandom(seed)`
/// (`search::py::tree_worlds`; by the belief when one is given), for the lockstep test
/// against the reference's `next_world`.
#[pyfunction]
#[pyo3(signature = (state, observer, seed, count, belief=None))]
fn tigris_ai_worlds(
    py: Python<'_>,
    state: PyRef<'_, PyTigrisState>,
    observer: usize,
    seed: u64,
    count: usize,
    belief: Option<Vec<Vec<f64>>>,
) -> PyResult<Vec<PyTigrisState>> {
    let shares = shares_of(belief, state.s.n)?;
    let root = TigrisWorld::new(state.s.clone(), false).believing(shares);
    Ok(tree_worlds(&root, observer, seed, count)?
        .into_iter()
        .map(|world| state.sibling(py, world.s))
        .collect())
}

/// The root of a Tigris search: the state, judged as asked, dealt by the belief.
fn search_root(
    state: &PyTigrisState,
    fitted: bool,
    belief: Option<Vec<Vec<f64>>>,
    value: u8,
    learned: bool,
) -> PyResult<TigrisWorld> {
    if learned {
        model_is_set("tigris")?;
    }
    let value = checked_value(value, 2)?;
    let shares = shares_of(belief, state.s.n)?;
    Ok(TigrisWorld::valued(state.s.clone(), fitted, value)
        .believing(shares)
        .with_learned(learned))
}

/// ISMCTS for `seat` (the seat to move): one tree per seed, on threads when there are several.
/// `params`: exploration, widening, alpha, prior_weight, rollout, playout, batch, halving,
/// balance; `belief`: each seat's believed colour shares of its hand (None: uniform); `value`:
/// the evaluation (1 the sorted weights, 2 the final lowest colour). Returns the iterations
/// run and (action id, visits, summed reward) per visited root action.
#[pyfunction]
#[pyo3(signature = (state, seat, iterations, seconds, params, seeds, only, fitted, floor=None, belief=None, value=1, learned=false))]
#[allow(clippy::too_many_arguments)]
fn tigris_search(
    py: Python<'_>,
    state: PyRef<'_, PyTigrisState>,
    seat: usize,
    iterations: Option<u64>,
    seconds: Option<f64>,
    params: PyParams,
    seeds: Vec<u64>,
    only: Option<Vec<u32>>,
    fitted: bool,
    floor: Option<u64>,
    belief: Option<Vec<Vec<f64>>>,
    value: u8,
    learned: bool,
) -> PyResult<PySearchResult> {
    // The search reads its own copy: other threads may use the state meanwhile.
    let root = search_root(&state, fitted, belief, value, learned)?;
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

/// The trees of a Tigris search kept from one decision of a seat to its next
/// (`cradle.ai.search.ismcts.IsmctsBot`): `tigris_trees` plants them, `run` grows them, `advance`
/// carries them past the seat's own action.
#[pyclass(module = "cradle._native")]
pub struct TigrisTrees {
    forest: Forest<TigrisWorld>,
    fitted: bool,
    value: u8,
    learned: bool,
}

#[pymethods]
impl TigrisTrees {
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
    /// root, learnt nothing new in between (the caller's to know; `belief` as it reads now):
    /// False, and nothing changed, where the trees cannot follow (`search::Tree::advance`).
    #[pyo3(signature = (state, id, belief=None))]
    fn advance(
        &mut self,
        state: PyRef<'_, PyTigrisState>,
        id: u32,
        belief: Option<Vec<Vec<f64>>>,
    ) -> PyResult<bool> {
        let next = search_root(&state, self.fitted, belief, self.value, self.learned)?;
        Ok(self.forest.advance(id, &next))
    }

    /// The root's visits, the trees' added up.
    fn visits(&self) -> u64 {
        self.forest.visits()
    }
}

/// Plant the trees of a search for `seat` (one per seed; the arguments of `tigris_search`
/// without its budget): `TigrisTrees.run` grows them.
#[pyfunction]
#[pyo3(signature = (state, seat, params, seeds, only=None, fitted=false, belief=None, value=1, learned=false))]
#[allow(clippy::too_many_arguments)]
fn tigris_trees(
    state: PyRef<'_, PyTigrisState>,
    seat: usize,
    params: PyParams,
    seeds: Vec<u64>,
    only: Option<Vec<u32>>,
    fitted: bool,
    belief: Option<Vec<Vec<f64>>>,
    value: u8,
    learned: bool,
) -> PyResult<TigrisTrees> {
    let root = search_root(&state, fitted, belief, value, learned)?;
    Ok(TigrisTrees {
        forest: checked_forest(&root, seat, params, &seeds, only.as_deref())?,
        fitted,
        value, // checked by search_root
        learned,
    })
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
    m.add_function(wrap_pyfunction!(tigris_search, m)?)?;
    m.add_function(wrap_pyfunction!(tigris_trees, m)?)?;
    m.add_class::<TigrisTrees>()?;
    Ok(())
}
