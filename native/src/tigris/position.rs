//! Positions: the whole state as plain values, in the shape of the reference's JSON position
//! (`cradle.tigris.position`). The bindings turn a [`Position`] into that dict and back.
//!
//! Reading here trusts the rules: the reference reader (`tigris.from_position`) has already
//! refused impossible positions with its reasons; what is checked here only keeps the engine
//! from indexing out of range.

use super::actions::{COLOURS, DYNASTIES, HAND_SIZE, ROLES};
use super::board::{neighbours, Bb, CELLS, NONE};
use super::state::{Bag, Options, Pending, State};

/// The whole state as a position holds it.
#[derive(Clone, PartialEq, Debug)]
pub struct Position {
    pub options: Options,
    /// Dynasty of each seat (index into `DYNASTIES`).
    pub players: Vec<u8>,
    pub active: usize,
    pub actions_left: i8,
    /// Occupied cells, ascending, with their content as the position writes it ("red*",
    /// "leader:archer:king", "down:blue", "wonder", "catastrophe", ...).
    pub board: Vec<(usize, String)>,
    /// (monument, top-left cell) in the order built.
    pub monuments: Vec<(usize, usize)>,
    pub hands: Vec<[u8; 4]>,
    /// First drawn first.
    pub bag: Vec<u8>,
    pub points: Vec<[u32; 4]>,
    pub treasures: Vec<u32>,
    pub catastrophes: Vec<u8>,
    pub buildings: [Option<usize>; 4],
    pub pending: Option<Pending>,
    /// The placed tile and the unification tile (written inside `pending`).
    pub placed: Option<usize>,
    pub unification: Option<usize>,
    pub discards: Vec<[u32; 4]>,
    pub removed: [u32; 4],
    pub ending: bool,
    pub over: bool,
}

fn opt(cell: u8) -> Option<usize> {
    (cell != NONE).then_some(cell as usize)
}

fn cell_or_none(cell: Option<usize>) -> u8 {
    cell.map_or(NONE, |c| c as u8)
}

/// What a position writes on `cell` (None: empty).
pub fn cell_content(s: &State, cell: usize) -> Option<String> {
    if !s.occupied().has(cell) {
        return None;
    }
    let star = if s.treasure.has(cell) { "*" } else { "" };
    if s.cata.has(cell) {
        return Some("catastrophe".into());
    }
    if s.wonder_mask().has(cell) {
        return Some(format!("wonder{star}"));
    }
    if let Some(index) = s.leader_at(cell) {
        let dynasty = DYNASTIES[s.players[index / 4] as usize];
        return Some(format!("leader:{dynasty}:{}", ROLES[index % 4]));
    }
    let mut value = String::new();
    for color in 0..4 {
        if s.up[color].has(cell) {
            value = format!("{}{star}", COLOURS[color]);
        } else if s.down[color].has(cell) {
            value = format!("down:{}{star}", COLOURS[color]);
        }
    }
    Some(value)
}

impl State {
    /// The occupied cells with their contents, ascending.
    pub fn board_cells(&self) -> Vec<(usize, String)> {
        self.occupied()
            .iter()
            .map(|c| (c, cell_content(self, c).expect("an occupied cell")))
            .collect()
    }

    pub fn to_position(&self) -> Position {
        let n = self.n;
        Position {
            options: self.options,
            players: self.players[..n].to_vec(),
            active: self.active,
            actions_left: self.actions_left,
            board: self.board_cells(),
            monuments: self
                .monuments()
                .iter()
                .map(|(m, c)| (*m as usize, *c as usize))
                .collect(),
            hands: self.hands[..n].to_vec(),
            bag: self.bag.as_slice().iter().rev().copied().collect(),
            points: self.points[..n].to_vec(),
            treasures: self.treasures[..n].to_vec(),
            catastrophes: self.catastrophes[..n].to_vec(),
            buildings: self.buildings.map(opt),
            pending: self.pending,
            placed: opt(self.placed),
            unification: opt(self.unification),
            discards: self.discards[..n].to_vec(),
            removed: self.removed,
            ending: self.ending,
            over: self.over,
        }
    }

