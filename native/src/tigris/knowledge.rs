//! The Tigris & Euphrates knowledge for the native search: a faithful port of
//! `cradle.ai.knowledge.tigris` (the reference), read off the native state directly.
//!
//! Every number is computed with the reference's operations in the reference's order, so that
//! the lockstep test (tests/ai/test_native_knowledge.py) can ask for equality to 1e-9: a change
//! to the evaluation or the priors is made in both languages.

use super::actions::{
    Action, BLACK, BLUE, CATASTROPHE_BASE, COMMIT_BASE, GREEN, HAND_SIZE, LEADER_BASE, MONUMENTS,
    RED, TILE_BASE, TILE_TOTALS, WITHDRAW_BASE,
};
use super::board::{neighbours, Bb, CELLS, COLUMNS, NONE};
use super::events::NoEvents;
use super::state::{Moves, PendingKind, State};
use crate::cpython_random::CpythonRandom;
use crate::search::batched::SelfPlayGame;
use crate::search::model::{self, TIGRIS_FEATURES};
use crate::search::{pairwise_chances, Dealer, SearchGame};
use crate::splitmix::SplitMix64;

/// The colours of the leaders in the order the evaluation visits them: king, priest, farmer,
/// trader.
const ROLE_ORDER: [usize; 4] = [BLACK, RED, BLUE, GREEN];
/// Share of each colour among the tiles nobody has seen at the start.
pub const UNSEEN_SHARE: [f64; 4] = [47.0 / 143.0, 36.0 / 143.0, 30.0 / 143.0, 30.0 / 143.0];
/// Per seat, four numbers per colour: believed shares of a hand, or a belief's odds of each
/// colour against a uniform draw (`cradle.ai.knowledge.belief`'s tilts).
pub type Shares = [[f64; 4]; 4];
/// The uniform belief: every hand in the unseen shares.
pub const UNIFORM: Shares = [UNSEEN_SHARE; 4];
const LEADER_WORTH: f64 = 4.0;
const MONUMENT_WORTH: f64 = 3.0;
const KING_SHARE: f64 = 0.15;
const SORTED_WEIGHTS: [f64; 4] = [0.55, 0.25, 0.12, 0.08];
const TILE_COST: f64 = 0.3;
// The evaluation of `value=2` (the reference's constants of the same names).
const KING_REACH: f64 = 0.5;
const KING_LED_REACH: f64 = 0.1;
const IN_HAND_REACH: f64 = 0.25;
const MONUMENT_RATE: f64 = 0.25;
const ATTACK_SPOT: i64 = 1;
const REVOLT_PRESSURE: f64 = 0.5;
const CATASTROPHE_RISK: f64 = 0.3;
const SOFTMIN_SPREAD: (f64, f64) = (1.0, 2.0);
const TIE_WEIGHTS: [f64; 3] = [0.04, 0.02, 0.01];
const SWAP_GAIN: f64 = 1.0;
const WAR_WEIGHT: f64 = 0.8;
/// Actions the policy scores at most (a random sample of the legal ones).
const POLICY_SAMPLE: usize = 24;
/// The Python knowledge's default prior batch below the root.
const PRIOR_BATCH: usize = 48;

/// The hand-set evaluation (the reference's `TigrisValue`): the colours' points weighted
/// lowest first (PIMC's and the analysis'), or the final lowest colour (the search's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    SortedColours = 1,
    LowestColour = 2,
}

impl TryFrom<u8> for Value {
    type Error = String;

    fn try_from(value: u8) -> Result<Value, String> {
        match value {
            1 => Ok(Value::SortedColours),
            2 => Ok(Value::LowestColour),
            _ => Err(format!("value is 1 or 2, not {value}")),
        }
    }
}

/// P(X <= k) for X ~ Binomial(n, p), summed as the reference sums it. The last answers
/// are kept by thread (a search asks the same few hands and shares over and over; the
/// powers were a twelfth of a Tigris search): the same numbers.
pub(crate) fn binomial_cdf(k: i64, n: i64, p: f64) -> f64 {
    if k < 0 {
        return 0.0;
    }
    if k >= n {
        return 1.0;
    }
    const SLOTS: usize = 512;
    type Slot = (u64, i64, i64, f64);
    thread_local! {
        // (p's bits, k, n, the answer); k = -1 marks an empty slot.
        static KEPT: std::cell::RefCell<[Slot; SLOTS]> =
            const { std::cell::RefCell::new([(0, -1, 0, 0.0); SLOTS]) };
    }
    let bits = p.to_bits();
    let mixed =
        (bits ^ (bits >> 31) ^ ((k as u64) << 8) ^ (n as u64)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let at = (mixed >> 55) as usize % SLOTS;
    KEPT.with_borrow_mut(|kept| {
        let slot = &mut kept[at];
        if slot.0 == bits && slot.1 == k && slot.2 == n {
            return slot.3;
        }
        let answer = binomial_cdf_summed(k, n, p);
        *slot = (bits, k, n, answer);
        answer
    })
}

/// [`binomial_cdf`] summed.
fn binomial_cdf_summed(k: i64, n: i64, p: f64) -> f64 {
    let mut total = 0.0;
    let mut comb = 1.0f64; // comb(n, i), exact in f64 for hands of a few tiles
    for i in 0..=k {
        if i > 0 {
            comb = comb * (n - i + 1) as f64 / i as f64;
        }
        total += comb * p.powf(i as f64) * (1.0 - p).powf((n - i) as f64);
    }
    total
}

/// The first index of the smallest value (Python's `min(range(4), key=...)`).
pub(crate) fn lowest(values: &[f64; 4]) -> usize {
    let mut low = 0;
    for c in 1..4 {
        if values[c] < values[low] {
            low = c;
        }
    }
    low
}

/// `values` (distinct, at most 4, non-negative) in the order CPython iterates a set built by
/// adding them in this order: slots of an 8-entry table, an int hashing to itself, probing
/// `i = 5i + 1 + perturb` on a collision (Objects/setobject.c; no resize below 5 entries).
fn python_set_order(values: &[i16], out: &mut [i16; 4]) {
    let mut table = [-1i16; 8];
    for &x in values {
        let mut i = x as usize & 7;
        let mut perturb = x as usize;
        while table[i] >= 0 {
            perturb >>= 5;
            i = (i * 5 + 1 + perturb) & 7;
        }
        table[i] = x;
    }
    let mut len = 0;
    for x in table {
        if x >= 0 {
            out[len] = x;
            len += 1;
        }
    }
}

/// One reading of a world (the reference's `Reading`): regions and kingdoms with their
/// leaders, supporters, treasures and monuments, and how much of the game is left.
pub struct Reading<'s> {
    s: &'s State,
    pub remaining: f64,
    /// The evaluation: the sorted colours or the final lowest colour.
    value: Value,
    /// Actions each seat still takes, about one tile drawn each.
    own_actions: f64,
    /// The strengths on the board in a revolt or war (attacker, defender); the lowest colour
    /// only.
    strengths: (u32, u32),
    /// Each seat's reach, once computed (priors of swaps).
    reach_of: [Option<[f64; 4]>; 4],
    /// Face-up temples (cells showing a red tile).
    pub(crate) temples: Bb,
    /// Cells showing a face-up tile of each colour, and cells showing nothing.
    showing: [Bb; 4],
    bare: Bb,
    /// Region index per cell (-1: none), regions by their lowest cell.
    comp: [i16; CELLS],
    pub(crate) counts: Vec<[u32; 4]>,
    /// (seat, colour, cell) of each region's leaders by cell: `leaders[first[k]..first[k+1]]`.
    leaders: Vec<(u8, u8, u8)>,
    first: Vec<u16>,
    treasures_in: Vec<u32>,
    /// (region, colours) of each monument, regions in order, by cell within one.
    monuments: Vec<(i16, (usize, usize))>,
    /// Colours that still have an unused monument.
    wanted: [bool; 4],
    squares: Option<[Bb; 4]>,
    /// Each seat's believed colour shares of its hand ([`UNIFORM`] without a belief).
    shares: Shares,
}

