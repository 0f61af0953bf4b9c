//! The native ISMCTS on Gheos in pure Rust (no Python): iterations per second on an opening,
//! a middle-game and a late position of one random game, like `cradle bench --ai`, and the
//! program to profile (`perf record`).
//!
//!     cargo run --release --example gheos_search -- [players] [seconds] [iterations]
//!
//! With `iterations`, each position is searched that many iterations instead of for a time
//! (the same trees on every build: for callgrind).

mod common;

use common::{arg, packaged_tiles};

use std::time::Instant;

use _native::gheos::events::Log;
use _native::gheos::knowledge::Value;
use _native::gheos::search_game::{knowledge_params, Judge, World};
use _native::gheos::State;
use _native::search::{search, Budget};
use _native::splitmix::SplitMix64;

fn main() {
    let players: usize = arg(1, 2);
    let seconds: f64 = arg(2, 6.0);
    let fixed: Option<u64> = std::env::args().nth(3).and_then(|s| s.parse().ok());
    let names: Vec<String> = (0..players).map(|s| format!("p{s}")).collect();
    let tiles = packaged_tiles();
    let fresh = || State::deal(tiles.clone(), names.clone(), &[1]);
    let mut legal = Vec::new();
    let mut log = Log::new(false);
    let length = {
        let mut probe = fresh();
        probe.random_playout(1) as usize
    };
    // The defaults of `hard` (Python's `IsmctsParams`): value 4, settled priors, urgent replies,
    // four policy moves before the random ones.
    let params = knowledge_params();
    let (mut iterations, mut spent) = (0u64, 0.0);
    for (number, stage) in [0.0, 0.3, 0.6].into_iter().enumerate() {
        let mut state = fresh();
        let mut rng = SplitMix64::new(1);
        for _ in 0..(length as f64 * stage) as usize {
            state.legal_ids(&mut legal);
            state.apply_legal(legal[rng.below(legal.len())], &mut log);
        }
        let budget = Budget {
            iterations: fixed,
            seconds: if fixed.is_some() {
                None
            } else {
                Some(seconds / 3.0)
            },
            floor: None,
        };
        let start = Instant::now();
        let seat = usize::from(state.active);
        let world = World {
            s: state,
            judge: Judge::Hand(Value::UsableTokens),
            settle: true,
        };
        let (count, _) = search(&world, seat, budget, params, &[number as u64 + 1], None);
        spent += start.elapsed().as_secs_f64();
        iterations += count;
    }
    println!(
        "gheos {players}p: {:.0} iterations/s ({iterations} in {spent:.2} s)",
        iterations as f64 / spent
    );
}
