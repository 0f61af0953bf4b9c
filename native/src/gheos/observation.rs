//! The observation tensor of one seat (layout: docs/openspiel.md), written straight from the
//! state: element for element what `cradle.envs.gheos_spec.GheosSpec.fill_observation`
//! makes of `state.view(seat)`, which stays the reference. It reads only what that view
//! shows (the seat's own hand, the stack's size and epoch count, never its order or other
//! hands), so it leaks nothing the view hides. A change of the layout is made in both
//! encoders (docs/engines.md).

use super::board::node;
use super::geometry;
use super::state::{Phase, State, EPOCH};
use super::tiles::NO_TEMPLE;

// One row per tile number.
const T_ON_MAP: usize = 0;
const T_ROW: usize = 1;
const T_COL: usize = 2;
const T_UP: usize = 3;
const T_ROTATION: usize = 4; // 3: one-hot
const T_IN_HAND: usize = 7;
const T_REMOVED: usize = 8;
const T_REGIONS: usize = 9; // 3 x REGION: the area each of the tile's regions lies in
const R_CIV: usize = 0; // 6
const R_KIND: usize = 6; // 2: continent, island
const R_TOTALS: usize = 8; // 5: wheat, cups, swords, pyramids, tiles
const REGION: usize = 13;
const T_STATIC: usize = T_REGIONS + 3 * REGION; // 3 x STATIC: what the tile shows
const S_EDGES: usize = 0; // 3
const S_LANDMASS: usize = 3;
const S_WHEAT: usize = 4;
const S_CUP: usize = 5;
const S_SWORD: usize = 6;
const S_PYRAMID: usize = 7;
const S_TEMPLE: usize = 8; // 3
const STATIC: usize = 11;
pub const PER_TILE: usize = T_STATIC + 3 * STATIC;

// Global features (after the tile rows).
const F_PRESENT: usize = 0;
const F_POINTS: usize = 4;
const F_TOKENS: usize = 8;
const F_FOLLOWERS: usize = 12; // 24: relative seat x colour
const F_HAND_SIZES: usize = 36;
const F_SUPPLY: usize = 40;
const F_CIVS: usize = 46;
const F_ACTIVE: usize = 52;
const F_TO_MOVE: usize = 56;
const F_PHASE: usize = 60; // 7
const F_STACK: usize = 67;
const F_STACK_EPOCHS: usize = 68;
const F_EPOCHS_DRAWN: usize = 69;
const F_END_EPOCH: usize = 70;
const F_SWORDS: usize = 71;
const F_MOVED: usize = 77;
const F_MIGRATING: usize = 83;
const F_AT_WAR: usize = 89;
const F_TIED: usize = 95;
const F_OVER: usize = 101;
pub const FEATURES: usize = 102;

/// Length of the flat tensor for a set of `tiles` tiles.
pub fn size(tiles: usize) -> usize {
    tiles * PER_TILE + FEATURES
}

fn flag(on: bool) -> f32 {
    if on {
        1.0
    } else {
        0.0
    }
}

