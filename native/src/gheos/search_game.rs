//! Gheos for the native ISMCTS (`crate::search`): the engine and its knowledge
//! ([`super::knowledge`]) behind the [`SearchGame`] trait, a thin adapter.

use super::events::Log;
use std::convert::Infallible;

use super::knowledge::{self, Draw, Value};
use super::state::State;
use crate::cpython_random::CpythonRandom;
use crate::search::batched::SelfPlayGame;
use crate::search::{Params, SearchGame};
use crate::splitmix::SplitMix64;

impl Draw for SplitMix64 {
    fn uniform(&mut self) -> f64 {
        self.unit()
    }

    fn below(&mut self, n: usize) -> usize {
        SplitMix64::below(self, n)
    }
}

impl State {
    /// A world `observer` cannot tell from this one: `sample_hidden_seeded(observer, seed)`
    /// (the unseen tiles sorted, then dealt again as `CanonicalRandom(seed)` shuffles), so the
    /// world depends on what the observer knows and on `seed` only.
    pub fn determinize(&self, observer: usize, seed: u64) -> State {
        self.deal_world(observer, &mut CpythonRandom::from_u64(seed))
    }

    /// A world `observer` cannot tell from this one, dealt from `dealer` as
    /// `sample_hidden(observer, dealer)` deals from a `CanonicalRandom`.
    pub fn deal_world(&self, observer: usize, dealer: &mut CpythonRandom) -> State {
        let dealt: Result<State, Infallible> = self.redeal_hidden(Some(observer), &mut |items| {
            sort_tiles(items);
            dealer.shuffle(items);
            Ok(())
        });
        match dealt {
            Ok(world) => world,
            Err(never) => match never {},
        }
    }
}

/// Sorts hidden tiles (distinct numbers below 64, and any number of epoch tiles as -1)
/// through a bit set, without comparisons: a world is drawn every iteration.
fn sort_tiles(items: &mut Vec<i64>) {
    let mut set = 0u64;
    let mut epochs = 0;
    for &n in items.iter() {
        match n {
            -1 => epochs += 1,
            0..=63 if set & (1 << n) == 0 => set |= 1 << n,
            _ => {
                items.sort_unstable(); // not tiles as dealt: sort them plainly
                return;
            }
        }
    }
    items.clear();
    items.extend(std::iter::repeat_n(-1, epochs));
    while set != 0 {
        items.push(i64::from(set.trailing_zeros()));
        set &= set - 1;
    }
}

/// How a searched world is judged: the hand-set evaluation, or the learned model
/// (`cradle.ai.knowledge.learned`; its priors and policy are value 1's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judge {
    Hand(Value),
    Learned,
}

impl Judge {
    /// The hand-set evaluation behind the priors and the policy.
    fn value(self) -> Value {
        match self {
            Judge::Hand(value) => value,
            Judge::Learned => Value::Followers,
        }
    }
}

/// Gheos for the search: the game as it is, how its leaves are judged, and whether its
/// priors play out the conflicts the moves start (`knowledge::settle_conflict`).
#[derive(Clone)]
pub struct World {
    pub s: State,
    pub judge: Judge,
    pub settle: bool,
}

/// The search settings the Gheos knowledge plays with (the Python bot's defaults): its
/// rollout, playout and prior batch, and urgent replies.
pub fn knowledge_params() -> Params {
    Params {
        rollout: knowledge::ROLLOUT,
        playout: knowledge::PLAYOUT,
        batch: knowledge::BATCH,
        urgent: true,
        ..Params::default()
    }
}

impl SearchGame for World {
    fn players(&self) -> usize {
        usize::from(self.s.players)
    }

    fn to_move(&self) -> usize {
        usize::from(self.s.active)
    }

    fn is_over(&self) -> bool {
        self.s.is_over()
    }

    fn final_rewards(&self) -> [f64; 4] {
        knowledge::rank_rewards(&self.s)
    }

    fn legal_ids(&mut self, out: &mut Vec<u32>) {
        self.s.legal_ids(out);
    }

    fn apply_quiet(&mut self, id: u32) {
        self.s.apply_legal(id, &mut Log::new(false));
    }

    fn deal(&self, observer: usize, dealer: &mut CpythonRandom) -> Self {
        World {
            s: self.s.deal_world(observer, dealer),
            judge: self.judge,
            settle: self.settle,
        }
    }

    fn priors(&mut self, ids: &[u32], out: &mut Vec<f64>) {
        out.clear();
        knowledge::priors_legal(&self.s, self.judge.value(), self.settle, ids, out);
    }

    fn unsettled(&mut self) -> bool {
        knowledge::unsettled(&self.s)
    }

    fn policy(&mut self, rng: &mut SplitMix64) -> u32 {
        knowledge::policy(&self.s, self.judge.value(), self.settle, rng)
    }

