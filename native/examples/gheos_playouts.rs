//! Random 2-player Gheos games with full legal-move generation at every ply, in pure Rust (no
//! Python): the engine's own speed, and the program to profile.
//!
//!     cargo run --release --example gheos_playouts -- [seconds] [games]
//!
//! With a number of games it stops there (a fixed workload, e.g. for callgrind).

mod common;

use common::{arg, packaged_tiles};

use std::time::Instant;

use _native::gheos::State;

fn main() {
    let seconds: f64 = arg(1, 3.0);
    let most: u64 = arg(2, u64::MAX);
    let tiles = packaged_tiles();
    let names = vec!["p0".to_string(), "p1".to_string()];
    let (mut games, mut actions) = (0u64, 0u64);
    let start = Instant::now();
    while games < most && start.elapsed().as_secs_f64() < seconds {
        let key = [games as u32 + 1];
        let mut game = State::deal(tiles.clone(), names.clone(), &key);
        actions += game.random_playout(games + 1);
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
