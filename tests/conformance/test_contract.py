"""The contract conformance suite: every game registered in ``cradle.games`` is checked here.

A new game only has to register to be covered, and every test runs on each engine (the
``engine`` fixture of tests/conftest.py). Everything goes through the contract of
docs/contract.md: legal actions apply, illegal ones raise and change nothing, views never leak
hidden information (a view stays the same when what its seat cannot see is re-sampled), clones
are independent, positions and records round-trip.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cradle.core.record import GameRecord
from cradle.games import game_names, get_game

GAMES = game_names()
pytestmark = pytest.mark.usefixtures("engine")
# Checks that cost a view or a re-sample run on every CHECK_EVERY-th state of a game.
CHECK_EVERY = 5


def _tables() -> list[tuple[str, int]]:
    tables = []
    for name in GAMES:
        module = get_game(name)
        tables += [(name, n) for n in range(module.MIN_PLAYERS, module.MAX_PLAYERS + 1)]
    return tables


TABLES = _tables()


def _play(
    name: str, players: int, seed: int, engine: str | None = None
) -> Iterator[tuple[Any, list[str]]]:
    """Each state of a random game (advanced in place) with the actions taken so far, on
    ``engine`` (None: the test's, ``CRADLE_ENGINE``)."""
    module = get_game(name)
    state = module.new_game(players, seed, module.options_from_dict({}), engine=engine)
    rng = random.Random(seed)
    actions: list[str] = []
    while True:
        yield state, actions
        if state.is_over:
            return
        action = rng.choice(state.legal_actions())
        events = state.apply(action)
        actions.append(action)
        assert isinstance(events, list)
        for event in events:
            assert isinstance(event, dict)
            assert isinstance(event.get("type"), str) and isinstance(event.get("text"), str)
        json.dumps(events)


@pytest.mark.parametrize(("name", "players"), TABLES)
def test_random_games_follow_the_contract(name: str, players: int) -> None:
    module = get_game(name)
    assert issubclass(module.IllegalAction, ValueError)
    for seed in (1, 2):
        steps = 0
        for state, _ in _play(name, players, seed):
            steps += 1
            assert len(state.players) == players
            assert isinstance(state.is_over, bool)
            legal = state.legal_actions()
            assert all(isinstance(a, str) for a in legal)
            assert len(set(legal)) == len(legal), "an action is listed twice"
            if state.is_over:
                assert legal == []
                result = state.result()
                assert sorted(r["seat"] for r in result) == list(range(players))
                assert min(r["place"] for r in result) == 1
                assert all(1 <= r["place"] <= players for r in result)
            else:
                assert legal, "a game that is not over offers no action"
                assert 0 <= state.to_move < players
        assert steps > 5


@pytest.mark.parametrize(("name", "players"), TABLES)
def test_views_never_leak_hidden_information(name: str, players: int) -> None:
    rng = random.Random(7)
    changed = 0
    for index, (state, _) in enumerate(_play(name, players, seed=3)):
        if index % CHECK_EVERY:
            continue
        public = state.view(None)
        json.dumps(public)
        for seat in range(players):
            view = state.view(seat)
            json.dumps(view)
            for _ in range(2):
                other = state.sample_hidden(seat, rng)
                # What the seat sees, and what everyone sees, cannot depend on what it cannot.
                assert other.view(seat) == view
                assert other.view(None) == public
                if state.to_move == seat:
                    assert other.legal_actions() == state.legal_actions()
                changed += other.to_position() != state.to_position()
        assert state.to_position() == state.to_position()  # re-sampling left it alone
    assert changed > 0, "sample_hidden never changed anything: the check would prove nothing"


@pytest.mark.parametrize(("name", "players"), TABLES)
def test_clones_are_independent(name: str, players: int) -> None:
    rng = random.Random(5)
    for index, (state, _) in enumerate(_play(name, players, seed=4)):
        if index % CHECK_EVERY or state.is_over:
            continue
        before = state.to_position()
        copy = state.clone()
        assert copy.to_position() == before
        copy.apply(rng.choice(copy.legal_actions()))
        assert state.to_position() == before
        other = state.clone()
        state_copy = state.clone()
        state_copy.apply(state_copy.legal_actions()[0])
        assert other.to_position() == before


@pytest.mark.parametrize(("name", "players"), TABLES)
def test_positions_round_trip(name: str, players: int) -> None:
    module = get_game(name)
    for index, (state, _) in enumerate(_play(name, players, seed=6)):
        if index % CHECK_EVERY and not state.is_over:
            continue
        position = state.to_position()
        again = module.from_position(json.loads(json.dumps(position)))
        assert again.to_position() == position
        assert again.to_move == state.to_move and again.is_over == state.is_over
        assert again.legal_actions() == state.legal_actions()
        for seat in [None, *range(players)]:
            assert again.view(seat) == state.view(seat)
        if not state.is_over:
            action = state.legal_actions()[-1]
            a, b = state.clone(), again
            a.apply(action)
            b.apply(action)
            assert a.to_position() == b.to_position()


@pytest.mark.parametrize(("name", "players"), TABLES)
def test_records_replay_to_the_same_state(name: str, players: int) -> None:
    module = get_game(name)
    last: Any = None
    taken: list[str] = []
    for state, actions in _play(name, players, seed=8):
        last, taken = state, actions
    record = GameRecord(
        game=name,
        players=list(last.players),
        seed=8,
        options=module.options_to_dict(module.options_from_dict({})),
        actions=list(taken),
    )
    replayed = GameRecord.from_dict(json.loads(record.to_json())).replay()
    assert replayed.to_position() == last.to_position()
    assert replayed.result() == last.result()


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("bad", [{}, "not a position", {"players": "nobody"}, [1, 2]])
def test_bad_positions_are_refused_with_a_reason(name: str, bad: Any) -> None:
    with pytest.raises(ValueError) as caught:
        get_game(name).from_position(bad)
    assert str(caught.value)


def _some_states(name: str, engine: str | None = None) -> list[Any]:
    states = []
    for index, (state, _) in enumerate(_play(name, get_game(name).MIN_PLAYERS, 9, engine)):
        if index % 7 == 0 and not state.is_over:
            states.append(state.clone())
    return states


_STATES: dict[tuple[str, str], list[Any]] = {}


def _states(name: str, engine: str) -> list[Any]:
    """Some states of a game on ``engine`` (made once, and never changed: tests clone them)."""
    if (name, engine) not in _STATES:
        _STATES[name, engine] = _some_states(name, engine)
    return _STATES[name, engine]


# The notation's own words: the same on every engine (the Python one makes them here).
_WORDS = sorted(
    {
        word
        for name in GAMES
        for s in _some_states(name, "python")
        for a in s.legal_actions()
        for word in a.split()
    }
    | {"", "0", "-1", "99", "Z9", "pass", "decline", "token"}
)


@pytest.mark.parametrize("name", GAMES)
# The engine fixture only sets CRADLE_ENGINE, the same for every example.
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_illegal_actions_raise_and_change_nothing(name: str, engine: str, data: Any) -> None:
    module = get_game(name)
    states = _states(name, engine)
    state = states[data.draw(st.integers(0, len(states) - 1))]
    # Strings made of the notation's own words, or another moment's legal actions.
    other = states[data.draw(st.integers(0, len(states) - 1))]
    text = data.draw(
        st.one_of(
            st.lists(st.sampled_from(_WORDS), min_size=0, max_size=4).map(" ".join),
            st.sampled_from(other.legal_actions()),
            st.text(max_size=12),
        )
    )
    legal = state.legal_actions()
    if " ".join(text.lower().split()) in {" ".join(a.lower().split()) for a in legal}:
        return  # legal after all (case and spaces do not matter)
    before = state.to_position()
    with pytest.raises(module.IllegalAction) as caught:
        state.apply(text)
    assert str(caught.value), "an illegal action must say what is wrong"
    assert state.to_position() == before
    assert state.legal_actions() == legal
