//! The observation tensor of one seat (layout: docs/openspiel.md), written straight from the
//! state: element for element what `cradle.envs.tigris_spec.TigrisSpec.fill_observation`
//! makes of `state.view(seat)`, which stays the reference. It reads only what that view
//! shows (the seat's own hand, points only where the view shows them, never the bag's order
//! or other hands), so it leaks nothing the view hides. A change of the layout is made in
//! both encoders (docs/engines.md).

use super::actions::MONUMENTS;
use super::board::{Side, CELLS, COLUMNS, NONE, ROWS};
use super::state::{Key, PendingKind, State};

// Board planes (each ROWS x COLUMNS, a cell's index is row * COLUMNS + column).
const P_UP: usize = 0; // 4: face-up tile of each colour
const P_DOWN: usize = 4; // 4: face-down tile (under a monument)
const P_TREASURE: usize = 8;
const P_CATASTROPHE: usize = 9;
const P_WONDER: usize = 10;
const P_UNIFICATION: usize = 11;
const P_LEADER: usize = 12; // 16: relative seat x role (king, priest, farmer, trader)
const P_MONUMENT: usize = 28; // 6: the 2x2 square of each monument
const P_BUILDING: usize = 34; // 4
const P_PLACED: usize = 38;
const P_CHOICE: usize = 39;
const P_RIVER: usize = 40;
const P_SPECIAL: usize = 41;
pub const PLANES: usize = 42;

// Feature offsets (after the planes).
const F_HAND: usize = 0;
const F_HAND_SIZES: usize = 4;
const F_BAG: usize = 8;
const F_POINTS: usize = 9;
const F_POINTS_SEEN: usize = 25;
const F_TREASURES: usize = 29;
const F_CATASTROPHES: usize = 33;
const F_SUPPLY: usize = 37;
const F_PRESENT: usize = 53;
const F_ACTIONS_LEFT: usize = 57;
const F_ACTIVE: usize = 58;
const F_TO_MOVE: usize = 62;
const F_UNUSED_MONUMENTS: usize = 66;
const F_PENDING: usize = 72;
const F_PENDING_COLOUR: usize = 80;
const F_ATTACKER: usize = 84;
const F_DEFENDER: usize = 88;
const F_ATTACKER_COMMITTED: usize = 92;
const F_ATTACKER_COMMIT: usize = 93;
const F_ATTACKER_STRENGTH: usize = 94;
const F_DEFENDER_STRENGTH: usize = 95;
const F_WARS_LEFT: usize = 96;
const F_CHOOSER: usize = 100;
const F_ADVANCED: usize = 104;
const F_OPTIONS: usize = 105;
const F_ENDING: usize = 109;
const F_OVER: usize = 110;
pub const FEATURES: usize = 111;

/// Length of the flat tensor.
pub const SIZE: usize = PLANES * CELLS + FEATURES;

/// The tensor's role order (king, priest, farmer, trader) for the engine's colour order of
/// leaders (red priest, blue farmer, green trader, black king).
const ROLE_PLANE: [usize; 4] = [1, 2, 3, 0];

/// The pending kinds in the tensor's order (the engine has no "wonder" decision of its own).
fn pending_index(kind: PendingKind) -> usize {
    match kind {
        PendingKind::Revolt => 0,
        PendingKind::War => 1,
        PendingKind::WarOrder => 2,
        PendingKind::Monument => 3,
        PendingKind::Treasure => 4,
        PendingKind::Building => 5,
        PendingKind::WonderPoint => 7,
    }
}

