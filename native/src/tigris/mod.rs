//! The Tigris & Euphrates engine: a pure-Rust core (no Python types; its bindings are
//! `crate::python::tigris`).
//!
//! - [`board`]: the 176-cell bitboard, geometry and the two board sides;
//! - [`actions`]: the notation, the fixed action ids and the parser;
//! - [`state`]: the state and every rule (legal moves, checks, apply);
//! - [`tracked`]: a state with its legal ids and moves kept until it changes (what the
//!   bindings, the batch and the bots step);
//! - [`events`]: what an action did (the reference's event dicts);
//! - [`position`]: the state as a position;
//! - [`analysis`]: the analysis API's plain values;
//! - [`observation`]: a seat's observation tensor (the research environments');
//! - [`playout`]: random playouts with a native RNG;
//! - [`knowledge`]: the search's knowledge (a port of `cradle.ai.knowledge.tigris`) and the
//!   state as the native search's `SearchGame`.
//!
//! The Python engine `cradle.tigris` is the reference: same ids and order, same events and
//! texts, same reasons for refused actions (docs/engines.md).

// Seats and colours index several parallel arrays at once, as in the reference's code.
#![allow(clippy::needless_range_loop)]

pub mod actions;
pub mod analysis;
pub mod board;
pub mod events;
pub mod knowledge;
pub mod observation;
pub mod playout;
pub mod position;
pub mod state;
pub mod tracked;

pub use knowledge::World;
pub use state::State;
pub use tracked::Tracked;

#[cfg(test)]
mod tests;
