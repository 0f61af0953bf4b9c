//! The twin of `cradle.ai.expert_rules.ExpertRulesBot` and of its styles
//! (`cradle.ai.expert_rules.styles`: the same bot with other numbers): one world per decision
//! dealt from the bot's own `random.Random(seed)` (`sample_world`: 64 bits drawn, then the
//! engine's seeded deal), the rules of each game read off the native state through the
//! native knowledge's reading (`crate::tigris::knowledge::Reading`, the reference's `Reading`), ties
//! drawn by `rng.choice` over the actions sorted by their text. Same numbers, computed in the
//! reference's order, so the same decision (tests/envs/test_native_bots.py).

use std::cmp::Ordering;
use std::sync::OnceLock;

use super::StallGuard;
use crate::cpython_random::CpythonRandom;
use crate::gheos;
use crate::gheos::events::{Log, COLOURS as GHEOS_COLOURS};
use crate::gheos::knowledge::rank_rewards as gheos_rank_rewards;
use crate::gheos::notation::{decode, Decoded};
use crate::tigris::actions::{
    action_strings, swap_id, Action, ACTION_COUNT, BLACK, BLUE, COMMIT_BASE, GREEN, RED,
    TILE_TOTALS,
};
use crate::tigris::analysis::{contents, Content};
use crate::tigris::board::{neighbours, NONE};
use crate::tigris::events::NoEvents;
use crate::tigris::knowledge::{binomial_cdf, lowest, Reading};
use crate::tigris::state::{Moves, Pending, PendingKind, State};

/// The numbers of one style (the reference's `TigrisRules` class attributes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Style {
    pub red_in_hand: f64,
    pub red_kept: u32,
    pub lone_temple: f64,
    pub extra_temple: f64,
    pub red_belief: f64,
    pub sure: f64,
    pub stake: f64,
    pub conflict_bonus: f64,
    pub commit_everything: bool,
}

/// `expert-rules` itself (the module constants of `cradle.ai.expert_rules.tigris`).
pub const EXPERT: Style = Style {
    red_in_hand: 0.35,
    red_kept: 4,
    lone_temple: 0.8,
    extra_temple: 0.25,
    red_belief: 1.3,
    sure: 0.8,
    stake: 3.0,
    conflict_bonus: 0.0,
    commit_everything: false,
};

/// The style of a bot name: `expert-rules` and the ladder's three styles.
pub fn style(name: &str) -> Option<Style> {
    Some(match name {
        "expert-rules" => EXPERT,
        "red-keeper" => Style {
            red_in_hand: 1.0,
            red_kept: 6,
            red_belief: 1.6,
            commit_everything: true,
            ..EXPERT
        },
        "turtle" => Style {
            lone_temple: 3.0,
            extra_temple: 1.0,
            sure: 0.95,
            ..EXPERT
        },
        "warmonger" => Style {
            sure: 0.35,
            stake: 4.0,
            conflict_bonus: 2.0,
            commit_everything: true,
            ..EXPERT
        },
        _ => return None,
    })
}

/// Lowest colour first: the final score is the lowest colour, the others break ties.
const COLOUR_WEIGHTS: [f64; 4] = [0.5, 0.25, 0.15, 0.1];
const SUPPORTER_IN_HAND: f64 = 0.1;
const TIGRIS_SHORTLIST: usize = 20;
/// King, priest, farmer, trader: the order the reference visits the leaders in.
const ROLE_ORDER: [usize; 4] = [BLACK, RED, BLUE, GREEN];

const PYRAMID_USE: f64 = 0.8;
const TOKEN_WORTH: f64 = 0.6;
const WAR_RISK: f64 = 0.4;
const GHEOS_SHORTLIST: usize = 48;

/// Each Tigris id's rank among all action texts sorted (Python's `sorted` of the strings).
fn tigris_rank() -> &'static [u16] {
    static RANK: OnceLock<Vec<u16>> = OnceLock::new();
    RANK.get_or_init(|| {
        let texts = action_strings();
        let mut ids: Vec<u16> = (0..ACTION_COUNT).collect();
        ids.sort_by(|&a, &b| texts[a as usize].cmp(&texts[b as usize]));
        let mut rank = vec![0u16; ids.len()];
        for (r, &id) in ids.iter().enumerate() {
            rank[id as usize] = r as u16;
        }
        rank
    })
}

