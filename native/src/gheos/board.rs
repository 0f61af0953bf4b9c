//! The tiles on the table and the areas their regions make.
//!
//! Placed tiles live in *slots* (0..52, in the order they were placed); a region is the node
//! `slot * 3 + k` (k: the region's index on its tile). Areas are a union-find over the nodes,
//! kept flat (every node points at its root) and rooted at the node the reference names the
//! area by: its smallest `cell * 3 + k` (its *key*). Ordering areas by key therefore orders
//! them as the reference numbers them, and an area's root is its first region. A placement
//! only joins areas, so it is merged in place; a replacement may split one, so the areas are
//! rebuilt (a map holds at most 156 regions).

use super::geometry::{self, NO_CELL};
use super::tiles::TileSet;

pub const MAX_SLOTS: usize = 52;
pub const MAX_NODES: usize = MAX_SLOTS * 3;
pub const NONE: u8 = u8::MAX;

#[derive(Clone)]
pub struct Board {
    pub len: u8,
    pub cell: [u16; MAX_SLOTS],
    pub tile: [u8; MAX_SLOTS],
    pub rot: [u8; MAX_SLOTS],
    /// The slot across each cell edge (NONE: empty); the same edge number on both sides.
    pub nb: [[u8; 3]; MAX_SLOTS],
    /// The slots ordered by cell.
    pub order: [u8; MAX_SLOTS],
}

impl Default for Board {
    fn default() -> Self {
        Board {
            len: 0,
            cell: [NO_CELL; MAX_SLOTS],
            tile: [0; MAX_SLOTS],
            rot: [0; MAX_SLOTS],
            nb: [[NONE; 3]; MAX_SLOTS],
            order: [0; MAX_SLOTS],
        }
    }
}

impl Board {
    /// Makes this board `from`, copying only the first `slots` slots: the caller knows the
    /// two agree past them (slots past a board's length are never written).
    pub fn copy_slots(&mut self, from: &Board, slots: usize) {
        self.len = from.len;
        self.cell[..slots].copy_from_slice(&from.cell[..slots]);
        self.tile[..slots].copy_from_slice(&from.tile[..slots]);
        self.rot[..slots].copy_from_slice(&from.rot[..slots]);
        self.nb[..slots].copy_from_slice(&from.nb[..slots]);
        self.order[..slots].copy_from_slice(&from.order[..slots]);
    }

    pub fn slots(&self) -> usize {
        usize::from(self.len)
    }

    /// The slots in cell order.
    pub fn ordered(&self) -> &[u8] {
        &self.order[..self.slots()]
    }

    pub fn slot_of(&self, cell: u16) -> Option<usize> {
        self.cell[..self.slots()].iter().position(|&c| c == cell)
    }

    /// Puts a tile on an empty cell; returns its slot.
    pub fn add(&mut self, cell: u16, tile: u8, rot: u8) -> usize {
        let slot = self.slots();
        assert!(
            slot < MAX_SLOTS,
            "the board holds at most {MAX_SLOTS} tiles"
        );
        self.cell[slot] = cell;
        self.tile[slot] = tile;
        self.rot[slot] = rot;
        self.nb[slot] = [NONE; 3];
        for (edge, other) in geometry::neighbours(cell).into_iter().enumerate() {
            if other == NO_CELL {
                continue;
            }
            if let Some(next) = self.slot_of(other) {
                self.nb[slot][edge] = next as u8;
                self.nb[next][edge] = slot as u8;
            }
        }
        let at = self
            .ordered()
            .partition_point(|&s| self.cell[usize::from(s)] < cell);
        self.order.copy_within(at..slot, at + 1);
        self.order[at] = slot as u8;
        self.len += 1;
        slot
    }
}

/// What an area holds, kept at its root.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Area {
    /// The smallest `cell * 3 + k` of its regions: the reference's order of areas.
    pub key: u16,
    pub wheat: u8,
    pub cup: u8,
    pub sword: u8,
    pub pyramid: u8,
    pub regions: u8,
    pub landmasses: u8,
    pub coasts: u8,
}

impl Area {
    /// A landmass and two regions or more (so two tiles or more).
    pub fn continent(&self) -> bool {
        self.landmasses > 0 && self.regions >= 2
    }

    /// Two coasts facing each other and nothing else.
    pub fn island(&self) -> bool {
        self.coasts == 2 && self.regions == 2
    }

    /// The area's kind as the reference names it: continent, island or land.
    pub fn kind(&self) -> &'static str {
        if self.continent() {
            "continent"
        } else if self.island() {
            "island"
        } else {
            "land"
        }
    }

    pub fn count(&self, symbol: u8) -> u8 {
        match symbol {
            0 => self.wheat,
            1 => self.cup,
            _ => self.sword,
        }
    }

    fn absorb(&mut self, other: &Area) {
        self.key = self.key.min(other.key);
        self.wheat += other.wheat;
        self.cup += other.cup;
        self.sword += other.sword;
        self.pyramid += other.pyramid;
        self.regions += other.regions;
        self.landmasses += other.landmasses;
        self.coasts += other.coasts;
    }
}

