//! The action notation and the fixed action ids (`cradle.tigris.actions`): the same layout, the
//! same strings, and a parser that refuses bad text with the reference's reasons.

use std::sync::OnceLock;

use super::board::{cell_name, parse_cell, CELLS};
use crate::text::py_repr;

pub const RED: usize = 0;
pub const BLUE: usize = 1;
pub const GREEN: usize = 2;
pub const BLACK: usize = 3;
pub const COLOURS: [&str; 4] = ["red", "blue", "green", "black"];
/// A leader's role is the colour it rules: priest red, farmer blue, trader green, king black.
pub const ROLES: [&str; 4] = ["priest", "farmer", "trader", "king"];
pub const DYNASTIES: [&str; 4] = ["archer", "bull", "pot", "lion"];
pub const TILE_TOTALS: [u32; 4] = [57, 36, 30, 30];
pub const HAND_SIZE: usize = 6;
pub const CATASTROPHES_PER_PLAYER: u8 = 2;
pub const MONUMENTS: [(usize, usize); 6] = [
    (RED, BLUE),
    (RED, GREEN),
    (RED, BLACK),
    (BLUE, GREEN),
    (BLUE, BLACK),
    (GREEN, BLACK),
];
pub const MONUMENT_NAMES: [&str; 6] = [
    "red-blue",
    "red-green",
    "red-black",
    "blue-green",
    "blue-black",
    "green-black",
];
const VERBS: &str = "leader, withdraw, tile, catastrophe, swap, pass, commit, war, monument, \
                     treasure, building, wonder, wonderpoint, decline";

// The id layout of `_canonical_actions`: each legal list the engine makes is ascending.
pub const LEADER_BASE: u16 = 0;
pub const WITHDRAW_BASE: u16 = LEADER_BASE + 4 * CELLS as u16;
pub const TILE_BASE: u16 = WITHDRAW_BASE + 4;
pub const CATASTROPHE_BASE: u16 = TILE_BASE + 4 * CELLS as u16;
pub const SWAP_BASE: u16 = CATASTROPHE_BASE + CELLS as u16;
/// Hands to discard: every (red, blue, green, black) count of 1 to 6 tiles, in product order.
pub const SWAPS: u16 = 209;
pub const PASS_ID: u16 = SWAP_BASE + SWAPS;
pub const COMMIT_BASE: u16 = PASS_ID + 1;
pub const WAR_BASE: u16 = COMMIT_BASE + HAND_SIZE as u16 + 1;
pub const MONUMENT_BASE: u16 = WAR_BASE + 4;
pub const WONDER_BASE: u16 = MONUMENT_BASE + 6 * CELLS as u16;
pub const TREASURE_BASE: u16 = WONDER_BASE + CELLS as u16;
pub const BUILDING_BASE: u16 = TREASURE_BASE + CELLS as u16;
pub const WONDERPOINT_BASE: u16 = BUILDING_BASE + CELLS as u16;
pub const DECLINE_ID: u16 = WONDERPOINT_BASE + 4;
/// How many action ids there are (`len(all_action_strings())`).
pub const ACTION_COUNT: u16 = DECLINE_ID + 1;

/// One action of the notation. A `Commit` above 6 tiles parses but has no id.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Action {
    Leader { role: usize, cell: usize },
    Withdraw { role: usize },
    Tile { color: usize, cell: usize },
    Catastrophe { cell: usize },
    Swap { counts: [u8; 4] },
    Pass,
    Commit { count: u64 },
    War { color: usize },
    Monument { monument: usize, cell: usize },
    Treasure { cell: usize },
    Building { cell: usize },
    Wonder { cell: usize },
    WonderPoint { color: usize },
    Decline,
}

struct SwapTable {
    counts: Vec<[u8; 4]>,
    // index by r * 343 + b * 49 + g * 7 + k (each count 0..=6); u16::MAX: not a swap
    index: Vec<u16>,
}

