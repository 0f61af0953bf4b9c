//! Tests of the core as a whole: kingdoms, legal lists against traces of the reference,
//! scripted conflicts, position round trips and refusals that change nothing.

use super::actions::{action_strings, parse_ascii, Action, Parsed, ACTION_COUNT, DYNASTIES};
use super::board::tests::cells;
use super::board::{cell_name, parse_cell, Bb, Side};
use super::events::{Event, NoEvents};
use super::playout::fresh_game;
use super::position::Position;
use super::state::{Options, PendingKind, State};
use crate::splitmix::SplitMix64;

const COLOURS: [&str; 4] = ["red", "blue", "green", "black"];

fn counts(tiles: &[&str]) -> [u8; 4] {
    let mut out = [0u8; 4];
    for t in tiles {
        out[COLOURS.iter().position(|c| c == t).unwrap()] += 1;
    }
    out
}

/// Archer and bull on the standard board with only these cells (and three far temples with
/// treasures, so a turn can end without ending the game), as the Python rules tests build.
fn state(board: &[(&str, &str)], archer: &[&str], bull: &[&str]) -> State {
    let mut cells: Vec<(usize, String)> = [("A11", "red*"), ("C11", "red*"), ("E11", "red*")]
        .iter()
        .chain(board.iter())
        .map(|(c, v)| (parse_cell(c).unwrap(), v.to_string()))
        .collect();
    cells.sort();
    let position = Position {
        options: Options::default(),
        players: vec![0, 1],
        active: 0,
        actions_left: 2,
        board: cells,
        monuments: vec![],
        hands: vec![counts(archer), counts(bull)],
        bag: vec![0, 1, 2, 3, 0, 0, 1, 2, 3, 0, 1, 2],
        points: vec![[0; 4]; 2],
        treasures: vec![0; 2],
        catastrophes: vec![2; 2],
        buildings: [None; 4],
        pending: None,
        placed: None,
        unification: None,
        discards: vec![[0; 4]; 2],
        removed: [0; 4],
        ending: false,
        over: false,
    };
    State::from_position(&position).unwrap()
}

fn apply(s: &mut State, text: &str) -> Vec<Event> {
    let mut events = Vec::new();
    let parsed = parse_ascii(text).unwrap();
    s.apply(&parsed, &mut events)
        .unwrap_or_else(|reason| panic!("{text}: {reason}"));
    events
}

fn kinds(events: &[Event]) -> Vec<&'static str> {
    events.iter().map(Event::kind).collect()
}

fn legal_texts(s: &State) -> Vec<String> {
    s.legal_ids()
        .iter()
        .map(|id| action_strings()[*id as usize].clone())
        .collect()
}

#[test]
fn kingdoms_are_the_regions_with_leaders() {
    let s = state(
        &[
            ("F5", "red"),
            ("F4", "leader:archer:king"),
            ("G5", "black"),
            ("J5", "red"),
            ("J4", "leader:bull:king"),
            ("C3", "green"),
        ],
        &[],
        &[],
    );
    let kingdoms = s.kingdoms();
    assert_eq!(
        kingdoms.as_slice(),
        [cells(&["F4", "F5", "G5"]), cells(&["J4", "J5"])]
    );
    // C3 and the far temples are regions without leaders
    assert_eq!(s.component_of(parse_cell("C3").unwrap()), cells(&["C3"]));
    assert_eq!(s.component_of(parse_cell("D3").unwrap()), Bb::EMPTY);
}

