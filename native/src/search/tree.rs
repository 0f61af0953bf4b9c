//! One ISMCTS tree (`cradle.ai.ismcts.Ismcts` step for step) and root parallelism on threads.

use std::time::Instant;

use super::{PyRandom, SearchGame, SearchRng};

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

/// The settings as Python sends them: exploration, widening, alpha, prior_weight, rollout,
/// playout, batch, halving, balance, urgent.
pub type Settings = (f64, f64, f64, f64, usize, usize, usize, usize, usize, usize);

impl Params {
    /// exploration, widening, alpha, prior_weight, rollout, playout, batch, halving,
    /// balance, urgent: the order `cradle.ai.ismcts` sends them in.
    pub fn from_tuple(params: Settings) -> Params {
        let (
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

/// The most random moves a balanced playout adds (`cradle.ai.search.BALANCE_LIMIT`).
const BALANCE_LIMIT: usize = 64;

/// Mixed into a halving pass's seed for its random numbers (the world has the seed itself).
const PAIRED: u64 = 0x9e37_79b9_7f4a_7c15;

/// The settling limit of `cradle.ai.search.settle`.
const SETTLE_LIMIT: usize = 8;

struct Node {
    action: u32,
    mover: u8,
    bias: f64,
    n: u64,
    w: f64,
    avail: u64,
    children: Vec<u32>,
    /// The actions scored so far, with their priors (plus a tiny random tie-break).
    priors: Vec<(u32, f64)>,
}

impl Node {
    fn new(action: u32, mover: usize, bias: f64) -> Node {
        Node {
            action,
            mover: mover as u8,
            bias,
            n: 0,
            w: 0.0,
            avail: 1,
            children: Vec::new(),
            priors: Vec::new(),
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

    #[inline]
    fn set(&mut self, id: u32, value: u32) {
        let i = id as usize;
        if i >= self.stamp.len() {
            self.stamp.resize(i + 1, 0);
            self.value.resize(i + 1, 0);
        }
        self.stamp[i] = self.now;
        self.value[i] = value;
    }

    #[inline]
    fn get(&self, id: u32) -> Option<u32> {
        let i = id as usize;
        (i < self.stamp.len() && self.stamp[i] == self.now).then(|| self.value[i])
    }
}

/// One search tree for `seat` over worlds of `root`.
pub struct Tree<'a, G: SearchGame> {
    root: &'a G,
    seat: usize,
    params: Params,
    rng: SearchRng,
    nodes: Vec<Node>,
    only: Option<&'a [u32]>,
    pub iterations: u64,
    /// Sequential halving (`Params::halving`): the root's children left, the next one's
    /// place in the pass, the round and how many rounds.
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
    available: Vec<u32>,
    path: Vec<u32>,
    missing: Vec<u32>,
    urgent: Vec<u32>,
    scores: Vec<f64>,
}

impl<'a, G: SearchGame> Tree<'a, G> {
    pub fn new(
        root: &'a G,
        seat: usize,
        params: Params,
        seed: u64,
        only: Option<&'a [u32]>,
    ) -> Self {
        Tree {
            root,
            seat,
            params,
            rng: SearchRng::new(seed),
            nodes: vec![Node::new(u32::MAX, seat, 0.0)],
            only,
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
            available: Vec::new(),
            path: Vec::new(),
            missing: Vec::new(),
            urgent: Vec::new(),
            scores: Vec::new(),
        }
    }

    /// Grow the tree within `budget`.
    pub fn run(&mut self, budget: Budget) {
        let start = Instant::now();
        let mut count = 0u64;
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
        }
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
        let nodes = &self.nodes;
        let mean = |c: &u32| {
            let node = &nodes[*c as usize];
            if node.n > 0 {
                node.w / node.n as f64
            } else {
                0.0
            }
        };
        // Stable, best mean first: equals keep their order (the priors').
        self.survivors.sort_by(|a, b| mean(b).total_cmp(&mean(a)));
        self.survivors.truncate(self.survivors.len().div_ceil(2));
        self.round += 1;
    }

    /// The root's children for sequential halving: every action's prior (as `expand` scores
    /// the root), then the best `halving` of them, best first.
    fn start_halving(&mut self, world: &mut G, actions: &[u32]) {
        world.priors(actions, &mut self.scores);
        let mut scored: Vec<(u32, f64)> = Vec::with_capacity(actions.len());
        for (&a, &score) in actions.iter().zip(self.scores.iter()) {
            scored.push((a, score + 1e-6 * self.rng.unit())); // random order among equals
        }
        self.nodes[0].priors = scored.clone();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored.truncate(self.params.halving);
        let mover = world.to_move();
        for (action, prior) in scored.iter().copied() {
            let child = self.nodes.len() as u32;
            self.nodes.push(Node::new(action, mover, prior.tanh()));
            self.nodes[0].children.push(child);
            self.survivors.push(child);
        }
        let n = self.survivors.len();
        self.rounds = if n < 2 {
            1
        } else {
            (usize::BITS - (n - 1).leading_zeros()) as usize
        };
    }

    /// The root's children that were visited.
    pub fn stats(&self) -> Vec<RootStats> {
        self.nodes[0]
            .children
            .iter()
            .map(|&c| {
                let node = &self.nodes[c as usize];
                RootStats {
                    action: node.action,
                    visits: node.n,
                    total: node.w,
                }
            })
            .collect()
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
        let paired = SearchRng::new(self.pass_seed ^ PAIRED);
        let main = std::mem::replace(&mut self.rng, paired);
        self.walk(world);
        self.rng = main;
    }

    fn walk(&mut self, mut world: G) {
        let mut node = 0usize;
        self.path.clear();
        let rewards = loop {
            if world.is_over() {
                break world.final_rewards();
            }
            let mut actions = std::mem::take(&mut self.actions);
            world.legal_ids(&mut actions);
            if node == 0 {
                if let Some(only) = self.only {
                    // The root's restriction, unless none of it is legal in this world.
                    if actions.iter().any(|a| only.contains(a)) {
                        actions.retain(|a| only.contains(a));
                    }
                }
            }
            let child = if node == 0 && self.params.halving > 0 && actions.len() > 1 {
                if self.survivors.is_empty() {
                    self.start_halving(&mut world, &actions);
                }
                let child = self.survivors[self.turn] as usize;
                self.turn = (self.turn + 1) % self.survivors.len();
                if actions.contains(&self.nodes[child].action) {
                    child
                } else {
                    self.select(node, &mut world, &actions) // not in this world: UCB chooses
                }
            } else {
                self.select(node, &mut world, &actions)
            };
            self.actions = actions;
            self.path.push(child as u32);
            world.apply_quiet(self.nodes[child].action);
            if self.nodes[child].n == 0 {
                break self.evaluate(&mut world);
            }
            node = child;
        };
        self.nodes[0].n += 1;
        for &c in &self.path {
            let child = &mut self.nodes[c as usize];
            child.n += 1;
            child.w += rewards[child.mover as usize];
        }
        self.iterations += 1;
    }

    fn select(&mut self, node: usize, world: &mut G, actions: &[u32]) -> usize {
        self.available.clear();
        let children = &self.nodes[node].children;
        // The same visiting order as the reference (it matters for ties).
        if children.len() * 4 < actions.len() {
            self.legal.begin();
            for &a in actions {
                self.legal.set(a, 1);
            }
            for &c in children {
                if self.legal.get(self.nodes[c as usize].action).is_some() {
                    self.available.push(c);
                }
            }
        } else {
            self.kids.begin();
            for &c in children {
                self.kids.set(self.nodes[c as usize].action, c);
            }
            for &a in actions {
                if let Some(c) = self.kids.get(a) {
                    self.available.push(c);
                }
            }
        }
        for &c in &self.available {
            self.nodes[c as usize].avail += 1;
        }
        let p = self.params;
        let allowed = p.widening * ((self.nodes[node].n + 1) as f64).powf(p.alpha);
        let count = self.available.len();
        if count < actions.len() && ((count as f64) < allowed || count == 0) {
            return self.expand(node, world, actions);
        }
        let mut best = self.available[0] as usize;
        let mut best_score = f64::NEG_INFINITY;
        for &c in &self.available {
            let child = &self.nodes[c as usize];
            let n = child.n as f64;
            let score = child.w / n
                + p.exploration * ((child.avail as f64).ln() / n).sqrt()
                + p.prior_weight * child.bias / (n + 1.0);
            if score > best_score {
                best = c as usize;
                best_score = score;
            }
        }
        best
    }

    fn expand(&mut self, node: usize, world: &mut G, actions: &[u32]) -> usize {
        // Which actions have a child, and which a prior.
        self.kids.begin();
        for &c in &self.nodes[node].children {
            self.kids.set(self.nodes[c as usize].action, 1);
        }
        self.scored.begin();
        for (i, &(a, _)) in self.nodes[node].priors.iter().enumerate() {
            self.scored.set(a, i as u32);
        }
        let mut best: Option<(u32, f64)> = None;
        for &a in actions {
            if self.kids.get(a).is_none() {
                if let Some(i) = self.scored.get(a) {
                    let prior = self.nodes[node].priors[i as usize].1;
                    if best.is_none_or(|(_, b)| prior > b) {
                        best = Some((a, prior));
                    }
                }
            }
        }
        if best.is_none() {
            // Score the actions not scored yet: all of them at the root, a random batch
            // deeper down (a node rarely lives long enough to need more than its best few).
            self.missing.clear();
            for &a in actions {
                if self.scored.get(a).is_none() {
                    self.missing.push(a);
                }
            }
            if node != 0 && self.missing.len() > self.params.batch {
                self.draw_batch(world);
            }
            world.priors(&self.missing, &mut self.scores);
            for (&a, &score) in self.missing.iter().zip(self.scores.iter()) {
                let prior = score + 1e-6 * self.rng.unit(); // random order among equals
                self.nodes[node].priors.push((a, prior));
                if best.is_none_or(|(_, b)| prior > b) {
                    best = Some((a, prior));
                }
            }
        }
        let (action, prior) = best.expect("expand is called with an action left to try");
        let child = self.nodes.len();
        self.nodes
            .push(Node::new(action, world.to_move(), prior.tanh()));
        self.nodes[node].children.push(child as u32);
        child
    }

    /// Cut `missing` to a batch: the urgent actions first (with `Params::urgent`), the rest
    /// of the batch drawn at random from the others.
    fn draw_batch(&mut self, world: &mut G) {
        let batch = self.params.batch;
        let mut front = 0;
        if self.params.urgent > 0 {
            world.urgent(&mut self.urgent);
            for i in 0..self.missing.len() {
                if self.urgent.contains(&self.missing[i]) {
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
        world.legal_ids(&mut self.missing);
        let id = self.missing[self.rng.below(self.missing.len())];
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
    fn run<G: SearchGame>(
        root: &G,
        seat: usize,
        params: Params,
        seed: u64,
        share: Budget,
        only: Option<&[u32]>,
    ) -> (u64, Vec<RootStats>) {
        let mut tree = Tree::new(root, seat, params, seed, only);
        tree.run(share);
        (tree.iterations, tree.stats())
    }
    let results: Vec<(u64, Vec<RootStats>)> = if seeds.len() <= 1 {
        let seed = seeds.first().copied().unwrap_or(0);
        vec![run(root, seat, params, seed, budget, only)]
    } else {
        let share = budget.split(seeds.len());
        // Each thread owns its copy of the root (a game need not be Sync).
        std::thread::scope(|scope| {
            let handles: Vec<_> = seeds
                .iter()
                .map(|&seed| {
                    let copy = root.clone();
                    scope.spawn(move || run(&copy, seat, params, seed, share, only))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a search thread panicked"))
                .collect()
        })
    };
    let mut iterations = 0;
    let mut merged: Vec<RootStats> = Vec::new();
    for (count, stats) in results {
        iterations += count;
        for s in stats {
            match merged.iter_mut().find(|m| m.action == s.action) {
                Some(m) => {
                    m.visits += s.visits;
                    m.total += s.total;
                }
                None => merged.push(s),
            }
        }
    }
    merged.retain(|s| s.visits > 0);
    (iterations, merged)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        fn players(&self) -> usize {
            2
        }
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
            out.clear();
            out.extend(ids.iter().map(|_| 0.0));
        }
        fn unsettled(&mut self) -> bool {
            false
        }
        fn policy(&mut self, _rng: &mut SearchRng) -> u32 {
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
        fn ruled_move(&mut self) -> Option<u32> {
            let take = self.left % 4;
            (self.ruled && take > 0).then_some(take)
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
        fn players(&self) -> usize {
            2
        }
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
        fn unsettled(&mut self) -> bool {
            false
        }
        fn policy(&mut self, _rng: &mut SearchRng) -> u32 {
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
        fn players(&self) -> usize {
            2
        }
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
            out.clear();
            out.extend(ids.iter().map(|_| 0.0));
        }
        fn unsettled(&mut self) -> bool {
            false
        }
        fn policy(&mut self, _rng: &mut SearchRng) -> u32 {
            0
        }
        fn heuristic_rewards(&mut self) -> [f64; 4] {
            [0.5, 0.5, 0.0, 0.0]
        }
        fn playout_moves(&self) -> usize {
            0
        }
        fn prior_batch(&self) -> usize {
            3
        }
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
            .map(|n| n.priors.iter().map(|&(a, _)| a).collect())
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
}
