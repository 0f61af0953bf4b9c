//! The search as the Python bindings of each game run it.

use pyo3::exceptions::PyValueError;
use pyo3::{PyResult, Python};

use super::{model, search, Budget, Params, SearchGame};

/// A clear error where a learned evaluation is asked for before its model was set.
pub fn model_is_set(game: &str) -> PyResult<()> {
    if model::weights(game)
        .map_err(PyValueError::new_err)?
        .is_empty()
    {
        return Err(PyValueError::new_err(format!(
            "no learned {game} model: cradle.ai.learned.model({game:?}) sets it"
        )));
    }
    Ok(())
}

/// Search `root` with the GIL released (other Python threads go on meanwhile); the iterations
/// run and (action id, visits, summed reward) per visited root action, as
/// `cradle.ai.ismcts` reads them.
pub fn search_detached<G: SearchGame + Sync>(
    py: Python<'_>,
    root: &G,
    seat: usize,
    budget: Budget,
    params: Params,
    seeds: &[u64],
    only: Option<&[u32]>,
) -> (u64, Vec<(u32, u64, f64)>) {
    let (count, stats) = py.detach(|| search(root, seat, budget, params, seeds, only));
    let rows = stats
        .iter()
        .map(|r| (r.action, r.visits, r.total))
        .collect();
    (count, rows)
}
