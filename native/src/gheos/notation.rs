//! The notation: fixed action ids, action strings, and reading what a player wrote, with the
//! reference's refusals word for word.
//!
//! A few of the reference's answers rest on Python's own text rules (`repr` of what was
//! written, `str.isdigit`, `int`); a [`Host`] supplies them. [`Plain`] follows them exactly
//! for ASCII text, which is all a Rust caller writes; the bindings ask Python for the rest.

use super::events::COLOURS;
use super::geometry::{self, CELLS};
use super::tiles::TILE_COUNT;
use crate::text::py_repr;

pub const PLACE: u32 = 0;
pub const REPLACE: u32 = PLACE + 2 * CELLS * 3;
pub const START: u32 = REPLACE + 2 * CELLS * 3;
pub const MIGRATE: u32 = START + 6 * CELLS * 3;
pub const PAY: u32 = MIGRATE + 6 * CELLS * 3;
pub const TAKE: u32 = PAY + 6;
pub const WINNER: u32 = TAKE + 6;
pub const TOKEN: u32 = WINNER + 6;
pub const PASS: u32 = TOKEN + 1;
pub const ACTION_COUNT: u32 = PASS + 1;

/// What an id stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoded {
    /// (replacing, hand slot, cell, rotation)
    Tile(bool, usize, u16, u8),
    /// (migrating, colour, cell, edge)
    Region(bool, u8, u16, u8),
    Pay(u8),
    Take(u8),
    Winner(u8),
    Token,
    Pass,
}

pub fn decode(id: u32) -> Decoded {
    let cells = &geometry::grid().action_cells;
    if id < START {
        let replacing = id >= REPLACE;
        let rest = id - if replacing { REPLACE } else { PLACE };
        let (rest, rotation) = (rest / 3, rest % 3);
        let (slot, position) = (rest / CELLS, rest % CELLS);
        Decoded::Tile(
            replacing,
            slot as usize,
            cells[position as usize],
            rotation as u8,
        )
    } else if id < PAY {
        let migrating = id >= MIGRATE;
        let rest = id - if migrating { MIGRATE } else { START };
        let (rest, edge) = (rest / 3, rest % 3);
        let (colour, position) = (rest / CELLS, rest % CELLS);
        Decoded::Region(
            migrating,
            colour as u8,
            cells[position as usize],
            edge as u8,
        )
    } else if id < TAKE {
        Decoded::Pay((id - PAY) as u8)
    } else if id < WINNER {
        Decoded::Take((id - TAKE) as u8)
    } else if id < TOKEN {
        Decoded::Winner((id - WINNER) as u8)
    } else if id == TOKEN {
        Decoded::Token
    } else {
        Decoded::Pass
    }
}

/// The position of `cell` among the action cells.
pub fn position(cell: u16) -> u32 {
    geometry::grid().position[usize::from(cell)] as u32
}

/// Why an action was refused: `Malformed` is the reference's MalformedAction (no action of
/// the notation, whatever the position), `Disallowed` its DisallowedAction (read, and not
/// allowed now).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    Malformed(String),
    Disallowed(String),
}

impl Refusal {
    pub fn text(&self) -> &str {
        match self {
            Refusal::Malformed(text) | Refusal::Disallowed(text) => text,
        }
    }
}

pub fn malformed<T>(text: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::Malformed(text.into()))
}

pub fn disallowed<T>(text: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::Disallowed(text.into()))
}

/// An integer read as Python's `int(text)` reads it: its value when it fits, and how
/// `str()` writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Int {
    pub value: Option<i64>,
    pub text: String,
}

/// Python's text rules the reference's refusals rest on.
pub trait Host {
    /// `repr(text)`.
    fn repr(&self, text: &str) -> String;
    /// `text.isdigit()`.
    fn isdigit(&self, text: &str) -> bool;
    /// `int(text)`; Err with the ValueError's message.
    fn int(&self, text: &str) -> Result<Int, String>;
}

/// Python's rules for ASCII text (other text gets a close approximation).
pub struct Plain;

impl Host for Plain {
    fn repr(&self, text: &str) -> String {
        py_repr(text)
    }

    fn isdigit(&self, text: &str) -> bool {
        !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
    }

    fn int(&self, text: &str) -> Result<Int, String> {
        ascii_int(text)
            .ok_or_else(|| format!("invalid literal for int() with base 10: {}", py_repr(text)))
    }
}

