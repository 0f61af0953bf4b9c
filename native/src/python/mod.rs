//! The Python module `cradle._native`: every PyO3 type and function of the crate, on top of
//! its pure-Rust core (nothing outside this directory imports PyO3).
//!
//! - [`tigris`]: `TigrisState` (the reference's surface), its conversions, analysis and the
//!   `tigris_ai_*` knowledge hooks;
//! - [`gheos`]: `GheosTiles`, `GheosState`, the same for Gheos;
//! - [`search`]: `search`, the native ISMCTS on a state of either game;
//! - [`vector`]: `Batch`, N states stepped together (NumPy arrays);
//! - [`env`]: `Opponents` and `NativeBot`, the seats' native bots;
//! - [`selfplay`]: `selfplay_games`, batched self-play;
//! - [`model`]: `Model`, a learned network read from its checkpoint (`crate::nn`).
//!
//! The module is flat: names begin with the game's name where they belong to one (e.g.
//! `TigrisState`), typed for Python in `src/cradle/_native.pyi`.

pub mod env;
pub mod gheos;
pub mod model;
pub mod search;
pub mod selfplay;
pub mod tigris;
pub mod vector;

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

/// `module.name`, imported once into `cell`.
pub(crate) fn cached<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    module: &str,
    name: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let found = cell.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import(module)?.getattr(name)?.unbind())
    })?;
    Ok(found.bind(py).clone())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    tigris::register(m)?;
    tigris::knowledge::register(m)?;
    gheos::register(m)?;
    gheos::knowledge::register(m)?;
    search::register(m)?;
    vector::register(m)?;
    env::register(m)?;
    selfplay::register(m)?;
    model::register(m)?;
    Ok(())
}
