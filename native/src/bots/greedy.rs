//! The twin of `cradle.ai.greedy.GreedyBot` (default settings: every candidate searched): one
//! determinization per decision dealt from the bot's own `random.Random(seed)`, each candidate
//! applied once, the best immediate gain kept, ties drawn by `rng.choice` over the candidates
//! in legal order. Same keys, same draws, same decision (the module docstring of the
//! reference gives the reasons for each key).

use super::StallGuard;
use crate::cpython_random::CpythonRandom;
use crate::gheos;
use crate::gheos::events::Log;
use crate::gheos::notation::PASS;
use crate::tigris::actions::Action;
use crate::tigris::events::Event;
use crate::tigris::state::State;

/// A decision's key: compared element by element, greater is better (the reference's tuple).
type Key = Vec<i64>;

/// One greedy player: its generator and its stall guard (relapse 2, as the reference's).
#[derive(Clone)]
pub struct Greedy {
    rng: CpythonRandom,
    guard: StallGuard,
}

impl Greedy {
    pub fn new(seed: i128) -> Greedy {
        Greedy {
            rng: super::seeded(seed),
            guard: StallGuard::new(10, 2),
        }
    }

    /// The reference's `choose` in Tigris: the id `seat` (to move in `s`) plays.
    pub fn choose_tigris(&mut self, s: &State, seat: usize) -> u16 {
        let allowed = self.guard.allowed_tigris(s);
        if allowed.len() == 1 {
            return allowed[0];
        }
        let never_gain = |id: u16| {
            matches!(
                Action::from_id(id),
                Some(Action::Swap { .. } | Action::Catastrophe { .. })
            )
        };
        let mut candidates: Vec<u16> = allowed
            .iter()
            .copied()
            .filter(|&id| !never_gain(id))
            .collect();
        if candidates.is_empty() {
            candidates = allowed;
        }
        let mut pool = s.hidden_pool(seat as i64);
        self.rng.shuffle(&mut pool);
        let world = s.deal_hidden(seat as i64, &pool);
        // the world's moves once (the seat's own moves: the same as in `s`), not per candidate
        let moves = world.moves();
        let mut events: Vec<Event> = Vec::new();
        self.best_of(&candidates, |id| {
            let mut after = world.clone();
            events.clear();
            after.apply_move(&moves, id, &mut events);
            let mut points = after.final_points(seat);
            points.sort_unstable();
            let lost = events
                .iter()
                .filter(|e| match e {
                    Event::LeaderReturned { seat: who, .. } => *who == seat,
                    Event::RevoltResult { loser, .. } | Event::WarResult { loser, .. } => {
                        *loser == seat
                    }
                    _ => false,
                })
                .count() as i64;
            let resolved = events
                .iter()
                .any(|e| matches!(e, Event::RevoltResult { .. } | Event::WarResult { .. }));
            let (first, second) = match Action::from_id(id) {
                Some(Action::Commit { count }) if !resolved => (0, count as i64),
                Some(Action::Commit { count }) => (0, -(count as i64)),
                Some(Action::Pass | Action::Withdraw { .. } | Action::Decline) => (-1, 0),
                _ => (0, 0),
            };
            let mut key: Key = points.iter().map(|&p| i64::from(p)).collect();
            key.extend([-lost, first, second]);
            key
        })
    }

    /// The reference's `choose` in Gheos (its views have no bag size: the guard never acts).
    pub fn choose_gheos(&mut self, game: &gheos::State, seat: usize) -> u32 {
        let mut legal = Vec::new();
        game.legal_ids(&mut legal);
        if legal.len() == 1 {
            return legal[0];
        }
        let rng = &mut self.rng;
        let world = game
            .redeal_hidden::<()>(Some(seat), &mut |items| {
                rng.shuffle(items);
                Ok(())
            })
            .expect("the shuffle cannot fail");
        let mut log = Log::new(false);
        self.best_of(&legal, |id| {
            let mut after = world.clone();
            after.apply_legal(id, &mut log);
            let standing = gheos_standing(&after);
            let best_other = standing
                .iter()
                .enumerate()
                .filter(|(other, _)| *other != seat)
                .map(|(_, v)| *v)
                .max()
                .unwrap_or(0);
            let followers: i64 = after.held[seat].iter().map(|&n| i64::from(n)).sum();
            vec![
                standing[seat] - best_other,
                followers,
                i64::from(id == PASS),
                0,
            ]
        })
    }

    /// The candidates of the best key (in order), and the reference's `rng.choice` among them.
    fn best_of<T: Copy>(&mut self, candidates: &[T], mut key: impl FnMut(T) -> Key) -> T {
        let mut best: Vec<T> = Vec::new();
        let mut best_key: Option<Key> = None;
        for &candidate in candidates {
            let k = key(candidate);
            match best_key.as_ref().map(|b| k.cmp(b)) {
                None | Some(std::cmp::Ordering::Greater) => {
                    best_key = Some(k);
                    best.clear();
                    best.push(candidate);
                }
                Some(std::cmp::Ordering::Equal) => best.push(candidate),
                Some(std::cmp::Ordering::Less) => {}
            }
        }
        super::random_choice(&mut self.rng, &best)
    }
}

/// `cradle.ai.greedy._gheos_standing`: each seat's points if the game ended now (all whole
/// numbers, so kept as integers).
fn gheos_standing(game: &gheos::State) -> Vec<i64> {
    let mut cups = [0i64; 6];
    for colour in 0..6u8 {
        if game.on_table(colour) {
            cups[usize::from(colour)] = i64::from(game.stats(game.civ_root(colour)).cup);
        }
    }
    let epochs_left = i64::from(game.end_epoch()) - i64::from(game.epochs);
    (0..usize::from(game.players))
        .map(|seat| {
            let points = game.points[seat];
            if game.is_over() {
                return points;
            }
            let last: i64 = game.held[seat]
                .iter()
                .zip(cups)
                .map(|(&n, cup)| i64::from(n) * cup)
                .sum();
            let tokens = i64::from(game.tokens[seat]);
            let reserve = if epochs_left > tokens + 1 {
                tokens * last
            } else {
                0
            };
            points + last + reserve
        })
        .collect()
}