#[derive(Clone)]
pub struct Areas {
    /// Node -> its area's root (flat after every change).
    pub root: [u8; MAX_NODES],
    /// Root -> the area's totals.
    pub stats: [Area; MAX_NODES],
}

impl Default for Areas {
    fn default() -> Self {
        Areas {
            root: [NONE; MAX_NODES],
            stats: [Area::default(); MAX_NODES],
        }
    }
}

pub fn node(slot: usize, k: u8) -> usize {
    slot * 3 + usize::from(k)
}

impl Areas {
    /// The areas of `board` from scratch, with the tile on `swap.0` taken to be `swap.1` at
    /// rotation `swap.2` when given (a replacement being planned). Regions are visited in key
    /// order and each new area is filled from its first region, which becomes its root.
    pub fn build(board: &Board, tiles: &TileSet, swap: Option<(usize, u8, u8)>) -> Areas {
        let mut areas = Areas::default();
        areas.fill(board, tiles, swap);
        areas
    }

    /// The areas once the tile on `slot` becomes `tile` at `rot` (a replacement), derived
    /// again only where it changes: the areas that touched the old tile are dissolved and
    /// filled again, the others kept as they are (every area next to the slot reaches it
    /// across an edge, so it touched the old tile). The same as [`Areas::build`] with the swap.
    pub fn replaced(
        &self,
        board: &Board,
        tiles: &TileSet,
        slot: usize,
        tile: u8,
        rot: u8,
    ) -> Areas {
        // The nodes past the board's tiles are never written: only the others are copied.
        let mut areas = Areas::default();
        areas.copy_slots(self, board.slots());
        let mut hit = [false; MAX_NODES];
        for k in 0..3 {
            let root = self.root[node(slot, k)];
            if root != NONE {
                hit[usize::from(root)] = true;
            }
        }
        for n in 0..board.slots() * 3 {
            let root = self.root[n];
            if root != NONE && hit[usize::from(root)] {
                areas.root[n] = NONE;
                areas.stats[n] = Area::default();
            }
        }
        areas.fill(board, tiles, Some((slot, tile, rot)));
        areas
    }

    /// Gives every region without an area one: regions are visited in key order and each new
    /// area is filled from its first region, which becomes its root.
    fn fill(&mut self, board: &Board, tiles: &TileSet, swap: Option<(usize, u8, u8)>) {
        let areas = self;
        let placed = |slot: usize| match swap {
            Some((s, tile, rot)) if s == slot => (tile, rot),
            _ => (board.tile[slot], board.rot[slot]),
        };
        // Each region is pushed once: a stack of all of them never overflows.
        let mut todo = [0u8; MAX_NODES];
        for &first_slot in board.ordered() {
            let first_slot = usize::from(first_slot);
            let (tile, _) = placed(first_slot);
            for k in 0..tiles.tiles[usize::from(tile)].regions.len() {
                let start = node(first_slot, k as u8);
                if areas.root[start] != NONE {
                    continue;
                }
                areas.root[start] = start as u8;
                let mut area = Area {
                    key: board.cell[first_slot] * 3 + k as u16,
                    ..Area::default()
                };
                todo[0] = start as u8;
                let mut pending = 1;
                while pending > 0 {
                    pending -= 1;
                    let n = usize::from(todo[pending]);
                    let (slot, k) = (n / 3, n % 3);
                    let (tile, rot) = placed(slot);
                    let t = &tiles.tiles[usize::from(tile)];
                    let region = &t.regions[k];
                    area.wheat += region.wheat;
                    area.cup += region.cup;
                    area.sword += region.sword;
                    area.pyramid += region.pyramid;
                    area.regions += 1;
                    if region.landmass() {
                        area.landmasses += 1;
                    } else {
                        area.coasts += 1;
                    }
                    for edge in 0..3 {
                        let other = usize::from(board.nb[slot][edge]);
                        if other == usize::from(NONE) || usize::from(t.region_on(rot, edge)) != k {
                            continue;
                        }
                        let (other_tile, other_rot) = placed(other);
                        let across =
                            tiles.tiles[usize::from(other_tile)].region_on(other_rot, edge);
                        let m = node(other, across);
                        if areas.root[m] == NONE {
                            areas.root[m] = start as u8;
                            todo[pending] = m as u8;
                            pending += 1;
                        }
                    }
                }
                areas.stats[start] = area;
            }
        }
    }

    /// Each region of the tile on `slot` as an area of its own.
    fn seed(&mut self, board: &Board, tiles: &TileSet, slot: usize, tile: u8) {
        let base = board.cell[slot] * 3;
        for (k, region) in tiles.tiles[usize::from(tile)].regions.iter().enumerate() {
            let n = node(slot, k as u8);
            self.root[n] = n as u8;
            let landmass = region.landmass();
            self.stats[n] = Area {
                key: base + k as u16,
                wheat: region.wheat,
                cup: region.cup,
                sword: region.sword,
                pyramid: region.pyramid,
                regions: 1,
                landmasses: u8::from(landmass),
                coasts: u8::from(!landmass),
            };
        }
    }

