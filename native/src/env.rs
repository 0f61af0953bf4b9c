//! The opponents of the single-agent environments (`cradle.envs.single`), stepped natively
//! across a `Batch`: every game whose seat to move is an opponent with a native bot (random,
//! greedy, expert-rules and its styles: the twins of `crate::bots`; `ismcts@N`: the native
//! search) is played forward, without Python, until its learner must decide, it ends, it
//! reaches its move cap, or a seat whose bot lives in Python is to move (the caller plays
//! that one and calls again).

use numpy::{PyReadonlyArray1, PyReadwriteArray1};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::False;
use pyo3::PyClass;

use crate::bots::expert::{self, Expert};
use crate::bots::greedy::Greedy;
use crate::bots::{random_choice, StallGuard};
use crate::gheos::game::Game;
use crate::gheos::knowledge as gheos_knowledge;
use crate::gheos::py::GheosState;
use crate::gheos::search_game::{Judge, Judged};
use crate::pyrandom::PyRandom;
use crate::search::{search, Budget, Params, RootStats};
use crate::splitmix::SplitMix64;
use crate::tigris::actions::Action;
use crate::tigris::knowledge::{TigrisWorld, Value};
use crate::tigris::py::PyTigrisState;
use crate::tigris::state::State;
use crate::vector::{Batch, Steppable};

/// The most iterations a native `ismcts@N` opponent may take.
const MOST_ITERATIONS: u64 = 1_000_000;

/// One seat's native bot.
#[derive(Clone)]
enum Bot {
    Random(Box<PyRandom>),
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
    fn new(kind: &str, seed: i128) -> PyResult<Bot> {
        if let Some(count) = kind.strip_prefix("ismcts@") {
            let iterations = count
                .parse::<u64>()
                .ok()
                .filter(|n| (1..=MOST_ITERATIONS).contains(n))
                .ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "ismcts@N takes 1 to {MOST_ITERATIONS} iterations, not {count:?}"
                    ))
                })?;
            return Ok(Bot::Ismcts {
                iterations,
                rng: SplitMix64::new(seed as u64),
                guard: Box::new(StallGuard::new(10, 10)),
            });
        }
        match kind {
            "random" => Ok(Bot::Random(Box::new(crate::bots::seeded(seed)))),
            "greedy" => Ok(Bot::Greedy(Box::new(Greedy::new(seed)))),
            _ => match expert::style(kind) {
                Some(style) => Ok(Bot::Expert(Box::new(Expert::new(seed, style)))),
                None => Err(PyValueError::new_err(format!(
                    "no native bot {kind:?} (native: random, greedy, expert-rules, \
                     red-keeper, turtle, warmonger, ismcts@N)"
                ))),
            },
        }
    }
}

