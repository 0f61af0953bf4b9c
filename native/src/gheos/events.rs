//! What an action did, as the reference reports it: each event's type, its plain-English text
//! (word for word the reference's) and its data. The engine records plain numbers; the texts
//! are written only when someone asks for them.

use super::geometry::{cell_name, edge_name};
use super::tiles::SYMBOLS;

pub const COLOURS: [&str; 6] = ["red", "green", "yellow", "blue", "black", "white"];

/// A region named as the reference names it: its cell and the first cell edge it touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ref {
    pub cell: u16,
    pub edge: u8,
}

impl Ref {
    pub fn name(&self) -> String {
        format!(
            "{}:{}",
            cell_name(self.cell),
            edge_name(self.cell, usize::from(self.edge))
        )
    }
}

/// Why a civilization left the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// It migrated to a part that is no continent (`island`: an island).
    MigratesTo {
        island: bool,
    },
    /// Its continent shrank to something that is no continent.
    LeftOn {
        island: bool,
    },
    MigratedIntoOccupied,
    Lost,
}

/// One row of `result()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Standing {
    pub seat: u8,
    pub points: i64,
    pub followers: u32,
    pub place: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    Place {
        seat: u8,
        cell: u16,
        tile: u8,
        rotation: u8,
    },
    Replace {
        seat: u8,
        cell: u16,
        tile: u8,
        rotation: u8,
        removed: u8,
    },
    Conflict {
        seat: u8,
        migration: bool,
    },
    Pay {
        seat: u8,
        colour: u8,
    },
    Migration {
        colour: u8,
        to: Ref,
    },
    CivRemoved {
        colour: u8,
        why: Why,
        /// (seat, followers) given back, in seat order.
        returned: Vec<(u8, u8)>,
    },
    War {
        fighters: Vec<u8>,
        winner: u8,
    },
    Temple {
        seat: u8,
        points: i64,
        kind: u8,
        colour: u8,
    },
    Start {
        seat: u8,
        colour: u8,
        at: Ref,
        followers: u8,
    },
    Take {
        seat: u8,
        colour: u8,
    },
    Skip {
        seat: u8,
    },
    Token {
        seat: u8,
        points: i64,
        left: u8,
    },
    /// The game ends: every scoring token played.
    EndTokens,
    /// The game ends: the last epoch tile drawn.
    EndEpoch {
        epoch: u8,
    },
    Draw {
        seat: u8,
    },
    Epoch {
        seat: u8,
        epoch: u8,
        end: u8,
    },
    EpochScoring {
        gains: Vec<i64>,
    },
    FinalScoring {
        gains: Vec<i64>,
    },
    Result {
        /// Sorted by place, then seat.
        ranking: Vec<Standing>,
    },
}

fn plural(n: impl Into<i64>, word: &str) -> String {
    if n.into() != 1 {
        format!("{word}s")
    } else {
        word.to_string()
    }
}

fn colour(c: u8) -> &'static str {
    COLOURS[usize::from(c)]
}