/// One expert-rules player: its generator, its stall guard (relapse 2) and its style.
#[derive(Clone)]
pub struct Expert {
    rng: CpythonRandom,
    guard: StallGuard,
    style: Style,
}

/// What a Tigris decision reads once: the world's board and the belief over other hands.
struct Look<'w> {
    world: &'w State,
    board: Reading<'w>,
    seat: usize,
    /// `_share` of each colour (the unseen tiles, reds weighted up).
    share: [f64; 4],
}

impl Expert {
    pub fn new(seed: i128, style: Style) -> Expert {
        Expert {
            rng: super::seeded(seed),
            guard: StallGuard::new(10, 2),
            style,
        }
    }

    // -- Tigris ------------------------------------------------------------------------------

    /// The reference's `choose` in Tigris: the id `seat` (to move in `s`) plays.
    pub fn choose_tigris(&mut self, s: &State, seat: usize) -> u16 {
        let actions = self.guard.allowed_tigris(s);
        if actions.len() == 1 {
            return actions[0];
        }
        let seed = self.rng.getrandbits64();
        let mut pool = s.hidden_pool(seat as i64);
        pool.sort_unstable();
        CpythonRandom::new(u128::from(seed)).shuffle(&mut pool);
        let world = s.deal_hidden(seat as i64, &pool);
        let mut reading = Look {
            world: &world,
            board: Reading::read(&world),
            seat,
            share: [0.0; 4],
        };
        reading.share = self.shares(&world, seat);
        if matches!(Action::from_id(actions[0]), Some(Action::Commit { .. })) {
            return self.commit(&reading, &actions);
        }
        let candidates = self.candidates(&mut reading, &actions);
        let before = self.value(&world, &reading.board, seat);
        let moves = world.moves();
        let mut best = Best::new(-1e9);
        for &id in &candidates {
            best.offer(id, self.look(&reading, &moves, id) - before);
        }
        if let Some(swap) = self.dead_swap(&reading, &actions) {
            if best.score <= 0.05 {
                return swap;
            }
        }
        let rank = tigris_rank();
        best.ids.sort_by_key(|&id| rank[id as usize]);
        super::random_choice(&mut self.rng, &best.ids)
    }

    /// `_standing`: the colours lowest first, treasures wild, and the leaders' temples.
    fn standing(&self, s: &State, board: &Reading<'_>, seat: usize) -> f64 {
        let (mut expected, _, _, _) = board.outlook(seat);
        for _ in 0..s.treasures[seat] {
            let low = lowest(&expected);
            expected[low] += 1.0;
        }
        expected.sort_by(f64::total_cmp);
        let mut value = 0.0;
        for (w, e) in COLOUR_WEIGHTS.iter().zip(expected) {
            value += w * e;
        }
        for colour in ROLE_ORDER {
            let cell = s.leader_cell[4 * seat + colour];
            if cell == NONE {
                continue;
            }
            let temples = board.temples_around(cell as usize, -1);
            if temples <= 1 {
                value -= self.style.lone_temple * (0.3 + 0.7 * board.remaining);
            } else {
                value += self.style.extra_temple * f64::from((temples - 1).min(2));
            }
        }
        value
    }

    /// `_value`: the seat's standing and the tiles it keeps, against the others'.
    fn value(&self, s: &State, board: &Reading<'_>, seat: usize) -> f64 {
        let mut mine = self.standing(s, board, seat);
        let hand = s.hands[seat];
        let keep = board.remaining + 0.2;
        let reds = u32::from(hand[RED]).min(self.style.red_kept);
        mine += keep * self.style.red_in_hand * f64::from(reds);
        let mut supporters = 0u32;
        for colour in [BLUE, GREEN, BLACK] {
            if s.leader_cell[4 * seat + colour] != NONE {
                supporters += u32::from(hand[colour]);
            }
        }
        mine += keep * SUPPORTER_IN_HAND * f64::from(supporters);
        let others: Vec<f64> = (0..s.n)
            .filter(|&o| o != seat)
            .map(|o| self.standing(s, board, o))
            .collect();
        against(mine, &others)
    }

