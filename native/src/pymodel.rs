//! The learned networks for Python (`cradle.ai.model`): `Model` holds one network read from
//! its checkpoint (`crate::nn`), shared by the searches and self-play that use it.

use std::sync::Arc;

use numpy::{IntoPyArray, PyArray1, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::gheos::search_game::Judged;
use crate::nn::{leaf, Net, MOST_BYTES};
use crate::search::{LeafModel, Learned};
use crate::tigris::knowledge::TigrisWorld;

/// A network read from a checkpoint (docs/research.md, "The checkpoint format").
#[pyclass(frozen, name = "Model", module = "cradle._native")]
pub struct PyModel {
    pub net: Arc<Net>,
}

impl PyModel {
    /// The model as a Tigris search uses it, after checking it plays Tigris with `players`.
    pub fn tigris(&self, players: usize, pure: bool, mix: f64) -> PyResult<Learned<TigrisWorld>> {
        let (inputs, actions) = leaf::TIGRIS;
        leaf::check(&self.net, "tigris", players, inputs, actions)
            .map_err(PyValueError::new_err)?;
        Ok(Learned {
            model: Arc::clone(&self.net) as Arc<dyn LeafModel<TigrisWorld>>,
            pure,
            mix: checked_mix(mix)?,
        })
    }

    /// The model as a Gheos search of `root` uses it, after checking it plays that game.
    pub fn gheos(&self, root: &Judged, pure: bool, mix: f64) -> PyResult<Learned<Judged>> {
        let inputs = crate::gheos::observation::size(root.game.tiles.tiles.len());
        let actions = crate::gheos::notation::ACTION_COUNT as usize;
        let players = usize::from(root.game.players);
        leaf::check(&self.net, "gheos", players, inputs, actions).map_err(PyValueError::new_err)?;
        Ok(Learned {
            model: Arc::clone(&self.net) as Arc<dyn LeafModel<Judged>>,
            pure,
            mix: checked_mix(mix)?,
        })
    }
}

/// A value mix is a share, 0 to 1.
pub fn checked_mix(mix: f64) -> PyResult<f64> {
    if (0.0..=1.0).contains(&mix) {
        Ok(mix)
    } else {
        Err(PyValueError::new_err(format!("mix is 0 to 1, not {mix}")))
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

    /// The logits of `ids` (action ids) for one observation: what a pure policy reads.
    fn logits<'py>(
        &self,
        py: Python<'py>,
        observation: Vec<f32>,
        ids: Vec<u32>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let net = &self.net;
        if observation.len() != net.inputs {
            return Err(PyValueError::new_err(format!(
                "an observation of {} elements, the model reads {}",
                observation.len(),
                net.inputs
            )));
        }
        if let Some(id) = ids.iter().find(|&&id| id as usize >= net.actions) {
            return Err(PyValueError::new_err(format!(
                "action id {id} is beyond the model's {} actions",
                net.actions
            )));
        }
        let mut scratch: [Vec<f32>; 2] = Default::default();
        let mut features = vec![0.0; net.width];
        net.features(&observation, &mut scratch, &mut features);
        let out: Vec<f32> = ids.iter().map(|&id| net.logit(&features, id)).collect();
        Ok(out.into_pyarray(py).into_any())
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyModel>()
}
