//! Random 2-player Gheos games with full legal-move generation at every ply, in pure Rust (no
//! Python): the engine's own speed, and the program to profile.
//!
//!     cargo run --release --example gheos_playouts -- [seconds] [games]
//!
//! With a number of games it stops there (a fixed workload, e.g. for callgrind).

mod common;

use common::{arg, packaged_tiles, time_playouts};

use _native::gheos::State;

fn main() {
    let tiles = packaged_tiles();
    let names = vec!["p0".to_string(), "p1".to_string()];
    time_playouts(arg(1, 3.0), arg(2, u64::MAX), |game| {
        let key = [game as u32 + 1];
        State::deal(tiles.clone(), names.clone(), &key).random_playout(game + 1)
    });
}