/// Write the observation of `seat` into `out` (`size(tile count)` long; every element is
/// written). What each tile shows comes from the game's tile set (the environments play the
/// standard set, whose numbers the reference encoder uses).
pub fn observe(game: &State, seat: usize, out: &mut [f32]) {
    let count = game.tiles.tiles.len();
    assert_eq!(
        out.len(),
        size(count),
        "a Gheos observation has {} elements",
        size(count)
    );
    out.fill(0.0);
    let n = usize::from(game.players);
    let rel = |other: usize| (other + n - seat % n) % n;
    let (tiles, f) = out.split_at_mut(count * PER_TILE);

    let spans = game.area_spans();
    for &slot in game.board.ordered() {
        let slot = usize::from(slot);
        let cell = game.board.cell[slot];
        let tile = game.tile_at(slot);
        let row = &mut tiles[usize::from(game.board.tile[slot]) * PER_TILE..][..PER_TILE];
        row[T_ON_MAP] = 1.0;
        row[T_ROW] = geometry::row(cell) as f32;
        row[T_COL] = geometry::col(cell) as f32;
        row[T_UP] = flag(geometry::is_up(cell));
        row[T_ROTATION + usize::from(game.board.rot[slot])] = 1.0;
        for k in 0..tile.regions.len().min(3) {
            let base = T_REGIONS + k * REGION;
            let root = game.areas.of(node(slot, k as u8));
            if let Some(colour) = game.occupant(root) {
                row[base + R_CIV + usize::from(colour)] = 1.0;
            }
            let area = game.stats(root);
            if area.continent() {
                row[base + R_KIND] = 1.0;
            } else if area.island() {
                row[base + R_KIND + 1] = 1.0;
            }
            row[base + R_TOTALS] = f32::from(area.wheat);
            row[base + R_TOTALS + 1] = f32::from(area.cup);
            row[base + R_TOTALS + 2] = f32::from(area.sword);
            row[base + R_TOTALS + 3] = f32::from(area.pyramid);
            row[base + R_TOTALS + 4] = f32::from(spans[root]);
        }
    }
    for &number in game.hands[seat].as_slice() {
        tiles[usize::from(number) * PER_TILE + T_IN_HAND] = 1.0;
    }
    for &number in game.removed.as_slice() {
        tiles[usize::from(number) * PER_TILE + T_REMOVED] = 1.0;
    }
    for (number, tile) in game.tiles.tiles.iter().enumerate() {
        let row = &mut tiles[number * PER_TILE + T_STATIC..][..3 * STATIC];
        for (k, region) in tile.regions.iter().take(3).enumerate() {
            let part = &mut row[k * STATIC..][..STATIC];
            for &edge in &region.edges {
                part[S_EDGES + usize::from(edge)] = 1.0;
            }
            part[S_LANDMASS] = flag(region.landmass());
            part[S_WHEAT] = f32::from(region.wheat);
            part[S_CUP] = f32::from(region.cup);
            part[S_SWORD] = f32::from(region.sword);
            part[S_PYRAMID] = f32::from(region.pyramid);
            if region.temple != NO_TEMPLE {
                part[S_TEMPLE + usize::from(region.temple)] = 1.0;
            }
        }
    }

    for other in 0..n {
        let r = rel(other);
        f[F_PRESENT + other] = 1.0;
        f[F_POINTS + r] = game.points[other] as f32;
        f[F_TOKENS + r] = f32::from(game.tokens[other]);
        for colour in 0..6 {
            f[F_FOLLOWERS + 6 * r + colour] = f32::from(game.held[other][colour]);
        }
        f[F_HAND_SIZES + r] = game.hands[other].len() as f32;
    }
    for colour in 0..6u8 {
        f[F_SUPPLY + usize::from(colour)] = f32::from(game.supply[usize::from(colour)]);
        f[F_CIVS + usize::from(colour)] = flag(game.on_table(colour));
    }
    let active = usize::from(game.active);
    f[F_ACTIVE + rel(active)] = 1.0;
    f[F_TO_MOVE + rel(active)] = 1.0;
    let phase = Phase::ALL.iter().position(|&p| p == game.phase);
    f[F_PHASE + phase.unwrap_or(0)] = 1.0;
    f[F_STACK] = game.stack.len() as f32;
    let epochs_left = game.epochs_in_stack();
    f[F_STACK_EPOCHS] = epochs_left as f32;
    f[F_EPOCHS_DRAWN] = f32::from(game.epochs);
    f[F_END_EPOCH] = f32::from(game.end_epoch());
    if let Some(conflict) = game.conflict.as_ref().filter(|_| game.phase.in_conflict()) {
        for colour in 0..6 {
            if conflict.sword_mask & (1 << colour) != 0 {
                f[F_SWORDS + colour] = f32::from(conflict.swords[colour]);
            }
        }
        for &colour in &conflict.moved {
            f[F_MOVED + usize::from(colour)] = 1.0;
        }
        if let Some(first) = conflict.migrations.first() {
            f[F_MIGRATING + usize::from(first.colour)] = 1.0;
        }
        if let Some(war) = conflict.wars.as_ref().and_then(|wars| wars.first()) {
            for &colour in &war.fighters {
                f[F_AT_WAR + usize::from(colour)] = 1.0;
            }
            for &colour in &war.leaders {
                f[F_TIED + usize::from(colour)] = 1.0;
            }
        }
    }
    f[F_OVER] = flag(game.is_over());
}

