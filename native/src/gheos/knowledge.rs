//! The Gheos knowledge of the search, on the native state: the twin of
//! `cradle.ai.knowledge.gheos` (the reference), number for number.
//!
//! An evaluation (followers × what their continents will score, war risk, epochs to come)
//! turned into rewards by pairwise chances, one-ply move priors, whether a turn is still in
//! progress, and the quick policy that settles it. Both are kept in lockstep by
//! `tests/gheos/test_knowledge_lockstep.py`: a change to one is made to the other in the same
//! commit, and that test shows the first position where they part.

use super::board::Area;
use super::events::Log;
use super::notation::{decode, Decoded};
use super::state::{Phase, State, MAX_PLAYERS};
use crate::search::model::{self, GHEOS_FEATURES};
use crate::search::pairwise_chances;

/// Share of a civilization's future lost when a stronger neighbour may attack.
pub const WAR_RISK: f64 = 0.35;
/// A kept token is worth this share of today's cup score: early, and late.
pub const TOKEN_EARLY: f64 = 1.2;
pub const TOKEN_LATE: f64 = 0.4;
/// Share of the pyramids' epoch scorings a follower will still see.
pub const PYRAMID_USE: f64 = 0.8;
/// How sure a lead is: base + slope × remaining (a point counts less while many epochs are to
/// come).
pub const TEMPERATURE: (f64, f64) = (3.0, 10.0);
/// Value 4: what holding every token left is worth, × √(epochs left), in points.
pub const CONTROL: f64 = 16.0;

/// The hand-set evaluation (the reference's `GheosValue`): 1, followers × what their
/// continents will score (PIMC's and the analysis'); 4, value 1 with the control of the
/// game's end and each seat's tokens counted as those it can expect to play
/// ([`Reading::usable_tokens`], the search's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    Followers = 1,
    UsableTokens = 4,
}

impl TryFrom<u8> for Value {
    type Error = String;

    fn try_from(value: u8) -> Result<Value, String> {
        match value {
            1 => Ok(Value::Followers),
            4 => Ok(Value::UsableTokens),
            _ => Err(format!("value is 1 or 4, not {value}")),
        }
    }
}
/// Epoch tiles in the stack at the start, whatever the players.
const EPOCH_TILES: u32 = 8;
/// Below the root, priors are scored this many actions at a time (an apply each, on a scratch state).
pub const BATCH: usize = 16;
/// Uniformly random moves before the heuristic judges a new node (cheap in Gheos).
pub const PLAYOUT: usize = 8;
/// Quick-policy moves before them (`GheosKnowledge.rollout`; the caller passes it in `Params`).
pub const ROLLOUT: usize = 4;
/// The policy weighs this many random tile placements by one ply.
pub const TILE_SAMPLE: usize = 6;
/// The policy's random tie-breaks: follower choices, and moves scored by one ply.
pub const FOLLOWER_NOISE: f64 = 0.01;
pub const MOVE_NOISE: f64 = 0.05;
/// The prior of an action the state refuses.
pub const REFUSED: f64 = -1e9;

/// What a continent holds: the symbols the evaluation weighs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Continent {
    pub cups: u8,
    pub pyramids: u8,
    pub swords: u8,
    pub wheat: u8,
}

impl From<&Area> for Continent {
    fn from(area: &Area) -> Continent {
        Continent {
            cups: area.cup,
            pyramids: area.pyramid,
            swords: area.sword,
            wheat: area.wheat,
        }
    }
}

/// The numbers of one world the evaluation needs (the reference's `Reading`).
#[derive(Clone, Debug)]
pub struct Reading {
    /// The evaluation.
    pub value: Value,
    pub players: usize,
    pub points: [f64; MAX_PLAYERS],
    pub tokens: [u8; MAX_PLAYERS],
    pub held: [[u8; 6]; MAX_PLAYERS],
    pub followers: [u32; MAX_PLAYERS],
    pub epochs_left: u32,
    /// The share of the game's epochs still to come.
    pub remaining: f64,
    /// The seat to move, the tiles left to draw, and the epoch tiles among them.
    pub active: usize,
    pub stack: u32,
    pub epoch_tiles: u32,
    /// Colour -> the continent of its civilization, when it is on the table.
    pub civ: [Option<Continent>; 6],
}

impl Reading {
    /// A reading for value 1.
    pub fn new(game: &State) -> Reading {
        Reading::valued(game, Value::Followers)
    }

