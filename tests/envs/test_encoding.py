"""The fixed action encodings: bijective, complete on the engines' own legal actions."""

from __future__ import annotations

import pytest

from cradle import tigris
from cradle.envs.encoding import UnknownAction, tigris_encoding
from cradle.envs.gheos_spec import GheosSpec
from cradle.envs.spec import env_game_names, get_spec
from tests.helpers.envs import SETUPS, random_states


def test_every_registered_game_has_a_spec() -> None:
    # A new game must get a spec to become an environment; today both games have one.
    assert set(env_game_names()) == {"tigris", "gheos"}


def test_tigris_encoding_numbers_exactly_the_notation() -> None:
    encoding = tigris_encoding()
    assert len(encoding) == len(set(encoding.strings)) == 3398
    # The engine's own numbering, id for id: its ids pass through the adapters unchanged.
    assert list(encoding.strings) == tigris.all_action_strings()
    assert encoding.strings[:2] == ("leader priest A1", "leader priest B1")
    assert encoding.strings[704] == "withdraw priest" and encoding.strings[708] == "tile red A1"
    assert encoding.strings[1797] == "pass" and encoding.strings[-1] == "decline"
    for action_id, text in enumerate(encoding.strings):
        assert encoding.encode(text) == action_id
        assert encoding.decode(action_id) == text


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("Tile RED k2", "tile red K2"),
        ("  swap blue   red black ", "swap red blue black"),
        ("monument blue-red G5", "monument red-blue G5"),
        ("COMMIT 3", "commit 3"),
    ],
)
def test_tigris_hand_written_spellings_map_to_the_canonical_id(
    written: str, canonical: str
) -> None:
    encoding = tigris_encoding()
    assert encoding.decode(encoding.encode(written)) == canonical


@pytest.mark.parametrize("bad", ["", "tile purple K2", "leader king Q1", "swap", "commit 7"])
def test_tigris_strings_outside_the_notation_are_refused(bad: str) -> None:
    with pytest.raises(UnknownAction):
        tigris_encoding().encode(bad)


@pytest.mark.parametrize("bad_id", [-1, 3398, True])
def test_ids_out_of_range_are_refused(bad_id: int) -> None:
    with pytest.raises(UnknownAction):
        tigris_encoding().decode(bad_id)


@pytest.mark.parametrize(("game", "players", "options"), SETUPS)
def test_every_legal_action_of_random_games_has_an_id_and_back(
    game: str, players: int, options: dict[str, object]
) -> None:
    spec = get_spec(game)
    seen = 0
    for seed in range(2):
        for state in random_states(game, players, options, seed):
            legal = state.legal_actions()
            ids = spec.encode_legal(state, legal)
            assert len(set(ids)) == len(ids), "two legal actions share an id"
            assert all(0 <= i < len(spec.encoding) for i in ids)
            assert [spec.decode(state, i) for i in ids] == legal
            seen += len(legal)
    assert seen > 100


def test_gheos_tile_actions_are_numbered_by_hand_slot() -> None:
    spec = get_spec("gheos")
    assert isinstance(spec, GheosSpec)
    state = next(random_states("gheos", 2, {}, seed=5))
    legal = state.legal_actions()
    tiles = sorted({int(a.split()[1][1:]) for a in legal if a.startswith("place")})
    first = next(a for a in legal if a.startswith(f"place t{tiles[0]} "))
    slot_text = spec.encoding.decode(spec.encode_legal(state, [first])[0])
    assert slot_text.startswith("place #0 ")
    assert spec.encode_action(state, first) == spec.encode_legal(state, [first])[0]
    with pytest.raises(UnknownAction):
        spec.encode_action(state, "place t0 0,1 r0")  # the start tile is never in a hand


@pytest.mark.parametrize(("game", "players", "options"), SETUPS)
def test_the_engines_ids_are_the_encodings_ids(
    game: str, players: int, options: dict[str, object]
) -> None:
    spec = get_spec(game)
    for state in random_states(game, players, options, seed=3):
        assert spec.legal_ids(state) == spec.encode_legal(state, state.legal_actions())
