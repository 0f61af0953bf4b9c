//! The native single-observer ISMCTS (the Python reference is `cradle.ai.search.ismcts`), generic over
//! a game's [`SearchGame`]: determinization, selection, expansion, settling and evaluation
//! all run on native states and fixed action ids.
//!
//! - [`SearchGame`]: what a game and its knowledge give the search;
//! - [`tree`]: one tree and root parallelism on threads;
//! - [`batched`]: self-play of a batch of games, with an optional learned evaluator;
//! - [`model`]: the learned evaluations' weights;
//! - [`LeafModel`]: a learned network at the leaves (`crate::nn`), used by a tree with
//!   [`Learned`].

pub mod batched;
pub mod model;
pub mod tree;

pub use tree::{search, search_learned, Budget, Forest, Params, RootStats, Tree};

use std::sync::Arc;

use crate::splitmix::SplitMix64;

/// What the native ISMCTS needs from a game. Ids are the game's fixed action ids.
pub trait SearchGame: Clone + Send {
    fn players(&self) -> usize;
    fn to_move(&self) -> usize;
    fn is_over(&self) -> bool;
    /// Rewards of a finished game per seat (cradle.core.results.rank_rewards: 1 for a 2-player win, ties shared).
    fn final_rewards(&self) -> [f64; 4];
    fn legal_ids(&mut self, out: &mut Vec<u32>);
    /// Whether `legal_count` and `legal_order` answer without listing the legal ids: the
    /// search then lists a node's actions only to score some.
    const COUNTS: bool = false;
    /// How many actions `legal_ids` lists (asked where [`SearchGame::COUNTS`]).
    fn legal_count(&mut self) -> usize {
        let mut ids = Vec::new();
        self.legal_ids(&mut ids);
        ids.len()
    }
    /// Where `legal_ids` lists `id`: its place, or any number that orders the legal ids as
    /// the list does; None where it is not legal (asked where [`SearchGame::COUNTS`]).
    fn legal_order(&mut self, id: u32) -> Option<u32> {
        let mut ids = Vec::new();
        self.legal_ids(&mut ids);
        ids.iter().position(|&a| a == id).map(|i| i as u32)
    }
    fn apply_quiet(&mut self, id: u32);
    /// A world `observer` cannot tell from this state, dealt from `dealer` (as
    /// `sample_hidden(observer, dealer)` with a `CanonicalRandom`): a tree deals every world
    /// from one generator, each world going on where the last one stopped.
    fn deal(&self, observer: usize, dealer: &mut CpythonRandom) -> Self;
    /// Move priors of the seat to move for `ids` (all legal here), as the Python Knowledge.priors.
    fn priors(&mut self, ids: &[u32], out: &mut Vec<f64>);
    /// A decision in progress that the quick policy settles before judging (Knowledge.unsettled).
    fn unsettled(&mut self) -> bool;
    /// The quick policy's action (Knowledge.policy).
    fn policy(&mut self, rng: &mut SplitMix64) -> u32;
    /// The heuristic reward vector of an unfinished world (Knowledge.rewards).
    fn heuristic_rewards(&mut self) -> [f64; 4];
    /// Uniformly random moves before the heuristic (Tigris 0, Gheos 8) and the prior batch below the root (48, 16).
    fn playout_moves(&self) -> usize;
    fn prior_batch(&self) -> usize;
    /// The actions that must not be left out of a batch of priors below the root (with
    /// `Params::urgent`): in Gheos, the tile actions that start a war or a migration, the
    /// replies that can take a civilization off the table. None by default.
    fn urgent(&mut self, out: &mut Vec<u32>) {
        out.clear();
    }
    /// A uniformly random legal action: `legal[rng.below(legal.len())]` of what `legal_ids`
    /// lists (so the same draw gives the same action); a game may find it without listing
    /// them all. `scratch` is the caller's buffer.
    fn random_id(&mut self, rng: &mut SplitMix64, scratch: &mut Vec<u32>) -> u32 {
        self.legal_ids(scratch);
        scratch[rng.below(scratch.len())]
    }
    /// A move a random playout makes by rule rather than by chance (none by default).
    fn ruled_move(&mut self) -> Option<u32> {
        None
    }
}