    /// A reading for the evaluation `value`.
    pub fn valued(game: &State, value: Value) -> Reading {
        let players = usize::from(game.players);
        let mut reading = Reading {
            value,
            players,
            points: [0.0; MAX_PLAYERS],
            tokens: [0; MAX_PLAYERS],
            held: [[0; 6]; MAX_PLAYERS],
            followers: [0; MAX_PLAYERS],
            epochs_left: 0,
            remaining: 0.0,
            active: usize::from(game.active),
            stack: game.stack.len() as u32,
            epoch_tiles: EPOCH_TILES.saturating_sub(u32::from(game.epochs)),
            civ: [None; 6],
        };
        for seat in 0..players {
            reading.points[seat] = game.points[seat] as f64;
            reading.tokens[seat] = game.tokens[seat];
            reading.held[seat] = game.held[seat];
            reading.followers[seat] = game.held[seat].iter().map(|&n| u32::from(n)).sum();
        }
        let end = u32::from(game.end_epoch());
        reading.epochs_left = end.saturating_sub(u32::from(game.epochs));
        reading.remaining = if end > 0 {
            f64::from(reading.epochs_left) / f64::from(end)
        } else {
            0.0
        };
        for colour in 0..6u8 {
            if game.on_table(colour) {
                let area = game.stats(game.civ_root(colour));
                reading.civ[usize::from(colour)] = Some(Continent::from(area));
            }
        }
        reading
    }

    /// The share of its future a civilization keeps: less when a stronger one may attack.
    pub fn survival(&self, colour: usize) -> f64 {
        let swords = self.civ[colour].map_or(0, |c| c.swords);
        let strongest = (0..6)
            .filter(|&c| c != colour)
            .filter_map(|c| self.civ[c].map(|v| v.swords))
            .max()
            .unwrap_or(0);
        if strongest > swords {
            1.0 - WAR_RISK * self.remaining
        } else {
            1.0
        }
    }

    /// What a token would score for `seat` now.
    pub fn cup_score(&self, seat: usize) -> i64 {
        (0..6)
            .filter_map(|c| self.civ[c].map(|v| i64::from(self.held[seat][c]) * i64::from(v.cups)))
            .sum()
    }

    /// A token kept, as a multiple of the cup score it would bring now: more early (cups and
    /// followers grow), less late (a token unused at the end is lost).
    pub fn token_worth(&self) -> f64 {
        TOKEN_EARLY * self.remaining + TOKEN_LATE
    }

    /// What one follower on a continent of `cups` and `pyramids` will still bring `seat`.
    fn worth(&self, seat: usize, cups: u8, pyramids: u8) -> f64 {
        let kept = f64::from(self.tokens[seat]) * self.token_worth();
        f64::from(u32::from(pyramids) * self.epochs_left) * PYRAMID_USE
            + f64::from(cups) * (kept + 1.0)
    }

    /// Whether `seat` holds every token left: it alone chooses when the game ends.
    pub fn controls_the_end(&self, seat: usize) -> bool {
        self.tokens[seat] > 0 && (0..self.players).all(|s| s == seat || self.tokens[s] == 0)
    }

    pub fn seat_value(&self, seat: usize) -> f64 {
        self.value_of(seat, self.value)
    }

    /// The number of its tokens `seat` can expect to play: one a turn, its turns being this
    /// one (when it is to move) and those after the draws between (the reference's
    /// `Reading.usable_tokens`).
    pub fn usable_tokens(&self, seat: usize) -> f64 {
        let tokens = u32::from(self.tokens[seat]);
        if tokens == 0 || self.epochs_left == 0 {
            return 0.0;
        }
        let landscape = self.stack.saturating_sub(self.epoch_tiles);
        let n = self.players as u32;
        let wait = ((seat + self.players - self.active) % self.players) as u32;
        (0..tokens)
            .map(|j| survival(wait + n * j, landscape, self.epoch_tiles, self.epochs_left))
            .sum()
    }

    /// [`Reading::survival`] of every colour, from the two largest sword counts (a
    /// civilization's strongest rival is the strongest other one).
    fn survivals(&self) -> [f64; 6] {
        let (mut first, mut second, mut leader) = (0u8, 0u8, usize::MAX);
        for (colour, civ) in self.civ.iter().enumerate() {
            let Some(civ) = civ else {
                continue;
            };
            if leader == usize::MAX || civ.swords > first {
                second = if leader == usize::MAX { 0 } else { first };
                first = civ.swords;
                leader = colour;
            } else if civ.swords > second {
                second = civ.swords;
            }
        }
        let mut out = [1.0; 6];
        for (colour, civ) in self.civ.iter().enumerate() {
            let swords = civ.map_or(0, |c| c.swords);
            let strongest = if colour == leader { second } else { first };
            if strongest > swords {
                out[colour] = 1.0 - WAR_RISK * self.remaining;
            }
        }
        out
    }

    fn value_of(&self, seat: usize, version: Value) -> f64 {
        self.value_with(seat, version, &self.survivals())
    }

