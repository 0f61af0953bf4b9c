//! The game state and every rule, in the reference's order (`cradle.tigris.state`).
//!
//! Each function here mirrors the reference function of the same name; the comments say why
//! a rule is as it is only where the reference's code does not. A refused action returns the
//! reference's reason and changes nothing: every check runs before the first change.

use super::actions::{
    swap_id, Action, Parsed, BLACK, BLUE, BUILDING_BASE, CATASTROPHES_PER_PLAYER, CATASTROPHE_BASE,
    COLOURS, COMMIT_BASE, DECLINE_ID, GREEN, HAND_SIZE, LEADER_BASE, MONUMENTS, MONUMENT_NAMES,
    PASS_ID, RED, ROLES, TILE_BASE, TILE_TOTALS, TREASURE_BASE, WAR_BASE, WITHDRAW_BASE,
    WONDERPOINT_BASE, WONDER_BASE,
};
use super::board::{cell_name, neighbours, Bb, BoardMap, Side, CELLS, COLUMNS, NONE, ROWS};
use super::events::{Event, Sink, Why};
use crate::cpython_random::CpythonRandom;
use crate::splitmix::SplitMix64;

/// Table options: the board side and the variants (all combinable).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Options {
    pub side: Side,
    pub buildings: bool,
    pub english: bool,
    pub wonder: bool,
    pub open_scoring: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            side: Side::Standard,
            buildings: false,
            english: false,
            wonder: false,
            open_scoring: false,
        }
    }
}

/// Up to `N` small values kept inline, so states copy without allocating.
#[derive(Clone, Copy)]
pub struct Inline<const N: usize> {
    items: [u8; N],
    len: u8,
}

/// A short list of small values (colours or cells).
pub type List = Inline<16>;

/// The bag, drawn from its end (the reference's list, popped).
pub type Bag = Inline<153>;

impl<const N: usize> Inline<N> {
    pub const CAPACITY: usize = N;

    /// None when `items` holds more than `N` values.
    pub fn new(items: &[u8]) -> Option<Inline<N>> {
        if items.len() > N {
            return None;
        }
        let mut list = Inline::default();
        list.items[..items.len()].copy_from_slice(items);
        list.len = items.len() as u8;
        Some(list)
    }

    /// The values in order (the bag's: last drawn first, the reference's internal order).
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        &self.items[..self.len as usize]
    }

    pub fn contains(&self, x: usize) -> bool {
        self.as_slice().iter().any(|v| *v as usize == x)
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Takes the last value (the bag's next tile).
    #[inline]
    fn pop(&mut self) -> u8 {
        self.len -= 1;
        self.items[self.len as usize]
    }
}

impl<const N: usize> Default for Inline<N> {
    fn default() -> Inline<N> {
        Inline {
            items: [0; N],
            len: 0,
        }
    }
}

impl<const N: usize> PartialEq for Inline<N> {
    /// Equal values in the same order (what lies beyond the end is not in the list).
    fn eq(&self, o: &Inline<N>) -> bool {
        self.as_slice() == o.as_slice()
    }
}

impl<const N: usize> std::fmt::Debug for Inline<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum PendingKind {
    Revolt,
    War,
    WarOrder,
    Monument,
    Treasure,
    Building,
    WonderPoint,
}

impl PendingKind {
    pub const ALL: [PendingKind; 7] = [
        PendingKind::Revolt,
        PendingKind::War,
        PendingKind::WarOrder,
        PendingKind::Monument,
        PendingKind::Treasure,
        PendingKind::Building,
        PendingKind::WonderPoint,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PendingKind::Revolt => "revolt",
            PendingKind::War => "war",
            PendingKind::WarOrder => "war_order",
            PendingKind::Monument => "monument",
            PendingKind::Treasure => "treasure",
            PendingKind::Building => "building",
            PendingKind::WonderPoint => "wonderpoint",
        }
    }

    pub fn from_name(name: &str) -> Option<PendingKind> {
        PendingKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// The fields a pending decision may carry, in the order a position lists them.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Key {
    Kind,
    Color,
    Attacker,
    Defender,
    Seat,
    AttackerCommit,
    Colors,
    Queue,
    Cells,
}

impl Key {
    pub const ALL: [Key; 9] = [
        Key::Kind,
        Key::Color,
        Key::Attacker,
        Key::Defender,
        Key::Seat,
        Key::AttackerCommit,
        Key::Colors,
        Key::Queue,
        Key::Cells,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Key::Kind => "kind",
            Key::Color => "color",
            Key::Attacker => "attacker",
            Key::Defender => "defender",
            Key::Seat => "seat",
            Key::AttackerCommit => "attacker_commit",
            Key::Colors => "colors",
            Key::Queue => "queue",
            Key::Cells => "cells",
        }
    }

    pub fn from_name(name: &str) -> Option<Key> {
        Key::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// A decision that interrupts an action (the reference's `pending` dict). Its fields are
/// written in the order they were noted: the reference's order (`Key::ALL`) for every kind.
#[derive(Clone, Copy, Debug)]
pub struct Pending {
    pub kind: PendingKind,
    pub color: Option<u8>,
    pub attacker: Option<u8>,
    pub defender: Option<u8>,
    pub seat: Option<u8>,
    /// `Some(None)`: the field is there and null (the attacker has not committed yet).
    pub attacker_commit: Option<Option<u8>>,
    pub colors: Option<List>,
    pub queue: Option<List>,
    pub cells: Option<List>,
    keys: [Key; 9],
    nkeys: u8,
}

impl PartialEq for Pending {
    /// Equal as dicts are: the same fields with the same values, in any order.
    fn eq(&self, o: &Pending) -> bool {
        self.kind == o.kind
            && self.color == o.color
            && self.attacker == o.attacker
            && self.defender == o.defender
            && self.seat == o.seat
            && self.attacker_commit == o.attacker_commit
            && self.colors == o.colors
            && self.queue == o.queue
            && self.cells == o.cells
    }
}

impl Pending {
    /// A decision of `kind` with no other field yet.
    pub fn bare(kind: PendingKind) -> Pending {
        Pending {
            kind,
            color: None,
            attacker: None,
            defender: None,
            seat: None,
            attacker_commit: None,
            colors: None,
            queue: None,
            cells: None,
            keys: [Key::Kind; 9],
            nkeys: 1,
        }
    }

    /// The fields in order ("kind" where the position put it).
    pub fn keys(&self) -> &[Key] {
        &self.keys[..self.nkeys as usize]
    }

    /// Record that `key` is present (kept at its place if it already was).
    pub fn note(&mut self, key: Key) {
        if !self.keys().contains(&key) {
            self.keys[self.nkeys as usize] = key;
            self.nkeys += 1;
        }
    }

    /// Set the field order as read from a position: `keys` must name each present field once.
    pub fn set_keys(&mut self, keys: &[Key]) {
        self.nkeys = 0;
        for key in keys {
            self.note(*key);
        }
        self.note(Key::Kind);
    }

    fn conflict(kind: PendingKind, color: usize, attacker: usize, defender: usize) -> Pending {
        let mut p = Pending::bare(kind);
        p.color = Some(color as u8);
        p.attacker = Some(attacker as u8);
        p.defender = Some(defender as u8);
        p.attacker_commit = Some(None);
        for key in [
            Key::Color,
            Key::Attacker,
            Key::Defender,
            Key::AttackerCommit,
        ] {
            p.note(key);
        }
        p
    }

    fn color(&self) -> usize {
        self.color.unwrap_or(0) as usize
    }

    fn attacker(&self) -> usize {
        self.attacker.unwrap_or(0) as usize
    }

    fn defender(&self) -> usize {
        self.defender.unwrap_or(0) as usize
    }

    /// Revolts are fought with temples (red) whatever the leaders; wars with their colour.
    fn commit_color(&self) -> usize {
        if self.kind == PendingKind::Revolt {
            RED
        } else {
            self.color()
        }
    }
}

/// Kingdoms (or any short list of regions), at most one per leader.
#[derive(Clone, Copy)]
pub struct Regions {
    items: [Bb; 16],
    len: usize,
}

impl Regions {
    fn new() -> Regions {
        Regions {
            items: [Bb::EMPTY; 16],
            len: 0,
        }
    }

    #[inline]
    fn push(&mut self, b: Bb) {
        self.items[self.len] = b;
        self.len += 1;
    }

    #[inline]
    pub fn as_slice(&self) -> &[Bb] {
        &self.items[..self.len]
    }

    /// How many regions touch `cells`.
    #[inline]
    fn touching(&self, cells: Bb) -> usize {
        self.as_slice().iter().filter(|k| k.meets(cells)).count()
    }
}

/// Cells next to at least one, two and three of the regions whose dilations are `nears`.
#[inline]
fn overlaps_of(nears: &[Bb]) -> (Bb, Bb, Bb) {
    let (mut one, mut two, mut three) = (Bb::EMPTY, Bb::EMPTY, Bb::EMPTY);
    for &d in nears {
        three |= two & d;
        two |= one & d;
        one |= d;
    }
    (one, two, three)
}

/// The kingdoms of one board (its connectors and leaders), kept in the state: a change that
/// only adds pieces merges them into the kingdoms they touch instead of flooding every kingdom
/// again (`State::refresh_realm`). With them, each kingdom's cells and their neighbours
/// (`near`), and the cells next to at least one, two and three kingdoms: the legal moves read
/// them, and only a changed kingdom is dilated again. A function of the board, so it takes no
/// part in equality. It keeps up to [`Realm::KEPT`] kingdoms (every 2-player board; more are
/// flooded when asked for).
#[derive(Clone, Copy)]
pub struct Realm {
    connectors: Bb,
    leaders: Bb,
    items: [Bb; Realm::KEPT],
    near: [Bb; Realm::KEPT],
    /// Cells next to at least one, two and three of the kingdoms.
    one: Bb,
    two: Bb,
    three: Bb,
    /// The cells of every kingdom made or changed since the treasure check last found
    /// nothing to take (`State::treasure_step`): a kingdom kept whole since then needs no
    /// check (its treasures only leave, its leaders stay).
    fresh: Bb,
    len: u8,
    valid: bool,
}

impl Realm {
    const KEPT: usize = 8;
    const UNKNOWN: Realm = Realm {
        connectors: Bb::EMPTY,
        leaders: Bb::EMPTY,
        items: [Bb::EMPTY; Realm::KEPT],
        near: [Bb::EMPTY; Realm::KEPT],
        one: Bb::EMPTY,
        two: Bb::EMPTY,
        three: Bb::EMPTY,
        fresh: Bb::EMPTY,
        len: 0,
        valid: false,
    };

    /// An empty realm for the board with these connectors and leaders, to be filled.
    #[inline]
    fn begin(connectors: Bb, leaders: Bb) -> Realm {
        Realm {
            connectors,
            leaders,
            valid: true,
            ..Realm::UNKNOWN
        }
    }

    /// Adds a kingdom with its dilation; past [`Realm::KEPT`] of them the realm keeps none.
    #[inline]
    fn push(&mut self, kingdom: Bb, near: Bb) {
        let at = self.len as usize;
        if at == Realm::KEPT {
            self.valid = false;
        } else {
            self.items[at] = kingdom;
            self.near[at] = near;
            self.len += 1;
        }
    }

    /// The overlaps of the kingdoms pushed (once they are all in).
    #[inline]
    fn finish(&mut self) {
        (self.one, self.two, self.three) = overlaps_of(self.nears());
    }

    /// The kingdoms of the board with these connectors and leaders, kept when they fit
    /// (all of them fresh).
    fn of(connectors: Bb, leaders: Bb, kingdoms: &Regions) -> Realm {
        let mut realm = Realm::begin(connectors, leaders);
        realm.fresh = connectors;
        for k in kingdoms.as_slice() {
            realm.push(*k, k.dilate());
        }
        realm.finish();
        realm
    }

    /// Brings the realm to a board that only added one cell to its connectors (a tile, or a
    /// leader placed: then the cell is also the only leader added) and joins no region
    /// without a leader: the kingdoms next to the cell (none, one, or several a tile unites)
    /// and the cell make one kingdom, whose dilation is theirs and the cell's; nothing is
    /// flooded. False, and nothing changes, for any other change.
    fn add_one(&mut self, connectors: Bb, leaders: Bb) -> bool {
        let added = connectors.minus(self.connectors);
        let Some(cell) = added.single() else {
            return false;
        };
        let new_leaders = leaders.minus(self.leaders);
        let leader = new_leaders.any();
        if !connectors.contains(self.connectors)
            || !leaders.contains(self.leaders)
            || (leader && new_leaders != added)
        {
            return false; // cells or leaders left, or a leader elsewhere
        }
        let around = neighbours(cell) & self.connectors;
        let (mut kingdom, mut near, mut reached) = (added, added.dilate(), Bb::EMPTY);
        for (k, d) in self.kingdoms().iter().zip(self.nears()) {
            if k.meets(around) {
                kingdom |= *k;
                near |= *d;
                reached |= *k;
            }
        }
        if !reached.contains(around) {
            return false; // a region without a leader joins: flooded
        }
        self.connectors = connectors;
        self.leaders = leaders;
        if !reached.any() && !leader {
            return true; // a tile next to no kingdom: the kingdoms are as they were
        }
        let (items, nears, count) = (self.items, self.near, usize::from(self.len));
        self.len = 0;
        for (k, d) in items.iter().zip(&nears).take(count) {
            if !k.meets(around) {
                self.push(*k, *d);
            }
        }
        self.push(kingdom, near);
        self.fresh |= kingdom;
        self.finish();
        true
    }

    #[inline]
    fn kingdoms(&self) -> &[Bb] {
        &self.items[..self.len as usize]
    }

    #[inline]
    fn nears(&self) -> &[Bb] {
        &self.near[..self.len as usize]
    }

    #[inline]
    fn describes(&self, connectors: Bb, leaders: Bb) -> bool {
        self.valid && self.connectors == connectors && self.leaders == leaders
    }
}

impl PartialEq for Realm {
    fn eq(&self, _: &Realm) -> bool {
        true
    }
}

impl std::fmt::Debug for Realm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Realm")
    }
}