/// A reading's lists, kept between readings on each thread: a search reads a world at every
/// node it scores and every leaf.
#[derive(Default)]
struct Lists {
    counts: Vec<[u32; 4]>,
    leaders: Vec<(u8, u8, u8)>,
    first: Vec<u16>,
    treasures_in: Vec<u32>,
    monuments: Vec<(i16, (usize, usize))>,
}

thread_local! {
    static KEPT_LISTS: std::cell::RefCell<Vec<Lists>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Lists {
    /// Empty lists, with the room of a reading's before.
    fn kept() -> Lists {
        let mut lists = KEPT_LISTS
            .try_with(|kept| kept.borrow_mut().pop())
            .ok()
            .flatten()
            .unwrap_or_default();
        lists.counts.clear();
        lists.leaders.clear();
        lists.first.clear();
        lists.treasures_in.clear();
        lists.monuments.clear();
        lists
    }
}

impl Drop for Reading<'_> {
    fn drop(&mut self) {
        let lists = Lists {
            counts: std::mem::take(&mut self.counts),
            leaders: std::mem::take(&mut self.leaders),
            first: std::mem::take(&mut self.first),
            treasures_in: std::mem::take(&mut self.treasures_in),
            monuments: std::mem::take(&mut self.monuments),
        };
        // A few at most (readings alive at once on a thread); none once the thread ends.
        let _ = KEPT_LISTS.try_with(|kept| {
            if let Ok(mut kept) = kept.try_borrow_mut() {
                if kept.len() < 8 {
                    kept.push(lists);
                }
            }
        });
    }
}

