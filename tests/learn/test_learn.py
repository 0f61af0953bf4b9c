"""python -m cradle.learn: a tiny run end to end, its checkpoints read natively, resumed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cradle.core import native

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built")

from cradle import _native  # noqa: E402
from cradle.envs.spec import get_spec  # noqa: E402
from cradle.envs.tensors import observation_scales  # noqa: E402
from cradle.learn import replay  # noqa: E402
from cradle.learn.loop import main  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _learn_extra(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The ``learn`` extra, asked for when a test runs: importing JAX while collecting would
    cost every pytest worker about a CPU-second, most of which never run these tests. XLA's
    compilations are kept on disk for the module: each run of the loop compiles its training
    step again, the same one."""
    jax = pytest.importorskip("jax")
    pytest.importorskip("optax")
    jax.config.update("jax_compilation_cache_dir", str(tmp_path_factory.mktemp("xla")))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)


def test_a_tiny_run_writes_checkpoints_that_load_and_goes_on_when_resumed(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["--game", "tigris", "--players", "2", "--tiny", "--out", str(out)]
    main([*args, "--iterations", "2"])
    log = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    assert [e["iteration"] for e in log] == [0, 1]
    for entry in log:
        assert entry["positions"] > 0
        assert np.isfinite(entry["policy_loss"]) and np.isfinite(entry["value_loss"])
        assert 0.0 <= entry["gate"] <= 1.0 and 0.0 <= entry["anchor"] <= 1.0
    for i in (1, 2):
        model = _native.Model.load(str(out / "models" / f"iteration-{i:04d}.safetensors"))
        assert (model.game, model.players, model.width) == ("tigris", 2, 16)
        assert model.metadata["command"].startswith("python -m cradle.learn ")
    assert (out / "strength.png").stat().st_size > 0
    assert json.loads((out / "state.json").read_text())["done"] == 2
    # resumed with one more iteration: only the third runs
    main([*args, "--iterations", "3"])
    log = (out / "log.jsonl").read_text().splitlines()
    assert [json.loads(line)["iteration"] for line in log] == [0, 1, 2]
    # other settings in the same directory are refused
    with pytest.raises(SystemExit):
        main([*args, "--iterations", "4", "--search", "9"])


def test_the_export_folds_the_scales_and_the_native_network_agrees(tmp_path: Path) -> None:
    import jax

    from cradle.learn import network

    spec = get_spec("tigris")
    inputs, actions = spec.observation_size(2), len(spec.encoding)
    params = network.init(jax.random.PRNGKey(3), inputs, (12, 6), actions, 2)
    # heads away from zero, so the logits differ
    key = jax.random.PRNGKey(4)
    params["policy"]["weight"] = jax.random.normal(key, (6, actions))
    params["value"]["weight"] = jax.random.normal(key, (6, 2))
    scales = observation_scales(spec, 2).astype(np.float32)
    path = tmp_path / "net.safetensors"
    network.export(params, scales, path, {"game": "tigris", "players": "2"})
    model = _native.Model.load(str(path))
    from cradle.games import get_game

    state = get_game("tigris").new_game(2, 2, engine="native")
    x = np.zeros((1, inputs), np.float32)
    spec.fill_observation(state.view(state.to_move), state.to_move, x[0])
    logits, values = model.forward(x)
    jax_logits, jax_values = network.forward(params, x / scales[None, :])
    np.testing.assert_allclose(logits, np.asarray(jax_logits), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(values, jax.nn.sigmoid(np.asarray(jax_values)), rtol=1e-4)
    restored = network.restore(path, scales)
    np.testing.assert_allclose(
        np.asarray(restored["layer0"]["weight"]), np.asarray(params["layer0"]["weight"]), rtol=1e-5
    )


def test_values_are_turned_to_the_seats_relative_to_the_mover() -> None:
    result = np.array([[1.0, -1.0], [1.0, -1.0], [0.0, 0.0]], np.float32)
    seat = np.array([0, 1, 1])
    np.testing.assert_array_equal(
        replay.relative_rewards(result, seat), [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]
    )


def test_the_replay_window_holds_whole_observations_as_bytes(tmp_path: Path) -> None:
    from cradle.selfplay import native_games

    paths = []
    for i in range(2):
        arrays = native_games("tigris", 2, 4, [i], seed=5)
        paths.append(tmp_path / f"shard-{i}.npz")
        np.savez_compressed(paths[-1], **arrays)  # type: ignore[arg-type]
    positions = replay.load(paths)
    raw = np.concatenate([np.load(p)["observation"] for p in paths])
    assert positions.observation.dtype == np.uint8
    np.testing.assert_array_equal(positions.observation, raw)
    spec = get_spec("tigris")
    scales = observation_scales(spec, 2).astype(np.float32)
    rows = np.array([0, len(positions) - 1])
    x, mask, target, values = replay.batch(positions, rows, len(spec.encoding), scales)
    np.testing.assert_array_equal(x, raw[rows] / scales[None, :])
    np.testing.assert_allclose(target.sum(axis=1), 1.0, rtol=1e-5)
    assert (target <= mask).all() and values.shape == (2, 2)
    # a shard whose values are not bytes keeps float32
    odd = dict(np.load(paths[0]))
    odd["observation"] = odd["observation"] + 0.5
    np.savez_compressed(tmp_path / "odd.npz", **odd)  # type: ignore[arg-type]
    mixed = replay.load([paths[1], tmp_path / "odd.npz"])
    assert mixed.observation.dtype == np.float32
    np.testing.assert_array_equal(mixed.observation[-1], odd["observation"][-1])


def test_a_teachers_games_are_its_choices_in_the_shards_form() -> None:
    from cradle.learn.teacher import seating, teacher_games

    arrays = teacher_games("tigris", 2, "expert-rules", ["random"], range(4), seed=3)
    assert [seating(g, 2, "expert-rules", ["random"]) for g in range(2)] == [
        ["expert-rules", "random"],
        ["random", "expert-rules"],
    ]
    offsets, legal, visits = arrays["offsets"], arrays["legal_ids"], arrays["visits"]
    rows, width = len(arrays["seat"]), get_spec("tigris").observation_size(2)
    assert rows > 0 and arrays["observation"].shape == (rows, width)
    assert arrays["observation"].dtype == np.uint8
    # only the teacher's seat, each row one chosen legal action among several
    assert (arrays["seat"] == arrays["game"] % 2).all()
    for r in range(rows):
        row = visits[offsets[r] : offsets[r + 1]]
        assert len(row) > 1 and row.sum() == 1.0 and set(row) == {0.0, 1.0}
    # the games replay from their deals to the recorded positions: the teacher's choice is
    # the next action of its game, and the bot's own choice there (the same seed)
    from cradle import _native
    from cradle.selfplay import seeds_of

    spec = get_spec("tigris")
    replayed = 0
    for k, g in enumerate(arrays["game_ids"]):
        deal, bot_seeds = seeds_of(3, int(g), 2)
        state: Any = spec.module.new_game(2, deal, engine="native")
        teacher = _native.NativeBot("expert-rules", bot_seeds[int(g) % 2])
        played = arrays["game_actions"][arrays["game_offsets"][k] : arrays["game_offsets"][k + 1]]
        mine = np.flatnonzero(arrays["game"] == g)
        plies = arrays["ply"][mine]
        for ply, action in enumerate(played):
            if ply in plies:
                r = mine[list(plies).index(ply)]
                chosen = legal[offsets[r] : offsets[r + 1]][visits[offsets[r] : offsets[r + 1]] > 0]
                assert chosen.tolist() == [int(action)]
                observation = np.zeros((1, arrays["observation"].shape[1]), np.float32)
                _native.Batch([state]).observe(np.array([state.to_move]), observation)
                np.testing.assert_array_equal(observation[0], arrays["observation"][r])
                replayed += 1
            if state.to_move == int(g) % 2:
                assert teacher.choose_id(state, state.to_move) == int(action)
            state.apply_id(int(action))
        assert state.is_over
        utilities = [float(u) for u in arrays["result"][mine[0]]]
        assert sorted(utilities) == [-1.0, 1.0] or utilities == [0.0, 0.0]
    assert replayed == rows


def test_a_tiny_run_with_a_teacher_trains_on_its_games(tmp_path: Path) -> None:
    out = tmp_path / "taught"
    main(
        [
            "--game", "tigris", "--players", "2", "--tiny", "--iterations", "1",
            "--teacher", "expert-rules", "--teacher-opponents", "greedy,random",
            "--out", str(out),
        ]
    )  # fmt: skip
    with np.load(out / "shards" / "iteration-0000.npz") as shard:
        assert shard["observation"].dtype == np.uint8
        assert set(shard["visits"].tolist()) == {0.0, 1.0}
    entry = json.loads((out / "log.jsonl").read_text())
    assert entry["positions"] > 0 and np.isfinite(entry["policy_loss"])
    _native.Model.load(str(out / "models" / "iteration-0001.safetensors"))
    with pytest.raises(SystemExit):
        main(["--tiny", "--teacher", "no-such-bot", "--out", str(tmp_path / "x")])
