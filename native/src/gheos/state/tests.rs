//! Focused tests of the rules (the lockstep tests in tests/gheos compare everything with the
//! Python reference); tile numbers refer to the packaged tiles.txt.

use super::*;
use crate::gheos::events::Event;
use crate::gheos::geometry::cell_index;
use crate::gheos::notation::{ascii_words, Plain};
use crate::gheos::parts::Parts;
use crate::gheos::tiles::packaged;

/// Random games of 2 to 4 players, one per seed in `seeds` (dealt and played with it):
/// `check(game, its legal ids, seed)` before each action.
fn in_random_games(seeds: std::ops::Range<u32>, mut check: impl FnMut(&State, &[u32], u32)) {
    let tiles = packaged();
    for seed in seeds {
        let names = ["a", "b", "c", "d"][..2 + seed as usize % 3]
            .iter()
            .map(|n| n.to_string())
            .collect();
        let mut game = State::deal(tiles.clone(), names, &[seed]);
        let mut rng = SplitMix64::new(u64::from(seed));
        let mut ids = Vec::new();
        while !game.is_over() {
            game.legal_ids(&mut ids);
            check(&game, &ids, seed);
            let id = ids[rng.below(ids.len())];
            game.apply_legal(id, &mut Log::new(false));
        }
    }
}

fn cell(row: i64, col: i64) -> u16 {
    cell_index(row, col).unwrap()
}

/// The reference's number of the region of `(row, col)` lying on its edge `edge`.
fn region(game: &State, row: i64, col: i64, edge: usize) -> u16 {
    let slot = game.board.slot_of(cell(row, col)).unwrap();
    game.stats_key_of_node(game.node_on(slot, edge))
}

/// A two-player game: the start tile plus `board` ((row, col, tile, rotation)), these hands,
/// civilizations (colour, row, col, edge) and followers; the other tiles in the stack.
fn table(
    board: &[(i64, i64, u8, u8)],
    hands: [&[u8]; 2],
    civs: &[(u8, i64, i64, usize)],
    held: [[u8; 6]; 2],
) -> State {
    let mut placed = vec![(START_CELL, 0, 0)];
    placed.extend(board.iter().map(|&(r, c, t, rot)| (cell(r, c), t, rot)));
    let used: Vec<u8> = placed
        .iter()
        .map(|p| p.1)
        .chain(hands.iter().flat_map(|h| h.iter().copied()))
        .collect();
    let mut stack: Vec<u8> = (0..52).filter(|n| !used.contains(n)).collect();
    stack.extend([EPOCH; 8]);
    stack.reverse();
    let mut supply = [FOLLOWERS; 6];
    for row in &held {
        for c in 0..6 {
            supply[c] -= row[c];
        }
    }
    let mut parts = Parts {
        active: 0,
        phase: Phase::Tile,
        board: placed,
        hands: hands.iter().map(|h| h.to_vec()).collect(),
        stack,
        removed: vec![],
        civs: vec![],
        held: held.to_vec(),
        supply,
        points: vec![0, 0],
        tokens: vec![3, 3],
        epochs: 0,
        conflict: None,
    };
    let names = vec!["north".to_string(), "east".to_string()];
    let game = State::from_parts(packaged(), names.clone(), &parts).unwrap();
    parts.civs = civs
        .iter()
        .map(|&(c, r, col, edge)| (c, region(&game, r, col, edge)))
        .collect();
    State::from_parts(packaged(), names, &parts).unwrap()
}

fn act(game: &mut State, action: &str) -> Result<Vec<Event>, Refusal> {
    let mut log = Log::new(true);
    game.apply_words(&ascii_words(action), &Plain, &mut log)?;
    Ok(log.events)
}

fn kinds(events: &[Event]) -> Vec<&'static str> {
    events.iter().map(Event::kind).collect()
}

fn legal(game: &State) -> Vec<String> {
    let mut ids = Vec::new();
    game.legal_ids(&mut ids);
    ids.iter()
        .map(|&id| game.action_string(i64::from(id)).unwrap())
        .collect()
}

