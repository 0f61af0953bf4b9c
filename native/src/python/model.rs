//! The learned networks for Python (`cradle.ai.model`): `Model` holds one network read from
//! its checkpoint (`crate::nn`), shared by the searches and self-play that use it.

use std::sync::Arc;

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::gheos::GheosState;
use super::tigris::TigrisState;
use crate::gheos::World as GheosWorld;
use crate::nn::{leaf, Net, MOST_BYTES};
use crate::search::{LeafModel, Learned};
use crate::tigris::World as TigrisWorld;

/// A network read from a checkpoint (docs/research.md, "The checkpoint format").
#[pyclass(frozen, name = "Model", module = "cradle._native")]
pub struct PyModel {
    pub net: Arc<Net>,
}

impl PyModel {
    /// The model as a Tigris search uses it, after checking it plays Tigris with `players`.
    pub fn tigris(&self, players: usize, pure: bool, blend: f64) -> PyResult<Learned<TigrisWorld>> {
        let (inputs, actions) = leaf::TIGRIS;
        leaf::check(&self.net, "tigris", players, inputs, actions)
            .map_err(PyValueError::new_err)?;
        Ok(Learned {
            model: Arc::clone(&self.net) as Arc<dyn LeafModel<TigrisWorld>>,
            pure,
            blend: checked_blend(blend)?,
        })
    }

    /// The model as a Gheos search of `root` uses it, after checking it plays that game.
    pub fn gheos(
        &self,
        root: &GheosWorld,
        pure: bool,
        blend: f64,
    ) -> PyResult<Learned<GheosWorld>> {
        let inputs = crate::gheos::observation::size(root.s.tiles.tiles.len());
        let actions = crate::gheos::notation::ACTION_COUNT as usize;
        let players = usize::from(root.s.players);
        leaf::check(&self.net, "gheos", players, inputs, actions).map_err(PyValueError::new_err)?;
        Ok(Learned {
            model: Arc::clone(&self.net) as Arc<dyn LeafModel<GheosWorld>>,
            pure,
            blend: checked_blend(blend)?,
        })
    }
}

/// The observation of the seat to move of a native state, checked against `net`: (the
/// observation, that seat).
fn observation_of(net: &Net, state: &Bound<'_, PyAny>) -> PyResult<Vec<f32>> {
    let mut out = Vec::new();
    if let Ok(s) = state.cast::<TigrisState>() {
        let s = &s.borrow().t.s;
        let (inputs, actions) = leaf::TIGRIS;
        leaf::check(net, "tigris", s.n, inputs, actions).map_err(PyValueError::new_err)?;
        out.resize(inputs, 0.0);
        crate::tigris::observation::observe(s, s.to_move(), &mut out);
        return Ok(out);
    }
    if let Ok(g) = state.cast::<GheosState>() {
        let game = &g.borrow().t.s;
        let inputs = crate::gheos::observation::size(game.tiles.tiles.len());
        let actions = crate::gheos::notation::ACTION_COUNT as usize;
        leaf::check(net, "gheos", usize::from(game.players), inputs, actions)
            .map_err(PyValueError::new_err)?;
        out.resize(inputs, 0.0);
        crate::gheos::observation::observe(game, usize::from(game.active), &mut out);
        return Ok(out);
    }
    Err(pyo3::exceptions::PyTypeError::new_err(
        "a model reads a native TigrisState or GheosState",
    ))
}

/// A value blend is a share, 0 to 1.
pub fn checked_blend(blend: f64) -> PyResult<f64> {
    if (0.0..=1.0).contains(&blend) {
        Ok(blend)
    } else {
        Err(PyValueError::new_err(format!(
            "blend is 0 to 1, not {blend}"
        )))
    }
}

#[pymethods]
impl PyModel {
    /// The network of a checkpoint's bytes.
    #[new]
    fn new(data: &[u8]) -> PyResult<PyModel> {
        let net = Net::from_bytes(data).map_err(PyValueError::new_err)?;
        Ok(PyModel { net: Arc::new(net) })
    }

