//! The search as the Python bindings of each game run it.

use pyo3::exceptions::PyValueError;
use pyo3::{PyResult, Python};

use super::{model, Budget, Forest, Params, PyRandom, SearchGame};

/// An evaluation version `value` of the search bindings (1 to `top`), or a clear error.
pub fn checked_value(value: u8, top: u8) -> PyResult<u8> {
    if (1..=top).contains(&value) {
        Ok(value)
    } else {
        let all = (1..=top).map(|v| v.to_string()).collect::<Vec<_>>();
        Err(PyValueError::new_err(format!(
            "value is {} or {}, not {value}",
            all[..all.len() - 1].join(", "),
            all[all.len() - 1]
        )))
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

/// The search's settings as Python hands them over: (exploration, widening, alpha,
/// prior_weight, mix), (rollout, playout, batch, halving, balance, urgent, keys, steps,
/// odds, stop).
pub type PyParams = super::tree::Settings;

/// The iterations run and, per visited root action, (action id, visits, summed reward).
pub type PySearchResult = (u64, Vec<(u32, u64, f64)>);

/// The trees of a search for `seat` over worlds of `root` (one per seed), after refusing
/// what Python may get wrong: a finished game, a seat not to move, no seeds, settings out of
/// range.
pub fn checked_forest<G: SearchGame>(
    root: &G,
    seat: usize,
    params: PyParams,
    seeds: &[u64],
    only: Option<&[u32]>,
) -> PyResult<Forest<G>> {
    if root.is_over() {
        return Err(PyValueError::new_err("the game is over: nothing to search"));
    }
    if seat != root.to_move() {
        return Err(PyValueError::new_err(format!(
            "it is seat {}'s decision, not seat {seat}'s",
            root.to_move()
        )));
    }
    if seeds.is_empty() {
        return Err(PyValueError::new_err("a search needs at least one seed"));
    }
    let params = Params::from_tuple(params);
    if params.halving == 1
        || params.balance > 2
        || params.urgent > 2
        || params.keys > 2
        || params.steps > 1
        || params.odds > 1
        || params.stop > 1
        || !(0.0..=1.0).contains(&params.mix)
    {
        return Err(PyValueError::new_err(
            "halving is 0 or at least 2, balance 0, 1 or 2, urgent 0, 1 or 2, keys 0, 1 or 2, \
             steps 0 or 1, odds 0 or 1, stop 0 or 1, mix from 0 to 1",
        ));
    }
    Ok(Forest::new(root, seat, params, seeds, only))
}

/// Grow `forest` within a budget with the GIL released (other Python threads go on
/// meanwhile): the iterations run and (action id, visits, summed reward) per visited root
/// action, as `cradle.ai.search.ismcts` reads them.
pub fn run_detached<G: SearchGame>(
    py: Python<'_>,
    forest: &mut Forest<G>,
    iterations: Option<u64>,
    seconds: Option<f64>,
    floor: Option<u64>,
) -> PyResult<PySearchResult> {
    let budget =
        Budget::checked(iterations, seconds, floor, &[0]).map_err(PyValueError::new_err)?;
    let (count, stats) = py.detach(|| forest.run(budget));
    let rows = stats
        .iter()
        .map(|r| (r.action, r.visits, r.total))
        .collect();
    Ok((count, rows))
}

/// Search `root` for `seat` once ([`checked_forest`], [`run_detached`]).
#[allow(clippy::too_many_arguments)]
pub fn search_detached<G: SearchGame>(
    py: Python<'_>,
    root: &G,
    seat: usize,
    iterations: Option<u64>,
    seconds: Option<f64>,
    floor: Option<u64>,
    params: PyParams,
    seeds: &[u64],
    only: Option<&[u32]>,
) -> PyResult<PySearchResult> {
    let mut forest = checked_forest(root, seat, params, seeds, only)?;
    run_detached(py, &mut forest, iterations, seconds, floor)
}