/// A learned evaluation of a game's positions, asked by a tree at each new leaf and when a
/// node scores its actions: the features of a world as its seat to move sees it (kept per
/// node), from them a logit per action id (the prior, up to a constant) and every seat's
/// value **relative to the seat to move** (index 0: the mover, 1: the next seat, ...; the
/// rank rewards' scale, 1 a 2-player win), which the tree turns to its own seat order.
pub trait LeafModel<G>: Send + Sync {
    /// How many features a node keeps.
    fn width(&self) -> usize;
    /// The features of `world` from its seat to move's view (`width` of them into `out`).
    fn features(&self, world: &G, scratch: &mut ModelScratch, out: &mut [f32]);
    /// The logit of action `id` (a legal id of the world whose features these are).
    fn logit(&self, features: &[f32], id: u32) -> f32;
    /// Each seat's value, relative to the seat to move (`players` of them into `out`).
    fn values(&self, features: &[f32], out: &mut [f64]);
}

/// A caller's working space for [`LeafModel::features`] (each tree has its own).
#[derive(Default, Clone, Debug)]
pub struct ModelScratch {
    pub observation: Vec<f32>,
    pub layers: [Vec<f32>; 2],
}

/// How a tree uses a [`LeafModel`]:
/// - `pure` off: a leaf's reward is its own evaluation (settled, rolled out, judged by the
///   game's knowledge) moved towards the model's values by `blend` (`own + blend × (model -
///   own)`), and the model's log-prior is added to the knowledge's prior score;
/// - `pure` on: the model alone (no knowledge: no settling, no rollout, no judging, no
///   hand-written priors or urgent actions): the leaf's reward is the model's values, the
///   prior score its log-prior.
///
/// A finished game's exact rewards take nothing from the model.
pub struct Learned<G> {
    pub model: Arc<dyn LeafModel<G>>,
    pub pure: bool,
    pub blend: f64,
}

impl<G> Clone for Learned<G> {
    fn clone(&self) -> Self {
        Learned {
            model: Arc::clone(&self.model),
            pure: self.pure,
            blend: self.blend,
        }
    }
}

/// Dirichlet noise at a tree's root (AlphaZero's exploration in self-play): the root's prior
/// probabilities `p` (the softmax of its prior scores) become `(1 - weight) p + weight η`,
/// `η ~ Dirichlet(alpha)`, by adding `ln(p'/p)` to each root action's prior score.
#[derive(Clone, Copy, Debug)]
pub struct RootNoise {
    pub weight: f64,
    pub alpha: f64,
}

/// The first `count` worlds a search tree deals for `observer` from `CanonicalRandom(seed)`
/// (`SearchGame::deal`, each going on where the last stopped): the games' `*_ai_worlds`
/// hooks, for the lockstep tests against the reference's `next_world`.
pub fn tree_worlds<G: SearchGame>(
    root: &G,
    observer: usize,
    seed: u64,
    count: usize,
) -> Result<Vec<G>, String> {
    if observer >= root.players() {
        return Err(format!("no seat {observer}"));
    }
    let mut dealer = CpythonRandom::from_u64(seed);
    Ok((0..count)
        .map(|_| root.deal(observer, &mut dealer))
        .collect())
}

/// The chance that one estimated final score beats another: a logistic of the gap (the
/// reference's `cradle.ai.knowledge.base.beats`).
pub fn beats(mine: f64, theirs: f64, temperature: f64) -> f64 {
    let x = (mine - theirs) / temperature;
    1.0 / (1.0 + (-x.clamp(-30.0, 30.0)).exp())
}

/// Each seat's expected share of opponents beaten, from estimated final scores (the
/// reference's `cradle.ai.knowledge.base.pairwise_chances`), for every game's knowledge.
pub fn pairwise_chances(values: &[f64], temperature: f64) -> [f64; 4] {
    let n = values.len();
    let mut out = [0.0; 4];
    if n < 2 {
        out[..n].fill(1.0);
        return out;
    }
    for i in 0..n {
        let mut total = 0.0;
        for j in 0..n {
            if i != j {
                total += beats(values[i], values[j], temperature);
            }
        }
        out[i] = total / (n - 1) as f64;
    }
    out
}

pub use crate::cpython_random::CpythonRandom;