/// The legal actions of a turn (no decision pending), as sets: the ids follow from them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TurnMoves {
    /// Cells next to at least one and at least two kingdoms.
    pub one: Bb,
    pub two: Bb,
    pub leader: [Bb; 4],
    pub withdraw: [bool; 4],
    pub tile: [Bb; 4],
    pub catastrophe: Bb,
    /// The hand the swaps discard from (all zero: no swap).
    pub hand: [u8; 4],
    /// How many ids each part of the legal order has: the leaders by role, the withdrawals,
    /// the tiles by colour, the catastrophes, the swaps and the pass (counted as the moves
    /// are made: a set several parts share is counted once).
    pub sizes: [u16; 12],
}

impl TurnMoves {
    /// The sizes of the parts as they are made, sets counted one by one.
    #[cfg(test)]
    fn counted(mut self) -> TurnMoves {
        for role in 0..4 {
            self.sizes[role] = self.leader[role].count() as u16;
            self.sizes[5 + role] = self.tile[role].count() as u16;
        }
        self.sizes[4] = self.withdraw.iter().filter(|w| **w).count() as u16;
        self.sizes[9] = self.catastrophe.count() as u16;
        self.sizes[10] = swap_count(&self.hand) as u16;
        self.sizes[11] = 1;
        self
    }

    /// How many ids the legal order has.
    #[inline]
    fn total(&self) -> usize {
        self.sizes.iter().map(|&n| usize::from(n)).sum()
    }

    /// The `k`-th id of the legal order.
    fn nth(&self, mut k: usize) -> u16 {
        let sizes = self.sizes.map(usize::from);
        for role in 0..4 {
            let n = sizes[role];
            if k < n {
                return LEADER_BASE + (role * CELLS + self.leader[role].nth(k as u32)) as u16;
            }
            k -= n;
        }
        if k < sizes[4] {
            for role in 0..4 {
                if self.withdraw[role] {
                    if k == 0 {
                        return WITHDRAW_BASE + role as u16;
                    }
                    k -= 1;
                }
            }
        }
        k -= sizes[4];
        for color in 0..4 {
            let n = sizes[5 + color];
            if k < n {
                return TILE_BASE + (color * CELLS + self.tile[color].nth(k as u32)) as u16;
            }
            k -= n;
        }
        let n = sizes[9];
        if k < n {
            return CATASTROPHE_BASE + self.catastrophe.nth(k as u32) as u16;
        }
        k -= n;
        if k < sizes[10] {
            // sub-hands in product order are the numbers 1.. in the mixed radix of
            // (count + 1) per colour, red the most significant digit
            let mut rest = k + 1;
            let mut counts = [0u8; 4];
            for color in (0..4).rev() {
                let radix = self.hand[color] as usize + 1;
                counts[color] = (rest % radix) as u8;
                rest /= radix;
            }
            return swap_id(&counts);
        }
        PASS_ID
    }
}

/// A short list of action ids (a pending decision's actions).
#[derive(Clone, Copy)]
pub struct Ids {
    items: [u16; 64],
    len: usize,
}

impl Ids {
    fn new() -> Ids {
        Ids {
            items: [0; 64],
            len: 0,
        }
    }

    #[inline]
    fn push(&mut self, id: u16) {
        self.items[self.len] = id;
        self.len += 1;
    }

    fn extend_cells(&mut self, base: u16, cells: Bb) {
        for c in cells.iter() {
            self.push(base + c as u16);
        }
    }

    #[inline]
    pub fn as_slice(&self) -> &[u16] {
        &self.items[..self.len]
    }
}

/// The legal actions of a state.
pub enum Moves {
    Turn(TurnMoves),
    Decision(Ids),
}

impl Moves {
    /// How many actions are legal.
    pub fn count(&self) -> usize {
        match self {
            Moves::Decision(ids) => ids.len,
            Moves::Turn(t) => t.total(),
        }
    }

    /// The `k`-th legal id (`k < count()`), without listing them all.
    pub fn nth(&self, k: usize) -> u16 {
        match self {
            Moves::Decision(ids) => ids.as_slice()[k],
            Moves::Turn(t) => t.nth(k),
        }
    }

    /// `nth(rng.below(count()))`, the same id, with the sets counted once.
    pub fn random(&self, rng: &mut SplitMix64) -> u16 {
        match self {
            Moves::Decision(ids) => ids.as_slice()[rng.below(ids.len)],
            Moves::Turn(t) => t.nth(rng.below(t.total())),
        }
    }

    /// Every legal id, ascending.
    pub fn ids(&self, out: &mut Vec<u16>) {
        out.clear();
        match self {
            Moves::Decision(ids) => out.extend_from_slice(ids.as_slice()),
            Moves::Turn(t) => {
                out.reserve(self.count());
                for role in 0..4 {
                    push_cells(out, LEADER_BASE + (role * CELLS) as u16, t.leader[role]);
                }
                for role in 0..4 {
                    if t.withdraw[role] {
                        out.push(WITHDRAW_BASE + role as u16);
                    }
                }
                for color in 0..4 {
                    push_cells(out, TILE_BASE + (color * CELLS) as u16, t.tile[color]);
                }
                push_cells(out, CATASTROPHE_BASE, t.catastrophe);
                let h = t.hand;
                if h.iter().any(|x| *x > 0) {
                    for r in 0..=h[0] {
                        for b in 0..=h[1] {
                            for g in 0..=h[2] {
                                for k in 0..=h[3] {
                                    if r + b + g + k > 0 {
                                        out.push(swap_id(&[r, b, g, k]));
                                    }
                                }
                            }
                        }
                    }
                }
                out.push(PASS_ID);
            }
        }
    }
}

#[inline]
fn push_cells(out: &mut Vec<u16>, base: u16, cells: Bb) {
    for (i, w) in cells.0.iter().enumerate() {
        let mut w = *w;
        let at = base + (i * 64) as u16;
        while w != 0 {
            out.push(at + w.trailing_zeros() as u16);
            w &= w - 1;
        }
    }
}

/// How many non-empty sub-hands `hand` has.
#[inline]
fn swap_count(hand: &[u8; 4]) -> usize {
    hand.iter().map(|h| *h as usize + 1).product::<usize>() - 1
}

/// The 2×2 square whose top-left cell is `c` (empty where it would leave the board).
pub fn square_mask(c: usize) -> Bb {
    if c % COLUMNS < COLUMNS - 1 && c / COLUMNS < 10 {
        Bb::cell(c) | Bb::cell(c + 1) | Bb::cell(c + COLUMNS) | Bb::cell(c + COLUMNS + 1)
    } else {
        Bb::EMPTY
    }
}

/// The plus of 5 cells centred on `c` (empty where it would leave the board).
pub fn plus_mask(c: usize) -> Bb {
    let n = neighbours(c);
    if n.count() == 4 {
        n | Bb::cell(c)
    } else {
        Bb::EMPTY
    }
}

/// The top-left cells of the 2×2 squares that hold `cell`, ascending.
fn squares_of(cell: usize) -> impl Iterator<Item = usize> {
    let candidates = [
        cell.checked_sub(COLUMNS + 1),
        cell.checked_sub(COLUMNS),
        cell.checked_sub(1),
        Some(cell),
    ];
    candidates
        .into_iter()
        .flatten()
        .filter(move |t| square_mask(*t).has(cell))
}

/// A seat's result: points, treasures, points once treasures lift the lowest colours, score
/// (the lowest colour) and place (1 = winner; ties share a place).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatResult {
    pub seat: usize,
    pub points: [u32; 4],
    pub treasures: u32,
    pub final_points: [u32; 4],
    pub score: u32,
    pub place: usize,
}

/// A complete game position with its rules.
#[derive(Clone, PartialEq, Debug)]
pub struct State {
    pub options: Options,
    /// Dynasty of each seat (index into `DYNASTIES`).
    pub players: [u8; 4],
    pub n: usize,
    pub up: [Bb; 4],
    pub down: [Bb; 4],
    pub treasure: Bb,
    pub cata: Bb,
    /// Cell of leader `seat * 4 + colour`, or NONE.
    pub leader_cell: [u8; 16],
    pub leaders: Bb,
    /// (monument, top-left cell) in the order built.
    pub monuments: [(u8, u8); 6],
    pub nmonuments: usize,
    pub unification: u8,
    pub hands: [[u8; 4]; 4],
    pub bag: Bag,
    pub points: [[u32; 4]; 4],
    pub treasures: [u32; 4],
    pub catastrophes: [u8; 4],
    pub discards: [[u32; 4]; 4],
    pub removed: [u32; 4],
    pub active: usize,
    pub actions_left: i8,
    pub pending: Option<Pending>,
    pub placed: u8,
    pub ending: bool,
    pub over: bool,
    pub buildings: [u8; 4],
    pub wonder: u8,
    /// The kingdoms as last brought up to date (checked against the board before use).
    realm: Realm,
}

/// The kingdoms a connected `region` falls into once the cells `gone` leave it: its parts
/// that hold one of `leaders`, handed to `out` by their lowest leader.
#[inline]
fn split_kingdom(region: Bb, gone: Bb, leaders: Bb, mut out: impl FnMut(Bb)) {
    let within = region.minus(gone);
    let mut rest = leaders & within;
    if !rest.any() {
        return;
    }
    if let Some(cell) = gone.single() {
        if joined_around(within, cell) {
            // what was next to the cell stays connected around it: nothing splits
            out(within);
            return;
        }
    }
    while let Some(c) = rest.first() {
        let part = Bb::flood(Bb::cell(c), within);
        out(part);
        rest = rest.minus(part);
    }
}

/// Whether the cells of `region` orthogonally next to `cell` are connected through the eight
/// cells around it (then taking `cell` out of a connected region keeps it connected).
#[inline]
fn joined_around(region: Bb, cell: usize) -> bool {
    let (row, col) = (cell / COLUMNS, cell % COLUMNS);
    // three cells of row `r` (columns col-1, col, col+1 as bits 0, 1, 2; off the board: 0)
    let three = |r: usize| -> usize {
        let row_bits = (region.0[r / 4] >> ((r % 4) * 16)) & 0xFFFF;
        ((row_bits << 1) >> col) as usize & 7
    };
    let above = if row > 0 { three(row - 1) } else { 0 };
    let here = three(row);
    let below = if row + 1 < ROWS { three(row + 1) } else { 0 };
    // the ring clockwise from the top left: NW N NE E SE S SW W
    let ring = above
        | (here >> 2) << 3
        | (below >> 2 & 1) << 4
        | (below >> 1 & 1) << 5
        | (below & 1) << 6
        | (here & 1) << 7;
    RING_JOINED[ring]
}