    fn value_with(&self, seat: usize, version: Value, survivals: &[f64; 6]) -> f64 {
        let mut value = self.points[seat];
        let usable = version == Value::UsableTokens;
        let held = if usable {
            self.usable_tokens(seat)
        } else {
            f64::from(self.tokens[seat])
        };
        let tokens = held * self.token_worth();
        for ((&count, civ), survival) in self.held[seat].iter().zip(&self.civ).zip(survivals) {
            let Some(civ) = civ else {
                continue;
            };
            if count == 0 {
                continue;
            }
            let future = f64::from(u32::from(civ.pyramids) * self.epochs_left) * PYRAMID_USE
                + f64::from(civ.cups) * (tokens + 1.0);
            value += f64::from(count) * future * survival;
        }
        if usable && self.controls_the_end(seat) {
            // It plays its tokens when they score most, and ends the game when it leads.
            let full = (1.0 - self.token_worth()).max(0.0);
            value += held * full * self.cup_score(seat) as f64;
            value += CONTROL * f64::from(self.epochs_left).sqrt();
        }
        value + 0.01 * f64::from(self.followers[seat])
    }

    /// Each seat's estimated final score (only the first `players` are used).
    pub fn values(&self) -> [f64; MAX_PLAYERS] {
        let mut out = [0.0; MAX_PLAYERS];
        let survivals = self.survivals();
        for (seat, value) in out.iter_mut().enumerate().take(self.players) {
            *value = self.value_with(seat, self.value, &survivals);
        }
        out
    }

    /// Each seat's expected share of the others it beats (`pairwise_chances` of the values).
    pub fn chances(&self) -> [f64; MAX_PLAYERS] {
        let values = self.values();
        pairwise_chances(&values[..self.players], self.temperature())
    }

    /// What the learned evaluation weighs (`cradle.ai.knowledge.learned.FEATURES["gheos"]`), each once
    /// × remaining and once × (1 - remaining): the reference's `Reading.features`.
    pub fn features(&self, seat: usize) -> [f64; GHEOS_FEATURES] {
        let (mut cups, mut pyramids, mut swords, mut wheat) = (0u32, 0u32, 0u32, 0u32);
        let (mut to_score, mut at_risk, mut civilizations) = (0u32, 0u32, 0u32);
        for colour in 0..6 {
            let count = u32::from(self.held[seat][colour]);
            let Some(civ) = self.civ[colour] else {
                continue;
            };
            if count == 0 {
                continue;
            }
            cups += count * u32::from(civ.cups);
            pyramids += count * u32::from(civ.pyramids);
            swords += count * u32::from(civ.swords);
            wheat += count * u32::from(civ.wheat);
            to_score += count * u32::from(civ.pyramids) * self.epochs_left;
            let strongest = (0..6)
                .filter(|&c| c != colour)
                .filter_map(|c| self.civ[c].map(|v| v.swords))
                .max()
                .unwrap_or(0);
            if strongest > civ.swords {
                at_risk += count;
            }
            civilizations += 1;
        }
        let base = [
            self.points[seat],
            f64::from(self.tokens[seat]),
            f64::from(self.followers[seat]),
            f64::from(cups),
            f64::from(pyramids),
            f64::from(swords),
            f64::from(wheat),
            f64::from(to_score),
            f64::from(at_risk),
            f64::from(civilizations),
            self.value_of(seat, Value::Followers),
            if seat == self.active { 1.0 } else { 0.0 },
            if self.controls_the_end(seat) {
                1.0
            } else {
                0.0
            },
            self.usable_tokens(seat),
            self.value_of(seat, Value::UsableTokens), // the search's evaluation
        ];
        let late = 1.0 - self.remaining;
        let mut out = [0.0; GHEOS_FEATURES];
        for (i, x) in base.iter().enumerate() {
            out[i] = x * self.remaining;
            out[base.len() + i] = x * late;
        }
        out
    }

    /// Each seat's value under the learned model (set from Python by `ai_set_model`).
    pub fn learned_values(&self) -> Vec<f64> {
        model::values("gheos", self.players, |seat| self.features(seat))
    }

    /// How sure a lead is: a point counts less while many epochs are to come.
    pub fn temperature(&self) -> f64 {
        TEMPERATURE.0 + TEMPERATURE.1 * self.remaining
    }

    /// The reference's `_follower_choice`: the worth of a start or a take (followers × what
    /// their continent will score), or the loss of paying with a follower of that colour.
    pub fn follower_choice(&self, game: &State, seat: usize, id: u32) -> f64 {
        match decode(id) {
            Decoded::Region(false, _, cell, edge) => match game.board.slot_of(cell) {
                Some(slot) => {
                    let area = game.stats(game.areas.of(game.node_on(slot, usize::from(edge))));
                    f64::from(area.wheat) * self.worth(seat, area.cup, area.pyramid) + 0.5
                }
                None => 0.0,
            },
            Decoded::Take(colour) | Decoded::Pay(colour) => {
                let c = usize::from(colour);
                let Some(civ) = self.civ[c] else {
                    return 0.0;
                };
                let value = self.worth(seat, civ.cups, civ.pyramids) * self.survival(c);
                if matches!(decode(id), Decoded::Pay(_)) {
                    -value
                } else {
                    value
                }
            }
            _ => 0.0,
        }
    }

