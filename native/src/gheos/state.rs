//! The Gheos rules: a game state, its legal actions and what each action does, step for step
//! as the Python reference (`cradle.gheos.state`) does them, so that both give the same legal
//! ids in the same order, the same events and the same positions.

use std::sync::Arc;

use super::board::{node, Area, Areas, Board, NONE};
use super::events::{Event, Log, Ref, Standing, Why, COLOURS};
use super::geometry::{self, cell_name, NO_CELL, START_CELL};
use super::notation::{
    self as ids, decode, disallowed, malformed, read_action, Decoded, Host, Reading, Refusal,
};
use super::tiles::{TileSet, NO_TEMPLE, START_TILE, TILE_COUNT};
use crate::cpython_random::CpythonRandom;
use crate::splitmix::SplitMix64;

pub const MIN_PLAYERS: usize = 2;
pub const MAX_PLAYERS: usize = 4;
pub const FOLLOWERS: u8 = 5;
pub const TOKENS: u8 = 3;
pub const EPOCH_TILES: u8 = 8;
pub const HAND_SIZE: usize = 2;
/// An epoch tile in the stack.
pub const EPOCH: u8 = u8::MAX;

/// Which tile actions `State::tile_ids_that` keeps: all, those that start no conflict (a
/// player without followers), or only those that start one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Starts {
    Any,
    Nothing,
    Conflict,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Tile,
    Pay,
    Migrate,
    War,
    Civ,
    Token,
    Over,
}

impl Phase {
    pub const ALL: [Phase; 7] = [
        Phase::Tile,
        Phase::Pay,
        Phase::Migrate,
        Phase::War,
        Phase::Civ,
        Phase::Token,
        Phase::Over,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Phase::Tile => "tile",
            Phase::Pay => "pay",
            Phase::Migrate => "migrate",
            Phase::War => "war",
            Phase::Civ => "civ",
            Phase::Token => "token",
            Phase::Over => "over",
        }
    }

    pub fn from_name(name: &str) -> Option<Phase> {
        Phase::ALL.into_iter().find(|p| p.name() == name)
    }

    pub fn in_conflict(self) -> bool {
        matches!(self, Phase::Pay | Phase::Migrate | Phase::War)
    }
}

/// A short list kept inline, so that cloning a state copies memory and allocates nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Few<T: Copy, const N: usize> {
    len: u8,
    items: [T; N],
}

impl<T: Copy + Default, const N: usize> Default for Few<T, N> {
    fn default() -> Self {
        Few {
            len: 0,
            items: [T::default(); N],
        }
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> Few<T, N> {
    pub fn as_slice(&self) -> &[T] {
        &self.items[..usize::from(self.len)]
    }

    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.items[..usize::from(self.len)]
    }

    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn push(&mut self, item: T) {
        self.items[usize::from(self.len)] = item;
        self.len += 1;
    }

    pub fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        Some(self.items[usize::from(self.len)])
    }

    pub fn insert(&mut self, at: usize, item: T) {
        let len = self.len();
        self.items.copy_within(at..len, at + 1);
        self.items[at] = item;
        self.len += 1;
    }

    pub fn remove(&mut self, at: usize) -> T {
        let item = self.items[at];
        let len = self.len();
        self.items.copy_within(at + 1..len, at);
        self.len -= 1;
        item
    }

    /// Removes the first `item`; false when there is none.
    pub fn remove_item(&mut self, item: T) -> bool {
        match self.as_slice().iter().position(|&x| x == item) {
            Some(at) => {
                self.remove(at);
                true
            }
            None => false,
        }
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }

    pub fn from_slice(items: &[T]) -> Self {
        let mut out = Self::default();
        for &item in items {
            out.push(item);
        }
        out
    }
}

/// A migration still to be made: the civilization, the parts (area roots, in the
/// reference's order) it may go to, and whether its continent split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Migration {
    pub colour: u8,
    pub options: Vec<u8>,
    pub split: bool,
}

/// A war still to be decided: the civilizations in it and the tied leaders to choose from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct War {
    pub fighters: Vec<u8>,
    pub leaders: Vec<u8>,
}

/// A war and/or migration being resolved (the `pending` of positions and views).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The slot of the tile just played: its temple scores once all is resolved.
    pub slot: u8,
    /// Swords on each civilization's former continent (the new or replaced tile not counted).
    pub swords: [u16; 6],
    /// Which colours have a sword count.
    pub sword_mask: u8,
    /// The civilizations that migrated: they lose any war automatically.
    pub moved: Vec<u8>,
    pub migrations: Vec<Migration>,
    /// None until the migrations are settled.
    pub wars: Option<Vec<War>>,
}

/// What a replacement would do, worked out before it is made.
struct Plan {
    areas: Areas,
    swords: [u16; 6],
    anchors: [u8; 6],
    migrations: Vec<Migration>,
    split: bool,
    war: bool,
}

#[derive(Clone)]
pub struct State {
    pub tiles: Arc<TileSet>,
    pub names: Arc<Vec<String>>,
    pub players: u8,
    pub active: u8,
    pub phase: Phase,
    pub board: Board,
    pub areas: Areas,
    /// The empty cells sharing an edge with a tile, ordered.
    pub frontier: Few<u16, 64>,
    /// Each hand in the reference's list order (a drawn tile goes last).
    pub hands: [Few<u8, 2>; MAX_PLAYERS],
    /// The next tile drawn is the last one.
    pub stack: Few<u8, 64>,
    pub removed: Few<u8, 52>,
    /// Colour -> the node its marker is on (NONE: not on the table).
    pub civs: [u8; 6],
    pub held: [[u8; 6]; MAX_PLAYERS],
    pub supply: [u8; 6],
    pub points: [i64; MAX_PLAYERS],
    pub tokens: [u8; MAX_PLAYERS],
    pub epochs: u8,
    pub conflict: Option<Box<Conflict>>,
}

impl State {
    /// An empty table (no tile, nothing dealt) for `names`.
    pub fn empty(tiles: Arc<TileSet>, names: Vec<String>) -> State {
        let players = names.len();
        assert!((MIN_PLAYERS..=MAX_PLAYERS).contains(&players));
        let mut tokens = [0; MAX_PLAYERS];
        tokens[..players].fill(TOKENS);
        State {
            tiles,
            names: Arc::new(names),
            players: players as u8,
            active: 0,
            phase: Phase::Tile,
            board: Board::default(),
            areas: Areas::default(),
            frontier: Few::default(),
            hands: [Few::default(); MAX_PLAYERS],
            stack: Few::default(),
            removed: Few::default(),
            civs: [NONE; 6],
            held: [[0; 6]; MAX_PLAYERS],
            supply: [FOLLOWERS; 6],
            points: [0; MAX_PLAYERS],
            tokens,
            epochs: 0,
            conflict: None,
        }
    }

    /// A new game dealt as `cradle.gheos.engine.new_game` deals it with `random.Random`
    /// seeded by an int whose absolute value is `key` (32-bit words, least significant first).
    pub fn deal(tiles: Arc<TileSet>, names: Vec<String>, key: &[u32]) -> State {
        let mut game = State::empty(tiles, names);
        let players = usize::from(game.players);
        let mut rng = CpythonRandom::from_key(key);
        let mut landscape: Vec<u8> = (0..TILE_COUNT as u8).filter(|&n| n != START_TILE).collect();
        rng.shuffle(&mut landscape);
        for seat in 0..players {
            let mut hand = [landscape[seat * 2], landscape[seat * 2 + 1]];
            hand.sort_unstable();
            game.hands[seat] = Few::from_slice(&hand);
        }
        let mut stack = landscape[players * HAND_SIZE..].to_vec();
        stack.extend(std::iter::repeat_n(EPOCH, usize::from(EPOCH_TILES)));
        rng.shuffle(&mut stack);
        game.stack = Few::from_slice(&stack);
        game.active = rng.below(players as u32) as u8;
        game.set_board(&[(START_CELL, START_TILE, 0)]);
        game
    }

