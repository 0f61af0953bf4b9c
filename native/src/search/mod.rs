//! The native single-observer ISMCTS (the Python reference is `cradle.ai.ismcts`), generic over
//! a game's [`SearchGame`]: determinization, selection, expansion, settling and evaluation
//! all run on native states and fixed action ids.
//!
//! - [`SearchGame`]: what a game and its knowledge give the search;
//! - [`SearchRng`]: the search's seeded generator;
//! - [`tree`]: one tree and root parallelism on threads.

pub mod tree;

pub use tree::{search, Budget, Params, RootStats, Tree};

/// What the native ISMCTS needs from a game. Ids are the game's fixed action ids.
pub trait SearchGame: Clone + Send {
    fn players(&self) -> usize;
    fn to_move(&self) -> usize;
    fn is_over(&self) -> bool;
    /// Rewards of a finished game per seat (cradle.core.results.rank_rewards: 1 for a 2-player win, ties shared).
    fn final_rewards(&self) -> [f64; 4];
    fn legal_ids(&mut self, out: &mut Vec<u32>);
    fn apply_quiet(&mut self, id: u32);
    /// A world `observer` cannot tell from this state (as sample_hidden_seeded).
    fn determinize(&self, observer: usize, seed: u64) -> Self;
    /// Move priors of the seat to move for `ids` (all legal here), as the Python Knowledge.priors.
    fn priors(&mut self, ids: &[u32], out: &mut Vec<f64>);
    /// A decision in progress that the quick policy settles before judging (Knowledge.unsettled).
    fn unsettled(&mut self) -> bool;
    /// The quick policy's action (Knowledge.policy).
    fn policy(&mut self, rng: &mut SearchRng) -> u32;
    /// The heuristic reward vector of an unfinished world (Knowledge.rewards).
    fn heuristic_rewards(&mut self) -> [f64; 4];
    /// Uniformly random moves before the heuristic (Tigris 0, Gheos 8) and the prior batch below the root (48, 16).
    fn playout_moves(&self) -> usize;
    fn prior_batch(&self) -> usize;
}

/// Each seat's expected share of opponents beaten, from estimated final scores (the
/// reference's `cradle.ai.search.pairwise_chances`), for every game's knowledge.
pub fn pairwise_chances(values: &[f64], temperature: f64) -> [f64; 4] {
    let n = values.len();
    let mut out = [0.0; 4];
    if n < 2 {
        out[..n].fill(1.0);
        return out;
    }
    for i in 0..n {
        let mut total = 0.0;
        for j in 0..n {
            if i != j {
                let x = (values[i] - values[j]) / temperature;
                total += 1.0 / (1.0 + (-x.clamp(-30.0, 30.0)).exp());
            }
        }
        out[i] = total / (n - 1) as f64;
    }
    out
}

/// SplitMix64: a small, fast, seeded generator (the search's draws need speed, not quality).
#[derive(Clone, Debug)]
pub struct SearchRng(u64);

impl SearchRng {
    pub fn new(seed: u64) -> SearchRng {
        SearchRng(seed)
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
    pub fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        let threshold = n.wrapping_neg() % n;
        loop {
            let m = (self.next_u64() as u128) * (n as u128);
            if (m as u64) >= threshold {
                return (m >> 64) as usize;
            }
        }
    }

    /// Uniform in [0, 1), 53 bits as Python's `random()`.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Keep `k` of `items` drawn uniformly without replacement (a partial Fisher-Yates; the
    /// order left is the draw order, as `random.sample` gives).
    pub fn sample_in_place<T>(&mut self, items: &mut Vec<T>, k: usize) {
        let n = items.len();
        if k >= n {
            return;
        }
        for i in 0..k {
            let j = i + self.below(n - i);
            items.swap(i, j);
        }
        items.truncate(k);
    }
}

#[cfg(test)]
mod tests {
    use super::SearchRng;

    #[test]
    fn below_and_unit_stay_in_range() {
        let mut rng = SearchRng::new(3);
        let mut seen = [0u32; 6];
        for _ in 0..6000 {
            seen[rng.below(6)] += 1;
            let u = rng.unit();
            assert!((0.0..1.0).contains(&u));
        }
        assert!(seen.iter().all(|n| (800..1200).contains(n)), "{seen:?}");
    }

    #[test]
    fn sample_keeps_distinct_items() {
        let mut rng = SearchRng::new(9);
        let mut items: Vec<u32> = (0..50).collect();
        rng.sample_in_place(&mut items, 10);
        assert_eq!(items.len(), 10);
        let mut sorted = items.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 10);
    }
}
