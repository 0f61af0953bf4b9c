"""python -m cradle.selfplay: the shards re-read and checked against the games they record."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cradle.core import native

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built")

from cradle.core.results import ranking_utilities  # noqa: E402
from cradle.envs.spec import get_spec  # noqa: E402
from cradle.games import get_game  # noqa: E402
from cradle.selfplay import main, native_games, uniform  # noqa: E402


def shard_arrays(directory: Path) -> dict[str, dict[str, np.ndarray]]:
    return {path.name: dict(np.load(path).items()) for path in sorted(directory.glob("*.npz"))}


def assert_same_shards(a: Path, b: Path) -> None:
    left, right = shard_arrays(a), shard_arrays(b)
    assert left and sorted(left) == sorted(right)
    for name, arrays in left.items():
        assert sorted(arrays) == sorted(right[name])
        for key, value in arrays.items():
            np.testing.assert_array_equal(value, right[name][key], err_msg=f"{name} {key}")


@pytest.mark.parametrize(
    ("game", "players", "bot"),
    [
        ("tigris", 2, "ismcts@4"),  # native, batched
        ("gheos", 3, "ismcts@4"),
        ("tigris", 2, "ismcts@4/exploration=0.4"),  # the Python bot, game by game
    ],
)
def test_shards_hold_legal_visit_distributions_and_the_games_results(
    tmp_path: Path, game: str, players: int, bot: str
) -> None:
    spec = get_spec(game)
    sizes = ["--bot", bot, "--games", "2", "--games-per-shard", "1", "--seed", "5"]
    main(["--game", game, "--players", str(players), *sizes, "--out", str(tmp_path)])
    shards = sorted(tmp_path.glob("shard-*.npz"))
    assert len(shards) == 2
    for path in shards:
        # read once: an npz file decompresses an array at each item access
        data = dict(np.load(path))
        offsets = data["offsets"]
        positions = len(data["seat"])
        assert positions > 10 and data["observation"].shape[0] == positions
        assert offsets[-1] == len(data["legal_ids"]) == len(data["visits"])
        # replay the recorded game: every position's legal ids are the engine's, the targets
        # a distribution over them, and the stored results the game's own
        (game_id,) = data["game_ids"]
        state = get_game(game).new_game(players, int(data["game_seeds"][0]), engine="native")
        rows = iter(range(positions))
        row = next(rows)
        for ply, action in enumerate(data["game_actions"]):
            if row is not None and data["ply"][row] == ply:
                assert data["game"][row] == game_id and data["seat"][row] == state.to_move
                ids = data["legal_ids"][offsets[row] : offsets[row + 1]]
                assert ids.tolist() == state.legal_action_ids()
                target = data["visits"][offsets[row] : offsets[row + 1]]
                assert target.min() >= 0 and target.sum() == pytest.approx(1.0, abs=1e-5)
                seen = np.zeros(spec.observation_size(players), np.float32)
                spec.fill_observation(state.view(state.to_move), state.to_move, seen)
                np.testing.assert_array_equal(data["observation"][row], seen)
                row = next(rows, None)
            state.apply(int(action))
        assert row is None, "every position lies on the recorded game"
        expected = ranking_utilities(state.result()) if state.is_over else [0.0] * players
        np.testing.assert_allclose(data["result"], np.tile(expected, (positions, 1)))


def test_a_bot_that_does_not_search_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        main(["--bot", "greedy", "--games", "1", "--out", str(tmp_path)])


SMALL = ["--bot", "ismcts@6", "--games", "3", "--games-per-shard", "2", "--seed", "11"]


@pytest.mark.parametrize(("game", "players"), [("tigris", 4), ("gheos", 2)])
def test_the_same_seeds_write_the_same_shards(tmp_path: Path, game: str, players: int) -> None:
    sizes = ["--game", game, "--players", str(players), *SMALL]
    main([*sizes, "--out", str(tmp_path / "a")])
    main([*sizes, "--out", str(tmp_path / "b")])
    assert_same_shards(tmp_path / "a", tmp_path / "b")
    shards = shard_arrays(tmp_path / "a")
    assert len(shards) == 2
    assert shards["shard-00001.npz"]["game_ids"].tolist() == [2]
    assert shards["shard-00000.npz"]["result"].shape[1] == players
    # another seed, other games
    main([*sizes, "--seed", "12", "--out", str(tmp_path / "c")])
    other = shard_arrays(tmp_path / "c")["shard-00000.npz"]["game_actions"]
    assert other.tolist() != shards["shard-00000.npz"]["game_actions"].tolist()


@pytest.mark.parametrize(("game", "players"), [("tigris", 2), ("gheos", 3)])
def test_a_uniform_evaluator_without_a_value_share_changes_nothing(
    tmp_path: Path, game: str, players: int
) -> None:
    sizes = ["--game", game, "--players", str(players), *SMALL]
    main([*sizes, "--out", str(tmp_path / "plain")])
    uniform_model = ["--evaluator", "cradle.selfplay:uniform", "--blend", "0"]
    main([*sizes, "--out", str(tmp_path / "model"), *uniform_model])
    # the same visits at every position, the same moves, the same games
    assert_same_shards(tmp_path / "plain", tmp_path / "model")


class Recording:
    """An evaluator that keeps what it was asked; its priors favour high action ids and its
    values favour seat 0 (relative to each row's seat to move, as the contract says)."""

    def __init__(self, actions: int, players: int) -> None:
        self.prior = np.linspace(0.01, 1.0, actions, dtype=np.float32) ** 4
        self.players = players
        self.batches: list[np.ndarray] = []
        self.seats: list[np.ndarray] = []

    def __call__(
        self, observations: np.ndarray, seats: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        self.batches.append(observations.copy())
        self.seats.append(seats.copy())
        rows = observations.shape[0]
        values = np.zeros((rows, self.players), np.float32)
        values[np.arange(rows), (-seats) % self.players] = 1.0  # seat 0, relative to the mover
        return np.tile(self.prior, (rows, 1)), values


def test_a_model_is_asked_in_batches_and_changes_the_decisions() -> None:
    spec = get_spec("tigris")
    ids = [0, 1, 2, 3]
    plain = native_games("tigris", 2, 8, ids, seed=4)
    neutral = native_games("tigris", 2, 8, ids, seed=4, evaluator=uniform("tigris", 2), blend=0.0)
    for key, value in plain.items():
        np.testing.assert_array_equal(value, neutral[key], err_msg=key)
    model = Recording(len(spec.encoding), 2)
    modelled = native_games("tigris", 2, 8, ids, seed=4, evaluator=model)
    # one call per search step, for a leaf (or the root) of each game's tree together
    assert max(b.shape[0] for b in model.batches) == 4
    assert all(b.shape[1] == spec.observation_size(2) for b in model.batches)
    # each row with its seat to move: both seats' leaves are asked about
    assert {int(s) for seats in model.seats for s in seats} == {0, 1}
    rows, positions = sum(b.shape[0] for b in model.batches), len(modelled["seat"])
    assert positions <= rows <= positions * (8 + 1)
    # the first position (the same deal) is searched otherwise, and the games go otherwise
    first = plain["offsets"][1]
    assert modelled["offsets"][1] == first
    assert not np.array_equal(plain["visits"][:first], modelled["visits"][:first])
    assert plain["game_actions"].tolist() != modelled["game_actions"].tolist()


def test_a_bad_evaluator_answer_is_a_clear_error() -> None:
    def wrong_shape(observations: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.ones((observations.shape[0], 5), np.float32), np.zeros((1, 2), np.float32)

    with pytest.raises(ValueError, match=r"priors of shape \(\d+, 3398\)"):
        native_games("tigris", 2, 4, [0], seed=1, evaluator=wrong_shape)

    def negative(observations: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = observations.shape[0]
        return -np.ones((rows, 3398), np.float32), np.zeros((rows, 2), np.float32)

    with pytest.raises(ValueError, match="finite and at least 0"):
        native_games("tigris", 2, 4, [0], seed=1, evaluator=negative)

    def failing(observations: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise ZeroDivisionError("the model's own error")

    with pytest.raises(ZeroDivisionError, match="the model's own error"):
        native_games("tigris", 2, 4, [0], seed=1, evaluator=failing)


@pytest.mark.parametrize(
    ("bot", "evaluator"),
    [
        ("pimc@4", "cradle.selfplay:uniform"),  # not the native self-play
        ("ismcts@4", "cradle.selfplay"),  # not module:factory
        ("ismcts@4", "cradle.selfplay:no_such_factory"),
        ("ismcts@4", "no_such_module_here:uniform"),
    ],
)
def test_a_bad_evaluator_is_refused_before_any_game(
    tmp_path: Path, bot: str, evaluator: str
) -> None:
    with pytest.raises(SystemExit):
        main(["--bot", bot, "--games", "1", "--out", str(tmp_path), "--evaluator", evaluator])
    assert not list(tmp_path.glob("*.npz"))


@pytest.mark.long
def test_ray_and_local_processes_write_the_same_shards(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    sizes = ["--bot", "ismcts@4", "--games", "2", "--games-per-shard", "1", "--seed", "3"]
    main([*sizes, "--out", str(tmp_path / "local"), "--workers", "2"])
    # the Ray tasks load the (neutral) evaluator in their own processes
    uniform_model = ["--evaluator", "cradle.selfplay:uniform", "--blend", "0"]
    main(
        [*sizes, "--out", str(tmp_path / "ray"), "--ray", "local", "--workers", "2", *uniform_model]
    )
    for name in ("shard-00000.npz", "shard-00001.npz"):
        local, ray = np.load(tmp_path / "local" / name), np.load(tmp_path / "ray" / name)
        assert sorted(local.files) == sorted(ray.files)
        for key in local.files:
            np.testing.assert_array_equal(local[key], ray[key])
