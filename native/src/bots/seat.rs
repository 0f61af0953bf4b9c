//! One seat's native bot, by name (random, greedy, expert-rules and its styles, `ismcts@N`),
//! and how it plays a game's [`Tracked`](crate::tigris::Tracked) state: what the single-agent
//! environments' opponents (`crate::python::env`) and the self-play roots are built on.

use super::expert::{self, Expert};
use super::greedy::Greedy;
use super::{random_choice, StallGuard};
use crate::cpython_random::CpythonRandom;
use crate::gheos::knowledge as gheos_knowledge;
use crate::gheos::search_game::{knowledge_params, Judge};
use crate::search::batched::most_visited;
use crate::search::{search, Budget, Params};
use crate::splitmix::SplitMix64;
use crate::steppable::Steppable;
use crate::tigris::actions::Action;
use crate::tigris::knowledge::Value;
use crate::{gheos, tigris};

/// The most iterations a native `ismcts@N` bot may take.
pub const MOST_ITERATIONS: u64 = 1_000_000;

/// One seat's native bot.
#[derive(Clone)]
pub enum Bot {
    Random(Box<CpythonRandom>),
    Greedy(Box<Greedy>),
    /// `expert-rules` or one of its styles (red-keeper, turtle, warmonger).
    Expert(Box<Expert>),
    /// The native ISMCTS with `iterations` a decision, one tree, its seeds drawn from `rng`,
    /// kept from stalling a Tigris game by the search bots' guard.
    Ismcts {
        iterations: u64,
        rng: SplitMix64,
        guard: Box<StallGuard>,
    },
}

impl Bot {
    /// The bot `kind` seeded with `seed`; the reason when there is no such native bot.
    pub fn new(kind: &str, seed: i128) -> Result<Bot, String> {
        if let Some(count) = kind.strip_prefix("ismcts@") {
            let iterations = count
                .parse::<u64>()
                .ok()
                .filter(|n| (1..=MOST_ITERATIONS).contains(n))
                .ok_or_else(|| {
                    format!("ismcts@N takes 1 to {MOST_ITERATIONS} iterations, not {count:?}")
                })?;
            return Ok(Bot::Ismcts {
                iterations,
                rng: SplitMix64::new(seed as u64),
                guard: Box::new(StallGuard::new(10, 10)),
            });
        }
        match kind {
            "random" => Ok(Bot::Random(Box::new(super::seeded(seed)))),
            "greedy" => Ok(Bot::Greedy(Box::new(Greedy::new(seed)))),
            _ => match expert::style(kind) {
                Some(style) => Ok(Bot::Expert(Box::new(Expert::new(seed, style)))),
                None => Err(format!(
                    "no native bot {kind:?} (native: random, greedy, expert-rules, \
                     red-keeper, turtle, warmonger, ismcts@N)"
                )),
            },
        }
    }
}

fn budget(iterations: u64) -> Budget {
    Budget {
        iterations: Some(iterations),
        seconds: None,
        floor: None,
    }
}

/// The root and settings of a native `ismcts@N` search in Tigris, as the Python bot's
/// defaults (the sorted colours' value, urgent actions in every batch).
pub fn tigris_root(s: &tigris::State) -> (tigris::World, Params) {
    let params = Params {
        urgent: true,
        ..Params::default()
    };
    (
        tigris::World::valued(s.clone(), Value::SortedColours),
        params,
    )
}

/// The root and settings of a native `ismcts@N` search in Gheos: the Gheos knowledge's own
/// leaf settings, as the Python bot's defaults.
pub fn gheos_root(game: &gheos::State) -> (gheos::World, Params) {
    let root = gheos::World {
        s: game.clone(),
        judge: Judge::Hand(gheos_knowledge::Value::Followers),
        settle: false,
    };
    (root, knowledge_params())
}

/// How a bot reads a game's state.
pub trait Decides: Steppable {
    /// The id `bot` plays for `seat`, the seat to move.
    fn decide(&mut self, bot: &mut Bot, seat: usize) -> u32;
}

impl Decides for tigris::Tracked {
    fn decide(&mut self, bot: &mut Bot, seat: usize) -> u32 {
        match bot {
            Bot::Random(rng) => u32::from(random_choice(rng, self.legal_ids_now())),
            Bot::Greedy(g) => u32::from(g.choose_tigris(&self.s, seat)),
            Bot::Expert(e) => u32::from(e.choose_tigris(&self.s, seat)),
            Bot::Ismcts {
                iterations,
                rng,
                guard,
            } => {
                let legal: Vec<u32> = self
                    .legal_ids_now()
                    .iter()
                    .map(|&id| u32::from(id))
                    .collect();
                if legal.len() == 1 {
                    return legal[0];
                }
                let uses_tiles = |id: u32| {
                    matches!(
                        u16::try_from(id).ok().and_then(Action::from_id),
                        Some(Action::Tile { .. } | Action::Swap { .. })
                    )
                };
                let allowed: Vec<u32> = guard
                    .allowed(Some(self.s.bag.len()), legal.len(), |i| {
                        uses_tiles(legal[i])
                    })
                    .into_iter()
                    .map(|i| legal[i])
                    .collect();
                if allowed.len() == 1 {
                    return allowed[0];
                }
                let only = (allowed.len() < legal.len()).then_some(allowed.as_slice());
                let (world, params) = tigris_root(&self.s);
                let seed = rng.next_u64();
                let (_, stats) = search(&world, seat, budget(*iterations), params, &[seed], only);
                most_visited(&stats)
            }
        }
    }
}

impl Decides for gheos::Tracked {
    fn decide(&mut self, bot: &mut Bot, seat: usize) -> u32 {
        match bot {
            Bot::Random(rng) => random_choice(rng, self.legal_ids_now()),
            Bot::Greedy(g) => g.choose_gheos(&self.s, seat),
            Bot::Expert(e) => e.choose_gheos(&self.s, seat),
            Bot::Ismcts {
                iterations, rng, ..
            } => {
                let legal = self.legal_ids_now();
                if legal.len() == 1 {
                    return legal[0];
                }
                let (root, params) = gheos_root(&self.s);
                let seed = rng.next_u64();
                let (_, stats) = search(&root, seat, budget(*iterations), params, &[seed], None);
                most_visited(&stats)
            }
        }
    }
}

/// Play `state` forward with the seats' `bots` until `learner` is to move, it ends, `moves`
/// reaches `cap`, or a seat without a bot is to move; the actions played (`moves` counts
/// them too).
pub fn play_forward<T: Decides>(
    state: &mut T,
    bots: &mut [Option<Bot>],
    learner: i64,
    cap: i64,
    moves: &mut i64,
) -> Result<u64, String> {
    let mut played = 0;
    loop {
        if state.over() || state.mover() as i64 == learner || *moves >= cap {
            return Ok(played);
        }
        let seat = state.mover();
        let Some(bot) = bots.get_mut(seat).and_then(Option::as_mut) else {
            return Ok(played); // a Python bot's turn
        };
        let id = state.decide(bot, seat);
        state.step_id(id)?;
        *moves += 1;
        played += 1;
    }
}