fn swap_table() -> &'static SwapTable {
    static TABLE: OnceLock<SwapTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut counts = Vec::new();
        let mut index = vec![u16::MAX; 7 * 7 * 7 * 7];
        for r in 0..7u8 {
            for b in 0..7u8 {
                for g in 0..7u8 {
                    for k in 0..7u8 {
                        let total = r + b + g + k;
                        if (1..=HAND_SIZE as u8).contains(&total) {
                            index[swap_key(&[r, b, g, k])] = counts.len() as u16;
                            counts.push([r, b, g, k]);
                        }
                    }
                }
            }
        }
        assert_eq!(counts.len(), SWAPS as usize);
        SwapTable { counts, index }
    })
}

#[inline]
fn swap_key(c: &[u8; 4]) -> usize {
    c[0] as usize * 343 + c[1] as usize * 49 + c[2] as usize * 7 + c[3] as usize
}

/// The id of discarding `counts` (1 to 6 tiles in all).
#[inline]
pub fn swap_id(counts: &[u8; 4]) -> u16 {
    SWAP_BASE + swap_table().index[swap_key(counts)]
}

impl Action {
    /// The fixed id (position in `all_action_strings()`), None for a commit above 6.
    pub fn id(self) -> Option<u16> {
        let c = |x: usize| x as u16;
        Some(match self {
            Action::Leader { role, cell } => LEADER_BASE + c(role) * CELLS as u16 + c(cell),
            Action::Withdraw { role } => WITHDRAW_BASE + c(role),
            Action::Tile { color, cell } => TILE_BASE + c(color) * CELLS as u16 + c(cell),
            Action::Catastrophe { cell } => CATASTROPHE_BASE + c(cell),
            Action::Swap { counts } => swap_id(&counts),
            Action::Pass => PASS_ID,
            Action::Commit { count } if count <= HAND_SIZE as u64 => COMMIT_BASE + count as u16,
            Action::Commit { .. } => return None,
            Action::War { color } => WAR_BASE + c(color),
            Action::Monument { monument, cell } => MONUMENT_BASE + c(cell) * 6 + c(monument),
            Action::Wonder { cell } => WONDER_BASE + c(cell),
            Action::Treasure { cell } => TREASURE_BASE + c(cell),
            Action::Building { cell } => BUILDING_BASE + c(cell),
            Action::WonderPoint { color } => WONDERPOINT_BASE + c(color),
            Action::Decline => DECLINE_ID,
        })
    }

    /// The action of an id; None outside `0..ACTION_COUNT`.
    pub fn from_id(id: u16) -> Option<Action> {
        let cells = CELLS as u16;
        let at = |base: u16| (id - base) as usize;
        Some(if id < WITHDRAW_BASE {
            Action::Leader {
                role: at(LEADER_BASE) / CELLS,
                cell: at(LEADER_BASE) % CELLS,
            }
        } else if id < TILE_BASE {
            Action::Withdraw {
                role: at(WITHDRAW_BASE),
            }
        } else if id < CATASTROPHE_BASE {
            Action::Tile {
                color: at(TILE_BASE) / CELLS,
                cell: at(TILE_BASE) % CELLS,
            }
        } else if id < SWAP_BASE {
            Action::Catastrophe {
                cell: at(CATASTROPHE_BASE),
            }
        } else if id < PASS_ID {
            Action::Swap {
                counts: swap_table().counts[at(SWAP_BASE)],
            }
        } else if id == PASS_ID {
            Action::Pass
        } else if id < WAR_BASE {
            Action::Commit {
                count: at(COMMIT_BASE) as u64,
            }
        } else if id < MONUMENT_BASE {
            Action::War {
                color: at(WAR_BASE),
            }
        } else if id < WONDER_BASE {
            Action::Monument {
                monument: at(MONUMENT_BASE) % 6,
                cell: at(MONUMENT_BASE) / 6,
            }
        } else if id < TREASURE_BASE {
            Action::Wonder {
                cell: at(WONDER_BASE),
            }
        } else if id < BUILDING_BASE {
            Action::Treasure {
                cell: at(TREASURE_BASE),
            }
        } else if id < WONDERPOINT_BASE {
            Action::Building {
                cell: at(BUILDING_BASE),
            }
        } else if id < DECLINE_ID {
            Action::WonderPoint {
                color: at(WONDERPOINT_BASE),
            }
        } else if id == DECLINE_ID {
            Action::Decline
        } else {
            let _ = cells;
            return None;
        })
    }

