//! What an action did, as the reference's event dicts say it (type, text and fields).
//!
//! The engine pushes events into a [`Sink`]: a `Vec<Event>` keeps them, [`NoEvents`] compiles
//! them away (the fast paths of search and playouts).

use super::actions::{COLOURS, MONUMENT_NAMES, ROLES};
use super::board::cell_name;

/// Why points were scored (the text in brackets of a score event).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Why {
    /// A tile of `color` on `cell`, scored by the king when `by_king`.
    Tile {
        color: usize,
        cell: usize,
        by_king: bool,
    },
    RevoltWon,
    WarWon {
        color: usize,
    },
    Monument {
        role: usize,
    },
    Wonder,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Event {
    LeaderReturned {
        seat: usize,
        role: usize,
        cell: usize,
    },
    Score {
        seat: usize,
        color: usize,
        amount: u32,
        why: Why,
    },
    Pass {
        seat: usize,
    },
    Withdraw {
        seat: usize,
        role: usize,
        cell: usize,
    },
    Swap {
        seat: usize,
        count: u32,
        drawn: u32,
    },
    Leader {
        seat: usize,
        role: usize,
        cell: usize,
        moved_from: Option<usize>,
    },
    Revolt {
        attacker: usize,
        defender: usize,
        role: usize,
        defender_cell: usize,
    },
    Tile {
        seat: usize,
        color: usize,
        cell: usize,
    },
    Unification {
        cell: usize,
        wars: Vec<usize>,
    },
    Catastrophe {
        seat: usize,
        cell: usize,
        destroyed: Option<usize>,
    },
    UnificationRemoved {
        cell: usize,
    },
    War {
        color: usize,
        attacker: usize,
        defender: usize,
    },
    Commit {
        seat: usize,
        count: u32,
        color: usize,
    },
    Decline {
        seat: usize,
    },
    RevoltResult {
        winner: usize,
        loser: usize,
        attack: u32,
        defence: u32,
        role: usize,
        cell: usize,
    },
    WarResult {
        winner: usize,
        loser: usize,
        attack: u32,
        defence: u32,
        /// The war's colour (and so the losing leader's role).
        color: usize,
        removed: Vec<usize>,
    },
    Building {
        seat: usize,
        color: usize,
        cell: usize,
        moved: bool,
    },
    Wonder {
        seat: usize,
        cell: usize,
        color: usize,
    },
    Monument {
        seat: usize,
        monument: usize,
        cell: usize,
    },
    Treasure {
        seat: usize,
        cell: usize,
    },
    GameOver {
        bag_empty: bool,
    },
    Turn {
        seat: usize,
    },
}

