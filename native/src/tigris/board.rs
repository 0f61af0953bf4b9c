//! The board: 16 columns × 11 rows = 176 cells as a bitboard of three 64-bit words.
//!
//! Cell `c` is `row * 16 + column` ("A1" is 0, "P1" is 15, "A2" is 16), as in
//! `cradle.tigris.board`. Each word holds four whole rows (the last one three), so a step
//! sideways never crosses a word and a step up or down carries 16 bits between words.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, Not};
use std::sync::OnceLock;

pub const COLUMNS: usize = 16;
pub const ROWS: usize = 11;
pub const CELLS: usize = COLUMNS * ROWS;
/// "No cell" in the places that hold an optional cell (leaders, buildings, the wonder, ...).
pub const NONE: u8 = u8::MAX;

const LAST_WORD: u64 = (1 << 48) - 1;
const COLUMN_A: u64 = 0x0001_0001_0001_0001;
const COLUMN_P: u64 = 0x8000_8000_8000_8000;

/// A set of cells.
#[derive(Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Bb(pub [u64; 3]);

impl Bb {
    pub const EMPTY: Bb = Bb([0, 0, 0]);
    pub const FULL: Bb = Bb([u64::MAX, u64::MAX, LAST_WORD]);

    #[inline]
    pub const fn cell(c: usize) -> Bb {
        let mut w = [0u64; 3];
        w[c >> 6] = 1 << (c & 63);
        Bb(w)
    }

    #[inline]
    pub fn has(self, c: usize) -> bool {
        c < CELLS && self.0[c >> 6] >> (c & 63) & 1 != 0
    }

    #[inline]
    pub fn is_empty(self) -> bool {
        (self.0[0] | self.0[1] | self.0[2]) == 0
    }

    #[inline]
    pub fn any(self) -> bool {
        !self.is_empty()
    }

    #[inline]
    #[cfg(target_feature = "popcnt")]
    pub fn count(self) -> u32 {
        self.0[0].count_ones() + self.0[1].count_ones() + self.0[2].count_ones()
    }

    /// Without a popcount instruction (the portable build): the three words' bits counted
    /// together, their partial sums added before the last steps (a nibble holds at most 12).
    #[inline]
    #[cfg(not(target_feature = "popcnt"))]
    pub fn count(self) -> u32 {
        const M1: u64 = 0x5555_5555_5555_5555;
        const M2: u64 = 0x3333_3333_3333_3333;
        const M4: u64 = 0x0F0F_0F0F_0F0F_0F0F;
        const H01: u64 = 0x0101_0101_0101_0101;
        let nibbles = |w: u64| {
            let x = w - ((w >> 1) & M1);
            (x & M2) + ((x >> 2) & M2)
        };
        let s = nibbles(self.0[0]) + nibbles(self.0[1]) + nibbles(self.0[2]);
        let bytes = (s & M4) + ((s >> 4) & M4);
        (bytes.wrapping_mul(H01) >> 56) as u32
    }

    #[inline]
    pub fn set(&mut self, c: usize) {
        self.0[c >> 6] |= 1 << (c & 63);
    }

    #[inline]
    pub fn clear(&mut self, c: usize) {
        self.0[c >> 6] &= !(1 << (c & 63));
    }

    /// `self` without the cells of `other`.
    #[inline]
    pub fn minus(self, other: Bb) -> Bb {
        Bb([
            self.0[0] & !other.0[0],
            self.0[1] & !other.0[1],
            self.0[2] & !other.0[2],
        ])
    }

    #[inline]
    pub fn meets(self, other: Bb) -> bool {
        (self & other).any()
    }

    #[inline]
    pub fn contains(self, other: Bb) -> bool {
        other.minus(self).is_empty()
    }

    /// The lowest cell, if any.
    #[inline]
    pub fn first(self) -> Option<usize> {
        for (i, w) in self.0.iter().enumerate() {
            if *w != 0 {
                return Some(i * 64 + w.trailing_zeros() as usize);
            }
        }
        None
    }

