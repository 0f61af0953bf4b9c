//! One ISMCTS tree (`cradle.ai.search.ismcts.Ismcts` step for step) and root parallelism on
//! threads.

use std::time::Instant;

use super::{CpythonRandom, Learned, ModelScratch, RootNoise, SearchGame};
use crate::splitmix::SplitMix64;

/// The search's settings (`cradle.ai.search.params.IsmctsParams`), with the game's defaults
/// for `rollout`, `playout` and `batch` already resolved by the caller.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub exploration: f64,
    pub widening: f64,
    pub alpha: f64,
    pub prior_weight: f64,
    /// Quick-policy moves after settling a leaf, before its playout.
    pub rollout: usize,
    /// Then uniformly random moves before the heuristic.
    pub playout: usize,
    /// Actions scored at a time below the root.
    pub batch: usize,
    /// Below the root, every batch scored also holds the game's urgent actions
    /// ([`SearchGame::urgent`]: in Gheos, the tile actions that start a war or a migration),
    /// the rest of it drawn at random. Python's default is on (`IsmctsParams.urgent`); here
    /// off, so a plain `Params` is the bare tree.
    pub urgent: bool,
    /// A search with seconds in its budget stops once the most visited root action leads the
    /// next by more visits than the iterations still to come at this pace ([`settled`]): no
    /// later iteration could change the move played (the most visited one). Off: it runs to
    /// the end of its budget.
    pub stop: bool,
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
            urgent: false,
            stop: false,
        }
    }
}

/// The most of a timed search's seconds kept back for a pause of the thread at its end
/// (`Tree::run_from`): a timed search thinks at least 90% of its seconds.
pub const STALL_SHARE: f64 = 0.1;