const RED: u8 = 0;
const BLUE: u8 = 3;

/// Red on t0's landmass with t3 (sword) and t1; blue on t0's coast with t2 and t6 (two
/// swords); the empty cell -1,0 touches both continents.
fn war_table(held: [[u8; 6]; 2]) -> State {
    table(
        &[(0, -1, 3, 0), (-1, -1, 1, 0), (0, 1, 2, 0), (-1, 1, 6, 0)],
        [&[19, 30], &[33, 34]],
        &[(RED, 0, 0, 0), (BLUE, 0, 0, 2)],
        held,
    )
}

#[test]
fn a_war_by_placement_is_paid_for_and_won_by_the_most_swords() {
    let mut game = war_table([[2, 0, 0, 1, 0, 0], [1, 0, 0, 2, 0, 0]]);
    let events = act(&mut game, "place t19 -1,0 r0").unwrap();
    assert_eq!(kinds(&events), ["place", "conflict"]);
    assert_eq!(game.phase, Phase::Pay);
    assert_eq!(legal(&game), ["pay red", "pay blue"]);
    let events = act(&mut game, "pay red").unwrap();
    assert_eq!(kinds(&events)[..4], ["pay", "war", "civ_removed", "temple"]);
    assert!(events.contains(&Event::War {
        fighters: vec![RED, BLUE],
        winner: BLUE
    }));
    assert!(!game.on_table(RED) && game.on_table(BLUE));
    assert_eq!(
        game.supply[usize::from(RED)],
        5,
        "every red follower returned"
    );
    assert_eq!(game.points[0], 2, "the cup temple: t0's and t2's cups");
    assert_eq!(game.phase, Phase::Civ);
    let names: Vec<String> = vec!["north".into(), "east".into()];
    let text = events[2].text(&names);
    assert_eq!(
        text,
        "the red civilization lost: its marker and all its followers return to the supply \
         (north 1, east 1)"
    );
}

#[test]
fn without_a_follower_no_war_can_be_started() {
    let mut game = war_table([[0; 6], [1, 0, 0, 0, 0, 0]]);
    let listed = legal(&game);
    assert!(!listed.iter().any(|a| a.starts_with("place t19 -1,0")));
    assert!(listed.contains(&"place t30 -1,0 r0".to_string()));
    assert!(!listed.contains(&"place t30 -1,0 r1".to_string()));
    let before = game.to_parts();
    let refused = act(&mut game, "place t19 -1,0 r0").unwrap_err();
    assert_eq!(
        refused.text(),
        "this placement starts a war, and you have no follower to pay for it"
    );
    assert_eq!(game.to_parts(), before, "a refusal changes nothing");
}

/// Red on t0's landmass, t2 on 0,-1 and `far` on 0,-2.
fn migration_table(far: u8, hand: u8) -> State {
    table(
        &[(0, -1, 2, 0), (0, -2, far, 0)],
        [&[hand, 30], &[]],
        &[(RED, 0, 0, 0)],
        [[1, 0, 0, 0, 0, 0], [2, 0, 0, 0, 0, 0]],
    )
}

#[test]
fn a_split_continent_migrates_to_the_most_wheat_or_the_players_choice() {
    // t44 at r2 puts its wheat towards 0,-2: 2 wheat there against t0's 1.
    let mut game = migration_table(1, 44);
    let events = act(&mut game, "replace t44 0,-1 r2").unwrap();
    assert_eq!(
        kinds(&events)[..4],
        ["replace", "conflict", "pay", "migration"]
    );
    let anchor = usize::from(game.civs[usize::from(RED)]);
    assert_eq!(game.region_ref(anchor).name(), "0,-2:s");
    assert_eq!(game.removed.as_slice(), &[2]);
    // With t3 (no wheat) on 0,-2 both parts hold one wheat: the player chooses.
    let mut game = migration_table(3, 44);
    act(&mut game, "replace t44 0,-1 r2").unwrap();
    assert_eq!(game.phase, Phase::Migrate);
    assert_eq!(legal(&game), ["migrate red 0,-2:s", "migrate red 0,-1:se"]);
    let refused = act(&mut game, "migrate red 0,-1").unwrap_err();
    assert!(refused.text().contains("more than one possible area"));
    act(&mut game, "migrate red 0,-1:se").unwrap();
    assert_eq!(game.phase, Phase::Civ);
}

