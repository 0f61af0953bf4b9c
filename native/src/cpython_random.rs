//! CPython's `random.Random` for integer seeds, bit for bit: the Mersenne Twister seeded as
//! `random.seed(n)` seeds it (`init_by_array` on the 32-bit words of `abs(n)`), and `shuffle`
//! and `randrange(n)` drawing as `_randbelow_with_getrandbits` draws. A native new game deals
//! exactly what the Python engine deals for the same seed, and a search deals its worlds as
//! `CanonicalRandom` does, without Python's cost.

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;
/// How many words past the one drawn a twist readies (below N - M).
const AHEAD: usize = 32;

/// The Mersenne Twister as CPython seeds and draws it (`_randommodule.c`, `random.py`).
#[derive(Clone)]
pub struct CpythonRandom {
    state: [u32; N],
    index: usize,
    /// How many words of the current block are twisted: a word k < N - M needs only words
    /// not twisted yet, so a few draws (a shuffle) twist only what they use.
    twisted: usize,
}

impl CpythonRandom {
    /// `random.Random(seed)` for an int seed, given as `abs(seed)` in 32-bit words, least
    /// significant first (`[0]` for zero), the way CPython splits it.
    pub fn from_key(key: &[u32]) -> CpythonRandom {
        // Every int seed starts from the same init_genrand(19650218) state: made once.
        static START: std::sync::OnceLock<[u32; N]> = std::sync::OnceLock::new();
        let mut rng = CpythonRandom {
            state: *START.get_or_init(|| {
                let mut first = CpythonRandom {
                    state: [0; N],
                    index: N,
                    twisted: N,
                };
                first.init_genrand(19_650_218);
                first.state
            }),
            index: N,
            twisted: N,
        };
        let key: &[u32] = if key.is_empty() { &[0] } else { key };
        let mt = &mut rng.state;
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_566_083_941))
                .wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        rng
    }

    fn init_genrand(&mut self, seed: u32) {
        self.state[0] = seed;
        for i in 1..N {
            let prev = self.state[i - 1];
            self.state[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        self.index = N;
    }

    /// `random.Random(seed)` for a 64-bit seed.
    pub fn from_u64(seed: u64) -> CpythonRandom {
        let (low, high) = (seed as u32, (seed >> 32) as u32);
        if high == 0 {
            CpythonRandom::from_key(&[low])
        } else {
            CpythonRandom::from_key(&[low, high])
        }
    }

    /// `random.Random(seed)` for any integer seed up to 128 bits.
    pub fn new(seed: u128) -> CpythonRandom {
        let mut key = Vec::with_capacity(4);
        let mut rest = seed;
        while rest > 0 {
            key.push(rest as u32);
            rest >>= 32;
        }
        CpythonRandom::from_key(&key)
    }

    /// Twists word `k` of the block, every word before it not twisted yet and a few after it
    /// (all the rest once past N - M, whose words read twisted ones).
    fn twist(&mut self, k: usize) {
        let mt = &mut self.state;
        let mag = |y: u32| if y & 1 == 1 { MATRIX_A } else { 0 };
        // A few words ahead at a time (a shuffle draws on): the same words, fewer calls.
        let first = (k + AHEAD).min(N - M);
        for kk in self.twisted..first {
            let y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
            mt[kk] = mt[kk + M] ^ (y >> 1) ^ mag(y);
        }
        self.twisted = self.twisted.max(first);
        if k < N - M {
            return;
        }
        for kk in self.twisted.max(N - M)..N - 1 {
            let y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
            mt[kk] = mt[kk + M - N] ^ (y >> 1) ^ mag(y);
        }
        let y = (mt[N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
        mt[N - 1] = mt[M - 1] ^ (y >> 1) ^ mag(y);
        self.twisted = N;
    }

    fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.index = 0;
            self.twisted = 0;
        }
        if self.index >= self.twisted {
            self.twist(self.index);
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }

    /// `getrandbits(k)` for 1 <= k <= 32.
    fn getrandbits(&mut self, k: u32) -> u32 {
        self.next_u32() >> (32 - k)
    }

    /// `getrandbits(64)`: two words, the first drawn the less significant.
    pub fn getrandbits64(&mut self) -> u64 {
        let low = u64::from(self.next_u32());
        low | (u64::from(self.next_u32()) << 32)
    }

    /// `_randbelow(n)` (`randrange(n)`), n >= 1.
    pub fn below(&mut self, n: u32) -> u32 {
        let k = 32 - n.leading_zeros();
        loop {
            let r = self.getrandbits(k);
            if r < n {
                return r;
            }
        }
    }

    /// `shuffle(x)`.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u32 + 1) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_cpython() {
        // random.Random(42): getrandbits(32) x3, then randrange(10) x5, shuffle(range(10)).
        let mut rng = CpythonRandom::from_key(&[42]);
        assert_eq!(
            [rng.next_u32(), rng.next_u32(), rng.next_u32()],
            [2_746_317_213, 478_163_327, 107_420_369]
        );
        let mut rng = CpythonRandom::from_key(&[42]);
        let draws: Vec<u32> = (0..5).map(|_| rng.below(10)).collect();
        assert_eq!(draws, vec![1, 0, 4, 3, 3]);
        let mut rng = CpythonRandom::from_key(&[0]);
        let mut items: Vec<u32> = (0..10).collect();
        rng.shuffle(&mut items);
        assert_eq!(items, vec![7, 8, 1, 5, 3, 4, 2, 0, 9, 6]);
    }

    #[test]
    fn words_twisted_as_drawn_are_cpythons_across_blocks() {
        // random.Random(42).getrandbits(32): draws 227.., around N - M and the next block.
        let mut rng = CpythonRandom::from_key(&[42]);
        let draws: Vec<u32> = (0..1500).map(|_| rng.next_u32()).collect();
        let at = [226, 227, 228, 396, 622, 623, 624, 1499].map(|i| draws[i]);
        assert_eq!(
            at,
            [
                767_303_988,
                2_180_476_188,
                3_919_706_735,
                4_291_885_525,
                902_271_852,
                2_929_454_134,
                1_071_722_055,
                1_084_044_802
            ]
        );
        let mut big = CpythonRandom::from_u64((1 << 40) + 7);
        assert_eq!(
            [big.next_u32(), big.next_u32()],
            [2_635_837_658, 3_209_733_218]
        );
    }

    #[test]
    fn the_first_draws_are_cpythons() {
        // random.Random(n).getrandbits(32), five times, from CPython 3.11
        let expected: [(u128, [u32; 5]); 3] = [
            (
                0,
                [
                    3_626_764_237,
                    1_654_615_998,
                    3_255_389_356,
                    3_823_568_514,
                    1_806_341_205,
                ],
            ),
            (
                42,
                [
                    2_746_317_213,
                    478_163_327,
                    107_420_369,
                    3_184_935_163,
                    1_181_241_943,
                ],
            ),
            (
                1 << 40,
                [
                    445_128_065,
                    1_517_081_360,
                    2_880_015_531,
                    282_029_048,
                    1_832_466_665,
                ],
            ),
        ];
        for (seed, draws) in expected {
            let mut r = CpythonRandom::new(seed);
            let got: Vec<u32> = (0..5).map(|_| r.next_u32()).collect();
            assert_eq!(got, draws, "seed {seed}");
        }
    }

    #[test]
    fn shuffle_is_cpythons() {
        // l = list(range(10)); random.Random(7).shuffle(l)
        let mut items: Vec<u32> = (0..10).collect();
        CpythonRandom::new(7).shuffle(&mut items);
        assert_eq!(items, [8, 3, 1, 4, 7, 0, 9, 6, 2, 5]);
    }

    #[test]
    fn getrandbits64_is_cpythons() {
        // random.Random(42).getrandbits(64): the first word drawn is the low one.
        let mut rng = CpythonRandom::new(42);
        assert_eq!(rng.getrandbits64(), (478_163_327u64 << 32) | 2_746_317_213);
    }
}
