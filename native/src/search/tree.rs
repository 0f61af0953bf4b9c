//! One ISMCTS tree (`cradle.ai.ismcts.Ismcts` step for step) and root parallelism on threads.

use std::time::Instant;

use super::{PyRandom, SearchGame};
use crate::splitmix::SplitMix64;

/// The search's settings (`cradle.ai.ismcts.IsmctsParams`), with the game's defaults for
/// `playout` and `batch` already resolved by the caller.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub exploration: f64,
    pub widening: f64,
    pub alpha: f64,
    pub prior_weight: f64,
    pub rollout: usize,
    pub playout: usize,
    pub batch: usize,
    /// Sequential halving at the root over this many actions (0: UCB at the root too).
    pub halving: usize,
    /// Random playout moves go on to the start of a turn of, 1: the seat of the first random
    /// move; 2: the searching seat (0: exactly `playout` moves).
    pub balance: usize,
    /// 1: below the root, every batch scored also holds the game's urgent actions
    /// ([`SearchGame::urgent`]: in Gheos, the tile actions that start a war or a migration),
    /// the rest of it drawn at random; 2: the urgent actions and a whole random batch of the
    /// others besides; 0: the whole batch at random. Python's default is 1
    /// (`IsmctsParams.urgent`); here 0, so a plain `Params` is the bare tree.
    pub urgent: usize,
    /// How actions are told apart across worlds. 0: by id; 1: by the game's keys
    /// ([`SearchGame::key`]: in Gheos the tile a hand slot holds); 2: by id and whether the
    /// action is urgent in the world ([`SearchGame::urgent`]: in Gheos, an opponent's
    /// placement that starts a war in one world is not the same placement in another).
    pub keys: usize,
    /// 1: in the random playout, every move of a turn in progress past its first action
    /// (what [`SearchGame::unsettled`] names: in Gheos the followers, the token and the
    /// conflicts after a tile) is the quick policy's; only the first action of a turn (a
    /// tile) is left to chance. 0: every playout move at random.
    pub steps: usize,
    /// The share of a leaf's reward judged before its rollout and playout (right after
    /// settling), the rest after them: 0, only after (a leaf's one noisy look ahead); more,
    /// a steadier judgement of the leaf itself mixed in.
    pub mix: f64,
    /// 1: selection weighs a child's mean reward as a quarter of its log-odds
    /// ([`log_odds`]), so children still part where every reward is near 0 or 1; 0: the
    /// mean itself.
    pub odds: usize,
    /// 1: a search with seconds in its budget stops once the most visited root action leads
    /// the next by more visits than the iterations still to come at this pace ([`settled`]):
    /// no later iteration could change the move played (the most visited one). 0: it runs to
    /// the end of its budget.
    pub stop: usize,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            exploration: 0.4,
            widening: 1.5,
            alpha: 0.5,
            prior_weight: 0.3,
            rollout: 0,
            playout: 0,
            batch: 48,
            halving: 0,
            balance: 0,
            urgent: 0,
            keys: 0,
            steps: 0,
            mix: 0.0,
            odds: 0,
            stop: 0,
        }
    }
}

/// How long a search may think: iterations, seconds, or both (first reached); at least one
/// iteration always runs, as `cradle.ai.search.Clock` does. `floor`: the fewest iterations
/// run even when the seconds are up (a loaded machine answers later rather than blind).
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget {
    pub iterations: Option<u64>,
    pub seconds: Option<f64>,
    pub floor: Option<u64>,
}

impl Budget {
    /// The iterations still to come after `count` of them in `elapsed` seconds, at that pace
    /// (within the iterations); None for a budget without seconds, before [`PACED`]
    /// iterations have set a pace, or below the floor (always searched in full).
    pub fn left(&self, count: u64, elapsed: f64) -> Option<f64> {
        let seconds = self.seconds?;
        if count < PACED || self.floor.is_some_and(|floor| count < floor) {
            return None;
        }
        let pace = count as f64 / elapsed.max(1e-9);
        let left = pace * (seconds - elapsed).max(0.0);
        Some(match self.iterations {
            Some(limit) => left.min(limit.saturating_sub(count) as f64),
            None => left,
        })
    }

    /// One of `parts` parallel trees' share: the same time, the iterations and floor divided.
    pub fn split(self, parts: usize) -> Budget {
        Budget {
            iterations: self.iterations.map(|n| (n / parts as u64).max(1)),
            seconds: self.seconds,
            floor: self.floor.map(|n| (n / parts as u64).max(1)),
        }
    }

    /// A budget and search settings as Python hands them over (`cradle.ai.ismcts`), checked
    /// as `cradle.ai.search.Budget` checks them.
    pub fn checked(
        iterations: Option<u64>,
        seconds: Option<f64>,
        floor: Option<u64>,
        seeds: &[u64],
    ) -> Result<Budget, String> {
        if iterations.is_none() && seconds.is_none() {
            return Err("a budget needs iterations or seconds".into());
        }
        if iterations == Some(0) || seconds.is_some_and(|t| t.is_nan() || t <= 0.0) {
            return Err("a budget needs at least 1 iteration and more than 0 seconds".into());
        }
        if floor == Some(0) || floor.is_some_and(|f| iterations.is_some_and(|n| f > n)) {
            return Err(
                "a budget's floor is at least 1 iteration and at most its iterations".into(),
            );
        }
        if seeds.is_empty() {
            return Err("a search needs at least one seed".into());
        }
        Ok(Budget {
            iterations,
            seconds,
            floor,
        })
    }
}

/// The settings as Python sends them: the real ones (exploration, widening, alpha,
/// prior_weight, mix), then the counts (rollout, playout, batch, halving, balance, urgent,
/// keys, steps, odds, stop).
pub type Settings = (
    (f64, f64, f64, f64, f64),
    (
        usize,
        usize,
        usize,
        usize,
        usize,
        usize,
        usize,
        usize,
        usize,
        usize,
    ),
);

impl Params {
    /// The settings in the order `cradle.ai.ismcts` sends them ([`Settings`]).
    pub fn from_tuple(params: Settings) -> Params {
        let (
            (exploration, widening, alpha, prior_weight, mix),
            (rollout, playout, batch, halving, balance, urgent, keys, steps, odds, stop),
        ) = params;
        Params {
            exploration,
            widening,
            alpha,
            prior_weight,
            rollout,
            playout,
            batch,
            halving,
            balance,
            urgent,
            keys,
            steps,
            mix,
            odds,
            stop,
        }
    }
}

/// A root action's statistics: visits and the searching seat's summed reward.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootStats {
    pub action: u32,
    pub visits: u64,
    pub total: f64,
}

/// The iterations a search runs before its pace says how many more are to come
/// ([`Budget::left`]).
pub const PACED: u64 = 16;

/// Whether no iteration still to come (`left` of them) could change the move played, the
/// most visited of the root actions' `visits` (`Params::stop`): the first leads the second
/// (an action not tried yet has none) by more than `left`.
pub fn settled(visits: impl Iterator<Item = u64>, left: f64) -> bool {
    let (mut first, mut second) = (0u64, 0u64);
    for n in visits {
        if n > first {
            (first, second) = (n, first);
        } else if n > second {
            second = n;
        }
    }
    (first - second) as f64 > left
}

/// The most random moves a balanced playout adds (`cradle.ai.search.BALANCE_LIMIT`).
const BALANCE_LIMIT: usize = 64;

/// Mixed into a halving pass's seed for its random numbers (the world has the seed itself).
const PAIRED: u64 = 0x9e37_79b9_7f4a_7c15;

/// Where [`log_odds`] stops: a mean of 0 or 1 counts as this close to it.
const ODDS_EDGE: f64 = 1e-4;

/// A quarter of the log-odds of `mean` (`cradle.ai.ismcts.log_odds`): about `mean - 1/2`
/// near one half, spread apart near 0 and 1.
fn log_odds(mean: f64) -> f64 {
    let p = mean.clamp(ODDS_EDGE, 1.0 - ODDS_EDGE);
    (p / (1.0 - p)).ln() / 4.0
}

/// How many natural logarithms of availability counts [`logarithms`] keeps.
const LOGARITHMS: usize = 4096;

