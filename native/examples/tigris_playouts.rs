//! Random 2-player Tigris & Euphrates games with full legal-move generation at every ply, in
//! pure Rust (no Python): the engine's own speed, and the program to profile.
//!
//!     cargo run --release --example tigris_playouts -- [seconds] [games]
//!
//! With a number of games it stops there (a fixed workload, e.g. for callgrind).

mod common;

use common::arg;

use std::time::Instant;

use _native::splitmix::SplitMix64;
use _native::tigris::playout::fresh_game;
use _native::tigris::state::Options;

fn main() {
    let seconds: f64 = arg(1, 3.0);
    let most: u64 = arg(2, u64::MAX);
    let mut rng = SplitMix64::new(1);
    let (mut games, mut actions) = (0u64, 0u64);
    let start = Instant::now();
    while games < most && start.elapsed().as_secs_f64() < seconds {
        let mut state = fresh_game(2, Options::default(), &mut rng);
        actions += state.random_playout(&mut rng);
        games += 1;
    }
    let elapsed = start.elapsed().as_secs_f64();
    println!(
        "{games} games in {elapsed:.2} s: {:.0} games/s, {:.0} actions/game, {:.2} µs/action",
        games as f64 / elapsed,
        actions as f64 / games as f64,
        elapsed * 1e6 / actions as f64
    );
}