#[test]
fn a_civilization_migrating_to_an_island_perishes() {
    // t26 on 0,-2 shows a wheat coast to 0,-1; t41 at r2 adds its wheat coast there.
    let mut game = migration_table(26, 41);
    let events = act(&mut game, "replace t41 0,-1 r2").unwrap();
    let names: Vec<String> = vec!["north".into(), "east".into()];
    let removed: Vec<String> = events
        .iter()
        .filter(|e| e.kind() == "civ_removed")
        .map(|e| e.text(&names))
        .collect();
    assert_eq!(removed.len(), 1);
    assert!(removed[0].starts_with("the red civilization migrates to an island and perishes"));
    assert!(!game.on_table(RED));
}

#[test]
fn the_quick_checks_agree_with_the_plan() {
    // For players without followers, every tile action left out starts a war or migration
    // and every one listed does not, over random games (the legal list checks placements
    // and replacements around the cell; applying one plans it over the whole map).
    let mut checked = 0;
    in_random_games(0..300, |game, ids, seed| {
        let seat = usize::from(game.active);
        if game.phase == Phase::Tile && game.held[seat].iter().all(|&n| n == 0) {
            for (hslot, &number) in game.sorted_hand(seat).as_slice().iter().enumerate() {
                for replacing in [false, true] {
                    let cells: Vec<u16> = if replacing {
                        (0..game.board.slots())
                            .filter(|&s| !game.tile_at(s).pyramid)
                            .map(|s| game.board.cell[s])
                            .collect()
                    } else {
                        game.frontier.as_slice().to_vec()
                    };
                    for cell in cells {
                        for &rot in &game.tiles.tiles[usize::from(number)].rotations {
                            let base = if replacing { ids::REPLACE } else { ids::PLACE };
                            let id = base
                                + (hslot as u32 * geometry::CELLS + ids::position(cell)) * 3
                                + u32::from(rot);
                            let mut trial = game.clone();
                            let done = trial.tile_action(
                                number,
                                cell,
                                rot,
                                replacing,
                                &mut Log::new(false),
                            );
                            assert_eq!(done.is_ok(), ids.contains(&id), "seed {seed}");
                            checked += 1;
                        }
                    }
                }
            }
        }
    });
    assert!(checked > 1000, "only {checked} tile actions checked");
}

#[test]
fn ids_and_their_notation_name_the_same_actions() {
    let tiles = packaged();
    for seed in 0..40u32 {
        let names = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        let mut by_id = State::deal(tiles.clone(), names, &[seed]);
        let mut by_text = by_id.clone();
        let mut rng = SplitMix64::new(u64::from(seed));
        let mut ids = Vec::new();
        while !by_id.is_over() {
            by_id.legal_ids(&mut ids);
            let id = ids[rng.below(ids.len())];
            let text = by_id.action_string(i64::from(id)).unwrap();
            let mut log = Log::new(true);
            by_id
                .apply_id(i64::from(id), &ids, &Plain, &mut log)
                .unwrap();
            let events = act(&mut by_text, &text).unwrap();
            assert_eq!(log.events, events);
            assert_eq!(by_id.to_parts(), by_text.to_parts());
        }
        // A finished game refuses everything, ids included.
        let refused = by_id.apply_id(i64::from(ids::PASS), &[], &Plain, &mut Log::new(true));
        assert_eq!(refused.unwrap_err().text(), "the game is over");
    }
}