    /// The reference's `_token_choice`: play a token when it beats keeping it (see
    /// `token_worth`), or when time runs out.
    pub fn plays_token(&self, seat: usize) -> bool {
        let score = self.cup_score(seat);
        if score <= 0 {
            return false;
        }
        if u32::from(self.tokens[seat]) >= self.epochs_left {
            return true;
        }
        self.token_worth() < 1.0
    }
}

/// Per seat, the share of the others it finished ahead of, a tie counting half
/// (`cradle.core.results.rank_rewards` of the standings: points, then followers).
pub fn rank_rewards(game: &State) -> [f64; MAX_PLAYERS] {
    let n = usize::from(game.players);
    let key = |s: usize| {
        (
            game.points[s],
            game.held[s].iter().map(|&c| u32::from(c)).sum::<u32>(),
        )
    };
    let mut out = [0.0; MAX_PLAYERS];
    for (seat, reward) in out.iter_mut().enumerate().take(n) {
        let mine = key(seat);
        let beaten = (0..n).filter(|&o| key(o) < mine).count();
        let tied = (0..n).filter(|&o| key(o) == mine).count() - 1;
        *reward = (beaten as f64 + 0.5 * tied as f64) / (n - 1) as f64;
    }
    out
}

/// The chance that `draws` more turns end with a landscape tile drawn before the
/// `ending`-th of the `epochs` epoch tiles, from a stack of `landscape` landscape tiles and
/// those epoch tiles in random order: at least `draws` landscape tiles among its first
/// `draws + ending - 1` (the reference's `survival`, in exact integers as there). Each
/// answer is worked out once and kept: every leaf's reading asks for several, always among
/// the same few stacks.
pub fn survival(draws: u32, landscape: u32, epochs: u32, ending: u32) -> f64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    /// Kept answers by (draws, landscape, epochs, ending), each as the complement of its
    /// bits: 0 (a NaN's complement, which no answer is) marks one not worked out yet.
    static KEPT: std::sync::OnceLock<Box<[AtomicU64]>> = std::sync::OnceLock::new();
    const DRAWS: u32 = 16;
    const LANDSCAPE: u32 = 128;
    const SMALL: u32 = 16;
    if draws >= DRAWS || landscape >= LANDSCAPE || epochs >= SMALL || ending >= SMALL {
        return survival_counted(draws, landscape, epochs, ending);
    }
    let kept = KEPT.get_or_init(|| {
        (0..DRAWS * LANDSCAPE * SMALL * SMALL)
            .map(|_| AtomicU64::new(0))
            .collect()
    });
    let at = (((draws * LANDSCAPE + landscape) * SMALL + epochs) * SMALL + ending) as usize;
    // Any thread may fill a slot: all of them write the same bits.
    match kept[at].load(Ordering::Relaxed) {
        0 => {
            let answer = survival_counted(draws, landscape, epochs, ending);
            kept[at].store(!answer.to_bits(), Ordering::Relaxed);
            answer
        }
        bits => f64::from_bits(!bits),
    }
}

/// [`survival`] counted out.
fn survival_counted(draws: u32, landscape: u32, epochs: u32, ending: u32) -> f64 {
    if draws == 0 {
        return 1.0;
    }
    if draws > landscape {
        return 0.0;
    }
    let total = landscape + epochs;
    let seen = (draws + ending).saturating_sub(1).min(total);
    let ways: u128 = (draws..=seen.min(landscape))
        .map(|k| comb(landscape, k) * comb(epochs, seen - k))
        .sum();
    ways as f64 / comb(total, seen) as f64
}

/// `math.comb` for the stack's small numbers (0 when `k > n`): read from Pascal's triangle,
/// built once, since every leaf of value 4 asks for several (the divisions of the direct
/// product were a twentieth of a search).
fn comb(n: u32, k: u32) -> u128 {
    if k > n {
        return 0;
    }
    if (n as usize) < PASCAL {
        return pascal()[n as usize][k as usize];
    }
    let k = k.min(n - k);
    (0..k).fold(1u128, |acc, i| acc * u128::from(n - i) / u128::from(i + 1))
}

/// Rows of Pascal's triangle kept: C(127, 63) < 2^127, so every entry fits a `u128`.
const PASCAL: usize = 128;

fn pascal() -> &'static [[u128; PASCAL]; PASCAL] {
    static TABLE: std::sync::OnceLock<Box<[[u128; PASCAL]; PASCAL]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Box::new([[0u128; PASCAL]; PASCAL]);
        for n in 0..PASCAL {
            table[n][0] = 1;
            for k in 1..=n {
                table[n][k] = table[n - 1][k - 1] + table[n - 1][k];
            }
        }
        table
    })
}

/// The reward vector of a world: exact once it is over, else the heuristic's chances (the
/// evaluation `value`).
pub fn rewards(game: &State, value: Value) -> [f64; MAX_PLAYERS] {
    if game.is_over() {
        return rank_rewards(game);
    }
    Reading::valued(game, value).chances()
}