/// How long a search may think: iterations, seconds, or both (first reached); at least one
/// iteration always runs, as `cradle.ai.search.budget.Clock` does. `floor`: the fewest iterations
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
        self.left_of(count, elapsed, elapsed)
    }

    /// [`Budget::left`] for a tree that has run `running` seconds of the `elapsed` since the
    /// search was asked for (a tree on a thread may start late: its pace is its own, the
    /// time left the search's).
    pub fn left_of(&self, count: u64, running: f64, elapsed: f64) -> Option<f64> {
        let seconds = self.seconds?;
        if count < PACED || self.floor.is_some_and(|floor| count < floor) {
            return None;
        }
        let pace = count as f64 / running.max(1e-9);
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

    /// A budget and search settings as Python hands them over (`cradle.ai.search.ismcts`), checked
    /// as `cradle.ai.search.budget.Budget` checks them.
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

/// The most natural logarithms of availability counts a tree keeps ([`Tree::cover_logs`]).
const LOGARITHMS: usize = 1 << 22;

/// The term added to the prior score of action `id` by `factors` (sorted by id): the log
/// of its factor (0 without one), worked out only for the actions a node scores.
fn term(factors: &[(u32, f64)], id: u32) -> f64 {
    match factors.binary_search_by_key(&id, |&(a, _)| a) {
        Ok(j) => factors[j].1.ln(),
        Err(_) => 0.0,
    }
}

impl Params {
    /// A visited edge's score: its mean reward, the exploration term of its availability,
    /// and its prior's bonus fading as 1/(visits + 1). `logs`: `ln(n)` by n, for the n at
    /// hand ([`Tree::cover_logs`]; past them, worked out here: the same numbers).
    #[inline(always)]
    fn score(&self, edge: &Edge, logs: &[f64]) -> f64 {
        let n = edge.n as f64;
        let ln = match logs.get(edge.avail as usize) {
            Some(&ln) => ln,
            None => (edge.avail as f64).ln(),
        };
        edge.w / n + self.exploration * (ln / n).sqrt() + self.prior_weight * edge.bias / (n + 1.0)
    }
}

/// How many widening thresholds a tree keeps ([`Tree::allowed`]).
const WIDTHS: usize = 1 << 16;

/// The settling limit of `cradle.ai.search.leaves.settle`.
const SETTLE_LIMIT: usize = 8;

/// Where a node's edges (or scored actions) lie in the tree's arena of them: `len` from
/// `first`, with room for `room` before they move to the arena's end (doubling their room,
/// so a node's list costs no allocation of its own and moves rarely).
#[derive(Clone, Copy, Default)]
struct Span {
    first: u32,
    len: u32,
    room: u32,
}

impl Span {
    #[inline(always)]
    fn range(self) -> std::ops::Range<usize> {
        self.first as usize..(self.first + self.len) as usize
    }
}

/// Appends `item` to the list `span` in `arena`.
#[inline]
fn push_to<T: Copy + Default>(arena: &mut Vec<T>, span: &mut Span, item: T) {
    if span.len == span.room {
        let room = (span.room * 2).max(4);
        // The last list in the arena grows where it is; any other moves to the end.
        let last = span.room > 0 && (span.first + span.room) as usize == arena.len();
        if !last {
            let first = arena.len();
            arena.extend_from_within(span.range());
            span.first = first as u32;
        }
        arena.resize((span.first + room) as usize, T::default());
        span.room = room;
    }
    arena[(span.first + span.len) as usize] = item;
    span.len += 1;
}

/// A node's children and what it scored, as lists in the tree's arenas. Its visits are its
/// edge's (the root's, the tree's).
#[derive(Clone, Copy, Default)]
struct Node {
    /// The statistics of the children live in their parent, side by side: selection reads
    /// every child's, and one node apart from the next would cost a cache miss each.
    edges: Span,
    /// The actions scored so far ([`Scored`]).
    scored: Span,
}

/// The way from a node to one child: the action, who chose it, and the child's statistics
/// (visits, that mover's summed reward, the times it was available, its prior's bias).
#[derive(Clone, Copy, Default)]
struct Edge {
    id: u32,
    child: u32,
    mover: u8,
    n: u64,
    w: f64,
    avail: u64,
    bias: f64,
}

/// An action a node scored: its prior (plus a tiny random tie-break), and whether it has
/// its child yet.
#[derive(Clone, Copy, Default)]
struct Scored {
    id: u32,
    tried: bool,
    prior: f64,
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

    #[inline(always)]
    fn get(&self, id: u32) -> Option<u32> {
        let i = id as usize;
        (i < self.stamp.len() && self.stamp[i] == self.now).then(|| self.value[i])
    }
}

/// The floor of a learned prior's ratio to the node's best (its log is the least term).
const MODEL_FLOOR: f64 = 1e-6;

/// A tree's learned model ([`Learned`]) and what it keeps per node.
struct Modelled<G> {
    learned: Learned<G>,
    width: usize,
    /// The features of node n at `n * width`, once `known[n]`.
    features: Vec<f32>,
    known: Vec<bool>,
    /// Per node, the best logit of its first scored actions: later ones are held to it.
    reference: Vec<f32>,
    scratch: ModelScratch,
    logits: Vec<f32>,
}

impl<G: SearchGame> Modelled<G> {
    fn new(learned: Learned<G>) -> Self {
        Modelled {
            width: learned.model.width(),
            learned,
            features: Vec::new(),
            known: Vec::new(),
            reference: Vec::new(),
            scratch: ModelScratch::default(),
            logits: Vec::new(),
        }
    }

    /// `node`'s features, from `world` (at that node) the first time.
    fn features_of(&mut self, node: usize, world: &G) -> &[f32] {
        if node >= self.known.len() {
            self.known.resize(node + 1, false);
            self.reference.resize(node + 1, f32::NAN);
            self.features.resize((node + 1) * self.width, 0.0);
        }
        let at = node * self.width..(node + 1) * self.width;
        if !self.known[node] {
            let model = &self.learned.model;
            model.features(world, &mut self.scratch, &mut self.features[at.clone()]);
            self.known[node] = true;
        }
        &self.features[at]
    }

    /// Each seat's value at `world` (at new node `node`), in seat order.
    fn rewards(&mut self, node: usize, world: &G) -> [f64; 4] {
        let (players, mover) = (world.players(), world.to_move());
        self.features_of(node, world);
        let at = node * self.width..(node + 1) * self.width;
        let mut relative = [0.0; 4];
        self.learned
            .model
            .values(&self.features[at], &mut relative[..players]);
        let mut out = [0.0; 4];
        for (k, value) in relative.iter().take(players).enumerate() {
            out[(mover + k) % players] = *value;
        }
        out
    }

    /// Add the model's log-prior of `ids` (legal in `world`, at `node`) to `scores`.
    fn add_priors(&mut self, node: usize, world: &G, ids: &[u32], scores: &mut [f64]) {
        self.features_of(node, world);
        let at = node * self.width..(node + 1) * self.width;
        let features = &self.features[at];
        self.logits.clear();
        let model = &self.learned.model;
        self.logits
            .extend(ids.iter().map(|&id| model.logit(features, id)));
        if self.reference[node].is_nan() {
            self.reference[node] = self.logits.iter().copied().fold(f32::MIN, f32::max);
        }
        let best = f64::from(self.reference[node]);
        let floor = MODEL_FLOOR.ln();
        for (score, &logit) in scores.iter_mut().zip(&self.logits) {
            *score += (f64::from(logit) - best).max(floor);
        }
    }
}

/// Each of `k` shares of a Dirichlet(alpha) draw (gammas by Marsaglia and Tsang, normals by
/// Box and Muller).
fn dirichlet(rng: &mut SplitMix64, alpha: f64, k: usize) -> Vec<f64> {
    let normal = |rng: &mut SplitMix64| {
        let u = 1.0 - rng.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * rng.unit()).cos()
    };
    let gamma = |rng: &mut SplitMix64| {
        let a = if alpha < 1.0 { alpha + 1.0 } else { alpha };
        let d = a - 1.0 / 3.0;
        let c = 1.0 / (9.0 * d).sqrt();
        let draw = loop {
            let x = normal(rng);
            let v = (1.0 + c * x).powi(3);
            if v <= 0.0 {
                continue;
            }
            let u = 1.0 - rng.unit();
            if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
                break d * v;
            }
        };
        if alpha < 1.0 {
            draw * (1.0 - rng.unit()).powf(1.0 / alpha)
        } else {
            draw
        }
    };
    let draws: Vec<f64> = (0..k).map(|_| gamma(rng)).collect();
    let total: f64 = draws.iter().sum();
    if total > 0.0 {
        draws.iter().map(|g| g / total).collect()
    } else {
        vec![1.0 / k as f64; k]
    }
}