    /// The lowest cell alone (empty for an empty set).
    #[inline]
    pub fn lowest(self) -> Bb {
        match self.first() {
            Some(c) => Bb::cell(c),
            None => Bb::EMPTY,
        }
    }

    /// The `k`-th cell (0-based) in increasing order; `k < self.count()`.
    #[inline]
    pub fn nth(self, mut k: u32) -> usize {
        for (i, &w) in self.0.iter().enumerate() {
            let n = w.count_ones();
            if k < n {
                return i * 64 + select(w, k) as usize;
            }
            k -= n;
        }
        unreachable!("nth beyond the set")
    }

    /// The only cell, when the set holds exactly one.
    #[inline]
    pub fn single(self) -> Option<usize> {
        let [a, b, c] = self.0;
        let words = u32::from(a != 0) + u32::from(b != 0) + u32::from(c != 0);
        let w = a | b | c;
        if words == 1 && w & (w - 1) == 0 {
            self.first()
        } else {
            None
        }
    }

    /// Whether the set holds two cells or more (without counting them).
    #[inline]
    pub fn at_least_two(self) -> bool {
        let [a, b, c] = self.0;
        let within = (a & a.wrapping_sub(1)) | (b & b.wrapping_sub(1)) | (c & c.wrapping_sub(1));
        within != 0 || u32::from(a != 0) + u32::from(b != 0) + u32::from(c != 0) >= 2
    }

    /// The cells in increasing order.
    #[inline]
    pub fn iter(self) -> Cells {
        Cells {
            words: self.0,
            at: 0,
        }
    }

    /// The cells orthogonally next to `self`, `self` included.
    #[inline]
    pub fn dilate(self) -> Bb {
        let [a, b, c] = self.0;
        let side = |w: u64| w | ((w << 1) & !COLUMN_A) | ((w >> 1) & !COLUMN_P);
        Bb([
            side(a) | (a << 16) | (a >> 16) | (b << 48),
            side(b) | (b << 16) | (a >> 48) | (b >> 16) | (c << 48),
            (side(c) | (c << 16) | (b >> 48) | (c >> 16)) & LAST_WORD,
        ])
    }

    /// [`Bb::flood`] and its dilation (the last step's, so for free).
    #[inline]
    pub fn flood_dilated(seed: Bb, within: Bb) -> (Bb, Bb) {
        let mut current = seed & within;
        loop {
            let dilated = current.dilate();
            let grown = dilated & within;
            if grown == current {
                return (current, dilated);
            }
            current = grown;
        }
    }

    /// The connected part of `within` that holds `seed` (orthogonal steps).
    #[inline]
    pub fn flood(seed: Bb, within: Bb) -> Bb {
        let mut current = seed & within;
        loop {
            let grown = current.dilate() & within;
            if grown == current {
                return current;
            }
            current = grown;
        }
    }
}

/// The position of the `k`-th set bit of `w` (`k` below its count), without a loop over the
/// bits: the bytes' running counts find the byte, a table the bit within it.
#[inline]
fn select(w: u64, k: u32) -> u32 {
    const M1: u64 = 0x5555_5555_5555_5555;
    const M2: u64 = 0x3333_3333_3333_3333;
    const M4: u64 = 0x0F0F_0F0F_0F0F_0F0F;
    const H01: u64 = 0x0101_0101_0101_0101;
    const H80: u64 = 0x8080_8080_8080_8080;
    let x = w - ((w >> 1) & M1);
    let x = (x & M2) + ((x >> 2) & M2);
    let bytes = (x + (x >> 4)) & M4;
    // byte i: the bits set in bytes 0..=i (at most 64: no carry between bytes)
    let running = bytes.wrapping_mul(H01);
    // bit 7 of byte i: whether k is past bytes 0..=i; their number is k's byte
    let past = ((u64::from(k) * H01) | H80).wrapping_sub(running) & H80;
    let byte = ((past >> 7).wrapping_mul(H01) >> 56) as u32;
    let before = if byte == 0 {
        0
    } else {
        ((running >> (8 * (byte - 1))) & 0xFF) as u32
    };
    let bits = ((w >> (8 * byte)) & 0xFF) as usize;
    8 * byte + u32::from(SELECT_IN_BYTE[bits * 8 + (k - before) as usize])
}

