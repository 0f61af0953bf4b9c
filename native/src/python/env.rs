//! The opponents of the single-agent environments (`cradle.envs.single`), stepped natively
//! across a `Batch`: every game whose seat to move is an opponent with a native bot (random,
//! greedy, expert-rules and its styles: the twins of `crate::bots`; `ismcts@N`: the native
//! search) is played forward, without Python, until its learner must decide, it ends, it
//! reaches its move cap, or a seat whose bot lives in Python is to move (the caller plays
//! that one and calls again).

use numpy::{PyReadonlyArray1, PyReadwriteArray1};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;

use super::gheos::GheosState;
use super::tigris::TigrisState;
use super::vector::{Batch, Wraps};
use crate::bots::seat::{play_forward, Bot, Decides};
use crate::steppable::Steppable;

/// The seats' bots of every game of a batch: `None` where the learner sits or a Python bot
/// plays.
#[pyclass(module = "cradle._native")]
pub struct Opponents {
    seats: Vec<Vec<Option<Bot>>>,
}

fn parse_seats(seats: Vec<Option<(String, i128)>>) -> PyResult<Vec<Option<Bot>>> {
    seats
        .into_iter()
        .map(|s| {
            s.map(|(kind, seed)| Bot::new(&kind, seed).map_err(PyValueError::new_err))
                .transpose()
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn play_all<T: Wraps>(
    py: Python<'_>,
    games: &[Py<T>],
    bots: &mut [Vec<Option<Bot>>],
    learners: &[i64],
    caps: &[i64],
    over: &mut [bool],
    movers: &mut [i64],
    moves: &mut [i64],
) -> PyResult<u64>
where
    T::Core: Decides,
{
    let mut played = 0u64;
    for (i, game) in games.iter().enumerate() {
        let mut state = game.borrow_mut(py);
        let state = state.core_mut();
        let done = play_forward(state, &mut bots[i], learners[i], caps[i], &mut moves[i]);
        over[i] = state.over();
        movers[i] = state.mover() as i64;
        played += done.map_err(PyValueError::new_err)?;
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
            bot: Bot::new(kind, seed).map_err(PyValueError::new_err)?,
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
        if let Ok(s) = state.cast::<TigrisState>() {
            decide_one(s.borrow_mut().core_mut(), &mut self.bot, seat)
        } else if let Ok(s) = state.cast::<GheosState>() {
            decide_one(s.borrow_mut().core_mut(), &mut self.bot, seat)
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
