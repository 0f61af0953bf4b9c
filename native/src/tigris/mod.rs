//! The tigris engine (to be written: see docs/engines.md).

pub mod py;
