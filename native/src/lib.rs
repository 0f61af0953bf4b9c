//! cradle's native rules cores: Tigris & Euphrates and Gheos on bitboards, exposed to Python
//! as `cradle._native` (the Python engines in `cradle.tigris` / `cradle.gheos` are the reference).
//!
//! Everything but [`python`] is pure Rust (no PyO3 type): the games' engines and knowledge,
//! the search, the bots, the generators. [`python`] is the whole PyO3 layer, as polars keeps
//! its own apart: the conversions, the Python classes and the bindings of the search, the
//! batch and the environments' bots.

pub mod bots;
pub mod cpython_random;
pub mod gheos;
#[cfg(test)]
mod layout;
pub mod nn;
#[cfg(feature = "python")]
pub mod python;
pub mod search;
pub mod splitmix;
pub mod steppable;
pub mod text;
pub mod tigris;
