//! The native Gheos engine: the rules of `cradle.gheos` (the Python reference) in Rust, with
//! the same notation, action ids and their order, events, positions and refusals. Pure Rust:
//! its Python bindings are `crate::python::gheos`.
//!
//! - [`geometry`]: the triangular grid and its cell numbering;
//! - [`tiles`]: the tile set (read and checked in Python, handed over);
//! - [`board`]: the tiles on the table and their areas (a flat union-find over regions);
//! - [`state`]: the state, its legal ids and what each action does;
//! - [`tracked`]: a state with its legal ids kept until it changes (what the bindings, the
//!   batch and the bots step);
//! - [`notation`]: ids, action strings and reading what a player wrote;
//! - [`events`]: what an action did, with the reference's texts;
//! - [`compact`]: the compact action ids of the research environments;
//! - [`knowledge`]: the search's knowledge (twin of `cradle.ai.knowledge.gheos`);
//! - [`observation`]: a seat's observation tensor (the research environments');
//! - [`parts`]: a state as plain parts (positions read by the reference, pickling);
//! - [`search_game`]: the engine and its knowledge as the native search's `SearchGame`.

pub mod board;
pub mod compact;
pub mod events;
pub mod geometry;
pub mod knowledge;
pub mod notation;
pub mod observation;
pub mod parts;
pub mod search_game;
pub mod state;
pub mod tiles;
pub mod tracked;

pub use search_game::World;
pub use state::State;
pub use tracked::Tracked;
