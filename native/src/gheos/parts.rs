//! A state as plain parts, with regions named as the reference numbers them (`cell * 3 + k`):
//! what a position becomes when the bindings read it (`convert::read_position`), and (as bytes)
//! how a native state is pickled.

use std::sync::Arc;

use super::board::node;
use super::state::{Conflict, Few, Migration, Phase, State, War, MAX_PLAYERS};
use super::tiles::TileSet;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConflictParts {
    pub cell: u16,
    /// (colour, swords) for the colours that have a count.
    pub swords: Vec<(u8, u16)>,
    pub moved: Vec<u8>,
    /// (colour, the regions naming the parts it may go to, split)
    pub migrations: Vec<(u8, Vec<u16>, bool)>,
    /// (fighters, tied leaders); None until the migrations are settled.
    pub wars: Option<Vec<(Vec<u8>, Vec<u8>)>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parts {
    pub active: u8,
    pub phase: Phase,
    /// (cell, tile, rotation), in slot order.
    pub board: Vec<(u16, u8, u8)>,
    /// Each hand in list order.
    pub hands: Vec<Vec<u8>>,
    /// The next tile drawn last; EPOCH for an epoch tile.
    pub stack: Vec<u8>,
    pub removed: Vec<u8>,
    /// (colour, region of its marker), in the reference's dict order.
    pub civs: Vec<(u8, u16)>,
    pub held: Vec<[u8; 6]>,
    pub supply: [u8; 6],
    pub points: Vec<i64>,
    pub tokens: Vec<u8>,
    pub epochs: u8,
    pub conflict: Option<ConflictParts>,
}

impl State {
    pub fn to_parts(&self) -> Parts {
        let players = usize::from(self.players);
        let key = |n: u8| self.stats_key_of_node(usize::from(n));
        let conflict = self.conflict.as_ref().map(|c| ConflictParts {
            cell: self.board.cell[usize::from(c.slot)],
            swords: (0..6u8)
                .filter(|&colour| c.sword_mask & (1 << colour) != 0)
                .map(|colour| (colour, c.swords[usize::from(colour)]))
                .collect(),
            moved: c.moved.clone(),
            migrations: c
                .migrations
                .iter()
                .map(|m| {
                    (
                        m.colour,
                        m.options.iter().map(|&r| key(r)).collect(),
                        m.split,
                    )
                })
                .collect(),
            wars: c.wars.as_ref().map(|wars| {
                wars.iter()
                    .map(|w| (w.fighters.clone(), w.leaders.clone()))
                    .collect()
            }),
        });
        Parts {
            active: self.active,
            phase: self.phase,
            board: (0..self.board.slots())
                .map(|s| (self.board.cell[s], self.board.tile[s], self.board.rot[s]))
                .collect(),
            hands: (0..players)
                .map(|s| self.hands[s].as_slice().to_vec())
                .collect(),
            stack: self.stack.as_slice().to_vec(),
            removed: self.removed.as_slice().to_vec(),
            civs: (0..6u8)
                .filter(|&c| self.on_table(c))
                .map(|c| (c, key(self.civs[usize::from(c)])))
                .collect(),
            held: self.held[..players].to_vec(),
            supply: self.supply,
            points: self.points[..players].to_vec(),
            tokens: self.tokens[..players].to_vec(),
            epochs: self.epochs,
            conflict,
        }
    }

    /// The reference's number (`cell * 3 + k`) of a node.
    pub fn stats_key_of_node(&self, n: usize) -> u16 {
        self.board.cell[n / 3] * 3 + (n % 3) as u16
    }

    pub fn from_parts(
        tiles: Arc<TileSet>,
        names: Vec<String>,
        parts: &Parts,
    ) -> Result<State, String> {
        let players = names.len();
        if parts.hands.len() != players
            || parts.held.len() != players
            || parts.points.len() != players
            || parts.tokens.len() != players
        {
            return Err("one hand, followers, points and tokens per player".into());
        }
        let mut game = State::empty(tiles, names);
        if parts.board.is_empty() || parts.board.len() > super::board::MAX_SLOTS {
            return Err("a board of 1 to 52 tiles".into());
        }
        for &(cell, tile, rot) in &parts.board {
            if usize::from(tile) >= game.tiles.tiles.len()
                || rot > 2
                || cell as usize >= super::geometry::CELL_COUNT
            {
                return Err(format!("no tile t{tile} r{rot} on cell {cell}"));
            }
        }
        game.set_board(&parts.board);
        game.active = parts.active;
        game.phase = parts.phase;
        for (seat, hand) in parts.hands.iter().enumerate() {
            if hand.len() > 2 {
                return Err("a hand holds at most 2 tiles".into());
            }
            game.hands[seat] = Few::from_slice(hand);
        }
        if parts.stack.len() > 64 || parts.removed.len() > 52 {
            return Err("too many tiles in the stack or removed".into());
        }
        game.stack = Few::from_slice(&parts.stack);
        game.removed = Few::from_slice(&parts.removed);
        for &(colour, region) in &parts.civs {
            if colour >= 6 || game.on_table(colour) {
                return Err(format!("civilization {colour} given twice or unknown"));
            }
            game.civs[usize::from(colour)] = game.node_of_key(region)? as u8;
        }
        for seat in 0..players.min(MAX_PLAYERS) {
            game.held[seat] = parts.held[seat];
            game.points[seat] = parts.points[seat];
            game.tokens[seat] = parts.tokens[seat];
        }
        game.supply = parts.supply;
        game.epochs = parts.epochs;
        if let Some(c) = &parts.conflict {
            let slot = game
                .board
                .slot_of(c.cell)
                .ok_or("the pending cell holds no tile")?;
            let mut conflict = Conflict {
                slot: slot as u8,
                swords: [0; 6],
                sword_mask: 0,
                moved: c.moved.clone(),
                migrations: Vec::new(),
                wars: None,
            };
            for &(colour, n) in &c.swords {
                conflict.swords[usize::from(colour % 6)] = n;
                conflict.sword_mask |= 1 << (colour % 6);
            }
            for (colour, options, split) in &c.migrations {
                let options = options
                    .iter()
                    .map(|&region| Ok(game.areas.root[game.node_of_key(region)?]))
                    .collect::<Result<Vec<u8>, String>>()?;
                conflict.migrations.push(Migration {
                    colour: *colour,
                    options,
                    split: *split,
                });
            }
            conflict.wars = c.wars.as_ref().map(|wars| {
                wars.iter()
                    .map(|(fighters, leaders)| War {
                        fighters: fighters.clone(),
                        leaders: leaders.clone(),
                    })
                    .collect()
            });
            game.conflict = Some(Box::new(conflict));
        }
        Ok(game)
    }

    /// The node of the region the reference numbers `key` (`cell * 3 + k`).
    pub fn node_of_key(&self, key: u16) -> Result<usize, String> {
        let (cell, k) = (key / 3, (key % 3) as u8);
        match self.board.slot_of(cell) {
            Some(slot) if k < self.regions_at(slot) => Ok(node(slot, k)),
            _ => Err(format!("no region {key} on the board")),
        }
    }
}

// -- bytes (pickling) ------------------------------------------------------------------------

const VERSION: u8 = 1;

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn bytes(&mut self, v: &[u8]) {
        self.u16(v.len() as u16);
        self.0.extend_from_slice(v);
    }
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn u8(&mut self) -> Result<u8, String> {
        let (&first, rest) = self.0.split_first().ok_or("truncated state")?;
        self.0 = rest;
        Ok(first)
    }
    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes([self.u8()?, self.u8()?]))
    }
    fn i64(&mut self) -> Result<i64, String> {
        let mut raw = [0u8; 8];
        for b in &mut raw {
            *b = self.u8()?;
        }
        Ok(i64::from_le_bytes(raw))
    }
    fn bytes(&mut self) -> Result<Vec<u8>, String> {
        let n = usize::from(self.u16()?);
        (0..n).map(|_| self.u8()).collect()
    }
}

