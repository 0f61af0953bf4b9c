//! Random numbers: CPython's `random.Random` (shared with Tigris, [`crate::pyrandom`]), and a
//! small fast generator for native random playouts.

pub use crate::pyrandom::PyRandom;

/// Fast and good enough to pick uniform random actions in playouts.
pub use crate::splitmix::SplitMix64 as Fast;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_below_stays_in_range() {
        let mut rng = Fast::new(7);
        let mut seen = [0usize; 3];
        for _ in 0..300 {
            seen[rng.below(3)] += 1;
        }
        assert!(seen.iter().all(|&n| n > 50));
    }
}