/// `SELECT_IN_BYTE[b * 8 + j]`: the position of the `j`-th set bit of the byte `b`.
static SELECT_IN_BYTE: [u8; 2048] = {
    let mut table = [0u8; 2048];
    let mut b = 0;
    while b < 256 {
        let (mut j, mut bit) = (0, 0);
        while bit < 8 {
            if (b >> bit) & 1 == 1 {
                table[b * 8 + j] = bit as u8;
                j += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    table
};

impl BitAnd for Bb {
    type Output = Bb;
    #[inline]
    fn bitand(self, o: Bb) -> Bb {
        Bb([self.0[0] & o.0[0], self.0[1] & o.0[1], self.0[2] & o.0[2]])
    }
}

impl BitOr for Bb {
    type Output = Bb;
    #[inline]
    fn bitor(self, o: Bb) -> Bb {
        Bb([self.0[0] | o.0[0], self.0[1] | o.0[1], self.0[2] | o.0[2]])
    }
}

impl BitXor for Bb {
    type Output = Bb;
    #[inline]
    fn bitxor(self, o: Bb) -> Bb {
        Bb([self.0[0] ^ o.0[0], self.0[1] ^ o.0[1], self.0[2] ^ o.0[2]])
    }
}

impl Not for Bb {
    type Output = Bb;
    #[inline]
    fn not(self) -> Bb {
        Bb([!self.0[0], !self.0[1], !self.0[2] & LAST_WORD])
    }
}

impl BitAndAssign for Bb {
    #[inline]
    fn bitand_assign(&mut self, o: Bb) {
        *self = *self & o;
    }
}

impl BitOrAssign for Bb {
    #[inline]
    fn bitor_assign(&mut self, o: Bb) {
        *self = *self | o;
    }
}

impl fmt::Debug for Bb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter().map(cell_name)).finish()
    }
}

/// The cells of a set, in increasing order.
pub struct Cells {
    words: [u64; 3],
    at: usize,
}

impl Iterator for Cells {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.at < 3 {
            let w = self.words[self.at];
            if w != 0 {
                self.words[self.at] = w & (w - 1);
                return Some(self.at * 64 + w.trailing_zeros() as usize);
            }
            self.at += 1;
        }
        None
    }
}

/// The cells next to `c` (not `c` itself).
#[inline]
pub fn neighbours(c: usize) -> Bb {
    tables().neighbours[c]
}

/// The name of a cell, e.g. "K1".
pub fn cell_name(c: usize) -> &'static str {
    &tables().names[c]
}

/// The cell named `text` (upper-case column letter A-P, row 1-11), if any.
pub fn parse_cell(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    if !(2..=3).contains(&bytes.len()) || !(b'A'..=b'P').contains(&bytes[0]) {
        return None;
    }
    let digits = &text[1..];
    if !digits.bytes().all(|b| b.is_ascii_digit()) || digits.starts_with('0') {
        return None;
    }
    let row: usize = digits.parse().ok()?;
    if !(1..=ROWS).contains(&row) {
        return None;
    }
    Some((row - 1) * COLUMNS + (bytes[0] - b'A') as usize)
}

struct Tables {
    names: Vec<String>,
    neighbours: [Bb; CELLS],
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let names = (0..CELLS)
            .map(|c| {
                format!(
                    "{}{}",
                    (b'A' + (c % COLUMNS) as u8) as char,
                    c / COLUMNS + 1
                )
            })
            .collect();
        let mut neighbours = [Bb::EMPTY; CELLS];
        for (c, n) in neighbours.iter_mut().enumerate() {
            *n = Bb::cell(c).dilate().minus(Bb::cell(c));
        }
        Tables { names, neighbours }
    })
}