    /// The action in the notation, e.g. "tile red K2".
    pub fn text(self) -> String {
        match self {
            Action::Leader { role, cell } => format!("leader {} {}", ROLES[role], cell_name(cell)),
            Action::Withdraw { role } => format!("withdraw {}", ROLES[role]),
            Action::Tile { color, cell } => format!("tile {} {}", COLOURS[color], cell_name(cell)),
            Action::Catastrophe { cell } => format!("catastrophe {}", cell_name(cell)),
            Action::Swap { counts } => {
                let mut out = String::from("swap");
                for (color, n) in counts.iter().enumerate() {
                    for _ in 0..*n {
                        out.push(' ');
                        out.push_str(COLOURS[color]);
                    }
                }
                out
            }
            Action::Pass => "pass".into(),
            Action::Commit { count } => format!("commit {count}"),
            Action::War { color } => format!("war {}", COLOURS[color]),
            Action::Monument { monument, cell } => {
                format!("monument {} {}", MONUMENT_NAMES[monument], cell_name(cell))
            }
            Action::Treasure { cell } => format!("treasure {}", cell_name(cell)),
            Action::Building { cell } => format!("building {}", cell_name(cell)),
            Action::Wonder { cell } => format!("wonder {}", cell_name(cell)),
            Action::WonderPoint { color } => format!("wonderpoint {}", COLOURS[color]),
            Action::Decline => "decline".into(),
        }
    }
}

/// Every action string in id order (`all_action_strings()`).
pub fn action_strings() -> &'static [String] {
    static STRINGS: OnceLock<Vec<String>> = OnceLock::new();
    STRINGS.get_or_init(|| {
        (0..ACTION_COUNT)
            .map(|id| Action::from_id(id).expect("every id has an action").text())
            .collect()
    })
}

/// What a text parses to: an action, or a commit of more tiles than any number fits (kept as
/// its digits for the reasons that name it).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Parsed {
    Action(Action),
    HugeCommit(String),
}

impl Parsed {
    pub fn text(&self) -> String {
        match self {
            Parsed::Action(a) => a.text(),
            Parsed::HugeCommit(digits) => format!("commit {digits}"),
        }
    }
}

/// Python's `str.split()` whitespace among ASCII characters.
fn is_py_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0x1c..=0x1f)
}

fn color_of(word: &str) -> Result<usize, String> {
    COLOURS.iter().position(|c| *c == word).ok_or_else(|| {
        format!(
            "{} is not a colour (red, blue, green, black)",
            py_repr(word)
        )
    })
}

fn role_of(word: &str) -> Result<usize, String> {
    ROLES.iter().position(|r| *r == word).ok_or_else(|| {
        format!(
            "{} is not a leader (king, priest, farmer, trader)",
            py_repr(word)
        )
    })
}

fn cell_of(word: &str) -> Result<usize, String> {
    parse_cell(&word.to_ascii_uppercase()).ok_or_else(|| {
        format!(
            "{} is not a cell: columns are A-P, rows 1-11 (e.g. K1)",
            py_repr(word)
        )
    })
}

fn arity(words: &[&str], n: usize, usage: &str) -> Result<(), String> {
    if words.len() != n {
        return Err(format!("expected '{usage}'"));
    }
    Ok(())
}

