//! CPython's `random.Random` for integer seeds, bit for bit: the Mersenne Twister seeded as
//! `random.seed(n)` seeds it (`init_by_array` on the 32-bit words of `abs(n)`), and `shuffle`
//! and `randrange(n)` drawing as `_randbelow_with_getrandbits` draws. A new game deals from it
//! exactly as the reference deals from `random.Random(seed)`, without Python's cost.

const N: usize = 624;
const M: usize = 397;

pub struct PyRandom {
    mt: [u32; N],
    index: usize,
}

impl PyRandom {
    /// `random.Random(seed)` for an integer seed (its absolute value, as CPython takes it).
    pub fn new(seed: u128) -> PyRandom {
        let mut key = Vec::new();
        let mut rest = seed;
        while rest > 0 {
            key.push(rest as u32);
            rest >>= 32;
        }
        if key.is_empty() {
            key.push(0);
        }
        let mut r = PyRandom {
            mt: [0; N],
            index: N,
        };
        r.init_by_array(&key);
        r
    }

    fn init_genrand(&mut self, s: u32) {
        self.mt[0] = s;
        for i in 1..N {
            let prev = self.mt[i - 1];
            self.mt[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        self.index = N;
    }

    fn init_by_array(&mut self, key: &[u32]) {
        self.init_genrand(19_650_218);
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = self.mt[i - 1];
            self.mt[i] = (self.mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                self.mt[0] = self.mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = self.mt[i - 1];
            self.mt[i] = (self.mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941))
                .wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                self.mt[0] = self.mt[N - 1];
                i = 1;
            }
        }
        self.mt[0] = 0x8000_0000;
    }

    fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            for k in 0..N {
                let y = (self.mt[k] & 0x8000_0000) | (self.mt[(k + 1) % N] & 0x7fff_ffff);
                let mag = if y & 1 == 1 { 0x9908_b0df } else { 0 };
                self.mt[k] = self.mt[(k + M) % N] ^ (y >> 1) ^ mag;
            }
            self.index = 0;
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `_randbelow(n)` for `0 < n < 2**32`: `getrandbits(n.bit_length())` until below `n`.
    pub fn below(&mut self, n: u32) -> u32 {
        let k = 32 - n.leading_zeros();
        loop {
            let r = if k == 0 {
                0
            } else {
                self.next_u32() >> (32 - k)
            };
            if r < n {
                return r;
            }
        }
    }

    /// `random.shuffle(items)`.
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
            let mut r = PyRandom::new(seed);
            let got: Vec<u32> = (0..5).map(|_| r.next_u32()).collect();
            assert_eq!(got, draws, "seed {seed}");
        }
    }

    #[test]
    fn shuffle_is_cpythons() {
        // l = list(range(10)); random.Random(7).shuffle(l)
        let mut items: Vec<u32> = (0..10).collect();
        PyRandom::new(7).shuffle(&mut items);
        assert_eq!(items, [8, 3, 1, 4, 7, 0, 9, 6, 2, 5]);
    }
}