/// Write the observation of `seat` into `out` (`SIZE` long; every element is written).
pub fn observe(s: &State, seat: usize, out: &mut [f32]) {
    assert_eq!(out.len(), SIZE, "a Tigris observation has {SIZE} elements");
    out.fill(0.0);
    let n = s.n;
    let rel = |other: usize| (other + n - seat % n) % n;
    let (planes, f) = out.split_at_mut(PLANES * CELLS);
    let mut mark = |plane: usize, cell: usize| planes[plane * CELLS + cell] = 1.0;

    // The board, as the view's cell contents say it.
    let wonder = s.wonder_mask();
    for cell in s.occupied().iter() {
        let treasure = s.treasure.has(cell);
        if s.cata.has(cell) {
            mark(P_CATASTROPHE, cell);
        } else if wonder.has(cell) {
            mark(P_WONDER, cell);
            if treasure {
                mark(P_TREASURE, cell);
            }
        } else if let Some(index) = s.leader_at(cell) {
            mark(P_LEADER + 4 * rel(index / 4) + ROLE_PLANE[index % 4], cell);
        } else {
            // the last colour found names the cell, as in the view
            let mut found = None;
            for colour in 0..4 {
                if s.up[colour].has(cell) {
                    found = Some(P_UP + colour);
                } else if s.down[colour].has(cell) {
                    found = Some(P_DOWN + colour);
                }
            }
            if let Some(plane) = found {
                mark(plane, cell);
                if treasure {
                    mark(P_TREASURE, cell);
                }
            }
        }
    }
    if s.unification != NONE {
        mark(P_UNIFICATION, s.unification as usize);
    }
    for &(m, cell) in s.monuments() {
        let (row, column) = (cell as usize / COLUMNS, cell as usize % COLUMNS);
        for r in row..(row + 2).min(ROWS) {
            for c in column..(column + 2).min(COLUMNS) {
                mark(P_MONUMENT + m as usize, r * COLUMNS + c);
            }
        }
    }
    for (colour, &at) in s.buildings.iter().enumerate() {
        if at != NONE {
            mark(P_BUILDING + colour, at as usize);
        }
    }
    let map = s.map();
    for cell in map.river.iter() {
        mark(P_RIVER, cell);
    }
    for cell in map.special.iter() {
        mark(P_SPECIAL, cell);
    }

    // The features.
    for colour in 0..4 {
        f[F_HAND + colour] = f32::from(s.hands[seat][colour]);
    }
    let everyone = s.options.open_scoring || s.over;
    for other in 0..n {
        let r = rel(other);
        f[F_HAND_SIZES + r] = s.hands[other].iter().map(|&c| f32::from(c)).sum();
        if everyone || other == seat {
            f[F_POINTS_SEEN + r] = 1.0;
            for colour in 0..4 {
                f[F_POINTS + 4 * r + colour] = s.points[other][colour] as f32;
            }
        }
        f[F_TREASURES + r] = s.treasures[other] as f32;
        f[F_CATASTROPHES + r] = f32::from(s.catastrophes[other]);
        for role in 0..4 {
            if s.leader_cell[4 * other + role] == NONE {
                f[F_SUPPLY + 4 * r + ROLE_PLANE[role]] = 1.0;
            }
        }
        f[F_PRESENT + other] = 1.0;
    }
    f[F_BAG] = s.bag.len() as f32;
    f[F_ACTIONS_LEFT] = f32::from(s.actions_left);
    f[F_ACTIVE + rel(s.active)] = 1.0;
    f[F_TO_MOVE + rel(s.to_move())] = 1.0;
    for m in 0..MONUMENTS.len() {
        if !s.monuments().iter().any(|&(built, _)| built as usize == m) {
            f[F_UNUSED_MONUMENTS + m] = 1.0;
        }
    }

    if let Some(p) = &s.pending {
        // only the fields the pending decision has (as the view lists them)
        let has = |key: Key| p.keys().contains(&key);
        f[F_PENDING + pending_index(p.kind)] = 1.0;
        if has(Key::Color) {
            f[F_PENDING_COLOUR + p.color.unwrap_or(0) as usize] = 1.0;
        }
        if let Some(a) = p.attacker.filter(|_| has(Key::Attacker)) {
            f[F_ATTACKER + rel(a as usize)] = 1.0;
        }
        if let Some(d) = p.defender.filter(|_| has(Key::Defender)) {
            f[F_DEFENDER + rel(d as usize)] = 1.0;
        }
        if let Some(commit) = p
            .attacker_commit
            .flatten()
            .filter(|_| has(Key::AttackerCommit))
        {
            f[F_ATTACKER_COMMITTED] = 1.0;
            f[F_ATTACKER_COMMIT] = f32::from(commit);
        }
        if matches!(p.kind, PendingKind::Revolt | PendingKind::War) {
            let attacker = p.attacker.unwrap_or(0) as usize;
            let defender = p.defender.unwrap_or(0) as usize;
            f[F_ATTACKER_STRENGTH] = s.base_strength(p, attacker) as f32;
            f[F_DEFENDER_STRENGTH] = s.base_strength(p, defender) as f32;
        }
        for (key, list) in [(Key::Colors, p.colors), (Key::Queue, p.queue)] {
            if has(key) {
                for &colour in list.unwrap_or_default().as_slice() {
                    f[F_WARS_LEFT + colour as usize] = 1.0;
                }
            }
        }
        if let Some(chooser) = p.seat.filter(|_| has(Key::Seat)) {
            f[F_CHOOSER + rel(chooser as usize)] = 1.0;
        }
        if s.placed != NONE {
            planes[P_PLACED * CELLS + s.placed as usize] = 1.0;
        }
        if has(Key::Cells) {
            for &cell in p.cells.unwrap_or_default().as_slice() {
                planes[P_CHOICE * CELLS + cell as usize] = 1.0;
            }
        }
    }

    let o = &s.options;
    f[F_ADVANCED] = if o.side == Side::Advanced { 1.0 } else { 0.0 };
    for (i, flag) in [o.buildings, o.english, o.wonder, o.open_scoring]
        .into_iter()
        .enumerate()
    {
        f[F_OPTIONS + i] = if flag { 1.0 } else { 0.0 };
    }
    f[F_ENDING] = if s.ending { 1.0 } else { 0.0 };
    f[F_OVER] = if s.over { 1.0 } else { 0.0 };
}

