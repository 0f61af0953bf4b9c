"""The fast paths (``cradle.core.contract.FastState``): the same names and answers on every
engine of both games, checked against the contract's own calls."""

from __future__ import annotations

import random
from typing import Any

import pytest

from cradle.core import native
from cradle.core.contract import FastState, IllegalAction, fast
from cradle.core.hidden import CanonicalRandom
from cradle.games import get_game

ENGINES = ("python", "native") if native.available() else ("python",)


def states(game: str, engine: str, seed: int) -> list[FastState]:
    """Every state of one random game (started from each engine's new game)."""
    module = get_game(game)
    rng = random.Random(seed)
    state = fast(module.new_game(2 + seed % 2, seed, engine=engine))
    out = [state.clone()]
    while not state.is_over and len(out) < 120:
        ids = state.legal_action_ids()
        state.apply(ids[rng.randrange(len(ids))])
        out.append(state.clone())
    return out


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_fast_paths_answer_as_the_contract_does(game: str, engine: str) -> None:
    rng = random.Random(5)
    for state in states(game, engine, 3):
        ids = state.legal_action_ids()
        assert state.legal_action_count() == len(ids)
        for index in {0, len(ids) - 1, rng.randrange(max(1, len(ids)))} if ids else set():
            assert state.legal_action_at(index) == ids[index]
        with pytest.raises(IndexError):
            state.legal_action_at(len(ids))
        r = rng.getrandbits(64)
        if not ids:
            with pytest.raises(IndexError):
                state.random_action_id(r)
            continue
        assert state.random_action_id(r) == ids[r % len(ids)]
        strings = state.legal_actions()
        chosen = rng.randrange(len(ids))
        assert state.action_string(ids[chosen]) == strings[chosen]
        quiet, loud = state.clone(), state.clone()
        quiet.apply_id(ids[chosen])
        loud.apply(ids[chosen])
        assert quiet.to_position() == loud.to_position()
        assert quiet.legal_action_ids() == loud.legal_action_ids()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_apply_id_refuses_what_is_not_a_legal_id_and_changes_nothing(
    game: str, engine: str
) -> None:
    state = fast(get_game(game).new_game(2, 8, engine=engine))
    before = state.to_position()
    legal = set(state.legal_action_ids())
    illegal_id = next(i for i in range(100_000) if i not in legal)
    for bad in (illegal_id, -1, 10**9, "pass", True, 1.0):
        with pytest.raises(IllegalAction):
            state.apply_id(bad)  # type: ignore[arg-type]
        assert state.to_position() == before
    for bad in ("pass", True):
        with pytest.raises(IllegalAction):
            state.action_string(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_random_playout_plays_a_seeded_game_to_its_end(game: str, engine: str) -> None:
    one = fast(get_game(game).new_game(2, 4, engine=engine))
    two = one.clone()
    played = one.random_playout(11)
    assert one.is_over and played > 10
    assert two.random_playout(11) == played
    assert two.to_position() == one.to_position()
    assert one.legal_action_count() == 0


@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_seeded_worlds_are_the_canonical_random_ones_on_every_engine(game: str) -> None:
    worlds: dict[str, list[Any]] = {}
    for engine in ENGINES:
        found = worlds.setdefault(engine, [])
        for state in states(game, engine, 6)[::15]:
            seat = state.to_move
            for seed in (0, 5, 2**64 - 1):
                seeded = state.sample_hidden_seeded(seat, seed)
                assert seeded.to_position() == (
                    state.sample_hidden(seat, CanonicalRandom(seed)).to_position()
                )
                found.append(seeded.to_position())
    assert all(found == worlds["python"] for found in worlds.values())


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_apply_quiet_is_apply_without_events(game: str, engine: str) -> None:
    rng = random.Random(2)
    for state in states(game, engine, 4)[::7]:
        if state.is_over:
            continue
        action = rng.choice(state.legal_actions())
        quiet, loud = state.clone(), state.clone()
        assert quiet.apply_quiet(action) is None  # type: ignore[func-returns-value]
        loud.apply(action)
        assert quiet.to_position() == loud.to_position()
        with pytest.raises(IllegalAction):
            quiet.apply_quiet("dance")
