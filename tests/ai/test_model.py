"""Learned networks in play: the checkpoint read natively, the search and the pure policy
that take one (``ismcts@N/model=PATH``, ``policy/model=PATH``), self-play with one per seat."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cradle.core import native

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built")

from cradle import _native  # noqa: E402
from cradle.ai.bots import UnknownBot, make_bot  # noqa: E402
from cradle.ai.levels import make_bot_spec  # noqa: E402
from cradle.ai.model import load, shipped, split_model  # noqa: E402
from cradle.cli.duel import run_duel  # noqa: E402
from cradle.envs.spec import get_spec  # noqa: E402
from cradle.games import get_game  # noqa: E402
from cradle.selfplay import native_games  # noqa: E402
from tests.helpers.checkpoints import (  # noqa: E402
    reference_forward,
    tigris_checkpoint,
    tigris_network,
    write_checkpoint,
)


@pytest.fixture
def network(tmp_path: Path) -> Path:
    # a folder with an upper-case letter: a spec keeps the path as typed
    folder = tmp_path / "Nets"
    folder.mkdir()
    return tigris_checkpoint(folder / "tiny.safetensors")


def played(state: object, seats: list[object], moves: int) -> list[str]:
    """The first ``moves`` actions the bots choose (each seat its bot)."""
    chosen = []
    for _ in range(moves):
        if state.is_over:  # type: ignore[attr-defined]
            break
        seat = state.to_move  # type: ignore[attr-defined]
        action = seats[seat].choose(state, seat)  # type: ignore[attr-defined]
        chosen.append(action)
        state.apply(action)  # type: ignore[attr-defined]
    return chosen


def test_the_native_network_computes_what_numpy_does(network: Path) -> None:
    model = _native.Model.load(str(network))
    spec = get_spec("tigris")
    assert (model.game, model.players, model.width) == ("tigris", 2, 8)
    assert (model.inputs, model.actions) == (spec.observation_size(2), len(spec.encoding))
    state = get_game("tigris").new_game(2, 5, engine="native")
    rows = []
    for _ in range(30):  # observations of a few positions, each its mover's
        x = np.zeros(spec.observation_size(2), np.float32)
        spec.fill_observation(state.view(state.to_move), state.to_move, x)
        rows.append(x)
        state.apply(state.legal_actions()[0])
    batch = np.stack(rows)
    logits, values = model.forward(batch)
    expected_logits, expected_values = reference_forward(tigris_network(), batch)
    np.testing.assert_allclose(logits, expected_logits, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(values, expected_values, rtol=1e-4, atol=1e-5)
    # the state's own observation, written natively, is the one the envs give
    state = get_game("tigris").new_game(2, 5, engine="native")
    ids = state.legal_action_ids()
    judged, seat_values = model.judge(state, ids)
    np.testing.assert_allclose(judged, logits[0, ids], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(seat_values, values[0], rtol=1e-5)


def test_a_bad_checkpoint_is_refused_with_its_reason(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="safetensors"):
        _native.Model(b"junk")
    meta = {"format": "cradle-mlp", "version": "1", "game": "tigris", "players": "2"}
    headless = write_checkpoint(
        tmp_path / "headless.safetensors",
        {"layer0.weight": np.zeros((4, 2), np.float32), "layer0.bias": np.zeros(2, np.float32)},
        meta,
    )
    with pytest.raises(ValueError, match=r"policy\.weight"):
        load(str(headless))
    with pytest.raises(ValueError, match="no model"):
        load(str(tmp_path / "missing.safetensors"))
    # a network of another shape cannot search a Tigris game
    small = write_checkpoint(
        tmp_path / "small.safetensors",
        {
            "layer0.weight": np.zeros((4, 2), np.float32),
            "layer0.bias": np.zeros(2, np.float32),
            "policy.weight": np.zeros((2, 3), np.float32),
            "policy.bias": np.zeros(3, np.float32),
            "value.weight": np.zeros((2, 2), np.float32),
            "value.bias": np.zeros(2, np.float32),
        },
        meta,
    )
    bot = make_bot_spec(f"ismcts@10/model={small}", 1)
    state = get_game("tigris").new_game(2, 3, engine="native")
    with pytest.raises(ValueError, match="reads 4 inputs"):
        bot.choose(state, state.to_move)
    with pytest.raises(UnknownBot, match="bad model"):
        make_bot_spec(f"ismcts@10/model={tmp_path / 'missing'}", 1)


def test_specs_keep_the_model_as_typed() -> None:
    assert split_model("ISMCTS@50/Exploration=0.3/model=/tmp/A/B.safetensors") == (
        "ismcts@50/exploration=0.3",
        "/tmp/A/B.safetensors",
    )
    assert split_model("Hard") == ("hard", None)
    with pytest.raises(ValueError, match="names no model"):
        split_model("policy/model=")
    with pytest.raises(UnknownBot, match="takes no model"):
        make_bot_spec("greedy/model=x", 1)


def test_a_neutral_network_without_a_value_share_changes_no_decision(tmp_path: Path) -> None:
    # all weights 0: equal priors (every log-prior term 0) and even values, mixed in at 0
    zero = tigris_checkpoint(tmp_path / "zero.safetensors", scale=0.0)
    game = get_game("tigris")
    plain = played(game.new_game(2, 8, engine="native"), [make_bot_spec("ismcts@40", 3)] * 2, 12)
    bot = make_bot_spec(f"ismcts@40/blend=0/model={zero}", 3)
    assert played(game.new_game(2, 8, engine="native"), [bot] * 2, 12) == plain


def test_search_and_policy_with_a_model_play_in_duel(network: Path) -> None:
    result = run_duel("tigris", f"ismcts@20/model={network}", "random", 2, 2, {}, 4)
    assert result.games == 2
    result = run_duel("tigris", f"policy/model={network}", "random", 2, 2, {}, 4)
    assert result.games == 2
    # the learned switch: the network alone searches otherwise than mixed in
    game = get_game("tigris")
    mixed = played(
        game.new_game(2, 8, engine="native"), [make_bot(f"ismcts@60/model={network}", 3)] * 2, 8
    )
    pure = played(
        game.new_game(2, 8, engine="native"),
        [make_bot(f"ismcts@60/learned=1/model={network}", 3)] * 2,
        8,
    )
    assert mixed != pure
    # hard/model=...: the level's budget with the network
    assert make_bot_spec(f"hard/model={network}", 1).name == f"hard/model={network}"


def test_the_pure_policy_plays_the_networks_best_legal_action(network: Path) -> None:
    bot = make_bot(f"policy/model={network}", 1)
    model = load(str(network))
    state = get_game("tigris").new_game(2, 9, engine="native")
    for _ in range(20):
        actions = state.legal_actions()
        seat = state.to_move
        logits, _ = model.judge(state, state.legal_action_ids())
        chosen = bot.choose(state, seat)
        if len(actions) > 1:
            assert chosen == actions[int(np.argmax(logits))]
        state.apply(chosen)
    # on the Python engine it reads the view's observation: the same choices
    python_state = get_game("tigris").new_game(2, 9, engine="python")
    native_state = get_game("tigris").new_game(2, 9, engine="native")
    a, b = make_bot(f"policy/model={network}", 1), make_bot(f"policy/model={network}", 1)
    assert played(python_state, [a, a], 10) == played(native_state, [b, b], 10)


def test_self_play_takes_a_model_per_seat_a_temperature_and_noise(network: Path) -> None:
    model = load(str(network))
    ids = [0, 1]
    plain = native_games("tigris", 2, 8, ids, seed=4)
    one_seat = native_games("tigris", 2, 8, ids, seed=4, models=[model, None])
    assert one_seat["game_actions"].tolist() != plain["game_actions"].tolist()
    again = native_games("tigris", 2, 8, ids, seed=4, models=[model, None])
    assert again["game_actions"].tolist() == one_seat["game_actions"].tolist()
    hot = native_games("tigris", 2, 8, ids, seed=4, temperature=1.0, sampled=6)
    assert hot["game_actions"].tolist() != plain["game_actions"].tolist()
    noisy = native_games("tigris", 2, 8, ids, seed=4, noise=(0.25, 0.3))
    first = plain["offsets"][1]
    assert not np.array_equal(noisy["visits"][:first], plain["visits"][:first])
    with pytest.raises(ValueError, match="one model"):
        native_games("tigris", 2, 8, ids, seed=4, models=[model])


def test_the_shipped_networks_load_by_name() -> None:
    names = shipped()
    assert "tigris-2p" in names
    model = load("tigris-2p")
    assert (model.game, model.players) == ("tigris", 2)
    assert Path(model.metadata["command"].split()[0]).name.startswith("python")


def test_an_env_opponent_takes_a_model(network: Path) -> None:
    gymnasium = pytest.importorskip("gymnasium")
    import cradle.envs  # noqa: F401  (registers the envs)

    env = gymnasium.make("cradle/Tigris-v1", players=2, opponents=f"policy/model={network}")
    env.reset(seed=3)
    steps = 0
    for _ in range(5):
        action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
        _, _, terminated, truncated, info = env.step(action)
        steps += 1
        assert info["seat"] in (0, 1)
        if terminated or truncated:
            break
    assert steps >= 1
    env.close()


def test_a_gheos_network_searches_a_gheos_game(tmp_path: Path) -> None:
    path = tigris_checkpoint(tmp_path / "gheos.safetensors", game="gheos", hidden=(2,))
    state = get_game("gheos").new_game(2, 4, engine="native")
    for spec in (f"ismcts@20/model={path}", f"ismcts@20/learned=1/model={path}"):
        bot = make_bot_spec(spec, 1)
        assert bot.choose(state, state.to_move) in state.legal_actions()
    # a Tigris network cannot search Gheos
    tigris = tigris_checkpoint(tmp_path / "tigris.safetensors")
    with pytest.raises(ValueError, match="plays tigris"):
        make_bot_spec(f"ismcts@20/model={tigris}", 1).choose(state, state.to_move)