/// The two sides of the board.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Side {
    Standard,
    Advanced,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Standard => "standard",
            Side::Advanced => "advanced",
        }
    }

    pub fn from_name(name: &str) -> Option<Side> {
        match name {
            "standard" => Some(Side::Standard),
            "advanced" => Some(Side::Advanced),
            _ => None,
        }
    }

    pub fn map(self) -> &'static BoardMap {
        static MAPS: OnceLock<[BoardMap; 2]> = OnceLock::new();
        let maps = MAPS.get_or_init(|| [BoardMap::parse(STANDARD), BoardMap::parse(ADVANCED)]);
        &maps[self as usize]
    }
}

/// One side of the board: river, starting temples and the special squares.
#[derive(Debug)]
pub struct BoardMap {
    pub river: Bb,
    pub land: Bb,
    pub temples: Bb,
    pub special: Bb,
}

// The same maps as cradle.tigris.board (~ river, T temple, S temple on a special square).
const STANDARD: &str = "\
....~~~~~.T.~...
.S..~.......~..S
...~~T......~~..
~~~~.........~~~
.............T~~
..............~.
~~~~....T...~~~.
.S.~~~~.....~...
......~~~~~~~.S.
.....T..........
..........T.....";

const ADVANCED: &str = "\
..~~T....T.....~
..~~..........T~
.S~~...........~
..~...T....T~~~~
..~.........~...
..~T........~..S
..~~........~~..
S..~~~.T....T~..
.....~~~.....~..
....S.~~~~~~~~..
......~..S....S.";

