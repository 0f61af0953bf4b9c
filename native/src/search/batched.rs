//! Batched self-play: B games played at once by the native ISMCTS in every seat, a search at
//! each decision with a choice, the positions recorded as `cradle.selfplay` writes them.
//! A seat may search with its own native model ([`Learned`], evaluated inside its trees), or
//! every seat with one batched leaf evaluator (an [`Evaluator`]: the leaves' observations and
//! seats to move in, priors over action ids and values per seat out), asked once per step for
//! one leaf of every game's tree. Self-play's exploration: a temperature over the root visits
//! for a game's first moves, Dirichlet noise at the roots ([`Config`]).
//!
//! How an evaluator's answer enters a tree (docs/research.md says the same):
//! - the **prior** row `p` (one entry per action id) of a node's first world: each of that
//!   world's legal actions `a` adds `ln(max(p[a] / max_legal p, 1e-6))` to the game's prior
//!   score of `a` when the node scores its actions (the score behind the order of widening
//!   and the UCB bias): the model's prior multiplies the game's (in the exponent),
//!   renormalised so that its most likely legal action is 1. The root's row comes from the
//!   position's own observation before the first iteration, a leaf's from the world that
//!   reached it.
//! - the **value** row: each seat's expected rank reward (1 a 2-player win), **relative to
//!   the row's seat to move** (entry k is seat `(mover + k) % players`'s), as a native
//!   [`crate::search::LeafModel`]'s; the search turns it to seat order. The leaf's reward is
//!   its own evaluation (settled, rolled out, judged) moved towards it by `blend`, or (`pure`)
//!   the value alone. A finished game's exact rewards take nothing.
//!
//! With `blend` 0, a model answering equal priors changes nothing: the trees, the visits and
//! the moves are those of the plain search with the same seeds.

use super::{Budget, Learned, Params, RootNoise, RootStats, SearchGame, Tree};
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

