//! What the search's Python binding (`crate::pysearch`) and the games' knowledge hooks share:
//! the settings as Python hands them over, the budget, the worlds a tree deals.

use pyo3::exceptions::PyValueError;
use pyo3::{FromPyObject, PyResult, Python};

use super::{model, Budget, Forest, Learned, Params, PyRandom, SearchGame};

/// The search's settings, read off the Python object by name
/// (`cradle.ai.search.native.NativeSettings`: the game's rollout, playout and batch already
/// resolved).
#[derive(FromPyObject)]
pub struct Settings {
    #[pyo3(attribute)]
    exploration: f64,
    #[pyo3(attribute)]
    widening: f64,
    #[pyo3(attribute)]
    alpha: f64,
    #[pyo3(attribute)]
    prior_weight: f64,
    #[pyo3(attribute)]
    rollout: usize,
    #[pyo3(attribute)]
    playout: usize,
    #[pyo3(attribute)]
    batch: usize,
    #[pyo3(attribute)]
    urgent: bool,
    #[pyo3(attribute)]
    stop: bool,
}

impl Settings {
    /// The tree's settings, after refusing what Python may get wrong.
    pub fn params(&self) -> PyResult<Params> {
        let reals = [
            self.exploration,
            self.widening,
            self.alpha,
            self.prior_weight,
        ];
        if reals.iter().any(|x| !x.is_finite() || *x < 0.0) {
            return Err(PyValueError::new_err(
                "exploration, widening, alpha and prior_weight are finite and at least 0",
            ));
        }
        if self.batch == 0 {
            return Err(PyValueError::new_err("batch is at least 1"));
        }
        Ok(Params {
            exploration: self.exploration,
            widening: self.widening,
            alpha: self.alpha,
            prior_weight: self.prior_weight,
            rollout: self.rollout,
            playout: self.playout,
            batch: self.batch,
            urgent: self.urgent,
            stop: self.stop,
        })
    }
}

/// The first `count` worlds a search tree deals for `observer` from `CanonicalRandom(seed)`
/// (`SearchGame::deal`, each going on where the last stopped): the games' `*_ai_worlds`
/// hooks, for the lockstep tests against the reference's `next_world`.
pub fn tree_worlds<G: SearchGame>(
    root: &G,
    observer: usize,
    seed: u64,
    count: usize,
) -> PyResult<Vec<G>> {
    if observer >= root.players() {
        return Err(PyValueError::new_err(format!("no seat {observer}")));
    }
    let mut dealer = PyRandom::from_u64(seed);
    Ok((0..count)
        .map(|_| root.deal(observer, &mut dealer))
        .collect())
}

/// A clear error where a learned evaluation is asked for before its model was set.
pub fn model_is_set(game: &str) -> PyResult<()> {
    if model::weights(game)
        .map_err(PyValueError::new_err)?
        .is_empty()
    {
        return Err(PyValueError::new_err(format!(
            "no learned {game} model: cradle.ai.knowledge.learned.model({game:?}) sets it"
        )));
    }
    Ok(())
}

/// The iterations run and, per visited root action, (action id, visits, summed reward).
pub type PySearchResult = (u64, Vec<(u32, u64, f64)>);

/// Search `root` for `seat` (one tree per seed, on threads when there are several) with the
/// GIL released, after refusing what Python may get wrong: a finished game, a seat not to
/// move, no seeds, a bad budget; with `learned`, a model at the leaves. The iterations run and (action id, visits, summed reward)
/// per visited root action, as `cradle.ai.search.native` reads them.
#[allow(clippy::too_many_arguments)]
pub fn search_detached<G: SearchGame>(
    py: Python<'_>,
    root: &G,
    seat: usize,
    iterations: Option<u64>,
    seconds: Option<f64>,
    floor: Option<u64>,
    params: Params,
    seeds: &[u64],
    only: Option<&[u32]>,
    learned: Option<&Learned<G>>,
) -> PyResult<PySearchResult> {
    if root.is_over() {
        return Err(PyValueError::new_err("the game is over: nothing to search"));
    }
    if seat != root.to_move() {
        return Err(PyValueError::new_err(format!(
            "it is seat {}'s decision, not seat {seat}'s",
            root.to_move()
        )));
    }
    let budget =
        Budget::checked(iterations, seconds, floor, seeds).map_err(PyValueError::new_err)?;
    let mut forest = Forest::new(root, seat, params, seeds, only);
    if let Some(learned) = learned {
        forest.set_learned(learned);
    }
    let (count, stats) = py.detach(|| forest.run(budget));
    let rows = stats
        .iter()
        .map(|r| (r.action, r.visits, r.total))
        .collect();
    Ok((count, rows))
}