/// For each ring of eight cells (bit 0 the top-left, clockwise): whether its orthogonal
/// cells (odd bits) that are present lie in one run of present cells around the ring.
static RING_JOINED: [bool; 256] = {
    let mut table = [false; 256];
    let mut code = 0;
    while code < 256 {
        table[code] = ring_joined(code);
        code += 1;
    }
    table
};

const fn ring_joined(code: usize) -> bool {
    if code == 0xFF {
        return true;
    }
    let mut start = 0;
    while (code >> start) & 1 == 1 {
        start += 1;
    }
    // walk once around from an absent cell, counting the runs that hold an orthogonal cell
    let (mut runs, mut in_run, mut orthogonal) = (0, false, false);
    let mut i = 1;
    while i <= 8 {
        let p = (start + i) % 8;
        if (code >> p) & 1 == 1 {
            if !in_run {
                in_run = true;
                orthogonal = false;
            }
            if p % 2 == 1 {
                orthogonal = true;
            }
        } else if in_run {
            in_run = false;
            if orthogonal {
                runs += 1;
            }
        }
        i += 1;
    }
    runs <= 1
}

#[inline]
fn opt(cell: u8) -> Option<usize> {
    if cell == NONE {
        None
    } else {
        Some(cell as usize)
    }
}

impl State {
    // ------------------------------------------------------------------ creation

    /// An empty board for these dynasties (indices into `DYNASTIES`) and options.
    pub fn blank(players: &[u8], options: Options) -> State {
        let mut seats = [0u8; 4];
        seats[..players.len()].copy_from_slice(players);
        State {
            options,
            players: seats,
            n: players.len(),
            up: [Bb::EMPTY; 4],
            down: [Bb::EMPTY; 4],
            treasure: Bb::EMPTY,
            cata: Bb::EMPTY,
            leader_cell: [NONE; 16],
            leaders: Bb::EMPTY,
            monuments: [(0, 0); 6],
            nmonuments: 0,
            unification: NONE,
            hands: [[0; 4]; 4],
            bag: Bag::new(&[]).expect("an empty bag fits"),
            points: [[0; 4]; 4],
            treasures: [0; 4],
            catastrophes: [CATASTROPHES_PER_PLAYER; 4],
            discards: [[0; 4]; 4],
            removed: [0; 4],
            active: 0,
            actions_left: 2,
            pending: None,
            placed: NONE,
            ending: false,
            over: false,
            buildings: [NONE; 4],
            wonder: NONE,
            realm: Realm::UNKNOWN,
        }
    }

    /// A new game: starting temples with treasures, `bag` as the reference's shuffled list
    /// (drawn from its end), `active` to start, six tiles dealt to each hand from `active` on.
    pub fn new_game(players: &[u8], options: Options, bag: &[u8], active: usize) -> State {
        let mut s = State::blank(players, options);
        let temples = options.side.map().temples;
        s.up[RED] = temples;
        s.treasure = temples;
        s.bag = Bag::new(bag).expect("a new game's bag fits");
        s.active = active;
        for offset in 0..s.n {
            s.draw((active + offset) % s.n, HAND_SIZE);
        }
        s
    }

    /// A new game dealt as the reference deals it from `random.Random(seed)` (`seed` >= 0):
    /// the bag (colours in order, then shuffled) and the seat that starts.
    pub fn deal(players: &[u8], options: Options, seed: u128) -> State {
        let mut rng = CpythonRandom::new(seed);
        let start = options.side.map().temples.count();
        let mut bag = Vec::with_capacity(Bag::CAPACITY);
        for (color, total) in TILE_TOTALS.iter().enumerate() {
            let count = if color == RED { total - start } else { *total };
            bag.extend(std::iter::repeat_n(color as u8, count as usize));
        }
        rng.shuffle(&mut bag);
        let active = rng.below(players.len() as u32) as usize;
        State::new_game(players, options, &bag, active)
    }

    // ------------------------------------------------------------------ basic queries

