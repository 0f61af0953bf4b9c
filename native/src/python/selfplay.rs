//! Batched self-play for Python (`cradle.selfplay`): `selfplay_games` plays a batch of native
//! states to the end with the native `ismcts@N` in every seat (`crate::search::batched`),
//! optionally with a learned leaf evaluator given from Python, and returns the shard's arrays.

use numpy::{IntoPyArray, PyArray1, PyArrayMethods, PyReadonlyArray2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::gheos::GheosState;
use super::model::PyModel;
use super::tigris::TigrisState;
use crate::bots::seat::{gheos_root, tigris_root};
use crate::search::batched::{self, Config, Evaluator, Output, SelfPlayGame};
use crate::search::{Learned, RootNoise, SearchGame};

/// The most iterations a self-play search may take.
const MOST_ITERATIONS: u64 = 1_000_000;

/// A Python callable as the evaluator: `evaluate(observations, seats) -> (priors, values)`,
/// float32 C-contiguous NumPy arrays (`cradle.selfplay` wraps the user's callable so). The
/// first Python error is kept to be raised as it is.
struct PyEvaluator<'py> {
    call: Bound<'py, PyAny>,
    width: usize,
    error: Option<PyErr>,
}

impl PyEvaluator<'_> {
    fn answer(&self, observations: &[f32], seats: &[usize]) -> PyResult<(Vec<f32>, Vec<f32>)> {
        let py = self.call.py();
        let rows = seats.len();
        let batch = PyArray1::from_slice(py, observations).reshape([rows, self.width])?;
        let seats: Vec<i64> = seats.iter().map(|&s| s as i64).collect();
        let answer = self.call.call1((batch, PyArray1::from_vec(py, seats)))?;
        let (priors, values): (PyReadonlyArray2<'_, f32>, PyReadonlyArray2<'_, f32>) =
            answer.extract().map_err(|_| {
                PyTypeError::new_err(
                    "the evaluator must return (priors, values), two 2-d float32 arrays",
                )
            })?;
        Ok((priors.as_slice()?.to_vec(), values.as_slice()?.to_vec()))
    }
}

impl Evaluator for PyEvaluator<'_> {
    fn evaluate(
        &mut self,
        observations: &[f32],
        seats: &[usize],
        _players: usize,
    ) -> Result<(Vec<f32>, Vec<f32>), String> {
        self.answer(observations, seats).map_err(|e| {
            let text = e.to_string();
            self.error.get_or_insert(e);
            text
        })
    }
}

fn run<G: SelfPlayGame>(
    py: Python<'_>,
    games: Vec<G>,
    seeds: &[Vec<u64>],
    config: &Config,
    models: &[Option<Learned<G>>],
    evaluator: Option<Bound<'_, PyAny>>,
) -> PyResult<Output> {
    let Some(call) = evaluator else {
        return py
            .detach(|| batched::play(games, seeds, config, models, None))
            .map_err(PyValueError::new_err);
    };
    let width = games.first().map_or(0, |g| g.observation_size());
    let mut wrapped = PyEvaluator {
        call,
        width,
        error: None,
    };
    match batched::play(games, seeds, config, &[], Some(&mut wrapped)) {
        Ok(out) => Ok(out),
        Err(reason) => Err(wrapped
            .error
            .take()
            .unwrap_or_else(|| PyValueError::new_err(reason))),
    }
}

