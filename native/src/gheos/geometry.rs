//! The triangular grid: cells, their orientation, edges and neighbours, and the cells that
//! carry action ids. The same numbering as `cradle.gheos.geometry` and `cradle.gheos.actions`:
//! a cell is an index into a fixed window around the start tile (row-major, so ordering cells
//! by index orders them by row, then column), and a region of the map is `cell * 3 + k` there.

use std::sync::OnceLock;

/// Half-sizes of the window: 52 tiles in a chain from 0,0 reach at most row ±26, column ±51.
pub const ROW_SPAN: i32 = 28;
pub const COL_SPAN: i32 = 56;
pub const WIDTH: i32 = 2 * COL_SPAN + 1;
pub const HEIGHT: i32 = 2 * ROW_SPAN + 1;
pub const CELL_COUNT: usize = (WIDTH * HEIGHT) as usize;
/// No cell (outside the window).
pub const NO_CELL: u16 = u16::MAX;
pub const START_CELL: u16 = (ROW_SPAN * WIDTH + COL_SPAN) as u16;

/// A tile lies at most this many edge crossings from the start tile: a chain of all 52.
pub const REACH: usize = 51;
/// The cells within REACH steps of the start tile: the cells of the action ids.
pub const CELLS: u32 = 3979;

pub const EDGE_NAMES_UP: [&str; 3] = ["s", "nw", "ne"];
pub const EDGE_NAMES_DOWN: [&str; 3] = ["n", "se", "sw"];

pub fn cell_index(row: i64, col: i64) -> Option<u16> {
    let (r, c) = (i64::from(ROW_SPAN), i64::from(COL_SPAN));
    if (-r..=r).contains(&row) && (-c..=c).contains(&col) {
        Some(((row + r) * i64::from(WIDTH) + (col + c)) as u16)
    } else {
        None
    }
}

pub fn row(cell: u16) -> i32 {
    i32::from(cell) / WIDTH - ROW_SPAN
}

pub fn col(cell: u16) -> i32 {
    i32::from(cell) % WIDTH - COL_SPAN
}

/// `row,col` points up when `row + col` is even.
pub fn is_up(cell: u16) -> bool {
    (row(cell) + col(cell)).rem_euclid(2) == 0
}

pub fn edge_name(cell: u16, edge: usize) -> &'static str {
    if is_up(cell) {
        EDGE_NAMES_UP[edge]
    } else {
        EDGE_NAMES_DOWN[edge]
    }
}

pub fn edge_names(cell: u16) -> &'static [&'static str; 3] {
    if is_up(cell) {
        &EDGE_NAMES_UP
    } else {
        &EDGE_NAMES_DOWN
    }
}

/// The tables built once: neighbours, names and the action cells.
pub struct Grid {
    /// Per cell, the cell across its edges 0, 1, 2 (NO_CELL outside the window). The edge two
    /// neighbours share has the same number on both sides.
    pub neighbours: Vec<[u16; 3]>,
    pub names: Vec<String>,
    /// Cell -> its position among the action cells (-1: no tile can ever lie there).
    pub position: Vec<i32>,
    /// The action cells in id order (by row, then column).
    pub action_cells: Vec<u16>,
}

pub fn grid() -> &'static Grid {
    static GRID: OnceLock<Grid> = OnceLock::new();
    GRID.get_or_init(build)
}

fn build() -> Grid {
    let mut neighbours = Vec::with_capacity(CELL_COUNT);
    let mut names = Vec::with_capacity(CELL_COUNT);
    for index in 0..CELL_COUNT {
        let cell = index as u16;
        let (r, c) = (i64::from(row(cell)), i64::from(col(cell)));
        let across = if is_up(cell) {
            [(r + 1, c), (r, c - 1), (r, c + 1)]
        } else {
            [(r - 1, c), (r, c + 1), (r, c - 1)]
        };
        neighbours.push(across.map(|(nr, nc)| cell_index(nr, nc).unwrap_or(NO_CELL)));
        names.push(format!("{r},{c}"));
    }
    let mut seen = vec![false; CELL_COUNT];
    seen[START_CELL as usize] = true;
    let mut reached = vec![START_CELL];
    let mut frontier = vec![START_CELL];
    for _ in 0..REACH {
        let mut grown = Vec::new();
        for &cell in &frontier {
            for &other in &neighbours[cell as usize] {
                if other != NO_CELL && !seen[other as usize] {
                    seen[other as usize] = true;
                    grown.push(other);
                }
            }
        }
        reached.extend_from_slice(&grown);
        frontier = grown;
    }
    reached.sort_unstable();
    let mut position = vec![-1; CELL_COUNT];
    for (i, &cell) in reached.iter().enumerate() {
        position[cell as usize] = i as i32;
    }
    Grid {
        neighbours,
        names,
        position,
        action_cells: reached,
    }
}

pub fn neighbours(cell: u16) -> [u16; 3] {
    grid().neighbours[cell as usize]
}

pub fn cell_name(cell: u16) -> &'static str {
    &grid().names[cell as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_cell_points_up_and_its_neighbours_share_edge_numbers() {
        assert_eq!(cell_name(START_CELL), "0,0");
        assert!(is_up(START_CELL));
        let below = cell_index(1, 0).unwrap();
        assert!(!is_up(below));
        assert_eq!(neighbours(START_CELL)[0], below);
        assert_eq!(neighbours(below)[0], START_CELL);
        for cell in [START_CELL, below, cell_index(-3, 7).unwrap()] {
            for edge in 0..3 {
                let other = neighbours(cell)[edge];
                assert_eq!(
                    neighbours(other)[edge],
                    cell,
                    "edge {edge} of {}",
                    cell_name(cell)
                );
            }
        }
        assert_eq!(edge_name(START_CELL, 1), "nw");
        assert_eq!(edge_name(below, 2), "sw");
    }

    #[test]
    fn action_cells_are_the_cells_within_reach() {
        let g = grid();
        assert_eq!(g.action_cells.len() as u32, CELLS);
        assert_eq!(cell_name(g.action_cells[0]), "-25,-26");
        assert_eq!(cell_name(*g.action_cells.last().unwrap()), "26,25");
        assert!(g.position[START_CELL as usize] >= 0);
        assert_eq!(g.position[cell_index(0, 52).unwrap() as usize], -1);
        assert_eq!(cell_index(29, 0), None);
    }
}