    #[inline]
    pub fn map(&self) -> &'static BoardMap {
        self.options.side.map()
    }

    /// The seat that must decide now.
    pub fn to_move(&self) -> usize {
        match &self.pending {
            None => self.active,
            Some(p) => match p.kind {
                PendingKind::Revolt | PendingKind::War => {
                    if p.attacker_commit.flatten().is_none() {
                        p.attacker()
                    } else {
                        p.defender()
                    }
                }
                PendingKind::Treasure => p.seat.unwrap_or(0) as usize,
                _ => self.active,
            },
        }
    }

    #[inline]
    pub fn tiles_up(&self) -> Bb {
        self.up[0] | self.up[1] | self.up[2] | self.up[3]
    }

    #[inline]
    pub fn tiles_down(&self) -> Bb {
        self.down[0] | self.down[1] | self.down[2] | self.down[3]
    }

    #[inline]
    pub fn wonder_mask(&self) -> Bb {
        match opt(self.wonder) {
            None => Bb::EMPTY,
            Some(w) => Bb::cell(w) | neighbours(w),
        }
    }

    /// Cells that connect: tiles face up or down, leaders and the wonder.
    #[inline]
    pub fn connectors(&self) -> Bb {
        self.tiles_up() | self.tiles_down() | self.leaders | self.wonder_mask()
    }

    #[inline]
    pub fn occupied(&self) -> Bb {
        self.connectors() | self.cata
    }

    #[inline]
    pub fn empty(&self) -> Bb {
        !self.occupied()
    }

    pub fn monuments(&self) -> &[(u8, u8)] {
        &self.monuments[..self.nmonuments]
    }

    fn monument_built(&self, m: usize) -> bool {
        self.monuments().iter().any(|(b, _)| *b as usize == m)
    }

    /// The region of connected cells holding `cell` (empty if `cell` connects nothing).
    #[inline]
    pub fn component_of(&self, cell: usize) -> Bb {
        Bb::flood(Bb::cell(cell), self.connectors())
    }

    /// The kingdoms: regions with at least one leader.
    pub fn kingdoms(&self) -> Regions {
        let connectors = self.connectors();
        let mut out = Regions::new();
        let mut rest = self.leaders;
        while let Some(c) = rest.first() {
            let k = Bb::flood(Bb::cell(c), connectors);
            out.push(k);
            rest = rest.minus(k);
        }
        out
    }

    /// The kingdoms kept in the state (in no set order) when they describe this board, whose
    /// connectors are `connectors` (`self.connectors()`); None where they do not (a state
    /// made another way, or more kingdoms than it keeps).
    #[inline]
    pub fn kept_kingdoms(&self, connectors: Bb) -> Option<&[Bb]> {
        if self.realm.describes(connectors, self.leaders) {
            Some(self.realm.kingdoms())
        } else {
            None
        }
    }

    /// The state with its kept kingdoms forgotten (flooded afresh when next asked): the
    /// tests' way to a state made otherwise.
    #[cfg(test)]
    pub(crate) fn forget_kingdoms(&mut self) {
        self.realm = Realm::UNKNOWN;
    }

    /// The kingdoms (in no set order), from the kept realm when it describes this board.
    #[inline]
    fn realm(&self) -> Regions {
        if self.realm.describes(self.connectors(), self.leaders) {
            let mut out = Regions::new();
            for k in self.realm.kingdoms() {
                out.push(*k);
            }
            out
        } else {
            self.kingdoms()
        }
    }

    /// Bring the kept kingdoms up to this board. Only the kingdoms that lost cells are
    /// flooded again (within what is left of them), and only those next to added cells are
    /// grown (from themselves: a few steps); the rest are kept as they are.
    fn refresh_realm(&mut self) {
        let connectors = self.connectors();
        self.refresh_realm_with(connectors);
    }

    /// [`State::refresh_realm`] with the board's connectors worked out already. The realm is
    /// rebuilt in place from a copy of its old kingdoms.
    fn refresh_realm_with(&mut self, connectors: Bb) {
        let leaders = self.leaders;
        if self.realm.describes(connectors, leaders) {
            return;
        }
        if !self.realm.valid {
            self.realm = Realm::of(connectors, leaders, &self.kingdoms());
            return;
        }
        if self.realm.add_one(connectors, leaders) {
            return;
        }
        let realm = &mut self.realm;
        let count = realm.len as usize;
        let mut old = [(Bb::EMPTY, Bb::EMPTY); Realm::KEPT];
        for (o, (k, d)) in old
            .iter_mut()
            .zip(realm.kingdoms().iter().zip(realm.nears()))
        {
            *o = (*k, *d);
        }
        let gone = realm.connectors.minus(connectors);
        let changed = gone | realm.leaders.minus(leaders);
        let new_leaders = leaders.minus(realm.leaders);
        let near = connectors.minus(realm.connectors).dilate();
        realm.connectors = connectors;
        realm.leaders = leaders;
        realm.len = 0;
        // Each piece of the old kingdoms left (a kingdom, or a part of one that lost cells) is
        // kept unless it lies next to an added cell: then the kingdom it is now part of is
        // flooded from it, once (a piece met by a flood lies inside it: pieces are connected,
        // and one joins another only through the added cells). A kingdom kept whole keeps
        // its dilation; the others are dilated again.
        // Every kingdom not kept whole is fresh for the treasure check.
        let mut covered = Bb::EMPTY;
        let mut split = Bb::EMPTY;
        for &(k, d) in &old[..count] {
            if !k.meets(changed) {
                if !k.meets(near) {
                    realm.push(k, d);
                } else if !k.meets(covered) {
                    let (grown, dilated) = Bb::flood_dilated(k, connectors);
                    covered |= grown;
                    realm.push(grown, dilated);
                }
                continue;
            }
            split_kingdom(k, gone, leaders, |part| {
                if !part.meets(near) {
                    split |= part;
                    realm.push(part, part.dilate());
                } else if !part.meets(covered) {
                    let (grown, dilated) = Bb::flood_dilated(part, connectors);
                    covered |= grown;
                    realm.push(grown, dilated);
                }
            });
        }
        for c in new_leaders.iter() {
            let cell = Bb::cell(c);
            if !cell.meets(covered) {
                let (grown, dilated) = Bb::flood_dilated(cell, connectors);
                covered |= grown;
                realm.push(grown, dilated);
            }
        }
        realm.fresh |= covered | split;
        realm.finish();
    }

    /// The region holding `cell` after the realm is brought up to date: its kingdom when it
    /// has one (no flood), else flooded.
    fn region_of(&mut self, cell: usize) -> Bb {
        self.refresh_realm();
        match self.realm.kingdoms().iter().find(|k| k.has(cell)) {
            Some(k) => *k,
            None => self.component_of(cell),
        }
    }

    /// The leader index (seat * 4 + colour) on `cell`, if any.
    pub fn leader_at(&self, cell: usize) -> Option<usize> {
        self.leader_cell[..4 * self.n]
            .iter()
            .position(|c| *c as usize == cell)
    }

    fn adjacent_temples(&self, cell: usize) -> u32 {
        (neighbours(cell) & self.up[RED]).count()
    }

    /// The seat whose leader of `color` stands in `kingdom`.
    fn owner_in(&self, kingdom: Bb, color: usize) -> Option<usize> {
        (0..self.n).find(|seat| {
            let c = self.leader_cell[4 * seat + color];
            c != NONE && kingdom.has(c as usize)
        })
    }

    /// The two seats with a leader of `color` in `kingdom`, if there are exactly two.
    fn war_pair(&self, color: usize, kingdom: Bb) -> Option<(usize, usize)> {
        let mut seats = [0usize; 4];
        let mut n = 0;
        for seat in 0..self.n {
            let c = self.leader_cell[4 * seat + color];
            if c != NONE && kingdom.has(c as usize) {
                seats[n] = seat;
                n += 1;
            }
        }
        (n == 2).then_some((seats[0], seats[1]))
    }

    fn building_mask(&self) -> Bb {
        let mut mask = Bb::EMPTY;
        for c in self.buildings {
            if c != NONE {
                mask.set(c as usize);
            }
        }
        mask
    }

    /// The colour of the face-up tile on `cell`.
    fn color_on(&self, cell: usize) -> Option<usize> {
        (0..4).find(|c| self.up[*c].has(cell))
    }

    // ------------------------------------------------------------------ board changes

    fn take_leader(&mut self, index: usize) {
        let cell = self.leader_cell[index];
        self.leader_cell[index] = NONE;
        if cell != NONE {
            self.leaders.clear(cell as usize);
        }
    }

    fn put_leader(&mut self, index: usize, cell: usize) {
        self.leader_cell[index] = cell as u8;
        self.leaders.set(cell);
    }

    /// Leaders without an adjacent face-up temple go back to their owners.
    fn return_stranded_leaders<S: Sink>(&mut self, ev: &mut S) {
        let temples = self.up[RED];
        for index in 0..4 * self.n {
            let cell = self.leader_cell[index];
            if cell != NONE && !neighbours(cell as usize).meets(temples) {
                self.take_leader(index);
                if S::ON {
                    ev.push(Event::LeaderReturned {
                        seat: index / 4,
                        role: index % 4,
                        cell: cell as usize,
                    });
                }
            }
        }
    }

    /// Draw up to `count` tiles; a short bag means the game ends after this turn.
    fn draw(&mut self, seat: usize, count: usize) -> usize {
        let mut count = count;
        if count > self.bag.len() {
            self.ending = true;
            count = self.bag.len();
        }
        for _ in 0..count {
            let color = self.bag.pop();
            self.hands[seat][color as usize] += 1;
        }
        count
    }

    fn score<S: Sink>(&mut self, seat: usize, color: usize, amount: u32, why: Why, ev: &mut S) {
        self.points[seat][color] += amount;
        if S::ON {
            ev.push(Event::Score {
                seat,
                color,
                amount,
                why,
            });
        }
    }

    // ------------------------------------------------------------------ legal actions

    /// The legal actions of the seat to move.
    pub fn moves(&self) -> Moves {
        if self.over {
            return Moves::Decision(Ids::new());
        }
        match &self.pending {
            Some(p) => Moves::Decision(self.pending_actions(p)),
            None => Moves::Turn(self.turn_moves()),
        }
    }

    /// Every legal action id, in the reference's order.
    pub fn legal_ids(&self) -> Vec<u16> {
        let mut out = Vec::new();
        self.moves().ids(&mut out);
        out
    }

    fn turn_moves(&self) -> TurnMoves {
        let connectors = self.connectors();
        if self.realm.describes(connectors, self.leaders) {
            let r = &self.realm;
            return self.turn_moves_of(
                connectors,
                r.kingdoms(),
                r.nears(),
                (r.one, r.two, r.three),
            );
        }
        // a state made another way, or more kingdoms than the realm keeps: flooded here
        let flooded = self.kingdoms();
        let kingdoms = flooded.as_slice();
        let mut dilated = [Bb::EMPTY; 16];
        for (d, k) in dilated.iter_mut().zip(kingdoms) {
            *d = k.dilate();
        }
        let nears = &dilated[..kingdoms.len()];
        self.turn_moves_of(connectors, kingdoms, nears, overlaps_of(nears))
    }

    /// The turn's moves with the board's kingdoms, their dilations and their overlaps.
    #[inline(always)]
    fn turn_moves_of(
        &self,
        connectors: Bb,
        kingdoms: &[Bb],
        nears: &[Bb],
        overlap: (Bb, Bb, Bb),
    ) -> TurnMoves {
        let seat = self.active;
        let empty = !(connectors | self.cata);
        let land = self.map().land;
        let land_empty = empty & land;
        let (one, two, three) = overlap;
        let temples_near = self.up[RED].dilate();
        let mut moves = TurnMoves {
            one,
            two,
            leader: [Bb::EMPTY; 4],
            withdraw: [false; 4],
            tile: [Bb::EMPTY; 4],
            catastrophe: Bb::EMPTY,
            hand: [0; 4],
            sizes: [0; 12],
        };
        let placed = temples_near & land_empty;
        let free = placed & !two;
        let mut free_count = None;
        for color in 0..4 {
            let cell = self.leader_cell[4 * seat + color];
            let targets = if cell == NONE {
                moves.sizes[color] = *free_count.get_or_insert_with(|| free.count() as u16);
                free
            } else {
                moves.withdraw[color] = true;
                moves.sizes[4] += 1;
                let targets = placed & !self.two_lifting(cell as usize, kingdoms, nears, overlap);
                moves.sizes[color] = targets.count() as u16;
                targets
            };
            moves.leader[color] = targets;
        }
        let hand = self.hands[seat];
        let land_ok = land_empty & !three;
        let mut land_count = None;
        for color in 0..4 {
            if hand[color] > 0 {
                if color == BLUE {
                    let water = empty.minus(land) & !three;
                    moves.tile[color] = water;
                    moves.sizes[5 + color] = water.count() as u16;
                } else {
                    moves.tile[color] = land_ok;
                    moves.sizes[5 + color] =
                        *land_count.get_or_insert_with(|| land_ok.count() as u16);
                }
            }
        }
        if self.catastrophes[seat] > 0 {
            moves.catastrophe = empty
                | self
                    .tiles_up()
                    .minus(self.treasure)
                    .minus(self.building_mask());
            moves.sizes[9] = moves.catastrophe.count() as u16;
        }
        moves.hand = hand;
        moves.sizes[10] = swap_count(&hand) as u16;
        moves.sizes[11] = 1;
        moves
    }

    /// The cells next to two kingdoms or more once the leader on `cell` is lifted off (where
    /// it may not move: as placed anew). `overlap` are the cells next to at least one, two
    /// and three of `kingdoms` (`nears` their dilations): the others' counts follow from them
    /// and the own kingdom's dilation, with no other kingdom dilated again. Lifting it leaves
    /// its kingdom whole but for its cell (most often: nothing dilated at all), splits it
    /// (its parts are flooded and dilated), or ends it (its last leader).
    fn two_lifting(&self, cell: usize, kingdoms: &[Bb], nears: &[Bb], overlap: (Bb, Bb, Bb)) -> Bb {
        let bit = Bb::cell(cell);
        let (own, d) = match kingdoms.iter().position(|k| k.has(cell)) {
            Some(i) => (kingdoms[i], nears[i]),
            None => (Bb::EMPTY, Bb::EMPTY),
        };
        let (all_one, all_two, all_three) = overlap;
        let within = own.minus(bit);
        let others = self.leaders & within;
        if others.any() && joined_around(within, cell) {
            // One kingdom left, `within`: its dilation is `d` but for the neighbours of
            // `cell` next to no other cell of it, which count one kingdom fewer.
            let mut lost = Bb::EMPTY;
            for x in (neighbours(cell) & all_two).minus(all_three).iter() {
                if !(neighbours(x) | Bb::cell(x)).meets(within) {
                    lost.set(x);
                }
            }
            return all_two.minus(lost);
        }
        // next to the own kingdom, a cell counts one kingdom fewer among the others
        let mut one = all_one.minus(d) | (all_two & d);
        let mut two = all_two.minus(d) | (all_three & d);
        split_kingdom(own, bit, self.leaders.minus(bit), |part| {
            let d = part.dilate();
            two |= one & d;
            one |= d;
        });
        two
    }

    /// The kingdoms once the leader on `cell` is lifted off: only its own may split.
    fn kingdoms_lifting(&self, cell: usize, kingdoms: &Regions) -> Regions {
        let bit = Bb::cell(cell);
        let mut out = Regions::new();
        let mut own = Bb::EMPTY;
        for k in kingdoms.as_slice() {
            if k.has(cell) {
                own = *k;
            } else {
                out.push(*k);
            }
        }
        split_kingdom(own, bit, self.leaders.minus(bit), |part| out.push(part));
        out
    }

    fn pending_actions(&self, p: &Pending) -> Ids {
        let mut out = Ids::new();
        match p.kind {
            PendingKind::Revolt | PendingKind::War => {
                for n in self.commit_options(p).as_slice() {
                    out.push(COMMIT_BASE + *n as u16);
                }
            }
            PendingKind::WarOrder => {
                for c in p.colors.unwrap_or_default().as_slice() {
                    out.push(WAR_BASE + *c as u16);
                }
            }
            PendingKind::Monument => {
                for (m, top_left) in self.monument_options().as_slice() {
                    out.push(
                        Action::Monument {
                            monument: *m as usize,
                            cell: *top_left as usize,
                        }
                        .id()
                        .expect("a monument has an id"),
                    );
                }
                out.extend_cells(WONDER_BASE, self.wonder_options());
                out.push(DECLINE_ID);
            }
            PendingKind::Treasure => {
                out.extend_cells(TREASURE_BASE, self.treasure_cells(p));
            }
            PendingKind::Building => {
                out.extend_cells(BUILDING_BASE, self.building_options());
                out.push(DECLINE_ID);
            }
            PendingKind::WonderPoint => {
                for c in 0..4 {
                    out.push(WONDERPOINT_BASE + c);
                }
            }
        }
        out
    }

    /// The cells a treasure decision offers, as the reference's sum of bits makes them (a cell
    /// listed twice by a position counts as the next cell, as 2 << c does).
    fn treasure_cells(&self, p: &Pending) -> Bb {
        let mut counts = [0u32; CELLS + 8];
        for c in p.cells.unwrap_or_default().as_slice() {
            counts[*c as usize] += 1;
        }
        let mut mask = Bb::EMPTY;
        for c in 0..CELLS {
            if counts[c] % 2 == 1 {
                mask.set(c);
            }
            counts[c + 1] += counts[c] / 2;
        }
        mask
    }

    // ------------------------------------------------------------------ apply

    /// Apply a parsed action for the seat to move; Err(reason) leaves the state unchanged.
    pub fn apply<S: Sink>(&mut self, parsed: &Parsed, ev: &mut S) -> Result<(), String> {
        if self.over {
            return Err("the game is over".into());
        }
        match self.pending {
            None => {
                self.check_turn_action(parsed)?;
                if let Parsed::Action(action) = parsed {
                    self.apply_turn_action(*action, ev);
                }
            }
            Some(p) => {
                self.check_pending_action(&p, parsed)?;
                if let Parsed::Action(action) = parsed {
                    self.apply_pending_action(p, *action, ev);
                }
            }
        }
        self.refresh_realm();
        Ok(())
    }

    /// Apply the action `id` (checked as `apply` checks it).
    pub fn apply_id<S: Sink>(&mut self, id: u16, ev: &mut S) -> Result<(), String> {
        match Action::from_id(id) {
            Some(action) => self.apply(&Parsed::Action(action), ev),
            None => Err(format!(
                "action id {id} is outside 0..{}",
                super::actions::ACTION_COUNT - 1
            )),
        }
    }

    /// Apply an action known to be legal (from this state's own legal list): no checks.
    pub fn apply_legal<S: Sink>(&mut self, id: u16, ev: &mut S) {
        let moves = self.moves();
        self.apply_move(&moves, id, ev);
    }

    /// Apply `id`, one of `moves` (this state's [`State::moves`]): no checks, and what the
    /// moves already know (the kingdoms next to a cell) is not computed again.
    pub fn apply_move<S: Sink>(&mut self, moves: &Moves, id: u16, ev: &mut S) {
        let action = Action::from_id(id).expect("a legal id");
        match (self.pending, moves, action) {
            (None, Moves::Turn(t), Action::Tile { color, cell }) => {
                let touching = if t.two.has(cell) {
                    2
                } else {
                    usize::from(t.one.has(cell))
                };
                self.place_tile(self.active, color, cell, touching, ev);
            }
            (None, _, _) => self.apply_turn_action(action, ev),
            (Some(p), _, _) => self.apply_pending_action(p, action, ev),
        }
        self.refresh_realm();
    }

    // --- validation (errors before anything changes)

    fn name(&self, seat: usize) -> &'static str {
        super::actions::DYNASTIES[self.players[seat] as usize]
    }

    fn check_turn_action(&self, parsed: &Parsed) -> Result<(), String> {
        let seat = self.active;
        match parsed {
            Parsed::Action(Action::Leader { role, cell }) => self.check_leader(seat, *role, *cell),
            Parsed::Action(Action::Withdraw { role }) => {
                if self.leader_cell[4 * seat + role] == NONE {
                    return Err(format!("your {} is not on the board", ROLES[*role]));
                }
                Ok(())
            }
            Parsed::Action(Action::Tile { color, cell }) => self.check_tile(seat, *color, *cell),
            Parsed::Action(Action::Catastrophe { cell }) => self.check_catastrophe(seat, *cell),
            Parsed::Action(Action::Swap { counts }) => {
                let hand = self.hands[seat];
                for color in 0..4 {
                    if counts[color] > hand[color] {
                        return Err(format!(
                            "you cannot discard {} {} tile(s): your hand holds {}",
                            counts[color], COLOURS[color], hand[color]
                        ));
                    }
                }
                Ok(())
            }
            Parsed::Action(Action::Pass) => Ok(()),
            other => Err(format!(
                "'{}' is not possible now: it is {}'s turn to take an action",
                other.text(),
                self.name(seat)
            )),
        }
    }

    fn check_leader(&self, seat: usize, color: usize, cell: usize) -> Result<(), String> {
        let name = cell_name(cell);
        let current = self.leader_cell[4 * seat + color];
        if current as usize == cell {
            return Err(format!("your {} already stands on {name}", ROLES[color]));
        }
        self.check_empty(cell)?;
        if !self.map().land.has(cell) {
            return Err(format!(
                "{name} is a river cell: leaders may not stand on the river"
            ));
        }
        if !neighbours(cell).meets(self.up[RED]) {
            return Err(format!("{name} is not next to a face-up temple"));
        }
        let mut kingdoms = self.realm();
        if current != NONE {
            kingdoms = self.kingdoms_lifting(current as usize, &kingdoms);
        }
        if kingdoms.touching(neighbours(cell)) > 1 {
            return Err(format!("a leader on {name} would join two kingdoms"));
        }
        Ok(())
    }

    /// What stands on `cell` for good as far as placements go.
    fn fixture_on(&self, cell: usize) -> Option<&'static str> {
        if self.leaders.has(cell) {
            Some("holds a leader")
        } else if self.cata.has(cell) {
            Some("holds a catastrophe")
        } else if self.wonder_mask().has(cell) {
            Some("is under the wonder")
        } else if self.tiles_down().has(cell) {
            Some("is under a monument")
        } else {
            None
        }
    }

    fn check_empty(&self, cell: usize) -> Result<(), String> {
        let name = cell_name(cell);
        if let Some(fixture) = self.fixture_on(cell) {
            return Err(format!("{name} {fixture}"));
        }
        if self.tiles_up().has(cell) {
            return Err(format!("{name} holds a tile"));
        }
        Ok(())
    }

    fn check_tile(&self, seat: usize, color: usize, cell: usize) -> Result<(), String> {
        let name = cell_name(cell);
        if self.hands[seat][color] == 0 {
            return Err(format!("you have no {} tile in hand", COLOURS[color]));
        }
        self.check_empty(cell)?;
        let river = !self.map().land.has(cell);
        if color == BLUE && !river {
            return Err(format!(
                "{name} is not a river cell: blue tiles (farms) go on the river"
            ));
        }
        if color != BLUE && river {
            return Err(format!(
                "{name} is a river cell: only blue tiles (farms) go there"
            ));
        }
        let touching = self.realm().touching(neighbours(cell));
        if touching > 2 {
            return Err(format!(
                "a tile on {name} would join {touching} kingdoms (at most two)"
            ));
        }
        Ok(())
    }

    fn check_catastrophe(&self, seat: usize, cell: usize) -> Result<(), String> {
        let name = cell_name(cell);
        if self.catastrophes[seat] == 0 {
            return Err("you have no catastrophe tile left".into());
        }
        if let Some(fixture) = self.fixture_on(cell) {
            return Err(format!(
                "{name} {fixture}: a catastrophe goes on an empty cell or a tile"
            ));
        }
        if self.treasure.has(cell) {
            return Err(format!("{name} carries a treasure"));
        }
        if self.building_mask().has(cell) {
            return Err(format!("{name} carries a civilization building"));
        }
        Ok(())
    }

    fn check_pending_action(&self, p: &Pending, parsed: &Parsed) -> Result<(), String> {
        let action = match parsed {
            Parsed::Action(a) => Some(*a),
            Parsed::HugeCommit(_) => None,
        };
        match p.kind {
            PendingKind::Revolt | PendingKind::War => {
                let count = match (action, parsed) {
                    (Some(Action::Commit { count }), _) => Some(count),
                    (None, Parsed::HugeCommit(_)) => None,
                    _ => return Err(self.waiting_for(p)),
                };
                let options = self.commit_options(p);
                if count.is_some_and(|n| options.contains(n as usize)) {
                    return Ok(());
                }
                let color = p.commit_color();
                let have = self.hands[self.to_move()][color];
                if count.is_none_or(|n| n > have as u64) {
                    return Err(format!("you hold only {have} {} tile(s)", COLOURS[color]));
                }
                let listed: Vec<String> =
                    options.as_slice().iter().map(|n| n.to_string()).collect();
                Err(format!(
                    "commit {} is not allowed: you may commit {}",
                    count.unwrap_or(0),
                    listed.join(", ")
                ))
            }
            PendingKind::WarOrder => match action {
                Some(Action::War { color }) => {
                    if !p.colors.unwrap_or_default().contains(color) {
                        return Err(format!("there is no {} war to resolve", COLOURS[color]));
                    }
                    Ok(())
                }
                _ => Err(self.waiting_for(p)),
            },
            PendingKind::Treasure => match action {
                Some(Action::Treasure { cell }) => {
                    let cells = p.cells.unwrap_or_default();
                    if !cells.contains(cell) {
                        let names: Vec<&str> = cells
                            .as_slice()
                            .iter()
                            .map(|c| cell_name(*c as usize))
                            .collect();
                        return Err(format!("you may take a treasure on {}", names.join(", ")));
                    }
                    Ok(())
                }
                _ => Err(self.waiting_for(p)),
            },
            PendingKind::WonderPoint => match action {
                Some(Action::WonderPoint { .. }) => Ok(()),
                _ => Err(self.waiting_for(p)),
            },
            PendingKind::Monument => match action {
                Some(Action::Decline) => Ok(()),
                Some(Action::Wonder { cell }) => {
                    if !self.wonder_options().has(cell) {
                        return Err(format!(
                            "no wonder can be built centred on {}",
                            cell_name(cell)
                        ));
                    }
                    Ok(())
                }
                Some(Action::Monument { monument, cell }) => {
                    let options = self.monument_options();
                    if options
                        .as_slice()
                        .iter()
                        .any(|(m, c)| *m as usize == monument && *c as usize == cell)
                    {
                        return Ok(());
                    }
                    Err(self.why_no_monument(monument, cell))
                }
                _ => Err(self.waiting_for(p)),
            },
            PendingKind::Building => match action {
                Some(Action::Decline) => Ok(()),
                Some(Action::Building { cell }) => {
                    if !self.building_options().has(cell) {
                        return Err(format!("the building cannot go on {}", cell_name(cell)));
                    }
                    Ok(())
                }
                _ => Err(self.waiting_for(p)),
            },
        }
    }

    fn waiting_for(&self, p: &Pending) -> String {
        let who = self.name(self.to_move());
        let what = match p.kind {
            PendingKind::Revolt | PendingKind::War => {
                return format!(
                    "{who} must commit {} tiles first (e.g. 'commit 0')",
                    COLOURS[p.commit_color()]
                )
            }
            PendingKind::WarOrder => "choose which war to resolve (e.g. 'war red')",
            PendingKind::Monument => "build a monument (or the wonder) or 'decline'",
            PendingKind::Treasure => "take a treasure (e.g. 'treasure K1')",
            PendingKind::Building => "place the building or 'decline'",
            PendingKind::WonderPoint => "choose the colour of the wonder's point",
        };
        format!("{who} must first {what}")
    }

    // --- turn actions

    fn apply_turn_action<S: Sink>(&mut self, action: Action, ev: &mut S) {
        let seat = self.active;
        match action {
            Action::Pass => {
                if S::ON {
                    ev.push(Event::Pass { seat });
                }
                self.actions_left = 0;
                self.end_turn(ev);
                return;
            }
            Action::Leader { role, cell } => {
                self.place_leader(seat, role, cell, ev);
                return;
            }
            Action::Withdraw { role } => {
                let cell = self.leader_cell[4 * seat + role] as usize;
                self.take_leader(4 * seat + role);
                if S::ON {
                    ev.push(Event::Withdraw { seat, role, cell });
                }
            }
            Action::Tile { color, cell } => {
                let touching = self.realm().touching(neighbours(cell));
                self.place_tile(seat, color, cell, touching, ev);
                return;
            }
            Action::Catastrophe { cell } => self.place_catastrophe(seat, cell, ev),
            Action::Swap { counts } => {
                for color in 0..4 {
                    self.hands[seat][color] -= counts[color];
                    self.discards[seat][color] += counts[color] as u32;
                }
                let count: usize = counts.iter().map(|c| *c as usize).sum();
                let drawn = self.draw(seat, count);
                if S::ON {
                    ev.push(Event::Swap {
                        seat,
                        count: count as u32,
                        drawn: drawn as u32,
                    });
                }
            }
            _ => unreachable!("checked: a turn action"),
        }
        self.treasure_step(ev);
    }

    fn place_leader<S: Sink>(&mut self, seat: usize, color: usize, cell: usize, ev: &mut S) {
        let index = 4 * seat + color;
        let moved_from = opt(self.leader_cell[index]);
        if moved_from.is_some() {
            self.take_leader(index);
        }
        self.put_leader(index, cell);
        if S::ON {
            ev.push(Event::Leader {
                seat,
                role: color,
                cell,
                moved_from,
            });
        }
        let kingdom = self.region_of(cell);
        for other in 0..self.n {
            let other_cell = self.leader_cell[4 * other + color];
            if other != seat && other_cell != NONE && kingdom.has(other_cell as usize) {
                self.pending = Some(Pending::conflict(PendingKind::Revolt, color, seat, other));
                if S::ON {
                    ev.push(Event::Revolt {
                        attacker: seat,
                        defender: other,
                        role: color,
                        defender_cell: other_cell as usize,
                    });
                }
                return;
            }
        }
        self.treasure_step(ev);
    }

    /// Place a tile on `cell`, next to `touching` kingdoms (counted before it lands).
    fn place_tile<S: Sink>(
        &mut self,
        seat: usize,
        color: usize,
        cell: usize,
        touching: usize,
        ev: &mut S,
    ) {
        self.hands[seat][color] -= 1;
        self.up[color].set(cell);
        self.placed = cell as u8;
        if S::ON {
            ev.push(Event::Tile { seat, color, cell });
        }
        if touching == 2 {
            self.unification = cell as u8;
            let kingdom = self.region_of(cell);
            let mut wars = [0u8; 4];
            let mut n = 0;
            for c in 0..4 {
                if self.war_pair(c, kingdom).is_some() {
                    wars[n] = c as u8;
                    n += 1;
                }
            }
            if S::ON {
                ev.push(Event::Unification {
                    cell,
                    wars: wars[..n].iter().map(|c| *c as usize).collect(),
                });
            }
            self.next_war(List::new(&wars[..n]).expect("four colours fit"), ev);
            return;
        }
        if touching == 1 {
            let kingdom = self.region_of(cell);
            let mut owner = self.owner_in(kingdom, color);
            let mut by_king = false;
            if owner.is_none() {
                owner = self.owner_in(kingdom, BLACK);
                by_king = true;
            }
            if let Some(owner) = owner {
                let building = self.buildings[color];
                let amount = if building != NONE && kingdom.has(building as usize) {
                    2
                } else {
                    1
                };
                let why = Why::Tile {
                    color,
                    cell,
                    by_king,
                };
                self.score(owner, color, amount, why, ev);
            }
        }
        self.after_conflicts(ev);
    }

    fn place_catastrophe<S: Sink>(&mut self, seat: usize, cell: usize, ev: &mut S) {
        let mut destroyed = None;
        for color in 0..4 {
            if self.up[color].has(cell) {
                self.up[color].clear(cell);
                self.removed[color] += 1;
                destroyed = Some(color);
            }
        }
        self.cata.set(cell);
        self.catastrophes[seat] -= 1;
        if S::ON {
            ev.push(Event::Catastrophe {
                seat,
                cell,
                destroyed,
            });
        }
        self.return_stranded_leaders(ev);
    }

    // --- conflicts

    /// Start the next war among `colors` (asking for the order if needed) or finish.
    fn next_war<S: Sink>(&mut self, colors: List, ev: &mut S) {
        let mut colors = colors;
        if self.unification != NONE {
            let kingdom = self.region_of(self.unification as usize);
            let kept: Vec<u8> = colors
                .as_slice()
                .iter()
                .copied()
                .filter(|c| self.war_pair(*c as usize, kingdom).is_some())
                .collect();
            colors = List::new(&kept).expect("a sub-list fits");
        }
        let list = colors.as_slice();
        if list.len() > 1 {
            let mut p = Pending::bare(PendingKind::WarOrder);
            p.colors = Some(colors);
            p.note(Key::Colors);
            self.pending = Some(p);
            return;
        }
        if let Some(first) = list.first() {
            self.start_war(*first as usize, List::default(), ev);
            return;
        }
        if S::ON && self.unification != NONE {
            ev.push(Event::UnificationRemoved {
                cell: self.unification as usize,
            });
        }
        self.unification = NONE;
        self.pending = None;
        self.after_conflicts(ev);
    }

    fn start_war<S: Sink>(&mut self, color: usize, queue: List, ev: &mut S) {
        let kingdom = self.region_of(self.unification as usize);
        // a position can ask for a war that is not there; the reference fails an assertion
        let (a, b) = self.war_pair(color, kingdom).unwrap_or((0, 1 % self.n));
        let active = self.active;
        let attacker = if active == a || active == b {
            active
        } else if (a + self.n - active) % self.n <= (b + self.n - active) % self.n {
            a
        } else {
            b
        };
        let defender = if b == attacker { a } else { b };
        let mut p = Pending::conflict(PendingKind::War, color, attacker, defender);
        p.queue = Some(queue);
        p.note(Key::Queue);
        self.pending = Some(p);
        if S::ON {
            ev.push(Event::War {
                color,
                attacker,
                defender,
            });
        }
    }

    /// The part of the joined kingdom connected to `cell` without the unification tile.
    fn side(&self, cell: usize) -> Bb {
        let mut within = self.connectors();
        if self.unification != NONE {
            within.clear(self.unification as usize);
        }
        Bb::flood(Bb::cell(cell), within)
    }

    /// Strength before commitments: temples next to the leader (revolt) or supporters (war).
    pub fn base_strength(&self, p: &Pending, seat: usize) -> u32 {
        let cell = self.leader_cell[4 * seat + p.color()];
        if cell == NONE {
            return 0;
        }
        if p.kind == PendingKind::Revolt {
            return self.adjacent_temples(cell as usize);
        }
        (self.side(cell as usize) & self.up[p.color()]).count()
    }

    fn commit_options(&self, p: &Pending) -> List {
        let have = self.hands[self.to_move()][p.commit_color()] as u32;
        let mut out = [0u8; 8];
        let mut n = 0;
        if !self.options.english {
            for k in 0..=have {
                out[n] = k as u8;
                n += 1;
            }
            return List::new(&out[..n]).expect("seven fit");
        }
        let attack = self.base_strength(p, p.attacker());
        let defence = self.base_strength(p, p.defender());
        out[0] = 0;
        n = 1;
        match p.attacker_commit.flatten() {
            None => {
                for k in 1..=have {
                    if attack + k > defence {
                        out[n] = k as u8;
                        n += 1;
                    }
                }
            }
            Some(committed) => {
                let need = attack as i64 + committed as i64 - defence as i64;
                if 1 <= need && need <= have as i64 {
                    out[n] = need as u8;
                    n += 1;
                }
            }
        }
        List::new(&out[..n]).expect("seven fit")
    }

    fn apply_pending_action<S: Sink>(&mut self, p: Pending, action: Action, ev: &mut S) {
        match (p.kind, action) {
            (PendingKind::Revolt | PendingKind::War, Action::Commit { count }) => {
                let seat = self.to_move();
                let color = p.commit_color();
                self.hands[seat][color] -= count as u8;
                self.removed[color] += count as u32;
                if S::ON {
                    ev.push(Event::Commit {
                        seat,
                        count: count as u32,
                        color,
                    });
                }
                if p.attacker_commit.flatten().is_none() {
                    let mut next = p;
                    next.attacker_commit = Some(Some(count as u8));
                    next.note(Key::AttackerCommit);
                    self.pending = Some(next);
                } else if p.kind == PendingKind::Revolt {
                    self.resolve_revolt(&p, count as u32, ev);
                } else {
                    self.resolve_war(&p, count as u32, ev);
                }
            }
            (PendingKind::WarOrder, Action::War { color }) => {
                let rest: Vec<u8> = p
                    .colors
                    .unwrap_or_default()
                    .as_slice()
                    .iter()
                    .copied()
                    .filter(|c| *c as usize != color)
                    .collect();
                self.start_war(color, List::new(&rest).expect("a sub-list fits"), ev);
            }
            (PendingKind::Monument, _) => {
                self.pending = None;
                match action {
                    Action::Monument { monument, cell } => self.build_monument(monument, cell, ev),
                    Action::Wonder { cell } => self.build_wonder(cell, ev),
                    _ => {
                        if S::ON {
                            ev.push(Event::Decline { seat: self.active });
                        }
                    }
                }
                self.treasure_step(ev);
            }
            (PendingKind::Treasure, Action::Treasure { cell }) => {
                self.take_treasure(p.seat.unwrap_or(0) as usize, cell, ev);
                self.pending = None;
                self.treasure_step(ev);
            }
            (PendingKind::Building, _) => {
                self.pending = None;
                if let Action::Building { cell } = action {
                    self.put_building(cell, ev);
                } else if S::ON {
                    ev.push(Event::Decline { seat: self.active });
                }
                self.monument_step(ev);
            }
            (PendingKind::WonderPoint, Action::WonderPoint { color }) => {
                self.pending = None;
                self.score(self.active, color, 1, Why::Wonder, ev);
                self.finish_turn(ev);
            }
            _ => unreachable!("checked: an action of the pending decision"),
        }
    }

    fn resolve_revolt<S: Sink>(&mut self, p: &Pending, defender_commit: u32, ev: &mut S) {
        let (attacker, defender, color) = (p.attacker(), p.defender(), p.color());
        let committed = p.attacker_commit.flatten().unwrap_or(0) as u32;
        let attack = self.base_strength(p, attacker) + committed;
        let defence = self.base_strength(p, defender) + defender_commit;
        let (winner, loser) = if attack > defence {
            (attacker, defender)
        } else {
            (defender, attacker)
        };
        let lost_cell = self.leader_cell[4 * loser + color] as usize;
        self.take_leader(4 * loser + color);
        self.pending = None;
        if S::ON {
            ev.push(Event::RevoltResult {
                winner,
                loser,
                attack,
                defence,
                role: color,
                cell: lost_cell,
            });
        }
        self.score(winner, RED, 1, Why::RevoltWon, ev);
        self.treasure_step(ev);
    }

    fn resolve_war<S: Sink>(&mut self, p: &Pending, defender_commit: u32, ev: &mut S) {
        let (attacker, defender, color) = (p.attacker(), p.defender(), p.color());
        let committed = p.attacker_commit.flatten().unwrap_or(0) as u32;
        let attack = self.base_strength(p, attacker) + committed;
        let defence = self.base_strength(p, defender) + defender_commit;
        let (winner, loser) = if attack > defence {
            (attacker, defender)
        } else {
            (defender, attacker)
        };
        let loser_index = 4 * loser + color;
        let side = match opt(self.leader_cell[loser_index]) {
            Some(cell) => self.side(cell),
            None => Bb::EMPTY,
        };
        self.take_leader(loser_index);
        let mut doomed = (side & self.up[color]).minus(self.building_mask());
        if color == RED {
            let mut others = Bb::EMPTY;
            for c in &self.leader_cell[..4 * self.n] {
                if *c != NONE {
                    others |= neighbours(*c as usize);
                }
            }
            doomed = doomed.minus(self.treasure).minus(others);
        }
        let count = doomed.count();
        self.up[color] = self.up[color].minus(doomed);
        self.removed[color] += count;
        self.pending = None;
        if S::ON {
            ev.push(Event::WarResult {
                winner,
                loser,
                attack,
                defence,
                color,
                removed: doomed.iter().collect(),
            });
        }
        self.score(winner, color, 1 + count, Why::WarWon { color }, ev);
        self.return_stranded_leaders(ev);
        self.next_war(p.queue.unwrap_or_default(), ev);
    }

    // --- after conflicts: building, monument / wonder, treasures

    fn after_conflicts<S: Sink>(&mut self, ev: &mut S) {
        if self.options.buildings && self.building_options().any() {
            self.pending = Some(Pending::bare(PendingKind::Building));
            return;
        }
        self.monument_step(ev);
    }

    /// The unbroken line of `tiles` through `cell`, across (`vertical` false) or down.
    fn line(cell: usize, tiles: Bb, vertical: bool) -> Bb {
        let mut line = Bb::cell(cell);
        let (row, step) = (cell / COLUMNS, if vertical { COLUMNS } else { 1 });
        let mut other = cell;
        while other >= step {
            other -= step;
            if (!vertical && other / COLUMNS != row) || !tiles.has(other) {
                break;
            }
            line.set(other);
        }
        let mut other = cell + step;
        while other < CELLS && (vertical || other / COLUMNS == row) && tiles.has(other) {
            line.set(other);
            other += step;
        }
        line
    }

    /// Tiles of a 3+ line through the placed tile where its colour's building may go.
    fn building_options(&self) -> Bb {
        let Some(cell) = opt(self.placed) else {
            return Bb::EMPTY;
        };
        if !self.options.buildings {
            return Bb::EMPTY;
        }
        let Some(color) = self.color_on(cell) else {
            return Bb::EMPTY;
        };
        let tiles = self.up[color];
        let current = opt(self.buildings[color]);
        // a building moves only to a longer line than where it stands
        let beat = match current {
            Some(at) => State::line(at, tiles, false)
                .count()
                .max(State::line(at, tiles, true).count()),
            None => 0,
        };
        let mut out = Bb::EMPTY;
        for vertical in [false, true] {
            let line = State::line(cell, tiles, vertical);
            let length = line.count();
            if length >= 3 && length > beat {
                out |= line;
            }
        }
        if let Some(at) = current {
            out.clear(at);
        }
        out
    }

    fn put_building<S: Sink>(&mut self, cell: usize, ev: &mut S) {
        let color = self.color_on(cell).expect("checked: a tile");
        let moved = self.buildings[color] != NONE;
        self.buildings[color] = cell as u8;
        if S::ON {
            ev.push(Event::Building {
                seat: self.active,
                color,
                cell,
                moved,
            });
        }
    }

    /// Centres of plus-shaped crosses of 5 face-up tiles of one colour the placed tile
    /// completes.
    fn wonder_options(&self) -> Bb {
        let Some(cell) = opt(self.placed) else {
            return Bb::EMPTY;
        };
        if !self.options.wonder || self.wonder != NONE {
            return Bb::EMPTY;
        }
        let Some(color) = self.color_on(cell) else {
            return Bb::EMPTY;
        };
        let tiles = self.up[color];
        let mut out = Bb::EMPTY;
        for centre in (neighbours(cell) | Bb::cell(cell)).iter() {
            let plus = plus_mask(centre);
            if plus.any() && tiles.contains(plus) {
                out.set(centre);
            }
        }
        out
    }

    fn build_wonder<S: Sink>(&mut self, centre: usize, ev: &mut S) {
        let plus = plus_mask(centre);
        let color = (0..4)
            .find(|c| self.up[*c].contains(plus))
            .expect("checked: a cross");
        self.up[color] = self.up[color].minus(plus);
        self.removed[color] += 5;
        self.wonder = centre as u8; // the wonder covers the same cells: connectivity holds
        for b in self.buildings.iter_mut() {
            if *b != NONE && plus.has(*b as usize) {
                *b = NONE;
            }
        }
        if S::ON {
            ev.push(Event::Wonder {
                seat: self.active,
                cell: centre,
                color,
            });
        }
        self.return_stranded_leaders(ev);
    }

    /// (monument, top-left) pairs the placed tile completes, top-left ascending.
    fn monument_options(&self) -> MonumentChoices {
        let mut out = MonumentChoices::default();
        let Some(cell) = opt(self.placed) else {
            return out;
        };
        for color in 0..4 {
            let tiles = self.up[color];
            // a square through the cell holds two of its orthogonal neighbours
            if !tiles.has(cell) || (neighbours(cell) & tiles).count() < 2 {
                continue;
            }
            for top_left in squares_of(cell) {
                let square = square_mask(top_left);
                if tiles.contains(square) {
                    for (m, pair) in MONUMENTS.iter().enumerate() {
                        if (pair.0 == color || pair.1 == color) && !self.monument_built(m) {
                            out.push(m as u8, top_left as u8);
                        }
                    }
                }
            }
        }
        out
    }

    fn why_no_monument(&self, monument: usize, cell: usize) -> String {
        if self.monument_built(monument) {
            return format!("the {} monument is already built", MONUMENT_NAMES[monument]);
        }
        format!(
            "{} cannot be built with its top-left corner on {}",
            MONUMENT_NAMES[monument],
            cell_name(cell)
        )
    }

    fn monument_step<S: Sink>(&mut self, ev: &mut S) {
        if self.placed != NONE
            && (!self.monument_options().is_empty() || self.wonder_options().any())
        {
            self.pending = Some(Pending::bare(PendingKind::Monument));
            return;
        }
        self.treasure_step(ev);
    }

    fn build_monument<S: Sink>(&mut self, monument: usize, top_left: usize, ev: &mut S) {
        let square = square_mask(top_left);
        let (a, b) = MONUMENTS[monument];
        let color = if self.up[a].contains(square) { a } else { b };
        self.up[color] = self.up[color].minus(square);
        self.down[color] |= square;
        self.monuments[self.nmonuments] = (monument as u8, top_left as u8);
        self.nmonuments += 1;
        for bld in self.buildings.iter_mut() {
            if *bld != NONE && square.has(*bld as usize) {
                *bld = NONE;
            }
        }
        if S::ON {
            ev.push(Event::Monument {
                seat: self.active,
                monument,
                cell: top_left,
            });
        }
        self.return_stranded_leaders(ev);
    }

    /// Traders collect all but one treasure of their kingdom; specials first.
    fn treasure_step<S: Sink>(&mut self, ev: &mut S) {
        let special = self.map().special;
        'again: loop {
            // only kingdoms with a trader and two treasures matter: the kingdoms of the
            // traders, taken in the reference's order (by their lowest cell); of the kept
            // kingdoms, only those made or changed since the check last found none
            if self.treasure.at_least_two() {
                self.refresh_realm();
                if self.realm.valid && !self.realm.fresh.any() {
                    break; // no kingdom made or changed since the check last found none
                }
                let flooded;
                let (kingdoms, fresh) = if self.realm.valid {
                    (self.realm.kingdoms(), self.realm.fresh)
                } else {
                    // more kingdoms than the realm keeps: all of them checked
                    flooded = self.kingdoms();
                    (flooded.as_slice(), Bb::FULL)
                };
                let mut traders = Bb::EMPTY;
                for seat in 0..self.n {
                    if let Some(cell) = opt(self.leader_cell[4 * seat + GREEN]) {
                        traders.set(cell);
                    }
                }
                // most often no trader's kingdom holds two treasures: nothing to order
                let mut found = Regions::new();
                for k in kingdoms {
                    if k.meets(fresh) && k.meets(traders) && (*k & self.treasure).at_least_two() {
                        found.push(*k);
                    }
                }
                if found.len == 0 {
                    self.realm.fresh = Bb::EMPTY;
                    break;
                }
                let list = &mut found.items[..found.len];
                list.sort_unstable_by_key(|k| k.first());
                for kingdom in list.iter() {
                    let here = *kingdom & self.treasure;
                    let total = here.count();
                    if total < 2 {
                        continue;
                    }
                    let Some(owner) = self.owner_in(*kingdom, GREEN) else {
                        continue;
                    };
                    let specials = here & special;
                    let (candidates, picks) = if specials.any() {
                        (specials, specials.count().min(total - 1))
                    } else {
                        (here, total - 1)
                    };
                    if picks == candidates.count() {
                        for cell in candidates.iter() {
                            self.take_treasure(owner, cell, ev);
                        }
                        continue 'again;
                    }
                    let cells: Vec<u8> = candidates.iter().map(|c| c as u8).collect();
                    let mut p = Pending::bare(PendingKind::Treasure);
                    p.seat = Some(owner as u8);
                    p.cells = Some(List::new(&cells).expect("at most 16 treasures"));
                    p.note(Key::Seat);
                    p.note(Key::Cells);
                    self.pending = Some(p);
                    return;
                }
            }
            break;
        }
        self.pending = None;
        self.end_action(ev);
    }

    fn take_treasure<S: Sink>(&mut self, seat: usize, cell: usize, ev: &mut S) {
        self.treasure.clear(cell);
        self.treasures[seat] += 1;
        if S::ON {
            ev.push(Event::Treasure { seat, cell });
        }
    }

    // --- end of action and turn

    fn end_action<S: Sink>(&mut self, ev: &mut S) {
        self.placed = NONE;
        self.actions_left -= 1;
        if self.actions_left <= 0 {
            self.end_turn(ev);
        }
    }

    fn end_turn<S: Sink>(&mut self, ev: &mut S) {
        let seat = self.active;
        self.actions_left = 0;
        for color in 0..4 {
            let Some(cell) = opt(self.leader_cell[4 * seat + color]) else {
                continue;
            };
            if self.nmonuments == 0 {
                break;
            }
            let kingdom = self.region_of(cell);
            let scores = self.monuments().iter().any(|(m, top_left)| {
                let (a, b) = MONUMENTS[*m as usize];
                (a == color || b == color) && kingdom.has(*top_left as usize)
            });
            if scores {
                self.score(seat, color, 1, Why::Monument { role: color }, ev);
            }
        }
        if self.wonder != NONE {
            if let Some(king) = opt(self.leader_cell[4 * seat + BLACK]) {
                if self.region_of(king).has(self.wonder as usize) {
                    self.pending = Some(Pending::bare(PendingKind::WonderPoint));
                    return;
                }
            }
        }
        self.finish_turn(ev);
    }

    fn finish_turn<S: Sink>(&mut self, ev: &mut S) {
        let seat = self.active;
        for offset in 0..self.n {
            let other = (seat + offset) % self.n;
            let held: usize = self.hands[other].iter().map(|c| *c as usize).sum();
            if held < HAND_SIZE {
                self.draw(other, HAND_SIZE - held);
            }
        }
        if self.ending || self.treasure.count() <= 2 {
            self.over = true;
            self.pending = None;
            if S::ON {
                ev.push(Event::GameOver {
                    bag_empty: self.ending,
                });
            }
            return;
        }
        self.active = (seat + 1) % self.n;
        self.actions_left = 2;
        if S::ON {
            ev.push(Event::Turn { seat: self.active });
        }
    }

    // ------------------------------------------------------------------ results

    /// Points per colour once treasures are assigned to lift the lowest colours.
    pub fn final_points(&self, seat: usize) -> [u32; 4] {
        let mut points = self.points[seat];
        for _ in 0..self.treasures[seat] {
            let low = (0..4)
                .min_by_key(|c| (points[*c], *c))
                .expect("four colours");
            points[low] += 1;
        }
        points
    }

    /// Per seat: points, treasures, score (lowest colour) and place (1 = winner).
    pub fn result(&self) -> Vec<SeatResult> {
        let keys: Vec<[u32; 4]> = (0..self.n)
            .map(|seat| {
                let mut k = self.final_points(seat);
                k.sort_unstable();
                k
            })
            .collect();
        (0..self.n)
            .map(|seat| {
                let final_points = self.final_points(seat);
                let better = keys.iter().filter(|k| **k > keys[seat]).count();
                SeatResult {
                    seat,
                    points: self.points[seat],
                    treasures: self.treasures[seat],
                    final_points,
                    score: *final_points.iter().min().expect("four colours"),
                    place: better + 1,
                }
            })
            .collect()
    }

    // ------------------------------------------------------------------ hidden information

    /// The tiles `seat` cannot tell apart, in the reference's order before its shuffle: the
    /// other seats' hands and discards (colour by colour), then the bag.
    pub fn hidden_pool(&self, seat: i64) -> Vec<u8> {
        let mut pool = Vec::with_capacity(Bag::CAPACITY);
        for other in 0..self.n {
            if other as i64 == seat {
                continue;
            }
            for color in 0..4 {
                let count = self.hands[other][color] as u32 + self.discards[other][color];
                pool.extend(std::iter::repeat_n(color as u8, count as usize));
            }
        }
        pool.extend_from_slice(self.bag.as_slice());
        pool
    }

    /// A copy where the other seats' hands and discards and then the bag are dealt from
    /// `pool` (the shuffled [`State::hidden_pool`]), each keeping its size.
    pub fn deal_hidden(&self, seat: i64, pool: &[u8]) -> State {
        let mut s = self.clone();
        let mut at = 0;
        for other in 0..self.n {
            if other as i64 == seat {
                continue;
            }
            let size: usize = self.hands[other].iter().map(|c| *c as usize).sum();
            let mut counts = [0u8; 4];
            for c in &pool[at..at + size] {
                counts[*c as usize] += 1;
            }
            s.hands[other] = counts;
            at += size;
            let size: usize = self.discards[other].iter().map(|c| *c as usize).sum();
            let mut counts = [0u32; 4];
            for c in &pool[at..at + size] {
                counts[*c as usize] += 1;
            }
            s.discards[other] = counts;
            at += size;
        }
        s.bag = Bag::new(&pool[at..]).expect("the pool came from this state");
        s
    }

    /// A copy with these hands (counts per seat) and this bag (drawn from its end): only
    /// hidden tiles may move. Err(reason) otherwise.
    pub fn with_hidden(&self, hands: &[[u32; 4]], bag: &[u8]) -> Result<State, String> {
        let mut total = [0i64; 4];
        for seat in 0..self.n {
            let want: u32 = hands[seat].iter().sum();
            let held: u32 = self.hands[seat].iter().map(|c| *c as u32).sum();
            if want != held {
                return Err(format!("seat {seat} holds {held} tiles, not {want}"));
            }
            for color in 0..4 {
                total[color] += hands[seat][color] as i64 - self.hands[seat][color] as i64;
            }
        }
        for c in self.bag.as_slice() {
            total[*c as usize] -= 1;
        }
        for c in bag {
            total[*c as usize] += 1;
        }
        if total.iter().any(|t| *t != 0) {
            return Err("the hands and the bag must hold exactly the hidden tiles".into());
        }
        let mut s = self.clone();
        for seat in 0..self.n {
            for color in 0..4 {
                s.hands[seat][color] = hands[seat][color] as u8;
            }
        }
        s.bag = Bag::new(bag).expect("as many tiles as the bag held");
        Ok(s)
    }

    /// Make the bag's next draws `front` (first drawn first); the other tiles keep their
    /// order. False, and no change, when the bag does not hold them.
    pub fn order_pile(&mut self, front: &[u8]) -> bool {
        let mut bag: Vec<u8> = self.bag.as_slice().to_vec();
        for color in front {
            // tiles of one colour are alike: the first copy will do, as list.remove takes
            let Some(at) = bag.iter().position(|c| c == color) else {
                return false;
            };
            bag.remove(at);
        }
        bag.extend(front.iter().rev());
        self.bag = Bag::new(&bag).expect("the same tiles");
        true
    }

    /// Sanity of a state built from parts (a position): values the rules index by stay in
    /// range, so no later call can panic.
    pub fn check_ranges(&self) -> Result<(), String> {
        let n = self.n;
        if !(2..=4).contains(&n) || self.active >= n {
            return Err("seats out of range".into());
        }
        let cell_ok = |c: u8| c == NONE || (c as usize) < CELLS;
        if !self.leader_cell.iter().all(|c| cell_ok(*c))
            || !self.buildings.iter().all(|c| cell_ok(*c))
            || !cell_ok(self.wonder)
            || !cell_ok(self.placed)
            || !cell_ok(self.unification)
        {
            return Err("a cell out of range".into());
        }
        if self.hands[..n]
            .iter()
            .any(|h| h.iter().map(|c| *c as usize).sum::<usize>() > HAND_SIZE)
        {
            return Err("a hand of more than six tiles".into());
        }
        if let Some(p) = &self.pending {
            let seat_ok = |s: Option<u8>| s.is_none_or(|s| (s as usize) < n);
            let color_ok = |c: Option<u8>| c.is_none_or(|c| c < 4);
            let colors_ok = |l: Option<List>| l.is_none_or(|l| l.as_slice().iter().all(|c| *c < 4));
            let cells_ok = |l: Option<List>| {
                l.is_none_or(|l| l.as_slice().iter().all(|c| (*c as usize) < CELLS))
            };
            if !seat_ok(p.attacker)
                || !seat_ok(p.defender)
                || !seat_ok(p.seat)
                || !color_ok(p.color)
                || !colors_ok(p.colors)
                || !colors_ok(p.queue)
                || !cells_ok(p.cells)
            {
                return Err("a pending decision out of range".into());
            }
            if matches!(p.kind, PendingKind::Revolt | PendingKind::War) {
                let c = p.color();
                let ok = [p.attacker(), p.defender()]
                    .iter()
                    .all(|s| self.leader_cell[4 * s + c] != NONE);
                if !ok || p.attacker.is_none() || p.defender.is_none() || p.color.is_none() {
                    return Err("a conflict needs both leaders on the board".into());
                }
            }
        }
        Ok(())
    }
}