    /// Lays out `tiles` (cell, tile, rotation), in slot order, on an empty table.
    pub fn set_board(&mut self, placed: &[(u16, u8, u8)]) {
        self.board = Board::default();
        for &(cell, tile, rot) in placed {
            self.board.add(cell, tile, rot);
        }
        self.areas = Areas::build(&self.board, &self.tiles, None);
        let mut frontier: Vec<u16> = Vec::new();
        for &slot in self.board.ordered() {
            for other in geometry::neighbours(self.board.cell[usize::from(slot)]) {
                if other != NO_CELL && self.board.slot_of(other).is_none() {
                    frontier.push(other);
                }
            }
        }
        frontier.sort_unstable();
        frontier.dedup();
        self.frontier = Few::from_slice(&frontier);
    }

    /// Makes this state `from` again, as `*self = from.clone()` would, but copying the
    /// board and the areas only as far as either of the two has tiles: the one-ply priors
    /// play each candidate move on one scratch state restored this way instead of a clone
    /// (`knowledge::priors_legal`). Slots past a board's length are never written, so the
    /// two states agree past the longer board.
    pub fn restore_from(&mut self, from: &State) {
        // Every field named, so that a new one cannot be forgotten here.
        let State {
            tiles,
            names,
            players,
            active,
            phase,
            board,
            areas,
            frontier,
            hands,
            stack,
            removed,
            civs,
            held,
            supply,
            points,
            tokens,
            epochs,
            conflict,
        } = from;
        if !Arc::ptr_eq(&self.tiles, tiles) {
            self.tiles = tiles.clone();
        }
        if !Arc::ptr_eq(&self.names, names) {
            self.names = names.clone();
        }
        self.players = *players;
        self.active = *active;
        self.phase = *phase;
        let slots = self.board.slots().max(board.slots());
        self.board.copy_slots(board, slots);
        self.areas.copy_slots(areas, slots);
        self.frontier = *frontier;
        self.hands = *hands;
        self.stack = *stack;
        self.removed = *removed;
        self.civs = *civs;
        self.held = *held;
        self.supply = *supply;
        self.points = *points;
        self.tokens = *tokens;
        self.epochs = *epochs;
        self.conflict.clone_from(conflict);
    }

    // -- reading the state ----------------------------------------------------------------

    pub fn end_epoch(&self) -> u8 {
        self.players + 4
    }

    pub fn is_over(&self) -> bool {
        self.phase == Phase::Over
    }

    pub fn sorted_hand(&self, seat: usize) -> Few<u8, 2> {
        let mut hand = self.hands[seat];
        if hand.len() == 2 && hand.items[0] > hand.items[1] {
            hand.items.swap(0, 1);
        }
        hand
    }

    pub fn tile_at(&self, slot: usize) -> &super::tiles::Tile {
        &self.tiles.tiles[usize::from(self.board.tile[slot])]
    }

    pub fn regions_at(&self, slot: usize) -> u8 {
        self.tile_at(slot).regions.len() as u8
    }

    /// The node of the region of the tile on `slot` lying on cell edge `edge`.
    pub fn node_on(&self, slot: usize, edge: usize) -> usize {
        node(
            slot,
            self.tile_at(slot).region_on(self.board.rot[slot], edge),
        )
    }

    /// The reference's name of a node: its cell and the first cell edge it touches.
    pub fn region_ref(&self, n: usize) -> Ref {
        let (slot, k) = (n / 3, n % 3);
        Ref {
            cell: self.board.cell[slot],
            edge: self.tile_at(slot).first_edge[usize::from(self.board.rot[slot])][k],
        }
    }

    pub fn stats(&self, root: usize) -> &Area {
        &self.areas.stats[root]
    }

    /// The colour of the civilization on the area rooted at `root`: the lowest one where two
    /// share it during a war (a rule of the position, so views do not depend on history).
    pub fn occupant(&self, root: usize) -> Option<u8> {
        (0..6u8).find(|&c| self.on_table(c) && self.civ_root(c) == root)
    }

    pub fn civ_root(&self, colour: u8) -> usize {
        self.areas.of(usize::from(self.civs[usize::from(colour)]))
    }

    pub fn on_table(&self, colour: u8) -> bool {
        self.civs[usize::from(colour)] != NONE
    }