/// Write what `seat` can count from memory into `out` (one flag per tile of the set; every
/// element is written): the tiles it has not seen, in other hands and the stack
/// (`cradle.envs.gheos_spec.GheosSpec.fill_memory` of the position, the reference).
pub fn memory(game: &State, seat: usize, out: &mut [f32]) {
    assert_eq!(
        out.len(),
        game.tiles.tiles.len(),
        "a Gheos memory has a flag per tile"
    );
    out.fill(0.0);
    for other in (0..usize::from(game.players)).filter(|&other| other != seat) {
        for &tile in game.hands[other].as_slice() {
            out[usize::from(tile)] = 1.0;
        }
    }
    for &tile in game.stack.as_slice().iter().filter(|&&t| t != EPOCH) {
        out[usize::from(tile)] = 1.0;
    }
}

// The grid tensor of the map (`cradle.envs.gheos_grid`, the reference: layout and mapping
// there and in docs/research.md): channels x GRID_ROWS x GRID_COLS, each triangle one cell.
pub const GRID_ROWS: usize = 29;
pub const GRID_COLS: usize = 55;
const G_UP: usize = 0;
const G_TILE: usize = 1;
const G_FRONTIER: usize = 2;
const G_START: usize = 3;
const G_WHEAT: usize = 4;
const G_CUP: usize = 5;
const G_SWORD: usize = 6;
const G_PYRAMID: usize = 7;
const G_TEMPLE: usize = 8; // 3
const G_EDGES: usize = 11; // 3 x G_EDGE
const E_LAND: usize = 0;
const E_CIV: usize = 1; // 6
const E_CONTINENT: usize = 7;
const E_ISLAND: usize = 8;
const E_AREA_TILES: usize = 9;
const G_EDGE: usize = 10;
pub const GRID_CHANNELS: usize = G_EDGES + 3 * G_EDGE;
pub const GRID_SIZE: usize = GRID_CHANNELS * GRID_ROWS * GRID_COLS;

/// `(top, left)`: the board cell at grid cell (0, 0): the bounding box of the map's tiles
/// and the frontier centred, `top + left` even (so grid cell (i, j) points up when i + j is).
fn grid_window(game: &State) -> (i32, i32) {
    let map = game.board.cell[..game.board.slots()].iter();
    let cells = map.chain(game.frontier.as_slice());
    let (mut r0, mut r1, mut c0, mut c1) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
    for &cell in cells {
        let (r, c) = (geometry::row(cell), geometry::col(cell));
        (r0, r1, c0, c1) = (r0.min(r), r1.max(r), c0.min(c), c1.max(c));
    }
    let top = r0 - (GRID_ROWS as i32 - (r1 - r0 + 1)).div_euclid(2);
    let left = c0 - (GRID_COLS as i32 - (c1 - c0 + 1)).div_euclid(2);
    (top, left - (top + left).rem_euclid(2))
}

