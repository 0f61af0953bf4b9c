//! Batched self-play: B games played at once by the native ISMCTS in every seat, a search at
//! each decision with a choice, the positions recorded as `cradle.selfplay` writes them; and
//! the search's hook for a learned leaf evaluator (an [`Evaluator`]: a batch of the leaves'
//! observations in, priors over action ids and values per seat out), asked once per step
//! for one leaf of every game's tree.
//!
//! How an evaluator's answer enters a tree (docs/research.md says the same):
//! - the **prior** row `p` (one entry per action id) of a node's first world: each of that
//!   world's legal actions `a` adds `ln(max(p[a] / max_legal p, 1e-6))` to the game's prior
//!   score of `a` when the node scores its actions (the score behind the order of widening
//!   and the UCB bias): the model's prior multiplies the game's (in the exponent),
//!   renormalised so that its most likely legal action is 1. The root's row comes from the
//!   position's own observation before the first iteration, a leaf's from the world that
//!   reached it.
//! - the **value** row (one entry per seat, in the rank rewards' scale) is added to the
//!   leaf's own evaluation (settled, rolled out, judged) before the backup; a finished game's
//!   exact rewards take nothing.
//!
//! A model answering equal priors and zero values adds exactly 0 everywhere: the trees, the
//! visits and the moves are those of the plain search with the same seeds.

use super::{Budget, Params, RootStats, SearchGame, Tree};
use crate::bots::StallGuard;
use crate::splitmix::SplitMix64;

/// The floor of the model prior's ratio to its most likely legal action (a prior of 0 must
/// stay finite).
const PRIOR_FLOOR: f64 = 1e-6;

/// What self-play needs of a game beside the search.
pub trait SelfPlayGame: SearchGame {
    /// Elements of one observation.
    fn observation_size(&self) -> usize;
    /// Write the observation of `seat` (every element of `out`).
    fn observe(&self, seat: usize, out: &mut [f32]);
    /// The public bag size the search bots' stall guard watches (None: no guard).
    fn bag(&self) -> Option<usize> {
        None
    }
    /// Whether action `id` uses up tiles (what the stall guard lets through once it fires).
    fn uses_tiles(&self, _id: u32) -> bool {
        false
    }
}

/// A learned leaf evaluator: `rows` observations (`rows × W`, row-major) in; priors over the
/// action ids (`rows × actions`) and values per seat (`rows × players`) out, checked by the
/// caller.
pub trait Evaluator {
    fn evaluate(
        &mut self,
        observations: &[f32],
        rows: usize,
    ) -> Result<(Vec<f32>, Vec<f32>), String>;
}

/// How the games are played.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Iterations per search.
    pub iterations: u64,
    pub params: Params,
    /// The move cap: a game that reaches it stops there.
    pub cap: usize,
    /// Width of the action id space (an evaluator's prior rows).
    pub actions: usize,
    /// The stall guard's relapse (the search bots': 2).
    pub relapse: u32,
}

/// The positions and records of a batch, game by game, ply by ply (`cradle.selfplay`'s
/// shard arrays; `game` is the game's index in the batch).
#[derive(Default, Debug)]
pub struct Output {
    pub observation: Vec<f32>,
    pub legal_ids: Vec<i32>,
    pub visits: Vec<f32>,
    pub offsets: Vec<i64>,
    pub seat: Vec<i64>,
    pub ply: Vec<i64>,
    pub game: Vec<i64>,
    pub game_actions: Vec<i64>,
    pub game_offsets: Vec<i64>,
    /// The evaluator's calls and the rows it was given.
    pub calls: u64,
    pub rows: u64,
}

/// One position's record.
struct Position {
    observation: Vec<f32>,
    legal: Vec<u32>,
    visits: Vec<f32>,
    seat: usize,
    ply: usize,
}

/// A decision being searched.
struct Search<G: SearchGame> {
    tree: Tree<G>,
    legal: Vec<u32>,
    /// Whether the root's prior row was asked for (with an evaluator).
    rooted: bool,
}