/// One search tree for `seat` over worlds of `root`.
pub struct Tree<G: SearchGame> {
    root: G,
    seat: usize,
    params: Params,
    rng: SplitMix64,
    nodes: Vec<Node>,
    /// Every node's edges and scored actions ([`Span`]).
    edges: Vec<Edge>,
    scored_of: Vec<Scored>,
    /// Factors of the game's priors by node ([`Tree::set_prior_factors`]), each sorted by
    /// id; mostly none.
    factors: std::collections::HashMap<u32, Vec<(u32, f64)>>,
    /// The root's visits (every other node's are on the edge that leads to it).
    root_visits: u64,
    only: Option<Vec<u32>>,
    /// The iterations of the last run.
    pub iterations: u64,
    /// Where the worlds come from: seeded by the tree's first draw, then going on from world
    /// to world (a generator seeded for every world would cost a fifth of an iteration).
    dealer: Option<CpythonRandom>,
    // Scratch space, kept between iterations.
    legal: Marks,
    kids: Marks,
    scored: Marks,
    actions: Vec<u32>,
    /// The edges available in this world: (the edge's index in its node, the action's place
    /// in this world's list, or where the game orders it, [`SearchGame::legal_order`]).
    available: Vec<(u32, u32)>,
    /// The edges walked this iteration: (node, the edge's index in it).
    path: Vec<(u32, u32)>,
    missing: Vec<u32>,
    missing_ids: Vec<u32>,
    urgent: Vec<u32>,
    scores: Vec<f64>,
    /// `widening * (visits + 1) ^ alpha` by visits, filled as visits come ([`Tree::allowed`]).
    widths: Vec<f64>,
    /// `ln(n)` by availability count n, filled as the counts grow ([`Tree::cover_logs`]).
    logs: Vec<f64>,
    /// A learned model at the leaves ([`Tree::set_learned`]).
    modelled: Option<Box<Modelled<G>>>,
    /// Dirichlet noise at the root ([`Tree::set_root_noise`]).
    noise: Option<RootNoise>,
    /// The game's knowledge off ([`Tree::set_pure`]).
    pure: bool,
}

impl<G: SearchGame> Tree<G> {
    pub fn new(root: &G, seat: usize, params: Params, seed: u64, only: Option<&[u32]>) -> Self {
        Tree {
            root: root.clone(),
            seat,
            params,
            rng: SplitMix64::new(seed),
            nodes: vec![Node::default()],
            edges: Vec::new(),
            scored_of: Vec::new(),
            factors: std::collections::HashMap::new(),
            root_visits: 0,
            only: only.map(<[u32]>::to_vec),
            iterations: 0,
            dealer: None,
            legal: Marks::default(),
            kids: Marks::default(),
            scored: Marks::default(),
            actions: Vec::new(),
            available: Vec::new(),
            path: Vec::new(),
            missing: Vec::new(),
            missing_ids: Vec::new(),
            urgent: Vec::new(),
            scores: Vec::new(),
            widths: Vec::new(),
            logs: Vec::new(),
            modelled: None,
            noise: None,
            pure: false,
        }
    }

    /// Search with a learned model ([`Learned`]); set before the first iteration.
    pub fn set_learned(&mut self, learned: Learned<G>) {
        self.pure = learned.pure;
        self.modelled = Some(Box::new(Modelled::new(learned)));
    }

    /// Turn the game's knowledge off (its priors and urgent actions: every prior score 0
    /// but what a model adds), as [`Learned`]'s `pure` does; the leaves are then a model's
    /// to judge (the batched evaluator's, `crate::search::batched`).
    pub fn set_pure(&mut self) {
        self.pure = true;
    }

    /// Dirichlet noise on the root's priors ([`RootNoise`]); set before the first iteration.
    pub fn set_root_noise(&mut self, noise: RootNoise) {
        self.noise = Some(noise);
    }

    fn pure(&self) -> bool {
        self.pure
    }

    /// How many children a node seen `visits` times may have: `widening * (visits + 1) ^
    /// alpha`, each worked out once (the same numbers, without a `powf` per selection).
    #[inline]
    fn allowed(&mut self, visits: u64) -> f64 {
        let width = |v: u64| self.params.widening * ((v + 1) as f64).powf(self.params.alpha);
        let i = visits as usize;
        if let Some(&w) = self.widths.get(i) {
            return w;
        }
        if i >= WIDTHS {
            return width(visits);
        }
        let from = self.widths.len() as u64;
        let filled: Vec<f64> = (from..=visits).map(width).collect();
        self.widths.extend(filled);
        self.widths[i]
    }

    /// Keep `ln(n)` for every availability count up to `most` (a selection reads one per
    /// child; the same numbers as `f64::ln` each time, so the same trees).
    #[inline]
    fn cover_logs(&mut self, most: u64) {
        let most = most as usize;
        if most >= self.logs.len() && most < LOGARITHMS {
            let to = (most + 1).max(2 * self.logs.len()).clamp(4096, LOGARITHMS);
            let from = self.logs.len();
            self.logs.extend((from..to).map(|n| (n as f64).ln()));
        }
    }

    /// Grow the tree within `budget` (with `Params::stop`, until the move is settled).
    pub fn run(&mut self, budget: Budget) {
        self.run_from(budget, Instant::now());
    }

    /// [`Tree::run`] with the budget's seconds counted from `asked`, when the search was
    /// asked for: a tree on a thread that starts late (a loaded machine can hold a new thread
    /// back for a quarter of a second) stops with the others rather than its own seconds later.
    pub fn run_from(&mut self, budget: Budget, asked: Instant) {
        let start = Instant::now();
        let mut count = 0u64;
        self.iterations = 0;
        let stop = self.params.stop && budget.seconds.is_some();
        // The longest this thread went between two looks at the clock (an iteration, or a
        // pause of a loaded machine's scheduler): the seconds end that much early (at most
        // STALL_SHARE of them), so that a pause like it at the end does not keep the answer
        // late.
        let (mut last, mut stall) = (start, 0.0f64);
        let most_stall = budget.seconds.unwrap_or(0.0) * STALL_SHARE;
        loop {
            self.iterate();
            count += 1;
            let now = Instant::now();
            if budget.seconds.is_some() {
                stall = stall
                    .max(now.saturating_duration_since(last).as_secs_f64())
                    .min(most_stall);
                last = now;
            }
            let elapsed = now.saturating_duration_since(asked).as_secs_f64();
            let more = if budget.iterations.is_some_and(|limit| count >= limit) {
                false
            } else if budget.floor.is_some_and(|floor| count < floor) {
                true
            } else {
                !budget.seconds.is_some_and(|s| elapsed + stall >= s)
            };
            if !more {
                break;
            }
            if stop {
                let running = now.saturating_duration_since(start).as_secs_f64();
                if let Some(left) = budget.left_of(count, running, elapsed) {
                    if settled(self.children(0).iter().map(|e| e.n), left) {
                        break;
                    }
                }
            }
        }
    }