    fn find(&mut self, mut x: usize) -> usize {
        while usize::from(self.root[x]) != x {
            let parent = usize::from(self.root[x]);
            self.root[x] = self.root[parent];
            x = parent;
        }
        x
    }

    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return;
        }
        // The root is the region with the smaller key, so that it names the area.
        let (keep, gone) = if self.stats[ra].key < self.stats[rb].key {
            (ra, rb)
        } else {
            (rb, ra)
        };
        let merged = self.stats[gone];
        self.stats[keep].absorb(&merged);
        self.root[gone] = keep as u8;
    }

    fn flatten(&mut self, board: &Board, tiles: &TileSet) {
        for slot in 0..board.slots() {
            for k in 0..tiles.tiles[usize::from(board.tile[slot])].regions.len() {
                let n = node(slot, k as u8);
                let r = self.find(n);
                self.root[n] = r as u8;
            }
        }
    }

    /// Adds the tile just put on `slot` (a placement) and joins it to its neighbours.
    pub fn place(&mut self, board: &Board, tiles: &TileSet, slot: usize) {
        let (tile, rot) = (board.tile[slot], board.rot[slot]);
        self.seed(board, tiles, slot, tile);
        let mut joined = false;
        for edge in 0..3 {
            let other = usize::from(board.nb[slot][edge]);
            if other != usize::from(NONE) {
                let t = &tiles.tiles[usize::from(tile)];
                let o = &tiles.tiles[usize::from(board.tile[other])];
                let a = node(slot, t.region_on(rot, edge));
                let b = node(other, o.region_on(board.rot[other], edge));
                self.union(a, b);
                joined = true;
            }
        }
        if joined {
            self.flatten(board, tiles);
        }
    }

    /// Makes these areas `from`, copying only the nodes of the first `slots` slots (see
    /// [`Board::copy_slots`]: the nodes of slots past a board's length are never written).
    pub fn copy_slots(&mut self, from: &Areas, slots: usize) {
        let nodes = slots * 3;
        self.root[..nodes].copy_from_slice(&from.root[..nodes]);
        self.stats[..nodes].copy_from_slice(&from.stats[..nodes]);
    }

    pub fn of(&self, node: usize) -> usize {
        usize::from(self.root[node])
    }

    pub fn area(&self, node: usize) -> &Area {
        &self.stats[self.of(node)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gheos::geometry::{cell_index, START_CELL};
    use crate::gheos::tiles::packaged;

    fn cell(row: i64, col: i64) -> u16 {
        cell_index(row, col).unwrap()
    }

    #[test]
    fn a_placement_joins_areas_and_a_rebuild_agrees() {
        let tiles = packaged();
        let mut board = Board::default();
        let mut areas = Areas::default();
        let s0 = board.add(START_CELL, 0, 0);
        areas.place(&board, &tiles, s0);
        assert!(!areas.area(node(s0, 0)).continent());
        // t2 (a cup landmass) below t0's landmass (edge 0): a continent of two regions.
        let s1 = board.add(cell(1, 0), 2, 0);
        areas.place(&board, &tiles, s1);
        assert_eq!(board.nb[s0][0], s1 as u8);
        let joined = *areas.area(node(s1, 0));
        assert!(joined.continent() && joined.regions == 2 && joined.cup == 2);
        assert_eq!(
            areas.of(node(s1, 0)),
            node(s0, 0),
            "rooted at the smaller key"
        );
        // t42 (three coasts) beside t0's coast on 0,1: an island of two coasts.
        let s2 = board.add(cell(0, 1), 42, 0);
        areas.place(&board, &tiles, s2);
        let coast = *areas.area(node(s0, 1));
        assert!(coast.island() && !coast.continent());
        let rebuilt = Areas::build(&board, &tiles, None);
        for n in [
            node(s0, 0),
            node(s0, 1),
            node(s1, 0),
            node(s2, 0),
            node(s2, 1),
        ] {
            assert_eq!(rebuilt.of(n), areas.of(n));
            assert_eq!(rebuilt.area(n), areas.area(n));
        }
        assert_eq!(board.ordered(), &[s0 as u8, s2 as u8, s1 as u8]);
    }

    #[test]
    fn a_swap_splits_an_area() {
        let tiles = packaged();
        let mut board = Board::default();
        let mut areas = Areas::default();
        for (c, t) in [
            (START_CELL, 0),
            (cell(1, 0), 1),
            (cell(1, 1), 2),
            (cell(1, -1), 3),
        ] {
            let s = board.add(c, t, 0);
            areas.place(&board, &tiles, s);
        }
        // One continent of four landmasses; put three coasts (t42) on 1,0 instead.
        assert_eq!(areas.area(node(3, 0)).regions, 4);
        let split = Areas::build(&board, &tiles, Some((1, 42, 0)));
        assert_ne!(split.of(node(2, 0)), split.of(node(3, 0)));
        // Each part keeps one of t42's coasts: a landmass and a coast, still a continent.
        assert_eq!(split.area(node(2, 0)).regions, 2);
        assert!(split.area(node(2, 0)).continent());
    }
}