#[test]
fn a_tile_joining_three_kingdoms_is_refused_and_two_start_a_war() {
    let mut s = state(
        &[
            ("F5", "red"),
            ("F4", "leader:archer:king"),
            ("E5", "black"),
            ("G5", "black"),
            ("I5", "black"),
            ("J5", "red"),
            ("J4", "leader:bull:king"),
        ],
        &["red", "black"],
        &["black", "black"],
    );
    let events = apply(&mut s, "tile red H5");
    assert_eq!(kinds(&events), ["tile", "unification", "war"]);
    let p = s.pending.unwrap();
    assert_eq!(p.kind, PendingKind::War);
    assert_eq!(
        (p.attacker, p.defender, p.color),
        (Some(0), Some(1), Some(3))
    );
    // supporters: black tiles on each side of the unification tile
    assert_eq!((s.base_strength(&p, 0), s.base_strength(&p, 1)), (2, 1));
    assert_eq!(legal_texts(&s), ["commit 0", "commit 1"]);
    apply(&mut s, "commit 1");
    assert_eq!(s.to_move(), 1);
    assert_eq!(legal_texts(&s), ["commit 0", "commit 1", "commit 2"]);
    let events = apply(&mut s, "commit 2"); // 2 + 1 against 1 + 2: the defender wins ties
    let result = events
        .iter()
        .find(|e| e.kind() == "war_result")
        .unwrap()
        .text(&["archer", "bull"]);
    assert_eq!(
        result,
        "bull wins the black war 3-3; archer's king returns and 2 black tile(s) leave the board"
    );
    assert_eq!(s.leader_cell[3], super::board::NONE);
    assert!(!s.up[3].has(parse_cell("E5").unwrap()) && !s.up[3].has(parse_cell("G5").unwrap()));
    assert_eq!(s.points[1], [0, 0, 0, 3]);
    assert_eq!(s.removed[3], 2 + 3);
    assert!(kinds(&events).contains(&"unification_removed"));
    assert_eq!((s.pending, s.to_move(), s.actions_left), (None, 0, 1));
}

#[test]
fn a_leader_joining_its_colour_starts_a_revolt_won_by_temples() {
    let mut s = state(
        &[("H5", "red"), ("I5", "red"), ("H4", "leader:bull:king")],
        &["red", "red", "black"],
        &["red", "red", "green"],
    );
    assert_eq!(
        kinds(&apply(&mut s, "leader king J5")),
        ["leader", "revolt"]
    );
    assert_eq!(legal_texts(&s), ["commit 0", "commit 1", "commit 2"]);
    apply(&mut s, "commit 2");
    let events = apply(&mut s, "commit 2"); // 1 + 2 against 1 + 2
    assert_eq!(
        events[1].text(&["archer", "bull"]),
        "bull wins the revolt 3-3; archer's king on J5 returns"
    );
    assert_eq!(
        events[2].text(&["archer", "bull"]),
        "bull scores 1 red (revolt won)"
    );
    assert!(!s.leaders.has(parse_cell("J5").unwrap()));
    assert_eq!(s.hands[0], [0, 0, 0, 1]);
    assert_eq!(s.removed[0], 4);
    assert_eq!((s.to_move(), s.actions_left), (0, 1));
}

#[test]
fn a_trader_chooses_among_the_treasures_of_its_kingdom_and_leaves_one() {
    let mut s = state(
        &[("F5", "red*"), ("G5", "red*"), ("H5", "green")],
        &["green"],
        &[],
    );
    assert_eq!(kinds(&apply(&mut s, "leader trader F6")), ["leader"]);
    let p = s.pending.unwrap();
    assert_eq!((p.kind, p.seat), (PendingKind::Treasure, Some(0)));
    assert_eq!(legal_texts(&s), ["treasure F5", "treasure G5"]);
    let events = apply(&mut s, "treasure G5");
    assert_eq!(kinds(&events), ["treasure"]);
    assert_eq!(
        events[0].text(&["archer", "bull"]),
        "archer takes the treasure on G5"
    );
    assert_eq!((s.treasures[0], s.pending, s.actions_left), (1, None, 1));
    assert!(s.treasure.has(parse_cell("F5").unwrap()));
}

