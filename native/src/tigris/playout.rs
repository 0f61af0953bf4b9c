//! Random playouts: uniform random legal actions to the end of the game, with a fast RNG and
//! no event, for search and for measuring the engine.

use super::actions::TILE_TOTALS;
use super::events::NoEvents;
use super::state::{Options, State};

/// SplitMix64: small, fast and good enough to pick among a few hundred actions.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`), without bias (Lemire's multiply-and-reject).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        let threshold = n.wrapping_neg() % n;
        loop {
            let m = (self.next_u64() as u128) * (n as u128);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }
}

impl State {
    /// Play uniform random legal actions until the game is over; the number of actions.
    pub fn random_playout(&mut self, rng: &mut Rng) -> u64 {
        let mut actions = 0;
        while !self.over {
            let moves = self.moves();
            let pick = rng.below(moves.count() as u64) as usize;
            let id = moves.nth(pick);
            self.apply_move(&moves, id, &mut NoEvents);
            actions += 1;
        }
        actions
    }
}

/// A new game shuffled by the native RNG (the benchmark's set-up).
pub fn fresh_game(players: usize, options: Options, rng: &mut Rng) -> State {
    let start = options.side.map().temples.count();
    let mut bag = Vec::new();
    for (color, total) in TILE_TOTALS.iter().enumerate() {
        let total = if color == 0 { total - start } else { *total };
        bag.extend(std::iter::repeat_n(color as u8, total as usize));
    }
    for i in (1..bag.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        bag.swap(i, j);
    }
    let seats: Vec<u8> = (0..players as u8).collect();
    let active = rng.below(players as u64) as usize;
    State::new_game(&seats, options, &bag, active)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = Rng::new(7);
        let mut seen = [0u32; 5];
        for _ in 0..5000 {
            seen[rng.below(5) as usize] += 1;
        }
        assert!(seen.iter().all(|n| (800..1200).contains(n)), "{seen:?}");
        assert_eq!(rng.below(1), 0);
    }
}