    /// `_look`: the value after `id`, a started conflict judged by the chance to win it.
    fn look(&self, r: &Look<'_>, moves: &Moves, id: u16) -> f64 {
        let seat = r.seat;
        let mut after = r.world.clone();
        after.apply_move(moves, id, &mut NoEvents);
        let mut value = self.value(&after, &Reading::read(&after), seat);
        if let Some(p) = conflict(&after) {
            let (attacker, defender) = sides(p);
            if seat == attacker || seat == defender {
                let chance = self.conflict_chance(r, &after, p);
                if attacker == seat && chance < self.style.sure {
                    return value - 10.0;
                }
                value += self.style.stake * (2.0 * chance - 1.0);
                if attacker == seat {
                    value += self.style.conflict_bonus;
                }
            }
        }
        if let Some(Action::Tile { color, cell }) = Action::from_id(id) {
            match self.war_chances(r, color, cell) {
                Some(war) if war < self.style.sure => value -= 10.0,
                Some(_) => value += self.style.conflict_bonus,
                None => {}
            }
        }
        value
    }

    /// `_share` of each colour: one tile of another hand is of a colour as often as the
    /// unseen tiles are (reds weighted up: they are kept).
    fn shares(&self, world: &State, seat: usize) -> [f64; 4] {
        let mut on_board = [0u32; 4];
        for content in contents(world).iter().flatten() {
            if let Content::Tile { colour, .. } | Content::Down { colour, .. } = content {
                on_board[usize::from(*colour)] += 1;
            }
        }
        let unseen = [0, 1, 2, 3].map(|c| {
            let seen = on_board[c] + u32::from(world.hands[seat][c]);
            TILE_TOTALS[c].saturating_sub(seen) as f64 + 0.5
        });
        let mut total = 0.0;
        for u in unseen {
            total += u;
        }
        let mut shares = unseen.map(|u| u / total);
        shares[RED] = (shares[RED] * self.style.red_belief).min(0.9);
        shares
    }

    /// `_holds_fewer`: the chance that `other` holds fewer than `k` tiles of `colour`.
    fn holds_fewer(r: &Look<'_>, other: usize, colour: usize, k: i64) -> f64 {
        if k <= 0 {
            return 0.0;
        }
        let held: i64 = r.world.hands[other].iter().map(|&c| i64::from(c)).sum();
        binomial_cdf(k - 1, held, r.share[colour])
    }

    fn conflict_chance(&self, r: &Look<'_>, after: &State, p: &Pending) -> f64 {
        let (attacker, defender) = sides(p);
        let attack = i64::from(after.base_strength(p, attacker));
        let defence = i64::from(after.base_strength(p, defender));
        let colour = conflict_colour(p);
        let hand = i64::from(after.hands[r.seat][colour]);
        if attacker == r.seat {
            return Self::holds_fewer(r, defender, colour, attack + hand - defence);
        }
        1.0 - Self::holds_fewer(r, attacker, colour, defence + hand - attack + 1)
    }

    /// `_war_chances`: the lowest chance to win among the wars a tile starts (None: none).
    fn war_chances(&self, r: &Look<'_>, colour: usize, cell: usize) -> Option<f64> {
        let board = &r.board;
        let mut around = [0i16; 4];
        let len = board.comps_around(cell, -1, &mut around);
        let kingdoms: Vec<i16> = around[..len]
            .iter()
            .copied()
            .filter(|&k| !board.leaders_in(k).is_empty())
            .collect();
        if kingdoms.len() < 2 {
            return None;
        }
        let mut worst: Option<f64> = None;
        for war_colour in ROLE_ORDER {
            let mut sides: Vec<(i16, usize)> = Vec::new();
            for &k in &kingdoms {
                for &(owner, c, _) in board.leaders_in(k) {
                    if usize::from(c) == war_colour {
                        sides.push((k, usize::from(owner)));
                    }
                }
            }
            let Some(&(own, _)) = sides.iter().find(|&&(_, owner)| owner == r.seat) else {
                continue;
            };
            if sides.len() < 2 {
                continue;
            }
            let hand =
                i64::from(r.world.hands[r.seat][war_colour]) - i64::from(colour == war_colour);
            let ours = i64::from(board.counts[own as usize][war_colour]) + hand.max(0);
            for &(k, other) in &sides {
                if other == r.seat {
                    continue;
                }
                let theirs = i64::from(board.counts[k as usize][war_colour]);
                let chance = Self::holds_fewer(r, other, war_colour, ours - theirs);
                worst = Some(worst.map_or(chance, |w: f64| w.min(chance)));
            }
        }
        worst
    }

