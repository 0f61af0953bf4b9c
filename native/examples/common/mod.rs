//! What the examples share: reading their arguments, timing random games, and Gheos'
//! packaged tiles.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Instant;

use _native::gheos::tiles::TileSet;

/// The `n`th command-line argument read as a `T`; `default` when it is missing or does not
/// read as one.
pub fn arg<T: FromStr>(n: usize, default: T) -> T {
    std::env::args()
        .nth(n)
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// The tile set the package ships (`src/cradle/gheos/data/tiles.txt`).
#[allow(dead_code)] // the Tigris example has no tiles
pub fn packaged_tiles() -> Arc<TileSet> {
    let text = include_str!("../../../src/cradle/gheos/data/tiles.txt");
    Arc::new(TileSet::parse(text).expect("the packaged tile set reads"))
}

/// Plays games with `play` (given the game's number from 0, it plays one and says how many
/// actions it took) for `seconds`, or until `most` games, and prints the speed.
#[allow(dead_code)] // the search example times searches, not games
pub fn time_playouts(seconds: f64, most: u64, mut play: impl FnMut(u64) -> u64) {
    let (mut games, mut actions) = (0u64, 0u64);
    let start = Instant::now();
    while games < most && start.elapsed().as_secs_f64() < seconds {
        actions += play(games);
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