impl Event {
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Place { .. } => "place",
            Event::Replace { .. } => "replace",
            Event::Conflict { .. } => "conflict",
            Event::Pay { .. } => "pay",
            Event::Migration { .. } => "migration",
            Event::CivRemoved { .. } => "civ_removed",
            Event::War { .. } => "war",
            Event::Temple { .. } => "temple",
            Event::Start { .. } => "start",
            Event::Take { .. } => "take",
            Event::Skip { .. } => "skip",
            Event::Token { .. } => "token",
            Event::EndTokens | Event::EndEpoch { .. } => "end",
            Event::Draw { .. } => "draw",
            Event::Epoch { .. } => "epoch",
            Event::EpochScoring { .. } => "epoch_scoring",
            Event::FinalScoring { .. } => "final_scoring",
            Event::Result { .. } => "result",
        }
    }

    /// The event's text; `names` are the players' names in seat order.
    pub fn text(&self, names: &[String]) -> String {
        let name = |seat: &u8| names[usize::from(*seat)].as_str();
        let scores = |gains: &[i64]| {
            gains
                .iter()
                .enumerate()
                .map(|(seat, gain)| format!("{} {gain}", names[seat]))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            Event::Place {
                seat,
                cell,
                tile,
                rotation,
            } => format!(
                "{} places t{tile} on {} (r{rotation})",
                name(seat),
                cell_name(*cell)
            ),
            Event::Replace {
                seat,
                cell,
                tile,
                rotation,
                removed,
            } => format!(
                "{} replaces t{removed} on {} with t{tile} (r{rotation}); t{removed} leaves the game",
                name(seat),
                cell_name(*cell)
            ),
            Event::Conflict { seat, migration } => format!(
                "this starts {}; {} pays one follower",
                if *migration { "a migration" } else { "a war" },
                name(seat)
            ),
            Event::Pay { seat, colour: c } => format!(
                "{} returns a {} follower to the supply",
                name(seat),
                colour(*c)
            ),
            Event::Migration { colour: c, to } => format!(
                "the {} civilization migrates to the continent at {}",
                colour(*c),
                to.name()
            ),
            Event::CivRemoved {
                colour: c,
                why,
                returned,
            } => {
                let c = colour(*c);
                let place = |island: &bool| {
                    if *island {
                        "an island"
                    } else {
                        "land that is no continent"
                    }
                };
                let why = match why {
                    Why::MigratesTo { island } => {
                        format!("the {c} civilization migrates to {} and perishes", place(island))
                    }
                    Why::LeftOn { island } => {
                        format!("the {c} civilization is left on {} and perishes", place(island))
                    }
                    Why::MigratedIntoOccupied => {
                        format!("the {c} civilization migrated into an occupied continent")
                    }
                    Why::Lost => format!("the {c} civilization lost"),
                };
                let mut text =
                    format!("{why}: its marker and all its followers return to the supply");
                if !returned.is_empty() {
                    let parts: Vec<String> = returned
                        .iter()
                        .map(|(seat, n)| format!("{} {n}", name(seat)))
                        .collect();
                    text += &format!(" ({})", parts.join(", "));
                }
                text
            }
            Event::War { fighters, winner } => {
                let all: Vec<&str> = fighters.iter().map(|c| colour(*c)).collect();
                format!("war between {}: {} wins", all.join(" and "), colour(*winner))
            }
            Event::Temple {
                seat,
                points,
                kind,
                colour: c,
            } => format!(
                "{} scores {points} for the {} temple on the {} continent",
                name(seat),
                SYMBOLS[usize::from(*kind)],
                colour(*c)
            ),
            Event::Start {
                seat,
                colour: c,
                at,
                followers,
            } => format!(
                "{} starts the {} civilization on the continent at {} and takes {followers} {} {}",
                name(seat),
                colour(*c),
                at.name(),
                colour(*c),
                plural(*followers, "follower")
            ),
            Event::Take { seat, colour: c } => {
                format!("{} takes a {} follower", name(seat), colour(*c))
            }
            Event::Skip { seat } => format!(
                "{} can neither start a civilization nor take a follower",
                name(seat)
            ),
            Event::Token { seat, points, left } => format!(
                "{} plays a scoring token and scores {points} ({left} {} left)",
                name(seat),
                plural(*left, "token")
            ),
            Event::EndTokens => "every scoring token has been played: the game ends".to_string(),
            Event::EndEpoch { epoch } => format!("epoch tile {epoch} drawn: the game ends"),
            Event::Draw { seat } => format!("{} draws a tile", name(seat)),
            Event::Epoch { seat, epoch, end } => format!(
                "{} draws epoch tile {epoch} (the game ends with the {end}th): epoch scoring",
                name(seat)
            ),
            Event::EpochScoring { gains } => format!("pyramids score: {}", scores(gains)),
            Event::FinalScoring { gains } => format!("final scoring (cups): {}", scores(gains)),
            Event::Result { ranking } => {
                let parts: Vec<String> = ranking
                    .iter()
                    .map(|row| format!("{}. {} {} points", row.place, name(&row.seat), row.points))
                    .collect();
                format!("result: {}", parts.join(", "))
            }
        }
    }
}

/// Where the events of an action go: kept, or (fast paths) not made at all.
pub struct Log {
    pub on: bool,
    pub events: Vec<Event>,
}

impl Log {
    pub fn new(on: bool) -> Log {
        Log {
            on,
            events: Vec::new(),
        }
    }

    pub fn push(&mut self, event: impl FnOnce() -> Event) {
        if self.on {
            self.events.push(event());
        }
    }
}
