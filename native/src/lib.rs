//! cradle's native rules cores: Tigris & Euphrates and Gheos on bitboards, exposed to Python
//! as `cradle._native` (the Python engines in `cradle.tigris` / `cradle.gheos` are the reference).
//!
//! The module is flat: each game's `py::register` adds its classes and functions (names begin
//! with the game's name, e.g. `TigrisState`), typed for Python in `src/cradle/_native.pyi`.

pub mod bots;
pub mod env;
pub mod gheos;
pub mod nn;
pub mod pymodel;
pub mod pyrandom;
pub mod pysearch;
pub mod search;
pub mod selfplay;
pub mod splitmix;
pub mod text;
pub mod tigris;
pub mod vector;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    tigris::py::register(m)?;
    tigris::pysearch::register(m)?;
    gheos::py::register(m)?;
    gheos::pysearch::register(m)?;
    pysearch::register(m)?;
    vector::register(m)?;
    env::register(m)?;
    selfplay::register(m)?;
    pymodel::register(m)?;
    Ok(())
}