    /// The state of a position the reference reader accepted; Err(reason) for values out of
    /// the engine's ranges.
    pub fn from_position(p: &Position) -> Result<State, String> {
        let n = p.players.len();
        if !(2..=4).contains(&n) || p.players.iter().any(|d| *d as usize >= DYNASTIES.len()) {
            return Err("2 to 4 dynasties".into());
        }
        let lists_ok = [p.hands.len(), p.points.len(), p.treasures.len()]
            .into_iter()
            .chain([p.catastrophes.len(), p.discards.len()])
            .all(|len| len == n);
        if !lists_ok {
            return Err("one entry per seat in hands, points, treasures, ...".into());
        }
        let mut s = State::blank(&p.players, p.options);
        s.active = p.active;
        s.actions_left = p.actions_left;
        let mut wonder_cells = Bb::EMPTY;
        for (cell, text) in &p.board {
            let cell = *cell;
            if cell >= CELLS {
                return Err(format!("cell {cell} is off the board"));
            }
            let (content, star) = match text.strip_suffix('*') {
                Some(rest) => (rest, true),
                None => (text.as_str(), false),
            };
            if star {
                s.treasure.set(cell);
            }
            if content == "catastrophe" {
                s.cata.set(cell);
            } else if content == "wonder" {
                wonder_cells.set(cell);
            } else if let Some(rest) = content.strip_prefix("leader:") {
                let (dynasty, role) = rest.split_once(':').ok_or("a leader:dynasty:role")?;
                let seat = p.players[..n]
                    .iter()
                    .position(|d| DYNASTIES[*d as usize] == dynasty)
                    .ok_or("a leader of a dynasty not in play")?;
                let role = ROLES
                    .iter()
                    .position(|r| *r == role)
                    .ok_or("an unknown role")?;
                s.leader_cell[4 * seat + role] = cell as u8;
                s.leaders.set(cell);
            } else if let Some(color) = content.strip_prefix("down:") {
                let color = COLOURS
                    .iter()
                    .position(|c| *c == color)
                    .ok_or("an unknown colour")?;
                s.down[color].set(cell);
            } else {
                let color = COLOURS
                    .iter()
                    .position(|c| *c == content)
                    .ok_or_else(|| format!("{text:?} is not a cell content"))?;
                s.up[color].set(cell);
            }
        }
        if let Some(centre) = wonder_cells.iter().find(|c| {
            let plus = neighbours(*c) | Bb::cell(*c);
            plus == wonder_cells
        }) {
            s.wonder = centre as u8;
        } else if wonder_cells.any() {
            return Err("the wonder must cover a plus of 5 cells".into());
        }
        if p.monuments.len() > 6 {
            return Err("at most six monuments".into());
        }
        for (m, top_left) in &p.monuments {
            if *m >= 6 || *top_left >= CELLS {
                return Err("a monument out of range".into());
            }
            s.monuments[s.nmonuments] = (*m as u8, *top_left as u8);
            s.nmonuments += 1;
        }
        for seat in 0..n {
            if p.hands[seat].iter().map(|c| *c as usize).sum::<usize>() > HAND_SIZE {
                return Err("a hand holds more than six tiles".into());
            }
        }
        s.hands[..n].copy_from_slice(&p.hands);
        if p.bag.iter().any(|c| *c >= 4) {
            return Err("a bag tile is not a colour".into());
        }
        let bag: Vec<u8> = p.bag.iter().rev().copied().collect();
        s.bag = Bag::new(&bag).ok_or("more tiles in the bag than the game has")?;
        s.points[..n].copy_from_slice(&p.points);
        s.treasures[..n].copy_from_slice(&p.treasures);
        s.catastrophes[..n].copy_from_slice(&p.catastrophes);
        s.discards[..n].copy_from_slice(&p.discards);
        s.removed = p.removed;
        for (color, cell) in p.buildings.iter().enumerate() {
            s.buildings[color] = cell_or_none(*cell);
        }
        s.pending = p.pending;
        s.placed = cell_or_none(p.placed);
        s.unification = cell_or_none(p.unification);
        s.ending = p.ending;
        s.over = p.over;
        s.check_ranges()?;
        Ok(s)
    }
}