impl<'s> Reading<'s> {
    pub fn read(s: &'s State) -> Reading<'s> {
        Reading::read_full(s, None, Value::SortedColours)
    }

    /// The reading with a belief over the hands, as odds against a uniform draw (None:
    /// uniform).
    pub fn read_with(s: &'s State, tilts: Option<Shares>) -> Reading<'s> {
        Reading::read_full(s, tilts, Value::SortedColours)
    }

    /// A reading for the evaluation `value`.
    pub fn read_valued(s: &'s State, value: Value) -> Reading<'s> {
        Reading::read_full(s, None, value)
    }

    /// A reading with a belief (None: uniform) for the evaluation `value`.
    pub fn read_full(s: &'s State, tilts: Option<Shares>, value: Value) -> Reading<'s> {
        let connectors = s.connectors();
        let covered = s.tiles_down() | s.wonder_mask() | s.cata | s.leaders;
        let showing = [0, 1, 2, 3].map(|c| s.up[c].minus(covered));
        let bare = !(s.tiles_up() | covered);
        let mut comp = [-1i16; CELLS];
        let Lists {
            mut counts,
            mut leaders,
            mut first,
            mut treasures_in,
            mut monuments,
        } = Lists::kept();
        first.push(0);
        // The kingdoms the state keeps are regions already: only the regions without a
        // leader are flooded (within what the kingdoms leave).
        let kept = s.kept_kingdoms(connectors).unwrap_or_default();
        let in_kingdoms = kept.iter().fold(Bb::EMPTY, |all, k| all | *k);
        let leaderless = connectors.minus(in_kingdoms);
        let mut rest = connectors;
        while let Some(start) = rest.first() {
            let kingdom = if in_kingdoms.has(start) {
                kept.iter().find(|k| k.has(start))
            } else {
                None
            };
            let cells = match kingdom {
                Some(k) => *k,
                None => Bb::flood(Bb::cell(start), leaderless),
            };
            rest = rest.minus(cells);
            let k = counts.len() as i16;
            for c in cells.iter() {
                comp[c] = k;
            }
            counts.push([0, 1, 2, 3].map(|colour| (cells & s.up[colour]).count()));
            for c in (cells & s.leaders).iter() {
                if let Some(index) = s.leader_at(c) {
                    leaders.push(((index / 4) as u8, (index % 4) as u8, c as u8));
                }
            }
            first.push(leaders.len() as u16);
            treasures_in.push((cells & s.treasure).count());
        }
        let mut built = [(0u8, 0u8); MONUMENTS.len()];
        let built = &mut built[..s.monuments().len()];
        built.copy_from_slice(s.monuments());
        built.sort_by_key(|&(_, cell)| cell);
        monuments.extend(
            built
                .iter()
                .map(|&(m, cell)| (comp[cell as usize], MONUMENTS[m as usize])),
        );
        monuments.sort_by_key(|&(k, _)| k); // stable: by cell within a region
        monuments.retain(|&(k, _)| k >= 0);
        let mut wanted = [false; 4];
        for (m, pair) in MONUMENTS.iter().enumerate() {
            if !s.monuments().iter().any(|&(b, _)| b as usize == m) {
                wanted[pair.0] = true;
                wanted[pair.1] = true;
            }
        }
        // How much of the game is left: the bag or the treasures, whichever runs out first.
        let start_treasures = s.map().temples.count() as f64;
        let total: u32 = TILE_TOTALS.iter().sum();
        let start_bag = total as f64 - start_treasures - (HAND_SIZE * s.n) as f64;
        let by_bag = s.bag.len() as f64 / start_bag;
        let on_board: u32 = treasures_in.iter().sum();
        let by_treasures = (on_board as f64 - 2.0).max(0.0) / (start_treasures - 2.0);
        let left = 1.0f64.min(by_bag).min(by_treasures).max(0.0);
        let remaining = if s.ending { 0.0 } else { left };
        let mut strengths = (0, 0);
        if value == Value::LowestColour {
            if let Some(p) = s.pending.as_ref() {
                if matches!(p.kind, PendingKind::Revolt | PendingKind::War) {
                    let attack = s.base_strength(p, p.attacker.unwrap_or(0) as usize);
                    let defence = s.base_strength(p, p.defender.unwrap_or(0) as usize);
                    strengths = (attack, defence);
                }
            }
        }
        Reading {
            s,
            remaining,
            value,
            own_actions: remaining * start_bag / s.n as f64,
            strengths,
            reach_of: [None; 4],
            temples: showing[RED],
            showing,
            bare,
            comp,
            counts,
            leaders,
            first,
            treasures_in,
            monuments,
            wanted,
            squares: None,
            shares: tilts.map_or(UNIFORM, |t| t.map(|tilt| tilted(&tilt))),
        }
    }

    pub(crate) fn leaders_in(&self, k: i16) -> &[(u8, u8, u8)] {
        let k = k as usize;
        &self.leaders[self.first[k] as usize..self.first[k + 1] as usize]
    }

    /// The cell of `seat`'s leader of `colour` (NONE: off the board).
    fn leader_cell(&self, seat: usize, colour: usize) -> u8 {
        self.s.leader_cell[4 * seat + colour]
    }

    fn hand_size(&self, seat: usize) -> u32 {
        self.s.hands[seat].iter().map(|&c| c as u32).sum()
    }

    pub(crate) fn temples_around(&self, cell: usize, skip: i32) -> u32 {
        let mut around = neighbours(cell) & self.temples;
        if skip >= 0 {
            around.clear(skip as usize);
        }
        around.count()
    }

    /// The regions next to `cell` (not through `skip`), each once, in the order the
    /// reference's set of them iterates (which decides among several kingdoms).
    pub(crate) fn comps_around(&self, cell: usize, skip: i32, out: &mut [i16; 4]) -> usize {
        let mut found = [0i16; 4];
        let mut len = 0;
        for j in neighbours(cell).iter() {
            let k = self.comp[j];
            if j as i32 == skip || k < 0 || found[..len].contains(&k) {
                continue;
            }
            found[len] = k;
            len += 1;
        }
        python_set_order(&found[..len], out);
        len
    }

    fn expected_in_hand(&self, seat: usize, colour: usize) -> f64 {
        self.hand_size(seat) as f64 * self.shares[seat][colour]
    }

    /// Belief that `seat` holds at least `count` tiles of `colour`.
    fn odds_of_holding(&self, seat: usize, colour: usize, count: i64) -> f64 {
        1.0 - binomial_cdf(
            count - 1,
            self.hand_size(seat) as i64,
            self.shares[seat][colour],
        )
    }

    fn leader_quality(&self, colour: usize, cell: usize) -> f64 {
        let k = self.comp[cell];
        let supporters = if k >= 0 {
            self.counts[k as usize][colour]
        } else {
            0
        };
        let temples = self.temples_around(cell, -1) as f64;
        0.35 + 0.35 * supporters.min(8) as f64 / 8.0 + 0.3 * temples / (temples + 1.0)
    }

    // -- the evaluation ----------------------------------------------------------------

    /// The seat's points plus what its leaders and monuments should still bring; with the
    /// number of leaders, their summed quality and the monument colours they feed.
    pub(crate) fn outlook(&self, seat: usize) -> ([f64; 4], u32, f64, u32) {
        let future = self.remaining;
        let mut expected = self.s.points[seat].map(|p| p as f64);
        let mut leaders = 0;
        let mut quality_sum = 0.0;
        let mut fed = 0;
        for colour in ROLE_ORDER {
            let cell = self.leader_cell(seat, colour);
            if cell == NONE {
                continue;
            }
            let cell = cell as usize;
            leaders += 1;
            let k = self.comp[cell];
            let quality = self.leader_quality(colour, cell);
            quality_sum += quality;
            expected[colour] += LEADER_WORTH * future * quality;
            if colour == BLACK {
                let mut led = [false; 4];
                for &(_, c, _) in self.leaders_in(k) {
                    led[c as usize] = true;
                }
                for other in 0..4 {
                    if !led[other] {
                        expected[other] += KING_SHARE * LEADER_WORTH * future * quality;
                    }
                }
            }
            for &(at, (a, b)) in &self.monuments {
                if at == k && (a == colour || b == colour) {
                    expected[colour] += MONUMENT_WORTH * future;
                    fed += 1;
                }
            }
        }
        (expected, leaders, quality_sum, fed)
    }

    /// An estimate of the seat's final score (its lowest colour, treasures placed).
    pub fn seat_value(&self, seat: usize) -> f64 {
        if self.value == Value::LowestColour {
            return self.final_value(seat);
        }
        let future = self.remaining;
        let (mut expected, _, _, _) = self.outlook(seat);
        for _ in 0..self.s.treasures[seat] {
            let low = lowest(&expected);
            expected[low] += 1.0;
        }
        expected.sort_by(f64::total_cmp);
        let late = 1.0 - future;
        let mut value = 0.0;
        for (w, e) in SORTED_WEIGHTS.iter().zip(expected) {
            value += (late * w + future * 0.25) * e;
        }
        value += future
            * (0.12 * self.s.hands[seat][RED] as f64 + 0.15 * self.s.catastrophes[seat] as f64);
        value
    }

    // -- the evaluation of value=2: the final lowest colour ------------------------------

    /// The chance that a leader of `seat` next to `temples` temples still stands when it
    /// should score (rival revolts by the belief over their reds, a catastrophe on its only
    /// temple).
    fn safety(&self, seat: usize, temples: u32) -> f64 {
        let need = temples as i64 + self.s.hands[seat][RED] as i64 + 1 - ATTACK_SPOT;
        let mut standing = 1.0;
        let mut threatened = false;
        for other in 0..self.s.n {
            if other == seat {
                continue;
            }
            standing *= 1.0 - REVOLT_PRESSURE * self.odds_of_holding(other, RED, need);
            if self.s.catastrophes[other] > 0 {
                threatened = true;
            }
        }
        if temples <= 1 && threatened {
            standing *= 1.0 - CATASTROPHE_RISK;
        }
        standing
    }

    /// Per colour, how surely a tile of that colour the seat places still scores.
    fn reach(&self, seat: usize) -> [f64; 4] {
        let king = self.leader_cell(seat, BLACK);
        let mut king_reach = 0.0;
        let mut led = [false; 4];
        if king != NONE {
            let at = king as usize;
            let quality = self.leader_quality(BLACK, at);
            let standing = self.safety(seat, self.temples_around(at, -1));
            king_reach = quality * standing + (1.0 - standing) * IN_HAND_REACH;
            for &(_, c, _) in self.leaders_in(self.comp[at]) {
                led[c as usize] = true;
            }
        }
        let mut reach = [0.0; 4];
        for colour in 0..4 {
            let cell = self.leader_cell(seat, colour);
            let mut r = if cell == NONE {
                IN_HAND_REACH
            } else {
                // A leader lost to a revolt or a catastrophe goes back to the hand.
                let at = cell as usize;
                let standing = self.safety(seat, self.temples_around(at, -1));
                self.leader_quality(colour, at) * standing + (1.0 - standing) * IN_HAND_REACH
            };
            if colour != BLACK && king != NONE {
                let share = if led[colour] {
                    KING_LED_REACH
                } else {
                    KING_REACH
                };
                r = r.max(share * king_reach);
            }
            reach[colour] = r;
        }
        reach
    }

    fn reach_cached(&mut self, seat: usize) -> [f64; 4] {
        if let Some(reach) = self.reach_of[seat] {
            return reach;
        }
        let reach = self.reach(seat);
        self.reach_of[seat] = Some(reach);
        reach
    }

    /// Per colour, the points the seat should end with (the reference's `final_outlook`).
    fn final_outlook(&self, seat: usize) -> [f64; 4] {
        let reach = self.reach(seat);
        let actions = self.own_actions;
        let draws = (actions - HAND_SIZE as f64).max(0.0);
        let hand = self.s.hands[seat];
        let mut expected = self.s.points[seat].map(|p| p as f64);
        for colour in 0..4 {
            let tiles = (hand[colour] as f64).min(actions) + draws * UNSEEN_SHARE[colour];
            expected[colour] += reach[colour] * tiles;
        }
        for &(at, (a, b)) in &self.monuments {
            for colour in [a, b] {
                let cell = self.leader_cell(seat, colour);
                if cell != NONE && self.comp[cell as usize] == at {
                    let standing = self.safety(seat, self.temples_around(cell as usize, -1));
                    expected[colour] += MONUMENT_RATE * actions * standing;
                }
            }
        }
        expected
    }

    /// The expected final lowest colour (treasures wild) as a softmin, plus the tie-break.
    fn final_value(&self, seat: usize) -> f64 {
        let mut expected = self.final_outlook(seat);
        for _ in 0..self.s.treasures[seat] {
            let low = lowest(&expected);
            expected[low] += 1.0;
        }
        expected.sort_by(f64::total_cmp);
        let spread = SOFTMIN_SPREAD.0 + SOFTMIN_SPREAD.1 * self.remaining;
        let low = expected[0];
        let mut total = 0.0;
        for e in expected {
            total += ((low - e) / spread).exp();
        }
        let mut value = low - spread * total.ln();
        for (w, e) in TIE_WEIGHTS.iter().zip(&expected[1..]) {
            value += w * e;
        }
        value + self.remaining * 0.15 * self.s.catastrophes[seat] as f64
    }

    /// The board's features (the colours' points and expectations, leaders, monuments, reds
    /// and catastrophes), once × remaining and once × (1 - remaining): what the learned
    /// evaluation weighs beside the hand-set value.
    pub fn features(&self, seat: usize) -> [f64; 24] {
        let future = self.remaining;
        let mut raw = self.s.points[seat].map(|p| p as f64);
        let (mut expected, leaders, quality_sum, fed) = self.outlook(seat);
        for _ in 0..self.s.treasures[seat] {
            let low = lowest(&raw);
            raw[low] += 1.0;
            let low = lowest(&expected);
            expected[low] += 1.0;
        }
        raw.sort_by(f64::total_cmp);
        expected.sort_by(f64::total_cmp);
        let mut sum = 0.0;
        for e in expected {
            sum += e;
        }
        let base = [
            raw[0],
            raw[1],
            raw[2],
            raw[3],
            expected[0],
            expected[1],
            sum,
            leaders as f64,
            quality_sum,
            fed as f64,
            self.s.hands[seat][RED] as f64,
            self.s.catastrophes[seat] as f64,
        ];
        let late = 1.0 - future;
        let mut out = [0.0; 24];
        for (i, x) in base.iter().enumerate() {
            out[i] = x * future;
            out[12 + i] = x * late;
        }
        out
    }

    /// What the learned evaluation weighs (`cradle.ai.knowledge.learned.FEATURES["tigris"]`): the
    /// board's features and the hand-set value, each × remaining and × (1 - remaining).
    pub fn learned_features(&self, seat: usize) -> [f64; TIGRIS_FEATURES] {
        let features = self.features(seat);
        let value = self.seat_value(seat);
        let late = 1.0 - self.remaining;
        let mut out = [0.0; TIGRIS_FEATURES];
        out[..12].copy_from_slice(&features[..12]);
        out[12] = value * self.remaining;
        out[13..25].copy_from_slice(&features[12..]);
        out[25] = value * late;
        out
    }

    /// Each seat's value under the learned model (set from Python by `ai_set_model`).
    pub fn learned_values(&self) -> Vec<f64> {
        model::values("tigris", self.s.n, |seat| self.learned_features(seat))
    }

    pub fn values(&self) -> Vec<f64> {
        (0..self.s.n).map(|seat| self.seat_value(seat)).collect()
    }

    pub fn temperature(&self) -> f64 {
        1.0 + 4.0 * self.remaining
    }

    // -- conflicts ---------------------------------------------------------------------

    /// The commitment for `seat` in the pending revolt or war, among `options` (None when no
    /// revolt or war is being fought).
    pub fn best_commit(&self, seat: usize, options: &[u32]) -> Option<u32> {
        let p = self.s.pending.as_ref()?;
        let revolt = match p.kind {
            PendingKind::Revolt => true,
            PendingKind::War => false,
            _ => return None,
        };
        let colour = if revolt { RED } else { p.color? as usize };
        let defender = p.defender? as usize;
        let fallback = || {
            if options.contains(&0) {
                0
            } else {
                options.iter().copied().min().unwrap_or(0)
            }
        };
        // The strengths on the board count 0 but with value=2, as in the reference.
        let (attack, defence) = (self.strengths.0 as i64, self.strengths.1 as i64);
        if let Some(Some(committed)) = p.attacker_commit {
            if seat == defender {
                let need = attack + committed as i64 - defence;
                if need <= 0 {
                    return Some(fallback());
                }
                return Some(if options.contains(&(need as u32)) {
                    need as u32
                } else {
                    fallback()
                });
            }
        }
        let held = self.hand_size(defender) as i64;
        let share = self.shares[defender][colour];
        let stake = if revolt {
            2.0 + 2.0 * self.remaining
        } else {
            2.0 + 2.0 * self.remaining + 0.5 * (attack + defence) as f64
        };
        let mut best = *options.first()?;
        let mut best_value = f64::NEG_INFINITY;
        for &k in options {
            let need = attack + k as i64 - defence;
            let p_win = if need > 0 {
                binomial_cdf(need - 1, held, share)
            } else {
                0.0
            };
            let value = stake * p_win - TILE_COST * k as f64;
            if value > best_value + 1e-9 {
                best = k;
                best_value = value;
            }
        }
        Some(best)
    }

    // -- priors ------------------------------------------------------------------------

    /// The reference's `TigrisKnowledge.priors` for the seat to move.
    pub fn priors(&mut self, seat: usize, ids: &[u32], out: &mut Vec<f64>) {
        out.clear();
        let mut commits: Vec<u32> = Vec::new();
        for &id in ids {
            if let Some(Action::Commit { count }) = Action::from_id(id as u16) {
                commits.push(count as u32);
            }
        }
        if !commits.is_empty() {
            let best = self.best_commit(seat, &commits).unwrap_or(0) as i64;
            for &id in ids {
                let k = id as i64 - COMMIT_BASE as i64;
                out.push(1.0 - 0.3 * (k - best).abs() as f64);
            }
            return;
        }
        for &id in ids {
            let prior = self.prior(seat, id);
            out.push(prior);
        }
    }

    fn prior(&mut self, seat: usize, id: u32) -> f64 {
        let Some(action) = Action::from_id(id as u16) else {
            return 0.0;
        };
        match action {
            Action::Tile { color, cell } => self.tile_prior(seat, color, cell),
            Action::Leader { role, cell } => self.leader_prior(seat, role, cell),
            Action::Catastrophe { cell } => self.catastrophe_prior(seat, cell),
            Action::Monument { .. } => 1.0,
            Action::Wonder { .. } => 1.2,
            Action::Treasure { .. } | Action::Building { .. } => 0.4,
            Action::WonderPoint { color } => {
                let mine = self.s.points[seat];
                if mine[color] == *mine.iter().min().unwrap_or(&0) {
                    0.5
                } else {
                    0.0
                }
            }
            Action::Swap { counts } => {
                let tiles: u32 = counts.iter().map(|&c| c as u32).sum();
                let mut value = -0.6 - 0.03 * tiles as f64;
                if self.value == Value::LowestColour {
                    // Tiles that cannot score are traded for the average draw.
                    let reach = self.reach_cached(seat);
                    let mut mean = 0.0;
                    for (share, r) in UNSEEN_SHARE.iter().zip(reach) {
                        mean += share * r;
                    }
                    for colour in 0..4 {
                        for _ in 0..counts[colour] {
                            value += SWAP_GAIN * (mean - reach[colour]);
                        }
                    }
                }
                value
            }
            Action::Pass => -0.4,
            Action::Withdraw { .. } => -0.7,
            Action::Commit { count } => {
                let best = self.best_commit(seat, &[count as u32]).unwrap_or(0) as i64;
                1.0 - 0.3 * (count as i64 - best).abs() as f64
            }
            Action::War { .. } | Action::Decline => 0.0,
        }
    }

    fn tile_prior(&mut self, seat: usize, colour: usize, cell: usize) -> f64 {
        let mut around = [0i16; 4];
        let len = self.comps_around(cell, -1, &mut around);
        let mut kingdoms = [0i16; 4];
        let mut nk = 0;
        let mut treasures = 0;
        for &k in &around[..len] {
            if !self.leaders_in(k).is_empty() {
                kingdoms[nk] = k;
                nk += 1;
            }
            treasures += self.treasures_in[k as usize];
        }
        if nk >= 2 {
            return self.war_prior(seat, colour, kingdoms[0], kingdoms[1]);
        }
        let mut value = 0.0;
        if nk == 1 {
            let k = kingdoms[0];
            let mut scorer = None;
            let mut king = None;
            for &(owner, c, _) in self.leaders_in(k) {
                if c as usize == colour {
                    scorer = Some(owner as usize);
                }
                if c as usize == BLACK {
                    king = Some(owner as usize);
                }
            }
            if scorer.is_none() {
                scorer = king;
            }
            match scorer {
                Some(owner) if owner == seat => value += 1.0,
                Some(_) => value -= 0.3,
                None => {}
            }
            // Treasures: a trader's owner takes the extra ones.
            if treasures >= 2 {
                for &(owner, c, _) in self.leaders_in(k) {
                    if c as usize == GREEN {
                        value += if owner as usize == seat { 0.6 } else { -0.3 };
                    }
                }
            }
        } else if len > 0 {
            value += 0.05;
        }
        if colour == RED {
            for j in (neighbours(cell) & self.s.leaders).iter() {
                let owner = self.s.leader_at(j).map_or(usize::MAX, |index| index / 4);
                value += if owner == seat { 0.2 } else { -0.1 };
            }
            if nk == 0 {
                value += 0.1;
            }
        }
        if self.completes_square(colour, cell) {
            value += 0.8;
        }
        value
    }

    fn completes_square(&mut self, colour: usize, cell: usize) -> bool {
        let squares = match self.squares {
            Some(squares) => squares,
            None => {
                let squares = self.square_cells();
                self.squares = Some(squares);
                squares
            }
        };
        squares[colour].has(cell)
    }

    /// Per colour still wanted by a monument, the bare cells whose tile would complete a
    /// 2×2 square of that colour.
    fn square_cells(&self) -> [Bb; 4] {
        let mut out = [Bb::EMPTY; 4];
        let rows = CELLS / COLUMNS;
        for top in 0..rows - 1 {
            for left in 0..COLUMNS - 1 {
                let at = top * COLUMNS + left;
                let square = [at, at + 1, at + COLUMNS, at + COLUMNS + 1];
                let mut empty = None;
                let mut colour = None;
                let mut ok = true;
                for i in square {
                    if self.bare.has(i) {
                        if empty.is_some() {
                            ok = false;
                            break;
                        }
                        empty = Some(i);
                        continue;
                    }
                    match (0..4).find(|&c| self.showing[c].has(i)) {
                        Some(c) if colour.is_none_or(|k| k == c) => colour = Some(c),
                        _ => {
                            ok = false;
                            break;
                        }
                    }
                }
                if let (true, Some(e), Some(c)) = (ok, empty, colour) {
                    if self.wanted[c] {
                        out[c].set(e);
                    }
                }
            }
        }
        out
    }

    fn war_prior(&self, seat: usize, colour: usize, a: i16, b: i16) -> f64 {
        let mut value = 0.1;
        for war_colour in ROLE_ORDER {
            let side = |k: i16| {
                self.leaders_in(k)
                    .iter()
                    .find(|&&(_, c, _)| c as usize == war_colour)
                    .map(|&(owner, _, _)| owner as usize)
            };
            let (Some(owner_a), Some(owner_b)) = (side(a), side(b)) else {
                continue;
            };
            if owner_a != seat && owner_b != seat {
                continue;
            }
            let (mine, theirs, other) = if owner_a == seat {
                (a, b, owner_b)
            } else {
                (b, a, owner_a)
            };
            let my_side = self.counts[mine as usize][war_colour];
            let their_side = self.counts[theirs as usize][war_colour];
            let in_hand = self.s.hands[seat][war_colour] as i64 - i64::from(colour == war_colour);
            let my_total = my_side as i64 + in_hand.max(0);
            if self.value == Value::LowestColour {
                // The stake times the chance to win less the leader and supporters lost.
                let need = my_total - their_side as i64;
                let p_win = if need > 0 {
                    1.0 - self.odds_of_holding(other, war_colour, need)
                } else {
                    0.0
                };
                value += WAR_WEIGHT
                    * (p_win * (1 + their_side) as f64 - (1.0 - p_win) * (1 + my_side) as f64);
                continue;
            }
            let their_total = their_side as f64 + self.expected_in_hand(other, war_colour);
            if my_total as f64 > their_total + 0.5 {
                value += 0.8 * (1 + their_side) as f64;
            } else {
                value -= 0.8 * (1 + my_side) as f64;
            }
        }
        value
    }

    fn leader_prior(&self, seat: usize, colour: usize, cell: usize) -> f64 {
        let current = self.leader_cell(seat, colour);
        let skip = if current == NONE { -1 } else { current as i32 };
        let mut around = [0i16; 4];
        let len = self.comps_around(cell, skip, &mut around);
        let future = 0.4 + 0.6 * self.remaining;
        let temples = self.temples_around(cell, skip);
        let mut kingdom = -1i16;
        for &k in &around[..len] {
            if self.leaders_in(k).iter().any(|&(_, _, i)| i as i32 != skip) {
                kingdom = k;
            }
        }
        let mut rival = None;
        if kingdom >= 0 {
            for &(owner, c, i) in self.leaders_in(kingdom) {
                if c as usize == colour && owner as usize != seat {
                    rival = Some((owner as usize, i as usize));
                }
            }
        }
        let mut value;
        if let Some((owner, at)) = rival {
            let attack = temples + self.s.hands[seat][RED] as u32;
            if self.value == Value::LowestColour {
                // They tie, and so win, holding `need` reds.
                let need = attack as i64 - self.temples_around(at, -1) as i64;
                let p_win = if need > 0 {
                    1.0 - self.odds_of_holding(owner, RED, need)
                } else {
                    0.0
                };
                value = 1.8 * p_win - 0.6;
            } else {
                let defence =
                    self.temples_around(at, -1) as f64 + self.expected_in_hand(owner, RED);
                value = if attack as f64 > defence + 0.5 {
                    1.2
                } else {
                    -0.6
                };
            }
        } else {
            let mut supporters = 0;
            for &k in &around[..len] {
                supporters += self.counts[k as usize][colour];
            }
            let t = temples as f64;
            let quality = 0.35 + 0.35 * supporters.min(8) as f64 / 8.0 + 0.3 * t / (t + 1.0);
            value = 0.9 * quality * future;
            if self.value == Value::LowestColour {
                value *= self.safety(seat, temples);
            }
            if kingdom < 0 {
                value *= 0.7;
            } else {
                for &(at, (a, b)) in &self.monuments {
                    if at == kingdom && (a == colour || b == colour) {
                        value += 0.5;
                    }
                }
            }
        }
        if current != NONE {
            // A move gives up the old spot and an action that could have placed a tile.
            value -= 0.9 * self.leader_quality(colour, current as usize) * future + 0.4;
        }
        value
    }

    fn catastrophe_prior(&self, seat: usize, cell: usize) -> f64 {
        let mut value = -0.5;
        if self.temples.has(cell) {
            for j in (neighbours(cell) & self.s.leaders).iter() {
                if self.temples_around(j, -1) == 1 {
                    let own = self.s.leader_at(j).is_some_and(|index| index / 4 == seat);
                    value += if own { -1.0 } else { 0.9 };
                }
            }
        }
        value
    }
}

/// The reference's `tilted`: the unseen shares tilted by a belief's odds of each colour.
fn tilted(tilt: &[f64; 4]) -> [f64; 4] {
    let raw = [0, 1, 2, 3].map(|c| UNSEEN_SHARE[c] * tilt[c]);
    let total = raw[0] + raw[1] + raw[2] + raw[3];
    raw.map(|x| x / total)
}

/// `cradle.ai.search.worlds.weighted_pool`: the unseen tiles in the order `deal_hidden` deals them
/// (each other seat's hand, then its discards, then the bag), each hand drawn without
/// replacement with chances ∝ the pool's count × the seat's odds of the colour (`weights`;
/// SplitMix64 of `seed`), the rest sorted and shuffled as CPython's `random.Random(seed)`.
pub fn weighted_pool(
    pool: &[u8],
    sizes: &[(usize, usize)],
    weights: &[[f64; 4]],
    seed: u64,
) -> Vec<u8> {
    let mut counts = [0usize; 4];
    for &c in pool {
        counts[c as usize] += 1;
    }
    let mut rng = SplitMix64::new(seed);
    let mut hands = Vec::with_capacity(sizes.len());
    for (&(hand_size, _), weight) in sizes.iter().zip(weights) {
        let mut hand = [0usize; 4];
        for _ in 0..hand_size {
            let mut total = 0.0;
            for c in 0..4 {
                total += counts[c] as f64 * weight[c];
            }
            let mut r = rng.unit() * total;
            let mut pick = None;
            for c in 0..4 {
                let x = counts[c] as f64 * weight[c];
                if x > 0.0 && r < x {
                    pick = Some(c);
                    break;
                }
                r -= x;
            }
            // Rounding at the top end: the last colour still in the pool.
            let pick = pick.unwrap_or_else(|| (0..4).rev().find(|&c| counts[c] > 0).unwrap_or(0));
            hand[pick] += 1;
            counts[pick] -= 1;
        }
        hands.push(hand);
    }
    let mut rest: Vec<u8> = (0..4u8)
        .flat_map(|c| std::iter::repeat_n(c, counts[c as usize]))
        .collect();
    CpythonRandom::new(u128::from(seed)).shuffle(&mut rest);
    let mut order = Vec::with_capacity(pool.len());
    let mut at = 0;
    for (hand, &(_, discards)) in hands.iter().zip(sizes) {
        for c in 0..4u8 {
            order.extend(std::iter::repeat_n(c, hand[c as usize]));
        }
        order.extend_from_slice(&rest[at..at + discards]);
        at += discards;
    }
    order.extend_from_slice(&rest[at..]);
    order
}

/// A Tigris world for the native search, with the knowledge's settings.
#[derive(Clone)]
pub struct World {
    pub s: State,
    /// The learned model instead of the hand-set evaluation (`cradle.ai.knowledge.learned`).
    pub learned: bool,
    /// A belief over the hands (odds against a uniform draw): the worlds are dealt and the
    /// knowledge reads by it.
    pub tilts: Option<Shares>,
    /// The hand-set evaluation and priors.
    pub value: Value,
    ids: Vec<u16>,
    /// The legal actions of `s`, worked out once between moves: a search asks for their
    /// count and for single ids several times a node. `apply_quiet` forgets them: a world
    /// the search asks changes by it only.
    legal: Kept,
}

/// The legal actions of a search's world as `State::moves` gives them, until its next move
/// (a copy works them out again).
#[derive(Default)]
struct Kept(Option<Moves>);

impl Clone for Kept {
    fn clone(&self) -> Kept {
        Kept(None)
    }
}

/// Where the listing of `moves` (`Moves::ids`) holds `id`: the id itself on a turn (listed
/// ascending), its place in a decision's list; None where it is not there.
fn listed_at(moves: &Moves, id: u32) -> Option<u32> {
    let Ok(id16) = u16::try_from(id) else {
        return None;
    };
    match moves {
        Moves::Decision(ids) => ids
            .as_slice()
            .iter()
            .position(|&a| a == id16)
            .map(|i| i as u32),
        // The cells' ids read directly: most edges are placements.
        Moves::Turn(t) if id16 < WITHDRAW_BASE => {
            let at = usize::from(id16 - LEADER_BASE);
            t.leader[at / CELLS].has(at % CELLS).then_some(id)
        }
        Moves::Turn(t) if (TILE_BASE..CATASTROPHE_BASE).contains(&id16) => {
            let at = usize::from(id16 - TILE_BASE);
            t.tile[at / CELLS].has(at % CELLS).then_some(id)
        }
        Moves::Turn(t) => {
            let legal = match Action::from_id(id16)? {
                Action::Leader { role, cell } => t.leader[role].has(cell),
                Action::Withdraw { role } => t.withdraw[role],
                Action::Tile { color, cell } => t.tile[color].has(cell),
                Action::Catastrophe { cell } => t.catastrophe.has(cell),
                Action::Swap { counts } => (0..4).all(|c| counts[c] <= t.hand[c]),
                Action::Pass => true,
                _ => false,
            };
            legal.then_some(id)
        }
    }
}

impl World {
    pub fn new(s: State) -> World {
        World::valued(s, Value::SortedColours)
    }

    pub fn valued(s: State, value: Value) -> World {
        World {
            s,
            learned: false,
            tilts: None,
            value,
            ids: Vec::new(),
            legal: Kept::default(),
        }
    }

    /// The same world evaluated by the learned model (or not).
    pub fn with_learned(mut self, learned: bool) -> World {
        self.learned = learned;
        self
    }

    /// This world with a belief over the hands (None: uniform).
    pub fn believing(mut self, tilts: Option<Shares>) -> World {
        self.tilts = tilts;
        self
    }

    pub fn board(&self) -> Reading<'_> {
        Reading::read_full(&self.s, self.tilts, self.value)
    }

    /// The reference's `TigrisKnowledge.rewards` (exact once the game is over).
    pub fn rewards(&self) -> [f64; 4] {
        if self.s.over {
            return rank_rewards(&self.s);
        }
        if self.learned {
            // The model was fitted on the lowest colour's readings, whatever the priors use.
            let board = Reading::read_full(&self.s, self.tilts, Value::LowestColour);
            return pairwise_chances(&board.learned_values(), 1.0);
        }
        let board = self.board();
        pairwise_chances(&board.values(), board.temperature())
    }
}

/// `cradle.core.results.rank_rewards` of a finished game.
pub fn rank_rewards(s: &State) -> [f64; 4] {
    let places: Vec<usize> = s.result().iter().map(|r| r.place).collect();
    let n = places.len();
    let mut out = [0.0; 4];
    if n < 2 {
        out[..n].fill(1.0);
        return out;
    }
    for (seat, &mine) in places.iter().enumerate() {
        let beaten = places.iter().filter(|&&p| p > mine).count();
        let tied = places.iter().filter(|&&p| p == mine).count() - 1;
        out[seat] = (beaten as f64 + 0.5 * tied as f64) / (n - 1) as f64;
    }
    out
}

/// Sorts a pool of hidden tiles (colours) by counting them: a world is dealt every iteration.
fn sort_colours(pool: &mut [u8]) {
    let mut counts = [0usize; 8];
    for &c in pool.iter() {
        match counts.get_mut(usize::from(c)) {
            Some(n) => *n += 1,
            None => {
                pool.sort_unstable(); // not colours: sort them plainly
                return;
            }
        }
    }
    let mut at = 0;
    for (colour, &n) in counts.iter().enumerate() {
        pool[at..at + n].fill(colour as u8);
        at += n;
    }
}

impl World {
    /// The world `observer` gets from `seed`: `sample_hidden_seeded(observer, seed)`, or with a
    /// belief `believed_world(.., seed)`.
    pub fn determinize(&self, observer: usize, seed: u64) -> World {
        match self.tilts {
            None => self.deal(observer, &mut Dealer::canonical(seed)),
            Some(_) => self.believed(observer, seed),
        }
    }

    /// The other hands dealt weighted by the belief (`cradle.ai.search.worlds.believed_world`).
    fn believed(&self, observer: usize, seed: u64) -> World {
        let mut pool = self.s.hidden_pool(observer as i64);
        sort_colours(&mut pool);
        if let Some(tilts) = &self.tilts {
            let mut sizes = Vec::new();
            let mut others = Vec::new();
            for other in (0..self.s.n).filter(|&o| o != observer) {
                let hand: usize = self.s.hands[other].iter().map(|&c| c as usize).sum();
                let discards: u32 = self.s.discards[other].iter().sum();
                sizes.push((hand, discards as usize));
                others.push(tilts[other]);
            }
            pool = weighted_pool(&pool, &sizes, &others, seed);
        }
        self.dealt(observer, &pool)
    }

    fn dealt(&self, observer: usize, pool: &[u8]) -> World {
        World::valued(self.s.deal_hidden(observer as i64, pool), self.value)
            .believing(self.tilts)
            .with_learned(self.learned)
    }
}

impl SearchGame for World {
    fn players(&self) -> usize {
        self.s.n
    }

    fn to_move(&self) -> usize {
        self.s.to_move()
    }

    fn is_over(&self) -> bool {
        self.s.over
    }

    fn final_rewards(&self) -> [f64; 4] {
        rank_rewards(&self.s)
    }

    fn legal_ids(&mut self, out: &mut Vec<u32>) {
        self.ids.clear();
        let moves = self.legal.0.get_or_insert_with(|| self.s.moves());
        moves.ids(&mut self.ids);
        out.clear();
        out.extend(self.ids.iter().map(|&id| id as u32));
    }

    const COUNTS: bool = true;

    fn legal_count(&mut self) -> usize {
        self.legal.0.get_or_insert_with(|| self.s.moves()).count()
    }

    fn legal_order(&mut self, id: u32) -> Option<u32> {
        listed_at(self.legal.0.get_or_insert_with(|| self.s.moves()), id)
    }

    fn apply_quiet(&mut self, id: u32) {
        self.legal.0 = None;
        self.s.apply_legal(id as u16, &mut NoEvents);
    }

    fn deal(&self, observer: usize, dealer: &mut Dealer) -> World {
        // As sample_hidden(observer, dealer) with a CanonicalRandom: the pool sorted, then
        // shuffled; with a belief, as cradle.ai.search.worlds.believed_world from the next 64 bits.
        if self.tilts.is_some() {
            return self.believed(observer, dealer.getrandbits64());
        }
        let mut pool = self.s.hidden_pool(observer as i64);
        sort_colours(&mut pool);
        dealer.shuffle(&mut pool);
        self.dealt(observer, &pool)
    }

    fn priors(&mut self, ids: &[u32], out: &mut Vec<f64>) {
        let seat = self.s.to_move();
        self.board().priors(seat, ids, out);
    }

    fn unsettled(&mut self) -> bool {
        // A decision in progress offers no turn action (commitments, wars, monuments, ...).
        match self.legal.0.get_or_insert_with(|| self.s.moves()) {
            Moves::Decision(ids) => ids.as_slice().first().is_some_and(|&id| id >= COMMIT_BASE),
            Moves::Turn(_) => false,
        }
    }

    fn policy(&mut self, rng: &mut SplitMix64) -> u32 {
        let mut ids = Vec::new();
        self.legal_ids(&mut ids);
        if ids.len() == 1 {
            return ids[0];
        }
        rng.sample_in_place(&mut ids, POLICY_SAMPLE);
        let mut scores = Vec::new();
        self.priors(&ids, &mut scores);
        let mut best = 0;
        let mut best_score = f64::NEG_INFINITY;
        for (i, score) in scores.iter().enumerate() {
            let noisy = score + 0.3 * rng.unit();
            if noisy > best_score {
                best = i;
                best_score = noisy;
            }
        }
        ids[best]
    }

    fn heuristic_rewards(&mut self) -> [f64; 4] {
        self.rewards()
    }

    fn playout_moves(&self) -> usize {
        0
    }

    fn prior_batch(&self) -> usize {
        PRIOR_BATCH
    }
}

impl SelfPlayGame for World {
    fn observation_size(&self) -> usize {
        super::observation::SIZE
    }

    fn observe(&self, seat: usize, out: &mut [f32]) {
        super::observation::observe(&self.s, seat, out);
    }

    fn bag(&self) -> Option<usize> {
        Some(self.s.bag.len())
    }

    fn uses_tiles(&self, id: u32) -> bool {
        matches!(
            u16::try_from(id).ok().and_then(Action::from_id),
            Some(Action::Tile { .. } | Action::Swap { .. })
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_sort_by_counting_as_by_comparing() {
        let mut pool: Vec<u8> = (0..97u32).map(|i| ((i * 7 + i / 5) % 4) as u8).collect();
        pool.extend([9, 0, 255, 3]);
        let mut compared = pool.clone();
        compared.sort_unstable();
        sort_colours(&mut pool);
        assert_eq!(pool, compared);
    }

    #[test]
    fn set_order_follows_cpython() {
        // list({8, 9, 5}) == [8, 9, 5]; list({2, 10}) == [2, 10]; list({10, 2}) == [10, 2];
        // list({0, 8, 16}) == [0, 8, 16] (16 probes 0 -> 1 -> 6, ... as CPython does).
        let mut out = [0i16; 4];
        python_set_order(&[5, 8, 9], &mut out);
        assert_eq!(out[..3], [8, 9, 5]);
        python_set_order(&[10, 2], &mut out);
        assert_eq!(out[..2], [10, 2]);
        python_set_order(&[2, 10], &mut out);
        assert_eq!(out[..2], [2, 10]);
    }

    fn game(seed: u128, players: usize) -> World {
        let seats: Vec<u8> = (0..players as u8).collect();
        World::new(State::deal(&seats, Default::default(), seed))
    }

    #[test]
    fn a_world_depends_only_on_what_the_observer_knows() {
        let world = game(3, 3);
        let seat = world.s.to_move();
        let mut reordered = world.clone();
        let mut bag = reordered.s.bag.as_slice().to_vec();
        bag.reverse(); // the same tiles, hidden in another order
        reordered.s.bag = super::super::state::Bag::new(&bag).expect("same size");
        let a = world.determinize(seat, 11);
        assert_eq!(a.s, reordered.determinize(seat, 11).s);
        assert_eq!(a.s.hands[seat], world.s.hands[seat]);
        assert_eq!(a.s.points, world.s.points);
        assert_ne!(a.s, world.determinize(seat, 12).s);
    }

    /// Along random games of 2 to 4 players, at every ply: a reading of the state, whose
    /// kingdoms are read from what the state keeps, is the reading of a copy that keeps
    /// none (every region flooded), list for list, and values the seats alike.
    #[test]
    fn a_reading_from_the_kept_kingdoms_is_the_flooded_one() {
        let mut rng = SplitMix64::new(21);
        let mut kept = 0;
        for (seed, players) in [(1, 2), (2, 3), (3, 4), (4, 2), (5, 2)] {
            let mut s = game(seed, players).s;
            while !s.over {
                let mut flooded = s.clone();
                flooded.forget_kingdoms();
                kept += usize::from(s.kept_kingdoms(s.connectors()).is_some());
                assert!(flooded.kept_kingdoms(flooded.connectors()).is_none());
                let (a, b) = (Reading::read(&s), Reading::read(&flooded));
                assert_eq!(a.comp, b.comp);
                assert_eq!(a.counts, b.counts);
                assert_eq!(a.leaders, b.leaders);
                assert_eq!(a.first, b.first);
                assert_eq!(a.treasures_in, b.treasures_in);
                assert_eq!(a.monuments, b.monuments);
                assert_eq!(a.remaining, b.remaining);
                assert_eq!(a.values(), b.values());
                drop((a, b));
                let ids = s.legal_ids();
                s.apply_legal(ids[rng.below(ids.len())], &mut NoEvents);
            }
        }
        assert!(kept > 400, "{kept}");
    }

    /// The fast dealer deals worlds the observer cannot tell from the root (its own hand and
    /// everything public kept, the hidden tiles the same multiset), other worlds than the
    /// canonical dealer's, and the same worlds again from the same seed.
    #[test]
    fn the_fast_dealer_deals_the_same_hidden_tiles_otherwise() {
        let world = game(6, 3);
        let seat = world.s.to_move();
        let pool = |w: &World| {
            let mut tiles = w.s.hidden_pool(seat as i64);
            tiles.sort_unstable();
            tiles
        };
        let (mut fast, mut again) = (Dealer::seeded(9, true), Dealer::seeded(9, true));
        let mut canonical = Dealer::seeded(9, false);
        let mut differ = 0;
        for _ in 0..20 {
            let dealt = world.deal(seat, &mut fast);
            assert_eq!(dealt.s, world.deal(seat, &mut again).s);
            assert_eq!(dealt.s.hands[seat], world.s.hands[seat]);
            assert_eq!(dealt.s.points, world.s.points);
            assert_eq!(dealt.s.bag.len(), world.s.bag.len());
            assert_eq!(pool(&dealt), pool(&world));
            differ += usize::from(dealt.s != world.deal(seat, &mut canonical).s);
        }
        assert!(differ >= 18, "{differ}");
    }

    #[test]
    fn counted_moves_answer_as_the_listing() {
        // Along random games of 2 to 4 players: the count, and each id's place (the id on a
        // turn, ascending; its place in a decision), as the list says, the kept moves
        // forgotten at every move.
        let mut rng = SplitMix64::new(5);
        let mut legal = Vec::new();
        let mut checked = 0;
        for (seed, players) in [(1, 2), (2, 3), (3, 4), (4, 2)] {
            let mut world = game(seed, players);
            while !world.is_over() {
                world.legal_ids(&mut legal);
                assert_eq!(world.legal_count(), legal.len());
                let places: Vec<u32> = legal
                    .iter()
                    .map(|&id| world.legal_order(id).expect("listed, so legal"))
                    .collect();
                assert!(
                    places.windows(2).all(|w| w[0] < w[1]),
                    "in the list's order"
                );
                if checked % 4 == 0 {
                    // Every id of a turn and the decisions' first ones, legal or not.
                    for id in 0..u32::from(crate::tigris::actions::COMMIT_BASE + 8) {
                        let listed = legal.contains(&id);
                        assert_eq!(world.legal_order(id).is_some(), listed, "id {id}");
                    }
                }
                checked += 1;
                world.apply_quiet(legal[rng.below(legal.len())]);
            }
        }
        assert!(checked > 300, "{checked} states");
    }

    /// A Tigris world the search must list: its trees are the counting world's.
    #[derive(Clone)]
    struct Listed(World);

    impl SearchGame for Listed {
        fn players(&self) -> usize {
            self.0.players()
        }
        fn to_move(&self) -> usize {
            self.0.to_move()
        }
        fn is_over(&self) -> bool {
            self.0.is_over()
        }
        fn final_rewards(&self) -> [f64; 4] {
            self.0.final_rewards()
        }
        fn legal_ids(&mut self, out: &mut Vec<u32>) {
            self.0.legal_ids(out);
        }
        fn apply_quiet(&mut self, id: u32) {
            self.0.apply_quiet(id);
        }
        fn deal(&self, observer: usize, dealer: &mut Dealer) -> Listed {
            Listed(self.0.deal(observer, dealer))
        }
        fn priors(&mut self, ids: &[u32], out: &mut Vec<f64>) {
            self.0.priors(ids, out);
        }
        fn unsettled(&mut self) -> bool {
            self.0.unsettled()
        }
        fn policy(&mut self, rng: &mut SplitMix64) -> u32 {
            self.0.policy(rng)
        }
        fn heuristic_rewards(&mut self) -> [f64; 4] {
            self.0.heuristic_rewards()
        }
        fn playout_moves(&self) -> usize {
            self.0.playout_moves()
        }
        fn prior_batch(&self) -> usize {
            self.0.prior_batch()
        }
    }

    #[test]
    fn a_counted_search_grows_the_listed_searchs_tree() {
        let budget = crate::search::Budget {
            iterations: Some(1_500),
            seconds: None,
            floor: None,
        };
        // Few scored actions a batch and a wide tree: many expansions and ties of order.
        let params = crate::search::Params {
            batch: 4,
            widening: 3.0,
            ..crate::search::Params::default()
        };
        for (seed, players, plies) in [(7, 2, 0), (8, 4, 30), (9, 3, 60)] {
            let mut world = game(seed, players);
            let mut rng = SplitMix64::new(seed as u64);
            let mut legal = Vec::new();
            for _ in 0..plies {
                world.legal_ids(&mut legal);
                world.apply_quiet(legal[rng.below(legal.len())]);
            }
            if world.is_over() {
                continue;
            }
            let seat = world.to_move();
            let counted = crate::search::search(&world, seat, budget, params, &[3], None);
            let listed =
                crate::search::search(&Listed(world.clone()), seat, budget, params, &[3], None);
            assert_eq!(counted, listed, "seed {seed}");
        }
    }

    #[test]
    fn a_tigris_search_visits_legal_root_actions_only() {
        let mut world = game(5, 2);
        let seat = world.s.to_move();
        let budget = crate::search::Budget {
            iterations: Some(400),
            seconds: None,
            floor: None,
        };
        let params = crate::search::Params::default();
        let (count, stats) = crate::search::search(&world, seat, budget, params, &[1, 2], None);
        assert_eq!(count, 400);
        assert_eq!(stats.iter().map(|r| r.visits).sum::<u64>(), 400);
        let mut legal = Vec::new();
        world.legal_ids(&mut legal);
        assert!(stats.iter().all(|r| legal.contains(&r.action)));
        assert!(stats
            .iter()
            .all(|r| (0.0..=r.visits as f64).contains(&r.total)));
    }

    #[test]
    fn binomial_matches_known_values() {
        assert_eq!(binomial_cdf(-1, 6, 0.3), 0.0);
        assert_eq!(binomial_cdf(6, 6, 0.3), 1.0);
        let p0 = 0.7f64.powf(6.0);
        assert!((binomial_cdf(0, 6, 0.3) - p0).abs() < 1e-15);
        // Kept answers are the summed ones, bit for bit, however the slots are shared.
        for round in 0..3 {
            for i in 0..2_000u32 {
                let p = f64::from(i % 700) / 701.0;
                let (k, n) = (i64::from(i % 5), 1 + i64::from(i % 7));
                let kept = binomial_cdf(k, n, p);
                let summed = if k >= n {
                    1.0
                } else {
                    binomial_cdf_summed(k, n, p)
                };
                assert_eq!(
                    kept.to_bits(),
                    summed.to_bits(),
                    "round {round}: {k}, {n}, {p}"
                );
            }
        }
    }
}