    /// `_commit`: the defender ties, the attacker commits the fewest tiles that are sure.
    fn commit(&self, r: &Look<'_>, actions: &[u16]) -> u16 {
        let mut options: Vec<i64> = actions
            .iter()
            .map(|&id| i64::from(id) - i64::from(COMMIT_BASE))
            .collect();
        options.sort_unstable();
        let id = |k: i64| COMMIT_BASE + k as u16;
        let Some(p) = conflict(r.world) else {
            return id(options[0]);
        };
        let (attacker, defender) = sides(p);
        let attack = i64::from(r.world.base_strength(p, attacker));
        let defence = i64::from(r.world.base_strength(p, defender));
        let colour = conflict_colour(p);
        if self.style.commit_everything {
            return id(options[options.len() - 1]);
        }
        if r.seat == defender {
            if let Some(Some(committed)) = p.attacker_commit {
                let need = attack + i64::from(committed) - defence;
                if need <= 0 || !options.contains(&need) {
                    return id(options[0]);
                }
                return id(need);
            }
        }
        let mut best = options[0];
        for &k in &options {
            let chance = Self::holds_fewer(r, defender, colour, attack + k - defence);
            if chance >= self.style.sure {
                return id(k);
            }
            if chance >= 0.5 {
                best = k;
            }
        }
        id(best)
    }

    /// `_candidates`: the tiles the board's prior likes best, every other action but swaps,
    /// and the catastrophes that take an opponent's leader.
    fn candidates(&self, r: &mut Look<'_>, actions: &[u16]) -> Vec<u16> {
        let mut tiles: Vec<u16> = Vec::new();
        let mut others: Vec<u16> = Vec::new();
        let mut disasters: Vec<u16> = Vec::new();
        for &id in actions {
            match Action::from_id(id) {
                Some(Action::Tile { .. }) => tiles.push(id),
                Some(Action::Catastrophe { cell }) => {
                    if self.takes(r, cell) {
                        disasters.push(id);
                    }
                }
                Some(Action::Swap { .. }) => {}
                _ => others.push(id),
            }
        }
        if tiles.len() > TIGRIS_SHORTLIST {
            let ids: Vec<u32> = tiles.iter().map(|&id| u32::from(id)).collect();
            let mut priors = Vec::new();
            r.board.priors(r.seat, &ids, &mut priors);
            let rank = tigris_rank();
            let mut scored: Vec<(f64, u16)> = priors.into_iter().zip(tiles).collect();
            // (-prior, text): -0.0 and 0.0 tie, as Python's tuples compare them
            scored.sort_by(|a, b| {
                b.0.partial_cmp(&a.0)
                    .unwrap_or(Ordering::Equal)
                    .then(rank[a.1 as usize].cmp(&rank[b.1 as usize]))
            });
            tiles = scored
                .into_iter()
                .take(TIGRIS_SHORTLIST)
                .map(|(_, id)| id)
                .collect();
        }
        let mut chosen = tiles;
        chosen.extend(others);
        chosen.extend(disasters);
        if chosen.is_empty() {
            return actions.to_vec();
        }
        chosen
    }