    /// The network of the checkpoint at `path` (at most 64 MiB, checked before reading).
    #[staticmethod]
    fn load(path: std::path::PathBuf) -> PyResult<PyModel> {
        let size = std::fs::metadata(&path)
            .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?
            .len();
        if size > MOST_BYTES as u64 {
            return Err(PyValueError::new_err(format!(
                "{}: a checkpoint is at most {MOST_BYTES} bytes, this one {size}",
                path.display()
            )));
        }
        let data = std::fs::read(&path)
            .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?;
        let net = Net::from_bytes(&data)
            .map_err(|e| PyValueError::new_err(format!("{}: {e}", path.display())))?;
        Ok(PyModel { net: Arc::new(net) })
    }

    #[getter]
    fn game(&self) -> String {
        self.net.game.clone()
    }

    #[getter]
    fn players(&self) -> usize {
        self.net.players
    }

    #[getter]
    fn inputs(&self) -> usize {
        self.net.inputs
    }

    #[getter]
    fn actions(&self) -> usize {
        self.net.actions
    }

    #[getter]
    fn width(&self) -> usize {
        self.net.width
    }

    /// The checkpoint's metadata (strings).
    #[getter]
    fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in &self.net.metadata {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// The network on a batch of observations (B, inputs) float32: the logits of every
    /// action id (B, actions) and each seat's value relative to the observing seat
    /// (B, players), as float32 arrays.
    fn forward<'py>(
        &self,
        py: Python<'py>,
        observations: PyReadonlyArray2<'py, f32>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let net = &self.net;
        let shape = observations.shape();
        if shape[1] != net.inputs {
            return Err(PyValueError::new_err(format!(
                "observations of {} elements, the model reads {}",
                shape[1], net.inputs
            )));
        }
        let rows = shape[0];
        let data = observations.as_slice()?.to_vec();
        let (logits, values) = py.detach(|| {
            let mut scratch: [Vec<f32>; 2] = Default::default();
            let mut features = vec![0.0; net.width];
            let mut logits = Vec::with_capacity(rows * net.actions);
            let mut values = Vec::with_capacity(rows * net.players);
            let mut seat_values = vec![0.0; net.players];
            for r in 0..rows {
                let row = &data[r * net.inputs..(r + 1) * net.inputs];
                net.features(row, &mut scratch, &mut features);
                logits.extend((0..net.actions as u32).map(|id| net.logit(&features, id)));
                net.values(&features, &mut seat_values);
                values.extend(seat_values.iter().map(|&v| v as f32));
            }
            (logits, values)
        });
        let logits = PyArray1::from_vec(py, logits).reshape([rows, net.actions])?;
        let values = PyArray1::from_vec(py, values).reshape([rows, net.players])?;
        Ok((logits.into_any(), values.into_any()))
    }

    /// At `state` (a native TigrisState or GheosState), for its seat to move, from that
    /// seat's observation: the logits of `ids` (action ids; what a pure policy reads) and
    /// each seat's value relative to that seat.
    fn judge(&self, state: &Bound<'_, PyAny>, ids: Vec<u32>) -> PyResult<(Vec<f32>, Vec<f64>)> {
        let net = &self.net;
        let observation = observation_of(net, state)?;
        if let Some(id) = ids.iter().find(|&&id| id as usize >= net.actions) {
            return Err(PyValueError::new_err(format!(
                "action id {id} is beyond the model's {} actions",
                net.actions
            )));
        }
        let mut scratch: [Vec<f32>; 2] = Default::default();
        let mut features = vec![0.0; net.width];
        net.features(&observation, &mut scratch, &mut features);
        let logits = ids.iter().map(|&id| net.logit(&features, id)).collect();
        let mut values = vec![0.0; net.players];
        net.values(&features, &mut values);
        Ok((logits, values))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyModel>()
}
