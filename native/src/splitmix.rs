//! SplitMix64, the crate's one fast seeded generator: the random playouts of both engines, the
//! research batch and the native search draw from it, under this one name (the reference's
//! deals use CPython's Mersenne Twister instead: [`crate::cpython_random`]).

/// A small, fast, seeded generator: speed matters here, not quality.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
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
        let mut m = (self.next_u64() as u128) * (n as u128);
        // The threshold (2^64 mod n) is below n: a low word at least n passes without the
        // division that works it out (the same draws, the same answers).
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = (self.next_u64() as u128) * (n as u128);
            }
        }
        (m >> 64) as usize
    }

    /// Uniform in [0, 1), 53 bits as Python's `random()`.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Keep `k` of `items` drawn uniformly without replacement (a partial Fisher-Yates; the
    /// order left is the draw order, as `random.sample` gives).
    pub fn sample_in_place<T>(&mut self, items: &mut Vec<T>, k: usize) {
        if k >= items.len() {
            return;
        }
        self.sample_prefix(items, k);
        items.truncate(k);
    }

    /// Move `k` (at most `items.len()`) of `items`, drawn uniformly without replacement, to
    /// the front in draw order: the partial Fisher-Yates of `sample_in_place`.
    pub fn sample_prefix<T>(&mut self, items: &mut [T], k: usize) {
        let n = items.len();
        for i in 0..k {
            let j = i + self.below(n - i);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SplitMix64;

    /// Lemire's multiply-and-reject with the threshold worked out at every draw.
    fn below_plainly(rng: &mut SplitMix64, n: u64) -> u64 {
        let threshold = n.wrapping_neg() % n;
        loop {
            let m = (rng.next_u64() as u128) * (n as u128);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }

    #[test]
    fn below_draws_as_the_plain_rejection_does() {
        // Large n reject often; small ones rarely.
        for n in [1u64, 2, 3, 7, 48, 750, 1 << 32, (1 << 63) + 1, u64::MAX - 2] {
            let (mut fast, mut plain) = (SplitMix64::new(n), SplitMix64::new(n));
            for _ in 0..2_000 {
                assert_eq!(fast.below(n as usize) as u64, below_plainly(&mut plain, n));
            }
            assert_eq!(fast.next_u64(), plain.next_u64(), "as many draws taken");
        }
    }

    #[test]
    fn below_and_unit_stay_in_range() {
        let mut rng = SplitMix64::new(3);
        let mut seen = [0u32; 6];
        for _ in 0..6000 {
            seen[rng.below(6)] += 1;
            let u = rng.unit();
            assert!((0.0..1.0).contains(&u));
        }
        assert!(seen.iter().all(|n| (800..1200).contains(n)), "{seen:?}");
        assert_eq!(rng.below(1), 0);
    }

    #[test]
    fn sample_keeps_distinct_items() {
        let mut rng = SplitMix64::new(9);
        let mut items: Vec<u32> = (0..50).collect();
        rng.sample_in_place(&mut items, 10);
        assert_eq!(items.len(), 10);
        let mut sorted = items.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 10);
    }
}