impl BoardMap {
    fn parse(text: &str) -> BoardMap {
        let (mut river, mut temples, mut special) = (Bb::EMPTY, Bb::EMPTY, Bb::EMPTY);
        for (r, line) in text.lines().enumerate() {
            for (c, mark) in line.bytes().enumerate() {
                let cell = r * COLUMNS + c;
                match mark {
                    b'~' => river.set(cell),
                    b'T' => temples.set(cell),
                    b'S' => {
                        temples.set(cell);
                        special.set(cell);
                    }
                    _ => {}
                }
            }
        }
        BoardMap {
            river,
            land: !river,
            temples,
            special,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The cells `names` names.
    pub(crate) fn cells(names: &[&str]) -> Bb {
        let mut b = Bb::EMPTY;
        for name in names {
            b.set(parse_cell(name).unwrap());
        }
        b
    }

    #[test]
    fn cell_names_round_trip() {
        assert_eq!(cell_name(0), "A1");
        assert_eq!(cell_name(15), "P1");
        assert_eq!(cell_name(16), "A2");
        assert_eq!(cell_name(175), "P11");
        for c in 0..CELLS {
            assert_eq!(parse_cell(cell_name(c)), Some(c));
        }
        for bad in ["", "A", "Q1", "A0", "A12", "a1", "A01", "K1x"] {
            assert_eq!(parse_cell(bad), None, "{bad}");
        }
    }

    #[test]
    fn neighbours_stay_on_the_board() {
        assert_eq!(neighbours(0), cells(&["B1", "A2"]));
        assert_eq!(neighbours(parse_cell("P1").unwrap()), cells(&["O1", "P2"]));
        assert_eq!(
            neighbours(parse_cell("A11").unwrap()),
            cells(&["A10", "B11"])
        );
        assert_eq!(
            neighbours(parse_cell("P11").unwrap()),
            cells(&["P10", "O11"])
        );
        // rows 4/5 and 8/9 sit in different words: the vertical step carries across
        assert_eq!(
            neighbours(parse_cell("P4").unwrap()),
            cells(&["P3", "O4", "P5"])
        );
        assert_eq!(
            neighbours(parse_cell("A9").unwrap()),
            cells(&["A8", "B9", "A10"])
        );
        for c in 0..CELLS {
            let n = neighbours(c);
            let expected = [c % 16 > 0, c % 16 < 15, c >= 16, c + 16 < CELLS]
                .iter()
                .filter(|x| **x)
                .count();
            assert_eq!(n.count() as usize, expected, "{}", cell_name(c));
            for d in n.iter() {
                assert!(neighbours(d).has(c));
            }
        }
    }

    #[test]
    fn flood_follows_orthogonal_steps_only() {
        // an L from A1 down to A5 then right to C5, and a diagonal neighbour D6 not connected
        let within = cells(&["A1", "A2", "A3", "A4", "A5", "B5", "C5", "D6", "P1"]);
        let part = Bb::flood(cells(&["A1"]), within);
        assert_eq!(part, cells(&["A1", "A2", "A3", "A4", "A5", "B5", "C5"]));
        assert_eq!(Bb::flood(cells(&["D6"]), within), cells(&["D6"]));
        assert_eq!(Bb::flood(cells(&["E6"]), within), Bb::EMPTY);
        // P1 and A2 are consecutive bits but not neighbours
        assert_eq!(Bb::flood(cells(&["P1"]), within), cells(&["P1"]));
    }

    #[test]
    fn nth_single_and_at_least_two_agree_with_the_cells() {
        let mut rng = crate::splitmix::SplitMix64::new(5);
        for round in 0..3000 {
            let mut b = Bb::EMPTY;
            for _ in 0..(round % 40) {
                b.set(rng.below(CELLS));
            }
            let cells: Vec<usize> = b.iter().collect();
            for (k, &c) in cells.iter().enumerate() {
                assert_eq!(b.nth(k as u32), c);
            }
            assert_eq!(b.single(), (cells.len() == 1).then(|| cells[0]));
            assert_eq!(b.at_least_two(), cells.len() >= 2);
        }
        for w in [u64::MAX, 1 << 63, 0x8000_0000_0000_0001] {
            for k in 0..w.count_ones() {
                let expected = (0..64).filter(|i| w >> i & 1 == 1).nth(k as usize);
                assert_eq!(Some(super::select(w, k)), expected.map(|i| i as u32));
            }
        }
    }

    #[test]
    fn count_is_the_number_of_cells() {
        let mut rng = crate::splitmix::SplitMix64::new(3);
        for _ in 0..2000 {
            let b = Bb([rng.next_u64(), rng.next_u64(), rng.next_u64()]) & Bb::FULL;
            let b = if rng.below(2) == 0 {
                b
            } else {
                b & Bb([rng.next_u64(); 3])
            };
            let bits: u32 = b.0.iter().map(|w| w.count_ones()).sum();
            assert_eq!(b.count(), bits);
        }
        assert_eq!(Bb::FULL.count() as usize, CELLS);
        assert_eq!(Bb::EMPTY.count(), 0);
    }

    #[test]
    fn set_operations() {
        let b = cells(&["A1", "P4", "A5", "P11"]);
        assert_eq!(b.count(), 4);
        assert_eq!(
            b.iter().map(cell_name).collect::<Vec<_>>(),
            ["A1", "P4", "A5", "P11"]
        );
        assert_eq!(b.nth(2), parse_cell("A5").unwrap());
        assert_eq!(b.first(), Some(0));
        assert_eq!((!b).count() as usize, CELLS - 4);
        assert_eq!(!Bb::FULL, Bb::EMPTY);
        assert!(b.contains(cells(&["P4", "P11"])));
        assert!(!b.contains(cells(&["P4", "B1"])));
    }

    #[test]
    fn the_maps_match_the_rulebook_counts() {
        let standard = Side::Standard.map();
        assert_eq!(standard.temples.count(), 10);
        assert_eq!(standard.special.count(), 4);
        assert!(standard.temples.has(parse_cell("K1").unwrap()));
        assert!(standard.river.has(parse_cell("E1").unwrap()));
        let advanced = Side::Advanced.map();
        assert_eq!(advanced.temples.count(), 14);
        assert_eq!(advanced.land | advanced.river, Bb::FULL);
        assert!(!advanced.land.meets(advanced.river));
    }
}