#[test]
fn refused_actions_give_the_reasons_and_change_nothing() {
    let mut s = state(&[("H5", "red"), ("H4", "leader:bull:king")], &["red"], &[]);
    let before = s.clone();
    let cases = [
        ("tile blue H6", "you have no blue tile in hand"),
        ("tile red H4", "H4 holds a leader"),
        (
            "tile red E1",
            "E1 is a river cell: only blue tiles (farms) go there",
        ),
        ("leader king A1", "A1 is not next to a face-up temple"),
        ("withdraw king", "your king is not on the board"),
        (
            "commit 1",
            "'commit 1' is not possible now: it is archer's turn to take an action",
        ),
        (
            "swap red red",
            "you cannot discard 2 red tile(s): your hand holds 1",
        ),
        ("catastrophe A11", "A11 carries a treasure"),
    ];
    for (text, reason) in cases {
        let parsed = parse_ascii(text).unwrap();
        assert_eq!(s.apply(&parsed, &mut NoEvents), Err(reason.to_string()));
        assert_eq!(s, before, "{text}");
    }
    let over = {
        let mut t = s.clone();
        t.over = true;
        t
    };
    let mut t = over.clone();
    assert_eq!(
        t.apply(&Parsed::Action(Action::Pass), &mut NoEvents),
        Err("the game is over".into())
    );
    assert_eq!(t, over);
}

/// A game from a fixed bag (colour `7 * i % 4` while it lasts, then the rest), each ply taking
/// legal action `(ply * 7919) % count`: the legal counts and the end must be the reference's.
/// The expected numbers were recorded from `cradle.tigris` with the same recipe:
///
/// ```text
/// s = TigrisState.blank(("archer", "bull", "pot", "lion")[:players], options)
/// s.up[RED] = s.treasure = temples; s.bag = <the bag above>; s.active = 0
/// for seat in range(players): s._draw(seat, 6)
/// while not s.is_over: ids = s.legal_action_ids(); s.apply(ids[(ply * 7919) % len(ids)])
/// ```
fn trace(players: usize, options: Options) -> (Vec<usize>, State) {
    let start = options.side.map().temples.count();
    let totals = [57 - start, 36, 30, 30];
    let mut bag: Vec<u8> = Vec::new();
    let mut held = [0u32; 4];
    for i in 0..200 {
        let c = (i * 7) % 4;
        if held[c] < totals[c] {
            bag.push(c as u8);
            held[c] += 1;
        }
    }
    for c in 0..4 {
        while held[c] < totals[c] {
            bag.push(c as u8);
            held[c] += 1;
        }
    }
    let seats: Vec<u8> = (0..players as u8).collect();
    let mut s = State::new_game(&seats, options, &bag, 0);
    let mut counts = Vec::new();
    let mut ply = 0;
    while !s.over {
        let ids = s.legal_ids();
        counts.push(ids.len());
        s.apply_id(ids[(ply * 7919) % ids.len()], &mut NoEvents)
            .unwrap();
        ply += 1;
    }
    (counts, s)
}

