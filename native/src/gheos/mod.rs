//! The native Gheos engine: the rules of `cradle.gheos` (the Python reference) in Rust, with
//! the same notation, action ids and their order, events, positions and refusals.
//!
//! - [`geometry`]: the triangular grid and its cell numbering;
//! - [`tiles`]: the tile set (read and checked in Python, handed over);
//! - [`board`]: the tiles on the table and their areas (a flat union-find over regions);
//! - [`game`]: the state, its legal ids and what each action does;
//! - [`notation`]: ids, action strings and reading what a player wrote;
//! - [`events`]: what an action did, with the reference's texts;
//! - [`knowledge`]: the search's knowledge (twin of `cradle.ai.knowledge.gheos`);
//! - [`observation`]: a seat's observation tensor (the research environments');
//! - [`parts`]: a state as plain parts (positions read by the reference, pickling);
//! - [`search_game`]: the engine and its knowledge as the native search's `SearchGame`;
//! - [`convert`]: Gheos values as Python objects and back (the PyO3 conversions);
//! - [`py`]: the Python bindings (`cradle._native.GheosState`, `GheosTiles`);
//! - [`pysearch`]: the native ISMCTS on Gheos and the knowledge's test hooks for Python.

pub mod board;
pub mod compact;
pub mod convert;
pub mod events;
pub mod game;
pub mod geometry;
pub mod knowledge;
pub mod notation;
pub mod observation;
pub mod parts;
pub mod py;
pub mod pyanalysis;
pub mod pysearch;
pub mod search_game;
pub mod tiles;