impl Parts {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer(Vec::with_capacity(512));
        w.u8(VERSION);
        w.u8(self.active);
        w.u8(Phase::ALL
            .iter()
            .position(|&p| p == self.phase)
            .unwrap_or(0) as u8);
        w.u16(self.board.len() as u16);
        for &(cell, tile, rot) in &self.board {
            w.u16(cell);
            w.u8(tile);
            w.u8(rot);
        }
        w.u8(self.hands.len() as u8);
        for seat in 0..self.hands.len() {
            w.bytes(&self.hands[seat]);
            w.bytes(&self.held[seat]);
            w.i64(self.points[seat]);
            w.u8(self.tokens[seat]);
        }
        w.bytes(&self.stack);
        w.bytes(&self.removed);
        w.u8(self.civs.len() as u8);
        for &(colour, region) in &self.civs {
            w.u8(colour);
            w.u16(region);
        }
        w.bytes(&self.supply);
        w.u8(self.epochs);
        match &self.conflict {
            None => w.u8(0),
            Some(c) => {
                w.u8(1);
                w.u16(c.cell);
                w.u8(c.swords.len() as u8);
                for &(colour, n) in &c.swords {
                    w.u8(colour);
                    w.u16(n);
                }
                w.bytes(&c.moved);
                w.u8(c.migrations.len() as u8);
                for (colour, options, split) in &c.migrations {
                    w.u8(*colour);
                    w.u8(u8::from(*split));
                    w.u16(options.len() as u16);
                    for &region in options {
                        w.u16(region);
                    }
                }
                match &c.wars {
                    None => w.u8(0),
                    Some(wars) => {
                        w.u8(1);
                        w.u16(wars.len() as u16);
                        for (fighters, leaders) in wars {
                            w.bytes(fighters);
                            w.bytes(leaders);
                        }
                    }
                }
            }
        }
        w.0
    }

    pub fn decode(data: &[u8]) -> Result<Parts, String> {
        let mut r = Reader(data);
        if r.u8()? != VERSION {
            return Err("a state pickled by another version of the engine".into());
        }
        let active = r.u8()?;
        let phase = *Phase::ALL.get(usize::from(r.u8()?)).ok_or("bad phase")?;
        let board = (0..r.u16()?)
            .map(|_| Ok((r.u16()?, r.u8()?, r.u8()?)))
            .collect::<Result<Vec<_>, String>>()?;
        let players = usize::from(r.u8()?);
        let (mut hands, mut held, mut points, mut tokens) = (vec![], vec![], vec![], vec![]);
        for _ in 0..players {
            hands.push(r.bytes()?);
            let row = r.bytes()?;
            held.push(<[u8; 6]>::try_from(row.as_slice()).map_err(|_| "bad followers")?);
            points.push(r.i64()?);
            tokens.push(r.u8()?);
        }
        let stack = r.bytes()?;
        let removed = r.bytes()?;
        let civs = (0..r.u8()?)
            .map(|_| Ok((r.u8()?, r.u16()?)))
            .collect::<Result<Vec<_>, String>>()?;
        let supply = <[u8; 6]>::try_from(r.bytes()?.as_slice()).map_err(|_| "bad supply")?;
        let epochs = r.u8()?;
        let conflict = if r.u8()? == 0 {
            None
        } else {
            let cell = r.u16()?;
            let swords = (0..r.u8()?)
                .map(|_| Ok((r.u8()?, r.u16()?)))
                .collect::<Result<Vec<_>, String>>()?;
            let moved = r.bytes()?;
            let mut migrations = Vec::new();
            for _ in 0..r.u8()? {
                let colour = r.u8()?;
                let split = r.u8()? != 0;
                let options = (0..r.u16()?)
                    .map(|_| r.u16())
                    .collect::<Result<Vec<_>, String>>()?;
                migrations.push((colour, options, split));
            }
            let wars = if r.u8()? == 0 {
                None
            } else {
                let mut wars = Vec::new();
                for _ in 0..r.u16()? {
                    wars.push((r.bytes()?, r.bytes()?));
                }
                Some(wars)
            };
            Some(ConflictParts {
                cell,
                swords,
                moved,
                migrations,
                wars,
            })
        };
        if !r.0.is_empty() {
            return Err("trailing bytes after the state".into());
        }
        Ok(Parts {
            active,
            phase,
            board,
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
        })
    }
}