#[test]
fn legal_counts_follow_the_reference_trace_on_the_standard_board() {
    let (counts, s) = trace(2, Options::default());
    let expected: [usize; 279] = [
        430, 425, 468, 466, 422, 422, 463, 300, 264, 270, 325, 337, 333, 329, 331, 326, 284, 280,
        336, 326, 287, 289, 330, 326, 289, 299, 461, 351, 424, 307, 461, 461, 357, 358, 360, 350,
        414, 418, 353, 349, 404, 404, 245, 242, 497, 497, 239, 233, 499, 392, 231, 231, 394, 394,
        239, 233, 394, 398, 247, 247, 444, 441, 244, 244, 440, 333, 241, 1, 4, 246, 545, 545, 242,
        239, 427, 430, 239, 239, 424, 320, 229, 229, 325, 325, 228, 223, 325, 331, 234, 234, 330,
        334, 333, 236, 423, 320, 315, 2, 4, 227, 422, 416, 325, 318, 414, 410, 306, 304, 394, 380,
        294, 291, 388, 295, 390, 300, 300, 306, 384, 1, 2, 389, 1, 2, 318, 230, 398, 400, 317, 317,
        392, 381, 299, 299, 387, 478, 307, 307, 476, 379, 2, 1, 229, 228, 381, 381, 220, 228, 468,
        462, 221, 219, 457, 364, 2, 289, 1, 2, 293, 371, 286, 285, 291, 294, 294, 286, 283, 287,
        277, 349, 272, 2, 275, 275, 345, 270, 272, 2, 1, 207, 277, 267, 342, 342, 269, 258, 335,
        257, 242, 308, 313, 329, 321, 248, 323, 321, 311, 241, 311, 306, 2, 233, 233, 364, 2, 1,
        373, 230, 224, 367, 290, 2, 224, 160, 1, 2, 235, 225, 1, 1, 230, 227, 293, 291, 226, 216,
        226, 228, 1, 2, 238, 232, 232, 2, 232, 1, 2, 288, 283, 226, 226, 269, 276, 2, 1, 224, 1, 2,
        224, 271, 271, 217, 207, 1, 1, 275, 1, 1, 275, 273, 209, 1, 1, 268, 254, 244, 183, 241, 2,
        1, 255, 249, 189, 242, 236, 2, 2, 234, 229,
    ];
    assert_eq!(counts, expected);
    assert_eq!(s.points[..2], [[12, 5, 5, 5], [12, 1, 2, 1]]);
    assert_eq!(s.treasures[..2], [7, 1]);
    assert_eq!(s.bag.len(), 13);
}

#[test]
fn legal_counts_follow_the_reference_trace_with_every_variant() {
    let options = Options {
        side: Side::Advanced,
        buildings: true,
        english: true,
        wonder: true,
        open_scoring: false,
    };
    let (counts, s) = trace(3, options);
    let expected: [usize; 232] = [
        452, 447, 488, 487, 489, 483, 436, 277, 481, 323, 740, 733, 281, 277, 330, 517, 566, 436,
        321, 321, 441, 436, 563, 548, 332, 328, 446, 437, 434, 419, 316, 317, 432, 432, 427, 419,
        422, 428, 4, 336, 340, 450, 401, 439, 430, 429, 418, 387, 381, 421, 377, 421, 421, 478,
        478, 414, 417, 417, 422, 463, 2, 1, 463, 413, 413, 404, 399, 444, 489, 2, 389, 377, 373,
        367, 472, 421, 377, 377, 365, 360, 406, 316, 362, 354, 267, 267, 354, 340, 362, 359, 278,
        276, 361, 356, 353, 345, 422, 2, 410, 345, 345, 345, 348, 2, 1, 434, 350, 2, 2, 367, 364,
        357, 2, 1, 363, 288, 1, 1, 292, 366, 4, 354, 427, 377, 272, 1, 1, 276, 426, 339, 346, 341,
        269, 265, 1, 1, 345, 267, 2, 339, 339, 2, 336, 327, 260, 251, 317, 305, 292, 286, 291, 287,
        304, 294, 3, 1, 296, 257, 284, 4, 279, 1, 1, 356, 345, 1, 1, 2, 310, 2, 1, 1, 1, 1, 351,
        355, 348, 2, 1, 434, 425, 346, 334, 336, 336, 404, 398, 390, 384, 1, 1, 256, 256, 381, 311,
        377, 2, 1, 377, 242, 236, 364, 284, 1, 1, 370, 295, 235, 233, 287, 223, 1, 1, 2, 351, 351,
        2, 1, 210, 138, 197, 165, 334, 321, 207, 195, 1, 1, 205, 205, 327, 219,
    ];
    assert_eq!(counts, expected);
    assert_eq!(s.points[..3], [[12, 3, 5, 8], [4, 1, 2, 2], [23, 0, 5, 0]]);
    assert_eq!(s.treasures[..3], [3, 1, 4]);
    assert!(s.bag.is_empty());
}