/// Play `states` (native TigrisState or GheosState objects of one game and player count,
/// each copied) to the end or `cap` moves, every seat the native `ismcts@iterations` whose
/// search seeds come from `seeds[i][seat]`; `actions`: the width of the action id space.
/// `models` (one per seat, None for the plain search) or `evaluator` (a callable taking a
/// (B, W) float32 batch of observations and the (B,) int64 seats to move and returning
/// float32 priors (B, actions) and values (B, players) relative to the seat to move; see
/// `crate::search::batched`) with `pure` and `blend`; `temperature` for the first `sampled`
/// moves of a game; Dirichlet noise (`noise`: (weight, alpha)) at every root. Returns the
/// positions and records as a dict of NumPy arrays (`game`: index in `states`).
#[pyfunction]
#[pyo3(signature = (states, seeds, iterations, cap, actions, evaluator=None, *, models=None, pure=false, blend=0.0, temperature=0.0, sampled=0, noise=None))]
#[allow(clippy::too_many_arguments)]
fn selfplay_games<'py>(
    py: Python<'py>,
    states: Vec<Bound<'py, PyAny>>,
    seeds: Vec<Vec<u64>>,
    iterations: u64,
    cap: usize,
    actions: usize,
    evaluator: Option<Bound<'py, PyAny>>,
    models: Option<Vec<Option<PyRef<'py, PyModel>>>>,
    pure: bool,
    blend: f64,
    temperature: f64,
    sampled: usize,
    noise: Option<(f64, f64)>,
) -> PyResult<Bound<'py, PyDict>> {
    super::model::checked_blend(blend)?;
    if !(temperature.is_finite() && temperature >= 0.0) {
        return Err(PyValueError::new_err(format!(
            "a temperature is at least 0, not {temperature}"
        )));
    }
    let noise = match noise {
        None => None,
        Some((weight, alpha)) => {
            if !((0.0..=1.0).contains(&weight) && alpha.is_finite() && alpha > 0.0) {
                return Err(PyValueError::new_err(
                    "noise is (weight 0 to 1, alpha above 0)",
                ));
            }
            Some(RootNoise { weight, alpha })
        }
    };
    let models = models.unwrap_or_default();
    if evaluator.is_some() && models.iter().any(Option::is_some) {
        return Err(PyValueError::new_err(
            "either models or an evaluator, not both",
        ));
    }
    if !(1..=MOST_ITERATIONS).contains(&iterations) {
        return Err(PyValueError::new_err(format!(
            "a search takes 1 to {MOST_ITERATIONS} iterations, not {iterations}"
        )));
    }
    if states.is_empty() || seeds.len() != states.len() {
        return Err(PyValueError::new_err(
            "at least one state, and one row of seat seeds per state",
        ));
    }
    if evaluator.as_ref().is_some_and(|e| !e.is_callable()) {
        return Err(PyTypeError::new_err("the evaluator must be callable"));
    }
    let mut tigris = Vec::new();
    let mut gheos = Vec::new();
    let mut params = None;
    for state in &states {
        if let Ok(s) = state.cast::<TigrisState>() {
            let (root, p) = tigris_root(&s.borrow().t.s);
            tigris.push(root);
            params = Some(p);
        } else if let Ok(s) = state.cast::<GheosState>() {
            let (root, p) = gheos_root(&s.borrow().t.s);
            gheos.push(root);
            params = Some(p);
        } else {
            return Err(PyTypeError::new_err(
                "self-play runs on native TigrisState or GheosState objects",
            ));
        }
    }
    if !tigris.is_empty() && !gheos.is_empty() {
        return Err(PyValueError::new_err("the states are of one game"));
    }
    let players: Vec<usize> = tigris
        .iter()
        .map(|w| w.players())
        .chain(gheos.iter().map(|g| g.players()))
        .collect();
    if players.iter().any(|&n| n != players[0]) {
        return Err(PyValueError::new_err("the states have one player count"));
    }
    if seeds.iter().any(|row| row.len() != players[0]) {
        return Err(PyValueError::new_err(format!(
            "one search seed per seat: {} each",
            players[0]
        )));
    }
    if !models.is_empty() && models.len() != players[0] {
        return Err(PyValueError::new_err(format!(
            "one model (or None) per seat: {} of them",
            players[0]
        )));
    }
    let config = Config {
        pure,
        blend,
        temperature,
        sampled,
        noise,
        ..Config::plain(iterations, params.expect("a state"), cap, actions)
    };
    let out = if gheos.is_empty() {
        let learned = models
            .iter()
            .map(|m| {
                m.as_ref()
                    .map(|m| m.tigris(players[0], pure, blend))
                    .transpose()
            })
            .collect::<PyResult<Vec<_>>>()?;
        run(py, tigris, &seeds, &config, &learned, evaluator)?
    } else {
        let learned = models
            .iter()
            .map(|m| {
                m.as_ref()
                    .map(|m| m.gheos(&gheos[0], pure, blend))
                    .transpose()
            })
            .collect::<PyResult<Vec<_>>>()?;
        run(py, gheos, &seeds, &config, &learned, evaluator)?
    };
    let d = PyDict::new(py);
    let rows = out.seat.len();
    let width = out.observation.len().checked_div(rows).unwrap_or(0);
    d.set_item(
        "observation",
        out.observation.into_pyarray(py).reshape([rows, width])?,
    )?;
    d.set_item("legal_ids", out.legal_ids.into_pyarray(py))?;
    d.set_item("visits", out.visits.into_pyarray(py))?;
    d.set_item("offsets", out.offsets.into_pyarray(py))?;
    d.set_item("seat", out.seat.into_pyarray(py))?;
    d.set_item("ply", out.ply.into_pyarray(py))?;
    d.set_item("game", out.game.into_pyarray(py))?;
    d.set_item("game_actions", out.game_actions.into_pyarray(py))?;
    d.set_item("game_offsets", out.game_offsets.into_pyarray(py))?;
    d.set_item("calls", out.calls)?;
    d.set_item("rows", out.rows)?;
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(selfplay_games, m)?)
}
