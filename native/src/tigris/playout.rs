//! Random playouts: uniform random legal actions to the end of the game, with a fast RNG and
//! no event, for search and for measuring the engine.

use super::actions::TILE_TOTALS;
use super::events::NoEvents;
use super::state::{Options, State};

use crate::splitmix::SplitMix64;

impl State {
    /// Play uniform random legal actions until the game is over; the number of actions.
    pub fn random_playout(&mut self, rng: &mut SplitMix64) -> u64 {
        let mut actions = 0;
        while !self.over {
            let moves = self.moves();
            let id = moves.random(rng);
            self.apply_move(&moves, id, &mut NoEvents);
            actions += 1;
        }
        actions
    }
}

/// A new game shuffled by the native RNG (the benchmark's set-up).
pub fn fresh_game(players: usize, options: Options, rng: &mut SplitMix64) -> State {
    let start = options.side.map().temples.count();
    let mut bag = Vec::new();
    for (color, total) in TILE_TOTALS.iter().enumerate() {
        let total = if color == 0 { total - start } else { *total };
        bag.extend(std::iter::repeat_n(color as u8, total as usize));
    }
    for i in (1..bag.len()).rev() {
        let j = rng.below(i + 1);
        bag.swap(i, j);
    }
    let seats: Vec<u8> = (0..players as u8).collect();
    let active = rng.below(players);
    State::new_game(&seats, options, &bag, active)
}