/// One game of the batch.
struct Slot<G: SearchGame> {
    state: G,
    /// Per seat: its seeds' generator and its stall guard.
    seats: Vec<(SplitMix64, StallGuard)>,
    actions: Vec<u32>,
    positions: Vec<Position>,
    search: Option<Search<G>>,
    done: bool,
}

/// The most visited root action (the higher mean reward among equals, then the lower id),
/// as the native `ismcts@N` opponents choose.
pub fn most_visited(stats: &[RootStats]) -> u32 {
    stats
        .iter()
        .max_by(|a, b| {
            let mean = |r: &RootStats| r.total / r.visits.max(1) as f64;
            a.visits
                .cmp(&b.visits)
                .then(mean(a).total_cmp(&mean(b)))
                .then(b.action.cmp(&a.action))
        })
        .map(|r| r.action)
        .expect("a search visits at least one root action")
}

impl<G: SelfPlayGame> Slot<G> {
    /// Play forced and guarded moves until a decision needs a search (started) or the game
    /// ends or reaches the cap.
    fn advance(&mut self, config: &Config) {
        let mut legal = Vec::new();
        loop {
            if self.state.is_over() || self.actions.len() >= config.cap {
                self.done = true;
                return;
            }
            let seat = self.state.to_move();
            self.state.legal_ids(&mut legal);
            if legal.len() == 1 {
                self.play(legal[0]);
                continue;
            }
            let bag = self.state.bag();
            let state = &self.state;
            let (rng, guard) = &mut self.seats[seat];
            let allowed: Vec<u32> = guard
                .allowed(bag, legal.len(), |i| state.uses_tiles(legal[i]))
                .into_iter()
                .map(|i| legal[i])
                .collect();
            if allowed.len() == 1 {
                self.play(allowed[0]);
                continue;
            }
            let only = (allowed.len() < legal.len()).then_some(allowed.as_slice());
            let tree = Tree::new(&self.state, seat, config.params, rng.next_u64(), only);
            self.search = Some(Search {
                tree,
                legal: std::mem::take(&mut legal),
                rooted: false,
            });
            return;
        }
    }

    fn play(&mut self, id: u32) {
        self.state.apply_quiet(id);
        self.actions.push(id);
    }

    /// Record the finished search's position and play its move.
    fn decide(&mut self) {
        let search = self.search.take().expect("a search to finish");
        let seat = self.state.to_move();
        let stats = search.tree.stats();
        let total: u64 = stats.iter().map(|r| r.visits).sum();
        let visits = search
            .legal
            .iter()
            .map(|&id| {
                let n = stats
                    .iter()
                    .find(|r| r.action == id)
                    .map_or(0, |r| r.visits);
                (n as f64 / total.max(1) as f64) as f32
            })
            .collect();
        let mut observation = vec![0.0; self.state.observation_size()];
        self.state.observe(seat, &mut observation);
        self.positions.push(Position {
            observation,
            legal: search.legal,
            visits,
            seat,
            ply: self.actions.len(),
        });
        self.play(most_visited(&stats));
    }
}

/// A leaf waiting for the evaluator: its game, the new node (None: the root's row), the
/// legal ids of the world that reached it, and its own evaluation.
struct Pending {
    slot: usize,
    node: Option<u32>,
    legal: Vec<u32>,
    rewards: [f64; 4],
}