    /// The root's children, one row per action.
    pub fn stats(&self) -> Vec<RootStats> {
        self.children(0)
            .iter()
            .map(|edge| RootStats {
                action: edge.id,
                visits: edge.n,
                total: edge.w,
            })
            .collect()
    }

    /// One iteration: a world, a walk down, one new node, its evaluation, the backup.
    pub fn iterate(&mut self) {
        let world = self.next_world();
        self.walk(world);
    }

    /// The next world this tree deals from its root.
    pub fn next_world(&mut self) -> G {
        let rng = &mut self.rng;
        let dealer = self
            .dealer
            .get_or_insert_with(|| CpythonRandom::from_u64(rng.next_u64()));
        self.root.deal(self.seat, dealer)
    }

    fn walk(&mut self, mut world: G) {
        let rewards = match self.descend(&mut world) {
            Some(node) if self.modelled.is_some() && !world.is_over() => {
                self.learned_rewards(node as usize, &mut world)
            }
            Some(_) => self.evaluate(&mut world),
            None => world.final_rewards(),
        };
        self.back_up(rewards);
    }

    /// A new leaf's rewards with the learned model ([`Learned`]): its values, alone or mixed
    /// into the leaf's own evaluation.
    fn learned_rewards(&mut self, node: usize, world: &mut G) -> [f64; 4] {
        let modelled = self.modelled.as_mut().expect("a model");
        let model = modelled.rewards(node, world);
        if modelled.learned.pure {
            return model;
        }
        let blend = modelled.learned.blend;
        let mut own = self.evaluate(world);
        for (o, m) in own.iter_mut().zip(model) {
            *o += blend * (m - *o);
        }
        own
    }

    /// `node`'s edges.
    #[inline(always)]
    fn children(&self, node: usize) -> &[Edge] {
        &self.edges[self.nodes[node].edges.range()]
    }

    /// Walk `world` (dealt by [`Tree::next_world`]) down the tree to its first new node,
    /// left in `world`: that node's index, or None where the walk reached the end of the
    /// game first. [`Tree::evaluate_leaf`] then [`Tree::back_up`] finish the iteration.
    pub fn descend(&mut self, world: &mut G) -> Option<u32> {
        let mut node = 0usize;
        let mut visits = self.root_visits;
        self.path.clear();
        loop {
            if world.is_over() {
                return None;
            }
            // A game that counts its actions is listed only to score some; the root's
            // restriction is read from the list.
            let (k, id) = if G::COUNTS && (node != 0 || self.only.is_none()) {
                self.select_counted(node, visits, world)
            } else {
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
                let chosen = self.select(node, visits, world, &actions);
                self.actions = actions;
                chosen
            };
            self.path.push((node as u32, k as u32));
            let edge = self.edges[self.nodes[node].edges.first as usize + k];
            world.apply_quiet(id);
            if edge.n == 0 {
                return Some(edge.child);
            }
            (node, visits) = (edge.child as usize, edge.n);
        }
    }

    /// The leaf's evaluation (settle, roll out, play out, judge) of the world
    /// [`Tree::descend`] left at a new node.
    pub fn evaluate_leaf(&mut self, world: &mut G) -> [f64; 4] {
        self.evaluate(world)
    }

    /// The backup of the walk [`Tree::descend`] made: `rewards` per seat.
    pub fn back_up(&mut self, rewards: [f64; 4]) {
        self.root_visits += 1;
        for &(parent, k) in &self.path {
            let at = self.nodes[parent as usize].edges.first + k;
            let edge = &mut self.edges[at as usize];
            edge.n += 1;
            edge.w += rewards[edge.mover as usize];
        }
        self.iterations += 1;
    }

    /// A prior from elsewhere (a model) for `node`'s actions: (id, a positive factor of the
    /// game's prior: its log is added to the prior score), sorted here by id; ids not
    /// listed keep the game's prior. Read when the node scores its actions
    /// ([`Tree::expand`]), so set it before the node is expanded.
    pub fn set_prior_factors(&mut self, node: u32, mut factors: Vec<(u32, f64)>) {
        factors.sort_unstable_by_key(|&(id, _)| id);
        self.factors.insert(node, factors);
    }