/// A token that would end the game (the mover's last, every other seat's used up): whether
/// to play it. Played when the finished game gives the mover at least what the evaluation
/// expects of going on.
pub fn ending_token(game: &State, value: Value) -> Option<bool> {
    if game.phase != Phase::Token {
        return None;
    }
    let seat = usize::from(game.active);
    let n = usize::from(game.players);
    if game.tokens[seat] != 1 || (0..n).any(|s| s != seat && game.tokens[s] > 0) {
        return None;
    }
    let mut after = game.clone();
    after.apply_legal(super::notation::TOKEN, &mut Log::new(false));
    if !after.is_over() {
        return None;
    }
    Some(rank_rewards(&after)[seat] >= rewards(game, value)[seat])
}

/// The token decisions not left to chance in a playout (`GheosKnowledge.playout_rule`): a
/// token that would end the game ([`ending_token`]).
pub fn ruled_token(game: &State, value: Value) -> Option<bool> {
    ending_token(game, value)
}

/// The policy's token decision (`GheosKnowledge.token_choice`): a token ruled by
/// [`ruled_token`], any other by [`Reading::plays_token`].
pub fn token_choice(game: &State, value: Value) -> bool {
    ruled_token(game, value)
        .unwrap_or_else(|| Reading::valued(game, value).plays_token(usize::from(game.active)))
}

/// The reward vector by the learned model (`GheosKnowledge(learned=True).rewards`).
pub fn learned_rewards(game: &State) -> [f64; MAX_PLAYERS] {
    if game.is_over() {
        return rank_rewards(game);
    }
    pairwise_chances(&Reading::new(game).learned_values(), 1.0)
}

/// The one-ply prior of a legal id: the mover's margin over the best other seat after it
/// (with `settle`, after the conflict it starts is played out: [`settle_conflict`]). The
/// move is played on `scratch`, made `game` again first ([`State::restore_from`]), so that
/// scoring a batch copies only what the moves may change and allocates nothing.
fn prior_after(
    game: &State,
    scratch: &mut State,
    value: Value,
    settle: bool,
    id: u32,
    log: &mut Log,
) -> f64 {
    let seat = usize::from(game.active);
    scratch.restore_from(game);
    let after = scratch;
    after.apply_legal(id, log);
    if settle {
        settle_conflict(after, value, log);
    }
    if after.is_over() {
        return 10.0 * (rank_rewards(after)[seat] - 0.5);
    }
    let reading = Reading::valued(after, value);
    let values = reading.values();
    let best_other = (0..reading.players)
        .filter(|&s| s != seat)
        .map(|s| values[s])
        .fold(f64::NEG_INFINITY, f64::max);
    (values[seat] - best_other) / 10.0
}

thread_local! {
    /// Scratch states for [`prior_after`], kept between calls on each thread (a settled
    /// prior scores the conflict's moves with a second one).
    static SCRATCH: std::cell::RefCell<Vec<State>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `score` with a scratch state (any state: `prior_after` restores it to the game).
fn with_scratch<R>(game: &State, score: impl FnOnce(&mut State) -> R) -> R {
    let mut scratch = SCRATCH
        .with(|kept| kept.borrow_mut().pop())
        .unwrap_or_else(|| game.clone());
    let answer = score(&mut scratch);
    SCRATCH.with(|kept| kept.borrow_mut().push(scratch));
    answer
}

/// Plays out the conflict `game` is in (who pays, where a civilization migrates, who wins a
/// tied war) by the policy's choices without their random tie-breaks, the first best on a
/// tie: a move that starts a war is judged by the war's end, not by the moment before it
/// (the reference's `GheosKnowledge.settle_conflict`).
pub fn settle_conflict(game: &mut State, value: Value, log: &mut Log) {
    if !game.phase.in_conflict() {
        return;
    }
    let mut legal = Vec::with_capacity(8);
    let mut scores = Vec::with_capacity(8);
    while game.phase.in_conflict() {
        game.legal_ids(&mut legal);
        if legal.is_empty() {
            return;
        }
        scores.clear();
        policy_scores(game, value, false, &legal, &mut scores);
        let mut best = 0;
        for (i, &score) in scores.iter().enumerate() {
            if score > scores[best] {
                best = i;
            }
        }
        game.apply_legal(legal[best], log);
    }
}

/// One-ply priors of `ids`, all legal now (the search's case): appended to `out`.
pub fn priors_legal(game: &State, value: Value, settle: bool, ids: &[u32], out: &mut Vec<f64>) {
    let mut log = Log::new(false);
    with_scratch(game, |scratch| {
        out.extend(
            ids.iter()
                .map(|&id| prior_after(game, scratch, value, settle, id, &mut log)),
        );
    });
}

/// One-ply priors of any `ids`: a refused one scores [`REFUSED`], as in the reference.
pub fn priors(game: &State, value: Value, settle: bool, ids: &[u32], out: &mut Vec<f64>) {
    let mut legal = Vec::with_capacity(128);
    game.legal_ids(&mut legal);
    let mut log = Log::new(false);
    with_scratch(game, |scratch| {
        out.extend(ids.iter().map(|&id| {
            if legal.contains(&id) {
                prior_after(game, scratch, value, settle, id, &mut log)
            } else {
                REFUSED
            }
        }));
    });
}

/// Whether a turn is in progress past its tile (a conflict, the civilization, the token):
/// every such step is the same player's, so it is played to its end before it is judged.
pub fn unsettled(game: &State) -> bool {
    match game.phase {
        Phase::Tile | Phase::Over => false,
        _ => {
            let mut legal = Vec::with_capacity(16);
            game.legal_ids(&mut legal);
            !legal.is_empty()
        }
    }
}

/// How the policy picks among the legal actions, by the first one's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// One action only.
    Forced,
    /// Starts, takes or payments: by the worth of the followers.
    Followers,
    /// Play a token or pass: by the rule of `plays_token`.
    Token,
    /// Tile placements: the best of a few random ones, by one ply.
    Tiles,
    /// Migrations and war winners: the best by one ply.
    Ply,
}

