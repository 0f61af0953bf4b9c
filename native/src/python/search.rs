//! The native search for Python (`cradle.ai.search.native` calls it on native states): one
//! binding, `search`, over a state of either game, its ISMCTS run with the GIL released; the
//! settings as Python hands them over, read by name.

use std::time::Instant;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use super::gheos::{self, GheosState};
use super::model::PyModel;
use super::tigris::{self, TigrisState};
use crate::search::{model, Budget, Forest, Learned, Params, SearchGame};

/// The root of a search: a state of one of the games, judged by its knowledge (boxed: one
/// root a search, and the games' states differ in size).
enum Root {
    Tigris(Box<crate::tigris::World>),
    Gheos(Box<crate::gheos::World>),
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
        if let Ok(state) = state.cast::<TigrisState>() {
            let judging: tigris::knowledge::Judging = knowledge.extract()?;
            let root = tigris::knowledge::search_root(&state.borrow(), &judging, belief)?;
            return Ok(Root::Tigris(Box::new(root)));
        }
        if let Ok(state) = state.cast::<GheosState>() {
            if belief.is_some() {
                return Err(PyValueError::new_err(
                    "a belief over the hands is a Tigris knowledge's",
                ));
            }
            let judging: gheos::knowledge::Judging = knowledge.extract()?;
            let root = gheos::knowledge::search_root(&state.borrow(), &judging)?;
            return Ok(Root::Gheos(Box::new(root)));
        }
        Err(PyTypeError::new_err(
            "the native search runs on a TigrisState or a GheosState",
        ))
    }

    fn search(
        &self,
        py: Python<'_>,
        ask: &Ask<'_>,
        model: Option<(&PyModel, bool, f64)>,
    ) -> PyResult<PySearchResult> {
        match self {
            Root::Tigris(root) => {
                let learned = model
                    .map(|(m, pure, blend)| m.tigris(root.players(), pure, blend))
                    .transpose()?;
                search_detached(py, &**root, ask, learned.as_ref())
            }
            Root::Gheos(root) => {
                let learned = model
                    .map(|(m, pure, blend)| m.gheos(root, pure, blend))
                    .transpose()?;
                search_detached(py, &**root, ask, learned.as_ref())
            }
        }
    }
}

/// What a search is asked: for `seat`, within the budget (`iterations`, `seconds`, at least
/// `floor` iterations), one tree per seed, over `only` (None: every legal root action), the
/// seconds counted from `asked`.
pub struct Ask<'a> {
    pub seat: usize,
    pub iterations: Option<u64>,
    pub seconds: Option<f64>,
    pub floor: Option<u64>,
    pub params: Params,
    pub seeds: &'a [u64],
    pub only: Option<&'a [u32]>,
    pub asked: Instant,
}

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

/// Search `root` as `ask` says (one tree per seed, on threads when there are several) with
/// the GIL released, after refusing what Python may get wrong: a finished game, a seat not to
/// move, no seeds, a bad budget. The iterations run and (action id, visits, summed reward)
/// per visited root action, as `cradle.ai.search.native` reads them. The seconds count from
/// `ask.asked`, when Python asked for the search.
pub fn search_detached<G: SearchGame>(
    py: Python<'_>,
    root: &G,
    ask: &Ask<'_>,
    learned: Option<&Learned<G>>,
) -> PyResult<PySearchResult> {
    let seat = ask.seat;
    if root.is_over() {
        return Err(PyValueError::new_err("the game is over: nothing to search"));
    }
    if seat != root.to_move() {
        return Err(PyValueError::new_err(format!(
            "it is seat {}'s decision, not seat {seat}'s",
            root.to_move()
        )));
    }
    let budget = Budget::checked(ask.iterations, ask.seconds, ask.floor, ask.seeds)
        .map_err(PyValueError::new_err)?;
    let mut forest = Forest::new(root, seat, ask.params, ask.seeds, ask.only);
    if let Some(learned) = learned {
        forest.set_learned(learned);
    }
    let asked = ask.asked;
    let (count, stats) = py.detach(|| forest.run_from(budget, asked));
    let rows = stats
        .iter()
        .map(|r| (r.action, r.visits, r.total))
        .collect();
    Ok((count, rows))
}

/// ISMCTS for `seat` (the seat to move) in `state`, a Tigris or Gheos state: one tree per
/// seed, on threads when there are several. `settings`: the search's
/// (`cradle.ai.search.native.NativeSettings`); `knowledge`: the game knowledge's settings
/// (`TigrisSettings` or `GheosSettings`); `belief`: a Tigris belief over the hands; `model`:
/// a learned network at the leaves (`cradle._native.Model`), alone (`pure`) or blended into
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
    // the seconds count from here: the state's copy and the trees' threads are in them
    let asked = Instant::now();
    let params = settings.params()?;
    if pure && model.is_none() {
        return Err(PyValueError::new_err(
            "pure (the knowledge off) needs a model to judge the leaves",
        ));
    }
    let ask = Ask {
        seat,
        iterations,
        seconds,
        floor,
        params,
        seeds: &seeds,
        only: only.as_deref(),
        asked,
    };
    let root = Root::of(state, knowledge, belief)?;
    root.search(py, &ask, model.as_deref().map(|m| (m, pure, blend)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(search, m)?)?;
    Ok(())
}
