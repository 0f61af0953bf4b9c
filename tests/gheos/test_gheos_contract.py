"""The contract surface: set-up, positions, views, hidden information, records, bad input."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from cradle import gheos
from cradle.core.contract import GameState
from cradle.core.record import GameRecord
from cradle.games import get_game
from tests.helpers.gheos import GheosState, build, position, unchanged_after

# Each test runs on both engines (tests/gheos/conftest.py).
pytestmark = pytest.mark.usefixtures("engine")


def random_game(seed: int, players: int, steps: int | None = None) -> tuple[GheosState, list[str]]:
    rng = random.Random(seed)
    state = gheos.new_game(players, seed)
    actions: list[str] = []
    while not state.is_over and (steps is None or len(actions) < steps):
        action = rng.choice(state.legal_actions())
        state.apply(action)
        actions.append(action)
    return state, actions


def test_module_surface() -> None:
    module = get_game("gheos")
    assert module is gheos
    assert (gheos.NAME, gheos.MIN_PLAYERS, gheos.MAX_PLAYERS) == ("gheos", 2, 4)
    assert issubclass(gheos.IllegalAction, ValueError)
    state = gheos.new_game()
    assert isinstance(state, GameState)
    assert state.players == ("north", "east")
    assert isinstance(state.to_move, int) and state.is_over is False


def test_new_game_set_up() -> None:
    state = gheos.new_game(4, seed=11, dynasties=["ann", "bob", "cy", "dee"])
    position = state.to_position()
    assert position["players"] == ["ann", "bob", "cy", "dee"]
    assert position["board"] == {"0,0": "t0 r0"}
    assert all(len(hand) == 2 for hand in position["hands"].values())
    assert len(position["stack"]) == 51 - 8 + 8
    assert position["stack"].count("epoch") == 8
    assert position["tokens"] == dict.fromkeys(position["players"], 3)
    assert position["phase"] == "tile" and position["pending"] is None
    assert gheos.new_game(4, seed=11).to_position()["stack"] == position["stack"]
    firsts = {gheos.new_game(3, seed=s).to_move for s in range(40)}
    assert firsts == {0, 1, 2}


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ({"players": 1}, "2 to 4 players"),
        ({"players": 5}, "2 to 4 players"),
        ({"players": "2"}, "must be an integer"),
        ({"players": 2, "dynasties": ["a"]}, "need 2 names"),
        ({"players": 2, "dynasties": ["a", "a"]}, "must differ"),
        ({"players": 2, "dynasties": ["a", ""]}, "non-empty string"),
        ({"players": 2, "options": {"bogus": 1}}, "unknown Gheos option"),
    ],
)
def test_new_game_refuses_bad_arguments(args: dict[str, Any], reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        gheos.new_game(**args)


@pytest.mark.parametrize("seed", [3, 4])
def test_positions_round_trip_at_every_step(seed: int) -> None:
    rng = random.Random(seed)
    state = gheos.new_game(2 + seed % 3, seed)
    while not state.is_over:
        data = state.to_position()
        json.dumps(data)
        again = gheos.from_position(json.loads(json.dumps(data)))
        assert again.to_position() == data
        assert again.legal_actions() == state.legal_actions()
        action = rng.choice(state.legal_actions())
        assert again.apply(action) == state.apply(action)
    assert gheos.from_position(state.to_position()).result() == state.result()


def test_records_replay_exactly() -> None:
    state, actions = random_game(21, 4)
    record = GameRecord("gheos", list(state.players), 21, gheos.options_to_dict(state.options))
    record.actions = actions
    replayed = GameRecord.from_dict(json.loads(record.to_json())).replay()
    assert replayed.to_position() == state.to_position()
    assert replayed.result() == state.result()


def test_clone_is_independent() -> None:
    state, _ = random_game(5, 3, steps=30)
    before = state.to_position()
    twin = state.clone()
    while not twin.is_over:
        twin.apply(twin.legal_actions()[-1])
    assert state.to_position() == before
    assert twin.to_position() != before


def test_views_show_own_hand_only_and_no_stack_order() -> None:
    state, _ = random_game(8, 3, steps=12)
    hands = state.to_position()["hands"]
    for seat, name in enumerate(state.players):
        view = state.view(seat)
        assert [tile["tile"] for tile in view["hand"]] == hands[name]
        assert view["hand_sizes"] == {n: len(h) for n, h in hands.items()}
        assert "stack" not in view and "hands" not in view
        text = json.dumps({k: v for k, v in view.items() if k not in ("map", "removed", "hand")})
        for other, hand in hands.items():
            if other != name:
                for tile in hand:
                    assert f'"{tile}"' not in text
    spectator = state.view(None)
    assert spectator["hand"] is None and spectator["seat"] is None
    assert spectator["points"] == state.to_position()["points"]  # victory points are open
    with pytest.raises(ValueError, match="no seat"):
        state.view(7)


def test_events_never_name_a_drawn_tile() -> None:
    rng = random.Random(2)
    state = gheos.new_game(2, 2)
    while not state.is_over:
        for event in state.apply(rng.choice(state.legal_actions())):
            assert set(event) >= {"type", "text"}
            if event["type"] == "draw":
                assert not any(word[1:].isdigit() for word in event["text"].split())


def test_sample_hidden_keeps_what_the_seat_knows() -> None:
    state, _ = random_game(13, 4, steps=25)
    seat = state.to_move
    rng = random.Random(0)
    samples = [state.sample_hidden(seat, rng) for _ in range(5)]
    for sample in samples:
        assert sample.view(seat) == state.view(seat)
        mine, theirs = state.to_position(), sample.to_position()
        pool = sorted(
            [t for n, h in mine["hands"].items() if n != state.players[seat] for t in h]
            + mine["stack"]
        )
        again = sorted(
            [t for n, h in theirs["hands"].items() if n != state.players[seat] for t in h]
            + theirs["stack"]
        )
        assert pool == again
        while not sample.is_over:  # a consistent, playable state
            sample.apply(sample.legal_actions()[0])
    assert len({json.dumps(s.to_position()["stack"]) for s in samples}) > 1


def test_result_rows() -> None:
    state, _ = random_game(9, 2)
    rows = state.result()
    assert [set(row) for row in rows] == [
        {"seat", "player", "points", "followers", "score", "place"}
    ] * 2
    best = max(rows, key=lambda row: (row["points"], row["followers"]))
    assert best["place"] == 1


MALFORMED, DISALLOWED = gheos.MalformedAction, gheos.DisallowedAction


@pytest.mark.parametrize(
    ("action", "kind", "reason"),
    [
        ("", MALFORMED, "empty action"),
        ("dance", MALFORMED, "unknown action 'dance'"),
        ("take red", DISALLOWED, "'take' is not possible now"),
        ("token", DISALLOWED, "'token' is not possible now"),
        ("token now", MALFORMED, "write just 'token'"),
        ("take purple", MALFORMED, "'purple' is not a colour"),
        ("place t2", MALFORMED, "write 'place <tile> <cell> <rotation>'"),
        ("place 2 1,0 r0", MALFORMED, "is not a tile"),
        ("place t52 1,0 r0", MALFORMED, "'t52' is not a tile"),
        ("place t9 1,0 r0", DISALLOWED, "t9 is not in your hand"),
        ("place t9 1;0 r0", MALFORMED, "not a cell name"),
        ("place t2 1,0 r3", MALFORMED, "not a rotation"),
        ("place t2 5,5 r0", DISALLOWED, "does not share an edge"),
        ("place t2 0,0 r0", DISALLOWED, "already holds a tile"),
        ("replace t2 1,0 r0", DISALLOWED, "no tile on 1,0 to replace"),
        ("replace t2 0,0 r0", DISALLOWED, "never be replaced"),
        ("start red 0,0:n", MALFORMED, "0,0 is an up cell: its edges are s, nw, ne"),
    ],
)
def test_bad_actions_are_refused_with_a_reason_and_change_nothing(
    action: str, kind: type[gheos.IllegalAction], reason: str
) -> None:
    """Malformed (no action of the notation, whatever the position: read first) or
    disallowed (read, and not allowed now), each with its reason."""
    state = build({}, hands={"north": ["t2", "t30"], "east": ["t5", "t6"]})
    assert reason in unchanged_after(state, action, kind)


@pytest.mark.parametrize("bad", [3.0, None, True, ["pass"]])
def test_actions_that_are_neither_strings_nor_ids_are_refused(bad: Any) -> None:
    state = gheos.new_game(2, 1)
    before = state.to_position()
    with pytest.raises(gheos.MalformedAction, match="string"):
        state.apply(bad)
    assert state.to_position() == before


def test_actions_are_case_and_space_insensitive() -> None:
    state = build({}, hands={"north": ["t2", "t30"], "east": ["t5", "t6"]})
    state.apply("  PLACE   T2 1,0   R0 ")
    assert state.to_position()["board"]["1,0"] == "t2 r0"


def test_every_legal_action_of_a_position_applies() -> None:
    state, _ = random_game(17, 3, steps=40)
    for action in state.legal_actions():
        state.clone().apply(action)


GOOD = position({"1,0": "t2 r0"}, civs={"red": "0,0:s"}, followers={"north": {"red": 1}})


def mutate(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(GOOD)
    for key, value in changes.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    return data


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ([], "must be a JSON object"),
        (mutate(colour="red"), "unknown position key"),
        (mutate(players=["a"]), "'players' must list 2 to 4"),
        (mutate(active=5), "'active' must be an integer from 0 to 1"),
        (mutate(phase="dance"), "'phase' must be one of"),
        (mutate(board={"1,0": "t2 r0"}), "start tile t0 must be on 0,0"),
        (mutate(board={"0,0": "t0 r0", "3,3": "t2 r0"}), "not joined to the start tile"),
        (mutate(board={"0,0": "t0 r0", "1,0": "t2 r5"}), "must hold 't<n> r<k>'"),
        (mutate(board={"0,0": "t0 r0", "1,0": "t77 r0"}), "is not a tile"),
        (mutate(board={"0,0": "t0 r0", "x": "t2 r0"}), "not a cell name"),
        (mutate(board={"0,0": "t0 r0", "1,0": "t2 r0", "0,1": "t2 r0"}), "t2 is both"),
        (mutate(stack=["t50"]), "epoch tiles not drawn yet"),
        (mutate(stack=["epoch"] * 8), "tiles missing from the position"),
        (mutate(removed=["t0"]), "cannot have been removed"),
        (mutate(civilizations={"pink": "0,0:s"}), "not a colour"),
        (mutate(civilizations={"red": "0,0"}), "write a region as 'cell:edge'"),
        (mutate(civilizations={"red": "0,0:n"}), "its edges are s, nw, ne"),
        (mutate(civilizations={"red": "0,0:ne"}), "not on a continent"),
        (mutate(civilizations={"red": "0,0:s", "blue": "1,0:n"}), "share a continent"),
        (mutate(followers={"north": {"red": 6}}), "from 0 to 5"),
        (mutate(followers={"north": {"red": 3}, "east": {"red": 3}}), "there are 5"),
        (mutate(followers={"north": {"blue": 1}}), "blue civilization is not on the table"),
        (mutate(followers={"nobody": {}}), "names unknown players"),
        (mutate(tokens={"north": 4}), "tokens must be an integer from 0 to 3"),
        (mutate(tokens={"north": 0, "east": 0}), "every scoring token is used"),
        (mutate(points={"north": -1}), "points must be an integer"),
        (mutate(epochs=6), "must be 'over'"),
        (mutate(phase="pay"), "needs its 'pending' conflict"),
        (mutate(pending={"kind": "pay"}), "'pending' must be null"),
        (mutate(hands={"north": ["t3", "t4", "t5"]}), "at most 2 tiles"),
        (mutate(hands={"north": [], "east": ["t3"]}, stack=None), "must hold a tile"),
        (mutate(options={"tiles": "/no/such/file"}), "unknown tile set"),
    ],
)
def test_bad_positions_are_refused_with_a_reason(data: Any, reason: str) -> None:
    with pytest.raises(ValueError) as caught:
        gheos.from_position(data)
    assert reason in str(caught.value)


def test_a_short_position_gets_defaults_and_a_seeded_stack() -> None:
    one = gheos.from_position({"players": ["a", "b"]}, seed=4)
    two = gheos.from_position({"players": ["a", "b"]}, seed=4)
    assert one.to_position() == two.to_position()
    data = one.to_position()
    assert data["board"] == {"0,0": "t0 r0"} and data["stack"].count("epoch") == 8
    assert all(len(hand) == 2 for hand in data["hands"].values())


def test_a_pending_conflict_round_trips() -> None:
    from tests.helpers.gheos import war_state

    state = war_state(extra={"-1,1": "t9 r0"}, followers={"north": {"red": 1, "blue": 1}})
    state.apply("place t19 -1,0 r0")
    assert state.phase == "pay"
    data = state.to_position()
    again = gheos.from_position(data)
    assert again.to_position() == data
    state.apply("pay red")
    again.apply("pay red")
    assert state.phase == again.phase == "war"
    data = state.to_position()
    assert gheos.from_position(data).to_position() == data
    broken = copy.deepcopy(data)
    broken["pending"]["wars"][0]["options"] = ["green"]
    with pytest.raises(ValueError, match="options must be some of its civilizations"):
        gheos.from_position(broken)


# --- exact determinization hooks: with_hidden and order_pile -----------------------------


def test_with_hidden_sets_every_hand_and_the_stack() -> None:
    state = gheos.new_game(3, 4)
    before = state.to_position()
    hands = [state.hand(seat) for seat in range(3)]
    stack = before["stack"]
    # Rotate the hands between seats and turn the stack over.
    new_hands = [hands[1], hands[2], hands[0]]
    other = state.with_hidden(new_hands, stack[::-1])
    after = other.to_position()
    assert [other.hand(seat) for seat in range(3)] == new_hands
    assert after["stack"] == stack[::-1]
    rest = ("hands", "stack")
    assert {k: v for k, v in after.items() if k not in rest} == {
        k: v for k, v in before.items() if k not in rest
    }
    assert state.to_position() == before  # a copy: the original is untouched
    # The seat to move plays the tiles it now holds.
    placed = {action.split()[1] for action in other.legal_actions()}
    assert placed == set(new_hands[other.to_move])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda h, s: (h[:1], s), "expected 2 hands"),
        (lambda h, s: ([h[0][:1], h[1]], s), "holds 2 tiles"),
        (lambda h, s: ([["t0", h[0][1]], h[1]], s), "exactly the hidden tiles"),
        (lambda h, s: ([["epoch", h[0][1]], h[1]], [h[0][0], *s[1:]]), "epoch"),
        (lambda h, s: ([["t99", h[0][1]], h[1]], s), "not a tile"),
        (lambda h, s: (h, s[1:]), "exactly the hidden tiles"),
    ],
)
def test_with_hidden_refuses_anything_but_the_hidden_tiles(change: Any, message: str) -> None:
    state = gheos.new_game(2, 3)
    before = state.to_position()
    hands = [state.hand(seat) for seat in range(2)]
    new_hands, stack = change(hands, before["stack"])
    with pytest.raises(ValueError, match=message):
        state.with_hidden(new_hands, stack)
    assert state.to_position() == before


def test_order_pile_puts_the_next_draws_on_top() -> None:
    state = gheos.new_game(2, 9)
    stack = state.to_position()["stack"]
    front = [stack[10], "epoch", stack[3]]
    if "epoch" in (stack[10], stack[3]):
        front = [stack[11], "epoch", stack[4]]
    state.order_pile(front)
    after = state.to_position()["stack"]
    assert after[:3] == front
    assert sorted(after) == sorted(stack)
    landscape = [t for t in stack if t != "epoch" and t not in front]
    assert [t for t in after if t != "epoch" and t not in front] == landscape
    # Telling it again, or a longer front that starts the same, keeps those in place.
    state.order_pile(front)
    assert state.to_position()["stack"] == after
    state.order_pile([*front, after[5]])
    assert state.to_position()["stack"][:4] == [*front, after[5]]
    # The end of the turn draws the first of them.
    seat = state.to_move
    while state.to_move == seat:
        state.apply(state.legal_actions()[0])
    assert front[0] in state.hand(seat) or front[0] == "epoch"


def test_order_pile_refuses_tiles_not_in_the_stack() -> None:
    state = gheos.new_game(2, 9)
    before = state.to_position()
    in_hand = state.hand(0)[0]
    for front in ([in_hand], ["t0"], [before["stack"][0], "nonsense"], ["epoch"] * 9):
        with pytest.raises(ValueError):
            state.order_pile(front)
        assert state.to_position() == before


def test_summary_is_the_views_public_numbers() -> None:
    # summary() carries the view's own keys and values for what it keeps: every area with a
    # civilization and every free continent.
    for seed, players in [(2, 2), (3, 3), (4, 4)]:
        state, _ = random_game(seed, players, steps=45)
        summary = state.summary()
        view = state.view(None)
        for key in ("players", "phase", "followers", "points", "tokens", "epochs_drawn"):
            assert summary[key] == view[key]
        assert summary["end_epoch"] == view["end_epoch"]
        kept = [
            {k: a[k] for k in summary["areas"][0]}
            for a in view["areas"]
            if a["civ"] is not None or a["kind"] == "continent"
        ]
        assert summary["areas"] == kept
        assert {c: v["area"] for c, v in summary["civilizations"].items()} == {
            c: v["area"] for c, v in view["civilizations"].items()
        }
        json.dumps(summary)
