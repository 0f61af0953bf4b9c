//! The analysis API's answers as plain values (docs/contract.md, "Analysis"): what lies on
//! each cell and the regions with their leaders, supporters, treasures and monuments, read
//! off the bitboards the state keeps. `crate::python::tigris` turns them into the reference's named tuples.

use super::board::{Bb, CELLS, NONE};
use super::state::State;

/// What lies on a cell (the reference's `Content`, with its kinds).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Content {
    Tile {
        colour: u8,
        treasure: bool,
    },
    Down {
        colour: u8,
        treasure: bool,
    },
    /// Leader `seat * 4 + colour`.
    Leader {
        index: u8,
    },
    Catastrophe,
    Wonder {
        treasure: bool,
    },
}

/// Per cell, what lies on it; later kinds cover earlier ones as in the reference (tiles,
/// face-down tiles, the wonder, catastrophes, leaders).
pub fn contents(s: &State) -> [Option<Content>; CELLS] {
    let mut out = [None; CELLS];
    let treasure = s.treasure;
    for colour in 0..4u8 {
        for c in s.up[colour as usize].iter() {
            out[c] = Some(Content::Tile {
                colour,
                treasure: treasure.has(c),
            });
        }
        for c in s.down[colour as usize].iter() {
            out[c] = Some(Content::Down {
                colour,
                treasure: treasure.has(c),
            });
        }
    }
    for c in s.wonder_mask().iter() {
        out[c] = Some(Content::Wonder {
            treasure: treasure.has(c),
        });
    }
    for c in s.cata.iter() {
        out[c] = Some(Content::Catastrophe);
    }
    for (index, &cell) in s.leader_cell.iter().enumerate() {
        if cell != NONE {
            out[cell as usize] = Some(Content::Leader { index: index as u8 });
        }
    }
    out
}

/// One region: its cells, and what the bindings list of it.
#[derive(Clone, Debug)]
pub struct RegionFacts {
    pub cells: Bb,
    /// (seat, colour, cell) of its leaders, by cell.
    pub leaders: Vec<(u8, u8, u8)>,
    /// Face-up tiles per colour.
    pub supporters: [u32; 4],
    pub treasures: Bb,
    /// (monument, top-left cell) of the monuments standing in it, by cell.
    pub monuments: Vec<(u8, u8)>,
}

/// Every region (connected cells that connect), ordered by its lowest cell.
pub fn regions(s: &State) -> Vec<RegionFacts> {
    let connectors = s.connectors();
    let mut monuments: Vec<(u8, u8)> = s.monuments().to_vec();
    monuments.sort_by_key(|&(_, cell)| cell);
    let mut out = Vec::new();
    let mut rest = connectors;
    // Flooding from the lowest cell left gives the regions by their lowest cell.
    while let Some(first) = rest.first() {
        let cells = Bb::flood(Bb::cell(first), connectors);
        rest = rest.minus(cells);
        let leaders = (cells & s.leaders)
            .iter()
            .filter_map(|c| {
                let index = s.leader_cell.iter().position(|&l| l as usize == c)?;
                Some(((index / 4) as u8, (index % 4) as u8, c as u8))
            })
            .collect();
        out.push(RegionFacts {
            cells,
            leaders,
            supporters: [0, 1, 2, 3].map(|colour| (cells & s.up[colour]).count()),
            treasures: cells & s.treasure,
            monuments: monuments
                .iter()
                .copied()
                .filter(|&(_, cell)| cells.has(cell as usize))
                .collect(),
        });
    }
    out
}

/// What the board analysis depends on: equal keys give equal `contents` and `regions`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct BoardKey {
    up: [Bb; 4],
    down: [Bb; 4],
    treasure: Bb,
    cata: Bb,
    leader_cell: [u8; 16],
    wonder: u8,
    monuments: [(u8, u8); 6],
    nmonuments: usize,
}

impl BoardKey {
    pub fn of(s: &State) -> BoardKey {
        BoardKey {
            up: s.up,
            down: s.down,
            treasure: s.treasure,
            cata: s.cata,
            leader_cell: s.leader_cell,
            wonder: s.wonder,
            monuments: s.monuments,
            nmonuments: s.nmonuments,
        }
    }
}