/// Write the grid tensor of the map into `out` (`GRID_SIZE` long; every element is written).
/// The map is public: the same for every seat.
pub fn grid(game: &State, out: &mut [f32]) {
    assert_eq!(
        out.len(),
        GRID_SIZE,
        "a Gheos grid has {GRID_SIZE} elements"
    );
    out.fill(0.0);
    if game.board.slots() == 0 {
        return;
    }
    let (top, left) = grid_window(game);
    let plane = GRID_ROWS * GRID_COLS;
    let at = |cell: u16| {
        let (i, j) = (geometry::row(cell) - top, geometry::col(cell) - left);
        let inside = (0..GRID_ROWS as i32).contains(&i) && (0..GRID_COLS as i32).contains(&j);
        inside.then(|| i as usize * GRID_COLS + j as usize)
    };
    for (k, up) in out[G_UP * plane..][..plane].iter_mut().enumerate() {
        *up = flag((k / GRID_COLS + k % GRID_COLS).is_multiple_of(2));
    }
    for &cell in game.frontier.as_slice() {
        if let Some(k) = at(cell) {
            out[G_FRONTIER * plane + k] = 1.0;
        }
    }
    let spans = game.area_spans();
    for slot in 0..game.board.slots() {
        let cell = game.board.cell[slot];
        let Some(k) = at(cell) else { continue };
        let mut put = |channel: usize, value: f32| out[channel * plane + k] = value;
        put(G_TILE, 1.0);
        if cell == geometry::START_CELL {
            put(G_START, 1.0);
        }
        let tile = game.tile_at(slot);
        let rotation = game.board.rot[slot];
        let (mut wheat, mut cup, mut sword, mut pyramid) = (0u8, 0u8, 0u8, 0u8);
        for (r, region) in tile.regions.iter().enumerate().take(3) {
            wheat += region.wheat;
            cup += region.cup;
            sword += region.sword;
            pyramid += region.pyramid;
            if region.temple != NO_TEMPLE {
                put(G_TEMPLE + usize::from(region.temple), 1.0);
            }
            let root = game.areas.of(node(slot, r as u8));
            let area = game.stats(root);
            let civ = game.occupant(root);
            for &edge in &region.edges {
                let base = G_EDGES + usize::from((edge + rotation) % 3) * G_EDGE;
                put(base + E_LAND, flag(region.landmass()));
                if let Some(colour) = civ {
                    put(base + E_CIV + usize::from(colour), 1.0);
                }
                if area.continent() {
                    put(base + E_CONTINENT, 1.0);
                } else if area.island() {
                    put(base + E_ISLAND, 1.0);
                }
                put(base + E_AREA_TILES, f32::from(spans[root]));
            }
        }
        put(G_WHEAT, f32::from(wheat));
        put(G_CUP, f32::from(cup));
        put(G_SWORD, f32::from(sword));
        put(G_PYRAMID, f32::from(pyramid));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gheos::tiles::packaged;

    #[test]
    fn a_new_game_shows_the_start_tile_and_the_seats_own_hand_only() {
        let names: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let game = State::deal(packaged(), names, &[17]);
        let count = game.tiles.tiles.len();
        let mut out = vec![f32::NAN; size(count)];
        observe(&game, 2, &mut out);
        assert!(out.iter().all(|x| x.is_finite()));
        let row = |n: usize| &out[n * PER_TILE..][..PER_TILE];
        let on_map: Vec<usize> = (0..count).filter(|&n| row(n)[T_ON_MAP] == 1.0).collect();
        assert_eq!(on_map, vec![usize::from(game.board.tile[0])]);
        let in_hand: Vec<u8> = (0..count as u8)
            .filter(|&n| row(usize::from(n))[T_IN_HAND] == 1.0)
            .collect();
        assert_eq!(in_hand, game.sorted_hand(2).as_slice());
        let f = &out[count * PER_TILE..];
        assert_eq!(&f[F_PRESENT..F_PRESENT + 4], &[1.0, 1.0, 1.0, 0.0]);
        assert_eq!(&f[F_HAND_SIZES..F_HAND_SIZES + 4], &[2.0, 2.0, 2.0, 0.0]);
        assert_eq!(f[F_STACK] as usize, game.stack.len());
        assert_eq!(f[F_STACK_EPOCHS], 8.0);
    }

    #[test]
    fn the_grid_of_a_new_map_shows_the_start_tile_centred_and_its_frontier() {
        let names: Vec<String> = ["a", "b"].map(String::from).to_vec();
        let game = State::deal(packaged(), names, &[5]);
        let mut out = vec![f32::NAN; GRID_SIZE];
        grid(&game, &mut out);
        let plane = GRID_ROWS * GRID_COLS;
        let channel = |c: usize| &out[c * plane..][..plane];
        let cells = |c: usize| (0..plane).filter(move |&k| channel(c)[k] == 1.0);
        assert!(out.iter().all(|x| x.is_finite()));
        // 0,0 and its frontier (0,-1 0,1 1,0): rows 0..1 and columns -1..1 centred, so
        // top = -(29 - 2) / 2 = -13 and left = -1 - (55 - 3) / 2 = -27
        let start: Vec<usize> = cells(G_START).collect();
        assert_eq!(start, cells(G_TILE).collect::<Vec<_>>());
        let (i, j) = (start[0] / GRID_COLS, start[0] % GRID_COLS);
        assert_eq!((i, j), (13, 27));
        assert_eq!(channel(G_UP)[start[0]], 1.0);
        let frontier: Vec<usize> = cells(G_FRONTIER).collect();
        let mut beside = vec![start[0] - 1, start[0] + 1, start[0] + GRID_COLS];
        beside.sort_unstable();
        assert_eq!(frontier, beside);
        assert_eq!(channel(G_PYRAMID)[start[0]], 1.0);
    }
}
