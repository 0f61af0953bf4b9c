//! The network as the search's [`LeafModel`] in each game: the features of a world are the
//! network's of the flat observation of its seat to move (`crate::tigris::observation`,
//! `crate::gheos::observation`: what that seat's view shows, nothing more).

use super::Net;
use crate::gheos::World as GheosWorld;
use crate::search::{LeafModel, ModelScratch, SearchGame};
use crate::tigris::World as TigrisWorld;

/// Whether `net` plays `game` with `players` over `inputs`-wide observations and `actions`
/// action ids: a clear reason where it does not.
pub fn check(
    net: &Net,
    game: &str,
    players: usize,
    inputs: usize,
    actions: usize,
) -> Result<(), String> {
    if net.game != game {
        return Err(format!("the model plays {}, not {game}", net.game));
    }
    if net.players != players {
        return Err(format!(
            "the model is for {} players, the game has {players}",
            net.players
        ));
    }
    if net.inputs != inputs || net.actions != actions {
        return Err(format!(
            "the model reads {} inputs and scores {} actions; {game} has {inputs} and {actions}",
            net.inputs, net.actions
        ));
    }
    Ok(())
}

/// The flat Tigris observation's width and the action ids.
pub const TIGRIS: (usize, usize) = (
    crate::tigris::observation::SIZE,
    crate::tigris::actions::ACTION_COUNT as usize,
);

/// A world the network reads: the flat observation of one of its seats.
pub trait Observed: SearchGame {
    /// The observation's width.
    fn observation_size(&self) -> usize;
    /// What `seat`'s view shows, written into `out` (`observation_size` wide).
    fn observe(&self, seat: usize, out: &mut [f32]);
}

impl Observed for TigrisWorld {
    fn observation_size(&self) -> usize {
        TIGRIS.0
    }

    fn observe(&self, seat: usize, out: &mut [f32]) {
        crate::tigris::observation::observe(&self.s, seat, out);
    }
}

impl Observed for GheosWorld {
    fn observation_size(&self) -> usize {
        crate::gheos::observation::size(self.s.tiles.tiles.len())
    }

    fn observe(&self, seat: usize, out: &mut [f32]) {
        crate::gheos::observation::observe(&self.s, seat, out);
    }
}

impl<G: Observed> LeafModel<G> for Net {
    fn width(&self) -> usize {
        self.width
    }

    fn features(&self, world: &G, scratch: &mut ModelScratch, out: &mut [f32]) {
        scratch.observation.clear();
        scratch.observation.resize(world.observation_size(), 0.0);
        world.observe(world.to_move(), &mut scratch.observation);
        Net::features(self, &scratch.observation, &mut scratch.layers, out);
    }

    fn logit(&self, features: &[f32], id: u32) -> f32 {
        Net::logit(self, features, id)
    }

    fn values(&self, features: &[f32], out: &mut [f64]) {
        Net::values(self, features, out);
    }
}
