//! What the batch of the vectorised environments (`crate::python::vector`) and the seats' bots
//! (`crate::bots::seat`) need of a game's state: implemented by each game's [`Tracked`] state
//! (`crate::tigris::Tracked`, `crate::gheos::Tracked`), which keeps its legal ids between
//! changes.
//!
//! [`Tracked`]: crate::tigris::Tracked

/// A game state stepped by fixed action ids.
pub trait Steppable {
    type Id: Copy + Into<u32>;
    /// The legal ids now (kept by the state until it changes).
    fn legal_ids_now(&mut self) -> &[Self::Id];
    /// Apply a legal id without events; the reason when it is refused (nothing changed).
    fn step_id(&mut self, id: u32) -> Result<(), String>;
    fn over(&self) -> bool;
    fn mover(&self) -> usize;
    fn players(&self) -> usize;
    /// Elements of one observation tensor.
    fn observation_size(&self) -> usize;
    /// Write the observation of `seat` (a seat of the game) into `out` (every element).
    fn observe(&self, seat: usize, out: &mut [f32]);
}