    /// `_takes`: a catastrophe on a temple that is an opponent leader's last and no own one's.
    fn takes(&self, r: &Look<'_>, cell: usize) -> bool {
        let board = &r.board;
        if !board.temples.has(cell) {
            return false;
        }
        let mut hit = false;
        for j in neighbours(cell).iter() {
            let Some(index) = r.world.leader_at(j) else {
                continue;
            };
            if board.temples_around(j, -1) == 1 {
                if index / 4 == r.seat {
                    return false;
                }
                hit = true;
            }
        }
        hit
    }

    /// `_dead_swap`: the swap of every tile of a colour no own leader stands for (reds are
    /// never dead), when there are at least two.
    fn dead_swap(&self, r: &Look<'_>, actions: &[u16]) -> Option<u16> {
        let hand = r.world.hands[r.seat];
        let mut counts = [0u8; 4];
        for colour in [BLUE, GREEN, BLACK] {
            if r.world.leader_cell[4 * r.seat + colour] == NONE {
                counts[colour] = hand[colour];
            }
        }
        let dead: u32 = counts.iter().map(|&c| u32::from(c)).sum();
        if dead < 2 {
            return None;
        }
        let wanted = swap_id(&counts);
        actions.contains(&wanted).then_some(wanted)
    }

    // -- Gheos -------------------------------------------------------------------------------

    /// The reference's `choose` in Gheos (its views have no bag size: the guard never acts).
    pub fn choose_gheos(&mut self, game: &gheos::State, seat: usize) -> u32 {
        let mut actions = Vec::new();
        game.legal_ids(&mut actions);
        if actions.len() == 1 {
            return actions[0];
        }
        let seed = self.rng.getrandbits64();
        let world = game.determinize(seat, seed);
        let worth = Worth::new(&world);
        let decoded: Vec<Decoded> = actions.iter().map(|&id| decode(id)).collect();
        if decoded
            .iter()
            .all(|d| matches!(d, Decoded::Token | Decoded::Pass))
        {
            return worth.token(seat, &actions);
        }
        let takes = decoded.iter().all(|d| matches!(d, Decoded::Take(_)));
        if takes || decoded.iter().all(|d| matches!(d, Decoded::Pay(_))) {
            let sign = if takes { 1.0 } else { -1.0 };
            let mut sorted: Vec<(u8, u32)> = decoded
                .iter()
                .zip(&actions)
                .map(|(d, &id)| match d {
                    Decoded::Take(c) | Decoded::Pay(c) => (*c, id),
                    _ => unreachable!("only takes or pays"),
                })
                .collect();
            sorted.sort_by_key(|&(c, _)| GHEOS_COLOURS[usize::from(c)]);
            let mut best = sorted[0];
            let mut best_key = sign * worth.follower(seat, usize::from(best.0));
            for &(c, id) in &sorted[1..] {
                let key = sign * worth.follower(seat, usize::from(c));
                if key > best_key {
                    best = (c, id);
                    best_key = key;
                }
            }
            return best.1;
        }
        let mut candidates = actions;
        if candidates.len() > GHEOS_SHORTLIST {
            sort_by_text(game, &mut candidates);
            candidates = sample(&mut self.rng, &candidates, GHEOS_SHORTLIST);
        }
        let mut log = Log::new(false);
        let mut best = Best::new(-1e18);
        for &id in &candidates {
            let mut after = world.clone();
            after.apply_legal(id, &mut log);
            log.events.clear();
            let score = if after.is_over() {
                1e6 * (gheos_rank_rewards(&after)[seat] - 0.5)
            } else {
                Worth::new(&after).value(seat)
            };
            best.offer(id, score);
        }
        sort_by_text(game, &mut best.ids);
        super::random_choice(&mut self.rng, &best.ids)
    }
}

/// The ids that scored best so far, ties within 1e-9 kept in the order offered, and the best
/// score (starting at a floor below any score).
struct Best<T> {
    ids: Vec<T>,
    score: f64,
}

impl<T> Best<T> {
    fn new(floor: f64) -> Best<T> {
        Best {
            ids: Vec::new(),
            score: floor,
        }
    }

    fn offer(&mut self, id: T, score: f64) {
        if score > self.score + 1e-9 {
            self.ids.clear();
            self.ids.push(id);
            self.score = score;
        } else if score > self.score - 1e-9 {
            self.ids.push(id);
        }
    }
}

