"""The contract's surface for Tigris: views, hidden information, determinization, clones."""

from __future__ import annotations

import json
import random

import pytest

from cradle import tigris
from cradle.core.record import GameRecord


def advance(state: tigris.TigrisState, steps: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    done = []
    for _ in range(steps):
        if state.is_over:
            break
        action = rng.choice(state.legal_actions())
        state.apply(action)
        done.append(action)
    return done


def test_new_game_sets_up_the_standard_board() -> None:
    state = tigris.new_game(3, seed=5)
    position = state.to_position()
    temples = {c for c, v in position["board"].items() if v == "red*"}
    assert temples == set(tigris.board_map("standard")["temples"])
    assert len(temples) == 10
    assert all(len(h) == 6 for h in position["hands"].values())
    assert len(position["bag"]) == 153 - 10 - 18
    assert state.players == ("archer", "bull", "pot")
    assert 0 <= state.to_move < 3


def test_same_seed_same_game_and_different_seeds_differ() -> None:
    a, b, c = tigris.new_game(2, 11), tigris.new_game(2, 11), tigris.new_game(2, 12)
    assert a.to_position() == b.to_position()
    assert a.to_position()["bag"] != c.to_position()["bag"]


def test_views_hide_other_hands_points_and_bag() -> None:
    state = tigris.new_game(3, seed=3)
    advance(state, 40)
    position = state.to_position()
    for seat, dynasty in enumerate(state.players):
        view = state.view(seat)
        text = json.dumps(view)
        assert view["hand"] == position["hands"][dynasty]
        assert set(view["points"]) == {dynasty}
        assert "bag" not in view and "discards" not in view
        assert view["bag_size"] == len(position["bag"])
        assert "seed" not in text
    spectator = state.view(None)
    assert spectator["hand"] is None and spectator["points"] == {}


def test_open_scoring_shows_every_players_points() -> None:
    state = tigris.new_game(2, seed=3, options=tigris.Options(open_scoring=True))
    assert set(state.view(0)["points"]) == {"archer", "bull"}


def test_sample_hidden_keeps_everything_the_seat_sees() -> None:
    state = tigris.new_game(4, seed=9)
    advance(state, 60, seed=4)
    rng = random.Random(0)
    for seat in range(4):
        for _ in range(5):
            sample = state.sample_hidden(seat, rng)
            assert sample.view(seat) == state.view(seat)
            assert tigris.from_position(sample.to_position()).to_position() == sample.to_position()
    samples = {json.dumps(state.sample_hidden(0, rng).to_position()["hands"]) for _ in range(10)}
    assert len(samples) > 1, "other hands are really re-sampled"


def test_sample_hidden_changes_nothing_in_the_original() -> None:
    state = tigris.new_game(2, seed=2)
    advance(state, 20)
    before = state.to_position()
    state.sample_hidden(1, random.Random(1))
    assert state.to_position() == before


def test_clone_is_independent() -> None:
    state = tigris.new_game(2, seed=8)
    advance(state, 10)
    before = state.to_position()
    copy = state.clone()
    advance(copy, 30, seed=2)
    assert state.to_position() == before
    assert copy.to_position() != before


def test_legal_actions_returns_a_fresh_list() -> None:
    state = tigris.new_game(2, seed=8)
    legal = state.legal_actions()
    legal.clear()
    assert state.legal_actions()


def test_illegal_action_leaves_state_unchanged() -> None:
    state = tigris.new_game(2, seed=8)
    before = state.to_position()
    with pytest.raises(tigris.IllegalAction):
        state.apply("tile blue A1")
    assert state.to_position() == before


def test_record_replays_to_identical_state(tmp_path: object) -> None:
    state = tigris.new_game(3, seed=21)
    actions = advance(state, 120, seed=3)
    record = GameRecord("tigris", list(state.players), 21, {}, actions)
    path = f"{tmp_path}/game.json"
    record.save(path)
    assert GameRecord.load(path).replay().to_position() == state.to_position()


def test_every_legal_action_is_in_the_fixed_action_list() -> None:
    known = set(tigris.all_action_strings())
    state = tigris.new_game(4, seed=1)
    rng = random.Random(1)
    while not state.is_over:
        legal = state.legal_actions()
        assert set(legal) <= known
        state.apply(rng.choice(legal))


def test_result_ranks_and_reveals_points_at_the_end() -> None:
    state = tigris.new_game(2, seed=4)
    advance(state, 10_000, seed=4)
    assert state.is_over
    result = state.result()
    assert {r["place"] for r in result} <= {1, 2}
    view = state.view(0)
    assert set(view["points"]) == {"archer", "bull"}
    assert view["result"] == result


def test_action_ids_match_the_strings_and_apply_alike() -> None:
    names = tigris.all_action_strings()
    assert len(names) == len(set(names)) == 3398
    for seed in (3, 4):
        by_text = tigris.new_game(3, seed, tigris.Options(buildings=True, wonder=True))
        by_id = by_text.clone()
        rng = random.Random(seed)
        while not by_text.is_over:
            legal = by_text.legal_actions()
            ids = by_id.legal_action_ids()
            assert [names[i] for i in ids] == legal
            assert ids == sorted(set(ids)), "ids come ascending (OpenSpiel's order)"
            pick = rng.randrange(len(legal))
            by_text.apply(legal[pick])
            by_id.apply(ids[pick])
            assert by_id.to_position() == by_text.to_position()


def test_bad_action_ids_are_refused() -> None:
    state = tigris.new_game(2, seed=1)
    before = state.to_position()
    for bad in (-1, 3398, True):
        with pytest.raises(tigris.IllegalAction):
            state.apply(bad)  # type: ignore[arg-type]
    assert state.to_position() == before


def test_hand_accessor_matches_the_view() -> None:
    state = tigris.new_game(3, seed=6)
    advance(state, 25)
    assert all(state.hand(seat) == state.view(seat)["hand"] for seat in range(3))


# --- exact determinization hooks: with_hidden and order_pile -----------------------------


def test_with_hidden_sets_every_hand_and_the_bag() -> None:
    state = tigris.new_game(3, seed=4)
    advance(state, 15)
    before = state.to_position()
    hands = [state.hand(seat) for seat in range(3)]
    bag = before["bag"]
    pool = [t for hand in hands for t in hand] + bag
    random.Random(1).shuffle(pool)
    sizes = [len(h) for h in hands]
    new_hands = [pool[sum(sizes[:i]) : sum(sizes[: i + 1])] for i in range(3)]
    new_bag = pool[sum(sizes) :]
    other = state.with_hidden(new_hands, new_bag)
    after = other.to_position()
    for seat, name in enumerate(after["players"]):
        assert sorted(after["hands"][name]) == sorted(new_hands[seat])
    assert after["bag"] == new_bag
    rest = ("hands", "bag")
    assert {k: v for k, v in after.items() if k not in rest} == {
        k: v for k, v in before.items() if k not in rest
    }
    assert state.to_position() == before


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda h, b: (h[:1], b), "expected 2 hands"),
        (lambda h, b: ([h[0][:5], h[1]], b), "holds 6 tiles"),
        (lambda h, b: ([["red"] * 6, h[1]], b), "exactly the hidden tiles"),
        (lambda h, b: ([["purple", *h[0][1:]], h[1]], b), "not a tile colour"),
        (lambda h, b: (h, b[1:]), "exactly the hidden tiles"),
    ],
)
def test_with_hidden_refuses_anything_but_the_hidden_tiles(change: object, message: str) -> None:
    state = tigris.new_game(2, seed=3)
    before = state.to_position()
    hands = [state.hand(seat) for seat in range(2)]
    new_hands, bag = change(hands, before["bag"])  # type: ignore[operator]
    with pytest.raises(ValueError, match=message):
        state.with_hidden(new_hands, bag)
    assert state.to_position() == before


def test_order_pile_puts_the_next_draws_on_top() -> None:
    state = tigris.new_game(2, seed=9)
    bag = state.to_position()["bag"]
    front = ["black", "black", "green", "blue"]
    state.order_pile(front)
    after = state.to_position()["bag"]
    assert after[:4] == front
    assert sorted(after) == sorted(bag)
    # A swap draws them, first drawn first.
    hand = state.hand(0)
    state.apply(f"swap {hand[0]} {hand[1]}")
    got = sorted(state.hand(0))
    assert got == sorted([*hand[2:], "black", "black"])


def test_order_pile_refuses_tiles_not_in_the_bag() -> None:
    state = tigris.new_game(2, seed=9)
    before = state.to_position()
    for front in (["purple"], ["red"] * 100):
        with pytest.raises(ValueError):
            state.order_pile(front)
        assert state.to_position() == before