/// The monuments a placed tile offers: (monument, top-left cell) pairs.
#[derive(Clone, Copy, Default)]
pub struct MonumentChoices {
    items: [(u8, u8); 24],
    len: usize,
}

impl MonumentChoices {
    fn push(&mut self, m: u8, cell: u8) {
        self.items[self.len] = (m, cell);
        self.len += 1;
    }

    pub fn as_slice(&self) -> &[(u8, u8)] {
        &self.items[..self.len]
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod realm_tests {
    use super::*;
    use crate::splitmix::SplitMix64;
    use crate::tigris::events::NoEvents;
    use crate::tigris::playout::fresh_game;

    /// The ``game``-th of a run of random games: 2 to 4 players in turn, buildings in every
    /// other game, the wonder in every third.
    pub(super) fn varied_game(game: usize, rng: &mut SplitMix64) -> State {
        let options = Options {
            buildings: game % 2 == 1,
            wonder: game % 3 == 2,
            ..Options::default()
        };
        fresh_game(2 + game % 3, options, rng)
    }

    fn sorted(regions: &[Bb]) -> Vec<[u64; 3]> {
        let mut out: Vec<[u64; 3]> = regions.iter().map(|k| k.0).collect();
        out.sort_unstable();
        out
    }

    /// After every action of random games (2 to 4 players, with buildings and the wonder),
    /// the kept kingdoms describe the board and equal the kingdoms flooded from scratch.
    #[test]
    fn the_kept_kingdoms_follow_every_action() {
        let mut rng = SplitMix64::new(58);
        let mut updates = 0;
        for game in 0..120 {
            let mut s = varied_game(game, &mut rng);
            while !s.over {
                let moves = s.moves();
                let id = moves.nth(rng.below(moves.count()));
                s.apply_move(&moves, id, &mut NoEvents);
                if s.kingdoms().as_slice().len() > Realm::KEPT {
                    assert!(!s.realm.valid, "game {game}");
                    continue;
                }
                assert!(s.realm.describes(s.connectors(), s.leaders), "game {game}");
                assert_eq!(
                    sorted(s.realm.kingdoms()),
                    sorted(s.kingdoms().as_slice()),
                    "game {game}"
                );
                updates += 1;
            }
        }
        assert!(updates > 10_000);
    }

    /// At every ply of random games (2 to 4 players, buildings and the wonder on and off), the
    /// action applied to the state and to a copy that forgot its kingdoms (flooded afresh,
    /// every kingdom checked for treasures) leaves the same state: the kept kingdoms and the
    /// treasure check of the fresh ones only decide as the full recomputation does.
    #[test]
    fn every_action_leaves_the_state_a_copy_without_kept_kingdoms_reaches() {
        let mut rng = SplitMix64::new(71);
        let mut treasures = 0;
        for game in 0..120 {
            let mut s = varied_game(game, &mut rng);
            while !s.over {
                let moves = s.moves();
                let id = moves.nth(rng.below(moves.count()));
                let mut flooded = s.clone();
                flooded.forget_kingdoms();
                flooded.apply_legal(id, &mut NoEvents);
                s.apply_move(&moves, id, &mut NoEvents);
                assert_eq!(s, flooded, "game {game}");
            }
            treasures += s.treasures.iter().sum::<u32>();
        }
        assert!(treasures > 200, "{treasures}");
    }

    /// `joined_around` against a flood inside the 3×3 square: every ring of every cell of a
    /// random board region (edges and corners included).
    #[test]
    fn joined_around_is_connectivity_around_the_cell() {
        let mut rng = SplitMix64::new(9);
        for _ in 0..400 {
            let mut region = Bb::EMPTY;
            for c in 0..CELLS {
                if rng.below(2) == 1 {
                    region.set(c);
                }
            }
            for cell in 0..CELLS {
                let near = region & neighbours(cell);
                let square = (region & square3(cell)).minus(Bb::cell(cell));
                let joined = match near.first() {
                    None => true,
                    Some(c) => Bb::flood(Bb::cell(c), square).contains(near),
                };
                assert_eq!(joined_around(region, cell), joined, "cell {cell}");
            }
        }
    }

    /// The 3×3 square centred on `cell` (cut at the board's edges).
    fn square3(cell: usize) -> Bb {
        let (row, col) = (cell / COLUMNS, cell % COLUMNS);
        let mut out = Bb::EMPTY;
        for r in row.saturating_sub(1)..=(row + 1).min(ROWS - 1) {
            for c in col.saturating_sub(1)..=(col + 1).min(COLUMNS - 1) {
                out.set(r * COLUMNS + c);
            }
        }
        out
    }
}

/// The legal moves as they were worked out before the realm kept its dilations and overlaps
/// (every kingdom flooded and dilated, every leader's kingdom split when lifted): the oracle
/// the kept sets are held to, at every ply of random games.
#[cfg(test)]
mod moves_oracle {
    use super::*;
    use crate::splitmix::SplitMix64;
    use crate::tigris::events::NoEvents;
    use crate::tigris::state::realm_tests::varied_game;

    fn overlaps(regions: &[Bb]) -> (Bb, Bb, Bb) {
        let (mut one, mut two, mut three) = (Bb::EMPTY, Bb::EMPTY, Bb::EMPTY);
        for k in regions {
            let d = k.dilate();
            three |= two & d;
            two |= one & d;
            one |= d;
        }
        (one, two, three)
    }

    fn move_targets(
        s: &State,
        cell: usize,
        temples_near: Bb,
        land_empty: Bb,
        kingdoms: &[Bb],
        near: (Bb, Bb, Bb),
    ) -> Bb {
        let bit = Bb::cell(cell);
        let own = kingdoms
            .iter()
            .find(|k| k.has(cell))
            .copied()
            .unwrap_or(Bb::EMPTY);
        let d = own.dilate();
        let (all_one, all_two, all_three) = near;
        let mut one = all_one.minus(d) | (all_two & d);
        let mut two = all_two.minus(d) | (all_three & d);
        let within = own.minus(bit);
        let mut rest = s.leaders.minus(bit) & within;
        while let Some(c) = rest.first() {
            let part = Bb::flood(Bb::cell(c), within);
            let d = part.dilate();
            two |= one & d;
            one |= d;
            rest = rest.minus(part);
        }
        temples_near & land_empty & !two
    }

    /// `State::turn_moves` from scratch.
    fn turn_moves(s: &State) -> TurnMoves {
        let seat = s.active;
        let connectors = s.connectors();
        let empty = !(connectors | s.cata);
        let land = s.map().land;
        let land_empty = empty & land;
        let flooded = s.kingdoms();
        let kingdoms = flooded.as_slice();
        let (one, two, three) = overlaps(kingdoms);
        let temples_near = s.up[RED].dilate();
        let mut moves = TurnMoves {
            one,
            two,
            leader: [Bb::EMPTY; 4],
            withdraw: [false; 4],
            tile: [Bb::EMPTY; 4],
            catastrophe: Bb::EMPTY,
            hand: [0; 4],
            sizes: [0; 12],
        };
        for color in 0..4 {
            let cell = s.leader_cell[4 * seat + color];
            moves.leader[color] = if cell == NONE {
                temples_near & land_empty & !two
            } else {
                moves.withdraw[color] = true;
                move_targets(
                    s,
                    cell as usize,
                    temples_near,
                    land_empty,
                    kingdoms,
                    (one, two, three),
                )
            };
        }
        let hand = s.hands[seat];
        for color in 0..4 {
            if hand[color] > 0 {
                moves.tile[color] = if color == BLUE {
                    empty.minus(land) & !three
                } else {
                    land_empty & !three
                };
            }
        }
        if s.catastrophes[seat] > 0 {
            moves.catastrophe = empty | s.tiles_up().minus(s.treasure).minus(s.building_mask());
        }
        moves.hand = hand;
        moves.counted()
    }

    fn same(a: &Moves, b: &Moves) -> bool {
        match (a, b) {
            (Moves::Turn(x), Moves::Turn(y)) => x == y,
            (Moves::Decision(x), Moves::Decision(y)) => x.as_slice() == y.as_slice(),
            _ => false,
        }
    }

    /// At every ply of random games (2 to 4 players, buildings and the wonder on and off):
    /// the moves from the kept realm, and from a copy that kept none, are the moves worked
    /// out from scratch, with the same ids, count and k-th ids; and the realm keeps the
    /// dilations and overlaps of its kingdoms.
    #[test]
    fn the_kept_moves_are_the_moves_from_scratch_at_every_ply() {
        let mut rng = SplitMix64::new(68);
        let mut turns = 0;
        let (mut ids, mut expected) = (Vec::new(), Vec::new());
        for game in 0..90 {
            let mut s = varied_game(game, &mut rng);
            while !s.over {
                let moves = s.moves();
                let oracle = match s.pending {
                    None => Moves::Turn(turn_moves(&s)),
                    Some(p) => Moves::Decision(s.pending_actions(&p)),
                };
                assert!(same(&moves, &oracle), "game {game}: {s:?}");
                let mut fresh = s.clone();
                fresh.realm = Realm::UNKNOWN;
                assert!(same(&fresh.moves(), &oracle), "game {game}");
                moves.ids(&mut ids);
                oracle.ids(&mut expected);
                assert_eq!(ids, expected);
                assert_eq!(moves.count(), ids.len());
                for _ in 0..4 {
                    let k = rng.below(ids.len());
                    assert_eq!(moves.nth(k), ids[k]);
                }
                if s.realm.valid && s.realm.describes(s.connectors(), s.leaders) {
                    let r = &s.realm;
                    for (k, d) in r.kingdoms().iter().zip(r.nears()) {
                        assert_eq!(*d, k.dilate());
                    }
                    assert_eq!((r.one, r.two, r.three), overlaps(r.kingdoms()));
                }
                if s.pending.is_none() {
                    turns += 1;
                }
                let id = moves.random(&mut rng);
                s.apply_move(&moves, id, &mut NoEvents);
            }
        }
        assert!(turns > 10_000, "{turns}");
    }
}