impl Event {
    /// The event's `type`.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::LeaderReturned { .. } => "leader_returned",
            Event::Score { .. } => "score",
            Event::Pass { .. } => "pass",
            Event::Withdraw { .. } => "withdraw",
            Event::Swap { .. } => "swap",
            Event::Leader { .. } => "leader",
            Event::Revolt { .. } => "revolt",
            Event::Tile { .. } => "tile",
            Event::Unification { .. } => "unification",
            Event::Catastrophe { .. } => "catastrophe",
            Event::UnificationRemoved { .. } => "unification_removed",
            Event::War { .. } => "war",
            Event::Commit { .. } => "commit",
            Event::Decline { .. } => "decline",
            Event::RevoltResult { .. } => "revolt_result",
            Event::WarResult { .. } => "war_result",
            Event::Building { .. } => "building",
            Event::Wonder { .. } => "wonder",
            Event::Monument { .. } => "monument",
            Event::Treasure { .. } => "treasure",
            Event::GameOver { .. } => "game_over",
            Event::Turn { .. } => "turn",
        }
    }

    /// The event's `text`, naming the seats by `players` (their dynasties).
    pub fn text(&self, players: &[&str]) -> String {
        let p = |seat: &usize| players[*seat];
        match self {
            Event::LeaderReturned { seat, role, cell } => format!(
                "{}'s {} on {} lost its last temple and returns",
                p(seat),
                ROLES[*role],
                cell_name(*cell)
            ),
            Event::Score {
                seat,
                color,
                amount,
                why,
            } => format!(
                "{} scores {} {} ({})",
                p(seat),
                amount,
                COLOURS[*color],
                why_text(why)
            ),
            Event::Pass { seat } => format!("{} passes", p(seat)),
            Event::Withdraw { seat, role, cell } => format!(
                "{} withdraws the {} from {}",
                p(seat),
                ROLES[*role],
                cell_name(*cell)
            ),
            Event::Swap { seat, count, drawn } => {
                format!("{} discards {count} tile(s) and draws {drawn}", p(seat))
            }
            Event::Leader {
                seat,
                role,
                cell,
                moved_from,
            } => {
                let verb = if moved_from.is_some() {
                    format!("moves the {} to", ROLES[*role])
                } else {
                    format!("places the {} on", ROLES[*role])
                };
                format!("{} {} {}", p(seat), verb, cell_name(*cell))
            }
            Event::Revolt {
                attacker,
                defender,
                role,
                defender_cell,
            } => format!(
                "revolt: {}'s {} against {}'s on {}",
                p(attacker),
                ROLES[*role],
                p(defender),
                cell_name(*defender_cell)
            ),
            Event::Tile { seat, color, cell } => format!(
                "{} places a {} tile on {}",
                p(seat),
                COLOURS[*color],
                cell_name(*cell)
            ),
            Event::Unification { cell, wars } => {
                let mut text = format!("the tile on {} joins two kingdoms", cell_name(*cell));
                if !wars.is_empty() {
                    let names: Vec<&str> = wars.iter().map(|c| COLOURS[*c]).collect();
                    text.push_str(&format!(": war of {}", names.join(", ")));
                }
                text
            }
            Event::Catastrophe {
                seat,
                cell,
                destroyed,
            } => {
                let hit = match destroyed {
                    Some(color) => format!(", destroying a {} tile", COLOURS[*color]),
                    None => String::new(),
                };
                format!(
                    "{} places a catastrophe on {}{}",
                    p(seat),
                    cell_name(*cell),
                    hit
                )
            }
            Event::UnificationRemoved { cell } => {
                format!("the unification tile leaves {}", cell_name(*cell))
            }
            Event::War {
                color,
                attacker,
                defender,
            } => format!(
                "{} war: {} attacks {}",
                COLOURS[*color],
                p(attacker),
                p(defender)
            ),
            Event::Commit { seat, count, color } => {
                format!("{} commits {count} {} tile(s)", p(seat), COLOURS[*color])
            }
            Event::Decline { seat } => format!("{} declines", p(seat)),
            Event::RevoltResult {
                winner,
                loser,
                attack,
                defence,
                role,
                cell,
            } => format!(
                "{} wins the revolt {}-{}; {}'s {} on {} returns",
                p(winner),
                attack.max(defence),
                attack.min(defence),
                p(loser),
                ROLES[*role],
                cell_name(*cell)
            ),
            Event::WarResult {
                winner,
                loser,
                attack,
                defence,
                color,
                removed,
            } => format!(
                "{} wins the {} war {}-{}; {}'s {} returns and {} {} tile(s) leave the board",
                p(winner),
                COLOURS[*color],
                attack.max(defence),
                attack.min(defence),
                p(loser),
                ROLES[*color],
                removed.len(),
                COLOURS[*color]
            ),
            Event::Building {
                seat,
                color,
                cell,
                moved,
            } => format!(
                "{} {} the {} building {} {}",
                p(seat),
                if *moved { "moves" } else { "puts" },
                COLOURS[*color],
                if *moved { "to" } else { "on" },
                cell_name(*cell)
            ),
            Event::Wonder { seat, cell, color } => format!(
                "{} builds the wonder on {} from five {} tiles",
                p(seat),
                cell_name(*cell),
                COLOURS[*color]
            ),
            Event::Monument {
                seat,
                monument,
                cell,
            } => format!(
                "{} builds the {} monument on {}",
                p(seat),
                MONUMENT_NAMES[*monument],
                cell_name(*cell)
            ),
            Event::Treasure { seat, cell } => {
                format!("{} takes the treasure on {}", p(seat), cell_name(*cell))
            }
            Event::GameOver { bag_empty } => format!(
                "the game ends: {}",
                if *bag_empty {
                    "the bag is empty"
                } else {
                    "two or fewer treasures remain"
                }
            ),
            Event::Turn { seat } => format!("{}'s turn", p(seat)),
        }
    }
}

fn why_text(why: &Why) -> String {
    match why {
        Why::Tile {
            color,
            cell,
            by_king,
        } => format!(
            "{} tile on {}{}",
            COLOURS[*color],
            cell_name(*cell),
            if *by_king { ", by the king" } else { "" }
        ),
        Why::RevoltWon => "revolt won".into(),
        Why::WarWon { color } => format!("{} war won", COLOURS[*color]),
        Why::Monument { role } => format!("monument, {}", ROLES[*role]),
        Why::Wonder => "the wonder".into(),
    }
}

/// Where the engine puts its events.
pub trait Sink {
    /// False for a sink that drops everything: the engine then builds no event at all.
    const ON: bool;
    fn push(&mut self, event: Event);
}

impl Sink for Vec<Event> {
    const ON: bool = true;
    #[inline]
    fn push(&mut self, event: Event) {
        Vec::push(self, event);
    }
}

/// A sink that keeps nothing (apply without events).
pub struct NoEvents;

impl Sink for NoEvents {
    const ON: bool = false;
    #[inline]
    fn push(&mut self, _event: Event) {}
}