/// Parse an ASCII action text as `cradle.tigris.actions.parse_action` does (case-insensitive,
/// any whitespace), with the same reasons. Texts with other characters are the caller's to
/// hand to the reference parser (its lower-casing and repr are Unicode-wide).
pub fn parse_ascii(text: &str) -> Result<Parsed, String> {
    debug_assert!(text.is_ascii());
    let lower = text.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| is_py_space(c as u8))
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() {
        return Err("empty action".into());
    }
    let action = match words[0] {
        "leader" => {
            arity(&words, 3, "leader <king|priest|farmer|trader> <cell>")?;
            let role = role_of(words[1])?;
            Action::Leader {
                role,
                cell: cell_of(words[2])?,
            }
        }
        "withdraw" => {
            arity(&words, 2, "withdraw <king|priest|farmer|trader>")?;
            Action::Withdraw {
                role: role_of(words[1])?,
            }
        }
        "tile" => {
            arity(&words, 3, "tile <colour> <cell>")?;
            let color = color_of(words[1])?;
            Action::Tile {
                color,
                cell: cell_of(words[2])?,
            }
        }
        "catastrophe" => {
            arity(&words, 2, "catastrophe <cell>")?;
            Action::Catastrophe {
                cell: cell_of(words[1])?,
            }
        }
        "swap" => {
            if !(2..=1 + HAND_SIZE).contains(&words.len()) {
                return Err("expected 'swap <colour> ...' with 1 to 6 tiles".into());
            }
            let mut counts = [0u8; 4];
            for word in &words[1..] {
                counts[color_of(word)?] += 1;
            }
            Action::Swap { counts }
        }
        "pass" => {
            arity(&words, 1, "pass")?;
            Action::Pass
        }
        "commit" => {
            arity(&words, 2, "commit <number>")?;
            let digits = words[1];
            if !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("{} is not a number of tiles", py_repr(digits)));
            }
            let trimmed = digits.trim_start_matches('0');
            match trimmed.parse::<u64>() {
                Ok(count) => Action::Commit { count },
                Err(_) if trimmed.is_empty() => Action::Commit { count: 0 },
                Err(_) => return Ok(Parsed::HugeCommit(trimmed.to_string())),
            }
        }
        "war" => {
            arity(&words, 2, "war <colour>")?;
            Action::War {
                color: color_of(words[1])?,
            }
        }
        "monument" => {
            arity(&words, 3, "monument <colour>-<colour> <cell>")?;
            let pair: Vec<&str> = words[1].split('-').collect();
            if pair.len() != 2 {
                return Err(format!(
                    "{} is not a monument: name two colours, e.g. red-blue",
                    py_repr(words[1])
                ));
            }
            let (a, b) = (color_of(pair[0])?, color_of(pair[1])?);
            if a == b {
                return Err("a monument has two different colours".into());
            }
            let key = (a.min(b), a.max(b));
            let monument = MONUMENTS
                .iter()
                .position(|m| *m == key)
                .expect("every pair of colours is a monument");
            Action::Monument {
                monument,
                cell: cell_of(words[2])?,
            }
        }
        "treasure" => {
            arity(&words, 2, "treasure <cell>")?;
            Action::Treasure {
                cell: cell_of(words[1])?,
            }
        }
        "building" => {
            arity(&words, 2, "building <cell>")?;
            Action::Building {
                cell: cell_of(words[1])?,
            }
        }
        "wonder" => {
            arity(&words, 2, "wonder <cell>")?;
            Action::Wonder {
                cell: cell_of(words[1])?,
            }
        }
        "wonderpoint" => {
            arity(&words, 2, "wonderpoint <colour>")?;
            Action::WonderPoint {
                color: color_of(words[1])?,
            }
        }
        "decline" => {
            arity(&words, 1, "decline")?;
            Action::Decline
        }
        verb => {
            return Err(format!(
                "unknown action {}: expected one of {VERBS}",
                py_repr(verb)
            ))
        }
    };
    Ok(Parsed::Action(action))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_table_has_the_reference_layout() {
        let strings = action_strings();
        assert_eq!(strings.len(), 3398);
        assert_eq!(strings[0], "leader priest A1");
        assert_eq!(strings[WITHDRAW_BASE as usize], "withdraw priest");
        assert_eq!(strings[TILE_BASE as usize + 176 + 10], "tile blue K1");
        assert_eq!(strings[SWAP_BASE as usize], "swap black");
        assert_eq!(
            strings[PASS_ID as usize - 1],
            "swap red red red red red red"
        );
        assert_eq!(strings[PASS_ID as usize], "pass");
        assert_eq!(strings[COMMIT_BASE as usize + 6], "commit 6");
        assert_eq!(strings[MONUMENT_BASE as usize + 7], "monument red-green B1");
        assert_eq!(strings[DECLINE_ID as usize], "decline");
        for (id, text) in strings.iter().enumerate() {
            let parsed = parse_ascii(text).unwrap();
            assert_eq!(parsed, Parsed::Action(Action::from_id(id as u16).unwrap()));
            assert_eq!(Action::from_id(id as u16).unwrap().id(), Some(id as u16));
        }
        assert_eq!(Action::from_id(ACTION_COUNT), None);
    }

    #[test]
    fn parsing_is_case_and_space_insensitive() {
        let tile = Parsed::Action(Action::Tile {
            color: RED,
            cell: 10,
        });
        assert_eq!(parse_ascii("  TILE\tRed   k1 ").unwrap(), tile);
        assert_eq!(parse_ascii("tile\x1cred\x1fk1").unwrap(), tile);
        assert_eq!(
            parse_ascii("swap blue red blue").unwrap(),
            Parsed::Action(Action::Swap {
                counts: [1, 2, 0, 0]
            })
        );
        assert_eq!(
            parse_ascii("monument black-red a1").unwrap(),
            Parsed::Action(Action::Monument {
                monument: 2,
                cell: 0
            })
        );
        assert_eq!(
            parse_ascii("commit 007").unwrap(),
            Parsed::Action(Action::Commit { count: 7 })
        );
        assert_eq!(
            parse_ascii("commit 123456789012345678901234567890").unwrap(),
            Parsed::HugeCommit("123456789012345678901234567890".into())
        );
    }

    #[test]
    fn malformed_text_gets_the_reference_reasons() {
        let cases = [
            ("", "empty action"),
            ("   ", "empty action"),
            ("jump", "unknown action 'jump': expected one of leader, withdraw, tile, catastrophe, swap, pass, commit, war, monument, treasure, building, wonder, wonderpoint, decline"),
            ("tile red", "expected 'tile <colour> <cell>'"),
            ("tile pink k1", "'pink' is not a colour (red, blue, green, black)"),
            ("tile red z9", "'z9' is not a cell: columns are A-P, rows 1-11 (e.g. K1)"),
            ("leader queen k1", "'queen' is not a leader (king, priest, farmer, trader)"),
            ("commit -1", "'-1' is not a number of tiles"),
            ("swap", "expected 'swap <colour> ...' with 1 to 6 tiles"),
            ("monument red k1", "'red' is not a monument: name two colours, e.g. red-blue"),
            ("monument red-red k1", "a monument has two different colours"),
            ("pass now", "expected 'pass'"),
            ("tile it's k1", "\"it's\" is not a colour (red, blue, green, black)"),
            ("tile a\\b k1", "'a\\\\b' is not a colour (red, blue, green, black)"),
            ("tile a\x07 k1", "'a\\x07' is not a colour (red, blue, green, black)"),
        ];
        for (text, reason) in cases {
            assert_eq!(parse_ascii(text), Err(reason.to_string()), "{text:?}");
        }
    }
}