/// Play `games` (each from its state, its seats' search seeds drawn from `seeds[i][seat]`) to
/// the end or the cap, every seat the native ISMCTS with `config`; with `evaluator`, every
/// step of all the games' searches asks it once for one leaf per tree.
pub fn play<G: SelfPlayGame>(
    games: Vec<G>,
    seeds: &[Vec<u64>],
    config: &Config,
    mut evaluator: Option<&mut dyn Evaluator>,
) -> Result<Output, String> {
    let mut slots: Vec<Slot<G>> = games
        .into_iter()
        .zip(seeds)
        .map(|(state, seeds)| Slot {
            seats: seeds
                .iter()
                .map(|&s| (SplitMix64::new(s), StallGuard::new(10, config.relapse)))
                .collect(),
            state,
            actions: Vec::new(),
            positions: Vec::new(),
            search: None,
            done: false,
        })
        .collect();
    let budget = Budget {
        iterations: Some(config.iterations),
        seconds: None,
        floor: None,
    };
    let mut out = Output::default();
    let mut pending: Vec<Pending> = Vec::new();
    let mut batch: Vec<f32> = Vec::new();
    loop {
        for slot in slots.iter_mut() {
            if !slot.done && slot.search.is_none() {
                slot.advance(config);
            }
        }
        if slots.iter().all(|s| s.done) {
            break;
        }
        let Some(evaluator) = evaluator.as_deref_mut() else {
            // Nothing to gather: each search runs whole.
            for slot in slots.iter_mut().filter(|s| s.search.is_some()) {
                slot.search.as_mut().expect("a search").tree.run(budget);
                slot.decide();
            }
            continue;
        };
        pending.clear();
        batch.clear();
        for (i, slot) in slots.iter_mut().enumerate() {
            let Some(search) = slot.search.as_mut() else {
                continue;
            };
            let start = batch.len();
            batch.resize(start + slot.state.observation_size(), 0.0);
            if !search.rooted {
                search.rooted = true;
                slot.state
                    .observe(slot.state.to_move(), &mut batch[start..]);
                pending.push(Pending {
                    slot: i,
                    node: None,
                    legal: search.legal.clone(),
                    rewards: [0.0; 4],
                });
                continue;
            }
            let tree = &mut search.tree;
            let mut world = tree.next_world();
            match tree.descend(&mut world) {
                Some(node) if !world.is_over() => {
                    world.observe(world.to_move(), &mut batch[start..]);
                    let mut legal = Vec::new();
                    world.legal_ids(&mut legal);
                    let rewards = tree.evaluate_leaf(&mut world);
                    pending.push(Pending {
                        slot: i,
                        node: Some(node),
                        legal,
                        rewards,
                    });
                }
                _ => {
                    // the end of the game: its exact rewards, nothing to ask
                    batch.truncate(start);
                    tree.back_up(world.final_rewards());
                }
            }
        }
        if !pending.is_empty() {
            let rows = pending.len();
            let (priors, values) = evaluator.evaluate(&batch, rows)?;
            check(
                &priors,
                &values,
                rows,
                config.actions,
                slots[0].state.players(),
            )?;
            out.calls += 1;
            out.rows += rows as u64;
            let players = slots[0].state.players();
            for (r, leaf) in pending.drain(..).enumerate() {
                let prior = &priors[r * config.actions..(r + 1) * config.actions];
                let factors = prior_factors(prior, &leaf.legal)?;
                let tree = &mut slots[leaf.slot].search.as_mut().expect("a search").tree;
                match leaf.node {
                    None => tree.set_prior_factors(0, factors),
                    Some(node) => {
                        tree.set_prior_factors(node, factors);
                        let mut rewards = leaf.rewards;
                        for (seat, reward) in rewards.iter_mut().take(players).enumerate() {
                            *reward += f64::from(values[r * players + seat]);
                        }
                        tree.back_up(rewards);
                    }
                }
            }
        }
        for slot in slots.iter_mut() {
            if slot
                .search
                .as_ref()
                .is_some_and(|s| s.tree.iterations >= config.iterations)
            {
                slot.decide();
            }
        }
    }
    out.offsets.push(0);
    out.game_offsets.push(0);
    for (i, slot) in slots.into_iter().enumerate() {
        for p in slot.positions {
            out.observation.extend_from_slice(&p.observation);
            out.legal_ids.extend(p.legal.iter().map(|&id| id as i32));
            out.visits.extend_from_slice(&p.visits);
            out.offsets.push(out.legal_ids.len() as i64);
            out.seat.push(p.seat as i64);
            out.ply.push(p.ply as i64);
            out.game.push(i as i64);
        }
        out.game_actions
            .extend(slot.actions.iter().map(|&id| i64::from(id)));
        out.game_offsets.push(out.game_actions.len() as i64);
    }
    Ok(out)
}