/// A seat's standing `mine` judged against the others': less 0.6 of the best of theirs and
/// 0.4 of their mean (alone at the table, its own).
fn against(mine: f64, others: &[f64]) -> f64 {
    if others.is_empty() {
        return mine;
    }
    let best = others.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut sum = 0.0;
    for o in others {
        sum += o;
    }
    mine - 0.6 * best - 0.4 * sum / others.len() as f64
}

/// The pending revolt or war, if any.
fn conflict(s: &State) -> Option<&Pending> {
    s.pending
        .as_ref()
        .filter(|p| matches!(p.kind, PendingKind::Revolt | PendingKind::War))
}

/// (attacker, defender) of a revolt or war, as `decision()` gives them.
fn sides(p: &Pending) -> (usize, usize) {
    (
        usize::from(p.attacker.unwrap_or(0)),
        usize::from(p.defender.unwrap_or(0)),
    )
}

fn conflict_colour(p: &Pending) -> usize {
    if p.kind == PendingKind::Revolt {
        RED
    } else {
        usize::from(p.color.unwrap_or(0))
    }
}

/// Gheos ids sorted by their text now (Python's `sorted` of the action strings).
fn sort_by_text(game: &gheos::State, ids: &mut [u32]) {
    let mut texts: Vec<(String, u32)> = ids
        .iter()
        .map(|&id| {
            let mut text = String::with_capacity(24);
            game.write_action(id, &mut text);
            (text, id)
        })
        .collect();
    texts.sort();
    for (slot, (_, id)) in ids.iter_mut().zip(texts) {
        *slot = id;
    }
}

/// CPython 3's `random.sample(population, k)` (k <= len(population)), draw for draw.
pub fn sample<T: Copy>(rng: &mut CpythonRandom, population: &[T], k: usize) -> Vec<T> {
    let n = population.len();
    let mut setsize = 21usize;
    if k > 5 {
        // 4 ** ceil(log(3k, 4))
        let exponent = ((k * 3) as f64).log(4.0).ceil() as u32;
        setsize += 4usize.pow(exponent);
    }
    let mut result = Vec::with_capacity(k);
    if n <= setsize {
        let mut pool = population.to_vec();
        for i in 0..k {
            let j = rng.below((n - i) as u32) as usize;
            result.push(pool[j]);
            pool[j] = pool[n - i - 1];
        }
    } else {
        let mut selected = vec![false; n];
        for _ in 0..k {
            let mut j = rng.below(n as u32) as usize;
            while selected[j] {
                j = rng.below(n as u32) as usize;
            }
            selected[j] = true;
            result.push(population[j]);
        }
    }
    result
}

/// The reference's `Worth`: what each seat's holdings are worth, from one world's public
/// numbers.
struct Worth {
    n: usize,
    points: [i64; 4],
    tokens: [u8; 4],
    held: [[u8; 6]; 4],
    epochs_left: i64,
    remaining: f64,
    /// Per colour on the table: (cups, pyramids, swords) of its continent.
    civ: [Option<(i64, i64, i64)>; 6],
}

impl Worth {
    fn new(world: &gheos::State) -> Worth {
        let end = i64::from(world.end_epoch());
        let epochs_left = (end - i64::from(world.epochs)).max(0);
        let remaining = if end != 0 {
            epochs_left as f64 / end as f64
        } else {
            0.0
        };
        let civ = [0u8, 1, 2, 3, 4, 5].map(|colour| {
            world.on_table(colour).then(|| {
                let area = world.stats(world.civ_root(colour));
                (
                    i64::from(area.cup),
                    i64::from(area.pyramid),
                    i64::from(area.sword),
                )
            })
        });
        Worth {
            n: usize::from(world.players),
            points: world.points,
            tokens: world.tokens,
            held: world.held,
            epochs_left,
            remaining,
            civ,
        }
    }