/// A learned leaf evaluator: a batch of leaves in, one row each: its observation (`W`
/// elements of `observations`, row-major) from its seat to move's view and that seat
/// (`seats`), in a game of `players`; out, priors over the action ids (`rows × actions`) and
/// values per seat relative to the seat to move (`rows × players`; the module's
/// documentation), checked by the caller.
pub trait Evaluator {
    fn evaluate(
        &mut self,
        observations: &[f32],
        seats: &[usize],
        players: usize,
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
    /// With an [`Evaluator`]: its values alone at the leaves, the game's knowledge off
    /// (`pure`), else mixed into the leaf's evaluation by `blend` (module documentation).
    pub pure: bool,
    pub blend: f64,
    /// The move played: drawn in proportion to `visits ^ (1 / temperature)` while the game
    /// has had fewer than `sampled` moves (0: always the most visited).
    pub temperature: f64,
    pub sampled: usize,
    /// Dirichlet noise at every search's root.
    pub noise: Option<RootNoise>,
}

impl Config {
    /// `iterations` of the plain search with `params`: no evaluator settings, the most
    /// visited move, no noise.
    pub fn plain(iterations: u64, params: Params, cap: usize, actions: usize) -> Config {
        Config {
            iterations,
            params,
            cap,
            actions,
            relapse: 2,
            pure: false,
            blend: 0.0,
            temperature: 0.0,
            sampled: 0,
            noise: None,
        }
    }
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
/// as the native `ismcts@N` opponents and seats (`bots::seat`) choose.
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
    /// ends or reaches the cap; the search with its seat's model (`models`), if any.
    fn advance(&mut self, config: &Config, models: &[Option<Learned<G>>], batched: bool) {
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
            let mut tree = Tree::new(&self.state, seat, config.params, rng.next_u64(), only);
            if let Some(Some(learned)) = models.get(seat) {
                tree.set_learned(learned.clone());
            } else if batched && config.pure {
                tree.set_pure();
            }
            if let Some(noise) = config.noise {
                tree.set_root_noise(noise);
            }
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
    fn decide(&mut self, config: &Config) {
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
        let chosen = if self.actions.len() < config.sampled && config.temperature > 0.0 {
            sampled(&stats, config.temperature, &mut self.seats[seat].0)
        } else {
            most_visited(&stats)
        };
        self.play(chosen);
    }
}

/// A root action drawn in proportion to `visits ^ (1 / temperature)`.
pub fn sampled(stats: &[RootStats], temperature: f64, rng: &mut SplitMix64) -> u32 {
    let most = stats.iter().map(|r| r.visits).max().unwrap_or(0).max(1) as f64;
    let weights: Vec<f64> = stats
        .iter()
        .map(|r| (r.visits as f64 / most).powf(1.0 / temperature))
        .collect();
    let mut left = rng.unit() * weights.iter().sum::<f64>();
    for (r, w) in stats.iter().zip(&weights) {
        if left < *w {
            return r.action;
        }
        left -= w;
    }
    most_visited(stats)
}

/// A leaf waiting for the evaluator: its game, the new node (None: the root's row), the
/// legal ids of the world that reached it, its seat to move and its own evaluation (None:
/// the knowledge is off).
struct Pending {
    slot: usize,
    node: Option<u32>,
    legal: Vec<u32>,
    mover: usize,
    rewards: Option<[f64; 4]>,
}

/// Play `games` (each from its state, its seats' search seeds drawn from `seeds[i][seat]`) to
/// the end or the cap, every seat the native ISMCTS with `config`, each seat with its model
/// in `models` (by seat; none or empty: the plain search); or, with `evaluator` (and no
/// models), every step of all the games' searches asks it once for one leaf per tree.
pub fn play<G: SelfPlayGame>(
    games: Vec<G>,
    seeds: &[Vec<u64>],
    config: &Config,
    models: &[Option<Learned<G>>],
    mut evaluator: Option<&mut dyn Evaluator>,
) -> Result<Output, String> {
    if evaluator.is_some() && models.iter().any(Option::is_some) {
        return Err("either native models or an evaluator, not both".into());
    }
    let batched = evaluator.is_some();
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
                slot.advance(config, models, batched);
            }
        }
        if slots.iter().all(|s| s.done) {
            break;
        }
        let Some(evaluator) = evaluator.as_deref_mut() else {
            // Nothing to gather: each search runs whole.
            for slot in slots.iter_mut().filter(|s| s.search.is_some()) {
                slot.search.as_mut().expect("a search").tree.run(budget);
                slot.decide(config);
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
                    mover: slot.state.to_move(),
                    rewards: None,
                });
                continue;
            }
            let tree = &mut search.tree;
            let mut world = tree.next_world();
            match tree.descend(&mut world) {
                Some(node) if !world.is_over() => {
                    let mover = world.to_move();
                    world.observe(mover, &mut batch[start..]);
                    let mut legal = Vec::new();
                    world.legal_ids(&mut legal);
                    let rewards = (!config.pure).then(|| tree.evaluate_leaf(&mut world));
                    pending.push(Pending {
                        slot: i,
                        node: Some(node),
                        legal,
                        mover,
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
            let players = slots[0].state.players();
            let seats: Vec<usize> = pending.iter().map(|p| p.mover).collect();
            let (priors, values) = evaluator.evaluate(&batch, &seats, players)?;
            check(&priors, &values, rows, config.actions, players)?;
            out.calls += 1;
            out.rows += rows as u64;
            for (r, leaf) in pending.drain(..).enumerate() {
                let prior = &priors[r * config.actions..(r + 1) * config.actions];
                let factors = prior_factors(prior, &leaf.legal)?;
                let tree = &mut slots[leaf.slot].search.as_mut().expect("a search").tree;
                match leaf.node {
                    None => tree.set_prior_factors(0, factors),
                    Some(node) => {
                        tree.set_prior_factors(node, factors);
                        let mut model = [0.0; 4];
                        for k in 0..players {
                            model[(leaf.mover + k) % players] = f64::from(values[r * players + k]);
                        }
                        let rewards = match leaf.rewards {
                            None => model,
                            Some(mut own) => {
                                for (o, m) in own.iter_mut().zip(model) {
                                    *o += config.blend * (m - *o);
                                }
                                own
                            }
                        };
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
                slot.decide(config);
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
    use crate::search::tree::tests::Words;
    use crate::tigris::{State, World};

    impl SelfPlayGame for Words {
        fn observation_size(&self) -> usize {
            2
        }
        fn observe(&self, _seat: usize, out: &mut [f32]) {
            out.copy_from_slice(&[self.ones as f32, self.moves as f32]);
        }
    }

    /// Knows the answer: seat 0 is better off the more 1s were said (values relative to
    /// each row's seat to move, as the contract says).
    struct PrefersSeatZero;

    impl Evaluator for PrefersSeatZero {
        fn evaluate(
            &mut self,
            observations: &[f32],
            seats: &[usize],
            players: usize,
        ) -> Result<(Vec<f32>, Vec<f32>), String> {
            let mut values = Vec::new();
            for (row, &seat) in observations.chunks(2).zip(seats) {
                let lead = row[0] - row[1] / 2.0;
                let zero = 1.0 / (1.0 + (-lead).exp());
                values.extend(if seat == 0 {
                    [zero, 1.0 - zero]
                } else {
                    [1.0 - zero, zero]
                });
            }
            assert_eq!(players, 2);
            Ok((vec![1.0; seats.len() * 2], values))
        }
    }

    #[test]
    fn a_value_preferring_seat_zero_turns_the_seats_opposite_ways_in_self_play() {
        for pure in [false, true] {
            let config = Config {
                pure,
                blend: 0.5,
                ..Config::plain(60, Params::default(), 40, 2)
            };
            let games = vec![Words { ones: 0, moves: 0 }; 4];
            let seeds: Vec<Vec<u64>> = (0..4).map(|i| vec![2 * i, 2 * i + 1]).collect();
            let out =
                play(games, &seeds, &config, &[], Some(&mut PrefersSeatZero)).expect("played");
            let mut said = [[0; 2]; 2]; // by seat, the words said
            for game in 0..4 {
                let actions = &out.game_actions
                    [out.game_offsets[game] as usize..out.game_offsets[game + 1] as usize];
                for (ply, &word) in actions.iter().enumerate() {
                    said[ply % 2][word as usize] += 1;
                }
            }
            assert!(
                said[0][1] > 3 * said[0][0],
                "seat 0 says 1: {said:?} (pure {pure})"
            );
            assert!(
                said[1][0] > 3 * said[1][1],
                "seat 1 says 0: {said:?} (pure {pure})"
            );
        }
    }

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
            seats: &[usize],
            _players: usize,
        ) -> Result<(Vec<f32>, Vec<f32>), String> {
            let rows = seats.len();
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
        let config = Config::plain(
            12,
            tigris_root(&State::deal(&[0, 1], Default::default(), 1)).1,
            40,
            3398,
        );
        let seeds = vec![vec![3, 4], vec![5, 6]];
        let plain = play(tigris_games(2), &seeds, &config, &[], None).expect("played");
        let mut neutral = Neutral {
            actions: 3398,
            players: 2,
        };
        let modelled =
            play(tigris_games(2), &seeds, &config, &[], Some(&mut neutral)).expect("played");
        assert!(modelled.calls > 0);
        assert!(plain.seat.len() > 5);
        assert_eq!(plain.visits, modelled.visits);
        assert_eq!(plain.game_actions, modelled.game_actions);
        assert_eq!(plain.observation, modelled.observation);
    }
}
