"""The ids loop's fast path on the native engines (``legal_action_ids()`` then ``apply_id`` of
one of them, which applies from the moves the list was made from, without checking again)
against the Python reference applying the same id with every check: the same legal lists in
order and the same positions after every action, for whole random games of both games."""

from __future__ import annotations

import itertools
import random

import pytest

from cradle.core import native
from cradle.core.contract import IllegalAction, fast
from cradle.games import get_game

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built")

TIGRIS_TABLES = [
    (players, dict(zip(("board", "buildings", "english", "wonder"), flags, strict=True)))
    for players, flags in zip(
        itertools.cycle((2, 3, 4)),
        itertools.product(("standard", "advanced"), (False, True), (False, True), (False, True)),
    )
]


def play(game: str, players: int, options: dict[str, object], seed: int) -> int:
    module = get_game(game)
    table = module.options_from_dict(options)
    quick = fast(module.new_game(players, seed, table, engine="native"))
    reference = module.new_game(players, seed, table, engine="python")
    rng = random.Random(seed)
    steps = 0
    while not reference.is_over:
        ids = quick.legal_action_ids()
        assert ids == reference.legal_action_ids(), f"{game} seed {seed} step {steps}"
        action = ids[rng.randrange(len(ids))]
        quick.apply_id(action)
        reference.apply(action)
        steps += 1
        assert quick.to_position() == reference.to_position(), f"{game} seed {seed} step {steps}"
    assert quick.is_over and quick.result() == reference.result()
    return steps


@pytest.mark.parametrize(("players", "options"), TIGRIS_TABLES)
def test_tigris_apply_id_after_the_legal_list_plays_as_the_reference(
    players: int, options: dict[str, object]
) -> None:
    seed = 100 + TIGRIS_TABLES.index((players, options))
    assert play("tigris", players, options, seed) > 50


@pytest.mark.parametrize("players", [2, 3, 4])
def test_gheos_apply_id_after_the_legal_list_plays_as_the_reference(players: int) -> None:
    for seed in range(3):
        assert play("gheos", players, {}, 10 * players + seed) > 10


def test_a_refused_id_after_the_legal_list_changes_nothing_and_the_next_one_plays() -> None:
    state = fast(get_game("tigris").new_game(2, 3, engine="native"))
    ids = state.legal_action_ids()
    before = state.to_position()
    illegal = next(i for i in range(10_000) if i not in set(ids))
    for bad in (illegal, True, -1):
        with pytest.raises(IllegalAction):
            state.apply_id(bad)  # type: ignore[arg-type]
        assert state.to_position() == before
    assert state.legal_action_ids() == ids
    state.apply_id(ids[-1])
    assert state.to_position() != before
