//! The Tigris & Euphrates engine: a pure-Rust core (no Python types) and its bindings.
//!
//! - [`board`]: the 176-cell bitboard, geometry and the two board sides;
//! - [`actions`]: the notation, the fixed action ids and the parser;
//! - [`state`]: the state and every rule (legal moves, checks, apply);
//! - [`events`]: what an action did (the reference's event dicts);
//! - [`position`]: the state as a position;
//! - [`observation`]: a seat's observation tensor (the research environments');
//! - [`playout`]: random playouts with a native RNG;
//! - [`knowledge`]: the search's knowledge (a port of `cradle.ai.knowledge.tigris`);
//! - [`convert`]: Tigris values as Python objects and back (the PyO3 conversions);
//! - [`py`]: the Python class `cradle._native.TigrisState` (the bindings);
//! - [`pysearch`]: the native ISMCTS and the knowledge's test hooks for Python.
//!
//! The Python engine `cradle.tigris` is the reference: same ids and order, same events and
//! texts, same reasons for refused actions (docs/engines.md).

// Seats and colours index several parallel arrays at once, as in the reference's code.
#![allow(clippy::needless_range_loop)]

pub mod actions;
pub mod analysis;
pub mod board;
pub mod convert;
pub mod events;
pub mod knowledge;
pub mod observation;
pub mod playout;
pub mod position;
pub mod py;
pub mod pyanalysis;
pub mod pysearch;
pub mod state;

#[cfg(test)]
mod tests;