    /// The roots of all areas in the reference's order (by key): an area's root is its
    /// first region, and slots in cell order list regions in key order.
    pub fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        self.board.ordered().iter().flat_map(move |&slot| {
            let slot = usize::from(slot);
            (0..self.regions_at(slot))
                .map(move |k| node(slot, k))
                .filter(|&n| self.areas.of(n) == n)
        })
    }

    /// Root -> the area's index in the reference (its rank by key).
    pub fn area_index(&self) -> Vec<u8> {
        let mut index = vec![NONE; super::board::MAX_NODES];
        for (i, root) in self.roots().enumerate() {
            index[root] = i as u8;
        }
        index
    }

    /// How many epoch tiles the stack still holds.
    pub fn epochs_in_stack(&self) -> usize {
        self.stack
            .as_slice()
            .iter()
            .filter(|&&n| n == EPOCH)
            .count()
    }

    /// Root -> how many tiles its area spans (a tile counted once however many of its
    /// regions lie in the area).
    pub fn area_spans(&self) -> [u16; super::board::MAX_NODES] {
        let mut spans = [0u16; super::board::MAX_NODES];
        for slot in 0..self.board.slots() {
            let mut seen = [NONE; 3];
            for k in 0..self.regions_at(slot) {
                let root = self.areas.of(node(slot, k));
                if !seen.contains(&(root as u8)) {
                    seen[usize::from(k)] = root as u8;
                    spans[root] += 1;
                }
            }
        }
        spans
    }

    /// Standings: place 1 wins, ties share a place.
    pub fn result(&self) -> Vec<Standing> {
        let players = usize::from(self.players);
        let rows: Vec<Standing> = (0..players)
            .map(|seat| Standing {
                seat: seat as u8,
                points: self.points[seat],
                followers: self.held[seat].iter().map(|&n| u32::from(n)).sum(),
                place: 0,
            })
            .collect();
        rows.iter()
            .map(|row| {
                let key = (row.points, row.followers);
                let ahead = rows
                    .iter()
                    .filter(|o| (o.points, o.followers) > key)
                    .count();
                Standing {
                    place: 1 + ahead as u8,
                    ..*row
                }
            })
            .collect()
    }

    /// A copy in which what `observer` cannot see (the other hands, the stack order) is dealt
    /// again as the reference's `sample_hidden` deals it: the unseen tiles (numbers, in hand
    /// then stack order) shuffled by `shuffle`, the hands filled first, then the rest and the
    /// epoch tiles (as -1) shuffled again into the stack. `observer` None or no seat: every
    /// hand is unseen.
    pub fn redeal_hidden<E>(
        &self,
        observer: Option<usize>,
        shuffle: &mut dyn FnMut(&mut Vec<i64>) -> Result<(), E>,
    ) -> Result<State, E> {
        let players = usize::from(self.players);
        let unseen_seats = || (0..players).filter(|&s| Some(s) != observer);
        let mut unseen: Vec<i64> = Vec::with_capacity(64);
        for s in unseen_seats() {
            unseen.extend(self.hands[s].as_slice().iter().map(|&n| i64::from(n)));
        }
        let stack = self.stack.as_slice();
        unseen.extend(stack.iter().filter(|&&n| n != EPOCH).map(|&n| i64::from(n)));
        let epochs = self.epochs_in_stack();
        shuffle(&mut unseen)?;
        let mut other = self.clone();
        let mut next = 0;
        for s in unseen_seats() {
            let size = self.hands[s].len();
            let mut hand: Few<u8, 2> = Few::default();
            for &n in &unseen[next..next + size] {
                hand.push(n as u8);
            }
            hand.as_mut_slice().sort_unstable();
            other.hands[s] = hand;
            next += size;
        }
        unseen.drain(..next);
        unseen.extend(std::iter::repeat_n(-1, epochs));
        shuffle(&mut unseen)?;
        other.stack = Few::default();
        for n in unseen {
            other.stack.push(if n < 0 { EPOCH } else { n as u8 });
        }
        Ok(other)
    }

    // -- legal actions ----------------------------------------------------------------------

    /// The legal actions as fixed ids, in the reference's order.
    pub fn legal_ids(&self, out: &mut Vec<u32>) {
        out.clear();
        let seat = usize::from(self.active);
        match self.phase {
            Phase::Tile => self.tile_ids(out),
            Phase::Civ => self.civ_ids(out),
            Phase::Token => out.extend([ids::TOKEN, ids::PASS]),
            Phase::Pay => {
                out.extend(
                    (0..6u32)
                        .filter(|&c| self.held[seat][c as usize] > 0)
                        .map(|c| ids::PAY + c),
                );
            }
            Phase::Migrate => {
                if let Some(first) = self.conflict.as_ref().and_then(|c| c.migrations.first()) {
                    for &root in &first.options {
                        out.push(self.region_id(ids::MIGRATE, first.colour, usize::from(root)));
                    }
                }
            }
            Phase::War => {
                if let Some(war) = self
                    .conflict
                    .as_ref()
                    .and_then(|c| c.wars.as_ref())
                    .and_then(|w| w.first())
                {
                    out.extend(war.leaders.iter().map(|&c| ids::WINNER + u32::from(c)));
                }
            }
            Phase::Over => {}
        }
    }

    /// `legal[pick(legal.len())]` where `legal` is what [`State::legal_ids`] lists, without
    /// listing it when every tile action is legal (a player who can pay for any conflict):
    /// the random moves of a playout are mostly tile actions, hundreds of them a position.
    /// `out` is scratch for the other cases.
    pub fn pick_legal(&self, pick: impl FnOnce(usize) -> usize, out: &mut Vec<u32>) -> u32 {
        let seat = usize::from(self.active);
        if self.phase != Phase::Tile || self.held[seat].iter().all(|&n| n == 0) {
            self.legal_ids(out);
            return out[pick(out.len())];
        }
        // Every (cell or replaceable slot) × hand slot × rotation, in the legal order.
        let hand = self.sorted_hand(seat);
        let per_place: usize = hand
            .as_slice()
            .iter()
            .map(|&t| self.tiles.tiles[usize::from(t)].rotations.len())
            .sum();
        let cells = self.frontier.len();
        let replaceable = self.replaceable_slots().count();
        let i = pick((cells + replaceable) * per_place);
        let (place, mut within) = (i / per_place, i % per_place);
        let slot_span = geometry::CELLS * 3;
        let base = if place < cells {
            ids::PLACE + ids::position(self.frontier.as_slice()[place]) * 3
        } else {
            let slot = self
                .replaceable_slots()
                .nth(place - cells)
                .expect("a replaceable slot");
            ids::REPLACE + ids::position(self.board.cell[slot]) * 3
        };
        for (hslot, &number) in hand.as_slice().iter().enumerate() {
            let rotations = &self.tiles.tiles[usize::from(number)].rotations;
            if within < rotations.len() {
                return base + hslot as u32 * slot_span + u32::from(rotations[within]);
            }
            within -= rotations.len();
        }
        unreachable!("the index lies within the hand's rotations")
    }

    /// The slots whose tile may be replaced (any without a pyramid), in the legal order.
    fn replaceable_slots(&self) -> impl Iterator<Item = usize> + '_ {
        self.board
            .ordered()
            .iter()
            .map(|&slot| usize::from(slot))
            .filter(|&slot| !self.tile_at(slot).pyramid)
    }

    /// The id naming the area rooted at `root` as the reference names it.
    pub fn region_id(&self, base: u32, colour: u8, root: usize) -> u32 {
        let place = self.region_ref(root);
        base + (u32::from(colour) * geometry::CELLS + ids::position(place.cell)) * 3
            + u32::from(place.edge)
    }

    fn tile_ids(&self, out: &mut Vec<u32>) {
        let seat = usize::from(self.active);
        let can_pay = self.held[seat].iter().any(|&n| n > 0);
        self.tile_ids_that(
            if can_pay {
                Starts::Any
            } else {
                Starts::Nothing
            },
            out,
        );
    }

    /// The legal tile actions that start a war or a migration (the reference's
    /// `GheosState.conflict_actions`), in the legal order: the moves that can take a
    /// civilization off the table. None outside the tile phase, and none for a player who
    /// cannot pay for one (they are not legal).
    pub fn conflict_ids(&self, out: &mut Vec<u32>) {
        out.clear();
        let seat = usize::from(self.active);
        if self.phase != Phase::Tile || self.held[seat].iter().all(|&n| n == 0) {
            return;
        }
        self.tile_ids_that(Starts::Conflict, out);
    }

    /// The active player's tile actions, in the legal order, kept by what they start.
    fn tile_ids_that(&self, wanted: Starts, out: &mut Vec<u32>) {
        let seat = usize::from(self.active);
        let hand = self.sorted_hand(seat);
        let slot_span = geometry::CELLS * 3;
        if wanted == Starts::Any {
            // every (hand slot, rotation) on every place: one offset list, extended per place
            let mut offsets = [0u32; 12];
            let mut len = 0;
            for (hslot, &number) in hand.as_slice().iter().enumerate() {
                for &rot in &self.tiles.tiles[usize::from(number)].rotations {
                    offsets[len] = hslot as u32 * slot_span + u32::from(rot);
                    len += 1;
                }
            }
            let offsets = &offsets[..len];
            let places = self.frontier.len() + self.board.slots();
            out.reserve(places * len);
            for &cell in self.frontier.as_slice() {
                let base = ids::PLACE + ids::position(cell) * 3;
                out.extend(offsets.iter().map(|o| base + o));
            }
            for slot in self.replaceable_slots() {
                let base = ids::REPLACE + ids::position(self.board.cell[slot]) * 3;
                out.extend(offsets.iter().map(|o| base + o));
            }
            return;
        }
        let conflict = wanted == Starts::Conflict;
        for &cell in self.frontier.as_slice() {
            // Only a cell between two civilizations can start a war.
            let across = match wanted {
                Starts::Any => None,
                _ => self.placement_filter(cell),
            };
            if conflict && across.is_none() {
                continue;
            }
            let base = ids::PLACE + ids::position(cell) * 3;
            for (hslot, &number) in hand.as_slice().iter().enumerate() {
                let tile = &self.tiles.tiles[usize::from(number)];
                for &rot in &tile.rotations {
                    if let Some(across) = &across {
                        if self.placement_war(across, number, rot) != conflict {
                            continue;
                        }
                    }
                    out.push(base + hslot as u32 * slot_span + u32::from(rot));
                }
            }
        }
        for slot in self.replaceable_slots() {
            // Only a slot on an occupied area can start a war or a migration.
            let touches = wanted != Starts::Any && self.touches_civ(slot);
            if conflict && !touches {
                continue;
            }
            let base = ids::REPLACE + ids::position(self.board.cell[slot]) * 3;
            let mut cache: [Option<bool>; 5] = [None; 5];
            for (hslot, &number) in hand.as_slice().iter().enumerate() {
                let tile = &self.tiles.tiles[usize::from(number)];
                for &rot in &tile.rotations {
                    if touches {
                        let shape = usize::from(tile.grouping[usize::from(rot)]);
                        let starts = *cache[shape]
                            .get_or_insert_with(|| self.replacement_conflict(slot, number, rot));
                        if starts != conflict {
                            continue;
                        }
                    }
                    out.push(base + hslot as u32 * slot_span + u32::from(rot));
                }
            }
        }
    }

    /// For a player without followers: the civilization across each edge of the empty
    /// `cell`, when two different ones are there (only then can a placement start a war).
    fn placement_filter(&self, cell: u16) -> Option<[u8; 3]> {
        let mut across = [NONE; 3];
        for (edge, other) in geometry::neighbours(cell).into_iter().enumerate() {
            if other == NO_CELL {
                continue;
            }
            if let Some(slot) = self.board.slot_of(other) {
                let root = self.areas.of(self.node_on(slot, edge));
                across[edge] = self.occupant(root).unwrap_or(NONE);
            }
        }
        let mut colours = across.iter().filter(|&&c| c != NONE);
        let first = *colours.next()?;
        colours.any(|&c| c != first).then_some(across)
    }

    /// Whether the tile `number` at `rot` on a cell with `across` joins two civilizations:
    /// only a landmass joins areas.
    fn placement_war(&self, across: &[u8; 3], number: u8, rot: u8) -> bool {
        let tile = &self.tiles.tiles[usize::from(number)];
        let layout = tile.edge_region[usize::from(rot)];
        tile.regions.iter().enumerate().any(|(k, region)| {
            if !region.landmass() {
                return false;
            }
            let mut met = NONE;
            for edge in 0..3 {
                let c = across[edge];
                if usize::from(layout[edge]) == k && c != NONE {
                    if met != NONE && met != c {
                        return true;
                    }
                    met = c;
                }
            }
            false
        })
    }

    /// Whether replacing the tile on `slot` with `number` at `rot` starts a war or a
    /// migration, worked out around the slot alone (what `plan_replace` says, for the legal
    /// list of a player without followers). Every area touching the slot reaches it across
    /// one of its edges, so only the *pieces* those areas leave when the old tile is lifted
    /// (the parts joined to the regions across its edges) can split or meet, and each piece
    /// ends in the area of the new region on its edge.
    fn replacement_conflict(&self, slot: usize, number: u8, rot: u8) -> bool {
        let old = &self.areas;
        let none = usize::MAX;
        let mut across = [none; 3];
        let mut area = [none; 3];
        for (edge, &other) in self.board.nb[slot].iter().enumerate() {
            if other != NONE {
                across[edge] = self.node_on(usize::from(other), edge);
                area[edge] = old.of(across[edge]);
            }
        }
        // The pieces, and whether each holds a landmass.
        let mut piece = [none; 3];
        let mut land = [false; 3];
        let mut pieces = 0;
        for edge in (0..3).filter(|&e| across[e] != none) {
            if piece[edge] != none {
                continue;
            }
            let (p, a) = (pieces, area[edge]);
            pieces += 1;
            piece[edge] = p;
            if (0..3).all(|f| f == edge || area[f] != a) {
                // The area's only way in: the piece is the area without the old tile.
                let lifted = (0..self.regions_at(slot))
                    .filter(|&k| {
                        old.of(node(slot, k)) == a
                            && self.tile_at(slot).regions[usize::from(k)].landmass()
                    })
                    .count();
                land[p] = usize::from(old.stats[a].landmasses) > lifted;
                continue;
            }
            let mut seen = [false; super::board::MAX_NODES];
            let mut todo = vec![across[edge]];
            seen[across[edge]] = true;
            while let Some(n) = todo.pop() {
                let (s, k) = (n / 3, n % 3);
                let tile = self.tile_at(s);
                land[p] |= tile.regions[k].landmass();
                let rot = self.board.rot[s];
                for e in 0..3 {
                    let next = usize::from(self.board.nb[s][e]);
                    if next == usize::from(NONE)
                        || next == slot
                        || usize::from(tile.region_on(rot, e)) != k
                    {
                        continue;
                    }
                    let m = self.node_on(next, e);
                    if !seen[m] {
                        seen[m] = true;
                        todo.push(m);
                    }
                }
            }
            for f in 0..3 {
                if f != edge && area[f] == a && seen[across[f]] {
                    piece[f] = p;
                }
            }
        }
        // New areas: the new tile's regions (0-2) joined with the pieces (3-5) on their edges.
        let tile = &self.tiles.tiles[usize::from(number)];
        let mut parent = [0usize, 1, 2, 3, 4, 5];
        fn find(parent: &mut [usize; 6], mut x: usize) -> usize {
            while parent[x] != x {
                x = parent[x];
            }
            x
        }
        for edge in (0..3).filter(|&e| across[e] != none) {
            let a = find(&mut parent, usize::from(tile.region_on(rot, edge)));
            let b = find(&mut parent, 3 + piece[edge]);
            parent[a.max(b)] = a.min(b);
        }
        let mut continent = [false; 6];
        for (k, region) in tile.regions.iter().enumerate() {
            if region.landmass() {
                continent[find(&mut parent, k)] = true;
            }
        }
        for p in 0..pieces {
            if land[p] {
                continent[find(&mut parent, 3 + p)] = true;
            }
        }
        // Each civilization touching the slot: split, or staying (on a continent) beside
        // another one.
        let mut stays = [false; 6];
        for colour in 0..6u8 {
            if !self.on_table(colour) {
                continue;
            }
            let home = self.civ_root(colour);
            let mut part = none;
            for edge in (0..3).filter(|&e| area[e] == home) {
                let c = find(&mut parent, 3 + piece[edge]);
                if part != none && part != c {
                    return true; // its continent splits: a migration
                }
                part = c;
            }
            if part != none && continent[part] {
                if stays[part] {
                    return true; // two civilizations on one continent: a war
                }
                stays[part] = true;
            }
        }
        false
    }

    /// Whether a region of the tile on `slot` lies on an occupied area.
    fn touches_civ(&self, slot: usize) -> bool {
        (0..self.regions_at(slot)).any(|k| self.occupant(self.areas.of(node(slot, k))).is_some())
    }

    fn free_colours(&self) -> impl Iterator<Item = u8> + '_ {
        (0..6u8).filter(|&c| !self.on_table(c))
    }

    /// The unoccupied continents, in the reference's order.
    fn free_continents(&self) -> impl Iterator<Item = usize> + '_ {
        self.roots()
            .filter(|&r| self.stats(r).continent() && self.occupant(r).is_none())
    }

    /// Calls `found` with each unoccupied continent in the reference's order until it
    /// returns false (the civ step's hot loop, without an iterator chain).
    fn each_free_continent(&self, mut found: impl FnMut(usize) -> bool) {
        for &slot in self.board.ordered() {
            let slot = usize::from(slot);
            for k in 0..self.regions_at(slot) {
                let n = node(slot, k);
                if self.areas.of(n) == n
                    && self.stats(n).continent()
                    && self.occupant(n).is_none()
                    && !found(n)
                {
                    return;
                }
            }
        }
    }

    fn civ_ids(&self, out: &mut Vec<u32>) {
        let free = (0..6u8)
            .filter(|&c| !self.on_table(c))
            .fold(0u8, |m, c| m | 1 << c);
        if free != 0 {
            self.each_free_continent(|root| {
                for colour in (0..6u8).filter(|&c| free & (1 << c) != 0) {
                    out.push(self.region_id(ids::START, colour, root));
                }
                true
            });
        }
        for colour in 0..6u8 {
            if self.on_table(colour) && self.supply[usize::from(colour)] > 0 {
                out.push(ids::TAKE + u32::from(colour));
            }
        }
    }

    fn has_civ_action(&self) -> bool {
        if (0..6u8).any(|c| self.on_table(c) && self.supply[usize::from(c)] > 0) {
            return true;
        }
        let mut any = false;
        if self.free_colours().next().is_some() {
            self.each_free_continent(|_| {
                any = true;
                false
            });
        }
        any
    }

    // -- ids and their notation ---------------------------------------------------------------

    /// The notation of `id` now (a hand slot becomes the tile in it).
    pub fn action_string(&self, id: i64) -> Result<String, Refusal> {
        if !(0..i64::from(ids::ACTION_COUNT)).contains(&id) {
            return malformed(format!(
                "action id {id} is outside 0..{}",
                ids::ACTION_COUNT - 1
            ));
        }
        if let Decoded::Tile(_, slot, _, _) = decode(id as u32) {
            let held = self.hands[usize::from(self.active)].len();
            if slot >= held {
                return disallowed(format!(
                    "action id {id} plays hand slot #{slot}, but {} holds {held} tile(s)",
                    self.names[usize::from(self.active)],
                ));
            }
        }
        let mut text = String::with_capacity(24);
        self.write_action(id as u32, &mut text);
        Ok(text)
    }

    /// Writes the notation of `id` (in range, naming a hand slot that holds a tile) to `out`,
    /// piece by piece: legal lists are spelled often.
    pub fn write_action(&self, id: u32, out: &mut String) {
        const TILES: [&str; 52] = [
            "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10", "t11", "t12", "t13",
            "t14", "t15", "t16", "t17", "t18", "t19", "t20", "t21", "t22", "t23", "t24", "t25",
            "t26", "t27", "t28", "t29", "t30", "t31", "t32", "t33", "t34", "t35", "t36", "t37",
            "t38", "t39", "t40", "t41", "t42", "t43", "t44", "t45", "t46", "t47", "t48", "t49",
            "t50", "t51",
        ];
        match decode(id) {
            Decoded::Tile(replacing, slot, cell, rot) => {
                let number = self.sorted_hand(usize::from(self.active)).as_slice()[slot];
                out.push_str(if replacing { "replace " } else { "place " });
                out.push_str(TILES[usize::from(number)]);
                out.push(' ');
                out.push_str(cell_name(cell));
                out.push_str([" r0", " r1", " r2"][usize::from(rot)]);
            }
            Decoded::Region(migrating, colour, cell, edge) => {
                out.push_str(if migrating { "migrate " } else { "start " });
                out.push_str(COLOURS[usize::from(colour)]);
                out.push(' ');
                out.push_str(cell_name(cell));
                out.push(':');
                out.push_str(geometry::edge_name(cell, usize::from(edge)));
            }
            Decoded::Pay(c) | Decoded::Take(c) | Decoded::Winner(c) => {
                out.push_str(match decode(id) {
                    Decoded::Pay(_) => "pay ",
                    Decoded::Take(_) => "take ",
                    _ => "winner ",
                });
                out.push_str(COLOURS[usize::from(c)]);
            }
            Decoded::Token => out.push_str("token"),
            Decoded::Pass => out.push_str("pass"),
        }
    }

    /// The notation of an id that is not one of the legal ids, or why it is refused when
    /// another id names the same decision (another rotation of a tile that looks the same
    /// turned, another region of the same area).
    pub fn id_text(&self, id: i64) -> Result<String, Refusal> {
        let text = self.action_string(id)?;
        let canonical = match decode(id as u32) {
            Decoded::Tile(_, slot, _, rot) => {
                let number = self.sorted_hand(usize::from(self.active)).as_slice()[slot];
                self.tiles.tiles[usize::from(number)]
                    .rotations
                    .contains(&rot)
            }
            Decoded::Region(_, _, cell, edge) => match self.board.slot_of(cell) {
                Some(slot) => {
                    let tile = self.tile_at(slot);
                    let rot = usize::from(self.board.rot[slot]);
                    let k = tile.edge_region[rot][usize::from(edge)];
                    let n = node(slot, k);
                    self.areas.of(n) == n && tile.first_edge[rot][usize::from(k)] == edge
                }
                None => true,
            },
            _ => true,
        };
        if !canonical {
            return disallowed(format!(
                "action id {id} ({text}) is not legal: the same decision has another id \
                 (see legal_action_ids())"
            ));
        }
        Ok(text)
    }

    /// Applies `id`, one of the legal ids now (the caller checked).
    pub fn apply_legal(&mut self, id: u32, log: &mut Log) {
        match decode(id) {
            Decoded::Tile(replacing, hslot, cell, rot) => {
                let number = self.sorted_hand(usize::from(self.active)).as_slice()[hslot];
                let done = self.tile_action(number, cell, rot, replacing, log);
                debug_assert!(done.is_ok(), "a legal id was refused");
            }
            Decoded::Region(migrating, colour, cell, edge) => {
                let slot = self
                    .board
                    .slot_of(cell)
                    .expect("a legal region id names a tile");
                let root = self.areas.of(self.node_on(slot, usize::from(edge)));
                if migrating {
                    self.migrate_to(root, log);
                } else {
                    self.start(colour, root, log);
                }
            }
            Decoded::Pay(c) => self.pay_with(c, log),
            Decoded::Take(c) => self.take(c, log),
            Decoded::Winner(c) => self.winner(c, log),
            Decoded::Token => self.play_token(log),
            Decoded::Pass => self.end_turn(log),
        }
    }

    /// Applies an id whatever it is: a legal one directly, anything else as the reference
    /// does (spelled out and read as notation, which refuses it with its reason).
    pub fn apply_id(
        &mut self,
        id: i64,
        legal: &[u32],
        host: &dyn Host,
        log: &mut Log,
    ) -> Result<(), Refusal> {
        if id >= 0 && id < i64::from(ids::ACTION_COUNT) && legal.contains(&(id as u32)) {
            self.apply_legal(id as u32, log);
            return Ok(());
        }
        let text = self.id_text(id)?;
        let words: Vec<String> = text.split(' ').map(str::to_string).collect();
        self.apply_words(&words, host, log)
    }

    // -- reading notation -------------------------------------------------------------------

    /// Applies an action given as its words (`action.strip().lower().split()`): read first
    /// (Malformed when it is no action of the notation), then asked of the rules.
    pub fn apply_words(
        &mut self,
        words: &[String],
        host: &dyn Host,
        log: &mut Log,
    ) -> Result<(), Refusal> {
        if words.is_empty() {
            return malformed("empty action");
        }
        let reading = read_action(words, host)?;
        if self.phase == Phase::Over {
            return disallowed("the game is over");
        }
        let colour = reading.colour;
        match (self.phase, reading.verb) {
            (Phase::Tile, "place" | "replace") => self.act_tile(&reading, log),
            (Phase::Pay, "pay") => {
                if self.held[usize::from(self.active)][usize::from(colour)] == 0 {
                    return disallowed(format!(
                        "you hold no {} follower to pay with",
                        COLOURS[usize::from(colour)]
                    ));
                }
                self.pay_with(colour, log);
                Ok(())
            }
            (Phase::Migrate, "migrate") => self.act_migrate(&reading, log),
            (Phase::War, "winner") => self.act_winner(colour, log),
            (Phase::Civ, "start") => self.act_start(&reading, log),
            (Phase::Civ, "take") => {
                let name = COLOURS[usize::from(colour)];
                if !self.on_table(colour) {
                    return disallowed(format!("the {name} civilization is not on the table"));
                }
                if self.supply[usize::from(colour)] == 0 {
                    return disallowed(format!("no {name} follower is left in the supply"));
                }
                self.take(colour, log);
                Ok(())
            }
            (Phase::Token, "token") => {
                if self.tokens[usize::from(self.active)] == 0 {
                    return disallowed("you have no scoring token left");
                }
                self.play_token(log);
                Ok(())
            }
            (Phase::Token, "pass") => {
                self.end_turn(log);
                Ok(())
            }
            (_, verb) => disallowed(self.wrong_step(verb, host)),
        }
    }

    /// Why `verb` (one of the notation's) is not possible at this step.
    fn wrong_step(&self, verb: &str, host: &dyn Host) -> String {
        let expected = match self.phase {
            Phase::Tile => "place or replace a tile, e.g. 'place t12 0,1 r0'",
            Phase::Pay => "pay a follower for the war or migration, e.g. 'pay red'",
            Phase::Migrate => "choose where the civilization migrates, e.g. 'migrate red 0,1:n'",
            Phase::War => "choose the winner of the tied war, e.g. 'winner red'",
            Phase::Civ => "start a civilization or take a follower, e.g. 'take red'",
            Phase::Token | Phase::Over => "play a scoring token ('token') or not ('pass')",
        };
        format!(
            "{} is not possible now: {} must {expected}",
            host.repr(verb),
            self.names[usize::from(self.active)]
        )
    }

    fn act_tile(&mut self, reading: &Reading, log: &mut Log) -> Result<(), Refusal> {
        let (number, cell) = (reading.tile, reading.cell);
        let seat = usize::from(self.active);
        let held = self.sorted_hand(seat);
        if !held.as_slice().contains(&number) {
            let shown: Vec<String> = held.as_slice().iter().map(|t| format!("t{t}")).collect();
            return disallowed(format!(
                "t{number} is not in your hand (you hold {})",
                shown.join(", ")
            ));
        }
        let replacing = reading.verb == "replace";
        let name = cell_name(cell);
        let slot = self.board.slot_of(cell);
        if replacing {
            let Some(slot) = slot else {
                return disallowed(format!("there is no tile on {name} to replace (use place)"));
            };
            if self.tile_at(slot).pyramid {
                return disallowed(format!(
                    "t{} on {name} has a pyramid: it can never be replaced",
                    self.board.tile[slot]
                ));
            }
        } else if slot.is_some() {
            return disallowed(format!("{name} already holds a tile (use replace)"));
        } else if !self.frontier.as_slice().contains(&cell) {
            return disallowed(format!(
                "{name} does not share an edge with a tile on the table"
            ));
        }
        self.tile_action(number, cell, reading.rotation, replacing, log)
    }

    /// The area `reading` names (its cell and edge, or a bare cell when that is unambiguous)
    /// among `options` (area roots).
    fn find_area(
        &self,
        reading: &Reading,
        options: &[usize],
        wanted: &str,
    ) -> Result<usize, Refusal> {
        let cell = reading.cell;
        let Some(slot) = self.board.slot_of(cell) else {
            return disallowed(format!("there is no tile on {}", cell_name(cell)));
        };
        let found: Vec<usize> = match reading.edge {
            Some(edge) => vec![self.areas.of(self.node_on(slot, usize::from(edge)))],
            None => {
                let mut found: Vec<usize> = (0..3)
                    .map(|edge| self.areas.of(self.node_on(slot, edge)))
                    .collect();
                found.sort_by_key(|&r| self.stats(r).key);
                found.dedup();
                found
            }
        };
        let matching: Vec<usize> = found.into_iter().filter(|r| options.contains(r)).collect();
        match matching.as_slice() {
            [one] => Ok(*one),
            [] => {
                let shown: Vec<String> =
                    options.iter().map(|&r| self.region_ref(r).name()).collect();
                let shown = if shown.is_empty() {
                    "none".to_string()
                } else {
                    shown.join(", ")
                };
                disallowed(format!(
                    "{} is not on {wanted} (possible: {shown})",
                    reading.area
                ))
            }
            [first, ..] => disallowed(format!(
                "{} touches more than one possible area: add the edge, e.g. {}",
                cell_name(cell),
                self.region_ref(*first).name()
            )),
        }
    }

    fn act_migrate(&mut self, reading: &Reading, log: &mut Log) -> Result<(), Refusal> {
        let conflict = self
            .conflict
            .as_ref()
            .expect("the migrate phase has a conflict");
        let first = &conflict.migrations[0];
        if reading.colour != first.colour {
            let name = COLOURS[usize::from(first.colour)];
            return disallowed(format!("the {name} civilization is the one migrating now"));
        }
        let options: Vec<usize> = first.options.iter().map(|&r| usize::from(r)).collect();
        let chosen = self.find_area(reading, &options, "a part the civilization may migrate to")?;
        self.migrate_to(chosen, log);
        Ok(())
    }

    fn act_winner(&mut self, colour: u8, log: &mut Log) -> Result<(), Refusal> {
        let leaders = self
            .conflict
            .as_ref()
            .and_then(|c| c.wars.as_ref())
            .and_then(|w| w.first())
            .map(|w| w.leaders.clone())
            .expect("the war phase has a war");
        if !leaders.contains(&colour) {
            let tied: Vec<&str> = leaders.iter().map(|&c| COLOURS[usize::from(c)]).collect();
            return disallowed(format!(
                "{} is not one of the tied leaders ({})",
                COLOURS[usize::from(colour)],
                tied.join(", ")
            ));
        }
        self.winner(colour, log);
        Ok(())
    }

    fn act_start(&mut self, reading: &Reading, log: &mut Log) -> Result<(), Refusal> {
        let colour = reading.colour;
        if self.on_table(colour) {
            return disallowed(format!(
                "the {} civilization is already on the table",
                COLOURS[usize::from(colour)]
            ));
        }
        let options: Vec<usize> = self.free_continents().collect();
        let chosen = self.find_area(reading, &options, "an unoccupied continent")?;
        self.start(colour, chosen, log);
        Ok(())
    }

    // -- the tile step ----------------------------------------------------------------------

    /// Places or replaces a tile; refused (nothing changed) when it starts a war or migration
    /// and the player has no follower to pay with.
    fn tile_action(
        &mut self,
        number: u8,
        cell: u16,
        rot: u8,
        replacing: bool,
        log: &mut Log,
    ) -> Result<(), Refusal> {
        let seat = usize::from(self.active);
        let can_pay = self.held[seat].iter().any(|&n| n > 0);
        let plan;
        let slot;
        if replacing {
            slot = self
                .board
                .slot_of(cell)
                .expect("a replacement names a tile");
            plan = Some(self.plan_replace(slot, number, rot));
        } else {
            slot = self.board.slots();
            plan = None;
        }
        let (split, war) = match &plan {
            Some(plan) => (plan.split, plan.war),
            None => {
                let war = self
                    .placement_filter(cell)
                    .is_some_and(|across| self.placement_war(&across, number, rot));
                (false, war)
            }
        };
        if (split || war) && !can_pay {
            return disallowed(format!(
                "this {} starts {}, and you have no follower to pay for it",
                if replacing {
                    "replacement"
                } else {
                    "placement"
                },
                if split { "a migration" } else { "a war" }
            ));
        }
        // -- committed from here on --
        let mut conflict = Conflict {
            slot: slot as u8,
            swords: [0; 6],
            sword_mask: 0,
            moved: Vec::new(),
            migrations: Vec::new(),
            wars: None,
        };
        for colour in 0..6u8 {
            if self.on_table(colour) {
                conflict.sword_mask |= 1 << colour;
            }
        }
        if let Some(plan) = plan {
            let old = self.board.tile[slot];
            self.removed.push(old);
            log.push(|| Event::Replace {
                seat: seat as u8,
                cell,
                tile: number,
                rotation: rot,
                removed: old,
            });
            self.board.tile[slot] = number;
            self.board.rot[slot] = rot;
            // Only the placed slots' nodes differ (the rest of both is never written).
            self.areas.copy_slots(&plan.areas, self.board.slots());
            for colour in 0..6 {
                if plan.anchors[colour] != NONE {
                    self.civs[colour] = plan.anchors[colour];
                }
            }
            conflict.swords = plan.swords;
            conflict.migrations = plan.migrations;
        } else {
            for colour in 0..6u8 {
                if self.on_table(colour) {
                    conflict.swords[usize::from(colour)] =
                        u16::from(self.stats(self.civ_root(colour)).sword);
                }
            }
            self.frontier.remove_item(cell);
            for other in geometry::neighbours(cell) {
                if other != NO_CELL
                    && self.board.slot_of(other).is_none()
                    && !self.frontier.as_slice().contains(&other)
                {
                    let at = self.frontier.as_slice().partition_point(|&c| c < other);
                    self.frontier.insert(at, other);
                }
            }
            log.push(|| Event::Place {
                seat: seat as u8,
                cell,
                tile: number,
                rotation: rot,
            });
            self.board.add(cell, number, rot);
            self.areas.place(&self.board, &self.tiles, slot);
            // Every civilization stays: its marker goes to its area's first region.
            for colour in 0..6 {
                if self.civs[colour] != NONE {
                    self.civs[colour] = self.areas.root[usize::from(self.civs[colour])];
                }
            }
        }
        self.hands[seat].remove_item(number);
        if !(split || war) && conflict.migrations.is_empty() {
            // Nothing to resolve (no civilization shares an area): the temple, the civ step.
            self.temple(slot, log);
            self.phase = Phase::Civ;
            self.skip_empty_steps(log);
            return Ok(());
        }
        self.conflict = Some(Box::new(conflict));
        if split || war {
            log.push(|| Event::Conflict {
                seat: seat as u8,
                migration: split,
            });
            let mut colours = (0..6u8).filter(|&c| self.held[seat][usize::from(c)] > 0);
            let first = colours.next();
            if let (Some(only), None) = (first, colours.next()) {
                self.pay(only, log);
            } else {
                self.phase = Phase::Pay;
                return Ok(());
            }
        }
        self.resolve(log);
        Ok(())
    }

    /// What replacing the tile on `slot` with `number` at `rot` does to the areas and to
    /// each civilization, as `GheosState._plan` works it out.
    fn plan_replace(&self, slot: usize, number: u8, rot: u8) -> Plan {
        let new = self
            .areas
            .replaced(&self.board, &self.tiles, slot, number, rot);
        let old = &self.areas;
        let old_tile = self.tile_at(slot);
        let mut swords = [0u16; 6];
        let mut old_root = [usize::MAX; 6];
        for colour in 0..6 {
            if self.civs[colour] == NONE {
                continue;
            }
            let root = old.of(usize::from(self.civs[colour]));
            old_root[colour] = root;
            let lost: u16 = old_tile
                .regions
                .iter()
                .enumerate()
                .filter(|(k, _)| old.of(node(slot, *k as u8)) == root)
                .map(|(_, region)| u16::from(region.sword))
                .sum();
            swords[colour] = u16::from(old.stats[root].sword).wrapping_sub(lost);
        }
        // The parts of each former continent outside the replaced tile, and its first region.
        let mut parts: [Few<u8, 3>; 6] = [Few::default(); 6];
        let mut first = [NONE; 6];
        for &other in self.board.ordered() {
            let other = usize::from(other);
            if other == slot {
                continue;
            }
            for k in 0..self.regions_at(other) {
                let n = node(other, k);
                let root = old.of(n);
                for colour in 0..6 {
                    if old_root[colour] != root {
                        continue;
                    }
                    if first[colour] == NONE {
                        first[colour] = n as u8;
                    }
                    let part = new.root[n];
                    if !parts[colour].as_slice().contains(&part) && parts[colour].len() < 3 {
                        parts[colour].push(part);
                    }
                }
            }
        }
        let mut anchors = [NONE; 6];
        let mut migrations = Vec::new();
        let mut split = false;
        let mut stay = [NONE; 6];
        for colour in 0..6u8 {
            let c = usize::from(colour);
            if self.civs[c] == NONE || parts[c].is_empty() {
                continue;
            }
            // Kept inline: a replacement is planned for every prior that makes one.
            let mut found = parts[c];
            found
                .as_mut_slice()
                .sort_by_key(|&r| new.stats[usize::from(r)].key);
            let found = found.as_slice();
            if found.len() >= 2 {
                split = true;
                let best = found
                    .iter()
                    .map(|&r| new.stats[usize::from(r)].wheat)
                    .max()
                    .unwrap_or(0);
                let tied: Vec<u8> = found
                    .iter()
                    .copied()
                    .filter(|&r| new.stats[usize::from(r)].wheat == best)
                    .collect();
                let continents: Vec<u8> = tied
                    .iter()
                    .copied()
                    .filter(|&r| new.stats[usize::from(r)].continent())
                    .collect();
                let options = if continents.is_empty() {
                    tied
                } else {
                    continents
                };
                migrations.push(Migration {
                    colour,
                    options,
                    split: true,
                });
            } else if !new.stats[usize::from(found[0])].continent() {
                // Nothing split off, but what is left is no continent: it cannot live there.
                migrations.push(Migration {
                    colour,
                    options: found.to_vec(),
                    split: false,
                });
            } else {
                anchors[c] = found[0];
                stay[c] = found[0];
            }
            if usize::from(self.civs[c]) / 3 == slot && anchors[c] == NONE {
                // Its marker's region is gone; hold it on a remaining one until it moves.
                anchors[c] = first[c];
            }
        }
        // Two civilizations staying on one continent.
        let war = (1..stay.len()).any(|i| stay[i] != NONE && stay[..i].contains(&stay[i]));
        Plan {
            areas: new,
            swords,
            anchors,
            migrations,
            split,
            war,
        }
    }

    // -- resolving wars and migrations --------------------------------------------------------

    fn pay(&mut self, colour: u8, log: &mut Log) {
        let seat = usize::from(self.active);
        self.held[seat][usize::from(colour)] -= 1;
        self.supply[usize::from(colour)] += 1;
        log.push(|| Event::Pay {
            seat: seat as u8,
            colour,
        });
    }

    fn pay_with(&mut self, colour: u8, log: &mut Log) {
        self.pay(colour, log);
        self.resolve(log);
    }

    /// Carries the conflict on until the next choice; then temple scoring and the civ step.
    fn resolve(&mut self, log: &mut Log) {
        loop {
            let conflict = self.conflict.as_mut().expect("a conflict to resolve");
            let Some(first) = conflict.migrations.first() else {
                break;
            };
            if first.options.len() > 1 {
                self.phase = Phase::Migrate;
                return;
            }
            let migration = conflict.migrations.remove(0);
            self.migrate(
                migration.colour,
                usize::from(migration.options[0]),
                migration.split,
                log,
            );
        }
        if self.conflict.as_ref().is_some_and(|c| c.wars.is_none()) {
            let wars = self.find_wars();
            self.conflict.as_mut().expect("a conflict").wars = Some(wars);
        }
        loop {
            let conflict = self.conflict.as_mut().expect("a conflict to resolve");
            let wars = conflict.wars.as_mut().expect("wars found");
            let Some(first) = wars.first() else {
                break;
            };
            if first.leaders.len() > 1 {
                self.phase = Phase::War;
                return;
            }
            let war = wars.remove(0);
            self.war_result(&war.fighters, war.leaders[0], log);
        }
        let slot = usize::from(self.conflict.as_ref().expect("a conflict").slot);
        self.temple(slot, log);
        self.conflict = None;
        self.phase = Phase::Civ;
        self.skip_empty_steps(log);
    }

    fn migrate(&mut self, colour: u8, root: usize, split: bool, log: &mut Log) {
        let area = *self.stats(root);
        if !area.continent() {
            let island = area.island();
            let why = if split {
                Why::MigratesTo { island }
            } else {
                Why::LeftOn { island }
            };
            self.remove_civ(colour, why, log);
            return;
        }
        self.civs[usize::from(colour)] = root as u8;
        self.conflict
            .as_mut()
            .expect("a conflict")
            .moved
            .push(colour);
        let to = self.region_ref(root);
        log.push(|| Event::Migration { colour, to });
    }

    fn migrate_to(&mut self, root: usize, log: &mut Log) {
        let migration = self
            .conflict
            .as_mut()
            .expect("a conflict")
            .migrations
            .remove(0);
        self.migrate(migration.colour, root, migration.split, log);
        self.resolve(log);
    }

    /// Each area now holding several civilizations is a war: (fighters, tied leaders).
    fn find_wars(&self) -> Vec<War> {
        let conflict = self.conflict.as_ref().expect("a conflict");
        let mut by_area: Vec<(u16, Vec<u8>)> = Vec::new();
        for colour in 0..6u8 {
            if !self.on_table(colour) {
                continue;
            }
            let key = self.stats(self.civ_root(colour)).key;
            match by_area.iter_mut().find(|(k, _)| *k == key) {
                Some((_, fighters)) => fighters.push(colour),
                None => by_area.push((key, vec![colour])),
            }
        }
        by_area.sort_by_key(|(key, _)| *key);
        let sword = |c: u8| {
            if conflict.sword_mask & (1 << c) != 0 {
                conflict.swords[usize::from(c)]
            } else {
                0
            }
        };
        let mut wars = Vec::new();
        for (_, fighters) in by_area {
            if fighters.len() < 2 {
                continue;
            }
            let mut settled: Vec<u8> = fighters
                .iter()
                .copied()
                .filter(|c| !conflict.moved.contains(c))
                .collect();
            if settled.is_empty() {
                settled = fighters.clone(); // only migrants met: they fight it out
            }
            let best = settled.iter().map(|&c| sword(c)).max().unwrap_or(0);
            let leaders = settled.into_iter().filter(|&c| sword(c) == best).collect();
            wars.push(War { fighters, leaders });
        }
        wars
    }

    fn war_result(&mut self, fighters: &[u8], winner: u8, log: &mut Log) {
        log.push(|| Event::War {
            fighters: fighters.to_vec(),
            winner,
        });
        for &colour in fighters {
            if colour != winner {
                let moved = self
                    .conflict
                    .as_ref()
                    .is_some_and(|c| c.moved.contains(&colour));
                let why = if moved {
                    Why::MigratedIntoOccupied
                } else {
                    Why::Lost
                };
                self.remove_civ(colour, why, log);
            }
        }
    }

    fn winner(&mut self, colour: u8, log: &mut Log) {
        let war = {
            let conflict = self.conflict.as_mut().expect("a conflict");
            conflict.wars.as_mut().expect("wars").remove(0)
        };
        self.war_result(&war.fighters, colour, log);
        self.resolve(log);
    }

    fn remove_civ(&mut self, colour: u8, why: Why, log: &mut Log) {
        let c = usize::from(colour);
        self.civs[c] = NONE;
        let mut returned = Vec::new();
        for seat in 0..usize::from(self.players) {
            let n = self.held[seat][c];
            if n > 0 {
                returned.push((seat as u8, n));
                self.supply[c] += n;
                self.held[seat][c] = 0;
            }
        }
        log.push(|| Event::CivRemoved {
            colour,
            why,
            returned,
        });
    }

    fn temple(&mut self, slot: usize, log: &mut Log) {
        let seat = self.active;
        for k in 0..self.regions_at(slot) {
            let kind = self.tile_at(slot).regions[usize::from(k)].temple;
            if kind == NO_TEMPLE {
                continue;
            }
            let root = self.areas.of(node(slot, k));
            let area = *self.stats(root);
            let Some(colour) = self.occupant(root) else {
                continue;
            };
            if !area.continent() {
                continue;
            }
            let gained = i64::from(area.count(kind));
            self.points[usize::from(seat)] += gained;
            log.push(|| Event::Temple {
                seat,
                points: gained,
                kind,
                colour,
            });
        }
    }

    // -- civ, token and draw steps ----------------------------------------------------------

    fn start(&mut self, colour: u8, root: usize, log: &mut Log) {
        let c = usize::from(colour);
        let seat = usize::from(self.active);
        let taken = self.stats(root).wheat.min(self.supply[c]);
        self.civs[c] = root as u8;
        self.supply[c] -= taken;
        self.held[seat][c] += taken;
        let at = self.region_ref(root);
        log.push(|| Event::Start {
            seat: seat as u8,
            colour,
            at,
            followers: taken,
        });
        self.phase = Phase::Token;
        self.skip_empty_steps(log);
    }

    fn take(&mut self, colour: u8, log: &mut Log) {
        let seat = usize::from(self.active);
        self.supply[usize::from(colour)] -= 1;
        self.held[seat][usize::from(colour)] += 1;
        self.phase = Phase::Token;
        log.push(|| Event::Take {
            seat: seat as u8,
            colour,
        });
        self.skip_empty_steps(log);
    }

    fn play_token(&mut self, log: &mut Log) {
        let seat = usize::from(self.active);
        self.tokens[seat] -= 1;
        let gained = self.cup_score(seat);
        self.points[seat] += gained;
        let left = self.tokens[seat];
        log.push(|| Event::Token {
            seat: seat as u8,
            points: gained,
            left,
        });
        if self.tokens.iter().all(|&t| t == 0) {
            log.push(|| Event::EndTokens);
            self.finish(log);
        } else {
            self.end_turn(log);
        }
    }

    fn cup_score(&self, seat: usize) -> i64 {
        (0..6u8)
            .filter(|&c| self.on_table(c) && self.held[seat][usize::from(c)] > 0)
            .map(|c| {
                i64::from(self.held[seat][usize::from(c)])
                    * i64::from(self.stats(self.civ_root(c)).cup)
            })
            .sum()
    }

    fn skip_empty_steps(&mut self, log: &mut Log) {
        if self.phase == Phase::Civ && !self.has_civ_action() {
            let seat = self.active;
            log.push(|| Event::Skip { seat });
            self.phase = Phase::Token;
        }
        if self.phase == Phase::Token && self.tokens[usize::from(self.active)] == 0 {
            self.end_turn(log);
        }
    }

    fn end_turn(&mut self, log: &mut Log) {
        let seat = usize::from(self.active);
        while self.hands[seat].len() < HAND_SIZE {
            let Some(drawn) = self.stack.pop() else {
                break;
            };
            if drawn != EPOCH {
                self.hands[seat].push(drawn);
                log.push(|| Event::Draw { seat: seat as u8 });
                continue;
            }
            self.epochs += 1;
            let (epoch, end) = (self.epochs, self.end_epoch());
            log.push(|| Event::Epoch {
                seat: seat as u8,
                epoch,
                end,
            });
            self.epoch_scoring(log);
            if self.epochs >= self.end_epoch() {
                log.push(|| Event::EndEpoch { epoch });
                self.finish(log);
                return;
            }
        }
        self.active = ((seat + 1) % usize::from(self.players)) as u8;
        self.phase = Phase::Tile;
    }

    fn epoch_scoring(&mut self, log: &mut Log) {
        let players = usize::from(self.players);
        let mut gains = vec![0i64; players];
        for (seat, gain) in gains.iter_mut().enumerate() {
            *gain = (0..6u8)
                .filter(|&c| self.on_table(c) && self.held[seat][usize::from(c)] > 0)
                .map(|c| {
                    i64::from(self.held[seat][usize::from(c)])
                        * i64::from(self.stats(self.civ_root(c)).pyramid)
                })
                .sum();
            self.points[seat] += *gain;
        }
        log.push(|| Event::EpochScoring { gains });
    }

    fn finish(&mut self, log: &mut Log) {
        let players = usize::from(self.players);
        let gains: Vec<i64> = (0..players).map(|seat| self.cup_score(seat)).collect();
        for (seat, gain) in gains.iter().enumerate() {
            self.points[seat] += gain;
        }
        self.phase = Phase::Over;
        self.conflict = None;
        log.push(|| Event::FinalScoring { gains });
        if log.on {
            let mut ranking = self.result();
            ranking.sort_by_key(|row| (row.place, row.seat));
            log.push(|| Event::Result { ranking });
        }
    }

    // -- fast paths ---------------------------------------------------------------------------

    /// Plays uniformly random legal actions to the end; returns how many.
    pub fn random_playout(&mut self, seed: u64) -> u64 {
        let mut rng = SplitMix64::new(seed);
        let mut legal = Vec::with_capacity(256);
        let mut log = Log::new(false);
        let mut actions = 0;
        while self.phase != Phase::Over {
            self.legal_ids(&mut legal);
            if legal.is_empty() {
                break; // a position the game cannot go on from (an empty hand to play)
            }
            let id = legal[rng.below(legal.len())];
            self.apply_legal(id, &mut log);
            actions += 1;
        }
        actions
    }
}

#[cfg(test)]
mod tests;
