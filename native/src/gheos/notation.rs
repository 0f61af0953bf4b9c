//! The notation: fixed action ids, action strings, and reading what a player wrote, with the
//! reference's refusals word for word.
//!
//! A few of the reference's answers rest on Python's own text rules (`repr` of what was
//! written, `str.isdigit`, `int`); a [`Host`] supplies them. [`Plain`] follows them exactly
//! for ASCII text, which is all a Rust caller writes; the bindings ask Python for the rest.

use super::geometry::{self, CELLS};
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

/// Why an action was refused: `Illegal` is the reference's IllegalAction; `Value` a plain
/// ValueError that Python's own `int` raises for some digit strings the reference reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    Illegal(String),
    Value(String),
}

impl Refusal {
    pub fn text(&self) -> &str {
        match self {
            Refusal::Illegal(text) | Refusal::Value(text) => text,
        }
    }
}

pub fn illegal<T>(text: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::Illegal(text.into()))
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
                Refusal::Illegal(format!(
                    "cell {} is too far from the start tile",
                    host.repr(text)
                ))
            });
        }
    }
    illegal(format!(
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
    illegal(format!(
        "{} is {shape} cell: its edges are {}, not {}",
        geometry::cell_name(cell),
        names.join(", "),
        host.repr(text)
    ))
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
