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

/// The network's features of an observation `write` fills.
fn features_of(
    net: &Net,
    size: usize,
    write: impl FnOnce(&mut [f32]),
    scratch: &mut ModelScratch,
    out: &mut [f32],
) {
    scratch.observation.clear();
    scratch.observation.resize(size, 0.0);
    write(&mut scratch.observation);
    net.features(&scratch.observation, &mut scratch.layers, out);
}

impl LeafModel<TigrisWorld> for Net {
    fn width(&self) -> usize {
        self.width
    }

    fn features(&self, world: &TigrisWorld, scratch: &mut ModelScratch, out: &mut [f32]) {
        let seat = world.s.to_move();
        features_of(
            self,
            TIGRIS.0,
            |o| crate::tigris::observation::observe(&world.s, seat, o),
            scratch,
            out,
        );
    }

    fn logit(&self, features: &[f32], id: u32) -> f32 {
        Net::logit(self, features, id)
    }

    fn values(&self, features: &[f32], out: &mut [f64]) {
        Net::values(self, features, out);
    }
}

impl LeafModel<GheosWorld> for Net {
    fn width(&self) -> usize {
        self.width
    }

    fn features(&self, world: &GheosWorld, scratch: &mut ModelScratch, out: &mut [f32]) {
        let seat = world.to_move();
        let size = crate::gheos::observation::size(world.s.tiles.tiles.len());
        features_of(
            self,
            size,
            |o| crate::gheos::observation::observe(&world.s, seat, o),
            scratch,
            out,
        );
    }

    fn logit(&self, features: &[f32], id: u32) -> f32 {
        Net::logit(self, features, id)
    }

    fn values(&self, features: &[f32], out: &mut [f64]) {
        Net::values(self, features, out);
    }
}
