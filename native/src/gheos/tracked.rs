//! A Gheos state with its legal ids, listed once and kept until the state changes.

use super::events::Log;
use super::notation::{Host, Plain, Refusal};
use super::state::State;
use crate::steppable::Steppable;

/// A state and its legal ids, kept until it changes. `s` may be read freely; whoever changes
/// it other than through these methods calls [`Tracked::changed`].
#[derive(Clone)]
pub struct Tracked {
    pub s: State,
    /// The legal ids, once asked for, until the state changes.
    legal: Option<Vec<u32>>,
    /// How many times it changed: what the bindings' own caches are kept by.
    changes: u64,
}

impl Tracked {
    pub fn new(s: State) -> Tracked {
        Tracked {
            s,
            legal: None,
            changes: 0,
        }
    }

    /// The state changed: forget its legal ids.
    pub fn changed(&mut self) {
        self.legal = None;
        self.changes = self.changes.wrapping_add(1);
    }

    /// How many times the state changed (a cache made at one count holds until the next).
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// The legal ids, in the reference's order (listed once until the state changes).
    pub fn legal(&mut self) -> &Vec<u32> {
        if self.legal.is_none() {
            let mut ids = Vec::with_capacity(128);
            self.s.legal_ids(&mut ids);
            self.legal = Some(ids);
        }
        self.legal.as_ref().expect("just made")
    }

    /// `State::apply_id` with the kept legal ids (listed first when they are not kept);
    /// refused, nothing changes and they stay kept.
    pub fn apply_id(&mut self, id: i64, host: &dyn Host, log: &mut Log) -> Result<(), Refusal> {
        let legal = match self.legal.take() {
            Some(legal) => legal,
            None => {
                let mut ids = Vec::with_capacity(128);
                self.s.legal_ids(&mut ids);
                ids
            }
        };
        let done = self.s.apply_id(id, &legal, host, log);
        match done {
            Ok(()) => self.changed(),
            Err(_) => self.legal = Some(legal), // refused: nothing changed
        }
        done
    }
}

impl Steppable for Tracked {
    type Id = u32;

    fn legal_ids_now(&mut self) -> &[u32] {
        self.legal()
    }

    fn step_id(&mut self, id: u32) -> Result<(), String> {
        let mut log = Log::new(false);
        self.apply_id(i64::from(id), &Plain, &mut log)
            .map_err(|_| format!("action id {id} is not legal now"))
    }

    fn over(&self) -> bool {
        self.s.is_over()
    }

    fn mover(&self) -> usize {
        usize::from(self.s.active)
    }

    fn players(&self) -> usize {
        usize::from(self.s.players)
    }

    fn observation_size(&self) -> usize {
        super::observation::size(self.s.tiles.tiles.len())
    }

    fn observe(&self, seat: usize, out: &mut [f32]) {
        super::observation::observe(&self.s, seat, out);
    }
}
