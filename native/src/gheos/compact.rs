//! The compact Gheos action ids (`cradle.envs.gheos_compact`, docs/research.md): a cell is
//! named by its place in what the table shows now (the frontier, or the map's cells, both in
//! cell order, which is (row, column) order), so the space is 2,588 wide instead of the
//! engine's 191,012. Equal to the Python reference `CompactActions` id for id (the tests
//! compare them over random games).

use super::board::MAX_SLOTS;
use super::notation::{self as ids, Decoded};
use super::state::State;

/// The engine keeps at most this many frontier cells.
pub const FRONTIER: u32 = 64;
/// Tiles on a map, the start tile included.
pub const MAP_CELLS: u32 = MAX_SLOTS as u32;
pub const PLACE: u32 = 0;
pub const REPLACE: u32 = PLACE + 2 * FRONTIER * 3;
pub const START: u32 = REPLACE + 2 * MAP_CELLS * 3;
pub const MIGRATE: u32 = START + 6 * MAP_CELLS * 3;
pub const REST: u32 = MIGRATE + 6 * MAP_CELLS * 3;
pub const COUNT: u32 = REST + (ids::ACTION_COUNT - ids::PAY);

/// The map's cells in cell order.
fn map_cells(game: &State) -> impl Iterator<Item = u16> + '_ {
    game.board
        .ordered()
        .iter()
        .map(|&slot| game.board.cell[usize::from(slot)])
}

fn place_of(mut cells: impl Iterator<Item = u16>, cell: u16) -> Option<u32> {
    cells.position(|c| c == cell).map(|k| k as u32)
}

/// The compact id of the engine id `id` in `game` (None when it names a cell outside the
/// frontier or the map: never for a legal id).
pub fn compact(game: &State, id: u32) -> Option<u32> {
    Some(match ids::decode(id) {
        Decoded::Tile(replacing, slot, cell, rotation) => {
            let (base, width, k) = if replacing {
                (REPLACE, MAP_CELLS, place_of(map_cells(game), cell)?)
            } else {
                let frontier = game.frontier.as_slice().iter().copied();
                (PLACE, FRONTIER, place_of(frontier, cell)?)
            };
            base + (slot as u32 * width + k) * 3 + u32::from(rotation)
        }
        Decoded::Region(migrating, colour, cell, edge) => {
            let base = if migrating { MIGRATE } else { START };
            let k = place_of(map_cells(game), cell)?;
            base + (u32::from(colour) * MAP_CELLS + k) * 3 + u32::from(edge)
        }
        _ => REST + id - ids::PAY,
    })
}

/// The engine id of the compact id `compact` in `game` (None when it is out of range or
/// names no cell of this table).
pub fn engine(game: &State, compact: u32) -> Option<u32> {
    if compact >= COUNT {
        return None;
    }
    if compact >= REST {
        return Some(ids::PAY + compact - REST);
    }
    if compact >= START {
        let migrating = compact >= MIGRATE;
        let rest = compact - if migrating { MIGRATE } else { START };
        let (rest, edge) = (rest / 3, rest % 3);
        let (colour, k) = (rest / MAP_CELLS, rest % MAP_CELLS);
        let cell = map_cells(game).nth(k as usize)?;
        let base = if migrating { ids::MIGRATE } else { ids::START };
        return Some(base + (colour * ids_cells() + ids::position(cell)) * 3 + edge);
    }
    let replacing = compact >= REPLACE;
    let rest = compact - if replacing { REPLACE } else { PLACE };
    let (rest, rotation) = (rest / 3, rest % 3);
    let width = if replacing { MAP_CELLS } else { FRONTIER };
    let (slot, k) = (rest / width, rest % width);
    let cell = if replacing {
        map_cells(game).nth(k as usize)?
    } else {
        *game.frontier.as_slice().get(k as usize)?
    };
    let base = if replacing { ids::REPLACE } else { ids::PLACE };
    Some(base + (slot * ids_cells() + ids::position(cell)) * 3 + rotation)
}

fn ids_cells() -> u32 {
    super::geometry::CELLS
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gheos::events::Log;
    use crate::gheos::tiles::packaged;
    use crate::splitmix::SplitMix64;

    #[test]
    fn every_legal_id_of_random_games_round_trips_one_to_one() {
        for (seed, players) in [(3u32, 2usize), (8, 3), (21, 4)] {
            let names = (0..players).map(|p| format!("p{p}")).collect();
            let mut game = State::deal(packaged(), names, &[seed]);
            let mut rng = SplitMix64::new(u64::from(seed));
            let mut legal = Vec::new();
            while !game.is_over() {
                legal.clear();
                game.legal_ids(&mut legal);
                let mut seen = std::collections::HashSet::new();
                for &id in &legal {
                    let c = compact(&game, id).expect("a legal id has a compact id");
                    assert!(c < COUNT && seen.insert(c), "one to one");
                    assert_eq!(engine(&game, c), Some(id));
                }
                let pick = legal[(rng.next_u64() % legal.len() as u64) as usize];
                game.apply_legal(pick, &mut Log::new(false));
            }
            assert_eq!(engine(&game, COUNT), None);
        }
        let fresh = State::deal(packaged(), vec!["a".into(), "b".into()], &[1]);
        assert_eq!(engine(&fresh, 3 * 63), None); // frontier place 63: no such cell yet
    }
}