impl Choice {
    pub fn of(legal: &[u32]) -> Choice {
        if legal.len() == 1 {
            return Choice::Forced;
        }
        match legal.first().map(|&id| decode(id)) {
            Some(Decoded::Region(false, ..) | Decoded::Take(_) | Decoded::Pay(_)) => {
                Choice::Followers
            }
            Some(Decoded::Token | Decoded::Pass) => Choice::Token,
            Some(Decoded::Tile(..)) => Choice::Tiles,
            _ => Choice::Ply,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Choice::Forced => "forced",
            Choice::Followers => "followers",
            Choice::Token => "token",
            Choice::Tiles => "tiles",
            Choice::Ply => "ply",
        }
    }
}

/// The policy's deterministic scores of every legal action (before its random tie-breaks;
/// for tiles, of all of them rather than its random few): followers by their worth, a token
/// decision as 1 for the chosen action and 0 for the other, the rest by one ply.
pub fn policy_scores(
    game: &State,
    value: Value,
    settle: bool,
    legal: &[u32],
    out: &mut Vec<f64>,
) -> Choice {
    let choice = Choice::of(legal);
    let seat = usize::from(game.active);
    match choice {
        Choice::Forced => out.push(0.0),
        Choice::Followers => {
            let reading = Reading::valued(game, value);
            out.extend(
                legal
                    .iter()
                    .map(|&id| reading.follower_choice(game, seat, id)),
            );
        }
        Choice::Token => {
            let play = token_choice(game, value);
            out.extend(legal.iter().map(|&id| {
                let token = matches!(decode(id), Decoded::Token);
                if token == play {
                    1.0
                } else {
                    0.0
                }
            }));
        }
        Choice::Tiles | Choice::Ply => priors_legal(game, value, settle, legal, out),
    }
    choice
}

/// The random numbers the policy draws.
pub trait Draw {
    /// Uniform in [0, 1).
    fn uniform(&mut self) -> f64;
    /// Uniform in 0..n (n >= 1).
    fn below(&mut self, n: usize) -> usize;
}

/// The index of the best score after a random tie-break of up to `noise`.
fn noisy_best(scores: &[f64], noise: f64, rng: &mut impl Draw) -> usize {
    let mut best = 0;
    let mut best_score = f64::NEG_INFINITY;
    for (i, &score) in scores.iter().enumerate() {
        let s = score + noise * rng.uniform();
        if s > best_score {
            best = i;
            best_score = s;
        }
    }
    best
}

/// The quick policy's action (a legal one; the game is not over and has an action), with the
/// evaluation `value` (and `settle`d priors).
pub fn policy(game: &State, value: Value, settle: bool, rng: &mut impl Draw) -> u32 {
    // The lists are kept between calls on each thread: a rollout asks at every move.
    let (mut legal, mut scores) = POLICY_LISTS.with(|kept| std::mem::take(&mut *kept.borrow_mut()));
    game.legal_ids(&mut legal);
    scores.clear();
    let id = policy_from(game, value, settle, rng, &mut legal, &mut scores);
    POLICY_LISTS.with(|kept| *kept.borrow_mut() = (legal, scores));
    id
}