#[test]
fn random_games_keep_counts_ids_and_positions_consistent() {
    let mut rng = SplitMix64::new(11);
    for game in 0..12 {
        let options = Options {
            side: if game % 2 == 0 {
                Side::Standard
            } else {
                Side::Advanced
            },
            buildings: game % 3 == 0,
            english: game % 4 < 2,
            wonder: game % 5 < 3,
            open_scoring: false,
        };
        let mut s = fresh_game(2 + game % 3, options, &mut rng);
        while !s.over {
            let moves = s.moves();
            let ids = s.legal_ids();
            assert_eq!(moves.count(), ids.len());
            assert!(ids.windows(2).all(|w| w[0] < w[1]), "ascending, no repeats");
            for (k, id) in ids.iter().enumerate().step_by(7) {
                assert_eq!(moves.nth(k), *id);
            }
            // a random pick is the id a drawn index names
            let mut twin = rng.clone();
            assert_eq!(moves.random(&mut twin), moves.nth(rng.below(ids.len())));
            // the position holds the whole state
            let again = State::from_position(&s.to_position()).unwrap();
            assert_eq!(again, s);
            // an id that is not legal is refused and changes nothing
            let before = s.clone();
            let bad = (0..ACTION_COUNT).find(|i| !ids.contains(i)).unwrap();
            assert!(s.apply_id(bad, &mut NoEvents).is_err());
            assert_eq!(s, before);
            let id = ids[rng.below(ids.len())];
            let mut events = Vec::new();
            s.apply_id(id, &mut events).unwrap();
            let mut quiet = before.clone();
            quiet.apply_legal(id, &mut NoEvents);
            assert_eq!(quiet, s, "events or none, the same state");
            for e in &events {
                let names: Vec<&str> = DYNASTIES.to_vec();
                assert!(!e.text(&names).is_empty());
            }
        }
        assert!(s.legal_ids().is_empty());
        let result = s.result();
        assert!(result.iter().any(|r| r.place == 1));
    }
}

#[test]
fn hidden_tiles_are_redealt_keeping_every_size() {
    let mut rng = SplitMix64::new(5);
    let mut s = fresh_game(3, Options::default(), &mut rng);
    for _ in 0..30 {
        let moves = s.moves();
        let id = moves.nth(rng.below(moves.count()));
        s.apply_legal(id, &mut NoEvents);
    }
    let mut pool = s.hidden_pool(0);
    pool.reverse();
    let dealt = s.deal_hidden(0, &pool);
    assert_eq!(dealt.hands[0], s.hands[0], "the seat's own hand stays");
    for seat in 1..3 {
        let size = |h: [u8; 4]| h.iter().map(|c| *c as u32).sum::<u32>();
        assert_eq!(size(dealt.hands[seat]), size(s.hands[seat]));
    }
    assert_eq!(dealt.bag.len(), s.bag.len());
    let mut front = dealt.bag.as_slice().to_vec();
    front.truncate(3);
    let mut ordered = dealt.clone();
    assert!(ordered.order_pile(&front));
    let n = ordered.bag.len();
    let drawn: Vec<u8> = ordered.bag.as_slice()[n - 3..]
        .iter()
        .rev()
        .copied()
        .collect();
    assert_eq!(drawn, front);
    assert!(!ordered.clone().order_pile(&[0; 100]));
}

#[test]
fn a_state_is_a_small_plain_value() {
    // clones are what tree search pays for: no heap, about a kilobyte and a quarter (the
    // realm keeps its kingdoms with their dilations and overlaps)
    assert!(
        std::mem::size_of::<State>() <= 1280,
        "{}",
        std::mem::size_of::<State>()
    );
}

#[test]
fn every_cell_name_parses_inside_actions() {
    for c in [0, 15, 16, 175] {
        let text = format!("tile red {}", cell_name(c).to_lowercase());
        assert_eq!(
            parse_ascii(&text),
            Ok(Parsed::Action(Action::Tile { color: 0, cell: c }))
        );
    }
}