/// `ln(n)` for the small n that most availability counts are, worked out once (the same
/// numbers as `f64::ln`, so the same trees): a selection reads one per child.
fn logarithms() -> &'static [f64] {
    static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| (0..LOGARITHMS).map(|n| (n as f64).ln()).collect())
}

/// The settling limit of `cradle.ai.search.settle`.
const SETTLE_LIMIT: usize = 8;

/// A node's children and what it scored. Its visits are its edge's (the root's, the tree's).
struct Node {
    /// The statistics of the children live in their parent, side by side: selection reads
    /// every child's, and one node apart from the next would cost a cache miss each.
    edges: Vec<Edge>,
    /// The actions scored so far by key (index, tag), with their priors (plus a tiny random
    /// tie-break).
    priors: Vec<(u32, u32, f64)>,
    /// The edges and priors of each tag: a world looks only at those of the tags it has
    /// (with `Params::keys`, an opponent's node holds the tiles of many worlds, and a world
    /// the two of one hand). Without keys, one tag.
    buckets: Vec<Bucket>,
}

struct Bucket {
    tag: u32,
    edges: Vec<u32>,
    priors: Vec<u32>,
}

impl Node {
    fn new() -> Node {
        Node {
            edges: Vec::new(),
            priors: Vec::new(),
            buckets: Vec::new(),
        }
    }

    fn bucket(&mut self, tag: u32) -> &mut Bucket {
        let at = match self.buckets.iter().position(|b| b.tag == tag) {
            Some(at) => at,
            None => {
                self.buckets.push(Bucket {
                    tag,
                    edges: Vec::new(),
                    priors: Vec::new(),
                });
                self.buckets.len() - 1
            }
        };
        &mut self.buckets[at]
    }

    fn add_prior(&mut self, index: u32, tag: u32, prior: f64) {
        let j = self.priors.len() as u32;
        self.priors.push((index, tag, prior));
        self.bucket(tag).priors.push(j);
    }
}

/// The way from a node to one child: the action (its id when the edge was made, and the
/// index of its key across worlds, [`SearchGame::key`]; the tag is its bucket's), who chose it, and the child's statistics (visits,
/// that mover's summed reward, the times it was available, its prior's bias).
struct Edge {
    id: u32,
    index: u32,
    child: u32,
    mover: u8,
    n: u64,
    w: f64,
    avail: u64,
    bias: f64,
}

impl Edge {
    fn mean(&self) -> f64 {
        if self.n > 0 {
            self.w / self.n as f64
        } else {
            0.0
        }
    }
}

/// Dense per-action marks, reset in O(1) by moving to a new stamp.
#[derive(Default)]
struct Marks {
    stamp: Vec<u32>,
    value: Vec<u32>,
    now: u32,
}

impl Marks {
    fn begin(&mut self) {
        self.now = self.now.wrapping_add(1);
        if self.now == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.now = 1;
        }
    }

    #[inline(always)]
    fn set(&mut self, id: u32, value: u32) {
        let i = id as usize;
        if i >= self.stamp.len() {
            self.stamp.resize(i + 1, 0);
            self.value.resize(i + 1, 0);
        }
        self.stamp[i] = self.now;
        self.value[i] = value;
    }

    /// Marks `id` with `value` if it has no mark yet, else links `value` in after the chain
    /// that starts at its mark (`chain[value]` must be u32::MAX).
    #[inline]
    fn set_first(&mut self, id: u32, value: u32, chain: &mut [u32]) {
        match self.get(id) {
            None => self.set(id, value),
            Some(mut at) => {
                while chain[at as usize] != u32::MAX {
                    at = chain[at as usize];
                }
                chain[at as usize] = value;
            }
        }
    }

    #[inline(always)]
    fn get(&self, id: u32) -> Option<u32> {
        let i = id as usize;
        (i < self.stamp.len() && self.stamp[i] == self.now).then(|| self.value[i])
    }
}

/// One search tree for `seat` over worlds of `root`.
pub struct Tree<G: SearchGame> {
    root: G,
    seat: usize,
    params: Params,
    rng: SplitMix64,
    nodes: Vec<Node>,
    /// The root's visits (every other node's are on the edge that leads to it).
    root_visits: u64,
    only: Option<Vec<u32>>,
    /// The iterations of the last run (a tree carried over to the next decision keeps what
    /// it learnt before, [`Tree::advance`]).
    pub iterations: u64,
    /// Sequential halving (`Params::halving`): the root's edges left, the next one's place in
    /// the pass, the round and how many rounds.
    survivors: Vec<u32>,
    turn: usize,
    round: usize,
    rounds: usize,
    /// Sequential halving: the seed of this pass's world and random numbers (every action
    /// left is tried on the same world with the same draws: the comparison is paired).
    pass_seed: u64,
    /// Where the worlds come from: seeded by the tree's first draw, then going on from world
    /// to world (a generator seeded for every world would cost a fifth of an iteration).
    dealer: Option<PyRandom>,
    // Scratch space, kept between iterations.
    legal: Marks,
    kids: Marks,
    scored: Marks,
    actions: Vec<u32>,
    /// This world's actions at the current node by key (`SearchGame::key`), and for each the
    /// next one of the same index (u32::MAX: none): two tiles in one hand share an index.
    index: Vec<u32>,
    tags: Vec<u32>,
    chain: Vec<u32>,
    /// The tags among them, each once.
    world_tags: Vec<u32>,
    /// The edges available in this world: (the edge's index in its node, the action's place).
    available: Vec<(u32, u32)>,
    /// The edges walked this iteration: (node, the edge's index in it).
    path: Vec<(u32, u32)>,
    missing: Vec<u32>,
    missing_ids: Vec<u32>,
    urgent: Vec<u32>,
    scores: Vec<f64>,
}

impl<G: SearchGame> Tree<G> {
    pub fn new(root: &G, seat: usize, params: Params, seed: u64, only: Option<&[u32]>) -> Self {
        Tree {
            root: root.clone(),
            seat,
            params,
            rng: SplitMix64::new(seed),
            nodes: vec![Node::new()],
            root_visits: 0,
            only: only.map(<[u32]>::to_vec),
            iterations: 0,
            survivors: Vec::new(),
            turn: 0,
            round: 0,
            rounds: 1,
            pass_seed: 0,
            dealer: None,
            legal: Marks::default(),
            kids: Marks::default(),
            scored: Marks::default(),
            actions: Vec::new(),
            index: Vec::new(),
            tags: Vec::new(),
            chain: Vec::new(),
            world_tags: Vec::new(),
            available: Vec::new(),
            path: Vec::new(),
            missing: Vec::new(),
            missing_ids: Vec::new(),
            urgent: Vec::new(),
            scores: Vec::new(),
        }
    }

    /// Grow the tree within `budget` (with `Params::stop`, until the move is settled).
    pub fn run(&mut self, budget: Budget) {
        let start = Instant::now();
        let mut count = 0u64;
        self.iterations = 0;
        let stop = self.params.stop > 0 && self.params.halving == 0 && budget.seconds.is_some();
        loop {
            self.iterate();
            count += 1;
            let more = if budget.iterations.is_some_and(|limit| count >= limit) {
                false
            } else if budget.floor.is_some_and(|floor| count < floor) {
                true
            } else {
                !budget
                    .seconds
                    .is_some_and(|s| start.elapsed().as_secs_f64() >= s)
            };
            if !self.survivors.is_empty() {
                self.halve(budget, count, start.elapsed().as_secs_f64());
            }
            if !more {
                break;
            }
            if stop {
                if let Some(left) = budget.left(count, start.elapsed().as_secs_f64()) {
                    if settled(self.nodes[0].edges.iter().map(|e| e.n), left) {
                        break;
                    }
                }
            }
        }
    }