/// The most visited root action (the higher mean reward among equals, then the lower id).
fn most_visited(stats: &[RootStats]) -> u32 {
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

fn budget(iterations: u64) -> Budget {
    Budget {
        iterations: Some(iterations),
        seconds: None,
        floor: None,
    }
}

/// The root and settings of a native `ismcts@N` search in Tigris, as the Python bot's
/// defaults (the sorted colours' value, urgent actions in every batch).
pub(crate) fn tigris_root(s: &State) -> (TigrisWorld, Params) {
    let params = Params {
        urgent: true,
        ..Params::default()
    };
    (TigrisWorld::valued(s.clone(), Value::SortedColours), params)
}

/// The root and settings of a native `ismcts@N` search in Gheos: the Gheos knowledge's own
/// leaf settings, as the Python bot's defaults.
pub(crate) fn gheos_root(game: &Game) -> (Judged, Params) {
    let root = Judged {
        game: game.clone(),
        judge: Judge::Hand(gheos_knowledge::Value::Followers),
        settle: false,
    };
    let params = Params {
        rollout: gheos_knowledge::ROLLOUT,
        playout: gheos_knowledge::PLAYOUT,
        batch: gheos_knowledge::BATCH,
        urgent: true,
        ..Params::default()
    };
    (root, params)
}

/// How a bot reads a game's native state.
trait Decides: Steppable {
    fn decide(&mut self, bot: &mut Bot, seat: usize) -> u32;
}

impl Decides for PyTigrisState {
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

impl Decides for GheosState {
    fn decide(&mut self, bot: &mut Bot, seat: usize) -> u32 {
        match bot {
            Bot::Random(rng) => random_choice(rng, self.legal_ids_now()),
            Bot::Greedy(g) => g.choose_gheos(&self.game, seat),
            Bot::Expert(e) => e.choose_gheos(&self.game, seat),
            Bot::Ismcts {
                iterations, rng, ..
            } => {
                let legal = self.legal_ids_now();
                if legal.len() == 1 {
                    return legal[0];
                }
                let (root, params) = gheos_root(&self.game);
                let seed = rng.next_u64();
                let (_, stats) = search(&root, seat, budget(*iterations), params, &[seed], None);
                most_visited(&stats)
            }
        }
    }
}

/// The seats' bots of every game of a batch: `None` where the learner sits or a Python bot
/// plays.
#[pyclass(module = "cradle._native")]
pub struct Opponents {
    seats: Vec<Vec<Option<Bot>>>,
}

fn parse_seats(seats: Vec<Option<(String, i128)>>) -> PyResult<Vec<Option<Bot>>> {
    seats
        .into_iter()
        .map(|s| s.map(|(kind, seed)| Bot::new(&kind, seed)).transpose())
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn play_all<T: PyClass<Frozen = False> + Decides>(
    py: Python<'_>,
    games: &[Py<T>],
    bots: &mut [Vec<Option<Bot>>],
    learners: &[i64],
    caps: &[i64],
    over: &mut [bool],
    movers: &mut [i64],
    moves: &mut [i64],
) -> PyResult<u64> {
    let mut played = 0u64;
    for (i, game) in games.iter().enumerate() {
        let mut state = game.borrow_mut(py);
        loop {
            over[i] = state.over();
            movers[i] = state.mover() as i64;
            if over[i] || movers[i] == learners[i] || moves[i] >= caps[i] {
                break;
            }
            let seat = state.mover();
            let Some(bot) = bots[i].get_mut(seat).and_then(Option::as_mut) else {
                break; // a Python bot's turn
            };
            let id = state.decide(bot, seat);
            state.step_id(py, id).map_err(PyValueError::new_err)?;
            moves[i] += 1;
            played += 1;
        }
    }
    Ok(played)
}

#[pymethods]
impl Opponents {
    /// `seats[i][s]`: `(kind, seed)` of seat `s`'s native bot in game `i`, or None.
    #[new]
    fn new(seats: Vec<Vec<Option<(String, i128)>>>) -> PyResult<Opponents> {
        Ok(Opponents {
            seats: seats
                .into_iter()
                .map(parse_seats)
                .collect::<PyResult<_>>()?,
        })
    }

    /// New bots for game `i` (a new game there).
    fn set(&mut self, i: usize, seats: Vec<Option<(String, i128)>>) -> PyResult<()> {
        let n = self.seats.len();
        let row = self
            .seats
            .get_mut(i)
            .ok_or_else(|| PyIndexError::new_err(format!("game {i} is outside 0..{n}")))?;
        *row = parse_seats(seats)?;
        Ok(())
    }

    /// Play every game of `batch` forward with its native bots until `learners[i]` is to
    /// move, it ends, `moves[i]` reaches `caps[i]`, or a seat without a native bot is to move;
    /// `over`, `movers` and `moves` are updated. Returns how many actions the bots played.
    #[allow(clippy::too_many_arguments)]
    fn play(
        &mut self,
        py: Python<'_>,
        batch: &Bound<'_, Batch>,
        learners: PyReadonlyArray1<'_, i64>,
        caps: PyReadonlyArray1<'_, i64>,
        mut over: PyReadwriteArray1<'_, bool>,
        mut movers: PyReadwriteArray1<'_, i64>,
        mut moves: PyReadwriteArray1<'_, i64>,
    ) -> PyResult<u64> {
        let batch = batch.borrow();
        let n = self.seats.len();
        let (learners, caps) = (learners.as_slice()?, caps.as_slice()?);
        let (over, movers, moves) = (
            over.as_slice_mut()?,
            movers.as_slice_mut()?,
            moves.as_slice_mut()?,
        );
        if [
            learners.len(),
            caps.len(),
            over.len(),
            movers.len(),
            moves.len(),
        ] != [n; 5]
        {
            return Err(PyValueError::new_err(format!(
                "learners, caps, over, movers and moves need {n} entries each"
            )));
        }
        let bots = &mut self.seats;
        if let Some(g) = batch.tigris_games() {
            check_len(g.len(), n)?;
            play_all(py, g, bots, learners, caps, over, movers, moves)
        } else if let Some(g) = batch.gheos_games() {
            check_len(g.len(), n)?;
            play_all(py, g, bots, learners, caps, over, movers, moves)
        } else {
            Err(PyValueError::new_err("an empty batch"))
        }
    }
}

fn check_len(games: usize, n: usize) -> PyResult<()> {
    if games == n {
        Ok(())
    } else {
        Err(PyValueError::new_err(format!(
            "the batch has {games} games, the opponents {n}"
        )))
    }
}

/// One native bot for one seat's decisions, the twin of its Python reference (the lockstep
/// tests, and any caller that wants the Rust bot's choice as an action string).
#[pyclass(module = "cradle._native")]
pub struct NativeBot {
    bot: Bot,
    kind: String,
}

#[pymethods]
impl NativeBot {
    #[new]
    fn new(kind: &str, seed: i128) -> PyResult<NativeBot> {
        Ok(NativeBot {
            bot: Bot::new(kind, seed)?,
            kind: kind.to_string(),
        })
    }

    #[getter]
    fn name(&self) -> &str {
        &self.kind
    }

    /// The id `seat` plays in `state` (a native TigrisState or GheosState); ValueError when
    /// it is not `seat`'s decision or the game is over.
    fn choose_id(&mut self, state: &Bound<'_, PyAny>, seat: i64) -> PyResult<u32> {
        if let Ok(s) = state.cast::<PyTigrisState>() {
            decide_one(&mut *s.borrow_mut(), &mut self.bot, seat)
        } else if let Ok(s) = state.cast::<GheosState>() {
            decide_one(&mut *s.borrow_mut(), &mut self.bot, seat)
        } else {
            Err(PyValueError::new_err(
                "a native bot plays native TigrisState or GheosState objects",
            ))
        }
    }
}

fn decide_one<T: Decides>(state: &mut T, bot: &mut Bot, seat: i64) -> PyResult<u32> {
    if state.over() {
        return Err(PyValueError::new_err("the game is over"));
    }
    if seat != state.mover() as i64 {
        return Err(PyValueError::new_err(format!(
            "it is seat {}'s decision, not seat {seat}'s",
            state.mover()
        )));
    }
    Ok(state.decide(bot, seat as usize))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Opponents>()?;
    m.add_class::<NativeBot>()
}