/// `int(text)` for ASCII text short enough to hold no more digits than Python converts:
/// a sign, then digits with single underscores between them. None when it is no integer.
pub fn ascii_int(text: &str) -> Option<Int> {
    let bytes = text.as_bytes();
    let (negative, body) = match bytes.first() {
        Some(b'-') => (true, &bytes[1..]),
        Some(b'+') => (false, &bytes[1..]),
        _ => (false, bytes),
    };
    if body.is_empty() || !body[0].is_ascii_digit() || !body[body.len() - 1].is_ascii_digit() {
        return None;
    }
    let mut digits = String::with_capacity(body.len());
    let mut previous_underscore = false;
    for &b in body {
        if b == b'_' {
            if previous_underscore {
                return None;
            }
            previous_underscore = true;
        } else if b.is_ascii_digit() {
            previous_underscore = false;
            digits.push(char::from(b));
        } else {
            return None;
        }
    }
    if digits.len() > 4300 {
        return None; // Python refuses to convert that many digits
    }
    let trimmed = digits.trim_start_matches('0');
    let magnitude = if trimmed.is_empty() { "0" } else { trimmed };
    let text = if negative && magnitude != "0" {
        format!("-{magnitude}")
    } else {
        magnitude.to_string()
    };
    Some(Int {
        value: text.parse().ok(),
        text,
    })
}

/// Python's `str.strip().lower().split()` for ASCII text (the whitespace of `str.split`
/// includes the four separator controls 0x1c-0x1f).
pub fn ascii_words(text: &str) -> Vec<String> {
    text.split(|c: char| matches!(c, '\t'..='\r' | '\x1c'..='\x1f' | ' '))
        .filter(|word| !word.is_empty())
        .map(|word| word.to_ascii_lowercase())
        .collect()
}

/// The cell named `text` ("row,col"), as `cradle.gheos.geometry.parse_cell` reads it.
pub fn parse_cell(text: &str, host: &dyn Host) -> Result<u16, Refusal> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() == 2 {
        if let (Ok(row), Ok(col)) = (host.int(parts[0]), host.int(parts[1])) {
            return match (row.value, col.value) {
                (Some(r), Some(c)) => geometry::cell_index(r, c),
                _ => None,
            }
            .ok_or_else(|| {
                Refusal::Malformed(format!(
                    "cell {} is too far from the start tile",
                    host.repr(text)
                ))
            });
        }
    }
    malformed(format!(
        "{} is not a cell name: write row,col such as 0,1 or -2,3",
        host.repr(text)
    ))
}

/// The edge of `cell` named `text` (s/nw/ne on an up cell, n/se/sw on a down cell).
pub fn parse_edge(cell: u16, text: &str, host: &dyn Host) -> Result<u8, Refusal> {
    let names = geometry::edge_names(cell);
    if let Some(edge) = names.iter().position(|&name| name == text) {
        return Ok(edge as u8);
    }
    let shape = if geometry::is_up(cell) {
        "an up"
    } else {
        "a down"
    };
    malformed(format!(
        "{} is {shape} cell: its edges are {}, not {}",
        geometry::cell_name(cell),
        names.join(", "),
        host.repr(text)
    ))
}

/// An action as the notation reads it, before the rules are asked (the reference's
/// `cradle.gheos.notation.Reading`): its verb and the parts it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reading {
    pub verb: &'static str,
    /// place, replace: the tile's number
    pub tile: u8,
    /// place, replace: where; start, migrate: the cell of the area named
    pub cell: u16,
    pub rotation: u8,
    /// pay, take, winner, start, migrate
    pub colour: u8,
    /// start, migrate: the edge named after the cell, if any
    pub edge: Option<u8>,
    /// start, migrate: the area as written
    pub area: String,
}

const VERBS: [&str; 9] = [
    "place", "replace", "pay", "migrate", "winner", "start", "take", "token", "pass",
];

fn read_colour(words: &[String], form: &str, host: &dyn Host) -> Result<u8, Refusal> {
    if words.len() != 2 {
        return malformed(format!("write '{form}'"));
    }
    match COLOURS.iter().position(|&c| c == words[1]) {
        Some(c) => Ok(c as u8),
        None => malformed(format!(
            "{} is not a colour (one of {})",
            host.repr(&words[1]),
            COLOURS.join(", ")
        )),
    }
}

fn read_tile(text: &str, host: &dyn Host) -> Result<u8, Refusal> {
    let refused = || {
        Refusal::Malformed(format!(
            "{} is not a tile: tiles are named t0 to t{}",
            host.repr(text),
            TILE_COUNT - 1
        ))
    };
    let digits = text.strip_prefix('t').filter(|rest| host.isdigit(rest));
    let number = digits.and_then(|digits| host.int(digits).ok());
    match number.and_then(|n| n.value) {
        Some(n) if (0..TILE_COUNT as i64).contains(&n) => Ok(n as u8),
        _ => Err(refused()),
    }
}