/// Elements of the memory part of the information-state tensor (docs/openspiel.md).
pub const MEMORY: usize = 12;
const M_UNSEEN: usize = 0; // 4: tiles per colour the seat has not seen (others' hands, discards, bag)
const M_OWN_DISCARDS: usize = 4; // 4: tiles the seat has swapped away
const M_REMOVED: usize = 8; // 4: tiles out of the game

/// Write what `seat` can count from memory into `out` (`MEMORY` long; every element is
/// written): `cradle.envs.tigris_spec.TigrisSpec.fill_memory` of the position, the reference.
pub fn memory(s: &State, seat: usize, out: &mut [f32]) {
    assert_eq!(out.len(), MEMORY, "a Tigris memory has {MEMORY} elements");
    out.fill(0.0);
    for &colour in s.bag.as_slice() {
        out[M_UNSEEN + usize::from(colour)] += 1.0;
    }
    for other in 0..s.n {
        for colour in 0..4 {
            let discarded = s.discards[other][colour] as f32;
            if other == seat {
                out[M_OWN_DISCARDS + colour] += discarded;
            } else {
                out[M_UNSEEN + colour] += f32::from(s.hands[other][colour]) + discarded;
            }
        }
    }
    for colour in 0..4 {
        out[M_REMOVED + colour] = s.removed[colour] as f32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::splitmix::SplitMix64;
    use crate::tigris::events::NoEvents;
    use crate::tigris::playout::fresh_game;
    use crate::tigris::state::Options;

    fn observed(s: &State, seat: usize) -> Vec<f32> {
        let mut out = vec![f32::NAN; SIZE];
        observe(s, seat, &mut out);
        out
    }

    #[test]
    fn a_new_game_shows_the_seat_its_own_hand_and_the_board() {
        let s = fresh_game(3, Options::default(), &mut SplitMix64::new(5));
        let out = observed(&s, 1);
        assert_eq!(SIZE, 7503);
        assert!(out.iter().all(|x| x.is_finite()));
        let f = &out[PLANES * CELLS..];
        for colour in 0..4 {
            assert_eq!(f[F_HAND + colour], f32::from(s.hands[1][colour]));
        }
        assert_eq!(f[F_HAND..F_HAND + 4].iter().sum::<f32>(), 6.0);
        assert_eq!(&f[F_PRESENT..F_PRESENT + 4], &[1.0, 1.0, 1.0, 0.0]);
        // the seat's own points only (no open scoring), at relative seat 0
        assert_eq!(&f[F_POINTS_SEEN..F_POINTS_SEEN + 4], &[1.0, 0.0, 0.0, 0.0]);
        let river = &out[P_RIVER * CELLS..][..CELLS];
        let on_river = river.iter().filter(|&&x| x == 1.0).count();
        assert_eq!(on_river as u32, s.map().river.count());
        let temples = &out[P_UP * CELLS..][..CELLS];
        let start = temples.iter().filter(|&&x| x == 1.0).count();
        assert_eq!(start as u32, s.map().temples.count());
    }

    #[test]
    fn another_seats_hand_does_not_show() {
        let mut rng = SplitMix64::new(9);
        let mut s = fresh_game(2, Options::default(), &mut rng);
        for _ in 0..40 {
            let moves = s.moves();
            let id = moves.nth(rng.below(moves.count()));
            s.apply_move(&moves, id, &mut NoEvents);
        }
        let seat = s.to_move();
        let before = observed(&s, seat);
        let other = 1 - seat;
        // another colour in the other hand, of the same size
        let mut t = s.clone();
        let hand = t.hands[other];
        let from = (0..4).find(|&c| hand[c] > 0).unwrap();
        let to = (0..4).find(|&c| c != from).unwrap();
        t.hands[other][from] -= 1;
        t.hands[other][to] += 1;
        assert_eq!(observed(&t, seat), before);
        assert_ne!(observed(&t, other), observed(&s, other));
    }
}
