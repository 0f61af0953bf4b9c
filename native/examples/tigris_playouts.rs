//! Random 2-player Tigris & Euphrates games with full legal-move generation at every ply, in
//! pure Rust (no Python): the engine's own speed, and the program to profile.
//!
//!     cargo run --release --example tigris_playouts -- [seconds] [games]
//!
//! With a number of games it stops there (a fixed workload, e.g. for callgrind).

mod common;

use common::{arg, time_playouts};

use _native::splitmix::SplitMix64;
use _native::tigris::playout::fresh_game;
use _native::tigris::state::Options;

fn main() {
    let mut rng = SplitMix64::new(1);
    time_playouts(arg(1, 3.0), arg(2, u64::MAX), |_| {
        let mut state = fresh_game(2, Options::default(), &mut rng);
        state.random_playout(&mut rng)
    });
}
