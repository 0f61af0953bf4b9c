//! Landscape tiles as the engine uses them. The tile-set file is read and checked in Python
//! (`cradle.gheos.tiles`), which hands each tile's regions, rotation tables and texts over;
//! [`TileSet::parse`] is a plain reader of the same format for the Rust tests and tools.

pub const TILE_COUNT: usize = 52;
pub const START_TILE: u8 = 0;

/// The symbol kinds, in the order of the notation and of temples.
pub const SYMBOLS: [&str; 3] = ["wheat", "cup", "sword"];
pub const NO_TEMPLE: u8 = u8::MAX;

/// A piece of land on a tile: a landmass (2-3 edges) or a coast (1 edge).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The tile's own edges it touches, ascending.
    pub edges: Vec<u8>,
    pub wheat: u8,
    pub cup: u8,
    pub sword: u8,
    pub pyramid: u8,
    /// The symbol kind (index into SYMBOLS) of its temple, or NO_TEMPLE.
    pub temple: u8,
}

impl Region {
    pub fn landmass(&self) -> bool {
        self.edges.len() >= 2
    }

    /// How many symbols of kind `symbol` (index into SYMBOLS) it carries.
    pub fn count(&self, symbol: u8) -> u8 {
        match symbol {
            0 => self.wheat,
            1 => self.cup,
            _ => self.sword,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Tile {
    pub regions: Vec<Region>,
    /// Per rotation r: the region lying on cell edge 0, 1, 2.
    pub edge_region: [[u8; 3]; 3],
    /// The rotations that give different tiles on the table, in order.
    pub rotations: Vec<u8>,
    pub pyramid: bool,
    /// Per rotation and region: the first cell edge the region touches (how it is named).
    pub first_edge: [[u8; 3]; 3],
    /// Per rotation: how the tile groups the cell's edges (0-4), all a replacement's war or
    /// migration depends on.
    pub grouping: [u8; 3],
    /// The tile as a line of the tile file, without its number (views show it).
    pub text: String,
    /// "landmass", "landmass+coast" or "three coasts".
    pub shape: String,
}

impl Tile {
    /// A tile from its regions and the rotation tables the reference worked out.
    pub fn new(
        regions: Vec<Region>,
        edge_region: [[u8; 3]; 3],
        rotations: Vec<u8>,
        text: String,
        shape: String,
    ) -> Tile {
        let mut first_edge = [[0u8; 3]; 3];
        let mut grouping = [0u8; 3];
        for r in 0..3 {
            let layout = edge_region[r];
            for (k, first) in first_edge[r].iter_mut().enumerate() {
                *first = layout
                    .iter()
                    .position(|&x| usize::from(x) == k)
                    .unwrap_or(0) as u8;
            }
            // Regions renumbered in order of first appearance: (0,0,0), (0,0,1), (0,1,0) ...
            let mut seen: Vec<u8> = Vec::with_capacity(3);
            let key: Vec<u8> = layout
                .iter()
                .map(|&k| match seen.iter().position(|&s| s == k) {
                    Some(i) => i as u8,
                    None => {
                        seen.push(k);
                        (seen.len() - 1) as u8
                    }
                })
                .collect();
            grouping[r] = key[1] * 2 + key[2];
        }
        let pyramid = regions.iter().any(|region| region.pyramid > 0);
        Tile {
            regions,
            edge_region,
            rotations,
            pyramid,
            first_edge,
            grouping,
            text,
            shape,
        }
    }

    /// The region index lying on cell edge `edge` at `rotation`.
    pub fn region_on(&self, rotation: u8, edge: usize) -> u8 {
        self.edge_region[usize::from(rotation)][edge]
    }
}

#[derive(Clone, Debug)]
pub struct TileSet {
    pub tiles: Vec<Tile>,
}

impl TileSet {
    /// Reads the tile-set format of docs/gheos.md without checking the set's constraints
    /// (Python does that for the engine); errors name the line.
    pub fn parse(text: &str) -> Result<TileSet, String> {
        let mut found: Vec<Option<Tile>> = vec![None; TILE_COUNT];
        for (number, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut words = line.split_whitespace();
            let index: usize = words
                .next()
                .and_then(|w| w.parse().ok())
                .filter(|&n| n < TILE_COUNT)
                .ok_or(format!("line {}: no tile number", number + 1))?;
            let mut regions = Vec::new();
            for word in words {
                let (edges, items) = word.split_once(':').unwrap_or((word, ""));
                let mut region = Region {
                    edges: edges.bytes().map(|b| b - b'0').collect(),
                    wheat: 0,
                    cup: 0,
                    sword: 0,
                    pyramid: 0,
                    temple: NO_TEMPLE,
                };
                region.edges.sort_unstable();
                for item in items.split(',').filter(|s| !s.is_empty()) {
                    match item {
                        "wheat" => region.wheat += 1,
                        "cup" => region.cup += 1,
                        "sword" => region.sword += 1,
                        "pyramid" => region.pyramid += 1,
                        other => {
                            let kind = other
                                .strip_prefix("temple-")
                                .and_then(|k| SYMBOLS.iter().position(|&s| s == k))
                                .ok_or(format!("line {}: unknown item {other}", number + 1))?;
                            region.temple = kind as u8;
                        }
                    }
                }
                regions.push(region);
            }
            found[index] = Some(make_tile(regions));
        }
        let tiles = found
            .into_iter()
            .enumerate()
            .map(|(n, tile)| tile.ok_or(format!("tile {n} is missing")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TileSet { tiles })
    }
}

/// A tile with its rotation tables worked out as `cradle.gheos.tiles.make_tile` does.
fn make_tile(regions: Vec<Region>) -> Tile {
    let mut edge_region = [[0u8; 3]; 3];
    for (r, on_edge) in edge_region.iter_mut().enumerate() {
        for (index, region) in regions.iter().enumerate() {
            for &local in &region.edges {
                on_edge[(usize::from(local) + r) % 3] = index as u8;
            }
        }
    }
    // What the table sees on cell edges 0, 1, 2: which edges go together, and the contents.
    let layout = |on_edge: [u8; 3]| -> Vec<(Vec<usize>, [u8; 5])> {
        (0..3)
            .map(|edge| {
                let k = usize::from(on_edge[edge]);
                let group = (0..3).filter(|&e| on_edge[e] == on_edge[edge]).collect();
                let region = &regions[k];
                let content = [
                    region.wheat,
                    region.cup,
                    region.sword,
                    region.pyramid,
                    region.temple,
                ];
                (group, content)
            })
            .collect()
    };
    let mut seen = Vec::new();
    let mut rotations = Vec::new();
    for (r, &on_edge) in edge_region.iter().enumerate() {
        let key = layout(on_edge);
        if !seen.contains(&key) {
            seen.push(key);
            rotations.push(r as u8);
        }
    }
    let mut sizes: Vec<usize> = regions.iter().map(|region| region.edges.len()).collect();
    sizes.sort_unstable();
    let shape = match sizes.as_slice() {
        [3] => "landmass",
        [1, 2] => "landmass+coast",
        _ => "three coasts",
    };
    let text = regions
        .iter()
        .map(|region| {
            let edges: String = region.edges.iter().map(|e| char::from(b'0' + e)).collect();
            let mut items = Vec::new();
            for (symbol, n) in SYMBOLS.iter().zip([region.wheat, region.cup, region.sword]) {
                items.extend(std::iter::repeat_n(symbol.to_string(), usize::from(n)));
            }
            items.extend(std::iter::repeat_n(
                "pyramid".to_string(),
                usize::from(region.pyramid),
            ));
            if region.temple != NO_TEMPLE {
                items.push(format!("temple-{}", SYMBOLS[usize::from(region.temple)]));
            }
            if items.is_empty() {
                edges
            } else {
                format!("{edges}:{}", items.join(","))
            }
        })
        .collect::<Vec<_>>()
        .join("  ");
    Tile::new(regions, edge_region, rotations, text, shape.to_string())
}

#[cfg(test)]
pub(crate) fn packaged() -> std::sync::Arc<TileSet> {
    let text = include_str!("../../../src/cradle/gheos/data/tiles.txt");
    std::sync::Arc::new(TileSet::parse(text).expect("the packaged tile set reads"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packaged_tiles_read_with_their_rotations() {
        let set = packaged();
        assert_eq!(set.tiles.len(), TILE_COUNT);
        let start = &set.tiles[0];
        // 01:wheat,cup  2:pyramid
        assert_eq!(start.regions.len(), 2);
        assert!(start.pyramid && start.regions[0].landmass() && !start.regions[1].landmass());
        assert_eq!(start.edge_region[0], [0, 0, 1]);
        assert_eq!(start.edge_region[1], [1, 0, 0]);
        assert_eq!(start.rotations, vec![0, 1, 2]);
        assert_eq!(start.first_edge[1], [1, 0, 0]);
        // A plain landmass looks the same turned: one rotation.
        assert_eq!(set.tiles[1].rotations, vec![0]);
        assert_eq!(set.tiles[1].grouping, [0, 0, 0]);
        assert_eq!(start.shape, "landmass+coast");
    }
}
