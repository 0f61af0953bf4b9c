//! The search as the Python bindings of each game run it.

use pyo3::Python;

use super::{search, Budget, Params, SearchGame};

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
