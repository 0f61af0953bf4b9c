//! Native twins of cradle's rule bots (`cradle.ai.bots.RandomBot`, `cradle.ai.greedy`,
//! `cradle.ai.expert_rules` and its styles): the
//! same decision as the Python reference for the same seed, drawing from CPython's generator
//! ([`CpythonRandom`]) exactly where the reference draws, so that the research environments'
//! opponents step without Python (`seat`, `crate::python::env`). The reference stays the definition; the
//! lockstep tests (tests/envs/test_native_bots.py) compare the two decision by decision.

pub mod expert;
pub mod greedy;
pub mod seat;

use crate::cpython_random::CpythonRandom;

/// `random.Random(seed)` for any seed the Python bots take (`abs(seed)`, as CPython seeds).
pub fn seeded(seed: i128) -> CpythonRandom {
    CpythonRandom::new(seed.unsigned_abs())
}

/// `cradle.ai.bots.StallGuard` (limit 10; `relapse` after it fired once): after too many of
/// the bot's decisions without a change of the bag, only actions that use up tiles.
#[derive(Clone, Debug)]
pub struct StallGuard {
    limit: u32,
    relapse: u32,
    bag: Option<usize>,
    still: u32,
    fired: bool,
}

impl StallGuard {
    pub fn new(limit: u32, relapse: u32) -> StallGuard {
        StallGuard {
            limit,
            relapse,
            bag: None,
            still: 0,
            fired: false,
        }
    }

    /// The reference's `allowed`: `bag` is the public bag size (None for a game without one,
    /// which the guard leaves alone); `moving(i)` says whether action `i` uses up tiles.
    /// Returns the indices of the allowed actions among `count`.
    pub fn allowed(
        &mut self,
        bag: Option<usize>,
        count: usize,
        moving: impl Fn(usize) -> bool,
    ) -> Vec<usize> {
        let all = || (0..count).collect::<Vec<_>>();
        let Some(bag) = bag else {
            return all();
        };
        if self.bag.is_some_and(|before| bag > before) {
            self.fired = false; // the bag grew: a new game
        }
        self.still = if self.bag == Some(bag) {
            self.still + 1
        } else {
            0
        };
        self.bag = Some(bag);
        if self.still < (if self.fired { self.relapse } else { self.limit }) {
            return all();
        }
        let moving: Vec<usize> = (0..count).filter(|&i| moving(i)).collect();
        if moving.is_empty() {
            return all();
        }
        self.fired = true;
        moving
    }
}

impl StallGuard {
    /// The Tigris ids `s`'s mover may play under the guard: tiles and swaps use up tiles.
    pub fn allowed_tigris(&mut self, s: &crate::tigris::state::State) -> Vec<u16> {
        use crate::tigris::actions::Action;
        let legal = s.legal_ids();
        let uses_tiles = |id: u16| {
            matches!(
                Action::from_id(id),
                Some(Action::Tile { .. } | Action::Swap { .. })
            )
        };
        self.allowed(Some(s.bag.len()), legal.len(), |i| uses_tiles(legal[i]))
            .into_iter()
            .map(|i| legal[i])
            .collect()
    }
}

/// `cradle.ai.bots.RandomBot`: `rng.choice(legal)`.
pub fn random_choice<T: Copy>(rng: &mut CpythonRandom, legal: &[T]) -> T {
    legal[rng.below(legal.len() as u32) as usize]
}