thread_local! {
    /// [`policy`]'s lists of legal ids and scores.
    static POLICY_LISTS: std::cell::RefCell<(Vec<u32>, Vec<f64>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// [`policy`] on the legal ids `legal` (reordered by the tile sample), scoring into `scores`.
fn policy_from(
    game: &State,
    value: Value,
    settle: bool,
    rng: &mut impl Draw,
    legal: &mut [u32],
    scores: &mut Vec<f64>,
) -> u32 {
    match Choice::of(legal) {
        Choice::Forced => legal[0],
        Choice::Followers => {
            policy_scores(game, value, settle, legal, scores);
            legal[noisy_best(scores, FOLLOWER_NOISE, rng)]
        }
        Choice::Token => {
            if token_choice(game, value) {
                super::notation::TOKEN
            } else {
                super::notation::PASS
            }
        }
        Choice::Tiles => {
            // A few at random (a partial shuffle), weighed by one ply.
            let take = TILE_SAMPLE.min(legal.len());
            for i in 0..take {
                let j = i + rng.below(legal.len() - i);
                legal.swap(i, j);
            }
            priors_legal(game, value, settle, &legal[..take], scores);
            legal[noisy_best(scores, MOVE_NOISE, rng)]
        }
        Choice::Ply => {
            priors_legal(game, value, settle, legal, scores);
            legal[noisy_best(scores, MOVE_NOISE, rng)]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gheos::tiles::packaged;
    use crate::splitmix::SplitMix64;

    fn game(players: usize, seed: u32) -> State {
        let names = (0..players).map(|s| format!("p{s}")).collect();
        State::deal(packaged(), names, &[seed])
    }

    #[test]
    fn the_table_of_combinations_is_the_direct_product() {
        for n in 0..PASCAL as u32 {
            let row: u128 = (0..=n).map(|k| comb(n, k)).sum();
            assert_eq!(row, 1u128 << n, "row {n} sums to 2^n");
            assert_eq!(comb(n, n + 1), 0);
        }
        for n in 0..=100u32 {
            for k in 0..=n {
                let k0 = k.min(n - k);
                let direct =
                    (0..k0).fold(1u128, |acc, i| acc * u128::from(n - i) / u128::from(i + 1));
                assert_eq!(comb(n, k), direct, "C({n}, {k})");
            }
        }
        assert_eq!(comb(130, 2), 130 * 129 / 2); // past the table, the product
    }

    #[test]
    fn survival_counts_the_stack_orders_where_a_landscape_tile_comes_first() {
        assert_eq!(survival(0, 0, 3, 1), 1.0); // this turn needs no draw
        assert_eq!(survival(4, 3, 2, 2), 0.0); // the stack runs out first
        assert!((survival(1, 1, 1, 1) - 0.5).abs() < 1e-15);
        assert!((survival(2, 2, 1, 1) - 1.0 / 3.0).abs() < 1e-15);
        // Only two epoch tiles first end it: 1 - 2/5 × 1/4.
        assert!((survival(1, 3, 2, 2) - 0.9).abs() < 1e-15);
        // Kept answers are the counted ones, bit for bit, asked once or twice.
        for draws in 0..18 {
            for landscape in [0, 1, 5, 30, 63, 127, 130] {
                for (epochs, ending) in [(0, 0), (1, 1), (3, 2), (8, 8), (8, 17)] {
                    let counted = survival_counted(draws, landscape, epochs, ending);
                    for _ in 0..2 {
                        let kept = survival(draws, landscape, epochs, ending);
                        assert_eq!(kept.to_bits(), counted.to_bits());
                    }
                }
            }
        }
        assert_eq!(comb(60, 30), 118_264_581_564_861_424);
        // At the start every token finds a turn; late, the second seat's fewer than the first's.
        let start = Reading::valued(&game(2, 3), Value::UsableTokens);
        assert!((start.usable_tokens(0) - 3.0).abs() < 1e-3);
        let mut late = start.clone();
        late.stack = 6;
        late.epoch_tiles = 3;
        late.epochs_left = 1;
        let (first, second) = (
            late.usable_tokens(late.active),
            late.usable_tokens(1 - late.active),
        );
        assert!(second < first && first < 3.0, "{first} {second}");
    }

    #[test]
    fn pairwise_chances_are_shares_of_opponents_beaten() {
        let even = pairwise_chances(&[5.0, 5.0], 3.0);
        assert_eq!(&even[..2], &[0.5, 0.5]);
        let lead = pairwise_chances(&[100.0, 0.0, 0.0], 3.0);
        assert!((lead[0] - 1.0).abs() < 1e-12 && lead[1] < 0.5 && lead[1] > 0.0);
        assert_eq!(pairwise_chances(&[1.0], 3.0)[0], 1.0);
    }

    #[test]
    fn rewards_sum_to_half_the_seats_and_policy_plays_legal_games_to_the_end() {
        for players in 2..=4 {
            let mut g = game(players, 7 + players as u32);
            let mut rng = SplitMix64::new(players as u64);
            let mut log = Log::new(false);
            let mut legal = Vec::new();
            let mut steps = 0;
            while !g.is_over() && steps < 400 {
                let value = [Value::Followers, Value::UsableTokens][steps % 2];
                let r = rewards(&g, value);
                let total: f64 = r[..players].iter().sum();
                assert!((total - players as f64 / 2.0).abs() < 1e-9);
                let id = policy(&g, value, steps % 3 == 0, &mut rng);
                g.legal_ids(&mut legal);
                assert!(legal.contains(&id), "the policy chose an illegal id {id}");
                g.apply_legal(id, &mut log);
                steps += 1;
            }
            assert!(g.is_over(), "{players} players: the policy did not finish");
            let r = rewards(&g, Value::UsableTokens);
            assert_eq!(r, rank_rewards(&g));
        }
    }

    /// The prior as it was scored before the scratch state: on a clone of the game.
    fn prior_on_a_clone(game: &State, value: Value, settle: bool, id: u32) -> (f64, State) {
        let mut log = Log::new(false);
        let seat = usize::from(game.active);
        let mut after = game.clone();
        after.apply_legal(id, &mut log);
        if settle {
            // Its own scored moves are priors without settling, checked here too.
            settle_conflict(&mut after, value, &mut log);
        }
        let prior = if after.is_over() {
            10.0 * (rank_rewards(&after)[seat] - 0.5)
        } else {
            let values = Reading::valued(&after, value).values();
            let best_other = (0..usize::from(after.players))
                .filter(|&s| s != seat)
                .map(|s| values[s])
                .fold(f64::NEG_INFINITY, f64::max);
            (values[seat] - best_other) / 10.0
        };
        (prior, after)
    }

    /// Every byte a state holds, the unused slots of its board and areas included.
    fn assert_same_state(a: &State, b: &State, what: &str) {
        assert_eq!(a.to_parts(), b.to_parts(), "{what}: parts");
        assert_eq!(a.board.len, b.board.len, "{what}: board");
        assert_eq!(a.board.cell, b.board.cell, "{what}: cells");
        assert_eq!(a.board.tile, b.board.tile, "{what}: tiles");
        assert_eq!(a.board.rot, b.board.rot, "{what}: rotations");
        assert_eq!(a.board.nb, b.board.nb, "{what}: neighbours");
        assert_eq!(a.board.order, b.board.order, "{what}: order");
        assert_eq!(a.areas.root, b.areas.root, "{what}: roots");
        assert_eq!(a.areas.stats, b.areas.stats, "{what}: area stats");
        assert_eq!(
            (a.active, a.phase, a.frontier, a.hands, a.stack, a.removed),
            (b.active, b.phase, b.frontier, b.hands, b.stack, b.removed),
            "{what}: turn"
        );
        assert_eq!(
            (a.civs, a.held, a.supply, a.points, a.tokens, a.epochs),
            (b.civs, b.held, b.supply, b.points, b.tokens, b.epochs),
            "{what}: holdings"
        );
        assert_eq!(a.conflict, b.conflict, "{what}: conflict");
    }

    #[test]
    fn priors_on_the_scratch_state_are_the_priors_on_a_clone() {
        // Two games at different stages take turns with the same scratch state, so that it
        // is restored from longer and shorter boards than the one it last played on.
        let mut games: Vec<State> = [(2, 41), (4, 42), (3, 43), (2, 44)]
            .iter()
            .map(|&(players, seed)| game(players, seed))
            .collect();
        let mut rng = SplitMix64::new(5);
        let mut log = Log::new(false);
        let mut legal = Vec::new();
        let mut scratch = games[1].clone();
        let (mut scored, mut conflicts) = (0, 0);
        for step in 0..700 {
            let g = &mut games[step % 4];
            if g.is_over() {
                continue;
            }
            g.legal_ids(&mut legal);
            for (k, &id) in legal.iter().enumerate() {
                let value = [Value::Followers, Value::UsableTokens][(step + k) % 2];
                let settle = (step + k) % 3 != 0;
                let (old, after) = prior_on_a_clone(g, value, settle, id);
                let new = prior_after(g, &mut scratch, value, settle, id, &mut log);
                assert_eq!(old.to_bits(), new.to_bits(), "step {step}, id {id}");
                assert_same_state(&after, &scratch, &format!("step {step}, id {id}"));
                let mut out = Vec::new();
                priors_legal(g, value, settle, &[id], &mut out);
                assert_eq!(out[0].to_bits(), old.to_bits());
                scored += 1;
                conflicts +=
                    usize::from(after.conflict.is_some() || settle && g.phase.in_conflict());
            }
            let id = legal[rng.below(legal.len())];
            g.apply_legal(id, &mut log);
        }
        assert!(
            scored > 5_000 && conflicts > 50,
            "{scored} priors, {conflicts} conflicts"
        );
    }

    #[test]
    fn the_survivals_of_all_colours_are_each_colours_survival() {
        let mut reading = Reading::new(&game(3, 5));
        reading.remaining = 0.6;
        let mut rng = SplitMix64::new(11);
        for _ in 0..5_000 {
            for civ in reading.civ.iter_mut() {
                *civ = (rng.below(3) > 0).then(|| Continent {
                    cups: 0,
                    pyramids: 0,
                    swords: rng.below(4) as u8,
                    wheat: 0,
                });
            }
            let all = reading.survivals();
            for (colour, survival) in all.iter().enumerate() {
                assert_eq!(survival.to_bits(), reading.survival(colour).to_bits());
            }
        }
    }

    #[test]
    fn a_refused_id_scores_refused() {
        let g = game(2, 3);
        let mut out = Vec::new();
        priors(
            &g,
            Value::Followers,
            false,
            &[super::super::notation::TOKEN],
            &mut out,
        );
        assert_eq!(out, vec![REFUSED]);
    }
}
