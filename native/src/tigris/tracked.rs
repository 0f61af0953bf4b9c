//! A Tigris state with its legal ids and the moves they came from, worked out once and kept
//! until the state changes: a loop that lists the legal ids and then applies one of them
//! applies it from those moves (no rule checks, no kingdom flooded again).

use super::actions::{Action, Parsed};
use super::events::NoEvents;
use super::state::{Moves, State};
use crate::steppable::Steppable;

/// A state and its legal ids, kept until it changes. `s` may be read freely; whoever changes
/// it other than through these methods calls [`Tracked::changed`].
pub struct Tracked {
    pub s: State,
    /// The legal ids of `s`, once asked for (cleared by every change).
    legal: Option<Vec<u16>>,
    /// The legal moves the ids came from, kept with them so that applying a listed id
    /// needs no checks and computes nothing again.
    moves: Option<Moves>,
    /// The last legal list's memory, reused for the next one (no allocation per action).
    spare: Vec<u16>,
}

impl Tracked {
    pub fn new(s: State) -> Tracked {
        Tracked {
            s,
            legal: None,
            moves: None,
            spare: Vec::new(),
        }
    }

    /// A copy of the state with the legal ids it has listed (not their moves).
    pub fn copy(&self) -> Tracked {
        Tracked {
            s: self.s.clone(),
            legal: self.legal.clone(),
            moves: None,
            spare: Vec::new(),
        }
    }

    /// The state changed: forget its legal actions.
    pub fn changed(&mut self) {
        if let Some(ids) = self.legal.take() {
            self.spare = ids;
        }
        self.moves = None;
    }

    /// The legal ids, ascending (listed once until the state changes).
    pub fn legal(&mut self) -> &[u16] {
        if self.legal.is_none() {
            let moves = self.s.moves();
            let mut ids = std::mem::take(&mut self.spare);
            ids.clear();
            ids.reserve(moves.count());
            moves.ids(&mut ids);
            self.legal = Some(ids);
            self.moves = Some(moves);
        }
        self.legal.as_deref().unwrap_or_default()
    }

    /// How many actions are legal (without listing them).
    pub fn legal_count(&self) -> usize {
        match &self.legal {
            Some(ids) => ids.len(),
            None => self.s.moves().count(),
        }
    }

    /// The `index`-th legal id (`index` below [`Tracked::legal_count`]).
    pub fn legal_at(&self, index: usize) -> u16 {
        match &self.legal {
            Some(ids) => ids[index],
            None => self.s.moves().nth(index),
        }
    }

    /// Apply `id` when it is one of the legal ids listed for this state, from their moves (no
    /// checks, nothing computed again); false, and nothing changes, otherwise.
    pub fn apply_listed(&mut self, id: u16) -> bool {
        let (Some(ids), Some(moves)) = (&self.legal, &self.moves) else {
            return false;
        };
        // the list is ascending (the id layout follows the reference's order); were it ever
        // not, a miss only sends the id down the checked path
        if ids.binary_search(&id).is_err() {
            return false;
        }
        self.s.apply_move(moves, id, &mut NoEvents);
        self.changed();
        true
    }
}

impl Steppable for Tracked {
    type Id = u16;

    fn legal_ids_now(&mut self) -> &[u16] {
        self.legal()
    }

    fn step_id(&mut self, id: u32) -> Result<(), String> {
        if u16::try_from(id).is_ok_and(|id| self.apply_listed(id)) {
            return Ok(());
        }
        let action = u16::try_from(id)
            .ok()
            .and_then(Action::from_id)
            .ok_or_else(|| format!("action id {id} is out of range"))?;
        self.s.apply(&Parsed::Action(action), &mut NoEvents)?;
        self.changed();
        Ok(())
    }

    fn over(&self) -> bool {
        self.s.over
    }

    fn mover(&self) -> usize {
        self.s.to_move()
    }

    fn players(&self) -> usize {
        self.s.n
    }

    fn observation_size(&self) -> usize {
        super::observation::SIZE
    }

    fn observe(&self, seat: usize, out: &mut [f32]) {
        super::observation::observe(&self.s, seat, out);
    }
}