    /// One follower of `colour` held by `seat`.
    fn follower(&self, seat: usize, colour: usize) -> f64 {
        let Some((cups, pyramids, swords)) = self.civ[colour] else {
            return 0.0;
        };
        let tokens = f64::from(self.tokens[seat]) * TOKEN_WORTH * (0.5 + 0.5 * self.remaining);
        let mut worth =
            (pyramids * self.epochs_left) as f64 * PYRAMID_USE + cups as f64 * (1.0 + tokens);
        let stronger = self
            .civ
            .iter()
            .enumerate()
            .any(|(c, civ)| c != colour && civ.is_some_and(|(_, _, s)| s > swords));
        if stronger {
            worth *= 1.0 - WAR_RISK * self.remaining;
        }
        worth
    }

    fn standing(&self, seat: usize) -> f64 {
        let mut held = 0.0;
        let mut followers = 0i64;
        for (c, &n) in self.held[seat].iter().enumerate() {
            followers += i64::from(n);
            if n > 0 {
                held += f64::from(n) * self.follower(seat, c);
            }
        }
        self.points[seat] as f64 + held + 0.01 * followers as f64
    }

    fn value(&self, seat: usize) -> f64 {
        let mine = self.standing(seat);
        let others: Vec<f64> = (0..self.n)
            .filter(|&s| s != seat)
            .map(|s| self.standing(s))
            .collect();
        against(mine, &others)
    }

    fn cup_score(&self, seat: usize) -> i64 {
        let mut score = 0;
        for (c, &n) in self.held[seat].iter().enumerate() {
            if let (true, Some((cups, _, _))) = (n > 0, self.civ[c]) {
                score += i64::from(n) * cups;
            }
        }
        score
    }

    /// `_token`: a scoring token when the cups now are worth it, or when it would be lost.
    fn token(&self, seat: usize, actions: &[u32]) -> u32 {
        use crate::gheos::notation::{PASS, TOKEN};
        let score = self.cup_score(seat);
        let tokens = i64::from(self.tokens[seat]);
        let followers: i64 = self.held[seat].iter().map(|&n| i64::from(n)).sum();
        let play = score > 0
            && (tokens >= self.epochs_left
                || score as f64 >= (1.0 + self.remaining) * followers.max(1) as f64);
        let wanted = if play { TOKEN } else { PASS };
        if actions.contains(&wanted) {
            wanted
        } else {
            actions[0]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `random.Random(seed).sample(range(n), k)` as CPython 3.11 answers it (both of its
    /// ways: the pool below the set size, the set of picks above it).
    #[test]
    fn sample_draws_as_cpython() {
        let range = |n: u32| (0..n).collect::<Vec<u32>>();
        let cases: [(u128, u32, usize, Vec<u32>); 3] = [
            (
                5,
                300,
                48,
                vec![
                    130, 183, 271, 14, 238, 127, 26, 80, 57, 190, 240, 126, 194, 278, 52, 293, 6,
                    110, 208, 143, 93, 199, 81, 36, 71, 227, 64, 67, 0, 2, 107, 84, 85, 148, 160,
                    101, 276, 104, 100, 196, 152, 11, 184, 212, 74, 135, 33, 169,
                ],
            ),
            (
                6,
                100,
                48,
                vec![
                    73, 10, 62, 33, 4, 0, 18, 84, 75, 60, 47, 40, 2, 34, 97, 25, 52, 68, 69, 12,
                    24, 72, 70, 96, 11, 54, 42, 91, 46, 83, 32, 56, 80, 92, 37, 67, 5, 65, 57, 64,
                    77, 41, 23, 31, 53, 90, 81, 36,
                ],
            ),
            (7, 30, 3, vec![10, 4, 12]),
        ];
        for (seed, n, k, expected) in cases {
            let mut rng = CpythonRandom::new(seed);
            assert_eq!(sample(&mut rng, &range(n), k), expected, "seed {seed}");
        }
    }

    #[test]
    fn the_styles_are_named() {
        assert_eq!(style("expert-rules"), Some(EXPERT));
        for name in ["red-keeper", "turtle", "warmonger"] {
            assert!(style(name).is_some_and(|s| s != EXPERT), "{name}");
        }
        assert_eq!(style("greedy"), None);
    }
}