    /// The edge (an index into the node's edges) to follow and its id in this world: a new
    /// one while the node (seen `visits` times) may still widen, else the best by UCB among
    /// those legal here.
    fn select(&mut self, node: usize, visits: u64, world: &mut G, actions: &[u32]) -> (usize, u32) {
        self.available.clear();
        let span = self.nodes[node].edges;
        let here = &self.edges[span.range()];
        // The same visiting order as the reference (it matters for ties): the edges' where
        // they are few beside the actions, else the actions' (marked by id, then read in
        // order).
        if here.len() * 4 >= actions.len() {
            self.kids.begin();
            for (k, edge) in here.iter().enumerate() {
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
            for (k, edge) in here.iter().enumerate() {
                if let Some(i) = self.legal.get(edge.id) {
                    self.available.push((k as u32, i));
                }
            }
        }
        let edges = &mut self.edges[span.range()];
        let mut most = 0;
        for &(k, _) in &self.available {
            let edge = &mut edges[k as usize];
            edge.avail += 1;
            most = most.max(edge.avail);
        }
        self.cover_logs(most);
        let allowed = self.allowed(visits);
        let count = self.available.len();
        if count < actions.len() && ((count as f64) < allowed || count == 0) {
            return self.expand(node, world, Some(actions));
        }
        let edges = &self.edges[span.range()];
        let logs = &self.logs;
        let mut best = self.available[0];
        let mut best_score = f64::NEG_INFINITY;
        for &(k, i) in &self.available {
            let score = self.params.score(&edges[k as usize], logs);
            if score > best_score {
                best = (k, i);
                best_score = score;
            }
        }
        (best.0 as usize, actions[best.1 as usize])
    }

    /// [`Tree::select`] for a game that counts its actions and tells where each legal one is
    /// listed ([`SearchGame::COUNTS`]): the same choice, without listing them.
    fn select_counted(&mut self, node: usize, visits: u64, world: &mut G) -> (usize, u32) {
        let count = world.legal_count();
        self.available.clear();
        let span = self.nodes[node].edges;
        let mut most = 0;
        for (k, edge) in self.edges[span.range()].iter_mut().enumerate() {
            if let Some(place) = world.legal_order(edge.id) {
                edge.avail += 1;
                most = most.max(edge.avail);
                self.available.push((k as u32, place));
            }
        }
        self.cover_logs(most);
        let allowed = self.allowed(visits);
        let available = self.available.len();
        if available < count && ((available as f64) < allowed || available == 0) {
            return self.expand(node, world, None);
        }
        // The reference visits the edges in the actions' order where they are many beside
        // the actions, else in their own: the first of the best scores wins.
        let in_list = span.len as usize * 4 >= count;
        let edges = &self.edges[span.range()];
        let key = |(k, place): (u32, u32)| if in_list { place } else { k };
        let logs = &self.logs;
        let mut first = self.available[0];
        let mut best: Option<((u32, u32), f64)> = None;
        for &at in &self.available {
            if key(at) < key(first) {
                first = at;
            }
            let score = self.params.score(&edges[at.0 as usize], logs);
            if !score.is_nan()
                && best.is_none_or(|(b, b_score)| {
                    score > b_score || (score == b_score && key(at) < key(b))
                })
            {
                best = Some((at, score));
            }
        }
        // No score is a number only where no edge was visited yet: the first in order.
        let k = best.map_or(first, |(at, _)| at).0 as usize;
        (k, edges[k].id)
    }

    /// A new child of `node` by its scored action `j` (an index into its scored actions),
    /// chosen by `mover`: its edge's index and the action.
    fn add_child(&mut self, node: usize, j: usize, mover: usize) -> (usize, u32) {
        let child = self.nodes.len() as u32;
        self.nodes.push(Node::default());
        let at = self.nodes[node].scored.first as usize + j;
        let scored = &mut self.scored_of[at];
        scored.tried = true;
        let edge = Edge {
            id: scored.id,
            child,
            mover: mover as u8,
            n: 0,
            w: 0.0,
            avail: 1,
            bias: scored.prior.tanh(),
        };
        let span = &mut self.nodes[node].edges;
        push_to(&mut self.edges, span, edge);
        (span.len as usize - 1, edge.id)
    }

    /// A new child of `node`: its best scored action legal here without a child yet, else
    /// the best of the next actions scored. `actions`: this world's (the root's restricted),
    /// None where the game counts them and lists them only to score some.
    fn expand(&mut self, node: usize, world: &mut G, actions: Option<&[u32]>) -> (usize, u32) {
        let span = self.nodes[node].scored;
        let mut best: Option<(usize, f64)> = None;
        match actions {
            Some(actions) => {
                // Which of this world's actions have a prior, marked by id, read in order.
                self.scored.begin();
                for (j, scored) in self.scored_of[span.range()].iter().enumerate() {
                    if !scored.tried {
                        self.scored.set(scored.id, j as u32);
                    }
                }
                for &a in actions {
                    if let Some(j) = self.scored.get(a) {
                        let prior = self.scored_of[span.first as usize + j as usize].prior;
                        if best.is_none_or(|(_, b)| prior > b) {
                            best = Some((j as usize, prior));
                        }
                    }
                }
            }
            None => best = self.best_untried(node, world),
        }
        if best.is_none() {
            let mut listed = std::mem::take(&mut self.actions);
            let actions = match actions {
                Some(actions) => actions,
                None => {
                    world.legal_ids(&mut listed);
                    &listed[..]
                }
            };
            best = self.score_more(node, world, actions);
            self.actions = listed;
        }
        let (j, _) = best.expect("expand is called with an action left to try");
        self.add_child(node, j, world.to_move())
    }

    /// The untried scored action of `node` legal in `world` with the highest prior, the
    /// first in the actions' order among equals, as [`Tree::expand`] reads them from a list:
    /// (its index among the node's scored actions, its prior).
    fn best_untried(&mut self, node: usize, world: &mut G) -> Option<(usize, f64)> {
        let span = self.nodes[node].scored;
        let scored = &self.scored_of[span.range()];
        // (index, place in the list, prior)
        let mut best: Option<(usize, u32, f64)> = None;
        let mut odd = false;
        for (j, s) in scored.iter().enumerate() {
            if s.tried {
                continue;
            }
            let Some(place) = world.legal_order(s.id) else {
                continue;
            };
            odd |= s.prior.is_nan();
            if best.is_none_or(|(_, b_place, b_prior)| {
                s.prior > b_prior || (s.prior == b_prior && place < b_place)
            }) {
                best = Some((j, place, s.prior));
            }
        }
        if odd {
            // A prior that is not a number: the list's order, exactly (the first one seen
            // stays unless a later one is greater).
            let mut order: Vec<(u32, usize)> = (0..scored.len())
                .filter(|&j| !scored[j].tried)
                .filter_map(|j| world.legal_order(scored[j].id).map(|place| (place, j)))
                .collect();
            order.sort_unstable();
            best = None;
            for (place, j) in order {
                if best.is_none_or(|(_, _, b)| scored[j].prior > b) {
                    best = Some((j, place, scored[j].prior));
                }
            }
        }
        best.map(|(j, _, prior)| (j, prior))
    }

    /// Score the actions of `actions` `node` has not scored yet (all of them at the root, a
    /// random batch deeper down: a node rarely lives long enough to need more than its best
    /// few) and keep them: the best of them (its index among the node's scored actions, its
    /// prior).
    fn score_more(&mut self, node: usize, world: &mut G, actions: &[u32]) -> Option<(usize, f64)> {
        let span = self.nodes[node].scored;
        self.scored.begin();
        for scored in &self.scored_of[span.range()] {
            self.scored.set(scored.id, 0);
        }
        self.missing.clear();
        for (i, &a) in actions.iter().enumerate() {
            if self.scored.get(a).is_none() {
                self.missing.push(i as u32);
            }
        }
        if node != 0 && self.missing.len() > self.params.batch {
            self.draw_batch(world, actions);
        }
        self.missing_ids.clear();
        self.missing_ids
            .extend(self.missing.iter().map(|&i| actions[i as usize]));
        if self.pure() {
            self.scores.clear();
            self.scores.resize(self.missing_ids.len(), 0.0);
        } else {
            world.priors(&self.missing_ids, &mut self.scores);
        }
        if let Some(modelled) = self.modelled.as_mut() {
            modelled.add_priors(node, world, &self.missing_ids, &mut self.scores);
        }
        if node == 0 && span.len == 0 {
            if let Some(noise) = self.noise {
                self.add_noise(noise);
            }
        }
        let factors = self.factors.get(&(node as u32));
        let mut best: Option<(usize, f64)> = None;
        for (&id, &score) in self.missing_ids.iter().zip(self.scores.iter()) {
            let score = match factors {
                Some(factors) if !factors.is_empty() => score + term(factors, id),
                _ => score,
            };
            let prior = score + 1e-6 * self.rng.unit(); // random order among equals
            let span = &mut self.nodes[node].scored;
            push_to(
                &mut self.scored_of,
                span,
                Scored {
                    id,
                    tried: false,
                    prior,
                },
            );
            if best.is_none_or(|(_, b)| prior > b) {
                best = Some((span.len as usize - 1, prior));
            }
        }
        best
    }

    /// [`RootNoise`] on the scores of the root's first actions (`scores`, all of its
    /// world's): `ln(p'/p)` added to each, `p` the softmax of the scores.
    fn add_noise(&mut self, noise: RootNoise) {
        let k = self.scores.len();
        if k < 2 {
            return;
        }
        let best = self.scores.iter().copied().fold(f64::MIN, f64::max);
        let total: f64 = self.scores.iter().map(|s| (s - best).exp()).sum();
        let eta = dirichlet(&mut self.rng, noise.alpha, k);
        for (score, e) in self.scores.iter_mut().zip(eta) {
            let p = (*score - best).exp() / total;
            *score += ((1.0 - noise.weight) + noise.weight * e / p).ln();
        }
    }

    /// Cut `missing` (places in `actions`) to a batch: the urgent actions first (with
    /// `Params::urgent`), the rest of the batch drawn at random from the others.
    fn draw_batch(&mut self, world: &mut G, actions: &[u32]) {
        let mut front = 0;
        if self.params.urgent && !self.pure() {
            world.urgent(&mut self.urgent);
            for i in 0..self.missing.len() {
                if self.urgent.contains(&actions[self.missing[i] as usize]) {
                    self.missing.swap(front, i);
                    front += 1;
                }
            }
        }
        // The urgent ones count towards the batch.
        let room = self.params.batch.saturating_sub(front);
        let take = room.min(self.missing.len() - front);
        self.rng.sample_prefix(&mut self.missing[front..], take);
        self.missing.truncate(front + take);
    }

    /// `cradle.ai.search.leaves.evaluate`: settle, roll out, play out at random, settle,
    /// judge.
    fn evaluate(&mut self, world: &mut G) -> [f64; 4] {
        self.settle(world);
        for _ in 0..self.params.rollout {
            if world.is_over() {
                break;
            }
            let id = world.policy(&mut self.rng);
            world.apply_quiet(id);
        }
        for _ in 0..self.params.playout {
            if world.is_over() {
                break;
            }
            self.random_move(world);
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

/// The trees of one search for `seat`, one per seed (root parallelism).
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

    /// Every tree searches with `learned` ([`Tree::set_learned`]).
    pub fn set_learned(&mut self, learned: &Learned<G>) {
        for tree in &mut self.trees {
            tree.set_learned(learned.clone());
        }
    }

    /// Grow every tree within `budget` (several on threads, the iterations divided between
    /// them). Returns the iterations run and the root's statistics, visited actions only,
    /// the trees' added up.
    pub fn run(&mut self, budget: Budget) -> (u64, Vec<RootStats>) {
        self.run_from(budget, Instant::now())
    }

    /// [`Forest::run`] with the budget's seconds counted from `asked` (when the search was
    /// asked for): every tree stops by then, however late its thread started.
    pub fn run_from(&mut self, budget: Budget, asked: Instant) -> (u64, Vec<RootStats>) {
        if self.trees.len() == 1 {
            self.trees[0].run_from(budget, asked);
        } else {
            let share = budget.split(self.trees.len());
            std::thread::scope(|scope| {
                let (first, rest) = self.trees.split_first_mut().expect("several trees");
                for tree in rest {
                    scope.spawn(move || tree.run_from(share, asked));
                }
                // the first on this thread, which is running already
                first.run_from(share, asked);
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

/// [`search`] with a learned model at the leaves (None: the plain search).
pub fn search_learned<G: SearchGame>(
    root: &G,
    seat: usize,
    budget: Budget,
    params: Params,
    seeds: &[u64],
    only: Option<&[u32]>,
    learned: Option<&Learned<G>>,
) -> (u64, Vec<RootStats>) {
    let mut forest = Forest::new(root, seat, params, seeds, only);
    if let Some(learned) = learned {
        forest.set_learned(learned);
    }
    forest.run(budget)
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
pub(crate) mod tests {
    use super::*;
    use crate::search::LeafModel;

    /// What every two-player toy game below answers alike: full information (a deal is the
    /// game itself), flat priors, nothing to settle, a drawn heuristic, no random playout;
    /// its quick policy's move and its prior batch vary.
    macro_rules! toy_rest {
        (policy $policy:expr, batch $batch:expr) => {
            fn deal(&self, _observer: usize, _dealer: &mut CpythonRandom) -> Self {
                self.clone()
            }
            fn priors(&mut self, ids: &[u32], out: &mut Vec<f64>) {
                flat(ids, out);
            }
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
        toy_rest!(policy 1, batch 48);
        fn ruled_move(&mut self) -> Option<u32> {
            let take = self.left % 4;
            (self.ruled && take > 0).then_some(take)
        }
    }

    fn best(stats: &[RootStats]) -> u32 {
        stats
            .iter()
            .max_by_key(|s| s.visits)
            .expect("visited")
            .action
    }

    /// Two seats take turns saying 0 or 1 (the action ids) for 40 moves; the game is a
    /// draw, so only a model can prefer one word to the other.
    #[derive(Clone)]
    pub(crate) struct Words {
        pub(crate) ones: u32,
        pub(crate) moves: u32,
    }

    impl SearchGame for Words {
        fn to_move(&self) -> usize {
            (self.moves % 2) as usize
        }
        fn is_over(&self) -> bool {
            self.moves == 40
        }
        fn final_rewards(&self) -> [f64; 4] {
            [0.5, 0.5, 0.0, 0.0]
        }
        fn legal_ids(&mut self, out: &mut Vec<u32>) {
            out.clear();
            out.extend([0, 1]);
        }
        fn apply_quiet(&mut self, id: u32) {
            self.ones += id;
            self.moves += 1;
        }
        toy_rest!(policy 0, batch 48);
    }

    /// A model that knows the answer: seat 0 is better off the more 1s were said. Its
    /// features: (ones, moves, the seat to move); its values relative to the mover, as the
    /// contract says, or (`absolute`, the mistake) in seat order.
    struct PrefersSeatZero {
        absolute: bool,
    }

    impl LeafModel<Words> for PrefersSeatZero {
        fn width(&self) -> usize {
            3
        }
        fn features(&self, world: &Words, _scratch: &mut ModelScratch, out: &mut [f32]) {
            out.copy_from_slice(&[
                world.ones as f32,
                world.moves as f32,
                world.to_move() as f32,
            ]);
        }
        fn logit(&self, _features: &[f32], _id: u32) -> f32 {
            0.0
        }
        fn values(&self, features: &[f32], out: &mut [f64]) {
            let lead = f64::from(features[0]) - f64::from(features[1]) / 2.0;
            let zero = 1.0 / (1.0 + (-lead).exp());
            let mover = features[2] as usize;
            let (first, second) = if mover == 0 || self.absolute {
                (zero, 1.0 - zero)
            } else {
                (1.0 - zero, zero)
            };
            out[0] = first;
            out[1] = second;
        }
    }

    /// The word seat `moves % 2` says after searching with the model.
    fn word(moves: u32, pure: bool, absolute: bool) -> u32 {
        let game = Words { ones: 0, moves };
        let learned = Learned {
            model: std::sync::Arc::new(PrefersSeatZero { absolute })
                as std::sync::Arc<dyn LeafModel<Words>>,
            pure,
            blend: 0.5,
        };
        let budget = Budget {
            iterations: Some(400),
            ..Budget::default()
        };
        let seat = (moves % 2) as usize;
        let (_, stats) = search_learned(
            &game,
            seat,
            budget,
            Params::default(),
            &[3],
            None,
            Some(&learned),
        );
        best(&stats)
    }

    #[test]
    fn a_value_preferring_seat_zero_turns_the_two_seats_opposite_ways() {
        for pure in [false, true] {
            assert_eq!(word(0, pure, false), 1, "seat 0 says 1 (pure {pure})");
            assert_eq!(word(1, pure, false), 0, "seat 1 says 0 (pure {pure})");
            // Values handed over in seat order where the contract wants them relative to
            // the mover: seat 0's leaves (seat 1 to move there) mislead it into helping
            // seat 1.
            assert_eq!(
                word(0, pure, true),
                0,
                "the mistake misleads seat 0 (pure {pure})"
            );
        }
    }

    /// A model whose prior knows the good word (1 for seat 0, 0 for seat 1) and whose value
    /// knows nothing.
    struct KnowsTheWord;

    impl LeafModel<Words> for KnowsTheWord {
        fn width(&self) -> usize {
            1
        }
        fn features(&self, world: &Words, _scratch: &mut ModelScratch, out: &mut [f32]) {
            out[0] = world.to_move() as f32;
        }
        fn logit(&self, features: &[f32], id: u32) -> f32 {
            let good = if features[0] == 0.0 { 1 } else { 0 };
            if id == good {
                3.0
            } else {
                0.0
            }
        }
        fn values(&self, _features: &[f32], out: &mut [f64]) {
            out[0] = 0.5;
            out[1] = 0.5;
        }
    }

    #[test]
    fn a_learned_prior_orders_the_widening_and_noise_moves_it() {
        let learned = Learned {
            model: std::sync::Arc::new(KnowsTheWord) as std::sync::Arc<dyn LeafModel<Words>>,
            pure: true,
            blend: 1.0,
        };
        let params = Params {
            widening: 1.0, // one child until the second visit
            ..Params::default()
        };
        let budget = Budget {
            iterations: Some(1),
            ..Budget::default()
        };
        for (moves, good) in [(0, 1), (1, 0)] {
            let game = Words { ones: 0, moves };
            for seed in 0..10 {
                let mut tree = Tree::new(&game, (moves % 2) as usize, params, seed, None);
                tree.set_learned(learned.clone());
                tree.run(budget);
                assert_eq!(
                    tree.stats()[0].action,
                    good,
                    "the first child is the prior's"
                );
            }
        }
        // Heavy noise picks the first child at random.
        let mut first = [0; 2];
        for seed in 0..40 {
            let game = Words { ones: 0, moves: 0 };
            let mut tree = Tree::new(&game, 0, params, seed, None);
            tree.set_learned(learned.clone());
            tree.set_root_noise(RootNoise {
                weight: 1.0,
                alpha: 0.3,
            });
            tree.run(budget);
            first[tree.stats()[0].action as usize] += 1;
        }
        assert!(first[0] >= 5 && first[1] >= 5, "{first:?}");
    }

    #[test]
    fn dirichlet_shares_sum_to_one_and_spread_with_alpha() {
        let mut rng = SplitMix64::new(5);
        for alpha in [0.03, 0.3, 1.0, 5.0] {
            let draw = dirichlet(&mut rng, alpha, 10);
            assert!((draw.iter().sum::<f64>() - 1.0).abs() < 1e-9);
            assert!(draw.iter().all(|&x| x >= 0.0));
        }
        let peak = |alpha: f64, rng: &mut SplitMix64| {
            (0..200)
                .map(|_| dirichlet(rng, alpha, 10).into_iter().fold(0.0, f64::max))
                .sum::<f64>()
                / 200.0
        };
        assert!(peak(0.05, &mut rng) > 0.7);
        assert!(peak(10.0, &mut rng) < 0.25);
    }

    #[test]
    fn lists_in_an_arena_keep_their_items_as_they_grow_and_move() {
        let mut arena: Vec<u32> = Vec::new();
        let mut spans = [Span::default(); 3];
        let mut expected: [Vec<u32>; 3] = Default::default();
        for i in 0..300u32 {
            let list = [0, 0, 1, 2, 1, 0, 2][i as usize % 7]; // interleaved, unevenly
            push_to(&mut arena, &mut spans[list], i);
            expected[list].push(i);
            for (span, items) in spans.iter().zip(&expected) {
                assert_eq!(&arena[span.range()], &items[..]);
            }
        }
        // Each list's old places add up to less than its room, at most twice its length.
        assert!(
            arena.len() <= 4 * 300 + 3 * 4,
            "{} kept for 300",
            arena.len()
        );
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
        toy_rest!(policy 0, batch 3);
        fn urgent(&mut self, out: &mut Vec<u32>) {
            out.clear();
            out.push(7);
        }
    }

    /// The actions each node below the root scored, in scoring order.
    fn scored_below(urgent: bool) -> Vec<Vec<u32>> {
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
            .filter(|n| n.scored.len > 0)
            .map(|n| {
                tree.scored_of[n.scored.range()]
                    .iter()
                    .map(|s| s.id)
                    .collect()
            })
            .collect()
    }

    #[test]
    fn an_urgent_action_is_in_every_batch_below_the_root() {
        let nodes = scored_below(true);
        assert!(nodes.len() >= 10, "{}", nodes.len());
        for scored in &nodes {
            assert!(
                scored.len() % 3 == 0,
                "batches of 3, the urgent one among them"
            );
            assert!(scored[..3].contains(&7));
        }
        let nodes = scored_below(false);
        let with = nodes.iter().filter(|s| s[..3].contains(&7)).count();
        assert!(
            with < nodes.len() / 2,
            "{with} of {} by chance alone",
            nodes.len()
        );
    }

    /// Seat 0 moves (one action), then seat 1 plays its hidden tile (1 or 2, dealt anew in
    /// every world) with action 10, or passes (11). Tile 1 wins for seat 1, tile 2 loses;
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
    fn the_seconds_count_from_when_the_search_was_asked_for() {
        // Trees whose threads start after the seconds are up run their floor only (each
        // tree its share), however late they start.
        let game = Nim {
            left: 9,
            mover: 0,
            ruled: false,
        };
        let budget = Budget {
            iterations: None,
            seconds: Some(0.5),
            floor: Some(30),
        };
        let asked = Instant::now() - std::time::Duration::from_secs(2);
        let mut forest = Forest::new(&game, 0, Params::default(), &[1, 2, 3], None);
        let (iterations, _) = forest.run_from(budget, asked);
        assert_eq!(iterations, 30);
        let mut tree = Tree::new(&game, 0, Params::default(), 1, None);
        tree.run_from(budget, asked);
        assert_eq!(tree.iterations, 30);
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
            stop: true,
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
}