#[test]
fn positions_round_trip_through_parts_and_bytes() {
    let tiles = packaged();
    let names = vec!["a".to_string(), "b".to_string()];
    let mut game = State::deal(tiles.clone(), names.clone(), &[12]);
    let mut rng = SplitMix64::new(3);
    let mut ids = Vec::new();
    let mut seen_conflict = false;
    for seed in 0..3000u32 {
        if game.is_over() {
            game = State::deal(tiles.clone(), names.clone(), &[seed]);
        }
        let parts = game.to_parts();
        let back = Parts::decode(&parts.encode()).unwrap();
        assert_eq!(back, parts);
        let again = State::from_parts(tiles.clone(), names.clone(), &back).unwrap();
        assert_eq!(again.to_parts(), parts);
        let mut mine = Vec::new();
        again.legal_ids(&mut mine);
        game.legal_ids(&mut ids);
        assert_eq!(mine, ids);
        seen_conflict |= game.phase.in_conflict();
        let id = ids[rng.below(ids.len())];
        game.apply_legal(id, &mut Log::new(false));
    }
    assert!(seen_conflict, "no pending conflict was round-tripped");
    assert!(Parts::decode(&[9, 9]).is_err());
}

#[test]
fn refusals_give_the_references_reasons() {
    let mut game = table(&[], [&[2, 30], &[5, 6]], &[], [[0; 6]; 2]);
    let m = |text: &str| Refusal::Malformed(text.to_string());
    let d = |text: &str| Refusal::Disallowed(text.to_string());
    let cases = [
        ("", m("empty action")),
        ("dance", m("unknown action 'dance': the actions are place, replace, pay, migrate, winner, start, take, token and pass")),
        ("take red", d("'take' is not possible now: north must place or replace a tile, e.g. 'place t12 0,1 r0'")),
        ("take purple", m("'purple' is not a colour (one of red, green, yellow, blue, black, white)")),
        ("place t2", m("write 'place <tile> <cell> <rotation>', e.g. 'place t12 0,1 r0'")),
        ("place 2 1,0 r0", m("'2' is not a tile: tiles are named t0 to t51")),
        ("place t52 1,0 r0", m("'t52' is not a tile: tiles are named t0 to t51")),
        ("place t009 1,0 r0", d("t9 is not in your hand (you hold t2, t30)")),
        ("place t9 1;0 r0", m("'1;0' is not a cell name: write row,col such as 0,1 or -2,3")),
        ("place t2 40,0 r0", m("cell '40,0' is too far from the start tile")),
        ("place t2 1,0 r3", m("'r3' is not a rotation: write r0, r1 or r2")),
        ("place t2 5,5 r0", d("5,5 does not share an edge with a tile on the table")),
        ("place t2 0,0 r0", d("0,0 already holds a tile (use replace)")),
        ("replace t2 1,0 r0", d("there is no tile on 1,0 to replace (use place)")),
        ("replace t2 0,0 r0", d("t0 on 0,0 has a pyramid: it can never be replaced")),
        ("start red 0,0:n", m("0,0 is an up cell: its edges are s, nw, ne, not 'n'")),
        ("token now", m("write just 'token'")),
    ];
    let before = game.to_parts();
    for (action, reason) in cases {
        assert_eq!(act(&mut game, action).unwrap_err(), reason, "{action:?}");
    }
    assert_eq!(game.to_parts(), before);
    // Ids: out of range, an empty hand slot, and a rotation another id stands for.
    assert_eq!(
        game.action_string(-1).unwrap_err().text(),
        "action id -1 is outside 0..191011"
    );
    let below = ids::PLACE + ids::position(cell(1, 0)) * 3;
    assert_eq!(
        game.id_text(i64::from(below) + 1).unwrap_err().text(),
        "action id 6235 (place t2 1,0 r1) is not legal: the same decision has another id \
         (see legal_action_ids())"
    );
    assert_eq!(game.id_text(i64::from(below)).unwrap(), "place t2 1,0 r0");
}

