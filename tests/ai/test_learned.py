"""The learned evaluations: the model files, their native twin, self-play data and the fit."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from cradle.ai.gheos_knowledge import GheosKnowledge
from cradle.ai.gheos_knowledge import read as read_gheos
from cradle.ai.learned import FEATURES, Model, model, parse, path_of
from cradle.ai.tigris_knowledge import TigrisKnowledge
from cradle.ai.tigris_knowledge import read as read_tigris
from cradle.ai.training import GameData, SelfPlay, learn, main, pairs, self_play
from cradle.games import get_game

np = pytest.importorskip("numpy")
_native = pytest.importorskip("cradle._native")


@pytest.mark.parametrize("game", ["tigris", "gheos"])
def test_the_repository_model_loads_and_reaches_the_native_search(game: str) -> None:
    found = model(game)
    assert found.features == FEATURES[game]
    assert len(found.weights) == len(FEATURES[game])
    assert found.meta["command"].startswith(f"python -m cradle.ai.training --game {game}")
    assert _native.ai_model(game) == list(found.weights)


def random_states(game: str, count: int, seed: int) -> list[object]:
    """Native states along random games of 2 to 4 players."""
    rng = random.Random(seed)
    states = []
    for k in range(count):
        state = get_game(game).new_game(2 + k % 3, seed + k, engine="native")
        for _ in range(rng.randrange(0, 120)):
            if state.is_over:
                break
            state.apply_id(rng.choice(state.legal_action_ids()))
        states.append(state)
    return states


def test_python_and_native_values_agree_on_random_positions() -> None:
    tigris, gheos = TigrisKnowledge(learned=True), GheosKnowledge(learned=True)
    model("tigris"), model("gheos")  # read, and handed to the native side
    for state in random_states("tigris", 6, 40):
        board = read_tigris(state, None, 2)  # the learned features read value=2
        rows = _native.tigris_ai_features(state)
        for seat, row in enumerate(rows):
            assert row == pytest.approx(board.learned_features(seat), abs=1e-9)
        values = [model("tigris").value(row) for row in rows]
        assert values == pytest.approx(board.learned_values(), abs=1e-9)
        python = tigris.rewards(state)
        assert _native.tigris_ai_rewards(state, False, learned=True) == pytest.approx(
            python, abs=1e-9
        )
    for state in random_states("gheos", 6, 50):
        reading = read_gheos(state)
        rows = _native.gheos_ai_features(state)
        for seat, row in enumerate(rows):
            assert row == pytest.approx(reading.features(seat), abs=1e-9)
        python = gheos.rewards(state)
        assert _native.gheos_ai_rewards(state, True) == pytest.approx(python, abs=1e-9)


def test_gheos_features_name_what_they_read() -> None:
    names = [n.removesuffix("_early") for n in FEATURES["gheos"][: len(FEATURES["gheos"]) // 2]]
    for state in random_states("gheos", 8, 70):
        reading = read_gheos(state)
        for seat in range(reading.n):
            row = reading.features(seat)
            half = len(row) // 2
            sums = [a + b for a, b in zip(row[:half], row[half:], strict=True)]
            whole = dict(zip(names, sums, strict=True))
            # each feature once scaled by the share of the game left, once by the share played
            late = 1.0 - reading.remaining
            assert row[:half] == pytest.approx([x * reading.remaining for x in whole.values()])
            assert row[half:] == pytest.approx([x * late for x in whole.values()])
            assert whole["to_move"] == (1.0 if seat == reading.active else 0.0)
            assert whole["controls_the_end"] == float(reading.controls_the_end(seat))
            assert whole["usable_tokens"] == pytest.approx(reading.usable_tokens(seat))
            assert whole["value_1"] == pytest.approx(reading.seat_value(seat, 1))
            assert whole["hand_set_value"] == pytest.approx(reading.seat_value(seat, 4))
            assert whole["points"] == reading.points[seat]


def test_a_learned_search_plays_both_games() -> None:
    from cradle.ai.levels import make_bot_spec

    for game in ("tigris", "gheos"):
        state = get_game(game).new_game(2, 3, engine="native")
        bot = make_bot_spec("ismcts@40/learned=1", 1)
        action = bot.choose(state, state.to_move)
        assert action in state.legal_actions()


def test_bad_models_are_refused_and_change_nothing(tmp_path: Path) -> None:
    good = json.loads(path_of("gheos").read_text())
    with pytest.raises(ValueError, match="features"):
        parse({**good, "features": good["features"][:-1]})
    with pytest.raises(ValueError, match="weights"):
        parse({**good, "weights": good["weights"][:-1]})
    with pytest.raises(ValueError, match="unknown game"):
        parse({**good, "game": "chess"})
    before = _native.ai_model("gheos")
    with pytest.raises(ValueError, match="30 finite weights"):
        _native.ai_set_model("gheos", [1.0])
    with pytest.raises(ValueError, match="finite"):
        _native.ai_set_model("gheos", [float("nan")] * 30)
    with pytest.raises(ValueError, match="no learned model"):
        _native.ai_set_model("chess", [])
    assert _native.ai_model("gheos") == before


@pytest.mark.parametrize(("game", "players"), [("tigris", 2), ("gheos", 3)])
def test_self_play_records_every_seat_of_every_position(game: str, players: int) -> None:
    data = self_play(SelfPlay(game, 11, players, iterations=4, random_moves=3))
    positions = len(data.features)
    assert positions > 10
    assert data.features.shape == (positions, players, len(FEATURES[game]))
    assert data.remaining.shape == (positions,)
    assert ((data.remaining >= 0) & (data.remaining <= 1)).all()
    assert data.remaining[0] == 1.0
    assert len(data.rewards) == players
    assert sum(data.rewards) == pytest.approx(players / 2)  # shares of opponents beaten


def synthetic(truth: list[float], games: int, seed: int) -> list[GameData]:
    """Two-seat games of one position each, won by seat 0 with chance sigmoid(truth · diff)."""
    rng = np.random.default_rng(seed)
    width = len(FEATURES["gheos"])
    data = []
    for _ in range(games):
        x = rng.normal(size=(1, 2, width)).astype(np.float32)
        x[:, :, len(truth) :] = 0.0
        diff = x[0, 0, : len(truth)].astype(float) - x[0, 1, : len(truth)]
        won = rng.random() < 1 / (1 + np.exp(-(np.array(truth) @ diff)))
        data.append(GameData(x, np.array([0.5]), [1.0, 0.0] if won else [0.0, 1.0]))
    return data


def test_the_fit_recovers_a_known_separating_weight() -> None:
    truth = [1.5, -0.7, 0.0]
    found, report = learn("gheos", synthetic(truth, 2500, 3), penalty=1e-4)
    assert found.weights[:3] == pytest.approx(truth, abs=0.25)
    assert all(w == 0 for w in found.weights[3:])
    assert report["held_out"]["learned"]["accuracy"] > 0.65
    x, y, _ = pairs(synthetic(truth, 10, 4), "gheos")
    assert x.shape == (10, len(FEATURES["gheos"])) and set(y) <= {0.0, 1.0}


def test_the_command_writes_a_model_file(tmp_path: Path) -> None:
    out, data = tmp_path / "tigris.json", tmp_path / "tigris.npz"
    args = ["--game", "tigris", "--games", "3", "--iterations", "3"]
    main([*args, "--out", str(out), "--data", str(data)])
    written = parse(json.loads(out.read_text()))
    assert isinstance(written, Model) and written.meta["games"] == 3
    assert written.meta["positions"] > 0 and data.exists()
    main(["--game", "tigris", "--reuse", "--data", str(data), "--out", str(out)])
    assert parse(json.loads(out.read_text())).weights == written.weights


def test_the_gheos_value_report_rebuilds_value_2_from_the_recorded_features() -> None:
    # Value 2 rebuilt from the features is the knowledge's own value 2 wherever no civilization
    # a seat follows is at war risk.
    from cradle import gheos
    from cradle.ai.gheos_knowledge import Reading
    from cradle.ai.training import gheos_values, scores
    from tests.helpers.ai import random_position

    checked = 0
    for seed in range(40):
        world = gheos.as_gheos(random_position("gheos", 2, seed=seed, steps=24))
        old, new = Reading(world), Reading(world, 2)
        held = [c for seat in range(2) for c in new.held[seat] if c in new.civ]
        if not held or any(new.survival(c) < 1 for c in held) or 0 in new.tokens[:2]:
            continue
        features = np.array([[old.features(s) for s in range(2)]], dtype=np.float32)
        report = gheos_values([GameData(features, np.array([old.remaining]), [1.0, 0.0])])
        assert report["positions"] == 1
        margin = new.seat_value(0) - new.seat_value(1)
        sure = 1 / (1 + np.exp(-margin / new.temperature()))
        expected = scores(np.array([sure]), np.array([1.0]))
        assert report["value 2"]["all"]["log_loss"] == pytest.approx(expected["log_loss"], abs=1e-3)
        assert len(report["value 1"]["by fifth of the epochs to come"]) == 5
        checked += 1
    assert checked >= 3
    assert gheos_values([]) == {"positions": 0}  # no two-player game recorded
    with pytest.raises(Exception, match="Gheos"):
        main(["--game", "tigris", "--values", "--reuse", "--data", "unused.npz"])
