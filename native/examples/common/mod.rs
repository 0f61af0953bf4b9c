//! What the examples share: reading their arguments, and Gheos' packaged tiles.

use std::str::FromStr;
use std::sync::Arc;

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