/// The evaluator's answer has its shape and finite values (the priors the search reads are
/// checked by [`prior_factors`]).
fn check(
    priors: &[f32],
    values: &[f32],
    rows: usize,
    actions: usize,
    players: usize,
) -> Result<(), String> {
    if priors.len() != rows * actions || values.len() != rows * players {
        return Err(format!(
            "the evaluator must return priors of shape ({rows}, {actions}) and values of \
             shape ({rows}, {players})"
        ));
    }
    if values.iter().any(|v| !v.is_finite()) {
        return Err("the evaluator's values must be finite".into());
    }
    Ok(())
}

/// A prior row's factors for `legal` (see the module's documentation): each legal action's
/// prior over the most likely legal action's, floored at [`PRIOR_FLOOR`] (the tree adds
/// their logs). The legal actions' priors must be finite and at least 0 (the others are
/// not read).
pub fn prior_factors(prior: &[f32], legal: &[u32]) -> Result<Vec<(u32, f64)>, String> {
    let mut most = 0.0f64;
    for &id in legal {
        let Some(&p) = prior.get(id as usize) else {
            return Err(format!(
                "action id {id} is outside the evaluator's {} priors",
                prior.len()
            ));
        };
        if !(p.is_finite() && p >= 0.0) {
            return Err("the evaluator's priors must be finite and at least 0".into());
        }
        most = most.max(f64::from(p));
    }
    if most <= 0.0 {
        return Err("the evaluator gave every legal action a prior of 0".into());
    }
    Ok(legal
        .iter()
        .map(|&id| (id, (f64::from(prior[id as usize]) / most).max(PRIOR_FLOOR)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::seat::tigris_root;
    use crate::tigris::{State, World};

    #[test]
    fn equal_priors_add_exactly_nothing() {
        let prior = vec![0.25f32; 4];
        let factors = prior_factors(&prior, &[0, 2, 3]).expect("factors");
        assert!(factors.iter().all(|&(_, f)| f == 1.0 && f.ln() == 0.0));
        let factors = prior_factors(&[0.5, 0.0, 0.25], &[0, 1, 2]).expect("factors");
        assert_eq!(factors, vec![(0, 1.0), (1, PRIOR_FLOOR), (2, 0.5)]);
        assert!(prior_factors(&[0.0, 1.0], &[0]).is_err());
        assert!(prior_factors(&[1.0], &[3]).is_err());
        assert!(prior_factors(&[1.0, f32::NAN], &[0, 1]).is_err());
        assert!(prior_factors(&[1.0, -0.5], &[0, 1]).is_err());
        assert!(prior_factors(&[1.0, -0.5], &[0]).is_ok()); // an illegal action's is not read
    }

    /// The batch with an evaluator answering equal priors and zero values plays the plain
    /// batch's games, visit for visit.
    struct Neutral {
        actions: usize,
        players: usize,
    }

    impl Evaluator for Neutral {
        fn evaluate(
            &mut self,
            _observations: &[f32],
            rows: usize,
        ) -> Result<(Vec<f32>, Vec<f32>), String> {
            Ok((
                vec![1.0; rows * self.actions],
                vec![0.0; rows * self.players],
            ))
        }
    }

    fn tigris_games(count: u128) -> Vec<World> {
        (0..count)
            .map(|seed| tigris_root(&State::deal(&[0, 1], Default::default(), seed + 11)).0)
            .collect()
    }

    #[test]
    fn a_neutral_evaluator_changes_nothing() {
        let config = Config {
            iterations: 12,
            params: tigris_root(&State::deal(&[0, 1], Default::default(), 1)).1,
            cap: 40,
            actions: 3398,
            relapse: 2,
        };
        let seeds = vec![vec![3, 4], vec![5, 6]];
        let plain = play(tigris_games(2), &seeds, &config, None).expect("played");
        let mut neutral = Neutral {
            actions: 3398,
            players: 2,
        };
        let modelled = play(tigris_games(2), &seeds, &config, Some(&mut neutral)).expect("played");
        assert!(modelled.calls > 0);
        assert!(plain.seat.len() > 5);
        assert_eq!(plain.visits, modelled.visits);
        assert_eq!(plain.game_actions, modelled.game_actions);
        assert_eq!(plain.observation, modelled.observation);
    }
}