/// The action `words` (`action.strip().lower().split()`, at least one) name; Malformed with
/// the reference's reason when they name none.
pub fn read_action(words: &[String], host: &dyn Host) -> Result<Reading, Refusal> {
    let Some(verb) = VERBS.iter().find(|&&v| v == words[0]) else {
        return malformed(format!(
            "unknown action {}: the actions are place, replace, pay, migrate, winner, \
             start, take, token and pass",
            host.repr(&words[0])
        ));
    };
    let mut reading = Reading {
        verb,
        tile: 0,
        cell: 0,
        rotation: 0,
        colour: 0,
        edge: None,
        area: String::new(),
    };
    match *verb {
        "place" | "replace" => {
            if words.len() != 4 {
                return malformed(format!(
                    "write '{verb} <tile> <cell> <rotation>', e.g. '{verb} t12 0,1 r0'"
                ));
            }
            reading.tile = read_tile(&words[1], host)?;
            reading.cell = parse_cell(&words[2], host)?;
            reading.rotation = match words[3].as_str() {
                "r0" => 0,
                "r1" => 1,
                "r2" => 2,
                _ => {
                    return malformed(format!(
                        "{} is not a rotation: write r0, r1 or r2",
                        host.repr(&words[3])
                    ))
                }
            };
        }
        "pay" | "take" | "winner" => {
            reading.colour = read_colour(words, &format!("{verb} <colour>"), host)?;
        }
        "start" | "migrate" => {
            if words.len() != 3 {
                return malformed(format!(
                    "write '{verb} <colour> <cell>:<edge>', e.g. '{verb} red 0,1:n'"
                ));
            }
            let form = format!("{verb} <colour> <cell>:<edge>");
            reading.colour = read_colour(&words[..2], &form, host)?;
            let text = &words[2];
            let (cell_text, edge_text) = match text.split_once(':') {
                Some((cell, edge)) => (cell, Some(edge)),
                None => (text.as_str(), None),
            };
            reading.cell = parse_cell(cell_text, host)?;
            if let Some(edge_text) = edge_text {
                reading.edge = Some(parse_edge(reading.cell, edge_text, host)?);
            }
            reading.area = text.clone();
        }
        _ => {
            if words.len() != 1 {
                return malformed(format!("write just '{verb}'"));
            }
        }
    }
    Ok(reading)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_layout() {
        assert_eq!(REPLACE, 23874);
        assert_eq!(START, 47748);
        assert_eq!(MIGRATE, 119_370);
        assert_eq!(PAY, 190_992);
        assert_eq!(ACTION_COUNT, 191_012);
        let start = geometry::START_CELL;
        let id = PLACE + (CELLS + position(start)) * 3 + 2;
        assert_eq!(decode(id), Decoded::Tile(false, 1, start, 2));
        let id = MIGRATE + (5 * CELLS + position(start)) * 3 + 1;
        assert_eq!(decode(id), Decoded::Region(true, 5, start, 1));
        assert_eq!(decode(WINNER + 3), Decoded::Winner(3));
        assert_eq!(decode(PASS), Decoded::Pass);
    }

    #[test]
    fn python_text_rules() {
        assert_eq!(py_repr("it's"), "\"it's\"");
        assert_eq!(py_repr("a\\b'\""), "'a\\\\b\\'\"'");
        assert_eq!(py_repr("\x0b"), "'\\x0b'");
        let int = |t: &str| ascii_int(t).map(|i| i.text);
        assert_eq!(int("+0_07"), Some("7".into()));
        assert_eq!(int("-0"), Some("0".into()));
        assert_eq!(int("1__0"), None);
        assert_eq!(int("_1"), None);
        assert_eq!(int("-"), None);
        assert_eq!(
            ascii_words(" PLACE\x0bt2\x1f1,0  "),
            vec!["place", "t2", "1,0"]
        );
        assert_eq!(
            parse_cell("+1,0", &Plain),
            Ok(geometry::cell_index(1, 0).unwrap())
        );
        assert!(parse_cell("99,0", &Plain)
            .unwrap_err()
            .text()
            .contains("too far"));
        assert!(parse_cell("1;0", &Plain)
            .unwrap_err()
            .text()
            .contains("not a cell name"));
    }
}
