"""python -m cradle.selfplay: the shards re-read and checked against the games they record."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cradle.core import native

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built")

from cradle.core.results import ranking_utilities  # noqa: E402
from cradle.games import get_game  # noqa: E402
from cradle.selfplay import main  # noqa: E402


@pytest.mark.parametrize(("game", "players"), [("tigris", 2), ("gheos", 3)])
def test_shards_hold_legal_visit_distributions_and_the_games_results(
    tmp_path: Path, game: str, players: int
) -> None:
    sizes = ["--bot", "ismcts@4", "--games", "2", "--games-per-shard", "1", "--seed", "5"]
    main(["--game", game, "--players", str(players), *sizes, "--out", str(tmp_path)])
    shards = sorted(tmp_path.glob("shard-*.npz"))
    assert len(shards) == 2
    for path in shards:
        data = np.load(path)
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
                row = next(rows, None)
            state.apply(int(action))
        assert row is None, "every position lies on the recorded game"
        expected = ranking_utilities(state.result()) if state.is_over else [0.0] * players
        np.testing.assert_allclose(data["result"], np.tile(expected, (positions, 1)))


def test_a_bot_that_does_not_search_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        main(["--bot", "greedy", "--games", "1", "--out", str(tmp_path)])


@pytest.mark.long
def test_ray_and_local_processes_write_the_same_shards(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    sizes = ["--bot", "ismcts@4", "--games", "2", "--games-per-shard", "1", "--seed", "3"]
    main([*sizes, "--out", str(tmp_path / "local"), "--workers", "2"])
    main([*sizes, "--out", str(tmp_path / "ray"), "--ray", "local", "--workers", "2"])
    for name in ("shard-00000.npz", "shard-00001.npz"):
        local, ray = np.load(tmp_path / "local" / name), np.load(tmp_path / "ray" / name)
        assert sorted(local.files) == sorted(ray.files)
        for key in local.files:
            np.testing.assert_array_equal(local[key], ray[key])