    /// Carry the tree over to the searching seat's next decision: `next`, the state after its
    /// own action `id` here, with nothing learnt in between (no other seat moved, nothing
    /// hidden was revealed: the caller's to know). The child of `id` becomes the root, with
    /// its visits and everything below it; the rest is dropped. The worlds go on from the
    /// same dealer, now dealt from `next`. False (and nothing changed) where the tree cannot
    /// follow: `id` never tried, another seat to move, sequential halving or keys other
    /// than ids (a root keyed by tile or by urgency names actions apart from their ids).
    pub fn advance(&mut self, id: u32, next: &G) -> bool {
        if !self.can_advance(id, next) {
            return false;
        }
        let Some(edge) = self.nodes[0].edges.iter().find(|e| e.id == id) else {
            return false;
        };
        let (start, visits) = (edge.child as usize, edge.n);
        // The child's subtree, breadth first, renumbered from 0.
        let mut old = std::mem::take(&mut self.nodes);
        let mut order = vec![start];
        let mut place = vec![u32::MAX; old.len()];
        place[start] = 0;
        let mut at = 0;
        while at < order.len() {
            for e in &old[order[at]].edges {
                place[e.child as usize] = order.len() as u32;
                order.push(e.child as usize);
            }
            at += 1;
        }
        self.nodes = order
            .iter()
            .map(|&i| {
                let mut node = std::mem::replace(&mut old[i], Node::new());
                for e in &mut node.edges {
                    e.child = place[e.child as usize];
                }
                node
            })
            .collect();
        self.root = next.clone();
        self.root_visits = visits;
        self.only = None;
        true
    }

    /// Whether [`Tree::advance`] can follow action `id` to `next`.
    fn can_advance(&self, id: u32, next: &G) -> bool {
        self.params.halving == 0
            && self.params.keys == 0
            && !next.is_over()
            && next.to_move() == self.seat
            && self.nodes[0].edges.iter().any(|e| e.id == id)
    }

    /// The root's visits: every iteration this tree ran since its root's node was made.
    pub fn visits(&self) -> u64 {
        self.root_visits
    }

    /// Sequential halving: after a whole pass over the root's actions left, once the budget
    /// spent reaches the end of this round's share, keep the better half.
    fn halve(&mut self, budget: Budget, count: u64, elapsed: f64) {
        if self.turn != 0 || self.round + 1 >= self.rounds {
            return;
        }
        let mut spent = budget.iterations.map_or(0.0, |n| count as f64 / n as f64);
        if let Some(seconds) = budget.seconds {
            let mut by_time = elapsed / seconds;
            if let Some(floor) = budget.floor {
                by_time = by_time.min(count as f64 / floor as f64); // the floor is run first
            }
            spent = spent.max(by_time);
        }
        if spent * (self.rounds as f64) < (self.round + 1) as f64 {
            return;
        }
        let edges = &self.nodes[0].edges;
        let mean = |k: &u32| edges[*k as usize].mean();
        // Stable, best mean first: equals keep their order (the priors').
        self.survivors.sort_by(|a, b| mean(b).total_cmp(&mean(a)));
        self.survivors.truncate(self.survivors.len().div_ceil(2));
        self.round += 1;
    }

