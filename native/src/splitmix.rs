//! SplitMix64, the crate's one fast seeded generator: the random playouts of both engines, the
//! research batch and the native search draw from it, under this one name (the reference's
//! deals use CPython's Mersenne Twister instead: [`crate::pyrandom`]).

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