#[test]
fn a_game_ends_when_the_last_token_is_played_and_ranks_the_players() {
    let mut game = table(
        &[(1, 0, 5, 0)],
        [&[2, 30], &[7, 6]],
        &[(RED, 0, 0, 0)],
        [[2, 0, 0, 0, 0, 0], [0; 6]],
    );
    game.phase = Phase::Token;
    game.tokens = [1, 0, 0, 0];
    let events = act(&mut game, "token").unwrap();
    assert_eq!(kinds(&events), ["token", "end", "final_scoring", "result"]);
    assert!(game.is_over());
    // Red's continent holds t0's cup and t5's two: 3 cups a follower, twice (token, final).
    assert_eq!(game.points[..2], [12, 0]);
    let result = game.result();
    assert_eq!((result[0].place, result[1].place), (1, 2));
    let names: Vec<String> = vec!["north".into(), "east".into()];
    assert_eq!(
        events[3].text(&names),
        "result: 1. north 12 points, 2. east 0 points"
    );
}

/// Seconds this thread has run on a CPU (Linux's schedstat; wall time elsewhere), so that
/// the speed test means something on a busy machine.
fn cpu_seconds(wall: std::time::Instant) -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse::<f64>().ok())
        .map_or_else(|| wall.elapsed().as_secs_f64(), |ns| ns / 1e9)
}

#[test]
#[ignore]
fn playout_speed() {
    // cargo test --release playout_speed -- --ignored --nocapture
    let tiles = packaged();
    let clock = std::time::Instant::now();
    for players in [2usize, 4] {
        let start = cpu_seconds(clock);
        let mut actions = 0;
        let games = 20000;
        for seed in 0..games {
            let names = ["north", "east", "south", "west"][..players]
                .iter()
                .map(|n| n.to_string())
                .collect();
            let mut game = State::deal(tiles.clone(), names, &[seed as u32]);
            actions += game.random_playout(seed);
        }
        let dt = cpu_seconds(clock) - start;
        eprintln!(
            "{players} players: {:.0} games per CPU-second (deal included), {:.1} actions a \
             game, {:.3} us an action",
            games as f64 / dt,
            actions as f64 / games as f64,
            dt * 1e6 / actions as f64
        );
    }
}

#[test]
fn a_state_is_small_and_flat() {
    // Clones copy memory and allocate nothing unless a war or migration is pending.
    let size = std::mem::size_of::<State>();
    assert!(size < 2600, "a State takes {size} bytes");
}

/// Node by node, the same areas: the same root and the same totals at every root.
fn same_areas(a: &Areas, b: &Areas, board: &Board, what: &str) {
    for n in 0..board.slots() * 3 {
        assert_eq!(a.root[n], b.root[n], "{what}: node {n}");
        if a.root[n] != NONE && usize::from(a.root[n]) == n {
            assert_eq!(a.stats[n], b.stats[n], "{what}: area {n}");
        }
    }
}

#[test]
fn the_kept_and_replaced_areas_equal_areas_built_from_scratch() {
    // Over random games (2 to 4 players): after every action the kept areas are those built
    // from scratch, and every replacement the hand could make, derived again around its slot
    // alone, is the full build with the tile swapped.
    let mut replacements = 0;
    in_random_games(0..60, |game, _, seed| {
        let built = Areas::build(&game.board, &game.tiles, None);
        same_areas(&game.areas, &built, &game.board, &format!("seed {seed}"));
        if game.phase == Phase::Tile {
            let seat = usize::from(game.active);
            for &number in game.sorted_hand(seat).as_slice() {
                for slot in game.replaceable_slots() {
                    for &rot in &game.tiles.tiles[usize::from(number)].rotations {
                        let swap = Some((slot, number, rot));
                        let full = Areas::build(&game.board, &game.tiles, swap);
                        let near = game
                            .areas
                            .replaced(&game.board, &game.tiles, slot, number, rot);
                        same_areas(&near, &full, &game.board, &format!("seed {seed}"));
                        replacements += 1;
                    }
                }
            }
        }
    });
    assert!(replacements > 10_000, "only {replacements} replacements");
}