    /// The root's children for sequential halving: every action's prior (as `expand` scores
    /// the root), then the best `halving` of them, best first. The actions' keys are the
    /// ones [`Tree::keys`] read.
    fn start_halving(&mut self, world: &mut G, actions: &[u32]) {
        world.priors(actions, &mut self.scores);
        let mut scored: Vec<(usize, f64)> = Vec::with_capacity(actions.len());
        for (i, &score) in self.scores.iter().enumerate() {
            scored.push((i, score + 1e-6 * self.rng.unit())); // random order among equals
        }
        for &(i, prior) in &scored {
            let (index, tag) = self.key_at(actions, i);
            self.nodes[0].add_prior(index, tag, prior);
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored.truncate(self.params.halving);
        let mover = world.to_move();
        for &(i, prior) in &scored {
            let key = self.key_at(actions, i);
            let k = self.add_child(0, actions[i], key, mover, prior);
            self.survivors.push(k as u32);
        }
        let n = self.survivors.len();
        self.rounds = if n < 2 {
            1
        } else {
            (usize::BITS - (n - 1).leading_zeros()) as usize
        };
    }

    /// The root's children, one row per action (with `Params::keys` an action may have an
    /// edge per tag).
    pub fn stats(&self) -> Vec<RootStats> {
        let mut rows: Vec<RootStats> = Vec::with_capacity(self.nodes[0].edges.len());
        for edge in &self.nodes[0].edges {
            add_row(
                &mut rows,
                RootStats {
                    action: edge.id,
                    visits: edge.n,
                    total: edge.w,
                },
            );
        }
        rows
    }

    /// One iteration: a world, a walk down, one new node, its evaluation, the backup.
    pub fn iterate(&mut self) {
        if self.params.halving == 0 {
            let rng = &mut self.rng;
            let dealer = self
                .dealer
                .get_or_insert_with(|| PyRandom::from_u64(rng.next_u64()));
            let world = self.root.deal(self.seat, dealer);
            self.walk(world);
            return;
        }
        if self.turn == 0 {
            self.pass_seed = self.rng.next_u64();
        }
        // Every action of a pass on the pass's own world.
        let world = self
            .root
            .deal(self.seat, &mut PyRandom::from_u64(self.pass_seed));
        let paired = SplitMix64::new(self.pass_seed ^ PAIRED);
        let main = std::mem::replace(&mut self.rng, paired);
        self.walk(world);
        self.rng = main;
    }

    fn walk(&mut self, mut world: G) {
        let mut node = 0usize;
        let mut visits = self.root_visits;
        self.path.clear();
        let rewards = loop {
            if world.is_over() {
                break world.final_rewards();
            }
            let mut actions = std::mem::take(&mut self.actions);
            world.legal_ids(&mut actions);
            if node == 0 {
                if let Some(only) = &self.only {
                    // The root's restriction, unless none of it is legal in this world.
                    if actions.iter().any(|a| only.contains(a)) {
                        actions.retain(|a| only.contains(a));
                    }
                }
            }
            self.keys(&mut world, &actions);
            let (k, id) = if node == 0 && self.params.halving > 0 && actions.len() > 1 {
                if self.survivors.is_empty() {
                    self.start_halving(&mut world, &actions);
                }
                let k = self.survivors[self.turn] as usize;
                self.turn = (self.turn + 1) % self.survivors.len();
                let id = self.nodes[0].edges[k].id;
                if actions.contains(&id) {
                    (k, id)
                } else {
                    self.select(node, visits, &mut world, &actions) // not in this world: UCB
                }
            } else {
                self.select(node, visits, &mut world, &actions)
            };
            self.actions = actions;
            self.path.push((node as u32, k as u32));
            let edge = &self.nodes[node].edges[k];
            world.apply_quiet(id);
            if edge.n == 0 {
                break self.evaluate(&mut world);
            }
            (node, visits) = (edge.child as usize, edge.n);
        };
        self.root_visits += 1;
        for &(parent, k) in &self.path {
            let edge = &mut self.nodes[parent as usize].edges[k as usize];
            edge.n += 1;
            edge.w += rewards[edge.mover as usize];
        }
        self.iterations += 1;
    }

    /// The keys of this world's `actions` here (`index`, `tags`, `chain`), and the first
    /// action of each index in `legal`. Without `Params::keys` an id is its own key, and
    /// nothing is read: `select` and `expand` mark by id (the default tree's fast path).
    fn keys(&mut self, world: &mut G, actions: &[u32]) {
        self.world_tags.clear();
        if self.params.keys == 0 {
            self.world_tags.push(0);
            return;
        }
        self.index.clear();
        self.tags.clear();
        self.chain.clear();
        self.legal.begin();
        if self.params.keys == 2 {
            world.urgent(&mut self.urgent);
        }
        for (i, &a) in actions.iter().enumerate() {
            let (index, tag) = if self.params.keys == 2 {
                (a, u32::from(self.urgent.contains(&a)))
            } else {
                world.key(a)
            };
            self.index.push(index);
            self.tags.push(tag);
            if !self.world_tags.contains(&tag) {
                self.world_tags.push(tag);
            }
            self.chain.push(u32::MAX);
            self.legal.set_first(index, i as u32, &mut self.chain);
        }
    }

    /// The key (index, tag) of the action at place `i` of this world's `actions`.
    #[inline]
    fn key_at(&self, actions: &[u32], i: usize) -> (u32, u32) {
        if self.params.keys > 0 {
            (self.index[i], self.tags[i])
        } else {
            (actions[i], 0)
        }
    }

    /// The place in this world's actions of the one with key (index, tag), if legal here.
    fn find(&self, index: u32, tag: u32) -> Option<usize> {
        let mut i = self.legal.get(index)?;
        while i != u32::MAX {
            if self.tags[i as usize] == tag {
                return Some(i as usize);
            }
            i = self.chain[i as usize];
        }
        None
    }

    /// The edge (an index into the node's edges) to follow and its id in this world: a new
    /// one while the node (seen `visits` times) may still widen, else the best by UCB among
    /// those legal here.
    fn select(&mut self, node: usize, visits: u64, world: &mut G, actions: &[u32]) -> (usize, u32) {
        self.available.clear();
        let here = &self.nodes[node];
        // The same visiting order as the reference (it matters for ties): the edges' where
        // they are few beside the actions, else the actions' (marked by place, then read in
        // order).
        let in_action_order = here.edges.len() * 4 >= actions.len();
        if self.params.keys == 0 {
            // By id: the same order, with no keys read.
            if in_action_order {
                self.kids.begin();
                for (k, edge) in here.edges.iter().enumerate() {
                    self.kids.set(edge.id, k as u32);
                }
                for (i, &a) in actions.iter().enumerate() {
                    if let Some(k) = self.kids.get(a) {
                        self.available.push((k, i as u32));
                    }
                }
            } else {
                self.legal.begin();
                for (i, &a) in actions.iter().enumerate() {
                    self.legal.set(a, i as u32);
                }
                for (k, edge) in here.edges.iter().enumerate() {
                    if let Some(i) = self.legal.get(edge.id) {
                        self.available.push((k as u32, i));
                    }
                }
            }
        } else {
            if in_action_order {
                self.kids.begin();
            }
            let mut buckets = 0;
            for bucket in &here.buckets {
                if !self.world_tags.contains(&bucket.tag) {
                    continue;
                }
                buckets += 1;
                for &k in &bucket.edges {
                    if let Some(i) = self.find(here.edges[k as usize].index, bucket.tag) {
                        if in_action_order {
                            self.kids.set(i as u32, k);
                        } else {
                            self.available.push((k, i as u32));
                        }
                    }
                }
            }
            if in_action_order {
                for i in 0..actions.len() as u32 {
                    if let Some(k) = self.kids.get(i) {
                        self.available.push((k, i));
                    }
                }
            } else if buckets > 1 {
                self.available.sort_unstable_by_key(|&(k, _)| k);
            }
        }
        let edges = &mut self.nodes[node].edges;
        for &(k, _) in &self.available {
            edges[k as usize].avail += 1;
        }
        let p = self.params;
        let allowed = p.widening * ((visits + 1) as f64).powf(p.alpha);
        let count = self.available.len();
        if count < actions.len() && ((count as f64) < allowed || count == 0) {
            return self.expand(node, world, actions);
        }
        let edges = &self.nodes[node].edges;
        let logs = logarithms();
        let mut best = self.available[0];
        let mut best_score = f64::NEG_INFINITY;
        for &(k, i) in &self.available {
            let edge = &edges[k as usize];
            let n = edge.n as f64;
            let ln = match logs.get(edge.avail as usize) {
                Some(&ln) => ln,
                None => (edge.avail as f64).ln(),
            };
            let mean = edge.w / n;
            let gain = if p.odds > 0 { log_odds(mean) } else { mean };
            let score =
                gain + p.exploration * (ln / n).sqrt() + p.prior_weight * edge.bias / (n + 1.0);
            if score > best_score {
                best = (k, i);
                best_score = score;
            }
        }
        (best.0 as usize, actions[best.1 as usize])
    }

    /// A new child of `node` by action `id` of key `(index, tag)`, chosen by `mover`: its
    /// edge's index.
    fn add_child(
        &mut self,
        node: usize,
        id: u32,
        (index, tag): (u32, u32),
        mover: usize,
        prior: f64,
    ) -> usize {
        let child = self.nodes.len() as u32;
        self.nodes.push(Node::new());
        let k = self.nodes[node].edges.len();
        self.nodes[node].bucket(tag).edges.push(k as u32);
        let edges = &mut self.nodes[node].edges;
        edges.push(Edge {
            id,
            index,
            child,
            mover: mover as u8,
            n: 0,
            w: 0.0,
            avail: 1,
            bias: prior.tanh(),
        });
        edges.len() - 1
    }

    fn expand(&mut self, node: usize, world: &mut G, actions: &[u32]) -> (usize, u32) {
        // Which of this world's actions have a child, and which a prior: marked by place,
        // or by id where an id is its own key.
        self.kids.begin();
        self.scored.begin();
        let here = &self.nodes[node];
        let keys = self.params.keys > 0;
        if keys {
            for bucket in &here.buckets {
                if !self.world_tags.contains(&bucket.tag) {
                    continue;
                }
                for &k in &bucket.edges {
                    if let Some(i) = self.find(here.edges[k as usize].index, bucket.tag) {
                        self.kids.set(i as u32, 1);
                    }
                }
                for &j in &bucket.priors {
                    if let Some(i) = self.find(here.priors[j as usize].0, bucket.tag) {
                        self.scored.set(i as u32, j);
                    }
                }
            }
        } else {
            for edge in &here.edges {
                self.kids.set(edge.id, 1);
            }
            for (j, &(id, _, _)) in here.priors.iter().enumerate() {
                self.scored.set(id, j as u32);
            }
        }
        let slot = |i: usize| if keys { i as u32 } else { actions[i] };
        let mut best: Option<(usize, f64)> = None;
        for i in 0..actions.len() {
            if self.kids.get(slot(i)).is_none() {
                if let Some(j) = self.scored.get(slot(i)) {
                    let prior = self.nodes[node].priors[j as usize].2;
                    if best.is_none_or(|(_, b)| prior > b) {
                        best = Some((i, prior));
                    }
                }
            }
        }
        if best.is_none() {
            // Score the actions not scored yet: all of them at the root, a random batch
            // deeper down (a node rarely lives long enough to need more than its best few).
            self.missing.clear();
            for i in 0..actions.len() {
                if self.scored.get(slot(i)).is_none() {
                    self.missing.push(i as u32);
                }
            }
            if node != 0 && self.missing.len() > self.params.batch {
                self.draw_batch(world, actions);
            }
            self.missing_ids.clear();
            self.missing_ids
                .extend(self.missing.iter().map(|&i| actions[i as usize]));
            world.priors(&self.missing_ids, &mut self.scores);
            for (&i, &score) in self.missing.iter().zip(self.scores.iter()) {
                let prior = score + 1e-6 * self.rng.unit(); // random order among equals
                let (index, tag) = self.key_at(actions, i as usize);
                self.nodes[node].add_prior(index, tag, prior);
                if best.is_none_or(|(_, b)| prior > b) {
                    best = Some((i as usize, prior));
                }
            }
        }
        let (i, prior) = best.expect("expand is called with an action left to try");
        let key = self.key_at(actions, i);
        let k = self.add_child(node, actions[i], key, world.to_move(), prior);
        (k, actions[i])
    }

    /// Cut `missing` (places in `actions`) to a batch: the urgent actions first (with
    /// `Params::urgent`), the rest of the batch drawn at random from the others.
    fn draw_batch(&mut self, world: &mut G, actions: &[u32]) {
        let batch = self.params.batch;
        let mut front = 0;
        if self.params.urgent > 0 {
            world.urgent(&mut self.urgent);
            for i in 0..self.missing.len() {
                if self.urgent.contains(&actions[self.missing[i] as usize]) {
                    self.missing.swap(front, i);
                    front += 1;
                }
            }
        }
        // 1: the urgent ones count towards the batch; 2: a whole batch of the others besides.
        let room = if self.params.urgent == 2 {
            batch
        } else {
            batch.saturating_sub(front)
        };
        let take = room.min(self.missing.len() - front);
        self.rng.sample_prefix(&mut self.missing[front..], take);
        self.missing.truncate(front + take);
    }

    /// `cradle.ai.search.evaluate`: settle, roll out, play out at random, settle, judge.
    fn evaluate(&mut self, world: &mut G) -> [f64; 4] {
        self.settle(world);
        let mix = self.params.mix;
        let before = if mix > 0.0 && !world.is_over() {
            Some(world.heuristic_rewards())
        } else {
            None
        };
        let after = self.look_ahead(world);
        match before {
            Some(before) => std::array::from_fn(|s| mix * before[s] + (1.0 - mix) * after[s]),
            None => after,
        }
    }

    /// The rollout, the playout and the judgement after them.
    fn look_ahead(&mut self, world: &mut G) -> [f64; 4] {
        for _ in 0..self.params.rollout {
            if world.is_over() {
                break;
            }
            let id = world.policy(&mut self.rng);
            world.apply_quiet(id);
        }
        let first = if self.params.balance == 1 {
            world.to_move()
        } else {
            self.seat
        };
        for _ in 0..self.params.playout {
            if world.is_over() {
                break;
            }
            self.random_move(world);
        }
        if self.params.balance > 0 && self.params.playout > 0 {
            for _ in 0..BALANCE_LIMIT {
                if world.is_over() || (world.to_move() == first && !world.unsettled()) {
                    break;
                }
                self.random_move(world);
            }
        }
        self.settle(world);
        if world.is_over() {
            world.final_rewards()
        } else {
            world.heuristic_rewards()
        }
    }

    fn random_move(&mut self, world: &mut G) {
        if let Some(id) = world.ruled_move() {
            world.apply_quiet(id);
            return;
        }
        if self.params.steps > 0 && world.unsettled() {
            let id = world.policy(&mut self.rng);
            world.apply_quiet(id);
            return;
        }
        let id = world.random_id(&mut self.rng, &mut self.missing);
        world.apply_quiet(id);
    }

    fn settle(&mut self, world: &mut G) {
        let mut steps = 0;
        while steps < SETTLE_LIMIT && !world.is_over() && world.unsettled() {
            let id = world.policy(&mut self.rng);
            world.apply_quiet(id);
            steps += 1;
        }
    }
}

/// The trees of one search for `seat`, one per seed (root parallelism), kept so that the
/// seat's next decision can go on from them ([`Forest::advance`]).
pub struct Forest<G: SearchGame> {
    trees: Vec<Tree<G>>,
}

impl<G: SearchGame> Forest<G> {
    /// One tree per seed (at least one) over worlds of `root`.
    pub fn new(root: &G, seat: usize, params: Params, seeds: &[u64], only: Option<&[u32]>) -> Self {
        let seeds = if seeds.is_empty() { &[0][..] } else { seeds };
        let trees = seeds
            .iter()
            .map(|&seed| Tree::new(root, seat, params, seed, only))
            .collect();
        Forest { trees }
    }