    fn heuristic_rewards(&mut self) -> [f64; 4] {
        match self.judge {
            Judge::Hand(value) => knowledge::rewards(&self.s, value),
            Judge::Learned => knowledge::learned_rewards(&self.s),
        }
    }

    fn playout_moves(&self) -> usize {
        knowledge::PLAYOUT
    }

    fn prior_batch(&self) -> usize {
        knowledge::BATCH
    }

    fn urgent(&mut self, out: &mut Vec<u32>) {
        self.s.conflict_ids(out);
    }

    fn random_id(&mut self, rng: &mut SplitMix64, scratch: &mut Vec<u32>) -> u32 {
        self.s.pick_legal(|n| rng.below(n), scratch)
    }

    fn ruled_move(&mut self) -> Option<u32> {
        // A token that ends the game is not left to chance (`knowledge::ruled_token`).
        let play = knowledge::ruled_token(&self.s, self.judge.value())?;
        Some(if play {
            super::notation::TOKEN
        } else {
            super::notation::PASS
        })
    }
}

impl SelfPlayGame for World {
    fn observation_size(&self) -> usize {
        super::observation::size(self.s.tiles.tiles.len())
    }

    fn observe(&self, seat: usize, out: &mut [f32]) {
        super::observation::observe(&self.s, seat, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gheos::notation::{PASS, TOKEN};
    use crate::gheos::state::{Phase, EPOCH};
    use crate::gheos::tiles::packaged;
    use crate::search::{search, Budget, Params};

    const RECORDED_TREES: u64 = 0x79fc_4408_847b_9fda;

    fn game(players: usize, seed: u32) -> State {
        let names = (0..players).map(|s| format!("p{s}")).collect();
        State::deal(packaged(), names, &[seed])
    }

    fn hidden(g: &State, observer: usize) -> (Vec<Vec<u8>>, Vec<u8>) {
        let hands = (0..usize::from(g.players))
            .filter(|&s| s != observer)
            .map(|s| g.sorted_hand(s).as_slice().to_vec())
            .collect();
        (hands, g.stack.as_slice().to_vec())
    }

    #[test]
    fn a_world_keeps_what_the_observer_sees_and_ignores_where_hidden_tiles_are() {
        let g = game(3, 11);
        let world = g.determinize(1, 5);
        assert_eq!(world.sorted_hand(1), g.sorted_hand(1));
        assert_eq!(world.stack.len(), g.stack.len());
        assert_eq!(world.epochs_in_stack(), g.epochs_in_stack());
        let (mut a, mut b) = (hidden(&g, 1), hidden(&world, 1));
        let all = |h: &mut (Vec<Vec<u8>>, Vec<u8>)| {
            let mut v: Vec<u8> = h.0.concat();
            v.extend(&h.1);
            v.sort_unstable();
            v
        };
        assert_eq!(all(&mut a), all(&mut b), "the same hidden tiles");
        assert_ne!(hidden(&g, 1), hidden(&world, 1), "dealt again");
        // The truth rearranged: the same world from the same seed.
        let mut other = g.clone();
        other.hands.swap(0, 2);
        let at = other
            .stack
            .as_slice()
            .iter()
            .position(|&t| t != EPOCH)
            .expect("a tile");
        let tile = other.stack.as_slice()[at];
        other.stack.as_mut_slice()[at] = other.hands[0].as_slice()[0];
        other.hands[0].as_mut_slice()[0] = tile;
        let again = other.determinize(1, 5);
        assert_eq!(hidden(&again, 1), hidden(&world, 1));
    }

    #[test]
    fn a_playout_plays_the_last_token_by_rule_and_any_other_at_random() {
        let mut g = game(2, 4);
        let mut rng = SplitMix64::new(9);
        let mut log = Log::new(false);
        let mut legal = Vec::new();
        while g.phase != Phase::Token
            || knowledge::Reading::new(&g).cup_score(usize::from(g.active)) <= 0
        {
            g.legal_ids(&mut legal);
            let id = legal[knowledge::Draw::below(&mut rng, legal.len())];
            g.apply_legal(id, &mut log);
            assert!(
                !g.is_over(),
                "no token decision with a cup score before the end"
            );
        }
        let (mover, other) = (usize::from(g.active), 1 - usize::from(g.active));
        for (ahead, expected) in [(true, TOKEN), (false, PASS)] {
            let mut last = g.clone();
            last.tokens[mover] = 1;
            last.tokens[other] = 0;
            last.points[mover] = if ahead { 500 } else { 0 };
            last.points[other] = if ahead { 0 } else { 500 };
            let mut judged = World {
                s: last,
                judge: Judge::Hand(Value::Followers),
                settle: false,
            };
            assert_eq!(judged.ruled_move(), Some(expected), "ahead: {ahead}");
            judged.s.tokens[other] = 1; // not the last token: left to chance
            assert_eq!(judged.ruled_move(), None);
        }
    }

    #[test]
    fn a_random_pick_is_the_legal_list_at_the_drawn_place() {
        let mut legal = Vec::new();
        let mut scratch = Vec::new();
        let mut log = Log::new(false);
        let mut rng = SplitMix64::new(3);
        let mut picked = 0;
        for (players, seed) in [(2, 5), (3, 6), (4, 7), (2, 8)] {
            let mut g = game(players, seed);
            while !g.is_over() {
                g.legal_ids(&mut legal);
                for i in 0..legal.len() {
                    let mut asked = 0;
                    let id = g.pick_legal(
                        |n| {
                            asked = n;
                            i
                        },
                        &mut scratch,
                    );
                    assert_eq!(asked, legal.len(), "the count of legal actions");
                    assert_eq!(id, legal[i], "place {i} of {}", legal.len());
                    picked += 1;
                }
                let id = legal[knowledge::Draw::below(&mut rng, legal.len())];
                g.apply_legal(id, &mut log);
            }
        }
        assert!(picked > 2_000, "{picked} picks checked");
    }

    #[test]
    fn hidden_tiles_sort_as_numbers() {
        let mut items = vec![7, -1, 3, 51, -1, 0];
        sort_tiles(&mut items);
        assert_eq!(items, vec![-1, -1, 0, 3, 7, 51]);
        let mut odd = vec![5, 70, 5, 2];
        sort_tiles(&mut odd);
        assert_eq!(odd, vec![2, 5, 5, 70]);
    }

    /// The root statistics of searches at fixed iterations on positions of random games
    /// (2 and 4 players, both evaluations, settled priors or not), folded into one number:
    /// recorded from the build before the priors were scored on a reused scratch state
    /// (`knowledge::priors_legal`), so any change to a prior or a tree shows here.
    #[test]
    fn fixed_searches_grow_the_recorded_trees() {
        let mut hash = 0xcbf2_9ce4_8422_2325u64;
        let mut fold = |x: u64| {
            for byte in x.to_le_bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3);
            }
        };
        let mut legal = Vec::new();
        let mut log = Log::new(false);
        for (players, seed) in [(2, 31), (4, 32), (2, 33), (3, 34)] {
            let mut g = game(players, seed);
            let mut rng = SplitMix64::new(u64::from(seed));
            for ply in 0..120 {
                if g.is_over() {
                    break;
                }
                g.legal_ids(&mut legal);
                if ply % 20 == 7 && legal.len() > 1 {
                    for (judge, settle) in [
                        (Judge::Hand(Value::UsableTokens), true),
                        (Judge::Hand(Value::Followers), false),
                    ] {
                        let world = World {
                            s: g.clone(),
                            judge,
                            settle,
                        };
                        let params = knowledge_params();
                        let budget = Budget {
                            iterations: Some(150),
                            seconds: None,
                            floor: None,
                        };
                        let seat = usize::from(g.active);
                        let (n, stats) = search(&world, seat, budget, params, &[ply], None);
                        fold(n);
                        for s in stats {
                            fold(u64::from(s.action));
                            fold(s.visits);
                            fold(s.total.to_bits());
                        }
                    }
                }
                let id = legal[rng.below(legal.len())];
                g.apply_legal(id, &mut log);
            }
        }
        assert_eq!(hash, RECORDED_TREES, "{hash:#x}");
    }

    #[test]
    fn the_search_plays_gheos_games_to_the_end() {
        for players in [2, 4] {
            let mut g = World {
                s: game(players, 21),
                judge: Judge::Hand(Value::UsableTokens),
                settle: true,
            };
            let params = Params {
                rollout: knowledge::ROLLOUT,
                playout: knowledge::PLAYOUT,
                batch: knowledge::BATCH,
                ..Params::default()
            };
            let mut legal = Vec::new();
            let mut turns = 0;
            while !g.s.is_over() && turns < 300 {
                g.s.legal_ids(&mut legal);
                let id = if legal.len() == 1 {
                    legal[0]
                } else {
                    let seat = usize::from(g.s.active);
                    let budget = Budget {
                        iterations: Some(30),
                        seconds: None,
                        floor: None,
                    };
                    let (n, stats) = search(&g, seat, budget, params, &[turns], None);
                    assert_eq!(n, 30);
                    let best = stats
                        .iter()
                        .max_by_key(|s| s.visits)
                        .expect("a visited child");
                    best.action
                };
                assert!(legal.contains(&id));
                g.apply_quiet(id);
                turns += 1;
            }
            assert!(g.s.is_over(), "{players} players");
        }
    }
}