    /// Grow every tree within `budget` (several on threads, the iterations divided between
    /// them). Returns the iterations run and the root's statistics, visited actions only,
    /// the trees' added up (with what they carried over from earlier decisions).
    pub fn run(&mut self, budget: Budget) -> (u64, Vec<RootStats>) {
        if self.trees.len() == 1 {
            self.trees[0].run(budget);
        } else {
            let share = budget.split(self.trees.len());
            std::thread::scope(|scope| {
                for tree in &mut self.trees {
                    scope.spawn(move || tree.run(share));
                }
            });
        }
        let mut iterations = 0;
        let mut merged: Vec<RootStats> = Vec::new();
        for tree in &self.trees {
            iterations += tree.iterations;
            for s in tree.stats() {
                add_row(&mut merged, s);
            }
        }
        merged.retain(|s| s.visits > 0);
        (iterations, merged)
    }

    /// Every tree carried over to the seat's next decision ([`Tree::advance`]): all of them,
    /// or none (false, nothing changed).
    pub fn advance(&mut self, id: u32, next: &G) -> bool {
        if !self.trees.iter().all(|t| t.can_advance(id, next)) {
            return false;
        }
        for tree in &mut self.trees {
            tree.advance(id, next);
        }
        true
    }

    /// The root's visits, the trees' added up.
    pub fn visits(&self) -> u64 {
        self.trees.iter().map(Tree::visits).sum()
    }
}

/// Search `root` for `seat` (the seat to move): one tree per seed, on threads when there are
/// several (their root statistics added, the iterations divided between them). Returns the
/// iterations run and the root's statistics, visited actions only.
pub fn search<G: SearchGame>(
    root: &G,
    seat: usize,
    budget: Budget,
    params: Params,
    seeds: &[u64],
    only: Option<&[u32]>,
) -> (u64, Vec<RootStats>) {
    Forest::new(root, seat, params, seeds, only).run(budget)
}

/// Adds `row` to the row of its action in `rows`, or appends it.
fn add_row(rows: &mut Vec<RootStats>, row: RootStats) {
    match rows.iter_mut().find(|r| r.action == row.action) {
        Some(r) => {
            r.visits += row.visits;
            r.total += row.total;
        }
        None => rows.push(row),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What every two-player toy game below answers alike: nothing to settle, a drawn
    /// heuristic, no random playout; its quick policy's move and its prior batch vary.
    macro_rules! toy_rest {
        (policy $policy:expr, batch $batch:expr) => {
            fn players(&self) -> usize {
                2
            }
            fn unsettled(&mut self) -> bool {
                false
            }
            fn policy(&mut self, _rng: &mut SplitMix64) -> u32 {
                $policy
            }
            fn heuristic_rewards(&mut self) -> [f64; 4] {
                [0.5, 0.5, 0.0, 0.0]
            }
            fn playout_moves(&self) -> usize {
                0
            }
            fn prior_batch(&self) -> usize {
                $batch
            }
        };
    }

    /// Every action the same prior.
    fn flat(ids: &[u32], out: &mut Vec<f64>) {
        out.clear();
        out.extend(ids.iter().map(|_| 0.0));
    }

    /// Nim: take 1 to 3 from a pile; who takes the last one wins. From 5 only taking 1
    /// (leaving 4) wins.
    #[derive(Clone)]
    struct Nim {
        left: u32,
        mover: usize,
        /// Random playouts take by the winning rule (leave a multiple of 4) where they can.
        ruled: bool,
    }

    impl SearchGame for Nim {
        fn to_move(&self) -> usize {
            self.mover
        }
        fn is_over(&self) -> bool {
            self.left == 0
        }
        fn final_rewards(&self) -> [f64; 4] {
            let mut out = [0.0; 4];
            out[1 - self.mover] = 1.0; // the last mover took the last one
            out
        }
        fn legal_ids(&mut self, out: &mut Vec<u32>) {
            out.clear();
            out.extend((1..=3).filter(|&k| k <= self.left));
        }
        fn apply_quiet(&mut self, id: u32) {
            self.left -= id;
            self.mover = 1 - self.mover;
        }
        fn deal(&self, _observer: usize, _dealer: &mut PyRandom) -> Nim {
            self.clone()
        }
        fn priors(&mut self, ids: &[u32], out: &mut Vec<f64>) {
            flat(ids, out);
        }
        toy_rest!(policy 1, batch 48);
        fn ruled_move(&mut self) -> Option<u32> {
            let take = self.left % 4;
            (self.ruled && take > 0).then_some(take)
        }
    }

    /// Two turns of one seat, each a free first move (1 to 3) and a step (what `unsettled`
    /// names): 1 wins, 2 loses in the second turn's step. The quick policy takes 1.
    #[derive(Clone)]
    struct Turns {
        moves: u32,
        won: bool,
    }

    impl SearchGame for Turns {
        fn players(&self) -> usize {
            2
        }
        fn to_move(&self) -> usize {
            0
        }
        fn is_over(&self) -> bool {
            self.moves == 4
        }
        fn final_rewards(&self) -> [f64; 4] {
            let won = f64::from(u8::from(self.won));
            [won, 1.0 - won, 0.0, 0.0]
        }
        fn legal_ids(&mut self, out: &mut Vec<u32>) {
            out.clear();
            if self.moves.is_multiple_of(2) {
                out.extend(1..=3);
            } else {
                out.extend(1..=2);
            }
        }
        fn apply_quiet(&mut self, id: u32) {
            if self.moves == 3 {
                self.won = id == 1;
            }
            self.moves += 1;
        }
        fn deal(&self, _observer: usize, _dealer: &mut PyRandom) -> Turns {
            self.clone()
        }
        fn priors(&mut self, ids: &[u32], out: &mut Vec<f64>) {
            flat(ids, out);
        }
        fn unsettled(&mut self) -> bool {
            !self.moves.is_multiple_of(2)
        }
        fn policy(&mut self, _rng: &mut SplitMix64) -> u32 {
            1
        }
        fn heuristic_rewards(&mut self) -> [f64; 4] {
            [0.5, 0.5, 0.0, 0.0]
        }
        fn playout_moves(&self) -> usize {
            0
        }
        fn prior_batch(&self) -> usize {
            48
        }
    }

    /// One move, then over: the winner is a coin of the world's seed alone, whatever the
    /// move, so two moves tried on the same worlds score exactly alike.
    #[derive(Clone)]
    struct Coin {
        seed: u64,
        moved: bool,
    }

    impl SearchGame for Coin {
        fn to_move(&self) -> usize {
            0
        }
        fn is_over(&self) -> bool {
            self.moved
        }
        fn final_rewards(&self) -> [f64; 4] {
            let x = (self.seed % 1000) as f64 / 1000.0;
            [x, 1.0 - x, 0.0, 0.0]
        }
        fn legal_ids(&mut self, out: &mut Vec<u32>) {
            out.clear();
            out.extend(1..=6);
        }
        fn apply_quiet(&mut self, _id: u32) {
            self.moved = true;
        }
        fn deal(&self, _observer: usize, dealer: &mut PyRandom) -> Coin {
            Coin {
                seed: dealer.getrandbits64(),
                moved: false,
            }
        }
        fn priors(&mut self, ids: &[u32], out: &mut Vec<f64>) {
            out.clear();
            out.extend(ids.iter().map(|&id| f64::from(id)));
        }
        toy_rest!(policy 1, batch 48);
    }

    fn best(stats: &[RootStats]) -> u32 {
        stats
            .iter()
            .max_by_key(|s| s.visits)
            .expect("visited")
            .action
    }

    #[test]
    fn finds_the_winning_take_alone_and_on_threads() {
        let game = Nim {
            left: 5,
            mover: 0,
            ruled: false,
        };
        let params = Params {
            playout: 50,
            ..Params::default()
        };
        let budget = Budget {
            iterations: Some(3000),
            seconds: None,
            floor: None,
        };
        let (count, stats) = search(&game, 0, budget, params, &[7], None);
        assert_eq!(count, 3000);
        assert_eq!(stats.iter().map(|s| s.visits).sum::<u64>(), 3000);
        assert_eq!(best(&stats), 1);
        let (count, stats) = search(&game, 0, budget, params, &[1, 2, 3], None);
        assert_eq!(count, 3000);
        assert_eq!(best(&stats), 1);
    }

    #[test]
    fn with_steps_a_playout_leaves_only_the_first_move_of_a_turn_to_chance() {
        // Each root move's first leaf: settled (the first step by the policy), then two
        // playout moves: the second turn's free move, and its step, which wins only when the
        // policy takes it.
        let budget = Budget {
            iterations: Some(3),
            seconds: None,
            floor: None,
        };
        let game = Turns {
            moves: 0,
            won: false,
        };
        for seed in 0..5 {
            let stepped = Params {
                playout: 2,
                steps: 1,
                widening: 10.0, // the three moves in the first three iterations
                ..Params::default()
            };
            let (_, stats) = search(&game, 0, budget, stepped, &[seed], None);
            assert_eq!(stats.len(), 3);
            assert!(stats.iter().all(|s| s.total == 1.0), "seed {seed}");
        }
        let mut lost = 0;
        for seed in 0..5 {
            let random = Params {
                playout: 2,
                widening: 10.0,
                ..Params::default()
            };
            let (_, stats) = search(&game, 0, budget, random, &[seed], None);
            lost += stats.iter().filter(|s| s.total < 1.0).count();
        }
        assert!(lost > 0, "left to chance, some playouts lose");
    }

    #[test]
    fn ruled_playout_moves_are_not_left_to_chance() {
        // From 9 taking 1 wins. Each take's first leaf is played out by the rule wherever
        // it can win (at random where it cannot), so its result is exact: the winning take
        // scores 1, the others 0, with any seed.
        let params = Params {
            playout: 50,
            widening: 10.0, // the three takes in the first three iterations
            ..Params::default()
        };
        let budget = Budget {
            iterations: Some(3),
            seconds: None,
            floor: None,
        };
        for seed in 0..20 {
            let game = Nim {
                left: 9,
                mover: 0,
                ruled: true,
            };
            let (_, stats) = search(&game, 0, budget, params, &[seed], None);
            assert_eq!(stats.len(), 3);
            for s in &stats {
                assert_eq!(s.visits, 1);
                assert_eq!(
                    s.total,
                    if s.action == 1 { 1.0 } else { 0.0 },
                    "take {}",
                    s.action
                );
            }
        }
        // Left to chance, some playouts of the winning take lose.
        let mut lost = 0;
        for seed in 0..20 {
            let game = Nim {
                left: 9,
                mover: 0,
                ruled: false,
            };
            let (_, stats) = search(&game, 0, budget, params, &[seed], None);
            lost += stats
                .iter()
                .filter(|s| s.action == 1 && s.total < 1.0)
                .count();
        }
        assert!(lost > 0);
    }

    #[test]
    fn sequential_halving_tries_the_actions_left_on_the_same_worlds() {
        let game = Coin {
            seed: 0,
            moved: false,
        };
        let params = Params {
            halving: 4,
            ..Params::default()
        };
        let budget = Budget {
            iterations: Some(64),
            seconds: None,
            floor: None,
        };
        let (_, stats) = search(&game, 0, budget, params, &[3], None);
        // 4 actions, 2 rounds: 4 × 8 visits, then the better 2 share the other 32.
        let mut visits: Vec<u64> = stats.iter().map(|s| s.visits).collect();
        visits.sort_unstable();
        assert_eq!(visits, vec![8, 8, 24, 24]);
        for a in &stats {
            for b in &stats {
                if a.visits == b.visits {
                    assert_eq!(a.total, b.total, "actions {} and {}", a.action, b.action);
                }
            }
        }
        // Without halving each iteration draws its own world.
        let (_, stats) = search(&game, 0, budget, Params::default(), &[3], None);
        let totals: Vec<f64> = stats.iter().map(|s| s.total).collect();
        assert!(totals.windows(2).any(|w| w[0] != w[1]), "{totals:?}");
    }

    #[test]
    fn the_root_keeps_to_its_restriction() {
        let game = Nim {
            left: 5,
            mover: 0,
            ruled: false,
        };
        let budget = Budget {
            iterations: Some(200),
            seconds: None,
            floor: None,
        };
        let only = [2u32, 3];
        let (_, stats) = search(&game, 0, budget, Params::default(), &[1], Some(&only));
        assert!(stats.iter().all(|s| only.contains(&s.action)));
        assert_eq!(stats.len(), 2);
    }

    #[test]
    fn a_floor_of_iterations_outlasts_the_seconds() {
        let game = Nim {
            left: 5,
            mover: 0,
            ruled: false,
        };
        let budget = Budget::checked(None, Some(1e-12), Some(40), &[1]).expect("a budget");
        let (count, _) = search(&game, 0, budget, Params::default(), &[1], None);
        assert_eq!(count, 40);
        let (count, _) = search(&game, 0, budget, Params::default(), &[1, 2], None);
        assert_eq!(count, 40); // 20 on each thread
        assert!(Budget::checked(Some(10), None, Some(11), &[1]).is_err());
        assert!(Budget::checked(None, Some(1.0), Some(0), &[1]).is_err());
        assert!(Budget::checked(None, None, None, &[1]).is_err());
        assert!(Budget::checked(Some(1), None, None, &[]).is_err());
    }

    /// Three moves of twenty actions each, every game a draw; action 7 is urgent.
    #[derive(Clone)]
    struct Wide {
        moves: usize,
    }

    impl SearchGame for Wide {
        fn to_move(&self) -> usize {
            self.moves % 2
        }
        fn is_over(&self) -> bool {
            self.moves == 3
        }
        fn final_rewards(&self) -> [f64; 4] {
            [0.5, 0.5, 0.0, 0.0]
        }
        fn legal_ids(&mut self, out: &mut Vec<u32>) {
            out.clear();
            out.extend(0..20);
        }
        fn apply_quiet(&mut self, _id: u32) {
            self.moves += 1;
        }
        fn deal(&self, _observer: usize, _dealer: &mut PyRandom) -> Wide {
            self.clone()
        }
        fn priors(&mut self, ids: &[u32], out: &mut Vec<f64>) {
            flat(ids, out);
        }
        toy_rest!(policy 0, batch 3);
        fn urgent(&mut self, out: &mut Vec<u32>) {
            out.clear();
            out.push(7);
        }
    }

    /// The actions each node below the root scored, in scoring order.
    fn scored_below(urgent: usize) -> Vec<Vec<u32>> {
        let game = Wide { moves: 0 };
        let params = Params {
            batch: 3,
            urgent,
            ..Params::default()
        };
        let mut tree = Tree::new(&game, 0, params, 5, None);
        tree.run(Budget {
            iterations: Some(400),
            seconds: None,
            floor: None,
        });
        tree.nodes[1..]
            .iter()
            .filter(|n| !n.priors.is_empty())
            .map(|n| n.priors.iter().map(|&(a, _, _)| a).collect())
            .collect()
    }

    #[test]
    fn an_urgent_action_is_in_every_batch_below_the_root() {
        let nodes = scored_below(1);
        assert!(nodes.len() >= 10, "{}", nodes.len());
        for scored in &nodes {
            assert!(
                scored.len() % 3 == 0,
                "batches of 3, the urgent one among them"
            );
            assert!(scored[..3].contains(&7));
        }
        // 2: the urgent one, and a whole batch of the others besides.
        for scored in &scored_below(2) {
            assert!(scored.len() % 3 == 1 && scored[0] == 7 && !scored[1..4].contains(&7));
        }
        let nodes = scored_below(0);
        let with = nodes.iter().filter(|s| s[..3].contains(&7)).count();
        assert!(
            with < nodes.len() / 2,
            "{with} of {} by chance alone",
            nodes.len()
        );
    }

    /// One move of four, then the end: move 0 gives seat 0 a reward of 0.04, the others
    /// 0.02 (a game that looks lost whatever seat 0 does).
    #[derive(Clone)]
    struct Faint {
        played: Option<u32>,
    }

    impl SearchGame for Faint {
        fn to_move(&self) -> usize {
            0
        }
        fn is_over(&self) -> bool {
            self.played.is_some()
        }
        fn final_rewards(&self) -> [f64; 4] {
            let mine = if self.played == Some(0) { 0.04 } else { 0.02 };
            [mine, 1.0 - mine, 0.0, 0.0]
        }
        fn legal_ids(&mut self, out: &mut Vec<u32>) {
            out.clear();
            out.extend(0..4);
        }
        fn apply_quiet(&mut self, id: u32) {
            self.played = Some(id);
        }
        fn deal(&self, _observer: usize, _dealer: &mut PyRandom) -> Faint {
            self.clone()
        }
        fn priors(&mut self, ids: &[u32], out: &mut Vec<f64>) {
            flat(ids, out);
        }
        toy_rest!(policy 0, batch 48);
    }

    #[test]
    fn odds_part_the_moves_of_a_game_that_looks_lost() {
        let share = |odds: usize| {
            let params = Params {
                odds,
                ..Params::default()
            };
            let mut tree = Tree::new(&Faint { played: None }, 0, params, 5, None);
            tree.run(Budget {
                iterations: Some(4000),
                seconds: None,
                floor: None,
            });
            let stats = tree.stats();
            let best = stats.iter().find(|r| r.action == 0).map_or(0, |r| r.visits);
            best as f64 / 4000.0
        };
        // By the mean, 0.04 and 0.02 are close beside the exploration; by the odds, not.
        let (plain, odds) = (share(0), share(1));
        assert!(plain < 0.6, "{plain}");
        assert!(odds > 0.9, "{odds}");
        assert!((log_odds(0.5)).abs() < 1e-12);
        assert!((log_odds(0.51) - 0.01).abs() < 1e-4);
        assert_eq!(log_odds(0.0), log_odds(ODDS_EDGE));
    }

    /// A count that each move raises by 1 or 2 (seats alternating) up to 20; seat 0's
    /// heuristic share is the count's tenth (a leaf's judgement moves with the playout).
    #[derive(Clone)]
    struct Count {
        count: u32,
        moves: u32,
    }

    impl SearchGame for Count {
        fn players(&self) -> usize {
            2
        }
        fn to_move(&self) -> usize {
            (self.moves % 2) as usize
        }
        fn is_over(&self) -> bool {
            self.count >= 20
        }
        fn final_rewards(&self) -> [f64; 4] {
            [1.0, 0.0, 0.0, 0.0]
        }
        fn legal_ids(&mut self, out: &mut Vec<u32>) {
            out.clear();
            out.extend(1..=2);
        }
        fn apply_quiet(&mut self, id: u32) {
            self.count += id;
            self.moves += 1;
        }
        fn deal(&self, _observer: usize, _dealer: &mut PyRandom) -> Count {
            self.clone()
        }
        fn priors(&mut self, ids: &[u32], out: &mut Vec<f64>) {
            flat(ids, out);
        }
        fn unsettled(&mut self) -> bool {
            false
        }
        fn policy(&mut self, _rng: &mut SplitMix64) -> u32 {
            1
        }
        fn heuristic_rewards(&mut self) -> [f64; 4] {
            let share = f64::from(self.count) / 10.0;
            [share, 1.0 - share, 0.0, 0.0]
        }
        fn playout_moves(&self) -> usize {
            4
        }
        fn prior_batch(&self) -> usize {
            48
        }
    }

    #[test]
    fn mix_judges_that_share_of_a_leaf_before_its_playout() {
        let game = Count { count: 3, moves: 0 };
        let judged = |mix: f64| {
            let params = Params {
                playout: 4,
                mix,
                ..Params::default()
            };
            let mut tree = Tree::new(&game, 0, params, 7, None);
            let mut world = game.clone();
            tree.evaluate(&mut world)
        };
        let (after, before, half) = (judged(0.0), judged(1.0), judged(0.5));
        // Before the playout: the count of 3 itself; after it: four moves of 1 or 2 later.
        assert!((before[0] - 0.3).abs() < 1e-12, "{before:?}");
        assert!((0.7..=1.1).contains(&after[0]), "{after:?}");
        for s in 0..2 {
            assert!(
                (half[s] - (before[s] + after[s]) / 2.0).abs() < 1e-12,
                "{half:?}"
            );
        }
    }

    /// Seat 0 moves (one action), then seat 1 plays its hidden tile (1 or 2, dealt anew in
    /// every world) with action 10, or passes (11). Tile 1 wins for seat 1, tile 2 loses;
    /// a pass draws. Action 10's key names the tile, as a Gheos hand slot's does.
    #[derive(Clone)]
    struct Hidden {
        tile: u32,
        moves: u32,
        played: Option<u32>,
    }

    impl SearchGame for Hidden {
        fn to_move(&self) -> usize {
            self.moves as usize
        }
        fn is_over(&self) -> bool {
            self.moves == 2
        }
        fn final_rewards(&self) -> [f64; 4] {
            match self.played {
                Some(10) if self.tile == 1 => [0.0, 1.0, 0.0, 0.0],
                Some(10) => [1.0, 0.0, 0.0, 0.0],
                _ => [0.5, 0.5, 0.0, 0.0],
            }
        }
        fn legal_ids(&mut self, out: &mut Vec<u32>) {
            out.clear();
            if self.moves == 0 {
                out.push(0);
            } else {
                out.extend([10, 11]);
            }
        }
        fn apply_quiet(&mut self, id: u32) {
            if self.moves == 1 {
                self.played = Some(id);
            }
            self.moves += 1;
        }
        fn deal(&self, _observer: usize, dealer: &mut PyRandom) -> Hidden {
            Hidden {
                tile: 1 + dealer.below(2),
                ..self.clone()
            }
        }
        fn priors(&mut self, ids: &[u32], out: &mut Vec<f64>) {
            flat(ids, out);
        }
        toy_rest!(policy 11, batch 48);
        fn key(&self, id: u32) -> (u32, u32) {
            (id, if id == 10 { self.tile } else { 0 })
        }
        /// Playing tile 1 wins: with `keys` 2, that is what tells the worlds apart.
        fn urgent(&mut self, out: &mut Vec<u32>) {
            out.clear();
            if self.moves == 1 && self.tile == 1 {
                out.push(10);
            }
        }
    }

    #[test]
    fn keys_tell_apart_what_one_id_stands_for_in_each_world() {
        let game = Hidden {
            tile: 1,
            moves: 0,
            played: None,
        };
        let budget = Budget {
            iterations: Some(3000),
            seconds: None,
            floor: None,
        };
        let reply = |keys: usize| {
            let params = Params {
                keys,
                ..Params::default()
            };
            let mut tree = Tree::new(&game, 0, params, 3, None);
            tree.run(budget);
            let root = &tree.stats()[0];
            let below = &tree.nodes[tree.nodes[0].edges[0].child as usize];
            let mut edges: Vec<(u32, u32, f64)> = below
                .buckets
                .iter()
                .flat_map(|b| b.edges.iter().map(|&k| (&below.edges[k as usize], b.tag)))
                .map(|(e, tag)| (e.index, tag, e.mean()))
                .collect();
            edges.sort_by_key(|&(index, tag, _)| (index, tag));
            (root.total / root.visits as f64, edges)
        };
        // By key, seat 1 plays tile 1 and passes with tile 2: seat 0 expects a quarter.
        let (seat0, edges) = reply(1);
        assert_eq!(
            edges.iter().map(|&(i, t, _)| (i, t)).collect::<Vec<_>>(),
            [(10, 1), (10, 2), (11, 0)]
        );
        assert!(edges[0].2 > 0.99 && edges[1].2 < 0.01, "{edges:?}");
        assert!((0.2..0.32).contains(&seat0), "{seat0}");
        // By id and urgency, action 10 is two actions too: urgent (tile 1) and not.
        let (seat0, edges) = reply(2);
        assert_eq!(
            edges.iter().map(|&(i, t, _)| (i, t)).collect::<Vec<_>>(),
            [(10, 0), (10, 1), (11, 0)]
        );
        assert!(edges[0].2 < 0.01 && edges[1].2 > 0.99, "{edges:?}");
        assert!((0.2..0.32).contains(&seat0), "{seat0}");
        // By id, action 10 is a coin whatever the tile: seat 1 cannot play its tile well.
        let (seat0, edges) = reply(0);
        assert_eq!(edges.len(), 2);
        assert!(seat0 > 0.4, "{seat0}");
        // Where the two names of action 10 are the root's, its statistics are one row.
        let turn = Hidden {
            moves: 1,
            ..game.clone()
        };
        let params = Params {
            keys: 2,
            ..Params::default()
        };
        let mut tree = Tree::new(&turn, 1, params, 3, None);
        tree.run(budget);
        assert_eq!(tree.nodes[0].edges.len(), 3);
        let mut rows: Vec<(u32, u64)> = tree.stats().iter().map(|r| (r.action, r.visits)).collect();
        rows.sort_unstable();
        assert_eq!(rows.iter().map(|r| r.0).collect::<Vec<_>>(), [10, 11]);
        assert_eq!(rows.iter().map(|r| r.1).sum::<u64>(), 3000);
    }

    #[test]
    fn a_settled_move_is_one_no_iteration_left_could_overtake() {
        assert!(settled([10, 3, 2].into_iter(), 6.9));
        assert!(!settled([10, 3, 2].into_iter(), 7.0));
        assert!(settled([3, 10].into_iter(), 6.0)); // in any order
        assert!(settled([4].into_iter(), 3.0)); // an action not tried has no visits
        assert!(!settled([5, 5].into_iter(), 0.0)); // a tie is never settled
        assert!(!settled(std::iter::empty(), 0.0));
        let budget = Budget {
            iterations: Some(1_000),
            seconds: Some(2.0),
            floor: Some(600),
        };
        assert_eq!(budget.left(PACED - 1, 0.5), None); // no pace yet
        assert_eq!(budget.left(599, 1.0), None); // the floor is searched in full
        assert_eq!(budget.left(600, 1.0), Some(400.0)); // then the iterations' limit
        assert_eq!(budget.left(600, 1.5), Some(200.0)); // or the time
        let timed = Budget {
            seconds: Some(2.0),
            ..Budget::default()
        };
        assert_eq!(timed.left(100, 0.5), Some(300.0)); // 200 a second, 1.5 s to go
        assert_eq!(timed.left(100, 3.0), Some(0.0));
        assert_eq!(Budget::default().left(100, 0.5), None); // iterations only: to the end
    }

    #[test]
    fn a_search_stops_once_its_move_is_settled() {
        // From 5, only taking 1 wins: it soon gathers the visits.
        let game = Nim {
            left: 5,
            mover: 0,
            ruled: true,
        };
        let budget = Budget {
            iterations: Some(40_000),
            seconds: Some(600.0),
            floor: None,
        };
        let stopping = Params {
            stop: 1,
            ..Params::default()
        };
        let mut tree = Tree::new(&game, 0, stopping, 3, None);
        tree.run(budget);
        assert!(tree.iterations < 40_000, "{}", tree.iterations);
        let stats = tree.stats();
        let best = stats.iter().max_by_key(|r| r.visits).expect("a row");
        let next = stats
            .iter()
            .filter(|r| r.action != best.action)
            .map(|r| r.visits)
            .max()
            .unwrap_or(0);
        assert_eq!(best.action, 1);
        // The lead is more than the iterations that were left.
        assert!(best.visits - next > 40_000 - tree.iterations);
        // Without seconds in the budget, or without stop, it runs to the end.
        let mut tree = Tree::new(&game, 0, stopping, 3, None);
        tree.run(Budget {
            iterations: Some(40_000),
            ..Budget::default()
        });
        assert_eq!(tree.iterations, 40_000);
        let mut tree = Tree::new(&game, 0, Params::default(), 3, None);
        tree.run(budget);
        assert_eq!(tree.iterations, 40_000);
    }

    #[test]
    fn a_tree_goes_on_past_its_seats_own_move() {
        let game = Turns {
            moves: 0,
            won: false,
        };
        let budget = Budget {
            iterations: Some(3_000),
            ..Budget::default()
        };
        let mut forest = Forest::new(&game, 0, Params::default(), &[5, 6], None);
        forest.run(budget);
        assert_eq!(forest.visits(), 3_000);
        let child = |tree: &Tree<Turns>, id: u32| {
            let edge = tree.nodes[0]
                .edges
                .iter()
                .find(|e| e.id == id)
                .expect("tried");
            let node = &tree.nodes[edge.child as usize];
            let rows: Vec<(u32, u64, f64)> = node.edges.iter().map(|e| (e.id, e.n, e.w)).collect();
            (edge.n, rows)
        };
        let before: Vec<_> = forest.trees.iter().map(|t| child(t, 2)).collect();
        let mut next = game.clone();
        next.apply_quiet(2);
        // Another action than one tried, or a seat not searched, cannot be followed.
        assert!(!forest.advance(9, &next));
        let mut other = Forest::new(
            &Nim {
                left: 5,
                mover: 0,
                ruled: false,
            },
            0,
            Params::default(),
            &[1],
            None,
        );
        other.run(budget);
        assert!(!other.advance(
            1,
            &Nim {
                left: 4,
                mover: 1,
                ruled: false
            }
        ));
        assert!(forest.advance(2, &next));
        for (tree, (visits, rows)) in forest.trees.iter().zip(&before) {
            assert_eq!(tree.visits(), *visits);
            let now: Vec<(u32, u64, f64)> = tree.nodes[0]
                .edges
                .iter()
                .map(|e| (e.id, e.n, e.w))
                .collect();
            assert_eq!(&now, rows);
            // Every node below the new root is still reached from it, and only those.
            let mut seen = vec![false; tree.nodes.len()];
            let mut stack = vec![0usize];
            while let Some(i) = stack.pop() {
                assert!(!seen[i]);
                seen[i] = true;
                stack.extend(tree.nodes[i].edges.iter().map(|e| e.child as usize));
            }
            assert!(seen.iter().all(|&s| s));
        }
        let carried = forest.visits();
        let (count, stats) = forest.run(budget);
        assert_eq!(count, 3_000);
        assert_eq!(forest.visits(), carried + 3_000);
        // Each new root's first visit judged it as a leaf, with no move below it.
        assert_eq!(
            stats.iter().map(|r| r.visits).sum::<u64>(),
            carried + 3_000 - 2
        );
        // The step's winning move: 1 (in the second turn's step), here the first turn's
        // step, where both moves are level; the tree goes on through it too.
        let mut after = next.clone();
        after.apply_quiet(1);
        assert!(forest.advance(1, &after));
        let (_, stats) = forest.run(budget);
        let best = stats.iter().max_by_key(|r| r.visits).expect("a row");
        assert!(stats.iter().all(|r| r.action != 9));
        assert!(best.visits > 0);
    }
}
